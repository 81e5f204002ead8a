/* librlcore's status strings and the helpers a plugin saves and checks its
   state with (<rlhost/rlcore.h>): plain C, nothing of the platform, so
   that a page in the browser (examples/web/) compiles this file as it is
   and restores states exactly as rlhost does. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <rlhost/rlcore.h>

const char *rl_strerror(int status)
{
    switch (status) {
    case RL_OK:
        return "ok";
#define RL__ERR_CASE(name, val, text) \
    case RL_##name:                   \
        return text;
        RL_ERRNO_MAP(RL__ERR_CASE)
#undef RL__ERR_CASE
    default:
        return "unknown status";
    }
}

int rl_state_meta(const rl_state_io *io, const char *key, const char *value, char *err, size_t errlen)
{
    if (!RL_HAS_FIELD(io, rl_state_io, meta) || !io->meta) return RL_OK;
    int rc = io->meta(io->ctx, key, value);
    if (rc != RL_OK) RL_ERRF(err, errlen, "metadata '%s' refused: %s", key, io->error(io->ctx));
    return rc;
}

int rl_state_blob(const rl_state_io *io, int load, const char *prefix, const char *name, void *data, size_t bytes,
                  char *err, size_t errlen)
{
    char buf[160];
    const char *full = name; /* no prefix (a search's scratch env): no copy */
    if (prefix && *prefix) {
        snprintf(buf, sizeof buf, "%s%s", prefix, name);
        full = buf;
    }
    uint64_t shape = bytes;
    int rc = load ? io->get(io->ctx, full, RL_DTYPE_U8, 1, &shape, data)
                  : io->put(io->ctx, full, RL_DTYPE_U8, 1, &shape, data);
    if (rc != RL_OK && err && errlen) snprintf(err, errlen, "%s", io->error ? io->error(io->ctx) : rl_strerror(rc));
    return rc;
}

int rl_state_check_u(const char *name, uint64_t v, uint64_t lo, uint64_t hi, char *err, size_t errlen)
{
    if (v >= lo && v <= hi) return RL_OK;
    if (err && errlen)
        snprintf(err, errlen, "tensor '%s' holds %llu, outside [%llu, %llu]", name, (unsigned long long)v,
                 (unsigned long long)lo, (unsigned long long)hi);
    return RL_ECORRUPT;
}

int rl_state_check_i(const char *name, int64_t v, int64_t lo, int64_t hi, char *err, size_t errlen)
{
    if (v >= lo && v <= hi) return RL_OK;
    if (err && errlen)
        snprintf(err, errlen, "tensor '%s' holds %lld, outside [%lld, %lld]", name, (long long)v, (long long)lo,
                 (long long)hi);
    return RL_ECORRUPT;
}

int rl_state_check_f(const char *name, double v, double lo, double hi, char *err, size_t errlen)
{
    if (v >= lo && v <= hi) return RL_OK; /* false for NaN */
    if (err && errlen) snprintf(err, errlen, "tensor '%s' holds %g, outside [%g, %g]", name, v, lo, hi);
    return RL_ECORRUPT;
}

int rl_state_check_rng(const char *name, const rl_rng *r, char *err, size_t errlen)
{
    if (r->s[0] | r->s[1] | r->s[2] | r->s[3]) return RL_OK;
    if (err && errlen) snprintf(err, errlen, "tensor '%s' holds an all-zero random generator state", name);
    return RL_ECORRUPT;
}

int rl_state_check_finite(const char *name, const float *v, size_t n, char *err, size_t errlen)
{
    for (size_t i = 0; i < n; i++)
        if (!isfinite(v[i])) {
            if (err && errlen)
                snprintf(err, errlen, "tensor '%s' holds %g at element %zu, not a finite number", name, (double)v[i],
                         i);
            return RL_ECORRUPT;
        }
    return RL_OK;
}

int rl_state_check_i32s(const char *name, const int32_t *v, size_t n, int32_t lo, int32_t hi, char *err, size_t errlen)
{
    for (size_t i = 0; i < n; i++)
        if (v[i] < lo || v[i] > hi) {
            if (err && errlen)
                snprintf(err, errlen, "tensor '%s' holds %d at element %zu, outside [%d, %d]", name, (int)v[i], i,
                         (int)lo, (int)hi);
            return RL_ECORRUPT;
        }
    return RL_OK;
}
