/* The state of one `rlhost run`, shared by run.c (the phases and the loop)
   and run_checkpoint.c (what its checkpoints hold beside the algorithm's
   state, and resume); the report (report.h) gets values, not this.  Not
   installed; nothing outside the run reads it. */
#ifndef RLHOST_RUN_INTERNAL_H
#define RLHOST_RUN_INTERNAL_H

#include "checkpoint/safetensors.h"
#include "run/eval.h"
#include "base/files.h"
#include "parallel/replicas.h"
#include "run/rundir.h"
#include "run/report.h"
#include "run/run.h"
#include "run/searched.h"
#include "env/vecenv.h"
#include "seats/opponent.h"
#include "base/text.h"

typedef rl__eval_result eval_result;

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
    rl__report rep;    /* its log; it points at set, clock, dir.fd and err */
    rl__rundir dir;    /* the locked run directory (fd -1 on other MPI ranks) */
    int envs_restored; /* a resume restored the envs exactly: no reset */
    /* the resume read checkpoint.prev (the newest was bad) or replay.prev
       (rl__restore.replay_from_prev): the next save replaces the newer file
       without keeping it, so the pair it resumed from stays until the new
       pair is whole */
    int ckpt_keep_prev, replay_keep_prev;
    int eval_episodes_set; /* a resume changes run.eval_episodes: the eval envs may not match */
    int eval_due;          /* the periodic evaluation of this step was interrupted: redo it first */
    int final_phase;       /* training_done ran; the final checkpoint says so */
    int agreed;            /* an MPI job's ranks have agreed to start */
    int stop;              /* an MPI job's agreed stop (see rl__replicas_act) */
    rl__selfplay pool;     /* self-play: the learner's snapshots (have_pool) */
    int have_pool;
    uint64_t next_snapshot; /* the step of the next snapshot into the pool */
    rl__searched search;    /* the training moves of an algorithm that trains on search (searched) */
    int searched;
    char err[RL_ERR_MAX];
} rl__run_state;

/* Where the run writes: its directory's descriptor, held since it was locked. */
static inline rl__dir run_dir(const rl__run_state *rs)
{
    return (rl__dir){rs->dir.fd, rs->set.out_dir};
}

/* What the report reads of the run now. */
static inline rl__report_at report_at(rl__run_state *rs)
{
    return (rl__report_at){rs->steps, rs->start_steps, &rs->train.stats, rl__pool_threads(rs->train.pool)};
}

/* run_checkpoint.c */
int rl__run_gather_state(rl__run_state *rs, const rl_state_io *io);
int rl__run_checkpoint(rl__run_state *rs);
/* A snapshot of the learner now into the self-play pool (the run
   directory's pool/), which then draws it. */
int rl__run_snapshot(rl__run_state *rs);
/* The eval envs' state into snap (load 0; snap starts empty) or back from
   it (load 1): taken before a periodic evaluation, so that one cut short by
   a signal leaves them as they were.  A no-op for envs without a state
   extension. */
int rl__run_eval_envs(rl__run_state *rs, rl__ckpt *snap, int load);
/* RL_OK, or an error with the sentence in rs->err (RL_ECONFIG for a run
   that is complete) */
int rl__run_resume(rl__run_state *rs, const rl__run_opts *o);

#endif
