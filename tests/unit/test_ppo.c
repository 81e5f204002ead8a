/* PPO arithmetic on hand-built numbers: GAE (librlcore's rl_gae) around a termination and a
   truncation, the clipped surrogate's value and gradient, value clipping,
   and recurrent minibatch assembly with resets. */
#include <stdlib.h>
#include <string.h>

#include <rlhost/rollout.h>

#include "ppo_math.h"
#include "../tap.h"

static void test_gae(void)
{
    /* One env, T = 5: an episode terminated after step 1, one truncated
       after step 3 (final value 10), then a step still going (last value 4). */
    float r[5] = {1, 2, 3, 4, 5}, v[5] = {0.5f, 1.0f, 1.5f, 2.0f, 2.5f};
    uint8_t term[5] = {0, 1, 0, 0, 0}, trunc[5] = {0, 0, 0, 1, 0};
    float fin[5] = {0, 0, 0, 10, 0}, last[1] = {4}, adv[5], ret[5];
    float g = 0.9f, l = 0.5f;
    rl_gae(adv, ret, r, v, term, trunc, fin, last, 5, 1, g, l);
    /* by hand, backwards:
       t4: d = 5 + 0.9*4 - 2.5 = 6.1;           A4 = 6.1
       t3: d = 4 + 0.9*10 - 2.0 = 11.0 (trunc);  A3 = 11.0 (no carry across the end)
       t2: d = 3 + 0.9*2.0 - 1.5 = 3.3;          A2 = 3.3 + 0.45*11 = 8.25
       t1: d = 2 + 0 - 1.0 = 1.0 (terminal);    A1 = 1.0
       t0: d = 1 + 0.9*1.0 - 0.5 = 1.4;          A0 = 1.4 + 0.45*1.0 = 1.85 */
    float want[5] = {1.85f, 1.0f, 8.25f, 11.0f, 6.1f};
    int ok = 1;
    for (int t = 0; t < 5; t++) ok &= fabsf(adv[t] - want[t]) < 1e-5f && fabsf(ret[t] - (want[t] + v[t])) < 1e-5f;
    OK(ok, "GAE by hand: termination stops the bootstrap, truncation bootstraps from the final value");
    for (int t = 0; t < 5; t++) printf("#   A%d = %g (want %g)\n", t, adv[t], want[t]);
    /* Two envs interleaved give each its own chain. */
    float r2[4] = {1, 0, 1, 0}, v2[4] = {0, 0, 0, 0}, fin2[4] = {0}, last2[2] = {0, 0}, adv2[4], ret2[4];
    uint8_t z[4] = {0};
    rl_gae(adv2, ret2, r2, v2, z, z, fin2, last2, 2, 2, 1.0f, 1.0f);
    OK(adv2[0] == 2.0f && adv2[1] == 0.0f && adv2[2] == 1.0f && adv2[3] == 0.0f, "GAE keeps envs apart");
}

static void test_clip(void)
{
    float d;
    int c;
    /* ratio = e^0.1 = 1.10517, A = 2, clip 0.2: inside the range. */
    float loss = ppo_policy_loss(0.1f, 0.0f, 2.0f, 0.2f, &d, &c, NULL);
    ASSERT_NEAR(loss, -2.0 * 1.1051709, 1e-5, "unclipped loss = -r A");
    ASSERT_NEAR(d, -2.0 * 1.1051709, 1e-5, "gradient d/dlogp = -A r");
    ASSERT_EQ(c, 0, "not clipped");
    /* ratio = e^0.5 = 1.6487 > 1.2 with A > 0: the clipped term is the min. */
    loss = ppo_policy_loss(0.5f, 0.0f, 2.0f, 0.2f, &d, &c, NULL);
    ASSERT_NEAR(loss, -2.4, 1e-6, "clipped loss = -(1 + eps) A");
    ASSERT_NEAR(d, 0.0, 0, "no gradient through the clip");
    ASSERT_EQ(c, 1, "clip active");
    /* ratio 1.6487 with A < 0: min(rA, 1.2A) = rA (more negative): unclipped. */
    loss = ppo_policy_loss(0.5f, 0.0f, -1.0f, 0.2f, &d, &c, NULL);
    ASSERT_NEAR(loss, 1.6487213, 1e-5, "pessimistic bound keeps the unclipped term");
    ASSERT_NEAR(d, 1.6487213, 1e-5, "and its gradient");
    /* ratio e^-0.5 = 0.6065 < 0.8 with A < 0: clipped. */
    loss = ppo_policy_loss(-0.5f, 0.0f, -1.0f, 0.2f, &d, &c, NULL);
    ASSERT_NEAR(loss, 0.8, 1e-6, "low ratio, negative advantage: -(1 - eps) A");
    ASSERT_NEAR(d, 0.0, 0, "no gradient");
    /* Finite difference of the unclipped branch. */
    float dp, dm;
    float lp = ppo_policy_loss(0.05f + 1e-3f, 0.0f, 1.5f, 0.2f, &dp, &c, NULL);
    float lm = ppo_policy_loss(0.05f - 1e-3f, 0.0f, 1.5f, 0.2f, &dm, &c, NULL);
    ppo_policy_loss(0.05f, 0.0f, 1.5f, 0.2f, &d, &c, NULL);
    ASSERT_NEAR((lp - lm) / 2e-3f, d, 1e-3, "policy gradient matches finite differences");

    float dv;
    float vl = ppo_value_loss(PPO_VLOSS_SB3, 3.0f, 2.0f, 1.0f, 0.0f, &dv);
    ASSERT_NEAR(vl, 4.0, 1e-6, "value loss (v - R)^2");
    ASSERT_NEAR(dv, 4.0, 1e-6, "value gradient 2 (v - R)");
    vl = ppo_value_loss(PPO_VLOSS_SB3, 3.0f, 2.0f, 1.0f, 0.5f, &dv);
    ASSERT_NEAR(vl, 2.25, 1e-6, "clipped value: old + 0.5 = 2.5 -> (2.5 - 1)^2");
    ASSERT_NEAR(dv, 0.0, 0, "no gradient through the value clip");

    /* Baselines' form: half the larger of the unclipped and clipped errors. */
    vl = ppo_value_loss(PPO_VLOSS_BASELINES, 3.0f, 2.0f, 1.0f, 0.0f, &dv);
    ASSERT_NEAR(vl, 2.0, 1e-6, "baselines, unclipped: 0.5 (v - R)^2");
    ASSERT_NEAR(dv, 2.0, 1e-6, "baselines, unclipped: gradient v - R");
    /* v = 3 moved 1 from old 2 towards R = 5: clipped 2.5 errs more (6.25
       against 4), so the clipped term wins and has no gradient. */
    vl = ppo_value_loss(PPO_VLOSS_BASELINES, 3.0f, 2.0f, 5.0f, 0.5f, &dv);
    ASSERT_NEAR(vl, 3.125, 1e-6, "baselines: the clipped term is the larger, 0.5 (2.5 - 5)^2");
    ASSERT_NEAR(dv, 0.0, 0, "baselines: no gradient through the larger clipped term");
    /* v = 3 moved past R = 1 from old 0 (clip 0.5 -> v' = 0.5): the
       unclipped error 4 is larger than 0.25, so it keeps its gradient, where
       SB3's form has none. */
    vl = ppo_value_loss(PPO_VLOSS_BASELINES, 3.0f, 0.0f, 1.0f, 0.5f, &dv);
    ASSERT_NEAR(vl, 2.0, 1e-6, "baselines: the unclipped term is the larger, 0.5 (3 - 1)^2");
    ASSERT_NEAR(dv, 2.0, 1e-6, "baselines: the larger unclipped term's gradient v - R");
    ppo_value_loss(PPO_VLOSS_SB3, 3.0f, 0.0f, 1.0f, 0.5f, &dv);
    ASSERT_NEAR(dv, 0.0, 0, "sb3: the same sample clipped, no gradient");
    /* inside the clip both terms are equal: the gradient is still v - R */
    vl = ppo_value_loss(PPO_VLOSS_BASELINES, 2.2f, 2.0f, 1.0f, 0.5f, &dv);
    ASSERT_NEAR(dv, 1.2, 1e-6, "baselines inside the clip: gradient v - R");
    for (int k = 0; k < 3; k++) { /* finite differences where the loss is smooth */
        const float vs[3] = {3.0f, 3.0f, 2.2f}, olds[3] = {2.0f, 0.0f, 2.0f}, rs[3] = {5.0f, 1.0f, 1.0f};
        float d0, up = ppo_value_loss(PPO_VLOSS_BASELINES, vs[k] + 1e-3f, olds[k], rs[k], 0.5f, &d0);
        float down = ppo_value_loss(PPO_VLOSS_BASELINES, vs[k] - 1e-3f, olds[k], rs[k], 0.5f, &d0);
        ppo_value_loss(PPO_VLOSS_BASELINES, vs[k], olds[k], rs[k], 0.5f, &d0);
        ASSERT_NEAR((up - down) / 2e-3f, d0, 2e-3, "baselines value gradient matches finite differences");
    }
}

static void test_sequences(void)
{
    /* T = 4 steps, N = 3 envs, L = 2: sequence q covers env q % 3, steps
       (q / 3) * 2 .. +1.  Episode starts at (t=1, env 0) and (t=2, env 2). */
    uint8_t start[12] = {0};
    start[1 * 3 + 0] = 1;
    start[2 * 3 + 2] = 1;
    uint32_t ids[2] = {0, 5}, rows[4];
    uint8_t reset[4];
    ppo_sequence_rows(rows, reset, ids, 2, 2, 3, start);
    /* seq 0: env 0, t 0..1 -> rows 0, 3; seq 5: env 2, t 2..3 -> rows 8, 11
       time-major: [l0: seq0, seq5][l1: seq0, seq5] */
    uint32_t want_rows[4] = {0, 8, 3, 11};
    uint8_t want_reset[4] = {0, 1, 1, 0};
    OK(memcmp(rows, want_rows, sizeof rows) == 0, "sequence rows, time-major");
    OK(memcmp(reset, want_reset, sizeof reset) == 0, "resets where episodes start inside or at a sequence");
}

int main(void)
{
    test_gae();
    test_clip();
    test_sequences();
    return tap_done();
}
