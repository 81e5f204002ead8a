/* Gymnasium's v5 MuJoCo tasks as data and functions: frame skip, default
   weights, observation layout, reward and termination, each read from
   gymnasium/envs/mujoco/<task>_v5.py. */
#ifndef RLHOST_MUJOCO_TASKS_H
#define RLHOST_MUJOCO_TASKS_H

#include <stddef.h>
#include <stdint.h>

#include <mujoco/mujoco.h>

typedef struct mj_task_before {
    double x; /* qpos[0] before the step (Ant: the torso's x) */
} mj_task_before;

typedef struct mj_task_weights {
    double forward, ctrl, dt; /* dt: timestep x frame_skip, Gymnasium's self.dt */
    /* the walkers' (Hopper, Walker2d): the reward for staying healthy, whether
       leaving health ends the episode, and the healthy ranges (open) */
    double healthy_reward;
    int terminate_when_unhealthy;
    double z_min, z_max, angle_min, angle_max;
    double contact; /* Ant: weight of the clipped external contact forces' squares */
} mj_task_weights;

typedef struct mj_task {
    const char *name, *xml;
    uint32_t frame_skip;
    double ctrl_cost_weight, reset_noise_scale;
    int qvel_noise_uniform;                    /* reset: qvel + uniform(-s, s), else + s N(0, 1) */
    double z_min, z_max, angle_min, angle_max; /* the walkers' healthy ranges */
    double contact_cost_weight;                /* Ant */
    /* the shape of the task's Gymnasium model, which its observation and
       reward read: positions, velocities, actuators, bodies, and a root of
       slide x, slide z, hinge y (planar) or one free joint */
    int nq, nv, nu, nbody, planar;
    uint32_t (*obs_size)(const mjModel *m);
    /* the observation in float64, as Gymnasium's */
    void (*obs)(const mjModel *m, const mjData *d, double *o);
    void (*before)(const mjModel *m, const mjData *d, mj_task_before *b);
    /* the step's reward (float64) and termination; a: the float32 action */
    double (*reward)(const mjModel *m, const mjData *d, const mj_task_before *b, const float *a,
                     const mj_task_weights *w, int *terminated);
} mj_task;

/* One env step as Gymnasium's MujocoEnv takes it: ctrl = the action,
   mj_step frame_skip times, mj_rnePostConstraint, then the task's reward
   (float64) and termination.  A MuJoCo error leaves through mju_user_error. */
double mj_task_step(const mj_task *t, const mjModel *m, mjData *d, const float *a, uint32_t frame_skip,
                    const mj_task_weights *w, int *terminated);

/* 0 when m has the task's shape (mj_task.nq ... planar: a model of the
   same robot, its sizes, masses or gears as they may be), else -1 with
   why in why[0..n), naming the task whose shape it has, if any. */
int mj_task_fits(const mj_task *t, const mjModel *m, char *why, size_t n);

/* The task of that name (the option's enum guarantees one), else the first. */
const mj_task *mj_task_named(const char *name);

/* NumPy's float32 np.sum(np.square(a)): pairwise with 8 partial sums from
   8 elements on, sequential below. */
float mj_np_sum_sq_f32(const float *a, int n);
/* The same in float64, of each value clipped to [lo, hi] first. */
double mj_np_sum_sq_clip_f64(const double *a, int n, double lo, double hi);

#endif
