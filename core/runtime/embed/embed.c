/* The embedding API, <rlhost/host.h>: thin handles over the runtime the CLI
   uses (registry, config, vecenv, policy restore), so an embedder gets the
   same plugins, the same validation sentences and the same numbers. */
#define _GNU_SOURCE
#include <rlhost/host.h>

#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <rlhost/rlcore.h>

#include "run/rundir.h"
#include "checkpoint/safetensors.h"
#include "plugin/config.h"
#include "run/eval.h"
#include "checkpoint/restore.h"
#include "run/run.h"
#include "env/vecenv.h"
#include "base/text.h"
#include "base/log.h"

#ifndef RLHOST_VERSION
#define RLHOST_VERSION "unknown"
#endif

/* An env the caller registered: its descriptor (first, so the descriptor
   rl__vecenv_creating() names is the record), a vtable of trampolines, and
   the caller's definition. */
typedef struct caller_env {
    rl_plugin_desc desc;
    rlh_env_def def;
    char name[64], description[160];
    struct caller_env *next;
} caller_env;

struct rlh_host {
    rl__registry reg;
    caller_env *callers;
};

struct rlh_vec {
    rl__vecenv v;
    rl__config cfg;
    rlh_buffers b;
    rlh_buffers own; /* the host's buffers, restored before destroy */
};

struct rlh_policy {
    rlh_host *h;
    rl__config cfg;
    rl__vecenv probe; /* one env: the spaces, and what a policy vec copies */
    void *algo;
    const rl_algo_vtable *avt;
    uint32_t n;
    uint64_t step;
    uint8_t *no_start; /* n zeros: episode_start when the caller has none */
    rl__ckpt ckpt;     /* what was loaded, as validated */
    unsigned char *ckpt_bytes; /* ckpt as a file, made on first request */
    size_t ckpt_len;
};

static void set_err(char *err, size_t errlen, const char *fmt, const char *a, const char *b)
{
    if (err && errlen) snprintf(err, errlen, fmt, a, b);
}

/* Config errors come one per line ("origin:line: ..."); an embedder gets
   them as one sentence. */
static void errors_to(char *err, size_t errlen, const rl__sbuf *errors)
{
    if (!err || !errlen) return;
    if (!errors->data || errors->oom) {
        snprintf(err, errlen, "out of memory");
        return;
    }
    size_t w = 0;
    const char *s = errors->data;
    if (!strncmp(s, "rlhost: ", 8)) s += 8;
    for (; *s && w + 1 < errlen; s++) {
        if (*s == '\n') {
            if (!s[1]) break;
            if (w + 3 >= errlen) break;
            err[w++] = ';';
            err[w++] = ' ';
            if (!strncmp(s + 1, "rlhost: ", 8)) s += 8;
            continue;
        }
        err[w++] = *s;
    }
    err[w] = 0;
}

const char *rlh_version(void) { return RLHOST_VERSION; }

int rlh_api_version(void) { return RLH_API_VERSION; }

void rlh_set_log_level(int max_level) { rl__log_set_level((rl_log_level)max_level); }

void rlh_set_log_handler(rlh_log_fn fn, void *ctx) { rl__log_set_sink(fn, ctx); }

rlh_host *rlh_open(const char *plugin_path, char *err, size_t errlen)
{
    rlh_host *h = calloc(1, sizeof *h);
    char *copy = plugin_path ? strdup(plugin_path) : NULL;
    if (!h || (plugin_path && !copy)) {
        free(h);
        free(copy);
        set_err(err, errlen, "out of memory%s%s", "", "");
        return NULL;
    }
    const char *dirs[64];
    size_t n = 0;
    char *save = NULL;
    for (char *d = copy ? strtok_r(copy, ":", &save) : NULL; d && n < 64; d = strtok_r(NULL, ":", &save))
        dirs[n++] = d;
    rl__registry_discover(&h->reg, dirs, n);
    free(copy);
    for (size_t i = 0; i < h->reg.n_refusals; i++) rl__log(RL_LOG_WARN, NULL, "%s", h->reg.refusals[i]);
    return h;
}

void rlh_close(rlh_host *h)
{
    if (!h) return;
    rl__registry_destroy(&h->reg);
    while (h->callers) {
        caller_env *next = h->callers->next;
        free(h->callers);
        h->callers = next;
    }
    free(h);
}

/* ---- a plugin's description ----------------------------------------------- */

static void option_json(rl__sbuf *b, const rl_option_def *o)
{
    static const char *const types[] = {"?", "bool", "int", "float", "string", "enum", "int_list", "string_list"};
    rl__sbuf_puts(b, "{");
    rl__json_str(b, "name", o->name);
    rl__json_str(b, "type", o->type >= RL_OPT_BOOL && o->type <= RL_OPT_STRING_LIST ? types[o->type] : "?");
    if (o->default_text) rl__json_str(b, "default", o->default_text);
    else rl__json_raw(b, "default", "null");
    if (o->min <= o->max) {
        rl__json_num(b, "min", o->min);
        rl__json_num(b, "max", o->max);
    }
    if (o->type == RL_OPT_ENUM && o->choices) {
        rl__json_raw(b, "choices", "[");
        for (size_t k = 0; o->choices[k]; k++) {
            if (k) rl__sbuf_puts(b, ", ");
            rl__sbuf_json_str(b, o->choices[k]);
        }
        rl__sbuf_puts(b, "]");
    }
    rl__json_raw(b, "auto", o->flags & RL_OPT_AUTO ? "true" : "false");
    rl__json_raw(b, "required", o->flags & RL_OPT_REQUIRED ? "true" : "false");
    rl__json_raw(b, "changes_results", o->flags & RL_OPT_CHANGES_RESULTS ? "true" : "false");
    rl__json_str(b, "help", o->help);
    rl__sbuf_puts(b, "}");
}

static void options_json(rl__sbuf *b, const char *key, const rl_option_def *o, uint32_t n)
{
    rl__json_raw(b, key, "[");
    for (uint32_t i = 0; i < n; i++) {
        if (i) rl__sbuf_puts(b, ", ");
        option_json(b, &o[i]);
    }
    rl__sbuf_puts(b, "]");
}

int rlh_plugin_info(const rlh_host *h, rl_plugin_kind kind, const char *name, char *buf, size_t cap, char *err,
                    size_t errlen)
{
    char e[RL_ERR_MAX] = "";
    const rl__plugin *p = h && name ? rl__registry_find(&h->reg, kind, name, "rlh_plugin_info", e, sizeof e) : NULL;
    if (!p) {
        set_err(err, errlen, "%s%s", e[0] ? e : "rlh_plugin_info needs a host and a name", "");
        return RL_ENOENT;
    }
    const rl_plugin_desc *d = p->desc;
    rl__sbuf b = {0};
    rl__sbuf_puts(&b, "{");
    rl__json_str(&b, "name", d->name);
    rl__json_str(&b, "kind", rl__kind_name(d->kind));
    rl__json_str(&b, "version", d->version);
    rl__json_str(&b, "description", d->description);
    rl__json_str(&b, "file", p->path);
    options_json(&b, "options", d->options, d->n_options);
    options_json(&b, "stages", d->stages, d->n_stages);
    rl__sbuf_puts(&b, "}");
    if (b.oom) {
        rl__sbuf_free(&b);
        set_err(err, errlen, "out of memory%s%s", "", "");
        return RL_ENOMEM;
    }
    if (buf && cap) snprintf(buf, cap, "%s", b.data);
    int len = (int)b.len;
    rl__sbuf_free(&b);
    return len;
}

/* ---- the caller's envs -------------------------------------------------- */

/* An instance: the caller's, and the first failure of its calls. */
typedef struct caller_inst {
    const caller_env *ce;
    void *inst;
    int rc;
    char why[RL_ERR_MAX];
} caller_inst;

static int ce_create(const rl_env_args *args, void **out, rl_env_info *info, char *err, size_t errlen)
{
    const caller_env *ce = (const caller_env *)rl__vecenv_creating();
    if (!ce) {
        RL_ERRF(err, errlen, "a caller's env was created outside the host's env driver");
        return RL_EINVAL;
    }
    caller_inst *ci = calloc(1, sizeof *ci);
    if (!ci) {
        RL_ERRF(err, errlen, "out of memory");
        return RL_ENOMEM;
    }
    ci->ce = ce;
    int rc = ce->def.create(ce->def.ctx, args->num_envs, args->seed, info, &ci->inst, err, errlen);
    if (rc != RL_OK) {
        free(ci);
        return rc < 0 ? rc : RL_EINVAL;
    }
    *out = ci;
    return RL_OK;
}

static void ce_destroy(void *env)
{
    caller_inst *ci = env;
    if (!ci) return;
    ci->ce->def.destroy(ci->ce->def.ctx, ci->inst);
    free(ci);
}

/* Keeps the first failure for rl.env.status/1. */
static void ce_result(caller_inst *ci, int rc, const char *why)
{
    if (rc == RL_OK || ci->rc != RL_OK) return;
    ci->rc = rc < 0 ? rc : RL_EIO;
    snprintf(ci->why, sizeof ci->why, "%s", why[0] ? why : rl_strerror(ci->rc));
}

static void ce_reset(void *env, const rl_env_io *io, uint32_t first, uint32_t count)
{
    caller_inst *ci = env;
    char why[RL_ERR_MAX] = "";
    ce_result(ci, ci->ce->def.reset(ci->ce->def.ctx, ci->inst, io, first, count, why, sizeof why), why);
}

static void ce_step(void *env, const rl_env_io *io, uint32_t first, uint32_t count)
{
    caller_inst *ci = env;
    char why[RL_ERR_MAX] = "";
    ce_result(ci, ci->ce->def.step(ci->ce->def.ctx, ci->inst, io, first, count, why, sizeof why), why);
}

static int ce_status(void *env, char *err, size_t errlen)
{
    caller_inst *ci = env;
    int rc = ci->rc;
    if (rc != RL_OK) snprintf(err, errlen, "%s", ci->why);
    ci->rc = RL_OK;
    return rc;
}

static const rl_env_status_ext ce_status_ext = {sizeof ce_status_ext, ce_status};

static const void *ce_extension(void *env, const char *id)
{
    (void)env;
    return strcmp(id, RL_EXT_ENV_STATUS) == 0 ? &ce_status_ext : NULL;
}

static const rl_env_vtable ce_vtable = {sizeof ce_vtable, ce_create, ce_destroy, ce_reset, ce_step, ce_extension};

int rlh_env_register(rlh_host *h, const rlh_env_def *def, char *err, size_t errlen)
{
    if (!h || !def || def->struct_size < sizeof *def || !def->name || !def->create || !def->destroy ||
        !def->reset || !def->step) {
        RL_ERRF(err, errlen, "rlh_env_register needs a host and a definition with struct_size = "
                "sizeof(rlh_env_def), a name and all four functions");
        return RL_EINVAL;
    }
    if (strlen(def->name) >= sizeof ((caller_env *)0)->name) {
        RL_ERRF(err, errlen, "env name '%.40s...' is longer than 63 characters", def->name);
        return RL_EINVAL;
    }
    caller_env *ce = calloc(1, sizeof *ce);
    if (!ce) {
        RL_ERRF(err, errlen, "out of memory");
        return RL_ENOMEM;
    }
    snprintf(ce->name, sizeof ce->name, "%s", def->name);
    snprintf(ce->description, sizeof ce->description, "%s",
             def->description ? def->description : "an env of the embedding program");
    ce->def = *def;
    ce->def.name = ce->name;
    ce->def.description = ce->description;
    ce->desc = (rl_plugin_desc){sizeof ce->desc, RL_KIND_ENV, ce->name, RLHOST_VERSION, ce->description,
                                NULL, 0, NULL, 0, &ce_vtable, RL_DESC_SERIAL};
    int rc = rl__registry_add_caller(&h->reg, &ce->desc, err, errlen);
    if (rc != RL_OK) {
        free(ce);
        return rc;
    }
    ce->next = h->callers;
    h->callers = ce;
    return RL_OK;
}

const char *rlh_plugin_name(const rlh_host *h, rl_plugin_kind kind, size_t i)
{
    for (size_t k = 0; h && k < h->reg.n_plugins; k++) {
        const rl__plugin *p = &h->reg.plugins[k];
        if (p->desc->kind != kind || p->shadowed_by) continue;
        if (i-- == 0) return p->desc->name;
    }
    return NULL;
}

/* ---- vectorized envs ---------------------------------------------------- */

static void buffers_from(rlh_buffers *b, rl__vecenv *v)
{
    *b = (rlh_buffers){sizeof *b,       v->io.obs,       v->actions,   v->rewards,
                       v->terminated,   v->truncated,    v->io.final_obs, v->io.scores,
                       v->episode_start, v->done_return, v->done_length};
}

/* A vec over c's env (c already resolved); takes c over, also on failure. */
static rlh_vec *vec_from_config(rl__config *c, uint32_t num_envs, uint64_t seed, char *err, size_t errlen)
{
    rlh_vec *h = calloc(1, sizeof *h);
    if (!h) {
        rl__config_destroy(c);
        set_err(err, errlen, "out of memory%s%s", "", "");
        return NULL;
    }
    h->cfg = *c;
    const rl_value *thr = &h->cfg.env_host_stages.vals[RL__ENVST_THREADS];
    uint32_t repeat = (uint32_t)h->cfg.env_host_stages.vals[RL__ENVST_ACTION_REPEAT].i;
    char e[RL_ERR_MAX] = "";
    if (rl__vecenv_create(&h->v, h->cfg.env->desc, h->cfg.env_opts.vals, h->cfg.env_stages.vals, num_envs,
                          seed, thr->is_auto ? 0 : (uint32_t)thr->i, repeat, e, sizeof e) != RL_OK) {
        set_err(err, errlen, "%s%s", e, "");
        rl__config_destroy(&h->cfg);
        free(h);
        return NULL;
    }
    h->v.fixed_obs = 1;
    h->v.prev_obs = NULL;
    buffers_from(&h->own, &h->v);
    h->b = h->own;
    return h;
}

/* A vec over the env group of a config text (origin names it in messages). */
static rlh_vec *vec_from_text(rlh_host *h, const char *origin, const rl__sbuf *text, const rl__override *ov,
                              size_t n_ov, uint32_t num_envs, uint64_t seed, char *err, size_t errlen)
{
    if (text->oom) {
        set_err(err, errlen, "out of memory%s%s", "", "");
        return NULL;
    }
    rl__config c;
    rl__sbuf errors = {0};
    int rc = rl__config_load_text(&c, origin, text->data, ov, n_ov, &h->reg, &errors, 0);
    if (rc != RL_OK) errors_to(err, errlen, &errors);
    rl__sbuf_free(&errors);
    return rc == RL_OK ? vec_from_config(&c, num_envs, seed, err, errlen) : NULL;
}

rlh_vec *rlh_vec_open(rlh_host *h, const char *name, uint32_t num_envs, uint64_t seed,
                      const char *options, char *err, size_t errlen)
{
    if (!h || !name) {
        set_err(err, errlen, "rlh_vec_open needs a host and an env name%s%s", "", "");
        return NULL;
    }
    /* A config of one env group: the options keep their own line numbers. */
    rl__sbuf text = {0};
    rl__sbuf_puts(&text, "env: { plugin = ");
    rl__sbuf_cfg_str(&text, name);
    rl__sbuf_printf(&text, "; num_envs = %u; %s\n};\n", num_envs, options ? options : "");
    rlh_vec *v = vec_from_text(h, "options", &text, NULL, 0, num_envs, seed, err, errlen);
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

const rl_env_info *rlh_vec_info(const rlh_vec *v) { return &v->v.info; }
uint32_t rlh_vec_num_envs(const rlh_vec *v) { return v->v.n; }
uint32_t rlh_vec_threads(const rlh_vec *v) { return rl__pool_threads(v->v.pool); }
const rlh_buffers *rlh_vec_buffers(const rlh_vec *v) { return &v->b; }

int rlh_vec_set_buffers(rlh_vec *v, const rlh_buffers *b, char *err, size_t errlen)
{
    if (!v || !b) {
        set_err(err, errlen, "rlh_vec_set_buffers needs a vec and buffers%s%s", "", "");
        return RL_EINVAL;
    }
    if (b->struct_size < offsetof(rlh_buffers, obs) + sizeof b->obs) {
        RL_ERRF(err, errlen, "rlh_buffers.struct_size is %u: set it to sizeof(rlh_buffers)",
                (unsigned)b->struct_size);
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
        RL_ERRF(err, errlen, "rlh_vec_set_autoreset: mode %d is not RLH_AUTORESET_SAME_STEP (0) or "
                "RLH_AUTORESET_NEXT_STEP (1)", mode);
        return RL_EINVAL;
    }
    char e[RL_ERR_MAX] = "";
    int rc = rl__vecenv_set_autoreset(&v->v, mode == RLH_AUTORESET_NEXT_STEP, e, sizeof e);
    if (rc != RL_OK) set_err(err, errlen, "%s%s", e, "");
    return rc;
}

void rlh_vec_reset(rlh_vec *v) { rl__vecenv_reset(&v->v); }

int rlh_vec_reseed(rlh_vec *v, uint64_t seed, char *err, size_t errlen)
{
    char e[RL_ERR_MAX] = "";
    int rc = rl__vecenv_reseed(&v->v, seed, e, sizeof e);
    if (rc != RL_OK) set_err(err, errlen, "%s%s", e, "");
    else rl__vecenv_reset(&v->v);
    return rc;
}

int rlh_vec_step(rlh_vec *v, char *err, size_t errlen)
{
    char e[RL_ERR_MAX] = "";
    /* the caller's actions are checked, not clipped: an action outside the
       box is the caller's mistake */
    int rc = rl__space_check_actions(&v->v.space, v->v.actions, v->v.n, 1, "the caller", e, sizeof e);
    if (rc == RL_OK) rc = rl__vecenv_step(&v->v, e, sizeof e);
    if (rc != RL_OK) set_err(err, errlen, "%s%s", e, "");
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

int rlh_vec_render_rgb(rlh_vec *v, uint32_t row, uint8_t *rgb, size_t cap, uint32_t size[2], char *err,
                       size_t errlen)
{
    const rl_env_raster_ext *r = vec_extension(v, row, RL_EXT_ENV_RASTER, sizeof *r, err, errlen);
    if (!r) return RL_ENOTSUP;
    uint32_t h = 0, w = 0;
    r->size(v->v.env, &h, &w);
    size[0] = h;
    size[1] = w;
    if (!rgb) return RL_OK;
    if (cap / 3 / (w ? w : 1) < h) {
        RL_ERRF(err, errlen, "a frame of %u x %u pixels needs %zu bytes, the buffer has %zu", h, w,
                (size_t)h * w * 3, cap);
        return RL_EINVAL;
    }
    int rc = r->draw(v->v.env, row / v->v.agents, rgb);
    if (rc != RL_OK) RL_ERRF(err, errlen, "env '%s' failed to draw row %u: %s", v->v.desc->name, row, rl_strerror(rc));
    return rc;
}

/* ---- training ----------------------------------------------------------- */

/* Splits "KEY=VALUE" strings into overrides (copies, freed by the caller
   via copies[]).  0, or -1 with why. */
static int parse_overrides(const char *const *in, size_t n, rl__override *ov, const char **keys, char **copies,
                           char *err, size_t errlen)
{
    if (n > 64) {
        set_err(err, errlen, "at most 64 overrides%s%s", "", "");
        return -1;
    }
    for (size_t i = 0; i < n; i++) {
        if (!(copies[i] = strdup(in[i]))) {
            set_err(err, errlen, "out of memory%s%s", "", "");
            return -1;
        }
        if (rl__override_parse(copies[i], &ov[i]) != RL_OK) {
            set_err(err, errlen, "override '%s' is not KEY=VALUE%s", in[i], "");
            return -1;
        }
        keys[i] = ov[i].key;
    }
    return 0;
}

int rlh_run(rlh_host *h, const char *config_path, const rlh_run_options *opts, char *err, size_t errlen)
{
    static const rlh_run_options none = {sizeof none, NULL, 0, 0, NULL, 0, 0};
    if (!h || !config_path) {
        set_err(err, errlen, "rlh_run needs a host and a config file%s%s", "", "");
        return RL_EINVAL;
    }
    if (opts && opts->struct_size < offsetof(rlh_run_options, resume)) { /* API 2's first struct */
        RL_ERRF(err, errlen, "rlh_run_options.struct_size is %u: set it to sizeof(rlh_run_options)",
                (unsigned)opts->struct_size);
        return RL_EINVAL;
    }
    rlh_run_options in = none; /* the members opts's struct_size covers; the rest their defaults */
    if (opts) memcpy(&in, opts, opts->struct_size < sizeof in ? opts->struct_size : sizeof in);
    opts = &in;
    if (opts->n_overrides > 63) {
        set_err(err, errlen, "at most 63 overrides%s%s", "", "");
        return RL_EINVAL;
    }
    const char *resume_dir = opts->resume ? config_path : NULL;
    char cfg_in_dir[4200];
    if (resume_dir) {
        int k = snprintf(cfg_in_dir, sizeof cfg_in_dir, "%s/config.cfg", resume_dir);
        if (k < 0 || (size_t)k >= sizeof cfg_in_dir) {
            set_err(err, errlen, "the run directory's path is too long%s%s", "", "");
            return RL_EINVAL;
        }
        config_path = cfg_in_dir;
    }
    size_t n_ov = opts->n_overrides;
    char *copies[64] = {0};
    rl__override ov[64];
    const char *keys[64];
    int rc = RL_ECONFIG;
    if (parse_overrides(opts->overrides, n_ov, ov, keys, copies, err, errlen) == 0) {
        if (resume_dir) { /* the outputs stay where they are */
            ov[n_ov] = (rl__override){"run.out_dir", resume_dir};
            keys[n_ov++] = "run.out_dir";
        }
        rl__config c;
        rl__sbuf errors = {0};
        if ((rc = rl__config_load(&c, config_path, ov, n_ov, &h->reg, &errors)) != RL_OK) {
            errors_to(err, errlen, &errors);
            if (rc != RL_ENOMEM) rc = RL_ECONFIG;
        } else {
            const char *dir = c.run.vals[RL__RUN_OUT_DIR].s;
            if (opts->out_dir && opts->out_len) snprintf(opts->out_dir, opts->out_len, "%s", dir);
            struct sigaction old_int, old_term;
            sigaction(SIGINT, NULL, &old_int);
            sigaction(SIGTERM, NULL, &old_term);
            rl_log_level level = rl__log_get_level();
            rl__run_opts o = {.resume_dir = resume_dir, .set_keys = keys, .n_set_keys = n_ov,
                              .force = opts->force};
            char first_error[RL_ERR_MAX] = "";
            rl__log_capture(first_error, sizeof first_error);
            rc = rl__run(&c, &o, NULL);
            rl__log_capture(NULL, 0);
            rl__log_set_level(level);
            sigaction(SIGINT, &old_int, NULL);
            sigaction(SIGTERM, &old_term, NULL);
            if (rc == RL_EINTR)
                set_err(err, errlen, "the run was stopped by a signal; its outputs are in %s%s", dir, "");
            else if (rc != RL_OK && err && errlen)
                snprintf(err, errlen, "the run in %s %s: %s", dir, rc == RL_ECONFIG ? "was refused" : "failed",
                         first_error[0] ? first_error : rl_strerror(rc));
            rl__config_destroy(&c);
        }
        rl__sbuf_free(&errors);
    }
    for (size_t i = 0; i < opts->n_overrides; i++) free(copies[i]);
    return rc;
}

/* ---- policies ----------------------------------------------------------- */

static int load_policy_config(rlh_host *h, const char *path, rl__override *ov, size_t n_ov, rl__config *c,
                              char *ckpt, char *prev, size_t n, char *err, size_t errlen)
{
    struct stat st;
    if (stat(path, &st) != 0) {
        set_err(err, errlen, "%s does not exist (a run directory or a checkpoint file)%s", path, "");
        return RL_EIO;
    }
    rl__sbuf errors = {0};
    int rc;
    rl__run_paths rp;
    if (rl__run_paths_of(path, &rp)) {
        snprintf(ckpt, n, "%s", rp.checkpoint);
        snprintf(prev, n, "%s", rp.prev);
        rc = rl__config_load(c, rp.config, ov, n_ov, &h->reg, &errors);
    } else {
        /* a bare checkpoint carries the config it was written with */
        snprintf(ckpt, n, "%s", path);
        prev[0] = 0;
        rl__ckpt ck = {0};
        char e[RL_ERR_MAX] = "";
        if ((rc = rl__ckpt_read(&ck, path, e, sizeof e)) != RL_OK) {
            set_err(err, errlen, "%s%s", e, "");
            rl__ckpt_free(&ck);
            return rc;
        }
        const char *text = rl__ckpt_meta_get(&ck, "rlhost.config");
        if (!text) {
            set_err(err, errlen, "%s holds no config (metadata rlhost.config); open its run directory%s", path, "");
            rl__ckpt_free(&ck);
            return RL_EINVAL;
        }
        rc = rl__config_load_text(c, path, text, ov, n_ov, &h->reg, &errors, 1);
        rl__ckpt_free(&ck);
    }
    if (rc != RL_OK) errors_to(err, errlen, &errors);
    rl__sbuf_free(&errors);
    return rc;
}

rlh_policy *rlh_policy_open(rlh_host *h, const char *path, uint32_t num_envs,
                            const char *const *overrides, size_t n_overrides, char *err, size_t errlen)
{
    if (!h || !path || num_envs == 0 || n_overrides > 64) {
        set_err(err, errlen, "rlh_policy_open needs a host, a path, num_envs >= 1 and at most 64 overrides%s%s",
                "", "");
        return NULL;
    }
    rlh_policy *p = calloc(1, sizeof *p);
    char *copies[64] = {0};
    rl__override ov[64];
    const char *keys[64];
    int ok = p != NULL;
    if (!ok) set_err(err, errlen, "out of memory%s%s", "", "");
    if (ok && parse_overrides(overrides, n_overrides, ov, keys, copies, err, errlen) != 0) ok = -1;
    char ckpt[4200], prev[4200];
    if (ok == 1 && load_policy_config(h, path, ov, n_overrides, &p->cfg, ckpt, prev, sizeof ckpt, err,
                                      errlen) != RL_OK)
        ok = -1;
    rlh_policy *out = NULL;
    if (ok == 1) p->h = h;
    if (ok == 1) {
        rl__config *c = &p->cfg;
        char e[RL_ERR_MAX] = "";
        uint32_t repeat = (uint32_t)c->env_host_stages.vals[RL__ENVST_ACTION_REPEAT].i;
        if (rl__vecenv_create(&p->probe, c->env->desc, c->env_opts.vals, c->env_stages.vals, 1,
                              (uint64_t)c->run.vals[RL__RUN_SEED].i, 1, repeat, e, sizeof e) != RL_OK) {
            set_err(err, errlen, "%s%s", e, "");
        } else {
            rl__restore r = {.path = ckpt, .prev_path = prev[0] ? prev : NULL, .allowed = keys,
                             .n_allowed = n_overrides, .keep = &p->ckpt};
            p->algo = rl__policy_open(c, &p->probe.info, num_envs, &r, err, errlen);
            p->step = r.step;
            p->avt = c->algo->desc->vtable;
            p->n = num_envs;
            p->no_start = calloc(num_envs, 1);
            if (p->algo && !p->no_start) set_err(err, errlen, "out of memory%s%s", "", "");
            if (p->algo && p->no_start) out = p;
        }
    }
    for (size_t i = 0; i < n_overrides; i++) free(copies[i]);
    if (!out) rlh_policy_close(p);
    return out;
}

void rlh_policy_close(rlh_policy *p)
{
    if (!p) return;
    if (p->algo) p->avt->destroy(p->algo);
    if (p->probe.env) rl__vecenv_destroy(&p->probe);
    rl__config_destroy(&p->cfg);
    free(p->no_start);
    rl__ckpt_free(&p->ckpt);
    free(p->ckpt_bytes);
    free(p);
}

int rlh_policy_checkpoint(rlh_policy *p, const void **data, size_t *len, char *err, size_t errlen)
{
    if (!p->ckpt_bytes) {
        char e[RL_ERR_MAX] = "";
        int rc = rl__ckpt_serialize(&p->ckpt, "the loaded checkpoint", &p->ckpt_bytes, &p->ckpt_len, e, sizeof e);
        if (rc != RL_OK) {
            set_err(err, errlen, "%s%s", e, "");
            return rc;
        }
    }
    *data = p->ckpt_bytes;
    *len = p->ckpt_len;
    return RL_OK;
}

const rl_env_info *rlh_policy_info(const rlh_policy *p) { return &p->probe.info; }
const char *rlh_policy_env_name(const rlh_policy *p) { return p->cfg.env->desc->name; }
const char *rlh_policy_algo_name(const rlh_policy *p) { return p->cfg.algo->desc->name; }
uint64_t rlh_policy_step(const rlh_policy *p) { return p->step; }

int rlh_policy_act(rlh_policy *p, const void *obs, const uint8_t *episode_start, void *actions,
                   uint32_t count, char *err, size_t errlen)
{
    if (count > p->n) {
        if (err && errlen) snprintf(err, errlen, "act for %u rows; the policy was opened for %u", count, p->n);
        return RL_EINVAL;
    }
    char e[RL_ERR_MAX] = "";
    int rc = rl__space_act(&p->probe.space, p->avt, p->algo, RL_ACT_EVAL, obs,
                           episode_start ? episode_start : p->no_start, actions, count, e, sizeof e);
    /* a box: what the env would take, inside the box (as the host clips for it) */
    if (rc == RL_OK && p->probe.space.kind == RL_SPACE_BOX)
        rc = rl__space_clip(&p->probe.space, actions, actions, count, 1, "algo", e, sizeof e);
    if (rc != RL_OK)
        set_err(err, errlen, "%s%s", e[0] ? e : rl_strerror(rc), "");
    return rc;
}

rlh_vec *rlh_policy_vec(rlh_policy *p, uint32_t num_envs, uint64_t seed, char *err, size_t errlen)
{
    /* the vec gets a config of its own (the policy's, resolved again), so
       either can be closed first */
    rl__sbuf text = {0};
    rl__config_format(&p->cfg, &text);
    char n[16];
    snprintf(n, sizeof n, "%u", num_envs);
    rl__override ov = {"env.num_envs", n};
    rlh_vec *v = vec_from_text(p->h, p->cfg.path, &text, &ov, 1, num_envs, seed, err, errlen);
    rl__sbuf_free(&text);
    return v;
}
