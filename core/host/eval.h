/* Greedy evaluation: episodes spread over the eval envs (env i runs its
   share, so short episodes are not over-counted), acting in RL_ACT_EVAL
   mode.  Used by the run loop and by `rlhost eval`. */
#ifndef RLHOST_EVAL_H
#define RLHOST_EVAL_H

#include <signal.h>

#include "vecenv.h"

typedef struct rl__eval_result {
    int done;
    uint32_t episodes;
    double return_mean, return_std, return_min, return_max, length_mean, score_mean;
} rl__eval_result;

#define RL__MAX_EVAL_ENVS 16

/* RL_EINTR if *stop became nonzero; other errors with a sentence in err. */
int rl__evaluate(rl__vecenv *ev, const rl_algo_vtable *avt, void *algo, const char *algo_name,
                 uint32_t episodes, volatile sig_atomic_t *stop, rl__eval_result *out, char *err,
                 size_t errlen);

/* `rlhost eval`: builds the config's env and algo, restores ckpt (may be
   NULL: the untrained policy), evaluates `episodes` greedy episodes and
   prints return mean/std/min/max, length and score.  Returns the exit code. */
struct rl__config;
int rl__eval_command(const struct rl__config *c, const char *ckpt, uint32_t episodes, int json);

#endif
