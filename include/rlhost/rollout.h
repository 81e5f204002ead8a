/*
 * <rlhost/rollout.h> — librlcore's on-policy rollout storage, for
 * algorithm plugins (PPO, A2C): T steps of N envs, filled by act() and
 * observe(), turned into advantages and returns by GAE with truncation
 * bootstrapping, saved and loaded with every loaded value checked.
 *
 * Row t*N + i is env i's step t.  The plugin writes what it decides at
 * act() straight into the current step's rows (rl_rollout_at): the
 * observation as network input, the action (or box sample as drawn), its
 * log-probability and the value; observe() stores the env's answer and
 * advances.  An episode that ends by truncation (a time limit) is
 * bootstrapped from the value of its final observation, which the plugin
 * writes into final_values before observe(); one that terminates, from 0.
 *
 * Resume duty: a rollout that is half full when the run is checkpointed
 * must come back as it was, or the resumed run trains on other data.
 * rl_rollout_state saves and restores all of it, the position included.
 */
#ifndef RLHOST_ROLLOUT_H
#define RLHOST_ROLLOUT_H

#include <stddef.h>
#include <stdint.h>

#include <rlhost/plugin.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct rl_rollout {
    uint32_t steps, envs, obs_size; /* T, N, floats per observation */
    uint32_t n_actions;             /* discrete: actions 0 .. n_actions-1; 0 for a box */
    uint32_t action_dim;            /* box (or a hybrid action's box): floats per action; 0 for discrete */
    uint32_t pos;                   /* the step being filled, 0 .. steps-1; steps when full */
    float *obs;                     /* [T][N][obs_size] network input */
    int32_t *actions;               /* [T][N] discrete actions (allocated for a box too, zero) */
    float *box_actions;             /* [T][N][action_dim] box samples as drawn (unclipped); NULL without a box */
    float *logp, *values, *rewards; /* [T][N] */
    float *final_values;            /* [T][N] V(final observation) of a truncated step, else 0 */
    float *adv, *ret;               /* [T][N] rl_rollout_gae's output */
    float *last_obs;                /* [N][obs_size] the observation after the last stored step */
    uint8_t *terminated, *truncated, *start; /* [T][N]; start: the step began an episode */
    /* rl_rollout_for_env: what a discrete action was and what it was drawn under */
    uint32_t comps;         /* int32 per action: MultiDiscrete components, 1 discrete, 0 box */
    uint32_t mask_width;    /* mask bytes per row; 0 for an env that does not mask */
    int32_t *multi_actions; /* [T][N][comps] when comps > 1 (actions then stays 0, of n_actions 1) */
    uint8_t *masks;         /* [T][N][mask_width] the masks the actions were drawn under */
    uint32_t *nvec;         /* [comps] each component's choices, what a loaded action is checked against */
} rl_rollout;

/* Allocates a zeroed rollout of T steps for N envs: discrete when
   n_actions > 0 (then action_dim must be 0), else a box of action_dim.
   RL_EINVAL for a shape that is not one of these, RL_ENOMEM. */
int rl_rollout_create(rl_rollout *r, uint32_t steps, uint32_t envs, uint32_t obs_size, uint32_t n_actions,
                      uint32_t action_dim);
/* The rollout for an env's action space: rl_rollout_create's discrete
   or box shape, with multi_actions for a MultiDiscrete space, both the
   components and box_actions for a hybrid one, and masks for an env that
   masks.  RL_EINVAL, RL_ENOMEM. */
int rl_rollout_for_env(rl_rollout *r, uint32_t steps, uint32_t envs, uint32_t obs_size, const rl_env_info *env);
void rl_rollout_destroy(rl_rollout *r); /* NULL-safe, and safe after a failed create */

/* The first row of the step being filled (pos * N). */
static inline size_t rl_rollout_at(const rl_rollout *r)
{
    return (size_t)r->pos * r->envs;
}

/* Records the current step's decisions for its first count envs: which
   began an episode (start), the actions (discrete, or box samples as
   drawn), their log-probabilities and the values; any pointer but start
   may be NULL to leave that array alone (A2C recomputes log-probs). */
void rl_rollout_act(rl_rollout *r, const uint8_t *start, const int32_t *actions, const float *box_actions,
                    const float *logp, const float *values, uint32_t count);
/* rl_rollout_act from the host's batch: its episode starts, its actions
   (every component), box samples and masks (all-allowed where the batch
   has none), with the plugin's logp and values (either may be NULL). */
void rl_rollout_act_batch(rl_rollout *r, const rl_act_batch *b, const float *logp, const float *values);
/* The rows' discrete actions, comps int32 each: multi_actions or actions. */
static inline int32_t *rl_rollout_actions(const rl_rollout *r)
{
    return r->multi_actions ? r->multi_actions : r->actions;
}
/* The env's answer to the current step: rewards (NULL: t->rewards; the
   current step's own rewards row when the plugin already wrote it, scaled)
   and the episode flags, then the position advances.  Returns 1 when the
   rollout is now full (pos == steps): train on it, then rl_rollout_clear
   before the next act().  Else 0. */
int rl_rollout_observe(rl_rollout *r, const rl_transition *t, const float *rewards);
/* Starts filling from step 0 again (the arrays keep their contents). */
static inline void rl_rollout_clear(rl_rollout *r)
{
    r->pos = 0;
}

/* GAE(lambda) over T steps of N envs (row t*N + i): terminated ends an
   episode with 0, truncated with final_values of that row, and the last
   step bootstraps from last_values[N] = V(observation after it).  Writes
   adv and ret (= adv + values).  lambda = 1 gives Monte-Carlo returns
   with bootstrapping (A2C's n-step returns over the rollout). */
void rl_gae(float *adv, float *ret, const float *rewards, const float *values, const uint8_t *terminated,
            const uint8_t *truncated, const float *final_values, const float *last_values, uint32_t T, uint32_t N,
            float gamma, float lambda);
/* rl_gae over a full rollout, into its adv and ret. */
void rl_rollout_gae(rl_rollout *r, const float *last_values, float gamma, float lambda);

/* Mean and standard deviation (n - 1 in the denominator, 1 for one value)
   of adv[0..n), for advantage normalization: (adv - mean) / (std + 1e-8). */
void rl_advantage_stats(const float *adv, size_t n, double *mean, double *std);

/* Checkpoint (rl.algo.state/1): the arrays as raw tensors rollout/obs,
   rollout/logp, ..., rollout/multi_actions and rollout/masks where there
   are, and the position as rollout/pos.  Load checks every value: the
   position in range, floats finite, discrete actions in [0, n_actions)
   and, for rl_rollout_for_env, every component's action one it has and
   its mask allows.  err gets the sentence. */
int rl_rollout_state(rl_rollout *r, const rl_state_io *io, int load, char *err, size_t errlen);
/* The arrays alone, for a plugin that keeps the position in a record of
   its own (PPO); the caller checks the position it loads. */
int rl_rollout_arrays_state(rl_rollout *r, const rl_state_io *io, int load, char *err, size_t errlen);

#ifdef __cplusplus
}
#endif

#endif /* RLHOST_ROLLOUT_H */
