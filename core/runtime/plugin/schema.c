/* Option schemas; see schema.h. */
#include "plugin/schema.h"

#include "plugin/cfgscan.h"
#include "base/arena.h"
#include "base/text.h"
#include "base/nearest.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int in_range(const rl_option_def *def, double v)
{
    return def->min > def->max || (v >= def->min && v <= def->max);
}

/* A config string: at most RL__MAX_STRING bytes, and UTF-8 text (it goes
   into every checkpoint's JSON header, which must be). */
static int string_bad(const char *str, char *why, size_t whylen)
{
    size_t n = strlen(str);
    if (n > RL__MAX_STRING) {
        snprintf(why, whylen, "a string holds at most %d bytes", RL__MAX_STRING);
        return 1;
    }
    size_t ok = rl__utf8_prefix(str, n);
    if (ok < n) {
        snprintf(why, whylen, "the string is not UTF-8 text (byte %zu of it is 0x%02x)", ok,
                 (unsigned)(unsigned char)str[ok]);
        return 1;
    }
    return 0;
}

static void describe_range(const rl_option_def *def, rl__sbuf *b)
{
    if (def->min > def->max) return;
    rl__sbuf_puts(b, " in [");
    rl__sbuf_double(b, def->min, 0);
    rl__sbuf_puts(b, ", ");
    rl__sbuf_double(b, def->max, 0);
    rl__sbuf_puts(b, "]");
}

void rl__type_describe(const rl_option_def *def, rl__sbuf *b)
{
    switch (def->type) {
    case RL_OPT_BOOL:
        rl__sbuf_puts(b, "true or false");
        break;
    case RL_OPT_INT:
        rl__sbuf_puts(b, "an integer");
        describe_range(def, b);
        break;
    case RL_OPT_FLOAT:
        rl__sbuf_puts(b, "a number");
        describe_range(def, b);
        break;
    case RL_OPT_STRING:
        rl__sbuf_puts(b, "a string");
        break;
    case RL_OPT_ENUM:
        rl__sbuf_puts(b, "one of");
        for (const char *const *c = def->choices; c && *c; c++)
            rl__sbuf_printf(b, "%s \"%s\"", c == def->choices ? "" : ",", *c);
        break;
    case RL_OPT_INT_LIST:
        rl__sbuf_puts(b, "a list of integers");
        describe_range(def, b);
        break;
    case RL_OPT_STRING_LIST:
        rl__sbuf_puts(b, "a list of strings");
        break;
    }
    if (def->flags & RL_OPT_AUTO) rl__sbuf_puts(b, " or \"auto\"");
}

/* Short text of what s holds, for "got ..." messages. */
static void describe_setting(const config_setting_t *s, char *buf, size_t n)
{
    switch (config_setting_type(s)) {
    case CONFIG_TYPE_INT:
    case CONFIG_TYPE_INT64:
        snprintf(buf, n, "%lld", (long long)config_setting_get_int64(s));
        break;
    case CONFIG_TYPE_FLOAT:
        snprintf(buf, n, "%g", config_setting_get_float(s));
        break;
    case CONFIG_TYPE_BOOL:
        snprintf(buf, n, "%s", config_setting_get_bool(s) ? "true" : "false");
        break;
    case CONFIG_TYPE_STRING:
        snprintf(buf, n, "\"%s\"", config_setting_get_string(s));
        break;
    case CONFIG_TYPE_GROUP:
        snprintf(buf, n, "a group");
        break;
    default:
        snprintf(buf, n, "a list");
        break;
    }
}

static int fail(const rl_option_def *def, const config_setting_t *s, char *why, size_t whylen)
{
    rl__sbuf b = {0};
    char got[96];
    describe_setting(s, got, sizeof got);
    rl__sbuf_puts(&b, "expected ");
    rl__type_describe(def, &b);
    rl__sbuf_printf(&b, ", got %s", got);
    if (def->type == RL_OPT_ENUM && config_setting_type(s) == CONFIG_TYPE_STRING) {
        size_t n = 0;
        while (def->choices[n]) n++;
        const char *near = rl__nearest(config_setting_get_string(s), def->choices, n);
        if (near) rl__sbuf_printf(&b, " (did you mean \"%s\"?)", near);
    }
    snprintf(why, whylen, "%s", b.oom ? "invalid value" : b.data);
    rl__sbuf_free(&b);
    return RL_ECONFIG;
}

static int is_int_setting(const config_setting_t *s)
{
    int t = config_setting_type(s);
    return t == CONFIG_TYPE_INT || t == CONFIG_TYPE_INT64;
}

/* Integer from an int setting, or from an integral float (steps = 1e6). */
static int get_integer(const config_setting_t *s, int64_t *out)
{
    if (is_int_setting(s)) {
        *out = (int64_t)config_setting_get_int64(s);
        return 1;
    }
    if (config_setting_type(s) == CONFIG_TYPE_FLOAT) {
        double f = config_setting_get_float(s);
        if (f == floor(f) && fabs(f) < 9.0e15) {
            *out = (int64_t)f;
            return 1;
        }
    }
    return 0;
}

int rl__value_from_setting(const rl_option_def *def, const config_setting_t *s, rl__arena *a, rl_value *out, char *why,
                           size_t whylen)
{
    memset(out, 0, sizeof *out);
    out->struct_size = sizeof *out;
    out->type = def->type;
    int t = config_setting_type(s);
    if ((def->flags & RL_OPT_AUTO) && t == CONFIG_TYPE_STRING && strcmp(config_setting_get_string(s), "auto") == 0) {
        out->is_auto = 1;
        out->s = "auto";
        return RL_OK;
    }
    switch (def->type) {
    case RL_OPT_BOOL:
        if (t != CONFIG_TYPE_BOOL) return fail(def, s, why, whylen);
        out->i = config_setting_get_bool(s) != 0;
        return RL_OK;
    case RL_OPT_INT:
        if (!get_integer(s, &out->i) || !in_range(def, (double)out->i)) return fail(def, s, why, whylen);
        out->f = (double)out->i;
        return RL_OK;
    case RL_OPT_FLOAT:
        if (is_int_setting(s))
            out->f = (double)config_setting_get_int64(s);
        else if (t == CONFIG_TYPE_FLOAT)
            out->f = config_setting_get_float(s);
        else
            return fail(def, s, why, whylen);
        if (!isfinite(out->f) || !in_range(def, out->f)) return fail(def, s, why, whylen);
        return RL_OK;
    case RL_OPT_STRING:
        if (t != CONFIG_TYPE_STRING) return fail(def, s, why, whylen);
        if (string_bad(config_setting_get_string(s), why, whylen)) return RL_ECONFIG;
        out->s = rl__arena_strdup(a, config_setting_get_string(s));
        return out->s ? RL_OK : RL_ENOMEM;
    case RL_OPT_ENUM:
        if (t != CONFIG_TYPE_STRING) return fail(def, s, why, whylen);
        for (int64_t k = 0; def->choices[k]; k++) {
            if (strcmp(def->choices[k], config_setting_get_string(s)) == 0) {
                out->i = k;
                out->s = def->choices[k];
                return RL_OK;
            }
        }
        return fail(def, s, why, whylen);
    case RL_OPT_INT_LIST:
    case RL_OPT_STRING_LIST: {
        if (t != CONFIG_TYPE_ARRAY && t != CONFIG_TYPE_LIST) return fail(def, s, why, whylen);
        size_t n = (size_t)config_setting_length(s);
        if (n > RL__MAX_LIST) {
            snprintf(why, whylen, "a list holds at most %d elements; this one has %zu", RL__MAX_LIST, n);
            return RL_ECONFIG;
        }
        out->n = n;
        if (def->type == RL_OPT_INT_LIST) {
            int64_t *v = rl__arena_alloc(a, (n ? n : 1) * sizeof *v);
            if (!v) return RL_ENOMEM;
            for (size_t k = 0; k < n; k++) {
                const config_setting_t *e = config_setting_get_elem(s, (unsigned)k);
                if (!get_integer(e, &v[k]) || !in_range(def, (double)v[k])) return fail(def, s, why, whylen);
            }
            out->ilist = v;
        } else {
            const char **v = rl__arena_alloc(a, (n + 1) * sizeof *v);
            if (!v) return RL_ENOMEM;
            for (size_t k = 0; k < n; k++) {
                const config_setting_t *e = config_setting_get_elem(s, (unsigned)k);
                if (config_setting_type(e) != CONFIG_TYPE_STRING) return fail(def, s, why, whylen);
                if (string_bad(config_setting_get_string(e), why, whylen)) return RL_ECONFIG;
                v[k] = rl__arena_strdup(a, config_setting_get_string(e));
                if (!v[k]) return RL_ENOMEM;
            }
            out->slist = v;
        }
        return RL_OK;
    }
    }
    snprintf(why, whylen, "option has an unknown type %d", (int)def->type);
    return RL_ECONFIG;
}

int rl__value_from_text(const rl_option_def *def, const char *text, rl__arena *a, rl_value *out, char *why,
                        size_t whylen)
{
    int stringish = def->type == RL_OPT_STRING || def->type == RL_OPT_ENUM;
    if (stringish && text[0] != '"') {
        /* Bare word: the string itself. */
        config_t c;
        config_init(&c);
        config_setting_t *s = config_setting_add(config_root_setting(&c), "v", CONFIG_TYPE_STRING);
        int rc =
            s && config_setting_set_string(s, text) ? rl__value_from_setting(def, s, a, out, why, whylen) : RL_ENOMEM;
        config_destroy(&c);
        return rc;
    }
    if ((def->flags & RL_OPT_AUTO) && strcmp(text, "auto") == 0) text = "\"auto\"";
    /* A plain integer too wide for 32 bits gets libconfig's L suffix, which
       it would otherwise silently truncate. */
    const char *suffix = "";
    if (def->type == RL_OPT_INT && text[0]) {
        const char *digits = text + (text[0] == '-' || text[0] == '+');
        int hex = digits[0] == '0' && (digits[1] == 'x' || digits[1] == 'X');
        if (digits[strspn(digits, hex ? "0123456789abcdefABCDEFxX" : "0123456789")] == 0) {
            errno = 0;
            unsigned long long x = strtoull(digits, NULL, hex ? 16 : 10);
            if (errno == ERANGE) {
                snprintf(why, whylen, "%s does not fit in 64 bits", text);
                return RL_ECONFIG;
            }
            if (x > INT32_MAX) suffix = "L";
        }
    }
    rl__sbuf src = {0};
    rl__sbuf_printf(&src, "v = %s%s;", text, suffix);
    if (src.oom) return RL_ENOMEM;
    /* what a file's text is checked for, a list's integers included */
    rl__cfg_text t;
    rl__sbuf problems = {0};
    if (rl__cfg_expand(&t, "", src.data, &problems)) {
        const char *msg = problems.data ? problems.data : "out of memory";
        const char *colon = strstr(msg, ": ");
        snprintf(why, whylen, "%.*s", (int)strcspn(colon ? colon + 2 : msg, "\n"), colon ? colon + 2 : msg);
        rl__cfg_text_free(&t);
        rl__sbuf_free(&problems);
        rl__sbuf_free(&src);
        return RL_ECONFIG;
    }
    rl__cfg_text_free(&t);
    rl__sbuf_free(&problems);
    config_t c;
    config_init(&c);
    int rc;
    if (!config_read_string(&c, src.data)) {
        rl__sbuf b = {0};
        rl__sbuf_puts(&b, "expected ");
        rl__type_describe(def, &b);
        rl__sbuf_printf(&b, ", got '%s'", text);
        snprintf(why, whylen, "%s", b.oom ? "invalid value" : b.data);
        rl__sbuf_free(&b);
        rc = RL_ECONFIG;
    } else if (config_setting_length(config_root_setting(&c)) != 1) {
        /* "0.001; gamma = 0.5" reads as two settings: the second is not ours to drop */
        snprintf(why, whylen, "one value per --set (give each key its own --set KEY=VALUE)");
        rc = RL_ECONFIG;
    } else {
        rc = rl__value_from_setting(def, config_lookup(&c, "v"), a, out, why, whylen);
    }
    config_destroy(&c);
    rl__sbuf_free(&src);
    return rc;
}

void rl__value_format(const rl_option_def *def, const rl_value *v, rl__sbuf *b)
{
    if (v->is_auto) {
        rl__sbuf_puts(b, "\"auto\"");
        return;
    }
    switch (def->type) {
    case RL_OPT_BOOL:
        rl__sbuf_puts(b, v->i ? "true" : "false");
        break;
    case RL_OPT_INT:
        /* libconfig truncates integers beyond 32 bits unless marked L. */
        rl__sbuf_printf(b, "%lld%s", (long long)v->i, v->i > INT32_MAX || v->i < INT32_MIN ? "L" : "");
        break;
    case RL_OPT_FLOAT: {
        size_t at = b->len;
        rl__sbuf_double(b, v->f, 0);
        /* Keep it a float for libconfig: 1 -> 1.0 */
        if (!b->oom && !strpbrk(b->data + at, ".eEn")) rl__sbuf_puts(b, ".0");
        break;
    }
    case RL_OPT_STRING:
    case RL_OPT_ENUM:
        rl__sbuf_cfg_str(b, v->s ? v->s : "");
        break;
    case RL_OPT_INT_LIST:
        rl__sbuf_puts(b, "[");
        for (size_t k = 0; k < v->n; k++) rl__sbuf_printf(b, "%s%lld", k ? ", " : "", (long long)v->ilist[k]);
        rl__sbuf_puts(b, "]");
        break;
    case RL_OPT_STRING_LIST:
        rl__sbuf_puts(b, "[");
        for (size_t k = 0; k < v->n; k++) {
            if (k) rl__sbuf_puts(b, ", ");
            rl__sbuf_cfg_str(b, v->slist[k]);
        }
        rl__sbuf_puts(b, "]");
        break;
    }
}

static int name_ok(const char *s)
{
    if (!s || !*s) return 0;
    for (; *s; s++)
        if (!((*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9') || *s == '_')) return 0;
    return 1;
}

int rl__def_check(const rl_option_def *def, char *why, size_t whylen)
{
    if (def->struct_size < sizeof(rl_option_def)) {
        snprintf(why, whylen, "an option has struct_size %u, expected %zu", def->struct_size, sizeof(rl_option_def));
        return RL_EABI;
    }
    if (!name_ok(def->name)) {
        snprintf(why, whylen, "option name '%s' is not [a-z0-9_]+", def->name ? def->name : "(null)");
        return RL_EINVAL;
    }
    if (def->type < RL_OPT_BOOL || def->type > RL_OPT_STRING_LIST) {
        snprintf(why, whylen, "option '%s' has unknown type %d", def->name, (int)def->type);
        return RL_EINVAL;
    }
    if (def->type == RL_OPT_ENUM && (!def->choices || !def->choices[0])) {
        snprintf(why, whylen, "enum option '%s' has no choices", def->name);
        return RL_EINVAL;
    }
    if (!def->default_text) {
        if (def->flags & RL_OPT_REQUIRED) return RL_OK;
        snprintf(why, whylen, "option '%s' has no default and is not required", def->name);
        return RL_EINVAL;
    }
    rl__arena a = {0};
    rl_value v;
    char inner[256];
    int rc = rl__value_from_text(def, def->default_text, &a, &v, inner, sizeof inner);
    rl__arena_free(&a);
    if (rc != RL_OK) snprintf(why, whylen, "default of option '%s' is invalid: %s", def->name, inner);
    return rc;
}

int rl__def_find(const rl_option_def *defs, uint32_t n, const char *name)
{
    for (uint32_t i = 0; i < n; i++)
        if (strcmp(defs[i].name, name) == 0) return (int)i;
    return -1;
}
