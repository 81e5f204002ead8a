/* Checkpoint helpers: parameter blocks, Adam and RNG state through the
   rl.algo.state/1 I/O table; see nn.h. */
#include <stdio.h>
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

static int block(const rl_params *p, float *base, const rl_state_io *io, const char *prefix,
                 int load, char *err, size_t errlen)
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

int rl_params_save(const rl_params *p, const rl_state_io *io, const char *prefix, char *err,
                   size_t errlen)
{
    return block(p, p->data, io, prefix, 0, err, errlen);
}

int rl_params_load(rl_params *p, const rl_state_io *io, const char *prefix, char *err,
                   size_t errlen)
{
    return block(p, p->data, io, prefix, 1, err, errlen);
}

int rl_adam_save(const rl_adam *a, const rl_params *p, const rl_state_io *io, char *err,
                 size_t errlen)
{
    int rc;
    if ((rc = block(p, a->m, io, "adam/m/", 0, err, errlen)) ||
        (rc = block(p, a->v, io, "adam/v/", 0, err, errlen)))
        return rc;
    uint64_t one = 1, t = a->t;
    rc = io->put(io->ctx, "adam/t", RL_DTYPE_U64, 1, &one, &t);
    return rc ? fail_io(io, rc, err, errlen) : RL_OK;
}

int rl_adam_load(rl_adam *a, const rl_params *p, const rl_state_io *io, char *err,
                 size_t errlen)
{
    int rc;
    if ((rc = block(p, a->m, io, "adam/m/", 1, err, errlen)) ||
        (rc = block(p, a->v, io, "adam/v/", 1, err, errlen)))
        return rc;
    uint64_t one = 1, t = 0;
    if ((rc = io->get(io->ctx, "adam/t", RL_DTYPE_U64, 1, &one, &t))) return fail_io(io, rc, err, errlen);
    a->t = t;
    return RL_OK;
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
    return rc ? fail_io(io, rc, err, errlen) : RL_OK;
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
