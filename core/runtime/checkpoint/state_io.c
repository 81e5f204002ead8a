/* rl_state_io over a checkpoint: what a plugin's save() puts and its
   load() gets, checked against the dtype and shape it asks for.  The
   adapter knows no plugin's tensor names: a caller routes some of them to a
   second checkpoint (rl__ckpt.side, chosen by rl__ckpt.to_side). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <rlhost/rlcore.h>

#include "checkpoint/safetensors.h"

static int io_put(void *ctx, const char *name, rl_dtype dtype, uint32_t ndim, const uint64_t *shape, const void *data)
{
    rl__ckpt *c = ctx;
    if (c->side && c->to_side(name)) {
        int rc = rl__ckpt_put(c->side, name, dtype, ndim, shape, data);
        if (rc) snprintf(c->err, sizeof c->err, "%s", c->side->err);
        return rc;
    }
    return rl__ckpt_put(c, name, dtype, ndim, shape, data);
}

static void shape_text(char *buf, size_t n, uint32_t ndim, const uint64_t *shape)
{
    size_t at = (size_t)snprintf(buf, n, "[");
    for (uint32_t k = 0; k < ndim && at < n; k++)
        at += (size_t)snprintf(buf + at, n - at, "%s%llu", k ? ", " : "", (unsigned long long)shape[k]);
    if (at < n) snprintf(buf + at, n - at, "]");
}

static int io_get(void *ctx, const char *name, rl_dtype dtype, uint32_t ndim, const uint64_t *shape, void *data)
{
    rl__ckpt *c = ctx;
    const rl__ckpt_tensor *t = rl__ckpt_find(c, name);
    const rl__ckpt *owner = c;
    if (!t && c->side && (t = rl__ckpt_find(c->side, name))) owner = c->side;
    if (!t) {
        if (c->to_side && c->to_side(name)) c->missing_side = 1;
        snprintf(c->err, sizeof c->err, "tensor '%s' is missing", name);
        return RL_ENOENT;
    }
    int same = t->dtype == dtype && t->ndim == ndim;
    for (uint32_t k = 0; same && k < ndim; k++) same = t->shape[k] == shape[k];
    if (!same) {
        char have[96], want[96];
        shape_text(have, sizeof have, t->ndim, t->shape);
        shape_text(want, sizeof want, ndim, shape);
        snprintf(c->err, sizeof c->err, "tensor '%s' is %s %s in the checkpoint, but the config builds %s %s", name,
                 rl__dtype_name(t->dtype), have, rl__dtype_name(dtype), want);
        return RL_ECORRUPT;
    }
    /* Typed float tensors (weights, optimizer moments, scalars) must be
       finite: a NaN loaded is a NaN trained on. */
    const unsigned char *src = owner->data + t->offset;
    size_t count = t->bytes / rl_dtype_size(t->dtype);
    for (size_t i = 0; (t->dtype == RL_DTYPE_F32 || t->dtype == RL_DTYPE_F64) && i < count; i++) {
        double v;
        if (t->dtype == RL_DTYPE_F32) {
            float f;
            memcpy(&f, src + 4 * i, 4);
            v = f;
        } else {
            memcpy(&v, src + 8 * i, 8);
        }
        if (!isfinite(v)) {
            snprintf(c->err, sizeof c->err, "tensor '%s' holds %g at element %zu, not a finite number", name, v, i);
            return RL_ECORRUPT;
        }
    }
    memcpy(data, src, t->bytes);
    return RL_OK;
}

static const char *io_error(void *ctx)
{
    return ((rl__ckpt *)ctx)->err;
}

/* A plugin's metadata, under "algo.": the host's own keys stay its own. */
static int io_meta(void *ctx, const char *key, const char *value)
{
    rl__ckpt *c = ctx;
    char full[128];
    if (!key || !value || !key[0] || strlen(key) > 100 || strchr(key, '"') || strchr(key, '\\')) {
        snprintf(c->err, sizeof c->err, "bad metadata key '%s'", key ? key : "(null)");
        return RL_EINVAL;
    }
    snprintf(full, sizeof full, "algo.%s", key);
    if (rl__ckpt_meta_get(c, full)) {
        snprintf(c->err, sizeof c->err, "metadata '%s' stored twice", full);
        return RL_EINVAL;
    }
    return rl__ckpt_meta(c, full, value);
}

void rl__ckpt_io(rl__ckpt *c, rl_state_io *io)
{
    memset(io, 0, sizeof *io);
    io->struct_size = sizeof *io;
    io->ctx = c;
    io->put = io_put;
    io->get = io_get;
    io->error = io_error;
    io->meta = io_meta;
}
