/* Run configuration; see config.h. */
#define _GNU_SOURCE
#include "plugin/config.h"

#include "plugin/cfgscan.h"
#include "base/arena.h"
#include "base/text.h"
#include "base/nearest.h"

#include <errno.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

uint64_t rl__schedule_steps(const rl__config *c)
{
    int64_t s = c->run.vals[RL__RUN_SCHEDULE_STEPS].i;
    return (uint64_t)(s > 0 ? s : c->run.vals[RL__RUN_STEPS].i);
}

uint32_t rl__search_threads(const rl__config *c)
{
    const rl_value *t = &c->search.vals[RL__SEARCH_THREADS];
    return t->is_auto ? 0 : (uint32_t)t->i;
}

int rl__override_parse(char *arg, rl__override *out)
{
    char *eq = strchr(arg, '=');
    if (!eq || eq == arg) return RL_ECONFIG;
    *eq = 0;
    out->key = arg;
    out->value = eq + 1;
    return RL_OK;
}

/* ---- resolution ---------------------------------------------------------*/

typedef struct resolver {
    rl__config *c;
    const char *file;
    const rl__override *ov;
    size_t n_ov;
    uint8_t *ov_used;
    rl__sbuf *errors;
    int failed;
    const rl__cfg_text *src; /* maps a setting's line to its file and line */
} resolver;

static void error_at(resolver *r, const config_setting_t *s, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void error_at(resolver *r, const config_setting_t *s, const char *fmt, ...)
{
    r->failed = 1;
    if (s && config_setting_source_line(s)) {
        const char *file;
        unsigned line;
        rl__cfg_where(r->src, config_setting_source_line(s), &file, &line);
        rl__sbuf_printf(r->errors, "%s:%u: ", file ? file : r->file, line);
    } else
        rl__sbuf_printf(r->errors, "%s: ", r->file);
    va_list ap;
    va_start(ap, fmt);
    rl__sbuf_vprintf(r->errors, fmt, ap);
    va_end(ap);
    rl__sbuf_puts(r->errors, "\n");
}

static const rl__override *find_override(resolver *r, const char *key)
{
    const rl__override *found = NULL;
    for (size_t i = 0; i < r->n_ov; i++) /* the last --set wins */
        if (strcmp(r->ov[i].key, key) == 0) {
            found = &r->ov[i];
            r->ov_used[i] = 1;
        }
    return found;
}

static int group_init(resolver *r, rl__group *g, const rl_option_def *defs, uint32_t n)
{
    g->defs = defs;
    g->n = n;
    g->vals = rl__arena_alloc(&r->c->arena, (n ? n : 1) * sizeof *g->vals);
    return g->vals ? RL_OK : RL_ENOMEM;
}

/* A value slot: which group and index holds option `name`. */
typedef struct slot {
    rl__group *g;
    int idx;
} slot;

static slot find_slot(rl__group *const *groups, size_t ng, const char *name)
{
    for (size_t i = 0; i < ng; i++) {
        int k = rl__def_find(groups[i]->defs, groups[i]->n, name);
        if (k >= 0) return (slot){groups[i], k};
    }
    return (slot){NULL, -1};
}

static const char *nearest_in(rl__group *const *groups, size_t ng, const char *name, const char *extra)
{
    const char *names[512];
    size_t n = 0;
    if (extra) names[n++] = extra;
    for (size_t i = 0; i < ng; i++)
        for (uint32_t k = 0; k < groups[i]->n && n < 512; k++) names[n++] = groups[i]->defs[k].name;
    return rl__nearest(name, names, n);
}

/* The schema groups (at most 2) of the path of KEY, the part before its
   last dot: "run", "env" and "algo" (extra: the "optimizations" group they
   hold), "env.optimizations", "algo.optimizations"; 0 for any other. */
static size_t key_groups(rl__config *c, const char *key, rl__group **groups, const char **extra)
{
    const char *dot = strrchr(key, '.');
    if (!dot) return 0;
    char path[64];
    snprintf(path, sizeof path, "%.*s", (int)(dot - key), key);
    size_t ng = 0;
    *extra = NULL;
    if (strcmp(path, "run") == 0) {
        groups[ng++] = &c->run;
    } else if (strcmp(path, "seats") == 0) {
        groups[ng++] = &c->seats;
    } else if (strcmp(path, "search") == 0) {
        groups[ng++] = &c->search;
    } else if (strcmp(path, "env") == 0) {
        groups[ng++] = &c->env_host, groups[ng++] = &c->env_opts, *extra = "optimizations";
    } else if (strcmp(path, "env.optimizations") == 0) {
        groups[ng++] = &c->env_host_stages, groups[ng++] = &c->env_stages;
    } else if (strcmp(path, "algo") == 0) {
        groups[ng++] = &c->algo_opts, *extra = "optimizations";
    } else if (strcmp(path, "algo.optimizations") == 0) {
        groups[ng++] = &c->algo_stages;
    }
    return ng;
}

/* The key nearest to an unknown --set KEY among the keys of the group its
   path names ("algo.ent_coeff": the algorithm's options, 'ent_coef'), or
   NULL when none is close or the path names no group. */
static const char *override_nearest(rl__config *c, const char *key)
{
    rl__group *groups[2];
    const char *extra;
    size_t ng = key_groups(c, key, groups, &extra);
    return ng ? nearest_in(groups, ng, strrchr(key, '.') + 1, extra) : NULL;
}

const rl_option_def *rl__config_find(rl__config *c, const char *key, const rl_value **val)
{
    rl__group *groups[2];
    const char *extra;
    size_t ng = key_groups(c, key, groups, &extra);
    slot sl = ng ? find_slot(groups, ng, strrchr(key, '.') + 1) : (slot){NULL, -1};
    if (!sl.g) return NULL;
    if (val) *val = &sl.g->vals[sl.idx];
    return &sl.g->defs[sl.idx];
}

/* Validates the children of setting g against the schema groups; `prefix`
   is the key path ("algo" or "algo.optimizations").  `set` marks the slots
   assigned from the file. */
static void resolve_settings(resolver *r, const config_setting_t *g, const char *prefix, rl__group *const *groups,
                             size_t ng, const char *skip, const char *subgroup)
{
    if (!g) return;
    int n = config_setting_length(g);
    for (int i = 0; i < n; i++) {
        const config_setting_t *s = config_setting_get_elem(g, (unsigned)i);
        const char *name = config_setting_name(s);
        if ((skip && strcmp(name, skip) == 0) || (subgroup && strcmp(name, subgroup) == 0)) continue;
        slot sl = find_slot(groups, ng, name);
        if (!sl.g) {
            const char *near = nearest_in(groups, ng, name, subgroup);
            if (near)
                error_at(r, s, "%s.%s: unknown key (did you mean '%s'?)", prefix, name, near);
            else
                error_at(r, s, "%s.%s: unknown key", prefix, name);
            continue;
        }
        char key[256];
        snprintf(key, sizeof key, "%s.%s", prefix, name);
        if (find_override(r, key)) continue; /* --set wins; applied below */
        char why[RL_ERR_MAX];
        rl_value *v = &sl.g->vals[sl.idx];
        if (rl__value_from_setting(&sl.g->defs[sl.idx], s, &r->c->arena, v, why, sizeof why) != RL_OK)
            error_at(r, s, "%s: %s", key, why);
    }
}

/* Fills every slot not set from the file: override, else default. */
static void fill_rest(resolver *r, rl__group *g, const char *prefix)
{
    for (uint32_t k = 0; k < g->n; k++) {
        const rl_option_def *def = &g->defs[k];
        char key[256], why[RL_ERR_MAX];
        snprintf(key, sizeof key, "%s.%s", prefix, def->name);
        const rl__override *o = find_override(r, key);
        if (o) {
            if (rl__value_from_text(def, o->value, &r->c->arena, &g->vals[k], why, sizeof why) != RL_OK) {
                r->failed = 1;
                size_t vl = strlen(o->value); /* a long value is shown by its start */
                rl__sbuf_printf(r->errors, "--set %s=%.*s%s: %s\n", o->key, vl > 80 ? 60 : (int)vl, o->value,
                                vl > 80 ? "..." : "", why);
            }
            continue;
        }
        if (g->vals[k].struct_size) continue; /* from the file */
        if (!def->default_text) {
            error_at(r, NULL, "%s: missing (required: %s)", key, def->help);
            continue;
        }
        if (rl__value_from_text(def, def->default_text, &r->c->arena, &g->vals[k], why, sizeof why) != RL_OK)
            error_at(r, NULL, "%s: bad default: %s", key, why);
    }
}

/* c->env_eval_vals (config.h). */
static void eval_options(resolver *r, rl__config *c)
{
    const rl__group *g = &c->env_opts;
    c->env_eval_vals = g->vals;
    uint32_t training = 0;
    for (uint32_t k = 0; k < g->n; k++) training += (g->defs[k].flags & RL_OPT_TRAINING) != 0;
    if (!training) return;
    rl_value *v = rl__arena_alloc(&c->arena, g->n * sizeof *v);
    if (!v) {
        error_at(r, NULL, "out of memory");
        return;
    }
    memcpy(v, g->vals, g->n * sizeof *v);
    for (uint32_t k = 0; k < g->n; k++) {
        const rl_option_def *def = &g->defs[k];
        char why[RL_ERR_MAX];
        if ((def->flags & RL_OPT_TRAINING) && def->default_text &&
            rl__value_from_text(def, def->default_text, &c->arena, &v[k], why, sizeof why) != RL_OK)
            error_at(r, NULL, "env.%s: bad default: %s", def->name, why);
    }
    c->env_eval_vals = v;
}

static const config_setting_t *get_group(resolver *r, const config_setting_t *parent, const char *name,
                                         const char *path)
{
    const config_setting_t *g = config_setting_get_member(parent, name);
    if (g && !config_setting_is_group(g)) {
        error_at(r, g, "%s: expected a group { ... }", path);
        return NULL;
    }
    return g;
}

/* The "plugin" key of group `which`: override, else file; NULL if missing. */
static const char *plugin_name(resolver *r, const config_setting_t *g, const char *which)
{
    char key[64];
    snprintf(key, sizeof key, "%s.plugin", which);
    const rl__override *o = find_override(r, key);
    if (o) {
        const char *v = o->value;
        if (v[0] == '"') {
            size_t n = strlen(v);
            char *s = rl__arena_alloc(&r->c->arena, n);
            if (!s) return NULL;
            memcpy(s, v + 1, n > 2 ? n - 2 : 0);
            return s;
        }
        return v;
    }
    const config_setting_t *s = g ? config_setting_get_member(g, "plugin") : NULL;
    if (!s) {
        error_at(r, g, "%s: missing (required: the %s plugin's name)", key, which);
        return NULL;
    }
    if (config_setting_type(s) != CONFIG_TYPE_STRING) {
        error_at(r, s, "%s: expected a string (a plugin name)", key);
        return NULL;
    }
    return config_setting_get_string(s);
}

static void resolve_plugin_group(resolver *r, const config_setting_t *root, const rl__registry *reg,
                                 rl_plugin_kind kind)
{
    rl__config *c = r->c;
    const char *which = rl__kind_name(kind);
    const config_setting_t *g = get_group(r, root, which, which);
    if (!g && !config_setting_get_member(root, which)) {
        char key[64];
        snprintf(key, sizeof key, "%s.plugin", which);
        if (!find_override(r, key)) {
            error_at(r, NULL, "%s: missing group (required: %s = { plugin = \"...\"; ... })", which, which);
            return;
        }
    }
    const char *name = plugin_name(r, g, which);
    if (!name) return;
    char err[RL_ERR_MAX];
    char key[64];
    snprintf(key, sizeof key, "%s.plugin", which);
    const rl__plugin *p = rl__registry_find(reg, kind, name, key, err, sizeof err);
    if (!p) {
        const config_setting_t *ps = g ? config_setting_get_member(g, "plugin") : NULL;
        error_at(r, ps, "%s", err);
        return;
    }
    const rl_plugin_desc *d = p->desc;
    rl__group *opts[2], *stages[2];
    size_t n_opts = 0, n_stages = 0;
    if (kind == RL_KIND_ENV) {
        c->env = p;
        uint32_t n;
        const rl_option_def *defs = rl__env_host_schema(&n);
        if (group_init(r, &c->env_host, defs, n) || group_init(r, &c->env_opts, d->options, d->n_options)) goto oom;
        defs = rl__env_host_stages(&n);
        if (group_init(r, &c->env_host_stages, defs, n) || group_init(r, &c->env_stages, d->stages, d->n_stages))
            goto oom;
        opts[n_opts++] = &c->env_host;
        opts[n_opts++] = &c->env_opts;
        stages[n_stages++] = &c->env_host_stages;
        stages[n_stages++] = &c->env_stages;
    } else {
        c->algo = p;
        if (group_init(r, &c->algo_opts, d->options, d->n_options) ||
            group_init(r, &c->algo_stages, d->stages, d->n_stages))
            goto oom;
        opts[n_opts++] = &c->algo_opts;
        stages[n_stages++] = &c->algo_stages;
    }
    resolve_settings(r, g, which, opts, n_opts, "plugin", "optimizations");
    char sprefix[64];
    snprintf(sprefix, sizeof sprefix, "%s.optimizations", which);
    const config_setting_t *og = g ? get_group(r, g, "optimizations", sprefix) : NULL;
    resolve_settings(r, og, sprefix, stages, n_stages, NULL, NULL);
    for (size_t i = 0; i < n_opts; i++) fill_rest(r, opts[i], which);
    for (size_t i = 0; i < n_stages; i++) fill_rest(r, stages[i], sprefix);
    if (kind == RL_KIND_ENV) eval_options(r, c);
    return;
oom:
    error_at(r, NULL, "out of memory");
}

/* A group of the host's own (seats, search), formatted only when given. */
static void resolve_host_group(resolver *r, const config_setting_t *root, const rl__override *ov, size_t n_ov,
                               const char *name, rl__group *g, int *given, const rl_option_def *defs, uint32_t n)
{
    if (group_init(r, g, defs, n) != RL_OK) {
        error_at(r, NULL, "out of memory");
        return;
    }
    resolve_settings(r, get_group(r, root, name, name), name, &g, 1, NULL, NULL);
    *given = config_setting_get_member(root, name) != NULL;
    size_t len = strlen(name);
    for (size_t i = 0; i < n_ov; i++) *given |= strncmp(ov[i].key, name, len) == 0 && ov[i].key[len] == '.';
    fill_rest(r, g, name);
}

static int config_load(rl__config *c, const char *path, const char *text, const rl__override *ov, size_t n_ov,
                       const rl__registry *reg, rl__sbuf *errors, int need_algo)
{
    memset(c, 0, sizeof *c);
    c->path = rl__arena_strdup(&c->arena, path);
    /* rlhost reads the files and expands @include itself (see cfgscan.h);
       libconfig parses the one text and never opens a file. */
    rl__cfg_text src;
    if (rl__cfg_expand(&src, path, text, errors)) {
        int missing = !text && src.n_segs == 0;
        rl__cfg_text_free(&src);
        return missing ? RL_EIO : RL_ECONFIG;
    }
    config_t cfg;
    config_init(&cfg);
    if (!config_read_string(&cfg, src.text.data)) {
        const char *file;
        unsigned line;
        rl__cfg_where(&src, (unsigned)config_error_line(&cfg), &file, &line);
        rl__sbuf_printf(errors, "%s:%u: syntax error: %s\n", file ? file : path, line, config_error_text(&cfg));
        config_destroy(&cfg);
        rl__cfg_text_free(&src);
        return RL_ECONFIG;
    }
    resolver r = {c, path, ov, n_ov, calloc(n_ov ? n_ov : 1, 1), errors, 0, &src};
    if (!r.ov_used) {
        config_destroy(&cfg);
        rl__cfg_text_free(&src);
        return RL_ENOMEM;
    }
    const config_setting_t *root = config_root_setting(&cfg);
    c->reg = reg;
    /* tune: the search space of `rlhost tune` (cli/tune.c reads it); a run
       leaves it alone */
    static const char *const top[] = {"run", "env", "algo", "seats", "search", "tune"};
    for (int i = 0; i < config_setting_length(root); i++) {
        const config_setting_t *s = config_setting_get_elem(root, (unsigned)i);
        const char *name = config_setting_name(s);
        int known = 0;
        for (size_t k = 0; k < sizeof top / sizeof *top; k++) known |= !strcmp(name, top[k]);
        if (!known) {
            const char *near = rl__nearest(name, top, sizeof top / sizeof *top);
            if (near)
                error_at(&r, s, "%s: unknown group (did you mean '%s'?)", name, near);
            else
                error_at(&r, s, "%s: unknown group (expected run, env, algo, seats, search and tune)", name);
        }
    }
    uint32_t n;
    const rl_option_def *defs = rl__run_schema(&n);
    if (group_init(&r, &c->run, defs, n) != RL_OK) {
        error_at(&r, NULL, "out of memory");
    } else {
        rl__group *g = &c->run;
        resolve_settings(&r, get_group(&r, root, "run", "run"), "run", &g, 1, NULL, NULL);
        fill_rest(&r, &c->run, "run");
    }
    defs = rl__seats_schema(&n);
    resolve_host_group(&r, root, ov, n_ov, "seats", &c->seats, &c->seats_given, defs, n);
    defs = rl__search_schema(&n);
    resolve_host_group(&r, root, ov, n_ov, "search", &c->search, &c->search_given, defs, n);
    resolve_plugin_group(&r, root, reg, RL_KIND_ENV);
    if (need_algo) resolve_plugin_group(&r, root, reg, RL_KIND_ALGO);
    for (size_t i = 0; i < n_ov; i++) {
        if (r.ov_used[i]) continue;
        r.failed = 1;
        const char *dot = strrchr(ov[i].key, '.'), *near = override_nearest(c, ov[i].key);
        rl__sbuf_printf(errors, "--set %s=%s: unknown key '%s'", ov[i].key, ov[i].value, dot ? dot + 1 : ov[i].key);
        if (near)
            rl__sbuf_printf(errors, " (did you mean '%.*s%s'?)", dot ? (int)(dot - ov[i].key + 1) : 0, ov[i].key, near);
        rl__sbuf_printf(errors, "\n");
    }
    free(r.ov_used);
    config_destroy(&cfg);
    rl__cfg_text_free(&src);
    if (r.failed) return RL_ECONFIG;
    /* Derived default: out_dir = runs/ENV-ALGO. */
    rl_value *od = &c->run.vals[RL__RUN_OUT_DIR];
    if ((!od->s || !od->s[0]) && c->algo) {
        char buf[512];
        snprintf(buf, sizeof buf, "runs/%s-%s", c->env->desc->name, c->algo->desc->name);
        od->s = rl__arena_strdup(&c->arena, buf);
        if (!od->s) return RL_ENOMEM;
    }
    /* every checkpoint stores the resolved config: it must fit one (a
       config without an algo, for envs alone, is never stored) */
    if (!c->algo) return RL_OK;
    rl__sbuf formatted = {0};
    rl__config_format(c, &formatted);
    size_t len = formatted.len;
    int oom = formatted.oom;
    rl__sbuf_free(&formatted);
    if (oom) return RL_ENOMEM;
    if (len > RL__CONFIG_MAX_TEXT) {
        rl__sbuf_printf(errors,
                        "%s: the resolved config is %zu bytes; a checkpoint stores at most %u "
                        "(shorten its lists and strings)\n",
                        path, len, RL__CONFIG_MAX_TEXT);
        return RL_ECONFIG;
    }
    return RL_OK;
}

int rl__config_load(rl__config *c, const char *path, const rl__override *ov, size_t n_ov, const rl__registry *reg,
                    rl__sbuf *errors)
{
    int rc = config_load(c, path, NULL, ov, n_ov, reg, errors, 1);
    if (rc != RL_OK) rl__config_destroy(c); /* nothing half-resolved survives */
    return rc;
}

int rl__config_load_text(rl__config *c, const char *origin, const char *text, const rl__override *ov, size_t n_ov,
                         const rl__registry *reg, rl__sbuf *errors, int need_algo)
{
    int rc = config_load(c, origin, text, ov, n_ov, reg, errors, need_algo);
    if (rc != RL_OK) rl__config_destroy(c);
    return rc;
}

static void format_group(rl__sbuf *out, const rl__group *g, const char *indent)
{
    for (uint32_t k = 0; k < g->n; k++) {
        rl__sbuf_printf(out, "%s%s = ", indent, g->defs[k].name);
        rl__value_format(&g->defs[k], &g->vals[k], out);
        rl__sbuf_puts(out, ";\n");
    }
}

void rl__config_format(const rl__config *c, rl__sbuf *out)
{
    rl__sbuf_puts(out, "# Fully resolved by rlhost from ");
    rl__sbuf_comment_str(out, c->path);
    rl__sbuf_puts(out, "\n");
    rl__sbuf_puts(out, "run: {\n");
    format_group(out, &c->run, "  ");
    rl__sbuf_puts(out, "};\nenv: {\n  plugin = ");
    rl__sbuf_cfg_str(out, c->env->desc->name);
    rl__sbuf_puts(out, ";\n");
    format_group(out, &c->env_host, "  ");
    format_group(out, &c->env_opts, "  ");
    rl__sbuf_puts(out, "  optimizations: {\n");
    format_group(out, &c->env_host_stages, "    ");
    format_group(out, &c->env_stages, "    ");
    rl__sbuf_puts(out, "  };\n};\nalgo: {\n  plugin = ");
    rl__sbuf_cfg_str(out, c->algo->desc->name);
    rl__sbuf_puts(out, ";\n");
    format_group(out, &c->algo_opts, "  ");
    if (c->algo_stages.n) { /* a plugin without stages gets no empty group */
        rl__sbuf_puts(out, "  optimizations: {\n");
        format_group(out, &c->algo_stages, "    ");
        rl__sbuf_puts(out, "  };\n");
    }
    rl__sbuf_puts(out, "};\n");
    if (c->seats_given) { /* configs without one read and resume as they always have */
        rl__sbuf_puts(out, "seats: {\n");
        format_group(out, &c->seats, "  ");
        rl__sbuf_puts(out, "};\n");
    }
    if (c->search_given) {
        rl__sbuf_puts(out, "search: {\n");
        format_group(out, &c->search, "  ");
        rl__sbuf_puts(out, "};\n");
    }
}

int rl__config_added_default(const rl__config *c, const char *key, size_t klen, const char *value, size_t vlen)
{
    const rl__group *g = klen > 5 && !strncmp(key, "algo.", 5) ? &c->algo_opts
        : klen > 4 && !strncmp(key, "env.", 4)                 ? &c->env_opts
                                                               : NULL;
    if (!g) return 0;
    size_t skip = g == &c->algo_opts ? 5 : 4;
    for (uint32_t k = 0; k < g->n; k++) {
        const rl_option_def *def = &g->defs[k];
        if (strlen(def->name) != klen - skip || strncmp(def->name, key + skip, klen - skip)) continue;
        if (!(def->flags & RL_OPT_ADDED) || !def->default_text) return 0;
        rl__arena a = {0};
        rl__sbuf text = {0};
        rl_value v;
        char why[RL_ERR_MAX];
        int same = rl__value_from_text(def, def->default_text, &a, &v, why, sizeof why) == RL_OK;
        if (same) rl__value_format(def, &v, &text);
        same = same && text.data && strlen(text.data) == vlen && !strncmp(text.data, value, vlen);
        rl__sbuf_free(&text);
        rl__arena_free(&a);
        return same;
    }
    return 0;
}

void rl__config_destroy(rl__config *c)
{
    rl__arena_free(&c->arena);
    memset(c, 0, sizeof *c);
}
