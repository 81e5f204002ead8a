/* CartPole: the rules against values computed independently from the
   published equations (Barto, Sutton & Anderson 1983, in the form of
   Florian 2007: x'' = (F + m l (θ'² sinθ − θ'' cosθ)) / M), written here in
   long double; plus the plugin's buffers, autoreset and observation modes. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cartpole.h"
#include "plugin/loader.h"
#include "../tap.h"
#include "env/vecenv.h"

typedef struct ref_state {
    long double x, xd, th, thd;
} ref_state;

static void ref_step(ref_state *s, int action)
{
    const long double g = 9.8L, mc = 1.0L, m = 0.1L, l = 0.5L, tau = 0.02L;
    long double F = action ? 10.0L : -10.0L, M = mc + m;
    long double c = cosl(s->th), sn = sinl(s->th);
    long double thdd = (g * sn + c * ((-F - m * l * s->thd * s->thd * sn) / M)) / (l * (4.0L / 3.0L - m * c * c / M));
    long double xdd = (F + m * l * (s->thd * s->thd * sn - thdd * c)) / M;
    s->x += tau * s->xd;
    s->xd += tau * xdd;
    s->th += tau * s->thd;
    s->thd += tau * thdd;
}

/* Replays trajectories recorded from Gymnasium's CartPole-v1 (from its
   states, with its actions): every state after every step must match bit
   for bit, and so must the flags and the float32 observation. */
static void gymnasium_replay(void)
{
    const char *dir = getenv("RLHOST_TEST_DATA");
    char path[4096], line[1024];
    snprintf(path, sizeof path, "%s/gymnasium_cartpole_v1.txt", dir ? dir : "tests/data");
    FILE *f = fopen(path, "r");
    OK(f != NULL, "the Gymnasium trajectory is there");
    if (!f) return;
    cp_state s = {0};
    int steps = 0, episodes = 0, state_diff = 0, flag_diff = 0, obs_diff = 0, first_bad = -1;
    while (fgets(line, sizeof line, f)) {
        double v[4];
        float o[4];
        int a, te, tr;
        if (!strncmp(line, "reset", 5) && sscanf(line + 5, "%la %la %la %la", &v[0], &v[1], &v[2], &v[3]) == 4) {
            s = (cp_state){v[0], v[1], v[2], v[3], 0};
            episodes++;
        } else if (sscanf(line, "step %d %la %la %la %la %d %d %a %a %a %a", &a, &v[0], &v[1], &v[2], &v[3], &te, &tr,
                          &o[0], &o[1], &o[2], &o[3]) == 11) {
            int term, trunc;
            cp_step(&s, a, &term, &trunc);
            float obs[4] = {(float)s.x, (float)s.x_dot, (float)s.theta, (float)s.theta_dot};
            int bad = s.x != v[0] || s.x_dot != v[1] || s.theta != v[2] || s.theta_dot != v[3];
            state_diff += bad;
            flag_diff += term != te || trunc != tr;
            obs_diff += memcmp(obs, o, sizeof obs) != 0;
            if (bad && first_bad < 0) first_bad = steps;
            steps++;
        }
    }
    fclose(f);
    printf("# %d Gymnasium steps over %d episodes: %d states, %d flags, %d observations differ (first at %d)\n", steps,
           episodes, state_diff, flag_diff, obs_diff, first_bad);
    OK(steps > 1000 && episodes == 3, "the whole trajectory was read");
    OK(state_diff == 0, "every state matches Gymnasium bit for bit");
    OK(flag_diff == 0, "terminated and truncated match Gymnasium's");
    OK(obs_diff == 0, "every float32 observation matches");
}

int main(void)
{
    gymnasium_replay();
    /* Gymnasium's flag rule when the pole falls on step 500: both flags. */
    {
        cp_state s = {0.0, 0.0, 0.2094, 1.0, 499};
        int term, trunc;
        cp_step(&s, 1, &term, &trunc);
        OK(term && trunc, "falling on step 500 is terminated and truncated, as in Gymnasium");
    }
    /* Hand-computed first step from rest, pushing right:
       temp = 10/1.1, θ'' = -temp / (0.5 (4/3 - 0.1/1.1)) = -14.634146...,
       x'' = temp - 0.05 θ'' / 1.1 = 9.756097...; after one Euler step
       x = 0, x' = 0.19512195, θ = 0, θ' = -0.29268293. */
    cp_state s = {0};
    int term, trunc;
    float r = cp_step(&s, 1, &term, &trunc);
    ASSERT_NEAR(r, 1.0, 0, "reward +1 per step");
    ASSERT_NEAR(s.x, 0.0, 1e-15, "x after one step from rest");
    ASSERT_NEAR(s.x_dot, 0.19512195121951, 1e-12, "x_dot by hand");
    ASSERT_NEAR(s.theta, 0.0, 1e-15, "theta after one step from rest");
    ASSERT_NEAR(s.theta_dot, -0.29268292682927, 1e-12, "theta_dot by hand");

    /* A fixed action sequence from a fixed start against the reference. */
    cp_state a = {0.01, -0.02, 0.03, 0.04, 0};
    ref_state b = {0.01L, -0.02L, 0.03L, 0.04L};
    static const int seq[] = {1, 0, 0, 1, 1, 1, 0, 1, 0, 0, 0, 1, 1, 0, 1, 0, 1, 1, 0, 0};
    double max_err = 0;
    int steps = 0;
    for (int k = 0; k < 20; k++) {
        cp_step(&a, seq[k], &term, &trunc);
        ref_step(&b, seq[k]);
        steps++;
        double e[4] = {fabs(a.x - (double)b.x), fabs(a.x_dot - (double)b.xd), fabs(a.theta - (double)b.th),
                       fabs(a.theta_dot - (double)b.thd)};
        for (int j = 0; j < 4; j++)
            if (e[j] > max_err) max_err = e[j];
        if (term) break;
    }
    ASSERT_EQ(steps, 20, "fixed sequence survives 20 steps");
    OK(max_err < 1e-12, "20 steps match the independent equations within 1e-12");
    if (max_err >= 1e-12) printf("#   max error %g\n", max_err);

    /* Termination: keep pushing right until the pole falls (|θ| > 12°). */
    cp_state f = {0};
    ref_state fr = {0};
    int n = 0;
    do {
        cp_step(&f, 1, &term, &trunc);
        ref_step(&fr, 1);
        n++;
    } while (!term && n < 100);
    OK(term && !trunc, "pushing one way terminates");
    OK(fabsl(fr.th) > 12.0L * 3.14159265358979323846L / 180.0L || fabsl(fr.x) > 2.4L,
       "reference agrees the episode is over");
    ASSERT_NEAR(f.theta, (double)fr.th, 1e-12, "theta at termination");
    printf("# pole fell after %d steps\n", n);

    /* Truncation: a simple balancing controller reaches 500 steps. */
    cp_state t = {0};
    for (n = 1; n <= 500; n++) {
        cp_step(&t, t.theta + 0.5 * t.theta_dot > 0, &term, &trunc);
        if (term || trunc) break;
    }
    ASSERT_EQ(n, 500, "balanced episode lasts exactly 500 steps");
    OK(trunc && !term, "step 500 truncates, not terminates");

    /* Reset range. */
    rl_rng rng;
    rl_rng_seed(&rng, 1, 0);
    int in_range = 1;
    for (int k = 0; k < 1000; k++) {
        cp_reset(&t, &rng);
        in_range &= fabs(t.x) <= 0.05 && fabs(t.x_dot) <= 0.05 && fabs(t.theta) <= 0.05 && fabs(t.theta_dot) <= 0.05 &&
            t.steps == 0;
    }
    OK(in_range, "reset state uniform in [-0.05, 0.05]");

    /* The plugin through the host's driver. */
    const char *so = getenv("RLHOST_CARTPOLE_SO");
    if (!so) return tap_done();
    rl__registry reg = {0};
    char err[RL_ERR_MAX];
    ASSERT_EQ(rl__registry_load_file(&reg, so, err, sizeof err), RL_OK, "cartpole.so loads");
    const rl__plugin *p = rl__registry_find(&reg, RL_KIND_ENV, "cartpole", "env.plugin", err, sizeof err);
    if (!OK(p, "cartpole found")) return tap_done();
    for (int vel = 1; vel >= 0; vel--) {
        rl_value opt = {sizeof opt, RL_OPT_BOOL, 0, vel, 0, NULL, 0, NULL, NULL};
        rl__vecenv v;
        ASSERT_EQ(rl__vecenv_create(&v, p->desc, &opt, NULL, 3, 42, 1, 1, err, sizeof err), RL_OK, "create 3 envs");
        ASSERT_EQ(v.info.obs_size, vel ? 4 : 2, vel ? "4 observations with velocity" : "2 without");
        rl__vecenv_reset(&v);
        const float *o = v.io.obs;
        int ok = 1;
        for (int i = 0; i < 3; i++) ok &= fabsf(o[i * v.info.obs_size]) <= 0.05f;
        OK(ok, "reset observations in range");
        /* Push env 0 right until done; env 1 and 2 alternate. */
        int done_at = -1;
        for (int k = 1; k <= 100 && done_at < 0; k++) {
            ((int32_t *)v.actions)[0] = 1;
            ((int32_t *)v.actions)[1] = k & 1;
            ((int32_t *)v.actions)[2] = (k + 1) & 1;
            rl__vecenv_step(&v, err, sizeof err);
            if (v.terminated[0]) done_at = k;
        }
        OK(done_at > 0, "env 0 terminates");
        const float *fo = v.io.final_obs;
        float angle = vel ? fo[2] : fo[1];
        OK(fabsf(angle) > 0.2094f || fabsf(fo[0]) > 2.4f, "final_obs holds the terminal state");
        const float *no = v.io.obs;
        OK(fabsf(no[0]) <= 0.05f && fabsf(vel ? no[2] : no[1]) <= 0.05f, "obs holds the reset state");
        ASSERT_EQ(v.done_length[0], done_at, "episode length tracked");
        ASSERT_NEAR(v.done_return[0], done_at, 0, "episode return = length");
        OK(v.episode_start[0], "next obs starts an episode");
        rl__vecenv_destroy(&v);
    }
    /* Range contract: a step of [1, 2) writes only env 1. */
    {
        rl_value opt = {sizeof opt, RL_OPT_BOOL, 0, 1, 0, NULL, 0, NULL, NULL};
        const rl_env_vtable *vt = p->desc->vtable;
        void *env;
        rl_env_info info = {.struct_size = sizeof info, .obs_scale = 1};
        rl_env_args args = {sizeof args, 3, 7, &opt, NULL, NULL};
        ASSERT_EQ(vt->create(&args, &env, &info, err, sizeof err), RL_OK, "direct create");
        float obs[12], fin[12], rew[3], sc[3];
        int32_t act[3] = {1, 1, 1};
        uint8_t te[3], tr[3];
        for (int i = 0; i < 12; i++) obs[i] = fin[i] = -99.0f;
        for (int i = 0; i < 3; i++) rew[i] = sc[i] = -99.0f, te[i] = tr[i] = 7;
        rl_env_io io = {sizeof io, obs, act, rew, te, tr, fin, sc, NULL, NULL, NULL, NULL};
        vt->reset(env, &io, 1, 1);
        vt->step(env, &io, 1, 1);
        OK(obs[0] == -99.0f && obs[8] == -99.0f && obs[4] != -99.0f, "only env 1's obs written");
        OK(rew[0] == -99.0f && rew[2] == -99.0f && rew[1] == 1.0f, "only env 1's reward written");
        OK(te[0] == 7 && te[2] == 7 && tr[0] == 7 && tr[2] == 7, "only env 1's flags written");
        vt->destroy(env);
    }
    rl__registry_destroy(&reg);
    return tap_done();
}
