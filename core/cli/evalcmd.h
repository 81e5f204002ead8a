/* `rlhost eval`: a trained policy's greedy episodes (or games against each
   evaluation opponent), printed. */
#ifndef RLHOST_CLI_EVALCMD_H
#define RLHOST_CLI_EVALCMD_H

#include <stdint.h>

#include "plugin/config.h"
#include "search/searcher.h"

/* Builds the config's env and algo, restores ckpt (may be NULL: the
   untrained policy; prev as in rl__policy_open), evaluates `episodes`
   greedy episodes and prints return mean/std/min/max, length and score;
   search (may be NULL, --search's) searches at each of the learner's
   moves.  Returns the exit code: 2 for what is refused before any episode
   is played. */
int rl__eval_command(const rl__config *c, const char *ckpt, const char *prev, uint32_t episodes, int json,
                     const char *trace_path, const rl__search_opts *search);

#endif
