/* Snake env plugin: options, buffers and rendering around the rules
   (snake_rules.c; snake_board.c for several snakes per board) and
   observations (snake_obs.c). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rlhost/raster.h>
#include <rlhost/text.h>

#include "snake_board.h"
#include "snake_obs.h"

static const char *const obs_modes[] = {"features", "grid", "window", "dict", NULL};
static const char *const action_modes[] = {"absolute", "relative", NULL};
static const char *const mask_modes[] = {"none", "reverse", "deadly", NULL};

enum {
    OPT_WIDTH,
    OPT_HEIGHT,
    OPT_ACTIONS,
    OPT_OBSERVATION,
    OPT_VISION,
    OPT_BODY_ORDER,
    OPT_FLOOD_FILL,
    OPT_FOOD_REWARD,
    OPT_DEATH_REWARD,
    OPT_STEP_REWARD,
    OPT_DISTANCE_SHAPING,
    OPT_MAX_IDLE,
    OPT_INITIAL_LENGTH,
    OPT_SNAKES,
    OPT_FOOD_COUNT,
    OPT_TAIL_REACH,
    OPT_ACTION_MASK,
    OPT_N
};

static const rl_option_def options[OPT_N] = {
    [OPT_WIDTH] = RL_OPTION_INT("width", "10", 4, 64, "board width in cells"),
    [OPT_HEIGHT] = RL_OPTION_INT("height", "10", 4, 64, "board height in cells"),
    [OPT_ACTIONS] = RL_OPTION_ENUM("actions", "absolute", action_modes,
                                   "absolute: up/right/down/left (reversing keeps going straight); "
                                   "relative: straight/left/right"),
    [OPT_OBSERVATION] = RL_OPTION_ENUM("observation", "features", obs_modes,
                                       "features (11 floats), grid (uint8 channels), window (egocentric "
                                       "uint8 view) or dict (parts: board as grid's channels, heading, "
                                       "stats: length and hunger)"),
    [OPT_VISION] = RL_OPTION_INT("vision", "5", 1, 15, "window radius: the view is (2 vision + 1)^2 cells"),
    [OPT_BODY_ORDER] =
        RL_OPTION_BOOL("body_order", "false", "grid: add a channel with each body cell's order (tail to head)"),
    [OPT_FLOOD_FILL] =
        RL_OPTION_BOOL("flood_fill", "false", "append, per action, the fraction of free cells reachable after it"),
    [OPT_FOOD_REWARD] = RL_OPTION_FLOAT("food_reward", "1.0", -1e6, 1e6, "reward for eating"),
    [OPT_DEATH_REWARD] = RL_OPTION_FLOAT("death_reward", "-1.0", -1e6, 1e6, "reward for hitting a wall or the body"),
    [OPT_STEP_REWARD] = RL_OPTION_FLOAT("step_reward", "0.0", -1e6, 1e6, "reward every step"),
    [OPT_DISTANCE_SHAPING] =
        RL_OPTION_FLOAT("distance_shaping", "0.0", -1e6, 1e6, "reward x (Manhattan distance to food before - after)"),
    [OPT_MAX_IDLE] = RL_OPTION_INT_F("max_idle_steps", "\"auto\"", 1, 1e7, RL_OPT_AUTO,
                                     "truncate after this many steps without food; auto = 2 x width x height"),
    [OPT_INITIAL_LENGTH] = RL_OPTION_INT("initial_length", "3", 1, 16, "snake length at the start of an episode"),
    [OPT_SNAKES] = RL_OPTION_INT("snakes", "1", 1, 1024,
                                 "snakes per board, each an agent (a row of the batch); they share the food "
                                 "and die on each other's bodies; a dead one respawns"),
    [OPT_FOOD_COUNT] = RL_OPTION_INT_F("food_count", "\"auto\"", 1, 4096, RL_OPT_AUTO,
                                       "food cells on a board with several snakes; auto = one per snake"),
    [OPT_TAIL_REACH] = RL_OPTION_BOOL("tail_reach", "false",
                                      "with flood_fill: append, per action, whether the tail stays reachable "
                                      "after it"),
    [OPT_ACTION_MASK] = RL_OPTION_ENUM("action_mask", "none", mask_modes,
                                       "masks the env writes: none; reverse: absolute moves back into the neck; "
                                       "deadly: also moves into a wall or a body (unless every move is)"),
};

typedef struct snake_env {
    sn_config cfg;
    uint32_t n, obs_size, n_actions;
    uint32_t k, n_food; /* snakes per board (1: snake_rules alone) and food cells */
    int mode, flood, order, tail;
    int mask;             /* 0 none, 1 reverse, 2 deadly */
    rl_obs_part parts[3]; /* observation = "dict": board, heading, stats */
    sn_state *s;          /* n x k, board-major */
    sn_board *boards;     /* k > 1: n boards */
    uint32_t *food;       /* k > 1: n x n_food */
    sn_outcome *outcome;  /* k > 1: n x k, a step's outcomes */
    uint8_t *cells, *images, *marks;
    uint16_t *body, *queue;
} snake_env;

static void sn_destroy_env(void *env)
{
    snake_env *e = env;
    if (!e) return;
    free(e->s);
    free(e->boards);
    free(e->food);
    free(e->outcome);
    rl_free(e->cells);
    rl_free(e->images);
    rl_free(e->body);
    rl_free(e->marks);
    rl_free(e->queue);
    free(e);
}

static void read_options(snake_env *e, const rl_value *o, uint32_t num_envs)
{
    sn_config *c = &e->cfg;
    c->width = (uint32_t)o[OPT_WIDTH].i;
    c->height = (uint32_t)o[OPT_HEIGHT].i;
    c->relative_actions = o[OPT_ACTIONS].i == 1;
    c->initial_length = (uint32_t)o[OPT_INITIAL_LENGTH].i;
    c->food_reward = (float)o[OPT_FOOD_REWARD].f;
    c->death_reward = (float)o[OPT_DEATH_REWARD].f;
    c->step_reward = (float)o[OPT_STEP_REWARD].f;
    c->distance_shaping = (float)o[OPT_DISTANCE_SHAPING].f;
    c->max_idle_steps = o[OPT_MAX_IDLE].is_auto ? 2 * c->width * c->height : (uint32_t)o[OPT_MAX_IDLE].i;
    e->mode = (int)o[OPT_OBSERVATION].i;
    e->flood = (int)o[OPT_FLOOD_FILL].i;
    e->tail = (int)o[OPT_TAIL_REACH].i;
    e->order = (int)o[OPT_BODY_ORDER].i;
    e->mask = (int)o[OPT_ACTION_MASK].i;
    c->pad = e->mode == SN_OBS_WINDOW ? (uint32_t)o[OPT_VISION].i : 1;
    e->n = num_envs;
    e->n_actions = c->relative_actions ? 3 : 4;
    e->k = (uint32_t)o[OPT_SNAKES].i;
    e->n_food = o[OPT_FOOD_COUNT].is_auto ? e->k : (uint32_t)o[OPT_FOOD_COUNT].i;
}

static int validate(const snake_env *e, char *err, size_t errlen)
{
    const sn_config *c = &e->cfg;
    if (e->tail && !e->flood) {
        RL_ERRF(err, errlen, "tail_reach needs flood_fill = true");
        return RL_EINVAL;
    }
    /* the snake starts straight in any of the four directions */
    if (c->initial_length > c->width || c->initial_length > c->height) {
        RL_ERRF(err, errlen, "initial_length %u does not fit a %ux%u board", c->initial_length, c->width, c->height);
        return RL_EINVAL;
    }
    if (e->mask == 1 && c->relative_actions) {
        RL_ERRF(err, errlen, "action_mask = \"reverse\" needs actions = \"absolute\" (relative actions never reverse)");
        return RL_EINVAL;
    }
    if (e->mask && e->k > 1) {
        RL_ERRF(err, errlen, "action_mask needs snakes = 1 (there are %u per board)", e->k);
        return RL_EINVAL;
    }
    if (e->mode == SN_OBS_DICT && (e->flood || e->k > 1)) {
        RL_ERRF(err, errlen, "observation = \"dict\" needs %s", e->flood ? "flood_fill = false" : "snakes = 1");
        return RL_EINVAL;
    }
    if (e->order && e->mode != SN_OBS_GRID && e->mode != SN_OBS_DICT) {
        RL_ERRF(err, errlen, "body_order needs observation = \"grid\" or \"dict\"");
        return RL_EINVAL;
    }
    if (e->k == 1) return RL_OK;
    const char *alone = e->flood      ? "flood_fill"
        : e->order                    ? "body_order"
        : c->distance_shaping != 0.0f ? "distance_shaping"
                                      : NULL;
    if (alone) {
        RL_ERRF(err, errlen, "%s needs snakes = 1 (there are %u per board)", alone, e->k);
        return RL_EINVAL;
    }
    uint64_t need = (uint64_t)e->k * c->initial_length * 2 + e->n_food;
    if (need > (uint64_t)c->width * c->height) {
        RL_ERRF(err, errlen,
                "%u snakes of initial_length %u and %u food need a board of at least %llu cells "
                "(2 cells per snake cell), not %ux%u",
                e->k, c->initial_length, e->n_food, (unsigned long long)need, c->width, c->height);
        return RL_EINVAL;
    }
    return RL_OK;
}

/* Every env's state, cells and body carved from shared arrays; each board
   (or lone snake) seeds its RNG from (seed, env index). */
static int alloc_envs(snake_env *e, uint64_t seed, char *err, size_t errlen)
{
    const sn_config *c = &e->cfg;
    uint32_t cb = sn_cells_bytes(c), cap = sn_body_capacity(c);
    size_t rows = (size_t)e->n * e->k;
    e->s = calloc(rows, sizeof *e->s);
    e->cells = rl_calloc_aligned(e->n, cb);
    e->body = rl_calloc_aligned(rows * cap, sizeof(uint16_t));
    if (e->k > 1) {
        e->boards = calloc(e->n, sizeof *e->boards);
        e->food = calloc((size_t)e->n * e->n_food, sizeof *e->food);
        e->outcome = calloc(rows, sizeof *e->outcome);
        if (!e->boards || !e->food || !e->outcome) {
            RL_ERRF(err, errlen, "out of memory for %u boards of %u snakes", e->n, e->k);
            return RL_ENOMEM;
        }
    }
    e->marks = rl_calloc_aligned(e->n, cb);
    e->queue = rl_calloc_aligned((size_t)e->n * cap, sizeof(uint16_t));
    if ((e->mode == SN_OBS_GRID || e->mode == SN_OBS_DICT) && e->k == 1)
        e->images = rl_calloc_aligned(e->n, sn_image_bytes(c));
    if (!e->s || !e->cells || !e->body || !e->marks || !e->queue ||
        ((e->mode == SN_OBS_GRID || e->mode == SN_OBS_DICT) && e->k == 1 && !e->images)) {
        RL_ERRF(err, errlen, "out of memory for %u envs", e->n);
        return RL_ENOMEM;
    }
    for (uint32_t i = 0; i < e->n && e->k == 1; i++) {
        e->s[i].cells = e->cells + (size_t)i * cb;
        e->s[i].body = e->body + (size_t)i * cap;
        e->s[i].image = e->images ? e->images + (size_t)i * sn_image_bytes(c) : NULL;
        rl_rng_seed(&e->s[i].rng, seed, i);
    }
    for (uint32_t i = 0; i < e->n && e->k > 1; i++) {
        sn_board *b = &e->boards[i];
        b->cells = e->cells + (size_t)i * cb;
        b->snakes = e->s + (size_t)i * e->k;
        b->k = e->k;
        b->n_food = e->n_food;
        b->food = e->food + (size_t)i * e->n_food;
        rl_rng_seed(&b->rng, seed, i);
        for (uint32_t j = 0; j < e->k; j++) {
            b->snakes[j].cells = b->cells;
            b->snakes[j].body = e->body + ((size_t)i * e->k + j) * cap;
        }
    }
    return RL_OK;
}

/* The observation's dtype and shape for the mode, and the action count. */
static void describe(snake_env *e, rl_env_info *info)
{
    const sn_config *c = &e->cfg;
    uint32_t extra = e->flood ? e->n_actions * (e->tail ? 2 : 1) : 0;
    if (e->mode == SN_OBS_FEATURES) {
        info->obs_dtype = RL_DTYPE_F32;
        info->obs_ndim = 1;
        info->obs_shape[0] = 11 + extra;
        info->obs_scale = 1.0f;
    } else if (e->mode == SN_OBS_WINDOW) {
        uint32_t side = 2 * c->pad + 1;
        info->obs_dtype = RL_DTYPE_U8;
        info->obs_ndim = extra ? 1 : 2;
        info->obs_shape[0] = extra ? side * side + extra : side;
        info->obs_shape[1] = side;
        info->obs_scale = 1.0f / 255.0f;
    } else if (e->mode == SN_OBS_DICT) {
        static const uint32_t headings[1] = {4};
        uint32_t ch = e->order ? 4 : 3, heading, stats, row;
        sn_dict_layout(ch * c->width * c->height, &heading, &stats, &row);
        e->parts[0] = (rl_obs_part){sizeof(rl_obs_part),       "board", RL_PART_BOX,   RL_DTYPE_U8, 3,
                                    {ch, c->height, c->width}, 0,       1.0f / 255.0f, NULL};
        e->parts[1] = (rl_obs_part){
            sizeof(rl_obs_part), "heading", RL_PART_DISCRETE, RL_DTYPE_U8, 1, {1}, heading, 1.0f, headings};
        e->parts[2] = (rl_obs_part){sizeof(rl_obs_part), "stats", RL_PART_BOX, RL_DTYPE_F32, 1, {2}, stats, 1.0f, NULL};
        info->obs_dtype = RL_DTYPE_U8;
        info->obs_ndim = 1;
        info->obs_shape[0] = row;
        info->obs_scale = 1.0f;
    } else {
        uint32_t ch = e->order || e->k > 1 ? 4 : 3; /* several snakes: a channel for the others */
        info->obs_dtype = RL_DTYPE_U8;
        info->obs_scale = 1.0f / 255.0f;
        if (extra) {
            info->obs_ndim = 1;
            info->obs_shape[0] = ch * c->width * c->height + extra;
        } else {
            info->obs_ndim = 3;
            info->obs_shape[0] = ch;
            info->obs_shape[1] = c->height;
            info->obs_shape[2] = c->width;
        }
    }
    info->obs_size = 1;
    for (uint32_t k = 0; k < info->obs_ndim; k++) info->obs_size *= info->obs_shape[k];
    e->obs_size = info->obs_size;
    info->n_actions = e->n_actions;
    info->score_name = "food";
}

static int sn_create_env(const rl_env_args *args, void **out, rl_env_info *info, char *err, size_t errlen)
{
    snake_env *e = calloc(1, sizeof *e);
    if (!e) {
        RL_ERRF(err, errlen, "out of memory");
        return RL_ENOMEM;
    }
    read_options(e, args->options, args->num_envs);
    int rc = validate(e, err, errlen);
    if (rc == RL_OK) rc = alloc_envs(e, args->seed, err, errlen);
    if (rc != RL_OK) goto fail;
    describe(e, info);
    if (rl_env_info_set_agents(info, e->k) != 0) {
        RL_ERRF(err, errlen, "snakes = %u needs a host that knows agents per env (ABI 1.1)", e->k);
        rc = RL_EINVAL;
        goto fail;
    }
    if (e->mode == SN_OBS_DICT && rl_env_info_set_parts(info, 3, e->parts) != 0) {
        RL_ERRF(err, errlen, "observation = \"dict\" needs a host that takes composite observations (ABI 1.6)");
        rc = RL_EINVAL;
        goto fail;
    }
    if (e->mask && rl_env_info_set_masks(info) != 0) {
        RL_ERRF(err, errlen, "action_mask needs a host that takes action masks (ABI 1.6)");
        rc = RL_EINVAL;
        goto fail;
    }
    *out = e;
    return RL_OK;
fail:
    sn_destroy_env(e);
    return rc;
}

static size_t obs_bytes(const snake_env *e)
{
    return (size_t)e->obs_size * (e->mode == SN_OBS_FEATURES ? 4 : 1);
}

/* Row r's observation on a board of several snakes (board r / k). */
static void write_multi_obs(snake_env *e, uint32_t r, void *dst)
{
    sn_board *b = &e->boards[r / e->k];
    uint32_t j = r % e->k;
    if (e->mode == SN_OBS_GRID) {
        snb_write_grid(&e->cfg, b, j, dst);
        return;
    }
    sn_state *s = &e->s[r];
    if (e->mode == SN_OBS_FEATURES) s->food = snb_nearest_food(&e->cfg, b, j); /* what they point at */
    sn_write_obs(&e->cfg, s, e->mode, 0, 0, 0, NULL, dst);
}

/* Writes env i's observation; flood fill uses env i's own scratch slice, so
   worker threads never share it. */
static void write_env_obs(snake_env *e, uint32_t i, void *dst)
{
    if (e->k > 1) {
        write_multi_obs(e, i, dst);
        return;
    }
    if (e->flood) {
        sn_obs_scratch scratch = {e->marks + (size_t)i * sn_cells_bytes(&e->cfg),
                                  e->queue + (size_t)i * sn_body_capacity(&e->cfg)};
        sn_write_obs(&e->cfg, &e->s[i], e->mode, e->order, e->n_actions, e->tail, &scratch, dst);
    } else {
        sn_write_obs(&e->cfg, &e->s[i], e->mode, e->order, 0, 0, NULL, dst);
    }
}

/* Env i's action mask into row i of masks, when it masks (the host that
   let it declare masks hands it the buffers). */
static void write_env_mask(const snake_env *e, uint32_t i, uint8_t *masks)
{
    if (e->mask) sn_action_mask(&e->cfg, &e->s[i], e->mask == 2, masks + (size_t)i * e->n_actions);
}

static void sn_reset_range(void *env, const rl_env_io *io, uint32_t first, uint32_t count)
{
    snake_env *e = env;
    size_t ob = obs_bytes(e);
    if (e->k > 1) {
        for (uint32_t i = first; i < first + count; i++) {
            snb_reset(&e->cfg, &e->boards[i]);
            for (uint32_t r = i * e->k; r < (i + 1) * e->k; r++) write_env_obs(e, r, (uint8_t *)io->obs + r * ob);
        }
        return;
    }
    for (uint32_t i = first; i < first + count; i++) {
        sn_reset(&e->cfg, &e->s[i]);
        write_env_obs(e, i, (uint8_t *)io->obs + i * ob);
        write_env_mask(e, i, io->action_mask);
    }
}

/* Boards [first, first+count) of several snakes: every snake moves, those
   whose episode ended leave their final observation and respawn. */
static void step_boards(snake_env *e, const rl_env_io *io, uint32_t first, uint32_t count)
{
    size_t ob = obs_bytes(e);
    uint32_t K = e->k;
    for (uint32_t i = first; i < first + count; i++) {
        sn_board *b = &e->boards[i];
        uint32_t r0 = i * K;
        sn_outcome *out = e->outcome + r0;
        if (!b->snakes[0].length) snb_reset(&e->cfg, b); /* never reset: only a loaded state can be */
        snb_step(&e->cfg, b, io->actions + r0, io->rewards + r0, out);
        int full = 0;
        for (uint32_t j = 0; j < K; j++) {
            uint32_t r = r0 + j;
            io->terminated[r] = out[j] == SN_DIED;
            io->truncated[r] = out[j] == SN_IDLE_OUT;
            if (out[j] == SN_GO_ON) continue;
            write_env_obs(e, r, (uint8_t *)io->final_obs + r * ob);
            io->scores[r] = (float)b->snakes[j].score;
            if (out[j] == SN_IDLE_OUT) snb_clear(&e->cfg, b, j);
        }
        for (uint32_t j = 0; j < K && !full; j++)
            if (out[j] != SN_GO_ON) full = snb_respawn(&e->cfg, b, j) != 0;
        if (full) { /* no room to respawn: every snake's episode ends here */
            for (uint32_t j = 0; j < K; j++) {
                uint32_t r = r0 + j;
                if (out[j] != SN_GO_ON) continue;
                io->truncated[r] = 1;
                write_env_obs(e, r, (uint8_t *)io->final_obs + r * ob);
                io->scores[r] = (float)b->snakes[j].score;
            }
            snb_reset(&e->cfg, b);
        }
        for (uint32_t r = r0; r < r0 + K; r++) write_env_obs(e, r, (uint8_t *)io->obs + r * ob);
    }
}

static void sn_step_range(void *env, const rl_env_io *io, uint32_t first, uint32_t count)
{
    snake_env *e = env;
    size_t ob = obs_bytes(e);
    if (e->k > 1) {
        step_boards(e, io, first, count);
        return;
    }
    for (uint32_t i = first; i < first + count; i++) {
        sn_state *s = &e->s[i];
        sn_outcome out;
        if (!s->length) sn_reset(&e->cfg, s); /* never reset: only a loaded state can be */
        io->rewards[i] = sn_step(&e->cfg, s, io->actions[i], &out);
        io->terminated[i] = out == SN_DIED || out == SN_WON;
        io->truncated[i] = out == SN_IDLE_OUT;
        if (out != SN_GO_ON) {
            /* After a death the board still shows the pre-move state. */
            write_env_obs(e, i, (uint8_t *)io->final_obs + i * ob);
            write_env_mask(e, i, io->final_mask);
            io->scores[i] = (float)s->score;
            sn_reset(&e->cfg, s);
        }
        write_env_obs(e, i, (uint8_t *)io->obs + i * ob);
        write_env_mask(e, i, io->action_mask);
    }
}

/* A board of several snakes: snake j's head is the letter 'A' + j (mod
   26), its body the lower case letter; food '*'. */
static int render_board(const snake_env *e, uint32_t index, int color, char *buf, size_t cap)
{
    const sn_config *c = &e->cfg;
    const sn_board *b = &e->boards[index];
    uint32_t pw = sn_padded_width(c), bcap = sn_body_capacity(c), cells = sn_cells_bytes(c);
    static const char *const hue[6] = {"32", "34", "35", "36", "33", "37"};
    /* who[i]: 1 + the snake on cell i, doubled and odd for its head */
    uint16_t *who = calloc(cells, sizeof *who);
    if (!who) return RL_ENOMEM;
    for (uint32_t j = 0; j < b->k; j++)
        for (uint32_t k = 0; k < b->snakes[j].length; k++) {
            const sn_state *s = &b->snakes[j];
            uint32_t i = s->body[(s->head + bcap - k) % bcap];
            if (i < cells) who[i] = (uint16_t)(2 * (j + 1) + (k == 0));
        }
    rl_text t = rl_text_begin(buf, cap);
    for (int y = -1; y <= (int)c->height; y++) {
        for (int x = -1; x <= (int)c->width; x++) {
            uint32_t i = (uint32_t)(y + (int)c->pad) * pw + (uint32_t)(x + (int)c->pad);
            uint8_t code = b->cells[i];
            if (who[i]) {
                uint32_t j = who[i] / 2 - 1;
                char ch = (char)((who[i] & 1 ? 'A' : 'a') + j % 26);
                if (color)
                    rl_text_put(&t, "\x1b[%s%sm%c\x1b[0m", who[i] & 1 ? "1;" : "", hue[j % 6], ch);
                else
                    rl_text_put(&t, "%c", ch);
            } else if (code == SN_FOOD) {
                rl_text_put(&t, "%s", color ? "\x1b[1;31m*\x1b[0m" : "*");
            } else {
                rl_text_put(&t, "%s", code == SN_WALL ? "#" : ".");
            }
        }
        rl_text_put(&t, "\n");
    }
    rl_text_put(&t, "food");
    for (uint32_t j = 0; j < b->k; j++) rl_text_put(&t, " %c:%u", (char)('A' + j % 26), b->snakes[j].score);
    free(who);
    return rl_text_end(&t);
}

static int sn_render(void *env, uint32_t index, int color, char *buf, size_t cap)
{
    snake_env *e = env;
    if (index >= e->n) return RL_EINVAL;
    if (e->k > 1) return render_board(e, index, color, buf, cap);
    const sn_state *s = &e->s[index];
    const sn_config *c = &e->cfg;
    uint32_t pw = sn_padded_width(c);
    rl_text t = rl_text_begin(buf, cap);
    uint32_t head = sn_head_index(s);
    for (int y = -1; y <= (int)c->height; y++) {
        for (int x = -1; x <= (int)c->width; x++) {
            uint32_t i = (uint32_t)(y + (int)c->pad) * pw + (uint32_t)(x + (int)c->pad);
            uint8_t code = s->cells[i];
            if (i == head)
                rl_text_put(&t, "%s", color ? "\x1b[1;32m@\x1b[0m" : "@");
            else if (code == SN_BODY)
                rl_text_put(&t, "%s", color ? "\x1b[32mo\x1b[0m" : "o");
            else if (code == SN_FOOD)
                rl_text_put(&t, "%s", color ? "\x1b[1;31m*\x1b[0m" : "*");
            else if (code == SN_WALL)
                rl_text_put(&t, "#");
            else
                rl_text_put(&t, ".");
        }
        rl_text_put(&t, "\n");
    }
    rl_text_put(&t, "food %u  length %u  step %u", s->score, s->length, s->steps);
    return rl_text_end(&t);
}

static const rl_env_render_ext render_ext = {.struct_size = sizeof render_ext, .render = sn_render};

/* Pixels: 8 per cell, the wall around the board included; food red, walls
   grey, a snake green (on a board of several, snake j in hue j), its head
   darker. */
enum { SN_CELL_PX = 8 };

static void sn_raster_size(void *env, uint32_t *height, uint32_t *width)
{
    const snake_env *e = env;
    *height = (e->cfg.height + 2) * SN_CELL_PX;
    *width = (e->cfg.width + 2) * SN_CELL_PX;
}

static int sn_raster(void *env, uint32_t index, uint8_t *rgb)
{
    const snake_env *e = env;
    if (index >= e->n) return RL_EINVAL;
    static const rl_rgb hue[6] = {{40, 170, 60},  {50, 90, 210},  {170, 60, 190},
                                  {20, 170, 170}, {210, 150, 20}, {120, 120, 120}};
    const sn_config *c = &e->cfg;
    uint32_t k = e->k > 1 ? e->k : 1, pw = sn_padded_width(c), bcap = sn_body_capacity(c);
    const sn_state *snakes = e->k > 1 ? e->boards[index].snakes : &e->s[index];
    const uint8_t *cells = e->k > 1 ? e->boards[index].cells : e->s[index].cells;
    rl_raster im = {rgb, (c->height + 2) * SN_CELL_PX, (c->width + 2) * SN_CELL_PX};
    rl_raster_fill(&im, (rl_rgb){255, 255, 255});
    for (int y = -1; y <= (int)c->height; y++)
        for (int x = -1; x <= (int)c->width; x++) {
            uint8_t code = cells[(uint32_t)(y + (int)c->pad) * pw + (uint32_t)(x + (int)c->pad)];
            if (code != SN_WALL && code != SN_FOOD) continue;
            double px = (x + 1) * SN_CELL_PX, py = (y + 1) * SN_CELL_PX;
            rl_raster_rect(&im, px, py, px + SN_CELL_PX, py + SN_CELL_PX,
                           code == SN_WALL ? (rl_rgb){110, 110, 110} : (rl_rgb){220, 40, 40});
        }
    for (uint32_t j = 0; j < k; j++) {
        const sn_state *sn = &snakes[j];
        rl_rgb body = hue[j % 6], head = {(uint8_t)(body.r / 2), (uint8_t)(body.g / 2), (uint8_t)(body.b / 2)};
        for (uint32_t q = 0; q < sn->length; q++) {
            uint32_t i = sn->body[(sn->head + bcap - q) % bcap];
            double px = (double)(i % pw - c->pad + 1) * SN_CELL_PX, py = (double)(i / pw - c->pad + 1) * SN_CELL_PX;
            rl_raster_rect(&im, px + 1, py + 1, px + SN_CELL_PX - 1, py + SN_CELL_PX - 1, q ? body : head);
        }
    }
    return RL_OK;
}

static const rl_env_raster_ext raster_ext = {sizeof raster_ext, sn_raster_size, sn_raster};

/* State for exact resumes: the boards, bodies, images and, per env, the
   scalar fields and RNG (sn_state's pointers are rebuilt at create). */
typedef struct sn_scalars {
    uint32_t head, length, food, steps, idle, score;
    int32_t dir;
    rl_rng rng;
} sn_scalars;

static int sn_state_io(snake_env *e, const rl_state_io *io, const char *prefix, int load, char *err, size_t errlen)
{
    const sn_config *c = &e->cfg;
    size_t rows = (size_t)e->n * e->k;
    int rc = rl_state_blob(io, load, prefix, "snake/cells", e->cells, (size_t)e->n * sn_cells_bytes(c), err, errlen);
    if (rc == RL_OK)
        rc = rl_state_blob(io, load, prefix, "snake/body", e->body, rows * sn_body_capacity(c) * sizeof(uint16_t), err,
                           errlen);
    if (rc == RL_OK && e->k > 1) { /* boards: food lists and RNGs */
        rc = rl_state_blob(io, load, prefix, "snake/food", e->food, (size_t)e->n * e->n_food * sizeof *e->food, err,
                           errlen);
        rl_rng *rngs = calloc(e->n, sizeof *rngs);
        if (!rngs) return RL_ENOMEM;
        for (uint32_t i = 0; !load && i < e->n; i++) rngs[i] = e->boards[i].rng;
        if (rc == RL_OK)
            rc = rl_state_blob(io, load, prefix, "snake/board_rng", rngs, e->n * sizeof *rngs, err, errlen);
        for (uint32_t i = 0; rc == RL_OK && load && i < e->n; i++) {
            char name[96];
            snprintf(name, sizeof name, "%ssnake/board_rng", prefix);
            rc = rl_state_check_rng(name, &rngs[i], err, errlen);
            e->boards[i].rng = rngs[i];
        }
        free(rngs);
    }
    if (rc == RL_OK && e->images)
        rc = rl_state_blob(io, load, prefix, "snake/images", e->images, (size_t)e->n * sn_image_bytes(c), err, errlen);
    if (rc != RL_OK) return rc;
    sn_scalars *sc = calloc(rows, sizeof *sc);
    if (!sc) {
        RL_ERRF(err, errlen, "out of memory");
        return RL_ENOMEM;
    }
    for (uint32_t i = 0; !load && i < rows; i++) {
        const sn_state *s = &e->s[i]; /* field by field: calloc's zero padding stays */
        sc[i].head = s->head, sc[i].length = s->length, sc[i].food = s->food, sc[i].steps = s->steps;
        sc[i].idle = s->idle, sc[i].score = s->score, sc[i].dir = s->dir, sc[i].rng = s->rng;
    }
    rc = rl_state_blob(io, load, prefix, "snake/scalars", sc, rows * sizeof *sc, err, errlen);
    for (uint32_t i = 0; rc == RL_OK && load && i < rows; i++) {
        sn_state *s = &e->s[i];
        s->head = sc[i].head, s->length = sc[i].length, s->food = sc[i].food, s->steps = sc[i].steps;
        s->idle = sc[i].idle, s->score = sc[i].score, s->dir = sc[i].dir, s->rng = sc[i].rng;
    }
    for (uint32_t i = 0; rc == RL_OK && load && e->k > 1 && i < e->n; i++) {
        char why[160];
        const sn_board *b = &e->boards[i];
        int fresh = 1; /* an eval board never reset is all zero */
        for (uint32_t j = 0; j < e->k; j++) fresh &= b->snakes[j].length == 0;
        for (size_t x = 0; fresh && x < sn_cells_bytes(c); x++) fresh = b->cells[x] == 0;
        if (!fresh && snb_check(c, b, why, sizeof why) != 0) {
            RL_ERRF(err, errlen,
                    "tensors '%ssnake/cells', 'snake/body', 'snake/food' and 'snake/scalars' "
                    "do not hold a board the rules allow: env %u: %s",
                    prefix, i, why);
            rc = RL_ECORRUPT;
        }
    }
    for (uint32_t i = 0; rc == RL_OK && load && e->k == 1 && i < e->n; i++) {
        sn_state *s = &e->s[i];
        char why[160];
        if (sn_state_check(c, s, why, sizeof why) != 0) {
            RL_ERRF(err, errlen,
                    "tensors '%ssnake/cells', 'snake/body' and 'snake/scalars' do not "
                    "hold a snake the rules allow: env %u: %s",
                    prefix, i, why);
            rc = RL_ECORRUPT;
        }
    }
    free(sc);
    return rc;
}

RL_ENV_STATE_EXT(state_ext, sn_state_io);

static const void *sn_get_extension(void *env, const char *id)
{
    (void)env;
    if (strcmp(id, RL_EXT_ENV_RENDER) == 0) return &render_ext;
    if (strcmp(id, RL_EXT_ENV_RASTER) == 0) return &raster_ext;
    if (strcmp(id, RL_EXT_ENV_STATE) == 0) return &state_ext;
    return NULL;
}

static const rl_env_vtable vtable = {
    .struct_size = sizeof vtable,
    .create = sn_create_env,
    .destroy = sn_destroy_env,
    .reset = sn_reset_range,
    .step = sn_step_range,
    .get_extension = sn_get_extension,
};

static const rl_plugin_desc desc = {
    .struct_size = sizeof desc,
    .kind = RL_KIND_ENV,
    .name = "snake",
    .version = "1.0.0",
    .description = "classic snake on a walled board: eat food, grow, do not hit walls or yourself",
    .options = options,
    .n_options = OPT_N,
    .vtable = &vtable,
};

RL_PLUGIN_DEFINE_SINGLE(desc);
