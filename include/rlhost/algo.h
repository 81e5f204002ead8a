/*
 * <rlhost/algo.h> — the algorithm half of the plugin ABI: acting modes,
 * replicas, create arguments, transitions, the vtable and the optional
 * capabilities.  Part of <rlhost/plugin.h>, whose rules hold here; including
 * either header brings both.
 */
#include <rlhost/plugin.h>

#ifndef RLHOST_ALGO_H
#define RLHOST_ALGO_H

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Algorithm plugins ---------------------------------------------------- */

typedef enum rl_act_mode {
    RL_MODE_TRAIN = 0, /* exploration on; the state used by observe/update */
    RL_MODE_EVAL       /* greedy (unless the algo's options say otherwise);
                          separate recurrent state for the eval envs */
} rl_act_mode;
/* The names before 1.4's headers, for old plugins' sources (RL_ACT_* is
   the prefix of the activations in <rlhost/nn.h>). */
#define RL_ACT_TRAIN RL_MODE_TRAIN
#define RL_ACT_EVAL RL_MODE_EVAL

/* ABI 1.1: data-parallel training.  A run may have R replicas, each an
   algorithm instance of its own that owns a contiguous slice of the
   training envs (num_envs of rl_algo_args are the replica's share) and a
   share of every minibatch.  Before each optimizer step the replicas sum
   their gradients with allreduce, and all take the same step, so their
   parameters stay identical.  The sum adds the replicas' buffers in replica
   order 0, 1, ..., R-1 whatever the transport (threads in one process, or
   MPI ranks), so results depend on (config, seed, R) only.  With R = 1
   every call returns at once and leaves buf as it is.
   When the envs cannot be split (fewer than R, or not a multiple of R) the
   replicas share them instead (shared_envs = 1): every replica observes
   every env's transitions, and replica 0's act() alone drives the envs;
   an algorithm that needs envs of its own refuses that at create. */
typedef struct rl_replicas {
    uint32_t struct_size;
    uint32_t count; /* R >= 1 */
    uint32_t index; /* this replica, 0 .. R-1; replica 0 also evaluates */
    void *ctx;
    /* the replica's thread.  Every replica makes the same calls in the
       same order with the same n; each blocks until all have arrived, then
       buf holds the elementwise sum over the replicas, identical in all. */
    int (*allreduce_f32)(void *ctx, float *buf, size_t n);
    int (*allreduce_f64)(void *ctx, double *buf, size_t n);
    uint32_t shared_envs; /* see above; num_envs is then all of them */
    /* Sharded optimizer steps (read only when struct_size covers them).
       Replica r owns the slice [n r / R, n (r + 1) / R) of an n-element
       buffer (rl_replica_slice).  reduce_scatter_f32 leaves in buf's own
       slice the sum over the replicas, element i added in replica order as
       allreduce_f32 adds it (the rest of buf is then unspecified);
       allgather_f32 copies every replica's slice of its buf into the same
       slice of every other replica's buf.  Collective, like allreduce: so a
       step can sum, clip and update each slice on one replica only, and
       gather the updated parameters (rl_replicated_adam_step). */
    int (*reduce_scatter_f32)(void *ctx, float *buf, size_t n);
    int (*allgather_f32)(void *ctx, float *buf, size_t n);
} rl_replicas;

/* The slice [*lo, *hi) of an n-element buffer that replica rep->index owns. */
static inline void rl_replica_slice(const rl_replicas *rep, size_t n, size_t *lo, size_t *hi)
{
    *lo = n * rep->index / rep->count;
    *hi = n * (rep->index + 1) / rep->count;
}

typedef struct rl_algo_args {
    uint32_t struct_size;
    const rl_env_info *env;
    uint32_t num_envs;      /* training envs, rows of act/observe batches */
    uint32_t num_eval_envs; /* rows of RL_MODE_EVAL batches */
    uint64_t seed;
    uint64_t total_steps; /* env steps the schedules span: run.schedule_steps, else run.steps */
    const rl_value *options;
    const rl_value *stages;
    const rl_host_api *host;
    /* ABI 1.1 (read only when struct_size covers it): the replica this
       instance is; never NULL from a 1.1 host.  Only descriptors with
       RL_DESC_REPLICAS get a count above 1. */
    const rl_replicas *replicas;
    /* ABI 1.2 (read only when struct_size covers it): nonzero when the
       instance will only act on num_eval_envs rows (eval, play, the
       embedding API) from a checkpoint of a run with any replica count: it
       may leave out what training needs (replay, rollout, optimizer) and
       load only what acting reads.  num_envs is then still the run's. */
    uint32_t inference;
    /* ABI 1.5 (read it with rl_args_steps): the env steps the run has
       taken so far, all envs counted, as update's step counts them: in act,
       the steps before the one being chosen.  The host keeps it current
       for the instance's life (a resumed run's count included), so an
       exploration schedule needs no counter of its own; it stays 0 for an
       instance that never trains (eval, play, the embedding API). */
    const uint64_t *steps;
    /* ABI 1.12 (read it with rl_args_act_workers): the most act_batch calls
       that may run at once, each with its own rl_act_batch.worker, for an
       algorithm with RL_DESC_ACT_WORKERS (1 otherwise): the scratch to make
       in create. */
    uint32_t act_workers;
} rl_algo_args;

/* The fields of rl_algo_args and rl_replicas that later minors added, read
   whatever the host's version.  Inline: they only read the structs.
   librlcore also exports them out of line, from these definitions
   (core/rlcore/compat.c): plugins built against the headers of 1.4 and before
   call rl_args_replicas, rl_args_inference and rl_replicas_shared there. */
#ifdef RL__ACCESSORS_OUT_OF_LINE
#define RL__ACCESSOR
const rl_replicas *rl_args_replicas(const rl_algo_args *args);
int rl_args_inference(const rl_algo_args *args);
int rl_replicas_shared(const rl_replicas *r);
uint64_t rl_args_steps(const rl_algo_args *args);
uint32_t rl_args_act_workers(const rl_algo_args *args);
#else
#define RL__ACCESSOR static inline
#endif
/* The replica table create() was given: NULL from a host older than 1.1
   (then the algorithm is the only replica). */
RL__ACCESSOR const rl_replicas *rl_args_replicas(const rl_algo_args *args)
{
    return RL_HAS_FIELD(args, rl_algo_args, replicas) ? args->replicas : NULL;
}
/* rl_algo_args.inference, 0 from a host too old to say. */
RL__ACCESSOR int rl_args_inference(const rl_algo_args *args)
{
    return RL_HAS_FIELD(args, rl_algo_args, inference) && args->inference;
}
/* *rl_algo_args.steps, 0 from a host older than 1.5. */
RL__ACCESSOR uint64_t rl_args_steps(const rl_algo_args *args)
{
    return RL_HAS_FIELD(args, rl_algo_args, steps) && args->steps ? *args->steps : 0;
}
/* rl_algo_args.act_workers, at least 1; 1 from a host older than 1.12. */
RL__ACCESSOR uint32_t rl_args_act_workers(const rl_algo_args *args)
{
    return RL_HAS_FIELD(args, rl_algo_args, act_workers) && args->act_workers > 1 ? args->act_workers : 1;
}
/* Whether the replicas share the envs (rl_replicas.shared_envs; 0 without
   a table, or with one too old to say). */
RL__ACCESSOR int rl_replicas_shared(const rl_replicas *r)
{
    return r && RL_HAS_FIELD(r, rl_replicas, shared_envs) && r->shared_envs;
}
#undef RL__ACCESSOR

/* One vectorized env step, as the algorithm sees it. */
typedef struct rl_transition {
    uint32_t struct_size;
    uint32_t count;  /* = num_envs */
    const void *obs; /* what act() saw */
    const int32_t *actions;
    const float *rewards;
    const void *next_obs;  /* after auto-reset where an episode ended */
    const void *final_obs; /* valid where terminated || truncated */
    const uint8_t *terminated;
    const uint8_t *truncated;
    /* ABI 1.2, BOX action spaces (actions is NULL then; a hybrid action,
       ABI 1.11, has both): [count][action floats],
       what act_box chose, before the host clipped it into the box for the
       env: an on-policy algorithm's log-probabilities stay those of its
       sample */
    const float *box_actions;
    /* ABI 1.6: MultiDiscrete actions are [count][action_dim] in actions.
       For an env that masks, [count][mask width] bytes each: the masks of
       obs (what act_masked saw), of next_obs and of final_obs (valid
       where an episode ended), NULL otherwise. */
    const uint8_t *masks;
    const uint8_t *next_masks;
    const uint8_t *final_masks;
    /* ABI 1.10, for an algorithm with RL_DESC_SEARCHED (NULL otherwise):
       search_policy [count][n_actions], the policy target of obs's
       search, a distribution over its allowed moves: the root's visit
       counts normalized to sum 1 (AlphaZero's), or with the search group's
       policy_target = "improved" (ABI 1.15) the root's improved policy
       (rl_search_improved_policy), and
       same_mover [count], nonzero where next_obs (or final_obs) is the
       same agent's as obs (one agent, or a turn-based game where the mover
       moves again), 0 where it is the other player's of a two-player
       zero-sum game, whose return is the negation of the mover's. */
    const float *search_policy;
    const uint8_t *same_mover;
    /* ABI 1.13, for an algorithm with RL_DESC_SEARCHED (NULL otherwise):
       search_value [count], the search's mean backed-up value at obs's
       root from its mover's side, in the units of the algorithm's own
       values (a value target of its own, mixed with the game's return). */
    const float *search_value;
} rl_transition;

/* ABI 1.8: one act call, rows [0, count) of a batch.  The host fills it;
   a field a later minor appends is read only where RL_HAS_FIELD says the
   host's struct_size covers it. */
typedef struct rl_act_batch {
    uint32_t struct_size;
    rl_act_mode mode;
    uint32_t count;
    const void *obs;              /* [count] observation rows, as the env wrote them */
    const uint8_t *episode_start; /* [count]: nonzero where the row is an episode's first
                                     (reset recurrent state) */
    /* [count][mask width] for an env that masks (rl_env_info_mask_width),
       nonzero where an action is allowed; NULL: every action allowed.  The
       host refuses an action the mask forbids. */
    const uint8_t *masks;
    /* written: discrete and MultiDiscrete actions, [count][action ints]
       (rl_env_info_action_ints); NULL for a box space */
    int32_t *actions;
    /* written: box actions, [count][action floats] (rl_env_info_action_floats);
       NULL for a discrete space.  The host clips each into the box before
       the env sees it (a NaN is an error), and hands back the values as
       chosen in rl_transition.box_actions.  ABI 1.11: a hybrid action
       writes both, actions and box_actions. */
    float *box_actions;
    /* ABI 1.9, read where struct_size covers them, asked of an algorithm
       with RL_DESC_VALUES (NULL otherwise, and when not asked): probs
       [count][n_actions], the policy's probability of each discrete action
       under the row's mask, and values [count], its value estimate of the
       row (the return to the row's agent).  A policy that cannot (a
       recurrent one) fails with a sentence. */
    float *probs;
    float *values;
    /* ABI 1.12: the thread calling, 0 .. rl_algo_args.act_workers - 1, for
       an algorithm with RL_DESC_ACT_WORKERS (always 0 otherwise); two calls
       at once never share one. */
    uint32_t worker;
} rl_act_batch;

/* No struct_size (see the rules at the top): an array element. */
typedef struct rl_metric {
    const char *name; /* static storage in the plugin */
    double value;
} rl_metric;

typedef struct rl_algo_vtable {
    uint32_t struct_size;
    /* main thread */
    int (*create)(const rl_algo_args *args, void **algo, char *err, size_t errlen);
    /* main thread; destroy(NULL) is a no-op */
    void (*destroy)(void *algo);
    /* Before ABI 1.8, discrete actions; a 1.8 algorithm sets act_batch
       instead and may leave act, act_box and act_masked NULL.  Same
       threading as act_batch; episode_start[i] != 0 marks obs row i as the
       first of an episode. */
    int (*act)(void *algo, rl_act_mode mode, const void *obs, const uint8_t *episode_start, int32_t *actions,
               uint32_t count, char *err, size_t errlen);
    /* main thread: the transition batch of the step just taken */
    int (*observe)(void *algo, const rl_transition *t, char *err, size_t errlen);
    /* main thread, after each observe: train if due. step = env steps taken
       so far (all envs). */
    int (*update)(void *algo, uint64_t step, char *err, size_t errlen);
    /* main thread: current metrics (means since the last call); returns how
       many were written, at most cap */
    size_t (*metrics)(void *algo, rl_metric *out, size_t cap);
    /* main thread; NULL when the capability is absent */
    const void *(*get_extension)(void *algo, const char *id);
    /* ABI 1.2, before 1.8 required with RL_DESC_BOX: act for a BOX action
       space, count rows of action_dim floats (act_batch's box_actions). */
    int (*act_box)(void *algo, rl_act_mode mode, const void *obs, const uint8_t *episode_start, float *actions,
                   uint32_t count, char *err, size_t errlen);
    /* ABI 1.6, before 1.8 required with RL_DESC_MASKS or
       RL_DESC_MULTI_DISCRETE: act for a discrete or MultiDiscrete space with
       its masks (act_batch's actions and masks); the host called it instead
       of act for such an algorithm. */
    int (*act_masked)(void *algo, rl_act_mode mode, const void *obs, const uint8_t *episode_start, const uint8_t *masks,
                      int32_t *actions, uint32_t count, char *err, size_t errlen);
    /* ABI 1.8: the one way the host asks for actions, whatever the space:
       main thread (with replicas: the replica's own thread; one instance is
       never called from two threads at once, but replicas run at the same
       time, so instances share no mutable state).  The host calls it
       whenever the vtable has it, and an older plugin's act, act_box or
       act_masked otherwise. */
    int (*act_batch)(void *algo, const rl_act_batch *batch, char *err, size_t errlen);
} rl_algo_vtable;

/* Optional: hear about evaluations, "rl.algo.eval/1".  Lets an algorithm
   keep the best policy seen by periodic evaluation (run.eval_interval). */
#define RL_EXT_ALGO_EVAL "rl.algo.eval/1"
typedef struct rl_algo_eval_ext {
    uint32_t struct_size;
    /* main thread: a periodic greedy evaluation at env step `step` ended
       with this mean return */
    int (*evaluated)(void *algo, uint64_t step, double return_mean, char *err, size_t errlen);
    /* main thread: training is over; the final evaluation comes next */
    int (*training_done)(void *algo, char *err, size_t errlen);
} rl_algo_eval_ext;

#define RL_EXT_ALGO_STATE "rl.algo.state/1"
typedef struct rl_algo_state_ext {
    uint32_t struct_size;
    /* main thread, between steps */
    int (*save)(void *algo, const rl_state_io *io, char *err, size_t errlen);
    /* main thread, right after create */
    int (*load)(void *algo, const rl_state_io *io, char *err, size_t errlen);
} rl_algo_state_ext;

/* Defines `static const rl_algo_state_ext NAME` from one function
   STATE_FN(TYPE *algo, const rl_state_io *io, int load, char *err,
   size_t errlen) that saves (load 0) or loads (load 1) the algorithm's
   state: one function serves both directions, so they cannot drift apart. */
#define RL_ALGO_STATE_EXT(NAME, STATE_FN)                                               \
    static int NAME##_save(void *algo, const rl_state_io *io, char *err, size_t errlen) \
    {                                                                                   \
        return STATE_FN(algo, io, 0, err, errlen);                                      \
    }                                                                                   \
    static int NAME##_load(void *algo, const rl_state_io *io, char *err, size_t errlen) \
    {                                                                                   \
        return STATE_FN(algo, io, 1, err, errlen);                                      \
    }                                                                                   \
    static const rl_algo_state_ext NAME = {sizeof(rl_algo_state_ext), NAME##_save, NAME##_load}

/* RL_ALGO_STATE_EXT, and the get_extension of an algorithm whose one
   extension it is: `static const void *NAME##_get_extension(void *algo,
   const char *id)`, for the vtable.  (It ends on that function's
   declaration, which takes the statement's semicolon.) */
#define RL_ALGO_STATE_ONLY(NAME, STATE_FN)                                      \
    RL_ALGO_STATE_EXT(NAME, STATE_FN);                                          \
    static const void *NAME##_get_extension(void *algo, const char *id)         \
    {                                                                           \
        (void)algo;                                                             \
        return strcmp(id, RL_EXT_ALGO_STATE) == 0 ? (const void *)&NAME : NULL; \
    }                                                                           \
    static const void *NAME##_get_extension(void *algo, const char *id)

#ifdef __cplusplus
}
#endif

#endif /* RLHOST_ALGO_H */
