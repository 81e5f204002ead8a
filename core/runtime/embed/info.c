/* rlh_plugin_info: a plugin's descriptor and option schema as JSON. */
#define _GNU_SOURCE
#include "embed/embed_internal.h"

#include <stdio.h>

#include "base/text.h"
#include "spaces/spaces.h"

static void option_json(rl__sbuf *b, const rl_option_def *o)
{
    static const char *const types[] = {"?", "bool", "int", "float", "string", "enum", "int_list", "string_list"};
    rl__sbuf_puts(b, "{");
    rl__json_str(b, "name", o->name);
    rl__json_str(b, "type", o->type >= RL_OPT_BOOL && o->type <= RL_OPT_STRING_LIST ? types[o->type] : "?");
    if (o->default_text)
        rl__json_str(b, "default", o->default_text);
    else
        rl__json_raw(b, "default", "null");
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
    rl__json_raw(b, "training", o->flags & RL_OPT_TRAINING ? "true" : "false");
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
        rl__embed_err(err, errlen, "%s%s", e[0] ? e : "rlh_plugin_info needs a host and a name", "");
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
    if (d->kind == RL_KIND_ALGO) {
        char takes[128];
        rl__algo_takes(d, takes, sizeof takes);
        rl__json_str(&b, "takes", takes);
    }
    options_json(&b, "options", d->options, d->n_options);
    options_json(&b, "stages", d->stages, d->n_stages);
    rl__sbuf_puts(&b, "}");
    if (b.oom) {
        rl__sbuf_free(&b);
        rl__embed_err(err, errlen, "out of memory%s%s", "", "");
        return RL_ENOMEM;
    }
    if (buf && cap) snprintf(buf, cap, "%s", b.data);
    int len = (int)b.len;
    rl__sbuf_free(&b);
    return len;
}
