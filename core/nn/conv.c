/* 2-D convolution as matrix products (im2col): a batch's input patches are
   laid out as the columns of one [K = in_c k k][B P] matrix (P = out_h
   out_w), so a layer's forward is one sgemm W[out_c][K] x cols, and its
   backward two (dW from dY cols^T, dcols from W^T dY) and a scatter back
   (col2im).  Tensors are channel-major: x [B][in_c][in_h][in_w],
   y [B][out_c][out_h][out_w]; W [out_c][in_c][k][k] as PyTorch stores it. */
#include <stdlib.h>

#include "nn_internal.h"

int rl_conv2d_create(rl_conv2d *c, rl_params *p, const char *prefix, uint32_t in_c, uint32_t in_h,
                     uint32_t in_w, uint32_t out_c, uint32_t k, uint32_t stride, uint32_t pad,
                     uint32_t max_batch)
{
    memset(c, 0, sizeof *c);
    if (!in_c || !in_h || !in_w || !out_c || !k || !stride || !max_batch || in_h + 2 * pad < k ||
        in_w + 2 * pad < k)
        return RL_EINVAL;
    c->in_c = in_c, c->in_h = in_h, c->in_w = in_w, c->out_c = out_c;
    c->k = k, c->stride = stride, c->pad = pad, c->max_batch = max_batch;
    c->out_h = (in_h + 2 * pad - k) / stride + 1;
    c->out_w = (in_w + 2 * pad - k) / stride + 1;
    char name[128];
    snprintf(name, sizeof name, "%s.weight", prefix);
    c->w_off = rl_params_add(p, name, out_c, in_c * k * k);
    snprintf(name, sizeof name, "%s.bias", prefix);
    c->b_off = rl_params_add(p, name, out_c, 1);
    size_t K = (size_t)in_c * k * k, BP = (size_t)max_batch * c->out_h * c->out_w;
    c->cols = rl_calloc_aligned(K * BP, sizeof(float));
    c->yt = rl_calloc_aligned((size_t)out_c * BP, sizeof(float));
    if (!c->cols || !c->yt) {
        rl_conv2d_destroy(c);
        return RL_ENOMEM;
    }
    return RL_OK;
}

void rl_conv2d_destroy(rl_conv2d *c)
{
    rl_free(c->cols);
    rl_free(c->yt);
    c->cols = c->yt = NULL;
}

/* The outputs ox whose input column ox s + kx - pad lies inside [0, in_w):
   [*lo, *hi), so the inner loops run without a test per element. */
static void valid_range(const rl_conv2d *c, uint32_t kx, uint32_t *lo, uint32_t *hi)
{
    long first = (long)c->pad - (long)kx, s = c->stride; /* ox s >= first */
    long a = first <= 0 ? 0 : (first + s - 1) / s;
    long last = (long)c->in_w - 1 + (long)c->pad - (long)kx; /* ox s <= last */
    long b = last < 0 ? 0 : last / s + 1;
    if (b > (long)c->out_w) b = c->out_w;
    if (a > b) a = b;
    *lo = (uint32_t)a, *hi = (uint32_t)b;
}

/* cols[(ci k + ky) k + kx][b P + oy ow + ox] = x[b][ci][oy s + ky - pad][ox s + kx - pad], 0 outside. */
static void im2col(const rl_conv2d *c, const float *x, uint32_t B)
{
    size_t P = (size_t)c->out_h * c->out_w, BP = B * P;
    for (uint32_t ci = 0; ci < c->in_c; ci++)
        for (uint32_t ky = 0; ky < c->k; ky++)
            for (uint32_t kx = 0; kx < c->k; kx++) {
                float *row = c->cols + (((size_t)ci * c->k + ky) * c->k + kx) * BP;
                uint32_t lo, hi;
                valid_range(c, kx, &lo, &hi);
                long off = (long)kx - (long)c->pad;
                for (uint32_t b = 0; b < B; b++) {
                    const float *plane = x + ((size_t)b * c->in_c + ci) * c->in_h * c->in_w;
                    float *dst = row + b * P;
                    for (uint32_t oy = 0; oy < c->out_h; oy++) {
                        long iy = (long)oy * c->stride + ky - c->pad;
                        float *d = dst + (size_t)oy * c->out_w;
                        if (iy < 0 || iy >= (long)c->in_h) {
                            memset(d, 0, c->out_w * sizeof(float));
                            continue;
                        }
                        const float *src = plane + (size_t)iy * c->in_w; /* column ox s + off */
                        for (uint32_t ox = 0; ox < lo; ox++) d[ox] = 0.0f;
                        if (c->stride == 1 && hi > lo)
                            memcpy(d + lo, src + (long)lo + off, (hi - lo) * sizeof(float));
                        else
                            for (uint32_t ox = lo; ox < hi; ox++) d[ox] = src[(long)ox * c->stride + off];
                        for (uint32_t ox = hi; ox < c->out_w; ox++) d[ox] = 0.0f;
                    }
                }
            }
}

void rl_conv2d_forward(rl_conv2d *c, const float *params, const float *x, float *y, uint32_t B)
{
    size_t P = (size_t)c->out_h * c->out_w, BP = B * P, K = (size_t)c->in_c * c->k * c->k;
    im2col(c, x, B);
    c->cols_x = x, c->cols_b = B;
    rl__sgemm(0, 0, c->out_c, (uint32_t)BP, (uint32_t)K, params + c->w_off, (uint32_t)K, c->cols,
              (uint32_t)BP, 0.0f, c->yt, (uint32_t)BP);
    const float *bias = params + c->b_off;
    for (uint32_t b = 0; b < B; b++)
        for (uint32_t oc = 0; oc < c->out_c; oc++) {
            const float *src = c->yt + (size_t)oc * BP + b * P;
            float *dst = y + ((size_t)b * c->out_c + oc) * P;
            for (size_t i = 0; i < P; i++) dst[i] = src[i] + bias[oc];
        }
}

void rl_conv2d_backward(rl_conv2d *c, const float *params, float *grad, const float *x, const float *dy,
                        float *dx, uint32_t B)
{
    size_t P = (size_t)c->out_h * c->out_w, BP = B * P, K = (size_t)c->in_c * c->k * c->k;
    float *db = grad + c->b_off;
    for (uint32_t oc = 0; oc < c->out_c; oc++) { /* dY as [out_c][B P], and db */
        double s = 0;
        for (uint32_t b = 0; b < B; b++) {
            const float *src = dy + ((size_t)b * c->out_c + oc) * P;
            float *dst = c->yt + (size_t)oc * BP + b * P;
            for (size_t i = 0; i < P; i++) {
                dst[i] = src[i];
                s += src[i];
            }
        }
        db[oc] += (float)s;
    }
    if (c->cols_x != x || c->cols_b != B) im2col(c, x, B); /* another forward ran since */
    /* dW[out_c][K] += dY[out_c][BP] cols^T */
    rl__sgemm(0, 1, c->out_c, (uint32_t)K, (uint32_t)BP, c->yt, (uint32_t)BP, c->cols, (uint32_t)BP,
              1.0f, grad + c->w_off, (uint32_t)K);
    if (!dx) return;
    /* dcols[K][BP] = W^T dY, then scattered back into dx (col2im) */
    rl__sgemm(1, 0, (uint32_t)K, (uint32_t)BP, c->out_c, params + c->w_off, (uint32_t)K, c->yt,
              (uint32_t)BP, 0.0f, c->cols, (uint32_t)BP);
    c->cols_x = NULL; /* cols holds gradients now */
    memset(dx, 0, (size_t)B * c->in_c * c->in_h * c->in_w * sizeof(float));
    for (uint32_t ci = 0; ci < c->in_c; ci++)
        for (uint32_t ky = 0; ky < c->k; ky++)
            for (uint32_t kx = 0; kx < c->k; kx++) {
                const float *row = c->cols + (((size_t)ci * c->k + ky) * c->k + kx) * BP;
                uint32_t lo, hi;
                valid_range(c, kx, &lo, &hi);
                long off = (long)kx - (long)c->pad;
                for (uint32_t b = 0; b < B; b++) {
                    float *plane = dx + ((size_t)b * c->in_c + ci) * c->in_h * c->in_w;
                    const float *src = row + b * P;
                    for (uint32_t oy = 0; oy < c->out_h; oy++) {
                        long iy = (long)oy * c->stride + ky - c->pad;
                        if (iy < 0 || iy >= (long)c->in_h) continue;
                        float *d = plane + (size_t)iy * c->in_w;
                        const float *s = src + (size_t)oy * c->out_w;
                        for (uint32_t ox = lo; ox < hi; ox++) d[(long)ox * c->stride + off] += s[ox];
                    }
                }
            }
}
