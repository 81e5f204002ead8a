/* Replay buffer: a ring over all envs' transitions in the env's compact
   observation dtype (uint8 grids stay uint8).  One vector step of N envs
   fills N consecutive slots, so env i's next transition is N slots later;
   n-step returns walk that chain, stop at the first episode end
   (terminated or truncated) and never cross the newest step. */
#ifndef RLHOST_REPLAY_H
#define RLHOST_REPLAY_H

#include <stdint.h>

#include <rlhost/plugin.h>

typedef struct replay {
    uint32_t capacity;  /* slots, a multiple of num_envs */
    uint32_t num_envs, obs_size;
    size_t row_bytes;
    rl_dtype dtype;
    float obs_scale;
    uint8_t *obs, *next_obs; /* [capacity][row_bytes]; next_obs is the final
                                observation where the episode ended */
    int32_t *actions;
    float *rewards;
    uint8_t *terminated, *done; /* done = terminated || truncated */
    uint64_t steps;             /* vector steps stored so far */
} replay;

int replay_create(replay *r, uint32_t capacity, uint32_t num_envs, const rl_env_info *info);
void replay_destroy(replay *r);
/* Stores one vector step; returns the first slot written. */
uint32_t replay_add(replay *r, const rl_transition *t);
/* Transitions stored (<= capacity). */
uint32_t replay_size(const replay *r);

/* The n-step target pieces of the transition in `slot`: discounted reward
   sum G, the slot whose next_obs bootstraps, and the discount to apply to
   its value (0 when the episode terminated inside the window). */
typedef struct nstep {
    float ret;
    float discount;
    uint32_t boot_slot;
} nstep;
nstep replay_nstep(const replay *r, uint32_t slot, uint32_t n, float gamma);

/* Writes the observations of `slot` (or its next_obs) as floats. */
void replay_obs_float(const replay *r, uint32_t slot, int next, float *out);

#endif
