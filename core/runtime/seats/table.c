/* The table; see table.h. */
#define _GNU_SOURCE
#include "seats/table.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rlhost/rlcore.h>

#include "plugin/env_create.h"
#include "parallel/pool.h"

#define MAX_SEAT_AGENTS 64
/* Opponent moves in one step before the learner must be to move
   again: a turn-based env that never hands the learner the move stops. */
#define MAX_TURNS 4096

struct rl__table {
    rl__seating seating;
    char spec[1024];
    const rl_plugin_desc *desc;
    const rl_env_vtable *ivt;
    void *ienv;
    rl_env_info iinfo, info; /* the env's; the learner's view */
    rl__space space;         /* the env's action space */
    const rl_value *options, *stages;
    uint32_t boards, agents, seats, L, turn;
    uint32_t seat_of[MAX_SEAT_AGENTS];
    uint32_t seat_agents[MAX_SEAT_AGENTS][MAX_SEAT_AGENTS]; /* [seat][k]: its k-th agent */
    size_t row_bytes, mw, abytes;
    rl__pool *workers;
    void *block; /* every buffer below, carved from one allocation (alloc_buffers) */
    /* the env's buffers, boards x agents rows */
    void *obs, *final_obs, *actions;
    uint8_t *mask, *final_mask, *to_move, *term, *trunc, *fresh;
    float *rewards, *scores;
    rl_env_io io;
    /* per board */
    uint8_t *lseat, *todo, *ended, *same; /* same: the mover moves again (every seat) */
    uint64_t *episode, *member;           /* member: the pool snapshot's step (self-play) */
    /* per learner row */
    float *carry;
    int8_t *outcome;
    uint8_t *outcome_seat;
    /* gathered opponent rows */
    void *g_obs, *g_act;
    uint8_t *g_mask, *g_start;
    uint32_t *g_rows, *g_board, *g_agent; /* g_board, g_agent: a search's roots */
    rl__player **who;                     /* each board's opponent, resolved once per round of moves */
    int self, every;                      /* every: the learner plays every seat, no opponent */
    rl__player fixed;
    int failed;
    char why[RL_ERR_MAX];
};

static uint32_t learner_row(const rl__table *a, uint32_t b, uint32_t k)
{
    return b * a->agents + a->seat_agents[a->lseat[b]][k];
}

static void fail(rl__table *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void fail(rl__table *a, const char *fmt, ...)
{
    if (a->failed) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(a->why, sizeof a->why, fmt, ap);
    va_end(ap);
    a->failed = RL_EINVAL;
}

/* With the learner at every seat: board b's learner seat is its mover's. */
static void follow_mover(rl__table *a, uint32_t b)
{
    for (uint32_t g = 0; g < a->agents; g++)
        if (a->to_move[b * a->agents + g]) {
            a->lseat[b] = (uint8_t)a->seat_of[g];
            return;
        }
}

/* The seat of board b's next game, and its opponent. */
static void seat_board(rl__table *a, uint32_t b)
{
    int32_t fixed = a->seating.learner_seat;
    if (a->every) {
        memset(a->fresh + (size_t)b * a->agents, 1, a->agents);
        return; /* its seat follows the mover once the env has dealt */
    }
    a->lseat[b] = (uint8_t)(fixed >= 0 ? (uint32_t)fixed : (uint32_t)((b + a->episode[b]) % a->seats));
    if (a->self) {
        int m = rl__selfplay_draw(a->seating.pool);
        a->member[b] = m >= 0 ? a->seating.pool->m[m].step : 0;
    }
    memset(a->fresh + (size_t)b * a->agents, 1, a->agents);
}

static rl__player *player_of(rl__table *a, uint32_t b)
{
    if (!a->self) return &a->fixed;
    int m = rl__selfplay_find(a->seating.pool, a->member[b]);
    if (m < 0) m = rl__selfplay_draw(a->seating.pool); /* dropped from the pool mid-game: the next one plays on */
    if (m < 0) return NULL;
    a->member[b] = a->seating.pool->m[m].step;
    return &a->seating.pool->m[m].player;
}

void rl__table_settle(rl__table *a)
{
    for (uint32_t b = 0; a && a->self && b < a->boards; b++) player_of(a, b);
}

static int needs_move(const rl__table *a, uint32_t b, uint32_t agent)
{
    return a->seat_of[agent] != a->lseat[b] && (!a->turn || a->to_move[b * a->agents + agent]);
}

/* A person's moves for the n gathered rows: each asked with its board as
   the env draws it. */
static int human_moves(rl__table *a, uint32_t n, char *err, size_t errlen)
{
    const rl_env_render_ext *r = a->ivt->get_extension ? a->ivt->get_extension(a->ienv, RL_EXT_ENV_RENDER) : NULL;
    char frame[8192], final[8192];
    for (uint32_t i = 0; i < n; i++) {
        uint32_t b = a->g_rows[i] / a->agents;
        if (!r || !RL_HAS_FIELD(r, rl_env_render_ext, render) || !r->render ||
            r->render(a->ienv, b, 0, frame, sizeof frame) < 0)
            frame[0] = 0;
        if (!r || !RL_HAS_FIELD(r, rl_env_render_ext, render_final) || !r->render_final ||
            r->render_final(a->ienv, b, 0, final, sizeof final) < 0)
            final[0] = 0;
        rl__human_move m = {.frame = frame,
                            .final_frame = final,
                            .n_actions = a->space.n,
                            .mask = a->mw ? a->g_mask + (size_t)i * a->mw : NULL,
                            .games = a->episode[b],
                            .last_result = a->outcome[b * a->L],
                            .action = (int32_t *)a->g_act + i};
        int rc = rl__human_ask(&m, err, errlen);
        if (rc != RL_OK) return rc;
    }
    return RL_OK;
}

/* A searching player's moves for the n gathered rows, searched through the
   env's own state, then checked as any player's. */
static int search_moves(rl__table *a, rl__player *pl, uint32_t n, char *err, size_t errlen)
{
    for (uint32_t i = 0; i < n; i++) a->g_board[i] = a->g_rows[i] / a->agents, a->g_agent[i] = a->g_rows[i] % a->agents;
    rl__env_site site = rl__table_site(a);
    int rc = rl__player_search(pl, &site, rl__table_opponent_rows(a), a->g_board, a->g_agent, a->g_obs,
                               a->mw ? a->g_mask : NULL, a->g_act, n, err, errlen);
    if (rc != RL_OK) return rc;
    char who[256];
    snprintf(who, sizeof who, "opponent '%s'", pl->name);
    return rl__space_check_actions(&a->space, a->g_act, a->mw ? a->g_mask : NULL, n, 1, who, err, errlen);
}

/* Opponent actions for the rows of the todo boards that move, each board's
   player acting on its rows as one batch. */
static void opponents_act(rl__table *a)
{
    for (uint32_t b = 0; b < a->boards; b++) a->who[b] = a->todo[b] ? player_of(a, b) : NULL;
    uint32_t players = a->self ? a->seating.pool->n : 1;
    for (uint32_t p = 0; p < players && !a->failed; p++) {
        rl__player *pl = a->self ? &a->seating.pool->m[p].player : &a->fixed;
        uint32_t n = 0;
        for (uint32_t b = 0; b < a->boards; b++) {
            if (a->who[b] != pl) continue;
            for (uint32_t g = 0; g < a->agents; g++) {
                if (!needs_move(a, b, g)) continue;
                uint32_t r = b * a->agents + g;
                memcpy((char *)a->g_obs + (size_t)n * a->row_bytes, (char *)a->obs + (size_t)r * a->row_bytes,
                       a->row_bytes);
                if (a->mw) memcpy(a->g_mask + (size_t)n * a->mw, a->mask + (size_t)r * a->mw, a->mw);
                a->g_start[n] = a->fresh[r];
                a->g_rows[n++] = r;
            }
        }
        if (!n) continue;
        char err[RL_ERR_MAX];
        int rc = pl->human ? human_moves(a, n, err, sizeof err)
            : pl->searches ? search_moves(a, pl, n, err, sizeof err)
                           : rl__player_act(pl, &a->space, a->g_obs, a->g_start, a->mw ? a->g_mask : NULL, a->g_act, n,
                                            err, sizeof err);
        if (rc != RL_OK) {
            fail(a, "%s", err);
            a->failed = rc;
            return;
        }
        for (uint32_t i = 0; i < n; i++) {
            uint32_t r = a->g_rows[i];
            memcpy((char *)a->actions + (size_t)r * a->abytes, (char *)a->g_act + (size_t)i * a->abytes, a->abytes);
            a->fresh[r] = 0;
        }
    }
}

typedef struct range_ctx {
    rl__table *a;
    uint32_t base, reset;
} range_ctx;

static void run_range(void *ctx, uint32_t first, uint32_t count)
{
    range_ctx *r = ctx;
    if (r->reset)
        r->a->ivt->reset(r->a->ienv, &r->a->io, r->base + first, count);
    else
        r->a->ivt->step(r->a->ienv, &r->a->io, r->base + first, count);
}

/* Steps (or resets) the todo boards, a contiguous run at a time. */
static void run_boards(rl__table *a, int reset)
{
    for (uint32_t b = 0; b < a->boards;) {
        if (!a->todo[b]) {
            b++;
            continue;
        }
        uint32_t e = b;
        while (e < a->boards && a->todo[e]) e++;
        range_ctx ctx = {a, b, (uint32_t)reset};
        rl__pool_run(a->workers, run_range, &ctx, e - b);
        b = e;
    }
    const rl_env_status_ext *st = a->ivt->get_extension ? a->ivt->get_extension(a->ienv, RL_EXT_ENV_STATUS) : NULL;
    if (st && RL_HAS_FIELD(st, rl_env_status_ext, status) && st->status) {
        char why[RL_ERR_MAX] = "";
        int rc = st->status(a->ienv, why, sizeof why);
        if (rc != RL_OK) {
            snprintf(a->why, sizeof a->why, "%s", why[0] ? why : rl_strerror(rc));
            a->failed = rc;
        }
    }
    for (uint32_t b = 0; a->turn && !a->failed && b < a->boards; b++) {
        if (!a->todo[b]) continue;
        int any = 0;
        for (uint32_t g = 0; g < a->agents; g++) any |= a->to_move[b * a->agents + g] != 0;
        if (!any) fail(a, "it is turn-based, but no agent of env %u is to move", b);
    }
}

static int opponent_state(rl__table *a, const rl_state_io *io, const char *prefix, int load, char *err, size_t errlen);

static int learner_to_move(const rl__table *a, uint32_t b)
{
    for (uint32_t k = 0; k < a->L; k++)
        if (a->to_move[learner_row(a, b, k)]) return 1;
    return 0;
}

/* A game of board b ended: its result from the learner's side (its rows'
   mean score against the other rows'), tallied; the next game seated. */
static void game_over(rl__table *a, uint32_t b, const rl_env_io *out)
{
    double mine = 0, theirs = 0;
    uint32_t others = 0;
    for (uint32_t g = 0; g < a->agents; g++) {
        double s = a->scores[b * a->agents + g];
        if (a->seat_of[g] == a->lseat[b])
            mine += s / a->L;
        else
            theirs += s, others++;
    }
    if (others) theirs /= others;
    int result = mine > theirs ? 1 : mine < theirs ? -1 : 0;
    for (uint32_t k = 0; out && k < a->L; k++) {
        uint32_t r = b * a->L + k, ir = learner_row(a, b, k);
        out->terminated[r] = a->term[ir];
        out->truncated[r] = a->trunc[ir];
        out->scores[r] = a->scores[ir];
        memcpy((char *)out->final_obs + (size_t)r * a->row_bytes, (char *)a->final_obs + (size_t)ir * a->row_bytes,
               a->row_bytes);
        if (a->mw) memcpy(out->final_mask + (size_t)r * a->mw, a->final_mask + (size_t)ir * a->mw, a->mw);
        a->outcome[r] = (int8_t)result;
        a->outcome_seat[r] = a->lseat[b];
    }
    if (out && a->self) rl__selfplay_result(a->seating.pool, rl__selfplay_find(a->seating.pool, a->member[b]), result);
    a->episode[b]++;
    seat_board(a, b);
}

/* Rewards and episode ends of the todo boards after a step; out is NULL
   while resetting (whatever happens before the learner's first move is
   carried into its first step). */
static void absorb(rl__table *a, const rl_env_io *out)
{
    for (uint32_t b = 0; b < a->boards; b++) {
        if (!a->todo[b]) continue;
        uint32_t ends = 0;
        for (uint32_t g = 0; g < a->agents; g++)
            ends += (a->term[b * a->agents + g] | a->trunc[b * a->agents + g]) != 0;
        if (ends && ends != a->agents) {
            fail(a, "it ended the episode of %u of env %u's %u agents; an env with seats ends them together", ends, b,
                 a->agents);
            return;
        }
        for (uint32_t k = 0; k < a->L; k++) {
            uint32_t r = b * a->L + k;
            float rew = a->rewards[learner_row(a, b, k)];
            if (!out || a->ended[b])
                a->carry[r] += rew;
            else
                out->rewards[r] += rew;
        }
        if (!ends) continue;
        int first = out && !a->ended[b];
        a->ended[b] = 1;
        game_over(a, b, first ? out : NULL);
    }
}

/* Opponents move until every board's learner is to move (turn-based). */
static void advance(rl__table *a, const rl_env_io *out)
{
    if (!a->turn) return;
    for (uint32_t t = 0; t < MAX_TURNS && !a->failed; t++) {
        uint32_t any = 0;
        for (uint32_t b = 0; b < a->boards; b++) any += a->todo[b] = !learner_to_move(a, b);
        if (!any) return;
        opponents_act(a);
        if (a->failed) return;
        run_boards(a, 0);
        if (a->failed) return;
        absorb(a, out);
    }
    if (!a->failed) fail(a, "the learner's seat was not to move again after %u moves of its opponents", MAX_TURNS);
}

/* The learner's rows of every board: observation and mask. */
static void show(const rl__table *a, const rl_env_io *out)
{
    for (uint32_t b = 0; b < a->boards; b++)
        for (uint32_t k = 0; k < a->L; k++) {
            uint32_t r = b * a->L + k, ir = learner_row(a, b, k);
            memcpy((char *)out->obs + (size_t)r * a->row_bytes, (char *)a->obs + (size_t)ir * a->row_bytes,
                   a->row_bytes);
            if (a->mw) memcpy(out->action_mask + (size_t)r * a->mw, a->mask + (size_t)ir * a->mw, a->mw);
        }
}

static void table_reset(void *env, const rl_env_io *out, uint32_t first, uint32_t count)
{
    rl__table *a = env;
    (void)first, (void)count; /* serial: vecenv hands over every env at once */
    if (a->failed) return;
    memset(a->carry, 0, (size_t)a->boards * a->L * sizeof *a->carry);
    for (uint32_t b = 0; b < a->boards; b++) {
        a->episode[b] = 0;
        seat_board(a, b);
    }
    memset(a->todo, 1, a->boards);
    run_boards(a, 1);
    memset(a->ended, 0, a->boards);
    for (uint32_t b = 0; a->every && b < a->boards; b++) follow_mover(a, b);
    if (!a->failed) advance(a, NULL);
    show(a, out);
}

static void table_step(void *env, const rl_env_io *out, uint32_t first, uint32_t count)
{
    rl__table *a = env;
    (void)first, (void)count;
    size_t rows = (size_t)a->boards * a->L;
    memset(out->terminated, 0, rows);
    memset(out->truncated, 0, rows);
    for (size_t r = 0; r < rows; r++) out->rewards[r] = a->carry[r], a->carry[r] = 0;
    if (a->failed) return;
    const void *acts = a->space.kind == RL_SPACE_BOX ? (const void *)out->box_actions : (const void *)out->actions;
    for (uint32_t b = 0; b < a->boards; b++)
        for (uint32_t k = 0; k < a->L; k++)
            memcpy((char *)a->actions + (size_t)learner_row(a, b, k) * a->abytes,
                   (const char *)acts + ((size_t)b * a->L + k) * a->abytes, a->abytes);
    memset(a->ended, 0, a->boards);
    memset(a->todo, 1, a->boards);
    if (!a->turn) opponents_act(a); /* simultaneous moves: everyone's at once */
    if (!a->failed) run_boards(a, 0);
    if (!a->failed) absorb(a, out);
    for (uint32_t b = 0; a->every && !a->failed && b < a->boards; b++) {
        uint8_t before = a->lseat[b];
        follow_mover(a, b);
        a->same[b] = a->ended[b] || a->lseat[b] == before;
    }
    if (!a->failed) advance(a, out);
    show(a, out);
}

static int table_status(void *env, char *err, size_t errlen)
{
    rl__table *a = env;
    if (!a->failed) return RL_OK;
    snprintf(err, errlen, "%s", a->why);
    int rc = a->failed;
    a->failed = 0;
    return rc;
}

static const rl_env_status_ext status_ext = {sizeof status_ext, table_status};

static int table_render(void *env, uint32_t index, int color, char *buf, size_t cap)
{
    rl__table *a = env;
    const rl_env_render_ext *r = a->ivt->get_extension ? a->ivt->get_extension(a->ienv, RL_EXT_ENV_RENDER) : NULL;
    if (!r || !RL_HAS_FIELD(r, rl_env_render_ext, render) || !r->render) return RL_ENOTSUP;
    int n = r->render(a->ienv, index, color, buf, cap);
    if (n < 0 || (size_t)n >= cap) return n;
    int w = snprintf(buf + n, cap - (size_t)n, "the learner plays seat %u\n", a->lseat[index]);
    return w < 0 || (size_t)n + (size_t)w >= cap ? n : n + w;
}

static int table_render_final(void *env, uint32_t index, int color, char *buf, size_t cap)
{
    rl__table *a = env;
    const rl_env_render_ext *r = a->ivt->get_extension ? a->ivt->get_extension(a->ienv, RL_EXT_ENV_RENDER) : NULL;
    if (!r || !RL_HAS_FIELD(r, rl_env_render_ext, render_final) || !r->render_final) return RL_ENOTSUP;
    return r->render_final(a->ienv, index, color, buf, cap);
}

static const rl_env_render_ext render_ext = {
    .struct_size = sizeof render_ext, .render = table_render, .render_final = table_render_final};

/* The table's state beside the env's: the env's buffers the host would
   hold, every board's seat, game count and opponent, the carried rewards. */
static int table_state(rl__table *a, const rl_state_io *io, const char *prefix, int load, char *err, size_t errlen)
{
    const rl_env_state_ext *ie = a->ivt->get_extension ? a->ivt->get_extension(a->ienv, RL_EXT_ENV_STATE) : NULL;
    if (!ie) return RL_ENOTSUP;
    int rc = load ? ie->load(a->ienv, io, prefix, err, errlen) : ie->save(a->ienv, io, prefix, err, errlen);
    size_t n = (size_t)a->boards * a->agents, lr = (size_t)a->boards * a->L;
    struct {
        const char *name;
        void *data;
        size_t bytes;
    } t[] = {
        {"seats/obs", a->obs, n * a->row_bytes},
        {"seats/mask", a->mask, a->mw ? n * a->mw : 0},
        {"seats/to_move", a->to_move, a->turn ? n : 0},
        {"seats/fresh", a->fresh, n},
        {"seats/learner_seat", a->lseat, a->boards},
        {"seats/episode", a->episode, a->boards * sizeof *a->episode},
        {"seats/opponent_step", a->member, a->boards * sizeof *a->member},
        {"seats/carry", a->carry, lr * sizeof *a->carry},
    };
    for (size_t i = 0; rc == RL_OK && i < sizeof t / sizeof *t; i++)
        if (t[i].bytes) rc = rl_state_blob(io, load, prefix, t[i].name, t[i].data, t[i].bytes, err, errlen);
    if (rc == RL_OK) rc = opponent_state(a, io, prefix, load, err, errlen);
    if (rc != RL_OK || !load) return rc;
    if (a->info.obs_dtype == RL_DTYPE_F32 &&
        (rc = rl_state_check_finite("seats/obs", a->obs, n * a->row_bytes / 4, err, errlen)))
        return rc;
    if ((rc = rl_state_check_finite("seats/carry", a->carry, lr, err, errlen))) return rc;
    for (uint32_t b = 0; b < a->boards; b++) {
        int32_t fixed = a->seating.learner_seat;
        if (a->lseat[b] >= a->seats || (fixed >= 0 && a->lseat[b] != (uint32_t)fixed)) {
            snprintf(err, errlen, "tensor '%sseats/learner_seat': env %u's seat %u is not the config's", prefix, b,
                     a->lseat[b]);
            return RL_ECORRUPT;
        }
        if (a->self && rl__selfplay_find(a->seating.pool, a->member[b]) < 0) {
            snprintf(err, errlen, "tensor '%sseats/opponent_step': env %u plays a snapshot of step %llu the pool lacks",
                     prefix, b, (unsigned long long)a->member[b]);
            return RL_ECORRUPT;
        }
        int any = 0; /* none to move: an env never reset (an eval env before its first evaluation) */
        for (uint32_t g = 0; g < a->agents; g++) any |= a->to_move[b * a->agents + g] != 0;
        if (a->turn && any && !learner_to_move(a, b)) {
            snprintf(err, errlen, "tensor '%sseats/to_move': env %u's learner is not to move", prefix, b);
            return RL_ECORRUPT;
        }
    }
    return RL_OK;
}

/* The fixed opponent's state (a scripted player's RNG), under
   PREFIXseats/opponent/. */
static int opponent_state(rl__table *a, const rl_state_io *io, const char *prefix, int load, char *err, size_t errlen)
{
    if (a->self) return RL_OK;
    char pfx[96];
    snprintf(pfx, sizeof pfx, "%sseats/opponent/", prefix);
    return rl__player_state(&a->fixed, io, pfx, load, NULL, err, errlen);
}

static int table_save(void *env, const struct rl_state_io *io, const char *prefix, char *err, size_t errlen)
{
    return table_state(env, io, prefix, 0, err, errlen);
}
static int table_load(void *env, const struct rl_state_io *io, const char *prefix, char *err, size_t errlen)
{
    return table_state(env, io, prefix, 1, err, errlen);
}
static const rl_env_state_ext state_ext = {sizeof state_ext, table_save, table_load};

static const void *table_extension(void *env, const char *id)
{
    rl__table *a = env;
    if (!strcmp(id, RL_EXT_ENV_STATUS)) return &status_ext;
    if (!strcmp(id, RL_EXT_ENV_RENDER))
        return a->ivt->get_extension && a->ivt->get_extension(a->ienv, RL_EXT_ENV_RENDER) ? &render_ext : NULL;
    if (!strcmp(id, RL_EXT_ENV_STATE))
        return a->ivt->get_extension && a->ivt->get_extension(a->ienv, RL_EXT_ENV_STATE) ? &state_ext : NULL;
    return NULL;
}

static void table_destroy(void *env);

static int table_create(const rl_env_args *args, void **env, rl_env_info *info, char *err, size_t errlen)
{
    (void)args, (void)env, (void)info;
    snprintf(err, errlen, "the table wraps an env; it is never created on its own");
    return RL_EINVAL;
}

static const rl_env_vtable table_vt = {
    .struct_size = sizeof table_vt,
    .create = table_create,
    .destroy = table_destroy,
    .reset = table_reset,
    .step = table_step,
    .get_extension = table_extension,
};

rl__table *rl__table_of(const rl_env_vtable *vt, void *env)
{
    return vt == &table_vt ? env : NULL;
}

static void table_destroy(void *env)
{
    rl__table *a = env;
    if (!a) return;
    if (a->ienv) a->ivt->destroy(a->ienv);
    rl__player_close(&a->fixed);
    rl__pool_destroy(a->workers);
    rl__space_free(&a->space);
    rl_free(a->block);
    free(a);
}

/* One buffer of the table: where its pointer is, and its bytes. */
typedef struct buffer {
    void *slot; /* the address of the table's pointer */
    size_t bytes;
} buffer;

/* Every buffer in one list, carved in order from one zeroed allocation,
   each 64-byte aligned; a buffer of 0 bytes (the masks of an env that
   does not mask) stays NULL. */
static int alloc_buffers(rl__table *a, uint32_t threads)
{
    size_t n = (size_t)a->boards * a->agents, lr = (size_t)a->boards * a->L, B = a->boards, mw = a->mw;
    const buffer list[] = {
        {&a->obs, n * a->row_bytes},
        {&a->final_obs, n * a->row_bytes},
        {&a->actions, n * a->abytes},
        {&a->mask, n * mw},
        {&a->final_mask, n * mw},
        {&a->to_move, n},
        {&a->term, n},
        {&a->trunc, n},
        {&a->fresh, n},
        {&a->rewards, n * sizeof *a->rewards},
        {&a->scores, n * sizeof *a->scores},
        {&a->lseat, B},
        {&a->todo, B},
        {&a->ended, B},
        {&a->same, B},
        {&a->episode, B * sizeof *a->episode},
        {&a->member, B * sizeof *a->member},
        {&a->carry, lr * sizeof *a->carry},
        {&a->outcome, lr},
        {&a->outcome_seat, lr},
        {&a->g_obs, n * a->row_bytes},
        {&a->g_act, n * a->abytes},
        {&a->g_mask, n * (mw ? mw : 1)},
        {&a->g_start, n},
        {&a->g_rows, n * sizeof *a->g_rows},
        {&a->g_board, n * sizeof *a->g_board},
        {&a->g_agent, n * sizeof *a->g_agent},
        {&a->who, B * sizeof *a->who},
    };
    size_t total = 0;
    for (size_t i = 0; i < sizeof list / sizeof *list; i++) total += (list[i].bytes + 63) & ~(size_t)63;
    char *at = a->block = rl_calloc_aligned(total ? total : 1, 1);
    for (size_t i = 0; at && i < sizeof list / sizeof *list; i++) {
        void *p = list[i].bytes ? at : NULL;
        memcpy(list[i].slot, &p, sizeof p); /* each slot is a data pointer of the table */
        at += (list[i].bytes + 63) & ~(size_t)63;
    }
    a->workers = rl__pool_create(threads ? threads : 1);
    return a->block && a->workers ? RL_OK : RL_ENOMEM;
}

int rl__table_set_opponent(rl__table *a, const char *spec, int32_t learner_seat, char *err, size_t errlen)
{
    if (learner_seat >= (int32_t)a->seats) {
        snprintf(err, errlen, "seat %d: env '%s' has seats 0 to %u", learner_seat, a->desc->name, a->seats - 1);
        return RL_ECONFIG;
    }
    rl__player_close(&a->fixed);
    a->every = learner_seat == RL__SEAT_EVERY;
    if (a->every) {
        if (!a->turn || a->L != 1) {
            snprintf(err, errlen,
                     "env '%s': the learner plays every seat only of a turn-based game of one agent per seat",
                     a->desc->name);
            return RL_ECONFIG;
        }
        a->self = 0;
        a->seating.learner_seat = learner_seat;
        return RL_OK;
    }
    a->self = !strcmp(spec, "self");
    snprintf(a->spec, sizeof a->spec, "%s", spec);
    a->seating.opponent = a->spec;
    a->seating.learner_seat = learner_seat;
    if (learner_seat >= 0)
        memset(a->lseat, (int)learner_seat, a->boards); /* the next games' seat, as reset seats them */
    if (a->self) {
        if (!a->seating.pool) {
            snprintf(err, errlen, "opponent 'self' plays the learner's snapshots: only a training run has them");
            return RL_ECONFIG;
        }
        return RL_OK;
    }
    uint32_t rows = a->boards * (a->agents - a->L);
    return rl__player_open(&a->fixed, spec, a->seating.c, &a->info, rows ? rows : 1, a->seating.seed, err, errlen);
}

int rl__seats_check(const rl_env_info *info, const char *name, uint32_t seat_of[64], uint32_t *per_seat, char *err,
                    size_t errlen)
{
    uint32_t seats = rl_env_info_seats(info), agents = info->agents ? info->agents : 1;
    if (agents > MAX_SEAT_AGENTS || seats > MAX_SEAT_AGENTS) {
        snprintf(err, errlen, "env '%s' has %u agents at %u seats; the table seats at most %u", name, agents, seats,
                 MAX_SEAT_AGENTS);
        return RL_EINVAL;
    }
    uint32_t count[MAX_SEAT_AGENTS] = {0};
    for (uint32_t g = 0; g < agents; g++) {
        uint32_t st = info->agent_seats ? info->agent_seats[g] : g;
        if (st >= seats) {
            snprintf(err, errlen, "env '%s' seats agent %u at seat %u of %u", name, g, st, seats);
            return RL_EINVAL;
        }
        seat_of[g] = st;
        count[st]++;
    }
    for (uint32_t st = 0; st < seats; st++)
        if (count[st] != count[0] || !count[st]) {
            snprintf(err, errlen, "env '%s' seats %u agents at seat 0 and %u at seat %u; every seat needs as many",
                     name, count[0], count[st], st);
            return RL_EINVAL;
        }
    *per_seat = count[0];
    return RL_OK;
}

int rl__table_wrap(const rl__seating *s, const rl_plugin_desc *desc, const rl_value *options, const rl_value *stages,
                   uint32_t num_envs, uint32_t threads, const rl_env_vtable **vt, void **env, rl_env_info *info,
                   char *err, size_t errlen)
{
    const rl_env_info *in = info;
    uint32_t seat_of[MAX_SEAT_AGENTS], per_seat;
    int rc = rl__seats_check(in, desc->name, seat_of, &per_seat, err, errlen);
    if (rc != RL_OK) return rc;
    rl__table *a = calloc(1, sizeof *a);
    if (!a) return RL_ENOMEM;
    a->seating = *s;
    a->desc = desc;
    a->options = options, a->stages = stages;
    a->iinfo = *in;
    a->boards = num_envs, a->agents = in->agents ? in->agents : 1, a->seats = rl_env_info_seats(in);
    a->turn = rl_env_info_turn_based(in);
    uint32_t count[MAX_SEAT_AGENTS] = {0};
    for (uint32_t g = 0; g < a->agents; g++) {
        a->seat_of[g] = seat_of[g];
        a->seat_agents[seat_of[g]][count[seat_of[g]]++] = g;
    }
    rc = rl__space_from_info(&a->space, in, desc->name, err, errlen);
    if (rc == RL_OK && a->space.kind == RL_SPACE_HYBRID) {
        /* the table hands rows of one array between seats */
        snprintf(err, errlen,
                 "env '%s' seats players with hybrid actions: seats take discrete, MultiDiscrete and box "
                 "actions",
                 desc->name);
        rl__space_free(&a->space);
        rc = RL_ECONFIG;
    }
    if (rc != RL_OK) {
        free(a);
        return rc;
    }
    a->L = per_seat;
    a->row_bytes = (size_t)in->obs_size * rl_dtype_size(in->obs_dtype);
    a->mw = a->space.mask_width;
    a->abytes = a->space.action_bytes;
    a->info = *in;
    a->info.agents = a->L;
    a->info.seats = 0, a->info.agent_seats = NULL, a->info.turn_based = 0;
    if (alloc_buffers(a, threads) != RL_OK) {
        snprintf(err, errlen, "env '%s': out of memory seating %u envs", desc->name, num_envs);
        table_destroy(a);
        return RL_ENOMEM;
    }
    int box = a->space.kind == RL_SPACE_BOX;
    a->io = (rl_env_io){.struct_size = sizeof a->io,
                        .obs = a->obs,
                        .actions = box ? NULL : a->actions,
                        .rewards = a->rewards,
                        .terminated = a->term,
                        .truncated = a->trunc,
                        .final_obs = a->final_obs,
                        .scores = a->scores,
                        .box_actions = box ? a->actions : NULL,
                        .action_mask = a->mask,
                        .final_mask = a->final_mask,
                        .to_move = a->turn ? a->to_move : NULL};
    a->ivt = *vt;
    a->ienv = *env;
    rc = rl__table_set_opponent(a, s->opponent, s->learner_seat, err, errlen);
    if (rc != RL_OK) {
        a->ienv = NULL; /* the caller's still */
        table_destroy(a);
        return rc;
    }
    *vt = &table_vt;
    *env = a;
    *info = a->info;
    return RL_OK;
}

int rl__table_same_mover(const rl__table *a, uint32_t row)
{
    return !a->every || a->same[row / a->L];
}

int rl__table_outcome(const rl__table *a, uint32_t row)
{
    return a->outcome[row];
}

uint32_t rl__table_outcome_seat(const rl__table *a, uint32_t row)
{
    return a->outcome_seat[row];
}

uint32_t rl__table_seats(const rl__table *a)
{
    return a->seats;
}

rl__env_site rl__table_site(const rl__table *a)
{
    return (rl__env_site){a->desc, a->options, a->stages, &a->iinfo, a->ivt, a->ienv, a->boards};
}

void rl__table_learner_at(const rl__table *a, uint32_t row, uint32_t *board, uint32_t *agent)
{
    *board = row / a->L;
    *agent = learner_row(a, *board, row % a->L) % a->agents;
}

uint32_t rl__table_opponent_rows(const rl__table *a)
{
    return a->boards * (a->agents - a->L);
}

int rl__table_reseed(rl__table *a, uint64_t seed, char *err, size_t errlen)
{
    rl_env_info info;
    void *env = NULL;
    int rc = rl__env_open(a->desc, a->options, a->stages, a->boards, seed, &env, &info, err, errlen);
    if (rc != RL_OK) return rc;
    a->ivt->destroy(a->ienv);
    a->ienv = env;
    a->failed = 0;
    memset(a->to_move, 0, (size_t)a->boards * a->agents); /* no game in progress until the next reset */
    return RL_OK;
}
