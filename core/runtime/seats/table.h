/* The table: an env whose agents sit at seats (ABI 1.7), seen by the
   learner as an env of its own rows only.  It wraps the env's instance in
   an rl_env_vtable that vecenv drives like any env: a step applies the
   learner's actions, lets the opponents play the other seats (for a
   turn-based env, move after move until the learner is to move again) and
   hands back the learner's rows: their rewards summed over the moves in
   between, their episodes ending with the env's.  The learner's seat
   rotates over episodes (seats.learner_seat = auto), so it learns every
   side; each game's opponent is drawn when it starts. */
#ifndef RLHOST_TABLE_H
#define RLHOST_TABLE_H

#include <stdint.h>

#include <rlhost/plugin.h>

#include "seats/opponent.h"

typedef struct rl__table rl__table;

/* Who plays: the opponent spec (seats.opponent's syntax; "self" needs
   pool), the learner's seat (-1: rotating; RL__SEAT_EVERY: every seat, its
   row each board's mover, no opponent: an algorithm that trains on search
   plays both sides of its games). */
#define RL__SEAT_EVERY (-2)
typedef struct rl__seating {
    const rl__config *c;
    const char *opponent;
    int32_t learner_seat;
    rl__selfplay *pool;
    uint64_t seed; /* the opponents' draws and scripted players */
    /* 1: no table: every agent's row stays the caller's, with the env's
       to_move (the embedding API's envs, PettingZoo's view of them) */
    int raw;
} rl__seating;

/* The one way a seating is built (run, its evaluation, eval, play): the
   learner at learner_seat (-1: every seat in turn) against opponent, with
   the self-play pool (or NULL), and the opponents' random streams drawn
   from the env's own seed, salted so that they never equal the env's. */
static inline rl__seating rl__seating_of(const rl__config *c, const char *opponent, int32_t learner_seat,
                                         rl__selfplay *pool, uint64_t env_seed)
{
    rl__seating s = {c, opponent, learner_seat, pool, env_seed ^ 0x5ea75ea7ull, 0};
    return s;
}

/* Results of finished games, from the learner's side, per learner seat. */
typedef struct rl__table_tally {
    uint64_t win[64], draw[64], loss[64];
} rl__table_tally;

/* The seats an env's info declares, checked: at most 64 agents and seats,
   every agent at a seat in range, every seat with as many agents.  Fills
   seat_of[agents] and *per_seat; RL_OK, or RL_EINVAL with the sentence
   (name is the env's). */
int rl__seats_check(const rl_env_info *info, const char *name, uint32_t seat_of[64], uint32_t *per_seat, char *err,
                    size_t errlen);

/* Wraps env (created by desc's vtable with info) for num_envs envs; threads
   step the env's ranges.  On success *vt, *env and *info are the table's
   (the env is then the table's to destroy); on failure nothing changed and
   err has the sentence. */
int rl__table_wrap(const rl__seating *s, const rl_plugin_desc *desc, const rl_value *options, const rl_value *stages,
                   uint32_t num_envs, uint32_t threads, const rl_env_vtable **vt, void **env, rl_env_info *info,
                   char *err, size_t errlen);
/* The table behind an env instance vecenv holds, or NULL for a plain env. */
rl__table *rl__table_of(const rl_env_vtable *vt, void *env);
/* Plays the next games against another opponent spec and learner seat
   (evaluations); RL_OK or a sentence. */
int rl__table_set_opponent(rl__table *a, const char *spec, int32_t learner_seat, char *err, size_t errlen);
/* After the self-play pool dropped a member: a board whose game it was
   playing gets the member it plays on now (drawn as at its next move), so
   each board's saved opponent is one the pool holds. */
void rl__table_settle(rl__table *a);
/* The last finished episode of learner row i: 1 won, 0 drawn, -1 lost. */
int rl__table_outcome(const rl__table *a, uint32_t row);
/* With the learner at every seat: whether learner row i's mover after the
   last step is the one that moved in it (1 where no game is in progress). */
int rl__table_same_mover(const rl__table *a, uint32_t row);
/* The seat learner row i played in its last finished episode. */
uint32_t rl__table_outcome_seat(const rl__table *a, uint32_t row);
uint32_t rl__table_seats(const rl__table *a);
/* Rows the opponents play at most in one batch: envs x the agents not the learner's. */
uint32_t rl__table_opponent_rows(const rl__table *a);
/* The env the table seats, as a search plays it. */
rl__env_site rl__table_site(const rl__table *a);
/* Where learner row `row` stands in that env: its env (board) and agent. */
void rl__table_learner_at(const rl__table *a, uint32_t row, uint32_t *board, uint32_t *agent);
/* Recreates the env with a new seed (rl__vecenv_reseed). */
int rl__table_reseed(rl__table *a, uint64_t seed, char *err, size_t errlen);

#endif
