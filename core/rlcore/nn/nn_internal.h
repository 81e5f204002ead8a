/* Internal helpers shared by the NN files (not installed). */
#ifndef RLHOST_NN_INTERNAL_H
#define RLHOST_NN_INTERNAL_H

#include <string.h>

#if defined(__FMA__) && defined(__AVX__)
#include <immintrin.h>
#endif

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

/* 4-wide ones, the width of the registers below AVX, where GCC lowers an
   8-wide vector's comparisons to scalar code and spills its tiles. */
typedef float v4f __attribute__((vector_size(16)));

static inline v4f load4(const float *p)
{
    v4f v;
    memcpy(&v, p, sizeof v);
    return v;
}

static inline void store4(float *p, v4f v)
{
    memcpy(p, &v, sizeof v);
}

/* Fused multiply-add on 8 lanes where the CPU has it: acc + a b rounded
   once.  Every use applies it the same way to every row and lane, so
   results never depend on the batch or on an element's position. */
#if defined(__FMA__) && defined(__AVX__)
#define HAVE_FMA8 1
static inline v8f splat(float f)
{
    return (v8f){f, f, f, f, f, f, f, f};
}
#define FMA(a, b, c) ((v8f)_mm256_fmadd_ps((__m256)(a), (__m256)(b), (__m256)(c)))
#define MADD8(acc, a, b) ((acc) = FMA((a), (b), (acc)))
#else
#define MADD8(acc, a, b) ((acc) += (a) * (b))
#endif

/* tanh on 8 lanes without libm: x P(x^2) / Q(x^2), a rational fit of
   degree 11/6 (P(0) = Q(0) = 1, so tiny x keep their relative accuracy) on
   |x| <= 9, with x clamped there (tanh(9) is 1 in float; min/max keep NaN).
   Where the CPU has FMA the polynomials are fused multiply-adds and 1/Q is
   the hardware reciprocal estimate refined by one Newton step instead of a
   division (the division dominated the function's time).  Within 4e-7 of tanh
   everywhere (tests/unit/test_nn.c).  Each lane is computed alone, so a value's
   result never depends on its position. */
#ifdef HAVE_FMA8
static inline v8f tanh8(v8f x)
{
    x = (v8f)_mm256_max_ps((__m256)splat(-9.0f), _mm256_min_ps((__m256)splat(9.0f), (__m256)x));
    v8f s = x * x;
    v8f p = FMA(s, splat(1.8418724878621617e-11f), splat(-1.2854180830856876e-08f));
    p = FMA(p, s, splat(9.295420568378177e-06f));
    p = FMA(p, s, splat(2.924134023487568e-03f));
    p = FMA(p, s, splat(0.12922503054141998f));
    p = FMA(p, s, splat(1.0f));
    v8f q = FMA(s, splat(2.2854740382172167e-04f), splat(2.3777365684509277e-02f));
    q = FMA(q, s, splat(0.4625580310821533f));
    q = FMA(q, s, splat(1.0f));
    v8f r = (v8f)_mm256_rcp_ps((__m256)q); /* Q >= 1: no zero, no overflow */
    r = r * FMA(-q, r, splat(2.0f));
    return (x * p) * r;
}
#else
/* Without FMA, the same rational with a division, on 4-lane halves: below
   AVX, GCC lowers a 32-byte vector's comparisons to scalar code lane by
   lane (tanh then took half of a recurrent PPO run in the wheel), while
   4-lane ones are single SSE instructions.  Each lane's arithmetic is the
   same either way. */
typedef int32_t v4i __attribute__((vector_size(16)));

static inline v4f tanh4(v4f x)
{
    const v4f lim = {9.0f, 9.0f, 9.0f, 9.0f};
    v4i hi = x > lim, lo = x < -lim;
    x = (v4f)(((v4i)x & ~(hi | lo)) | ((v4i)lim & hi) | ((v4i)-lim & lo));
    v4f s = x * x;
    v4f p = s * 1.8418724878621617e-11f - 1.2854180830856876e-08f;
    p = p * s + 9.295420568378177e-06f;
    p = p * s + 2.924134023487568e-03f;
    p = p * s + 0.12922503054141998f;
    p = p * s + 1.0f;
    v4f q = s * 2.2854740382172167e-04f + 2.3777365684509277e-02f;
    q = q * s + 0.4625580310821533f;
    q = q * s + 1.0f;
    return x * p / q;
}

static inline v8f tanh8(v8f x)
{
    v4f h[2];
    memcpy(h, &x, sizeof x);
    h[0] = tanh4(h[0]);
    h[1] = tanh4(h[1]);
    memcpy(&x, h, sizeof x);
    return x;
}
#endif

/* d[i] *= f'(out[i]) in place: turns a post-activation gradient into the
   pre-activation one. */
void rl__activation_grad_inplace(rl_activation a, float *d, const float *out, size_t n);

/* out = act(in W^T + b) for batch rows: the product (beta 0), then the
   bias and the activation in one pass over it (b may be NULL). */
void rl__linear_forward_act(float *out, const float *in, const float *w, const float *b, uint32_t batch,
                            uint32_t in_dim, uint32_t out_dim, rl_activation act);
void rl__bias_act(float *y, const float *b, uint32_t rows, uint32_t n, rl_activation a);

/* db[j] += sum over rows of d[r][j], rows in order. */
void rl__bias_grad(float *db, const float *d, uint32_t rows, uint32_t n);

/* rl__activation_grad_inplace over rows x n, with (db non-NULL) the result's
   column sums added to db in the same pass: a hidden layer's pre-activation
   gradient and the bias gradient of the layer that produced it. */
void rl__activation_bias_grad(rl_activation a, float *d, const float *y, uint32_t rows, size_t n, float *db);

/* tanh, vectorized, within 4e-7 of the exact value (linear.c); results do
   not depend on an element's position.  Sigmoid through it. */
void rl__tanh_array(float *out, const float *in, size_t n);
void rl__sigmoid_array(float *out, const float *in, size_t n);

/* A dense layer's product with its epilogue (fused.c): C [m][n] (rows
   contiguous) = epilogue(op(A) op(B)), op and leading dimensions as
   rl__sgemm's.  SET stores the product; ADD adds it to C; BIAS_ACT stores
   act(product + bias) (bias [n] or NULL); ACT_GRAD stores the product times
   act'(y) (y [m][n], the activation's output) and adds the result's column
   sums, rows in order, to db [n] when db is not NULL. */
typedef enum { RL__EPI_SET, RL__EPI_ADD, RL__EPI_BIAS_ACT, RL__EPI_ACT_GRAD } rl__epi_kind;
typedef struct rl__epilogue {
    rl__epi_kind kind;
    rl_activation act;
    const float *bias;
    const float *y;
    float *db;
} rl__epilogue;
void rl__fused_gemm(int trans_a, int trans_b, uint32_t m, uint32_t n, uint32_t k, const float *a, uint32_t lda,
                    const float *b, uint32_t ldb, float *c, const rl__epilogue *e);
/* 1 when rl__fused_gemm computes this shape with its own kernel. */
int rl__fused_fits(int trans_a, int trans_b, uint32_t m, uint32_t n, uint32_t k);

/* A convolution's products with its patches read in place
   (conv_gather.c).  The forward: y [B][out_c][out_h out_w] = bias + the
   sums over k of x[b][0][oy stride][ox stride] at offset koff[k] times wt,
   where x is the (already padded) input [B][in_c][in_h][in_w] and wt the
   weight transposed in blocks of RL__GATHER_NB output channels ([out_c /
   NB rounded up][K][NB], zero beyond out_c, 32-byte aligned).  The weight
   gradient: dw [out_c][K] += the sums over output pixels m = (b, p) of
   dyt[m][oc] times x[b] at moff[p] + koff[k], where moff[p] is pixel p's
   patch corner within a sample and dyt holds dY transposed, rows ld
   floats apart (ld a multiple of NB, zero beyond out_c, 32-byte aligned). */
#define RL__GATHER_NB 16
typedef struct rl__conv_gather_args {
    const float *x, *wt, *bias;
    const uint32_t *koff; /* [K] */
    float *y;
    const float *dyt;     /* the weight gradient's: [B P][ld] */
    const uint32_t *moff; /* [P] */
    float *dw;
    uint32_t B, in_c, in_h, in_w, out_c, out_h, out_w, stride, K, ld;
} rl__conv_gather_args;
void rl__conv_gather(const rl__conv_gather_args *g);
void rl__conv_gather_dw(const rl__conv_gather_args *g);
/* 1 when this CPU has rl__conv_gather's kernel (AVX2 and FMA). */
int rl__conv_gather_fits(void);
/* 1 when a layer over a padded input of ph x pw pixels and in_c channels
   reads its patches in place (the kernel, and offsets that fit 32 bits):
   then only its input gradient uses the patch matrix. */
int rl__conv2d_gathers(uint32_t in_c, uint32_t ph, uint32_t pw);
/* rl_conv2d_forward in two steps, so that a CNN packs each weight once per
   batch rather than once per chunk: the pack for the in-place kernel (no-op
   without it), then the forward with the packed weight, which must be of
   the same params. */
void rl__conv2d_pack(rl_conv2d *c, const float *params);
void rl__conv2d_forward_packed(rl_conv2d *c, const float *params, const float *x, float *y, uint32_t B);
/* Patch-matrix floats one chunk of a conv stack (rl_cnn, rl_resnet) may
   use per layer (1 MiB): the patches stay in cache between im2col and the
   product that reads them, which measured faster than larger chunks even
   though backward lays out all but the last chunk's patches again
   (docs/performance.md). */
#define RL__CONV_CHUNK_FLOATS (256u << 10)
/* The layer as its rlhost.policy/1 op, appended to buf: {"op":"conv2d"}
   with weight NAME.weight, bias NAME.bias and its shape (conv.c). */
int rl__conv2d_op(const rl_conv2d *c, const char *name, char *buf, size_t cap);

/* rl_linear_backward with din = din_epi(dout W): ADD accumulates as
   rl_linear_backward does, SET overwrites, ACT_GRAD goes on through the
   activation below (and the bias gradient of the layer that produced in). */
void rl__linear_backward_epi(float *din, const rl__epilogue *din_epi, float *dw, float *db, const float *dout,
                             const float *in, const float *w, uint32_t batch, uint32_t in_dim, uint32_t out_dim);

/* c = a b + beta c through cblas_sgemm (row-major, alpha 1), counted in the
   ledger (ledger.c); every sgemm of the library goes through here. */
void rl__sgemm(int trans_a, int trans_b, uint32_t m, uint32_t n, uint32_t k, const float *a, uint32_t lda,
               const float *b, uint32_t ldb, float beta, float *c, uint32_t ldc);
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
void rl__gemm_small(uint32_t m, uint32_t n, uint32_t k, const float *a, size_t lda, const float *bp, float *c,
                    size_t ldc, int accumulate);

/* Appends printf output to the NUL-terminated text in buf (cap bytes);
   -1 when it does not fit (mlp.c; the policy ops writers use it). */
int rl__append(char *buf, size_t cap, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* One layer's weight [out][in] and bias [out] by scheme (init.c); gain is
   the orthogonal scheme's. */
void rl__init_layer(float *w, float *b, uint32_t out, uint32_t in, rl_init_scheme scheme, float gain, rl_rng *rng);

/* renorm.c: batch renormalization of a layer's input x [N][F] (bn: its
   scale, bias, running mean and running variance, F each; stats
   [RL__RENORM_STATS][F], what a forward leaves for its backward; acc: 2 F
   doubles of scratch).  The training forward (N >= 2) moves the running
   statistics; the backward passes set dx (unless NULL) and accumulate the
   scale's and bias's gradients into dbn (unless its scale is NULL). */
typedef struct rl__bn {
    float *scale, *bias, *mean, *var;
} rl__bn;
enum { RL__RENORM_STATS = 9 };
void rl__renorm_train(float *z, float *xhat, rl__bn bn, float *stats, double *acc, const float *x, uint32_t N,
                      uint32_t F, float momentum, float eps, int renorm);
void rl__renorm_eval(float *z, float *xhat, rl__bn bn, float *stats, const float *x, uint32_t N, uint32_t F, float eps);
void rl__renorm_backward_train(float *dx, rl__bn dbn, rl__bn bn, float *stats, double *acc, const float *x,
                               const float *xhat, const float *dz, uint32_t N, uint32_t F);
void rl__renorm_backward_eval(float *dx, rl__bn dbn, rl__bn bn, const float *stats, double *acc, const float *xhat,
                              const float *dz, uint32_t N, uint32_t F);

#endif
