/* `rlhost plot`: learning curves as a standalone SVG (no dependency):
   return (or an episodes.csv column) against steps (mean over runs, with
   the min-max spread shaded when several runs are given) and steps/s in a
   second panel. */
#ifndef RLHOST_PLOT_H
#define RLHOST_PLOT_H

#include <stddef.h>

/* What the upper panel draws: metrics.csv's return_mean (column NULL), or
   a column of episodes.csv (return, score or length) as the mean over the
   episodes that ended in the last `window` steps (0: a twentieth of the
   longest run). */
typedef struct rl__plot_opts {
    const char *column;
    unsigned long long window;
} rl__plot_opts;

/* Returns the exit code; errors are one sentence on stderr. */
int rl__plot(const char *const *dirs, size_t n_dirs, const char *out_path, const rl__plot_opts *opts);

#endif
