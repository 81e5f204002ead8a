/*
 * <rlhost/norm.h> — librlcore's running normalizers, for algorithm
 * plugins: observations scaled by their running mean and variance, and
 * rewards scaled by the running spread of the discounted return (what
 * Stable-Baselines3's VecNormalize does, inside the algorithm so that a
 * checkpoint carries the statistics with the policy).
 *
 * Statistics are kept in double and updated with the parallel form of
 * Welford's rule from a batch's mean and squared deviations; with data-
 * parallel replicas every batch is summed over all of them
 * (rl_replicas_sum_f64), so each replica holds the same statistics.  Both
 * start as SB3's RunningMeanStd: mean 0, variance 1, a count of 1e-4.
 *
 * Resume duty: the statistics are training state; rl_obs_norm_state and
 * rl_return_norm_state save them and check what they load.
 */
#ifndef RLHOST_NORM_H
#define RLHOST_NORM_H

#include <stdint.h>

#include <rlhost/plugin.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- observations: (x - mean) / sqrt(var + 1e-8), clipped to +-clip ------ */

typedef struct rl_obs_norm {
    uint32_t dim;
    float clip;
    double count, *mean, *var; /* the statistics */
    float *shift, *mul;        /* what is applied: mean and 1 / sqrt(var + 1e-8), as floats */
    double *batch;             /* scratch [2 dim] */
} rl_obs_norm;

int rl_obs_norm_create(rl_obs_norm *n, uint32_t dim, float clip); /* RL_EINVAL, RL_ENOMEM */
void rl_obs_norm_destroy(rl_obs_norm *n);                         /* NULL-safe */
/* Folds rows x [rows][dim] into the statistics (summed over the replicas
   of rep, which may be NULL: every replica calls it with its own rows). */
void rl_obs_norm_update(rl_obs_norm *n, const float *x, uint32_t rows, const rl_replicas *rep);
/* x [rows][dim] := (x - shift) * mul, clipped to +-clip, in place. */
void rl_obs_norm_apply(const rl_obs_norm *n, float *x, uint32_t rows);
/* Tensors PREFIX "count" (float64 [1]), PREFIX "mean", PREFIX "var"
   (float64 [dim]); load checks the count and variances >= 0 and every
   value finite, then derives what is applied.  Statistics stored as raw
   bytes (uint8 [8 dim], PPO's checkpoints before round 3) are read too. */
int rl_obs_norm_state(rl_obs_norm *n, const rl_state_io *io, int load, const char *prefix, char *err, size_t errlen);

/* ---- rewards: divided by the discounted return's running deviation ------- */

typedef struct rl_return_norm {
    uint32_t envs;
    float gamma, clip;
    double count, mean, var; /* of the returns */
    double *ret;             /* [envs] each env's running discounted return */
} rl_return_norm;

int rl_return_norm_create(rl_return_norm *r, uint32_t envs, float gamma, float clip);
void rl_return_norm_destroy(rl_return_norm *r);
/* One step of every env: each return becomes ret gamma + reward and folds
   into the statistics (over the replicas of rep), then out[i] =
   reward / sqrt(var + 1e-8) clipped to +-clip, and the return restarts
   where an episode ended.  out may be rewards. */
void rl_return_norm_step(rl_return_norm *r, const float *rewards, const uint8_t *terminated, const uint8_t *truncated,
                         float *out, const rl_replicas *rep);
/* PREFIX "return_count", "return_mean", "return_var" (float64 [1]) and
   PREFIX "returns" (float64 [envs]), checked on load. */
int rl_return_norm_state(rl_return_norm *r, const rl_state_io *io, int load, const char *prefix, char *err,
                         size_t errlen);

#ifdef __cplusplus
}
#endif

#endif /* RLHOST_NORM_H */
