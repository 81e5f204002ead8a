/* PPO arithmetic; see ppo_math.h. */
#include "ppo_math.h"

#include <math.h>
#include <stddef.h>

float ppo_policy_loss(float logp, float old_logp, float adv, float clip, float *dlogp, int *clipped, float *ratio)
{
    float r = expf(logp - old_logp);
    if (ratio) *ratio = r;
    float rc = r < 1.0f - clip ? 1.0f - clip : r > 1.0f + clip ? 1.0f + clip : r;
    float unclipped = r * adv, clipped_obj = rc * adv;
    *clipped = rc != r;
    if (unclipped <= clipped_obj) { /* the min is the unclipped term */
        *dlogp = -adv * r;
        return -unclipped;
    }
    *dlogp = 0.0f; /* the clipped term is constant in r */
    return -clipped_obj;
}

float ppo_value_loss(ppo_vloss form, float v, float old_v, float ret, float vclip, float *dv)
{
    float vp = v, dvp = 1.0f;
    if (vclip > 0.0f) {
        float d = v - old_v;
        if (d > vclip)
            vp = old_v + vclip, dvp = 0.0f;
        else if (d < -vclip)
            vp = old_v - vclip, dvp = 0.0f;
    }
    float e = vp - ret;
    if (form == PPO_VLOSS_SB3) {
        *dv = 2.0f * e * dvp;
        return e * e;
    }
    float u = v - ret, lu = u * u, lc = e * e;
    if (lu > lc)
        *dv = u;
    else if (lu < lc)
        *dv = e * dvp;
    else
        *dv = 0.5f * (u + e * dvp);
    return 0.5f * (lu > lc ? lu : lc);
}

void ppo_sequence_rows(uint32_t *rows, uint8_t *reset, const uint32_t *seq_ids, uint32_t S, uint32_t L, uint32_t N,
                       const uint8_t *episode_start)
{
    for (uint32_t s = 0; s < S; s++) {
        /* Sequence id q covers env q % N, steps (q / N) * L .. + L - 1. */
        uint32_t env = seq_ids[s] % N, t0 = (seq_ids[s] / N) * L;
        for (uint32_t l = 0; l < L; l++) {
            uint32_t row = (t0 + l) * N + env;
            rows[l * S + s] = row;
            reset[l * S + s] = episode_start[row];
        }
    }
}
