/* CartPole env plugin; rules in cartpole.h / cartpole_rules.c.
   Observation: [x, x_dot, theta, theta_dot] as float32, or [x, theta] with
   observe_velocity = false (the partially observable variant). */
#include <stdio.h>
#include <stdlib.h>
#include <math.h>
#include <string.h>

#include <rlhost/raster.h>
#include <rlhost/text.h>

#include "cartpole.h"

enum { OPT_OBSERVE_VELOCITY, OPT_N };

static const rl_option_def options[OPT_N] = {
    [OPT_OBSERVE_VELOCITY] = RL_OPTION_BOOL("observe_velocity", "true",
                                            "include cart and pole velocities in the observation; "
                                            "false makes the task partially observable"),
};

typedef struct cartpole {
    uint32_t n;
    int velocity;
    cp_state *s;
    rl_rng *rng;
} cartpole;

static void write_obs(const cartpole *c, const cp_state *s, float *o)
{
    if (c->velocity) {
        o[0] = (float)s->x;
        o[1] = (float)s->x_dot;
        o[2] = (float)s->theta;
        o[3] = (float)s->theta_dot;
    } else {
        o[0] = (float)s->x;
        o[1] = (float)s->theta;
    }
}

static int cp_create(const rl_env_args *args, void **out, rl_env_info *info, char *err, size_t errlen)
{
    cartpole *c = calloc(1, sizeof *c);
    if (!c) {
        RL_ERRF(err, errlen, "out of memory");
        return RL_ENOMEM;
    }
    c->n = args->num_envs;
    c->velocity = (int)args->options[OPT_OBSERVE_VELOCITY].i;
    c->s = calloc(c->n, sizeof *c->s);
    c->rng = calloc(c->n, sizeof *c->rng);
    if (!c->s || !c->rng) {
        free(c->s);
        free(c->rng);
        free(c);
        RL_ERRF(err, errlen, "out of memory for %u envs", args->num_envs);
        return RL_ENOMEM;
    }
    for (uint32_t i = 0; i < c->n; i++) rl_rng_seed(&c->rng[i], args->seed, i);
    info->obs_dtype = RL_DTYPE_F32;
    info->obs_ndim = 1;
    info->obs_shape[0] = c->velocity ? 4 : 2;
    info->obs_size = info->obs_shape[0];
    info->obs_scale = 1.0f;
    info->n_actions = 2;
    info->score_name = NULL;
    rl_env_info_set_time_limit(info, CP_MAX_STEPS);
    *out = c;
    return RL_OK;
}

static void cp_destroy(void *env)
{
    cartpole *c = env;
    if (!c) return;
    free(c->s);
    free(c->rng);
    free(c);
}

static void cp_reset_range(void *env, const rl_env_io *io, uint32_t first, uint32_t count)
{
    cartpole *c = env;
    uint32_t d = c->velocity ? 4 : 2;
    float *obs = io->obs;
    for (uint32_t i = first; i < first + count; i++) {
        cp_reset(&c->s[i], &c->rng[i]);
        write_obs(c, &c->s[i], obs + (size_t)i * d);
    }
}

static void cp_step_range(void *env, const rl_env_io *io, uint32_t first, uint32_t count)
{
    cartpole *c = env;
    uint32_t d = c->velocity ? 4 : 2;
    float *obs = io->obs, *final_obs = io->final_obs;
    for (uint32_t i = first; i < first + count; i++) {
        int term, trunc;
        io->rewards[i] = cp_step(&c->s[i], io->actions[i], &term, &trunc);
        io->terminated[i] = (uint8_t)term;
        io->truncated[i] = (uint8_t)trunc;
        if (term || trunc) {
            write_obs(c, &c->s[i], final_obs + (size_t)i * d);
            cp_reset(&c->s[i], &c->rng[i]);
        }
        write_obs(c, &c->s[i], obs + (size_t)i * d);
    }
}

/* One line: the track from -2.4 to 2.4 with the cart and the pole's lean. */
static int cp_render(void *env, uint32_t index, int color, char *buf, size_t cap)
{
    cartpole *c = env;
    if (index >= c->n) return RL_EINVAL;
    const cp_state *s = &c->s[index];
    enum { W = 41 };
    char track[W + 1];
    memset(track, '-', W);
    track[W] = 0;
    int pos = (int)((s->x + CP_X_THRESHOLD) / (2 * CP_X_THRESHOLD) * (W - 1) + 0.5);
    if (pos < 0) pos = 0;
    if (pos > W - 1) pos = W - 1;
    char pole = s->theta > 0.07 ? '/' : s->theta < -0.07 ? '\\' : '|';
    track[pos] = pole;
    rl_text t = rl_text_begin(buf, cap);
    rl_text_put(&t, "%s|%s|%s  x=%+.2f theta=%+.3f step %u", color ? "\x1b[1m" : "", track, color ? "\x1b[0m" : "",
                s->x, s->theta, s->steps);
    return rl_text_end(&t);
}

static const rl_env_render_ext render_ext = {.struct_size = sizeof render_ext, .render = cp_render};

/* Pixels: the track from -2.4 to 2.4 across 240 pixels (50 a metre), the
   cart and its pole (1 m drawn) as Gymnasium draws them. */
enum { CP_RASTER_W = 240, CP_RASTER_H = 160 };

static void cp_raster_size(void *env, uint32_t *height, uint32_t *width)
{
    (void)env;
    *height = CP_RASTER_H;
    *width = CP_RASTER_W;
}

static int cp_raster(void *env, uint32_t index, uint8_t *rgb)
{
    cartpole *c = env;
    if (index >= c->n) return RL_EINVAL;
    const cp_state *s = &c->s[index];
    const double scale = CP_RASTER_W / (2 * CP_X_THRESHOLD), track_y = 110;
    rl_raster im = {rgb, CP_RASTER_H, CP_RASTER_W};
    rl_raster_fill(&im, (rl_rgb){255, 255, 255});
    rl_raster_rect(&im, 0, track_y, CP_RASTER_W, track_y + 1, (rl_rgb){0, 0, 0});
    double cx = s->x * scale + CP_RASTER_W / 2.0, cy = track_y - 5;
    rl_raster_rect(&im, cx - 12.5, cy - 7.5, cx + 12.5, cy + 7.5, (rl_rgb){0, 0, 0});
    double len = 2 * CP_LENGTH * scale;
    rl_raster_segment(&im, cx, cy - 4, cx + len * sin(s->theta), cy - 4 - len * cos(s->theta), 2.5,
                      (rl_rgb){202, 152, 101});
    rl_raster_segment(&im, cx, cy - 4, cx, cy - 4, 2.5, (rl_rgb){129, 132, 203});
    return RL_OK;
}

static const rl_env_raster_ext raster_ext = {sizeof raster_ext, cp_raster_size, cp_raster};

/* State for exact resumes: every env's physics and RNG. */
static int cp_state_io(void *env, const rl_state_io *io, const char *prefix, int load, char *err, size_t errlen)
{
    cartpole *c = env;
    int rc = rl_state_blob(io, load, prefix, "cartpole/state", c->s, c->n * sizeof *c->s, err, errlen);
    if (rc == RL_OK) rc = rl_state_blob(io, load, prefix, "cartpole/rng", c->rng, c->n * sizeof *c->rng, err, errlen);
    for (uint32_t i = 0; rc == RL_OK && load && i < c->n; i++) {
        const cp_state *s = &c->s[i];
        char name[96];
        snprintf(name, sizeof name, "%scartpole/rng", prefix);
        if ((rc = rl_state_check_rng(name, &c->rng[i], err, errlen))) break;
        if (!isfinite(s->x) || !isfinite(s->x_dot) || !isfinite(s->theta) || !isfinite(s->theta_dot)) {
            RL_ERRF(err, errlen, "tensor '%scartpole/state': env %u holds a non-finite value", prefix, i);
            rc = RL_ECORRUPT;
        }
    }
    return rc;
}

RL_ENV_STATE_EXT(state_ext, cp_state_io);

static const void *cp_get_extension(void *env, const char *id)
{
    (void)env;
    if (strcmp(id, RL_EXT_ENV_RENDER) == 0) return &render_ext;
    if (strcmp(id, RL_EXT_ENV_RASTER) == 0) return &raster_ext;
    if (strcmp(id, RL_EXT_ENV_STATE) == 0) return &state_ext;
    return NULL;
}

static const rl_env_vtable vtable = {
    .struct_size = sizeof vtable,
    .create = cp_create,
    .destroy = cp_destroy,
    .reset = cp_reset_range,
    .step = cp_step_range,
    .get_extension = cp_get_extension,
};

static const rl_plugin_desc desc = {
    .struct_size = sizeof desc,
    .kind = RL_KIND_ENV,
    .name = "cartpole",
    .version = "1.0.0",
    .description = "classic cart-pole balancing with the CartPole-v1 constants (500-step episodes)",
    .options = options,
    .n_options = OPT_N,
    .vtable = &vtable,
};

RL_PLUGIN_DEFINE_SINGLE(desc);
