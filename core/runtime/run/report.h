/* What a run reports (report.c): the rows of metrics.csv and evals.csv,
   summary.json, the progress lines on the terminal and the Optimizations:
   table.  The report keeps its own rows and reads the run through values
   it is handed: the config, the settings and the clock it points at, and
   at each call the step counts and episode statistics (rl__report_at) or
   the algorithm's metrics.  Only the writer (rank 0 of an MPI job) writes
   files. */
#ifndef RLHOST_RUN_REPORT_H
#define RLHOST_RUN_REPORT_H

#include "base/text.h"
#include "env/vecenv.h"
#include "plugin/config.h"
#include "run/eval.h"

#define RL__RUN_MAX_METRICS 32

/* A config group's value i (RL__RUN_*, RL__ENV_*, ...), as the run's files read them. */
static inline const rl_value *val(const rl__group *g, int i)
{
    return &g->vals[i];
}

/* What the config and the process say, read once at the start. */
typedef struct rl__run_settings {
    uint64_t target; /* run.steps */
    uint64_t seed;
    uint32_t eval_episodes;
    int quiet, tty;
    int writer; /* writes the run directory: rank 0 of an MPI job */
    char out_dir[4096];
} rl__run_settings;

/* Where the wall time went (seconds since the run's start for `start`,
   sums over the loop for the rest). */
typedef struct rl__run_clock {
    double start, act, env, update;
    double epoch_start; /* the run's start, seconds since the epoch (TensorBoard) */
} rl__run_clock;

/* metrics.csv and evals.csv as built so far, episodes.csv's rows not yet
   appended, and where the last row was. */
typedef struct rl__run_log {
    rl__sbuf csv, evals;
    rl__sbuf episodes;     /* rows since the last append */
    int episodes_header;   /* the file (or episodes) has its header */
    int episodes_unsynced; /* rows appended since the last fsync */
    int episodes_cut;      /* resumed: the file is cut back to episodes_cut_at at the start */
    uint64_t episodes_cut_at;
    rl_metric last_metrics[RL__RUN_MAX_METRICS]; /* the last row's, for auto stages */
    size_t n_last_metrics;
    const char *algo_cols[RL__RUN_MAX_METRICS];
    size_t n_algo_cols;
    int header_done;
    double last_wall, last_cpu, last_write, last_progress;
    uint64_t last_step;
    double last_act, last_env, last_update;
    rl__eval_result last_eval;
    int pending_eval; /* last_eval not yet in a metrics row */
} rl__run_log;

typedef struct rl__report {
    const rl__config *c;
    const rl__run_settings *set;
    rl__run_clock *clock;   /* the loop adds to it; rl__report_start sets its start */
    const int *dir_fd;      /* the locked run directory's descriptor, once open */
    const char *score_name; /* the env's score column, or NULL */
    /* the env's seats (0: none) and whether they take turns, as the
       summary says them (the web page builds a game page from them) */
    uint32_t seats;
    int turn_based;
    char *err; /* where a failed write's sentence goes */
    size_t errlen;
    rl__run_log log;
    /* an env with seats: evals.csv's columns of the games against each
       evaluation opponent (",vs_random_seat0_win,...") and the last
       evaluation's values of them (",0.91,..."), both set by the run */
    rl__sbuf eval_cols, eval_vals;
} rl__report;

/* Where the run is at a report. */
typedef struct rl__report_at {
    uint64_t steps, start_steps; /* start_steps: where a resumed run began */
    rl__ep_stats *stats;         /* the training envs' episodes (a row resets its interval) */
    uint32_t env_threads;        /* as the pool runs them */
} rl__report_at;

/* The clocks start (and a resumed run's episodes.csv is cut back). */
void rl__report_start(rl__report *r);
/* evals.csv: a row for every evaluation, periodic or final, at steps. */
void rl__report_eval(rl__report *r, uint64_t steps, const rl__eval_result *ev, int final);
/* episodes.csv: a row for each training episode that ended in the step
   that reached steps (v's rows whose episode ended). */
void rl__report_episodes(rl__report *r, uint64_t steps, const rl__vecenv *v);
/* metrics.csv, evals.csv (and TensorBoard's events) written atomically,
   and episodes.csv's new rows appended; sync makes all of it durable. */
int rl__report_write(rl__report *r, int sync);
/* A metrics row of the algorithm's metrics m[0..nm) (replica 0's, as its
   metrics() reset them), and its terminal line. */
void rl__report_row(rl__report *r, const rl__report_at *at, const rl_metric *m, size_t nm);
void rl__report_progress(rl__report *r, const rl__report_at *at, double now);
int rl__report_summary(rl__report *r, const rl__report_at *at, const rl__eval_result *ev, const char *status);
/* The Optimizations: table on stderr. */
void rl__report_optimizations(const rl__config *c, uint32_t env_threads, const char *threads_reason, uint32_t replicas,
                              const char *replicas_reason);
/* A resumed run keeps the rows up to the checkpoint's steps; episodes.csv
   is cut back to them on disk by rl__report_start, once the run was
   accepted. */
void rl__report_load(rl__report *r, uint64_t steps);
/* 1 when the run directory's summary.json says the run is done */
int rl__report_says_done(const rl__report *r);

#endif
