/* Restoring a run from a checkpoint; see restore.h.  The checkpoint is
   untrusted: plugins, versions, counters, the config it was written with
   and the replay it pairs with are checked before anything is loaded. */
#define _GNU_SOURCE
#include "checkpoint/restore.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rlhost/rlcore.h>

#include "plugin/config.h"
#include "base/text.h"
#include "base/log.h"

static int same_major(const char *a, const char *b)
{
    return a && b && atoi(a) == atoi(b);
}

/* A decimal counter from the metadata (untrusted): digits only, < 2^62. */
static int meta_count(const rl__ckpt *ck, const char *key, uint64_t *out)
{
    const char *s = rl__ckpt_meta_get(ck, key);
    *out = 0;
    if (!s) return 0;
    uint64_t v = 0;
    if (!*s) return -1;
    for (; *s; s++) {
        if (*s < '0' || *s > '9' || v > ((UINT64_C(1) << 62) - 10) / 10) return -1;
        v = v * 10 + (uint64_t)(*s - '0');
    }
    *out = v;
    return 0;
}

/* "env.KEY = VALUE" lines of the env and algo groups (options, not stages)
   of a config as rl__config_format writes it, one per line. */
static void option_lines(const char *text, rl__sbuf *out)
{
    const char *group = NULL;
    int depth = 0;
    for (const char *line = text; line && *line;) {
        const char *nl = strchr(line, '\n');
        size_t len = nl ? (size_t)(nl - line) : strlen(line);
        if (len >= 4 && line[len - 1] == '{') {
            if (depth++ == 0) group = !strncmp(line, "env:", 4) ? "env" : !strncmp(line, "algo:", 5) ? "algo" : NULL;
        } else if (len >= 2 && line[len - 1] == ';' && line[len - 2] == '}') {
            depth--;
        } else if (depth == 1 && group && len > 2 && line[0] == ' ' && line[1] == ' ') {
            rl__sbuf_printf(out, "%s.%.*s\n", group, (int)(len - 3), line + 2); /* drop "  " and ";" */
        }
        line = nl ? nl + 1 : NULL;
    }
}

/* The value text of "KEY = VALUE" lines for key, or NULL. */
static const char *line_value(const char *lines, const char *key, size_t klen, size_t *vlen)
{
    for (const char *l = lines; l && *l;) {
        const char *nl = strchr(l, '\n');
        if (!strncmp(l, key, klen) && !strncmp(l + klen, " = ", 3)) {
            *vlen = (size_t)(nl - l) - klen - 3;
            return l + klen + 3;
        }
        l = nl ? nl + 1 : NULL;
    }
    return NULL;
}

/* Compares the checkpoint's config with c, option by option (env and algo,
   not stages): what differs is listed in diff ("algo.hidden: [64, 64] in the
   checkpoint, [32] now; ..."), leaving out the keys in allowed.  Returns the
   number of differences. */
static int config_diff(const rl__ckpt *ck, const rl__config *c, const char *const *allowed, size_t n_allowed,
                       char *diff, size_t difflen)
{
    const char *stored = rl__ckpt_meta_get(ck, "rlhost.config");
    diff[0] = 0;
    if (!stored) return 0;
    rl__sbuf now = {0}, a = {0}, b = {0};
    rl__config_format(c, &now);
    option_lines(stored, &a);
    option_lines(now.data ? now.data : "", &b);
    int n = 0;
    size_t at = 0;
    for (int pass = 0; pass < 2; pass++) { /* keys of the checkpoint, then keys only c has */
        const char *mine = pass ? b.data : a.data, *other = pass ? a.data : b.data;
        for (const char *l = mine; l && *l;) {
            const char *nl = strchr(l, '\n'), *eq = strstr(l, " = ");
            if (!nl || !eq || eq > nl) break;
            size_t klen = (size_t)(eq - l), vlen = (size_t)(nl - eq) - 3, olen = 0;
            const char *ov = line_value(other ? other : "", l, klen, &olen);
            /* seen in the first pass, or an option added since at its default */
            int skip = pass && (ov || rl__config_added_default(c, l, klen, eq + 3, vlen));
            for (size_t k = 0; !skip && k < n_allowed; k++)
                skip = strlen(allowed[k]) == klen && !strncmp(allowed[k], l, klen);
            if (!skip && (!ov || olen != vlen || strncmp(ov, eq + 3, vlen))) {
                const char *cv = pass ? ov : eq + 3, *nv = pass ? eq + 3 : ov; /* checkpoint, now */
                size_t cl = pass ? olen : vlen, nlen = pass ? vlen : olen;
                if (at < difflen)
                    at += (size_t)snprintf(diff + at, difflen - at, "%s%.*s: %.*s in the checkpoint, %.*s now",
                                           n ? "; " : "", (int)klen, l, (int)(cv ? cl : 5), cv ? cv : "unset",
                                           (int)(nv ? nlen : 5), nv ? nv : "unset");
                n++;
                for (size_t k = 0; k < at && k + 1 < difflen; k++) /* the file's bytes reach a terminal */
                    if ((unsigned char)diff[k] < 0x20 || diff[k] == 0x7f) diff[k] = '?';
            }
            l = nl + 1;
        }
    }
    rl__sbuf_free(&now);
    rl__sbuf_free(&a);
    rl__sbuf_free(&b);
    return n;
}

/* The replay file written with the checkpoint of `step`: replay_path or its
   previous copy (*from_prev).  NULL when neither exists; an error when one
   exists but none was written at that step (the pair would not be exact). */
static int pick_replay(const char *replay_path, uint64_t step, rl__ckpt *side, int *have, int *from_prev, char *err,
                       size_t errlen)
{
    char prev[4200];
    const char *cand[2] = {replay_path, prev};
    size_t n = strlen(replay_path);
    *have = 0;
    if (n < 12 || n - 12 + 30 > sizeof prev) return RL_OK;
    snprintf(prev, sizeof prev, "%.*s.prev.safetensors", (int)(n - 12), replay_path);
    int found = 0, readable = 0;
    uint64_t seen = 0;
    char unread[RL_ERR_MAX] = ""; /* why the first unreadable one could not be read */
    for (int k = 0; k < 2; k++) {
        if (access(cand[k], F_OK) != 0) continue;
        found = 1;
        char rerr[RL_ERR_MAX];
        if (rl__ckpt_read_file(side, cand[k], 1, rerr, sizeof rerr) != RL_OK) {
            if (!unread[0]) snprintf(unread, sizeof unread, "%s", rerr);
            continue;
        }
        uint64_t at = 0;
        if (meta_count(side, "rlhost.step", &at) == 0 && rl__ckpt_meta_get(side, "rlhost.step") && at == step) {
            *have = 1;
            *from_prev = k == 1;
            return RL_OK;
        }
        readable = 1;
        seen = at;
        rl__ckpt_free(side);
    }
    if (!found) return RL_OK;
    if (readable)
        snprintf(err, errlen,
                 "%s holds the replay of step %llu, not of the checkpoint's step %llu; "
                 "resuming from this pair would not be exact",
                 replay_path, (unsigned long long)seen, (unsigned long long)step);
    else
        snprintf(err, errlen, "%s; without the replay of the checkpoint's step %llu the resume would not be exact",
                 unread, (unsigned long long)step);
    return RL_ECORRUPT;
}

int rl__is_replay_tensor(const char *name)
{
    if (!strncmp(name, "replica", 7)) {
        const char *p = name + 7;
        while (*p >= '0' && *p <= '9') p++;
        if (p > name + 7 && *p == '/') name = p + 1;
    }
    return !strncmp(name, "replay/", 7);
}

/* Restores from one checkpoint read into ck (freed here); see
   rl__ckpt_restore. */
static int restore_ckpt(rl__ckpt *ckp, rl__restore *r, const rl__config *c, void *algo, char *err, size_t errlen)
{
    rl__ckpt ck = *ckp, side;
    const char *path = ck.path;
    int rc = RL_OK;
    const char *env = rl__ckpt_meta_get(&ck, "rlhost.env"), *alg = rl__ckpt_meta_get(&ck, "rlhost.algo");
    const rl_plugin_desc *ed = c->env->desc, *ad = c->algo->desc;
    uint64_t step = 0, episodes = 0;
    if (!env || !alg || strcmp(env, ed->name) || strcmp(alg, ad->name)) {
        snprintf(err, errlen, "%s was written for env '%s' and algo '%s', but the config uses '%s' and '%s'", path,
                 env ? env : "?", alg ? alg : "?", ed->name, ad->name);
        rc = RL_ECORRUPT;
    } else if (!same_major(rl__ckpt_meta_get(&ck, "rlhost.algo_version"), ad->version) ||
               !same_major(rl__ckpt_meta_get(&ck, "rlhost.env_version"), ed->version)) {
        snprintf(err, errlen, "%s was written by %s %s / %s %s; this rlhost has %s and %s (major versions differ)",
                 path, env, rl__ckpt_meta_get(&ck, "rlhost.env_version"), alg,
                 rl__ckpt_meta_get(&ck, "rlhost.algo_version"), ed->version, ad->version);
        rc = RL_ECORRUPT;
    } else if (meta_count(&ck, "rlhost.step", &step) || meta_count(&ck, "rlhost.episodes", &episodes)) {
        snprintf(err, errlen, "%s: metadata rlhost.step or rlhost.episodes is not a count", path);
        rc = RL_ECORRUPT;
    }
    uint64_t reps = 1;
    if (rc == RL_OK && r->replicas && (meta_count(&ck, "rlhost.replicas", &reps) || !reps)) reps = 0;
    if (rc == RL_OK && r->replicas && rl__ckpt_meta_get(&ck, "rlhost.replicas") && reps != r->replicas) {
        snprintf(err, errlen,
                 "%s was written by %llu replica%s, this run has %u: resume with "
                 "--set run.replicas=%llu",
                 path, (unsigned long long)reps, reps == 1 ? "" : "s", r->replicas, (unsigned long long)reps);
        rc = RL_ECONFIG;
    }
    char diff[RL_ERR_MAX];
    if (rc == RL_OK && config_diff(&ck, c, r->allowed, r->n_allowed, diff, sizeof diff)) {
        if (r->strict_config) {
            snprintf(err, errlen,
                     "%s was written with another config (%s); resume with the run's own "
                     "config, or name a change with --set",
                     path, diff);
            rc = RL_ECORRUPT;
        } else {
            rl__log(RL_LOG_WARN, NULL, "%s was written with another config: %s", path, diff);
        }
    }
    ck.side = NULL;
    int have_side = 0, from_prev = 0;
    if (rc == RL_OK && r->replay_path)
        rc = pick_replay(r->replay_path, step, &side, &have_side, &from_prev, err, errlen);
    if (have_side) ck.side = &side;
    ck.to_side = rl__is_replay_tensor;
    const rl_algo_vtable *avt = ad->vtable;
    const rl_algo_state_ext *ext = avt->get_extension ? avt->get_extension(algo, RL_EXT_ALGO_STATE) : NULL;
    if (ext && (!RL_HAS_FIELD(ext, rl_algo_state_ext, load) || !ext->load)) ext = NULL;
    if (rc == RL_OK && !ext && ck.n) {
        snprintf(err, errlen, "%s holds %zu tensors, but algo '%s' cannot load them (no %s capability)", path, ck.n,
                 ad->name, RL_EXT_ALGO_STATE);
        rc = RL_ENOTSUP;
    }
    rl_state_io io;
    rl__ckpt_io(&ck, &io);
    io.meta = NULL; /* loading: metadata is written only */
    if (rc == RL_OK && ext) {
        char perr[RL_ERR_MAX] = "";
        rc = r->algo_load ? r->algo_load(r->algo_ctx, ext, &io, perr, sizeof perr)
                          : ext->load(algo, &io, perr, sizeof perr);
        if (rc != RL_OK) snprintf(err, errlen, "%s: %s", path, perr[0] ? perr : rl_strerror(rc));
    }
    if (rc == RL_OK && r->host_load) {
        char herr[RL_ERR_MAX] = "";
        rc = r->host_load(r->host_ctx, &io, herr, sizeof herr);
        if (rc != RL_OK) snprintf(err, errlen, "%s: %s", path, herr[0] ? herr : rl_strerror(rc));
    }
    if (rc == RL_OK) {
        r->step = step;
        r->episodes = episodes;
        const char *ph = rl__ckpt_meta_get(&ck, "rlhost.phase");
        r->phase = !ph ? RL__PHASE_UNKNOWN : !strcmp(ph, "final") ? RL__PHASE_FINAL : RL__PHASE_TRAINING;
        r->missing_replay = ck.missing_side && r->replay_path;
        r->replay_from_prev = from_prev;
    }
    if (ck.side) rl__ckpt_free(ck.side);
    ck.side = NULL;
    if (rc == RL_OK && r->keep) {
        rl__ckpt_free(r->keep); /* a fallback's first try may have left one */
        *r->keep = ck;
        r->keep->path = NULL; /* the caller's string */
    } else {
        rl__ckpt_free(&ck);
    }
    return rc;
}

static int restore_file(const char *path, rl__restore *r, const rl__config *c, void *algo, char *err, size_t errlen)
{
    rl__ckpt ck;
    int rc = rl__ckpt_read_file(&ck, path, r->prev_path != NULL, err, errlen);
    return rc == RL_OK ? restore_ckpt(&ck, r, c, algo, err, errlen) : rc;
}

int rl__ckpt_restore_mem(const void *buf, size_t len, rl__restore *r, const rl__config *c, void *algo, char *err,
                         size_t errlen)
{
    rl__ckpt ck;
    int rc = rl__ckpt_read_mem(&ck, r->path, buf, len, err, errlen);
    return rc == RL_OK ? restore_ckpt(&ck, r, c, algo, err, errlen) : rc;
}

int rl__ckpt_restore(rl__restore *r, const rl__config *c, void *algo, char *err, size_t errlen)
{
    int rc = restore_file(r->path, r, c, algo, err, errlen);
    r->used = r->path;
    if (rc == RL_OK || !r->prev_path || faccessat(AT_FDCWD, r->prev_path, F_OK, AT_SYMLINK_NOFOLLOW) != 0) return rc;
    char why[RL_ERR_MAX];
    snprintf(why, sizeof why, "%s", err);
    if (restore_file(r->prev_path, r, c, algo, err, errlen) != RL_OK) {
        snprintf(err, errlen, "%s", why); /* the newer file's problem is the one to tell */
        return rc;
    }
    r->used = r->prev_path;
    rl__log(RL_LOG_WARN, NULL, "%s; using the previous checkpoint %s (step %llu) instead", why, r->prev_path,
            (unsigned long long)r->step);
    return RL_OK;
}
