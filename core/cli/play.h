/* `rlhost play`: env 0 of a config played by its algorithm, drawn in the
   terminal (frames in place on a TTY, one after another otherwise). */
#ifndef RLHOST_PLAY_H
#define RLHOST_PLAY_H

#include "plugin/config.h"
#include "search/searcher.h"

/* ckpt (may be NULL) is restored first.  Returns the exit code (0, 1 on
   failure with the reason logged). */
/* follow: watch a training run learn.  Before each episode the newest
   checkpoint is loaded when the run has written one since (episodes 0 =
   until interrupted); the first is waited for when there is none yet.
   search (may be NULL): the policy searches at each of its moves. */
int rl__play(const rl__config *c, const char *ckpt, const char *prev, uint32_t episodes, double fps, int follow,
             const rl__search_opts *search);

#endif
