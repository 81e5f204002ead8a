/* `rlhost bench CONFIG`: each optimization stage off and on, measured.
 *
 * For every stage (those that promise unchanged results, unless --stage
 * names others) the config's training runs for --steps steps with the stage
 * off and on, interleaved (off, on, off, on, ...) --repeat times, quietly,
 * without evaluation, into a scratch directory.  Reported per stage: median
 * steps/s off and on, the median of the per-pair ratios with its min and
 * max, and the share of wall time in env stepping, action selection,
 * observe+update and the rest.
 *
 * "Off" and "on": a bool is false/true; a thread count is 1 against the
 * config's value (or "auto" when the config says 1); another number is its
 * minimum against the config's value (or twice the minimum).
 *
 * --stage replicas (it changes results, so only when named) runs
 * run.replicas 1 against auto, with the final evaluation on, and prints
 * both runs' learning results and the update phase's speed-up beside the
 * whole run's.
 *
 * Then the arithmetic floor: the config runs as given with librlcore's
 * product ledger on (every matrix product counted by shape), and the
 * counted products are replayed through cblas_sgemm alone, with the run's
 * BLAS threads, interleaved with the runs.  Floor = the replay's time: what
 * sgemm needs for exactly the run's network arithmetic at the rate this CPU
 * reaches for those shapes; run / floor is the price of everything else. */
#define _GNU_SOURCE
#include <cblas.h>
#include <signal.h>
#include <stdio.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rlhost/nn.h>

#include "bench.h"
#include "parallel/cpu.h"
#include "../cli.h"
#include "run/run.h"
#include "run/rundir.h"
#include "plugin/schema.h"
#include "base/text.h"
#include "plugin/host_api.h"

#define MAX_STAGES 32
#define MAX_REPEAT 64

typedef struct stage {
    char key[128];
    char off[64], on[64];
} stage;

/* Off/on values of one stage; 0 when it has no sensible pair. */
static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double rl__median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

static int stage_pair(const rl_option_def *d, const rl_value *v, stage *st)
{
    rl__sbuf cur = {0};
    rl__value_format(d, v, &cur);
    const char *now = cur.data ? cur.data : "";
    int ok = 1;
    if (d->type == RL_OPT_BOOL) {
        snprintf(st->off, sizeof st->off, "false");
        snprintf(st->on, sizeof st->on, "true");
    } else if (d->type == RL_OPT_INT || d->type == RL_OPT_FLOAT) {
        double lo = d->min <= d->max ? d->min : 0;
        snprintf(st->off, sizeof st->off, "%g", lo);
        if (v->is_auto || (d->type == RL_OPT_INT ? (double)v->i : v->f) != lo)
            snprintf(st->on, sizeof st->on, "%s", now);
        else if (d->flags & RL_OPT_AUTO)
            snprintf(st->on, sizeof st->on, "auto");
        else
            snprintf(st->on, sizeof st->on, "%g", lo > 0 ? 2 * lo : 1);
    } else {
        ok = 0;
    }
    rl__sbuf_free(&cur);
    return ok;
}

static void collect(const rl__group *g, const char *prefix, const char *const *named, size_t n_named, stage *out,
                    int *n)
{
    for (uint32_t k = 0; k < g->n && *n < MAX_STAGES; k++) {
        const rl_option_def *d = &g->defs[k];
        char key[128];
        snprintf(key, sizeof key, "%s.optimizations.%s", prefix, d->name);
        int wanted = n_named == 0 ? !(d->flags & RL_OPT_CHANGES_RESULTS) : 0;
        for (size_t i = 0; i < n_named; i++)
            if (!strcmp(named[i], d->name) || !strcmp(named[i], key)) wanted = 1;
        if (!wanted) continue;
        stage *st = &out[*n];
        snprintf(st->key, sizeof st->key, "%s", key);
        if (stage_pair(d, &g->vals[k], st)) (*n)++;
    }
}

/* Smallest and largest of v[0..n). */
static void min_max(const double *v, int n, double *lo, double *hi)
{
    *lo = *hi = v[0];
    for (int i = 1; i < n; i++) {
        if (v[i] < *lo) *lo = v[i];
        if (v[i] > *hi) *hi = v[i];
    }
}

#define REPLICAS_KEY "run.replicas"

/* One quiet run of path with the user's overrides plus ours (evaluation
   off, except when measuring replicas: there learning is reported too). */
static int run_once(const rl__registry *reg, const char *path, const rl__override *ov, size_t n_ov, const char *key,
                    const char *value, uint64_t steps, const char *dir, rl__run_stats *stats)
{
    int keep_eval = key && !strcmp(key, REPLICAS_KEY);
    char steps_s[32];
    snprintf(steps_s, sizeof steps_s, "%llu", (unsigned long long)steps);
    rl__override all[300];
    size_t n = 0;
    for (size_t i = 0; i < n_ov && n < 290; i++) all[n++] = ov[i];
    all[n++] = (rl__override){"run.quiet", "true"};
    all[n++] = (rl__override){"run.steps", steps_s};
    if (!keep_eval) all[n++] = (rl__override){"run.eval_episodes", "0"};
    all[n++] = (rl__override){"run.eval_interval", "0"};
    all[n++] = (rl__override){"run.out_dir", dir};
    if (key) all[n++] = (rl__override){key, value};
    rl__config c;
    rl__sbuf errors = {0};
    int rc = rl__config_load(&c, path, all, n, reg, &errors);
    if (rc != RL_OK) {
        fprintf(stderr, "%s", errors.data ? errors.data : "rlhost: out of memory\n");
        rl__sbuf_free(&errors);
        return 2;
    }
    rl__sbuf_free(&errors);
    memset(stats, 0, sizeof *stats);
    rl__run_opts o = {.force = 1, .silent = 1};
    rc = rl__exit_code(rl__run(&c, &o, stats));
    rl__config_destroy(&c);
    return rc;
}

/* n processes that only spin, at normal priority, until busy_stop (or this
   process's death) ends them.  Returns how many started. */
static int busy_start(int n, pid_t *pids)
{
    int started = 0;
    fflush(stdout);
    fflush(stderr);
    for (; started < n; started++) {
        pid_t pid = fork();
        if (pid < 0) break;
        if (pid == 0) {
            prctl(PR_SET_PDEATHSIG, SIGKILL);
            for (volatile unsigned long x = 0;; x++) {
            }
        }
        pids[started] = pid;
    }
    return started;
}

static void busy_stop(const pid_t *pids, int n)
{
    for (int k = 0; k < n; k++) kill(pids[k], SIGKILL);
    for (int k = 0; k < n; k++) waitpid(pids[k], NULL, 0);
}

static void remove_outputs(const char *dir)
{
    size_t n;
    const char *const *files = rl__rundir_files(&n);
    char p[4200];
    for (size_t i = 0; i < n; i++) {
        snprintf(p, sizeof p, "%s/%s", dir, files[i]);
        unlink(p);
    }
    rmdir(dir);
}

/* Replays the ledger's products through cblas alone; seconds, or < 0 when
   out of memory. */
static double replay_ledger(void)
{
    const rl_gemm_shape *sh;
    size_t n = rl_ledger_shapes(&sh, NULL), na = 1, nb = 1, nc = 1;
    for (size_t i = 0; i < n; i++) {
        size_t a = (size_t)sh[i].m * sh[i].k, b = (size_t)sh[i].k * sh[i].n, c = (size_t)sh[i].m * sh[i].n;
        if (a > na) na = a;
        if (b > nb) nb = b;
        if (c > nc) nc = c;
    }
    float *a = rl_calloc_aligned(na, sizeof(float)), *b = rl_calloc_aligned(nb, sizeof(float)),
          *c = rl_calloc_aligned(nc, sizeof(float));
    double t = -1;
    if (a && b && c) {
        for (size_t i = 0; i < na; i++) a[i] = (float)(i % 7) * 0.01f;
        for (size_t i = 0; i < nb; i++) b[i] = (float)(i % 5) * 0.01f;
        double t0 = rl_now();
        for (size_t i = 0; i < n; i++) {
            const rl_gemm_shape *s = &sh[i];
            int m = (int)s->m, nn = (int)s->n, k = (int)s->k;
            int lda = s->trans_a ? m : k, ldb = s->trans_b ? k : nn;
            for (uint64_t r = 0; r < s->count; r++) {
                if (m == 1) /* the library uses gemv for one row */
                    cblas_sgemv(CblasRowMajor, CblasNoTrans, nn, k, 1.0f, b, k, a, 1, 1.0f, c, 1);
                else
                    cblas_sgemm(CblasRowMajor, s->trans_a ? CblasTrans : CblasNoTrans,
                                s->trans_b ? CblasTrans : CblasNoTrans, m, nn, k, 1.0f, a, lda, b, ldb, 1.0f, c, nn);
            }
        }
        t = rl_now() - t0;
    }
    rl_free(a);
    rl_free(b);
    rl_free(c);
    return t;
}

/* The arithmetic floor of path (see the top of this file). */
static int bench_floor(const rl__registry *reg, const char *path, const rl__override *ov, size_t n_ov, uint64_t steps,
                       int repeat, const char *dir, int json)
{
    double run_s[MAX_REPEAT], floor_s[MAX_REPEAT], ratio[MAX_REPEAT], flops = 0;
    int threads = 1;
    uint64_t dropped = 0;
    for (int r = 0; r < repeat; r++) {
        rl__run_stats stt;
        rl_ledger_start();
        int rc = run_once(reg, path, ov, n_ov, NULL, NULL, steps, dir, &stt);
        rl_ledger_stop();
        if (rc) return rc;
        threads = rl_blas_get_threads();
        flops = rl_ledger_flops();
        rl_ledger_shapes(NULL, &dropped);
        run_s[r] = stt.wall_s;
        floor_s[r] = replay_ledger();
        rl_blas_set_threads(1);
        if (floor_s[r] < 0) {
            fprintf(stderr, "rlhost: bench: out of memory replaying the products\n");
            return 1;
        }
        ratio[r] = run_s[r] / (floor_s[r] > 0 ? floor_s[r] : 1e-9);
    }
    double rmin, rmax;
    min_max(ratio, repeat, &rmin, &rmax);
    double run = rl__median(run_s, repeat), fl = rl__median(floor_s, repeat), rat = rl__median(ratio, repeat);
    if (json) {
        rl__sbuf o = {0};
        rl__sbuf_puts(&o, "{");
        rl__json_str(&o, "bench", "floor");
        rl__json_str(&o, "config", path);
        rl__json_u64(&o, "steps", steps);
        rl__json_u64(&o, "repeat", (unsigned)repeat);
        rl__json_num(&o, "run_s", run);
        rl__json_num(&o, "floor_s", fl);
        rl__json_num(&o, "gflop", flops / 1e9);
        rl__json_num(&o, "floor_gflops", flops / 1e9 / fl);
        rl__json_num(&o, "run_gflops", flops / 1e9 / run);
        rl__json_num(&o, "ratio", rat);
        rl__json_num(&o, "ratio_min", rmin);
        rl__json_num(&o, "ratio_max", rmax);
        rl__json_u64(&o, "blas_threads", (unsigned)threads);
        rl__json_u64(&o, "shapes_dropped", dropped);
        rl__json_print(&o);
    } else {
        printf("\narithmetic floor: the run's matrix products, %.1f GFLOP, in cblas_sgemm alone "
               "(%d BLAS thread%s)\n"
               "  run %.3f s (%.1f GFLOP/s), floor %.3f s (%.1f GFLOP/s): run/floor %.2fx "
               "(%.2f-%.2f)%s\n",
               flops / 1e9, threads, threads == 1 ? "" : "s", run, flops / 1e9 / run, fl, flops / 1e9 / fl, rat, rmin,
               rmax, dropped ? " (some shapes not counted: floor too low)" : "");
    }
    fflush(stdout);
    return 0;
}

/* The stages to measure: those named (or all), plus the replicas when
   named; *want_floor when the floor is asked for (or nothing is named).
   Returns how many, or -1 when the config does not load. */
static int plan_stages(const rl__registry *reg, const char *path, const rl__override *ov, size_t n_ov,
                       const char *const *named, size_t n_named, uint64_t *steps, stage *st, int *want_floor,
                       char *env_name, char *algo_name, size_t name_len)
{
    rl__config c;
    rl__sbuf errors = {0};
    if (rl__config_load(&c, path, ov, n_ov, reg, &errors) != RL_OK) {
        fprintf(stderr, "%s", errors.data ? errors.data : "rlhost: out of memory\n");
        rl__sbuf_free(&errors);
        return -1;
    }
    rl__sbuf_free(&errors);
    if (!*steps) {
        *steps = (uint64_t)c.run.vals[RL__RUN_STEPS].i;
        if (*steps > 100000) *steps = 100000;
    }
    int n = 0;
    *want_floor = n_named == 0;
    for (size_t i = 0; i < n_named; i++)
        if (!strcmp(named[i], "floor")) *want_floor = 1;
    collect(&c.env_host_stages, "env", named, n_named, st, &n);
    collect(&c.env_stages, "env", named, n_named, st, &n);
    collect(&c.algo_stages, "algo", named, n_named, st, &n);
    for (size_t i = 0; i < n_named && n < MAX_STAGES; i++) { /* KEY=VALUE: any key, the config's value -> VALUE */
        const char *eq = strchr(named[i], '=');
        const rl_value *v;
        const rl_option_def *d;
        if (!eq || (size_t)(eq - named[i]) >= sizeof st[n].key) continue;
        stage *x = &st[n];
        snprintf(x->key, sizeof x->key, "%.*s", (int)(eq - named[i]), named[i]);
        if (!(d = rl__config_find(&c, x->key, &v))) {
            fprintf(stderr, "rlhost: --stage %s: the config has no key '%s'\n", named[i], x->key);
            rl__config_destroy(&c);
            return -1;
        }
        rl__sbuf cur = {0};
        rl__value_format(d, v, &cur);
        snprintf(x->off, sizeof x->off, "%s", cur.data ? cur.data : "");
        snprintf(x->on, sizeof x->on, "%s", eq + 1);
        rl__sbuf_free(&cur);
        n++;
    }
    for (size_t i = 0; i < n_named && n < MAX_STAGES; i++)
        if (!strcmp(named[i], "replicas") || !strcmp(named[i], REPLICAS_KEY)) {
            const char *on = "auto"; /* or the R the user set */
            for (size_t k = 0; k < n_ov; k++)
                if (!strcmp(ov[k].key, REPLICAS_KEY) && strcmp(ov[k].value, "1")) on = ov[k].value;
            stage *r = &st[n++];
            snprintf(r->key, sizeof r->key, "%s", REPLICAS_KEY);
            snprintf(r->off, sizeof r->off, "1");
            snprintf(r->on, sizeof r->on, "%s", on);
            break;
        }
    snprintf(env_name, name_len, "%s", c.env->desc->name);
    snprintf(algo_name, name_len, "%s", c.algo->desc->name);
    rl__config_destroy(&c);
    return n;
}

/* What `repeat` interleaved off/on pairs of one stage measured. */
typedef struct stage_result {
    double sps[2][MAX_REPEAT], ratio[MAX_REPEAT], share[2][4], upd[2][MAX_REPEAT];
    double ret[2], score[2];
    uint32_t reps_on;
    const char *score_name;
    int evaluated;
} stage_result;

static int measure_stage(const rl__registry *reg, const char *path, const rl__override *ov, size_t n_ov,
                         const stage *st, uint64_t steps, int repeat, const char *dir, stage_result *m)
{
    memset(m, 0, sizeof *m);
    m->reps_on = 1;
    m->evaluated = 1;
    for (int r = 0; r < repeat; r++) {
        for (int on = 0; on < 2; on++) {
            rl__run_stats stt;
            int rc = run_once(reg, path, ov, n_ov, st->key, on ? st->on : st->off, steps, dir, &stt);
            if (rc) return rc;
            double w = stt.wall_s > 0 ? stt.wall_s : 1e-9;
            m->sps[on][r] = (double)stt.steps / w;
            m->share[on][0] += stt.env_s / w / repeat;
            m->share[on][1] += stt.act_s / w / repeat;
            m->share[on][2] += stt.update_s / w / repeat;
            m->share[on][3] += (w - stt.env_s - stt.act_s - stt.update_s) / w / repeat;
            m->upd[on][r] = stt.update_s > 0 ? stt.update_s : 1e-9;
            m->ret[on] += stt.eval_return / repeat;
            m->score[on] += stt.eval_score / repeat;
            m->evaluated &= stt.evaluated;
            if (on) m->reps_on = stt.replicas;
            m->score_name = stt.score_name;
        }
        m->ratio[r] = m->sps[1][r] / m->sps[0][r];
    }
    return 0;
}

static void print_stage(const char *path, const stage *st, stage_result *m, uint64_t steps, int repeat, int json)
{
    double rmin, rmax;
    min_max(m->ratio, repeat, &rmin, &rmax);
    double off = rl__median(m->sps[0], repeat), on = rl__median(m->sps[1], repeat), rat = rl__median(m->ratio, repeat);
    const double(*sh)[4] = (const double(*)[4])m->share;
    if (json) {
        rl__sbuf o = {0};
        rl__sbuf_puts(&o, "{");
        rl__json_str(&o, "bench", "stage");
        rl__json_str(&o, "config", path);
        rl__json_str(&o, "stage", st->key);
        rl__json_str(&o, "off", st->off);
        rl__json_str(&o, "on", st->on);
        rl__json_u64(&o, "steps", steps);
        rl__json_u64(&o, "repeat", (unsigned)repeat);
        rl__json_num(&o, "off_sps", off);
        rl__json_num(&o, "on_sps", on);
        rl__json_num(&o, "ratio", rat);
        rl__json_num(&o, "ratio_min", rmin);
        rl__json_num(&o, "ratio_max", rmax);
        for (int k = 0; k < 2; k++) {
            char share[128];
            snprintf(share, sizeof share, "[%.3f, %.3f, %.3f, %.3f]", sh[k][0], sh[k][1], sh[k][2], sh[k][3]);
            rl__json_raw(&o, k ? "on_share" : "off_share", share);
        }
        rl__json_print(&o);
    } else {
        char label[160];
        snprintf(label, sizeof label, "%s (%s -> %s)", strrchr(st->key, '.') + 1, st->off, st->on);
        printf("%-36s %12.0f %12.0f %7.2fx %7.2f-%-7.2f   %2.0f/%2.0f/%2.0f/%2.0f%% | %2.0f/%2.0f/%2.0f/%2.0f%%\n",
               label, off, on, rat, rmin, rmax, 100 * sh[0][0], 100 * sh[0][1], 100 * sh[0][2], 100 * sh[0][3],
               100 * sh[1][0], 100 * sh[1][1], 100 * sh[1][2], 100 * sh[1][3]);
    }
    if (strcmp(st->key, REPLICAS_KEY) != 0) return;
    double ur[MAX_REPEAT];
    for (int r = 0; r < repeat; r++) ur[r] = m->upd[0][r] / m->upd[1][r];
    double umin, umax;
    min_max(ur, repeat, &umin, &umax);
    double um = rl__median(ur, repeat);
    if (json) {
        rl__sbuf o = {0};
        rl__sbuf_puts(&o, "{");
        rl__json_str(&o, "bench", "replicas");
        rl__json_str(&o, "config", path);
        rl__json_u64(&o, "replicas", m->reps_on);
        rl__json_num(&o, "update_ratio", um);
        rl__json_num(&o, "update_ratio_min", umin);
        rl__json_num(&o, "update_ratio_max", umax);
        rl__json_raw(&o, "evaluated", m->evaluated ? "true" : "false");
        rl__json_num(&o, "off_return", m->ret[0]);
        rl__json_num(&o, "on_return", m->ret[1]);
        rl__json_num(&o, "off_score", m->score[0]);
        rl__json_num(&o, "on_score", m->score[1]);
        rl__json_print(&o);
        return;
    }
    printf("  replicas 1 -> %u: update phase %.2fx (%.2f-%.2f); final evaluation (mean of %d) "
           "return %.4g -> %.4g",
           m->reps_on, um, umin, umax, repeat, m->ret[0], m->ret[1]);
    if (m->score_name) printf(", %s %.4g -> %.4g", m->score_name, m->score[0], m->score[1]);
    printf("%s\n", m->evaluated ? "" : " (no evaluation: run.eval_episodes = 0)");
}

int rl__bench_config(const rl__registry *reg, const char *path, const rl__override *ov, size_t n_ov,
                     const char *const *named, size_t n_named, uint64_t steps, int repeat, int busy, int json)
{
    stage st[MAX_STAGES];
    int want_floor;
    char env_name[64], algo_name[64];
    int n =
        plan_stages(reg, path, ov, n_ov, named, n_named, &steps, st, &want_floor, env_name, algo_name, sizeof env_name);
    if (n < 0) return 2;
    if (n == 0 && !want_floor) {
        fprintf(stderr, "rlhost: bench: no stages to measure%s\n",
                n_named ? " (check the --stage names with rlhost info)" : "");
        return 2;
    }
    char dir[] = "/tmp/rlhost-bench-XXXXXX";
    if (!mkdtemp(dir)) {
        perror("rlhost: bench: scratch directory");
        return 1;
    }
    if (repeat < 1) repeat = 3;
    if (repeat > MAX_REPEAT) repeat = MAX_REPEAT;
    if (!json) {
        printf("rlhost bench %s: %s on %s, %llu steps per run, %d interleaved repeats\n"
               "BLAS %s; %u cores\n",
               path, algo_name, env_name, (unsigned long long)steps, repeat, rl__blas_choice(),
               rl__host_api()->cpu_count());
        if (n)
            printf("\n%-36s %12s %12s %8s %15s   %s\n", "stage (off -> on)", "off steps/s", "on steps/s", "on/off",
                   "min-max", "time share env/act/update/other (off | on)");
    }
    pid_t busy_pids[64];
    int n_busy = busy_start(busy, busy_pids);
    if (!json && n_busy) printf("%d busy process%s for the cores\n", n_busy, n_busy == 1 ? " competes" : "es compete");
    int rc = 0;
    for (int s = 0; s < n && rc == 0; s++) {
        stage_result m;
        if ((rc = measure_stage(reg, path, ov, n_ov, &st[s], steps, repeat, dir, &m)) != 0) break;
        print_stage(path, &st[s], &m, steps, repeat, json);
        fflush(stdout);
    }
    if (rc == 0 && want_floor) rc = bench_floor(reg, path, ov, n_ov, steps, repeat, dir, json);
    busy_stop(busy_pids, n_busy);
    remove_outputs(dir);
    return rc;
}
