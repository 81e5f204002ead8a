/* LSTM layer with backpropagation through time and per-step reset masks;
   see nn.h.  Gate order i, f, g, o as in PyTorch.  The input projection of
   all T steps is one sgemm, and so are the weight gradients; only h W_hh^T
   (forward) and dgates W_hh (backward) run per step, through the small-matrix
   kernel with W_hh^T packed once per forward and W_hh once per backward. */
#include <stdio.h>
#include <string.h>

#include "nn_internal.h"

int rl_lstm_create(rl_lstm *l, rl_params *p, const char *prefix, uint32_t in_dim, uint32_t hidden, uint32_t max_batch,
                   uint32_t max_steps)
{
    memset(l, 0, sizeof *l);
    if (!in_dim || !hidden || !max_batch || !max_steps) return RL_EINVAL;
    l->in_dim = in_dim;
    l->hidden = hidden;
    l->max_batch = max_batch;
    l->max_steps = max_steps;
    char name[RL_PARAM_NAME_MAX];
    snprintf(name, sizeof name, "%s/weight_ih", prefix);
    l->wih_off = rl_params_add(p, name, 4 * hidden, in_dim);
    snprintf(name, sizeof name, "%s/weight_hh", prefix);
    l->whh_off = rl_params_add(p, name, 4 * hidden, hidden);
    snprintf(name, sizeof name, "%s/bias", prefix);
    l->b_off = rl_params_add(p, name, 4 * hidden, 1);
    if (l->wih_off == (size_t)-1 || l->whh_off == (size_t)-1 || l->b_off == (size_t)-1) return RL_ENOMEM;
    size_t tb = (size_t)max_steps * max_batch, h = hidden;
    l->gates = rl_calloc_aligned(tb * 4 * h, sizeof(float));
    l->dgates = rl_calloc_aligned(tb * 4 * h, sizeof(float));
    l->c = rl_calloc_aligned(tb * h, sizeof(float));
    l->h_in = rl_calloc_aligned(tb * h, sizeof(float));
    l->c_in = rl_calloc_aligned(tb * h, sizeof(float));
    l->dh = rl_calloc_aligned((size_t)max_batch * h, sizeof(float));
    l->dc = rl_calloc_aligned((size_t)max_batch * h, sizeof(float));
    l->resets = rl_calloc_aligned(tb, 1);
    l->tanh_c = rl_calloc_aligned((size_t)max_batch * h, sizeof(float));
    l->whh_fwd = rl_calloc_aligned(rl__gemm_packed_size(hidden, 4 * hidden), sizeof(float));
    l->whh_bwd = rl_calloc_aligned(rl__gemm_packed_size(4 * hidden, hidden), sizeof(float));
    if (!l->tanh_c || !l->whh_fwd || !l->whh_bwd || !l->gates || !l->dgates || !l->c || !l->h_in || !l->c_in ||
        !l->dh || !l->dc || !l->resets) {
        rl_lstm_destroy(l);
        return RL_ENOMEM;
    }
    return RL_OK;
}

void rl_lstm_destroy(rl_lstm *l)
{
    rl_free(l->gates);
    rl_free(l->dgates);
    rl_free(l->c);
    rl_free(l->h_in);
    rl_free(l->c_in);
    rl_free(l->dh);
    rl_free(l->dc);
    rl_free(l->resets);
    rl_free(l->tanh_c);
    rl_free(l->whh_fwd);
    rl_free(l->whh_bwd);
    memset(l, 0, sizeof *l);
}

void rl_lstm_init(const rl_lstm *l, rl_params *p, rl_rng *rng)
{
    uint32_t h = l->hidden;
    rl_init_xavier_uniform(p->data + l->wih_off, 4 * h, l->in_dim, rng);
    for (uint32_t k = 0; k < 4; k++) /* each gate's recurrent block orthogonal */
        rl_init_orthogonal(p->data + l->whh_off + (size_t)k * h * h, h, h, 1.0f, rng);
    float *b = p->data + l->b_off;
    memset(b, 0, 4 * h * sizeof(float));
    for (uint32_t j = 0; j < h; j++) b[h + j] = 1.0f; /* forget gate bias */
}

/* Nonlinearities and the cell update for one step of B rows.  pre holds the
   gate pre-activations and is overwritten with the activations; tc (at
   least H floats) is scratch for tanh(c). */
static void cell(float *pre, const float *c_prev, float *c, float *h, float *tc, uint32_t batch, uint32_t hidden)
{
    for (uint32_t r = 0; r < batch; r++) {
        float *g = pre + (size_t)r * 4 * hidden;
        const float *cp = c_prev + (size_t)r * hidden;
        float *cr = c + (size_t)r * hidden, *hr = h + (size_t)r * hidden;
        rl__sigmoid_array(g, g, 2 * hidden); /* i, f */
        rl__tanh_array(g + 2 * hidden, g + 2 * hidden, hidden);
        rl__sigmoid_array(g + 3 * hidden, g + 3 * hidden, hidden);
        const float *ig = g, *fg = g + hidden, *gg = g + 2 * hidden, *og = g + 3 * hidden;
        for (uint32_t j = 0; j < hidden; j++) cr[j] = fg[j] * cp[j] + ig[j] * gg[j];
        rl__tanh_array(tc, cr, hidden);
        for (uint32_t j = 0; j < hidden; j++) hr[j] = og[j] * tc[j];
    }
}

void rl_lstm_step(const rl_lstm *l, const float *params, const float *x, float *h, float *c, float *gates,
                  uint32_t batch)
{
    uint32_t hd = l->hidden;
    size_t g = (size_t)batch * 4 * hd;
    float *rec = gates + g;
    rl_linear_forward_rowwise(gates, x, params + l->wih_off, params + l->b_off, batch, l->in_dim, 4 * hd);
    rl_linear_forward_rowwise(rec, h, params + l->whh_off, NULL, batch, hd, 4 * hd);
    for (size_t k = 0; k < g; k++) gates[k] += rec[k];
    cell(gates, c, c, h, rec, batch, hd); /* rec is free again: tanh(c) scratch */
}

void rl_lstm_forward(rl_lstm *l, const float *params, const float *x, const float *h0, const float *c0,
                     const uint8_t *reset, float *h_out, float *h_last, float *c_last, uint32_t steps, uint32_t batch)
{
    uint32_t hd = l->hidden;
    size_t bh = (size_t)batch * hd, bg = (size_t)batch * 4 * hd;
    /* Input projections for all steps at once. */
    rl_linear_forward(l->gates, x, params + l->wih_off, params + l->b_off, steps * batch, l->in_dim, 4 * hd);
    if (reset)
        memcpy(l->resets, reset, (size_t)steps * batch);
    else
        memset(l->resets, 0, (size_t)steps * batch);
    rl__gemm_pack(l->whh_fwd, params + l->whh_off, hd, 1, hd, 4 * hd); /* W_hh^T */
    for (uint32_t t = 0; t < steps; t++) {
        float *hin = l->h_in + t * bh, *cin = l->c_in + t * bh;
        memcpy(hin, t ? h_out + (t - 1) * bh : h0, bh * sizeof(float));
        memcpy(cin, t ? l->c + (t - 1) * bh : c0, bh * sizeof(float));
        for (uint32_t r = 0; r < batch; r++)
            if (l->resets[(size_t)t * batch + r]) {
                memset(hin + (size_t)r * hd, 0, hd * sizeof(float));
                memset(cin + (size_t)r * hd, 0, hd * sizeof(float));
            }
        float *g = l->gates + t * bg;
        rl__gemm_small(batch, 4 * hd, hd, hin, hd, l->whh_fwd, g, 4 * hd, 1);
        cell(g, cin, l->c + t * bh, h_out + t * bh, l->dh, batch, hd); /* dh: scratch here */
    }
    if (h_last) memmove(h_last, h_out + (steps - 1) * bh, bh * sizeof(float));
    if (c_last) memmove(c_last, l->c + (steps - 1) * bh, bh * sizeof(float));
}

void rl_lstm_backward(rl_lstm *l, const float *params, float *grad, const float *x, const float *dh_out, float *dx,
                      uint32_t steps, uint32_t batch)
{
    uint32_t hd = l->hidden;
    size_t bh = (size_t)batch * hd, bg = (size_t)batch * 4 * hd;
    rl__gemm_pack(l->whh_bwd, params + l->whh_off, hd, 0, 4 * hd, hd); /* W_hh */
    memset(l->dh, 0, bh * sizeof(float));                              /* gradient flowing into step t from t+1 */
    memset(l->dc, 0, bh * sizeof(float));
    for (uint32_t t = steps; t-- > 0;) {
        const float *g = l->gates + t * bg, *cin = l->c_in + t * bh;
        float *tct = l->tanh_c; /* tanh(c_t) for every row */
        rl__tanh_array(tct, l->c + t * bh, bh);
        const float *dho = dh_out + t * bh;
        float *dg = l->dgates + t * bg;
        for (uint32_t r = 0; r < batch; r++) {
            const float *gr = g + (size_t)r * 4 * hd;
            float *dgr = dg + (size_t)r * 4 * hd;
            for (uint32_t j = 0; j < hd; j++) {
                size_t k = (size_t)r * hd + j;
                float i = gr[j], f = gr[hd + j], gg = gr[2 * hd + j], o = gr[3 * hd + j];
                float tc = tct[k];
                float dh = dho[k] + l->dh[k];
                float dc = l->dc[k] + dh * o * (1.0f - tc * tc);
                dgr[j] = dc * gg * i * (1.0f - i);
                dgr[hd + j] = dc * cin[k] * f * (1.0f - f);
                dgr[2 * hd + j] = dc * i * (1.0f - gg * gg);
                dgr[3 * hd + j] = dh * tc * o * (1.0f - o);
                l->dc[k] = dc * f; /* to step t-1's cell */
            }
        }
        /* dh into step t-1 = dgates W_hh (overwrite). */
        rl__gemm_small(batch, hd, 4 * hd, dg, 4 * hd, l->whh_bwd, l->dh, hd, 0);
        /* No gradient crosses a reset: that step started from a constant zero state. */
        for (uint32_t r = 0; r < batch; r++)
            if (l->resets[(size_t)t * batch + r]) {
                memset(l->dh + (size_t)r * hd, 0, hd * sizeof(float));
                memset(l->dc + (size_t)r * hd, 0, hd * sizeof(float));
            }
    }
    int tb = (int)(steps * batch);
    /* dW_hh += dgates^T h_in, dW_ih += dgates^T x, db, dx: one call each over all steps. */
    const rl__epilogue add = {.kind = RL__EPI_ADD};
    rl__fused_gemm(1, 0, 4 * hd, hd, (uint32_t)tb, l->dgates, 4 * hd, l->h_in, hd, grad + l->whh_off, &add);
    rl__linear_backward_epi(dx, &add, grad + l->wih_off, grad + l->b_off, l->dgates, x, params + l->wih_off,
                            (uint32_t)tb, l->in_dim, 4 * hd);
}
