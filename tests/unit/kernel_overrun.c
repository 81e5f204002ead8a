/* One call of a product kernel of core/rlcore/nn/products whose named
 * operand is one element short of the extent the kernel reads or writes
 * ("none": every operand whole).  Built only under AddressSanitizer, where
 * those kernels run uninstrumented and check their operands' extents on
 * entry (products/extents.h): kernel_extents.sh expects ASan's report for
 * each short operand.
 * Usage: kernel_overrun fused OPERAND TRANS_A TRANS_B M   (a b c bias y db)
 *        kernel_overrun gemm OPERAND                      (a bp c; pack: b packed)
 *        kernel_overrun conv OPERAND   (x wt bias y koff; far: an offset past its sample;
 *                                       the weight gradient's: dw_x dyt dw moff) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nn_internal.h"

static const char *shortened;

/* n floats (32-byte aligned, as the kernels' packed operands are), one
   fewer when name is the shortened operand */
static void *operand(const char *name, size_t n, size_t size)
{
    void *p = NULL;
    n -= strcmp(name, shortened) == 0;
    if (posix_memalign(&p, 32, n * size)) exit(2);
    memset(p, 0, n * size);
    return p;
}

static void fused(int ta, int tb, uint32_t m)
{
    uint32_t n = 24, k = 20, lda = ta ? m : k, ldb = tb ? k : n;
    float *a = operand("a", (size_t)m * k, 4), *b = operand("b", (size_t)k * n, 4);
    float *c = operand("c", (size_t)m * n, 4), *y = operand("y", (size_t)m * n, 4);
    float *bias = operand("bias", n, 4), *db = operand("db", n, 4);
    /* the bias with the forward's epilogue, y and db with the backward's */
    int backward = strcmp(shortened, "y") == 0 || strcmp(shortened, "db") == 0;
    rl__epilogue e = backward ? (rl__epilogue){.kind = RL__EPI_ACT_GRAD, .act = RL_ACT_TANH, .y = y, .db = db}
                              : (rl__epilogue){.kind = RL__EPI_BIAS_ACT, .act = RL_ACT_TANH, .bias = bias};
    rl__fused_gemm(ta, tb, m, n, k, a, lda, b, ldb, c, &e);
    printf("fused: kernel %d\n", rl__fused_fits(ta, tb, m, n, k));
    free(a), free(b), free(c), free(y), free(bias), free(db);
}

static void gemm(void)
{
    uint32_t m = 10, n = 40, k = 12;
    size_t packed = rl__gemm_packed_size(k, n);
    float *b = operand("b", (size_t)k * n, 4), *bp = operand("packed", packed, 4);
    rl__gemm_pack(bp, b, n, 0, k, n);
    free(bp);
    float *a = operand("a", (size_t)m * k, 4), *c = operand("c", (size_t)m * n, 4);
    bp = operand("bp", packed, 4);
    rl__gemm_small(m, n, k, a, k, bp, c, n, 1);
    free(a), free(b), free(bp), free(c);
}

static void conv(void)
{
    if (!rl__conv_gather_fits()) {
        printf("conv: no kernel on this CPU\n");
        return;
    }
    enum { B = 3, IC = 2, H = 6, W = 6, KS = 3, OC = 5, OH = H - KS + 1, OW = W - KS + 1, P = OH * OW };
    const uint32_t K = IC * KS * KS, ld = 16;
    uint32_t *koff = operand("koff", K, 4), *moff = operand("moff", P, 4);
    const uint32_t nk = K - (strcmp(shortened, "koff") == 0), np = P - (strcmp(shortened, "moff") == 0);
    for (uint32_t j = 0; j < nk; j++) koff[j] = (j / (KS * KS) * H + j / KS % KS) * W + j % KS;
    for (uint32_t p = 0; p < np; p++) moff[p] = p / OW * W + p % OW;
    if (!strcmp(shortened, "far")) koff[K - 1] = IC * H * W; /* a patch offset past its sample */
    int dw = !strcmp(shortened, "dyt") || !strcmp(shortened, "dw") || !strcmp(shortened, "moff") ||
        !strcmp(shortened, "dw_x");
    rl__conv_gather_args g = {
        .x = operand(dw ? "dw_x" : "x", (size_t)B * IC * H * W, 4),
        .wt = operand("wt", (size_t)(OC + 15) / 16 * 16 * K, 4),
        .bias = operand("bias", OC, 4),
        .koff = koff,
        .y = operand("y", (size_t)B * OC * P, 4),
        .dyt = operand("dyt", (size_t)B * P * ld, 4),
        .moff = moff,
        .dw = operand("dw", (size_t)OC * K, 4),
        .B = B,
        .in_c = IC,
        .in_h = H,
        .in_w = W,
        .out_c = OC,
        .out_h = OH,
        .out_w = OW,
        .stride = 1,
        .K = K,
        .ld = ld,
    };
    if (dw)
        rl__conv_gather_dw(&g);
    else
        rl__conv_gather(&g);
    printf("conv: %s\n", dw ? "weight gradient" : "forward");
    free((void *)g.x), free((void *)g.wt), free((void *)g.bias), free(g.y), free((void *)g.dyt), free(g.dw);
    free(koff), free(moff);
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: kernel_overrun fused|gemm|conv OPERAND [TRANS_A TRANS_B M]\n");
        return 2;
    }
    shortened = argv[2];
    if (!strcmp(argv[1], "fused") && argc == 6)
        fused(atoi(argv[3]), atoi(argv[4]), (uint32_t)atoi(argv[5]));
    else if (!strcmp(argv[1], "gemm"))
        gemm();
    else if (!strcmp(argv[1], "conv"))
        conv();
    else
        return 2;
    return 0;
}
