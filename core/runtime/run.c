/* The training loop; see run.h and DESIGN.md "One step of rlhost run".
 *
 * Per vector step: algo.act on the current observations -> env step over
 * worker-thread ranges -> algo.observe(transition) -> algo.update.  The host
 * tracks episodes, writes a metrics row every log_interval, evaluates
 * greedily at eval_interval and at the end, and writes its outputs
 * atomically.  SIGINT/SIGTERM end the loop after the current step. */
#define _GNU_SOURCE
#include "run.h"

#include <math.h>
#include <stddef.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include <rlhost/rlcore.h>

#include "checkpoint.h"
#include "restore.h"
#include "cpu.h"
#include "eval.h"
#include "loader.h"
#include "output.h"
#include "replicas.h"
#include "rundir.h"
#include "tbevents.h"
#include "vecenv.h"
#include "world.h"

#define MAX_ALGO_METRICS 32

static volatile sig_atomic_t g_stop_signal;

static void on_signal(int sig)
{
    g_stop_signal = sig;
    signal(sig, SIG_DFL); /* a second Ctrl-C kills at once */
}

typedef rl__eval_result eval_result;

typedef struct run_state {
    const rl__config *c;
    const rl_algo_vtable *avt;
    rl__replicas reps;
    void *algo; /* reps.algo[0]: evaluates, reports metrics */
    char replicas_reason[160];
    const rl_algo_eval_ext *eval_ext; /* optional, NULL when absent */
    const rl_algo_state_ext *state_ext; /* optional, NULL when absent */
    rl__vecenv train, eval;
    int have_eval;
    uint64_t steps, target, start_steps; /* start_steps: where a resumed run began */
    char out_dir[4096];
    int quiet, tty;
    double t_start, t_act, t_env, t_update;
    /* metrics */
    rl__sbuf csv, evals; /* metrics.csv, evals.csv */
    double epoch_start; /* the run's start, seconds since the epoch (TensorBoard) */
    rl_metric last_metrics[MAX_ALGO_METRICS]; /* the last row's, for auto stages */
    size_t n_last_metrics;
    const char *algo_cols[MAX_ALGO_METRICS];
    size_t n_algo_cols;
    int header_done;
    double last_log_wall, last_log_cpu, last_csv_write, last_progress;
    uint64_t last_log_step;
    double last_t_act, last_t_env, last_t_update;
    eval_result last_eval;
    int pending_eval;
    int envs_restored; /* a resume restored the envs exactly: no reset */
    int agreed;        /* an MPI job's ranks have agreed to start */
    int writer;        /* writes the run directory: rank 0 of an MPI job */
    int stop;          /* an MPI job's agreed stop (see rl__replicas_act) */
    char err[RL_ERR_MAX];
} run_state;

static double cpu_seconds(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (double)ru.ru_utime.tv_sec + 1e-6 * (double)ru.ru_utime.tv_usec +
           (double)ru.ru_stime.tv_sec + 1e-6 * (double)ru.ru_stime.tv_usec;
}

static const rl_value *val(const rl__group *g, int i)
{
    return &g->vals[i];
}

/* ---- evaluation ----------------------------------------------------------*/

/* Periodic evaluations run to the end even when a signal arrives (they are
   short), so a checkpoint never sees an eval env advanced halfway; the
   final one may be cut short. */
static int evaluate(run_state *rs, uint32_t episodes, eval_result *out, int interruptible)
{
    /* In an MPI job rank 0 evaluates (its replica 0 is the job's) and tells
       the others the result, which the algorithms' callbacks may use. */
    struct {
        int rc;
        eval_result r;
    } msg;
    memset(&msg, 0, sizeof msg);
    if (rs->writer)
        msg.rc = rl__evaluate(&rs->eval, rs->avt, rs->algo, rs->c->algo->desc->name, episodes,
                              interruptible ? &g_stop_signal : NULL, NULL, &msg.r, rs->err, sizeof rs->err);
    rl__world_bcast(&msg, sizeof msg, 0);
    *out = msg.r;
    if (!rs->writer && msg.rc != RL_OK && msg.rc != RL_EINTR)
        snprintf(rs->err, sizeof rs->err, "evaluation failed on rank 0");
    return msg.rc;
}

/* ---- metrics -------------------------------------------------------------*/

/* A number as pandas reads it: NaN as nan, infinities as inf / -inf. */
static void csv_num(rl__sbuf *b, double v)
{
    if (isnan(v)) rl__sbuf_puts(b, ",nan");
    else if (isinf(v)) rl__sbuf_puts(b, v > 0 ? ",inf" : ",-inf");
    else rl__sbuf_printf(b, ",%.7g", v);
}

/* evals.csv: a row for every evaluation, periodic or final. */
static void log_eval(run_state *rs, const eval_result *ev, int final)
{
    if (!rs->writer || !ev->done) return;
    int has_score = rs->train.info.score_name != NULL;
    if (!rs->evals.len)
        rl__sbuf_printf(&rs->evals, "step,wall_s,final,episodes,return_mean,return_std,return_min,"
                                    "return_max,length_mean%s\n", has_score ? ",score_mean" : "");
    rl__sbuf_printf(&rs->evals, "%llu", (unsigned long long)rs->steps);
    csv_num(&rs->evals, rl_now() - rs->t_start);
    rl__sbuf_printf(&rs->evals, ",%d,%u", final, ev->episodes);
    csv_num(&rs->evals, ev->return_mean);
    csv_num(&rs->evals, ev->return_std);
    csv_num(&rs->evals, ev->return_min);
    csv_num(&rs->evals, ev->return_max);
    csv_num(&rs->evals, ev->length_mean);
    if (has_score) csv_num(&rs->evals, ev->score_mean);
    rl__sbuf_puts(&rs->evals, "\n");
}

static int write_metrics(run_state *rs, int sync)
{
    if (!rs->writer) return RL_OK;
    char path[4200];
    snprintf(path, sizeof path, "%s/metrics.csv", rs->out_dir);
    if (rs->csv.oom || rs->evals.oom) {
        snprintf(rs->err, sizeof rs->err, "out of memory for metrics");
        return RL_ENOMEM;
    }
    rs->last_csv_write = rl_now();
    int rc = rl__write_atomic(path, NULL, rs->csv.data ? rs->csv.data : "", rs->csv.len, sync, rs->err,
                              sizeof rs->err);
    if (rc == RL_OK && rs->evals.len) {
        snprintf(path, sizeof path, "%s/evals.csv", rs->out_dir);
        rc = rl__write_atomic(path, NULL, rs->evals.data, rs->evals.len, sync, rs->err, sizeof rs->err);
    }
    if (rc == RL_OK && val(&rs->c->run, RL__RUN_TENSORBOARD)->i) { /* the same rows, for TensorBoard */
        rl__sbuf tb = {0};
        rl__tb_from_csv(&tb, rs->csv.data ? rs->csv.data : "", rs->csv.len, "train", rs->epoch_start);
        rl__tb_from_csv(&tb, rs->evals.data ? rs->evals.data : "", rs->evals.len, "eval", rs->epoch_start);
        snprintf(path, sizeof path, "%s/%s", rs->out_dir, RL__TB_FILE);
        rc = tb.oom ? RL_ENOMEM : rl__write_atomic(path, NULL, tb.data, tb.len, sync, rs->err, sizeof rs->err);
        if (tb.oom) snprintf(rs->err, sizeof rs->err, "out of memory for the TensorBoard events");
        rl__sbuf_free(&tb);
    }
    return rc;
}

static void log_row(run_state *rs)
{
    if (!rs->writer) return; /* metrics() resets the algorithm's sums: replica 0's alone */
    const rl__config *c = rs->c;
    double now = rl_now(), cpu = cpu_seconds();
    double wall = now - rs->t_start;
    double dt = now - rs->last_log_wall;
    double sps = dt > 0 ? (double)(rs->steps - rs->last_log_step) / dt : 0;
    uint32_t cores = rl__host_api()->cpu_count();
    double cpu_util = dt > 0 ? (cpu - rs->last_log_cpu) / dt / cores : 0;
    double act = rs->t_act - rs->last_t_act, env = rs->t_env - rs->last_t_env,
           upd = rs->t_update - rs->last_t_update;
    int has_score = rs->train.info.score_name != NULL;

    rl_metric m[MAX_ALGO_METRICS];
    size_t nm = rs->avt->metrics ? rs->avt->metrics(rs->algo, m, MAX_ALGO_METRICS) : 0;
    if (nm > MAX_ALGO_METRICS) nm = MAX_ALGO_METRICS;
    memcpy(rs->last_metrics, m, nm * sizeof *m);
    rs->n_last_metrics = nm;
    if (!rs->header_done) {
        rl__sbuf_puts(&rs->csv, "step,wall_s,sps,episodes,return_mean,length_mean");
        if (has_score) rl__sbuf_printf(&rs->csv, ",score_mean");
        rl__sbuf_puts(&rs->csv, ",cpu_util,env_frac,act_frac,update_frac");
        if (val(&c->run, RL__RUN_EVAL_INTERVAL)->i > 0) rl__sbuf_puts(&rs->csv, ",eval_return_mean");
        for (size_t k = 0; k < nm; k++) {
            rs->algo_cols[k] = m[k].name;
            rl__sbuf_printf(&rs->csv, ",%s", m[k].name);
        }
        rs->n_algo_cols = nm;
        rl__sbuf_puts(&rs->csv, "\n");
        rs->header_done = 1;
    } else if (rs->n_algo_cols == 0) { /* resumed: the header is there already */
        for (size_t k = 0; k < nm; k++) rs->algo_cols[k] = m[k].name;
        rs->n_algo_cols = nm;
    }
    rl__ep_stats *st = &rs->train.stats;
    rl__sbuf_printf(&rs->csv, "%llu", (unsigned long long)rs->steps);
    csv_num(&rs->csv, wall);
    csv_num(&rs->csv, sps);
    rl__sbuf_printf(&rs->csv, ",%llu", (unsigned long long)st->episodes);
    csv_num(&rs->csv, rl__ep_recent_mean(st, RL__EP_RETURN));
    csv_num(&rs->csv, rl__ep_recent_mean(st, RL__EP_LENGTH));
    if (has_score) csv_num(&rs->csv, rl__ep_recent_mean(st, RL__EP_SCORE));
    csv_num(&rs->csv, cpu_util);
    csv_num(&rs->csv, dt > 0 ? env / dt : NAN);
    csv_num(&rs->csv, dt > 0 ? act / dt : NAN);
    csv_num(&rs->csv, dt > 0 ? upd / dt : NAN);
    if (val(&c->run, RL__RUN_EVAL_INTERVAL)->i > 0) {
        csv_num(&rs->csv, rs->pending_eval ? rs->last_eval.return_mean : NAN);
        rs->pending_eval = 0;
    }
    for (size_t col = 0; col < rs->n_algo_cols; col++) {
        double v = NAN;
        for (size_t k = 0; k < nm; k++)
            if (strcmp(m[k].name, rs->algo_cols[col]) == 0) v = m[k].value;
        csv_num(&rs->csv, v);
    }
    rl__sbuf_puts(&rs->csv, "\n");

    if (!rs->quiet && !rs->tty) {
        fprintf(stderr, "step %llu/%llu  %.0f sps  cpu %.0f%%  env/act/update %.0f/%.0f/%.0f%%  "
                        "episodes %llu  return %.3g",
                (unsigned long long)rs->steps, (unsigned long long)rs->target, sps,
                100 * cpu_util, dt > 0 ? 100 * env / dt : 0, dt > 0 ? 100 * act / dt : 0,
                dt > 0 ? 100 * upd / dt : 0, (unsigned long long)st->episodes,
                rl__ep_recent_mean(st, RL__EP_RETURN));
        if (has_score)
            fprintf(stderr, "  %s %.3g", rs->train.info.score_name, rl__ep_recent_mean(st, RL__EP_SCORE));
        for (size_t k = 0; k < nm; k++) fprintf(stderr, "  %s %.4g", m[k].name, m[k].value);
        fprintf(stderr, "\n");
    }
    rl__ep_interval_reset(st);
    rs->last_log_wall = now;
    rs->last_log_cpu = cpu;
    rs->last_log_step = rs->steps;
    rs->last_t_act = rs->t_act;
    rs->last_t_env = rs->t_env;
    rs->last_t_update = rs->t_update;
}

static void progress_line(run_state *rs, double now)
{
    double wall = now - rs->t_start;
    double sps = wall > 0 ? (rs->steps - rs->start_steps) / wall : 0;
    double eta = sps > 0 ? (double)(rs->target - rs->steps) / sps : 0;
    const rl__ep_stats *st = &rs->train.stats;
    double busy = rs->t_env + rs->t_act + rs->t_update;
    fprintf(stderr, "\r  %llu/%llu  %5.1f%%  %.0f steps/s  ETA %d:%02d  return %.4g  "
                    "env/act/update %.0f/%.0f/%.0f%%",
            (unsigned long long)rs->steps, (unsigned long long)rs->target,
            100.0 * (double)rs->steps / (double)rs->target, sps, (int)(eta / 60),
            (int)fmod(eta, 60), rl__ep_recent_mean(st, RL__EP_RETURN), busy > 0 ? 100 * rs->t_env / busy : 0,
            busy > 0 ? 100 * rs->t_act / busy : 0, busy > 0 ? 100 * rs->t_update / busy : 0);
    if (rs->train.info.score_name)
        fprintf(stderr, "  %s %.3g", rs->train.info.score_name, rl__ep_recent_mean(st, RL__EP_SCORE));
    fprintf(stderr, "\x1b[K");
    fflush(stderr);
    rs->last_progress = now;
}

/* ---- summary -------------------------------------------------------------*/

/* A float stage set to auto is recorded as the plugin resolved it, when
   the plugin reports a metric of the stage's name; else as "auto". */
static void json_stage_group(rl__sbuf *b, const rl__group *g, const char *prefix, int *first,
                             const rl_metric *m, size_t nm)
{
    for (uint32_t k = 0; k < g->n; k++) {
        rl__sbuf_printf(b, "%s\n    \"%s.%s\": ", *first ? "" : ",", prefix, g->defs[k].name);
        *first = 0;
        const rl_value *v = &g->vals[k];
        switch (g->defs[k].type) {
        case RL_OPT_BOOL:
            rl__sbuf_puts(b, v->i ? "true" : "false");
            break;
        case RL_OPT_INT:
            if (v->is_auto)
                rl__sbuf_puts(b, "\"auto\"");
            else
                rl__sbuf_printf(b, "%lld", (long long)v->i);
            break;
        case RL_OPT_FLOAT: {
            const rl_metric *r = NULL;
            for (size_t j = 0; v->is_auto && j < nm; j++)
                if (!strcmp(m[j].name, g->defs[k].name)) r = &m[j];
            if (!v->is_auto) rl__sbuf_double(b, v->f, 1);
            else if (r) rl__sbuf_double(b, r->value, 1);
            else rl__sbuf_puts(b, "\"auto\"");
            break;
        }
        default: {
            rl__sbuf tmp = {0};
            rl__value_format(&g->defs[k], v, &tmp);
            rl__sbuf_json_str(b, tmp.data ? tmp.data : "");
            rl__sbuf_free(&tmp);
        }
        }
    }
}

static int write_summary(run_state *rs, const eval_result *ev, const char *status)
{
    if (!rs->writer) return RL_OK;
    const rl__config *c = rs->c;
    double wall = rl_now() - rs->t_start;
    rl__sbuf b = {0};
    rl__sbuf_puts(&b, "{\n  \"env\": ");
    rl__sbuf_json_str(&b, c->env->desc->name);
    rl__sbuf_puts(&b, ",\n  \"env_version\": ");
    rl__sbuf_json_str(&b, c->env->desc->version);
    rl__sbuf_puts(&b, ",\n  \"algo\": ");
    rl__sbuf_json_str(&b, c->algo->desc->name);
    rl__sbuf_puts(&b, ",\n  \"algo_version\": ");
    rl__sbuf_json_str(&b, c->algo->desc->version);
    rl__sbuf_printf(&b, ",\n  \"rlhost_version\": \"%s\",\n  \"abi\": \"%d.%d\"", RLHOST_VERSION,
                    RL_ABI_MAJOR, RL_ABI_MINOR);
    rl__sbuf_puts(&b, ",\n  \"status\": ");
    rl__sbuf_json_str(&b, status);
    rl__sbuf_printf(&b, ",\n  \"seed\": %lld", (long long)val(&c->run, RL__RUN_SEED)->i);
    rl__sbuf_printf(&b, ",\n  \"steps\": %llu,\n  \"target_steps\": %llu",
                    (unsigned long long)rs->steps, (unsigned long long)rs->target);
    rl__sbuf_puts(&b, ",\n  \"wall_s\": ");
    rl__sbuf_double(&b, wall, 1);
    rl__sbuf_puts(&b, ",\n  \"sps\": ");
    rl__sbuf_double(&b, wall > 0 ? (rs->steps - rs->start_steps) / wall : 0, 1);
    rl__sbuf_printf(&b, ",\n  \"train_episodes\": %llu", (unsigned long long)rs->train.stats.episodes);
    rl__sbuf_puts(&b, ",\n  \"train_return_mean\": ");
    rl__sbuf_double(&b, rl__ep_recent_mean(&rs->train.stats, RL__EP_RETURN), 1);
    rl__sbuf_puts(&b, ",\n  \"eval_return_mean\": ");
    rl__sbuf_double(&b, ev->done ? ev->return_mean : NAN, 1);
    rl__sbuf_puts(&b, ",\n  \"eval_return_std\": ");
    rl__sbuf_double(&b, ev->done ? ev->return_std : NAN, 1);
    rl__sbuf_puts(&b, ",\n  \"eval_length_mean\": ");
    rl__sbuf_double(&b, ev->done ? ev->length_mean : NAN, 1);
    if (rs->train.info.score_name) {
        rl__sbuf_puts(&b, ",\n  \"score_name\": ");
        rl__sbuf_json_str(&b, rs->train.info.score_name);
        rl__sbuf_puts(&b, ",\n  \"eval_score_mean\": ");
        rl__sbuf_double(&b, ev->done ? ev->score_mean : NAN, 1);
    }
    rl__sbuf_printf(&b, ",\n  \"eval_episodes\": %u", ev->done ? ev->episodes : 0);
    rl__sbuf_puts(&b, ",\n  \"stages\": {");
    int first = 1;
    rl__sbuf_printf(&b, "\n    \"env.threads_used\": %u", rl__pool_threads(rs->train.pool));
    first = 0;
    json_stage_group(&b, &c->env_host_stages, "env", &first, NULL, 0);
    json_stage_group(&b, &c->env_stages, "env", &first, NULL, 0);
    json_stage_group(&b, &c->algo_stages, "algo", &first, rs->last_metrics, rs->n_last_metrics);
    rl__sbuf_printf(&b, ",\n    \"run.log_interval\": %lld,\n    \"run.eval_interval\": %lld,\n"
                        "    \"run.quiet\": %s,\n    \"blas.core\": ",
                    (long long)val(&c->run, RL__RUN_LOG_INTERVAL)->i,
                    (long long)val(&c->run, RL__RUN_EVAL_INTERVAL)->i,
                    val(&c->run, RL__RUN_QUIET)->i ? "true" : "false");
    rl__sbuf_json_str(&b, rl_blas_corename());
    rl__sbuf_puts(&b, "\n  }\n}\n");
    char path[4200];
    snprintf(path, sizeof path, "%s/summary.json", rs->out_dir);
    int rc = b.oom ? RL_ENOMEM
                   : rl__write_atomic(path, NULL, b.data, b.len, 1, rs->err, sizeof rs->err);
    rl__sbuf_free(&b);
    return rc;
}

/* ---- checkpoints -------------------------------------------------------- */

static const rl_env_state_ext *env_state_ext(const rl__vecenv *v)
{
    const rl_env_state_ext *e = v->vt->get_extension ? v->vt->get_extension(v->env, RL_EXT_ENV_STATE) : NULL;
    return e && e->struct_size >= sizeof *e && e->save && e->load ? e : NULL;
}

/* The host's part of a checkpoint, for exact resumes: each env's state, the
   training envs' current observations and episode bookkeeping, and the
   last evaluation.  Written only when the env can save its state. */
static int host_state(run_state *rs, const rl_state_io *io, int load, char *err, size_t errlen)
{
    rl__vecenv *v = &rs->train;
    const rl_env_state_ext *te = env_state_ext(v), *ee = rs->have_eval ? env_state_ext(&rs->eval) : NULL;
    if (!te || (rs->have_eval && !ee)) return RL_OK;
    if (load) { /* a checkpoint without host state: resume approximately */
        uint64_t shape = (uint64_t)v->n * v->row_bytes;
        int rc = io->get(io->ctx, "host/train_obs", RL_DTYPE_U8, 1, &shape, v->io.obs);
        if (rc == RL_ENOENT) return RL_OK;
        if (rc != RL_OK) {
            snprintf(err, errlen, "%s", io->error(io->ctx));
            return rc;
        }
        if (v->info.obs_dtype == RL_DTYPE_F32 &&
            (rc = rl_state_check_finite("host/train_obs", v->io.obs, (size_t)v->n * v->row_bytes / 4, err, errlen)))
            return rc;
    } else if (rl_state_blob(io, 0, "host/", "train_obs", v->io.obs, (size_t)v->n * v->row_bytes, err, errlen)) {
        return RL_EIO;
    }
    struct {
        eval_result last_eval;
        int32_t pending_eval;
    } ev;
    memset(&ev, 0, sizeof ev); /* padding too: checkpoints compare byte for byte */
    ev.last_eval = rs->last_eval;
    ev.pending_eval = rs->pending_eval;
    int rc;
    if ((rc = rl_state_blob(io, load, "host/", "episode_start", v->episode_start, v->n, err, errlen)) ||
        (rc = rl_state_blob(io, load, "host/", "episode_return", v->ep_return, v->n * sizeof *v->ep_return, err, errlen)) ||
        (rc = rl_state_blob(io, load, "host/", "episode_length", v->ep_length, v->n * sizeof *v->ep_length, err, errlen)) ||
        (rc = rl_state_blob(io, load, "host/", "episode_stats", &v->stats,
                            offsetof(rl__ep_stats, recent_length), err, errlen)) ||
        (rc = rl_state_blob(io, load, "host/", "last_eval", &ev, sizeof ev, err, errlen)))
        return rc;
    {   /* the recent episodes' lengths (absent from older checkpoints: zeros) */
        uint64_t shape = RL__RECENT;
        double *len = v->stats.recent_length;
        rc = load ? io->get(io->ctx, "host/episode_recent_length", RL_DTYPE_F64, 1, &shape, len)
                  : io->put(io->ctx, "host/episode_recent_length", RL_DTYPE_F64, 1, &shape, len);
        if (load && rc == RL_ENOENT) {
            memset(len, 0, sizeof v->stats.recent_length);
            rc = RL_OK;
        }
        if (rc != RL_OK) {
            snprintf(err, errlen, "%s", io->error(io->ctx));
            return rc;
        }
        for (uint32_t i = 0; load && i < RL__RECENT; i++)
            if ((rc = rl_state_check_f("host/episode_recent_length", len[i], 0, 1e18, err, errlen))) return rc;
    }
    char perr[RL_ERR_MAX] = "";
    rc = load ? te->load(v->env, io, "env/", perr, sizeof perr) : te->save(v->env, io, "env/", perr, sizeof perr);
    if (rc == RL_OK && ee)
        rc = load ? ee->load(rs->eval.env, io, "eval_env/", perr, sizeof perr)
                  : ee->save(rs->eval.env, io, "eval_env/", perr, sizeof perr);
    if (rc != RL_OK) {
        snprintf(err, errlen, "env '%s' state: %s", rs->c->env->desc->name, perr[0] ? perr : rl_strerror(rc));
        return rc;
    }
    if (load) { /* the statistics' ring position and count index arrays */
        const rl__ep_stats *st = &v->stats;
        if ((rc = rl_state_check_u("host/episode_stats: recent_n", st->recent_n, 0, RL__RECENT, err, errlen)) ||
            (rc = rl_state_check_u("host/episode_stats: recent_pos", st->recent_pos, 0, RL__RECENT - 1, err, errlen)) ||
            (rc = rl_state_check_u("host/episode_stats: n", st->n, 0, st->episodes, err, errlen)) ||
            (rc = rl_state_check_i("host/last_eval: pending", ev.pending_eval, 0, 1, err, errlen)))
            return rc;
        rs->last_eval = ev.last_eval;
        rs->pending_eval = ev.pending_eval;
        rs->envs_restored = 1;
    }
    return RL_OK;
}

static int host_state_load(void *ctx, const rl_state_io *io, char *err, size_t errlen)
{
    return host_state(ctx, io, 1, err, errlen);
}

/* MPI: the state of the other ranks' replicas travels to rank 0 for the
   checkpoint, as a table of tensors and their bytes; rank 0 adds them to
   io after its own, so the file lists replica 0, 1, 2, ... as a one-process
   run does.  Collective: every rank calls it at every checkpoint (rank 0
   with io NULL when its own part failed). */
static int gather_state(run_state *rs, const rl_state_io *io)
{
    if (rl__world_size() == 1 || !rs->state_ext) return RL_OK;
    rl__ckpt mine;
    memset(&mine, 0, sizeof mine);
    uint64_t n = 0;
    int rc = RL_OK;
    char perr[RL_ERR_MAX] = "";
    if (!rs->writer) {
        rl_state_io mio;
        rl__ckpt_io(&mine, &mio);
        rc = rl__replicas_state(&rs->reps, rs->state_ext, &mio, 0, perr, sizeof perr);
        n = rc == RL_OK ? mine.n : UINT64_MAX;
        if (rc != RL_OK) rl__log(RL_LOG_ERROR, NULL, "rank %u: algo '%s' could not save its state: %s",
                                 rl__world_rank(), rs->c->algo->desc->name, perr);
    }
    size_t tab = n == UINT64_MAX ? 0 : (size_t)n * sizeof *mine.tensors;
    size_t bytes = sizeof n + tab + (n == UINT64_MAX ? 0 : mine.data_len);
    unsigned char *blob = malloc(bytes), *all = NULL;
    size_t lens[1024];
    if (blob) {
        memcpy(blob, &n, sizeof n);
        if (tab) memcpy(blob + sizeof n, mine.tensors, tab);
        if (tab && mine.data_len) memcpy(blob + sizeof n + tab, mine.data, mine.data_len);
    }
    int grc = rl__world_gather(blob ? blob : (const void *)&n, blob ? bytes : sizeof n, &all, lens);
    free(blob);
    rl__ckpt_free(&mine);
    if (!rs->writer) return rc;
    if (grc != 0) {
        snprintf(rs->err, sizeof rs->err, "out of memory gathering the replicas' state");
        return RL_ENOMEM;
    }
    for (uint32_t r = 1; io && rc == RL_OK && r < rl__world_size(); r++) {
        const unsigned char *b = all;
        for (uint32_t k = 0; k < r; k++) b += lens[k];
        uint64_t m = UINT64_MAX;
        if (lens[r] >= sizeof m) memcpy(&m, b, sizeof m);
        if (m == UINT64_MAX || m > (lens[r] - sizeof m) / sizeof *mine.tensors) {
            snprintf(rs->err, sizeof rs->err, "rank %u could not save its replicas' state", r);
            rc = RL_EIO;
            break;
        }
        const unsigned char *data = b + sizeof m + m * sizeof *mine.tensors;
        size_t avail = lens[r] - sizeof m - m * sizeof *mine.tensors;
        for (uint64_t k = 0; rc == RL_OK && k < m; k++) {
            rl__ckpt_tensor t;
            memcpy(&t, b + sizeof m + k * sizeof t, sizeof t);
            t.name[sizeof t.name - 1] = 0;
            if (t.ndim > 4 || t.offset > avail || t.bytes > avail - t.offset) {
                snprintf(rs->err, sizeof rs->err, "rank %u sent a malformed state tensor", r);
                rc = RL_EIO;
            } else if ((rc = io->put(io->ctx, t.name, t.dtype, t.ndim, t.shape, data + t.offset)) != RL_OK) {
                snprintf(rs->err, sizeof rs->err, "%s", io->error(io->ctx));
            }
        }
    }
    free(all);
    return rc;
}

/* Every checkpoint is preceded by the metrics up to its step, durably: a
   resume cuts metrics.csv back to the checkpoint's step, so after a kill at
   any instant no row is lost or doubled. */
static int write_checkpoint(run_state *rs)
{
    const rl__config *c = rs->c;
    if (!rs->writer) return gather_state(rs, NULL);
    if (write_metrics(rs, 1) != RL_OK) {
        gather_state(rs, NULL);
        return RL_EIO;
    }
    char path[4200], prev[4200], num[32];
    snprintf(path, sizeof path, "%s/checkpoint.safetensors", rs->out_dir);
    snprintf(prev, sizeof prev, "%s/checkpoint.prev.safetensors", rs->out_dir);
    rl__ckpt ck, replay;
    memset(&ck, 0, sizeof ck);
    memset(&replay, 0, sizeof replay);
    ck.path = path;
    ck.side = &replay;
    rl__sbuf cfg = {0};
    rl__config_format(c, &cfg);
    int rc = cfg.oom ? RL_ENOMEM : RL_OK;
    if (!rc) rc = rl__ckpt_meta(&ck, "rlhost.config", cfg.data);
    rl__sbuf_free(&cfg);
    if (!rc) rc = rl__ckpt_meta(&ck, "rlhost.version", RLHOST_VERSION);
    snprintf(num, sizeof num, "%d.%d", RL_ABI_MAJOR, RL_ABI_MINOR);
    if (!rc) rc = rl__ckpt_meta(&ck, "rlhost.abi", num);
    if (!rc) rc = rl__ckpt_meta(&ck, "rlhost.env", c->env->desc->name);
    if (!rc) rc = rl__ckpt_meta(&ck, "rlhost.env_version", c->env->desc->version);
    if (!rc) rc = rl__ckpt_meta(&ck, "rlhost.algo", c->algo->desc->name);
    if (!rc) rc = rl__ckpt_meta(&ck, "rlhost.algo_version", c->algo->desc->version);
    snprintf(num, sizeof num, "%llu", (unsigned long long)rs->steps);
    if (!rc) rc = rl__ckpt_meta(&ck, "rlhost.step", num);
    char reps[16];
    snprintf(reps, sizeof reps, "%u", rs->reps.count);
    if (!rc) rc = rl__ckpt_meta(&ck, "rlhost.replicas", reps);
    char eps[32];
    snprintf(eps, sizeof eps, "%llu", (unsigned long long)rs->train.stats.episodes);
    if (!rc) rc = rl__ckpt_meta(&ck, "rlhost.episodes", eps);
    {   /* what the policy reads and chooses, for readers without rlhost */
        const rl_env_info *in = &rs->train.info;
        char obs[256], shape[96] = "";
        for (uint32_t k = 0; k < in->obs_ndim && k < 4; k++)
            snprintf(shape + strlen(shape), sizeof shape - strlen(shape), "%s%u", k ? "," : "", in->obs_shape[k]);
        snprintf(obs, sizeof obs, "{\"dtype\":\"%s\",\"shape\":[%s],\"scale\":%.9g}",
                 in->obs_dtype == RL_DTYPE_U8 ? "U8" : "F32", shape, (double)in->obs_scale);
        if (!rc) rc = rl__ckpt_meta(&ck, "rlhost.observation", obs);
        snprintf(obs, sizeof obs, "{\"type\":\"discrete\",\"n\":%u}", in->n_actions);
        if (!rc) rc = rl__ckpt_meta(&ck, "rlhost.action_space", obs);
    }
    rl_state_io io;
    rl__ckpt_io(&ck, &io);
    if (rc) {
        snprintf(rs->err, sizeof rs->err, "out of memory building the checkpoint");
    } else if (rs->state_ext) {
        char perr[RL_ERR_MAX] = "";
        rc = rl__replicas_state(&rs->reps, rs->state_ext, &io, 0, perr, sizeof perr);
        if (rc) snprintf(rs->err, sizeof rs->err, "algo '%s' could not save its state: %s",
                         c->algo->desc->name, perr[0] ? perr : rl_strerror(rc));
    }
    int grc = gather_state(rs, rc ? NULL : &io);
    if (!rc) rc = grc;
    if (!rc && rs->state_ext) rc = host_state(rs, &io, 0, rs->err, sizeof rs->err);
    /* The replay buffer (save_replay) goes to its own file, written first
       and stamped with the step: a resume pairs the checkpoint with the
       replay of its step (this file or the previous one kept beside it). */
    if (!rc && replay.n) {
        char rpath[4200], rprev[4200];
        snprintf(rpath, sizeof rpath, "%s/replay.safetensors", rs->out_dir);
        snprintf(rprev, sizeof rprev, "%s/replay.prev.safetensors", rs->out_dir);
        rc = rl__ckpt_meta(&replay, "rlhost.step", num);
        if (rc) snprintf(rs->err, sizeof rs->err, "out of memory building the checkpoint");
        else rc = rl__ckpt_write(&replay, rpath, rprev, rs->err, sizeof rs->err);
    }
    if (!rc) rc = rl__ckpt_write(&ck, path, prev, rs->err, sizeof rs->err);
    rl__ckpt_free(&replay);
    rl__ckpt_free(&ck);
    return rc;
}

/* ---- the Optimizations: table ---------------------------------------------*/

static void print_optimizations(const run_state *rs)
{
    const rl__config *c = rs->c;
    fprintf(stderr, "Optimizations:\n");
    const rl__group *groups[] = {&c->env_host_stages, &c->env_stages, &c->algo_stages};
    const char *prefixes[] = {"env", "env", "algo"};
    for (int gi = 0; gi < 3; gi++) {
        const rl__group *g = groups[gi];
        for (uint32_t k = 0; k < g->n; k++) {
            rl__sbuf b = {0};
            rl__value_format(&g->defs[k], &g->vals[k], &b);
            char key[128];
            snprintf(key, sizeof key, "%s.%s", prefixes[gi], g->defs[k].name);
            if (gi == 0 && k == RL__ENVST_THREADS)
                fprintf(stderr, "  %-28s %u (%s%s)\n", key, rl__pool_threads(rs->train.pool),
                        g->vals[k].is_auto ? "auto: " : "", rs->train.threads_reason);
            else
                fprintf(stderr, "  %-28s %s%s\n", key, b.data ? b.data : "",
                        (g->defs[k].flags & RL_OPT_CHANGES_RESULTS) ? "  (changes results)" : "");
            rl__sbuf_free(&b);
        }
    }
    fprintf(stderr, "  %-28s %u%s%s%s\n", "run.replicas", rs->reps.count, rs->replicas_reason[0] ? " (" : "",
            rs->replicas_reason, rs->replicas_reason[0] ? ")" : "");
    fprintf(stderr, "  %-28s %lld\n  %-28s %lld\n", "run.log_interval",
            (long long)val(&c->run, RL__RUN_LOG_INTERVAL)->i, "run.eval_interval",
            (long long)val(&c->run, RL__RUN_EVAL_INTERVAL)->i);
    fprintf(stderr, "  %-28s OpenBLAS %s, %d thread%s\n", "blas", rl__blas_choice(),
            rl_blas_get_threads(), rl_blas_get_threads() == 1 ? "" : "s");
}

/* ---- the loop ------------------------------------------------------------*/

static int fail(run_state *rs, int rc, const char *what)
{
    char perr[RL_ERR_MAX];
    snprintf(perr, sizeof perr, "%s", rs->err);
    snprintf(rs->err, sizeof rs->err, "%s at step %llu: %s", what,
             (unsigned long long)rs->steps, perr[0] ? perr : rl_strerror(rc));
    return rc;
}

static int train_loop(run_state *rs)
{
    const rl__config *c = rs->c;
    rl__vecenv *v = &rs->train;
    uint64_t log_interval = (uint64_t)val(&c->run, RL__RUN_LOG_INTERVAL)->i;
    uint64_t eval_interval = (uint64_t)val(&c->run, RL__RUN_EVAL_INTERVAL)->i;
    uint32_t eval_episodes = (uint32_t)val(&c->run, RL__RUN_EVAL_EPISODES)->i;
    uint64_t ckpt_interval = (uint64_t)val(&c->run, RL__RUN_CHECKPOINT_INTERVAL)->i;
    /* The first of each is the first multiple past the current step (a
       resumed run does not start at 0). */
    uint64_t next_log = (rs->steps / log_interval + 1) * log_interval;
    uint64_t next_eval = eval_interval ? (rs->steps / eval_interval + 1) * eval_interval : UINT64_MAX;
    uint64_t next_ckpt = ckpt_interval ? (rs->steps / ckpt_interval + 1) * ckpt_interval : UINT64_MAX;
    rl_transition t = {sizeof t, v->n, NULL, v->actions, v->rewards, NULL, v->io.final_obs,
                       v->terminated, v->truncated};
    char perr[RL_ERR_MAX];
    if (!rs->envs_restored) rl__vecenv_reset(v);
    int world = rl__world_size() > 1;
    while (rs->steps < rs->target && !(world ? rs->stop : g_stop_signal)) {
        double t0 = rl_now();
        perr[0] = 0;
        int stop = g_stop_signal != 0;
        int rc = rl__replicas_act(&rs->reps, v->io.obs, v->row_bytes, v->episode_start, v->actions,
                                  &stop, rs->err, sizeof rs->err);
        rs->stop = stop;
        if (rc != RL_OK) return fail(rs, rc, "algo act failed");
        double t1 = rl_now();
        if ((rc = rl__vecenv_step(v, rs->err, sizeof rs->err)) != RL_OK)
            return fail(rs, rc, "env step refused");
        double t2 = rl_now();
        rs->steps += v->n;
        t.obs = v->prev_obs;
        t.next_obs = v->io.obs;
        if ((rc = rl__replicas_observe_update(&rs->reps, &t, v->row_bytes, rs->steps, rs->err,
                                              sizeof rs->err)) != RL_OK)
            return fail(rs, rc, "algo update failed");
        double t3 = rl_now();
        rs->t_act += t1 - t0;
        rs->t_env += t2 - t1;
        rs->t_update += t3 - t2;
        if (rs->steps >= next_eval) {
            next_eval += eval_interval;
            if (eval_episodes && rs->have_eval) {
                rc = evaluate(rs, eval_episodes, &rs->last_eval, 0);
                if (rc != RL_OK) return fail(rs, rc, "evaluation failed");
                rs->pending_eval = 1;
                log_eval(rs, &rs->last_eval, 0);
                for (uint32_t r = 0; rc == RL_OK && rs->eval_ext && r < rs->reps.local; r++) {
                    perr[0] = 0;
                    rc = rs->eval_ext->evaluated(rs->reps.algo[r], rs->steps, rs->last_eval.return_mean,
                                                 perr, sizeof perr);
                    if (rc != RL_OK) {
                        snprintf(rs->err, sizeof rs->err, "%s", perr);
                        return fail(rs, rc, "algo evaluation callback failed");
                    }
                }
                if (!rs->quiet && !rs->tty)
                    fprintf(stderr, "eval at step %llu: return %.4g +- %.3g over %u episodes\n",
                            (unsigned long long)rs->steps, rs->last_eval.return_mean,
                            rs->last_eval.return_std, eval_episodes);
            }
        }
        /* The row first, then the checkpoint with the metrics up to its
           step on disk: a resume truncates metrics.csv to that step, so no
           row is lost or written twice. */
        if (rs->steps >= next_log) {
            while (next_log <= rs->steps) next_log += log_interval;
            log_row(rs);
            if (!rs->quiet && rl_now() - rs->last_csv_write > 2.0 &&
                write_metrics(rs, 0) != RL_OK)
                return fail(rs, RL_EIO, "writing metrics failed");
        }
        if (rs->steps >= next_ckpt) {
            while (next_ckpt <= rs->steps) next_ckpt += ckpt_interval;
            if ((rc = write_checkpoint(rs)) != RL_OK) return fail(rs, rc, "writing the checkpoint failed");
        }
        if (rs->tty && !rs->quiet && t3 - rs->last_progress > 0.2) progress_line(rs, t3);
    }
    return RL_OK;
}

static int replicas_load(void *ctx, const rl_algo_state_ext *ext, const rl_state_io *io, char *err,
                         size_t errlen)
{
    return rl__replicas_state(ctx, ext, io, 1, err, errlen);
}

/* metrics.csv and evals.csv of the run being resumed, cut back to the
   checkpoint's step: rows a killed run wrote after its last checkpoint are
   written again. */
static void load_csv(run_state *rs, const char *dir, const char *name, rl__sbuf *into)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "r");
    if (!f) return;
    char line[8192];
    for (int first = 1; fgets(line, sizeof line, f); first = 0) {
        char *end;
        unsigned long long step = strtoull(line, &end, 10);
        if (!first && (end == line || *end != ',' || step > rs->steps)) break;
        rl__sbuf_puts(into, line);
    }
    fclose(f);
}

static void load_metrics(run_state *rs, const char *dir)
{
    load_csv(rs, dir, "metrics.csv", &rs->csv);
    rs->header_done = rs->csv.len > 0;
    load_csv(rs, dir, "evals.csv", &rs->evals);
}

/* A kill between the final checkpoint and the summary that follows it
   leaves the summary saying "finishing" (see the end of rl__run): the run
   is complete, and its summary already holds the final evaluation.  Marks it
   done; 1 when it did. */
enum { RL_DONE_ALREADY = 1000 };
static int finish_summary(const char *dir)
{
    char path[4200], err[RL_ERR_MAX];
    snprintf(path, sizeof path, "%s/summary.json", dir);
    FILE *f = fopen(path, "rb");
    if (!f) return 0;
    char buf[16384];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    int more = fgetc(f) != EOF;
    fclose(f);
    buf[n] = 0;
    static const char from[] = "\"status\": \"finishing\"", to[] = "\"status\": \"done\"";
    char *at = more ? NULL : strstr(buf, from);
    if (!at) return 0;
    char out[sizeof buf];
    size_t head = (size_t)(at - buf);
    snprintf(out, sizeof out, "%.*s%s%s", (int)head, buf, to, at + sizeof from - 1);
    return rl__write_atomic(path, NULL, out, strlen(out), 1, err, sizeof err) == RL_OK;
}

/* Restores a resumed run from its directory's checkpoint (or the previous
   one, when the newest is missing or bad) and replay. */
static int resume(run_state *rs, const rl__run_opts *o)
{
    char path[4200], prev[4200], rpath[4200];
    snprintf(path, sizeof path, "%s/checkpoint.safetensors", o->resume_dir);
    snprintf(prev, sizeof prev, "%s/checkpoint.prev.safetensors", o->resume_dir);
    snprintf(rpath, sizeof rpath, "%s/replay.safetensors", o->resume_dir);
    rl__restore r = {.path = path, .prev_path = prev, .replay_path = rpath, .strict_config = 1,
                     .allowed = o->set_keys, .n_allowed = o->n_set_keys,
                     .host_load = host_state_load, .host_ctx = rs,
                     .algo_load = replicas_load, .algo_ctx = &rs->reps, .replicas = rs->reps.count};
    int rc = rl__ckpt_restore(&r, rs->c, rs->algo, rs->err, sizeof rs->err);
    if (rc != RL_OK) return rc;
    if (r.step >= rs->target && rs->writer && finish_summary(o->resume_dir)) {
        printf("the run in %s was complete at step %llu and its final checkpoint written; "
               "its summary now says done\n", o->resume_dir, (unsigned long long)r.step);
        return RL_DONE_ALREADY;
    }
    if (r.step >= rs->target && rs->writer) {
        snprintf(rs->err, sizeof rs->err, "the run in %s is complete at step %llu (run.steps = %llu); "
                 "--set run.steps=N with a larger N trains on", o->resume_dir,
                 (unsigned long long)r.step, (unsigned long long)rs->target);
        return RL_ECONFIG;
    }
    rs->steps = r.step;
    if (!rs->envs_restored) rs->train.stats.episodes = r.episodes;
    if (r.missing_replay)
        rl__log(RL_LOG_WARN, NULL, "%s has no replay of step %llu: the replay buffer starts empty, so "
                                   "the resumed run is close to, not identical with, an uninterrupted one",
                o->resume_dir, (unsigned long long)r.step);
    load_metrics(rs, o->resume_dir);
    rs->last_log_step = rs->start_steps = rs->steps;
    if (!rs->quiet)
        fprintf(stderr, "rlhost: resuming %s at step %llu (%s)\n", o->resume_dir,
                (unsigned long long)rs->steps,
                rs->envs_restored ? "envs restored exactly" : "envs start fresh episodes");
    return RL_OK;
}

int rl__run(const rl__config *c, const rl__run_opts *o, rl__run_stats *stats)
{
    static const rl__run_opts defaults = {0};
    if (!o) o = &defaults;
    const char *resume_dir = o->resume_dir;
    int dir_fd = -1;
    run_state *rs = calloc(1, sizeof *rs);
    if (!rs) {
        rl__log(RL_LOG_ERROR, NULL, "out of memory");
        return 1;
    }
    rs->c = c;
    rs->avt = c->algo->desc->vtable;
    rs->target = (uint64_t)val(&c->run, RL__RUN_STEPS)->i;
    rs->quiet = (int)val(&c->run, RL__RUN_QUIET)->i;
    rs->tty = isatty(STDERR_FILENO);
    rs->writer = rl__world_rank() == 0;
    if (!rs->writer) rs->quiet = 1; /* rank 0 speaks for an MPI job */
    snprintf(rs->out_dir, sizeof rs->out_dir, "%s", val(&c->run, RL__RUN_OUT_DIR)->s);
    uint64_t seed = (uint64_t)val(&c->run, RL__RUN_SEED)->i;
    uint32_t num_envs = (uint32_t)val(&c->env_host, RL__ENV_NUM_ENVS)->i;
    const rl_value *thr = val(&c->env_host_stages, RL__ENVST_THREADS);
    uint32_t repeat = (uint32_t)val(&c->env_host_stages, RL__ENVST_ACTION_REPEAT)->i;
    uint32_t eval_episodes = (uint32_t)val(&c->run, RL__RUN_EVAL_EPISODES)->i;
    int exit_code = 1;
    eval_result final_eval = {0};
    const char *status = "failed";

    g_stop_signal = 0;
    if (rs->quiet) rl__log_set_level(RL_LOG_WARN);
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);

    if (rs->writer) {
        rl__rundir_mode mode = resume_dir ? RL__RUNDIR_RESUME : o->force ? RL__RUNDIR_FORCE : RL__RUNDIR_NEW;
        int rc = rl__rundir_open(rs->out_dir, mode, &dir_fd, rs->err, sizeof rs->err);
        if (rc == RL_ECONFIG) exit_code = 2;
        if (rc != RL_OK) goto out;
    }
    /* A plugin refusing its options at create is a config error (exit 2),
       as `rlhost check` reports it. */
    /* Env threads: auto is every core, or its share when MPI ranks share
       this machine. */
    uint32_t env_threads = thr->is_auto ? 0 : (uint32_t)thr->i;
    if (thr->is_auto && rl__world_local() > 1) {
        env_threads = rl__host_api()->cpu_count() / rl__world_local();
        if (env_threads < 1) env_threads = 1;
    }
    int crc = rl__vecenv_create(&rs->train, c->env->desc, c->env_opts.vals, c->env_stages.vals,
                                num_envs, seed, env_threads, repeat, rs->err, sizeof rs->err);
    if (crc != RL_OK) {
        exit_code = crc == RL_ENOMEM ? 1 : 2;
        goto out;
    }
    uint32_t n_eval = eval_episodes < RL__MAX_EVAL_ENVS ? eval_episodes : RL__MAX_EVAL_ENVS;
    if (n_eval) {
        if (rl__vecenv_create(&rs->eval, c->env->desc, c->env_opts.vals, c->env_stages.vals,
                              n_eval, rl__eval_seed(seed), 1, repeat, rs->err,
                              sizeof rs->err) != RL_OK)
            goto out; /* the same options were accepted just above: not the config */
        rs->have_eval = 1;
    }
    {
        int rc = rl__replicas_open(&rs->reps, c, &rs->train.info, rs->train.n, n_eval ? rs->eval.n : 1, seed,
                                   rs->target, rs->replicas_reason, sizeof rs->replicas_reason, rs->err,
                                   sizeof rs->err);
        if (rc != RL_OK) {
            exit_code = rc == RL_ENOMEM ? 1 : 2;
            goto out;
        }
        rs->algo = rs->reps.algo[0];
    }
    if (rs->avt->get_extension) {
        const rl_algo_eval_ext *e = rs->avt->get_extension(rs->algo, RL_EXT_ALGO_EVAL);
        if (e && e->struct_size >= sizeof *e && e->evaluated && e->training_done) rs->eval_ext = e;
        const rl_algo_state_ext *st = rs->avt->get_extension(rs->algo, RL_EXT_ALGO_STATE);
        if (st && st->struct_size >= sizeof *st && st->save && st->load) rs->state_ext = st;
    }
    if (resume_dir) {
        int rc = resume(rs, o);
        if (rc == RL_DONE_ALREADY) exit_code = 0;
        if (rc == RL_ECONFIG) exit_code = 2;
        if (rc != RL_OK) goto out;
    }
    /* An MPI job starts when every rank could: 0 go, 100 rank 0 found the
       run complete, 200 + exit code a rank failed (each said why). */
    if (rl__world_size() > 1) {
        rs->agreed = 1;
        int verdict = rl__world_max(0);
        if (verdict) {
            exit_code = verdict == 100 ? 0 : verdict - 200;
            if (verdict != 100)
                snprintf(rs->err, sizeof rs->err, "another rank of the MPI job could not start (its message says why)");
            goto out;
        }
    }
    {   /* everything checked: now the run directory changes */
        rl__sbuf cfg = {0};
        rl__config_format(c, &cfg);
        char path[4200];
        snprintf(path, sizeof path, "%s/config.cfg", rs->out_dir);
        int rc = cfg.oom ? RL_ENOMEM
                         : rl__write_atomic(path, NULL, cfg.data, cfg.len, 1, rs->err, sizeof rs->err);
        rl__sbuf_free(&cfg);
        if (rc != RL_OK) goto out;
    }
    if (!rs->quiet) {
        char agents[48] = "";
        if (rs->train.agents > 1) snprintf(agents, sizeof agents, " x %u agents", rs->train.agents);
        fprintf(stderr, "rlhost: training %s on %s (%u env%s%s), %llu %ssteps -> %s\n",
                c->algo->desc->name, c->env->desc->name, num_envs, num_envs == 1 ? "" : "s", agents,
                (unsigned long long)rs->target, rs->train.agents > 1 ? "agent " : "", rs->out_dir);
        print_optimizations(rs);
    }
    rs->t_start = rs->last_log_wall = rs->last_csv_write = rl_now();
    {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        rs->epoch_start = (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
    }
    rs->last_log_cpu = cpu_seconds();
    int rc = train_loop(rs);
    if (rc != RL_OK && rl__world_size() > 1) { /* the other ranks wait in a collective: end the job */
        rl__log(RL_LOG_ERROR, NULL, "rank %u: %s", rl__world_rank(), rs->err);
        rl__world_abort(1);
    }
    int interrupted = rl__world_size() > 1 ? rs->stop : g_stop_signal != 0;
    if (stats) {
        stats->steps = rs->steps;
        stats->wall_s = rl_now() - rs->t_start;
        stats->env_s = rs->t_env;
        stats->act_s = rs->t_act;
        stats->update_s = rs->t_update;
        stats->env_threads = rl__pool_threads(rs->train.pool);
        stats->replicas = rs->reps.count;
    }
    if (rc == RL_OK && interrupted) {
        /* Checkpoint the exact state first (no keep_best swap, no partial
           metrics row), so --resume continues as if never stopped. */
        if ((rc = write_checkpoint(rs)) != RL_OK) fail(rs, rc, "writing the checkpoint failed");
    } else if (rc == RL_OK && rs->eval_ext) {
        char perr[RL_ERR_MAX] = "";
        for (uint32_t r = 0; rc == RL_OK && r < rs->reps.local; r++)
            rc = rs->eval_ext->training_done(rs->reps.algo[r], perr, sizeof perr);
        if (rc != RL_OK) {
            snprintf(rs->err, sizeof rs->err, "%s", perr);
            fail(rs, rc, "algo training_done failed");
        }
    }
    if (rs->tty && !rs->quiet) {
        progress_line(rs, rl_now());
        fprintf(stderr, "\n");
    }
    if (rc == RL_OK && !interrupted) {
        if (rs->steps > rs->last_log_step) log_row(rs);
        if (rs->have_eval) {
            /* Periodic evaluations advanced the eval envs; the final one
               starts the stream over, as `rlhost eval` of the checkpoint. */
            rc = rl__vecenv_reseed(&rs->eval, rl__eval_seed(seed), rs->err, sizeof rs->err);
            if (rc == RL_OK) rc = evaluate(rs, eval_episodes, &final_eval, 1);
            if (rc == RL_EINTR) rc = RL_OK;
            else if (rc != RL_OK) fail(rs, rc, "evaluation failed");
            else log_eval(rs, &final_eval, 1);
        }
    }
    /* Outputs are written whatever happened above: nothing is lost.  A
       finished run's summary is written twice: "finishing" before the final
       checkpoint, "done" after it.  A kill before the checkpoint leaves the
       last periodic one, and a resume from it redoes the end exactly; a kill
       after it leaves a complete run whose resume only marks it done. */
    char saved_err[RL_ERR_MAX];
    snprintf(saved_err, sizeof saved_err, "%s", rs->err);
    status = rc != RL_OK ? "failed" : interrupted ? "interrupted" : "done";
    int finishing = rc == RL_OK && !interrupted;
    int wrc = write_metrics(rs, 1);
    if (wrc == RL_OK) wrc = write_summary(rs, &final_eval, finishing ? "finishing" : status);
    /* The final checkpoint (with keep_best's choice); never after a
       failure, so the last good one stays. */
    if (wrc != RL_OK && rc == RL_OK && !interrupted) gather_state(rs, NULL); /* the other ranks wait for it */
    if (wrc == RL_OK && rc == RL_OK && !interrupted && (rc = write_checkpoint(rs)) != RL_OK) {
        rl__log(RL_LOG_ERROR, NULL, "%s", rs->err);
        rs->err[0] = 0;
        write_summary(rs, &final_eval, "failed");
    } else if (wrc == RL_OK && finishing) {
        wrc = write_summary(rs, &final_eval, status);
    }
    if (wrc != RL_OK) {
        rl__log(RL_LOG_ERROR, NULL, "%s", rs->err);
        if (rc == RL_OK) rc = wrc;
    }
    snprintf(rs->err, sizeof rs->err, "%s", saved_err);
    if (stats && final_eval.done) {
        stats->evaluated = 1;
        stats->eval_return = final_eval.return_mean;
        stats->eval_score = final_eval.score_mean;
        stats->score_name = rs->train.info.score_name;
    }
    if (rc != RL_OK) goto out;
    if (!o->silent && rs->writer && (!rs->quiet || final_eval.done)) {
        double wall = rl_now() - rs->t_start;
        printf("%s %s on %s: %llu steps in %.2f s (%.0f steps/s)", status, c->algo->desc->name,
               c->env->desc->name, (unsigned long long)rs->steps, wall,
               (rs->steps - rs->start_steps) / wall);
        if (final_eval.done) {
            printf(", eval return %.4g +- %.3g over %u episodes", final_eval.return_mean,
                   final_eval.return_std, final_eval.episodes);
            if (rs->train.info.score_name)
                printf(", %s %.4g", rs->train.info.score_name, final_eval.score_mean);
        }
        printf("\n");
        fflush(stdout);
    }
    exit_code = g_stop_signal == SIGINT ? 130 : g_stop_signal == SIGTERM ? 143 : 0;
out:
    if ((exit_code == 1 || exit_code == 2) && rs->err[0]) rl__log(RL_LOG_ERROR, NULL, "%s", rs->err);
    if (rl__world_size() > 1 && !rs->agreed) /* failed before the start: tell the other ranks */
        rl__world_max(exit_code == 0 && resume_dir ? 100 : 200 + (exit_code ? exit_code : 1));
    if (dir_fd >= 0) close(dir_fd); /* releases the lock */
    rl__replicas_destroy(&rs->reps);
    rl__vecenv_destroy(&rs->eval);
    rl__vecenv_destroy(&rs->train);
    rl__sbuf_free(&rs->csv);
    rl__sbuf_free(&rs->evals);
    free(rs);
    signal(SIGINT, SIG_DFL);
    signal(SIGTERM, SIG_DFL);
    rl__log_set_level(RL_LOG_INFO);
    return exit_code;
}
