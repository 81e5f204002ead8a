/* What a run reports; see report.h. */
#define _GNU_SOURCE
#include "run/report.h"

#include <errno.h>
#include <fcntl.h>
#include <unistd.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>

#include <rlhost/rlcore.h>

#include "parallel/cpu.h"
#include "base/files.h"
#include "base/log.h"
#include "plugin/host_schema.h"
#include "run/eval.h"
#include "run/rundir.h"
#include "run/tbevents.h"
#include "parallel/world.h"
#include "base/text.h"
#include "plugin/host_api.h"

static double cpu_seconds(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (double)ru.ru_utime.tv_sec + 1e-6 * (double)ru.ru_utime.tv_usec + (double)ru.ru_stime.tv_sec +
        1e-6 * (double)ru.ru_stime.tv_usec;
}

/* Where the run writes: its directory's descriptor, held since it was locked. */
static rl__dir out_dir(const rl__report *r)
{
    return (rl__dir){*r->dir_fd, r->set->out_dir};
}

static void cut_episodes(rl__report *r, uint64_t steps);

void rl__report_start(rl__report *r)
{
    if (r->set->writer && r->log.episodes_cut) cut_episodes(r, r->log.episodes_cut_at);
    r->clock->start = r->log.last_wall = r->log.last_write = rl_now();
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    r->clock->epoch_start = (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
    r->log.last_cpu = cpu_seconds();
}

/* ---- metrics -------------------------------------------------------------*/

/* A number as pandas reads it: NaN as nan, infinities as inf / -inf. */
static void csv_num(rl__sbuf *b, double v)
{
    if (isnan(v))
        rl__sbuf_puts(b, ",nan");
    else if (isinf(v))
        rl__sbuf_puts(b, v > 0 ? ",inf" : ",-inf");
    else
        rl__sbuf_printf(b, ",%.7g", v);
}

/* evals.csv: a row for every evaluation, periodic or final. */
void rl__report_eval(rl__report *r, uint64_t steps, const rl__eval_result *ev, int final)
{
    if (!r->set->writer || !ev->done) return;
    int has_score = r->score_name != NULL;
    if (!r->log.evals.len)
        rl__sbuf_printf(&r->log.evals,
                        "step,wall_s,final,episodes,return_mean,return_std,return_min,"
                        "return_max,length_mean%s%s\n",
                        has_score ? ",score_mean" : "", r->eval_cols.data ? r->eval_cols.data : "");
    rl__sbuf_printf(&r->log.evals, "%llu", (unsigned long long)steps);
    csv_num(&r->log.evals, rl_now() - r->clock->start);
    rl__sbuf_printf(&r->log.evals, ",%d,%u", final, ev->episodes);
    csv_num(&r->log.evals, ev->return_mean);
    csv_num(&r->log.evals, ev->return_std);
    csv_num(&r->log.evals, ev->return_min);
    csv_num(&r->log.evals, ev->return_max);
    csv_num(&r->log.evals, ev->length_mean);
    if (has_score) csv_num(&r->log.evals, ev->score_mean);
    if (r->eval_vals.data) rl__sbuf_puts(&r->log.evals, r->eval_vals.data);
    rl__sbuf_puts(&r->log.evals, "\n");
}

/* A data row of the run's CSV files at or before steps: the comma after
   its leading step, or NULL. */
static const char *row_within(const char *line, uint64_t steps)
{
    char *end;
    unsigned long long step = strtoull(line, &end, 10);
    return end == line || *end != ',' || step > steps ? NULL : end;
}

/* ---- episodes.csv ----------------------------------------------------------*/

/* The file grows by appends (it holds every episode of the run, too many to
   rewrite every few seconds), so a reader may see a last line without its
   newline while a write is under way; a resume cuts such a line. */
#define EPISODES_FILE "episodes.csv"

void rl__report_episodes(rl__report *r, uint64_t steps, const rl__vecenv *v)
{
    if (!r->set->writer) return;
    rl__sbuf *b = &r->log.episodes;
    int has_score = r->score_name != NULL;
    double wall = NAN;
    for (uint32_t i = 0; i < v->n; i++) {
        if (!(v->terminated[i] | v->truncated[i])) continue;
        if (!r->log.episodes_header) {
            rl__sbuf_printf(b, "step,wall_s,env,return,length%s\n", has_score ? ",score" : "");
            r->log.episodes_header = 1;
        }
        if (isnan(wall)) wall = rl_now() - r->clock->start;
        rl__sbuf_printf(b, "%llu", (unsigned long long)steps);
        csv_num(b, wall);
        rl__sbuf_printf(b, ",%u", i);
        csv_num(b, v->done_return[i]);
        rl__sbuf_printf(b, ",%u", v->done_length[i]);
        if (has_score) csv_num(b, v->io.scores[i]); /* nan: the episode ended no game (a lost life) */
        rl__sbuf_puts(b, "\n");
    }
}

/* Appends the rows not yet in episodes.csv; with sync, everything appended
   so far is made durable.  Never follows a link or blocks on a FIFO. */
static int append_episodes(rl__report *r, int sync)
{
    rl__sbuf *b = &r->log.episodes;
    if (b->oom) {
        snprintf(r->err, r->errlen, "out of memory for the episode log");
        return RL_ENOMEM;
    }
    if (!b->len && !(sync && r->log.episodes_unsynced)) return RL_OK;
    char brief[RL__BRIEF_MAX];
    int fd =
        openat(*r->dir_fd, EPISODES_FILE, O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0644);
    struct stat st;
    int e = fd < 0 ? errno : fstat(fd, &st) != 0 ? errno : !S_ISREG(st.st_mode) ? EINVAL : 0;
    size_t done = 0;
    if (!e && rl__write_all(fd, b->data, b->len, &done) != 0) e = errno;
    if (!e && sync && fsync(fd) != 0) e = errno;
    if (fd >= 0) close(fd);
    /* what reached the file leaves the buffer, so a later write (the
       run's last, after a full disk) completes a torn line, never repeats */
    if (done) {
        memmove(b->data, b->data + done, b->len - done);
        b->len -= done;
        b->data[b->len] = 0;
    }
    if (e) {
        snprintf(r->err, r->errlen, "cannot append to %s/%s: %s", rl__brief(r->set->out_dir, brief), EPISODES_FILE,
                 e == EINVAL || e == ELOOP || e == ENXIO ? "not a regular file" : strerror(e));
        return RL_EIO;
    }
    r->log.episodes_unsynced = !sync;
    return RL_OK;
}

/* A resumed run's episodes.csv: the header and the rows up to the
   checkpoint's step stay, the rest goes (a killed run's rows after its
   checkpoint are written again, a torn last line is dropped).  A name that
   is not a regular file is removed, never followed. */
static void cut_episodes(rl__report *r, uint64_t steps)
{
    struct stat st;
    if (fstatat(*r->dir_fd, EPISODES_FILE, &st, AT_SYMLINK_NOFOLLOW) != 0) return;
    if (!S_ISREG(st.st_mode)) {
        unlinkat(*r->dir_fd, EPISODES_FILE, 0); /* a directory stays, and the first append says so */
        return;
    }
    int fd = openat(*r->dir_fd, EPISODES_FILE, O_RDWR | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    int rd = fd >= 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode) ? dup(fd) : -1;
    FILE *f = rd >= 0 ? fdopen(rd, "r") : NULL;
    if (!f) {
        if (rd >= 0) close(rd);
        if (fd >= 0) close(fd);
        return;
    }
    off_t keep = 0;
    char line[1024];
    for (int first = 1; fgets(line, sizeof line, f); first = 0) {
        size_t len = strlen(line); /* short of the line at a NUL byte: then no newline, and the cut is here */
        if (!len || line[len - 1] != '\n') break;
        if (first ? strncmp(line, "step,", 5) != 0 : !row_within(line, steps)) break;
        keep += (off_t)len;
    }
    fclose(f);
    int cut = ftruncate(fd, keep) == 0 && fsync(fd) == 0;
    close(fd);
    r->log.episodes_header = cut && keep > 0;
    if (!cut && unlinkat(*r->dir_fd, EPISODES_FILE, 0) == 0) /* never rows twice */
        rl__log(RL_LOG_WARN, NULL, "could not cut %s/%s back to step %llu, so it starts over", r->set->out_dir,
                EPISODES_FILE, (unsigned long long)steps);
}

int rl__report_write(rl__report *r, int sync)
{
    if (!r->set->writer) return RL_OK;
    if (r->log.csv.oom || r->log.evals.oom) {
        snprintf(r->err, r->errlen, "out of memory for metrics");
        return RL_ENOMEM;
    }
    r->log.last_write = rl_now();
    int rc = append_episodes(r, sync);
    if (rc != RL_OK) return rc;
    rc = rl__write_atomic(out_dir(r), "metrics.csv", NULL, r->log.csv.data ? r->log.csv.data : "", r->log.csv.len, sync,
                          r->err, r->errlen);
    if (rc == RL_OK && r->log.evals.len)
        rc = rl__write_atomic(out_dir(r), "evals.csv", NULL, r->log.evals.data, r->log.evals.len, sync, r->err,
                              r->errlen);
    if (rc == RL_OK && val(&r->c->run, RL__RUN_TENSORBOARD)->i) { /* the same rows, for TensorBoard */
        rl__sbuf tb = {0};
        rl__tb_from_csv(&tb, r->log.csv.data ? r->log.csv.data : "", r->log.csv.len, "train", r->clock->epoch_start);
        rl__tb_from_csv(&tb, r->log.evals.data ? r->log.evals.data : "", r->log.evals.len, "eval",
                        r->clock->epoch_start);
        rc = tb.oom ? RL_ENOMEM
                    : rl__write_atomic(out_dir(r), RL__TB_FILE, NULL, tb.data, tb.len, sync, r->err, r->errlen);
        if (tb.oom) snprintf(r->err, r->errlen, "out of memory for the TensorBoard events");
        rl__sbuf_free(&tb);
    }
    return rc;
}

void rl__report_row(rl__report *r, const rl__report_at *at, const rl_metric *m, size_t nm)
{
    if (!r->set->writer) return; /* metrics() resets the algorithm's sums: replica 0's alone */
    const rl__config *c = r->c;
    double now = rl_now(), cpu = cpu_seconds();
    double wall = now - r->clock->start;
    double dt = now - r->log.last_wall;
    double sps = dt > 0 ? (double)(at->steps - r->log.last_step) / dt : 0;
    uint32_t cores = rl__host_api()->cpu_count();
    double cpu_util = dt > 0 ? (cpu - r->log.last_cpu) / dt / cores : 0;
    double act = r->clock->act - r->log.last_act, env = r->clock->env - r->log.last_env,
           upd = r->clock->update - r->log.last_update;
    int has_score = r->score_name != NULL;
    if (nm > RL__RUN_MAX_METRICS) nm = RL__RUN_MAX_METRICS;
    memcpy(r->log.last_metrics, m, nm * sizeof *m);
    r->log.n_last_metrics = nm;
    if (!r->log.header_done) {
        rl__sbuf_puts(&r->log.csv, "step,wall_s,sps,episodes,return_mean,length_mean");
        if (has_score) rl__sbuf_printf(&r->log.csv, ",score_mean");
        rl__sbuf_puts(&r->log.csv, ",cpu_util,env_frac,act_frac,update_frac");
        if (val(&c->run, RL__RUN_EVAL_INTERVAL)->i > 0) rl__sbuf_puts(&r->log.csv, ",eval_return_mean");
        for (size_t k = 0; k < nm; k++) {
            r->log.algo_cols[k] = m[k].name;
            rl__sbuf_printf(&r->log.csv, ",%s", m[k].name);
        }
        r->log.n_algo_cols = nm;
        rl__sbuf_puts(&r->log.csv, "\n");
        r->log.header_done = 1;
    } else if (r->log.n_algo_cols == 0) { /* resumed: the header is there already */
        for (size_t k = 0; k < nm; k++) r->log.algo_cols[k] = m[k].name;
        r->log.n_algo_cols = nm;
    }
    rl__ep_stats *st = at->stats;
    rl__sbuf_printf(&r->log.csv, "%llu", (unsigned long long)at->steps);
    csv_num(&r->log.csv, wall);
    csv_num(&r->log.csv, sps);
    rl__sbuf_printf(&r->log.csv, ",%llu", (unsigned long long)st->episodes);
    csv_num(&r->log.csv, rl__ep_recent_mean(st, RL__EP_RETURN));
    csv_num(&r->log.csv, rl__ep_recent_mean(st, RL__EP_LENGTH));
    if (has_score) csv_num(&r->log.csv, rl__ep_recent_mean(st, RL__EP_SCORE));
    csv_num(&r->log.csv, cpu_util);
    csv_num(&r->log.csv, dt > 0 ? env / dt : NAN);
    csv_num(&r->log.csv, dt > 0 ? act / dt : NAN);
    csv_num(&r->log.csv, dt > 0 ? upd / dt : NAN);
    if (val(&c->run, RL__RUN_EVAL_INTERVAL)->i > 0) {
        csv_num(&r->log.csv, r->log.pending_eval ? r->log.last_eval.return_mean : NAN);
        r->log.pending_eval = 0;
    }
    for (size_t col = 0; col < r->log.n_algo_cols; col++) {
        double v = NAN;
        for (size_t k = 0; k < nm; k++)
            if (strcmp(m[k].name, r->log.algo_cols[col]) == 0) v = m[k].value;
        csv_num(&r->log.csv, v);
    }
    rl__sbuf_puts(&r->log.csv, "\n");

    if (!r->set->quiet && !r->set->tty) {
        rl__sbuf line = {0};
        rl__sbuf_printf(&line,
                        "step %llu/%llu  %.0f sps  cpu %.0f%%  env/act/update %.0f/%.0f/%.0f%%  "
                        "episodes %llu  return %.3g",
                        (unsigned long long)at->steps, (unsigned long long)r->set->target, sps, 100 * cpu_util,
                        dt > 0 ? 100 * env / dt : 0, dt > 0 ? 100 * act / dt : 0, dt > 0 ? 100 * upd / dt : 0,
                        (unsigned long long)st->episodes, rl__ep_recent_mean(st, RL__EP_RETURN));
        if (has_score) rl__sbuf_printf(&line, "  %s %.3g", r->score_name, rl__ep_recent_mean(st, RL__EP_SCORE));
        for (size_t k = 0; k < nm; k++) rl__sbuf_printf(&line, "  %s %.4g", m[k].name, m[k].value);
        rl__say("%s", line.data ? line.data : "");
        rl__sbuf_free(&line);
    }
    rl__ep_interval_reset(st);
    r->log.last_wall = now;
    r->log.last_cpu = cpu;
    r->log.last_step = at->steps;
    r->log.last_act = r->clock->act;
    r->log.last_env = r->clock->env;
    r->log.last_update = r->clock->update;
}

void rl__report_progress(rl__report *r, const rl__report_at *at, double now)
{
    double wall = now - r->clock->start;
    double sps = wall > 0 ? (at->steps - at->start_steps) / wall : 0;
    double eta = sps > 0 ? (double)(r->set->target - at->steps) / sps : 0;
    const rl__ep_stats *st = at->stats;
    double busy = r->clock->env + r->clock->act + r->clock->update;
    char score[128] = "";
    if (r->score_name) snprintf(score, sizeof score, "  %s %.3g", r->score_name, rl__ep_recent_mean(st, RL__EP_SCORE));
    rl__status("  %llu/%llu  %5.1f%%  %.0f steps/s  ETA %d:%02d  return %.4g  env/act/update %.0f/%.0f/%.0f%%%s",
               (unsigned long long)at->steps, (unsigned long long)r->set->target,
               100.0 * (double)at->steps / (double)r->set->target, sps, (int)(eta / 60), (int)fmod(eta, 60),
               rl__ep_recent_mean(st, RL__EP_RETURN), busy > 0 ? 100 * r->clock->env / busy : 0,
               busy > 0 ? 100 * r->clock->act / busy : 0, busy > 0 ? 100 * r->clock->update / busy : 0, score);
    r->log.last_progress = now;
}

/* ---- summary -------------------------------------------------------------*/

/* A float stage set to auto is recorded as the plugin resolved it, when
   the plugin reports a metric of the stage's name; else as "auto". */
static void json_stage_group(rl__sbuf *b, const rl__group *g, const char *prefix, int *first, const rl_metric *m,
                             size_t nm)
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
            if (!v->is_auto)
                rl__sbuf_double(b, v->f, 1);
            else if (r)
                rl__sbuf_double(b, r->value, 1);
            else
                rl__sbuf_puts(b, "\"auto\"");
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

int rl__report_summary(rl__report *r, const rl__report_at *at, const rl__eval_result *ev, const char *status)
{
    if (!r->set->writer) return RL_OK;
    const rl__config *c = r->c;
    double wall = rl_now() - r->clock->start;
    rl__sbuf b = {0};
    rl__sbuf_puts(&b, "{\n  \"env\": ");
    rl__sbuf_json_str(&b, c->env->desc->name);
    rl__sbuf_puts(&b, ",\n  \"env_version\": ");
    rl__sbuf_json_str(&b, c->env->desc->version);
    rl__sbuf_puts(&b, ",\n  \"algo\": ");
    rl__sbuf_json_str(&b, c->algo->desc->name);
    rl__sbuf_puts(&b, ",\n  \"algo_version\": ");
    rl__sbuf_json_str(&b, c->algo->desc->version);
    rl__sbuf_printf(&b, ",\n  \"rlhost_version\": \"%s\",\n  \"abi\": \"%d.%d\"", RLHOST_VERSION, RL_ABI_MAJOR,
                    RL_ABI_MINOR);
    rl__sbuf_puts(&b, ",\n  \"status\": ");
    rl__sbuf_json_str(&b, status);
    rl__sbuf_printf(&b, ",\n  \"seed\": %lld", (long long)val(&c->run, RL__RUN_SEED)->i);
    /* what rlhost eval (and the web page) seeds the evaluation envs with */
    rl__sbuf_printf(&b, ",\n  \"eval_seed\": \"%016llx\"",
                    (unsigned long long)rl__eval_seed((uint64_t)val(&c->run, RL__RUN_SEED)->i));
    /* the env's seats (0: none; rlhost's table is what seats players) */
    rl__sbuf_printf(&b, ",\n  \"seats\": %u,\n  \"turn_based\": %s", r->seats, r->turn_based ? "true" : "false");
    rl__sbuf_printf(&b, ",\n  \"steps\": %llu,\n  \"target_steps\": %llu", (unsigned long long)at->steps,
                    (unsigned long long)r->set->target);
    rl__sbuf_puts(&b, ",\n  \"wall_s\": ");
    rl__sbuf_double(&b, wall, 1);
    rl__sbuf_puts(&b, ",\n  \"sps\": ");
    rl__sbuf_double(&b, wall > 0 ? (at->steps - at->start_steps) / wall : 0, 1);
    rl__sbuf_printf(&b, ",\n  \"train_episodes\": %llu", (unsigned long long)at->stats->episodes);
    rl__sbuf_puts(&b, ",\n  \"train_return_mean\": ");
    rl__sbuf_double(&b, rl__ep_recent_mean(at->stats, RL__EP_RETURN), 1);
    rl__sbuf_puts(&b, ",\n  \"eval_return_mean\": ");
    rl__sbuf_double(&b, ev->done ? ev->return_mean : NAN, 1);
    rl__sbuf_puts(&b, ",\n  \"eval_return_std\": ");
    rl__sbuf_double(&b, ev->done ? ev->return_std : NAN, 1);
    rl__sbuf_puts(&b, ",\n  \"eval_length_mean\": ");
    rl__sbuf_double(&b, ev->done ? ev->length_mean : NAN, 1);
    if (r->score_name) {
        rl__sbuf_puts(&b, ",\n  \"score_name\": ");
        rl__sbuf_json_str(&b, r->score_name);
        rl__sbuf_puts(&b, ",\n  \"eval_score_mean\": ");
        rl__sbuf_double(&b, ev->done ? ev->score_mean : NAN, 1);
    }
    rl__sbuf_printf(&b, ",\n  \"eval_episodes\": %u", ev->done ? ev->episodes : 0);
    rl__sbuf_puts(&b, ",\n  \"stages\": {");
    int first = 1;
    rl__sbuf_printf(&b, "\n    \"env.threads_used\": %u", at->env_threads);
    first = 0;
    json_stage_group(&b, &c->env_host_stages, "env", &first, NULL, 0);
    json_stage_group(&b, &c->env_stages, "env", &first, NULL, 0);
    json_stage_group(&b, &c->algo_stages, "algo", &first, r->log.last_metrics, r->log.n_last_metrics);
    rl__sbuf_printf(&b,
                    ",\n    \"run.log_interval\": %lld,\n    \"run.eval_interval\": %lld,\n"
                    "    \"run.quiet\": %s,\n    \"blas.core\": ",
                    (long long)val(&c->run, RL__RUN_LOG_INTERVAL)->i, (long long)val(&c->run, RL__RUN_EVAL_INTERVAL)->i,
                    val(&c->run, RL__RUN_QUIET)->i ? "true" : "false");
    rl__sbuf_json_str(&b, rl_blas_corename());
    rl__sbuf_puts(&b, "\n  }\n}\n");
    int rc =
        b.oom ? RL_ENOMEM : rl__write_atomic(out_dir(r), "summary.json", NULL, b.data, b.len, 1, r->err, r->errlen);
    rl__sbuf_free(&b);
    return rc;
}

/* ---- the Optimizations: table ---------------------------------------------*/

void rl__report_optimizations(const rl__config *c, uint32_t env_threads, const char *threads_reason, uint32_t replicas,
                              const char *replicas_reason)
{
    rl__say("Optimizations:");
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
                rl__say("  %-28s %u (%s%s)", key, env_threads, g->vals[k].is_auto ? "auto: " : "", threads_reason);
            else
                rl__say("  %-28s %s%s", key, b.data ? b.data : "",
                        (g->defs[k].flags & RL_OPT_CHANGES_RESULTS) ? "  (changes results)" : "");
            rl__sbuf_free(&b);
        }
    }
    rl__say("  %-28s %u%s%s%s", "run.replicas", replicas, replicas_reason[0] ? " (" : "", replicas_reason,
            replicas_reason[0] ? ")" : "");
    rl__say("  %-28s %lld", "run.log_interval", (long long)val(&c->run, RL__RUN_LOG_INTERVAL)->i);
    rl__say("  %-28s %lld", "run.eval_interval", (long long)val(&c->run, RL__RUN_EVAL_INTERVAL)->i);
    rl__say("  %-28s OpenBLAS %s, %d thread%s", "blas", rl__blas_choice(), rl_blas_get_threads(),
            rl_blas_get_threads() == 1 ? "" : "s");
}

/* ---- resume ---------------------------------------------------------------*/

/* One of the run directory's own files for reading (never through a link,
   never anything but a regular file), or NULL. */
static FILE *open_in_run(const rl__report *r, const char *name)
{
    struct stat st;
    int fd = rl__open_regular(*r->dir_fd, name, O_NOFOLLOW, &st);
    FILE *f = fd >= 0 ? fdopen(fd, "r") : NULL;
    if (!f && fd >= 0) close(fd);
    return f;
}

/* What a resumed run keeps of NAME (metrics.csv, evals.csv): the header and
   the rows up to the checkpoint's step, so rows a killed run wrote after
   its last checkpoint are written again.  Final evaluations go: the
   resumed run ends with its own. */
static void load_csv(rl__report *r, uint64_t steps, const char *name, int drop_final, rl__sbuf *into)
{
    FILE *f = open_in_run(r, name);
    if (!f) return;
    char line[8192];
    for (int first = 1; fgets(line, sizeof line, f); first = 0) {
        const char *end = first ? NULL : row_within(line, steps);
        if (!first && !end) break;
        const char *final = first ? NULL : strchr(end + 1, ','); /* step,wall_s,final,... */
        if (drop_final && final && final[1] == '1' && final[2] == ',') continue;
        rl__sbuf_puts(into, line);
    }
    fclose(f);
}

void rl__report_load(rl__report *r, uint64_t steps)
{
    if (!r->set->writer) return;
    load_csv(r, steps, "metrics.csv", 0, &r->log.csv);
    r->log.header_done = r->log.csv.len > 0;
    load_csv(r, steps, "evals.csv", 1, &r->log.evals);
    r->log.episodes_cut = 1; /* on disk: only once the run was accepted (rl__report_start) */
    r->log.episodes_cut_at = steps;
}

int rl__report_says_done(const rl__report *r)
{
    FILE *f = open_in_run(r, "summary.json");
    if (!f) return 0;
    char buf[16384];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = 0;
    return strstr(buf, "\"status\": \"done\"") != NULL;
}
