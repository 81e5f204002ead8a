/* The policies that play the seats the learner does not (ABI 1.7 seats):
   a scripted opponent (an algorithm plugin with its options), a snapshot
   (a checkpoint or run directory, built from its own config), or the
   learner's self-play pool.  All act in RL_MODE_EVAL on batches of rows of
   the env's observation. */
#ifndef RLHOST_OPPONENT_H
#define RLHOST_OPPONENT_H

#include <stdint.h>

#include <rlhost/plugin.h>
#include <rlhost/rlcore.h>

#include "base/text.h"
#include "plugin/config.h"
#include "search/searcher.h"
#include "spaces/spaces.h"

/* One policy, ready to act on up to `rows` rows. */
typedef struct rl__player {
    char name[192]; /* as a sentence names it: "connect_four_alphabeta(depth=4)", "snapshot of step 50000" */
    const rl_algo_vtable *vt;
    void *algo;
    rl__config own;
    char *changed[64];  /* the option keys snapshot_options sets ("algo.deterministic_eval") */
    uint32_t n_changed; /* a snapshot file's own config (own.arena is empty otherwise) */
    int has_own;
    int human;       /* "human": a person moves, through the program's rl__human_fn */
    char path[4200]; /* a snapshot's checkpoint file, else empty */
    /* A player that searches: "mcts(...)" (random rollouts, no algorithm)
       or a snapshot with search=N (its network valuing the leaves). */
    int searches;
    rl__search_actor search;
    uint64_t seed;
} rl__player;

/* A person at a seat (the opponent "human"): librlhost reads and writes no
   terminal, so the program that owns one (the CLI's play --human) hands it
   one function that shows the person the board and returns their move. */
typedef struct rl__human_move {
    const char *frame;       /* the board as the env draws it (rl.env.render/1), or "" */
    const char *final_frame; /* the board the last game ended on (render_final), or "" */
    uint32_t n_actions;      /* moves 0 .. n_actions-1 */
    const uint8_t *mask;     /* n_actions bytes, nonzero where allowed; NULL: every move */
    uint64_t games;          /* games this board finished before this one */
    int last_result;         /* the last of them, from the learner's side: 1 won, 0 drew, -1 lost */
    int32_t *action;         /* written: the move */
} rl__human_move;
/* RL_OK with *m->action in range and allowed, or an RL_E* with a sentence
   (RL_EINTR: the person stopped playing). */
typedef int (*rl__human_fn)(void *ctx, const rl__human_move *m, char *err, size_t errlen);
/* Seats a person through fn (NULL: the opponent "human" is refused). */
void rl__human_set(rl__human_fn fn, void *ctx);
/* One move of the person, through the function set, checked. */
int rl__human_ask(const rl__human_move *m, char *err, size_t errlen);

/* Opens the player a spec names ("self" is the pool's, not here): PLUGIN or
   PLUGIN(key=value, ...) for an algorithm plugin of the learner's registry,
   "human" for a person (discrete actions; rl__human_set), "mcts" or
   "mcts(simulations=N, ...)" for tree search with random rollouts, else a
   checkpoint file or run directory, PATH(search=N, ...) to search with its
   network.  info is the learner's view of
   the env; seed seeds a scripted player.  A sentence in err on failure. */
int rl__player_open(rl__player *p, const char *spec, const rl__config *c, const rl_env_info *info, uint32_t rows,
                    uint64_t seed, char *err, size_t errlen);
void rl__player_close(rl__player *p);
/* Moves of a player that searches (p->searches) for n rows of the site's
   env: row i is agent movers[i] of env boards_of[i], `rows` at most. */
int rl__player_search(rl__player *p, const rl__env_site *site, uint32_t rows, const uint32_t *boards_of,
                      const uint32_t *movers, const void *obs, const uint8_t *masks, int32_t *actions, uint32_t n,
                      char *err, size_t errlen);
/* What acting changes in a player (a scripted player's RNG, a sampling
   snapshot's eval stream), saved under prefix (load 0) or restored from it
   (load 1).  On load, a tensor the checkpoint lacks is read from
   fallback_path (the snapshot's own file; may be NULL).  A player whose
   algorithm saves nothing of an instance made to act is left as it is. */
int rl__player_state(rl__player *p, const rl_state_io *io, const char *prefix, int load, const char *fallback_path,
                     char *err, size_t errlen);
/* Actions for n rows of an algorithm's player (not a person's: the table
   asks rl__human_ask with the board), checked against their masks (an
   illegal move is a sentence naming the player and the row). */
int rl__player_act(rl__player *p, const rl__space *space, const void *obs, const uint8_t *episode_start,
                   const uint8_t *masks, void *actions, uint32_t n, char *err, size_t errlen);

/* ---- the self-play pool ------------------------------------------------ */

/* The id a fixed member of the pool goes by where a snapshot's step would. */
#define RL__FIXED_STEP(j) (UINT64_MAX - (uint64_t)(j))

/* Snapshots of the learner (checkpoint files in the run directory's pool/,
   named by step) and what each has scored against it. */
typedef struct rl__selfplay_member {
    uint64_t step;               /* a fixed member's: RL__FIXED_STEP(j) */
    double games, learner_score; /* learner_score: wins + draws / 2 against it */
    rl__player player;
} rl__selfplay_member;

typedef struct rl__selfplay {
    const rl__config *c; /* the learner's; members are built from own (its snapshot_options applied) */
    rl__config own;
    char *changed[64]; /* the option keys snapshot_options sets ("algo.deterministic_eval") */
    uint32_t n_changed;
    rl_env_info info; /* the learner's view */
    uint32_t rows;
    char dir[4200];   /* the run directory's pool/ */
    uint32_t cap, n;  /* cap: snapshots at most; n: members, the fixed ones included */
    uint32_t n_fixed; /* seats.pool_opponents: members m[0 .. n_fixed), never dropped, no file */
    int rule;         /* RL__DRAW_* */
    rl__selfplay_member *m;
    rl_rng rng;
    /* the snapshots the last checkpoint written or loaded names: their files
       outlive the members' place in the pool until a checkpoint no longer
       kept (the checkpoint and its predecessor) names them */
    uint64_t *named;
    uint32_t n_named;
} rl__selfplay;

/* An empty pool of the run directory run_dir (its pool/ is made by the
   first snapshot). */
int rl__selfplay_init(rl__selfplay *s, const rl__config *c, const rl_env_info *info, uint32_t rows, const char *run_dir,
                      char *err, size_t errlen);
void rl__selfplay_free(rl__selfplay *s);
/* The snapshot file of step (in s->dir). */
void rl__selfplay_path(const rl__selfplay *s, uint64_t step, char *out, size_t len);
/* Adds the snapshot written at step (its file must exist), dropping the
   oldest beyond the pool size (its file stays for rl__selfplay_sweep). */
int rl__selfplay_add(rl__selfplay *s, uint64_t step, char *err, size_t errlen);
/* The member the next game is played against, by the pool's rule; -1 when
   the pool is empty. */
int rl__selfplay_draw(rl__selfplay *s);
/* The index of the member of that step, or -1. */
int rl__selfplay_find(const rl__selfplay *s, uint64_t step);
/* A finished game against member m: result 1 learner win, 0 draw, -1 loss. */
void rl__selfplay_result(rl__selfplay *s, int m, int result);
/* The pool in a checkpoint (members' steps and scores, the draw RNG): save
   (load 0) or restore (load 1, every member's file reloaded and checked). */
int rl__selfplay_state(rl__selfplay *s, const rl_state_io *io, int load, char *err, size_t errlen);
/* After a checkpoint naming the pool as it is was written: removes from
   pool/ every snapshot file that neither it nor its predecessor (the
   last one written or loaded before) names.  Never follows a symbolic
   link: a pool/ that is one is an error. */
int rl__selfplay_sweep(rl__selfplay *s, char *err, size_t errlen);

#endif
