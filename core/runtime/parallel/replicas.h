/* Data-parallel replicas in one process: R algorithm instances, each
   owning a contiguous slice of the training envs, stepped in lockstep on R
   threads (the caller is replica 0), and the allreduce they share
   (rl_replicas, ABI 1.1).  The sum adds the replicas' buffers in replica
   order, each thread summing one chunk of the elements, so the result does
   not depend on timing.  R = 1 is the single-instance run, call for call. */
#ifndef RLHOST_REPLICAS_H
#define RLHOST_REPLICAS_H

#include "spaces/spaces.h"
#include "plugin/config.h"
#include "parallel/pool.h"

struct rl__replica_member;

typedef struct rl__replicas {
    uint32_t count, per;   /* replicas in the job; training envs each */
    uint32_t local, first; /* those of this process: first .. first + local - 1
                              (all of them, unless an MPI job splits them) */
    int shared;            /* every replica observes all envs; replica 0 acts */
    const rl_algo_vtable *avt;
    rl__space space;                          /* the env's action space */
    void *algo[RL__MAX_REPLICAS];             /* this process's, local of them */
    unsigned char *exchange;                  /* MPI: every rank's actions and stop flag */
    rl__pool *pool;                           /* local threads, one replica each */
    struct rl__coop *coop;                    /* or the replicas as coroutines on one thread */
    int mode;                                 /* RL__REPLICAS_AUTO, _THREADS or _COROUTINES */
    int as_coroutines;                        /* auto's current choice */
    double next_look;                         /* when auto looks at the machine's load again */
    double look_wall, look_machine, look_own; /* what it saw the last time */
    struct rl__replica_group *group;
    char err[RL__MAX_REPLICAS][RL_ERR_MAX];
} rl__replicas;

/* How the replicas of one process run: threads (one core each), or
   coroutines on one thread when the machine has fewer free cores than
   replicas (auto looks every 0.2 s).  RLHOST_REPLICAS_MODE=threads or
   coroutines fixes it (tests); results are identical either way. */
enum { RL__REPLICAS_AUTO, RL__REPLICAS_THREADS, RL__REPLICAS_COROUTINES };

/* The allreduce service alone: count members, member r's table for the
   thread that acts as replica r. */
struct rl__replica_group *rl__replica_group_create(uint32_t count);
const rl_replicas *rl__replica_group_api(struct rl__replica_group *g, uint32_t index);
void rl__replica_group_destroy(struct rl__replica_group *g); /* NULL is a no-op */

/* The replica table of a run without replicas (count 1, index 0). */
const rl_replicas *rl__replicas_single(void);
/* The step count of an instance that never trains (rl_algo_args.steps). */
extern const uint64_t rl__no_steps;

/* Creates count instances of c's algorithm (steps: what rl_algo_args.steps
   points to, NULL for a count that stays 0), replica r for training envs
   [r * num_envs / count, (r + 1) * num_envs / count) when count divides
   num_envs, else all of them sharing every env (rl_replicas.shared_envs).
   On failure a sentence in err (the plugin's, for create). */
int rl__replicas_create(rl__replicas *g, const rl__config *c, const rl_env_info *info, uint32_t num_envs,
                        uint32_t n_eval, uint64_t seed, uint64_t total_steps, const uint64_t *steps, uint32_t count,
                        char *err, size_t errlen);
void rl__replicas_destroy(rl__replicas *g); /* a zeroed g is a no-op */

/* run.replicas resolved and the replicas created: a number is used as
   given (the algorithm's create may refuse it, e.g. PPO when it does not
   split num_envs); auto tries the cores available down to 1, skipping
   counts that the algorithm refuses.  An algorithm without
   RL_DESC_REPLICAS (any ABI 1.0 plugin) runs as one replica.  why gets the
   explanation for the Optimizations table. */
int rl__replicas_open(rl__replicas *g, const rl__config *c, const rl_env_info *info, uint32_t num_envs, uint32_t n_eval,
                      uint64_t seed, uint64_t total_steps, const uint64_t *steps, char *why, size_t whylen, char *err,
                      size_t errlen);

/* One training step's calls, each replica on its slice, all at once.
   obs/start/actions/transition cover all envs; row_bytes is one env's
   observation.  The first failure's sentence goes to err.  In an MPI job
   act also hands every rank the other ranks' actions, and *stop (this
   process's wish to stop) comes back as the job's: 1 when any rank wants
   to, so all stop before the same step. */
int rl__replicas_act(rl__replicas *g, const void *obs, size_t row_bytes, const uint8_t *start, const uint8_t *masks,
                     void *actions, int *stop, char *err, size_t errlen);
int rl__replicas_observe_update(rl__replicas *g, const rl_transition *t, size_t row_bytes, uint64_t step, char *err,
                                size_t errlen);

/* rl.algo.state/1 of this process's replicas into one checkpoint: replica
   0's tensors under their own names (a one-replica checkpoint is what it
   always was), replica r's under "replica<r>/". */
int rl__replicas_state(rl__replicas *g, const rl_algo_state_ext *ext, const rl_state_io *io, int load, char *err,
                       size_t errlen);

#endif
