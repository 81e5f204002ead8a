/* Vectorized envs for the embedding program (rlh_vec_*): the host's
   vecenv over buffers the caller may supply. */
#define _GNU_SOURCE
#include "embed/embed_internal.h"

#include <stdlib.h>
#include <string.h>

#include <rlhost/rlcore.h>

#include "base/text.h"

static void buffers_from(rlh_buffers *b, rl__vecenv *v)
{
    *b = (rlh_buffers){sizeof *b,      v->io.obs,         v->actions,       v->rewards,       v->terminated,
                       v->truncated,   v->io.final_obs,   v->io.scores,     v->episode_start, v->done_return,
                       v->done_length, v->io.action_mask, v->io.final_mask, v->to_move};
}

/* A vec over c's env (c already resolved); takes c over, also on failure. */
rlh_vec *rl__embed_vec_from_config(rl__config *c, uint32_t num_envs, uint64_t seed, int eval, char *err, size_t errlen)
{
    rlh_vec *h = calloc(1, sizeof *h);
    if (!h) {
        rl__config_destroy(c);
        rl__embed_err(err, errlen, "out of memory%s%s", "", "");
        return NULL;
    }
    h->cfg = *c;
    const rl_value *thr = &h->cfg.env_host_stages.vals[RL__ENVST_THREADS];
    uint32_t repeat = (uint32_t)h->cfg.env_host_stages.vals[RL__ENVST_ACTION_REPEAT].i;
    char e[RL_ERR_MAX] = "";
    const rl_value *opts = eval ? rl__env_eval_opts(&h->cfg) : h->cfg.env_opts.vals;
    rl__seating raw = {.raw = 1}; /* an env with seats: every agent's row is the caller's */
    if (rl__vecenv_create_seated(&h->v, h->cfg.env->desc, opts, h->cfg.env_stages.vals, num_envs, seed,
                                 thr->is_auto ? 0 : (uint32_t)thr->i, repeat, &raw, e, sizeof e) != RL_OK) {
        rl__embed_err(err, errlen, "%s%s", e, "");
        rl__config_destroy(&h->cfg);
        free(h);
        return NULL;
    }
    h->v.fixed_obs = 1;
    h->v.prev_obs = NULL;
    h->v.prev_mask = NULL;
    buffers_from(&h->own, &h->v);
    h->b = h->own;
    return h;
}

/* A vec over the env group of a config text (origin names it in messages). */
rlh_vec *rl__embed_vec_from_text(rlh_host *h, const char *origin, const rl__sbuf *text, const rl__override *ov,
                                 size_t n_ov, uint32_t num_envs, uint64_t seed, int eval, char *err, size_t errlen)
{
    if (text->oom) {
        rl__embed_err(err, errlen, "out of memory%s%s", "", "");
        return NULL;
    }
    rl__config c;
    rl__sbuf errors = {0};
    int rc = rl__config_load_text(&c, origin, text->data, ov, n_ov, &h->reg, &errors, 0);
    if (rc != RL_OK) rl__embed_errors(err, errlen, &errors);
    rl__sbuf_free(&errors);
    return rc == RL_OK ? rl__embed_vec_from_config(&c, num_envs, seed, eval, err, errlen) : NULL;
}

rlh_vec *rlh_vec_open(rlh_host *h, const char *name, uint32_t num_envs, uint64_t seed, const char *options, char *err,
                      size_t errlen)
{
    if (!h || !name) {
        rl__embed_err(err, errlen, "rlh_vec_open needs a host and an env name%s%s", "", "");
        return NULL;
    }
    /* A config of one env group: the options keep their own line numbers. */
    rl__sbuf text = {0};
    rl__sbuf_puts(&text, "env: { plugin = ");
    rl__sbuf_cfg_str(&text, name);
    rl__sbuf_printf(&text, "; num_envs = %u; %s\n};\n", num_envs, options ? options : "");
    rlh_vec *v = rl__embed_vec_from_text(h, "options", &text, NULL, 0, num_envs, seed, 0, err, errlen);
    rl__sbuf_free(&text);
    return v;
}

void rlh_vec_close(rlh_vec *v)
{
    if (!v) return;
    /* the caller's buffers are the caller's to free */
    v->v.io.obs = v->own.obs;
    v->v.actions = v->own.actions;
    v->v.io.actions = v->own.actions;
    v->v.rewards = v->v.io.rewards = v->own.rewards;
    v->v.terminated = v->v.io.terminated = v->own.terminated;
    v->v.truncated = v->v.io.truncated = v->own.truncated;
    v->v.io.final_obs = v->own.final_obs;
    v->v.io.scores = v->own.scores;
    rl__vecenv_destroy(&v->v);
    rl__config_destroy(&v->cfg);
    free(v);
}

const rl_env_info *rlh_vec_info(const rlh_vec *v)
{
    return &v->v.info;
}
uint32_t rlh_vec_num_envs(const rlh_vec *v)
{
    return v->v.n;
}
uint32_t rlh_vec_threads(const rlh_vec *v)
{
    return rl__pool_threads(v->v.pool);
}
const rlh_buffers *rlh_vec_buffers(const rlh_vec *v)
{
    return &v->b;
}

int rlh_vec_set_buffers(rlh_vec *v, const rlh_buffers *b, char *err, size_t errlen)
{
    if (!v || !b) {
        rl__embed_err(err, errlen, "rlh_vec_set_buffers needs a vec and buffers%s%s", "", "");
        return RL_EINVAL;
    }
    if (!RL_HAS_FIELD(b, rlh_buffers, obs)) {
        RL_ERRF(err, errlen, "rlh_buffers.struct_size is %u: set it to sizeof(rlh_buffers)", (unsigned)b->struct_size);
        return RL_EINVAL;
    }
    rlh_buffers in = {0}; /* the members b's struct_size covers; the rest NULL */
    memcpy(&in, b, b->struct_size < sizeof in ? b->struct_size : sizeof in);
    b = &in;
    rl__vecenv *e = &v->v;
    if (b->obs) e->io.obs = e->obs_buf[0] = b->obs;
    if (b->actions) {
        e->actions = b->actions;
        if (e->space.kind == RL_SPACE_DISCRETE) e->io.actions = b->actions;
    }
    if (b->rewards) e->rewards = e->io.rewards = b->rewards;
    if (b->terminated) e->terminated = e->io.terminated = b->terminated;
    if (b->truncated) e->truncated = e->io.truncated = b->truncated;
    if (b->final_obs) e->io.final_obs = b->final_obs;
    if (b->scores) e->io.scores = b->scores;
    e->obs_buf[0] = v->own.obs; /* obs_buf stays the host's (freed at close) */
    buffers_from(&v->b, e);
    return RL_OK;
}

int rlh_vec_set_autoreset(rlh_vec *v, int mode, char *err, size_t errlen)
{
    if (!v || (mode != RLH_AUTORESET_SAME_STEP && mode != RLH_AUTORESET_NEXT_STEP)) {
        RL_ERRF(err, errlen,
                "rlh_vec_set_autoreset: mode %d is not RLH_AUTORESET_SAME_STEP (0) or "
                "RLH_AUTORESET_NEXT_STEP (1)",
                mode);
        return RL_EINVAL;
    }
    char e[RL_ERR_MAX] = "";
    int rc = rl__vecenv_set_autoreset(&v->v, mode == RLH_AUTORESET_NEXT_STEP, e, sizeof e);
    if (rc != RL_OK) rl__embed_err(err, errlen, "%s%s", e, "");
    return rc;
}

void rlh_vec_reset(rlh_vec *v)
{
    rl__vecenv_reset(&v->v);
}

int rlh_vec_reseed(rlh_vec *v, uint64_t seed, char *err, size_t errlen)
{
    char e[RL_ERR_MAX] = "";
    int rc = rl__vecenv_reseed(&v->v, seed, e, sizeof e);
    if (rc != RL_OK)
        rl__embed_err(err, errlen, "%s%s", e, "");
    else
        rl__vecenv_reset(&v->v);
    return rc;
}

int rlh_vec_step(rlh_vec *v, char *err, size_t errlen)
{
    char e[RL_ERR_MAX] = "";
    /* the caller's actions are checked, not clipped: an action outside the
       box is the caller's mistake */
    int rc =
        rl__space_check_actions(&v->v.space, v->v.actions, v->v.io.action_mask, v->v.n, 1, "the caller", e, sizeof e);
    if (rc == RL_OK) rc = rl__vecenv_step(&v->v, e, sizeof e);
    if (rc != RL_OK) rl__embed_err(err, errlen, "%s%s", e, "");
    return rc;
}

/* The env's extension `id` with at least `need` bytes of it, or NULL with
   the sentence in err. */
static const void *vec_extension(rlh_vec *v, uint32_t row, const char *id, size_t need, char *err, size_t errlen)
{
    rl__vecenv *e = &v->v;
    if (row >= e->n) {
        RL_ERRF(err, errlen, "row %u is outside the vec's %u rows", row, e->n);
        return NULL;
    }
    const uint32_t *ext = e->vt->get_extension ? e->vt->get_extension(e->env, id) : NULL;
    if (!ext || *ext < need) {
        RL_ERRF(err, errlen, "env '%s' cannot draw itself this way (no %s capability)", e->desc->name, id);
        return NULL;
    }
    return ext;
}

static const rl_env_info_ext *info_ext(rlh_vec *v)
{
    const rl__vecenv *e = &v->v;
    const rl_env_info_ext *x = e->vt->get_extension ? e->vt->get_extension(e->env, RL_EXT_ENV_INFO) : NULL;
    return x && RL_HAS_FIELD(x, rl_env_info_ext, read) && x->n && x->names && x->dtypes && x->read ? x : NULL;
}

uint32_t rlh_vec_info_names(rlh_vec *v, const char **names, int *dtypes, uint32_t cap)
{
    const rl_env_info_ext *x = info_ext(v);
    if (!x) return 0;
    for (uint32_t k = 0; names && dtypes && k < x->n && k < cap; k++) {
        names[k] = x->names[k];
        dtypes[k] = (int)x->dtypes[k];
    }
    return x->n;
}

int rlh_vec_info_read(rlh_vec *v, int now, double *out, char *err, size_t errlen)
{
    const rl_env_info_ext *x = info_ext(v);
    if (!x) {
        RL_ERRF(err, errlen, "env '%s' reports no values beside its rewards", v->v.desc->name);
        return RL_ENOTSUP;
    }
    for (uint32_t b = 0; b < v->v.boards; b++) x->read(v->v.env, b, now, out + (size_t)b * x->n);
    return RL_OK;
}

int rlh_vec_render_text(rlh_vec *v, uint32_t row, char *buf, size_t cap, char *err, size_t errlen)
{
    const rl_env_render_ext *r = vec_extension(v, row, RL_EXT_ENV_RENDER, sizeof *r, err, errlen);
    if (!r) return RL_ENOTSUP;
    if (!buf || !cap) {
        RL_ERRF(err, errlen, "rlh_vec_render_text needs a buffer");
        return RL_EINVAL;
    }
    int n = r->render(v->v.env, row / v->v.agents, 0, buf, cap);
    if (n < 0) RL_ERRF(err, errlen, "env '%s' failed to draw row %u: %s", v->v.desc->name, row, rl_strerror(n));
    return n;
}

int rlh_vec_render_rgb(rlh_vec *v, uint32_t row, uint8_t *rgb, size_t cap, uint32_t size[2], char *err, size_t errlen)
{
    const rl_env_raster_ext *r = vec_extension(v, row, RL_EXT_ENV_RASTER, sizeof *r, err, errlen);
    if (!r) return RL_ENOTSUP;
    uint32_t h = 0, w = 0;
    r->size(v->v.env, &h, &w);
    size[0] = h;
    size[1] = w;
    if (!rgb) return RL_OK;
    if (cap / 3 / (w ? w : 1) < h) {
        RL_ERRF(err, errlen, "a frame of %u x %u pixels needs %zu bytes, the buffer has %zu", h, w, (size_t)h * w * 3,
                cap);
        return RL_EINVAL;
    }
    int rc = r->draw(v->v.env, row / v->v.agents, rgb);
    if (rc != RL_OK) RL_ERRF(err, errlen, "env '%s' failed to draw row %u: %s", v->v.desc->name, row, rl_strerror(rc));
    return rc;
}
