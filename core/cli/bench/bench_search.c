/* `rlhost bench search NAME`: tree-search speed with random rollouts, one
 * thread and every core.
 *
 * Opens num_envs envs of NAME (default 64; --set env.KEY=VALUE sets its
 * options, env.random_opening=8 for Connect Four positions of 8 stones),
 * every agent's row the caller's, resets them, and searches from each row
 * to move with --search's spec (default 1000 simulations of UCT with one
 * random rollout each, as OpenSpiel's MCTSBot with RandomRolloutEvaluator).
 * The thread counts are measured interleaved and the median is reported as
 * simulations per second. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rlhost/rlcore.h>

#include "bench.h"
#include "base/text.h"
#include "env/vecenv.h"
#include "plugin/config.h"
#include "plugin/host_api.h"
#include "search/searcher.h"

typedef struct roots {
    uint32_t n, *boards, *movers;
    uint8_t *obs, *masks;
} roots;

/* The rows of v to move, gathered. */
static int gather(const rl__vecenv *v, roots *r)
{
    size_t rb = v->row_bytes, A = v->info.n_actions, mw = v->space.mask_width;
    r->boards = malloc(2 * (size_t)v->n * sizeof *r->boards);
    r->obs = malloc((size_t)v->n * (rb + A) + 1);
    if (!r->boards || !r->obs) return RL_ENOMEM;
    r->movers = r->boards + v->n;
    r->masks = r->obs + (size_t)v->n * rb;
    r->n = 0;
    for (uint32_t row = 0; row < v->n; row++) {
        if (v->to_move && !v->to_move[row]) continue;
        r->boards[r->n] = row / v->agents, r->movers[r->n] = row % v->agents;
        memcpy(r->obs + (size_t)r->n * rb, (const uint8_t *)v->io.obs + (size_t)row * rb, rb);
        if (mw)
            memcpy(r->masks + (size_t)r->n * A, v->io.action_mask + (size_t)row * mw, A);
        else
            memset(r->masks + (size_t)r->n * A, 1, A);
        r->n++;
    }
    return RL_OK;
}

static int search_once(rl__searcher *s, const rl__vecenv *v, const roots *r, uint64_t call, int32_t *actions,
                       double *seconds, char *err, size_t errlen)
{
    rl__env_site site = {v->desc, v->options, v->stages, &v->info, v->vt, v->env, v->boards};
    double t0 = rl_now();
    int rc = rl__searcher_act(s, &site, call, r->boards, r->movers, r->obs, r->masks, r->n, actions, err, errlen);
    *seconds = rl_now() - t0;
    return rc;
}

static void report(const char *name, uint32_t threads, const rl__search_opts *o, uint32_t n_roots, double *sps,
                   int repeat, int json)
{
    double med = rl__median(sps, repeat);
    if (json) {
        rl__sbuf b = {0};
        rl__sbuf_puts(&b, "{");
        rl__json_str(&b, "bench", "search");
        rl__json_str(&b, "env", name);
        rl__json_u64(&b, "roots", n_roots);
        rl__json_u64(&b, "simulations", o->simulations);
        rl__json_u64(&b, "rollouts", o->rollouts);
        rl__json_u64(&b, "threads", threads);
        rl__json_num(&b, "simulations_per_s", med);
        rl__json_num(&b, "simulations_per_s_per_thread", med / threads);
        rl__json_num(&b, "min", sps[0]);
        rl__json_num(&b, "max", sps[repeat - 1]);
        rl__json_print(&b);
        return;
    }
    printf("  threads %u: %8.1f k simulations/s (%.1f k per thread; min %.1f, max %.1f)\n", threads, med * 1e-3,
           med * 1e-3 / threads, sps[0] * 1e-3, sps[repeat - 1] * 1e-3);
}

int rl__bench_search(const rl__registry *reg, const char *name, const rl__override *ov, size_t n_ov,
                     const rl__search_opts *spec, int repeat, int json)
{
    char text[512];
    snprintf(text, sizeof text, "env: { plugin = \"%s\"; num_envs = 64; };", name);
    rl__config c;
    rl__sbuf errors = {0};
    if (rl__config_load_text(&c, "bench search", text, ov, n_ov, reg, &errors, 0) != RL_OK) {
        fprintf(stderr, "%s", errors.data ? errors.data : "rlhost: out of memory\n");
        rl__sbuf_free(&errors);
        return 2;
    }
    rl__sbuf_free(&errors);
    rl__search_opts o = rl__search_defaults();
    if (spec)
        o = *spec;
    else
        o.simulations = 1000;
    uint32_t cores = rl__host_api()->cpu_count(), counts[2] = {1, cores};
    int n_counts = cores > 1 ? 2 : 1, rc = 0;
    rl__seating raw = {.raw = 1};
    rl__vecenv v;
    memset(&v, 0, sizeof v);
    roots r = {0};
    rl__searcher *s[2] = {NULL, NULL};
    int32_t *actions = NULL;
    char err[RL_ERR_MAX];
    if (rl__vecenv_create_seated(&v, c.env->desc, c.env_opts.vals, c.env_stages.vals,
                                 (uint32_t)c.env_host.vals[RL__ENV_NUM_ENVS].i, 1, 1, 1, &raw, err,
                                 sizeof err) != RL_OK ||
        rl__search_check(c.env->desc, &v.info, NULL, err, sizeof err) != RL_OK) {
        fprintf(stderr, "rlhost: %s\n", err);
        rc = 2;
        goto out;
    }
    rl__vecenv_reset(&v);
    if (gather(&v, &r) != RL_OK || !(actions = malloc((size_t)v.n * sizeof *actions))) {
        fprintf(stderr, "rlhost: out of memory\n");
        rc = 1;
        goto out;
    }
    rl__env_site site = {v.desc, v.options, v.stages, &v.info, v.vt, v.env, v.boards};
    for (int k = 0; k < n_counts; k++) {
        rl__search_opts ok = o;
        ok.threads = counts[k];
        if (rl__searcher_open(&s[k], &ok, &site, r.n, NULL, NULL, NULL, 1, 1, err, sizeof err) != RL_OK) {
            fprintf(stderr, "rlhost: %s\n", err);
            rc = 2;
            goto out;
        }
    }
    double sps[2][64];
    if (repeat > 64) repeat = 64;
    for (int rep = 0; rep < repeat; rep++)
        for (int k = 0; k < n_counts; k++) {
            double secs;
            if (search_once(s[k], &v, &r, (uint64_t)rep, actions, &secs, err, sizeof err) != RL_OK) {
                fprintf(stderr, "rlhost: %s\n", err);
                rc = 1;
                goto out;
            }
            sps[k][rep] = (double)r.n * o.simulations / secs;
        }
    if (!json)
        printf("rlhost bench search %s: %u roots, %u simulations each, %u rollout%s a leaf, %d repeats\n", name, r.n,
               o.simulations, o.rollouts, o.rollouts == 1 ? "" : "s", repeat);
    for (int k = 0; k < n_counts; k++) report(name, counts[k], &o, r.n, sps[k], repeat, json);
out:
    for (int k = 0; k < 2; k++) rl__searcher_close(s[k]);
    free(actions);
    free(r.boards);
    free(r.obs);
    rl__vecenv_destroy(&v);
    rl__config_destroy(&c);
    return rc;
}
