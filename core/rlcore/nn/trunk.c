/* A trunk with several heads, and the dueling combination; see nn.h. */
#include <stdio.h>
#include <string.h>

#include "nn_internal.h"

int rl_trunk_create(rl_trunk *t, rl_params *p, const char *prefix, uint32_t in_dim, const uint32_t *hidden,
                    uint32_t n_hidden, rl_activation act, const rl_trunk_head *heads, uint32_t n_heads,
                    uint32_t max_batch)
{
    memset(t, 0, sizeof *t);
    if (!n_hidden || !n_heads || n_heads > RL_TRUNK_MAX_HEADS || !hidden[n_hidden - 1]) return RL_EINVAL;
    t->n_heads = n_heads;
    t->feat_dim = hidden[n_hidden - 1];
    t->max_batch = max_batch;
    t->act = act;
    int rc;
    snprintf(t->names[n_heads], RL_PARAM_NAME_MAX, "%s/trunk", prefix);
    if ((rc = rl_mlp_create(&t->body, p, t->names[n_heads], in_dim, hidden, n_hidden - 1, t->feat_dim, act, max_batch)))
        goto fail;
    for (uint32_t h = 0; h < n_heads; h++) {
        const rl_trunk_head *s = &heads[h];
        rc = RL_EINVAL;
        if (!s->name || s->n_hidden >= RL_MLP_MAX_LAYERS) goto fail;
        snprintf(t->names[h], RL_PARAM_NAME_MAX, "%s/%s", prefix, s->name);
        if ((rc = rl_mlp_create(&t->heads[h], p, t->names[h], t->feat_dim, s->hidden, s->n_hidden, s->out_dim, act,
                                max_batch)))
            goto fail;
    }
    t->dfeat = rl_calloc_aligned((size_t)max_batch * t->feat_dim, sizeof(float));
    if (t->dfeat) return RL_OK;
    rc = RL_ENOMEM;
fail:
    rl_trunk_destroy(t);
    return rc;
}

void rl_trunk_destroy(rl_trunk *t)
{
    rl_mlp_destroy(&t->body);
    for (uint32_t h = 0; h < RL_TRUNK_MAX_HEADS; h++) rl_mlp_destroy(&t->heads[h]);
    rl_free(t->dfeat);
    t->dfeat = NULL;
}

void rl_trunk_init(const rl_trunk *t, rl_params *p, rl_init_scheme scheme, const float *head_gains, rl_rng *rng)
{
    rl_mlp_init(&t->body, p, scheme, 1.41421356f, rng); /* every body layer is a hidden one */
    for (uint32_t h = 0; h < t->n_heads; h++)
        rl_mlp_init(&t->heads[h], p, scheme, head_gains ? head_gains[h] : 1.0f, rng);
}

/* The body's output: its last layer's workspace, activated in place (the
   last layer's backward reads its input, never its output). */
static float *features(const rl_trunk *t)
{
    return t->body.acts + t->body.act_off[t->body.n_layers - 1];
}

void rl_trunk_forward(rl_trunk *t, const float *params, const float *in, uint32_t batch, int infer, const float **out)
{
    const float *(*fwd)(rl_mlp *, const float *, const float *, uint32_t) = infer ? rl_mlp_infer : rl_mlp_forward;
    fwd(&t->body, params, in, batch);
    float *feat = features(t);
    rl_activation_forward(t->act, feat, feat, (size_t)batch * t->feat_dim);
    for (uint32_t h = 0; h < t->n_heads; h++) out[h] = fwd(&t->heads[h], params, feat, batch);
}

size_t rl_trunk_packed_floats(const rl_trunk *t)
{
    size_t n = rl_mlp_packed_floats(&t->body);
    for (uint32_t h = 0; h < t->n_heads; h++) n += rl_mlp_packed_floats(&t->heads[h]);
    return n;
}

void rl_trunk_pack(const rl_trunk *t, const float *params, float *packed)
{
    rl_mlp_pack(&t->body, params, packed);
    packed += rl_mlp_packed_floats(&t->body);
    for (uint32_t h = 0; h < t->n_heads; h++) {
        rl_mlp_pack(&t->heads[h], params, packed);
        packed += rl_mlp_packed_floats(&t->heads[h]);
    }
}

void rl_trunk_forward_packed(rl_trunk *t, const float *params, const float *packed, const float *in, uint32_t batch,
                             const float **out)
{
    rl_mlp_forward_packed(&t->body, params, packed, in, batch);
    packed += rl_mlp_packed_floats(&t->body);
    float *feat = features(t);
    rl_activation_forward(t->act, feat, feat, (size_t)batch * t->feat_dim);
    for (uint32_t h = 0; h < t->n_heads; h++) {
        out[h] = rl_mlp_forward_packed(&t->heads[h], params, packed, feat, batch);
        packed += rl_mlp_packed_floats(&t->heads[h]);
    }
}

void rl_trunk_backward(rl_trunk *t, const float *params, float *grad, const float *in, const float *const *dout,
                       float *din, uint32_t batch)
{
    const float *feat = features(t);
    size_t n = (size_t)batch * t->feat_dim;
    memset(t->dfeat, 0, n * sizeof(float));
    for (uint32_t h = 0; h < t->n_heads; h++)
        if (dout[h]) rl_mlp_backward(&t->heads[h], params, grad, feat, dout[h], t->dfeat, batch);
    rl__activation_grad_inplace(t->act, t->dfeat, feat, n);
    rl_mlp_backward(&t->body, params, grad, in, t->dfeat, din, batch);
}

int rl_trunk_ops(const rl_trunk *t, uint32_t head, char *buf, size_t cap)
{
    if (head >= t->n_heads) return -1;
    int rc = rl_mlp_ops(&t->body, t->names[t->n_heads], buf, cap);
    if (!rc && t->act != RL_ACT_NONE) rc = rl__append(buf, cap, ",{\"op\":\"%s\"}", rl_activation_name(t->act));
    return rc ? rc : rl_mlp_ops(&t->heads[head], t->names[head], buf, cap);
}

void rl_dueling_forward(float *q, const float *v, const float *a, uint32_t batch, uint32_t n)
{
    for (uint32_t r = 0; r < batch; r++) {
        const float *ar = a + (size_t)r * n;
        float mean = 0;
        for (uint32_t j = 0; j < n; j++) mean += ar[j];
        mean /= (float)n;
        for (uint32_t j = 0; j < n; j++) q[(size_t)r * n + j] = v[r] + ar[j] - mean;
    }
}

void rl_dueling_backward(float *dv, float *da, const float *dq, uint32_t batch, uint32_t n)
{
    for (uint32_t r = 0; r < batch; r++) {
        const float *d = dq + (size_t)r * n;
        float sum = 0;
        for (uint32_t j = 0; j < n; j++) sum += d[j];
        dv[r] += sum;
        float mean = sum / (float)n;
        for (uint32_t j = 0; j < n; j++) da[(size_t)r * n + j] += d[j] - mean;
    }
}
