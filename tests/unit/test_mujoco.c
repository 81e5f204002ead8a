/* The mujoco env's tasks against Gymnasium: a recording of Gymnasium's own
   HalfCheetah-v5 (tests/data/record_mujoco.py says how it was made) is
   replayed from each episode's recorded initial state with the recorded
   actions; every reward, x position, termination and observation (by a
   hash of its float64 bytes) must match bit for bit.
   Usage: test_mujoco MODEL_DIR DATA_DIR */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mujoco/mujoco.h>

#include "../tap.h"
#include "tasks.h"

static uint64_t fnv1a(const void *p, size_t n)
{
    const unsigned char *b = p;
    uint64_t h = 0xcbf29ce484222325ull;
    for (size_t i = 0; i < n; i++) h = (h ^ b[i]) * 0x100000001b3ull;
    return h;
}

static uint64_t obs_hash(const mj_task *t, const mjModel *m, const mjData *d)
{
    double o[512];
    t->obs(m, d, o);
    return fnv1a(o, t->obs_size(m) * sizeof *o);
}

static void replay(const char *model_dir, const char *data_dir, const char *task, const char *file)
{
    char path[4096], err[1000] = "";
    snprintf(path, sizeof path, "%s/%s", model_dir, mj_task_named(task)->xml);
    const mj_task *t = mj_task_named(task);
    mjModel *m = mj_loadXML(path, NULL, err, sizeof err);
    OK(m != NULL, "Gymnasium's model loads");
    if (!m) {
        printf("#   %s\n", err);
        return;
    }
    mjData *d = mj_makeData(m);
    snprintf(path, sizeof path, "%s/%s", data_dir, file);
    FILE *f = fopen(path, "r");
    OK(f != NULL, "the recording opens");
    if (!f) return;
    static char line[1 << 16];
    int episodes = 0, steps = 0, ends = 0, reward_diff = 0, x_diff = 0, obs_diff = 0, flag_diff = 0, first_bad = -1;
    mj_task_weights w = {1.0,          t->ctrl_cost_weight, m->opt.timestep * t->frame_skip, 1.0, 1, t->z_min, t->z_max,
                         t->angle_min, t->angle_max,        t->contact_cost_weight};
    while (fgets(line, sizeof line, f)) {
        char *s = line, *end;
        if (!strncmp(line, "reset ", 6)) {
            mj_resetData(m, d);
            s += 6;
            for (int k = 0; k < m->nq; k++, s = end) d->qpos[k] = strtod(s, &end);
            s = strchr(s, '|');
            if (s) s++;
            for (int k = 0; s && k < m->nv; k++, s = end) d->qvel[k] = strtod(s, &end);
            mj_forward(m, d);
            episodes++;
            continue;
        }
        if (!strncmp(line, "obs ", 4)) {
            obs_diff += strtoull(line + 4, NULL, 16) != obs_hash(t, m, d);
            continue;
        }
        if (strncmp(line, "step ", 5)) continue;
        s += 5;
        float a[64];
        for (int k = 0; k < m->nu; k++, s = end) a[k] = strtof(s, &end);
        double want_r = strtod(s, &end);
        s = end;
        int want_term = (int)strtol(s, &end, 10);
        s = end;
        (void)strtol(s, &end, 10); /* truncated: the time limit, 1000 steps, beyond the recording */
        s = end;
        double want_x = strtod(s, &end);
        s = end;
        uint64_t want_h = strtoull(s, &end, 16);
        int term = 0;
        double r = mj_task_step(t, m, d, a, t->frame_skip, &w, &term);
        reward_diff += memcmp(&r, &want_r, sizeof r) != 0;
        x_diff += memcmp(&d->qpos[0], &want_x, sizeof want_x) != 0;
        flag_diff += term != want_term;
        ends += want_term;
        obs_diff += obs_hash(t, m, d) != want_h;
        if ((reward_diff || x_diff || obs_diff || flag_diff) && first_bad < 0) first_bad = steps;
        steps++;
    }
    fclose(f);
    printf("# %s: %d steps over %d episodes (%d terminated): %d rewards, %d x positions, %d observations, "
           "%d flags differ (first at %d)\n",
           file, steps, episodes, ends, reward_diff, x_diff, obs_diff, flag_diff, first_bad);
    OK(episodes >= 2 && steps >= 100, "the whole recording was read");
    if (t->z_min != 0) OK(ends > 0, "some episodes end unhealthy (terminated)");
    OK(reward_diff == 0, "every float64 reward matches Gymnasium's");
    OK(x_diff == 0, "every x position matches");
    OK(obs_diff == 0, "every float64 observation matches (hash of its bytes)");
    OK(flag_diff == 0, "terminated matches");
    mj_deleteData(d);
    mj_deleteModel(m);
}

static void quiet(const char *msg)
{
    (void)msg;
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: test_mujoco MODEL_DIR DATA_DIR\n");
        return 2;
    }
    mju_user_warning = quiet; /* not stdout and MUJOCO_LOG.TXT */
    OK(mj_version() == mjVERSION_HEADER, "the MuJoCo library is the one the headers are from");
    replay(argv[1], argv[2], "half_cheetah", "gymnasium_half_cheetah_v5.txt");
    replay(argv[1], argv[2], "hopper", "gymnasium_hopper_v5.txt");
    replay(argv[1], argv[2], "walker2d", "gymnasium_walker2d_v5.txt");
    replay(argv[1], argv[2], "ant", "gymnasium_ant_v5.txt");
    return tap_done();
}
