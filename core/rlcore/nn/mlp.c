/* MLP: Linear (-> activation) ... -> Linear, with preallocated workspaces;
   see nn.h. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "nn_internal.h"

const char *rl_activation_name(rl_activation a)
{
    return a == RL_ACT_RELU ? "relu" : a == RL_ACT_TANH ? "tanh" : "none";
}

int rl__append(char *buf, size_t cap, const char *fmt, ...)
{
    size_t len = strlen(buf);
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf + len, cap > len ? cap - len : 0, fmt, ap);
    va_end(ap);
    return n < 0 || (size_t)n >= (cap > len ? cap - len : 0) ? -1 : 0;
}

int rl_mlp_ops(const rl_mlp *m, const char *prefix, char *buf, size_t cap)
{
    size_t len = strlen(buf);
    int rc = len && buf[len - 1] == '}' ? rl__append(buf, cap, ",") : 0;
    for (uint32_t l = 0; rc == 0 && l < m->n_layers; l++) {
        if (m->renorm)
            rc = rl__append(buf, cap,
                            "%s{\"op\":\"batchnorm\",\"scale\":\"%s/layer%u.bn_scale\",\"bias\":\"%s/layer%u.bn_bias\","
                            "\"mean\":\"%s/layer%u.bn_mean\",\"var\":\"%s/layer%u.bn_var\",\"eps\":%.9g,\"size\":%u}",
                            l ? "," : "", prefix, l, prefix, l, prefix, l, prefix, l, (double)m->bn_eps, m->dims[l]);
        if (rc == 0)
            rc = rl__append(buf, cap,
                            "%s{\"op\":\"linear\",\"weight\":\"%s/layer%u.weight\",\"bias\":\"%s/layer%u.bias\","
                            "\"in\":%u,\"out\":%u}",
                            l || m->renorm ? "," : "", prefix, l, prefix, l, m->dims[l], m->dims[l + 1]);
        if (rc == 0 && l + 1 < m->n_layers && m->act != RL_ACT_NONE)
            rc = rl__append(buf, cap, ",{\"op\":\"%s\"}", rl_activation_name(m->act));
    }
    return rc;
}

int rl_mean_op(char *buf, size_t cap, uint32_t rows, uint32_t cols, uint32_t axis)
{
    if (axis > 1 || !rows || !cols) return -1;
    size_t len = strlen(buf);
    return rl__append(buf, cap, "%s{\"op\":\"mean\",\"shape\":[%u,%u],\"axis\":%u}",
                      len && buf[len - 1] == '}' ? "," : "", rows, cols, axis);
}

/* Layer l's four renormalization tensors in a block (data or grad). */
static rl__bn bn_at(const rl_mlp *m, const float *block, uint32_t l)
{
    float *b = (float *)block; /* the caller's block, as writable as it is there */
    return (rl__bn){b + m->bn_off[l][0], b + m->bn_off[l][1], b + m->bn_off[l][2], b + m->bn_off[l][3]};
}

/* A renormalized MLP's workspaces: each layer's z and xhat, one layer's z
   gradient (the widest), the input's gradient, the statistics, the column
   sums. */
static int renorm_workspaces(rl_mlp *m)
{
    size_t total = 0, stats = 0;
    uint32_t widest = 0;
    for (uint32_t l = 0; l < m->n_layers; l++) {
        m->z_off[l] = total;
        total += ((size_t)m->max_batch * m->dims[l] + 15) & ~(size_t)15;
        m->s_off[l] = stats;
        stats += (size_t)RL__RENORM_STATS * m->dims[l];
        if (m->dims[l] > widest) widest = m->dims[l];
    }
    size_t wide = (size_t)m->max_batch * widest;
    m->bn_z = rl_calloc_aligned(total, sizeof(float));
    m->bn_xhat = rl_calloc_aligned(total, sizeof(float));
    m->bn_dz = rl_calloc_aligned(wide, sizeof(float));
    m->bn_dx = rl_calloc_aligned((size_t)m->max_batch * m->dims[0], sizeof(float));
    m->bn_stats = rl_calloc_aligned(stats, sizeof(float));
    m->bn_acc = rl_calloc_aligned(2 * (size_t)widest, sizeof(double));
    if (!m->bn_z || !m->bn_xhat || !m->bn_dz || !m->bn_dx || !m->bn_stats || !m->bn_acc) {
        rl_mlp_destroy(m);
        return RL_ENOMEM;
    }
    return RL_OK;
}

/* rl_mlp_create's and rl_mlp_create_renorm's: with renorm, each layer's
   four batch renormalization tensors before its weight and bias. */
static int create(rl_mlp *m, rl_params *p, const char *prefix, uint32_t in_dim, const uint32_t *hidden,
                  uint32_t n_hidden, uint32_t out_dim, rl_activation act, uint32_t max_batch, int renorm)
{
    if (n_hidden + 1 > RL_MLP_MAX_LAYERS || !in_dim || !out_dim || !max_batch) return RL_EINVAL;
    m->n_layers = n_hidden + 1;
    m->dims[0] = in_dim;
    for (uint32_t l = 0; l < n_hidden; l++) {
        if (!hidden[l]) return RL_EINVAL;
        m->dims[l + 1] = hidden[l];
    }
    m->dims[m->n_layers] = out_dim;
    m->act = act;
    m->max_batch = max_batch;
    size_t total = 0;
    for (uint32_t l = 0; l < m->n_layers; l++) {
        char name[RL_PARAM_NAME_MAX];
        static const char *const bn_names[4] = {"bn_scale", "bn_bias", "bn_mean", "bn_var"};
        for (int k = 0; renorm && k < 4; k++) {
            snprintf(name, sizeof name, "%s/layer%u.%s", prefix, l, bn_names[k]);
            if ((m->bn_off[l][k] = rl_params_add(p, name, m->dims[l], 1)) == (size_t)-1) return RL_ENOMEM;
        }
        snprintf(name, sizeof name, "%s/layer%u.weight", prefix, l);
        m->w_off[l] = rl_params_add(p, name, m->dims[l + 1], m->dims[l]);
        snprintf(name, sizeof name, "%s/layer%u.bias", prefix, l);
        m->b_off[l] = rl_params_add(p, name, m->dims[l + 1], 1);
        if (m->w_off[l] == (size_t)-1 || m->b_off[l] == (size_t)-1) return RL_ENOMEM;
        m->act_off[l] = total;
        total += ((size_t)max_batch * m->dims[l + 1] + 15) & ~(size_t)15;
    }
    m->acts = rl_calloc_aligned(total, sizeof(float));
    m->dacts = rl_calloc_aligned(total, sizeof(float));
    if (!m->acts || !m->dacts) {
        rl_mlp_destroy(m);
        return RL_ENOMEM;
    }
    return renorm ? renorm_workspaces(m) : RL_OK;
}

int rl_mlp_create(rl_mlp *m, rl_params *p, const char *prefix, uint32_t in_dim, const uint32_t *hidden,
                  uint32_t n_hidden, uint32_t out_dim, rl_activation act, uint32_t max_batch)
{
    memset(m, 0, sizeof *m);
    return create(m, p, prefix, in_dim, hidden, n_hidden, out_dim, act, max_batch, 0);
}

int rl_mlp_create_renorm(rl_mlp *m, rl_params *p, const char *prefix, uint32_t in_dim, const uint32_t *hidden,
                         uint32_t n_hidden, uint32_t out_dim, rl_activation act, uint32_t max_batch, float momentum,
                         float eps)
{
    memset(m, 0, sizeof *m);
    if (!(momentum >= 0 && momentum <= 1) || !(eps > 0)) return RL_EINVAL;
    m->renorm = 1;
    m->bn_momentum = momentum;
    m->bn_eps = eps;
    return create(m, p, prefix, in_dim, hidden, n_hidden, out_dim, act, max_batch, 1);
}

void rl_mlp_destroy(rl_mlp *m)
{
    rl_free(m->acts);
    rl_free(m->dacts);
    m->acts = m->dacts = NULL;
    rl_free(m->bn_z);
    rl_free(m->bn_xhat);
    rl_free(m->bn_dz);
    rl_free(m->bn_dx);
    rl_free(m->bn_stats);
    rl_free(m->bn_acc);
    m->bn_z = m->bn_xhat = m->bn_dz = m->bn_dx = m->bn_stats = NULL;
    m->bn_acc = NULL;
}

void rl_mlp_init(const rl_mlp *m, rl_params *p, rl_init_scheme scheme, float out_gain, rl_rng *rng)
{
    for (uint32_t l = 0; l < m->n_layers; l++) {
        int last = l + 1 == m->n_layers;
        rl__init_layer(p->data + m->w_off[l], p->data + m->b_off[l], m->dims[l + 1], m->dims[l], scheme,
                       last ? out_gain : 1.41421356f, rng);
        if (!m->renorm) continue;
        rl__bn bn = bn_at(m, p->data, l); /* scale 1, bias 0, mean 0, variance 1 */
        for (uint32_t j = 0; j < m->dims[l]; j++) {
            bn.scale[j] = bn.var[j] = 1.0f;
            bn.bias[j] = bn.mean[j] = 0.0f;
        }
    }
}

int rl_mlp_check_stats(const rl_mlp *m, const rl_params *p, const char *prefix, char *err, size_t errlen)
{
    for (uint32_t l = 0; m->renorm && l < m->n_layers; l++) {
        const float *var = p->data + m->bn_off[l][3];
        for (uint32_t j = 0; j < m->dims[l]; j++)
            if (!(var[j] >= 0) || !isfinite(var[j])) {
                if (errlen)
                    snprintf(err, errlen, "tensor '%s%s' holds a running variance of %g, not a finite one >= 0", prefix,
                             rl_params_tensor_at(p, m->bn_off[l][3] + j), (double)var[j]);
                return -1;
            }
    }
    return 0;
}

/* A renormalized MLP's forward: batch statistics when running (the
   running statistics' block, params itself) is given, else the running
   ones; each linear layer row by row (rowwise) or as one product. */
static const float *forward_renorm(rl_mlp *m, const float *params, float *running, const float *in, uint32_t batch,
                                   int renorm, int rowwise)
{
    const float *x = in;
    for (uint32_t l = 0; l < m->n_layers; l++) {
        uint32_t F = m->dims[l];
        float *z = m->bn_z + m->z_off[l], *xhat = m->bn_xhat + m->z_off[l], *out = m->acts + m->act_off[l];
        if (running)
            rl__renorm_train(z, xhat, bn_at(m, running, l), m->bn_stats + m->s_off[l], m->bn_acc, x, batch, F,
                             m->bn_momentum, m->bn_eps, renorm);
        else
            rl__renorm_eval(z, xhat, bn_at(m, params, l), m->bn_stats + m->s_off[l], x, batch, F, m->bn_eps);
        rl_activation a = l + 1 < m->n_layers ? m->act : RL_ACT_NONE;
        if (rowwise) {
            rl_linear_forward_rowwise(out, z, params + m->w_off[l], params + m->b_off[l], batch, F, m->dims[l + 1]);
            rl_activation_forward(a, out, out, (size_t)batch * m->dims[l + 1]);
        } else {
            rl__linear_forward_act(out, z, params + m->w_off[l], params + m->b_off[l], batch, F, m->dims[l + 1], a);
        }
        x = out;
    }
    m->train = running != NULL;
    return x;
}

const float *rl_mlp_forward_train(rl_mlp *m, float *params, const float *in, uint32_t batch, int renorm)
{
    if (!m->renorm) return rl_mlp_forward(m, params, in, batch);
    return forward_renorm(m, params, params, in, batch, renorm, 0);
}

const float *rl_mlp_forward(rl_mlp *m, const float *params, const float *in, uint32_t batch)
{
    if (m->renorm) return forward_renorm(m, params, NULL, in, batch, 0, 0);
    const float *x = in;
    for (uint32_t l = 0; l < m->n_layers; l++) {
        float *out = m->acts + m->act_off[l];
        rl__linear_forward_act(out, x, params + m->w_off[l], params + m->b_off[l], batch, m->dims[l], m->dims[l + 1],
                               l + 1 < m->n_layers ? m->act : RL_ACT_NONE);
        x = out;
    }
    return x;
}

const float *rl_mlp_infer(rl_mlp *m, const float *params, const float *in, uint32_t batch)
{
    if (m->renorm) return forward_renorm(m, params, NULL, in, batch, 0, 1);
    const float *x = in;
    for (uint32_t l = 0; l < m->n_layers; l++) {
        float *out = m->acts + m->act_off[l];
        rl_linear_forward_rowwise(out, x, params + m->w_off[l], params + m->b_off[l], batch, m->dims[l],
                                  m->dims[l + 1]);
        if (l + 1 < m->n_layers) rl_activation_forward(m->act, out, out, (size_t)batch * m->dims[l + 1]);
        x = out;
    }
    return x;
}

size_t rl_mlp_packed_floats(const rl_mlp *m)
{
    size_t n = 0;
    for (uint32_t l = 0; l < m->n_layers && !m->renorm; l++) n += (size_t)m->dims[l] * m->dims[l + 1];
    return n;
}

void rl_mlp_pack(const rl_mlp *m, const float *params, float *packed)
{
    for (uint32_t l = 0; l < m->n_layers && !m->renorm; l++) {
        uint32_t in = m->dims[l], out = m->dims[l + 1];
        const float *w = params + m->w_off[l];
        for (uint32_t o = 0; o < out; o++)
            for (uint32_t i = 0; i < in; i++) packed[(size_t)i * out + o] = w[(size_t)o * in + i];
        packed += (size_t)in * out;
    }
}

const float *rl_mlp_forward_packed(rl_mlp *m, const float *params, const float *packed, const float *in, uint32_t batch)
{
    if (m->renorm) return rl_mlp_forward(m, params, in, batch);
    const float *x = in;
    for (uint32_t l = 0; l < m->n_layers; l++) {
        uint32_t k = m->dims[l], n = m->dims[l + 1];
        float *out = m->acts + m->act_off[l];
        rl__epilogue e = {
            .kind = RL__EPI_BIAS_ACT, .act = l + 1 < m->n_layers ? m->act : RL_ACT_NONE, .bias = params + m->b_off[l]};
        rl__fused_gemm(0, 0, batch, n, k, x, k, packed, n, out, &e);
        packed += (size_t)k * n;
        x = out;
    }
    return x;
}

/* A renormalized MLP's backward: each layer's linear part into its z's
   gradient, then the renormalization's (by the statistics its last forward
   used) into the layer below's output gradient, and through its
   activation; the input's gradient is added to din. */
static void backward_renorm(rl_mlp *m, const float *params, float *grad, const float *in, const float *dout, float *din,
                            uint32_t batch)
{
    const rl__epilogue set = {.kind = RL__EPI_SET};
    const float *d = dout;
    for (uint32_t l = m->n_layers; l-- > 0;) {
        uint32_t F = m->dims[l];
        size_t n = (size_t)batch * F;
        const float *x = l ? m->acts + m->act_off[l - 1] : in;
        rl__bn bn = bn_at(m, params, l), dbn = grad ? bn_at(m, grad, l) : (rl__bn){0};
        const float *xhat = m->bn_xhat + m->z_off[l];
        rl__linear_backward_epi(m->bn_dz, &set, grad ? grad + m->w_off[l] : NULL, grad ? grad + m->b_off[l] : NULL, d,
                                m->bn_z + m->z_off[l], params + m->w_off[l], batch, F, m->dims[l + 1]);
        float *dx = l ? m->dacts + m->act_off[l - 1] : m->bn_dx;
        if (m->train)
            rl__renorm_backward_train(dx, dbn, bn, m->bn_stats + m->s_off[l], m->bn_acc, x, xhat, m->bn_dz, batch, F);
        else
            rl__renorm_backward_eval(dx, dbn, bn, m->bn_stats + m->s_off[l], m->bn_acc, xhat, m->bn_dz, batch, F);
        if (l) {
            rl__activation_grad_inplace(m->act, dx, x, n);
            d = dx;
        } else if (din) {
            for (size_t k = 0; k < n; k++) din[k] += dx[k];
        }
    }
}

void rl_mlp_backward(rl_mlp *m, const float *params, float *grad, const float *in, const float *dout, float *din,
                     uint32_t batch)
{
    if (m->renorm) {
        backward_renorm(m, params, grad, in, dout, din, batch);
        return;
    }
    if (!grad) { /* the input's gradient alone: no weight or bias products */
        const float *d = dout;
        for (uint32_t l = m->n_layers; l-- > 0;) {
            const float *x = l ? m->acts + m->act_off[l - 1] : in;
            float *dx = l ? m->dacts + m->act_off[l - 1] : din;
            rl__epilogue e = {.kind = RL__EPI_ADD};
            if (l) e = (rl__epilogue){.kind = RL__EPI_ACT_GRAD, .act = m->act, .y = x};
            rl__linear_backward_epi(dx, &e, NULL, NULL, d, x, params + m->w_off[l], batch, m->dims[l], m->dims[l + 1]);
            d = dx;
        }
        return;
    }
    const float *d = dout;
    int db_done = 0; /* d's column sums already in the layer's bias gradient */
    for (uint32_t l = m->n_layers; l-- > 0;) {
        const float *x = l ? m->acts + m->act_off[l - 1] : in;
        float *dx = l ? m->dacts + m->act_off[l - 1] : din;
        /* Hidden gradients go on through the activation below, and the lower
           layer's bias gradient with them; the caller's din accumulates. */
        rl__epilogue e = {.kind = RL__EPI_ADD};
        if (l) e = (rl__epilogue){.kind = RL__EPI_ACT_GRAD, .act = m->act, .y = x, .db = grad + m->b_off[l - 1]};
        rl__linear_backward_epi(dx, &e, grad + m->w_off[l], db_done ? NULL : grad + m->b_off[l], d, x,
                                params + m->w_off[l], batch, m->dims[l], m->dims[l + 1]);
        d = dx;
        db_done = l > 0;
    }
}

uint32_t rl_mlp_out_dim(const rl_mlp *m)
{
    return m->dims[m->n_layers];
}
