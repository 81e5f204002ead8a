/* Weight initialisation, seeded and deterministic; see nn.h. */
#include <math.h>
#include <stdlib.h>

#include "nn_internal.h"

static void uniform(float *w, size_t n, float bound, rl_rng *rng)
{
    for (size_t i = 0; i < n; i++) w[i] = (2.0f * rl_rng_uniform(rng) - 1.0f) * bound;
}

void rl_init_linear_default(float *w, float *b, uint32_t out, uint32_t in, rl_rng *rng)
{
    float bound = 1.0f / sqrtf((float)in);
    uniform(w, (size_t)out * in, bound, rng);
    if (b) uniform(b, out, bound, rng);
}

void rl_init_kaiming_uniform(float *w, uint32_t out, uint32_t in, rl_rng *rng)
{
    uniform(w, (size_t)out * in, sqrtf(6.0f / (float)in), rng);
}

void rl_init_xavier_uniform(float *w, uint32_t out, uint32_t in, rl_rng *rng)
{
    uniform(w, (size_t)out * in, sqrtf(6.0f / (float)(in + out)), rng);
}

/* Orthonormalises the columns of a (rows x cols, rows >= cols, stored
   column by column) by modified Gram-Schmidt in double.  Each column is
   contiguous, so the dot products and updates stream through memory. */
static void orthonormal_columns(double *a, uint32_t rows, uint32_t cols)
{
    for (uint32_t j = 0; j < cols; j++) {
        double *cj = a + (size_t)j * rows;
        for (uint32_t k = 0; k < j; k++) {
            const double *ck = a + (size_t)k * rows;
            double dot = 0;
            for (uint32_t i = 0; i < rows; i++) dot += cj[i] * ck[i];
            for (uint32_t i = 0; i < rows; i++) cj[i] -= dot * ck[i];
        }
        double norm = 0;
        for (uint32_t i = 0; i < rows; i++) norm += cj[i] * cj[i];
        norm = sqrt(norm);
        if (norm < 1e-12) norm = 1e-12;
        for (uint32_t i = 0; i < rows; i++) cj[i] /= norm;
    }
}

/* The draws fill a rows x cols matrix in row-major order (the order every
   checkpoint so far was initialised in); a holds it column by column. */
void rl_init_orthogonal(float *w, uint32_t out, uint32_t in, float gain, rl_rng *rng)
{
    uint32_t rows = out > in ? out : in, cols = out > in ? in : out;
    double *a = malloc((size_t)rows * cols * sizeof *a);
    if (!a) { /* fall back to a scaled Xavier draw rather than fail */
        rl_init_xavier_uniform(w, out, in, rng);
        return;
    }
    for (uint32_t i = 0; i < rows; i++)
        for (uint32_t j = 0; j < cols; j++) a[(size_t)j * rows + i] = rl_rng_normal(rng);
    orthonormal_columns(a, rows, cols);
    for (uint32_t r = 0; r < out; r++)
        for (uint32_t c = 0; c < in; c++)
            w[(size_t)r * in + c] = gain * (float)(out >= in ? a[(size_t)c * rows + r] : a[(size_t)r * rows + c]);
    free(a);
}

void rl__init_layer(float *w, float *b, uint32_t out, uint32_t in, rl_init_scheme scheme, float gain, rl_rng *rng)
{
    switch (scheme) {
    case RL_INIT_ORTHOGONAL:
        rl_init_orthogonal(w, out, in, gain, rng);
        memset(b, 0, out * sizeof(float));
        break;
    case RL_INIT_KAIMING:
        rl_init_kaiming_uniform(w, out, in, rng);
        memset(b, 0, out * sizeof(float));
        break;
    case RL_INIT_XAVIER:
        rl_init_xavier_uniform(w, out, in, rng);
        memset(b, 0, out * sizeof(float));
        break;
    case RL_INIT_DEFAULT:
        rl_init_linear_default(w, b, out, in, rng);
        break;
    }
}
