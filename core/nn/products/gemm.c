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
 * depend on M or on where the row sits. */
#include "../nn_internal.h"

/* Rows of a tile: 2 MR accumulators, the panel's 2 vectors and a broadcast.
   AVX-512's 32 vector registers hold 8 rows, AVX's 16 hold 6; below AVX a
   v8f is two 4-lane registers and 4 rows already fill them.  More rows a
   tile means fewer loads of the panel per product (the 4-row tile reloaded
   it for every row and was bound by loads). */
#if defined(__AVX512F__)
#define MR 8
#elif defined(__AVX__)
#define MR 6
#else
#define MR 4
#endif

/* R rows (1..MR) of one 16-column panel; R is a constant after inlining,
   so the accumulators live in registers.  Only the first w columns are
   stored (the panel's padding is zero and discarded). */
static inline __attribute__((always_inline)) void tile(uint32_t R, uint32_t k, const float *a,
                                                       size_t lda, const float *panel, float *c,
                                                       size_t ldc, uint32_t w, int accumulate)
{
    v8f acc[MR][2];
    for (uint32_t r = 0; r < R; r++) acc[r][0] = acc[r][1] = (v8f){0};
    for (uint32_t p = 0; p < k; p++) {
        v8f b0 = load8(panel + 16 * (size_t)p), b1 = load8(panel + 16 * (size_t)p + 8);
        for (uint32_t r = 0; r < R; r++) {
            float s = a[(size_t)r * lda + p];
            acc[r][0] += s * b0;
            acc[r][1] += s * b1;
        }
    }
    for (uint32_t r = 0; r < R; r++) {
        float *cp = c + (size_t)r * ldc;
        if (w == 16) {
            store8(cp, accumulate ? load8(cp) + acc[r][0] : acc[r][0]);
            store8(cp + 8, accumulate ? load8(cp + 8) + acc[r][1] : acc[r][1]);
        } else {
            float t[16];
            store8(t, acc[r][0]);
            store8(t + 8, acc[r][1]);
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
    for (uint32_t j0 = 0; j0 < n; j0 += 16) {
        float *panel = bp + (size_t)j0 * k;
        uint32_t w = n - j0 < 16 ? n - j0 : 16;
        for (uint32_t p = 0; p < k; p++) {
            float *row = panel + 16 * (size_t)p;
            for (uint32_t j = 0; j < 16; j++)
                row[j] = j >= w ? 0.0f
                         : trans ? b[(size_t)(j0 + j) * ldb + p]
                                 : b[(size_t)p * ldb + j0 + j];
        }
    }
}

void rl__gemm_small(uint32_t m, uint32_t n, uint32_t k, const float *a, size_t lda,
                    const float *bp, float *c, size_t ldc, int accumulate)
{
    rl__ledger_count(0, 0, m, n, k);
    for (uint32_t j0 = 0; j0 < n; j0 += 16) {
        const float *panel = bp + (size_t)j0 * k;
        uint32_t w = n - j0 < 16 ? n - j0 : 16;
        uint32_t i = 0;
        for (; i + MR <= m; i += MR)
            tile(MR, k, a + (size_t)i * lda, lda, panel, c + (size_t)i * ldc + j0, ldc, w, accumulate);
        for (; i + 4 <= m; i += 4)
            tile(4, k, a + (size_t)i * lda, lda, panel, c + (size_t)i * ldc + j0, ldc, w, accumulate);
        for (; i + 2 <= m; i += 2)
            tile(2, k, a + (size_t)i * lda, lda, panel, c + (size_t)i * ldc + j0, ldc, w, accumulate);
        for (; i < m; i++)
            tile(1, k, a + (size_t)i * lda, lda, panel, c + (size_t)i * ldc + j0, ldc, w, accumulate);
    }
}
