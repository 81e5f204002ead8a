/* The dense layers' matrix products with their epilogues fused; see
 * nn_internal.h and docs/nn.md.
 *
 * A layer's product is followed by a pass over its result: the bias and the
 * activation forward, the activation's derivative and the lower layer's bias
 * sums backward.  Where the CPU has AVX-512, or AVX2 with FMA, this file
 * computes the product itself, a tile of C at a time in registers (AVX-512:
 * 6 rows x 64 columns in 24 registers; AVX2: 6 x 16 in 12), and applies the
 * epilogue while the tile is still in them: C is written once and never
 * zeroed, and only a transposed B is repacked (on the stack).  Why: at the
 * small shapes rlhost trains, the separate pass and OpenBLAS's zeroing and
 * packing cost a large share of an update (docs/performance.md).
 *
 * Invariant: every element of C is the fused multiply-add chain over
 * k = 0, 1, ... started from zero, then the epilogue; a row's result depends
 * neither on M, nor on where the row sits, nor on the tile sizes.  The bias
 * sums run over the rows in order, as rl__activation_bias_grad runs them.
 * Up to 256 terms that is also how OpenBLAS's AVX-512 kernels add (they
 * split longer sums), so with AVX-512 results equal the OpenBLAS-only
 * build's; hence the 256 limit.  OpenBLAS's AVX2 (Zen) kernel adds in
 * another order, so on AVX2 the last bits differ from that build's.
 *
 * Elsewhere (no AVX2, or a shape the kernel does not take: sums of more
 * than 256 terms, both operands transposed, fewer than 32 rows with B
 * transposed, and with AVX-512 fewer than 16 columns or 4 rows) the product
 * goes to OpenBLAS and the epilogue is a separate pass (activation.c).
 *
 * A portable build (-Dnative=false, the Python wheel) compiles this file
 * once per instruction set with RL_FUSED_VARIANT naming the copy, and
 * fused_dispatch.c picks one for the CPU it runs on. */
#ifdef RL_FUSED_VARIANT
#define RL__FUSED_CAT2(a, b) a##_##b
#define RL__FUSED_CAT(a, b) RL__FUSED_CAT2(a, b)
#define rl__fused_fits RL__FUSED_CAT(rl__fused_fits, RL_FUSED_VARIANT)
#define rl__fused_gemm RL__FUSED_CAT(rl__fused_gemm, RL_FUSED_VARIANT)
#endif
#include "../nn_internal.h"
#include "extents.h"

#if defined(__AVX512F__) && defined(HAVE_FMA8)
#define HAVE_KERNEL 1
#define KERNEL_512 1
#define MR 6  /* rows of a tile */
#define NB 64 /* columns of a tile: 4 vectors of 16 */
#define MAX_K                                                \
    256 /* longer sums go to OpenBLAS (and a transposed B is \
           transposed on the stack, MAX_K x NB) */
#elif defined(__AVX2__) && defined(HAVE_FMA8)
#define HAVE_KERNEL 1
#define MR 6  /* 12 accumulators, 2 B vectors and a broadcast: 15 of 16 */
#define NB 16 /* 2 vectors of 8 */
#define MAX_K 256
#endif

int rl__fused_fits(int trans_a, int trans_b, uint32_t m, uint32_t n, uint32_t k)
{
#ifdef HAVE_KERNEL
    if (trans_a && trans_b) return 0;
    if (k == 0 || k > MAX_K) return 0;
    if (trans_b && m < 32) return 0; /* the transpose would not pay */
#ifdef KERNEL_512
    if (n < 16 || m < 4) return 0;
#endif
    return 1;
#else
    (void)trans_a, (void)trans_b, (void)m, (void)n, (void)k;
    return 0;
#endif
}

#ifdef KERNEL_512
/* tanh8 on both halves of a 16-lane vector: the same lanes' results as
   everywhere else in the library. */
static inline __m512 tanh16(__m512 v)
{
    __m256 lo = _mm512_castps512_ps256(v);
    __m256 hi = _mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(v), 1));
    lo = (__m256)tanh8((v8f)lo);
    hi = (__m256)tanh8((v8f)hi);
    return _mm512_castpd_ps(_mm512_insertf64x4(_mm512_castps_pd(_mm512_castps256_ps512(lo)), _mm256_castps_pd(hi), 1));
}

/* The epilogue of one 16-column vector of C's row i, columns j.. (lanes in
   m); C and y have rows of ldc. */
static inline __attribute__((always_inline)) void epilogue(const rl__epilogue *e, __m512 v, float *cp, __mmask16 m,
                                                           size_t i, size_t j, size_t ldc)
{
    const __m512 zero = _mm512_setzero_ps();
    switch (e->kind) {
    case RL__EPI_SET:
        break;
    case RL__EPI_ADD:
        v = _mm512_add_ps(_mm512_maskz_loadu_ps(m, cp), v);
        break;
    case RL__EPI_BIAS_ACT:
        if (e->bias) v = _mm512_add_ps(v, _mm512_maskz_loadu_ps(m, e->bias + j));
        if (e->act == RL_ACT_TANH)
            v = tanh16(v);
        else if (e->act == RL_ACT_RELU) /* as v > 0 ? v : 0, NaN included */
            v = _mm512_maskz_mov_ps(_mm512_cmp_ps_mask(v, zero, _CMP_GT_OQ), v);
        break;
    case RL__EPI_ACT_GRAD: {
        __m512 y = _mm512_maskz_loadu_ps(m, e->y + i * ldc + j);
        if (e->act == RL_ACT_TANH)
            v = _mm512_mul_ps(v, _mm512_sub_ps(_mm512_set1_ps(1.0f), _mm512_mul_ps(y, y)));
        else if (e->act == RL_ACT_RELU)
            v = _mm512_maskz_mov_ps(_mm512_cmp_ps_mask(y, zero, _CMP_GT_OQ), v);
        if (e->db) _mm512_mask_storeu_ps(e->db + j, m, _mm512_add_ps(_mm512_maskz_loadu_ps(m, e->db + j), v));
        break;
    }
    }
    _mm512_mask_storeu_ps(cp, m, v);
}

/* R rows (1..MR) by NV vectors (1..4) of C at rows i0.., columns j0..; R
   and NV are constants after inlining, so the accumulators live in
   registers.  A(r, p) = a[r ars + p acs]; B row-major at ldb; the last
   vector's lanes in mask. */
static inline __attribute__((always_inline)) void tile(const int R, const int NV, uint32_t k, const float *a,
                                                       size_t ars, size_t acs, const float *b, size_t ldb, float *c,
                                                       size_t ldc, __mmask16 mask, const rl__epilogue *e, size_t i0,
                                                       size_t j0)
{
    __m512 acc[MR][4];
    _Pragma("GCC unroll 8") for (int r = 0; r < R; r++) _Pragma("GCC unroll 4") for (int v = 0; v < NV; v++) acc[r][v] =
        _mm512_setzero_ps();
    for (uint32_t p = 0; p < k; p++) {
        const float *bp = b + p * ldb, *ap = a + p * acs;
        __m512 bv[4];
        _Pragma("GCC unroll 4") for (int v = 0; v < NV; v++) bv[v] =
            v + 1 < NV ? _mm512_loadu_ps(bp + 16 * v) : _mm512_maskz_loadu_ps(mask, bp + 16 * v);
        _Pragma("GCC unroll 8") for (int r = 0; r < R; r++)
        {
            __m512 av = _mm512_set1_ps(ap[r * ars]);
            _Pragma("GCC unroll 4") for (int v = 0; v < NV; v++) acc[r][v] = _mm512_fmadd_ps(av, bv[v], acc[r][v]);
        }
    }
    _Pragma("GCC unroll 8") for (int r = 0; r < R; r++) _Pragma("GCC unroll 4") for (int v = 0; v < NV; v++)
        epilogue(e, acc[r][v], c + r * ldc + 16 * v, v + 1 < NV ? (__mmask16)0xffff : mask, i0 + r, j0 + 16 * v, ldc);
}

/* Row i of C, columns j0 .. j0 + w - 1 (cp at column j0), from the
   finished sums in v: the epilogue exactly as a tile applies it. */
static void epilogue_row(const rl__epilogue *e, const float *v, float *cp, uint32_t w, size_t i, size_t j0, size_t ldc)
{
    for (uint32_t j = 0; j < w; j += 16) {
        __mmask16 m = w - j >= 16 ? (__mmask16)0xffff : (__mmask16)(0xffffu >> (16 - (w - j)));
        epilogue(e, _mm512_maskz_loadu_ps(m, v + j), cp + j, m, i, j0 + j, ldc);
    }
}

/* All rows of one block of up to NB columns, rows in order. */
#define ROWS(NV)                                                                                                       \
    do {                                                                                                               \
        for (; i + MR <= m; i += MR) tile(MR, NV, k, a + i * ars, ars, acs, b, ldb, c + i * ldc, ldc, mask, e, i, j0); \
        switch (m - i) {                                                                                               \
        case 5:                                                                                                        \
            tile(5, NV, k, a + i * ars, ars, acs, b, ldb, c + i * ldc, ldc, mask, e, i, j0);                           \
            break;                                                                                                     \
        case 4:                                                                                                        \
            tile(4, NV, k, a + i * ars, ars, acs, b, ldb, c + i * ldc, ldc, mask, e, i, j0);                           \
            break;                                                                                                     \
        case 3:                                                                                                        \
            tile(3, NV, k, a + i * ars, ars, acs, b, ldb, c + i * ldc, ldc, mask, e, i, j0);                           \
            break;                                                                                                     \
        case 2:                                                                                                        \
            tile(2, NV, k, a + i * ars, ars, acs, b, ldb, c + i * ldc, ldc, mask, e, i, j0);                           \
            break;                                                                                                     \
        case 1:                                                                                                        \
            tile(1, NV, k, a + i * ars, ars, acs, b, ldb, c + i * ldc, ldc, mask, e, i, j0);                           \
            break;                                                                                                     \
        }                                                                                                              \
    } while (0)

static void block(uint32_t m, uint32_t w, uint32_t k, const float *a, size_t ars, size_t acs, const float *b,
                  size_t ldb, float *c, size_t ldc, const rl__epilogue *e, size_t j0)
{
    uint32_t nv = (w + 15) / 16, rem = w - 16 * (nv - 1);
    __mmask16 mask = (__mmask16)(0xffffu >> (16 - rem));
    size_t i = 0;
    switch (nv) {
    case 1:
        ROWS(1);
        break;
    case 2:
        ROWS(2);
        break;
    case 3:
        ROWS(3);
        break;
    default:
        ROWS(4);
        break;
    }
}

/* Columns j0 .. j0 + ncols - 1 of C = op(A) B (c and b given at column
   j0), a block of NB columns at a time, each block down all the rows. */
static void columns(uint32_t m, uint32_t ncols, uint32_t k, const float *a, size_t ars, size_t acs, const float *b,
                    size_t ldb, float *c, size_t ldc, const rl__epilogue *e, size_t j0)
{
    for (uint32_t j = 0; j < ncols; j += NB)
        block(m, ncols - j < NB ? ncols - j : NB, k, a, ars, acs, b + j, ldb, c + j, ldc, e, j0 + j);
}

#elif defined(HAVE_KERNEL) /* AVX2: the same kernel on 8-lane vectors.  Zen 3's \
   masked stores are microcoded, so whole vectors load and store plainly and    \
   only a block's last, partial vector is masked (its stores lane by lane). */
/* The epilogue of one 8-column vector of C's row i, columns j.. (lanes in
   m); C and y have rows of ldc. */
#define LD(p) (full ? _mm256_loadu_ps(p) : _mm256_maskload_ps((p), m))
#define ST(p, v) (full ? _mm256_storeu_ps((p), (v)) : store_part((p), (v), rem))
/* The first n lanes of v to p: AMD's masked stores are microcoded and
   several times slower than this. */
static inline void store_part(float *p, __m256 v, uint32_t n)
{
    float t[8];
    _mm256_storeu_ps(t, v);
    for (uint32_t l = 0; l < n; l++) p[l] = t[l];
}

static inline __attribute__((always_inline)) void epilogue(const rl__epilogue *e, __m256 v, float *cp, const int full,
                                                           __m256i m, uint32_t rem, size_t i, size_t j, size_t ldc)
{
    const __m256 zero = _mm256_setzero_ps();
    switch (e->kind) {
    case RL__EPI_SET:
        break;
    case RL__EPI_ADD:
        v = _mm256_add_ps(LD(cp), v);
        break;
    case RL__EPI_BIAS_ACT:
        if (e->bias) v = _mm256_add_ps(v, LD(e->bias + j));
        if (e->act == RL_ACT_TANH)
            v = (__m256)tanh8((v8f)v);
        else if (e->act == RL_ACT_RELU) /* as v > 0 ? v : 0, NaN included */
            v = _mm256_and_ps(_mm256_cmp_ps(v, zero, _CMP_GT_OQ), v);
        break;
    case RL__EPI_ACT_GRAD: {
        __m256 y = LD(e->y + i * ldc + j);
        if (e->act == RL_ACT_TANH)
            v = _mm256_mul_ps(v, _mm256_sub_ps(_mm256_set1_ps(1.0f), _mm256_mul_ps(y, y)));
        else if (e->act == RL_ACT_RELU)
            v = _mm256_and_ps(_mm256_cmp_ps(y, zero, _CMP_GT_OQ), v);
        if (e->db) ST(e->db + j, _mm256_add_ps(LD(e->db + j), v));
        break;
    }
    }
    ST(cp, v);
}

/* Row i of C, columns j0 .. j0 + w - 1 (cp at column j0), from the
   finished sums in v: the epilogue exactly as a tile applies it. */
static void epilogue_row(const rl__epilogue *e, const float *v, float *cp, uint32_t w, size_t i, size_t j0, size_t ldc)
{
    for (uint32_t j = 0; j < w; j += 8) {
        uint32_t rem = w - j;
        if (rem >= 8) {
            epilogue(e, _mm256_loadu_ps(v + j), cp + j, 1, _mm256_setzero_si256(), 8, i, j0 + j, ldc);
        } else {
            __m256i m = _mm256_cmpgt_epi32(_mm256_set1_epi32((int)rem), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
            epilogue(e, _mm256_maskload_ps(v + j, m), cp + j, 0, m, rem, i, j0 + j, ldc);
        }
    }
}
#undef LD
#undef ST

/* R rows (1..MR) by NV vectors (1..2) of C at rows i0.., columns j0..; as
   the AVX-512 tile.  MASKED (a constant): the last vector's first rem lanes
   only (in mask); otherwise every lane is loaded and stored whole. */
static inline __attribute__((always_inline)) void tile(const int R, const int NV, const int MASKED, uint32_t k,
                                                       const float *a, size_t ars, size_t acs, const float *b,
                                                       size_t ldb, float *c, size_t ldc, __m256i mask, uint32_t rem,
                                                       const rl__epilogue *ep, size_t i0, size_t j0)
{
    const rl__epilogue e = *ep; /* a local copy: its fields stay in registers */
    __m256 acc[MR][2];
    _Pragma("GCC unroll 8") for (int r = 0; r < R; r++) _Pragma("GCC unroll 2") for (int v = 0; v < NV; v++) acc[r][v] =
        _mm256_setzero_ps();
    for (uint32_t p = 0; p < k; p++) {
        const float *bp = b + p * ldb, *ap = a + p * acs;
        __m256 bv[2];
        _Pragma("GCC unroll 2") for (int v = 0; v < NV; v++) bv[v] =
            MASKED && v + 1 == NV ? _mm256_maskload_ps(bp + 8 * v, mask) : _mm256_loadu_ps(bp + 8 * v);
        _Pragma("GCC unroll 8") for (int r = 0; r < R; r++)
        {
            __m256 av = _mm256_broadcast_ss(ap + r * ars);
            _Pragma("GCC unroll 2") for (int v = 0; v < NV; v++) acc[r][v] = _mm256_fmadd_ps(av, bv[v], acc[r][v]);
        }
    }
    _Pragma("GCC unroll 8") for (int r = 0; r < R; r++) _Pragma("GCC unroll 2") for (int v = 0; v < NV; v++)
        epilogue(&e, acc[r][v], c + r * ldc + 8 * v, !(MASKED && v + 1 == NV), mask, rem, i0 + r, j0 + 8 * v, ldc);
}

/* R rows of C's columns j0.. j0 + w - 1 (w <= NB), given as c (rows of
   ldc) and b (rows of ldb) at column j0. */
static inline __attribute__((always_inline)) void row_block(const int R, uint32_t w, size_t ldc, size_t j0, uint32_t k,
                                                            const float *a, size_t ars, size_t acs, const float *b,
                                                            size_t ldb, float *c, const rl__epilogue *e, size_t i0)
{
    if (w == NB) {
        tile(R, 2, 0, k, a, ars, acs, b, ldb, c, ldc, _mm256_setzero_si256(), 8, e, i0, j0);
        return;
    }
    uint32_t nv = (w + 7) / 8, rem = w - 8 * (nv - 1);
    const __m256i mask = _mm256_cmpgt_epi32(_mm256_set1_epi32((int)rem), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
    if (nv == 1)
        tile(R, 1, 1, k, a, ars, acs, b, ldb, c, ldc, mask, rem, e, i0, j0);
    else
        tile(R, 2, 1, k, a, ars, acs, b, ldb, c, ldc, mask, rem, e, i0, j0);
}

/* R rows across columns j0 .. j0 + ncols - 1 in blocks of NB. */
static inline __attribute__((always_inline)) void row_tiles(const int R, uint32_t ncols, size_t ldc, size_t j0,
                                                            uint32_t k, const float *a, size_t ars, size_t acs,
                                                            const float *b, size_t ldb, float *c, const rl__epilogue *e,
                                                            size_t i0)
{
    for (uint32_t j = 0; j < ncols; j += NB)
        row_block(R, ncols - j < NB ? ncols - j : NB, ldc, j0 + j, k, a, ars, acs, b + j, ldb, c + j, e, i0);
}

/* Columns j0 .. j0 + ncols - 1 of C = op(A) B (c and b given at column
   j0; A(r, p) = a[r ars + p acs]), MR rows at a time, each row tile across
   all those columns.  Rows outside, columns inside: A's strip for a row
   tile is read once while B stays in L1/L2.  Nothing is packed: at these
   sizes packing A's strips or B's blocks into panels costs more than it
   saves (docs/performance.md). */
static void columns(uint32_t m, uint32_t ncols, uint32_t k, const float *a, size_t ars, size_t acs, const float *b,
                    size_t ldb, float *c, size_t ldc, const rl__epilogue *e, size_t j0)
{
    for (uint32_t i = 0; i < m; i += MR) {
        const float *ai = a + i * ars;
        float *ci = c + (size_t)i * ldc;
#define ROW_TILES(R) row_tiles(R, ncols, ldc, j0, k, ai, ars, acs, b, ldb, ci, e, i)
        switch (m - i < MR ? m - i : MR) {
        case 6:
            ROW_TILES(6);
            break;
        case 5:
            ROW_TILES(5);
            break;
        case 4:
            ROW_TILES(4);
            break;
        case 3:
            ROW_TILES(3);
            break;
        case 2:
            ROW_TILES(2);
            break;
        default:
            ROW_TILES(1);
            break;
        }
#undef ROW_TILES
    }
}
#endif

#ifdef HAVE_KERNEL
/* dst[p][jj] (rows of ldd) = src[jj][p] for jj < w, p < k: 8 x 8 blocks
   through registers, the edges one by one. */
static void transpose(float *dst, size_t ldd, const float *src, size_t lds, uint32_t w, uint32_t k)
{
    uint32_t w8 = w & ~7u, k8 = k & ~7u;
    for (uint32_t jj = 0; jj < w8; jj += 8)
        for (uint32_t p = 0; p < k8; p += 8) {
            const float *s = src + jj * lds + p;
            __m256 r0 = _mm256_loadu_ps(s), r1 = _mm256_loadu_ps(s + lds), r2 = _mm256_loadu_ps(s + 2 * lds),
                   r3 = _mm256_loadu_ps(s + 3 * lds), r4 = _mm256_loadu_ps(s + 4 * lds),
                   r5 = _mm256_loadu_ps(s + 5 * lds), r6 = _mm256_loadu_ps(s + 6 * lds),
                   r7 = _mm256_loadu_ps(s + 7 * lds);
            __m256 t0 = _mm256_unpacklo_ps(r0, r1), t1 = _mm256_unpackhi_ps(r0, r1), t2 = _mm256_unpacklo_ps(r2, r3),
                   t3 = _mm256_unpackhi_ps(r2, r3), t4 = _mm256_unpacklo_ps(r4, r5), t5 = _mm256_unpackhi_ps(r4, r5),
                   t6 = _mm256_unpacklo_ps(r6, r7), t7 = _mm256_unpackhi_ps(r6, r7);
            __m256 u0 = _mm256_shuffle_ps(t0, t2, 0x44), u1 = _mm256_shuffle_ps(t0, t2, 0xEE),
                   u2 = _mm256_shuffle_ps(t1, t3, 0x44), u3 = _mm256_shuffle_ps(t1, t3, 0xEE),
                   u4 = _mm256_shuffle_ps(t4, t6, 0x44), u5 = _mm256_shuffle_ps(t4, t6, 0xEE),
                   u6 = _mm256_shuffle_ps(t5, t7, 0x44), u7 = _mm256_shuffle_ps(t5, t7, 0xEE);
            float *d = dst + (size_t)p * ldd + jj;
            _mm256_storeu_ps(d, _mm256_permute2f128_ps(u0, u4, 0x20));
            _mm256_storeu_ps(d + ldd, _mm256_permute2f128_ps(u1, u5, 0x20));
            _mm256_storeu_ps(d + 2 * ldd, _mm256_permute2f128_ps(u2, u6, 0x20));
            _mm256_storeu_ps(d + 3 * ldd, _mm256_permute2f128_ps(u3, u7, 0x20));
            _mm256_storeu_ps(d + 4 * ldd, _mm256_permute2f128_ps(u0, u4, 0x31));
            _mm256_storeu_ps(d + 5 * ldd, _mm256_permute2f128_ps(u1, u5, 0x31));
            _mm256_storeu_ps(d + 6 * ldd, _mm256_permute2f128_ps(u2, u6, 0x31));
            _mm256_storeu_ps(d + 7 * ldd, _mm256_permute2f128_ps(u3, u7, 0x31));
        }
    for (uint32_t jj = 0; jj < w; jj++)
        for (uint32_t p = jj < w8 ? k8 : 0; p < k; p++) dst[(size_t)p * ldd + jj] = src[jj * lds + p];
}
#endif

#ifdef HAVE_KERNEL
/* C = A B^T computed as C^T = B A^T: A's rows are transposed instead of B's,
   and C^T's blocks back into C.  That moves m (k + n) elements where
   transposing B moves n k, so it pays for few rows (a replica's share of a
   minibatch under a wide layer).  Each element is still the chain over
   k = 0, 1, ... of the same products (a b = b a exactly), then the same
   epilogue: the results are those of the other way, bit for bit. */
#define FB 64 /* rows of C per block (C^T's lanes), and columns */
static int flip_pays(uint32_t m, uint32_t n, uint32_t k)
{
    return (uint64_t)m * (k + n) < (uint64_t)n * k;
}

static __attribute__((noinline)) void flipped(uint32_t m, uint32_t n, uint32_t k, const float *a, size_t lda,
                                              const float *b, size_t ldb, float *c, size_t ldc, const rl__epilogue *e)
{
    static const rl__epilogue sums = {.kind = RL__EPI_SET};
    float at[MAX_K * FB] __attribute__((aligned(64))); /* A's block of rows, transposed */
    float ct[FB * FB] __attribute__((aligned(64)));    /* C^T's block */
    float cb[FB * FB] __attribute__((aligned(64)));    /* the same block of C */
    for (uint32_t i0 = 0; i0 < m; i0 += FB) {
        uint32_t mb = m - i0 < FB ? m - i0 : FB;
        transpose(at, FB, a + (size_t)i0 * lda, lda, mb, k);
        for (uint32_t j0 = 0; j0 < n; j0 += FB) {
            uint32_t nb = n - j0 < FB ? n - j0 : FB;
            columns(nb, mb, k, b + (size_t)j0 * ldb, ldb, 1, at, FB, ct, FB, &sums, 0);
            transpose(cb, FB, ct, FB, nb, mb);
            for (uint32_t ii = 0; ii < mb; ii++) /* rows in order: the bias sums' order */
                epilogue_row(e, cb + (size_t)ii * FB, c + (size_t)(i0 + ii) * ldc + j0, nb, i0 + ii, j0, ldc);
        }
    }
}
#undef FB
#endif

/* The operands' extents under AddressSanitizer (extents.h). */
static void check_extents(int trans_a, int trans_b, uint32_t m, uint32_t n, uint32_t k, const float *a, uint32_t lda,
                          const float *b, uint32_t ldb, const float *c, const rl__epilogue *e)
{
    if (!m || !n) return;
    if (k) {
        RL__EXTENT(a, trans_a ? (size_t)(k - 1) * lda + m : (size_t)(m - 1) * lda + k, 0);
        RL__EXTENT(b, trans_b ? (size_t)(n - 1) * ldb + k : (size_t)(k - 1) * ldb + n, 0);
    }
    RL__EXTENT(c, (size_t)m * n, 1);
    if (e->kind == RL__EPI_BIAS_ACT) RL__EXTENT(e->bias, n, 0);
    if (e->kind == RL__EPI_ACT_GRAD) {
        RL__EXTENT(e->y, (size_t)m * n, 0);
        RL__EXTENT(e->db, n, 1);
    }
}

void rl__fused_gemm(int trans_a, int trans_b, uint32_t m, uint32_t n, uint32_t k, const float *a, uint32_t lda,
                    const float *b, uint32_t ldb, float *c, const rl__epilogue *e)
{
    check_extents(trans_a, trans_b, m, n, k, a, lda, b, ldb, c, e);
#ifdef HAVE_KERNEL
    if (rl__fused_fits(trans_a, trans_b, m, n, k)) {
        rl__ledger_count(trans_a, trans_b, m, n, k);
        size_t ldc = n, ars = trans_a ? 1 : lda, acs = trans_a ? lda : 1;
        if (!trans_b) {
            columns(m, n, k, a, ars, acs, b, ldb, c, ldc, e, 0);
            return;
        }
        if (flip_pays(m, n, k)) {
            flipped(m, n, k, a, lda, b, ldb, c, ldc, e);
            return;
        }
        for (uint32_t j0 = 0; j0 < n; j0 += NB) { /* B^T's columns j0.. as k x NB, row-major */
            uint32_t w = n - j0 < NB ? n - j0 : NB;
            float bt[MAX_K * NB] __attribute__((aligned(64)));
            transpose(bt, NB, b + (size_t)j0 * ldb, ldb, w, k);
            columns(m, w, k, a, ars, acs, bt, NB, c + j0, ldc, e, j0);
        }
        return;
    }
#endif
    rl__sgemm(trans_a, trans_b, m, n, k, a, lda, b, ldb, e->kind == RL__EPI_ADD ? 1.0f : 0.0f, c, n);
    if (e->kind == RL__EPI_BIAS_ACT)
        rl__bias_act(c, e->bias, m, n, e->act);
    else if (e->kind == RL__EPI_ACT_GRAD)
        rl__activation_bias_grad(e->act, c, e->y, m, n, e->db);
}
