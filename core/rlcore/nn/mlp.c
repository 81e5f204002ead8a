/* MLP: Linear (-> activation) ... -> Linear, with preallocated workspaces;
   see nn.h. */
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
        rc = rl__append(buf, cap,
                        "%s{\"op\":\"linear\",\"weight\":\"%s/layer%u.weight\",\"bias\":\"%s/layer%u.bias\","
                        "\"in\":%u,\"out\":%u}",
                        l ? "," : "", prefix, l, prefix, l, m->dims[l], m->dims[l + 1]);
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

int rl_mlp_create(rl_mlp *m, rl_params *p, const char *prefix, uint32_t in_dim, const uint32_t *hidden,
                  uint32_t n_hidden, uint32_t out_dim, rl_activation act, uint32_t max_batch)
{
    memset(m, 0, sizeof *m);
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
    return RL_OK;
}

void rl_mlp_destroy(rl_mlp *m)
{
    rl_free(m->acts);
    rl_free(m->dacts);
    m->acts = m->dacts = NULL;
}

void rl_mlp_init(const rl_mlp *m, rl_params *p, rl_init_scheme scheme, float out_gain, rl_rng *rng)
{
    for (uint32_t l = 0; l < m->n_layers; l++) {
        int last = l + 1 == m->n_layers;
        rl__init_layer(p->data + m->w_off[l], p->data + m->b_off[l], m->dims[l + 1], m->dims[l], scheme,
                       last ? out_gain : 1.41421356f, rng);
    }
}

const float *rl_mlp_forward(rl_mlp *m, const float *params, const float *in, uint32_t batch)
{
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

void rl_mlp_backward(rl_mlp *m, const float *params, float *grad, const float *in, const float *dout, float *din,
                     uint32_t batch)
{
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
