/* fused.c's, conv_gather.c's and gemm.c's kernels in a portable build
 * (-Dnative=false, the Python wheel): each is compiled once per
 * instruction set (base, AVX2 + FMA, AVX-512), and the first call picks the
 * copy this CPU runs, so a wheel built for baseline x86-64 still gets the
 * kernels.  A native build compiles them alone and has no use for this
 * file. */
#include "../nn_internal.h"

#define VARIANT(name)                                                                                           \
    int rl__fused_fits_##name(int trans_a, int trans_b, uint32_t m, uint32_t n, uint32_t k);                    \
    void rl__fused_gemm_##name(int trans_a, int trans_b, uint32_t m, uint32_t n, uint32_t k, const float *a,    \
                               uint32_t lda, const float *b, uint32_t ldb, float *c, const rl__epilogue *e);    \
    int rl__conv_gather_fits_##name(void);                                                                      \
    void rl__conv_gather_##name(const rl__conv_gather_args *g);                                                 \
    void rl__conv_gather_dw_##name(const rl__conv_gather_args *g);                                              \
    size_t rl__gemm_packed_size_##name(uint32_t k, uint32_t n);                                                 \
    void rl__gemm_pack_##name(float *bp, const float *b, size_t ldb, int trans, uint32_t k, uint32_t n);        \
    void rl__gemm_small_##name(uint32_t m, uint32_t n, uint32_t k, const float *a, size_t lda, const float *bp, \
                               float *c, size_t ldc, int accumulate);
VARIANT(base)
VARIANT(avx2)
VARIANT(avx512)

enum { BASE, AVX2, AVX512 };

/* The widest copy this CPU runs.  Racing first calls compute the same
   value, so the cache needs no lock. */
static int chosen(void)
{
    static volatile int pick = -1;
    if (pick < 0) {
        __builtin_cpu_init();
        int fma = __builtin_cpu_supports("fma") && __builtin_cpu_supports("avx2");
        int w512 = fma && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl") &&
            __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512dq");
        pick = w512 ? AVX512 : fma ? AVX2 : BASE;
    }
    return pick;
}

int rl__fused_fits(int trans_a, int trans_b, uint32_t m, uint32_t n, uint32_t k)
{
    switch (chosen()) {
    case AVX512:
        return rl__fused_fits_avx512(trans_a, trans_b, m, n, k);
    case AVX2:
        return rl__fused_fits_avx2(trans_a, trans_b, m, n, k);
    default:
        return rl__fused_fits_base(trans_a, trans_b, m, n, k);
    }
}

void rl__fused_gemm(int trans_a, int trans_b, uint32_t m, uint32_t n, uint32_t k, const float *a, uint32_t lda,
                    const float *b, uint32_t ldb, float *c, const rl__epilogue *e)
{
    switch (chosen()) {
    case AVX512:
        rl__fused_gemm_avx512(trans_a, trans_b, m, n, k, a, lda, b, ldb, c, e);
        break;
    case AVX2:
        rl__fused_gemm_avx2(trans_a, trans_b, m, n, k, a, lda, b, ldb, c, e);
        break;
    default:
        rl__fused_gemm_base(trans_a, trans_b, m, n, k, a, lda, b, ldb, c, e);
        break;
    }
}

int rl__conv_gather_fits(void)
{
    switch (chosen()) {
    case AVX512:
        return rl__conv_gather_fits_avx512();
    case AVX2:
        return rl__conv_gather_fits_avx2();
    default:
        return rl__conv_gather_fits_base();
    }
}

void rl__conv_gather(const rl__conv_gather_args *g)
{
    switch (chosen()) {
    case AVX512:
        rl__conv_gather_avx512(g);
        break;
    case AVX2:
        rl__conv_gather_avx2(g);
        break;
    default:
        rl__conv_gather_base(g);
        break;
    }
}

void rl__conv_gather_dw(const rl__conv_gather_args *g)
{
    switch (chosen()) {
    case AVX512:
        rl__conv_gather_dw_avx512(g);
        break;
    case AVX2:
        rl__conv_gather_dw_avx2(g);
        break;
    default:
        rl__conv_gather_dw_base(g);
        break;
    }
}

/* The packing is the same scalar code in every copy. */
size_t rl__gemm_packed_size(uint32_t k, uint32_t n)
{
    return rl__gemm_packed_size_base(k, n);
}

void rl__gemm_pack(float *bp, const float *b, size_t ldb, int trans, uint32_t k, uint32_t n)
{
    rl__gemm_pack_base(bp, b, ldb, trans, k, n);
}

void rl__gemm_small(uint32_t m, uint32_t n, uint32_t k, const float *a, size_t lda, const float *bp, float *c,
                    size_t ldc, int accumulate)
{
    switch (chosen()) {
    case AVX512:
        rl__gemm_small_avx512(m, n, k, a, lda, bp, c, ldc, accumulate);
        break;
    case AVX2:
        rl__gemm_small_avx2(m, n, k, a, lda, bp, c, ldc, accumulate);
        break;
    default:
        rl__gemm_small_base(m, n, k, a, lda, bp, c, ldc, accumulate);
        break;
    }
}
