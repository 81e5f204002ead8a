/* The embedding API (<rlhost/host.h>) through librlhost, as an embedder
   links it: plugins, option validation with the CLI's sentences, buffers
   that stay put, caller-owned buffers, reseeding, and refusals. */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rlhost/host.h>

#include "../tap.h"

#define N 8

/* A caller's env (rlh_env_register): observation [t], episodes of 3 + i
   steps for env i, reward = the action; `fail` makes the next step fail. */
typedef struct counter {
    uint32_t n, *t, created;
    int fail;
} counter;

static int ct_create(void *ctx, uint32_t n, uint64_t seed, rl_env_info *info, void **inst, char *err, size_t errlen)
{
    counter *c = ctx;
    (void)seed, (void)err, (void)errlen;
    c->n = n;
    c->t = calloc(n, sizeof *c->t);
    c->created++;
    info->obs_dtype = RL_DTYPE_F32;
    info->obs_ndim = 1;
    info->obs_shape[0] = info->obs_size = 1;
    info->n_actions = 2;
    *inst = c;
    return RL_OK;
}

static void ct_destroy(void *ctx, void *inst)
{
    counter *c = inst;
    (void)ctx;
    free(c->t);
    c->t = NULL;
}

static int ct_reset(void *ctx, void *inst, const rl_env_io *io, uint32_t first, uint32_t count, char *err,
                    size_t errlen)
{
    counter *c = inst;
    (void)ctx, (void)err, (void)errlen;
    for (uint32_t i = first; i < first + count; i++) ((float *)io->obs)[i] = (float)(c->t[i] = 0);
    return RL_OK;
}

static int ct_step(void *ctx, void *inst, const rl_env_io *io, uint32_t first, uint32_t count, char *err, size_t errlen)
{
    counter *c = inst;
    (void)ctx;
    if (c->fail) {
        snprintf(err, errlen, "the simulator diverged");
        return RL_EIO;
    }
    float *obs = io->obs, *final = io->final_obs;
    for (uint32_t i = first; i < first + count; i++) {
        io->rewards[i] = (float)io->actions[i];
        io->terminated[i] = ++c->t[i] == 3 + i;
        io->truncated[i] = 0;
        if (io->terminated[i]) {
            final[i] = (float)c->t[i];
            c->t[i] = 0;
        }
        obs[i] = (float)c->t[i];
    }
    return RL_OK;
}

static void caller_env(rlh_host *h)
{
    char err[512] = "";
    counter c = {0};
    rlh_env_def d = {sizeof d, "counter", "counts steps", &c, ct_create, ct_destroy, ct_reset, ct_step};
    ASSERT_EQ(rlh_env_register(h, &d, err, sizeof err), RL_OK, "rlh_env_register adds the caller's env");
    ASSERT_EQ(rlh_env_register(h, &d, err, sizeof err), RL_EINVAL, "a second env of the same name is refused");
    ASSERT_CONTAINS(err, "an env named 'counter' exists already", "saying so");
    rlh_env_def bad = d;
    bad.name = "Counter!";
    OK(rlh_env_register(h, &bad, err, sizeof err) != RL_OK, "a name outside [a-z0-9_] is refused");
    bad = d;
    bad.struct_size = 8;
    ASSERT_EQ(rlh_env_register(h, &bad, err, sizeof err), RL_EINVAL, "a definition without struct_size is refused");
    rlh_vec *v = rlh_vec_open(h, "counter", 2, 1, "optimizations = { threads = 2; };", err, sizeof err);
    OK(v != NULL, "rlh_vec_open opens it by name");
    if (!v) return;
    ASSERT_EQ(rlh_vec_threads(v), 1u, "stepped on one thread whatever the config asks (RL_DESC_SERIAL)");
    const rlh_buffers *b = rlh_vec_buffers(v);
    int32_t *a = b->actions;
    float *obs = b->obs, *final = b->final_obs;
    rlh_vec_reset(v);
    int same_step = 1;
    for (int t = 1; t <= 6; t++) {
        a[0] = a[1] = 1;
        rlh_vec_step(v, err, sizeof err);
        same_step &= b->terminated[0] == (t % 3 == 0) && obs[0] == (float)(t % 3) && b->rewards[0] == 1.0f;
        if (b->terminated[0]) same_step &= final[0] == 3.0f && b->episode_start[0];
    }
    OK(same_step, "its episodes autoreset in the same step, final_obs the last observation");
    ASSERT_EQ(rlh_vec_set_autoreset(v, RLH_AUTORESET_NEXT_STEP, err, sizeof err), RL_OK, "next-step autoreset");
    rlh_vec_reset(v);
    int next_step = 1;
    for (int t = 1; t <= 8; t++) {
        a[0] = a[1] = 1;
        rlh_vec_step(v, err, sizeof err);
        /* env 0: 1 2 3(end) 0(reset, reward 0) 1 2 3(end) 0 */
        float want = (float)((t - 1) % 4 + 1 == 4 ? 0 : (t - 1) % 4 + 1);
        next_step &= obs[0] == want && b->terminated[0] == (want == 3.0f) && b->rewards[0] == (want ? 1.0f : 0.0f);
    }
    OK(next_step, "next-step: the last observation when it ends, the reset (reward 0) on the step after");
    c.fail = 1;
    ASSERT_EQ(rlh_vec_step(v, err, sizeof err), RL_EIO, "a step the caller's env fails is the step's status");
    ASSERT_CONTAINS(err, "env 'counter': the simulator diverged", "with its sentence");
    c.fail = 0;
    ASSERT_EQ(rlh_vec_step(v, err, sizeof err), RL_OK, "and the next step goes on");
    char text[64];
    ASSERT_EQ(rlh_vec_render_text(v, 0, text, sizeof text, err, sizeof err), RL_ENOTSUP,
              "an env that draws no text says so");
    rlh_vec_close(v);
    OK(c.t == NULL && c.created == 1, "closing destroys the caller's instance");
}

static void run_steps(rlh_vec *v, int steps, uint32_t seed)
{
    const rlh_buffers *b = rlh_vec_buffers(v);
    uint32_t n_actions = rlh_vec_info(v)->n_actions;
    int32_t *actions = b->actions; /* discrete envs here */
    for (int t = 0; t < steps; t++) {
        for (uint32_t i = 0; i < rlh_vec_num_envs(v); i++)
            actions[i] = (int32_t)((seed * 2654435761u + (uint32_t)t * 40503u + i * 977u) >> 7) % n_actions;
        rlh_vec_step(v, NULL, 0);
    }
}

int main(void)
{
    char err[512] = "";
    OK(rlh_api_version() == RLH_API_VERSION && rlh_version()[0], "version and API version");
    rlh_host *h = rlh_open(NULL, err, sizeof err);
    OK(h != NULL, "rlh_open finds the plugins");
    int has_snake = 0, has_ppo = 0;
    for (size_t i = 0; rlh_plugin_name(h, RL_KIND_ENV, i); i++)
        has_snake |= !strcmp(rlh_plugin_name(h, RL_KIND_ENV, i), "snake");
    for (size_t i = 0; rlh_plugin_name(h, RL_KIND_ALGO, i); i++)
        has_ppo |= !strcmp(rlh_plugin_name(h, RL_KIND_ALGO, i), "ppo");
    OK(has_snake && has_ppo, "rlh_plugin_name lists envs and algos");

    /* options validated by the env's schema, with the config's sentences */
    OK(!rlh_vec_open(h, "snake", N, 1, "width = 2;", err, sizeof err), "size 2 refused");
    ASSERT_CONTAINS(err, "options:1: env.width: expected an integer in [4, 64]",
                    "the schema's sentence, naming the key");
    OK(!rlh_vec_open(h, "snake", N, 1, "widht = 10;", err, sizeof err), "unknown option refused");
    ASSERT_CONTAINS(err, "did you mean 'width'", "with the nearest name");
    OK(!rlh_vec_open(h, "snak", N, 1, NULL, err, sizeof err), "unknown env refused");
    ASSERT_CONTAINS(err, "snake", "naming the nearest env");
    OK(!rlh_vec_open(h, "snake", 0, 1, NULL, err, sizeof err), "0 envs refused");
    OK(!rlh_vec_open(h, "snake", N, 1, "size = ", err, sizeof err), "a syntax error refused");
    ASSERT_CONTAINS(err, "options:", "naming where");

    rlh_vec *v = rlh_vec_open(h, "snake", N, 5,
                              "width = 8; height = 8; observation = \"grid\"; optimizations = { threads = 2; };", err,
                              sizeof err);
    OK(v != NULL, "snake grid vec opens");
    if (!v) return tap_done();
    const rl_env_info *info = rlh_vec_info(v);
    ASSERT_EQ(info->obs_dtype, RL_DTYPE_U8, "grid observations are u8");
    ASSERT_EQ(info->obs_size, info->obs_shape[0] * info->obs_shape[1] * info->obs_shape[2],
              "obs_size is the shape's product");
    ASSERT_EQ(rlh_vec_threads(v), 2, "threads from the options");
    const rlh_buffers *b = rlh_vec_buffers(v);
    rlh_buffers first = *b;
    rlh_vec_reset(v);
    ASSERT_EQ(b->episode_start[0], 1, "reset starts episodes");
    run_steps(v, 300, 1);
    OK(!memcmp(&first, b, sizeof first), "the buffers stay where they are across steps");
    int ended = 0;
    for (uint32_t i = 0; i < N; i++) ended += b->episode_start[i];
    size_t row = info->obs_size;
    unsigned char *after = malloc(N * row);
    memcpy(after, b->obs, N * row);

    /* the same seed from a reseed and from a fresh vec: the same numbers */
    rlh_vec *w = rlh_vec_open(h, "snake", N, 9, "width = 8; height = 8; observation = \"grid\";", err, sizeof err);
    OK(w && rlh_vec_reseed(w, 5, err, sizeof err) == RL_OK, "reseed");
    run_steps(w, 300, 1);
    OK(!memcmp(after, rlh_vec_buffers(w)->obs, N * row), "reseeded to 5 = opened with 5, 2 threads = 1");
    OK(rlh_vec_reseed(v, 5, err, sizeof err) == RL_OK, "reseed the first");
    run_steps(v, 300, 1);
    OK(!memcmp(after, b->obs, N * row), "reseeding replays the same episodes");

    /* caller-owned buffers */
    unsigned char *obs = calloc(N, row);
    float *rew = calloc(N, sizeof *rew);
    int32_t *act = calloc(N, sizeof *act);
    rlh_buffers mine = {.struct_size = sizeof mine, .obs = obs, .rewards = rew, .actions = act};
    OK(rlh_vec_set_buffers(w, &mine, err, sizeof err) == RL_OK, "set caller buffers");
    OK(rlh_vec_buffers(w)->obs == obs && rlh_vec_buffers(w)->rewards == rew && rlh_vec_buffers(w)->actions == act,
       "the vec reports them");
    rlh_vec_reseed(w, 5, err, sizeof err);
    run_steps(w, 300, 1);
    OK(!memcmp(after, obs, N * row), "observations written into the caller's memory");

    rlh_buffers old = {.struct_size = 0, .obs = obs};
    OK(rlh_vec_set_buffers(w, &old, err, sizeof err) == RL_EINVAL, "buffers without struct_size refused");
    ASSERT_CONTAINS(err, "set it to sizeof(rlh_buffers)", "saying the fix");
    float *other = calloc(N, sizeof *other);
    rlh_buffers short_one = {.struct_size = offsetof(rlh_buffers, scores), .obs = obs, .scores = other};
    OK(rlh_vec_set_buffers(w, &short_one, err, sizeof err) == RL_OK && rlh_vec_buffers(w)->scores != other,
       "a member past struct_size is not read");
    free(other);

    act[3] = (int32_t)info->n_actions;
    OK(rlh_vec_step(w, err, sizeof err) == RL_EINVAL, "an action out of range refused");
    ASSERT_CONTAINS(err, "for env 3, outside [0, ", "naming the env");
    rlh_vec_close(w);
    free(obs);
    free(rew);
    free(act);
    free(after);
    rlh_vec_close(v);
    (void)ended;

    /* a box: float actions, refused outside the box or NaN, never clipped for the caller */
    rlh_vec *pv = rlh_vec_open(h, "pendulum", 2, 1, NULL, err, sizeof err);
    OK(pv != NULL, "a pendulum vec opens");
    if (pv) {
        const rl_env_info *pi = rlh_vec_info(pv);
        OK(pi->action_kind == RL_SPACE_BOX && pi->action_dim == 1 && pi->action_high[0] == 2.0f,
           "its info says a box of one torque in [-2, 2]");
        float *pa = rlh_vec_buffers(pv)->actions;
        rlh_vec_reset(pv);
        pa[0] = 1.5f, pa[1] = -2.0f;
        ASSERT_EQ(rlh_vec_step(pv, err, sizeof err), RL_OK, "actions inside the box step");
        pa[1] = 2.5f;
        ASSERT_EQ(rlh_vec_step(pv, err, sizeof err), RL_EINVAL, "an action outside the box is refused");
        ASSERT_CONTAINS(err, "the caller chose 2.5 for dimension 0 of env 1's action, outside the box [-2, 2]",
                        "naming the env, the dimension and the box");
        pa[1] = nextafterf(2.0f, 3.0f); /* 2.0000002: past the box by one float */
        ASSERT_EQ(rlh_vec_step(pv, err, sizeof err), RL_EINVAL, "an action one float past the box is refused");
        ASSERT_CONTAINS(err, "the caller chose 2.00000024 for dimension 0 of env 1's action, outside the box [-2, 2]",
                        "with the digits that show why");
        pa[1] = 0.0f / 0.0f;
        ASSERT_EQ(rlh_vec_step(pv, err, sizeof err), RL_EINVAL, "a NaN action is refused");
        rlh_vec_close(pv);
    }

    /* rlh_run: statuses, not exit codes */
    rlh_run_options ro = {.struct_size = 4};
    ASSERT_EQ(rlh_run(h, "/nonexistent.cfg", &ro, err, sizeof err), RL_EINVAL, "run options without struct_size");
    ASSERT_CONTAINS(err, "sizeof(rlh_run_options)", "saying the fix");
    ASSERT_EQ(rlh_run(h, "/nonexistent.cfg", NULL, err, sizeof err), RL_ECONFIG, "a missing config is RL_ECONFIG");
    const char *bad[] = {"algo.lr=-1"};
    char cfg[512];
    snprintf(cfg, sizeof cfg, "%s/../../configs/cartpole_ppo.cfg", getenv("RLHOST_TEST_DATA"));
    ro = (rlh_run_options){.struct_size = sizeof ro, .overrides = bad, .n_overrides = 1};
    ASSERT_EQ(rlh_run(h, cfg, &ro, err, sizeof err), RL_ECONFIG, "an out-of-range override is RL_ECONFIG");
    ASSERT_CONTAINS(err, "algo.lr=-1: expected a number in [0, 1]", "naming the key");

    OK(!rlh_policy_open(h, "/nonexistent/run", 1, NULL, 0, err, sizeof err), "a missing run refused");
    ASSERT_CONTAINS(err, "/nonexistent/run does not exist", "naming it");
    caller_env(h);
    rlh_close(h);
    return tap_done();
}
