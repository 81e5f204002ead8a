/* mujoco_bare MODEL.xml FRAME_SKIP NUM_ENVS STEPS: the floor under the
 * mujoco env's speed (docs/performance.md, MuJoCo).
 *
 * Steps NUM_ENVS copies of the model on one thread as plainly as MuJoCo can
 * be stepped: per env step, the controls, mj_step FRAME_SKIP times, then
 * mj_rnePostConstraint (every Gymnasium v5 step calls it), and a reset
 * (mj_resetData, mj_forward) every 1000 steps.  No observation, reward or
 * termination.  Prints env steps per second.
 *
 * The controls are the table `rlhost bench env` draws (64 sets of NUM_ENVS
 * uniform actions from rl_rng stream (1, 0), set k % 64 at step k), so with
 * `--set env.reset_noise_scale=0 --set env.terminate_when_unhealthy=false`
 * rlhost steps the same states bit for bit, and the difference in time is
 * rlhost's per-step cost alone: a contact-heavy state costs MuJoCo more, so
 * two different trajectories would not compare. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <mujoco/mujoco.h>
#include <rlhost/rlcore.h>

#define ACTION_TABLES 64

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
    float *table = malloc((size_t)ACTION_TABLES * n * m->nu * sizeof *table);
    if (!d || !t || !table) return 1;
    rl_rng rng; /* as rlhost bench env draws them; the env's box is the ctrlrange */
    rl_rng_seed(&rng, 1, 0);
    for (size_t i = 0; i < (size_t)ACTION_TABLES * n; i++)
        for (int a = 0; a < m->nu; a++) {
            float lo = (float)m->actuator_ctrlrange[2 * a], hi = (float)m->actuator_ctrlrange[2 * a + 1];
            table[i * m->nu + a] = lo + (hi - lo) * rl_rng_uniform(&rng);
        }
    for (int i = 0; i < n; i++) {
        d[i] = mj_makeData(m);
        if (!d[i]) return 1;
        mj_forward(m, d[i]);
    }
    long long iters = steps / n + 1;
    double t0 = rl_now();
    for (long long k = 0; k < iters; k++)
        for (int i = 0; i < n; i++) {
            const float *act = table + ((size_t)(k % ACTION_TABLES) * n + i) * m->nu;
            for (int a = 0; a < m->nu; a++) d[i]->ctrl[a] = (double)act[a];
            for (int f = 0; f < frame_skip; f++) mj_step(m, d[i]);
            mj_rnePostConstraint(m, d[i]);
            if (++t[i] == 1000) {
                t[i] = 0;
                mj_resetData(m, d[i]);
                mj_forward(m, d[i]);
            }
        }
    double sps = (double)(iters * n) / (rl_now() - t0);
    printf("%.1f\n", sps);
    for (int i = 0; i < n; i++) mj_deleteData(d[i]);
    mj_deleteModel(m);
    free(d);
    free(t);
    free(table);
    return 0;
}
