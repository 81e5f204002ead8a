/* librlcore's learner building blocks: the on-policy rollout (filling,
   GAE against returns worked by hand, a save/load round trip and damaged
   state refused), the running normalizers (against statistics computed
   directly over all the data, batch by batch) and RMSprop against
   PyTorch's update rule on hand-computed values. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rlhost/nn.h>
#include <rlhost/norm.h>
#include <rlhost/replay.h>
#include <rlhost/rollout.h>

#include "../tap.h"

/* ---- an in-memory rl_state_io ------------------------------------------- */

#define MAX_T 64
typedef struct store {
    int n;
    struct {
        char name[64];
        rl_dtype dtype;
        uint32_t ndim;
        uint64_t shape[4];
        size_t bytes;
        unsigned char *data;
    } t[MAX_T];
    char err[128];
} store;

static size_t bytes_of(rl_dtype d, uint32_t ndim, const uint64_t *shape)
{
    size_t n = rl_dtype_size(d);
    for (uint32_t k = 0; k < ndim; k++) n *= shape[k];
    return n;
}

static int s_put(void *ctx, const char *name, rl_dtype dtype, uint32_t ndim, const uint64_t *shape, const void *data)
{
    store *s = ctx;
    if (s->n == MAX_T) return RL_ENOMEM;
    snprintf(s->t[s->n].name, sizeof s->t[s->n].name, "%s", name);
    s->t[s->n].dtype = dtype, s->t[s->n].ndim = ndim;
    memcpy(s->t[s->n].shape, shape, ndim * sizeof *shape);
    s->t[s->n].bytes = bytes_of(dtype, ndim, shape);
    s->t[s->n].data = malloc(s->t[s->n].bytes);
    memcpy(s->t[s->n].data, data, s->t[s->n].bytes);
    s->n++;
    return RL_OK;
}

static int s_find(store *s, const char *name)
{
    for (int i = 0; i < s->n; i++)
        if (!strcmp(s->t[i].name, name)) return i;
    return -1;
}

static int s_get(void *ctx, const char *name, rl_dtype dtype, uint32_t ndim, const uint64_t *shape, void *data)
{
    store *s = ctx;
    int i = s_find(s, name);
    if (i < 0) {
        snprintf(s->err, sizeof s->err, "no tensor '%s'", name);
        return RL_ENOENT;
    }
    if (s->t[i].dtype != dtype || s->t[i].bytes != bytes_of(dtype, ndim, shape)) {
        snprintf(s->err, sizeof s->err, "tensor '%s' has another dtype or shape", name);
        return RL_ECORRUPT;
    }
    memcpy(data, s->t[i].data, s->t[i].bytes);
    return RL_OK;
}

static const char *s_error(void *ctx)
{
    return ((store *)ctx)->err;
}

static void s_free(store *s)
{
    for (int i = 0; i < s->n; i++) free(s->t[i].data);
    s->n = 0;
}

static rl_state_io io_of(store *s)
{
    return (rl_state_io){.struct_size = sizeof(rl_state_io), .ctx = s, .put = s_put, .get = s_get, .error = s_error};
}

/* ---- rollout ------------------------------------------------------------- */

static void test_rollout(void)
{
    rl_rollout r;
    ASSERT_EQ(rl_rollout_create(&r, 3, 2, 1, 2, 1), RL_EINVAL, "rollout: discrete and box at once refused");
    ASSERT_EQ(rl_rollout_create(&r, 3, 2, 1, 2, 0), RL_OK, "rollout: 3 steps of 2 envs");
    /* env 0: rewards 1, 1, 1, terminated after step 1; env 1: rewards 2, 2, 2,
       truncated after step 0 with V(final) = 5 */
    float rew[2] = {1, 2};
    for (uint32_t t = 0; t < 3; t++) {
        size_t at = rl_rollout_at(&r);
        uint8_t st[2] = {t == 0, t == 2};
        int32_t act[2] = {(int32_t)t % 2, 1};
        float v[2] = {0.5f, 1.0f}, lp[2] = {-0.5f, -(float)t};
        rl_rollout_act(&r, st, act, NULL, lp, v, 2);
        OK(r.start[at] == st[0] && r.start[at + 1] == st[1] && r.actions[at] == act[0] && r.actions[at + 1] == 1 &&
               r.logp[at + 1] == -(float)t && r.values[at] == 0.5f && r.values[at + 1] == 1.0f,
           "rollout: act records the step's starts, actions, log-probs and values in its rows");
        if (t == 0) r.final_values[at + 1] = 5.0f;
        uint8_t term[2] = {t == 1, 0}, trunc[2] = {0, t == 0};
        rl_transition tr = {
            .struct_size = sizeof tr, .count = 2, .rewards = rew, .terminated = term, .truncated = trunc};
        int full = rl_rollout_observe(&r, &tr, NULL);
        ASSERT_EQ(full, t == 2, "rollout: full exactly after the last step");
    }
    float last[2] = {10, 20};
    rl_rollout_gae(&r, last, 0.5f, 1.0f);
    /* env 0: step 2 bootstraps 10: ret = 1 + 0.5*10 = 6; step 1 terminated:
       ret = 1; step 0: 1 + 0.5*1 = 1.5.  env 1: step 2: 2 + 0.5*20 = 12;
       step 1: 2 + 0.5*12 = 8; step 0 truncated: 2 + 0.5*5 = 4.5 */
    float want[6] = {1.5f, 4.5f, 1.0f, 8.0f, 6.0f, 12.0f};
    int same = 1;
    for (int k = 0; k < 6; k++) same &= r.ret[k] == want[k] && r.adv[k] == want[k] - r.values[k];
    OK(same, "rollout: returns with lambda 1 are the bootstrapped discounted sums, around the episode ends");
    double m, sd;
    rl_advantage_stats(r.adv, 6, &m, &sd);
    ASSERT_NEAR(m, (1.0 + 3.5 + 0.5 + 7.0 + 5.5 + 11.0) / 6, 1e-6, "rollout: advantage mean");

    /* a half-full rollout round-trips, position included */
    rl_rollout_clear(&r);
    r.obs[0] = 0.25f, r.actions[1] = 1, r.logp[0] = -0.7f;
    rl_transition tr = {.struct_size = sizeof tr,
                        .count = 2,
                        .rewards = rew,
                        .terminated = (uint8_t[2]){0},
                        .truncated = (uint8_t[2]){0}};
    rl_rollout_observe(&r, &tr, NULL);
    store s = {0};
    rl_state_io io = io_of(&s);
    char err[256] = "";
    ASSERT_EQ(rl_rollout_state(&r, &io, 0, err, sizeof err), RL_OK, "rollout: saves");
    rl_rollout back;
    rl_rollout_create(&back, 3, 2, 1, 2, 0);
    ASSERT_EQ(rl_rollout_state(&back, &io, 1, err, sizeof err), RL_OK, "rollout: loads");
    OK(back.pos == 1 && back.obs[0] == 0.25f && back.actions[1] == 1 && back.logp[0] == -0.7f &&
           !memcmp(back.rewards, r.rewards, sizeof want),
       "rollout: position and arrays come back (advantages are derived, not state)");
    /* damaged: an action out of range, a NaN, a position past the end */
    int i = s_find(&s, "rollout/actions");
    ((int32_t *)s.t[i].data)[3] = 7;
    ASSERT_EQ(rl_rollout_state(&back, &io, 1, err, sizeof err), RL_ECORRUPT,
              "rollout: an action out of range is refused");
    ASSERT_CONTAINS(err, "rollout/actions", "rollout: the sentence names the tensor");
    ((int32_t *)s.t[i].data)[3] = 0;
    i = s_find(&s, "rollout/values");
    ((float *)s.t[i].data)[2] = NAN;
    ASSERT_EQ(rl_rollout_state(&back, &io, 1, err, sizeof err), RL_ECORRUPT, "rollout: a NaN value is refused");
    ((float *)s.t[i].data)[2] = 0;
    i = s_find(&s, "rollout/pos");
    *(double *)s.t[i].data = 3;
    ASSERT_EQ(rl_rollout_state(&back, &io, 1, err, sizeof err), RL_ECORRUPT,
              "rollout: a position past the end is refused");
    *(double *)s.t[i].data = 1.5;
    ASSERT_EQ(rl_rollout_state(&back, &io, 1, err, sizeof err), RL_ECORRUPT,
              "rollout: a fractional position is refused");
    s_free(&s);
    rl_rollout_destroy(&back);
    rl_rollout_destroy(&r);
    rl_rollout_destroy(NULL);
}

/* The rollout of an env's space: a masked MultiDiscrete batch goes in
   whole (components and masks), comes back from a checkpoint, and a loaded
   action its component lacks or its mask forbids is refused. */
static void test_rollout_for_env(void)
{
    static const uint32_t nvec[2] = {3, 2};
    rl_env_info env = {.struct_size = sizeof env, .obs_size = 1};
    rl_env_info_set_multi_discrete(&env, 2, nvec);
    rl_env_info_set_masks(&env);
    ASSERT_EQ(rl_env_info_action_width(&env), 5, "env info: a MultiDiscrete space's width is its choices");
    rl_env_info one = {.struct_size = sizeof one, .obs_size = 1, .n_actions = 4}, box = one;
    rl_env_info_set_box(&box, 3, (float[3]){-1, -1, -1}, (float[3]){1, 1, 1});
    OK(rl_env_info_action_width(&one) == 4 && rl_env_info_action_width(&box) == 3 && !rl_env_info_mask_width(&box),
       "env info: a Discrete space's width is its actions, a box's its dimensions (and a box masks nothing)");
    rl_rollout r;
    ASSERT_EQ(rl_rollout_for_env(&r, 2, 2, 1, &env), RL_OK, "rollout for env: 2 steps of 2 envs, [3, 2] masked");
    OK(r.comps == 2 && r.mask_width == 5 && r.multi_actions && r.masks, "rollout for env: components and masks");
    int32_t act[4] = {2, 1, 0, 0};
    uint8_t start[2] = {1, 1}, masks[10] = {1, 1, 1, 1, 1, 1, 0, 0, 1, 1};
    float v[2] = {0.5f, -0.5f};
    rl_act_batch b = {.struct_size = sizeof b,
                      .mode = RL_MODE_TRAIN,
                      .count = 2,
                      .episode_start = start,
                      .masks = masks,
                      .actions = act};
    rl_rollout_act_batch(&r, &b, NULL, v);
    OK(!memcmp(r.multi_actions, act, sizeof act) && !memcmp(r.masks, masks, sizeof masks) && r.values[1] == -0.5f &&
           r.start[0] == 1 && r.actions[0] == 0 && r.actions[1] == 0,
       "rollout for env: act_batch stores every component and the masks; the one-int actions stay 0");
    OK(rl_rollout_actions(&r) == r.multi_actions, "rollout for env: the rows' actions are the components");
    float rew[2] = {0, 0};
    rl_transition tr = {.struct_size = sizeof tr,
                        .count = 2,
                        .rewards = rew,
                        .terminated = (uint8_t[2]){0},
                        .truncated = (uint8_t[2]){0}};
    rl_rollout_observe(&r, &tr, NULL);
    b.masks = NULL;
    rl_rollout_act_batch(&r, &b, NULL, v);
    OK(r.masks[5] == 1 && r.masks[9] == 1, "rollout for env: a batch without masks is stored as all-allowed");
    store s = {0};
    rl_state_io io = io_of(&s);
    char err[256] = "";
    ASSERT_EQ(rl_rollout_state(&r, &io, 0, err, sizeof err), RL_OK, "rollout for env: saves");
    OK(s_find(&s, "rollout/multi_actions") >= 0 && s_find(&s, "rollout/masks") >= 0,
       "rollout for env: the components and masks are tensors of the rollout");
    rl_rollout back;
    rl_rollout_for_env(&back, 2, 2, 1, &env);
    ASSERT_EQ(rl_rollout_state(&back, &io, 1, err, sizeof err), RL_OK, "rollout for env: loads");
    OK(!memcmp(back.multi_actions, r.multi_actions, 8 * sizeof(int32_t)) && !memcmp(back.masks, r.masks, 20),
       "rollout for env: components and masks come back");
    int i = s_find(&s, "rollout/multi_actions");
    ((int32_t *)s.t[i].data)[1] = 2; /* component 1 has 2 choices */
    ASSERT_EQ(rl_rollout_state(&back, &io, 1, err, sizeof err), RL_ECORRUPT,
              "rollout for env: a component's action out of its range is refused");
    ASSERT_CONTAINS(err, "rollout/multi_actions", "rollout for env: the sentence names the tensor");
    ((int32_t *)s.t[i].data)[1] = 1;
    i = s_find(&s, "rollout/masks");
    ((uint8_t *)s.t[i].data)[5] = 0; /* row 1 took choice 0 of component 0: now forbidden */
    ASSERT_EQ(rl_rollout_state(&back, &io, 1, err, sizeof err), RL_ECORRUPT,
              "rollout for env: an action its stored mask forbids is refused");
    ASSERT_CONTAINS(err, "its mask forbids", "rollout for env: the sentence says the mask forbids it");
    s_free(&s);
    rl_rollout_destroy(&back);
    rl_rollout_destroy(&r);
}

/* ---- metric means ---------------------------------------------------------- */

static void test_means(void)
{
    static const char *const names[2] = {"loss", "entropy"};
    rl_means m;
    rl_means_init(&m, names, 2);
    rl_metric out[4];
    ASSERT_EQ(rl_means_report(&m, out, 4), 2, "means: one metric per name");
    OK(isnan(out[0].value) && !strcmp(out[1].name, "entropy"), "means: NaN with nothing added");
    rl_means_add(&m, (double[2]){1.0, 4.0});
    rl_means_add(&m, (double[2]){3.0, 6.0});
    store s = {0};
    rl_state_io io = io_of(&s);
    char err[256] = "";
    ASSERT_EQ(rl_means_state(&m, &io, 0, "algo/", err, sizeof err), RL_OK, "means: saved");
    rl_means back;
    rl_means_init(&back, names, 2);
    ASSERT_EQ(rl_means_state(&back, &io, 1, "algo/", err, sizeof err), RL_OK, "means: loaded");
    ASSERT_EQ(rl_means_report(&back, out, 1), 1, "means: a report stops at cap");
    ASSERT_NEAR(out[0].value, 2.0, 0, "means: the loaded sums report the saved mean");
    rl_means_add(&back, (double[2]){5.0, 0.0});
    rl_means_report(&back, out, 4);
    ASSERT_NEAR(out[0].value, 5.0, 0, "means: a report resets the sums");
    int i = s_find(&s, "algo/means");
    ((double *)s.t[i].data)[1] = INFINITY;
    ASSERT_EQ(rl_means_state(&back, &io, 1, "algo/", err, sizeof err), RL_ECORRUPT,
              "means: an infinite sum is refused");
    ASSERT_CONTAINS(err, "algo/means", "means: the sentence names the tensor");
    ((double *)s.t[i].data)[1] = 1.0;
    ((double *)s.t[i].data)[2] = 1.5;
    ASSERT_EQ(rl_means_state(&back, &io, 1, "algo/", err, sizeof err), RL_ECORRUPT,
              "means: a fractional count is refused");
    ((double *)s.t[i].data)[2] = -1;
    ASSERT_EQ(rl_means_state(&back, &io, 1, "algo/", err, sizeof err), RL_ECORRUPT,
              "means: a negative count is refused");
    s_free(&s);
}

/* ---- normalizers --------------------------------------------------------- */

static void test_obs_norm(void)
{
    rl_obs_norm n;
    ASSERT_EQ(rl_obs_norm_create(&n, 2, 5.0f), RL_OK, "obs norm: created");
    rl_rng rng;
    rl_rng_seed(&rng, 3, 0);
    enum { B = 40, K = 25 };
    static float all[B * K * 2];
    for (int k = 0; k < B * K; k++) {
        all[2 * k] = 3.0f + 2.0f * (float)rl_rng_normal(&rng);
        all[2 * k + 1] = -1.0f + 0.5f * rl_rng_uniform(&rng);
    }
    for (int b = 0; b < K; b++) rl_obs_norm_update(&n, all + 2 * B * b, B, NULL);
    /* SB3's start (mean 0, var 1, count 1e-4) is a pseudo-observation: with
       1000 real ones its weight is 1e-7 */
    double m[2] = {0, 0}, v[2] = {0, 0};
    for (int k = 0; k < B * K; k++) m[0] += all[2 * k], m[1] += all[2 * k + 1];
    m[0] /= B * K, m[1] /= B * K;
    for (int k = 0; k < B * K; k++)
        v[0] += (all[2 * k] - m[0]) * (all[2 * k] - m[0]), v[1] += (all[2 * k + 1] - m[1]) * (all[2 * k + 1] - m[1]);
    v[0] /= B * K, v[1] /= B * K;
    OK(fabs(n.mean[0] - m[0]) < 1e-5 && fabs(n.mean[1] - m[1]) < 1e-5 && fabs(n.var[0] / v[0] - 1) < 1e-5 &&
           fabs(n.var[1] / v[1] - 1) < 1e-5,
       "obs norm: batch by batch, the statistics of all the data");
    float x[2] = {(float)m[0] + 100.0f, (float)m[1]};
    rl_obs_norm_apply(&n, x, 1);
    OK(x[0] == 5.0f && fabs(x[1]) < 1e-3, "obs norm: centred, scaled and clipped");

    store s = {0};
    rl_state_io io = io_of(&s);
    char err[256];
    ASSERT_EQ(rl_obs_norm_state(&n, &io, 0, "norm/", err, sizeof err), RL_OK, "obs norm: saves");
    rl_obs_norm back;
    rl_obs_norm_create(&back, 2, 5.0f);
    ASSERT_EQ(rl_obs_norm_state(&back, &io, 1, "norm/", err, sizeof err), RL_OK, "obs norm: loads");
    OK(back.count == n.count && back.mean[1] == n.mean[1] && back.mul[0] == n.mul[0],
       "obs norm: statistics and the scaling derived from them come back");
    ((double *)s.t[s_find(&s, "norm/var")].data)[1] = -1;
    ASSERT_EQ(rl_obs_norm_state(&back, &io, 1, "norm/", err, sizeof err), RL_ECORRUPT,
              "obs norm: a negative variance is refused");
    ASSERT_CONTAINS(err, "norm/var", "obs norm: the sentence names the tensor");
    s_free(&s);
    rl_obs_norm_destroy(&back);
    rl_obs_norm_destroy(&n);
}

static void test_return_norm(void)
{
    rl_return_norm r;
    ASSERT_EQ(rl_return_norm_create(&r, 2, 0.5f, 10.0f), RL_OK, "return norm: created");
    float rew[2] = {1.0f, -2.0f}, out[2];
    uint8_t none[2] = {0, 0}, end0[2] = {1, 0};
    rl_return_norm_step(&r, rew, none, none, out, NULL);
    rl_return_norm_step(&r, rew, end0, none, out, NULL);
    /* returns: step 1 {1, -2}, step 2 {1.5, -3}; env 0's restarts after */
    OK(r.ret[0] == 0.0 && r.ret[1] == -3.0, "return norm: discounted returns, restarted where an episode ended");
    /* the four returns 1, -2, 1.5, -3 with SB3's pseudo-observation */
    double c = 1e-4, mean = 0, var = 1;
    double batches[2][2] = {{1, -2}, {1.5, -3}};
    for (int b = 0; b < 2; b++) {
        double bm = (batches[b][0] + batches[b][1]) / 2, bv = 0;
        for (int i = 0; i < 2; i++) bv += (batches[b][i] - bm) * (batches[b][i] - bm);
        bv /= 2;
        double tot = c + 2, d = bm - mean;
        mean += d * 2 / tot;
        var = (var * c + bv * 2 + d * d * c * 2 / tot) / tot;
        c = tot;
    }
    ASSERT_NEAR(r.var, var, 1e-12, "return norm: the running variance of the returns");
    ASSERT_NEAR(out[1], -2.0 / sqrt(var + 1e-8), 1e-6, "return norm: rewards divided by its square root");
    store s = {0};
    rl_state_io io = io_of(&s);
    char err[256];
    ASSERT_EQ(rl_return_norm_state(&r, &io, 0, "st/", err, sizeof err), RL_OK, "return norm: saves");
    *(double *)s.t[s_find(&s, "st/return_var")].data = INFINITY;
    ASSERT_EQ(rl_return_norm_state(&r, &io, 1, "st/", err, sizeof err), RL_ECORRUPT,
              "return norm: an infinite variance is refused");
    s_free(&s);
    rl_return_norm_destroy(&r);
}

/* ---- RMSprop -------------------------------------------------------------- */

static void test_rmsprop(void)
{
    rl_rmsprop o;
    ASSERT_EQ(rl_rmsprop_create(&o, 2, 0.99f, 1e-5f), RL_OK, "rmsprop: created");
    float w[2] = {1.0f, -1.0f}, g[2] = {0.5f, -2.0f};
    rl_rmsprop_step(&o, w, g, 0.01f);
    rl_rmsprop_step(&o, w, g, 0.01f);
    /* PyTorch: v = a v + (1 - a) g^2; w -= lr g / (sqrt(v) + eps) */
    double v0 = 0, w0 = 1.0, v1 = 0, w1 = -1.0;
    for (int k = 0; k < 2; k++) {
        v0 = 0.99 * v0 + 0.01 * 0.25, w0 -= 0.01 * 0.5 / (sqrt(v0) + 1e-5);
        v1 = 0.99 * v1 + 0.01 * 4.0, w1 -= 0.01 * -2.0 / (sqrt(v1) + 1e-5);
    }
    ASSERT_NEAR(w[0], w0, 1e-6, "rmsprop: PyTorch's rule, first weight");
    ASSERT_NEAR(w[1], w1, 1e-6, "rmsprop: PyTorch's rule, second weight");
    rl_rmsprop_destroy(&o);
}

/* the sentence for a non-finite gradient norm */
static void test_grad_problem(void)
{
    rl_params p = {0};
    rl_params_add(&p, "actor/layer0.weight", 2, 2);
    rl_params_add(&p, "actor/layer0.bias", 2, 1);
    char buf[160];
    ASSERT_CONTAINS(rl_grad_problem(&p, (long)p.tensors[1].offset + 1, buf, sizeof buf),
                    "a non-finite gradient in tensor 'actor/layer0.bias'",
                    "grad problem: the tensor of the first non-finite element");
    ASSERT_CONTAINS(rl_grad_problem(&p, -1, buf, sizeof buf), "a gradient norm past float's range",
                    "grad problem: every element finite, the norm overflowed (no tensor '?')");
}

/* Adam's loaded moments: a NaN first moment or a negative second one is
   refused with the tensor's name */
static void test_adam_state(void)
{
    rl_params p = {0};
    rl_params_add(&p, "q/layer0.weight", 2, 2);
    rl_params_add(&p, "q/layer0.bias", 2, 1);
    ASSERT_EQ(rl_params_alloc(&p), RL_OK, "adam state: params");
    rl_adam a;
    ASSERT_EQ(rl_adam_create(&a, p.n, 0.9f, 0.999f, 1e-8f, 0.0f), RL_OK, "adam state: created");
    for (size_t i = 0; i < p.n; i++) p.grad[i] = (float)i - 2.0f;
    rl_adam_step(&a, p.data, p.grad, 1e-3f);
    store s = {0};
    rl_state_io io = io_of(&s);
    char err[256];
    ASSERT_EQ(rl_adam_state(&a, &p, &io, 0, "adam/", err, sizeof err), RL_OK, "adam state: saves");
    ASSERT_EQ(rl_adam_state(&a, &p, &io, 1, "adam/", err, sizeof err), RL_OK, "adam state: loads what it saved");
    ((float *)s.t[s_find(&s, "adam/v/q/layer0.bias")].data)[1] = -1.0f;
    ASSERT_EQ(rl_adam_state(&a, &p, &io, 1, "adam/", err, sizeof err), RL_ECORRUPT,
              "adam state: a negative second moment is refused");
    ASSERT_CONTAINS(err, "adam/v/q/layer0.bias", "adam state: the sentence names the tensor");
    ((float *)s.t[s_find(&s, "adam/v/q/layer0.bias")].data)[1] = 0.0f;
    ((float *)s.t[s_find(&s, "adam/m/q/layer0.weight")].data)[0] = NAN;
    ASSERT_EQ(rl_adam_state(&a, &p, &io, 1, "adam/", err, sizeof err), RL_ECORRUPT,
              "adam state: a NaN first moment is refused");
    ASSERT_CONTAINS(err, "adam/m/q/layer0.weight", "adam state: that one named too");
    s_free(&s);
    rl_adam_destroy(&a);
    rl_params_free(&p);
}

/* The SDK's pieces for an off-policy learner: a counter in state, the
   one-call clip and Adam step, batches from the replay, the mean op. */
static void test_offpolicy_sdk(void)
{
    store s = {0};
    rl_state_io io = io_of(&s);
    char err[256];
    uint64_t c = 123456789012345ull, back = 0;
    ASSERT_EQ(rl_count_state(&c, UINT64_MAX, &io, 0, "steps", err, sizeof err), RL_OK, "count: saves");
    ASSERT_EQ(rl_count_state(&back, UINT64_MAX, &io, 1, "steps", err, sizeof err), RL_OK, "count: loads");
    ASSERT_EQ(back, c, "count: exactly, past float64's 2^53 too");
    c = (1ull << 53) + 1;
    rl_count_state(&c, UINT64_MAX, &io, 0, "big", err, sizeof err);
    rl_count_state(&back, UINT64_MAX, &io, 1, "big", err, sizeof err);
    ASSERT_EQ(back, (1ull << 53) + 1, "count: 2^53 + 1 survives");
    ASSERT_EQ(rl_count_state(&back, 1000, &io, 1, "steps", err, sizeof err), RL_ECORRUPT,
              "count: above max is refused");
    ASSERT_CONTAINS(err, "steps", "count: the sentence names the tensor");
    s_free(&s);

    /* rl_adam_clip_step is rl_clip_grad_norm then rl_adam_step */
    float p1[5] = {1, 2, 3, 4, 5}, p2[5] = {1, 2, 3, 4, 5}, g1[5] = {3, -4, 0, 12, 1}, g2[5];
    memcpy(g2, g1, sizeof g1);
    rl_adam a1, a2;
    rl_adam_create(&a1, 5, 0.9f, 0.999f, 1e-8f, 0.0f);
    rl_adam_create(&a2, 5, 0.9f, 0.999f, 1e-8f, 0.0f);
    float n1 = rl_adam_clip_step(&a1, p1, g1, 5, 1.0f, 1e-2f);
    float n2 = rl_clip_grad_norm(g2, 5, 1.0f);
    rl_adam_step(&a2, p2, g2, 1e-2f);
    ASSERT_EQ(n1, n2, "adam clip step: returns the norm before clipping");
    OK(!memcmp(p1, p2, sizeof p1), "adam clip step: the same parameters as clip, then Adam");
    g1[2] = NAN;
    memcpy(p2, p1, sizeof p1);
    OK(!isfinite(rl_adam_clip_step(&a1, p1, g1, 5, 1.0f, 1e-2f)) && !memcmp(p1, p2, sizeof p1),
       "adam clip step: a NaN gradient steps nothing and says so");
    rl_adam_destroy(&a1);
    rl_adam_destroy(&a2);

    /* a batch: slots below the size, rows as network input, flags as floats */
    rl_env_info info = {.struct_size = sizeof info,
                        .obs_dtype = RL_DTYPE_U8,
                        .obs_ndim = 1,
                        .obs_shape = {2},
                        .obs_size = 2,
                        .obs_scale = 0.5f,
                        .n_actions = 3};
    rl_replay r;
    ASSERT_EQ(rl_replay_create(&r, 9, 2, &info), RL_OK, "replay: created");
    ASSERT_EQ(r.capacity, 8u, "replay: capacity rounded down to a multiple of num_envs");
    uint8_t obs[4] = {2, 4, 6, 8}, nxt[4] = {10, 12, 14, 16}, term[2] = {0, 1}, trunc[2] = {0, 0};
    int32_t act[2] = {1, 2};
    float rew[2] = {0.5f, -1.0f};
    rl_transition t = {.struct_size = sizeof t,
                       .count = 2,
                       .obs = obs,
                       .actions = act,
                       .rewards = rew,
                       .next_obs = nxt,
                       .final_obs = nxt,
                       .terminated = term,
                       .truncated = trunc};
    rl_replay_add(&r, &t);
    rl_replay_batch b;
    ASSERT_EQ(rl_replay_batch_create(&b, &r, 64), RL_OK, "batch: created");
    rl_rng g, h;
    rl_rng_seed(&g, 7, 0);
    rl_rng_seed(&h, 7, 0);
    rl_replay_sample(&r, &g, &b);
    int fine = 1;
    for (uint32_t j = 0; j < b.n; j++) {
        uint32_t s2 = b.slots[j];
        fine &= s2 < 2 && s2 == rl_rng_below(&h, 2) && b.actions[j] == act[s2] && b.rewards[j] == rew[s2] &&
            b.terminated[j] == (float)term[s2] && b.obs[2 * j] == obs[2 * s2] * 0.5f &&
            b.next_obs[2 * j + 1] == nxt[2 * s2 + 1] * 0.5f;
    }
    OK(fine, "batch: slots drawn below the size in the rng's order, each row scaled as network input");
    OK(b.box_actions == NULL, "batch: a discrete ring has no box actions");
    rl_replay_batch_destroy(&b);
    rl_replay_batch_destroy(&b); /* twice: a zeroed batch is a no-op */
    rl_replay_destroy(&r);

    char ops[256] = "[{\"op\":\"linear\"}";
    ASSERT_EQ(rl_mean_op(ops + 1, sizeof ops - 1, 2, 8, 1), 0, "mean op: appended");
    ASSERT_CONTAINS(ops, "{\"op\":\"linear\"},{\"op\":\"mean\",\"shape\":[2,8],\"axis\":1}", "mean op: after a comma");
    OK(rl_mean_op(ops, sizeof ops, 2, 8, 2) == -1, "mean op: an axis other than 0 or 1 is refused");
}

int main(void)
{
    test_offpolicy_sdk();
    test_means();
    test_grad_problem();
    test_adam_state();
    test_rollout();
    test_rollout_for_env();
    test_obs_norm();
    test_return_norm();
    test_rmsprop();
    return tap_done();
}
