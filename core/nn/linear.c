/* Linear layer and activations on cblas; see nn.h. */
#include <cblas.h>
#include <math.h>
#include <string.h>

#include "nn_internal.h"

void rl_linear_forward(float *out, const float *in, const float *w, const float *b,
                       uint32_t batch, uint32_t in_dim, uint32_t out_dim)
{
    float beta = 0.0f;
    if (b) {
        for (uint32_t r = 0; r < batch; r++) memcpy(out + (size_t)r * out_dim, b, out_dim * sizeof(float));
        beta = 1.0f;
    }
    if (batch == 1) /* gemv: OpenBLAS's sgemm setup dominates at one row */
        cblas_sgemv(CblasRowMajor, CblasNoTrans, (int)out_dim, (int)in_dim, 1.0f, w, (int)in_dim,
                    in, 1, beta, out, 1);
    else
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, (int)batch, (int)out_dim,
                    (int)in_dim, 1.0f, in, (int)in_dim, w, (int)in_dim, beta, out, (int)out_dim);
}

void rl__linear_backward_beta(float *din, float din_beta, float *dw, float *db,
                              const float *dout, const float *in, const float *w,
                              uint32_t batch, uint32_t in_dim, uint32_t out_dim)
{
    if (dw)
        cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, (int)out_dim, (int)in_dim,
                    (int)batch, 1.0f, dout, (int)out_dim, in, (int)in_dim, 1.0f, dw, (int)in_dim);
    if (db)
        for (uint32_t r = 0; r < batch; r++) {
            const float *d = dout + (size_t)r * out_dim;
            for (uint32_t j = 0; j < out_dim; j++) db[j] += d[j];
        }
    if (din)
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)batch, (int)in_dim,
                    (int)out_dim, 1.0f, dout, (int)out_dim, w, (int)in_dim, din_beta, din,
                    (int)in_dim);
}

void rl_linear_backward(float *din, float *dw, float *db, const float *dout, const float *in,
                        const float *w, uint32_t batch, uint32_t in_dim, uint32_t out_dim)
{
    rl__linear_backward_beta(din, 1.0f, dw, db, dout, in, w, batch, in_dim, out_dim);
}

void rl_activation_forward(rl_activation a, float *out, const float *in, size_t n)
{
    switch (a) {
    case RL_ACT_RELU:
        for (size_t i = 0; i < n; i++) out[i] = in[i] > 0.0f ? in[i] : 0.0f;
        break;
    case RL_ACT_TANH:
        for (size_t i = 0; i < n; i++) out[i] = tanhf(in[i]);
        break;
    case RL_ACT_NONE:
        if (out != in) memmove(out, in, n * sizeof(float));
        break;
    }
}

void rl_activation_backward(rl_activation a, float *din, const float *dout, const float *out,
                            size_t n)
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
    switch (a) {
    case RL_ACT_RELU:
        for (size_t i = 0; i < n; i++) d[i] = out[i] > 0.0f ? d[i] : 0.0f;
        break;
    case RL_ACT_TANH:
        for (size_t i = 0; i < n; i++) d[i] *= 1.0f - out[i] * out[i];
        break;
    case RL_ACT_NONE:
        break;
    }
}
