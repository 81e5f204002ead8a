/* The linear layer: forward and backward through rl__fused_gemm (fused.c),
   and the row-independent inference kernel; see nn.h. */
#include <cblas.h>
#include <math.h>
#include <string.h>

#include "nn_internal.h"

void rl__linear_forward_act(float *out, const float *in, const float *w, const float *b, uint32_t batch,
                            uint32_t in_dim, uint32_t out_dim, rl_activation act)
{
    if (batch == 1) { /* gemv: OpenBLAS's sgemm setup dominates at one row */
        rl__ledger_count(0, 1, 1, out_dim, in_dim);
        cblas_sgemv(CblasRowMajor, CblasNoTrans, (int)out_dim, (int)in_dim, 1.0f, w, (int)in_dim, in, 1, 0.0f, out, 1);
        rl__bias_act(out, b, batch, out_dim, act);
        return;
    }
    rl__epilogue e = {.kind = RL__EPI_BIAS_ACT, .act = act, .bias = b};
    rl__fused_gemm(0, 1, batch, out_dim, in_dim, in, in_dim, w, in_dim, out, &e);
}

void rl_linear_forward(float *out, const float *in, const float *w, const float *b, uint32_t batch, uint32_t in_dim,
                       uint32_t out_dim)
{
    rl__linear_forward_act(out, in, w, b, batch, in_dim, out_dim, RL_ACT_NONE);
}

/* The sum of 8 lanes in a fixed order. */
static inline float hsum8(v8f v)
{
    return ((v[0] + v[4]) + (v[1] + v[5])) + ((v[2] + v[6]) + (v[3] + v[7]));
}

/* Rows per pass of the row-independent kernel: four where AVX-512 gives
   32 vector registers (16 accumulators, 4 weight vectors), else two. */
#ifdef __AVX512VL__
#define ROWS_PER_PASS 4
#else
#define ROWS_PER_PASS 2
#endif

/* The dot products of nr (1..ROWS_PER_PASS) consecutive rows of x with
   four weight rows into s[4 r + j]: the rows share each weight load, and
   each row's sums run exactly as they would alone. */
static inline __attribute__((always_inline)) void rows_by_four(const uint32_t nr, const float *x, const float *w0,
                                                               uint32_t in_dim, float *s)
{
    const float *w1 = w0 + in_dim, *w2 = w1 + in_dim, *w3 = w2 + in_dim;
    uint32_t k8 = in_dim & ~7u;
    v8f a[ROWS_PER_PASS][4] = {{{0}}};
    for (uint32_t i = 0; i < k8; i += 8) {
        v8f v0 = load8(w0 + i), v1 = load8(w1 + i), v2 = load8(w2 + i), v3 = load8(w3 + i);
        for (uint32_t r = 0; r < nr; r++) {
            v8f xv = load8(x + (size_t)r * in_dim + i);
            MADD8(a[r][0], xv, v0);
            MADD8(a[r][1], xv, v1);
            MADD8(a[r][2], xv, v2);
            MADD8(a[r][3], xv, v3);
        }
    }
    for (uint32_t r = 0; r < nr; r++) {
        const float *xr = x + (size_t)r * in_dim;
        float t0 = 0.0f, t1 = 0.0f, t2 = 0.0f, t3 = 0.0f; /* k8 = 0: the lanes hold zeros */
        if (k8) {
#ifdef HAVE_FMA8 /* the four hsum8 at once: the same additions in the same order */
            __m128 h[4];
            for (int j = 0; j < 4; j++)
                h[j] = _mm_add_ps(_mm256_castps256_ps128((__m256)a[r][j]), _mm256_extractf128_ps((__m256)a[r][j], 1));
            float t[4];
            _mm_storeu_ps(t, _mm_hadd_ps(_mm_hadd_ps(h[0], h[1]), _mm_hadd_ps(h[2], h[3])));
            t0 = t[0], t1 = t[1], t2 = t[2], t3 = t[3];
#else
            t0 = hsum8(a[r][0]), t1 = hsum8(a[r][1]), t2 = hsum8(a[r][2]), t3 = hsum8(a[r][3]);
#endif
        }
        for (uint32_t i = k8; i < in_dim; i++) {
            t0 += xr[i] * w0[i];
            t1 += xr[i] * w1[i];
            t2 += xr[i] * w2[i];
            t3 += xr[i] * w3[i];
        }
        s[4 * r] = t0, s[4 * r + 1] = t1, s[4 * r + 2] = t2, s[4 * r + 3] = t3;
    }
}

void rl_linear_forward_rowwise(float *out, const float *in, const float *w, const float *b, uint32_t batch,
                               uint32_t in_dim, uint32_t out_dim)
{
    uint32_t k8 = in_dim & ~7u;
    rl__ledger_count(0, 1, batch, out_dim, in_dim);
    for (uint32_t r = 0; r < batch; r += ROWS_PER_PASS) {
        uint32_t nr = batch - r >= ROWS_PER_PASS ? ROWS_PER_PASS : batch - r;
        const float *x = in + (size_t)r * in_dim;
        float *y = out + (size_t)r * out_dim;
        uint32_t o = 0;
        for (; o + 4 <= out_dim; o += 4) {
            float s[4 * ROWS_PER_PASS];
            const float *wo = w + (size_t)o * in_dim;
            switch (nr) { /* constant row counts: the accumulators stay in registers */
            case ROWS_PER_PASS:
                rows_by_four(ROWS_PER_PASS, x, wo, in_dim, s);
                break;
#if ROWS_PER_PASS > 2
            case 3:
                rows_by_four(3, x, wo, in_dim, s);
                break;
            case 2:
                rows_by_four(2, x, wo, in_dim, s);
                break;
#endif
            default:
                rows_by_four(1, x, wo, in_dim, s);
                break;
            }
            for (uint32_t r2 = 0; r2 < nr; r2++)
                for (uint32_t j = 0; j < 4; j++)
                    y[(size_t)r2 * out_dim + o + j] = s[4 * r2 + j] + (b ? b[o + j] : 0.0f);
        }
        for (; o < out_dim; o++) {
            const float *wo = w + (size_t)o * in_dim;
            for (uint32_t r2 = 0; r2 < nr; r2++) {
                const float *xr = x + (size_t)r2 * in_dim;
                v8f a = {0};
                for (uint32_t i = 0; i < k8; i += 8) MADD8(a, load8(xr + i), load8(wo + i));
                float t = k8 ? hsum8(a) : 0.0f;
                for (uint32_t i = k8; i < in_dim; i++) t += xr[i] * wo[i];
                y[(size_t)r2 * out_dim + o] = t + (b ? b[o] : 0.0f);
            }
        }
    }
}

void rl__linear_backward_epi(float *din, const rl__epilogue *din_epi, float *dw, float *db, const float *dout,
                             const float *in, const float *w, uint32_t batch, uint32_t in_dim, uint32_t out_dim)
{
    if (dw) {
        const rl__epilogue add = {.kind = RL__EPI_ADD};
        rl__fused_gemm(1, 0, out_dim, in_dim, batch, dout, out_dim, in, in_dim, dw, &add);
    }
    if (db) rl__bias_grad(db, dout, batch, out_dim);
    if (din) rl__fused_gemm(0, 0, batch, in_dim, out_dim, dout, out_dim, w, in_dim, din, din_epi);
}

void rl_linear_backward(float *din, float *dw, float *db, const float *dout, const float *in, const float *w,
                        uint32_t batch, uint32_t in_dim, uint32_t out_dim)
{
    const rl__epilogue add = {.kind = RL__EPI_ADD};
    rl__linear_backward_epi(din, &add, dw, db, dout, in, w, batch, in_dim, out_dim);
}
