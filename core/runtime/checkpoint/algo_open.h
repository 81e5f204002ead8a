/* The config's algorithm, built outside a run's loop: for evaluation, play,
   the embedding API and the opponents of an env with seats. */
#ifndef RLHOST_ALGO_OPEN_H
#define RLHOST_ALGO_OPEN_H

#include <stdint.h>

#include <rlhost/plugin.h>

/* The config's algorithm for acting in RL_MODE_EVAL mode on n_eval envs of
   info: built as for training (its sizes may depend on num_envs) and
   restored from r->path when given (r may be NULL: untrained; r->prev_path, may be NULL, when that
   one is missing or bad; r->step gets its step; config differences not in
   r->allowed are warnings).  NULL on failure with a sentence in err. */
struct rl__config;
struct rl__restore;
void *rl__policy_open(const struct rl__config *c, const rl_env_info *info, uint32_t n_eval, struct rl__restore *r,
                      char *err, size_t errlen);
/* The same with the choice: inference != 0 builds what acting needs (the
   policy readers), 0 a full training instance of one replica. */
void *rl__algo_open(const struct rl__config *c, const rl_env_info *info, uint32_t n_eval, int inference,
                    struct rl__restore *r, char *err, size_t errlen);

#endif
