/* The continuous classic-control env plugin: `pendulum` (Pendulum-v1) and
   `mountain_car_continuous` (MountainCarContinuous-v0), one descriptor
   each, with Gymnasium's rules, types and time limits (classic_rules.c).
   Box actions (ABI 1.2); the host clips every action into the box. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rlhost/plugin.h>
#include <rlhost/raster.h>
#include <rlhost/text.h>
#include <rlhost/rlcore.h>

#include "classic_rules.h"

enum { TASK_PENDULUM, TASK_MOUNTAIN_CAR };

enum { PD_OPT_G, PD_OPT_MAX_STEPS, PD_OPT_N };
static const rl_option_def pd_options[PD_OPT_N] = {
    [PD_OPT_G] = RL_OPTION_FLOAT("g", "10.0", 0, 1000, "gravity (Gymnasium's default 10.0)"),
    [PD_OPT_MAX_STEPS] = RL_OPTION_INT("max_steps", "200", 1, 1e9, "truncate episodes at this many steps"),
};

enum { MC_OPT_GOAL_VELOCITY, MC_OPT_MAX_STEPS, MC_OPT_N };
static const rl_option_def mc_options[MC_OPT_N] = {
    [MC_OPT_GOAL_VELOCITY] =
        RL_OPTION_FLOAT("goal_velocity", "0.0", -1, 1, "the goal also needs at least this velocity"),
    [MC_OPT_MAX_STEPS] = RL_OPTION_INT("max_steps", "999", 1, 1e9, "truncate episodes at this many steps"),
};

static const float pd_act_low[1] = {-2.0f}, pd_act_high[1] = {2.0f};
static const float pd_obs_low[3] = {-1.0f, -1.0f, -8.0f}, pd_obs_high[3] = {1.0f, 1.0f, 8.0f};
static const float mc_act_low[1] = {-1.0f}, mc_act_high[1] = {1.0f};
static const float mc_obs_low[2] = {-1.2f, -0.07f}, mc_obs_high[2] = {0.6f, 0.07f};

/* One env's state, whichever task. */
typedef struct cc_env {
    pd_state pd;
    mc_state mc;
    uint32_t steps;
    rl_rng rng;
} cc_env;

typedef struct classic {
    int task;
    uint32_t n, max_steps, obs_size;
    double g, goal_velocity;
    cc_env *e;
} classic;

static int cc_create(int task, const rl_env_args *args, void **out, rl_env_info *info, char *err, size_t errlen)
{
    classic *c = calloc(1, sizeof *c);
    if (c) c->e = calloc(args->num_envs, sizeof *c->e);
    if (!c || !c->e) {
        free(c);
        RL_ERRF(err, errlen, "out of memory for %u envs", args->num_envs);
        return RL_ENOMEM;
    }
    c->task = task;
    c->n = args->num_envs;
    const rl_value *o = args->options;
    int pd = task == TASK_PENDULUM;
    c->max_steps = (uint32_t)o[pd ? PD_OPT_MAX_STEPS : MC_OPT_MAX_STEPS].i;
    if (pd)
        c->g = o[PD_OPT_G].f;
    else
        c->goal_velocity = o[MC_OPT_GOAL_VELOCITY].f;
    c->obs_size = pd ? 3 : 2;
    for (uint32_t i = 0; i < c->n; i++) rl_rng_seed(&c->e[i].rng, args->seed, i);
    info->obs_dtype = RL_DTYPE_F32;
    info->obs_ndim = 1;
    info->obs_shape[0] = info->obs_size = c->obs_size;
    info->obs_scale = 1.0f;
    info->score_name = NULL;
    rl_env_info_set_time_limit(info, c->max_steps);
    if (rl_env_info_set_box(info, 1, pd ? pd_act_low : mc_act_low, pd ? pd_act_high : mc_act_high) != 0) {
        free(c->e);
        free(c);
        RL_ERRF(err, errlen, "needs a host that knows box action spaces (ABI 1.2)");
        return RL_ENOTSUP;
    }
    info->obs_low = pd ? pd_obs_low : mc_obs_low;
    info->obs_high = pd ? pd_obs_high : mc_obs_high;
    *out = c;
    return RL_OK;
}

static int pd_create(const rl_env_args *args, void **out, rl_env_info *info, char *err, size_t errlen)
{
    return cc_create(TASK_PENDULUM, args, out, info, err, errlen);
}

static int mc_create(const rl_env_args *args, void **out, rl_env_info *info, char *err, size_t errlen)
{
    return cc_create(TASK_MOUNTAIN_CAR, args, out, info, err, errlen);
}

static void cc_destroy(void *env)
{
    classic *c = env;
    if (!c) return;
    free(c->e);
    free(c);
}

/* Gymnasium's starts: theta uniform in [-pi, pi) and theta_dot in [-1, 1);
   position uniform in [-0.6, -0.4), velocity 0. */
static void reset_one(classic *c, cc_env *e)
{
    e->steps = 0;
    if (c->task == TASK_PENDULUM) {
        e->pd.th = -3.14159265358979323846 + 2 * 3.14159265358979323846 * rl_rng_uniform_d(&e->rng);
        e->pd.thdot = -1.0 + 2.0 * rl_rng_uniform_d(&e->rng);
    } else {
        e->mc.pos = -0.6 + 0.2 * rl_rng_uniform_d(&e->rng);
        e->mc.vel = 0.0;
        e->mc.wide = 1;
    }
}

static void write_obs(const classic *c, const cc_env *e, float *o)
{
    if (c->task == TASK_PENDULUM)
        pd_obs(&e->pd, o);
    else
        mc_obs(&e->mc, o);
}

static void cc_reset(void *env, const rl_env_io *io, uint32_t first, uint32_t count)
{
    classic *c = env;
    float *obs = io->obs;
    for (uint32_t i = first; i < first + count; i++) {
        reset_one(c, &c->e[i]);
        write_obs(c, &c->e[i], obs + (size_t)i * c->obs_size);
    }
}

static void cc_step(void *env, const rl_env_io *io, uint32_t first, uint32_t count)
{
    classic *c = env;
    float *obs = io->obs, *final_obs = io->final_obs;
    for (uint32_t i = first; i < first + count; i++) {
        cc_env *e = &c->e[i];
        float a = io->box_actions[i];
        int term = 0;
        double r = c->task == TASK_PENDULUM ? pd_step(&e->pd, c->g, a) : mc_step(&e->mc, c->goal_velocity, a, &term);
        int trunc = ++e->steps >= c->max_steps; /* Gymnasium's TimeLimit: also on the terminal step */
        io->rewards[i] = (float)r;
        io->terminated[i] = (uint8_t)term;
        io->truncated[i] = (uint8_t)trunc;
        if (term || trunc) {
            write_obs(c, e, final_obs + (size_t)i * c->obs_size);
            io->scores[i] = 0.0f;
            reset_one(c, e);
        }
        write_obs(c, e, obs + (size_t)i * c->obs_size);
    }
}

/* One line of text: the pendulum's angle and speed, or the car's place on
   the track (the goal at 0.45) and speed. */
static int cc_render(void *env, uint32_t index, int color, char *buf, size_t cap)
{
    classic *c = env;
    (void)color;
    if (index >= c->n) return RL_EINVAL;
    const cc_env *e = &c->e[index];
    rl_text t = rl_text_begin(buf, cap);
    if (c->task == TASK_PENDULUM) {
        rl_text_put(&t, "pendulum  angle %+7.3f rad (0 = upright)  speed %+7.3f rad/s  step %u",
                    pd_angle_normalize(e->pd.th), e->pd.thdot, e->steps);
    } else {
        enum { W = 37 };
        char track[W + 1];
        memset(track, '-', W);
        track[W] = 0;
        int goal = (int)((MC_GOAL_POSITION - MC_MIN_POSITION) / (MC_MAX_POSITION - MC_MIN_POSITION) * (W - 1));
        int at = (int)((e->mc.pos - MC_MIN_POSITION) / (MC_MAX_POSITION - MC_MIN_POSITION) * (W - 1) + 0.5);
        track[goal] = '|';
        track[at < 0 ? 0 : at > W - 1 ? W - 1 : at] = 'o';
        rl_text_put(&t, "[%s]  position %+.4f  velocity %+.5f  step %u", track, e->mc.pos, e->mc.vel, e->steps);
    }
    return rl_text_end(&t);
}

static const rl_env_render_ext render_ext = {.struct_size = sizeof render_ext, .render = cc_render};

/* Pixels: the pendulum as a rod from the centre (up is angle 0), or the
   mountain car's hill y = 0.45 sin(3x) + 0.55 with the car and the flag. */
enum { CC_RASTER_W = 240, CC_RASTER_H = 160 };

static void cc_raster_size(void *env, uint32_t *height, uint32_t *width)
{
    (void)env;
    *height = CC_RASTER_H;
    *width = CC_RASTER_W;
}

static int cc_raster(void *env, uint32_t index, uint8_t *rgb)
{
    classic *c = env;
    if (index >= c->n) return RL_EINVAL;
    const cc_env *e = &c->e[index];
    rl_raster im = {rgb, CC_RASTER_H, CC_RASTER_W};
    rl_raster_fill(&im, (rl_rgb){255, 255, 255});
    if (c->task == TASK_PENDULUM) {
        double cx = CC_RASTER_W / 2.0, cy = CC_RASTER_H / 2.0, len = 60;
        rl_raster_segment(&im, cx, cy, cx + len * sin(e->pd.th), cy - len * cos(e->pd.th), 8, (rl_rgb){204, 77, 77});
        rl_raster_segment(&im, cx, cy, cx, cy, 3, (rl_rgb){0, 0, 0});
        return RL_OK;
    }
    const double span = MC_MAX_POSITION - MC_MIN_POSITION, sx = CC_RASTER_W / span, sy = 100;
#define MC_PX(x) (((x)-MC_MIN_POSITION) * sx)
#define MC_PY(x) (CC_RASTER_H - 20 - (0.45 * sin(3 * (x)) + 0.55) * sy)
    for (int k = 0; k < CC_RASTER_W; k++) {
        double x0 = MC_MIN_POSITION + k / sx, x1 = MC_MIN_POSITION + (k + 1) / sx;
        rl_raster_segment(&im, MC_PX(x0), MC_PY(x0), MC_PX(x1), MC_PY(x1), 1, (rl_rgb){0, 0, 0});
    }
    double gx = MC_PX(MC_GOAL_POSITION), gy = MC_PY(MC_GOAL_POSITION);
    rl_raster_rect(&im, gx, gy - 25, gx + 1.5, gy, (rl_rgb){0, 0, 0});
    rl_raster_rect(&im, gx + 1.5, gy - 25, gx + 14, gy - 17, (rl_rgb){204, 204, 0});
    rl_raster_segment(&im, MC_PX(e->mc.pos), MC_PY(e->mc.pos) - 7, MC_PX(e->mc.pos), MC_PY(e->mc.pos) - 7, 7,
                      (rl_rgb){0, 0, 0});
#undef MC_PX
#undef MC_PY
    return RL_OK;
}

static const rl_env_raster_ext raster_ext = {sizeof raster_ext, cc_raster_size, cc_raster};

/* Exact resumes: each env's state as float64 pairs, the float64 flag, the
   step count and the generator.  Loaded values are checked: finite, in
   the ranges the rules keep, a step count below the limit. */
typedef struct cc_saved {
    double a, b;
    uint32_t wide, steps;
    rl_rng rng;
} cc_saved;

static int check_loaded(const classic *c, const cc_saved *s, const char *name, char *err, size_t errlen)
{
    int rc;
    int pd = c->task == TASK_PENDULUM;
    if ((rc = rl_state_check_f(name, s->a, pd ? -1e12 : MC_MIN_POSITION, pd ? 1e12 : MC_MAX_POSITION, err, errlen)) ||
        (rc = rl_state_check_f(name, s->b, pd ? -PD_MAX_SPEED : -MC_MAX_SPEED, pd ? PD_MAX_SPEED : MC_MAX_SPEED, err,
                               errlen)) ||
        (rc = rl_state_check_f(name, s->wide, 0, 1, err, errlen)) ||
        (rc = rl_state_check_f(name, s->steps, 0, c->max_steps - 1, err, errlen)))
        return rc;
    if (pd && fabs(s->b) > 1.0 && s->steps == 0) {
        RL_ERRF(err, errlen, "tensor '%s': an episode's first speed %g is outside [-1, 1]", name, s->b);
        return RL_ECORRUPT;
    }
    return rl_state_check_rng(name, &s->rng, err, errlen);
}

static int cc_state(classic *c, const rl_state_io *io, const char *prefix, int load, char *err, size_t errlen)
{
    cc_saved *s = calloc(c->n, sizeof *s);
    if (!s) {
        RL_ERRF(err, errlen, "out of memory");
        return RL_ENOMEM;
    }
    int pd = c->task == TASK_PENDULUM;
    for (uint32_t i = 0; !load && i < c->n; i++) {
        const cc_env *e = &c->e[i];
        s[i].a = pd ? e->pd.th : e->mc.pos;
        s[i].b = pd ? e->pd.thdot : e->mc.vel;
        s[i].wide = pd ? 0 : (uint32_t)e->mc.wide;
        s[i].steps = e->steps;
        s[i].rng = e->rng;
    }
    char name[96];
    snprintf(name, sizeof name, "%sclassic/state", prefix);
    int rc = rl_state_blob(io, load, prefix, "classic/state", s, c->n * sizeof *s, err, errlen);
    for (uint32_t i = 0; rc == RL_OK && load && i < c->n; i++) rc = check_loaded(c, &s[i], name, err, errlen);
    for (uint32_t i = 0; rc == RL_OK && load && i < c->n; i++) {
        cc_env *e = &c->e[i];
        if (pd)
            e->pd.th = s[i].a, e->pd.thdot = s[i].b;
        else
            e->mc.pos = s[i].a, e->mc.vel = s[i].b, e->mc.wide = (int)s[i].wide;
        e->steps = s[i].steps;
        e->rng = s[i].rng;
    }
    free(s);
    return rc;
}

RL_ENV_STATE_EXT(state_ext, cc_state);

static const void *cc_get_extension(void *env, const char *id)
{
    (void)env;
    if (strcmp(id, RL_EXT_ENV_RENDER) == 0) return &render_ext;
    if (strcmp(id, RL_EXT_ENV_RASTER) == 0) return &raster_ext;
    if (strcmp(id, RL_EXT_ENV_STATE) == 0) return &state_ext;
    return NULL;
}

static const rl_env_vtable pd_vtable = {
    .struct_size = sizeof pd_vtable,
    .create = pd_create,
    .destroy = cc_destroy,
    .reset = cc_reset,
    .step = cc_step,
    .get_extension = cc_get_extension,
};
static const rl_env_vtable mc_vtable = {
    .struct_size = sizeof mc_vtable,
    .create = mc_create,
    .destroy = cc_destroy,
    .reset = cc_reset,
    .step = cc_step,
    .get_extension = cc_get_extension,
};

static const rl_plugin_desc descs[] = {
    {
        .struct_size = sizeof(rl_plugin_desc),
        .kind = RL_KIND_ENV,
        .name = "pendulum",
        .version = "1.0.0",
        .description = "Pendulum-v1: swing a pendulum up and hold it with a torque in [-2, 2] (Gymnasium's rules)",
        .options = pd_options,
        .n_options = PD_OPT_N,
        .vtable = &pd_vtable,

    },
    {
        .struct_size = sizeof(rl_plugin_desc),
        .kind = RL_KIND_ENV,
        .name = "mountain_car_continuous",
        .version = "1.0.0",
        .description =
            "MountainCarContinuous-v0: drive an underpowered car up a hill with a force in [-1, 1] (Gymnasium's rules)",
        .options = mc_options,
        .n_options = MC_OPT_N,
        .vtable = &mc_vtable,

    },
};

RL_PLUGIN_DEFINE_ARRAY(descs, NULL);
