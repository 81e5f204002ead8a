/* The prefixed rl_state_io; see state_prefix.h. */
#include "plugin/state_prefix.h"

#include <stdio.h>

static int put(void *ctx, const char *name, rl_dtype dt, uint32_t nd, const uint64_t *shape, const void *data)
{
    rl__prefixed_io *p = ctx;
    char full[320];
    snprintf(full, sizeof full, "%s%s", p->prefix, name);
    return p->base->put(p->base->ctx, full, dt, nd, shape, data);
}

static int get(void *ctx, const char *name, rl_dtype dt, uint32_t nd, const uint64_t *shape, void *data)
{
    rl__prefixed_io *p = ctx;
    char full[320];
    snprintf(full, sizeof full, "%s%s", p->prefix, name);
    int rc = p->base->get(p->base->ctx, full, dt, nd, shape, data);
    if (rc == RL_ENOENT && p->fallback) rc = p->fallback->get(p->fallback->ctx, name, dt, nd, shape, data);
    return rc;
}

static const char *error(void *ctx)
{
    rl__prefixed_io *p = ctx;
    return p->base->error ? p->base->error(p->base->ctx) : "";
}

void rl__prefixed_io_init(rl__prefixed_io *p, const rl_state_io *base, const char *prefix, const rl_state_io *fallback)
{
    p->base = base;
    p->fallback = fallback;
    snprintf(p->prefix, sizeof p->prefix, "%s", prefix);
    p->io = (rl_state_io){sizeof p->io, p, put, get, error, NULL};
}
