/* Pendulum and MountainCarContinuous: trajectories recorded from Gymnasium
   (tests/data/record_classic.py) replayed through classic_rules.c from
   Gymnasium's own start states with its actions: every state, reward,
   terminated flag and float32 observation must match bit for bit, and
   episodes end at Gymnasium's step.  Then the plugin: the box it declares,
   clipping by the host, time limits, and refusals. */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "classic_rules.h"
#include "plugin/loader.h"
#include "../tap.h"
#include "env/vecenv.h"

static FILE *open_data(const char *name)
{
    const char *dir = getenv("RLHOST_TEST_DATA");
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir ? dir : "tests/data", name);
    return fopen(path, "r");
}

/* Replays one file; pendulum = 1 for Pendulum-v1, else MountainCarContinuous. */
static void replay(const char *file, int pendulum, int want_episodes, int limit)
{
    FILE *f = open_data(file);
    OK(f != NULL, "the Gymnasium trajectory is there");
    if (!f) return;
    char line[1024];
    pd_state pd = {0};
    mc_state mc = {0};
    int steps = 0, episodes = 0, in_episode = 0, state_diff = 0, reward_diff = 0, flag_diff = 0, obs_diff = 0;
    int goals = 0, first_bad = -1;
    while (fgets(line, sizeof line, f)) {
        double a0, a1, r;
        float a, o[3];
        int te, tr;
        if (!strncmp(line, "reset", 5) && sscanf(line + 5, "%la %la", &a0, &a1) == 2) {
            pd = (pd_state){a0, a1};
            mc = (mc_state){a0, a1, 1};
            episodes++;
            in_episode = 0;
            continue;
        }
        int n = sscanf(line, "step %a %la %la %la %d %d %a %a %a", &a, &a0, &a1, &r, &te, &tr, &o[0], &o[1], &o[2]);
        if (n != (pendulum ? 9 : 8)) continue;
        int term = 0;
        float obs[3];
        double reward;
        if (pendulum) {
            reward = pd_step(&pd, 10.0, a);
            pd_obs(&pd, obs);
            state_diff += pd.th != a0 || pd.thdot != a1;
        } else {
            reward = mc_step(&mc, 0.0, a, &term);
            mc_obs(&mc, obs);
            state_diff += mc.pos != a0 || mc.vel != a1;
        }
        in_episode++;
        int trunc = in_episode >= limit;
        reward_diff += memcmp(&reward, &r, sizeof r) != 0;
        flag_diff += term != te || trunc != tr;
        obs_diff += memcmp(obs, o, (pendulum ? 3 : 2) * sizeof(float)) != 0;
        goals += te;
        if ((state_diff || reward_diff || obs_diff) && first_bad < 0) first_bad = steps;
        steps++;
    }
    fclose(f);
    printf("# %s: %d steps over %d episodes (%d reach the goal): %d states, %d rewards, %d flags, "
           "%d observations differ (first at %d)\n",
           file, steps, episodes, goals, state_diff, reward_diff, flag_diff, obs_diff, first_bad);
    OK(episodes == want_episodes && steps > 300, "the whole trajectory was read");
    OK(state_diff == 0, "every state matches Gymnasium bit for bit");
    OK(reward_diff == 0, "every float64 reward matches");
    OK(flag_diff == 0, "terminated and truncated match Gymnasium's");
    OK(obs_diff == 0, "every float32 observation matches");
    if (!pendulum) OK(goals > 0, "some episodes reach the goal (terminated, reward 100)");
}

static const rl__plugin *find(rl__registry *reg, const char *name)
{
    for (size_t i = 0; i < reg->n_plugins; i++)
        if (!strcmp(reg->plugins[i].desc->name, name)) return &reg->plugins[i];
    return NULL;
}

static void plugin_checks(void)
{
    rl__registry reg = {0};
    rl__registry_discover(&reg, NULL, 0); /* the build tree's plugins */
    const rl__plugin *p = find(&reg, "pendulum");
    OK(p != NULL, "the pendulum plugin is found");
    if (!p) {
        rl__registry_destroy(&reg);
        return;
    }
    char err[RL_ERR_MAX] = "";
    rl_value opts[2] = {{.f = 10.0}, {.i = 5}};
    rl__vecenv v;
    ASSERT_EQ(rl__vecenv_create(&v, p->desc, opts, NULL, 3, 1, 1, 1, err, sizeof err), RL_OK, "pendulum creates");
    ASSERT_EQ(v.space.kind, RL_SPACE_BOX, "a box action space");
    ASSERT_EQ(v.space.dim, 1, "of one torque");
    OK(v.space.low[0] == -2.0f && v.space.high[0] == 2.0f, "in [-2, 2]");
    OK(v.info.obs_low && v.info.obs_high && v.info.obs_high[2] == 8.0f, "observation bounds declared");
    rl__vecenv_reset(&v);
    float *act = v.actions;
    act[0] = 50.0f, act[1] = -50.0f, act[2] = 0.5f;
    ASSERT_EQ(rl__vecenv_step(&v, err, sizeof err), RL_OK, "steps");
    const float *env_act = v.env_actions;
    OK(env_act[0] == 2.0f && env_act[1] == -2.0f && env_act[2] == 0.5f,
       "the host clips actions into the box for the env");
    OK(act[0] == 50.0f, "and leaves the algorithm's own values as they were");
    for (int k = 0; k < 3; k++) rl__vecenv_step(&v, err, sizeof err);
    int trunc5 = 0;
    rl__vecenv_step(&v, err, sizeof err);
    trunc5 = v.truncated[0] && v.truncated[1] && v.truncated[2] && !v.terminated[0];
    OK(trunc5, "max_steps = 5 truncates on the fifth step");
    act[1] = NAN;
    ASSERT_EQ(rl__vecenv_step(&v, err, sizeof err), RL_ENONFINITE, "a NaN action is refused");
    ASSERT_CONTAINS(err, "algo chose a NaN action for env 1", "naming the env");
    rl__vecenv_destroy(&v);
    rl__registry_destroy(&reg);
}

/* What the host refuses in an env's box declaration, each with its sentence. */
static void bad_boxes(void)
{
    char err[RL_ERR_MAX];
    float lo[2] = {-1, 2}, hi[2] = {1, 1}, inf[1] = {INFINITY};
    rl_env_info info = {.struct_size = sizeof info, .obs_size = 1};
    rl__space s;
    rl_env_info_set_box(&info, 2, lo, hi);
    ASSERT_EQ(rl__space_from_info(&s, &info, "boxy", err, sizeof err), RL_EINVAL, "low > high refused");
    ASSERT_CONTAINS(err, "env 'boxy' reported an action box with dimension 1 in [2, 1]", "naming the dimension");
    rl_env_info_set_box(&info, 1, lo, inf);
    ASSERT_EQ(rl__space_from_info(&s, &info, "boxy", err, sizeof err), RL_EINVAL, "an infinite bound refused");
    ASSERT_CONTAINS(err, "bounds must be finite", "saying why");
    rl_env_info_set_box(&info, 0, lo, hi);
    ASSERT_EQ(rl__space_from_info(&s, &info, "boxy", err, sizeof err), RL_EINVAL, "a box of no dimension refused");
    rl_env_info_set_box(&info, 1, NULL, NULL);
    ASSERT_EQ(rl__space_from_info(&s, &info, "boxy", err, sizeof err), RL_EINVAL, "a box without bounds refused");
    info.action_kind = 7;
    ASSERT_EQ(rl__space_from_info(&s, &info, "boxy", err, sizeof err), RL_EINVAL, "an unknown kind refused");
    rl_env_info old = {.struct_size = offsetof(rl_env_info, agents), .n_actions = 3};
    ASSERT_EQ(rl__space_from_info(&s, &old, "old", err, sizeof err), RL_OK, "an ABI 1.0 env's info is discrete");
    ASSERT_EQ(s.kind, RL_SPACE_DISCRETE, "with its n_actions");
}

int main(void)
{
    bad_boxes();
    replay("gymnasium_pendulum_v1.txt", 1, 3, PD_STEPS);
    replay("gymnasium_mountain_car_continuous_v0.txt", 0, 4, MC_STEPS);
    OK(pd_angle_normalize(3 * 3.14159265358979323846) < 3.1416 && pd_angle_normalize(-0.5) == -0.5,
       "angles normalize into [-pi, pi)");
    plugin_checks();
    return tap_done();
}
