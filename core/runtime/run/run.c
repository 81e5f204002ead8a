/* The training loop; see run.h, and docs/design.md for one step walked through.
 *
 * A run goes through four phases: open (settings, run directory, envs,
 * replicas, resume: everything that can refuse the config), agree (an MPI
 * job's ranks start together or not at all), train (the loop, then the
 * final evaluation) and finish (metrics, summary and the final checkpoint,
 * whatever happened).  Per vector step: algo.act on the current
 * observations -> env step over worker-thread ranges -> algo.observe ->
 * algo.update; a metrics row every log_interval, a greedy evaluation every
 * eval_interval.  SIGINT/SIGTERM end the loop after the current step.
 * report.c writes the reports (handed values: report.h), run_checkpoint.c
 * the checkpoints and resume. */
#define _GNU_SOURCE
#include "run/run_internal.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rlhost/rlcore.h>

#include "base/files.h"
#include "run/rundir.h"
#include "parallel/world.h"
#include "base/text.h"
#include "base/log.h"
#include "plugin/host_api.h"

/* rl__stop_signal lives beside the host API, which plugins read it through. */
static void on_signal(int sig)
{
    rl__stop_signal = sig;
    signal(sig, SIG_DFL); /* a second Ctrl-C kills at once */
}

int rl__run_signal(void)
{
    return rl__stop_signal;
}

/* ---- reports --------------------------------------------------------------*/

/* A metrics row: replica 0's metrics (its metrics() resets its sums),
   then the report's row; only the writer reports. */
static void report_row(rl__run_state *rs)
{
    if (!rs->set.writer) return;
    rl_metric m[RL__RUN_MAX_METRICS];
    size_t nm = rs->avt->metrics ? rs->avt->metrics(rs->algo, m, RL__RUN_MAX_METRICS) : 0;
    rl__report_at at = report_at(rs);
    rl__report_row(&rs->rep, &at, m, nm);
}

static void report_progress(rl__run_state *rs, double now)
{
    rl__report_at at = report_at(rs);
    rl__report_progress(&rs->rep, &at, now);
}

/* ---- evaluation ----------------------------------------------------------*/

/* The games against every evaluation opponent at every seat (eval.h),
   their columns kept for evals.csv. */
static int evaluate_seats(rl__run_state *rs, uint32_t episodes, eval_result *out)
{
    rl__sbuf cols = {0}, vals = {0};
    int rc = rl__evaluate_seats(&rs->eval, rs->c, rs->avt, rs->algo, episodes, rl__eval_seed(rs->set.seed),
                                &rl__stop_signal, NULL, out, &cols, &vals, NULL, rs->err, sizeof rs->err);
    if (rc == RL_OK) {
        rl__sbuf_free(&rs->rep.eval_cols);
        rl__sbuf_free(&rs->rep.eval_vals);
        rs->rep.eval_cols = cols;
        rs->rep.eval_vals = vals;
        return RL_OK;
    }
    rl__sbuf_free(&cols);
    rl__sbuf_free(&vals);
    return rc;
}

/* Every evaluation stops at a signal (RL_EINTR), between two env steps. */
static int evaluate(rl__run_state *rs, uint32_t episodes, eval_result *out)
{
    /* In an MPI job rank 0 evaluates (its replica 0 is the job's) and tells
       the others the result, which the algorithms' callbacks may use. */
    struct {
        int rc;
        eval_result r;
    } msg;
    memset(&msg, 0, sizeof msg);
    if (rs->set.writer && rs->eval.table)
        msg.rc = evaluate_seats(rs, episodes, &msg.r);
    else if (rs->set.writer)
        msg.rc = rl__evaluate(&rs->eval, rs->avt, rs->algo, rs->c->algo->desc->name, episodes, &rl__stop_signal, NULL,
                              &msg.r, rs->err, sizeof rs->err);
    rl__world_bcast(&msg, sizeof msg, 0);
    *out = msg.r;
    if (!rs->set.writer && msg.rc != RL_OK && msg.rc != RL_EINTR)
        snprintf(rs->err, sizeof rs->err, "evaluation failed on rank 0");
    return msg.rc;
}

/* ---- the loop ------------------------------------------------------------*/

static int fail(rl__run_state *rs, int rc, const char *what)
{
    char perr[RL_ERR_MAX];
    snprintf(perr, sizeof perr, "%s", rs->err);
    snprintf(rs->err, sizeof rs->err, "%s at step %llu: %s", what, (unsigned long long)rs->steps,
             perr[0] ? perr : rl_strerror(rc));
    return rc;
}

/* The first multiple of interval past base (never, for interval 0). */
static uint64_t next_mark(uint64_t base, uint64_t interval)
{
    return interval ? (base / interval + 1) * interval : UINT64_MAX;
}

/* The next step at which a row, an evaluation and a checkpoint fall due. */
typedef struct marks {
    uint64_t log, eval, ckpt;
} marks;

/* A periodic evaluation; one a signal cuts short leaves the eval envs as
   they were before it and is due again when the run resumes. */
static int periodic_eval(rl__run_state *rs, uint32_t episodes)
{
    rl__ckpt snap;
    memset(&snap, 0, sizeof snap);
    int rc = rs->set.writer ? rl__run_eval_envs(rs, &snap, 0) : RL_OK;
    if (rc == RL_OK) rc = evaluate(rs, episodes, &rs->rep.log.last_eval);
    if (rc == RL_EINTR) {
        rs->eval_due = 1;
        rs->stop = 1; /* an MPI job's ranks all hear it from rank 0's result */
        rc = rs->set.writer ? rl__run_eval_envs(rs, &snap, 1) : RL_OK;
        rl__ckpt_free(&snap);
        return rc != RL_OK ? fail(rs, rc, "restoring the eval envs failed") : RL_EINTR;
    }
    rl__ckpt_free(&snap);
    if (rc != RL_OK) return fail(rs, rc, "evaluation failed");
    rs->eval_due = 0;
    rs->rep.log.pending_eval = 1;
    rl__report_eval(&rs->rep, rs->steps, &rs->rep.log.last_eval, 0);
    /* each evaluation is on disk when it is done: a watcher (rlhost tune's
       pruner, plot --follow) reads it while the run goes on */
    if (rl__report_write(&rs->rep, 0) != RL_OK) return fail(rs, RL_EIO, "writing the evaluation failed");
    char perr[RL_ERR_MAX];
    for (uint32_t r = 0; rs->eval_ext && r < rs->reps.local; r++) {
        perr[0] = 0;
        rc = rs->eval_ext->evaluated(rs->reps.algo[r], rs->steps, rs->rep.log.last_eval.return_mean, perr, sizeof perr);
        if (rc != RL_OK) {
            snprintf(rs->err, sizeof rs->err, "%s", perr);
            return fail(rs, rc, "algo evaluation callback failed");
        }
    }
    if (!rs->set.quiet && !rs->set.tty)
        rl__say("eval at step %llu: return %.4g +- %.3g over %u episodes", (unsigned long long)rs->steps,
                rs->rep.log.last_eval.return_mean, rs->rep.log.last_eval.return_std, episodes);
    return RL_OK;
}

/* What falls due after the step that reached rs->steps: the evaluation, the
   metrics row, then the checkpoint with the metrics up to its step on disk
   (a resume truncates metrics.csv to that step, so no row is lost or
   written twice).  RL_EINTR when a signal cut the evaluation short. */
static int after_step(rl__run_state *rs, marks *m)
{
    const rl__config *c = rs->c;
    uint64_t eval_interval = (uint64_t)val(&c->run, RL__RUN_EVAL_INTERVAL)->i;
    uint32_t eval_episodes = (uint32_t)val(&c->run, RL__RUN_EVAL_EPISODES)->i;
    int rc;
    if (rs->have_pool && rs->steps >= rs->next_snapshot) {
        if ((rc = rl__run_snapshot(rs)) != RL_OK) return fail(rs, rc, "writing a self-play snapshot failed");
        rs->next_snapshot = next_mark(rs->steps, (uint64_t)val(&c->seats, RL__SEATS_SNAPSHOT_INTERVAL)->i);
    }
    if (rs->steps >= m->eval) {
        if (eval_episodes && rs->have_eval && (rc = periodic_eval(rs, eval_episodes)) != RL_OK) return rc;
        m->eval += eval_interval;
    }
    if (rs->steps >= m->log) {
        uint64_t log_interval = (uint64_t)val(&c->run, RL__RUN_LOG_INTERVAL)->i;
        while (m->log <= rs->steps) m->log += log_interval;
        report_row(rs);
        if (!rs->set.quiet && rl_now() - rs->rep.log.last_write > 2.0 && rl__report_write(&rs->rep, 0) != RL_OK)
            return fail(rs, RL_EIO, "writing metrics failed");
    }
    if (rs->steps >= m->ckpt) {
        uint64_t ckpt_interval = (uint64_t)val(&c->run, RL__RUN_CHECKPOINT_INTERVAL)->i;
        while (m->ckpt <= rs->steps) m->ckpt += ckpt_interval;
        if ((rc = rl__run_checkpoint(rs)) != RL_OK) return fail(rs, rc, "writing the checkpoint failed");
    }
    return RL_OK;
}

static int train_loop(rl__run_state *rs)
{
    const rl__config *c = rs->c;
    rl__vecenv *v = &rs->train;
    /* A resumed run starts past step 0; one whose evaluation was cut short
       redoes what fell due after its last step, as if it had just taken it. */
    uint64_t base = rs->eval_due && rs->steps >= v->n ? rs->steps - v->n : rs->steps;
    marks m = {next_mark(base, (uint64_t)val(&c->run, RL__RUN_LOG_INTERVAL)->i),
               next_mark(base, (uint64_t)val(&c->run, RL__RUN_EVAL_INTERVAL)->i),
               next_mark(base, (uint64_t)val(&c->run, RL__RUN_CHECKPOINT_INTERVAL)->i)};
    int masked = v->space.mask_width != 0;
    rl_transition t = {.struct_size = sizeof t,
                       .count = v->n,
                       .rewards = v->rewards,
                       .final_obs = v->io.final_obs,
                       .terminated = v->terminated,
                       .truncated = v->truncated,
                       .final_masks = masked ? v->io.final_mask : NULL};
    int world = rl__world_size() > 1, rc = RL_OK;
    if (rs->have_pool) { /* the pool starts with the learner as it is: its first opponent */
        if (rs->pool.n == rs->pool.n_fixed && (rc = rl__run_snapshot(rs)) != RL_OK)
            return fail(rs, rc, "writing a self-play snapshot failed");
        rs->next_snapshot = next_mark(rs->steps, (uint64_t)val(&c->seats, RL__SEATS_SNAPSHOT_INTERVAL)->i);
    }
    if (!rs->envs_restored) rl__vecenv_reset(v);
    if (rs->eval_due && (rc = after_step(rs, &m)) != RL_OK) return rc == RL_EINTR ? RL_OK : rc;
    while (rs->steps < rs->set.target && !(world ? rs->stop : rl__stop_signal)) {
        double t0 = rl_now();
        int stop = rl__stop_signal != 0;
        if (rs->searched)
            rc = rl__searched_act(&rs->search, v, rs->err, sizeof rs->err);
        else
            rc = rl__replicas_act(&rs->reps, v->io.obs, v->row_bytes, v->episode_start, v->io.action_mask, v->actions,
                                  &stop, rs->err, sizeof rs->err);
        rs->stop = stop;
        if (rc != RL_OK) return fail(rs, rc, "algo act failed");
        double t1 = rl_now();
        if ((rc = rl__vecenv_step(v, rs->err, sizeof rs->err)) != RL_OK) return fail(rs, rc, "env step refused");
        double t2 = rl_now();
        rs->steps += v->n;
        rl__report_episodes(&rs->rep, rs->steps, v);
        t.obs = v->prev_obs;
        t.next_obs = v->io.obs;
        rl__vecenv_chosen(v, &t.actions, &t.box_actions);
        t.masks = v->prev_mask;
        t.next_masks = v->io.action_mask;
        if (rs->searched) {
            rl__searched_stepped(&rs->search, v);
            t.search_policy = rs->search.policy;
            t.same_mover = rs->search.same;
            t.search_value = rs->search.value;
        }
        if ((rc = rl__replicas_observe_update(&rs->reps, &t, v->row_bytes, rs->steps, rs->err, sizeof rs->err)) !=
            RL_OK)
            return fail(rs, rc, "algo update failed");
        double t3 = rl_now();
        rs->clock.act += t1 - t0;
        rs->clock.env += t2 - t1;
        rs->clock.update += t3 - t2;
        if ((rc = after_step(rs, &m)) != RL_OK) return rc == RL_EINTR ? RL_OK : rc;
        if (rs->set.tty && !rs->set.quiet && t3 - rs->rep.log.last_progress > 0.2) report_progress(rs, t3);
    }
    return RL_OK;
}

/* ---- the phases ------------------------------------------------------------*/

static void read_settings(rl__run_state *rs, const rl__config *c)
{
    rs->c = c;
    rs->avt = c->algo->desc->vtable;
    rs->dir.fd = -1;
    rs->rep.c = c, rs->rep.set = &rs->set, rs->rep.clock = &rs->clock, rs->rep.dir_fd = &rs->dir.fd;
    rs->rep.err = rs->err, rs->rep.errlen = sizeof rs->err;
    rs->set.target = (uint64_t)val(&c->run, RL__RUN_STEPS)->i;
    rs->set.seed = (uint64_t)val(&c->run, RL__RUN_SEED)->i;
    rs->set.eval_episodes = (uint32_t)val(&c->run, RL__RUN_EVAL_EPISODES)->i;
    rs->set.writer = rl__world_rank() == 0;
    rs->set.quiet = !rs->set.writer || val(&c->run, RL__RUN_QUIET)->i; /* rank 0 speaks for an MPI job */
    rs->set.tty = rl__log_tty();
    snprintf(rs->set.out_dir, sizeof rs->set.out_dir, "%s", val(&c->run, RL__RUN_OUT_DIR)->s);
}

/* The training envs (`boards` of them, into v: the run's rs->train),
   seated.  A plugin refusing its options at create is a config error, as
   `rlhost check` reports it. */
static int open_train(rl__run_state *rs, rl__vecenv *v, uint32_t boards)
{
    const rl__config *c = rs->c;
    const rl_value *thr = val(&c->env_host_stages, RL__ENVST_THREADS);
    uint32_t repeat = (uint32_t)val(&c->env_host_stages, RL__ENVST_ACTION_REPEAT)->i;
    /* auto is every core, or its share when MPI ranks share this machine */
    uint32_t threads = thr->is_auto ? 0 : (uint32_t)thr->i;
    if (thr->is_auto && rl__world_local() > 1) {
        threads = rl__host_api()->cpu_count() / rl__world_local();
        if (threads < 1) threads = 1;
    }
    const rl_value *ls = val(&c->seats, RL__SEATS_LEARNER_SEAT);
    const char *opponent = val(&c->seats, RL__SEATS_OPPONENT)->s;
    int rc = rl__searched_wanted(c, &rs->searched, rs->err, sizeof rs->err);
    if (rc != RL_OK) return rc;
    int32_t seat = rs->searched ? RL__SEAT_EVERY : ls->is_auto ? -1 : (int32_t)ls->i;
    rl__seating seating = rl__seating_of(c, opponent, seat, &rs->pool, rs->set.seed);
    rc = rl__vecenv_create_seated(v, c->env->desc, c->env_opts.vals, c->env_stages.vals, boards, rs->set.seed, threads,
                                  repeat, &seating, rs->err, sizeof rs->err);
    if (rc != RL_OK) return rc == RL_ENOMEM ? rc : RL_ECONFIG;
    if (c->seats_given && !v->table && rs->set.writer)
        rl__log(RL_LOG_WARN, NULL, "env '%s' seats no players: the seats group is not used", c->env->desc->name);
    if (v->table && rl__world_size() > 1) {
        snprintf(rs->err, sizeof rs->err, "env '%s' seats players; a run with seats takes one process, not an MPI job",
                 c->env->desc->name);
        return RL_ECONFIG;
    }
    if (rs->searched && rl__world_size() > 1) {
        snprintf(rs->err, sizeof rs->err, "algo '%s' trains on search in one process, not an MPI job",
                 c->algo->desc->name);
        return RL_ECONFIG;
    }
    return RL_OK;
}

/* The self-play pool, when the learner plays itself without search: its
   opponents fill the opponent rows of the training envs v. */
static int open_pool(rl__run_state *rs, rl__vecenv *v)
{
    const rl__config *c = rs->c;
    if (!v->table || rs->searched || strcmp(val(&c->seats, RL__SEATS_OPPONENT)->s, "self")) return RL_OK;
    int rc = rl__selfplay_init(&rs->pool, c, &v->info, rl__table_opponent_rows(v->table), rs->set.out_dir, rs->err,
                               sizeof rs->err);
    if (rc != RL_OK) {
        rl__selfplay_free(&rs->pool); /* the members opened before the one refused */
        return rc;
    }
    rs->have_pool = 1;
    return RL_OK;
}

/* The evaluation envs and their opponents, when the run evaluates (after
   open_train: a game of seats is evaluated against named opponents). */
static int open_eval(rl__run_state *rs)
{
    const rl__config *c = rs->c;
    uint32_t repeat = (uint32_t)val(&c->env_host_stages, RL__ENVST_ACTION_REPEAT)->i;
    uint32_t n_eval = rs->set.eval_episodes < RL__MAX_EVAL_ENVS ? rs->set.eval_episodes : RL__MAX_EVAL_ENVS;
    if (!n_eval) return RL_OK;
    const char *const *opp;
    int rc;
    if (rs->train.table && (rc = rl__eval_opponents_check(c, rs->err, sizeof rs->err)) != RL_OK) return rc;
    if (rs->train.table && !rl__eval_opponents(c, &opp)) {
        snprintf(rs->err, sizeof rs->err,
                 "seats.eval_opponents is empty and the learner plays itself: name the opponents to evaluate "
                 "against (or set run.eval_episodes = 0)");
        return RL_ECONFIG;
    }
    rl__seating eval_seating =
        rl__seating_of(c, rs->train.table ? opp[0] : "random", 0, NULL, rl__eval_seed(rs->set.seed));
    rc = rl__vecenv_create_seated(&rs->eval, c->env->desc, rl__env_eval_opts(c), c->env_stages.vals, n_eval,
                                  rl__eval_seed(rs->set.seed), 1, repeat, &eval_seating, rs->err, sizeof rs->err);
    /* the env's options were accepted just above, so a refusal is the
       first evaluation opponent's (the config's) or else not the config's */
    if (rc != RL_OK) return rc == RL_ECONFIG && !rs->train.table ? RL_EIO : rc;
    rs->have_eval = 1;
    for (uint32_t o = 1; rs->eval.table && o <= rl__eval_opponents(c, &opp); o++) { /* each opens now, not at the end */
        rc = rl__table_set_opponent(rs->eval.table, opp[o % rl__eval_opponents(c, &opp)], 0, rs->err, sizeof rs->err);
        if (rc != RL_OK) return rc;
    }
    return RL_OK;
}

/* Settings, the locked run directory, envs, replicas and a resumed run's
   state: everything that can refuse, before the run directory changes. */
static int run_open(rl__run_state *rs, const rl__config *c, const rl__run_opts *o)
{
    read_settings(rs, c);
    int rc;
    if (o->resume_dir && c->env->caller) {
        snprintf(rs->err, sizeof rs->err,
                 "env '%s' belongs to the embedding program (rlh_env_register): its state is not in %s's "
                 "checkpoint, so the run cannot continue where it stopped; start a new run (the "
                 "checkpoint's policy still loads)",
                 c->env->desc->name, o->resume_dir);
        return RL_ECONFIG;
    }
    if (rs->set.writer) {
        rl__rundir_mode mode = o->resume_dir ? RL__RUNDIR_RESUME : o->force ? RL__RUNDIR_FORCE : RL__RUNDIR_NEW;
        if ((rc = rl__rundir_open(rs->set.out_dir, mode, &rs->dir, rs->err, sizeof rs->err)) != RL_OK) return rc;
    }
    if ((rc = open_train(rs, &rs->train, (uint32_t)val(&c->env_host, RL__ENV_NUM_ENVS)->i)) != RL_OK ||
        (rc = open_pool(rs, &rs->train)) != RL_OK || (rc = open_eval(rs)) != RL_OK)
        return rc;
    rs->rep.score_name = rs->train.info.score_name;
    if (rs->train.table) {
        rs->rep.seats = rl__table_seats(rs->train.table);
        rs->rep.turn_based = rl_env_info_turn_based(rl__table_site(rs->train.table).info);
    }
    rc = rl__replicas_open(&rs->reps, c, &rs->train.info, rs->train.n, rs->have_eval ? rs->eval.n : 1, rs->set.seed,
                           rl__schedule_steps(c), &rs->steps, rs->replicas_reason, sizeof rs->replicas_reason, rs->err,
                           sizeof rs->err);
    if (rc != RL_OK) return rc == RL_ENOMEM ? rc : RL_ECONFIG;
    rs->algo = rs->reps.algo[0];
    if (rs->searched &&
        (rc = rl__searched_open(&rs->search, c, &rs->train, rs->avt, rs->algo, rs->set.seed ^ 0x5ea4c4ull, rs->err,
                                sizeof rs->err)) != RL_OK)
        return RL_ECONFIG; /* as a search at play time: a cap too small is the config's */
    if (rs->avt->get_extension) {
        const rl_algo_eval_ext *e = rs->avt->get_extension(rs->algo, RL_EXT_ALGO_EVAL);
        if (e && RL_HAS_FIELD(e, rl_algo_eval_ext, training_done) && e->evaluated && e->training_done) rs->eval_ext = e;
        const rl_algo_state_ext *st = rs->avt->get_extension(rs->algo, RL_EXT_ALGO_STATE);
        if (st && RL_HAS_FIELD(st, rl_algo_state_ext, load) && st->save && st->load) rs->state_ext = st;
    }
    return o->resume_dir ? rl__run_resume(rs, o) : RL_OK;
}

/* An MPI job starts when every rank could: each rank brings its verdict and
   the largest wins.  A rank that could not start has said why; the others
   say that another rank could not. */
enum { AGREE_GO, AGREE_FAILED, AGREE_REFUSED };

static int verdict_of(int rc)
{
    return rc == RL_OK ? AGREE_GO : rc == RL_ECONFIG ? AGREE_REFUSED : AGREE_FAILED;
}

static int run_agree(rl__run_state *rs, int rc)
{
    if (rl__world_size() == 1) return rc;
    rs->agreed = 1;
    int all = rl__world_max(verdict_of(rc));
    if (rc != RL_OK || all == AGREE_GO) return rc;
    snprintf(rs->err, sizeof rs->err, "another rank of the MPI job could not start (its message says why)");
    return all == AGREE_REFUSED ? RL_ECONFIG : RL_EIO;
}

/* The writer takes the run directory (with --force the old run goes only
   now) and writes the resolved config into it. */
static int claim_dir(rl__run_state *rs)
{
    if (!rs->set.writer) return RL_OK;
    int rc = rl__rundir_claim(&rs->dir, rs->set.out_dir, rs->err, sizeof rs->err);
    if (rc != RL_OK) return rc;
    rl__sbuf cfg = {0};
    rl__config_format(rs->c, &cfg);
    rc = cfg.oom ? RL_ENOMEM
                 : rl__write_atomic(run_dir(rs), "config.cfg", NULL, cfg.data, cfg.len, 1, rs->err, sizeof rs->err);
    rl__sbuf_free(&cfg);
    return rc;
}

/* Everything was accepted: the run directory gets the resolved config, the
   terminal the banner, and the clocks start. */
static int run_start(rl__run_state *rs)
{
    const rl__config *c = rs->c;
    int rc = claim_dir(rs);
    if (rc != RL_OK) return rc;
    if (!rs->set.quiet) {
        uint32_t num_envs = (uint32_t)val(&c->env_host, RL__ENV_NUM_ENVS)->i;
        char agents[48] = "";
        if (rs->train.agents > 1) snprintf(agents, sizeof agents, " x %u agents", rs->train.agents);
        rl__say("rlhost: training %s on %s (%u env%s%s), %llu %ssteps -> %s", c->algo->desc->name, c->env->desc->name,
                num_envs, num_envs == 1 ? "" : "s", agents, (unsigned long long)rs->set.target,
                rs->train.agents > 1 ? "agent " : "", rs->set.out_dir);
        rl__report_optimizations(c, rl__pool_threads(rs->train.pool), rs->train.threads_reason, rs->reps.count,
                                 rs->replicas_reason);
        if (rs->searched) {
            const rl_value *g = c->search.vals;
            rl__say("Search: every training move searched, %lld simulations with the learner's network%s",
                    (long long)g[RL__SEARCH_SIMULATIONS].i, rs->train.table ? ", the learner at every seat" : "");
        } else if (rs->train.table) {
            const rl_value *ls = val(&c->seats, RL__SEATS_LEARNER_SEAT);
            char seat[32] = "every seat in turn";
            if (!ls->is_auto) snprintf(seat, sizeof seat, "seat %lld", (long long)ls->i);
            rl__say("Seats: the learner at %s against %s", seat,
                    rs->have_pool ? "its self-play pool (seats.draw, seats.pool_size)"
                                  : val(&c->seats, RL__SEATS_OPPONENT)->s);
        }
    }
    rl__report_start(&rs->rep);
    return RL_OK;
}

static void fill_stats(const rl__run_state *rs, rl__run_stats *stats)
{
    stats->steps = rs->steps;
    stats->wall_s = rl_now() - rs->clock.start;
    stats->env_s = rs->clock.env;
    stats->act_s = rs->clock.act;
    stats->update_s = rs->clock.update;
    stats->env_threads = rl__pool_threads(rs->train.pool);
    stats->replicas = rs->reps.count;
}

/* The end of training: the algorithm's training_done (keep_best's swap),
   the last metrics row, and the final checkpoint, which says it was
   written after training_done ("rlhost.phase": "final"). */
static int finish_training(rl__run_state *rs)
{
    int rc = RL_OK;
    char perr[RL_ERR_MAX] = "";
    for (uint32_t r = 0; rs->eval_ext && rc == RL_OK && r < rs->reps.local; r++)
        rc = rs->eval_ext->training_done(rs->reps.algo[r], perr, sizeof perr);
    if (rc != RL_OK) {
        snprintf(rs->err, sizeof rs->err, "%s", perr);
        return fail(rs, rc, "algo training_done failed");
    }
    if (rs->steps > rs->rep.log.last_step) report_row(rs);
    rs->final_phase = 1;
    if ((rc = rl__run_checkpoint(rs)) != RL_OK) return fail(rs, rc, "writing the final checkpoint failed");
    return RL_OK;
}

/* The loop, then what ends the run.  A signal, in the loop or in a periodic
   evaluation, ends it with a checkpoint of the exact state (no keep_best
   swap, no partial metrics row), so --resume continues as if never
   stopped.  Else the end of training with its final checkpoint, then the
   final evaluation; a signal there leaves that checkpoint, and --resume
   redoes only the evaluation.  *interrupted says whether a signal ended it. */
static int run_train(rl__run_state *rs, int *interrupted, eval_result *final_eval, rl__run_stats *stats)
{
    int rc = train_loop(rs);
    if (rc != RL_OK && rl__world_size() > 1) { /* the other ranks wait in a collective: end the job */
        rl__log(RL_LOG_ERROR, NULL, "rank %u: %s", rl__world_rank(), rs->err);
        rl__world_abort(1);
    }
    *interrupted = rl__world_size() > 1 ? rs->stop : rl__stop_signal != 0;
    if (stats) fill_stats(rs, stats);
    if (rc == RL_OK && *interrupted) {
        if ((rc = rl__run_checkpoint(rs)) != RL_OK) fail(rs, rc, "writing the checkpoint failed");
    } else if (rc == RL_OK && !rs->final_phase) {
        rc = finish_training(rs);
    }
    if (rs->set.tty && !rs->set.quiet) {
        report_progress(rs, rl_now());
        rl__status_end();
    }
    if (rc != RL_OK || *interrupted || !rs->have_eval) return rc;
    /* Periodic evaluations advanced the eval envs; the final one starts the
       stream over, as `rlhost eval` of the checkpoint does. */
    rc = rl__vecenv_reseed(&rs->eval, rl__eval_seed(rs->set.seed), rs->err, sizeof rs->err);
    if (rc == RL_OK) rc = evaluate(rs, rs->set.eval_episodes, final_eval);
    if (rc == RL_EINTR) {
        memset(final_eval, 0, sizeof *final_eval);
        *interrupted = 1;
        return RL_OK;
    }
    if (rc != RL_OK) return fail(rs, rc, "evaluation failed");
    rl__report_eval(&rs->rep, rs->steps, final_eval, 1);
    return RL_OK;
}

/* The outputs, written whatever happened: nothing is lost.  The summary
   says "done" only once the final checkpoint and evaluation are complete;
   a run killed before that resumes into what it had left (see
   rl__run_resume).  Returns rc, or the writing's failure. */
static int run_finish(rl__run_state *rs, int rc, int interrupted, const eval_result *final_eval)
{
    char saved_err[RL_ERR_MAX];
    snprintf(saved_err, sizeof saved_err, "%s", rs->err);
    const char *status = rc != RL_OK ? "failed" : interrupted ? "interrupted" : "done";
    int wrc = rl__report_write(&rs->rep, 1);
    rl__report_at at = report_at(rs);
    if (wrc == RL_OK) wrc = rl__report_summary(&rs->rep, &at, final_eval, status);
    if (wrc != RL_OK) {
        rl__log(RL_LOG_ERROR, NULL, "%s", rs->err);
        if (rc == RL_OK) rc = wrc;
    }
    snprintf(rs->err, sizeof rs->err, "%s", saved_err);
    return rc;
}

/* The closing line on stdout: what ran, how fast, and the evaluation. */
static void print_result(const rl__run_state *rs, const eval_result *ev)
{
    const rl__config *c = rs->c;
    double wall = rl_now() - rs->clock.start;
    rl__sbuf b = {0};
    rl__sbuf_printf(&b, "%s %s on %s: %llu steps", rl__stop_signal ? "interrupted" : "done", c->algo->desc->name,
                    c->env->desc->name, (unsigned long long)rs->steps);
    if (rs->start_steps) /* resumed: this process ran only the rest */
        rl__sbuf_printf(&b, " (resumed at %llu: %llu more in %.2f s)", (unsigned long long)rs->start_steps,
                        (unsigned long long)(rs->steps - rs->start_steps), wall);
    else
        rl__sbuf_printf(&b, " in %.2f s (%.0f steps/s)", wall, rs->steps / wall);
    if (ev->done) {
        rl__sbuf_printf(&b, ", eval return %.4g +- %.3g over %u episodes", ev->return_mean, ev->return_std,
                        ev->episodes);
        if (rs->train.info.score_name) rl__sbuf_printf(&b, ", %s %.4g", rs->train.info.score_name, ev->score_mean);
    }
    rl__result("%s", b.data ? b.data : "");
    rl__sbuf_free(&b);
}

static void run_close(rl__run_state *rs)
{
    rl__rundir_close(&rs->dir, rs->set.out_dir);       /* releases the lock */
    if (rs->searched) rl__searched_close(&rs->search); /* before the algorithm that values its leaves */
    rl__replicas_destroy(&rs->reps);
    rl__vecenv_destroy(&rs->eval);
    rl__vecenv_destroy(&rs->train);
    if (rs->have_pool) rl__selfplay_free(&rs->pool);
    rl__sbuf_free(&rs->rep.eval_cols);
    rl__sbuf_free(&rs->rep.eval_vals);
    rl__sbuf_free(&rs->rep.log.csv);
    rl__sbuf_free(&rs->rep.log.evals);
    rl__sbuf_free(&rs->rep.log.episodes);
    free(rs);
    signal(SIGINT, SIG_DFL);
    signal(SIGTERM, SIG_DFL);
    rl__log_set_level(RL_LOG_INFO);
}

/* What a run makes before it trains, each once, without a run directory:
   the algorithm first beside one training env (made for every env's
   rows, so that a config too large is refused in a moment) and the
   evaluation's envs and opponents; then every training env beside the
   one (which the algorithm's rl_algo_args still point into), the
   self-play pool and the training search. */
int rl__run_check(const rl__config *c)
{
    rl__run_state *rs = calloc(1, sizeof *rs);
    if (!rs) {
        rl__log(RL_LOG_ERROR, NULL, "out of memory");
        return RL_ENOMEM;
    }
    read_settings(rs, c);
    rs->set.writer = 0; /* no run directory; the warnings are the run's own to give */
    uint32_t boards = (uint32_t)val(&c->env_host, RL__ENV_NUM_ENVS)->i;
    rl__vecenv all = {0};
    rl__vecenv *v = boards > 1 ? &all : &rs->train;
    int rc = open_train(rs, &rs->train, 1);
    if (rc == RL_OK) rc = open_eval(rs);
    if (rc == RL_OK) {
        rc = rl__replicas_open(&rs->reps, c, &rs->train.info, rs->train.n * boards, rs->have_eval ? rs->eval.n : 1,
                               rs->set.seed, rl__schedule_steps(c), &rs->steps, rs->replicas_reason,
                               sizeof rs->replicas_reason, rs->err, sizeof rs->err);
        if (rc != RL_OK && rc != RL_ENOMEM) rc = RL_ECONFIG;
    }
    if (rc == RL_OK && boards > 1) rc = open_train(rs, &all, boards);
    if (rc == RL_OK) rc = open_pool(rs, v);
    if (rc == RL_OK && rs->searched) {
        rs->algo = rs->reps.algo[0];
        if (rl__searched_open(&rs->search, c, v, rs->avt, rs->algo, rs->set.seed ^ 0x5ea4c4ull, rs->err,
                              sizeof rs->err) != RL_OK)
            rc = RL_ECONFIG;
    }
    if (rc != RL_OK && rs->err[0]) rl__log(RL_LOG_ERROR, NULL, "%s", rs->err);
    run_close(rs);
    rl__vecenv_destroy(&all); /* after the pool and the search that read it */
    return rc;
}

int rl__run(const rl__config *c, const rl__run_opts *o, rl__run_stats *stats)
{
    static const rl__run_opts defaults = {0};
    if (!o) o = &defaults;
    rl__run_state *rs = calloc(1, sizeof *rs);
    if (!rs) {
        rl__log(RL_LOG_ERROR, NULL, "out of memory");
        return RL_ENOMEM;
    }
    rl__stop_signal = 0;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    if (c->run.vals[RL__RUN_QUIET].i || rl__world_rank() != 0) rl__log_set_level(RL_LOG_WARN);

    int rc = run_open(rs, c, o);
    if (rc != RL_OK && rl__stop_signal) rc = RL_EINTR; /* Ctrl-C while a plugin was creating (a model compiling) */
    rc = run_agree(rs, rc);
    if (rc == RL_OK) rc = run_start(rs);
    if (rc == RL_OK) {
        int interrupted = 0;
        eval_result final_eval = {0};
        rc = run_train(rs, &interrupted, &final_eval, stats);
        rc = run_finish(rs, rc, interrupted, &final_eval);
        if (stats && final_eval.done) {
            stats->evaluated = 1;
            stats->eval_return = final_eval.return_mean;
            stats->eval_score = final_eval.score_mean;
            stats->score_name = rs->train.info.score_name;
        }
        if (rc == RL_OK && !o->silent && rs->set.writer && (!rs->set.quiet || final_eval.done))
            print_result(rs, &final_eval);
        if (rc == RL_OK && rl__stop_signal) rc = RL_EINTR;
    }
    if (rc != RL_OK && rc != RL_EINTR && rs->err[0]) rl__log(RL_LOG_ERROR, NULL, "%s", rs->err);
    run_close(rs);
    return rc;
}
