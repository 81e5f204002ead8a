/* rlhost tune and rlhost study.  The C side reads the search space and
   checks every value it can take against the schemas (it has the plugins
   and libconfig's line numbers); then it hands over to the Python driver
   (python/rlhost/_tune.py, _study.py), which drives Optuna or the seeds and
   runs every trial as an ordinary `rlhost run` of this same executable.

   The space, in a config's `tune` group or a file given with --space (a
   `tune` group, or the groups at its top level):
     tune = { algo = {
       lr = { log_uniform = [1e-5, 1e-2]; };
       n_steps = { int = [8, 256]; log = true; };
       hidden = { choice = ([64, 64], [256, 256]); };
       vf_coef = { uniform = [0.2, 1.0]; when = ("algo.clip_vf", true); };
     }; };
   Without one, each plugin's declared default (rl_plugin_desc.tune_space). */
#define _GNU_SOURCE
#include <errno.h>
#include <libconfig.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "cli.h"
#include "driver.h"
#include "plugin/cfgscan.h"
#include "plugin/config.h"
#include "plugin/loader.h"
#include "plugin/schema.h"
#include "plugin/host_schema.h"
#include "base/text.h"
#include "tune.h"

#define MAX_SET 256
#define MAX_ENTRIES 128

typedef struct space {
    const char *config;            /* the config every trial starts from */
    rl__override set[MAX_SET + 1]; /* its --set, plus one slot to try a value */
    char *set_text[MAX_SET];       /* the copies they point into */
    size_t n_set;
    const char *const *plugin_paths;
    size_t n_paths;
    rl__registry reg;
    rl__config base;
    rl__cfg_text src; /* the space's text, for file:line */
    const char *origin;
    char keys[MAX_ENTRIES][256]; /* entries so far: a `when` names one of them */
    size_t n_keys;
    rl__sbuf json;
    int failed;
} space;

static void where(const space *sp, const config_setting_t *s, char *buf, size_t n)
{
    const char *file = NULL;
    unsigned line = 0;
    if (config_setting_source_line(s)) rl__cfg_where(&sp->src, config_setting_source_line(s), &file, &line);
    if (line)
        snprintf(buf, n, "%s:%u", file ? file : sp->origin, line);
    else
        snprintf(buf, n, "%s", sp->origin);
}

static void problem(space *sp, const config_setting_t *s, const char *key, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static void problem(space *sp, const config_setting_t *s, const char *key, const char *fmt, ...)
{
    char at[PATH_MAX + 32];
    where(sp, s, at, sizeof at);
    fprintf(stderr, "rlhost: %s: tune.%s: ", at, key);
    va_list ap;
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    sp->failed = 1;
}

/* A setting as config text: what `--set key=TEXT` takes. */
static int setting_text(const config_setting_t *s, rl__sbuf *b)
{
    switch (config_setting_type(s)) {
    case CONFIG_TYPE_INT:
        rl__sbuf_printf(b, "%d", config_setting_get_int(s));
        return 0;
    case CONFIG_TYPE_INT64:
        rl__sbuf_printf(b, "%lldL", config_setting_get_int64(s));
        return 0;
    case CONFIG_TYPE_FLOAT:
        rl__sbuf_double(b, config_setting_get_float(s), 0);
        return 0;
    case CONFIG_TYPE_BOOL:
        rl__sbuf_puts(b, config_setting_get_bool(s) ? "true" : "false");
        return 0;
    case CONFIG_TYPE_STRING:
        rl__sbuf_cfg_str(b, config_setting_get_string(s));
        return 0;
    case CONFIG_TYPE_ARRAY:
    case CONFIG_TYPE_LIST: {
        rl__sbuf_puts(b, "[");
        for (int i = 0; i < config_setting_length(s); i++) {
            if (i) rl__sbuf_puts(b, ", ");
            if (setting_text(config_setting_get_elem(s, (unsigned)i), b)) return -1;
        }
        rl__sbuf_puts(b, "]");
        return 0;
    }
    default:
        return -1;
    }
}

/* Does the config load with `--set key=text` on top of its own --set?  On
   no, says why, as the loader put it. */
static int try_value_as(space *sp, const config_setting_t *at, const char *key, const char *label, const char *what,
                        const char *text)
{
    sp->set[sp->n_set] = (rl__override){.key = key, .value = text};
    rl__sbuf errors = {0};
    rl__config tmp;
    int rc = rl__config_load(&tmp, sp->config, sp->set, sp->n_set + 1, &sp->reg, &errors);
    if (rc == RL_OK) {
        rl__config_destroy(&tmp);
        rl__sbuf_free(&errors);
        return 0;
    }
    const char *msg = errors.data ? errors.data : "out of memory";
    if (!strncmp(msg, "--set ", 6) && strstr(msg, ": ")) msg = strstr(msg, ": ") + 2; /* the --set is ours */
    size_t len = strcspn(msg, "\n");
    if (what)
        problem(sp, at, label, "%s %s is refused: %.*s", what, text, (int)len, msg);
    else
        problem(sp, at, label, "%.*s", (int)len, msg);
    rl__sbuf_free(&errors);
    return -1;
}

static int try_value(space *sp, const config_setting_t *at, const char *key, const char *what, const char *text)
{
    return try_value_as(sp, at, key, key, what, text);
}

static int pair(const config_setting_t *v, double *lo, double *hi)
{
    if (!v || !config_setting_is_aggregate(v) || config_setting_length(v) != 2) return -1;
    for (int i = 0; i < 2; i++) {
        const config_setting_t *e = config_setting_get_elem(v, (unsigned)i);
        if (!config_setting_is_number(e)) return -1;
        double x = config_setting_type(e) == CONFIG_TYPE_FLOAT ? config_setting_get_float(e)
                                                               : (double)config_setting_get_int64(e);
        *(i ? hi : lo) = x;
    }
    return isfinite(*lo) && isfinite(*hi) ? 0 : -1;
}

/* Whether both bounds of a pair are written as integers (not 8.0), and
   then their values into iv. */
static int integer_pair(const config_setting_t *v, long long iv[2])
{
    for (int i = 0; i < 2; i++) {
        const config_setting_t *e = config_setting_get_elem(v, (unsigned)i);
        if (config_setting_type(e) != CONFIG_TYPE_INT && config_setting_type(e) != CONFIG_TYPE_INT64) return 0;
        iv[i] = config_setting_get_int64(e);
    }
    return 1;
}

static void json_texts(rl__sbuf *j, const char *key, const config_setting_t *list, int from)
{
    rl__sbuf_printf(j, "\"%s\": [", key);
    for (int i = from; i < config_setting_length(list); i++) {
        rl__sbuf t = {0};
        setting_text(config_setting_get_elem(list, (unsigned)i), &t);
        if (i > from) rl__sbuf_puts(j, ", ");
        rl__sbuf_json_str(j, t.data ? t.data : "");
        rl__sbuf_free(&t);
    }
    rl__sbuf_puts(j, "]");
}

static const char *const kinds[] = {"log_uniform", "uniform", "int", "choice"};

/* The member of entry e that names its distribution (kinds[]), or NULL
   after a problem. */
static const config_setting_t *distribution(space *sp, const config_setting_t *e, const char *key, const char **kname)
{
    const config_setting_t *kind = NULL;
    for (int i = 0; i < config_setting_length(e); i++) {
        const config_setting_t *m = config_setting_get_elem(e, (unsigned)i);
        const char *n = config_setting_name(m);
        int known = !strcmp(n, "log") || !strcmp(n, "when") || !strcmp(n, "at_most");
        for (size_t k = 0; k < 4; k++)
            if (!strcmp(n, kinds[k])) {
                if (kind) {
                    problem(sp, m, key, "both %s and %s: a key has one distribution", *kname, n);
                    return NULL;
                }
                kind = m, *kname = kinds[k], known = 1;
            }
        if (!known) {
            problem(sp, m, key, "unknown member '%s' (log_uniform, uniform, int, choice, log, when, at_most)", n);
            return NULL;
        }
    }
    if (!kind) problem(sp, e, key, "no distribution: give one of log_uniform, uniform, int or choice");
    return kind;
}

/* The entry's `log` flag into *log; -1 after a problem. */
static int read_log(space *sp, const config_setting_t *e, const char *key, const char *kname, int *log)
{
    const config_setting_t *logs = config_setting_get_member(e, "log");
    *log = 0;
    if (!logs) return 0;
    if (config_setting_type(logs) != CONFIG_TYPE_BOOL) {
        problem(sp, logs, key, "log must be true or false");
        return -1;
    }
    *log = config_setting_get_bool(logs);
    if (*log && strcmp(kname, "int")) {
        problem(sp, logs, key, "log = true goes with int (log_uniform is the float one)");
        return -1;
    }
    return 0;
}

/* A condition: a key given before this one, then values it may take
   (each checked as a value of that key); -1 after a problem. */
static int check_when(space *sp, const config_setting_t *when, const char *key)
{
    const config_setting_t *k0 =
        config_setting_is_aggregate(when) && config_setting_length(when) >= 2 ? config_setting_get_elem(when, 0) : NULL;
    if (!k0 || config_setting_type(k0) != CONFIG_TYPE_STRING) {
        problem(sp, when, key,
                "when = (\"KEY\", VALUE, ...): a key of this space, then its values that enable this one");
        return -1;
    }
    const char *parent = config_setting_get_string(k0);
    size_t p = 0;
    while (p < sp->n_keys && strcmp(sp->keys[p], parent)) p++;
    if (p == sp->n_keys) {
        problem(sp, when, key, "when names '%s', which is not a key given before it in this space", parent);
        return -1;
    }
    for (int i = 1; i < config_setting_length(when); i++) {
        rl__sbuf t = {0};
        int bad = setting_text(config_setting_get_elem(when, (unsigned)i), &t) ||
            try_value_as(sp, when, parent, key, "when value", t.data ? t.data : "");
        rl__sbuf_free(&t);
        if (bad) {
            if (!sp->failed) problem(sp, when, key, "a when value must be a number, bool, string or list");
            return -1;
        }
    }
    return 0;
}

/* at_most = ("KEY", ...): integer options of the config whose product, in
   each trial, caps this integer key (PPO's batch at its rollout); -1 after
   a problem, else the member into the JSON. */
static int at_most_json(space *sp, const config_setting_t *am, const char *key, const rl_option_def *def)
{
    if (def->type != RL_OPT_INT) {
        problem(sp, am, key, "at_most caps an integer option, and %s is not one", key);
        return -1;
    }
    int n = config_setting_is_aggregate(am) ? config_setting_length(am) : 0;
    if (n < 1) {
        problem(sp, am, key, "at_most = (\"KEY\", ...): integer options whose product caps this one");
        return -1;
    }
    rl__sbuf *j = &sp->json;
    rl__sbuf_puts(j, ", \"at_most\": {");
    for (int i = 0; i < n; i++) {
        const config_setting_t *e = config_setting_get_elem(am, (unsigned)i);
        const char *k = config_setting_type(e) == CONFIG_TYPE_STRING ? config_setting_get_string(e) : NULL;
        const rl_value *v = NULL;
        const rl_option_def *d = k ? rl__config_find(&sp->base, k, &v) : NULL;
        if (!d || d->type != RL_OPT_INT || v->is_auto) {
            problem(sp, am, key, "at_most: %s%s%s is not an integer option of this config", k ? "'" : "",
                    k ? k : "an entry", k ? "'" : "");
            return -1;
        }
        if (i) rl__sbuf_puts(j, ", ");
        rl__sbuf_json_str(j, k);
        rl__sbuf_printf(j, ": %lld", (long long)v->i); /* the config's value, where the space leaves it */
    }
    rl__sbuf_puts(j, "}");
    return 0;
}

/* choice = [A, B, ...]: every value checked, then "choices" into the JSON. */
static int choice_json(space *sp, const config_setting_t *kind, const char *key)
{
    if (!config_setting_is_aggregate(kind) || config_setting_length(kind) < 1) {
        problem(sp, kind, key, "choice = [A, B, ...] (a list of values; ( ... ) when the values are lists)");
        return -1;
    }
    for (int i = 0; i < config_setting_length(kind); i++) {
        rl__sbuf t = {0};
        int bad = setting_text(config_setting_get_elem(kind, (unsigned)i), &t);
        if (bad) problem(sp, kind, key, "choice %d is not a value (a number, bool, string or list)", i + 1);
        bad = bad || try_value(sp, kind, key, "choice", t.data ? t.data : "");
        rl__sbuf_free(&t);
        if (bad) return -1;
    }
    rl__sbuf_puts(&sp->json, ", ");
    json_texts(&sp->json, "choices", kind, 0);
    return 0;
}

/* A [LOW, HIGH] range whose bounds fit the scale and the option's type
   (each checked as a value), then low/high/log/type into the JSON. */
static int range_json(space *sp, const config_setting_t *kind, const char *key, const char *kname, int log,
                      const rl_option_def *def)
{
    double lo, hi;
    long long iv[2];
    int is_int = !strcmp(kname, "int");
    log = log || !strcmp(kname, "log_uniform");
    int bad = 1;
    if (pair(kind, &lo, &hi))
        problem(sp, kind, key, "%s = [LOW, HIGH]: two finite numbers", kname);
    else if (integer_pair(kind, iv) ? iv[0] >= iv[1] : !(lo < hi))
        problem(sp, kind, key, "%s = [%.9g, %.9g]: LOW must be below HIGH", kname, lo, hi);
    else if (log && lo <= 0)
        problem(sp, kind, key, "a log scale needs LOW > 0 (got %.9g)", lo);
    else if (is_int && (lo != floor(lo) || hi != floor(hi)))
        problem(sp, kind, key, "int = [%.9g, %.9g]: the bounds must be integers", lo, hi);
    else if (!is_int && def->type != RL_OPT_FLOAT)
        problem(sp, kind, key, "%s samples floats, and %s takes %s: use int or choice", kname, key,
                def->type == RL_OPT_INT ? "integers" : "no number");
    else if (is_int && def->type != RL_OPT_INT && def->type != RL_OPT_FLOAT)
        problem(sp, kind, key, "int samples integers, and %s takes no number: use choice", key);
    else
        bad = 0;
    if (bad) return -1;
    /* integer bounds as written: a double would round 2^63 - 1 up */
    int exact = (is_int || def->type == RL_OPT_INT) && integer_pair(kind, iv);
    char texts[2][64];
    for (int b = 0; b < 2; b++) {
        rl__sbuf t = {0};
        if (exact)
            rl__sbuf_printf(&t, "%lld", iv[b]);
        else if (is_int || def->type == RL_OPT_INT)
            rl__sbuf_printf(&t, "%.0f", b ? hi : lo);
        else
            rl__sbuf_double(&t, b ? hi : lo, 0);
        snprintf(texts[b], sizeof texts[b], "%s", t.data ? t.data : "0");
        rl__sbuf_free(&t);
        if (try_value(sp, kind, key, b ? "HIGH" : "LOW", texts[b])) return -1;
    }
    rl__sbuf *j = &sp->json;
    rl__sbuf_puts(j, ", \"low\": ");
    if (exact)
        rl__sbuf_puts(j, texts[0]);
    else
        rl__sbuf_double(j, lo, 1);
    rl__sbuf_puts(j, ", \"high\": ");
    if (exact)
        rl__sbuf_puts(j, texts[1]);
    else
        rl__sbuf_double(j, hi, 1);
    rl__sbuf_printf(j, ", \"log\": %s", log ? "true" : "false");
    rl__sbuf_printf(j, ", \"type\": \"%s\"", def->type == RL_OPT_INT || is_int ? "int" : "float");
    return 0;
}

static void entry(space *sp, const config_setting_t *e, const char *key)
{
    if (sp->n_keys >= MAX_ENTRIES) {
        problem(sp, e, key, "a space holds at most %d keys", MAX_ENTRIES);
        return;
    }
    if (!config_setting_is_group(e)) {
        problem(sp, e, key, "expected a group such as { log_uniform = [1e-5, 1e-2]; }");
        return;
    }
    const char *kname = NULL;
    const config_setting_t *kind = distribution(sp, e, key, &kname);
    if (!kind) return;
    if (!strcmp(key, "env.plugin") || !strcmp(key, "algo.plugin")) {
        problem(sp, e, key,
                "the plugin is not tuned: a study searches one env/algo pair's options (a study per "
                "plugin, then rlhost study to compare them)");
        return;
    }
    if (!strcmp(key, "run.out_dir")) {
        problem(sp, e, key, "every trial runs in OUT/trials/NUMBER: the output directory is not tuned");
        return;
    }
    const rl_value *val = NULL;
    const rl_option_def *def = rl__config_find(&sp->base, key, &val);
    if (!def) { /* the loader names it, with the nearest key */
        try_value(sp, e, key, NULL, "0");
        if (!sp->failed) problem(sp, e, key, "not an option of this config's plugins");
        return;
    }
    int log;
    const config_setting_t *when = config_setting_get_member(e, "when");
    if (read_log(sp, e, key, kname, &log) || (when && check_when(sp, when, key))) return;
    char at[PATH_MAX + 32];
    where(sp, e, at, sizeof at);
    rl__sbuf *j = &sp->json;
    rl__sbuf_puts(j, sp->n_keys ? ",\n  {\"key\": " : "\n  {\"key\": ");
    rl__sbuf_json_str(j, key);
    rl__sbuf_printf(j, ", \"kind\": \"%s\", \"where\": ", kname);
    rl__sbuf_json_str(j, at);
    rl__sbuf base = {0};
    rl__value_format(def, val, &base);
    rl__sbuf_puts(j, ", \"base\": ");
    rl__sbuf_json_str(j, base.data ? base.data : "");
    rl__sbuf_free(&base);
    if (!strcmp(kname, "choice") ? choice_json(sp, kind, key) : range_json(sp, kind, key, kname, log, def)) return;
    const config_setting_t *am = config_setting_get_member(e, "at_most");
    if (am && at_most_json(sp, am, key, def)) return;
    if (when) {
        rl__sbuf_puts(j, ", \"when\": {\"key\": ");
        rl__sbuf_json_str(j, config_setting_get_string(config_setting_get_elem(when, 0)));
        rl__sbuf_puts(j, ", ");
        json_texts(j, "in", when, 1);
        rl__sbuf_puts(j, "}");
    }
    rl__sbuf_puts(j, "}");
    snprintf(sp->keys[sp->n_keys++], sizeof sp->keys[0], "%s", key);
}

/* A group of the space: run, env or algo (and their optimizations). */
static void group(space *sp, const config_setting_t *g, const char *prefix)
{
    for (int i = 0; i < config_setting_length(g) && !sp->failed; i++) {
        const config_setting_t *e = config_setting_get_elem(g, (unsigned)i);
        char key[256];
        snprintf(key, sizeof key, "%s.%s", prefix, config_setting_name(e));
        int dist = 0; /* an option named optimizations would hold a distribution */
        for (size_t k = 0; k < 4; k++) dist |= config_setting_get_member(e, kinds[k]) != NULL;
        int opt_group = !strcmp(config_setting_name(e), "optimizations") && !strchr(prefix, '.') &&
            strcmp(prefix, "run") && config_setting_is_group(e) && !dist;
        if (opt_group)
            group(sp, e, key);
        else
            entry(sp, e, key);
    }
}

/* Reads one space text (a file's, or a plugin's default) into the JSON.
   prefix NULL: its top level holds run/env/algo (or a `tune` group that
   does); else the text's keys are the plugin's, under prefix.  tune_only:
   the file is the config, whose space is its `tune` group; without one,
   returns 0 and reads nothing.  Else 1 (sp->failed says how it went). */
static int read_space(space *sp, const char *origin, const char *path, const char *text, const char *prefix,
                      int tune_only)
{
    rl__sbuf errors = {0};
    rl__cfg_text_free(&sp->src);
    sp->origin = origin;
    if (rl__cfg_expand(&sp->src, path, text, &errors)) {
        fprintf(stderr, "%s", errors.data ? errors.data : "rlhost: out of memory\n");
        rl__sbuf_free(&errors);
        sp->failed = 1;
        return 1;
    }
    rl__sbuf_free(&errors);
    config_t cfg;
    config_init(&cfg);
    if (!config_read_string(&cfg, sp->src.text.data)) {
        const char *file;
        unsigned line;
        rl__cfg_where(&sp->src, (unsigned)config_error_line(&cfg), &file, &line);
        fprintf(stderr, "rlhost: %s:%u: syntax error: %s\n", file ? file : origin, line, config_error_text(&cfg));
        config_destroy(&cfg);
        sp->failed = 1;
        return 1;
    }
    const config_setting_t *root = config_root_setting(&cfg);
    if (prefix) {
        group(sp, root, prefix);
    } else {
        const config_setting_t *t = config_setting_get_member(root, "tune");
        if (tune_only && !t) {
            config_destroy(&cfg);
            return 0;
        }
        if (t && !config_setting_is_group(t)) {
            char at[PATH_MAX + 32];
            where(sp, t, at, sizeof at);
            fprintf(stderr, "rlhost: %s: tune: expected a group: tune = { algo = { ... }; }\n", at);
            sp->failed = 1;
            config_destroy(&cfg);
            return 1;
        }
        if (t) root = t;
        for (int i = 0; i < config_setting_length(root) && !sp->failed; i++) {
            const config_setting_t *g = config_setting_get_elem(root, (unsigned)i);
            const char *n = config_setting_name(g);
            if (strcmp(n, "run") && strcmp(n, "env") && strcmp(n, "algo")) {
                char at[PATH_MAX + 32];
                where(sp, g, at, sizeof at);
                fprintf(stderr, "rlhost: %s: tune.%s: unknown group (the space has run, env and algo)\n", at, n);
                sp->failed = 1;
            } else if (!config_setting_is_group(g)) {
                char at[PATH_MAX + 32];
                where(sp, g, at, sizeof at);
                fprintf(stderr, "rlhost: %s: tune.%s: expected a group of keys\n", at, n);
                sp->failed = 1;
            } else {
                group(sp, g, n);
            }
        }
    }
    config_destroy(&cfg);
    return 1;
}

/* The space as JSON into out; 0, or an exit code after the message. */
static int resolve_space(space *sp, const char *space_file, rl__sbuf *out)
{
    rl__sbuf errors = {0};
    rl__registry_discover(&sp->reg, sp->plugin_paths, sp->n_paths);
    int rc = rl__config_load(&sp->base, sp->config, sp->set, sp->n_set, &sp->reg, &errors);
    if (rc != RL_OK) {
        fprintf(stderr, "%s", errors.data ? errors.data : "rlhost: out of memory\n");
        rl__sbuf_free(&errors);
        return rl__exit_code(rc == RL_ENOMEM ? rc : RL_ECONFIG);
    }
    rl__sbuf_free(&errors);
    const char *source;
    if (space_file) {
        source = space_file;
        read_space(sp, space_file, space_file, NULL, NULL, 0);
    } else if (read_space(sp, sp->config, sp->config, NULL, NULL, 1)) {
        source = sp->config;
    } else {
        const rl__plugin *pl[2] = {sp->base.env, sp->base.algo};
        const char *pre[2] = {"env", "algo"};
        source = "the plugins' default spaces";
        for (int k = 0; k < 2 && !sp->failed; k++) {
            const char *t = pl[k] ? rl__desc_tune_space(pl[k]->desc) : NULL;
            if (!t) continue;
            char origin[300];
            snprintf(origin, sizeof origin, "%s '%s' default space", pre[k], pl[k]->desc->name);
            read_space(sp, origin, origin, t, pre[k], 0);
        }
        if (!sp->failed && !sp->n_keys) {
            fprintf(stderr,
                    "rlhost: %s has no tune group, no --space was given, and neither '%s' nor '%s' declares a "
                    "default space: write one (docs/tune.md)\n",
                    sp->config, sp->base.env->desc->name, sp->base.algo->desc->name);
            return EXIT_USAGE;
        }
    }
    if (sp->failed) return EXIT_USAGE;
    if (!sp->n_keys) {
        fprintf(stderr, "rlhost: %s: the search space is empty\n", source);
        return EXIT_USAGE;
    }
    rl__sbuf_puts(out, "{\"source\": ");
    rl__sbuf_json_str(out, source);
    rl__sbuf_printf(out, ", \"env\": \"%s\", \"algo\": \"%s\"", sp->base.env->desc->name, sp->base.algo->desc->name);
    rl__json_u64(out, "steps", (unsigned long long)sp->base.run.vals[RL__RUN_STEPS].i);
    rl__json_u64(out, "seed", (unsigned long long)sp->base.run.vals[RL__RUN_SEED].i);
    rl__json_u64(out, "eval_interval", (unsigned long long)sp->base.run.vals[RL__RUN_EVAL_INTERVAL].i);
    rl__json_u64(out, "eval_episodes", (unsigned long long)sp->base.run.vals[RL__RUN_EVAL_EPISODES].i);
    /* cores a trial takes: its replicas ("auto": 0, the driver pins one) */
    const rl_value *reps = &sp->base.run.vals[RL__RUN_REPLICAS];
    rl__json_u64(out, "replicas", reps->is_auto ? 0ull : (unsigned long long)reps->i);
    rl__sbuf_puts(out, ", \"keys\": [");
    rl__sbuf_puts(out, sp->json.data ? sp->json.data : "");
    rl__sbuf_puts(out, "\n]}\n");
    return 0;
}

static void space_free(space *sp)
{
    for (size_t i = 0; i < sp->n_set; i++) free(sp->set_text[i]);
    sp->n_set = 0;
    rl__config_destroy(&sp->base);
    rl__registry_destroy(&sp->reg);
    rl__cfg_text_free(&sp->src);
    rl__sbuf_free(&sp->json);
}

/* The arguments the C side reads (the rest are the driver's); 0 or an
   exit code after the message.  argv stays as given: it goes on to the
   driver. */
static int tune_args(space *sp, int argc, char **argv, const char **paths, const char **space_file, int *help,
                     int *print)
{
    for (int i = 2; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            *help = 1;
        } else if (!strcmp(a, "--print-space")) {
            *print = 1;
        } else if (!strncmp(a, "--space-",
                            8)) { /* --space-fd (or its abbreviation) is how this command hands the driver the space */
            fprintf(stderr, "rlhost: tune: unknown option %s (the space is --space FILE)\n", a);
            return EXIT_USAGE;
        } else if ((!strcmp(a, "--space") || !strcmp(a, "--set") || !strcmp(a, "--plugin-path")) && i + 1 >= argc) {
            fprintf(stderr, "rlhost: tune: %s needs a value\n", a);
            return EXIT_USAGE;
        } else if (!strcmp(a, "--space")) {
            *space_file = argv[++i];
        } else if (!strcmp(a, "--plugin-path")) {
            if (sp->n_paths < 64) paths[sp->n_paths++] = argv[i + 1];
            i++;
        } else if (!strcmp(a, "--set")) {
            const char *kv = argv[++i];
            char *copy = sp->n_set < MAX_SET ? strdup(kv) : NULL;
            if (!copy || rl__override_parse(copy, &sp->set[sp->n_set]) != RL_OK) {
                free(copy);
                fprintf(stderr, "rlhost: tune: --set %s: expected KEY=VALUE\n", kv);
                return EXIT_USAGE;
            }
            sp->set_text[sp->n_set++] = copy;
        }
    }
    return 0;
}

int rl__cmd_tune(int argc, char **argv)
{
    int help = 0, print = 0;
    const char *space_file = NULL;
    space *sp = calloc(1, sizeof *sp);
    const char *paths[64];
    if (!sp) return EXIT_RUN_FAILED;
    sp->plugin_paths = paths;
    int rc = tune_args(sp, argc, argv, paths, &space_file, &help, &print);
    if (!rc && !help && (argc < 3 || argv[2][0] == '-')) {
        fprintf(stderr,
                "rlhost: usage: rlhost tune CONFIG [--space FILE] [--trials N] [--jobs J] [--out DIR] ... "
                "(rlhost tune --help)\n");
        rc = EXIT_USAGE;
    }
    if (rc || help) {
        space_free(sp);
        free(sp);
        return rc ? rc : rl__exec_driver("tune", " and Optuna", " optuna", argc, argv, NULL);
    }
    sp->config = argv[2];
    rl__sbuf json = {0};
    rc = resolve_space(sp, space_file, &json);
    space_free(sp);
    free(sp);
    if (rc) {
        rl__sbuf_free(&json);
        return rc;
    }
    if (print) {
        fputs(json.data, stdout);
        rl__sbuf_free(&json);
        return 0;
    }
    rc = rl__exec_driver("tune", " and Optuna", " optuna", argc, argv, json.data);
    rl__sbuf_free(&json);
    return rc;
}

int rl__cmd_study(int argc, char **argv)
{
    return rl__exec_driver("study", "", "", argc, argv, NULL);
}
