/* Checkpoint helpers: parameter blocks, Adam and RNG state through the
   rl.algo.state/1 I/O table; see nn.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rlhost/nn.h>

static int fail_io(const rl_state_io *io, int rc, char *err, size_t errlen)
{
    RL_ERRF(err, errlen, "%s", io->error ? io->error(io->ctx) : rl_strerror(rc));
    return rc;
}

static void tensor_shape(const rl_param_tensor *t, uint32_t *ndim, uint64_t *shape)
{
    shape[0] = t->rows;
    shape[1] = t->cols;
    *ndim = t->cols == 1 ? 1 : 2;
}

static int block(const rl_params *p, float *base, const rl_state_io *io, const char *prefix, int load, char *err,
                 size_t errlen)
{
    for (uint32_t k = 0; k < p->n_tensors; k++) {
        const rl_param_tensor *t = &p->tensors[k];
        char name[RL_PARAM_NAME_MAX + 32];
        snprintf(name, sizeof name, "%s%s", prefix, t->name);
        uint64_t shape[2];
        uint32_t ndim;
        tensor_shape(t, &ndim, shape);
        int rc = load ? io->get(io->ctx, name, RL_DTYPE_F32, ndim, shape, base + t->offset)
                      : io->put(io->ctx, name, RL_DTYPE_F32, ndim, shape, base + t->offset);
        if (rc != RL_OK) return fail_io(io, rc, err, errlen);
    }
    return RL_OK;
}

int rl_params_save(const rl_params *p, const rl_state_io *io, const char *prefix, char *err, size_t errlen)
{
    return block(p, p->data, io, prefix, 0, err, errlen);
}

int rl_params_load(rl_params *p, const rl_state_io *io, const char *prefix, char *err, size_t errlen)
{
    return block(p, p->data, io, prefix, 1, err, errlen);
}

int rl_params_state(rl_params *p, const rl_state_io *io, int load, const char *prefix, char *err, size_t errlen)
{
    return block(p, p->data, io, prefix, load, err, errlen);
}

int rl_adam_state(rl_adam *a, const rl_params *p, const rl_state_io *io, int load, const char *prefix, char *err,
                  size_t errlen)
{
    char m[64], v[64], tn[64];
    snprintf(m, sizeof m, "%sm/", prefix);
    snprintf(v, sizeof v, "%sv/", prefix);
    snprintf(tn, sizeof tn, "%st", prefix);
    int rc;
    if ((rc = block(p, a->m, io, m, load, err, errlen)) || (rc = block(p, a->v, io, v, load, err, errlen))) return rc;
    uint64_t one = 1, t = a->t;
    rc = load ? io->get(io->ctx, tn, RL_DTYPE_U64, 1, &one, &t) : io->put(io->ctx, tn, RL_DTYPE_U64, 1, &one, &t);
    if (rc) return fail_io(io, rc, err, errlen);
    if (load && (rc = rl_state_check_u(tn, t, 0, UINT64_C(1) << 53, err, errlen))) return rc;
    /* loaded moments are untrusted: a NaN or a negative second moment would
       turn every later step into NaN without saying where it came from */
    for (size_t i = 0; load && i < a->n; i++) {
        int bad_m = !(a->m[i] >= -3.4e38f && a->m[i] <= 3.4e38f), bad_v = !(a->v[i] >= 0 && a->v[i] <= 3.4e38f);
        if (bad_m || bad_v) {
            char name[RL_PARAM_NAME_MAX + 96];
            snprintf(name, sizeof name, "%s%s", bad_m ? m : v, rl_params_tensor_at(p, i));
            return rl_state_check_f(name, bad_m ? a->m[i] : a->v[i], bad_m ? -3.4e38 : 0, 3.4e38, err, errlen);
        }
    }
    a->t = t;
    return RL_OK;
}

int rl_rmsprop_state(rl_rmsprop *o, const rl_params *p, const rl_state_io *io, int load, const char *prefix, char *err,
                     size_t errlen)
{
    char v[64];
    snprintf(v, sizeof v, "%sv/", prefix);
    int rc = block(p, o->v, io, v, load, err, errlen);
    if (rc || !load) return rc;
    for (size_t i = 0; i < o->n; i++)
        if ((rc = rl_state_check_f(rl_params_tensor_at(p, i), o->v[i], 0, 3.4e38, err, errlen))) return rc;
    return RL_OK;
}

int rl_adam_save(const rl_adam *a, const rl_params *p, const rl_state_io *io, char *err, size_t errlen)
{
    return rl_adam_state((rl_adam *)a, p, io, 0, "adam/", err, errlen);
}

int rl_adam_load(rl_adam *a, const rl_params *p, const rl_state_io *io, char *err, size_t errlen)
{
    return rl_adam_state(a, p, io, 1, "adam/", err, errlen);
}

int rl_rng_save(const rl_rng *r, const rl_state_io *io, const char *name, char *err, size_t errlen)
{
    uint64_t four = 4;
    int rc = io->put(io->ctx, name, RL_DTYPE_U64, 1, &four, r->s);
    return rc ? fail_io(io, rc, err, errlen) : RL_OK;
}

int rl_rng_load(rl_rng *r, const rl_state_io *io, const char *name, char *err, size_t errlen)
{
    uint64_t four = 4;
    int rc = io->get(io->ctx, name, RL_DTYPE_U64, 1, &four, r->s);
    return rc ? fail_io(io, rc, err, errlen) : rl_state_check_rng(name, r, err, errlen);
}

int rl_rng_state(rl_rng *r, const rl_state_io *io, int load, const char *name, char *err, size_t errlen)
{
    return load ? rl_rng_load(r, io, name, err, errlen) : rl_rng_save(r, io, name, err, errlen);
}

int rl_scalar_save(double v, const rl_state_io *io, const char *name, char *err, size_t errlen)
{
    uint64_t one = 1;
    int rc = io->put(io->ctx, name, RL_DTYPE_F64, 1, &one, &v);
    return rc ? fail_io(io, rc, err, errlen) : RL_OK;
}

int rl_scalar_load(double *v, const rl_state_io *io, const char *name, char *err, size_t errlen)
{
    uint64_t one = 1;
    int rc = io->get(io->ctx, name, RL_DTYPE_F64, 1, &one, v);
    return rc ? fail_io(io, rc, err, errlen) : RL_OK;
}

int rl_scalar_state(double *v, const rl_state_io *io, int load, const char *name, char *err, size_t errlen)
{
    return load ? rl_scalar_load(v, io, name, err, errlen) : rl_scalar_save(*v, io, name, err, errlen);
}

int rl_count_state(uint64_t *v, uint64_t max, const rl_state_io *io, int load, const char *name, char *err,
                   size_t errlen)
{
    uint64_t one = 1;
    int rc = load ? io->get(io->ctx, name, RL_DTYPE_U64, 1, &one, v) : io->put(io->ctx, name, RL_DTYPE_U64, 1, &one, v);
    if (rc) return fail_io(io, rc, err, errlen);
    return load ? rl_state_check_u(name, *v, 0, max, err, errlen) : RL_OK;
}

int rl_keep_best_init(rl_keep_best *k, int enabled, const rl_params *model)
{
    memset(k, 0, sizeof *k);
    k->enabled = enabled;
    return enabled ? rl_params_clone(&k->best, model) : RL_OK;
}

void rl_keep_best_free(rl_keep_best *k)
{
    rl_params_free(&k->best);
}

void rl_keep_best_offer(rl_keep_best *k, const rl_params *model, double ret)
{
    if (!k->enabled || (k->have && ret < k->best_return)) return;
    rl_params_copy(&k->best, model);
    k->best_return = ret;
    k->have = 1;
}

int rl_keep_best_restore(const rl_keep_best *k, rl_params *model)
{
    if (!k->enabled || !k->have) return 0;
    rl_params_copy(model, &k->best);
    return 1;
}

void rl_keep_best_finish(const rl_keep_best *k, rl_params *model, const rl_host_api *host, const char *who)
{
    if (rl_keep_best_restore(k, model) && host)
        host->log(RL_LOG_INFO, who, "keep_best: final policy is the one evaluated at %.4g", k->best_return);
}

int rl_keep_best_state(rl_keep_best *k, const rl_state_io *io, int load, char *err, size_t errlen)
{
    if (!k->enabled) return RL_OK;
    double have = k->have;
    int rc;
    if ((rc = rl_params_state(&k->best, io, load, "best/", err, errlen)) ||
        (rc = rl_scalar_state(&k->best_return, io, load, "best/return", err, errlen)) ||
        (rc = rl_scalar_state(&have, io, load, "best/have", err, errlen)))
        return rc;
    k->have = have != 0;
    return RL_OK;
}

int rl_policy_meta(const rl_state_io *io, const char *algo, uint32_t obs_size, const char *norm_prefix, float norm_clip,
                   uint32_t n, const char *const *names, const char *const *ops, const char *greedy, char *err,
                   size_t errlen)
{
    size_t cap = 512 + strlen(algo) + strlen(greedy) + (norm_prefix ? 2 * strlen(norm_prefix) : 0);
    for (uint32_t k = 0; k < n; k++) cap += strlen(names[k]) + strlen(ops[k]) + 8;
    char *json = malloc(cap);
    if (!json) {
        RL_ERRF(err, errlen, "out of memory describing the policy");
        return RL_ENOMEM;
    }
    int len = snprintf(json, cap,
                       "{\"format\":\"rlhost.policy/1\",\"algo\":\"%s\",\"input\":{\"size\":%u,"
                       "\"normalize\":",
                       algo, obs_size);
    if (norm_prefix)
        len += snprintf(json + len, cap - len,
                        "{\"mean\":\"%smean\",\"var\":\"%svar\",\"eps\":1e-8,\"clip\":%.9g,"
                        "\"formula\":\"clip((x - mean) / sqrt(var + eps), -clip, clip)\"}},\"outputs\":{",
                        norm_prefix, norm_prefix, (double)norm_clip);
    else
        len += snprintf(json + len, cap - len, "null},\"outputs\":{");
    for (uint32_t k = 0; k < n; k++)
        len += snprintf(json + len, cap - len, "%s\"%s\":[%s]", k ? "," : "", names[k], ops[k]);
    snprintf(json + len, cap - len, "},\"greedy\":%s}", greedy);
    int rc = rl_state_meta(io, "policy", json, err, errlen);
    free(json);
    return rc;
}
