/* MuJoCo env plugin: Gymnasium's v5 locomotion tasks on the MuJoCo C
   library, with no Python in the loop.  One model, one mjData per env.
   A step is Gymnasium's MujocoEnv.do_simulation: ctrl = the action (inside
   the actuators' ctrlrange: the host clips to the box), mj_step frame_skip
   times, then mj_rnePostConstraint; the task's reward and termination
   follow, read from the v5 task files of gymnasium/envs/mujoco (tasks.c).  A MuJoCo
   error (mju_error) becomes the step's sentence through rl.env.status/1,
   never an abort. */
#define _GNU_SOURCE /* dladdr */
#include <dlfcn.h>
#include <math.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <mujoco/mujoco.h>
#include <rlhost/plugin.h>
#include <rlhost/rlcore.h>
#include <rlhost/text.h>

#include "model_files.h"
#include "tasks.h"

enum {
    OPT_TASK,
    OPT_MODEL_PATH,
    OPT_FRAME_SKIP,
    OPT_FORWARD_W,
    OPT_CTRL_W,
    OPT_NOISE,
    OPT_MAX_STEPS,
    OPT_HEALTHY_REWARD,
    OPT_TERMINATE,
    OPT_Z_MIN,
    OPT_Z_MAX,
    OPT_ANGLE_MIN,
    OPT_ANGLE_MAX,
    OPT_CONTACT_W,
    N_OPTS
};

static const char *const task_names[] = {"half_cheetah", "hopper", "walker2d", "ant", NULL};

static const rl_option_def options[N_OPTS] = {
    [OPT_TASK] = RL_OPTION_ENUM("task", "half_cheetah", task_names,
                                "the Gymnasium v5 task (HalfCheetah, "
                                "Hopper, Walker2d, Ant): its model, reward and termination"),
    [OPT_MODEL_PATH] = RL_OPTION_STRING("model_path", "\"\"",
                                        "an MJCF file of your own for the task (\"\": "
                                        "Gymnasium's, installed beside the plugin)"),
    [OPT_FRAME_SKIP] = RL_OPTION_INT_F("frame_skip", "\"auto\"", 1, 1000, RL_OPT_AUTO,
                                       "mj_step calls per env step; auto = the task's (half_cheetah and ant "
                                       "5, hopper and walker2d 4)"),
    [OPT_FORWARD_W] = RL_OPTION_FLOAT("forward_reward_weight", "1.0", 0, 1e6, "weight of the forward velocity"),
    [OPT_CTRL_W] = RL_OPTION_FLOAT_F("ctrl_cost_weight", "\"auto\"", 0, 1e6, RL_OPT_AUTO,
                                     "weight of the sum of squared actions; auto = the task's (half_cheetah 0.1, "
                                     "hopper and walker2d 1e-3, ant 0.5)"),
    [OPT_NOISE] = RL_OPTION_FLOAT_F("reset_noise_scale", "\"auto\"", 0, 10, RL_OPT_AUTO,
                                    "scale of the reset noise; auto = the task's (half_cheetah and ant 0.1, "
                                    "hopper and walker2d 5e-3)"),
    [OPT_MAX_STEPS] = RL_OPTION_INT("max_steps", "1000", 1, 1e9, "truncate episodes at this many steps"),
    [OPT_HEALTHY_REWARD] = RL_OPTION_FLOAT("healthy_reward", "1.0", -1e6, 1e6,
                                           "hopper, walker2d, ant: reward for each step in the healthy ranges"),
    [OPT_TERMINATE] = RL_OPTION_BOOL("terminate_when_unhealthy", "true",
                                     "hopper, walker2d, ant: leaving the healthy ranges ends the episode"),
    [OPT_Z_MIN] = RL_OPTION_FLOAT_F("healthy_z_min", "\"auto\"", -1e6, 1e6, RL_OPT_AUTO,
                                    "hopper, walker2d, ant: healthy torso height above this (ant: from it); "
                                    "auto: 0.7, 0.8, 0.2"),
    [OPT_Z_MAX] = RL_OPTION_FLOAT_F("healthy_z_max", "\"auto\"", -1e6, 1e6, RL_OPT_AUTO,
                                    "hopper, walker2d, ant: and below this (ant: up to it); auto: none, 2.0, 1.0"),
    [OPT_ANGLE_MIN] = RL_OPTION_FLOAT_F("healthy_angle_min", "\"auto\"", -1e6, 1e6, RL_OPT_AUTO,
                                        "hopper, walker2d: healthy torso angle above this; auto: -0.2, -1"),
    [OPT_ANGLE_MAX] = RL_OPTION_FLOAT_F("healthy_angle_max", "\"auto\"", -1e6, 1e6, RL_OPT_AUTO,
                                        "hopper, walker2d: and below this; auto: 0.2, 1"),
    [OPT_CONTACT_W] = RL_OPTION_FLOAT_F("contact_cost_weight", "\"auto\"", 0, 1e6, RL_OPT_AUTO,
                                        "ant: weight of the squared external contact forces (clipped to [-1, 1]); "
                                        "auto: 5e-4"),
};

/* MuJoCo reports errors through a process-wide hook: it jumps back into
   the call that failed, on the thread that made it. */
static _Thread_local jmp_buf *g_jump;
static _Thread_local char g_why[200];

static void on_mj_error(const char *msg)
{
    snprintf(g_why, sizeof g_why, "MuJoCo: %s", msg);
    if (g_jump) longjmp(*g_jump, 1);
    fprintf(stderr, "rlhost: mujoco: %s (outside a guarded call)\n", msg);
    abort();
}

#define GUARDED(fail_stmt, ...)  \
    do {                         \
        jmp_buf jb_;             \
        jmp_buf *prev_ = g_jump; \
        g_jump = &jb_;           \
        if (setjmp(jb_) == 0) {  \
            __VA_ARGS__;         \
        } else {                 \
            fail_stmt;           \
        }                        \
        g_jump = prev_;          \
    } while (0)

typedef struct mj_env {
    mjData *d;
    uint32_t steps;
    rl_rng rng;
} mj_env;

typedef struct mujoco_env {
    const mj_task *task;
    mjModel *m;
    mj_env *e;
    uint32_t n, frame_skip, max_steps, obs_size;
    double noise;
    mj_task_weights w; /* dt is set once the model is loaded */
    float *act_low, *act_high;
    uint64_t model_hash; /* of the compiled model: a checkpoint remembers which model it ran */
    int failed;
    char why[RL_ERR_MAX];
} mujoco_env;

static void fail(mujoco_env *me, const char *why)
{
    if (me->failed) return;
    me->failed = 1;
    snprintf(me->why, sizeof me->why, "%s", why);
}

static void mj_destroy_env(void *env)
{
    mujoco_env *me = env;
    if (!me) return;
    for (uint32_t i = 0; me->e && i < me->n; i++)
        if (me->e[i].d) mj_deleteData(me->e[i].d);
    if (me->m) mj_deleteModel(me->m);
    free(me->e);
    free(me->act_low);
    free(me->act_high);
    free(me);
}

/* The task's Gymnasium model: installed beside this plugin in
   mujoco_models/ (meson copies it from the Gymnasium package). */
static int model_file(const char *own, const mj_task *t, char *out, size_t cap)
{
    if (own && own[0]) return snprintf(out, cap, "%s", own) < (int)cap ? 0 : -1;
    static const char anchor = 0; /* an address inside this plugin */
    Dl_info dl;
    if (!dladdr(&anchor, &dl) || !dl.dli_fname) return -1;
    const char *slash = strrchr(dl.dli_fname, '/');
    int dir_len = slash ? (int)(slash - dl.dli_fname) : 1;
    const char *dir = slash ? dl.dli_fname : ".";
    return snprintf(out, cap, "%.*s/mujoco_models/%s", dir_len, dir, t->xml) < (int)cap ? 0 : -1;
}

static const rl_host_api *g_host;

/* A compile on a thread of its own, so that the caller can give up on it
   when the user interrupts (a large model compiles for many seconds, and
   MuJoCo's parser cannot be stopped): the thread then frees what it made. */
typedef struct compile_job {
    pthread_mutex_t mu;
    char path[4096], why[1000];
    mjModel *m;
    int done, abandoned;
} compile_job;

static void *compile_thread(void *arg)
{
    compile_job *j = arg;
    char why[1000] = "";
    mjModel *volatile m = NULL; /* set under setjmp */
    GUARDED(snprintf(why, sizeof why, "%s", g_why), m = mj_loadXML(j->path, NULL, why, sizeof why));
    pthread_mutex_lock(&j->mu);
    j->m = m, j->done = 1;
    memcpy(j->why, why, sizeof why);
    int abandoned = j->abandoned;
    pthread_mutex_unlock(&j->mu);
    if (abandoned) {
        if (m) mj_deleteModel(m);
        pthread_mutex_destroy(&j->mu);
        free(j);
    }
    return NULL;
}

/* The compiled model, or NULL with why; RL_EINTR when the user asked to
   stop while it compiled. */
static int compile_model(const char *path, mjModel **out, char *why, size_t n)
{
    compile_job *j = calloc(1, sizeof *j);
    if (!j) return RL_ENOMEM;
    pthread_mutex_init(&j->mu, NULL);
    snprintf(j->path, sizeof j->path, "%s", path);
    pthread_t t;
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    pthread_attr_setstacksize(&attr, 8 << 20); /* MuJoCo's compiler recurses over the body tree */
    if (pthread_create(&t, &attr, compile_thread, j) != 0) {
        pthread_attr_destroy(&attr);
        compile_thread(j); /* no thread to spare: compile here, uninterruptibly */
    } else {
        pthread_attr_destroy(&attr);
    }
    for (;;) {
        pthread_mutex_lock(&j->mu);
        if (j->done) break;
        if (rl_host_interrupted(g_host)) {
            j->abandoned = 1;
            pthread_mutex_unlock(&j->mu);
            snprintf(why, n, "interrupted while MuJoCo compiled the model");
            return RL_EINTR;
        }
        pthread_mutex_unlock(&j->mu);
        usleep(20000);
    }
    pthread_mutex_unlock(&j->mu);
    *out = j->m;
    snprintf(why, n, "%s", j->why);
    pthread_mutex_destroy(&j->mu);
    free(j);
    return RL_OK;
}

/* FNV-1a over the compiled model's binary form: every number that shapes
   the simulation (sizes, masses, gears, timestep, ...). */
static uint64_t model_hash(const mjModel *m)
{
    int size = mj_sizeModel(m);
    unsigned char *buf = size > 0 ? malloc((size_t)size) : NULL;
    uint64_t h = 0xcbf29ce484222325ULL;
    if (!buf) return h;
    mj_saveModel(m, NULL, buf, size);
    for (int i = 0; i < size; i++) h = (h ^ buf[i]) * 0x100000001b3ULL;
    free(buf);
    return h;
}

static int load_model(mujoco_env *me, const char *path, char *err, size_t errlen)
{
    char why[1000] = "";
    if (mj_model_files_check(path, why, sizeof why) != 0) {
        RL_ERRF(err, errlen, "env.model_path: %s", why);
        return RL_ECONFIG;
    }
    mjModel *m = NULL;
    int rc = compile_model(path, &m, why, sizeof why);
    if (rc == RL_EINTR || rc == RL_ENOMEM) {
        RL_ERRF(err, errlen, "env.model_path: %s: %s", path, rc == RL_EINTR ? why : "out of memory");
        return rc;
    }
    if (!m) {
        RL_ERRF(err, errlen, "env.model_path: %s: %s", path, why[0] ? why : "MuJoCo could not load it");
        return RL_ECONFIG;
    }
    me->m = m;
    if (mj_task_fits(me->task, m, why, sizeof why) != 0) {
        RL_ERRF(err, errlen, "env.model_path: %s does not fit task '%s': %s", path, me->task->name, why);
        return RL_ECONFIG;
    }
    me->model_hash = model_hash(m);
    return RL_OK;
}

static int mj_create_env(const rl_env_args *args, void **out, rl_env_info *info, char *err, size_t errlen)
{
    mujoco_env *me = calloc(1, sizeof *me);
    if (!me) return RL_ENOMEM;
    const rl_value *o = args->options;
    me->task = mj_task_named(o[OPT_TASK].s);
    me->n = args->num_envs;
    me->frame_skip = o[OPT_FRAME_SKIP].is_auto ? me->task->frame_skip : (uint32_t)o[OPT_FRAME_SKIP].i;
    const mj_task *t = me->task;
    me->w = (mj_task_weights){
        .forward = o[OPT_FORWARD_W].f,
        .ctrl = o[OPT_CTRL_W].is_auto ? t->ctrl_cost_weight : o[OPT_CTRL_W].f,
        .healthy_reward = o[OPT_HEALTHY_REWARD].f,
        .terminate_when_unhealthy = (int)o[OPT_TERMINATE].i,
        .z_min = o[OPT_Z_MIN].is_auto ? t->z_min : o[OPT_Z_MIN].f,
        .z_max = o[OPT_Z_MAX].is_auto ? t->z_max : o[OPT_Z_MAX].f,
        .angle_min = o[OPT_ANGLE_MIN].is_auto ? t->angle_min : o[OPT_ANGLE_MIN].f,
        .angle_max = o[OPT_ANGLE_MAX].is_auto ? t->angle_max : o[OPT_ANGLE_MAX].f,
        .contact = o[OPT_CONTACT_W].is_auto ? t->contact_cost_weight : o[OPT_CONTACT_W].f,
    };
    me->noise = o[OPT_NOISE].is_auto ? t->reset_noise_scale : o[OPT_NOISE].f;
    int walker = t->z_min < t->z_max; /* a task with healthy ranges */
    if (walker && (me->w.z_min >= me->w.z_max || me->w.angle_min >= me->w.angle_max)) {
        RL_ERRF(err, errlen, "env.healthy_%s_min (%g) must be below env.healthy_%s_max (%g): no state would be healthy",
                me->w.z_min >= me->w.z_max ? "z" : "angle", me->w.z_min >= me->w.z_max ? me->w.z_min : me->w.angle_min,
                me->w.z_min >= me->w.z_max ? "z" : "angle", me->w.z_min >= me->w.z_max ? me->w.z_max : me->w.angle_max);
        free(me);
        return RL_ECONFIG;
    }
    me->max_steps = (uint32_t)o[OPT_MAX_STEPS].i;
    char path[4096];
    int rc = RL_OK;
    if (model_file(o[OPT_MODEL_PATH].s, me->task, path, sizeof path) != 0) {
        RL_ERRF(err, errlen, "env.model_path: the path is too long, or the plugin's directory unknown");
        rc = RL_ECONFIG;
    }
    if (rc == RL_OK) rc = load_model(me, path, err, errlen);
    const mjModel *m = me->m;
    if (rc == RL_OK) {
        me->e = calloc(me->n, sizeof *me->e);
        me->act_low = malloc((size_t)m->nu * sizeof(float));
        me->act_high = malloc((size_t)m->nu * sizeof(float));
        rc = me->e && me->act_low && me->act_high ? RL_OK : RL_ENOMEM;
    }
    for (uint32_t i = 0; rc == RL_OK && i < me->n; i++) {
        char why[200] = "";
        GUARDED(snprintf(why, sizeof why, "%s", g_why), me->e[i].d = mj_makeData(m));
        if (!me->e[i].d) {
            RL_ERRF(err, errlen, "%s", why[0] ? why : "out of memory for MuJoCo's data");
            rc = RL_ENOMEM;
        }
        rl_rng_seed(&me->e[i].rng, args->seed, i);
    }
    if (rc != RL_OK) {
        mj_destroy_env(me);
        return rc;
    }
    for (int k = 0; k < m->nu; k++) { /* Gymnasium's action space: ctrlrange as float32 */
        me->act_low[k] = (float)m->actuator_ctrlrange[2 * k];
        me->act_high[k] = (float)m->actuator_ctrlrange[2 * k + 1];
    }
    me->obs_size = me->task->obs_size(m);
    me->w.dt = m->opt.timestep * me->frame_skip; /* Gymnasium's self.dt */
    info->obs_dtype = RL_DTYPE_F32;
    info->obs_ndim = 1;
    info->obs_shape[0] = info->obs_size = me->obs_size;
    info->obs_scale = 1.0f;
    info->score_name = NULL;
    rl_env_info_set_time_limit(info, me->max_steps);
    if (rl_env_info_set_box(info, (uint32_t)m->nu, me->act_low, me->act_high) != 0) {
        mj_destroy_env(me);
        RL_ERRF(err, errlen, "needs a host that knows box action spaces (ABI 1.2)");
        return RL_ENOTSUP;
    }
    *out = me;
    return RL_OK;
}

/* Gymnasium's reset_model: qpos0 + uniform(-s, s), qvel + s N(0, 1), then
   mj_forward (set_state). */
static void reset_one(mujoco_env *me, mj_env *e)
{
    const mjModel *m = me->m;
    mjData *d = e->d;
    GUARDED(fail(me, g_why), {
        mj_resetData(m, d);
        for (int k = 0; k < m->nq; k++)
            d->qpos[k] = m->qpos0[k] + (-me->noise + 2 * me->noise * rl_rng_uniform_d(&e->rng));
        for (int k = 0; k < m->nv; k++)
            d->qvel[k] = me->task->qvel_noise_uniform ? -me->noise + 2 * me->noise * rl_rng_uniform_d(&e->rng)
                                                      : me->noise * rl_rng_normal(&e->rng);
        mj_forward(m, d);
    });
    e->steps = 0;
}

static void write_obs(const mujoco_env *me, const mj_env *e, float *o)
{
    double buf[512];
    me->task->obs(me->m, e->d, buf);
    for (uint32_t k = 0; k < me->obs_size; k++) o[k] = (float)buf[k];
}

static void mj_reset_range(void *env, const rl_env_io *io, uint32_t first, uint32_t count)
{
    mujoco_env *me = env;
    float *obs = io->obs;
    for (uint32_t i = first; i < first + count; i++) {
        reset_one(me, &me->e[i]);
        write_obs(me, &me->e[i], obs + (size_t)i * me->obs_size);
    }
}

/* MuJoCo's own verdict on a step: a NaN, infinity or value past 1e10 in
   the positions, velocities or accelerations makes it reset the data and
   count a warning (mj_checkPos, mj_checkVel, mj_checkAcc).  The run stops
   with a sentence: training on from a silently reset state is not
   Gymnasium's task, and its returns mean nothing. */
static void check_stable(mujoco_env *me, const mj_env *e)
{
    static const int kinds[3] = {mjWARN_BADQPOS, mjWARN_BADQVEL, mjWARN_BADQACC};
    static const char *const what[3] = {"positions", "velocities", "accelerations"};
    for (int k = 0; k < 3; k++) {
        const mjWarningStat *w = &e->d->warning[kinds[k]];
        if (!w->number) continue;
        char why[RL_ERR_MAX];
        snprintf(why, sizeof why,
                 "env %ld: the simulation became unstable in episode step %u (MuJoCo found a NaN, "
                 "infinity or huge value in the %s, at degree of freedom %d): a timestep or gain too large for "
                 "this model?",
                 (long)(e - me->e), e->steps + 1, what[k], w->lastinfo);
        fail(me, why);
        return;
    }
}

/* One env step; the reward (float64, as Gymnasium's) and the flags. */
static double step_one(mujoco_env *me, mj_env *e, const float *a, int *terminated, int *truncated)
{
    volatile double reward = 0; /* set under setjmp: volatile keeps it defined after a longjmp */
    *terminated = 0;
    GUARDED(fail(me, g_why), reward = mj_task_step(me->task, me->m, e->d, a, me->frame_skip, &me->w, terminated));
    check_stable(me, e);
    *truncated = ++e->steps >= me->max_steps;
    return reward;
}

static void mj_step_range(void *env, const rl_env_io *io, uint32_t first, uint32_t count)
{
    mujoco_env *me = env;
    float *obs = io->obs, *final_obs = io->final_obs;
    const float *acts = io->box_actions;
    uint32_t nu = (uint32_t)me->m->nu, d = me->obs_size;
    for (uint32_t i = first; i < first + count; i++) {
        int term = 0, trunc = 0;
        io->rewards[i] = (float)step_one(me, &me->e[i], acts + (size_t)i * nu, &term, &trunc);
        io->terminated[i] = (uint8_t)term;
        io->truncated[i] = (uint8_t)(trunc && !term);
        if (term || trunc) {
            write_obs(me, &me->e[i], final_obs + (size_t)i * d);
            reset_one(me, &me->e[i]);
        }
        write_obs(me, &me->e[i], obs + (size_t)i * d);
    }
}

static int mj_status(void *env, char *err, size_t errlen)
{
    mujoco_env *me = env;
    if (!me->failed) return RL_OK;
    snprintf(err, errlen, "%s", me->why);
    me->failed = 0;
    return RL_EIO;
}

static const rl_env_status_ext status_ext = {sizeof status_ext, mj_status};

/* One line: the body's x position and speed. */
static int mj_render(void *env, uint32_t index, int color, char *buf, size_t cap)
{
    mujoco_env *me = env;
    (void)color;
    if (index >= me->n) return RL_EINVAL;
    const mjData *d = me->e[index].d;
    rl_text t = rl_text_begin(buf, cap);
    rl_text_put(&t, "%s  x %+8.3f m  speed %+7.3f m/s  step %u", me->task->name, d->qpos[0], d->qvel[0],
                me->e[index].steps);
    return rl_text_end(&t);
}

static const rl_env_render_ext render_ext = {.struct_size = sizeof render_ext, .render = mj_render};

/* The hash of the model the checkpoint's run stepped: a resume on a model
   that has changed since (a gear, a mass, another file) is refused, not
   continued on other physics.  A checkpoint from before the hash was kept
   has none, and loads. */
static int model_hash_state(mujoco_env *me, const rl_state_io *io, const char *prefix, int load, char *err,
                            size_t errlen)
{
    uint64_t h = me->model_hash;
    char got[RL_ERR_MAX] = "";
    int rc = rl_state_blob(io, load, prefix, "mujoco/model_hash", &h, sizeof h, got, sizeof got);
    if (load && rc == RL_ENOENT) return RL_OK;
    if (rc != RL_OK) {
        RL_ERRF(err, errlen, "%s", got);
        return rc;
    }
    if (load && h != me->model_hash) {
        RL_ERRF(err, errlen,
                "the checkpoint's run stepped another model (hash %016llx, this one %016llx): "
                "env.model_path or the task's model changed since; restore it, or start a new run",
                (unsigned long long)h, (unsigned long long)me->model_hash);
        return RL_ECONFIG;
    }
    return RL_OK;
}

/* State for exact resumes: every env's qpos, qvel, act, time, step count
   and RNG, checked on load (sizes by the tensors' shapes, finite values). */
static int mj_state_io(void *env, const rl_state_io *io, const char *prefix, int load, char *err, size_t errlen)
{
    mujoco_env *me = env;
    const mjModel *m = me->m;
    size_t per = (size_t)(m->nq + m->nv + m->na + 1);
    double *x = calloc(me->n * per, sizeof *x);
    uint32_t *steps = calloc(me->n, sizeof *steps);
    rl_rng *rng = calloc(me->n, sizeof *rng);
    int rc = x && steps && rng ? RL_OK : RL_ENOMEM;
    for (uint32_t i = 0; rc == RL_OK && !load && i < me->n; i++) {
        const mjData *d = me->e[i].d;
        double *p = x + i * per;
        memcpy(p, d->qpos, (size_t)m->nq * sizeof *p);
        memcpy(p + m->nq, d->qvel, (size_t)m->nv * sizeof *p);
        memcpy(p + m->nq + m->nv, d->act, (size_t)m->na * sizeof *p);
        p[per - 1] = d->time;
        steps[i] = me->e[i].steps;
        rng[i] = me->e[i].rng;
    }
    if (rc == RL_OK) rc = rl_state_blob(io, load, prefix, "mujoco/state", x, me->n * per * sizeof *x, err, errlen);
    if (rc == RL_OK) rc = rl_state_blob(io, load, prefix, "mujoco/steps", steps, me->n * sizeof *steps, err, errlen);
    if (rc == RL_OK) rc = rl_state_blob(io, load, prefix, "mujoco/rng", rng, me->n * sizeof *rng, err, errlen);
    if (rc == RL_OK) rc = model_hash_state(me, io, prefix, load, err, errlen);
    for (uint32_t i = 0; rc == RL_OK && load && i < me->n; i++) {
        char name[96];
        snprintf(name, sizeof name, "%smujoco/rng", prefix);
        if ((rc = rl_state_check_rng(name, &rng[i], err, errlen))) break;
        for (size_t k = 0; k < per; k++)
            if (!isfinite(x[i * per + k])) {
                RL_ERRF(err, errlen, "tensor '%smujoco/state': env %u holds a non-finite value", prefix, i);
                rc = RL_ECORRUPT;
                break;
            }
        if (rc == RL_OK && steps[i] >= me->max_steps) {
            RL_ERRF(err, errlen, "tensor '%smujoco/steps': env %u is at step %u of a %u-step episode", prefix, i,
                    steps[i], me->max_steps);
            rc = RL_ECORRUPT;
        }
    }
    for (uint32_t i = 0; rc == RL_OK && load && i < me->n; i++) {
        mjData *d = me->e[i].d;
        const double *p = x + i * per;
        memcpy(d->qpos, p, (size_t)m->nq * sizeof *p);
        memcpy(d->qvel, p + m->nq, (size_t)m->nv * sizeof *p);
        memcpy(d->act, p + m->nq + m->nv, (size_t)m->na * sizeof *p);
        d->time = p[per - 1];
        me->e[i].steps = steps[i];
        me->e[i].rng = rng[i];
        GUARDED(fail(me, g_why), mj_forward(m, d));
    }
    free(x);
    free(steps);
    free(rng);
    return rc;
}

RL_ENV_STATE_EXT(state_ext, mj_state_io);

static const void *mj_get_extension(void *env, const char *id)
{
    (void)env;
    if (strcmp(id, RL_EXT_ENV_RENDER) == 0) return &render_ext;
    if (strcmp(id, RL_EXT_ENV_STATE) == 0) return &state_ext;
    if (strcmp(id, RL_EXT_ENV_STATUS) == 0) return &status_ext;
    return NULL;
}

static const rl_env_vtable vtable = {
    .struct_size = sizeof vtable,
    .create = mj_create_env,
    .destroy = mj_destroy_env,
    .reset = mj_reset_range,
    .step = mj_step_range,
    .get_extension = mj_get_extension,
};

static const rl_plugin_desc desc = {
    .struct_size = sizeof desc,
    .kind = RL_KIND_ENV,
    .name = "mujoco",
    .version = "0.1.0",
    .description = "MuJoCo physics: Gymnasium's v5 locomotion tasks (env.task), stepped in C",
    .options = options,
    .n_options = N_OPTS,
    .vtable = &vtable,
};

/* MuJoCo's warnings (a deprecated attribute in a model, an unstable
   simulation) go to the host's log, not stdout and MUJOCO_LOG.TXT. */
static void on_mj_warning(const char *msg)
{
    if (g_host) g_host->log(RL_LOG_DEBUG, "mujoco", "%s", msg);
}

static int mj_init(const rl_host_api *host, char *err, size_t errlen)
{
    (void)err, (void)errlen;
    g_host = host;
    mju_user_error = on_mj_error;
    mju_user_warning = on_mj_warning;
    return RL_OK;
}

static uint32_t mj_count(void)
{
    return 1;
}

static const rl_plugin_desc *mj_get(uint32_t i)
{
    return i == 0 ? &desc : NULL;
}

RL_PLUGIN_DEFINE_ENTRY(mj_init, NULL, mj_count, mj_get);
