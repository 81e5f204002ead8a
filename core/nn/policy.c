/* Discrete-policy helpers and the dueling head; see nn.h. */
#include <math.h>

#include <rlhost/nn.h>

void rl_log_softmax(float *logp, const float *logits, uint32_t batch, uint32_t n)
{
    for (uint32_t r = 0; r < batch; r++) {
        const float *x = logits + (size_t)r * n;
        float *y = logp + (size_t)r * n;
        float mx = x[0];
        for (uint32_t j = 1; j < n; j++) mx = x[j] > mx ? x[j] : mx;
        double sum = 0;
        for (uint32_t j = 0; j < n; j++) sum += exp((double)(x[j] - mx));
        float lse = mx + (float)log(sum);
        for (uint32_t j = 0; j < n; j++) y[j] = x[j] - lse;
    }
}

int32_t rl_categorical_sample(const float *logp_row, uint32_t n, rl_rng *rng)
{
    float u = rl_rng_uniform(rng), acc = 0;
    for (uint32_t j = 0; j < n; j++) {
        acc += expf(logp_row[j]);
        if (u < acc) return (int32_t)j;
    }
    /* Rounding left u above the total: take the last action with mass. */
    for (uint32_t j = n; j-- > 0;)
        if (expf(logp_row[j]) > 0) return (int32_t)j;
    return (int32_t)(n - 1);
}

float rl_categorical_entropy(const float *logp_row, uint32_t n)
{
    float h = 0;
    for (uint32_t j = 0; j < n; j++) h -= expf(logp_row[j]) * logp_row[j];
    return h;
}

void rl_categorical_backward(float *dlogits, const float *logp, uint32_t n, int32_t action,
                             float g_logp, float g_ent)
{
    rl_categorical_backward_h(dlogits, logp, n, action, g_logp, g_ent, rl_categorical_entropy(logp, n));
}

void rl_categorical_backward_h(float *dlogits, const float *logp, uint32_t n, int32_t action,
                               float g_logp, float g_ent, float h)
{
    for (uint32_t j = 0; j < n; j++) {
        float p = expf(logp[j]);
        dlogits[j] += g_logp * (((int32_t)j == action ? 1.0f : 0.0f) - p) - g_ent * p * (logp[j] + h);
    }
}

int32_t rl_argmax(const float *row, uint32_t n)
{
    uint32_t best = 0;
    for (uint32_t j = 1; j < n; j++)
        if (row[j] > row[best]) best = j;
    return (int32_t)best;
}

void rl_dueling_forward(float *q, const float *v, const float *a, uint32_t batch, uint32_t n)
{
    for (uint32_t r = 0; r < batch; r++) {
        const float *ar = a + (size_t)r * n;
        float mean = 0;
        for (uint32_t j = 0; j < n; j++) mean += ar[j];
        mean /= (float)n;
        for (uint32_t j = 0; j < n; j++) q[(size_t)r * n + j] = v[r] + ar[j] - mean;
    }
}

void rl_dueling_backward(float *dv, float *da, const float *dq, uint32_t batch, uint32_t n)
{
    for (uint32_t r = 0; r < batch; r++) {
        const float *d = dq + (size_t)r * n;
        float sum = 0;
        for (uint32_t j = 0; j < n; j++) sum += d[j];
        dv[r] += sum;
        float mean = sum / (float)n;
        for (uint32_t j = 0; j < n; j++) da[(size_t)r * n + j] += d[j] - mean;
    }
}
