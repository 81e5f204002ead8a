/*
 * squad: K agents on a gridworld map, each with a goal of its own, moved by
 * one MultiDiscrete action of K components (up, right, down, left, stay).
 *
 * A move into a wall or into a cell another agent holds is blocked.  What a
 * blocked move is, the `blocked` option says: "mask" (the env masks it, ABI
 * 1.6: the learner never picks it), "penalty" (no masks: it costs
 * blocked_reward and the agent stays, the invalid-action penalty of Huang &
 * Ontanon's ablation) or "allow" (no masks, no cost: the agent stays).
 * Agents move in index order, each against the cells the others hold then;
 * an agent on its goal stays there (its only allowed move is stay) and earns
 * goal_reward once.  The episode ends when every agent is on its goal
 * (terminated) or at max_steps (truncated); its score is how many arrived.
 *
 * Observation: float32 channels [1 + 2K][height][width]: walls, then per
 * agent its cell and its goal's cell.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rlhost/plugin.h>
#include <rlhost/rlcore.h>

#include "gridworld_rules.h"

#define SQ_MAX 8
#define SQ_MOVES 5 /* up, right, down, left, stay */

static const char *const layouts[] = {"empty", "four_rooms", "maze", NULL};
static const char *const blocked_modes[] = {"mask", "penalty", "allow", NULL};

enum {
    OPT_LAYOUT,
    OPT_MAP,
    OPT_SIZE,
    OPT_AGENTS,
    OPT_BLOCKED,
    OPT_BLOCKED_REWARD,
    OPT_GOAL_REWARD,
    OPT_STEP_REWARD,
    OPT_MAX_STEPS,
    OPT_N
};

static const rl_option_def options[OPT_N] = {
    [OPT_LAYOUT] = RL_OPTION_ENUM("layout", "empty", layouts, "built-in map: empty, four_rooms or maze"),
    [OPT_MAP] = RL_OPTION_STRING_LIST("map", "[]", "rows of # and . (other map characters are floor); replaces layout"),
    [OPT_SIZE] = RL_OPTION_INT("size", "5", 2, 62, "interior side of the empty layout"),
    [OPT_AGENTS] = RL_OPTION_INT("agents", "3", 1, SQ_MAX, "agents in the squad: components of the action"),
    [OPT_BLOCKED] = RL_OPTION_ENUM("blocked", "mask", blocked_modes,
                                   "a move into a wall or another agent: masked (mask), costs blocked_reward "
                                   "and stays (penalty), or stays (allow)"),
    [OPT_BLOCKED_REWARD] = RL_OPTION_FLOAT("blocked_reward", "-0.1", -1e6, 1e6, "penalty: the cost of a blocked move"),
    [OPT_GOAL_REWARD] = RL_OPTION_FLOAT("goal_reward", "1.0", -1e6, 1e6, "reward when an agent reaches its goal"),
    [OPT_STEP_REWARD] = RL_OPTION_FLOAT("step_reward", "-0.01", -1e6, 1e6, "reward every step, for the squad"),
    [OPT_MAX_STEPS] = RL_OPTION_INT_F("max_steps", "\"auto\"", 1, 1e7, RL_OPT_AUTO,
                                      "truncate episodes here; auto = 2 x width x height"),
};

typedef struct sq_state {
    int32_t pos[SQ_MAX], goal[SQ_MAX];
    uint32_t arrived; /* bit a: agent a is on its goal */
    uint32_t steps;
    rl_rng rng;
} sq_state;

typedef struct squad_env {
    gw_map map;
    uint32_t n, K, max_steps, obs_size;
    int blocked; /* 0 mask, 1 penalty, 2 allow */
    float blocked_reward, goal_reward, step_reward;
    uint32_t nvec[SQ_MAX];
    int32_t *floor; /* the map's floor cells */
    uint32_t n_floor;
    sq_state *s;
} squad_env;

static void sq_destroy(void *env)
{
    squad_env *e = env;
    if (!e) return;
    free(e->floor);
    free(e->s);
    free(e);
}

/* The map of the options, every cell but '#' floor; its floor cells. */
static int read_map(squad_env *e, const rl_value *o, char *err, size_t errlen)
{
    char why[256];
    int rc = o[OPT_MAP].n ? gw_map_parse(&e->map, o[OPT_MAP].slist, (uint32_t)o[OPT_MAP].n, why, sizeof why)
                          : gw_map_builtin(&e->map, o[OPT_LAYOUT].s, (uint32_t)o[OPT_SIZE].i, 1, why, sizeof why);
    if (rc != RL_OK) {
        RL_ERRF(err, errlen, "%s", why);
        return rc;
    }
    uint32_t cells = e->map.width * e->map.height;
    e->floor = malloc(cells * sizeof *e->floor);
    if (!e->floor) return RL_ENOMEM;
    for (uint32_t i = 0; i < cells; i++) {
        if (e->map.cells[i] != GW_WALL) e->map.cells[i] = GW_FLOOR; /* goals and lava are the squad's own */
        if (e->map.cells[i] == GW_FLOOR) e->floor[e->n_floor++] = (int32_t)i;
    }
    if (e->n_floor < 2 * e->K) {
        RL_ERRF(err, errlen, "%u agents need %u floor cells (a start and a goal each); the map has %u", e->K, 2 * e->K,
                e->n_floor);
        return RL_EINVAL;
    }
    return RL_OK;
}

static int sq_create(const rl_env_args *args, void **out, rl_env_info *info, char *err, size_t errlen)
{
    const rl_value *o = args->options;
    squad_env *e = calloc(1, sizeof *e);
    if (!e) return RL_ENOMEM;
    e->n = args->num_envs;
    e->K = (uint32_t)o[OPT_AGENTS].i;
    e->blocked = (int)o[OPT_BLOCKED].i;
    e->blocked_reward = (float)o[OPT_BLOCKED_REWARD].f;
    e->goal_reward = (float)o[OPT_GOAL_REWARD].f;
    e->step_reward = (float)o[OPT_STEP_REWARD].f;
    int rc = read_map(e, o, err, errlen);
    if (rc == RL_OK && !(e->s = calloc(e->n, sizeof *e->s))) rc = RL_ENOMEM;
    if (rc != RL_OK) {
        sq_destroy(e);
        return rc;
    }
    uint32_t W = e->map.width, H = e->map.height;
    e->max_steps = o[OPT_MAX_STEPS].is_auto ? 2 * W * H : (uint32_t)o[OPT_MAX_STEPS].i;
    for (uint32_t i = 0; i < e->n; i++) rl_rng_seed(&e->s[i].rng, args->seed, i);
    for (uint32_t a = 0; a < e->K; a++) e->nvec[a] = SQ_MOVES;
    info->obs_dtype = RL_DTYPE_F32;
    info->obs_ndim = 3;
    info->obs_shape[0] = 1 + 2 * e->K, info->obs_shape[1] = H, info->obs_shape[2] = W;
    info->obs_size = e->obs_size = (1 + 2 * e->K) * H * W;
    info->obs_scale = 1.0f;
    info->score_name = "arrived";
    rl_env_info_set_time_limit(info, e->max_steps);
    if (rl_env_info_set_multi_discrete(info, e->K, e->nvec) != 0 || (e->blocked == 0 && rl_env_info_set_masks(info))) {
        RL_ERRF(err, errlen, "squad needs a host that takes MultiDiscrete actions and masks (ABI 1.6)");
        sq_destroy(e);
        return RL_EINVAL;
    }
    *out = e;
    return RL_OK;
}

static int32_t move_of(const squad_env *e, int32_t pos, int action)
{
    static const int dx[4] = {0, 1, 0, -1}, dy[4] = {-1, 0, 1, 0};
    if (action >= 4) return pos;
    int x = pos % (int)e->map.width + dx[action], y = pos / (int)e->map.width + dy[action];
    if (x < 0 || y < 0 || x >= (int)e->map.width || y >= (int)e->map.height) return -1;
    int32_t to = y * (int32_t)e->map.width + x;
    return e->map.cells[to] == GW_WALL ? -1 : to;
}

/* Whether a cell is held by an agent other than a. */
static int taken(const squad_env *e, const sq_state *s, uint32_t a, int32_t cell)
{
    for (uint32_t b = 0; b < e->K; b++)
        if (b != a && s->pos[b] == cell) return 1;
    return 0;
}

static void write_obs(const squad_env *e, const sq_state *s, float *o)
{
    uint32_t area = e->map.width * e->map.height;
    memset(o, 0, e->obs_size * sizeof *o);
    for (uint32_t i = 0; i < area; i++) o[i] = e->map.cells[i] == GW_WALL;
    for (uint32_t a = 0; a < e->K; a++) {
        o[(1 + 2 * a) * area + (uint32_t)s->pos[a]] = 1.0f;
        o[(2 + 2 * a) * area + (uint32_t)s->goal[a]] = 1.0f;
    }
}

/* Each agent's allowed moves: free cells and stay; an arrived agent stays. */
static void write_mask(const squad_env *e, const sq_state *s, uint8_t *m)
{
    for (uint32_t a = 0; a < e->K; a++, m += SQ_MOVES) {
        int arrived = (s->arrived >> a) & 1;
        for (int k = 0; k < 4; k++) {
            int32_t to = move_of(e, s->pos[a], k);
            m[k] = !arrived && to >= 0 && !taken(e, s, a, to);
        }
        m[4] = 1;
    }
}

/* K distinct cells drawn from the floor, none in avoid[0..n_avoid). */
static void draw_cells(const squad_env *e, rl_rng *rng, int32_t *out, const int32_t *avoid, uint32_t n_avoid)
{
    for (uint32_t a = 0; a < e->K; a++) {
        int clash;
        do {
            out[a] = e->floor[rl_rng_below(rng, e->n_floor)];
            clash = 0;
            for (uint32_t b = 0; b < a; b++) clash |= out[b] == out[a];
            for (uint32_t b = 0; b < n_avoid; b++) clash |= avoid[b] == out[a];
        } while (clash); /* 2K floor cells at least: always ends */
    }
}

static void start(const squad_env *e, sq_state *s)
{
    draw_cells(e, &s->rng, s->pos, NULL, 0);
    draw_cells(e, &s->rng, s->goal, s->pos, e->K);
    s->arrived = 0;
    s->steps = 0;
}

static void show(const squad_env *e, const rl_env_io *io, uint32_t i, int final)
{
    void *obs = final ? io->final_obs : io->obs;
    uint8_t *masks = final ? io->final_mask : io->action_mask;
    write_obs(e, &e->s[i], (float *)obs + (size_t)i * e->obs_size);
    if (e->blocked == 0) write_mask(e, &e->s[i], masks + (size_t)i * e->K * SQ_MOVES);
}

static void sq_reset(void *env, const rl_env_io *io, uint32_t first, uint32_t count)
{
    squad_env *e = env;
    for (uint32_t i = first; i < first + count; i++) {
        start(e, &e->s[i]);
        show(e, io, i, 0);
    }
}

/* One step of env i's squad; returns the reward. */
static float advance(const squad_env *e, sq_state *s, const int32_t *act)
{
    float r = e->step_reward;
    for (uint32_t a = 0; a < e->K; a++) {
        if ((s->arrived >> a) & 1) continue;
        int32_t to = move_of(e, s->pos[a], act[a]);
        if (to < 0 || taken(e, s, a, to)) { /* masked, or the cell an earlier agent just took */
            if (e->blocked == 1) r += e->blocked_reward;
            continue;
        }
        s->pos[a] = to;
        if (to == s->goal[a]) {
            s->arrived |= 1u << a;
            r += e->goal_reward;
        }
    }
    s->steps++;
    return r;
}

/* The all-zero cells of an env never reset (an eval env before its first
   evaluation, as a checkpoint holds it). */
static int never_reset(const squad_env *e, const sq_state *s)
{
    int zero = !s->steps && !s->arrived;
    for (uint32_t a = 0; zero && a < e->K; a++) zero = !s->pos[a] && !s->goal[a];
    return zero;
}

static void sq_step(void *env, const rl_env_io *io, uint32_t first, uint32_t count)
{
    squad_env *e = env;
    uint32_t all = (1u << e->K) - 1;
    for (uint32_t i = first; i < first + count; i++) {
        sq_state *s = &e->s[i];
        if (never_reset(e, s)) start(e, s); /* only a loaded state can be */
        io->rewards[i] = advance(e, s, io->actions + (size_t)i * e->K);
        io->terminated[i] = s->arrived == all;
        io->truncated[i] = !io->terminated[i] && s->steps >= e->max_steps;
        if (io->terminated[i] || io->truncated[i]) {
            show(e, io, i, 1);
            io->scores[i] = (float)__builtin_popcount(s->arrived);
            start(e, s);
        }
        show(e, io, i, 0);
    }
}

/* Text: walls '#', floor '.', agent a as the digit a, its goal as the
   letter 'a' + a (upper case once it arrived, where it then stands). */
static int sq_render(void *env, uint32_t index, int color, char *buf, size_t cap)
{
    squad_env *e = env;
    (void)color;
    const sq_state *s = &e->s[index];
    size_t n = 0;
    for (uint32_t y = 0; y < e->map.height; y++) {
        for (uint32_t x = 0; x < e->map.width && n + 2 < cap; x++) {
            int32_t c = (int32_t)(y * e->map.width + x);
            char ch = e->map.cells[c] == GW_WALL ? '#' : '.';
            for (uint32_t a = 0; a < e->K; a++) {
                if (s->goal[a] == c) ch = (char)(((s->arrived >> a) & 1 ? 'A' : 'a') + a);
                if (s->pos[a] == c && !((s->arrived >> a) & 1)) ch = (char)('0' + a);
            }
            buf[n++] = ch;
        }
        if (n + 1 < cap) buf[n++] = '\n';
    }
    int w = snprintf(buf + n, cap > n ? cap - n : 0, "step %u, %d of %u arrived\n", s->steps,
                     __builtin_popcount(s->arrived), e->K);
    return w < 0 || n + (size_t)w >= cap ? RL_EINVAL : (int)(n + (size_t)w);
}

static const rl_env_render_ext render_ext = {.struct_size = sizeof render_ext, .render = sq_render};

/* Exact resumes: every env's cells, arrivals, steps and RNG, checked on load. */
static int sq_state_io(void *env, const struct rl_state_io *io, const char *prefix, int load, char *err, size_t errlen)
{
    squad_env *e = env;
    int rc = rl_state_blob(io, load, prefix, "squad/state", e->s, (size_t)e->n * sizeof *e->s, err, errlen);
    int32_t cells = (int32_t)(e->map.width * e->map.height);
    for (uint32_t i = 0; rc == RL_OK && load && i < e->n; i++) {
        const sq_state *s = &e->s[i];
        if (never_reset(e, s)) continue;
        int bad = s->arrived >> e->K != 0 || s->steps > e->max_steps;
        for (uint32_t a = 0; a < e->K; a++) {
            bad |= s->pos[a] < 0 || s->pos[a] >= cells || s->goal[a] < 0 || s->goal[a] >= cells;
            bad |= !bad && (e->map.cells[s->pos[a]] == GW_WALL || e->map.cells[s->goal[a]] == GW_WALL);
            for (uint32_t b = 0; !bad && b < a; b++) bad |= s->pos[b] == s->pos[a] && (s->steps || s->arrived);
        }
        if (bad || rl_state_check_rng("squad/state", &s->rng, err, errlen) != RL_OK) {
            RL_ERRF(err, errlen, "tensor '%ssquad/state': env %u holds a cell, arrival or step count outside its map",
                    prefix, i);
            rc = RL_ECORRUPT;
        }
    }
    return rc;
}

RL_ENV_STATE_EXT(state_ext, sq_state_io);

static const void *sq_get_extension(void *env, const char *id)
{
    (void)env;
    if (strcmp(id, RL_EXT_ENV_RENDER) == 0) return &render_ext;
    if (strcmp(id, RL_EXT_ENV_STATE) == 0) return &state_ext;
    return NULL;
}

static const rl_env_vtable vtable = {
    .struct_size = sizeof vtable,
    .create = sq_create,
    .destroy = sq_destroy,
    .reset = sq_reset,
    .step = sq_step,
    .get_extension = sq_get_extension,
};

static const rl_plugin_desc desc = {
    .struct_size = sizeof desc,
    .kind = RL_KIND_ENV,
    .name = "squad",
    .version = "1.0.0",
    .description = "a squad of agents with goals of their own on a gridworld map, one MultiDiscrete action, blocked "
                   "moves masked",
    .options = options,
    .n_options = OPT_N,
    .vtable = &vtable,
};

RL_PLUGIN_DEFINE_SINGLE(desc);
