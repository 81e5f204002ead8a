/* Parameter blocks: one allocation for all of a model's parameters, one for
   their gradients; see nn.h. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <rlhost/nn.h>

size_t rl_params_add(rl_params *p, const char *name, uint32_t rows, uint32_t cols)
{
    if (p->n_tensors >= RL_PARAMS_MAX_TENSORS || p->data) return (size_t)-1;
    rl_param_tensor *t = &p->tensors[p->n_tensors++];
    snprintf(t->name, sizeof t->name, "%s", name);
    /* Keep each tensor 64-byte aligned inside the block (16 floats). */
    size_t off = (p->n + 15) & ~(size_t)15;
    t->offset = off;
    t->rows = rows;
    t->cols = cols;
    p->n = off + (size_t)rows * cols;
    return off;
}

int rl_params_alloc(rl_params *p)
{
    p->data = rl_calloc_aligned(p->n ? p->n : 1, sizeof(float));
    p->grad = rl_calloc_aligned(p->n ? p->n : 1, sizeof(float));
    if (!p->data || !p->grad) {
        rl_params_free(p);
        return RL_ENOMEM;
    }
    return RL_OK;
}

int rl_params_clone(rl_params *dst, const rl_params *src)
{
    *dst = *src;
    dst->data = dst->grad = NULL;
    if (rl_params_alloc(dst) != RL_OK) return RL_ENOMEM;
    memcpy(dst->data, src->data, src->n * sizeof(float));
    return RL_OK;
}

void rl_params_free(rl_params *p)
{
    rl_free(p->data);
    rl_free(p->grad);
    p->data = p->grad = NULL;
}

void rl_params_zero_grad(rl_params *p)
{
    memset(p->grad, 0, p->n * sizeof(float));
}

void rl_params_copy(rl_params *dst, const rl_params *src)
{
    memcpy(dst->data, src->data, src->n * sizeof(float));
}

void rl_params_polyak(rl_params *dst, const rl_params *src, float tau)
{
    float *d = dst->data;
    const float *s = src->data;
    for (size_t i = 0; i < src->n; i++) d[i] += tau * (s[i] - d[i]);
}

long rl_params_find_nonfinite(const float *v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!isfinite(v[i])) return (long)i;
    return -1;
}

const char *rl_grad_problem(const rl_params *p, long bad, char *buf, size_t cap)
{
    if (bad >= 0)
        snprintf(buf, cap, "a non-finite gradient in tensor '%s'", rl_params_tensor_at(p, (size_t)bad));
    else
        snprintf(buf, cap,
                 "a gradient norm past float's range (its elements are finite: a reward or observation "
                 "far out of scale?)");
    return buf;
}

const char *rl_params_tensor_at(const rl_params *p, size_t index)
{
    for (uint32_t k = 0; k < p->n_tensors; k++) {
        const rl_param_tensor *t = &p->tensors[k];
        if (index >= t->offset && index < t->offset + (size_t)t->rows * t->cols) return t->name;
    }
    return "?";
}
