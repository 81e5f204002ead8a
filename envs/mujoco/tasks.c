/* The tasks; see tasks.h.  Arithmetic follows Gymnasium's types: MuJoCo's
   state is float64, the action float32, and under NumPy 2 a Python float
   times a float32 scalar stays float32. */
#include "tasks.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

float mj_np_sum_sq_f32(const float *a, int n)
{
    if (n < 8) {
        float s = 0.0f;
        for (int i = 0; i < n; i++) s += a[i] * a[i];
        return s;
    }
    float r[8];
    for (int j = 0; j < 8; j++) r[j] = a[j] * a[j];
    int i = 8;
    for (; i + 8 <= n; i += 8)
        for (int j = 0; j < 8; j++) r[j] += a[i + j] * a[i + j];
    float s = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));
    for (; i < n; i++) s += a[i] * a[i];
    return s;
}

double mj_np_sum_sq_clip_f64(const double *a, int n, double lo, double hi)
{
#define SQ(i) (a[i] < lo ? lo * lo : a[i] > hi ? hi * hi : a[i] * a[i])
    if (n < 8) {
        double s = 0.0;
        for (int i = 0; i < n; i++) s += SQ(i);
        return s;
    }
    double r[8];
    for (int j = 0; j < 8; j++) r[j] = SQ(j);
    int i = 8;
    for (; i + 8 <= n; i += 8)
        for (int j = 0; j < 8; j++) r[j] += SQ(i + j);
    double s = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));
    for (; i < n; i++) s += SQ(i);
    return s;
#undef SQ
}

static void before_x(const mjModel *m, const mjData *d, mj_task_before *b)
{
    (void)m;
    b->x = d->qpos[0];
}

/* control_cost: self._ctrl_cost_weight * np.sum(np.square(action)), float32 */
static double ctrl_cost(const float *a, int nu, double weight)
{
    return (double)((float)weight * mj_np_sum_sq_f32(a, nu));
}

/* ---- HalfCheetah-v5 ---------------------------------------------------- */

static uint32_t hc_obs_size(const mjModel *m)
{
    return (uint32_t)(m->nq - 1 + m->nv);
}

/* qpos without the x position, then qvel */
static void hc_obs(const mjModel *m, const mjData *d, double *o)
{
    memcpy(o, d->qpos + 1, (size_t)(m->nq - 1) * sizeof *o);
    memcpy(o + m->nq - 1, d->qvel, (size_t)m->nv * sizeof *o);
}

/* forward_reward_weight x_velocity - ctrl_cost; never terminates */
static double hc_reward(const mjModel *m, const mjData *d, const mj_task_before *b, const float *a,
                        const mj_task_weights *w, int *terminated)
{
    double x_velocity = (d->qpos[0] - b->x) / w->dt;
    *terminated = 0;
    return w->forward * x_velocity - ctrl_cost(a, m->nu, w->ctrl);
}

/* ---- Hopper-v5 and Walker2d-v5 --------------------------------------- */

/* qpos without x, then qvel clipped to [-10, 10] (np.clip) */
static void walker_obs(const mjModel *m, const mjData *d, double *o)
{
    memcpy(o, d->qpos + 1, (size_t)(m->nq - 1) * sizeof *o);
    for (int k = 0; k < m->nv; k++) {
        double v = d->qvel[k];
        o[m->nq - 1 + k] = v < -10.0 ? -10.0 : v > 10.0 ? 10.0 : v;
    }
}

/* z and angle strictly inside their ranges; Hopper also every state value
   but x and z (state_vector()[2:]) strictly inside (-100, 100) */
static int walker_healthy(const mjModel *m, const mjData *d, const mj_task_weights *w, int state_range)
{
    double z = d->qpos[1], angle = d->qpos[2];
    int ok = w->z_min < z && z < w->z_max && w->angle_min < angle && angle < w->angle_max;
    for (int k = 2; ok && state_range && k < m->nq; k++) ok = -100.0 < d->qpos[k] && d->qpos[k] < 100.0;
    for (int k = 0; ok && state_range && k < m->nv; k++) ok = -100.0 < d->qvel[k] && d->qvel[k] < 100.0;
    return ok;
}

/* (forward + healthy) - ctrl_cost, terminated when unhealthy */
static double walker_reward(const mjModel *m, const mjData *d, const mj_task_before *b, const float *a,
                            const mj_task_weights *w, int state_range, int *terminated)
{
    double x_velocity = (d->qpos[0] - b->x) / w->dt;
    int healthy = walker_healthy(m, d, w, state_range);
    *terminated = !healthy && w->terminate_when_unhealthy;
    return (w->forward * x_velocity + (healthy ? w->healthy_reward : 0.0)) - ctrl_cost(a, m->nu, w->ctrl);
}

static double hopper_reward(const mjModel *m, const mjData *d, const mj_task_before *b, const float *a,
                            const mj_task_weights *w, int *terminated)
{
    return walker_reward(m, d, b, a, w, 1, terminated);
}

static double walker2d_reward(const mjModel *m, const mjData *d, const mj_task_before *b, const float *a,
                              const mj_task_weights *w, int *terminated)
{
    return walker_reward(m, d, b, a, w, 0, terminated);
}

/* ---- Ant-v5 ----------------------------------------------------------- */

static uint32_t ant_obs_size(const mjModel *m)
{
    return (uint32_t)(m->nq - 2 + m->nv + 6 * (m->nbody - 1));
}

/* qpos without x and y, qvel, then every body's external contact force
   but the world's, clipped to [-1, 1] */
static void ant_obs(const mjModel *m, const mjData *d, double *o)
{
    memcpy(o, d->qpos + 2, (size_t)(m->nq - 2) * sizeof *o);
    memcpy(o + m->nq - 2, d->qvel, (size_t)m->nv * sizeof *o);
    double *c = o + m->nq - 2 + m->nv;
    for (int k = 6; k < 6 * m->nbody; k++) {
        double v = d->cfrc_ext[k];
        c[k - 6] = v < -1.0 ? -1.0 : v > 1.0 ? 1.0 : v;
    }
}

static void before_torso(const mjModel *m, const mjData *d, mj_task_before *b)
{
    (void)m;
    b->x = d->xpos[3 * 1 + 0]; /* body 1, the main body */
}

/* (forward + healthy) - (ctrl_cost + contact_cost); healthy: every state
   value finite and the torso's z within [z_min, z_max] (closed) */
static double ant_reward(const mjModel *m, const mjData *d, const mj_task_before *b, const float *a,
                         const mj_task_weights *w, int *terminated)
{
    double x_velocity = (d->xpos[3 * 1 + 0] - b->x) / w->dt;
    int healthy = 1;
    for (int k = 0; healthy && k < m->nq; k++) healthy = isfinite(d->qpos[k]);
    for (int k = 0; healthy && k < m->nv; k++) healthy = isfinite(d->qvel[k]);
    healthy = healthy && w->z_min <= d->qpos[2] && d->qpos[2] <= w->z_max;
    *terminated = !healthy && w->terminate_when_unhealthy;
    double contact = w->contact * mj_np_sum_sq_clip_f64(d->cfrc_ext, 6 * (int)m->nbody, -1.0, 1.0);
    return (x_velocity * w->forward + (healthy ? w->healthy_reward : 0.0)) - (ctrl_cost(a, m->nu, w->ctrl) + contact);
}

static const mj_task tasks[] = {
    {"half_cheetah", "half_cheetah.xml", 5,        0.1, 0.1, 0, 0, 0, 0, 0, 0, 9, 9, 6, 8, 1, hc_obs_size,
     hc_obs,         before_x,           hc_reward},
    {"hopper", "hopper.xml", 4,          1e-3,     5e-3,         1, 0.7, INFINITY, -0.2, 0.2, 0, 6, 6, 3, 5,
     1,        hc_obs_size,  walker_obs, before_x, hopper_reward},
    {"walker2d", "walker2d_v5.xml", 4,          1e-3,     5e-3,           1, 0.8, 2.0, -1.0, 1.0, 0, 9, 9, 6, 8,
     1,          hc_obs_size,       walker_obs, before_x, walker2d_reward},
    {"ant", "ant.xml", 5,  0.5, 0.1, 0, 0.2,          1.0,     -INFINITY,    INFINITY,
     5e-4,  15,        14, 8,   14,  0, ant_obs_size, ant_obs, before_torso, ant_reward},
};

double mj_task_step(const mj_task *t, const mjModel *m, mjData *d, const float *a, uint32_t frame_skip,
                    const mj_task_weights *w, int *terminated)
{
    mj_task_before before;
    t->before(m, d, &before);
    for (int k = 0; k < m->nu; k++) d->ctrl[k] = (double)a[k];
    for (uint32_t f = 0; f < frame_skip; f++) mj_step(m, d);
    mj_rnePostConstraint(m, d);
    return t->reward(m, d, &before, a, w, terminated);
}

/* The root: slide along x, slide along z, hinge about y (the planar
   walkers and the cheetah), or a free joint (Ant). */
static int root_is(const mjModel *m, int planar)
{
    if (!planar) return m->njnt >= 1 && m->jnt_type[0] == mjJNT_FREE;
    static const int type[3] = {mjJNT_SLIDE, mjJNT_SLIDE, mjJNT_HINGE}, axis[3] = {0, 2, 1};
    for (int j = 0; j < 3; j++)
        if (m->njnt <= j || m->jnt_type[j] != type[j] || m->jnt_axis[3 * j + axis[j]] != 1.0) return 0;
    return 1;
}

static int same_shape(const mj_task *t, const mjModel *m)
{
    return m->nq == t->nq && m->nv == t->nv && m->nu == t->nu && m->nbody == t->nbody && root_is(m, t->planar);
}

int mj_task_fits(const mj_task *t, const mjModel *m, char *why, size_t n)
{
    if (same_shape(t, m)) return 0;
    int k =
        snprintf(why, n, "it has %ld positions, %ld actuators and %ld bodies%s, where %s's model has %d, %d and %d%s",
                 (long)m->nq, (long)m->nu, (long)m->nbody, root_is(m, t->planar) ? "" : " and another root joint",
                 t->name, t->nq, t->nu, t->nbody, t->planar ? " on a slide-slide-hinge root" : " on a free root");
    int found = 0;
    for (size_t i = 0; i < sizeof tasks / sizeof tasks[0]; i++) {
        if (&tasks[i] == t || !same_shape(&tasks[i], m) || k < 0 || (size_t)k >= n) continue;
        k += snprintf(why + k, n - (size_t)k, "%s\"%s\"",
                      found++ ? " or env.task = " : ": the shape of env.task = ", tasks[i].name);
    }
    return -1;
}

const mj_task *mj_task_named(const char *name)
{
    for (size_t i = 0; i < sizeof tasks / sizeof tasks[0]; i++)
        if (!strcmp(tasks[i].name, name)) return &tasks[i];
    return &tasks[0];
}
