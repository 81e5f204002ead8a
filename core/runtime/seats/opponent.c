/* Opponents and the self-play pool; see opponent.h. */
#define _GNU_SOURCE
#include "seats/opponent.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <rlhost/rlcore.h>

#include "checkpoint/restore.h"
#include "checkpoint/safetensors.h"
#include "parallel/replicas.h"
#include "plugin/host_api.h"
#include "plugin/loader.h"
#include "plugin/schema.h"
#include "plugin/state_prefix.h"
#include "checkpoint/algo_open.h"
#include "checkpoint/source.h"

/* "name(k=v, k=v)" into the name and up to 32 key/value pairs (in buf). */
static int parse_spec(const char *spec, char *buf, size_t len, const char **name, const char **keys, const char **vals,
                      uint32_t *n, char *err, size_t errlen)
{
    snprintf(buf, len, "%s", spec);
    *name = buf;
    *n = 0;
    char *open = strchr(buf, '(');
    if (!open) return RL_OK;
    char *close = strrchr(buf, ')');
    if (!close || close < open || close[1]) {
        snprintf(err, errlen, "opponent '%s': expected PLUGIN or PLUGIN(key=value, ...)", spec);
        return RL_ECONFIG;
    }
    *open = *close = 0;
    for (char *p = open + 1; *p;) {
        char *comma = strchr(p, ',');
        if (comma) *comma = 0;
        char *eq = strchr(p, '=');
        while (*p == ' ') p++;
        if (!eq || *n == 32) {
            snprintf(err, errlen, "opponent '%s': '%s' is not key=value", spec, p);
            return RL_ECONFIG;
        }
        *eq = 0;
        for (char *e = eq - 1; e >= p && *e == ' '; e--) *e = 0;
        char *v = eq + 1;
        while (*v == ' ') v++;
        for (uint32_t k = 0; k < *n; k++)
            if (!strcmp(keys[k], p)) {
                snprintf(err, errlen, "opponent '%s' sets '%s' twice", spec, p);
                return RL_ECONFIG;
            }
        keys[*n] = p, vals[*n] = v, (*n)++;
        if (!comma) break;
        p = comma + 1;
    }
    return RL_OK;
}

/* A scripted player: the registry's algorithm plugin `name` with its
   defaults and the spec's options. */
static int open_scripted(rl__player *p, const rl__plugin *pl, const char *spec, const char *const *keys,
                         const char *const *vals, uint32_t n, const rl_env_info *info, uint32_t rows, uint64_t seed,
                         char *err, size_t errlen)
{
    const rl_plugin_desc *d = pl->desc;
    rl__arena *a = &p->own.arena;
    rl_value *opts = rl__arena_alloc(a, (d->n_options + 1) * sizeof *opts);
    rl_value *stages = rl__arena_alloc(a, (d->n_stages + 1) * sizeof *stages);
    if (!opts || !stages) return RL_ENOMEM;
    for (uint32_t k = 0; k < n; k++)
        if (rl__def_find(d->options, d->n_options, keys[k]) < 0) {
            snprintf(err, errlen, "opponent '%s': algo '%s' has no option '%s'", spec, d->name, keys[k]);
            return RL_ECONFIG;
        }
    for (uint32_t i = 0; i < d->n_options + d->n_stages; i++) {
        const rl_option_def *def = i < d->n_options ? &d->options[i] : &d->stages[i - d->n_options];
        const char *text = def->default_text;
        for (uint32_t k = 0; i < d->n_options && k < n; k++)
            if (!strcmp(keys[k], def->name)) text = vals[k];
        char why[RL_ERR_MAX];
        if (!text) {
            snprintf(err, errlen, "opponent '%s': option '%s' of algo '%s' is required", spec, def->name, d->name);
            return RL_ECONFIG;
        }
        rl_value *v = i < d->n_options ? &opts[i] : &stages[i - d->n_options];
        if (rl__value_from_text(def, text, a, v, why, sizeof why) != RL_OK) {
            snprintf(err, errlen, "opponent '%s': %s = %s: %s", spec, def->name, text, why);
            return RL_ECONFIG;
        }
    }
    rl_algo_args args = {.struct_size = sizeof args,
                         .env = info,
                         .num_envs = rows,
                         .num_eval_envs = rows,
                         .seed = seed,
                         .total_steps = 1,
                         .options = opts,
                         .stages = stages,
                         .host = rl__host_api(),
                         .replicas = rl__replicas_single(),
                         .inference = 1,
                         .steps = &rl__no_steps,
                         .act_workers = rl__act_workers(d, 0)};
    char perr[RL_ERR_MAX] = "";
    p->vt = d->vtable;
    int rc = p->vt->create(&args, &p->algo, perr, sizeof perr);
    if (rc != RL_OK) {
        p->algo = NULL;
        snprintf(err, errlen, "opponent '%s': %s", spec, perr[0] ? perr : rl_strerror(rc));
        return rc < 0 ? rc : RL_EINVAL;
    }
    return RL_OK;
}

/* Whether the algorithm of desc takes the env's spaces, as a learner's is
   checked (rl__space_check_algo): RL_ECONFIG with the sentence, before the
   player is made. */
static int check_takes(const rl_plugin_desc *desc, const char *spec, const char *env_name, const rl_env_info *info,
                       char *err, size_t errlen)
{
    rl__space s;
    char why[RL_ERR_MAX];
    const rl_obs_part *parts;
    int rc = rl__space_from_info(&s, info, env_name, why, sizeof why);
    if (rc == RL_OK)
        rc = rl__space_check_algo(&s, rl_env_info_parts(info, &parts) > 0, env_name, desc, why, sizeof why);
    rl__space_free(&s);
    if (rc != RL_OK) snprintf(err, errlen, "opponent '%s': %s", spec, why);
    return rc == RL_OK ? RL_OK : RL_ECONFIG;
}

/* A snapshot player: the checkpoint at path (or a run directory's), built
   from the config it was written with and restored from it. */
static int open_snapshot(rl__player *p, const char *path, const rl__config *c, const rl_env_info *info, uint32_t rows,
                         char *err, size_t errlen)
{
    rl__run_paths rp;
    rl__source_kind kind = rl__source_of(path, &rp);
    if (kind == RL__SOURCE_OTHER) {
        snprintf(err, errlen,
                 "opponent '%s' is neither an algorithm plugin nor a checkpoint or run directory (see rlhost "
                 "list for the plugins)",
                 path);
        return RL_ECONFIG;
    }
    rl__sbuf errors = {0};
    int rc = kind == RL__SOURCE_RUN_DIR
        ? rl__config_load(&p->own, rp.config, NULL, 0, c->reg, &errors)
        : rl__source_checkpoint_config(&p->own, rp.checkpoint, NULL, 0, c->reg, &errors);
    if (rc != RL_OK) {
        size_t l = errors.data ? strcspn(errors.data, "\n") : 0;
        snprintf(err, errlen, "opponent '%s': %.*s", path, (int)l, errors.data ? errors.data : rl_strerror(rc));
        rl__sbuf_free(&errors);
        return rc;
    }
    rl__sbuf_free(&errors);
    p->has_own = 1;
    if (strcmp(p->own.env->desc->name, c->env->desc->name)) {
        snprintf(err, errlen, "opponent '%s' was trained on env '%s', not '%s'", path, p->own.env->desc->name,
                 c->env->desc->name);
        return RL_ECONFIG;
    }
    if ((rc = check_takes(p->own.algo->desc, path, c->env->desc->name, info, err, errlen)) != RL_OK) return rc;
    rl__restore r = {.path = rp.checkpoint, .prev_path = kind == RL__SOURCE_RUN_DIR ? rp.prev : NULL};
    snprintf(p->path, sizeof p->path, "%s", rp.checkpoint);
    p->vt = p->own.algo->desc->vtable;
    p->algo = rl__policy_open(&p->own, info, rows, &r, err, errlen);
    return p->algo ? RL_OK : RL_ECORRUPT;
}

static int has_search_key(const char *const *keys, uint32_t n)
{
    for (uint32_t k = 0; k < n; k++)
        if (!strcmp(keys[k], "search") || rl__search_opts_has(keys[k])) return 1;
    return 0;
}

/* The search keys of "mcts(...)" (snapshot 0) or of a snapshot's
   "PATH(search=N, ...)" into p, with the env checked for a search. */
static int search_keys(rl__player *p, const char *spec, const char *const *keys, const char *const *vals, uint32_t n,
                       int snapshot, const rl__config *c, const rl_env_info *info, char *err, size_t errlen)
{
    p->searches = 1;
    p->search.opts = rl__search_defaults();
    p->search.seed = p->seed;
    char what[300];
    snprintf(what, sizeof what, "opponent '%.200s'", spec);
    int has_n = 0;
    for (uint32_t k = 0; k < n; k++) {
        int sims = snapshot && !strcmp(keys[k], "search");
        if (!strcmp(keys[k], "simulations") && snapshot) {
            snprintf(err, errlen, "%s: a snapshot's simulations are search=N", what);
            return RL_ECONFIG;
        }
        int rc = rl__search_opts_set(&p->search.opts, sims ? "simulations" : keys[k], vals[k], what, err, errlen);
        if (rc != RL_OK) return rc;
        has_n |= sims;
    }
    if (snapshot && !has_n) {
        snprintf(err, errlen, "%s: a snapshot that searches needs search=N (its simulations per move)", what);
        return RL_ECONFIG;
    }
    char why[RL_ERR_MAX];
    if (rl__search_check(c->env->desc, info, NULL, why, sizeof why) == RL_OK) return RL_OK;
    snprintf(err, errlen, "%s: %s", what, why);
    return RL_ECONFIG;
}

/* A snapshot that searches: its algorithm must give probabilities and values. */
static int snapshot_searches(rl__player *p, const char *spec, const rl_env_info *info, char *err, size_t errlen)
{
    p->search.algo_desc = p->own.algo->desc;
    char why[RL_ERR_MAX];
    if (rl__search_check(p->own.env->desc, info, p->search.algo_desc, why, sizeof why) == RL_OK) return RL_OK;
    snprintf(err, errlen, "opponent '%s': %s", spec, why);
    return RL_ECONFIG;
}

int rl__player_open(rl__player *p, const char *spec, const rl__config *c, const rl_env_info *info, uint32_t rows,
                    uint64_t seed, char *err, size_t errlen)
{
    memset(p, 0, sizeof *p);
    snprintf(p->name, sizeof p->name, "%s", spec);
    char buf[1024];
    const char *name, *keys[32], *vals[32];
    uint32_t n;
    int rc = parse_spec(spec, buf, sizeof buf, &name, keys, vals, &n, err, errlen);
    if (rc != RL_OK) return rc;
    if (!strcmp(spec, "human")) {
        if (rl_env_info_action_kind(info) != RL_SPACE_DISCRETE) {
            snprintf(err, errlen, "opponent 'human' types discrete moves; this env's actions are not discrete");
            return RL_ECONFIG;
        }
        p->human = 1;
        snprintf(p->name, sizeof p->name, "a person");
        return RL_OK;
    }
    const rl__plugin *pl = NULL;
    int named = name[strspn(name, "abcdefghijklmnopqrstuvwxyz0123456789_")] == 0;
    for (size_t i = 0; named && c->reg && i < c->reg->n_plugins && !pl; i++)
        if (c->reg->plugins[i].desc->kind == RL_KIND_ALGO && !strcmp(c->reg->plugins[i].desc->name, name))
            pl = &c->reg->plugins[i];
    p->seed = seed;
    if (pl) {
        rc = check_takes(pl->desc, spec, c->env->desc->name, info, err, errlen);
        if (rc == RL_OK) rc = open_scripted(p, pl, spec, keys, vals, n, info, rows, seed, err, errlen);
    } else if (!strcmp(name, "mcts"))
        rc = search_keys(p, spec, keys, vals, n, 0, c, info, err, errlen);
    else if (n && named && !has_search_key(keys, n)) {
        snprintf(err, errlen, "opponent '%s': no algorithm plugin '%s' (see rlhost list)", spec, name);
        rc = RL_ECONFIG;
    } else {
        rc = n ? search_keys(p, spec, keys, vals, n, 1, c, info, err, errlen) : RL_OK;
        if (rc == RL_OK) rc = open_snapshot(p, n ? name : spec, c, info, rows, err, errlen);
        if (rc == RL_OK && n) rc = snapshot_searches(p, spec, info, err, errlen);
    }
    if (rc != RL_OK) rl__player_close(p);
    return rc;
}

void rl__player_close(rl__player *p)
{
    rl__search_actor_close(&p->search);
    if (p->algo) p->vt->destroy(p->algo);
    if (p->has_own)
        rl__config_destroy(&p->own);
    else
        rl__arena_free(&p->own.arena);
    memset(p, 0, sizeof *p);
}

static rl__human_fn g_human;
static void *g_human_ctx;

void rl__human_set(rl__human_fn fn, void *ctx)
{
    g_human = fn;
    g_human_ctx = ctx;
}

int rl__human_ask(const rl__human_move *m, char *err, size_t errlen)
{
    if (!g_human) {
        snprintf(err, errlen, "no one is seated to play as 'human' (rlhost play --human seats a person)");
        return RL_ENOTSUP;
    }
    *m->action = -1;
    int rc = g_human(g_human_ctx, m, err, errlen);
    if (rc == RL_OK && (*m->action < 0 || (uint32_t)*m->action >= m->n_actions || (m->mask && !m->mask[*m->action]))) {
        snprintf(err, errlen, "the person's move %d is not one of the allowed", (int)*m->action);
        return RL_EINVAL;
    }
    return rc;
}

int rl__player_act(rl__player *p, const rl__space *space, const void *obs, const uint8_t *episode_start,
                   const uint8_t *masks, void *actions, uint32_t n, char *err, size_t errlen)
{
    if (p->human) {
        snprintf(err, errlen, "a person's moves are asked with the board (rl__human_ask)");
        return RL_EINVAL;
    }
    char perr[RL_ERR_MAX] = "";
    int rc =
        rl__space_act(space, p->vt, p->algo, RL_MODE_EVAL, obs, episode_start, masks, actions, n, perr, sizeof perr);
    if (rc != RL_OK) {
        snprintf(err, errlen, "opponent '%s' failed choosing actions: %s", p->name, perr[0] ? perr : rl_strerror(rc));
        return rc;
    }
    char who[256];
    snprintf(who, sizeof who, "opponent '%s'", p->name);
    return rl__space_settle(space, actions, actions, masks, n, 1, who, err, errlen);
}

int rl__player_search(rl__player *p, const rl__env_site *site, uint32_t rows, const uint32_t *boards_of,
                      const uint32_t *movers, const void *obs, const uint8_t *masks, int32_t *actions, uint32_t n,
                      char *err, size_t errlen)
{
    char perr[RL_ERR_MAX] = "";
    int rc = rl__search_actor_act(&p->search, site, rows, p->vt, p->algo, boards_of, movers, obs, masks, n, actions,
                                  perr, sizeof perr);
    if (rc != RL_OK) snprintf(err, errlen, "opponent '%s': %s", p->name, perr[0] ? perr : rl_strerror(rc));
    return rc;
}

/* A searching player's count of searches, PREFIX"search/calls". */
static int search_state(rl__player *p, const rl_state_io *io, const char *prefix, int load, char *err, size_t errlen)
{
    if (!p->searches) return RL_OK;
    char perr[RL_ERR_MAX] = "";
    int rc = rl__search_actor_state(&p->search, io, prefix, load, perr, sizeof perr);
    if (rc != RL_OK) snprintf(err, errlen, "opponent '%s': %s", p->name, perr[0] ? perr : rl_strerror(rc));
    return rc;
}

int rl__player_state(rl__player *p, const rl_state_io *io, const char *prefix, int load, const char *fallback_path,
                     char *err, size_t errlen)
{
    int src = search_state(p, io, prefix, load, err, errlen);
    if (src != RL_OK) return src;
    if (p->human || !p->algo || !p->vt->get_extension) return RL_OK;
    const rl_algo_state_ext *st = p->vt->get_extension(p->algo, RL_EXT_ALGO_STATE);
    if (!st || !RL_HAS_FIELD(st, rl_algo_state_ext, load) || !st->save || !st->load) return RL_OK;
    rl__ckpt fb;
    rl_state_io fb_io;
    memset(&fb, 0, sizeof fb);
    if (!fallback_path && p->path[0]) fallback_path = p->path;
    int has_fb = load && fallback_path;
    if (has_fb) {
        if (rl__ckpt_read_file(&fb, fallback_path, 1, err, errlen) != RL_OK) return RL_ECORRUPT;
        rl__ckpt_io(&fb, &fb_io);
    }
    rl__prefixed_io x;
    rl__prefixed_io_init(&x, io, prefix, has_fb ? &fb_io : NULL);
    char perr[RL_ERR_MAX] = "";
    int rc = load ? st->load(p->algo, &x.io, perr, sizeof perr) : st->save(p->algo, &x.io, perr, sizeof perr);
    if (has_fb) rl__ckpt_free(&fb);
    if (rc != RL_OK) snprintf(err, errlen, "opponent '%s': %s", p->name, perr[0] ? perr : rl_strerror(rc));
    return rc;
}

/* ---- the self-play pool ------------------------------------------------ */

int rl__selfplay_init(rl__selfplay *s, const rl__config *c, const rl_env_info *info, uint32_t rows, const char *run_dir,
                      char *err, size_t errlen)
{
    memset(s, 0, sizeof *s);
    s->c = c;
    s->info = *info;
    s->rows = rows;
    s->cap = (uint32_t)c->seats.vals[RL__SEATS_POOL_SIZE].i;
    s->rule = (int)c->seats.vals[RL__SEATS_DRAW].i;
    snprintf(s->dir, sizeof s->dir, "%s/pool", run_dir);
    rl_rng_seed(&s->rng, (uint64_t)c->run.vals[RL__RUN_SEED].i, 0x5e17);
    /* the members' config: the learner's with seats.snapshot_options */
    const rl_value *so = &c->seats.vals[RL__SEATS_SNAPSHOT_OPTIONS];
    rl__override ov[64];
    char *keys[64] = {0};
    if (so->n > 64) {
        snprintf(err, errlen, "seats.snapshot_options: at most 64 options, got %zu", so->n);
        return RL_ECONFIG;
    }
    int rc = RL_OK;
    for (size_t i = 0; i < so->n && rc == RL_OK; i++) {
        const char *eq = strchr(so->slist[i], '=');
        if (!eq || eq == so->slist[i] || !(keys[i] = malloc((size_t)(eq - so->slist[i]) + 6))) {
            snprintf(err, errlen, "seats.snapshot_options: '%s' is not KEY=VALUE", so->slist[i]);
            rc = RL_ECONFIG;
            break;
        }
        snprintf(keys[i], (size_t)(eq - so->slist[i]) + 6, "algo.%.*s", (int)(eq - so->slist[i]), so->slist[i]);
        ov[i] = (rl__override){keys[i], eq + 1};
    }
    if (rc == RL_OK) {
        rl__sbuf text = {0}, errors = {0};
        rl__config_format(c, &text);
        rc = text.oom
            ? RL_ENOMEM
            : rl__config_load_text(&s->own, "seats.snapshot_options", text.data, ov, so->n, c->reg, &errors, 1);
        if (rc != RL_OK) {
            size_t l = errors.data ? strcspn(errors.data, "\n") : 0;
            snprintf(err, errlen, "%.*s", (int)l, errors.data ? errors.data : rl_strerror(rc));
        }
        rl__sbuf_free(&text);
        rl__sbuf_free(&errors);
    }
    for (size_t i = 0; i < so->n; i++) {
        if (rc == RL_OK)
            s->changed[s->n_changed++] = keys[i];
        else
            free(keys[i]);
    }
    if (rc != RL_OK) return rc;
    const rl_value *fixed = &c->seats.vals[RL__SEATS_POOL_OPPONENTS];
    if (fixed->n > 64) {
        snprintf(err, errlen, "seats.pool_opponents: at most 64, got %zu", fixed->n);
        return RL_ECONFIG;
    }
    s->m = calloc(s->cap + fixed->n, sizeof *s->m);
    if (!s->m) {
        snprintf(err, errlen, "out of memory for a pool of %u snapshots", s->cap);
        return RL_ENOMEM;
    }
    for (size_t j = 0; j < fixed->n; j++) {
        rl__selfplay_member *m = &s->m[j];
        if (!strcmp(fixed->slist[j], "self") || !strcmp(fixed->slist[j], "human")) {
            snprintf(err, errlen, "seats.pool_opponents: '%s' cannot be a member of the pool", fixed->slist[j]);
            return RL_ECONFIG;
        }
        rc = rl__player_open(&m->player, fixed->slist[j], c, info, rows, (uint64_t)c->run.vals[RL__RUN_SEED].i + j, err,
                             errlen);
        if (rc != RL_OK) return rc;
        m->step = RL__FIXED_STEP(j);
        s->n = s->n_fixed = (uint32_t)j + 1;
    }
    return RL_OK;
}

void rl__selfplay_free(rl__selfplay *s)
{
    for (uint32_t i = 0; s->m && i < s->n; i++) rl__player_close(&s->m[i].player);
    free(s->m);
    free(s->named);
    rl__config_destroy(&s->own);
    for (uint32_t i = 0; i < s->n_changed; i++) free(s->changed[i]);
    memset(s, 0, sizeof *s);
}

void rl__selfplay_path(const rl__selfplay *s, uint64_t step, char *out, size_t len)
{
    snprintf(out, len, "%s/step-%015llu.safetensors", s->dir, (unsigned long long)step);
}

/* Loads member i's player from its file. */
static int load_member(rl__selfplay *s, rl__selfplay_member *m, char *err, size_t errlen)
{
    char path[4300];
    rl__selfplay_path(s, m->step, path, sizeof path);
    struct stat st;
    if (lstat(path, &st) != 0 || !S_ISREG(st.st_mode)) {
        snprintf(err, errlen,
                 "the self-play pool lost %s (the run directory's pool/ was edited): restore the file, or "
                 "start the run again",
                 path);
        return RL_EIO;
    }
    memset(&m->player, 0, sizeof m->player);
    rl__restore r = {.path = path, .allowed = (const char *const *)s->changed, .n_allowed = s->n_changed};
    m->player.vt = s->own.algo->desc->vtable;
    m->player.algo = rl__policy_open(&s->own, &s->info, s->rows, &r, err, errlen);
    snprintf(m->player.name, sizeof m->player.name, "snapshot of step %llu", (unsigned long long)m->step);
    if (!m->player.algo) return RL_ECORRUPT;
    if (r.step != m->step) {
        snprintf(err, errlen, "%s holds the learner of step %llu, not %llu (the pool was edited)", path,
                 (unsigned long long)r.step, (unsigned long long)m->step);
        rl__player_close(&m->player);
        return RL_ECORRUPT;
    }
    return RL_OK;
}

int rl__selfplay_add(rl__selfplay *s, uint64_t step, char *err, size_t errlen)
{
    if (s->n - s->n_fixed == s->cap) { /* the oldest snapshot goes; its file stays for rl__selfplay_sweep */
        rl__selfplay_member *old = &s->m[s->n_fixed];
        rl__player_close(&old->player);
        memmove(old, old + 1, (s->n - s->n_fixed - 1) * sizeof *s->m);
        s->n--;
    }
    rl__selfplay_member *m = &s->m[s->n];
    memset(m, 0, sizeof *m);
    m->step = step;
    int rc = load_member(s, m, err, errlen);
    if (rc == RL_OK) s->n++;
    return rc;
}

int rl__selfplay_find(const rl__selfplay *s, uint64_t step)
{
    for (uint32_t i = 0; i < s->n; i++)
        if (s->m[i].step == step) return (int)i;
    return -1;
}

/* pfsp: weight (1 - p)^2, p the learner's score rate against the member
   (a member not yet played counts as p = 1/2); a floor keeps every member
   drawable.  Computed where it is read: the pool holds up to
   seats.pool_size + seats.pool_opponents members. */
static double pfsp_weight(const rl__selfplay_member *m)
{
    double p = m->games > 0 ? m->learner_score / m->games : 0.5;
    return (1 - p) * (1 - p) + 1e-3;
}

int rl__selfplay_draw(rl__selfplay *s)
{
    if (!s->n) return -1;
    if (s->rule == RL__DRAW_LATEST) return (int)s->n - 1;
    if (s->rule == RL__DRAW_UNIFORM) return (int)rl_rng_below(&s->rng, s->n);
    double total = 0;
    for (uint32_t i = 0; i < s->n; i++) total += pfsp_weight(&s->m[i]);
    double u = rl_rng_uniform_d(&s->rng) * total;
    for (uint32_t i = 0; i < s->n; i++) {
        double w = pfsp_weight(&s->m[i]);
        if (u < w) return (int)i;
        u -= w;
    }
    return (int)s->n - 1;
}

void rl__selfplay_result(rl__selfplay *s, int m, int result)
{
    if (m < 0 || (uint32_t)m >= s->n) return;
    s->m[m].games += 1;
    s->m[m].learner_score += result > 0 ? 1.0 : result == 0 ? 0.5 : 0.0;
}

/* The fixed members' records (their players are the config's, made anew). */
static int fixed_state(rl__selfplay *s, const rl_state_io *io, int load, char *err, size_t errlen)
{
    if (!s->n_fixed) return RL_OK;
    double st[128];
    for (uint32_t j = 0; !load && j < s->n_fixed; j++) st[2 * j] = s->m[j].games, st[2 * j + 1] = s->m[j].learner_score;
    uint64_t shape[2] = {s->n_fixed, 2};
    int rc = load ? io->get(io->ctx, "seats/pool/fixed_stats", RL_DTYPE_F64, 2, shape, st)
                  : io->put(io->ctx, "seats/pool/fixed_stats", RL_DTYPE_F64, 2, shape, st);
    if (rc != RL_OK) {
        snprintf(err, errlen, "%s", io->error ? io->error(io->ctx) : rl_strerror(rc));
        return rc;
    }
    for (uint32_t j = 0; load && j < s->n_fixed; j++) {
        if (!isfinite(st[2 * j]) || !isfinite(st[2 * j + 1]) || st[2 * j] < 0 || st[2 * j + 1] < 0 ||
            st[2 * j + 1] > st[2 * j]) {
            snprintf(err, errlen, "tensor 'seats/pool/fixed_stats': member %u holds no pool's record", j);
            return RL_ECORRUPT;
        }
        s->m[j].games = st[2 * j], s->m[j].learner_score = st[2 * j + 1];
    }
    return RL_OK;
}

/* Every member's acting state (its RNG), under seats/pool/ID/. */
static int members_state(rl__selfplay *s, const rl_state_io *io, int load, char *err, size_t errlen)
{
    for (uint32_t i = 0; i < s->n; i++) {
        char pfx[96], path[4300];
        int fixed = i < s->n_fixed;
        if (fixed)
            snprintf(pfx, sizeof pfx, "seats/pool/fixed%u/", i);
        else
            snprintf(pfx, sizeof pfx, "seats/pool/step%llu/", (unsigned long long)s->m[i].step);
        if (!fixed) rl__selfplay_path(s, s->m[i].step, path, sizeof path);
        int rc = rl__player_state(&s->m[i].player, io, pfx, load, fixed ? NULL : path, err, errlen);
        if (rc != RL_OK) return rc;
    }
    return RL_OK;
}

static int pool_tensors(rl__selfplay *s, const rl_state_io *io, int load, uint64_t n, uint64_t *steps, double *stats,
                        char *err, size_t errlen);

/* The snapshots of the pool now become the ones the last checkpoint names. */
static int name_members(rl__selfplay *s, char *err, size_t errlen)
{
    uint32_t k = s->n - s->n_fixed;
    uint64_t *named = realloc(s->named, (k ? k : 1) * sizeof *named);
    if (!named) {
        snprintf(err, errlen, "out of memory for the self-play pool's names");
        return RL_ENOMEM;
    }
    for (uint32_t i = 0; i < k; i++) named[i] = s->m[s->n_fixed + i].step;
    s->named = named;
    s->n_named = k;
    return RL_OK;
}

int rl__selfplay_state(rl__selfplay *s, const rl_state_io *io, int load, char *err, size_t errlen)
{
    int rc0 = fixed_state(s, io, load, err, errlen);
    if (rc0 != RL_OK) return rc0;
    if (!load && (rc0 = members_state(s, io, 0, err, errlen)) != RL_OK) return rc0;
    uint32_t f = s->n_fixed;
    uint64_t n = s->n - f;
    int rc = rl_state_blob(io, load, "", "seats/pool/count", &n, sizeof n, err, errlen);
    if (rc != RL_OK) return rc;
    if (load && n > s->cap) {
        snprintf(err, errlen, "tensor 'seats/pool/count': %llu snapshots, more than seats.pool_size %u",
                 (unsigned long long)n, s->cap);
        return RL_ECORRUPT;
    }
    uint64_t *steps = malloc((n ? n : 1) * sizeof *steps);
    double *stats = malloc((n ? n : 1) * 2 * sizeof *stats);
    if (!steps || !stats) {
        free(steps), free(stats);
        snprintf(err, errlen, "out of memory for a pool of %llu snapshots", (unsigned long long)n);
        return RL_ENOMEM;
    }
    rc = pool_tensors(s, io, load, n, steps, stats, err, errlen);
    free(steps), free(stats);
    return rc;
}

/* The snapshots' steps and records, n of them: saved, or loaded and each
   member's file reloaded. */
static int pool_tensors(rl__selfplay *s, const rl_state_io *io, int load, uint64_t n, uint64_t *steps, double *stats,
                        char *err, size_t errlen)
{
    uint32_t f = s->n_fixed;
    int rc = RL_OK;
    for (uint32_t i = 0; !load && i < n; i++)
        steps[i] = s->m[f + i].step, stats[2 * i] = s->m[f + i].games, stats[2 * i + 1] = s->m[f + i].learner_score;
    if (n) {
        uint64_t shape = n, shape2[2] = {n, 2};
        rc = load ? io->get(io->ctx, "seats/pool/steps", RL_DTYPE_U64, 1, &shape, steps)
                  : io->put(io->ctx, "seats/pool/steps", RL_DTYPE_U64, 1, &shape, steps);
        if (rc == RL_OK)
            rc = load ? io->get(io->ctx, "seats/pool/stats", RL_DTYPE_F64, 2, shape2, stats)
                      : io->put(io->ctx, "seats/pool/stats", RL_DTYPE_F64, 2, shape2, stats);
        if (rc != RL_OK) {
            snprintf(err, errlen, "%s", io->error ? io->error(io->ctx) : rl_strerror(rc));
            return rc;
        }
    }
    rc = rl_state_blob(io, load, "", "seats/pool/rng", &s->rng, sizeof s->rng, err, errlen);
    if (rc != RL_OK || !load) return rc;
    if ((rc = rl_state_check_rng("seats/pool/rng", &s->rng, err, errlen)) != RL_OK) return rc;
    for (uint32_t i = f; i < s->n; i++) rl__player_close(&s->m[i].player);
    s->n = f;
    for (uint64_t i = 0; i < n; i++) {
        if (!isfinite(stats[2 * i]) || !isfinite(stats[2 * i + 1]) || stats[2 * i] < 0 || stats[2 * i + 1] < 0 ||
            stats[2 * i + 1] > stats[2 * i] || (i && steps[i] <= steps[i - 1]) || steps[i] >= RL__FIXED_STEP(64)) {
            snprintf(err, errlen, "tensor 'seats/pool/stats': snapshot %llu holds no pool's record",
                     (unsigned long long)i);
            return RL_ECORRUPT;
        }
        rl__selfplay_member *m = &s->m[f + i];
        memset(m, 0, sizeof *m);
        m->step = steps[i];
        m->games = stats[2 * i];
        m->learner_score = stats[2 * i + 1];
        if ((rc = load_member(s, m, err, errlen)) != RL_OK) return rc;
        s->n++;
    }
    rc = members_state(s, io, 1, err, errlen);
    return rc == RL_OK ? name_members(s, err, errlen) : rc;
}

/* Whether a snapshot of step is a member now or named by the last
   checkpoint. */
static int keeps(const rl__selfplay *s, uint64_t step)
{
    for (uint32_t i = 0; i < s->n_named; i++)
        if (s->named[i] == step) return 1;
    return rl__selfplay_find(s, step) >= 0;
}

/* A snapshot file's step from its name ("step-%015llu.safetensors"), or 0
   for any other name. */
static uint64_t file_step(const char *name)
{
    if (strncmp(name, "step-", 5) != 0 || name[5] < '0' || name[5] > '9') return 0;
    char *end;
    unsigned long long step = strtoull(name + 5, &end, 10);
    char again[64];
    snprintf(again, sizeof again, "step-%015llu.safetensors", step);
    return strcmp(name, again) == 0 ? (uint64_t)step : 0;
}

int rl__selfplay_sweep(rl__selfplay *s, char *err, size_t errlen)
{
    int fd = open(s->dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0 && errno != ENOENT) {
        snprintf(err, errlen, "cannot open the self-play pool %s%s", s->dir,
                 errno == ELOOP || errno == ENOTDIR ? ": it is no longer a directory of the run's own" : "");
        return RL_EIO;
    }
    DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
    if (fd >= 0 && !d) close(fd);
    for (struct dirent *e; d && (e = readdir(d));) {
        uint64_t step = file_step(e->d_name);
        if (step && !keeps(s, step)) unlinkat(dirfd(d), e->d_name, 0);
    }
    if (d) closedir(d);
    return name_members(s, err, errlen);
}
