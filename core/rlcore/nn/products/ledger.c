/* The product ledger (see nn.h) and the one sgemm entry point that feeds it. */
#include <cblas.h>
#include <string.h>

#include "../nn_internal.h"

static struct {
    int on;
    size_t n;
    uint64_t dropped;
    rl_gemm_shape shapes[RL_LEDGER_MAX_SHAPES];
} ledger;

void rl_ledger_start(void)
{
    ledger.n = 0;
    ledger.dropped = 0;
    ledger.on = 1;
}

void rl_ledger_stop(void)
{
    ledger.on = 0;
}

size_t rl_ledger_shapes(const rl_gemm_shape **shapes, uint64_t *dropped)
{
    if (shapes) *shapes = ledger.shapes;
    if (dropped) *dropped = ledger.dropped;
    return ledger.n;
}

double rl_ledger_flops(void)
{
    double f = 0;
    for (size_t i = 0; i < ledger.n; i++) {
        const rl_gemm_shape *s = &ledger.shapes[i];
        f += 2.0 * s->m * s->n * s->k * (double)s->count;
    }
    return f;
}

void rl__ledger_count(int trans_a, int trans_b, uint32_t m, uint32_t n, uint32_t k)
{
    if (!ledger.on) return;
    /* A run has a few dozen shapes: a linear scan is cheaper than the
       product it counts by orders of magnitude. */
    for (size_t i = 0; i < ledger.n; i++) {
        rl_gemm_shape *s = &ledger.shapes[i];
        if (s->m == m && s->n == n && s->k == k && s->trans_a == trans_a && s->trans_b == trans_b) {
            s->count++;
            return;
        }
    }
    if (ledger.n == RL_LEDGER_MAX_SHAPES) {
        ledger.dropped++;
        return;
    }
    ledger.shapes[ledger.n++] = (rl_gemm_shape){trans_a, trans_b, m, n, k, 1};
}

void rl__sgemm(int trans_a, int trans_b, uint32_t m, uint32_t n, uint32_t k, const float *a, uint32_t lda,
               const float *b, uint32_t ldb, float beta, float *c, uint32_t ldc)
{
    rl__ledger_count(trans_a, trans_b, m, n, k);
    if (beta == 0.0f) { /* OpenBLAS's own scaling pass is several times slower than memset */
        for (uint32_t r = 0; r < m; r++) memset(c + (size_t)r * ldc, 0, n * sizeof(float));
        beta = 1.0f;
    }
    cblas_sgemm(CblasRowMajor, trans_a ? CblasTrans : CblasNoTrans, trans_b ? CblasTrans : CblasNoTrans, (int)m, (int)n,
                (int)k, 1.0f, a, (int)lda, b, (int)ldb, beta, c, (int)ldc);
}
