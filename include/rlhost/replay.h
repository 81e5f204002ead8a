/* <rlhost/replay.h> — librlcore's replay buffer, shared by the off-policy
   algorithms (the DQN family, SAC, TD3): a ring over all envs' transitions
   in the env's compact observation dtype (uint8 grids stay uint8), with
   discrete actions (int32) or box actions (action_dim float32 each, as the
   algorithm chose them).  One vector step of N envs fills N consecutive
   slots, so env i's next transition is N slots later; n-step returns walk
   that chain, stop at the first episode end (terminated or truncated) and
   never cross the newest step. */
#ifndef RLHOST_REPLAY_H
#define RLHOST_REPLAY_H

#include <stdint.h>

#include <rlhost/plugin.h>
#include <rlhost/rlcore.h>

typedef struct rl_replay {
    uint32_t capacity; /* slots: the capacity asked for, rounded down to a
                          multiple of num_envs (at least num_envs) */
    uint32_t num_envs, obs_size;
    size_t row_bytes;
    rl_dtype dtype;
    float obs_scale;
    uint8_t *obs, *next_obs; /* [capacity][row_bytes]; next_obs is the final
                                observation where the episode ended */
    uint32_t action_dim;     /* 0: discrete actions; else floats per box action */
    int32_t *actions;        /* discrete: [capacity] */
    float *box_actions;      /* box: [capacity][action_dim] */
    float *rewards;
    uint8_t *terminated, *done; /* done = terminated || truncated */
    uint64_t steps;             /* vector steps stored so far */
} rl_replay;

/* Box actions when the env's action space is a box (rl_env_info's ABI 1.2
   fields), else discrete; RL_ENOMEM when the ring does not fit. */
int rl_replay_create(rl_replay *r, uint32_t capacity, uint32_t num_envs, const rl_env_info *info);
/* The bytes rl_replay_create allocates for that ring (for rl_mem_check). */
uint64_t rl_replay_bytes(uint64_t capacity, const rl_env_info *info);
void rl_replay_destroy(rl_replay *r);
/* Stores one vector step; returns the first slot written. */
uint32_t rl_replay_add(rl_replay *r, const rl_transition *t);
/* Transitions stored (<= capacity).  The ring fills from slot 0, so the
   slots [0, size) are exactly the stored ones, before and after it is
   full: a uniform sample draws slot indices below the size. */
uint32_t rl_replay_size(const rl_replay *r);

/* A minibatch drawn from the ring, as network input: one allocation of
   every array for n transitions (rl_replay_batch_create). */
typedef struct rl_replay_batch {
    uint32_t n;
    uint32_t *slots;       /* [n] the slots drawn */
    float *obs, *next_obs; /* [n][obs_size], times obs_scale */
    int32_t *actions;      /* discrete rings: [n]; else NULL */
    float *box_actions;    /* box rings: [n][action_dim]; else NULL */
    float *rewards;        /* [n] one-step rewards */
    float *terminated;     /* [n] 1 where the episode terminated (no
                              bootstrap), else 0; a truncated episode
                              bootstraps from next_obs, its final
                              observation */
} rl_replay_batch;
int rl_replay_batch_create(rl_replay_batch *b, const rl_replay *r, uint32_t n);
void rl_replay_batch_destroy(rl_replay_batch *b); /* a zeroed b is a no-op */
/* Fills b with b->n transitions drawn uniformly with replacement from the
   rl_replay_size stored (at least one), b->n draws of rl_rng_below in
   order, so a seeded rng gives the same batch.  The n-step pieces of a
   slot are rl_replay_nstep's. */
void rl_replay_sample(const rl_replay *r, rl_rng *rng, rl_replay_batch *b);

/* The n-step target pieces of the transition in `slot`: discounted reward
   sum G, the slot whose next_obs bootstraps, and the discount to apply to
   its value (0 when the episode terminated inside the window). */
typedef struct rl_nstep {
    float ret;
    float discount;
    uint32_t boot_slot;
} rl_nstep;
rl_nstep rl_replay_nstep(const rl_replay *r, uint32_t slot, uint32_t n, float gamma);

/* The ring as replay/... tensors of a checkpoint (the host writes them to
   replay.safetensors): save, or load and check every value (finite floats,
   discrete actions in [0, n_actions), box actions in [low, high], the step
   count).  Loading where the checkpoint has no replay empties the ring and
   returns RL_ENOENT. */
int rl_replay_state(rl_replay *r, const rl_state_io *io, int load, uint32_t n_actions, const float *low,
                    const float *high, char *err, size_t errlen);

/* Writes the observations of `slot` (or its next_obs) as network input:
   each element times obs_scale (rl_obs_to_float), so uint8 frames come
   back in [0, 1] with a 1/255 scale. */
void rl_replay_obs_float(const rl_replay *r, uint32_t slot, int next, float *out);
/* The same through the env's layout (rl_obs_input, <rlhost/parts.h>): a
   composite observation's parts as network input, one tensor as
   rl_replay_obs_float writes it. */
void rl_replay_obs_input(const rl_replay *r, const rl_env_info *env, uint32_t slot, int next, float *out);

#endif
