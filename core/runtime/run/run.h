/* `rlhost run`: the training loop from a resolved config to the run's
   outputs (config.cfg, metrics.csv, summary.json in out_dir). */
#ifndef RLHOST_RUN_H
#define RLHOST_RUN_H

#include "plugin/config.h"

/* What a run measured, for `rlhost bench`. */
typedef struct rl__run_stats {
    uint64_t steps;
    double wall_s;                 /* the training loop only */
    double env_s, act_s, update_s; /* inside it */
    uint32_t env_threads;
    uint32_t replicas;
    int evaluated; /* the final evaluation ran: */
    double eval_return, eval_score;
    const char *score_name; /* the env's, or NULL */
} rl__run_stats;

typedef struct rl__run_opts {
    /* continue the run whose outputs are there (NULL: a new run), from its
       checkpoint.safetensors (the previous one when that is missing or bad)
       and the replay of the same step: algorithm, env and host state
       restored, metrics.csv cut back to the checkpoint's step and appended
       to.  Exact (bit-identical to an uninterrupted run) when the env has
       rl.env.state/1 and the algorithm saves everything it learns from
       (DQN: save_replay = true); otherwise envs start fresh episodes and the
       result is close, not identical. */
    const char *resume_dir;
    /* keys given with --set: a resume may change these options from the
       checkpoint's config; any other difference is refused */
    const char *const *set_keys;
    size_t n_set_keys;
    int force;  /* a new run may replace the run out_dir holds */
    int silent; /* no closing line on stdout (bench) */
} rl__run_opts;

/* Runs training.  Returns RL_OK (done, or a resumed run that was already
   complete), RL_EINTR (stopped by SIGINT or SIGTERM after writing the
   outputs; rl__run_signal() says which), RL_ECONFIG (refused before
   training: out_dir locked by another run or holding one without resume or
   force, options the env or algorithm refuses at create, a complete run
   resumed without more steps), or another RL_E* (failed).  The reason of a
   refusal or failure is already logged.  o may be NULL (a new run); stats
   (may be NULL) receives the loop's timings.  The run directory is locked
   for the run's lifetime; nothing in it changes until the config, the
   plugins and any checkpoint have been accepted. */
int rl__run(const rl__config *c, const rl__run_opts *o, rl__run_stats *stats);

/* `rlhost check`: makes what a run makes before it trains, without its
   directory, and lets it go: the envs seated as the run seats them, the
   evaluation's envs and opponents, the self-play pool and its opponents,
   the algorithm and the training search.  The algorithm is made first
   beside one env, for every env's rows: its memory estimate refuses a
   config too large in a moment, where making every env first (100,000
   Atari games) would take minutes.  RL_OK, RL_ECONFIG (a plugin or an
   opponent refused, the sentence logged), or RL_ENOMEM. */
int rl__run_check(const rl__config *c);

/* The signal that stopped the last run, or 0. */
int rl__run_signal(void);

#endif
