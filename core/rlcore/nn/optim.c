/* Losses, Adam, gradient clipping; see nn.h. */
#include <math.h>
#include <stddef.h>
#include <string.h>

#include <rlhost/nn.h>

float rl_huber_loss(float *dpred, const float *pred, const float *target, const float *w, uint32_t n)
{
    double loss = 0;
    float inv = 1.0f / (float)n;
    for (uint32_t i = 0; i < n; i++) {
        float d = pred[i] - target[i], wi = w ? w[i] : 1.0f;
        float ad = fabsf(d);
        loss += wi * (ad < 1.0f ? 0.5f * d * d : ad - 0.5f);
        if (dpred) dpred[i] += wi * inv * (ad < 1.0f ? d : (d > 0 ? 1.0f : -1.0f));
    }
    return (float)(loss / n);
}

float rl_mse_loss(float *dpred, const float *pred, const float *target, const float *w, uint32_t n)
{
    double loss = 0;
    float inv = 1.0f / (float)n;
    for (uint32_t i = 0; i < n; i++) {
        float d = pred[i] - target[i], wi = w ? w[i] : 1.0f;
        loss += wi * d * d;
        if (dpred) dpred[i] += 2.0f * wi * inv * d;
    }
    return (float)(loss / n);
}

int rl_adam_create(rl_adam *a, size_t n, float beta1, float beta2, float eps, float weight_decay)
{
    memset(a, 0, sizeof *a);
    a->beta1 = beta1;
    a->beta2 = beta2;
    a->eps = eps;
    a->weight_decay = weight_decay;
    a->n = n;
    a->m = rl_calloc_aligned(n ? n : 1, sizeof(float));
    a->v = rl_calloc_aligned(n ? n : 1, sizeof(float));
    if (!a->m || !a->v) {
        rl_adam_destroy(a);
        return RL_ENOMEM;
    }
    return RL_OK;
}

void rl_adam_destroy(rl_adam *a)
{
    rl_free(a->m);
    rl_free(a->v);
    a->m = a->v = NULL;
}

void rl_adam_step_slice(rl_adam *a, float *restrict params, const float *restrict grad, float lr, size_t lo, size_t hi)
{
    a->t++;
    float b1 = a->beta1, b2 = a->beta2, c1 = 1.0f - b1, c2 = 1.0f - b2;
    float bc1 = 1.0f - (float)pow(b1, (double)a->t);
    float bc2 = 1.0f - (float)pow(b2, (double)a->t);
    float step = lr / bc1, inv_sqrt_bc2 = 1.0f / sqrtf(bc2), eps = a->eps;
    float *restrict m = a->m, *restrict v = a->v;
    if (hi > a->n) hi = a->n;
    if (a->weight_decay > 0) { /* decoupled (AdamW): shrink first */
        float decay = 1.0f - lr * a->weight_decay;
        for (size_t i = lo; i < hi; i++) params[i] *= decay;
    }
    /* Branch-free so the compiler vectorizes it (sqrt and divide are exact
       IEEE operations, so vectorizing does not change results). */
    for (size_t i = lo; i < hi; i++) {
        float g = grad[i];
        float mi = b1 * m[i] + c1 * g;
        float vi = b2 * v[i] + c2 * g * g;
        m[i] = mi;
        v[i] = vi;
        params[i] -= step * mi / (sqrtf(vi) * inv_sqrt_bc2 + eps);
    }
}

void rl_adam_step(rl_adam *a, float *restrict params, const float *restrict grad, float lr)
{
    rl_adam_step_slice(a, params, grad, lr, 0, a->n);
}

/* Four double lanes with a fixed combination order: vectorizes, and the
   result does not depend on the machine. */
typedef double v4d __attribute__((vector_size(32)));

static double sum_squares(const float *grad, size_t n)
{
    v4d acc = {0, 0, 0, 0};
    size_t i = 0;
    for (; i + 4 <= n; i += 4) {
        v4d g = {grad[i], grad[i + 1], grad[i + 2], grad[i + 3]};
        acc += g * g;
    }
    double ss = (acc[0] + acc[1]) + (acc[2] + acc[3]);
    for (; i < n; i++) ss += (double)grad[i] * grad[i];
    return ss;
}

/* Scales grad[0, n) by max_norm / (norm + 1e-6) when norm is above it. */
static void clip_to(float *grad, size_t n, float norm, float max_norm)
{
    if (max_norm > 0 && norm > max_norm) {
        float s = max_norm / (norm + 1e-6f);
        for (size_t k = 0; k < n; k++) grad[k] *= s;
    }
}

float rl_clip_grad_norm(float *grad, size_t n, float max_norm)
{
    float norm = (float)sqrt(sum_squares(grad, n));
    clip_to(grad, n, norm, max_norm);
    return norm;
}

/* The host offers the sharded calls (1.1 hosts built since they exist). */
static int sharded(const rl_replicas *rep)
{
    return rep && rep->count > 1 && RL_HAS_FIELD(rep, rl_replicas, allgather_f32) && rep->reduce_scatter_f32 &&
        rep->allgather_f32;
}

float rl_adam_clip_step(rl_adam *a, float *params, float *grad, size_t n, float max_norm, float lr)
{
    float norm;
    rl_replicated_adam_step(NULL, 0, a, params, grad, n, max_norm, lr, &norm, NULL);
    return norm;
}

int rl_replicated_adam_step(const rl_replicas *rep, int shard, rl_adam *a, float *params, float *grad, size_t n,
                            float max_norm, float lr, float *norm, long *bad)
{
    if (bad) *bad = -1;
    if (!shard || !sharded(rep)) {
        if (rep && rep->count > 1 && rep->allreduce_f32(rep->ctx, grad, n) != RL_OK) return RL_EINVAL;
        *norm = rl_clip_grad_norm(grad, n, max_norm);
        if (!isfinite(*norm)) {
            if (bad) *bad = rl_params_find_nonfinite(grad, n);
            return RL_OK;
        }
        rl_adam_step(a, params, grad, lr);
        return RL_OK;
    }
    size_t lo, hi;
    rl_replica_slice(rep, n, &lo, &hi);
    if (rep->reduce_scatter_f32(rep->ctx, grad, n) != RL_OK) return RL_EINVAL;
    double ss = sum_squares(grad + lo, hi - lo);
    if (rep->allreduce_f64(rep->ctx, &ss, 1) != RL_OK) return RL_EINVAL;
    *norm = (float)sqrt(ss);
    if (!isfinite(*norm)) { /* every replica sees it; the first bad element of all */
        double at[256] = {0};
        if (rep->count <= 256) {
            long mine = rl_params_find_nonfinite(grad + lo, hi - lo);
            at[rep->index] = mine >= 0 ? (double)(lo + (size_t)mine) + 1 : 0;
            if (rep->allreduce_f64(rep->ctx, at, rep->count) != RL_OK) return RL_EINVAL;
            for (uint32_t r = 0; bad && r < rep->count && *bad < 0; r++)
                if (at[r] > 0) *bad = (long)(at[r] - 1);
        }
        return RL_OK;
    }
    clip_to(grad + lo, hi - lo, *norm, max_norm);
    rl_adam_step_slice(a, params, grad, lr, lo, hi);
    return rep->allgather_f32(rep->ctx, params, n) == RL_OK ? RL_OK : RL_EINVAL;
}

int rl_adam_gather(const rl_replicas *rep, rl_adam *a)
{
    if (!sharded(rep)) return RL_OK;
    return rep->allgather_f32(rep->ctx, a->m, a->n) == RL_OK && rep->allgather_f32(rep->ctx, a->v, a->n) == RL_OK
        ? RL_OK
        : RL_EINVAL;
}

int rl_rmsprop_create(rl_rmsprop *o, size_t n, float alpha, float eps)
{
    memset(o, 0, sizeof *o);
    o->alpha = alpha, o->eps = eps, o->n = n;
    if (!(o->v = rl_calloc_aligned(n ? n : 1, sizeof(float)))) return RL_ENOMEM;
    return RL_OK;
}

void rl_rmsprop_destroy(rl_rmsprop *o)
{
    rl_free(o->v);
    o->v = NULL;
}

void rl_rmsprop_step(rl_rmsprop *o, float *restrict params, const float *restrict grad, float lr)
{
    float a = o->alpha, c = 1.0f - o->alpha, eps = o->eps;
    float *restrict v = o->v;
    for (size_t i = 0; i < o->n; i++) {
        v[i] = a * v[i] + c * grad[i] * grad[i];
        params[i] -= lr * grad[i] / (sqrtf(v[i]) + eps);
    }
}
