/* The vectorized env driver: one env plugin instance for N envs, the
   host-owned structure-of-arrays buffers, stepping of env ranges on the
   worker pool, action repeat, and per-episode return/length/score tracking. */
#ifndef RLHOST_VECENV_H
#define RLHOST_VECENV_H

#include <stddef.h>
#include <stdint.h>

#include <rlhost/plugin.h>

#include "parallel/pool.h"
#include "plugin/env_create.h"
#include "seats/table.h"
#include "spaces/parts.h"
#include "spaces/spaces.h"
#include "spaces/symmetry.h"

/* Sums over finished episodes, plus a window of the most recent ones. */
#define RL__RECENT 100
typedef struct rl__ep_stats {
    uint64_t episodes; /* all time */
    uint64_t n;        /* since the last reset_interval */
    double sum_return, sum_length, sum_score;
    double recent_return[RL__RECENT], recent_score[RL__RECENT];
    uint32_t recent_n, recent_pos;
    /* after the fields checkpoints store as host/episode_stats; saved as
       host/episode_recent_length */
    double recent_length[RL__RECENT];
} rl__ep_stats;

typedef struct rl__vecenv {
    const rl_plugin_desc *desc;
    const rl_env_vtable *vt;
    void *env;
    rl_env_info info;
    uint32_t n;       /* rows: boards x agents, what algorithms see as envs */
    uint32_t boards;  /* env instances the plugin steps (config num_envs) */
    uint32_t agents;  /* rows per board (rl_env_info.agents, at least 1) */
    size_t row_bytes; /* bytes of one env's observation */
    uint32_t repeat;
    void *obs_buf[2];
    int cur;
    rl_env_io io;   /* io.obs points at the current buffer */
    void *prev_obs; /* the observation before the last step */
    /* an env that masks (space.mask_width bytes a row), buffered as obs is:
       io.action_mask is the current observation's, prev_mask the one
       before the last step's (NULL with fixed_obs), io.final_mask that of
       final_obs */
    uint8_t *mask_buf[2], *prev_mask;
    rl__space space;    /* the env's action space */
    rl__parts parts;    /* a composite observation's parts (n = 0: one tensor) */
    rl__symmetries sym; /* the game's symmetries, the host's copy (n = 0: none) */
    void *actions;      /* [n] host rows (rl__space): what the algorithm chose */
    void *env_actions;  /* BOX and HYBRID: those rows as the env takes them (clipped into the box) */
    void *env_split;    /* HYBRID: env_actions as io's two arrays, [n][ints] then [n][floats] */
    void *chosen_split; /* HYBRID: actions so split, for rl_transition (rl__vecenv_chosen) */
    float *rewards, *rew_acc;
    uint8_t *terminated, *truncated, *stopped;
    uint8_t *episode_start;          /* obs row begins an episode */
    double *ep_return, *done_return; /* running; of the episode that just ended */
    uint32_t *ep_length, *done_length, *frames;
    rl__ep_stats stats;
    rl__pool *pool;
    char threads_reason[96];
    const rl_value *options, *stages; /* the caller's, kept for reseeding */
    /* 1: step writes obs in place (io.obs never moves, prev_obs is NULL),
       for embedders that view the buffer; 0: double-buffered (eval traces
       read the observation an action was chosen on) */
    int fixed_obs;
    /* Next-step autoreset (embedders; one agent per board): a row whose
       episode ended returns its last observation, and its next step is the
       reset instead of an env step (the action is ignored, the reward 0).
       pending marks such rows; pending_obs holds the next episode's first
       observation, which the plugin wrote when it reset the env. */
    int next_step;
    uint8_t *pending;
    void *pending_obs;
    uint8_t *pending_mask;
    /* the env's rl.env.status/1 (NULL: it cannot fail); a failed reset is
       kept here and returned by the next step */
    const rl_env_status_ext *status;
    int failed;
    char failed_why[RL_ERR_MAX];
    /* an env with seats: the table vt and env are (NULL otherwise) */
    rl__table *table;
    /* a turn-based env opened raw (rl__seating.raw): who moves, a byte per row */
    uint8_t *to_move;
} rl__vecenv;

/* num_envs boards (envs of the plugin), each of info.agents rows; every
   buffer and counter below is per row.  threads: 0 = auto.  On failure
   returns RL_E* with a sentence in err. */
int rl__vecenv_create(rl__vecenv *v, const rl_plugin_desc *desc, const rl_value *options, const rl_value *stages,
                      uint32_t num_envs, uint64_t seed, uint32_t threads, uint32_t repeat, char *err, size_t errlen);
/* The same for an env that may seat players (ABI 1.7): one with seats is
   wrapped in a table that seating describes, and the buffers hold the
   learner's rows only.  rl__vecenv_create refuses such an env. */
int rl__vecenv_create_seated(rl__vecenv *v, const rl_plugin_desc *desc, const rl_value *options, const rl_value *stages,
                             uint32_t num_envs, uint64_t seed, uint32_t threads, uint32_t repeat,
                             const rl__seating *seating, char *err, size_t errlen);
/* Starts every env's first episode.  An env that reports a failure
   (rl.env.status/1) has it returned by the next rl__vecenv_step. */
void rl__vecenv_reset(rl__vecenv *v);
/* Applies v->actions and tracks finished episodes.  Discrete actions out
   of range or forbidden by the row's mask are RL_EINVAL, box actions are
   clipped into the box for the env (a NaN is RL_ENONFINITE), each with a
   sentence naming the row; so is a mask the env wrote that allows no
   action. */
int rl__vecenv_step(rl__vecenv *v, char *err, size_t errlen);
/* The actions of the last step as the algorithm chose them, as
   rl_transition's two arrays: ints (NULL for a box) and floats (NULL
   without), a hybrid action's split out of the host rows. */
void rl__vecenv_chosen(rl__vecenv *v, const int32_t **ints, const float **floats);
void rl__vecenv_destroy(rl__vecenv *v);
/* Same-step (0, the default) or next-step (1) autoreset; next-step needs
   one agent per env.  RL_EINVAL with a sentence otherwise. */
int rl__vecenv_set_autoreset(rl__vecenv *v, int next_step, char *err, size_t errlen);
/* Re-creates the env instance with a new seed (the host's buffers stay
   where they are), as rl__vecenv_create left it: the next reset starts
   every env's first episode of that seed. */
int rl__vecenv_reseed(rl__vecenv *v, uint64_t seed, char *err, size_t errlen);

/* The mean over the last RL__RECENT episodes of their return
   (RL__EP_RETURN), score or length: every column of metrics.csv uses this
   one window. */
enum { RL__EP_RETURN, RL__EP_SCORE, RL__EP_LENGTH };
double rl__ep_recent_mean(const rl__ep_stats *s, int what);
void rl__ep_interval_reset(rl__ep_stats *s);

/* Thread count "auto" picks for n envs on this machine, with the reason. */
uint32_t rl__auto_env_threads(uint32_t num_envs, char *reason, size_t len);

#endif
