/* `rlhost run`: the training loop from a resolved config to the run's
   outputs (config.cfg, metrics.csv, summary.json in out_dir). */
#ifndef RLHOST_RUN_H
#define RLHOST_RUN_H

#include "config.h"

/* What a run measured, for `rlhost bench`. */
typedef struct rl__run_stats {
    uint64_t steps;
    double wall_s;                 /* the training loop only */
    double env_s, act_s, update_s; /* inside it */
    uint32_t env_threads;
} rl__run_stats;

/* Runs training; returns the process exit code: 0 done, 1 failed (the
   reason already logged), 130/143 stopped by SIGINT/SIGTERM after writing
   the outputs.  stats (may be NULL) receives the loop's timings. */
int rl__run(const rl__config *c, const char *resume_dir, rl__run_stats *stats);

/* resume_dir (may be NULL): continue the run whose outputs are there, from
   its checkpoint.safetensors (and replay.safetensors): algorithm, env and
   host state restored, metrics.csv appended to.  Exact (bit-identical to an
   uninterrupted run) when the env has rl.env.state/1 and the algorithm saves
   everything it learns from (DQN: save_replay = true); otherwise envs start
   fresh episodes and the result is close, not identical. */

#endif
