/* A convolution's products reading its patches in place (see conv.c and
 * nn_internal.h): the forward's, and the backward's weight gradient.
 *
 * The product is the one conv.c's im2col path hands OpenBLAS, rows of
 * patches times the transposed weight, but row m's patch is read straight
 * from the input at xp[roff(m) + koff[k]] instead of being copied into a
 * patch matrix first, and each tile stores its sums channel-major with the
 * bias added, so neither the patch matrix nor the transposing pass that
 * followed the product exist.  A tile is 6 rows (output pixels) by 16
 * output channels in 12 AVX2 registers; the weight comes transposed in
 * blocks of 16 channels (zero beyond out_c), and the column blocks are the
 * outer loop, so a block (K x 16 floats) stays in cache across the rows.
 *
 * Invariant: every output is the fused multiply-add chain over k = 0, 1,
 * ... started from zero, plus the bias; a pixel's result depends neither on
 * the batch, nor on where its row falls in a tile, nor on the CPU's vector
 * width (the AVX-512 copy of a portable build runs this same 8-lane code).
 *
 * The weight gradient dW [out_c][K] is the product of the transposed dY
 * and the patch matrix, the sum over output pixels m of dY[m][oc] times
 * patch m's element k.  Its tile is the forward's turned around: 6 patch
 * elements k (rows, read at x + koff[k] + moff[m]) by 16 channels of dY,
 * with the output pixels as the sum's index.  Each tile's sum runs over a
 * group of samples (enough for a few hundred pixels, so the tile's stores
 * are a small share of its work and a group's input and dY stay in cache)
 * and is added to dW; groups go in order from sample 0.  So dW is the same
 * for the same batch and shape whatever the CPU's vector width.
 *
 * Without AVX2 and FMA this file has no kernel and rl__conv_gather_fits
 * says 0, and conv.c keeps to im2col and OpenBLAS.  A portable build
 * compiles this file once per instruction set beside fused.c, and
 * fused_dispatch.c picks the copy. */
#ifdef RL_FUSED_VARIANT
#define RL__GATHER_CAT2(a, b) a##_##b
#define RL__GATHER_CAT(a, b) RL__GATHER_CAT2(a, b)
#define rl__conv_gather_fits RL__GATHER_CAT(rl__conv_gather_fits, RL_FUSED_VARIANT)
#define rl__conv_gather RL__GATHER_CAT(rl__conv_gather, RL_FUSED_VARIANT)
#define rl__conv_gather_dw RL__GATHER_CAT(rl__conv_gather_dw, RL_FUSED_VARIANT)
#endif
#include "../nn_internal.h"
#include "extents.h"

#if defined(__AVX2__) && defined(HAVE_FMA8)
#define MR 6 /* rows of a tile: 12 accumulators, 2 weight vectors, a broadcast */

int rl__conv_gather_fits(void)
{
    return 1;
}

/* The sums of 6 rows by 16 channels over G groups of n terms: term j of
   group s is row r's x[r][s sample + off[j]] times the 16 floats at b (the
   next term's ld floats on).  The forward's rows are output pixels, its
   terms a patch's elements (off = koff, G = 1, b the packed weight); the
   weight gradient's rows are patch elements, its terms the output pixels of
   G samples (off = moff, b the transposed dY). */
static inline __attribute__((always_inline)) void tile(const float *const x[MR], const uint32_t *off, uint32_t n,
                                                       uint32_t G, size_t sample, const float *b, size_t ld,
                                                       float out[MR][RL__GATHER_NB])
{
    __m256 acc[MR][2];
    _Pragma("GCC unroll 6") for (int r = 0; r < MR; r++) acc[r][0] = acc[r][1] = _mm256_setzero_ps();
    for (uint32_t s = 0; s < G; s++) {
        const float *xs[MR];
        _Pragma("GCC unroll 6") for (int r = 0; r < MR; r++) xs[r] = x[r] + s * sample;
        for (uint32_t j = 0; j < n; j++, b += ld) {
            const uint32_t o = off[j];
            const __m256 b0 = _mm256_load_ps(b), b1 = _mm256_load_ps(b + 8);
            _Pragma("GCC unroll 6") for (int r = 0; r < MR; r++)
            {
                const __m256 a = _mm256_broadcast_ss(xs[r] + o);
                acc[r][0] = _mm256_fmadd_ps(a, b0, acc[r][0]);
                acc[r][1] = _mm256_fmadd_ps(a, b1, acc[r][1]);
            }
        }
    }
    _Pragma("GCC unroll 6") for (int r = 0; r < MR; r++)
    {
        _mm256_storeu_ps(out[r], acc[r][0]);
        _mm256_storeu_ps(out[r] + 8, acc[r][1]);
    }
}

/* The operands' extents under AddressSanitizer (extents.h): the offset
   tables, the input, and
   the farthest a patch reads within a sample (the largest of the patch
   offsets from the farthest corner), the forward's weight, bias and output
   or the weight gradient's dY and dW. */
static void check_extents(const rl__conv_gather_args *g, int dw)
{
    const uint32_t P = g->out_h * g->out_w, K = g->K;
    const size_t sample = (size_t)g->in_c * g->in_h * g->in_w;
    if (!g->B || !P || !K || !g->out_c) return;
    RL__EXTENT(g->koff, K, 0);
    if (dw) RL__EXTENT(g->moff, P, 0);
    size_t reach = 0, corner = 0; /* corner: the last output pixel's patch, or dW's farthest moff */
    for (uint32_t j = 0; j < K; j++) reach = g->koff[j] > reach ? g->koff[j] : reach;
    if (dw)
        for (uint32_t p = 0; p < P; p++) corner = g->moff[p] > corner ? g->moff[p] : corner;
    else
        corner = (size_t)(g->out_h - 1) * g->stride * g->in_w + (size_t)(g->out_w - 1) * g->stride;
    RL__EXTENT(g->x, (size_t)g->B * sample, 0);
    rl__reach(g->x, reach + corner, sample);
    if (!dw) {
        RL__EXTENT(g->wt, (size_t)(g->out_c + RL__GATHER_NB - 1) / RL__GATHER_NB * RL__GATHER_NB * K, 0);
        RL__EXTENT(g->bias, g->out_c, 0);
        RL__EXTENT(g->y, (size_t)g->B * g->out_c * P, 1);
        return;
    }
    RL__EXTENT(g->dyt, (size_t)g->B * P * g->ld, 0);
    RL__EXTENT(g->dw, (size_t)g->out_c * K, 1);
}

void rl__conv_gather(const rl__conv_gather_args *g)
{
    const uint32_t P = g->out_h * g->out_w, K = g->K;
    const size_t M = (size_t)g->B * P, sample = (size_t)g->in_c * g->in_h * g->in_w;
    check_extents(g, 0);
    for (uint32_t j0 = 0; j0 < g->out_c; j0 += RL__GATHER_NB) {
        const float *wt = g->wt + (size_t)j0 * K;
        const uint32_t w = g->out_c - j0 < RL__GATHER_NB ? g->out_c - j0 : RL__GATHER_NB;
        for (size_t m0 = 0; m0 < M; m0 += MR) {
            const uint32_t rows = M - m0 < MR ? (uint32_t)(M - m0) : MR;
            const float *x[MR];
            size_t at[MR]; /* where row r's outputs start in y, channel j0 */
            for (uint32_t r = 0; r < MR; r++) {
                const size_t m = m0 + (r < rows ? r : rows - 1); /* spare rows repeat the last */
                const size_t b = m / P;
                const uint32_t p = (uint32_t)(m - b * P), oy = p / g->out_w, ox = p - oy * g->out_w;
                x[r] = g->x + b * sample + (size_t)oy * g->stride * g->in_w + (size_t)ox * g->stride;
                at[r] = (b * g->out_c + j0) * P + p;
            }
            float out[MR][RL__GATHER_NB];
            tile(x, g->koff, K, 1, 0, wt, RL__GATHER_NB, out);
            for (uint32_t c = 0; c < w; c++) {
                const float bias = g->bias[j0 + c];
                for (uint32_t r = 0; r < rows; r++) g->y[at[r] + (size_t)c * P] = out[r][c] + bias;
            }
        }
    }
}

/* Output pixels a tile's sum runs over, at least: the group of samples is
   this many pixels rounded up to whole samples. */
#define DW_GROUP_PIXELS 192

void rl__conv_gather_dw(const rl__conv_gather_args *g)
{
    const uint32_t P = g->out_h * g->out_w, K = g->K;
    const size_t sample = (size_t)g->in_c * g->in_h * g->in_w;
    const uint32_t per = P >= DW_GROUP_PIXELS ? 1 : (DW_GROUP_PIXELS + P - 1) / P;
    check_extents(g, 1);
    for (uint32_t b0 = 0; b0 < g->B; b0 += per) {
        const uint32_t G = g->B - b0 < per ? g->B - b0 : per;
        const float *xb = g->x + (size_t)b0 * sample, *dyb = g->dyt + (size_t)b0 * P * g->ld;
        for (uint32_t j0 = 0; j0 < g->out_c; j0 += RL__GATHER_NB) {
            const uint32_t w = g->out_c - j0 < RL__GATHER_NB ? g->out_c - j0 : RL__GATHER_NB;
            for (uint32_t k0 = 0; k0 < K; k0 += MR) {
                const uint32_t rows = K - k0 < MR ? K - k0 : MR;
                const float *x[MR];
                for (uint32_t r = 0; r < MR; r++) x[r] = xb + g->koff[k0 + (r < rows ? r : rows - 1)];
                float out[MR][RL__GATHER_NB];
                tile(x, g->moff, P, G, sample, dyb + j0, g->ld, out);
                for (uint32_t c = 0; c < w; c++) {
                    float *d = g->dw + (size_t)(j0 + c) * K + k0;
                    for (uint32_t r = 0; r < rows; r++) d[r] += out[r][c];
                }
            }
        }
    }
}

#else

int rl__conv_gather_fits(void)
{
    return 0;
}

void rl__conv_gather(const rl__conv_gather_args *g)
{
    (void)g;
}

void rl__conv_gather_dw(const rl__conv_gather_args *g)
{
    (void)g;
}

#endif
