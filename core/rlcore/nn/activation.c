/* The activations, and the passes a dense layer's product is followed by:
 * bias + activation forward, the activation's derivative and the bias sums
 * backward.  fused.c applies the same epilogues inside its kernel and calls
 * these where it leaves the product to OpenBLAS; linear.c and the layers
 * above call them directly.  Every pass works lane by lane in a fixed order,
 * the tail of a row through the same lanes, so a row's result depends on
 * neither its position nor the batch size. */
#include <string.h>

#include "nn_internal.h"

static void tanh_array(float *out, const float *in, size_t n)
{
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        store8(out + i, tanh8(load8(in + i)));
    }
    if (i < n) { /* the tail through the same lanes: results never depend on position */
        float pad[8] = {0};
        memcpy(pad, in + i, (n - i) * sizeof(float));
        v8f v = tanh8(load8(pad));
        memcpy(out + i, &v, (n - i) * sizeof(float));
    }
}

void rl__tanh_array(float *out, const float *in, size_t n)
{
    tanh_array(out, in, n);
}

/* sigmoid(x) = (1 + tanh(x / 2)) / 2 */
void rl__sigmoid_array(float *out, const float *in, size_t n)
{
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        store8(out + i, 0.5f + 0.5f * tanh8(0.5f * load8(in + i)));
    }
    if (i < n) {
        float pad[8] = {0};
        memcpy(pad, in + i, (n - i) * sizeof(float));
        v8f v = 0.5f + 0.5f * tanh8(0.5f * load8(pad));
        memcpy(out + i, &v, (n - i) * sizeof(float));
    }
}

/* One row's act(y + b), 8 lanes at a time; the tail through the same lanes. */
static void bias_tanh_row(float *y, const float *b, uint32_t n)
{
    uint32_t j = 0;
    for (; j + 8 <= n; j += 8) store8(y + j, tanh8(load8(y + j) + (b ? load8(b + j) : (v8f){0})));
    if (j < n) {
        float pad[8] = {0}, bp[8] = {0};
        memcpy(pad, y + j, (n - j) * sizeof(float));
        if (b) memcpy(bp, b + j, (n - j) * sizeof(float));
        v8f v = tanh8(load8(pad) + load8(bp));
        memcpy(y + j, &v, (n - j) * sizeof(float));
    }
}

void rl__bias_act(float *y, const float *b, uint32_t rows, uint32_t n, rl_activation a)
{
    if (!b && a == RL_ACT_NONE) return;
    switch (a) {
    case RL_ACT_TANH:
        for (uint32_t r = 0; r < rows; r++) bias_tanh_row(y + (size_t)r * n, b, n);
        break;
    case RL_ACT_RELU:
        for (uint32_t r = 0; r < rows; r++) {
            float *yr = y + (size_t)r * n;
            for (uint32_t j = 0; j < n; j++) {
                float v = yr[j] + (b ? b[j] : 0.0f);
                yr[j] = v > 0.0f ? v : 0.0f;
            }
        }
        break;
    case RL_ACT_NONE:
        for (uint32_t r = 0; r < rows; r++) {
            float *yr = y + (size_t)r * n;
            for (uint32_t j = 0; j < n; j++) yr[j] += b[j];
        }
        break;
    }
}

void rl__bias_grad(float *db, const float *d, uint32_t rows, uint32_t n)
{
    /* 8 columns at a time in registers, each column's rows in order. */
    for (uint32_t j0 = 0; j0 < n; j0 += 8) {
        uint32_t w = n - j0 < 8 ? n - j0 : 8;
        if (w == 8) {
            v8f acc = load8(db + j0);
            for (uint32_t r = 0; r < rows; r++) acc += load8(d + (size_t)r * n + j0);
            store8(db + j0, acc);
        } else {
            float acc[8];
            memcpy(acc, db + j0, w * sizeof(float));
            for (uint32_t r = 0; r < rows; r++)
                for (uint32_t j = 0; j < w; j++) acc[j] += d[(size_t)r * n + j0 + j];
            memcpy(db + j0, acc, w * sizeof(float));
        }
    }
}

void rl__activation_bias_grad(rl_activation a, float *d, const float *y, uint32_t rows, size_t n, float *db)
{
    for (uint32_t r = 0; r < rows; r++) {
        float *dr = d + (size_t)r * n;
        const float *yr = y + (size_t)r * n;
        switch (a) {
        case RL_ACT_RELU:
            for (size_t j = 0; j < n; j++) dr[j] = yr[j] > 0.0f ? dr[j] : 0.0f;
            break;
        case RL_ACT_TANH:
            for (size_t j = 0; j < n; j++) dr[j] *= 1.0f - yr[j] * yr[j];
            break;
        case RL_ACT_NONE:
            break;
        }
        if (db)
            for (size_t j = 0; j < n; j++) db[j] += dr[j];
    }
}

void rl_activation_forward(rl_activation a, float *out, const float *in, size_t n)
{
    switch (a) {
    case RL_ACT_RELU:
        for (size_t i = 0; i < n; i++) out[i] = in[i] > 0.0f ? in[i] : 0.0f;
        break;
    case RL_ACT_TANH:
        tanh_array(out, in, n);
        break;
    case RL_ACT_NONE:
        if (out != in) memmove(out, in, n * sizeof(float));
        break;
    }
}

void rl_activation_backward(rl_activation a, float *din, const float *dout, const float *out, size_t n)
{
    switch (a) {
    case RL_ACT_RELU:
        for (size_t i = 0; i < n; i++) din[i] += out[i] > 0.0f ? dout[i] : 0.0f;
        break;
    case RL_ACT_TANH:
        for (size_t i = 0; i < n; i++) din[i] += dout[i] * (1.0f - out[i] * out[i]);
        break;
    case RL_ACT_NONE:
        for (size_t i = 0; i < n; i++) din[i] += dout[i];
        break;
    }
}

void rl__activation_grad_inplace(rl_activation a, float *d, const float *out, size_t n)
{
    rl__activation_bias_grad(a, d, out, 1, n, NULL);
}
