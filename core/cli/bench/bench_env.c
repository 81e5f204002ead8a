/* `rlhost bench env NAME`: raw env stepping speed, 1 thread and all cores.
 *
 * Steps num_envs envs (default 1024) with uniform random actions through the same
 * pool and range calls the run loop uses, observations written, no learning
 * and no episode bookkeeping, so the number is the env's own speed.  The
 * thread counts are measured interleaved and the median is reported. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rlhost/rlcore.h>

#include "bench.h"
#include "plugin/config.h"
#include "env/vecenv.h"
#include "base/text.h"
#include "plugin/host_api.h"

#define ACTION_TABLES 64

typedef struct bench_ctx {
    rl__vecenv *v;
} bench_ctx;

static void step_range(void *p, uint32_t first, uint32_t count)
{
    bench_ctx *b = p;
    rl__vecenv *v = b->v;
    v->vt->step(v->env, &v->io, first, count);
}

/* table: ACTION_TABLES sets of n actions, copied where the env reads them
   (io.actions, or io.box_actions for a box). */
static double run_once(rl__vecenv *v, const char *table, uint64_t steps)
{
    bench_ctx b = {v};
    uint64_t iters = steps / v->n + 1;
    size_t bytes = (size_t)v->n * v->space.action_bytes;
    void *dst = v->env_split ? v->env_split : v->env_actions ? v->env_actions : v->actions;
    double t0 = rl_now();
    for (uint64_t k = 0; k < iters; k++) {
        memcpy(dst, table + (size_t)(k % ACTION_TABLES) * bytes, bytes);
        rl__pool_run(v->pool, step_range, &b, v->boards);
    }
    return (double)(iters * v->n) / (rl_now() - t0);
}

int rl__bench_env(const rl__registry *reg, const char *name, const rl__override *ov, size_t n_ov, uint64_t steps,
                  int repeat, int json)
{
    char text[512];
    snprintf(text, sizeof text, "env: { plugin = \"%s\"; num_envs = 1024; };", name);
    rl__config c;
    rl__sbuf errors = {0};
    if (rl__config_load_text(&c, "bench env", text, ov, n_ov, reg, &errors, 0) != RL_OK) {
        fprintf(stderr, "%s", errors.data ? errors.data : "rlhost: out of memory\n");
        rl__sbuf_free(&errors);
        return 2;
    }
    rl__sbuf_free(&errors);
    uint32_t n = (uint32_t)c.env_host.vals[RL__ENV_NUM_ENVS].i;
    uint32_t cores = rl__host_api()->cpu_count();
    uint32_t counts[2] = {1, cores};
    int n_counts = cores > 1 ? 2 : 1;
    rl__vecenv v[2];
    memset(v, 0, sizeof v);
    int rc = 0;
    char err[RL_ERR_MAX];
    char *table = NULL;
    for (int k = 0; k < n_counts; k++) {
        if (rl__vecenv_create(&v[k], c.env->desc, c.env_opts.vals, c.env_stages.vals, n, 1, counts[k], 1, err,
                              sizeof err) != RL_OK) {
            fprintf(stderr, "rlhost: %s\n", err);
            rc = 1;
            goto out;
        }
        rl__vecenv_reset(&v[k]);
    }
    uint32_t rows = v[0].n, agents = v[0].agents; /* one action per agent */
    const rl__space *sp = &v[0].space;
    table = malloc((size_t)ACTION_TABLES * rows * sp->action_bytes);
    if (!table) {
        rc = 1;
        goto out;
    }
    rl_rng rng; /* uniform actions: each component's choices, each box value in [low, high] */
    rl_rng_seed(&rng, 1, 0);
    for (size_t i = 0; i < (size_t)ACTION_TABLES * rows; i++) {
        unsigned char *row = (unsigned char *)table + i * sp->action_bytes;
        for (uint32_t d = 0; d < sp->ints; d++) {
            int32_t a = (int32_t)rl_rng_below(&rng, sp->kind == RL_SPACE_DISCRETE ? sp->n : sp->nvec[d]);
            memcpy(row + 4 * d, &a, 4);
        }
        for (uint32_t d = 0; d < sp->floats; d++) {
            float x = sp->low[d] + (sp->high[d] - sp->low[d]) * (float)rl_rng_uniform(&rng);
            memcpy(row + 4 * (sp->ints + d), &x, 4);
        }
    }
    if (sp->kind == RL_SPACE_HYBRID) /* each table as the env reads it: ints, then floats */
        for (int t = 0; t < ACTION_TABLES; t++) {
            char *at = table + (size_t)t * rows * sp->action_bytes;
            rl__space_split(sp, at, rows, v[0].env_split, (float *)v[0].env_split + (size_t)rows * sp->ints);
            memcpy(at, v[0].env_split, rows * sp->action_bytes);
        }
    double sps[2][64];
    if (repeat > 64) repeat = 64;
    for (int r = 0; r < repeat; r++)
        for (int k = 0; k < n_counts; k++) sps[k][r] = run_once(&v[k], table, steps);
    if (!json)
        printf("rlhost bench env %s: %u envs x %u agent%s, obs %u x %s, %d repeats of %llu agent steps\n", name, n,
               agents, agents == 1 ? "" : "s", v[0].info.obs_size,
               v[0].info.obs_dtype == RL_DTYPE_U8 ? "uint8" : "float32", repeat, (unsigned long long)steps);
    for (int k = 0; k < n_counts; k++) {
        double med = rl__median(sps[k], repeat); /* sorts: [0] min, [repeat-1] max */
        uint32_t t = rl__pool_threads(v[k].pool);
        if (json) {
            rl__sbuf o = {0};
            rl__sbuf_puts(&o, "{");
            rl__json_str(&o, "bench", "env");
            rl__json_str(&o, "env", name);
            rl__json_u64(&o, "num_envs", n);
            rl__json_u64(&o, "agents", agents);
            rl__json_u64(&o, "threads", t);
            rl__json_num(&o, "steps_per_s", med);
            rl__json_num(&o, "steps_per_s_per_thread", med / t);
            rl__json_num(&o, "min", sps[k][0]);
            rl__json_num(&o, "max", sps[k][repeat - 1]);
            rl__json_print(&o);
        } else {
            /* physics envs step thousands of times slower than the grid ones */
            double u = med < 1e6 ? 1e-3 : 1e-6;
            const char *un = med < 1e6 ? "k" : "M";
            printf("  threads %u: %7.2f %s agent steps/s (%.2f %s per thread; min %.2f, max %.2f)\n", t, med * u, un,
                   med * u / t, un, sps[k][0] * u, sps[k][repeat - 1] * u);
        }
    }
out:
    free(table);
    for (int k = 0; k < 2; k++) rl__vecenv_destroy(&v[k]);
    rl__config_destroy(&c);
    return rc;
}
