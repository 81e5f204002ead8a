/* On-policy rollout storage; see <rlhost/rollout.h>. */
#include <math.h>
#include <string.h>

#include <rlhost/dist.h>
#include <rlhost/nn.h>
#include <rlhost/rollout.h>

int rl_rollout_create(rl_rollout *r, uint32_t steps, uint32_t envs, uint32_t obs_size, uint32_t n_actions,
                      uint32_t action_dim)
{
    memset(r, 0, sizeof *r);
    if (!steps || !envs || !obs_size || (n_actions == 0) == (action_dim == 0)) return RL_EINVAL;
    r->steps = steps, r->envs = envs, r->obs_size = obs_size;
    r->n_actions = n_actions, r->action_dim = action_dim, r->comps = n_actions ? 1 : 0;
    size_t TN = (size_t)steps * envs;
    float **f[] = {&r->logp, &r->values, &r->rewards, &r->final_values, &r->adv, &r->ret};
    for (size_t k = 0; k < sizeof f / sizeof *f; k++)
        if (!(*f[k] = rl_calloc_aligned(TN, sizeof(float)))) goto oom;
    if (!(r->obs = rl_calloc_aligned(TN * obs_size, sizeof(float))) ||
        !(r->last_obs = rl_calloc_aligned((size_t)envs * obs_size, sizeof(float))) ||
        !(r->actions = rl_calloc_aligned(TN, sizeof(int32_t))) || !(r->terminated = rl_calloc_aligned(TN, 1)) ||
        !(r->truncated = rl_calloc_aligned(TN, 1)) || !(r->start = rl_calloc_aligned(TN, 1)) ||
        (action_dim && !(r->box_actions = rl_calloc_aligned(TN * action_dim, sizeof(float)))))
        goto oom;
    return RL_OK;
oom:
    rl_rollout_destroy(r);
    return RL_ENOMEM;
}

int rl_rollout_for_env(rl_rollout *r, uint32_t steps, uint32_t envs, uint32_t obs_size, const rl_env_info *env)
{
    uint32_t kind = rl_env_info_action_kind(env), box = kind == RL_SPACE_BOX, comps = rl_env_info_action_ints(env);
    uint32_t n = box ? 0 : kind == RL_SPACE_DISCRETE ? env->n_actions : comps > 1 ? 1 : env->action_nvec[0];
    int rc = rl_rollout_create(r, steps, envs, obs_size, n, box ? env->action_dim : 0);
    if (rc || box) return rc;
    size_t TN = (size_t)steps * envs;
    r->comps = comps, r->mask_width = rl_env_info_mask_width(env);
    /* a hybrid action's box beside its components */
    uint32_t floats = kind == RL_SPACE_HYBRID ? rl_env_info_action_floats(env) : 0;
    if (!(r->nvec = rl_calloc_aligned(r->comps, sizeof(uint32_t))) ||
        (r->comps > 1 && !(r->multi_actions = rl_calloc_aligned(TN * r->comps, sizeof(int32_t)))) ||
        (r->mask_width && !(r->masks = rl_calloc_aligned(TN, r->mask_width))) ||
        (floats && !(r->box_actions = rl_calloc_aligned(TN * floats, sizeof(float))))) {
        rl_rollout_destroy(r);
        return RL_ENOMEM;
    }
    r->action_dim = floats;
    for (uint32_t c = 0; c < r->comps; c++)
        r->nvec[c] = kind == RL_SPACE_DISCRETE ? env->n_actions : env->action_nvec[c];
    return RL_OK;
}

void rl_rollout_destroy(rl_rollout *r)
{
    if (!r) return;
    void *all[] = {r->obs,          r->actions,       r->box_actions, r->logp,     r->values,     r->rewards,
                   r->final_values, r->adv,           r->ret,         r->last_obs, r->terminated, r->truncated,
                   r->start,        r->multi_actions, r->masks,       r->nvec};
    for (size_t k = 0; k < sizeof all / sizeof *all; k++) rl_free(all[k]);
    memset(r, 0, sizeof *r);
}

void rl_rollout_act(rl_rollout *r, const uint8_t *start, const int32_t *actions, const float *box_actions,
                    const float *logp, const float *values, uint32_t count)
{
    size_t at = rl_rollout_at(r);
    memcpy(r->start + at, start, count);
    if (actions) memcpy(r->actions + at, actions, count * sizeof(int32_t));
    if (box_actions && r->box_actions)
        memcpy(r->box_actions + at * r->action_dim, box_actions, (size_t)count * r->action_dim * sizeof(float));
    if (logp) memcpy(r->logp + at, logp, count * sizeof(float));
    if (values) memcpy(r->values + at, values, count * sizeof(float));
}

void rl_rollout_act_batch(rl_rollout *r, const rl_act_batch *b, const float *logp, const float *values)
{
    size_t at = rl_rollout_at(r), n = b->count, W = r->mask_width;
    const int32_t *one = r->multi_actions || !r->n_actions ? NULL : b->actions;
    rl_rollout_act(r, b->episode_start, one, b->box_actions, logp, values, b->count);
    if (r->multi_actions) memcpy(r->multi_actions + at * r->comps, b->actions, n * r->comps * sizeof(int32_t));
    if (W && b->masks) memcpy(r->masks + at * W, b->masks, n * W);
    if (W && !b->masks) memset(r->masks + at * W, 1, n * W);
}

int rl_rollout_observe(rl_rollout *r, const rl_transition *t, const float *rewards)
{
    size_t at = rl_rollout_at(r), N = r->envs;
    const float *src = rewards ? rewards : t->rewards;
    if (src != r->rewards + at) memcpy(r->rewards + at, src, N * sizeof(float));
    memcpy(r->terminated + at, t->terminated, N);
    memcpy(r->truncated + at, t->truncated, N);
    return ++r->pos == r->steps;
}

void rl_gae(float *adv, float *ret, const float *rewards, const float *values, const uint8_t *terminated,
            const uint8_t *truncated, const float *final_values, const float *last_values, uint32_t T, uint32_t N,
            float gamma, float lambda)
{
    for (uint32_t i = 0; i < N; i++) {
        float gae = 0.0f;
        for (uint32_t t = T; t-- > 0;) {
            size_t k = (size_t)t * N + i;
            float next_v;
            int ended = terminated[k] || truncated[k];
            if (terminated[k])
                next_v = 0.0f;
            else if (truncated[k])
                next_v = final_values[k];
            else
                next_v = t + 1 < T ? values[k + N] : last_values[i];
            float delta = rewards[k] + gamma * next_v - values[k];
            gae = delta + (ended ? 0.0f : gamma * lambda * gae);
            adv[k] = gae;
            ret[k] = gae + values[k];
        }
    }
}

void rl_rollout_gae(rl_rollout *r, const float *last_values, float gamma, float lambda)
{
    rl_gae(r->adv, r->ret, r->rewards, r->values, r->terminated, r->truncated, r->final_values, last_values, r->steps,
           r->envs, gamma, lambda);
}

void rl_advantage_stats(const float *adv, size_t n, double *mean, double *std)
{
    double m = 0, s = 0;
    for (size_t k = 0; k < n; k++) m += adv[k];
    m = n ? m / (double)n : 0.0;
    for (size_t k = 0; k < n; k++) s += (adv[k] - m) * (adv[k] - m);
    *mean = m;
    *std = n > 1 ? sqrt(s / (double)(n - 1)) : 1.0;
}

int rl_rollout_arrays_state(rl_rollout *r, const rl_state_io *io, int load, char *err, size_t errlen)
{
    size_t TN = (size_t)r->steps * r->envs, D = r->obs_size;
    struct {
        const char *name;
        void *data;
        size_t bytes;
    } blobs[] = {
        /* the float arrays first: load checks them finite */
        {"obs", r->obs, TN * D * 4},
        {"logp", r->logp, TN * 4},
        {"values", r->values, TN * 4},
        {"rewards", r->rewards, TN * 4},
        {"final_values", r->final_values, TN * 4},
        {"last_obs", r->last_obs, (size_t)r->envs * D * 4},
        {"actions", r->actions, TN * 4},
        {"terminated", r->terminated, TN},
        {"truncated", r->truncated, TN},
        {"start", r->start, TN},
    };
    int rc;
    for (size_t k = 0; k < sizeof blobs / sizeof *blobs; k++)
        if ((rc = rl_state_blob(io, load, "rollout/", blobs[k].name, blobs[k].data, blobs[k].bytes, err, errlen)))
            return rc;
    if (load && r->n_actions &&
        (rc = rl_state_check_i32s("rollout/actions", r->actions, TN, 0, (int32_t)r->n_actions - 1, err, errlen)))
        return rc;
    if (r->action_dim) { /* the samples as drawn: any finite value */
        size_t n = TN * r->action_dim;
        if ((rc = rl_state_blob(io, load, "rollout/", "box_actions", r->box_actions, n * 4, err, errlen)) ||
            (load && (rc = rl_state_check_finite("rollout/box_actions", r->box_actions, n, err, errlen))))
            return rc;
    }
    if (r->multi_actions &&
        (rc = rl_state_blob(io, load, "rollout/", "multi_actions", r->multi_actions, TN * r->comps * 4, err, errlen)))
        return rc;
    if (r->masks && (rc = rl_state_blob(io, load, "rollout/", "masks", r->masks, TN * r->mask_width, err, errlen)))
        return rc;
    if (load && r->nvec &&
        (rc = rl_actions_check(r->nvec, r->comps, rl_rollout_actions(r), r->masks, TN,
                               r->multi_actions ? "rollout/multi_actions" : "rollout/actions", err, errlen)))
        return rc;
    for (size_t k = 0; load && k < 6; k++)
        if ((rc = rl_state_check_finite(blobs[k].name, blobs[k].data, blobs[k].bytes / 4, err, errlen))) return rc;
    return RL_OK;
}

int rl_rollout_state(rl_rollout *r, const rl_state_io *io, int load, char *err, size_t errlen)
{
    double pos = r->pos;
    int rc;
    if ((rc = rl_scalar_state(&pos, io, load, "rollout/pos", err, errlen)) ||
        (load && (rc = rl_state_check_f("rollout/pos", pos, 0, r->steps - 1, err, errlen))))
        return rc;
    if (load && pos != floor(pos)) {
        RL_ERRF(err, errlen, "tensor 'rollout/pos' holds %g, not a whole step", pos);
        return RL_ECORRUPT;
    }
    r->pos = (uint32_t)pos;
    return rl_rollout_arrays_state(r, io, load, err, errlen);
}
