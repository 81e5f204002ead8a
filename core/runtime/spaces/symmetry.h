/* A game's symmetries (ABI 1.13, rl_env_info.symmetries): checked once, at
   open, against the env's own description, and copied, so an algorithm
   never reads the env's memory and never permutes past a row. */
#ifndef RLHOST_SYMMETRY_H
#define RLHOST_SYMMETRY_H

#include <stddef.h>
#include <stdint.h>

#include <rlhost/plugin.h>

#include "spaces/parts.h"

/* The host's copy: n symmetries, their tables back to back. */
typedef struct rl__symmetries {
    uint32_t n;
    rl_symmetry list[RL_MAX_SYMMETRIES];
    uint32_t *table; /* [n][row_bytes + n_actions] */
} rl__symmetries;

/* The symmetries of env `name`'s info, checked against its row of
   row_bytes (with its parts, when composite) and its moves: at most
   RL_MAX_SYMMETRIES, discrete actions, both tables given, obs_from a
   permutation of the row's bytes that moves whole elements (an element's
   bytes from one element, in order) and keeps each in its part (a
   DISCRETE element among those of its categories), action_to a
   permutation of the moves.  RL_OK (s->n = 0 for none), or RL_EINVAL /
   RL_ENOMEM with the sentence. */
int rl__symmetries_from_info(rl__symmetries *s, const rl_env_info *info, const rl__parts *parts, size_t row_bytes,
                             const char *name, char *err, size_t errlen);
void rl__symmetries_free(rl__symmetries *s);

#endif
