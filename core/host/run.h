/* `rlhost run`: the training loop from a resolved config to the run's
   outputs (config.cfg, metrics.csv, summary.json in out_dir). */
#ifndef RLHOST_RUN_H
#define RLHOST_RUN_H

#include "config.h"

/* Runs training; returns the process exit code: 0 done, 1 failed (the
   reason already logged), 130/143 stopped by SIGINT/SIGTERM after writing
   the outputs. */
int rl__run(const rl__config *c);

#endif
