/* mujoco_bare MODEL.xml FRAME_SKIP NUM_ENVS STEPS: the floor under the
 * mujoco env's speed (docs/performance.md, MuJoCo).
 *
 * Steps NUM_ENVS copies of the model on one thread as plainly as MuJoCo can
 * be stepped: per env step, uniform random controls in the actuators'
 * ctrlrange, mj_step FRAME_SKIP times, then mj_rnePostConstraint (every
 * Gymnasium v5 step calls it), and a reset (mj_resetData, mj_forward) every
 * 1000 steps.  No observation, reward or termination.  Prints env steps per
 * second; `rlhost bench env mujoco` on the same task and env count is the
 * other side, and what it spends beyond this is rlhost's per-step cost. */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include <mujoco/mujoco.h>

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* splitmix64: the controls only need to be spread over the range */
static double uniform(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return (double)((z ^ (z >> 31)) >> 11) * (1.0 / 9007199254740992.0);
}

/* the deprecation notes Gymnasium's models draw; the env sends them to the log */
static void quiet(const char *msg)
{
    (void)msg;
}

int main(int argc, char **argv)
{
    if (argc != 5) {
        fprintf(stderr, "usage: mujoco_bare MODEL.xml FRAME_SKIP NUM_ENVS STEPS\n");
        return 2;
    }
    int frame_skip = atoi(argv[2]), n = atoi(argv[3]);
    long long steps = atoll(argv[4]);
    if (frame_skip < 1 || n < 1 || steps < 1) {
        fprintf(stderr, "mujoco_bare: FRAME_SKIP, NUM_ENVS and STEPS must be positive\n");
        return 2;
    }
    char err[1000];
    mju_user_warning = quiet;
    mjModel *m = mj_loadXML(argv[1], NULL, err, sizeof err);
    if (!m) {
        fprintf(stderr, "mujoco_bare: %s: %s\n", argv[1], err);
        return 1;
    }
    mjData **d = calloc((size_t)n, sizeof *d);
    int *t = calloc((size_t)n, sizeof *t);
    if (!d || !t) return 1;
    for (int i = 0; i < n; i++) {
        d[i] = mj_makeData(m);
        if (!d[i]) return 1;
        mj_forward(m, d[i]);
    }
    uint64_t rng = 1;
    long long iters = steps / n + 1;
    double t0 = now();
    for (long long k = 0; k < iters; k++)
        for (int i = 0; i < n; i++) {
            for (int a = 0; a < m->nu; a++) {
                double lo = m->actuator_ctrlrange[2 * a], hi = m->actuator_ctrlrange[2 * a + 1];
                d[i]->ctrl[a] = lo + (hi - lo) * uniform(&rng);
            }
            for (int f = 0; f < frame_skip; f++) mj_step(m, d[i]);
            mj_rnePostConstraint(m, d[i]);
            if (++t[i] == 1000) {
                t[i] = 0;
                mj_resetData(m, d[i]);
                mj_forward(m, d[i]);
            }
        }
    double sps = (double)(iters * n) / (now() - t0);
    printf("%.1f\n", sps);
    for (int i = 0; i < n; i++) mj_deleteData(d[i]);
    mj_deleteModel(m);
    free(d);
    free(t);
    return 0;
}
