/* The state of one `rlhost run`, shared by its three files: run.c (the
   phases and the loop), run_report.c (metrics.csv, evals.csv, summary.json
   and what the terminal shows) and run_checkpoint.c (what its checkpoints hold beside the algorithm's state, and resume).
   Not installed; nothing outside the run reads it. */
#ifndef RLHOST_RUN_INTERNAL_H
#define RLHOST_RUN_INTERNAL_H

#include "checkpoint/safetensors.h"
#include "run/eval.h"
#include "base/files.h"
#include "parallel/replicas.h"
#include "run/rundir.h"
#include "run/run.h"
#include "env/vecenv.h"
#include "base/text.h"

#define RL__RUN_MAX_METRICS 32

typedef rl__eval_result eval_result;

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

/* metrics.csv and evals.csv as built so far, and where the last row was. */
typedef struct rl__run_log {
    rl__sbuf csv, evals;
    rl_metric last_metrics[RL__RUN_MAX_METRICS]; /* the last row's, for auto stages */
    size_t n_last_metrics;
    const char *algo_cols[RL__RUN_MAX_METRICS];
    size_t n_algo_cols;
    int header_done;
    double last_wall, last_cpu, last_write, last_progress;
    uint64_t last_step;
    double last_act, last_env, last_update;
    eval_result last_eval;
    int pending_eval; /* last_eval not yet in a metrics row */
} rl__run_log;

typedef struct rl__run_state {
    const rl__config *c;
    const rl_algo_vtable *avt;
    rl__replicas reps;
    void *algo; /* reps.algo[0]: evaluates, reports metrics */
    char replicas_reason[160];
    const rl_algo_eval_ext *eval_ext;   /* optional, NULL when absent */
    const rl_algo_state_ext *state_ext; /* optional, NULL when absent */
    rl__vecenv train, eval;
    int have_eval;
    uint64_t steps, start_steps; /* start_steps: where a resumed run began */
    rl__run_settings set;
    rl__run_clock clock;
    rl__run_log log;
    rl__rundir dir;    /* the locked run directory (fd -1 on other MPI ranks) */
    int envs_restored; /* a resume restored the envs exactly: no reset */
    int eval_episodes_set; /* a resume changes run.eval_episodes: the eval envs may not match */
    int eval_due;      /* the periodic evaluation of this step was interrupted: redo it first */
    int final_phase;   /* training_done ran; the final checkpoint says so */
    int agreed;        /* an MPI job's ranks have agreed to start */
    int stop;          /* an MPI job's agreed stop (see rl__replicas_act) */
    char err[RL_ERR_MAX];
} rl__run_state;

static inline const rl_value *val(const rl__group *g, int i)
{
    return &g->vals[i];
}

/* Where the run writes: its directory's descriptor, held since it was locked. */
static inline rl__dir run_dir(const rl__run_state *rs)
{
    return (rl__dir){rs->dir.fd, rs->set.out_dir};
}

/* run_report.c */
void rl__report_start(rl__run_state *rs);
void rl__report_eval(rl__run_state *rs, const eval_result *ev, int final);
int rl__report_write(rl__run_state *rs, int sync);
void rl__report_row(rl__run_state *rs);
void rl__report_progress(rl__run_state *rs, double now);
int rl__report_summary(rl__run_state *rs, const eval_result *ev, const char *status);
void rl__report_optimizations(const rl__run_state *rs);
void rl__report_load(rl__run_state *rs);
/* 1 when the run directory's summary.json says the run is done */
int rl__report_says_done(const rl__run_state *rs);

/* run_state.c */
int rl__run_gather_state(rl__run_state *rs, const rl_state_io *io);
int rl__run_checkpoint(rl__run_state *rs);
/* The eval envs' state into snap (load 0; snap starts empty) or back from
   it (load 1): taken before a periodic evaluation, so that one cut short by
   a signal leaves them as they were.  A no-op for envs without a state
   extension. */
int rl__run_eval_envs(rl__run_state *rs, rl__ckpt *snap, int load);
/* RL_OK, or an error with the sentence in rs->err (RL_ECONFIG for a run
   that is complete) */
int rl__run_resume(rl__run_state *rs, const rl__run_opts *o);

#endif
