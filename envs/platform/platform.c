/* The Platform env plugin (platform_rules.h): a hybrid action (ABI 1.11),
   one discrete choice of move and a box of three parameters, one per move,
   of which the step reads the chosen move's.  Text and exact resumes. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rlhost/plugin.h>
#include <rlhost/text.h>
#include <rlhost/rlcore.h>

#include "platform_rules.h"

enum { OPT_MAX_STEPS, OPT_ENEMY_SPEED, OPT_N };
static const rl_option_def options[OPT_N] = {
    [OPT_MAX_STEPS] = RL_OPTION_INT("max_steps", "50", 1, 1e9, "truncate episodes at this many moves"),
    [OPT_ENEMY_SPEED] = RL_OPTION_FLOAT("enemy_speed", "30", 0, 1000, "the enemies' walking speed, units/s"),
};

static const uint32_t moves_nvec[1] = {PF_MOVES};
static const float param_low[PF_MOVES] = {-1, -1, -1}, param_high[PF_MOVES] = {1, 1, 1};

typedef struct pf_env {
    pf_state s;
    uint32_t steps;
    rl_rng rng;
} pf_env;

typedef struct platform {
    uint32_t n, max_steps;
    double enemy_speed;
    pf_env *e;
} platform;

static int pf_create(const rl_env_args *args, void **out, rl_env_info *info, char *err, size_t errlen)
{
    platform *c = calloc(1, sizeof *c);
    if (c) c->e = calloc(args->num_envs, sizeof *c->e);
    if (!c || !c->e) {
        free(c);
        RL_ERRF(err, errlen, "out of memory for %u envs", args->num_envs);
        return RL_ENOMEM;
    }
    c->n = args->num_envs;
    c->max_steps = (uint32_t)args->options[OPT_MAX_STEPS].i;
    c->enemy_speed = args->options[OPT_ENEMY_SPEED].f;
    for (uint32_t i = 0; i < c->n; i++) { /* a valid state before the first reset: a checkpoint may save it */
        rl_rng_seed(&c->e[i].rng, args->seed, i);
        for (int k = 0; k < PF_ENEMIES; k++)
            c->e[i].s.enemy[k] = (pf_platform[k][0] + pf_platform[k][1]) / 2, c->e[i].s.dir[k] = 1.0;
    }
    info->obs_dtype = RL_DTYPE_F32;
    info->obs_ndim = 1;
    info->obs_shape[0] = info->obs_size = PF_OBS;
    info->obs_scale = 1.0f;
    info->score_name = "progress";
    rl_env_info_set_time_limit(info, c->max_steps);
    if (rl_env_info_set_hybrid(info, 1, moves_nvec, PF_MOVES, param_low, param_high) != 0) {
        free(c->e);
        free(c);
        RL_ERRF(err, errlen, "needs a host that knows hybrid actions (ABI 1.11)");
        return RL_ENOTSUP;
    }
    *out = c;
    return RL_OK;
}

static void pf_destroy(void *env)
{
    platform *c = env;
    if (!c) return;
    free(c->e);
    free(c);
}

static void pf_reset_envs(void *env, const rl_env_io *io, uint32_t first, uint32_t count)
{
    platform *c = env;
    float *obs = io->obs;
    for (uint32_t i = first; i < first + count; i++) {
        c->e[i].steps = 0;
        pf_reset(&c->e[i].s, c->enemy_speed, &c->e[i].rng);
        pf_obs(&c->e[i].s, obs + (size_t)i * PF_OBS);
    }
}

static void pf_step_envs(void *env, const rl_env_io *io, uint32_t first, uint32_t count)
{
    platform *c = env;
    float *obs = io->obs, *final_obs = io->final_obs;
    for (uint32_t i = first; i < first + count; i++) {
        pf_env *e = &c->e[i];
        int move = io->actions[i], term = 0;
        float param = io->box_actions[(size_t)i * PF_MOVES + move];
        io->rewards[i] = (float)pf_step(&e->s, move, param, c->enemy_speed, &term);
        int trunc = ++e->steps >= c->max_steps;
        io->terminated[i] = (uint8_t)term;
        io->truncated[i] = (uint8_t)trunc;
        if (term || trunc) {
            pf_obs(&e->s, final_obs + (size_t)i * PF_OBS);
            io->scores[i] = (float)(e->s.x / PF_LENGTH);
            e->steps = 0;
            pf_reset(&e->s, c->enemy_speed, &e->rng);
        }
        pf_obs(&e->s, obs + (size_t)i * PF_OBS);
    }
}

/* One line: the course at 15 units a character, platforms '=', gaps ' ',
   the agent 'A' and the enemies 'E'. */
static int pf_render(void *env, uint32_t index, int color, char *buf, size_t cap)
{
    platform *c = env;
    (void)color;
    if (index >= c->n) return RL_EINVAL;
    const pf_env *e = &c->e[index];
    enum { W = 70 };
    char course[W + 1];
    for (int k = 0; k < W; k++) course[k] = pf_platform_of((k + 0.5) * PF_LENGTH / W) >= 0 ? '=' : ' ';
    course[W] = 0;
    for (int k = 0; k < PF_ENEMIES; k++) course[(int)(e->s.enemy[k] / PF_LENGTH * (W - 1))] = 'E';
    course[(int)(e->s.x / PF_LENGTH * (W - 1))] = 'A';
    rl_text t = rl_text_begin(buf, cap);
    rl_text_put(&t, "[%s]  x %6.1f  move %u", course, e->s.x, e->steps);
    return rl_text_end(&t);
}

static const rl_env_render_ext render_ext = {.struct_size = sizeof render_ext, .render = pf_render};

/* Exact resumes: each env's positions and directions as float64s, its
   move count and generator; loaded values are checked against the
   course. */
typedef struct pf_saved {
    double x, enemy[PF_ENEMIES], dir[PF_ENEMIES];
    uint32_t steps, pad;
    rl_rng rng;
} pf_saved;

static int check_loaded(const platform *c, const pf_saved *s, const char *name, char *err, size_t errlen)
{
    int rc;
    if ((rc = rl_state_check_f(name, s->x, 0, PF_LENGTH, err, errlen)) ||
        (rc = rl_state_check_f(name, s->steps, 0, c->max_steps - 1, err, errlen)))
        return rc;
    if (pf_platform_of(s->x) < 0) {
        RL_ERRF(err, errlen, "tensor '%s': the agent stands at %g, in a gap", name, s->x);
        return RL_ECORRUPT;
    }
    for (int k = 0; k < PF_ENEMIES; k++) {
        if ((rc = rl_state_check_f(name, s->enemy[k], pf_platform[k][0], pf_platform[k][1], err, errlen))) return rc;
        if (s->dir[k] != 1.0 && s->dir[k] != -1.0) {
            RL_ERRF(err, errlen, "tensor '%s': enemy %d walks in direction %g, not 1 or -1", name, k, s->dir[k]);
            return RL_ECORRUPT;
        }
    }
    return rl_state_check_rng(name, &s->rng, err, errlen);
}

static int pf_state_io(platform *c, const rl_state_io *io, const char *prefix, int load, char *err, size_t errlen)
{
    pf_saved *s = calloc(c->n, sizeof *s);
    if (!s) {
        RL_ERRF(err, errlen, "out of memory");
        return RL_ENOMEM;
    }
    for (uint32_t i = 0; !load && i < c->n; i++) {
        const pf_env *e = &c->e[i];
        s[i].x = e->s.x;
        memcpy(s[i].enemy, e->s.enemy, sizeof s[i].enemy);
        memcpy(s[i].dir, e->s.dir, sizeof s[i].dir);
        s[i].steps = e->steps;
        s[i].rng = e->rng;
    }
    char name[96];
    snprintf(name, sizeof name, "%splatform/state", prefix);
    int rc = rl_state_blob(io, load, prefix, "platform/state", s, c->n * sizeof *s, err, errlen);
    for (uint32_t i = 0; rc == RL_OK && load && i < c->n; i++) rc = check_loaded(c, &s[i], name, err, errlen);
    for (uint32_t i = 0; rc == RL_OK && load && i < c->n; i++) {
        pf_env *e = &c->e[i];
        e->s.x = s[i].x;
        memcpy(e->s.enemy, s[i].enemy, sizeof e->s.enemy);
        memcpy(e->s.dir, s[i].dir, sizeof e->s.dir);
        e->steps = s[i].steps;
        e->rng = s[i].rng;
    }
    free(s);
    return rc;
}

RL_ENV_STATE_EXT(state_ext, pf_state_io);

static const void *pf_get_extension(void *env, const char *id)
{
    (void)env;
    if (strcmp(id, RL_EXT_ENV_RENDER) == 0) return &render_ext;
    if (strcmp(id, RL_EXT_ENV_STATE) == 0) return &state_ext;
    return NULL;
}

static const rl_env_vtable vtable = {
    .struct_size = sizeof vtable,
    .create = pf_create,
    .destroy = pf_destroy,
    .reset = pf_reset_envs,
    .step = pf_step_envs,
    .get_extension = pf_get_extension,
};

static const rl_plugin_desc descs[] = {
    {
        .struct_size = sizeof(rl_plugin_desc),
        .kind = RL_KIND_ENV,
        .name = "platform",
        .version = "1.0.0",
        .description = "Platform: cross three platforms past two enemies by run, hop or leap, each with its own "
                       "continuous parameter (a hybrid action)",
        .options = options,
        .n_options = OPT_N,
        .vtable = &vtable,
    },
};

RL_PLUGIN_DEFINE_ARRAY(descs, NULL);
