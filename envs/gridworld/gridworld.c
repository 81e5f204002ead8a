/* Gridworld env plugin around gridworld_rules.c.  Observations are uint8
   0/1 (obs_scale 1):
     full  channels [wall, goal, lava, agent] x height x width; with turn
           actions the agent channel becomes four, one per facing
     view  channels [wall, goal, lava] x view_size^2 around the agent,
           rotated so the agent faces up when actions are turns
   then, for the T-maze, two cue values [goal up, goal down] that are set
   only during the first cue_steps steps.  In the T-maze the goal and lava
   channels stay empty: the arm ends look alike. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rlhost/raster.h>
#include <rlhost/text.h>

#include "gridworld_rules.h"

static const char *const layouts[] = {"empty", "four_rooms", "maze", "tmaze", NULL};
static const char *const obs_modes[] = {"full", "view", NULL};
static const char *const action_modes[] = {"moves", "turn", NULL};

enum {
    OPT_LAYOUT,
    OPT_MAP,
    OPT_SIZE,
    OPT_CORRIDOR,
    OPT_CUE_STEPS,
    OPT_RANDOM_START,
    OPT_RANDOM_GOAL,
    OPT_OBSERVATION,
    OPT_VIEW_SIZE,
    OPT_ACTIONS,
    OPT_GOAL_REWARD,
    OPT_LAVA_REWARD,
    OPT_STEP_REWARD,
    OPT_MAX_STEPS,
    OPT_AGENTS,
    OPT_N
};

static const rl_option_def options[OPT_N] = {
    [OPT_LAYOUT] =
        RL_OPTION_ENUM("layout", "empty", layouts, "built-in map: empty, four_rooms, maze, or tmaze (the memory task)"),
    [OPT_MAP] = RL_OPTION_STRING_LIST("map", "[]", "rows of # . S G L; when given it replaces layout"),
    [OPT_SIZE] = RL_OPTION_INT("size", "8", 1, 62, "interior side of the empty layout"),
    [OPT_CORRIDOR] = RL_OPTION_INT("corridor_length", "8", 1, 61, "tmaze: cells between the start and the junction"),
    [OPT_CUE_STEPS] = RL_OPTION_INT("cue_steps", "1", 1, 64, "tmaze: steps during which the cue is visible"),
    [OPT_RANDOM_START] = RL_OPTION_BOOL("random_start", "false", "start each episode on a random floor cell"),
    [OPT_RANDOM_GOAL] = RL_OPTION_BOOL("random_goal", "false", "put the goal on a random floor cell each episode"),
    [OPT_OBSERVATION] =
        RL_OPTION_ENUM("observation", "full", obs_modes, "full map (one-hot channels) or an egocentric view"),
    [OPT_VIEW_SIZE] = RL_OPTION_INT("view_size", "5", 3, 15, "side of the egocentric view (odd)"),
    [OPT_ACTIONS] =
        RL_OPTION_ENUM("actions", "moves", action_modes, "moves: up/right/down/left; turn: left/right/forward"),
    [OPT_GOAL_REWARD] =
        RL_OPTION_FLOAT("goal_reward", "1.0", -1e6, 1e6, "reward for reaching the goal (ends the episode)"),
    [OPT_LAVA_REWARD] =
        RL_OPTION_FLOAT("lava_reward", "-1.0", -1e6, 1e6, "reward for stepping into lava (ends the episode)"),
    [OPT_STEP_REWARD] =
        RL_OPTION_FLOAT_F("step_reward", "0.0", -1e6, 1e6, RL_OPT_AUTO, "reward every step; auto = -1 / max_steps"),
    [OPT_MAX_STEPS] = RL_OPTION_INT_F("max_steps", "\"auto\"", 1, 1e7, RL_OPT_AUTO,
                                      "truncate episodes here; auto = 4 x width x height (tmaze: "
                                      "4 x (corridor_length + 2), room for exploring)"),
    [OPT_AGENTS] = RL_OPTION_INT("agents", "1", 1, 64,
                                 "agents per map, each a row of the batch with a goal of its own; they block "
                                 "each other and start on random free cells"),
};

typedef struct grid_env {
    gw_config cfg;
    uint32_t n, obs_size, view;
    uint32_t k; /* agents per map */
    int view_mode, cue;
    gw_state *s;     /* n x k, map-major */
    uint8_t *base;   /* full mode: the static channels (walls, map lava, map goal) */
    uint8_t *padded; /* view mode: map codes with a wall border view/2 thick;
                        goal and lava hidden in the T-maze */
    uint32_t pw;     /* padded width */
} grid_env;

/* Agent j of the map whose agents are mates[0..k): its observation, with
   the others in a channel of their own when there are several. */
static void write_obs(const grid_env *e, const gw_state *mates, uint32_t me, uint8_t *o)
{
    const gw_state *s = &mates[me];
    const gw_config *c = &e->cfg;
    const gw_map *m = &c->map;
    int hide = m->tmaze;
    uint32_t base;
    if (!e->view_mode) {
        uint32_t area = m->width * m->height;
        memcpy(o, e->base, e->obs_size);
        if (!hide && s->goal != m->goal) { /* the goal moved this episode */
            if (m->goal >= 0) o[area + (uint32_t)m->goal] = 0;
            o[area + (uint32_t)s->goal] = 1;
        }
        o[(3 + (c->turn_actions ? (uint32_t)s->dir : 0)) * area + (uint32_t)s->pos] = 1;
        base = area * (c->turn_actions ? 7 : 4);
        if (e->k > 1) { /* the other agents (the channel is zero in e->base) */
            for (uint32_t q = 0; q < e->k; q++)
                if (q != me) o[base + (uint32_t)mates[q].pos] = 1;
            base += area;
        }
    } else {
        /* Agent frame -> world: right = (-fy, fx), forward = (fx, fy); the
           padded-map index is then linear in the view coordinates. */
        static const int fx[4] = {0, 1, 0, -1}, fy[4] = {-1, 0, 1, 0};
        int v = (int)e->view, r = v / 2, pw = (int)e->pw;
        int d = c->turn_actions ? s->dir : GW_UP;
        int w = (int)m->width, ax = s->pos % w, ay = s->pos / w;
        int step_x = fx[d] * pw - fy[d], step_y = -fy[d] * pw - fx[d];
        int wx0 = ax + r * fy[d] + r * fx[d], wy0 = ay - r * fx[d] + r * fy[d];
        const uint8_t *p0 = e->padded + (wy0 + r) * pw + (wx0 + r);
        uint32_t vv = (uint32_t)(v * v);
        for (int vy = 0; vy < v; vy++)
            for (int vx = 0; vx < v; vx++) {
                uint8_t code = p0[vy * step_y + vx * step_x];
                uint32_t k = (uint32_t)(vy * v + vx);
                o[k] = code == GW_WALL;
                o[vv + k] = code == GW_GOAL;
                o[2 * vv + k] = code == GW_LAVA;
            }
        if (!hide && s->goal != m->goal) { /* this episode's goal moved */
            int32_t cells[2] = {m->goal, s->goal};
            for (int j = 0; j < 2; j++) {
                if (cells[j] < 0) continue;
                int dx = cells[j] % w - ax, dy = cells[j] / w - ay;
                int vx = dx * -fy[d] + dy * fx[d] + r, vy = -(dx * fx[d] + dy * fy[d]) + r;
                if (vx >= 0 && vy >= 0 && vx < v && vy < v) o[vv + (uint32_t)(vy * v + vx)] = (uint8_t)j;
            }
        }
        base = 3 * vv;
        memset(o + base, 0, e->obs_size - base);
        if (e->k > 1) { /* the other agents inside the view */
            for (uint32_t q = 0; q < e->k; q++) {
                if (q == me) continue;
                int dx = mates[q].pos % w - ax, dy = mates[q].pos / w - ay;
                int vx = dx * -fy[d] + dy * fx[d] + r, vy = -(dx * fx[d] + dy * fy[d]) + r;
                if (vx >= 0 && vy >= 0 && vx < v && vy < v) o[base + (uint32_t)(vy * v + vx)] = 1;
            }
            base += vv;
        }
    }
    if (e->cue && s->steps < c->cue_steps) o[base + (s->goal_up ? 0 : 1)] = 1;
}

static void gw_destroy_env(void *env)
{
    grid_env *e = env;
    if (!e) return;
    free(e->s);
    free(e->base);
    free(e->padded);
    free(e);
}

/* The map (given or built in) and the checks that need it. */
static int read_map(grid_env *e, const rl_value *o, char *err, size_t errlen)
{
    gw_config *c = &e->cfg;
    char why[256];
    int rc = o[OPT_MAP].n ? gw_map_parse(&c->map, o[OPT_MAP].slist, (uint32_t)o[OPT_MAP].n, why, sizeof why)
                          : gw_map_builtin(&c->map, o[OPT_LAYOUT].s, (uint32_t)o[OPT_SIZE].i,
                                           (uint32_t)o[OPT_CORRIDOR].i, why, sizeof why);
    if (rc != RL_OK) {
        RL_ERRF(err, errlen, "%s", why);
        return rc;
    }
    const gw_map *m = &c->map;
    uint32_t floor_cells = 0;
    for (uint32_t i = 0; i < m->width * m->height; i++) floor_cells += m->cells[i] == GW_FLOOR;
    if (floor_cells < 2) {
        RL_ERRF(err, errlen, "map has %u floor cells; it needs at least 2", floor_cells);
        return RL_EINVAL;
    }
    e->k = (uint32_t)o[OPT_AGENTS].i;
    if (e->k > 1 && m->tmaze) {
        RL_ERRF(err, errlen, "tmaze holds one agent (its cue and arms are the agent's): agents must be 1");
        return RL_EINVAL;
    }
    if (e->k > 1 && floor_cells < e->k + 2) {
        RL_ERRF(err, errlen, "%u agents need at least %u floor cells; the map has %u", e->k, e->k + 2, floor_cells);
        return RL_EINVAL;
    }
    if (m->tmaze && (o[OPT_RANDOM_START].i || o[OPT_RANDOM_GOAL].i)) {
        RL_ERRF(err, errlen, "tmaze places start and goal itself: random_start and random_goal must be false");
        return RL_EINVAL;
    }
    e->view = (uint32_t)o[OPT_VIEW_SIZE].i;
    if (e->view % 2 == 0) {
        RL_ERRF(err, errlen, "view_size must be odd, got %u", e->view);
        return RL_EINVAL;
    }
    return RL_OK;
}

static void read_options(grid_env *e, const rl_value *o, uint32_t num_envs)
{
    gw_config *c = &e->cfg;
    const gw_map *m = &c->map;
    c->turn_actions = o[OPT_ACTIONS].i == 1;
    c->random_start = (int)o[OPT_RANDOM_START].i;
    c->random_goal = (int)o[OPT_RANDOM_GOAL].i;
    c->cue_steps = (uint32_t)o[OPT_CUE_STEPS].i;
    c->max_steps = o[OPT_MAX_STEPS].is_auto ? (m->tmaze ? 4 * (m->width - 3 + 2) : 4 * m->width * m->height)
                                            : (uint32_t)o[OPT_MAX_STEPS].i;
    c->goal_reward = (float)o[OPT_GOAL_REWARD].f;
    c->lava_reward = (float)o[OPT_LAVA_REWARD].f;
    c->step_reward = o[OPT_STEP_REWARD].is_auto ? -1.0f / (float)c->max_steps : (float)o[OPT_STEP_REWARD].f;
    e->view_mode = o[OPT_OBSERVATION].i == 1;
    e->cue = m->tmaze;
    e->n = num_envs;
}

/* The agents' states (each row seeds its RNG from (seed, row)) and the
   observation's fixed part: the walls, goal and lava planes, or the map
   padded with walls for views. */
static int alloc_envs(grid_env *e, uint64_t seed, uint32_t chans, uint32_t cue)
{
    const gw_map *m = &e->cfg.map;
    size_t rows = (size_t)e->n * e->k;
    e->s = calloc(rows, sizeof *e->s);
    if (!e->s) return RL_ENOMEM;
    for (size_t i = 0; i < rows; i++) rl_rng_seed(&e->s[i].rng, seed, i);
    e->obs_size = e->view_mode ? chans * e->view * e->view + cue : m->width * m->height * chans + cue;
    e->base = calloc(1, e->obs_size);
    if (!e->base) return RL_ENOMEM;
    if (!e->view_mode) {
        uint32_t area = m->width * m->height;
        for (uint32_t i = 0; i < area; i++) {
            e->base[i] = m->cells[i] == GW_WALL;
            e->base[area + i] = m->cells[i] == GW_GOAL && !m->tmaze;
            e->base[2 * area + i] = m->cells[i] == GW_LAVA && !m->tmaze;
        }
        return RL_OK;
    }
    uint32_t r = e->view / 2;
    e->pw = m->width + 2 * r;
    e->padded = malloc((size_t)e->pw * (m->height + 2 * r));
    if (!e->padded) return RL_ENOMEM;
    memset(e->padded, GW_WALL, (size_t)e->pw * (m->height + 2 * r));
    for (uint32_t y = 0; y < m->height; y++)
        for (uint32_t x = 0; x < m->width; x++) {
            uint8_t code = m->cells[y * m->width + x];
            if (m->tmaze && code != GW_WALL) code = GW_FLOOR;
            e->padded[(y + r) * e->pw + x + r] = code;
        }
    return RL_OK;
}

static int gw_create_env(const rl_env_args *args, void **out, rl_env_info *info, char *err, size_t errlen)
{
    grid_env *e = calloc(1, sizeof *e);
    if (!e) {
        RL_ERRF(err, errlen, "out of memory");
        return RL_ENOMEM;
    }
    int rc = read_map(e, args->options, err, errlen);
    if (rc != RL_OK) goto fail;
    read_options(e, args->options, args->num_envs);
    const gw_map *m = &e->cfg.map;
    uint32_t cue = e->cue ? 2 : 0, others = e->k > 1 ? 1 : 0;
    uint32_t chans = e->view_mode ? 3 + others : (e->cfg.turn_actions ? 7 : 4) + others;
    if ((rc = alloc_envs(e, args->seed, chans, cue)) != RL_OK) {
        RL_ERRF(err, errlen, "out of memory for %u envs", e->n);
        goto fail;
    }
    info->obs_dtype = RL_DTYPE_U8;
    info->obs_ndim = 1;
    info->obs_shape[0] = e->obs_size;
    if (!cue) { /* an image: [channels][height][width] (view: [3][view][view]) */
        info->obs_ndim = 3;
        info->obs_shape[0] = chans;
        info->obs_shape[1] = e->view_mode ? e->view : m->height;
        info->obs_shape[2] = e->view_mode ? e->view : m->width;
    }
    info->obs_size = e->obs_size;
    info->obs_scale = 1.0f;
    info->n_actions = e->cfg.turn_actions ? 3 : 4;
    info->score_name = "success";
    rl_env_info_set_time_limit(info, e->cfg.max_steps);
    if (rl_env_info_set_agents(info, e->k) != 0) {
        RL_ERRF(err, errlen, "agents = %u needs a host that knows agents per env (ABI 1.1)", e->k);
        rc = RL_EINVAL;
        goto fail;
    }
    *out = e;
    return RL_OK;
fail:
    gw_destroy_env(e);
    return rc;
}

/* Cells the agents of a map other than `me` hold (the first `upto` of
   them), into others; returns how many. */
static uint32_t others_of(const grid_env *e, const gw_state *mates, uint32_t me, uint32_t upto, int32_t *others)
{
    uint32_t n = 0;
    for (uint32_t q = 0; q < upto; q++)
        if (q != me) others[n++] = mates[q].pos;
    return n;
}

static void gw_reset_range(void *env, const rl_env_io *io, uint32_t first, uint32_t count)
{
    grid_env *e = env;
    int32_t others[64];
    for (uint32_t i = first; i < first + count; i++) {
        gw_state *mates = &e->s[(size_t)i * e->k];
        for (uint32_t j = 0; j < e->k; j++) /* each starts clear of those placed before it */
            gw_reset_among(&e->cfg, &mates[j], others, others_of(e, mates, j, j, others));
        for (uint32_t j = 0; j < e->k; j++)
            write_obs(e, mates, j, (uint8_t *)io->obs + ((size_t)i * e->k + j) * e->obs_size);
    }
}

static void gw_step_range(void *env, const rl_env_io *io, uint32_t first, uint32_t count)
{
    grid_env *e = env;
    int32_t others[64];
    for (uint32_t i = first; i < first + count; i++) {
        gw_state *mates = &e->s[(size_t)i * e->k];
        if (e->cfg.map.cells[mates[0].pos] == GW_WALL) /* never reset: a loaded state */
            for (uint32_t j = 0; j < e->k; j++)
                gw_reset_among(&e->cfg, &mates[j], others, others_of(e, mates, j, j, others));
        for (uint32_t j = 0; j < e->k; j++) { /* one after another: each sees where the others are */
            size_t r = (size_t)i * e->k + j;
            gw_state *s = &mates[j];
            gw_outcome out;
            uint32_t n_others = others_of(e, mates, j, e->k, others);
            io->rewards[r] = gw_step_among(&e->cfg, s, io->actions[r], others, n_others, &out);
            io->terminated[r] = out == GW_REACHED_GOAL || out == GW_IN_LAVA;
            io->truncated[r] = out == GW_TIMEOUT;
            if (out != GW_GO_ON) {
                write_obs(e, mates, j, (uint8_t *)io->final_obs + r * e->obs_size);
                io->scores[r] = out == GW_REACHED_GOAL ? 1.0f : 0.0f;
                gw_reset_among(&e->cfg, s, others, n_others);
            }
        }
        for (uint32_t j = 0; j < e->k; j++)
            write_obs(e, mates, j, (uint8_t *)io->obs + ((size_t)i * e->k + j) * e->obs_size);
    }
}

static int gw_render(void *env, uint32_t index, int color, char *buf, size_t cap)
{
    grid_env *e = env;
    if (index >= e->n) return RL_EINVAL;
    const gw_config *c = &e->cfg;
    const gw_state *mates = &e->s[(size_t)index * e->k], *s = mates; /* goal and lava: agent 0's */
    static const char arrows[4] = {'^', '>', 'v', '<'};
    rl_text t = rl_text_begin(buf, cap);
    for (uint32_t y = 0; y < c->map.height; y++) {
        for (uint32_t x = 0; x < c->map.width; x++) {
            int32_t i = (int32_t)(y * c->map.width + x);
            uint8_t code = gw_cell(c, s, i);
            uint32_t q = 1;
            while (q < e->k && mates[q].pos != i) q++;
            if (i == s->pos)
                rl_text_put(&t, "%s%c%s", color ? "\x1b[1;33m" : "", c->turn_actions ? arrows[s->dir] : '@',
                            color ? "\x1b[0m" : "");
            else if (q < e->k) /* another agent: a letter */
                rl_text_put(&t, "%s%c%s", color ? "\x1b[1;36m" : "", (char)('a' + (q - 1) % 26),
                            color ? "\x1b[0m" : "");
            else if (code == GW_WALL)
                rl_text_put(&t, "#");
            else if (code == GW_GOAL)
                rl_text_put(&t, "%sG%s", color ? "\x1b[1;32m" : "", color ? "\x1b[0m" : "");
            else if (code == GW_LAVA)
                rl_text_put(&t, "%sL%s", color ? "\x1b[1;31m" : "", color ? "\x1b[0m" : "");
            else
                rl_text_put(&t, ".");
        }
        rl_text_put(&t, "\n");
    }
    rl_text_put(&t, "step %u", s->steps);
    if (e->cue)
        rl_text_put(&t, "  cue: goal %s%s", s->goal_up ? "up" : "down", s->steps < c->cue_steps ? " (visible)" : "");
    return rl_text_end(&t);
}

static const rl_env_render_ext render_ext = {.struct_size = sizeof render_ext, .render = gw_render};

/* Pixels: 12 per cell; walls grey, the goal green, lava red, the agent a
   yellow disk with a mark on the side it faces (turning maps), other
   agents blue. */
enum { GW_CELL_PX = 12 };

static void gw_raster_size(void *env, uint32_t *height, uint32_t *width)
{
    const grid_env *e = env;
    *height = e->cfg.map.height * GW_CELL_PX;
    *width = e->cfg.map.width * GW_CELL_PX;
}

static int gw_raster(void *env, uint32_t index, uint8_t *rgb)
{
    const grid_env *e = env;
    if (index >= e->n) return RL_EINVAL;
    const gw_config *c = &e->cfg;
    const gw_state *mates = &e->s[(size_t)index * e->k], *s = mates;
    rl_raster im = {rgb, c->map.height * GW_CELL_PX, c->map.width * GW_CELL_PX};
    rl_raster_fill(&im, (rl_rgb){0, 0, 0});
    for (uint32_t y = 0; y < c->map.height; y++)
        for (uint32_t x = 0; x < c->map.width; x++) {
            uint8_t code = gw_cell(c, s, (int32_t)(y * c->map.width + x));
            rl_rgb col = code == GW_WALL ? (rl_rgb){100, 100, 100}
                : code == GW_GOAL        ? (rl_rgb){40, 200, 60}
                : code == GW_LAVA        ? (rl_rgb){230, 80, 30}
                                         : (rl_rgb){20, 20, 20};
            double px = x * GW_CELL_PX, py = y * GW_CELL_PX;
            rl_raster_rect(&im, px + 0.5, py + 0.5, px + GW_CELL_PX - 0.5, py + GW_CELL_PX - 0.5, col);
        }
    for (uint32_t q = e->k; q-- > 0;) { /* agent 0 last, on top */
        double cx = (mates[q].pos % c->map.width + 0.5) * GW_CELL_PX;
        double cy = (mates[q].pos / c->map.width + 0.5) * GW_CELL_PX;
        rl_raster_segment(&im, cx, cy, cx, cy, GW_CELL_PX * 0.35, q ? (rl_rgb){60, 120, 230} : (rl_rgb){240, 200, 30});
        if (c->turn_actions) {
            static const int dx[4] = {0, 1, 0, -1}, dy[4] = {-1, 0, 1, 0};
            double r = GW_CELL_PX * 0.3;
            rl_raster_segment(&im, cx + dx[mates[q].dir] * r, cy + dy[mates[q].dir] * r, cx + dx[mates[q].dir] * r,
                              cy + dy[mates[q].dir] * r, 1.5, (rl_rgb){0, 0, 0});
        }
    }
    return RL_OK;
}

static const rl_env_raster_ext raster_ext = {sizeof raster_ext, gw_raster_size, gw_raster};

/* State for exact resumes: every env's position, goal, cue, steps and RNG
   (gw_state holds no pointers). */
static int gw_save(void *env, const struct rl_state_io *io, const char *prefix, char *err, size_t errlen)
{
    grid_env *e = env;
    return rl_state_blob(io, 0, prefix, "gridworld/state", e->s, (size_t)e->n * e->k * sizeof *e->s, err, errlen);
}

/* The all-zero state of an env never reset (an eval env before its first
   evaluation). */
static int never_reset(const gw_state *s)
{
    return !s->pos && !s->goal && !s->lava && !s->dir && !s->goal_up && !s->steps;
}

static int gw_load(void *env, const struct rl_state_io *io, const char *prefix, char *err, size_t errlen)
{
    grid_env *e = env;
    size_t rows = (size_t)e->n * e->k;
    int rc = rl_state_blob(io, 1, prefix, "gridworld/state", e->s, rows * sizeof *e->s, err, errlen);
    for (size_t r = 0; rc == RL_OK && r < rows; r++) {
        char why[160];
        if (gw_state_check(&e->cfg, &e->s[r], why, sizeof why) != 0) {
            RL_ERRF(err, errlen, "tensor '%sgridworld/state': env %zu%s: %s", prefix, r / e->k,
                    e->k > 1 ? " (an agent)" : "", why);
            rc = RL_ECORRUPT;
        }
        /* agents of one map never share a cell (a map never reset has them all at 0) */
        const gw_state *mates = &e->s[r - r % e->k];
        for (uint32_t q = 0; rc == RL_OK && q < r % e->k; q++)
            if (mates[q].pos == e->s[r].pos && !(never_reset(&mates[q]) && never_reset(&e->s[r]))) {
                RL_ERRF(err, errlen, "tensor '%sgridworld/state': env %zu: agents %u and %zu share cell %d", prefix,
                        r / e->k, q, r % e->k, e->s[r].pos);
                rc = RL_ECORRUPT;
            }
    }
    return rc;
}

static const rl_env_state_ext state_ext = {sizeof state_ext, gw_save, gw_load};

static const void *gw_get_extension(void *env, const char *id)
{
    (void)env;
    if (strcmp(id, RL_EXT_ENV_RENDER) == 0) return &render_ext;
    if (strcmp(id, RL_EXT_ENV_RASTER) == 0) return &raster_ext;
    if (strcmp(id, RL_EXT_ENV_STATE) == 0) return &state_ext;
    return NULL;
}

static const rl_env_vtable vtable = {
    .struct_size = sizeof vtable,
    .create = gw_create_env,
    .destroy = gw_destroy_env,
    .reset = gw_reset_range,
    .step = gw_step_range,
    .get_extension = gw_get_extension,
};

static const rl_plugin_desc desc = {
    .struct_size = sizeof desc,
    .kind = RL_KIND_ENV,
    .name = "gridworld",
    .version = "1.0.0",
    .description = "grid navigation: walls, goal, lava; built-in layouts including the T-maze memory task",
    .options = options,
    .n_options = OPT_N,
    .vtable = &vtable,
};

RL_PLUGIN_DEFINE_SINGLE(desc);
