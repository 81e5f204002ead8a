/* The search's model of an env; see model.h.
 *
 * A state: the header (the mover, then the mover's mask, padded to 8
 * bytes), then each tensor the env saves for one env, in the order and
 * shapes its first save gave. */
#include "search/model.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plugin/env_create.h"

#define MAX_TENSORS 32

typedef struct tensor {
    char name[128];
    rl_dtype dtype;
    size_t bytes, offset; /* one env's */
} tensor;

/* One scratch env of one env and its buffers. */
typedef struct scratch {
    void *env;
    void *block; /* every buffer below */
    const rl_env_state_ext *state;
    const rl_env_status_ext *status;
    rl_env_io io;
    uint8_t *obs, *final_obs, *mask, *final_mask, *to_move, *term, *trunc;
    uint8_t *ones; /* every move allowed: an env that does not mask */
    int32_t *actions;
    float *rewards, *scores;
} scratch;

struct rl__model {
    const rl_plugin_desc *desc;
    const rl_env_vtable *vt;
    uint32_t agents, n_actions, turn;
    size_t row_bytes, header;
    int masks;
    tensor t[MAX_TENSORS];
    uint32_t n_tensors;
    uint32_t workers;
    scratch *w;
    rl_search_model face;
};

typedef struct header {
    uint32_t mover, reserved;
} header;

/* ---- states through rl_state_io ---------------------------------------- */

enum { IO_RECORD, IO_SAVE, IO_LOAD, IO_ROOTS };

typedef struct codec {
    rl__model *m;
    int mode;
    uint8_t *state;        /* IO_SAVE, IO_LOAD: one state */
    uint32_t next, boards; /* the tensor the next call most likely names; IO_ROOTS: the live env's */
    const uint32_t *of;    /* IO_ROOTS: count boards into count states */
    uint32_t count, puts;
    char why[RL_ERR_MAX];
} codec;

static int find(codec *c, const char *name)
{
    rl__model *m = c->m;
    if (c->next < m->n_tensors && !strcmp(m->t[c->next].name, name)) return (int)c->next++;
    for (uint32_t i = 0; i < m->n_tensors; i++)
        if (!strcmp(m->t[i].name, name)) return (int)(c->next = i + 1) - 1;
    return -1;
}

static size_t bytes_of(rl_dtype dt, uint32_t nd, const uint64_t *shape)
{
    size_t n = rl_dtype_size(dt);
    for (uint32_t d = 0; d < nd; d++) n *= shape[d];
    return n;
}

static int io_put(void *ctx, const char *name, rl_dtype dt, uint32_t nd, const uint64_t *shape, const void *data)
{
    codec *c = ctx;
    rl__model *m = c->m;
    size_t bytes = bytes_of(dt, nd, shape);
    if (c->mode == IO_RECORD) {
        size_t off = m->n_tensors ? m->t[m->n_tensors - 1].offset + m->t[m->n_tensors - 1].bytes : m->header;
        if (m->n_tensors == MAX_TENSORS || strlen(name) >= sizeof m->t[0].name) {
            snprintf(c->why, sizeof c->why, "it saves more than %d tensors, or one with a name of 128 bytes or more",
                     MAX_TENSORS);
            return RL_EINVAL;
        }
        tensor *t = &m->t[m->n_tensors++];
        snprintf(t->name, sizeof t->name, "%s", name);
        t->dtype = dt, t->bytes = bytes, t->offset = off;
        return RL_OK;
    }
    int i = find(c, name);
    if (i < 0 || m->t[i].dtype != dt) {
        snprintf(c->why, sizeof c->why, "its saved tensor '%s' is not one its first save had", name);
        return RL_ECORRUPT;
    }
    const tensor *t = &m->t[i];
    c->puts++;
    if (c->mode == IO_SAVE) {
        if (bytes != t->bytes) {
            snprintf(c->why, sizeof c->why, "its saved tensor '%s' changed size (%zu bytes, was %zu)", name, bytes,
                     t->bytes);
            return RL_ECORRUPT;
        }
        memcpy(c->state + t->offset, data, bytes);
        return RL_OK;
    }
    /* IO_ROOTS: the live env's tensor holds c->boards slices of t->bytes */
    if (bytes != t->bytes * c->boards) {
        snprintf(c->why, sizeof c->why,
                 "its saved tensor '%s' is %zu bytes for %u envs, not %u slices of %zu: it is not searchable as it "
                 "declares (RL_DESC_SEARCHABLE)",
                 name, bytes, c->boards, c->boards, t->bytes);
        return RL_ECORRUPT;
    }
    size_t stride = m->face.state_bytes;
    for (uint32_t j = 0; j < c->count; j++)
        memcpy(c->state + j * stride + t->offset, (const uint8_t *)data + c->of[j] * t->bytes, t->bytes);
    return RL_OK;
}

static int io_get(void *ctx, const char *name, rl_dtype dt, uint32_t nd, const uint64_t *shape, void *data)
{
    codec *c = ctx;
    int i = find(c, name);
    if (i < 0 || c->mode != IO_LOAD) return RL_ENOENT;
    const tensor *t = &c->m->t[i];
    if (t->dtype != dt || bytes_of(dt, nd, shape) != t->bytes) {
        snprintf(c->why, sizeof c->why, "tensor '%s' is not the shape it was saved with", name);
        return RL_ECORRUPT;
    }
    memcpy(data, c->state + t->offset, t->bytes);
    return RL_OK;
}

static const char *io_error(void *ctx)
{
    return ((codec *)ctx)->why;
}

/* A codec for one state (IO_SAVE, IO_LOAD).  Every simulation saves and
   loads states, so its message buffer is emptied, not zeroed. */
static void codec_start(codec *c, rl__model *m, int mode, uint8_t *state)
{
    c->m = m, c->mode = mode, c->state = state;
    c->next = c->boards = c->count = c->puts = 0;
    c->of = NULL;
    c->why[0] = '\0';
}

static rl_state_io io_of(codec *c)
{
    return (rl_state_io){sizeof(rl_state_io), c, io_put, io_get, io_error, NULL};
}

/* ---- scratch envs -------------------------------------------------------- */

static void scratch_close(const rl__model *m, scratch *s)
{
    if (s->env) m->vt->destroy(s->env);
    free(s->block);
    memset(s, 0, sizeof *s);
}

static int scratch_open(rl__model *m, scratch *s, const rl_value *options, const rl_value *stages,
                        const rl_env_info *live, char *err, size_t errlen)
{
    rl_env_info info;
    int rc = rl__env_open(m->desc, options, stages, 1, 0, &s->env, &info, err, errlen);
    if (rc != RL_OK) return rc;
    uint32_t agents = info.agents ? info.agents : 1;
    if (agents != m->agents || info.obs_size != live->obs_size || info.obs_dtype != live->obs_dtype) {
        snprintf(err, errlen, "env '%s': a scratch env of one env differs from the live one in agents or observation",
                 m->desc->name);
        return RL_EINVAL;
    }
    size_t A = agents, rb = m->row_bytes, mw = m->n_actions;
    size_t bytes = 2 * A * rb + 2 * A * mw + mw + 3 * A + A * sizeof(int32_t) + 2 * A * sizeof(float);
    uint8_t *p = s->block = calloc(1, bytes);
    if (!p) return RL_ENOMEM;
    s->rewards = (float *)p, p += A * sizeof(float);
    s->scores = (float *)p, p += A * sizeof(float);
    s->actions = (int32_t *)p, p += A * sizeof(int32_t);
    s->obs = p, p += A * rb;
    s->final_obs = p, p += A * rb;
    s->mask = p, p += A * mw;
    s->final_mask = p, p += A * mw;
    s->to_move = p, p += A;
    s->term = p, p += A;
    s->trunc = p, p += A;
    s->ones = memset(p, 1, mw);
    s->io = (rl_env_io){.struct_size = sizeof s->io,
                        .obs = s->obs,
                        .actions = s->actions,
                        .rewards = s->rewards,
                        .terminated = s->term,
                        .truncated = s->trunc,
                        .final_obs = s->final_obs,
                        .scores = s->scores,
                        .action_mask = m->masks ? s->mask : NULL,
                        .final_mask = m->masks ? s->final_mask : NULL,
                        .to_move = m->turn ? s->to_move : NULL};
    const rl_env_vtable *vt = m->vt;
    s->state = vt->get_extension ? vt->get_extension(s->env, RL_EXT_ENV_STATE) : NULL;
    s->status = vt->get_extension ? vt->get_extension(s->env, RL_EXT_ENV_STATUS) : NULL;
    if (s->status && !(RL_HAS_FIELD(s->status, rl_env_status_ext, status) && s->status->status)) s->status = NULL;
    if (!s->state || !RL_HAS_FIELD(s->state, rl_env_state_ext, load) || !s->state->save || !s->state->load) {
        snprintf(err, errlen, "env '%s' declares itself searchable but saves no state (rl.env.state/1)", m->desc->name);
        return RL_ENOTSUP;
    }
    vt->reset(s->env, &s->io, 0, 1);
    return RL_OK;
}

static int load_state(rl__model *m, scratch *s, const uint8_t *state, char *err, size_t errlen)
{
    codec c;
    codec_start(&c, m, IO_LOAD, (uint8_t *)state);
    rl_state_io io = io_of(&c);
    char perr[RL_ERR_MAX];
    perr[0] = '\0';
    int rc = s->state->load(s->env, &io, "", perr, sizeof perr);
    if (rc != RL_OK)
        snprintf(err, errlen, "env '%s' did not restore a state of the search: %s", m->desc->name,
                 perr[0]        ? perr
                     : c.why[0] ? c.why
                                : rl_strerror(rc));
    return rc;
}

/* The env (vt's instance `env`) saved through c, every tensor of a state
   put once; on failure "env 'NAME' FAILED: why". */
static int save_with(rl__model *m, codec *c, const rl_env_state_ext *st, void *env, const char *failed, char *err,
                     size_t errlen)
{
    rl_state_io io = io_of(c);
    char perr[RL_ERR_MAX];
    perr[0] = '\0';
    int rc = st->save(env, &io, "", perr, sizeof perr);
    if (rc == RL_OK && c->puts != m->n_tensors) {
        snprintf(c->why, sizeof c->why, "it saved %u tensors, where one env of it saves %u", c->puts, m->n_tensors);
        rc = RL_ECORRUPT;
    }
    if (rc != RL_OK)
        snprintf(err, errlen, "env '%s' %s: %s", m->desc->name, failed,
                 c->why[0]     ? c->why
                     : perr[0] ? perr
                               : rl_strerror(rc));
    return rc;
}

static int save_state(rl__model *m, scratch *s, uint8_t *state, char *err, size_t errlen)
{
    codec c;
    codec_start(&c, m, IO_SAVE, state);
    return save_with(m, &c, s->state, s->env, "did not save a state of the search", err, errlen);
}

/* The scratch env's step of `action` by agent *mover: the reward to the
   mover, whether the episode ended, and (if not) who moves next. */
static int advance(rl__model *m, scratch *s, int32_t action, uint32_t *mover, float *reward, int *over, char *err,
                   size_t errlen)
{
    uint32_t g = *mover;
    memset(s->actions, 0, m->agents * sizeof *s->actions);
    s->actions[g] = action;
    m->vt->step(s->env, &s->io, 0, 1);
    if (s->status) {
        char why[RL_ERR_MAX] = "";
        int rc = s->status->status(s->env, why, sizeof why);
        if (rc != RL_OK) {
            snprintf(err, errlen, "env '%s' failed a step of the search: %s", m->desc->name,
                     why[0] ? why : rl_strerror(rc));
            return rc;
        }
    }
    *reward = s->rewards[g];
    *over = s->term[g] || s->trunc[g];
    if (!isfinite(*reward)) {
        snprintf(err, errlen, "env '%s' gave a reward that is not finite in a step of the search", m->desc->name);
        return RL_ENONFINITE;
    }
    if (m->agents == 2 && fabsf(s->rewards[0] + s->rewards[1]) > 1e-5f * (1 + fabsf(*reward))) {
        snprintf(err, errlen,
                 "env '%s' rewarded its two players %g and %g in one step: the search takes zero-sum games only",
                 m->desc->name, (double)s->rewards[0], (double)s->rewards[1]);
        return RL_ENOTSUP;
    }
    if (*over || !m->turn) return RL_OK;
    uint32_t next = UINT32_MAX;
    for (uint32_t a = 0; a < m->agents; a++)
        if (s->to_move[a]) next = next == UINT32_MAX ? a : UINT32_MAX - 1;
    if (next >= m->agents) {
        snprintf(err, errlen, "env '%s' has %s agent to move after a step of the search; one must be", m->desc->name,
                 next == UINT32_MAX ? "no" : "more than one");
        return RL_EINVAL;
    }
    *mover = next;
    return RL_OK;
}

static const uint8_t *mask_of(const rl__model *m, const scratch *s, uint32_t agent)
{
    return m->masks ? s->mask + (size_t)agent * m->n_actions : NULL;
}

static void write_header(const rl__model *m, uint8_t *state, uint32_t mover, const uint8_t *mask)
{
    header h = {mover, 0};
    memcpy(state, &h, sizeof h);
    if (mask)
        memcpy(state + sizeof h, mask, m->n_actions);
    else
        memset(state + sizeof h, 1, m->n_actions);
}

static int model_step(void *ctx, uint32_t worker, const void *state, int32_t action, void *next, void *obs,
                      uint8_t *mask, rl_search_step *out, char *err, size_t errlen)
{
    rl__model *m = ctx;
    scratch *s = &m->w[worker];
    header h;
    memcpy(&h, state, sizeof h);
    int rc = load_state(m, s, state, err, errlen);
    if (rc != RL_OK) return rc;
    uint32_t mover = h.mover;
    int over;
    rc = advance(m, s, action, &mover, &out->reward, &over, err, errlen);
    if (rc != RL_OK) return rc;
    out->over = (uint8_t)over;
    out->same_mover = mover == h.mover;
    if (over) {
        memset(mask, 1, m->n_actions);
        return RL_OK;
    }
    memcpy(obs, s->obs + (size_t)mover * m->row_bytes, m->row_bytes);
    const uint8_t *mk = mask_of(m, s, mover);
    if (mk)
        memcpy(mask, mk, m->n_actions);
    else
        memset(mask, 1, m->n_actions);
    write_header(m, next, mover, mk);
    return save_state(m, s, next, err, errlen);
}

#define MAX_ROLLOUT_STEPS (1u << 20)

static int model_rollout(void *ctx, uint32_t worker, const void *state, rl_rng *rng, float discount, float *value,
                         char *err, size_t errlen)
{
    rl__model *m = ctx;
    scratch *s = &m->w[worker];
    header h;
    memcpy(&h, state, sizeof h);
    int rc = load_state(m, s, state, err, errlen);
    if (rc != RL_OK) return rc;
    uint32_t mover = h.mover, me = h.mover;
    const uint8_t *mask = (const uint8_t *)state + sizeof h;
    double ret = 0, scale = 1;
    for (uint32_t k = 0; k < MAX_ROLLOUT_STEPS; k++) {
        int32_t a = rl_search_random_move(mask, m->n_actions, rng);
        if (a < 0) {
            snprintf(err, errlen, "env '%s' wrote a mask allowing no move in a rollout of the search", m->desc->name);
            return RL_EINVAL;
        }
        uint32_t who = mover;
        float r;
        int over;
        rc = advance(m, s, a, &mover, &r, &over, err, errlen);
        if (rc != RL_OK) return rc;
        ret += (who == me ? scale : -scale) * r;
        if (over) {
            *value = (float)ret;
            return RL_OK;
        }
        scale *= discount;
        mask = m->masks ? mask_of(m, s, mover) : s->ones;
    }
    snprintf(err, errlen, "env '%s': a rollout of the search took %u steps without the episode ending", m->desc->name,
             MAX_ROLLOUT_STEPS);
    return RL_EINVAL;
}

void rl__model_close(rl__model *m)
{
    if (!m) return;
    for (uint32_t w = 0; m->w && w < m->workers; w++) scratch_close(m, &m->w[w]);
    free(m->w);
    free(m);
}

/* Whether the env can be modeled, from its descriptor and info alone. */
static int check_env(const rl_plugin_desc *desc, const rl_env_info *info, char *err, size_t errlen)
{
    uint32_t flags = RL_HAS_FIELD(desc, rl_plugin_desc, flags) ? desc->flags : 0;
    uint32_t agents = info->agents ? info->agents : 1;
    const char *why = NULL;
    if (!(flags & RL_DESC_SEARCHABLE))
        why = "it does not declare itself searchable (RL_DESC_SEARCHABLE: its step follows from its saved state "
              "and the actions alone)";
    else if (rl_env_info_action_kind(info) != RL_SPACE_DISCRETE)
        why = "the search takes discrete actions only";
    else if (!(agents == 1 || (agents == 2 && rl_env_info_turn_based(info) && rl_env_info_seats(info) == 2)))
        why = "the search takes one agent, or two players taking turns";
    else if (info->n_actions > 4096)
        why = "the search takes at most 4096 actions";
    if (!why) return RL_OK;
    snprintf(err, errlen, "env '%s' cannot be searched: %s", desc->name, why);
    return RL_ENOTSUP;
}

const rl_search_model *rl__model_search(const rl__model *m)
{
    return &m->face;
}

int rl__model_open(rl__model **out, const rl_plugin_desc *desc, const rl_value *options, const rl_value *stages,
                   const rl_env_info *info, uint32_t workers, char *err, size_t errlen)
{
    *out = NULL;
    int rc = check_env(desc, info, err, errlen);
    if (rc != RL_OK) return rc;
    rl__model *m = calloc(1, sizeof *m);
    if (!m || !(m->w = calloc(workers ? workers : 1, sizeof *m->w))) {
        free(m);
        snprintf(err, errlen, "out of memory for the search's model of env '%s'", desc->name);
        return RL_ENOMEM;
    }
    m->desc = desc;
    m->vt = desc->vtable;
    m->workers = workers ? workers : 1;
    m->agents = info->agents ? info->agents : 1;
    m->n_actions = info->n_actions;
    m->turn = rl_env_info_turn_based(info) != 0;
    m->masks = rl_env_info_mask_width(info) != 0;
    m->row_bytes = (size_t)info->obs_size * rl_dtype_size(info->obs_dtype);
    m->header = (sizeof(header) + m->n_actions + 7) & ~(size_t)7;
    for (uint32_t w = 0; w < m->workers && rc == RL_OK; w++)
        rc = scratch_open(m, &m->w[w], options, stages, info, err, errlen);
    if (rc == RL_OK) { /* the layout of a state: what one env saves */
        codec c = {.m = m, .mode = IO_RECORD};
        rl_state_io io = io_of(&c);
        char perr[RL_ERR_MAX] = "";
        rc = m->w[0].state->save(m->w[0].env, &io, "", perr, sizeof perr);
        if (rc != RL_OK)
            snprintf(err, errlen, "env '%s' cannot be searched: %s", desc->name,
                     c.why[0]      ? c.why
                         : perr[0] ? perr
                                   : rl_strerror(rc));
    }
    if (rc != RL_OK) {
        rl__model_close(m);
        return rc;
    }
    const tensor *last = m->n_tensors ? &m->t[m->n_tensors - 1] : NULL;
    m->face = (rl_search_model){.struct_size = sizeof m->face,
                                .ctx = m,
                                .state_bytes = last ? last->offset + last->bytes : m->header,
                                .obs_bytes = m->row_bytes,
                                .n_actions = m->n_actions,
                                .workers = m->workers,
                                .step = model_step,
                                .rollout = model_rollout};
    *out = m;
    return RL_OK;
}

int rl__model_roots(rl__model *m, const rl_env_vtable *vt, void *env, uint32_t boards, const uint32_t *boards_of,
                    const uint32_t *movers, const uint8_t *masks, size_t mask_stride, uint32_t count, void *states,
                    char *err, size_t errlen)
{
    const rl_env_state_ext *st = vt->get_extension ? vt->get_extension(env, RL_EXT_ENV_STATE) : NULL;
    if (!st || !st->save) {
        snprintf(err, errlen, "env '%s' saves no state to search from", m->desc->name);
        return RL_ENOTSUP;
    }
    size_t sb = m->face.state_bytes;
    for (uint32_t j = 0; j < count; j++) {
        if (boards_of[j] >= boards || movers[j] >= m->agents) {
            snprintf(err, errlen, "search: root %u names env %u agent %u of %u envs of %u agents", j, boards_of[j],
                     movers[j], boards, m->agents);
            return RL_EINVAL;
        }
        write_header(m, (uint8_t *)states + j * sb, movers[j], masks ? masks + j * mask_stride : NULL);
    }
    codec c = {.m = m, .mode = IO_ROOTS, .state = states, .boards = boards, .of = boards_of, .count = count};
    return save_with(m, &c, st, env, "cannot be searched", err, errlen);
}
