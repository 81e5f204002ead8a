/* The searching player; see searcher.h. */
#include "search/searcher.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "plugin/act.h"
#include "plugin/loader.h"

struct rl__searcher {
    rl__model *model;
    rl_search *search;
    rl__pool *pool;
    const rl_search_model *face;
    /* the evaluator: an algorithm with RL_DESC_VALUES, or none (rollouts) */
    const rl_algo_vtable *vt;
    void *algo;
    int masks;
    double temperature;
    uint32_t rows;
    uint64_t seed;
    /* an algorithm with RL_DESC_ACT_WORKERS made for as many workers as the
       pool has: each worker evaluates its own trees' leaves */
    int each;
    struct eval_worker {
        rl__searcher *s;
        uint32_t worker;
    } * workers;
    void **worker_ctx; /* [threads]: &workers[w] */
    void *block;       /* every buffer below */
    uint8_t *states, *starts;
    uint8_t *all_moves; /* [rows][n_actions] ones: the masks of an env that does not mask */
    uint64_t *seeds;
    float *visits, *values;
    int32_t *scratch_actions; /* [threads][rows] */
};

static const struct {
    const char *key, *range;
    double lo, hi;
    int integer;
} keys[] = {
    {"simulations", "1 to 1000000", 1, RL__SEARCH_MAX_SIMULATIONS, 1},
    {"c_puct", "0 to 100", 0, 100, 0},
    {"rollouts", "1 to 1000", 1, 1000, 1},
    {"temperature", "0 to 100", 0, 100, 0},
    {"max_mib", "1 to 1048576", 1, 1048576, 1},
    {"threads", "0 (every core) to 256", 0, 256, 1},
    {"mix", "0 to 1", 0, 1, 0},
    {"dirichlet_alpha", "0 to 100", 0, 100, 0},
    {"dirichlet_frac", "0 to 1", 0, 1, 0},
};

rl__search_opts rl__search_defaults(void)
{
    return (rl__search_opts){
        .simulations = 100, .c_puct = -1, .rollouts = 1, .temperature = 0, .max_mib = 1024, .threads = 0};
}

int rl__search_opts_has(const char *key)
{
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
        if (!strcmp(keys[i].key, key)) return 1;
    return 0;
}

int rl__search_opts_set(rl__search_opts *o, const char *key, const char *value, const char *what, char *err,
                        size_t errlen)
{
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
        if (strcmp(keys[i].key, key)) continue;
        char *end;
        errno = 0;
        double v = strtod(value, &end);
        int bad =
            !*value || *end || errno || !(v >= keys[i].lo && v <= keys[i].hi) || (keys[i].integer && v != floor(v));
        if (bad) {
            snprintf(err, errlen, "%s: search %s '%s' is not %s from %s", what, key, value,
                     keys[i].integer ? "a whole number" : "a number", keys[i].range);
            return RL_ECONFIG;
        }
        if (i == 0) o->simulations = (uint32_t)v;
        if (i == 1) o->c_puct = v;
        if (i == 2) o->rollouts = (uint32_t)v;
        if (i == 3) o->temperature = v;
        if (i == 4) o->max_mib = (uint32_t)v;
        if (i == 5) o->threads = (uint32_t)v;
        if (i == 6) o->mix = v;
        if (i == 7) o->dirichlet_alpha = v;
        if (i == 8) o->dirichlet_frac = v;
        return RL_OK;
    }
    snprintf(err, errlen,
             "%s: the search has no key '%s' (it takes simulations, c_puct, rollouts, temperature, "
             "max_mib, threads, mix, dirichlet_alpha, dirichlet_frac)",
             what, key);
    return RL_ECONFIG;
}

int rl__search_opts_parse(rl__search_opts *o, const char *spec, const char *what, char *err, size_t errlen)
{
    if (!strchr(spec, '=')) return rl__search_opts_set(o, "simulations", spec, what, err, errlen);
    char buf[512];
    if (strlen(spec) >= sizeof buf) {
        snprintf(err, errlen, "%s: the search's spec is longer than %zu bytes", what, sizeof buf - 1);
        return RL_ECONFIG;
    }
    snprintf(buf, sizeof buf, "%s", spec);
    for (char *save = NULL, *kv = strtok_r(buf, ",", &save); kv; kv = strtok_r(NULL, ",", &save)) {
        while (*kv == ' ') kv++;
        char *eq = strchr(kv, '=');
        if (!eq) {
            snprintf(err, errlen, "%s: '%s' is not key=value", what, kv);
            return RL_ECONFIG;
        }
        *eq = 0;
        char *k_end = eq;
        while (k_end > kv && k_end[-1] == ' ') *--k_end = 0;
        const char *v = eq + 1;
        while (*v == ' ') v++;
        int rc = rl__search_opts_set(o, kv, v, what, err, errlen);
        if (rc != RL_OK) return rc;
    }
    return RL_OK;
}

void rl__searcher_close(rl__searcher *s)
{
    if (!s) return;
    rl_search_destroy(s->search);
    rl__pool_destroy(s->pool);
    rl__model_close(s->model);
    free(s->workers);
    free(s->worker_ctx);
    free(s->block);
    free(s);
}

/* The algorithm's probabilities and values as the search's priors and
   values, on one worker (ctx: its struct eval_worker). */
static int network(void *ctx, uint32_t count, const void *obs, const uint8_t *masks, float *priors, float *values,
                   char *err, size_t errlen)
{
    const struct eval_worker *w = ctx;
    rl__searcher *s = w->s;
    rl_act_batch b = {.struct_size = sizeof b,
                      .mode = RL_MODE_EVAL,
                      .count = count,
                      .obs = obs,
                      .episode_start = s->starts,
                      .masks = s->masks ? masks : NULL,
                      .actions = s->scratch_actions + (size_t)w->worker * s->rows,
                      .probs = priors,
                      .values = values,
                      .worker = w->worker};
    char perr[RL_ERR_MAX];
    perr[0] = '\0';
    int rc = rl__algo_act(s->vt, s->algo, RL_SPACE_DISCRETE, &b, perr, sizeof perr);
    if (rc != RL_OK) snprintf(err, errlen, "the search's network failed: %s", perr[0] ? perr : rl_strerror(rc));
    return rc;
}

typedef struct par_job {
    void (*fn)(void *arg, uint32_t w);
    void *arg;
} par_job;

static void pool_range(void *ctx, uint32_t first, uint32_t count)
{
    par_job *j = ctx;
    for (uint32_t w = first; w < first + count; w++) j->fn(j->arg, w);
}

static void on_pool(void *ctx, void (*fn)(void *arg, uint32_t w), void *arg, uint32_t n)
{
    par_job j = {fn, arg};
    rl__pool_run(ctx, pool_range, &j, n);
}

static int alloc_buffers(rl__searcher *s, uint32_t rows, uint32_t threads)
{
    const rl_search_model *f = s->face;
    size_t sb = (f->state_bytes + 7) & ~(size_t)7, A = f->n_actions;
    size_t bytes = rows * (sb + sizeof(uint64_t) + (A + 1) * sizeof(float) + threads * sizeof(int32_t) + 1 + A);
    uint8_t *p = s->block = calloc(1, bytes);
    s->workers = calloc(threads, sizeof *s->workers);
    s->worker_ctx = calloc(threads, sizeof *s->worker_ctx);
    if (!p || !s->workers || !s->worker_ctx) return RL_ENOMEM;
    for (uint32_t w = 0; w < threads; w++) {
        s->workers[w] = (struct eval_worker){s, w};
        s->worker_ctx[w] = &s->workers[w];
    }
    /* the 8-byte pieces first: a model may read a state as a struct */
    s->seeds = (uint64_t *)p, p += rows * sizeof(uint64_t);
    s->states = p, p += rows * sb;
    s->visits = (float *)p, p += rows * A * sizeof(float);
    s->values = (float *)p, p += rows * sizeof(float);
    s->scratch_actions = (int32_t *)p, p += (size_t)threads * rows * sizeof(int32_t);
    s->all_moves = memset(p, 1, rows * A), p += rows * A;
    s->starts = memset(p, 1, rows); /* every row a fresh start: no recurrent state */
    return RL_OK;
}

int rl__search_check(const rl_plugin_desc *env_desc, const rl_env_info *info, const rl_plugin_desc *algo_desc,
                     char *err, size_t errlen)
{
    if (!(rl__desc_flags(env_desc) & RL_DESC_SEARCHABLE)) {
        snprintf(err, errlen,
                 "env '%s' cannot be searched: it does not declare itself searchable (RL_DESC_SEARCHABLE: its step "
                 "follows from its saved state and the actions alone)",
                 env_desc->name);
        return RL_ECONFIG;
    }
    if (rl_env_info_action_kind(info) != RL_SPACE_DISCRETE) {
        snprintf(err, errlen, "env '%s' cannot be searched: the search takes discrete actions only", env_desc->name);
        return RL_ECONFIG;
    }
    if (algo_desc && !(rl__desc_flags(algo_desc) & RL_DESC_VALUES)) {
        snprintf(err, errlen,
                 "algo '%s' gives the search no probabilities and values (no RL_DESC_VALUES): search with "
                 "rollouts (mcts) or a policy with a value head (ppo)",
                 algo_desc->name);
        return RL_ECONFIG;
    }
    return RL_OK;
}

int rl__searcher_open(rl__searcher **out, const rl__search_opts *o, const rl__env_site *site, uint32_t rows,
                      const rl_plugin_desc *algo_desc, const rl_algo_vtable *vt, void *algo, uint32_t act_workers,
                      uint64_t seed, char *err, size_t errlen)
{
    *out = NULL;
    int rc = rl__search_check(site->desc, site->info, vt ? algo_desc : NULL, err, errlen);
    if (rc != RL_OK) return rc;
    rl__searcher *s = calloc(1, sizeof *s);
    if (!s) return RL_ENOMEM;
    const rl_plugin_desc *desc = site->desc;
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    uint32_t threads = o->threads ? o->threads : cores > 0 ? (uint32_t)cores : 1;
    if (threads > rows) threads = rows ? rows : 1;
    rc = rl__model_open(&s->model, desc, site->options, site->stages, site->info, threads, err, errlen);
    if (rc == RL_OK) {
        s->face = rl__model_search(s->model);
        rl_search_config cfg = rl_search_defaults();
        cfg.simulations = o->simulations;
        cfg.c_puct = (float)(o->c_puct >= 0 ? o->c_puct : vt ? 1.25 : 2.0);
        cfg.rollouts = o->rollouts;
        cfg.max_bytes = (uint64_t)o->max_mib << 20;
        cfg.mix = vt ? (float)o->mix : 0.0f;
        cfg.dirichlet_alpha = (float)o->dirichlet_alpha;
        cfg.dirichlet_frac = (float)o->dirichlet_frac;
        char serr[RL_ERR_MAX] = "";
        rc = rl_search_create(&cfg, s->face, rows, &s->search, serr, sizeof serr);
        if (rc != RL_OK) snprintf(err, errlen, "env '%s': %s", desc->name, serr);
    }
    if (rc == RL_OK && (alloc_buffers(s, rows, threads) != RL_OK || !(s->pool = rl__pool_create(threads)))) {
        snprintf(err, errlen, "out of memory for a search of %u rows", rows);
        rc = RL_ENOMEM;
    }
    if (rc != RL_OK) {
        rl__searcher_close(s);
        return rc;
    }
    s->vt = vt, s->algo = algo;
    s->each = vt && threads > 1 && (rl__desc_flags(algo_desc) & RL_DESC_ACT_WORKERS) && act_workers >= threads;
    s->masks = rl_env_info_mask_width(site->info) != 0;
    s->temperature = o->temperature;
    s->rows = rows;
    s->seed = seed;
    *out = s;
    return RL_OK;
}

static uint64_t mix(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

int rl__searcher_search(rl__searcher *s, const rl__env_site *site, uint64_t call, const uint32_t *boards_of,
                        const uint32_t *movers, const void *obs, const uint8_t *masks, uint32_t count,
                        const float **visits, const float **values, char *err, size_t errlen)
{
    if (count > s->rows) {
        snprintf(err, errlen, "search: %u rows, past the %u it was made for", count, s->rows);
        return RL_EINVAL;
    }
    const rl_search_model *f = s->face;
    size_t A = f->n_actions;
    int rc = rl__model_roots(s->model, site->vt, site->env, site->boards, boards_of, movers, masks, A, count, s->states,
                             err, errlen);
    if (rc != RL_OK) return rc;
    /* the trees' streams follow from the seed, the search's count and the board */
    for (uint32_t j = 0; j < count; j++) s->seeds[j] = mix(s->seed ^ mix(call) ^ mix(~(uint64_t)boards_of[j]));
    const uint8_t *m = masks ? masks : s->all_moves;
    rl_search_parallel_fn par = rl__pool_threads(s->pool) > 1 ? on_pool : NULL;
    if (s->each)
        rc = rl_search_run_each(s->search, count, s->states, obs, m, s->seeds, network, s->worker_ctx, par, s->pool,
                                s->visits, s->values, err, errlen);
    else
        rc = rl_search_run(s->search, count, s->states, obs, m, s->seeds, s->vt ? network : NULL, s->worker_ctx[0], par,
                           s->pool, s->visits, s->values, err, errlen);
    *visits = s->visits;
    if (values) *values = s->values;
    return rc;
}

int rl__searcher_improved(const rl__searcher *s, uint32_t count, float c_visit, float c_scale, float *out, char *err,
                          size_t errlen)
{
    size_t A = s->face->n_actions;
    for (uint32_t j = 0; j < count; j++)
        if (rl_search_improved_policy(s->search, j, c_visit, c_scale, out + j * A) != RL_OK) {
            snprintf(err, errlen, "search: no improved policy for root %u of %u", j, count);
            return RL_EINVAL;
        }
    return RL_OK;
}

int rl__searcher_act(rl__searcher *s, const rl__env_site *site, uint64_t call, const uint32_t *boards_of,
                     const uint32_t *movers, const void *obs, const uint8_t *masks, uint32_t count, int32_t *actions,
                     char *err, size_t errlen)
{
    const float *visits;
    int rc = rl__searcher_search(s, site, call, boards_of, movers, obs, masks, count, &visits, NULL, err, errlen);
    if (rc != RL_OK) return rc;
    size_t A = s->face->n_actions;
    rl_rng rng;
    rl_rng_seed(&rng, mix(s->seed ^ 0x7e3b), call);
    for (uint32_t j = 0; j < count; j++)
        actions[j] = rl_search_pick(visits + j * A, (uint32_t)A, (float)s->temperature, &rng);
    return RL_OK;
}

int rl__search_actor_act(rl__search_actor *a, const rl__env_site *site, uint32_t rows, const rl_algo_vtable *vt,
                         void *algo, const uint32_t *boards_of, const uint32_t *movers, const void *obs,
                         const uint8_t *masks, uint32_t count, int32_t *actions, char *err, size_t errlen)
{
    int rc = rl__search_actor_open(a, site, rows, vt, algo, err, errlen);
    if (rc == RL_OK)
        rc = rl__searcher_act(a->s, site, a->calls, boards_of, movers, obs, masks, count, actions, err, errlen);
    if (rc == RL_OK) a->calls++;
    return rc;
}

int rl__search_actor_open(rl__search_actor *a, const rl__env_site *site, uint32_t rows, const rl_algo_vtable *vt,
                          void *algo, char *err, size_t errlen)
{
    if (a->s) return RL_OK;
    return rl__searcher_open(&a->s, &a->opts, site, rows, a->algo_desc, a->algo_desc ? vt : NULL, algo,
                             rl__act_workers(a->algo_desc, 0), a->seed, err, errlen);
}

void rl__search_actor_close(rl__search_actor *a)
{
    rl__searcher_close(a->s);
    a->s = NULL;
}

int rl__search_actor_state(rl__search_actor *a, const rl_state_io *io, const char *prefix, int load, char *err,
                           size_t errlen)
{
    uint64_t calls = a->calls;
    int rc = rl_state_blob(io, load, prefix, "search/calls", &calls, sizeof calls, err, errlen);
    if (rc == RL_OK) a->calls = calls;
    return rc;
}
