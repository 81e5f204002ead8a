/* The embedding API's host handle: versions, the log, opening the plugins,
   the plugins' names; and the error helpers every file uses.  See
   <rlhost/host.h>. */
#define _GNU_SOURCE
#include "embed/embed_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/log.h"
#include "base/text.h"

#ifndef RLHOST_VERSION
#define RLHOST_VERSION "unknown"
#endif

void rl__embed_err(char *err, size_t errlen, const char *fmt, const char *a, const char *b)
{
    if (err && errlen) snprintf(err, errlen, fmt, a, b);
}

/* Config errors come one per line ("origin:line: ..."); an embedder gets
   them as one sentence. */
void rl__embed_errors(char *err, size_t errlen, const rl__sbuf *errors)
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

const char *rlh_version(void)
{
    return RLHOST_VERSION;
}

int rlh_api_version(void)
{
    return RLH_API_VERSION;
}

void rlh_set_log_level(int max_level)
{
    rl__log_set_level((rl_log_level)max_level);
}

void rlh_set_log_handler(rlh_log_fn fn, void *ctx)
{
    rl__log_set_sink(fn, ctx);
}

rlh_host *rlh_open(const char *plugin_path, char *err, size_t errlen)
{
    rlh_host *h = calloc(1, sizeof *h);
    char *copy = plugin_path ? strdup(plugin_path) : NULL;
    if (!h || (plugin_path && !copy)) {
        free(h);
        free(copy);
        rl__embed_err(err, errlen, "out of memory%s%s", "", "");
        return NULL;
    }
    const char *dirs[64];
    size_t n = 0;
    char *save = NULL;
    for (char *d = copy ? strtok_r(copy, ":", &save) : NULL; d && n < 64; d = strtok_r(NULL, ":", &save)) dirs[n++] = d;
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

const char *rlh_plugin_name(const rlh_host *h, rl_plugin_kind kind, size_t i)
{
    for (size_t k = 0; h && k < h->reg.n_plugins; k++) {
        const rl__plugin *p = &h->reg.plugins[k];
        if (p->desc->kind != kind || p->shadowed_by) continue;
        if (i-- == 0) return p->desc->name;
    }
    return NULL;
}
