/* `rlhost plot`: learning curves as a standalone SVG (no dependency):
   return against steps (mean over runs, with the min-max spread shaded when
   several runs are given) and steps/s in a second panel. */
#ifndef RLHOST_PLOT_H
#define RLHOST_PLOT_H

#include <stddef.h>

/* Returns the exit code; errors are one sentence on stderr. */
int rl__plot(const char *const *dirs, size_t n_dirs, const char *out_path);

#endif
