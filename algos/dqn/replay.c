/* Replay buffer; see replay.h. */
#include "replay.h"

#include <string.h>

#include <rlhost/rlcore.h>

int replay_create(replay *r, uint32_t capacity, uint32_t num_envs, const rl_env_info *info)
{
    memset(r, 0, sizeof *r);
    if (capacity < num_envs) capacity = num_envs;
    capacity -= capacity % num_envs;
    r->capacity = capacity;
    r->num_envs = num_envs;
    r->obs_size = info->obs_size;
    r->dtype = info->obs_dtype;
    r->obs_scale = info->obs_scale;
    r->row_bytes = (size_t)info->obs_size * (info->obs_dtype == RL_DTYPE_U8 ? 1 : 4);
    r->obs = rl_calloc_aligned(capacity, r->row_bytes);
    r->next_obs = rl_calloc_aligned(capacity, r->row_bytes);
    r->actions = rl_calloc_aligned(capacity, sizeof *r->actions);
    r->rewards = rl_calloc_aligned(capacity, sizeof *r->rewards);
    r->terminated = rl_calloc_aligned(capacity, 1);
    r->done = rl_calloc_aligned(capacity, 1);
    if (!r->obs || !r->next_obs || !r->actions || !r->rewards || !r->terminated || !r->done) {
        replay_destroy(r);
        return RL_ENOMEM;
    }
    return RL_OK;
}

void replay_destroy(replay *r)
{
    rl_free(r->obs);
    rl_free(r->next_obs);
    rl_free(r->actions);
    rl_free(r->rewards);
    rl_free(r->terminated);
    rl_free(r->done);
    memset(r, 0, sizeof *r);
}

uint32_t replay_add(replay *r, const rl_transition *t)
{
    uint32_t n = r->num_envs;
    uint32_t first = (uint32_t)((r->steps * n) % r->capacity);
    memcpy(r->obs + first * r->row_bytes, t->obs, n * r->row_bytes);
    memcpy(r->next_obs + first * r->row_bytes, t->next_obs, n * r->row_bytes);
    for (uint32_t i = 0; i < n; i++) {
        uint32_t s = first + i;
        uint8_t done = t->terminated[i] | t->truncated[i];
        if (done) /* bootstrap from the episode's last observation, not the reset one */
            memcpy(r->next_obs + s * r->row_bytes, (const uint8_t *)t->final_obs + i * r->row_bytes,
                   r->row_bytes);
        r->actions[s] = t->actions[i];
        r->rewards[s] = t->rewards[i];
        r->terminated[s] = t->terminated[i];
        r->done[s] = done;
    }
    r->steps++;
    return first;
}

uint32_t replay_size(const replay *r)
{
    uint64_t n = r->steps * r->num_envs;
    return n < r->capacity ? (uint32_t)n : r->capacity;
}

nstep replay_nstep(const replay *r, uint32_t slot, uint32_t n, float gamma)
{
    /* Steps stored after this one (the newest step has 0 after it). */
    uint32_t newest_first = (uint32_t)(((r->steps - 1) * r->num_envs) % r->capacity);
    uint32_t age = (newest_first + r->capacity - (slot - slot % r->num_envs)) % r->capacity;
    uint32_t after = age / r->num_envs;
    nstep out = {0.0f, 1.0f, slot};
    uint32_t s = slot;
    for (uint32_t k = 0; k < n; k++) {
        out.ret += out.discount * r->rewards[s];
        out.boot_slot = s;
        out.discount *= gamma;
        if (r->terminated[s]) {
            out.discount = 0.0f;
            break;
        }
        if (r->done[s] || k + 1 == n || k + 1 > after) break; /* end, window, newest */
        s = (s + r->num_envs) % r->capacity;
    }
    return out;
}

void replay_obs_float(const replay *r, uint32_t slot, int next, float *out)
{
    const uint8_t *src = (next ? r->next_obs : r->obs) + (size_t)slot * r->row_bytes;
    rl_obs_to_float(r->dtype, r->obs_scale, src, r->obs_size, out);
}
