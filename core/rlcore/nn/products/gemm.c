/* Small matrix products without BLAS; see nn_internal.h.
 *
 * OpenBLAS packs both operands on every call, which is cheap next to a big
 * product but not next to the per-step products of an LSTM over a minibatch
 * of sequences (32 x 64 times 64 x 256, eight times in a row with the same
 * right-hand side): there the packing cost as much as the arithmetic.  This
 * kernel takes B packed once (W_hh for the backward product, its transpose
 * for the forward one, once per sequence minibatch) into panels of 16
 * columns, K x 16 contiguous floats each, and computes tiles of C of up to
 * MR x 16 (MR below) in registers while the panel stays in L1.  (Unpacked,
 * the rows of W_hh are 1 KiB apart and a 64-row strip of them no longer fits
 * the cache sets it maps to.)
 *
 * Every element of C is sum_k a[k] b[k] in the order k = 0, 1, ..., one
 * multiply and one add per step (no FMA contraction in ISO C mode), then
 * added to C: every tile does exactly that, so a row's result does not
 * depend on M or on where the row sits, nor on the vector width or the tile
 * (every copy below computes the same bits).  A portable build (the wheel)
 * compiles this file once per instruction set beside fused.c, and
 * fused_dispatch.c picks the copy. */
#ifdef RL_FUSED_VARIANT
#define RL__GEMM_CAT2(a, b) a##_##b
#define RL__GEMM_CAT(a, b) RL__GEMM_CAT2(a, b)
#define rl__gemm_packed_size RL__GEMM_CAT(rl__gemm_packed_size, RL_FUSED_VARIANT)
#define rl__gemm_pack RL__GEMM_CAT(rl__gemm_pack, RL_FUSED_VARIANT)
#define rl__gemm_small RL__GEMM_CAT(rl__gemm_small, RL_FUSED_VARIANT)
#endif
#include "../nn_internal.h"
#include "extents.h"

/* The vectors of a tile: 8 lanes with AVX; below it 4, the width of the
   registers, since GCC lowers a wider vector type through the stack (the
   8-lane tile ran at a seventeenth of the speed in a baseline build). */
#ifdef __AVX__
typedef v8f vec;
#define vload load8
#define vstore store8
#else
typedef v4f vec;
#define vload load4
#define vstore store4
#endif
#define VL (sizeof(vec) / sizeof(float))
#define NV (16 / VL) /* vectors of a 16-column panel row */

/* Rows of a tile: MR x NV accumulators, a panel row's NV vectors and a
   broadcast in the vector registers.  AVX-512's 32 hold 8 rows, AVX's 16
   hold 6, SSE's 16 (4 lanes, 4 vectors a row) 2.  More rows a tile means
   fewer loads of the panel per product (a 4-row tile with AVX reloaded it
   for every row and was bound by loads). */
#if defined(__AVX512F__)
#define MR 8
#elif defined(__AVX__)
#define MR 6
#else
#define MR 2
#endif

/* R rows (1..MR) of one 16-column panel; R is a constant after inlining,
   so the accumulators live in registers.  Only the first w columns are
   stored (the panel's padding is zero and discarded). */
static inline __attribute__((always_inline)) void tile(uint32_t R, uint32_t k, const float *a, size_t lda,
                                                       const float *panel, float *c, size_t ldc, uint32_t w,
                                                       int accumulate)
{
    vec acc[MR][NV];
    for (uint32_t r = 0; r < R; r++)
        for (uint32_t v = 0; v < NV; v++) acc[r][v] = (vec){0};
    for (uint32_t p = 0; p < k; p++) {
        vec b[NV];
        for (uint32_t v = 0; v < NV; v++) b[v] = vload(panel + 16 * (size_t)p + VL * v);
        for (uint32_t r = 0; r < R; r++) {
            float s = a[(size_t)r * lda + p];
            for (uint32_t v = 0; v < NV; v++) acc[r][v] += s * b[v];
        }
    }
    for (uint32_t r = 0; r < R; r++) {
        float *cp = c + (size_t)r * ldc;
        if (w == 16) {
            for (uint32_t v = 0; v < NV; v++)
                vstore(cp + VL * v, accumulate ? vload(cp + VL * v) + acc[r][v] : acc[r][v]);
        } else {
            float t[16];
            for (uint32_t v = 0; v < NV; v++) vstore(t + VL * v, acc[r][v]);
            for (uint32_t j = 0; j < w; j++) cp[j] = accumulate ? cp[j] + t[j] : t[j];
        }
    }
}

size_t rl__gemm_packed_size(uint32_t k, uint32_t n)
{
    return (size_t)k * ((n + 15) & ~15u);
}

void rl__gemm_pack(float *bp, const float *b, size_t ldb, int trans, uint32_t k, uint32_t n)
{
    if (k && n) {
        RL__EXTENT(b, trans ? (size_t)(n - 1) * ldb + k : (size_t)(k - 1) * ldb + n, 0);
        RL__EXTENT(bp, rl__gemm_packed_size(k, n), 1);
    }
    for (uint32_t j0 = 0; j0 < n; j0 += 16) {
        float *panel = bp + (size_t)j0 * k;
        uint32_t w = n - j0 < 16 ? n - j0 : 16;
        for (uint32_t p = 0; p < k; p++) {
            float *row = panel + 16 * (size_t)p;
            for (uint32_t j = 0; j < 16; j++)
                row[j] = j >= w ? 0.0f : trans ? b[(size_t)(j0 + j) * ldb + p] : b[(size_t)p * ldb + j0 + j];
        }
    }
}

void rl__gemm_small(uint32_t m, uint32_t n, uint32_t k, const float *a, size_t lda, const float *bp, float *c,
                    size_t ldc, int accumulate)
{
    rl__ledger_count(0, 0, m, n, k);
    if (m && n) {
        if (k) RL__EXTENT(a, (size_t)(m - 1) * lda + k, 0);
        RL__EXTENT(bp, rl__gemm_packed_size(k, n), 0);
        RL__EXTENT(c, (size_t)(m - 1) * ldc + n, 1);
    }
    for (uint32_t j0 = 0; j0 < n; j0 += 16) {
        const float *panel = bp + (size_t)j0 * k;
        uint32_t w = n - j0 < 16 ? n - j0 : 16;
        uint32_t i = 0;
        for (; i + MR <= m; i += MR)
            tile(MR, k, a + (size_t)i * lda, lda, panel, c + (size_t)i * ldc + j0, ldc, w, accumulate);
#if MR > 4
        for (; i + 4 <= m; i += 4)
            tile(4, k, a + (size_t)i * lda, lda, panel, c + (size_t)i * ldc + j0, ldc, w, accumulate);
#endif
#if MR > 2
        for (; i + 2 <= m; i += 2)
            tile(2, k, a + (size_t)i * lda, lda, panel, c + (size_t)i * ldc + j0, ldc, w, accumulate);
#endif
        for (; i < m; i++) tile(1, k, a + (size_t)i * lda, lda, panel, c + (size_t)i * ldc + j0, ldc, w, accumulate);
    }
}
