/* Internal helpers shared by the NN files (not installed). */
#ifndef RLHOST_NN_INTERNAL_H
#define RLHOST_NN_INTERNAL_H

#include <string.h>

#include <rlhost/nn.h>

/* 8-wide vectors through GCC/Clang vector extensions: lanes are independent
   and every reduction has a fixed order, so results are the same on every
   x86-64 target (no FMA contraction in ISO C mode). */
typedef float v8f __attribute__((vector_size(32)));

static inline v8f load8(const float *p)
{
    v8f v;
    memcpy(&v, p, sizeof v);
    return v;
}

static inline void store8(float *p, v8f v)
{
    memcpy(p, &v, sizeof v);
}

/* rl_linear_backward with din = din_beta * din + dout W (din_beta 0 or 1). */
void rl__linear_backward_beta(float *din, float din_beta, float *dw, float *db,
                              const float *dout, const float *in, const float *w,
                              uint32_t batch, uint32_t in_dim, uint32_t out_dim);

/* d[i] *= f'(out[i]) in place: turns a post-activation gradient into the
   pre-activation one. */
void rl__activation_grad_inplace(rl_activation a, float *d, const float *out, size_t n);

/* out = act(in W^T + b) for batch rows: the product (beta 0), then the
   bias and the activation in one pass over it (b may be NULL). */
void rl__linear_forward_act(float *out, const float *in, const float *w, const float *b,
                            uint32_t batch, uint32_t in_dim, uint32_t out_dim, rl_activation act);
void rl__bias_act(float *y, const float *b, uint32_t rows, uint32_t n, rl_activation a);

/* db[j] += sum over rows of d[r][j], rows in order. */
void rl__bias_grad(float *db, const float *d, uint32_t rows, uint32_t n);

/* rl__activation_grad_inplace over rows x n, with (db non-NULL) the result's
   column sums added to db in the same pass: a hidden layer's pre-activation
   gradient and the bias gradient of the layer that produced it. */
void rl__activation_bias_grad(rl_activation a, float *d, const float *y, uint32_t rows,
                              size_t n, float *db);

/* tanh, vectorized, within 4e-7 of the exact value (linear.c); results do
   not depend on an element's position.  Sigmoid through it. */
void rl__tanh_array(float *out, const float *in, size_t n);
void rl__sigmoid_array(float *out, const float *in, size_t n);

/* c = a b + beta c through cblas_sgemm (row-major, alpha 1), counted in the
   ledger (ledger.c); every sgemm of the library goes through here. */
void rl__sgemm(int trans_a, int trans_b, uint32_t m, uint32_t n, uint32_t k, const float *a,
               uint32_t lda, const float *b, uint32_t ldb, float beta, float *c, uint32_t ldc);
/* Counts one product done by other means (sgemv, own kernels). */
void rl__ledger_count(int trans_a, int trans_b, uint32_t m, uint32_t n, uint32_t k);

/* c[m][n] = (accumulate ? c : 0) + a[m][k] b[k][n], row-major with leading
   dimensions, without BLAS (gemm.c): for the small per-step products of the
   LSTM, where OpenBLAS's packing costs as much as the arithmetic.  b is
   packed once by rl__gemm_pack (b[k][n] at leading dimension ldb, or with
   trans its transpose b[n][k]) into rl__gemm_packed_size floats.  Each row's
   result is independent of m (bit-identical one row at a time). */
size_t rl__gemm_packed_size(uint32_t k, uint32_t n);
void rl__gemm_pack(float *bp, const float *b, size_t ldb, int trans, uint32_t k, uint32_t n);
void rl__gemm_small(uint32_t m, uint32_t n, uint32_t k, const float *a, size_t lda,
                    const float *bp, float *c, size_t ldc, int accumulate);

/* Appends printf output to the NUL-terminated text in buf (cap bytes);
   -1 when it does not fit (mlp.c; the policy ops writers use it). */
int rl__append(char *buf, size_t cap, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* One layer's weight [out][in] and bias [out] by scheme (init.c); gain is
   the orthogonal scheme's. */
void rl__init_layer(float *w, float *b, uint32_t out, uint32_t in, rl_init_scheme scheme, float gain,
                    rl_rng *rng);

#endif
