/* The host's own option tables (host_schema.c): the run group and what the
   host adds to every env group, with the indices of their values. */
#ifndef RLHOST_HOST_SCHEMA_H
#define RLHOST_HOST_SCHEMA_H

/* The TensorBoard event file run.tensorboard writes into out_dir. */
#define RL__TB_FILE "events.out.tfevents.rlhost"

#include <rlhost/plugin.h>

/* Indices into the host's run and env schemas. */
enum {
    RL__RUN_STEPS,
    RL__RUN_SEED,
    RL__RUN_OUT_DIR,
    RL__RUN_LOG_INTERVAL,
    RL__RUN_EVAL_INTERVAL,
    RL__RUN_EVAL_EPISODES,
    RL__RUN_CHECKPOINT_INTERVAL,
    RL__RUN_QUIET,
    RL__RUN_REPLICAS,
    RL__RUN_TENSORBOARD,
    RL__RUN_SCHEDULE_STEPS,
    RL__RUN_N
};
#define RL__MAX_REPLICAS 64
enum { RL__ENV_NUM_ENVS, RL__ENV_N };
enum { RL__ENVST_THREADS, RL__ENVST_ACTION_REPEAT, RL__ENVST_N };
/* The seats group: who plays an env's seats (ABI 1.7) beside the learner. */
enum {
    RL__SEATS_OPPONENT,
    RL__SEATS_LEARNER_SEAT,
    RL__SEATS_POOL_SIZE,
    RL__SEATS_SNAPSHOT_INTERVAL,
    RL__SEATS_DRAW,
    RL__SEATS_EVAL_OPPONENTS,
    RL__SEATS_SNAPSHOT_OPTIONS,
    RL__SEATS_POOL_OPPONENTS,
    RL__SEATS_N
};
enum { RL__DRAW_LATEST, RL__DRAW_UNIFORM, RL__DRAW_PFSP };
/* The search group: how the host searches the training moves of an
   algorithm that trains on search (RL_DESC_SEARCHED, ABI 1.10). */
enum {
    RL__SEARCH_SIMULATIONS,
    RL__SEARCH_C_PUCT,
    RL__SEARCH_DIRICHLET_ALPHA,
    RL__SEARCH_DIRICHLET_FRAC,
    RL__SEARCH_TEMPERATURE,
    RL__SEARCH_TEMPERATURE_MOVES,
    RL__SEARCH_THREADS,
    RL__SEARCH_MAX_MIB,
    RL__SEARCH_POLICY_TARGET,
    RL__SEARCH_C_VISIT,
    RL__SEARCH_C_SCALE,
    RL__SEARCH_N
};

const rl_option_def *rl__run_schema(uint32_t *n);
const rl_option_def *rl__env_host_schema(uint32_t *n);
const rl_option_def *rl__env_host_stages(uint32_t *n);
const rl_option_def *rl__seats_schema(uint32_t *n);
const rl_option_def *rl__search_schema(uint32_t *n);

#endif
