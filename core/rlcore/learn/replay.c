/* The replay buffer; see <rlhost/replay.h>. */
#include <rlhost/replay.h>

#include <string.h>

#include <rlhost/parts.h>
#include <rlhost/rlcore.h>

int rl_replay_create(rl_replay *r, uint32_t capacity, uint32_t num_envs, const rl_env_info *info)
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
    r->action_dim = rl_env_info_action_kind(info) == RL_SPACE_BOX ? info->action_dim : 0;
    if (r->action_dim)
        r->box_actions = rl_calloc_aligned((size_t)capacity * r->action_dim, sizeof(float));
    else
        r->actions = rl_calloc_aligned(capacity, sizeof *r->actions);
    r->rewards = rl_calloc_aligned(capacity, sizeof *r->rewards);
    r->terminated = rl_calloc_aligned(capacity, 1);
    r->done = rl_calloc_aligned(capacity, 1);
    if (!r->obs || !r->next_obs || !(r->actions || r->box_actions) || !r->rewards || !r->terminated || !r->done) {
        rl_replay_destroy(r);
        return RL_ENOMEM;
    }
    return RL_OK;
}

uint64_t rl_replay_bytes(uint64_t capacity, const rl_env_info *info)
{
    uint64_t row = (uint64_t)info->obs_size * (info->obs_dtype == RL_DTYPE_U8 ? 1 : 4);
    uint64_t act = rl_env_info_action_kind(info) == RL_SPACE_BOX ? (uint64_t)info->action_dim * 4 : 4;
    return capacity * (2 * row + act + 4 + 1 + 1);
}

void rl_replay_destroy(rl_replay *r)
{
    rl_free(r->obs);
    rl_free(r->next_obs);
    rl_free(r->actions);
    rl_free(r->box_actions);
    rl_free(r->rewards);
    rl_free(r->terminated);
    rl_free(r->done);
    memset(r, 0, sizeof *r);
}

uint32_t rl_replay_add(rl_replay *r, const rl_transition *t)
{
    uint32_t n = r->num_envs;
    uint32_t first = (uint32_t)((r->steps * n) % r->capacity);
    memcpy(r->obs + first * r->row_bytes, t->obs, n * r->row_bytes);
    memcpy(r->next_obs + first * r->row_bytes, t->next_obs, n * r->row_bytes);
    for (uint32_t i = 0; i < n; i++) {
        uint32_t s = first + i;
        uint8_t done = t->terminated[i] | t->truncated[i];
        if (done) /* bootstrap from the episode's last observation, not the reset one */
            memcpy(r->next_obs + s * r->row_bytes, (const uint8_t *)t->final_obs + i * r->row_bytes, r->row_bytes);
        if (r->action_dim)
            memcpy(r->box_actions + (size_t)s * r->action_dim, t->box_actions + (size_t)i * r->action_dim,
                   r->action_dim * sizeof(float));
        else
            r->actions[s] = t->actions[i];
        r->rewards[s] = t->rewards[i];
        r->terminated[s] = t->terminated[i];
        r->done[s] = done;
    }
    r->steps++;
    return first;
}

uint32_t rl_replay_size(const rl_replay *r)
{
    uint64_t n = r->steps * r->num_envs;
    return n < r->capacity ? (uint32_t)n : r->capacity;
}

rl_nstep rl_replay_nstep(const rl_replay *r, uint32_t slot, uint32_t n, float gamma)
{
    /* Steps stored after this one (the newest step has 0 after it). */
    uint32_t newest_first = (uint32_t)(((r->steps - 1) * r->num_envs) % r->capacity);
    uint32_t age = (newest_first + r->capacity - (slot - slot % r->num_envs)) % r->capacity;
    uint32_t after = age / r->num_envs;
    rl_nstep out = {0.0f, 1.0f, slot};
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

int rl_replay_batch_create(rl_replay_batch *b, const rl_replay *r, uint32_t n)
{
    memset(b, 0, sizeof *b);
    size_t rows = (size_t)n * r->obs_size, acts = r->action_dim ? (size_t)n * r->action_dim : 0;
    /* one block: slots, actions (4 bytes each), then the floats */
    size_t total = (size_t)n + (r->action_dim ? 0 : n) + 2 * rows + acts + 2 * (size_t)n;
    uint32_t *block = rl_calloc_aligned(total, 4);
    if (!n || !block) {
        rl_free(block);
        return n ? RL_ENOMEM : RL_EINVAL;
    }
    b->n = n;
    b->slots = block;
    float *f = (float *)(block + n);
    if (!r->action_dim) {
        b->actions = (int32_t *)(block + n);
        f += n;
    }
    b->obs = f;
    b->next_obs = f + rows;
    f += 2 * rows;
    if (r->action_dim) {
        b->box_actions = f;
        f += acts;
    }
    b->rewards = f;
    b->terminated = f + n;
    return RL_OK;
}

void rl_replay_batch_destroy(rl_replay_batch *b)
{
    rl_free(b->slots);
    memset(b, 0, sizeof *b);
}

void rl_replay_sample(const rl_replay *r, rl_rng *rng, rl_replay_batch *b)
{
    uint32_t size = rl_replay_size(r), D = r->obs_size, A = r->action_dim;
    for (uint32_t j = 0; j < b->n; j++) b->slots[j] = rl_rng_below(rng, size);
    for (uint32_t j = 0; j < b->n; j++) {
        uint32_t s = b->slots[j];
        rl_replay_obs_float(r, s, 0, b->obs + (size_t)j * D);
        rl_replay_obs_float(r, s, 1, b->next_obs + (size_t)j * D);
        if (A)
            memcpy(b->box_actions + (size_t)j * A, r->box_actions + (size_t)s * A, A * sizeof(float));
        else
            b->actions[j] = r->actions[s];
        b->rewards[j] = r->rewards[s];
        b->terminated[j] = r->terminated[s] ? 1.0f : 0.0f;
    }
}

void rl_replay_obs_float(const rl_replay *r, uint32_t slot, int next, float *out)
{
    const uint8_t *src = (next ? r->next_obs : r->obs) + (size_t)slot * r->row_bytes;
    rl_obs_to_float(r->dtype, r->obs_scale, src, r->obs_size, out);
}

void rl_replay_obs_input(const rl_replay *r, const rl_env_info *env, uint32_t slot, int next, float *out)
{
    const rl_obs_part *parts;
    if (!rl_env_info_parts(env, &parts)) {
        rl_replay_obs_float(r, slot, next, out);
        return;
    }
    rl_obs_input(env, (next ? r->next_obs : r->obs) + (size_t)slot * r->row_bytes, 1, out);
}

int rl_replay_state(rl_replay *r, const rl_state_io *io, int load, uint32_t n_actions, const float *low,
                    const float *high, char *err, size_t errlen)
{
    size_t cap = r->capacity;
    int rc = rl_state_blob(io, load, "replay/", "obs", r->obs, cap * r->row_bytes, err, errlen);
    if (rc == RL_ENOENT && load) { /* no replay beside the checkpoint: start empty */
        r->steps = 0;
        return RL_ENOENT;
    }
    if (rc || (rc = rl_state_blob(io, load, "replay/", "next_obs", r->next_obs, cap * r->row_bytes, err, errlen)) ||
        (rc = r->action_dim
             ? rl_state_blob(io, load, "replay/", "box_actions", r->box_actions, cap * r->action_dim * sizeof(float),
                             err, errlen)
             : rl_state_blob(io, load, "replay/", "actions", r->actions, cap * sizeof *r->actions, err, errlen)) ||
        (rc = rl_state_blob(io, load, "replay/", "rewards", r->rewards, cap * sizeof *r->rewards, err, errlen)) ||
        (rc = rl_state_blob(io, load, "replay/", "terminated", r->terminated, cap, err, errlen)) ||
        (rc = rl_state_blob(io, load, "replay/", "done", r->done, cap, err, errlen)) ||
        (rc = rl_state_blob(io, load, "replay/", "steps", &r->steps, sizeof r->steps, err, errlen)))
        return rc;
    if (!load) return RL_OK;
    size_t floats = r->dtype == RL_DTYPE_F32 ? cap * r->row_bytes / 4 : 0;
    /* steps * num_envs must not wrap, now or after the next add() */
    if ((rc = rl_state_check_u("replay/steps", r->steps, 0, UINT64_MAX / r->num_envs - 1, err, errlen)) ||
        (rc = rl_state_check_finite("replay/rewards", r->rewards, cap, err, errlen)) ||
        (rc = rl_state_check_finite("replay/obs", (const float *)r->obs, floats, err, errlen)) ||
        (rc = rl_state_check_finite("replay/next_obs", (const float *)r->next_obs, floats, err, errlen)))
        return rc;
    if (!r->action_dim)
        return rl_state_check_i32s("replay/actions", r->actions, cap, 0, (int32_t)n_actions - 1, err, errlen);
    for (size_t k = 0; k < cap * r->action_dim; k++) /* what the critics read back */
        if ((rc = rl_state_check_f("replay/box_actions", r->box_actions[k], low[k % r->action_dim],
                                   high[k % r->action_dim], err, errlen)))
            return rc;
    return RL_OK;
}
