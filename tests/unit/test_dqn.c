/* DQN parts: the sum tree (sampling frequencies follow priorities), the
   replay ring's n-step returns around truncation and termination, and the
   plain and double TD targets on hand-built numbers. */
#include <stdlib.h>
#include <string.h>

#include "dqn_net.h"
#include <rlhost/replay.h>
#include "sumtree.h"
#include "../tap.h"

static void test_sumtree(void)
{
    sumtree t;
    OK(sumtree_create(&t, 5) == RL_OK, "create");
    ASSERT_EQ(t.capacity, 8, "capacity rounds up to a power of two");
    double p[5] = {1.0, 2.0, 0.0, 4.0, 3.0};
    for (uint32_t i = 0; i < 5; i++) sumtree_set(&t, i, p[i]);
    ASSERT_NEAR(sumtree_total(&t), 10.0, 1e-12, "total");
    ASSERT_NEAR(sumtree_min(&t), 0.0, 1e-12, "min over set leaves");
    ASSERT_EQ(sumtree_find(&t, 0.5), 0, "prefix search, first leaf");
    ASSERT_EQ(sumtree_find(&t, 1.0), 1, "prefix boundary goes right");
    ASSERT_EQ(sumtree_find(&t, 2.999), 1, "inside leaf 1");
    ASSERT_EQ(sumtree_find(&t, 3.0), 3, "zero-priority leaf skipped");
    ASSERT_EQ(sumtree_find(&t, 9.999), 4, "last leaf");
    /* Sampling frequencies (fixed seed, 200k draws, 1% absolute tolerance). */
    rl_rng rng;
    rl_rng_seed(&rng, 11, 0);
    int counts[5] = {0};
    for (int k = 0; k < 200000; k++) counts[sumtree_find(&t, rl_rng_uniform_d(&rng) * sumtree_total(&t))]++;
    int ok = 1;
    for (int i = 0; i < 5; i++) ok &= fabs(counts[i] / 200000.0 - p[i] / 10.0) < 0.01;
    OK(ok, "sampling frequencies match priorities");
    printf("# frequencies %.3f %.3f %.3f %.3f %.3f\n", counts[0] / 2e5, counts[1] / 2e5, counts[2] / 2e5,
           counts[3] / 2e5, counts[4] / 2e5);
    /* Updates and wrap-around of a ring over it. */
    sumtree_set(&t, 2, 5.0);
    sumtree_set(&t, 3, 0.5);
    ASSERT_NEAR(sumtree_total(&t), 11.5, 1e-12, "total after updates");
    ASSERT_NEAR(sumtree_min(&t), 0.5, 1e-12, "min after updates");
    for (uint32_t k = 0; k < 13; k++) sumtree_set(&t, k % 5, 1.0); /* a ring wrapping over capacity 5 */
    ASSERT_NEAR(sumtree_total(&t), 5.0, 1e-12, "ring overwrite keeps the total exact");
    sumtree_destroy(&t);
}

/* One env, an episode of rewards 1, 2, 4, 8 truncated at step 3, then an
   episode 16, 32 terminated, then 64 (still going). */
static void test_nstep(void)
{
    rl_env_info info = {.struct_size = sizeof info,
                        .obs_dtype = RL_DTYPE_F32,
                        .obs_ndim = 1,
                        .obs_shape = {1},
                        .obs_size = 1,
                        .obs_scale = 1.0f,
                        .n_actions = 2,
                        .agents = 1};
    rl_replay r;
    OK(rl_replay_create(&r, 16, 1, &info) == RL_OK, "rl_replay create");
    float rew[7] = {1, 2, 4, 8, 16, 32, 64};
    uint8_t term[7] = {0, 0, 0, 0, 0, 1, 0}, trunc[7] = {0, 0, 0, 1, 0, 0, 0};
    for (int k = 0; k < 7; k++) {
        float o = (float)k, no = (float)(k + 1), fin = 100.0f + k;
        int32_t a = k % 2;
        rl_transition t = {.struct_size = sizeof t,
                           .count = 1,
                           .obs = &o,
                           .actions = &a,
                           .rewards = &rew[k],
                           .next_obs = &no,
                           .final_obs = &fin,
                           .terminated = &term[k],
                           .truncated = &trunc[k]};
        rl_replay_add(&r, &t);
    }
    ASSERT_EQ(rl_replay_size(&r), 7, "seven transitions stored");
    float g = 0.5f, x;
    rl_nstep n = rl_replay_nstep(&r, 0, 3, g);
    ASSERT_NEAR(n.ret, 1 + 0.5 * 2 + 0.25 * 4, 1e-6, "3-step return inside an episode");
    ASSERT_NEAR(n.discount, 0.125, 1e-7, "bootstrap discount gamma^3");
    rl_replay_obs_float(&r, n.boot_slot, 1, &x);
    ASSERT_NEAR(x, 3.0, 0, "bootstraps from the observation after step 2");
    n = rl_replay_nstep(&r, 2, 3, g);
    ASSERT_NEAR(n.ret, 4 + 0.5 * 8, 1e-6, "return stops at the truncation");
    ASSERT_NEAR(n.discount, 0.25, 1e-7, "truncation still bootstraps (gamma^2)");
    rl_replay_obs_float(&r, n.boot_slot, 1, &x);
    ASSERT_NEAR(x, 103.0, 0, "truncation bootstraps from the final observation, not the reset one");
    n = rl_replay_nstep(&r, 4, 3, g);
    ASSERT_NEAR(n.ret, 16 + 0.5 * 32, 1e-6, "return stops at the termination");
    ASSERT_NEAR(n.discount, 0.0, 0, "termination does not bootstrap");
    n = rl_replay_nstep(&r, 6, 3, g);
    ASSERT_NEAR(n.ret, 64, 1e-6, "the newest step has no successors yet");
    ASSERT_NEAR(n.discount, 0.5, 1e-7, "and bootstraps after one step");
    n = rl_replay_nstep(&r, 1, 1, g);
    ASSERT_NEAR(n.ret, 2, 0, "1-step return is the reward");
    ASSERT_NEAR(n.discount, 0.5, 1e-7, "1-step discount is gamma");
    rl_replay_destroy(&r);

    /* Two envs interleaved: env 1's chain skips env 0's slots. */
    OK(rl_replay_create(&r, 8, 2, &info) == RL_OK, "two-env replay");
    for (int k = 0; k < 3; k++) {
        float o[2] = {0, 0}, no[2] = {0, 0}, fin[2] = {0, 0}, rw[2] = {(float)k, 10.0f * (k + 1)};
        int32_t a[2] = {0, 0};
        uint8_t te[2] = {0, 0}, tr[2] = {0, 0};
        rl_transition t = {.struct_size = sizeof t,
                           .count = 2,
                           .obs = o,
                           .actions = a,
                           .rewards = rw,
                           .next_obs = no,
                           .final_obs = fin,
                           .terminated = te,
                           .truncated = tr};
        rl_replay_add(&r, &t);
    }
    n = rl_replay_nstep(&r, 1, 3, 1.0f);
    ASSERT_NEAR(n.ret, 10 + 20 + 30, 1e-6, "env 1's n-step chain stays in env 1");
    /* Wrap: 4 more steps overwrite the ring (capacity 8 = 4 steps x 2 envs). */
    for (int k = 3; k < 7; k++) {
        float o[2] = {0, 0}, no[2] = {0, 0}, fin[2] = {0, 0}, rw[2] = {(float)k, 0};
        int32_t a[2] = {0, 0};
        uint8_t te[2] = {0, 0}, tr[2] = {0, 0};
        rl_transition t = {.struct_size = sizeof t,
                           .count = 2,
                           .obs = o,
                           .actions = a,
                           .rewards = rw,
                           .next_obs = no,
                           .final_obs = fin,
                           .terminated = te,
                           .truncated = tr};
        rl_replay_add(&r, &t);
    }
    ASSERT_EQ(rl_replay_size(&r), 8, "ring full");
    /* newest step (6) is at slot (6*2)%8 = 4; slot 6 holds step 3 */
    n = rl_replay_nstep(&r, 6, 5, 1.0f);
    ASSERT_NEAR(n.ret, 3 + 4 + 5 + 6, 1e-6, "n-step across the ring's wrap stops at the newest step");
    rl_replay_destroy(&r);

    /* uint8 observations stay uint8 and scale on the way out. */
    rl_env_info u8 = {.struct_size = sizeof u8,
                      .obs_dtype = RL_DTYPE_U8,
                      .obs_ndim = 1,
                      .obs_shape = {2},
                      .obs_size = 2,
                      .obs_scale = 1.0f / 255.0f,
                      .n_actions = 2,
                      .agents = 1};
    OK(rl_replay_create(&r, 4, 1, &u8) == RL_OK, "uint8 replay");
    ASSERT_EQ(r.row_bytes, 2, "uint8 rows stored as bytes");
    uint8_t o[2] = {255, 51}, no[2] = {0, 0};
    int32_t a = 1;
    float rw = 0;
    uint8_t z = 0;
    rl_transition t = {.struct_size = sizeof t,
                       .count = 1,
                       .obs = o,
                       .actions = &a,
                       .rewards = &rw,
                       .next_obs = no,
                       .final_obs = no,
                       .terminated = &z,
                       .truncated = &z};
    rl_replay_add(&r, &t);
    float xf[2];
    rl_replay_obs_float(&r, 0, 0, xf);
    ASSERT_NEAR(xf[0], 1.0, 1e-6, "uint8 255 -> 1.0");
    ASSERT_NEAR(xf[1], 0.2, 1e-6, "uint8 51 -> 0.2");
    rl_replay_destroy(&r);
}

static void test_targets(void)
{
    /* Two transitions, three actions. */
    float qt[6] = {1.0f, 5.0f, 2.0f, /**/ 0.5f, -1.0f, 3.0f};
    float qo[6] = {9.0f, 0.0f, 1.0f, /**/ 0.0f, 4.0f, 0.0f};
    float ret[2] = {1.0f, -1.0f}, disc[2] = {0.9f, 0.0f}, y[2];
    dqn_td_targets(y, qt, NULL, NULL, ret, disc, 2, 3);
    ASSERT_NEAR(y[0], 1.0 + 0.9 * 5.0, 1e-6, "plain target: max of the target net");
    ASSERT_NEAR(y[1], -1.0, 1e-6, "terminal target: the reward only");
    disc[1] = 0.5f;
    dqn_td_targets(y, qt, qo, NULL, ret, disc, 2, 3);
    ASSERT_NEAR(y[0], 1.0 + 0.9 * 1.0, 1e-6, "double target: online argmax (0), target value (1.0)");
    ASSERT_NEAR(y[1], -1.0 + 0.5 * -1.0, 1e-6, "double target: online argmax (1), target value (-1.0)");
    /* Masks: the max and the online argmax only over the valid actions. */
    uint8_t masks[6] = {1, 0, 1, /**/ 1, 0, 1};
    dqn_td_targets(y, qt, NULL, masks, ret, disc, 2, 3);
    ASSERT_NEAR(y[0], 1.0 + 0.9 * 2.0, 1e-6, "masked target: the max over actions 0 and 2 (2.0, not 5.0)");
    ASSERT_NEAR(y[1], -1.0 + 0.5 * 3.0, 1e-6, "masked target: action 2's 3.0");
    dqn_td_targets(y, qt, qo, masks, ret, disc, 2, 3);
    ASSERT_NEAR(y[1], -1.0 + 0.5 * 0.5, 1e-6, "masked double target: online argmax over 0 and 2 (0: ties go first)");
}

int main(void)
{
    test_sumtree();
    test_nstep();
    test_targets();
    return tap_done();
}
