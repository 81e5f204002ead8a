/* The dueling head; see nn.h. */
#include <math.h>

#include <rlhost/nn.h>

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
