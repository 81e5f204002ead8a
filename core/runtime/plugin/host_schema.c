/* The host's own option tables: the run group, and the options and stages
   the host adds to every env group.  Data below both the config reader
   (which resolves them) and the loader (which refuses plugin options that
   take their names). */
#include "plugin/host_schema.h"

static const rl_option_def run_schema[RL__RUN_N] = {
    [RL__RUN_STEPS] = RL_OPTION_INT("steps", "100000", 1, 1e15, "environment steps to train, summed over all envs"),
    [RL__RUN_SEED] = RL_OPTION_INT("seed", "1", 0, 9007199254740992.0, "seed of every random stream in the run"),
    [RL__RUN_OUT_DIR] = RL_OPTION_STRING("out_dir", "\"\"", "output directory; empty means runs/ENV-ALGO"),
    [RL__RUN_LOG_INTERVAL] =
        RL_OPTION_INT("log_interval", "10000", 1, 1e15, "steps between metrics rows and progress lines"),
    [RL__RUN_EVAL_INTERVAL] =
        RL_OPTION_INT("eval_interval", "0", 0, 1e15, "steps between periodic greedy evaluations; 0 = only at the end"),
    [RL__RUN_EVAL_EPISODES] =
        RL_OPTION_INT("eval_episodes", "20", 0, 1e6, "greedy evaluation episodes (0 = no evaluation)"),
    [RL__RUN_CHECKPOINT_INTERVAL] = RL_OPTION_INT(
        "checkpoint_interval", "0", 0, 1e15, "steps between checkpoints (checkpoint.safetensors); 0 = only at the end"),
    [RL__RUN_QUIET] = RL_OPTION_BOOL("quiet", "false", "no progress output; metrics.csv written only at the end"),
    [RL__RUN_REPLICAS] =
        RL_OPTION_INT_F("replicas", "1", 1, RL__MAX_REPLICAS, RL_OPT_AUTO | RL_OPT_CHANGES_RESULTS,
                        "data-parallel replicas (threads), each with num_envs/R envs and a share of every "
                        "minibatch, gradients summed; auto = the cores the config can split over "
                        "(changes results: they depend on config, seed and R)"),
    [RL__RUN_TENSORBOARD] = RL_OPTION_BOOL("tensorboard", "false",
                                           "also write metrics.csv and evals.csv as a TensorBoard event file "
                                           "(" RL__TB_FILE ") in out_dir"),
    [RL__RUN_SCHEDULE_STEPS] =
        RL_OPTION_INT("schedule_steps", "0", 0, 1e15,
                      "steps the algorithm's schedules span (a linear learning rate or clip range, "
                      "exploration decay); 0 = run.steps. Larger than run.steps trains the first part "
                      "of a longer run, as that run would"),
};

static const rl_option_def env_host_schema[RL__ENV_N] = {
    [RL__ENV_NUM_ENVS] = RL_OPTION_INT("num_envs", "1", 1, 1048576, "environments stepped together as one batch"),
};

static const rl_option_def env_host_stages[RL__ENVST_N] = {
    [RL__ENVST_THREADS] = RL_OPTION_INT_F("threads", "\"auto\"", 1, 1024, RL_OPT_AUTO,
                                          "worker threads stepping env ranges; auto picks by cores and num_envs"),
    [RL__ENVST_ACTION_REPEAT] = RL_OPTION_INT_F("action_repeat", "1", 1, 1000, RL_OPT_CHANGES_RESULTS,
                                                "repeat each action N env steps, summing rewards (changes results)"),
};

static const char *const draw_rules[] = {"latest", "uniform", "pfsp", NULL};

static const rl_option_def seats_schema[RL__SEATS_N] = {
    [RL__SEATS_OPPONENT] = RL_OPTION_STRING(
        "opponent", "\"self\"",
        "who plays the seats the learner does not: self (snapshots of the learner from its pool), an "
        "algorithm plugin with options (\"connect_four_alphabeta(depth=4)\", \"random\"), or a checkpoint "
        "or run directory"),
    [RL__SEATS_LEARNER_SEAT] = RL_OPTION_INT_F("learner_seat", "\"auto\"", 0, 63, RL_OPT_AUTO,
                                               "the seat the learner plays; auto = env i's episode e at seat "
                                               "(i + e) mod seats, every seat as often"),
    [RL__SEATS_POOL_SIZE] =
        RL_OPTION_INT("pool_size", "20", 1, 1000, "self-play: snapshots kept in the pool, the oldest dropped"),
    [RL__SEATS_SNAPSHOT_INTERVAL] =
        RL_OPTION_INT("snapshot_interval", "50000", 1, 1e15, "self-play: steps between snapshots into the pool"),
    [RL__SEATS_DRAW] = RL_OPTION_ENUM("draw", "uniform", draw_rules,
                                      "self-play: the snapshot each game is played against: latest, uniform "
                                      "over the pool, or pfsp (prioritized fictitious self-play: weight "
                                      "(1 - p)^2 for a snapshot the learner beats with rate p)"),
    [RL__SEATS_EVAL_OPPONENTS] = RL_OPTION_STRING_LIST(
        "eval_opponents", "[\"random\"]", "opponents of every evaluation, each at every seat, as opponent names them"),
    [RL__SEATS_SNAPSHOT_OPTIONS] =
        RL_OPTION_STRING_LIST("snapshot_options", "[]",
                              "self-play: the algorithm's options as the pool's snapshots play, KEY=VALUE each "
                              "(\"deterministic_eval=false\": they sample their moves)"),
    [RL__SEATS_POOL_OPPONENTS] =
        RL_OPTION_STRING_LIST("pool_opponents", "[]",
                              "self-play: fixed members of the pool beside the snapshots (scripted players, "
                              "checkpoints, as opponent names them), drawn by the same rule, never dropped"),
};

const rl_option_def *rl__seats_schema(uint32_t *n)
{
    *n = RL__SEATS_N;
    return seats_schema;
}

const rl_option_def *rl__run_schema(uint32_t *n)
{
    *n = RL__RUN_N;
    return run_schema;
}

const rl_option_def *rl__env_host_schema(uint32_t *n)
{
    *n = RL__ENV_N;
    return env_host_schema;
}

const rl_option_def *rl__env_host_stages(uint32_t *n)
{
    *n = RL__ENVST_N;
    return env_host_stages;
}

static const char *const search_targets[] = {"visits", "improved", NULL};

static const rl_option_def search_schema[RL__SEARCH_N] = {
    [RL__SEARCH_SIMULATIONS] =
        RL_OPTION_INT("simulations", "100", 1, 1000000, "leaves each training move's tree reaches"),
    [RL__SEARCH_C_PUCT] =
        RL_OPTION_FLOAT("c_puct", "1.25", 0, 100, "PUCT's exploration: Q + c_puct P sqrt(N) / (1 + n)"),
    [RL__SEARCH_DIRICHLET_ALPHA] =
        RL_OPTION_FLOAT("dirichlet_alpha", "1.0", 0, 100,
                        "root noise Dir(alpha) mixed into the priors of every training move (0: none)"),
    [RL__SEARCH_DIRICHLET_FRAC] = RL_OPTION_FLOAT("dirichlet_frac", "0.25", 0, 1, "the noise's weight in the priors"),
    [RL__SEARCH_TEMPERATURE] = RL_OPTION_FLOAT("temperature", "1.0", 0, 100,
                                               "the first moves of a game are drawn from visits^(1/temperature)"),
    [RL__SEARCH_TEMPERATURE_MOVES] =
        RL_OPTION_INT("temperature_moves", "10", 0, 1000000,
                      "moves of each game drawn with temperature; the rest take the most visited move"),
    [RL__SEARCH_THREADS] =
        RL_OPTION_INT_F("threads", "\"auto\"", 1, 256, RL_OPT_AUTO,
                        "workers walking the trees, stepping the env's copies and evaluating their own leaves "
                        "with the network (a run repeats exactly for the same count); auto = every core"),
    [RL__SEARCH_MAX_MIB] = RL_OPTION_INT("max_mib", "1024", 1, 1048576,
                                         "the trees' memory cap; a search past it is refused before it starts"),
    [RL__SEARCH_POLICY_TARGET] =
        RL_OPTION_ENUM("policy_target", "visits", search_targets,
                       "what the network's policy learns from a move's search: visits, the root's visit "
                       "fractions; improved, softmax(log prior + sigma(q)) over the root's moves, their values "
                       "completed and rescaled to [0, 1] (Gumbel AlphaZero's)"),
    [RL__SEARCH_C_VISIT] =
        RL_OPTION_FLOAT("c_visit", "50", 0, 1e6, "improved: sigma(q) = (c_visit + the most visits) * c_scale * q"),
    [RL__SEARCH_C_SCALE] = RL_OPTION_FLOAT("c_scale", "0.1", 0, 1e3, "improved: the scale of sigma(q), as above"),
};

const rl_option_def *rl__search_schema(uint32_t *n)
{
    *n = RL__SEARCH_N;
    return search_schema;
}
