/*
 * connect_four: Connect Four on a 7 x 6 board for two seats, turn-based
 * (ABI 1.7).  Each env has two agents, agent k at seat k; seat 0 moves first.
 * An action is a column, 0 .. 6, and every full column is masked.
 *
 * Observation, the same for both seats from their own side: uint8 planes
 * [2][6][7], plane 0 the seat's own stones, plane 1 the other's, row 0 the
 * top of the board.  A policy that plays one seat plays the other.
 *
 * The mover's four in a row earns it 1 and the other seat -1; a full board
 * is a draw (0 each).  The score is the seat's result: 1, 0 or -1.  With
 * random_opening k, each game starts after k uniformly random moves (none
 * that wins), for variety against deterministic opponents; who moves next
 * then follows from k.  random_opening_max m > k draws each training game's
 * count uniformly from k .. m, so training also sees the scattered
 * positions of longer random play; an evaluation opens with k (the option is
 * a training one, RL_OPT_TRAINING).
 *
 * This library also holds the scripted opponent connect_four_alphabeta
 * (c4_opponent.c) and the searches both use (c4_search.c).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rlhost/plugin.h>
#include <rlhost/rlcore.h>

#include "c4.h"
#include "c4_plugin.h"

enum { OPT_RANDOM_OPENING, OPT_RANDOM_OPENING_MAX, OPT_N };

static const rl_option_def options[OPT_N] = {
    [OPT_RANDOM_OPENING] =
        RL_OPTION_INT("random_opening", "0", 0, 20, "uniformly random moves that open each game (none that wins)"),
    [OPT_RANDOM_OPENING_MAX] = RL_OPTION_INT_F("random_opening_max", "0", 0, 20, RL_OPT_TRAINING,
                                               "training: each game's random moves drawn uniformly from "
                                               "random_opening to this (0: random_opening); evaluations open "
                                               "with random_opening"),
};

typedef struct c4_board {
    c4_pos pos;
    rl_rng rng;
} c4_board;

typedef struct c4_env {
    uint32_t n, opening, opening_max;
    c4_board *b;
    c4_pos *last; /* each board's last finished game as it ended (drawn, never saved); moves 0: none yet */
    /* the board's mirror image, left to right: both planes' columns and
       the moves reversed (rl_env_info.symmetries) */
    uint32_t mirror_obs[C4_OBS_SIZE], mirror_move[C4_W];
    rl_symmetry mirror;
} c4_env;

static const uint32_t agent_seats[2] = {0, 1};

static void c4_destroy(void *env)
{
    c4_env *e = env;
    if (!e) return;
    free(e->b);
    free(e->last);
    free(e);
}

static int c4_create(const rl_env_args *args, void **out, rl_env_info *info, char *err, size_t errlen)
{
    c4_env *e = calloc(1, sizeof *e);
    if (!e || !(e->b = calloc(args->num_envs, sizeof *e->b)) || !(e->last = calloc(args->num_envs, sizeof *e->last))) {
        c4_destroy(e);
        return RL_ENOMEM;
    }
    e->n = args->num_envs;
    e->opening = (uint32_t)args->options[OPT_RANDOM_OPENING].i;
    e->opening_max = (uint32_t)args->options[OPT_RANDOM_OPENING_MAX].i;
    if (e->opening_max && e->opening_max < e->opening) {
        RL_ERRF(err, errlen, "random_opening_max (%u) is below random_opening (%u)", e->opening_max, e->opening);
        c4_destroy(e);
        return RL_EINVAL;
    }
    for (uint32_t i = 0; i < e->n; i++) rl_rng_seed(&e->b[i].rng, args->seed, i);
    info->obs_dtype = RL_DTYPE_U8;
    info->obs_ndim = 3;
    info->obs_shape[0] = 2, info->obs_shape[1] = C4_H, info->obs_shape[2] = C4_W;
    info->obs_size = C4_OBS_SIZE;
    info->obs_scale = 1.0f;
    info->n_actions = C4_W;
    info->score_name = "result";
    rl_env_info_set_time_limit(info, C4_CELLS);
    for (uint32_t j = 0; j < C4_OBS_SIZE; j++) e->mirror_obs[j] = j - j % C4_W + (C4_W - 1 - j % C4_W);
    for (uint32_t c = 0; c < C4_W; c++) e->mirror_move[c] = C4_W - 1 - c;
    e->mirror = (rl_symmetry){e->mirror_obs, e->mirror_move};
    rl_env_info_set_symmetries(info, 1, &e->mirror); /* a host before 1.13 trains without it */
    if (rl_env_info_set_agents(info, 2) != 0 || rl_env_info_set_masks(info) != 0 ||
        rl_env_info_set_seats(info, 2, agent_seats, 1) != 0) {
        RL_ERRF(err, errlen, "connect_four needs a host that seats two players in turns (ABI 1.7)");
        c4_destroy(e);
        return RL_EINVAL;
    }
    *out = e;
    return RL_OK;
}

static void write_mask(const c4_pos *p, uint8_t *m)
{
    int any = 0;
    for (int c = 0; c < C4_W; c++) any |= m[c] = (uint8_t)c4_can_play(p, c);
    if (!any) memset(m, 1, C4_W); /* a full board's final mask: nothing is left to choose */
}

/* Both rows of env i: observation, mask and who moves. */
static void show(const c4_env *e, const rl_env_io *io, uint32_t i, int final)
{
    const c4_pos *p = &e->b[i].pos;
    uint8_t *obs = (uint8_t *)(final ? io->final_obs : io->obs) + (size_t)i * 2 * C4_OBS_SIZE;
    uint8_t *mask = (final ? io->final_mask : io->action_mask) + (size_t)i * 2 * C4_W;
    c4_obs_write_both(p, obs, obs + C4_OBS_SIZE);
    write_mask(p, mask);
    memcpy(mask + C4_W, mask, C4_W);
    for (uint32_t s = 0; s < 2 && !final; s++) io->to_move[2 * i + s] = (p->moves & 1) == s;
}

static void start(const c4_env *e, c4_board *b)
{
    /* no draw without a range: the games of a fixed opening are unchanged */
    uint32_t n =
        e->opening_max > e->opening ? e->opening + rl_rng_below(&b->rng, e->opening_max - e->opening + 1) : e->opening;
    for (;;) {
        b->pos = (c4_pos){0, 0, 0};
        uint32_t k = 0;
        for (; k < n; k++) {
            int col;
            do col = (int)rl_rng_below(&b->rng, C4_W);
            while (!c4_can_play(&b->pos, col));
            if (c4_wins(&b->pos, col)) break;
            c4_play(&b->pos, col);
        }
        if (k == n) return; /* else an opening move won: draw the opening again */
    }
}

static void c4_reset(void *env, const rl_env_io *io, uint32_t first, uint32_t count)
{
    c4_env *e = env;
    for (uint32_t i = first; i < first + count; i++) {
        start(e, &e->b[i]);
        show(e, io, i, 0);
    }
}

static void c4_step(void *env, const rl_env_io *io, uint32_t first, uint32_t count)
{
    c4_env *e = env;
    for (uint32_t i = first; i < first + count; i++) {
        c4_pos *p = &e->b[i].pos;
        uint32_t mover = p->moves & 1, row = 2 * i + mover;
        int col = io->actions[row];
        float r[2] = {0, 0};
        int over = 0;
        if (col >= 0 && col < C4_W && c4_can_play(p, col)) { /* the host checked the mask */
            if (c4_wins(p, col)) {
                r[mover] = 1.0f, r[!mover] = -1.0f;
                over = 1;
            }
            c4_play(p, col);
            over |= p->moves == C4_CELLS;
        }
        for (uint32_t s = 0; s < 2; s++) {
            io->rewards[2 * i + s] = r[s];
            io->terminated[2 * i + s] = (uint8_t)over;
            io->truncated[2 * i + s] = 0;
        }
        if (over) {
            show(e, io, i, 1);
            e->last[i] = *p;
            io->scores[2 * i] = r[0], io->scores[2 * i + 1] = r[1];
            start(e, &e->b[i]);
        }
        show(e, io, i, 0);
    }
}

/* Text: X for seat 0, O for seat 1, the columns numbered 1 .. 7 as `rlhost
   play` reads a person's move. */
static int draw(const c4_pos *p, int color, int over, char *buf, size_t cap)
{
    uint8_t o[C4_OBS_SIZE];
    c4_obs_write(p, 0, o);
    size_t n = 0;
    for (int r = 0; r < C4_H; r++) {
        for (int c = 0; c < C4_W; c++) {
            const char *cell = o[r * C4_W + c]  ? (color ? "\033[31mX\033[0m" : "X")
                : o[C4_H * C4_W + r * C4_W + c] ? (color ? "\033[33mO\033[0m" : "O")
                                                : ".";
            int w = snprintf(buf + n, cap > n ? cap - n : 0, "%s%s", c ? " " : "", cell);
            if (w < 0 || n + (size_t)w >= cap) return RL_EINVAL;
            n += (size_t)w;
        }
        if (n + 1 >= cap) return RL_EINVAL;
        buf[n++] = '\n';
    }
    int w = over ? snprintf(buf + n, cap > n ? cap - n : 0, "1 2 3 4 5 6 7\ngame over, %u stones\n", p->moves)
                 : snprintf(buf + n, cap > n ? cap - n : 0, "1 2 3 4 5 6 7\n%c to move (seat %u), %u stones\n",
                            p->moves & 1 ? 'O' : 'X', p->moves & 1, p->moves);
    return w < 0 || n + (size_t)w >= cap ? RL_EINVAL : (int)(n + (size_t)w);
}

static int c4_render(void *env, uint32_t index, int color, char *buf, size_t cap)
{
    return draw(&((c4_env *)env)->b[index].pos, color, 0, buf, cap);
}

/* The board env `index`'s last game ended on: its winning move drawn. */
static int c4_render_final(void *env, uint32_t index, int color, char *buf, size_t cap)
{
    const c4_pos *p = &((c4_env *)env)->last[index];
    return p->moves ? draw(p, color, 1, buf, cap) : RL_ENOENT;
}

static const rl_env_render_ext render_ext = {
    .struct_size = sizeof render_ext, .render = c4_render, .render_final = c4_render_final};

/* Exact resumes: every board and its RNG, checked on load. */
static int c4_state_io(void *env, const struct rl_state_io *io, const char *prefix, int load, char *err, size_t errlen)
{
    c4_env *e = env;
    int rc = rl_state_blob(io, load, prefix, "connect_four/boards", e->b, (size_t)e->n * sizeof *e->b, err, errlen);
    for (uint32_t i = 0; rc == RL_OK && load && i < e->n; i++) {
        const c4_pos *p = &e->b[i].pos;
        if (!c4_pos_valid(p) || p->moves >= C4_CELLS ||
            rl_state_check_rng("connect_four/boards", &e->b[i].rng, err, errlen) != RL_OK) {
            RL_ERRF(err, errlen, "tensor '%sconnect_four/boards': env %u holds no position of a game in progress",
                    prefix, i);
            rc = RL_ECORRUPT;
        }
    }
    return rc;
}

RL_ENV_STATE_EXT(state_ext, c4_state_io);

static const void *c4_get_extension(void *env, const char *id)
{
    (void)env;
    if (strcmp(id, RL_EXT_ENV_RENDER) == 0) return &render_ext;
    if (strcmp(id, RL_EXT_ENV_STATE) == 0) return &state_ext;
    return NULL;
}

static const rl_env_vtable vtable = {
    .struct_size = sizeof vtable,
    .create = c4_create,
    .destroy = c4_destroy,
    .reset = c4_reset,
    .step = c4_step,
    .get_extension = c4_get_extension,
};

static const rl_plugin_desc descs[] = {
    {
        .struct_size = sizeof(rl_plugin_desc),
        .kind = RL_KIND_ENV,
        .name = "connect_four",
        .version = "1.0.0",
        .description = "Connect Four, 7 x 6, two seats taking turns, full columns masked",
        .flags = RL_DESC_SEARCHABLE,
        .options = options,
        .n_options = OPT_N,
        .vtable = &vtable,
    },
    C4_OPPONENT_DESC,
};

RL_PLUGIN_DEFINE_ARRAY(descs, NULL);
