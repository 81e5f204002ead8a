/*
 * The DQN family as one plugin: `dqn`, `double_dqn`, `dueling_dqn` and
 * `per_dqn` are presets of the same code (they differ only in the defaults
 * of `double`, `dueling` and `prioritized`), and any combination is a config
 * away, plus n-step returns.
 *
 * Data flow: act() -> epsilon-greedy over one batched forward of all envs;
 * observe() -> the replay ring (compact dtype); update() -> schedules,
 * target-network updates and the gradient steps that are due:
 * sample -> n-step targets (double or max, from the target network) ->
 * Huber/MSE loss weighted by importance weights -> backward -> clip -> Adam
 * -> new priorities.
 *
 * Files: dqn.c (options, create, act, observe, update: the vtable and its
 * glue) -> dqn_train.c (a gradient step), dqn_state.c (checkpoints and the
 * policy description) -> dqn_net.c (the Q-network); sumtree.c (priorities).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "dqn.h"

static const rl_host_api *host;

static const char *const loss_choices[] = {"huber", "mse", NULL};
static const char *const lr_schedules[] = {"constant", "linear", NULL};
static const char *const nonfinite_choices[] = {"stop", "skip", NULL};

enum {
    OPT_HIDDEN,
    OPT_LR,
    OPT_LR_SCHEDULE,
    OPT_BATCH_SIZE,
    OPT_BUFFER_SIZE,
    OPT_GAMMA,
    OPT_LEARNING_STARTS,
    OPT_TRAIN_FREQ,
    OPT_GRADIENT_STEPS,
    OPT_TARGET_UPDATE,
    OPT_TAU,
    OPT_EXPL_FRACTION,
    OPT_EXPL_INITIAL,
    OPT_EXPL_FINAL,
    OPT_EVAL_EPSILON,
    OPT_LOSS,
    OPT_MAX_GRAD_NORM,
    OPT_ADAM_EPS,
    OPT_DOUBLE,
    OPT_DUELING,
    OPT_PRIORITIZED,
    OPT_N_STEP,
    OPT_ALPHA,
    OPT_BETA0,
    OPT_PER_EPS,
    OPT_KEEP_BEST,
    OPT_ON_NONFINITE,
    OPT_SAVE_REPLAY,
    OPT_ENCODER,
    OPT_ENCODER_LAST = OPT_ENCODER + RL_ENCODER_N_OPTIONS - 1,
    OPT_N
};

enum { ST_TRAIN_STEPS_RATIO, ST_BATCH_INFERENCE, ST_BLAS_THREADS, ST_N };

/* One schema; the presets differ in three defaults. */
#define DQN_OPTIONS(dbl, duel, per)                                                                                  \
    {                                                                                                                \
        [OPT_HIDDEN] =                                                                                               \
            RL_OPTION_INT_LIST("hidden", "[64, 64]", 1, 65536, "hidden layer widths of the Q-network (ReLU)"),       \
        [OPT_LR] = RL_OPTION_FLOAT("lr", "1e-4", 0, 1, "Adam learning rate"),                                        \
        [OPT_LR_SCHEDULE] =                                                                                          \
            RL_OPTION_ENUM("lr_schedule", "constant", lr_schedules, "constant, or linear decay to 0 over the run"),  \
        [OPT_BATCH_SIZE] = RL_OPTION_INT("batch_size", "32", 1, 65536, "transitions per gradient step"),             \
        [OPT_BUFFER_SIZE] = RL_OPTION_INT("buffer_size", "100000", 1, 1e9, "replay capacity in transitions"),        \
        [OPT_GAMMA] = RL_OPTION_FLOAT("gamma", "0.99", 0, 1, "discount factor"),                                     \
        [OPT_LEARNING_STARTS] =                                                                                      \
            RL_OPTION_INT("learning_starts", "100", 0, 1e15, "env steps collected before the first gradient step"),  \
        [OPT_TRAIN_FREQ] = RL_OPTION_INT("train_freq", "4", 1, 1e9,                                                  \
                                         "vector steps between trainings (SB3 style, with gradient_steps)"),         \
        [OPT_GRADIENT_STEPS] = RL_OPTION_INT("gradient_steps", "1", 1, 1e9, "gradient steps per training"),          \
        [OPT_TARGET_UPDATE] =                                                                                        \
            RL_OPTION_INT("target_update_interval", "10000", 1, 1e15, "env steps between target-network updates"),   \
        [OPT_TAU] = RL_OPTION_FLOAT("tau", "1.0", 0, 1, "target update: 1 copies, < 1 is Polyak averaging"),         \
        [OPT_EXPL_FRACTION] =                                                                                        \
            RL_OPTION_FLOAT("exploration_fraction", "0.1", 0, 1, "share of the run over which epsilon decays"),      \
        [OPT_EXPL_INITIAL] = RL_OPTION_FLOAT("exploration_initial_eps", "1.0", 0, 1, "epsilon at the start"),        \
        [OPT_EXPL_FINAL] = RL_OPTION_FLOAT("exploration_final_eps", "0.05", 0, 1, "epsilon after the decay"),        \
        [OPT_EVAL_EPSILON] = RL_OPTION_FLOAT("eval_epsilon", "0.0", 0, 1, "epsilon during evaluation (0 = greedy)"), \
        [OPT_LOSS] = RL_OPTION_ENUM("loss", "huber", loss_choices, "TD loss: huber (smooth L1) or mse"),             \
        [OPT_MAX_GRAD_NORM] =                                                                                        \
            RL_OPTION_FLOAT("max_grad_norm", "10.0", 0, 1e9, "clip gradients to this global norm (0 = off)"),        \
        [OPT_ADAM_EPS] = RL_OPTION_FLOAT("adam_eps", "1e-8", 0, 1, "Adam epsilon"),                                  \
        [OPT_DOUBLE] =                                                                                               \
            RL_OPTION_BOOL("double", dbl, "double DQN target: argmax by the online net, value by the target net"),   \
        [OPT_DUELING] = RL_OPTION_BOOL("dueling", duel, "dueling head: Q = V + A - mean A"),                         \
        [OPT_PRIORITIZED] = RL_OPTION_BOOL("prioritized", per, "proportional prioritized replay"),                   \
        [OPT_N_STEP] = RL_OPTION_INT("n_step", "1", 1, 1000, "n-step returns (never across episode ends)"),          \
        [OPT_ALPHA] = RL_OPTION_FLOAT("alpha", "0.6", 0, 1, "prioritized replay: priority exponent"),                \
        [OPT_BETA0] = RL_OPTION_FLOAT("beta0", "0.4", 0, 1,                                                          \
                                      "prioritized replay: importance exponent at the start, annealed to 1"),        \
        [OPT_PER_EPS] =                                                                                              \
            RL_OPTION_FLOAT("per_eps", "1e-6", 0, 1, "prioritized replay: priority = |TD error| + per_eps"),         \
        [OPT_KEEP_BEST] = RL_OPTION_BOOL("keep_best", "false",                                                       \
                                         "end with the best policy seen by periodic evaluation "                     \
                                         "(needs run.eval_interval)"),                                               \
        [OPT_ON_NONFINITE] = RL_OPTION_ENUM("on_nonfinite", "stop", nonfinite_choices,                               \
                                            "a NaN/inf loss or gradient: stop the run (the last good "               \
                                            "checkpoint stays) or skip that batch"),                                 \
        [OPT_SAVE_REPLAY] = RL_OPTION_BOOL("save_replay", "false",                                                   \
                                           "save the replay buffer with checkpoints (replay.safetensors), so a "     \
                                           "resumed run continues exactly"),                                         \
        RL_ENCODER_OPTIONS(OPT_ENCODER),                                                                             \
    }

static const rl_option_def opts_dqn[OPT_N] = DQN_OPTIONS("false", "false", "false");
static const rl_option_def opts_double[OPT_N] = DQN_OPTIONS("true", "false", "false");
static const rl_option_def opts_dueling[OPT_N] = DQN_OPTIONS("false", "true", "false");
static const rl_option_def opts_per[OPT_N] = DQN_OPTIONS("false", "false", "true");

static const rl_option_def stages[ST_N] = {
    [ST_TRAIN_STEPS_RATIO] =
        RL_OPTION_FLOAT_F("train_steps_ratio", "\"auto\"", 0, 1e6, RL_OPT_AUTO | RL_OPT_CHANGES_RESULTS,
                          "gradient steps per collected transition, trained every vector step; auto = "
                          "train_freq/gradient_steps (changes results)"),
    [ST_BATCH_INFERENCE] = RL_OPTION_BOOL("batch_inference", "true",
                                          "one forward pass for all envs' actions; false = one per env "
                                          "(same results, for measurement)"),
    [ST_BLAS_THREADS] = RL_OPTION_INT_F("blas_threads", "1", 1, 1024, RL_OPT_AUTO,
                                        "OpenBLAS threads for the network; auto = all cores"),
};

static void dqn_destroy(void *p)
{
    dqn *d = p;
    if (!d) return;
    qnet_destroy(&d->q);
    qnet_destroy(&d->qt);
    rl_params_free(&d->online);
    rl_params_free(&d->target);
    rl_keep_best_free(&d->kb);
    rl_adam_destroy(&d->adam);
    rl_replay_destroy(&d->rb);
    sumtree_destroy(&d->tree);
    rl_free(d->act_x);
    rl_obs_layout_free(&d->obs);
    rl_free(d->next_masks);
    rl_free(d->mb_masks);
    rl_free(d->x);
    rl_free(d->xn);
    rl_free(d->ret);
    rl_free(d->disc);
    rl_free(d->pred);
    rl_free(d->dpred);
    rl_free(d->y);
    rl_free(d->dq);
    rl_free(d->weights);
    rl_free(d->qn);
    rl_free(d->slots);
    free(d);
}

/* The options and the env's spaces, as the settings fields. */
static void read_options(dqn *d, const rl_algo_args *args)
{
    const rl_value *o = args->options, *st = args->stages;
    d->n_actions = args->env->n_actions;
    d->obs_size = rl_obs_input_width(args->env);
    d->num_envs = args->num_envs;
    d->rows = args->num_envs > args->num_eval_envs ? args->num_envs : args->num_eval_envs;
    d->batch = (uint32_t)o[OPT_BATCH_SIZE].i;
    d->n_step = (uint32_t)o[OPT_N_STEP].i;
    d->total_steps = args->total_steps;
    d->learning_starts = (uint64_t)o[OPT_LEARNING_STARTS].i;
    d->target_interval = (uint64_t)o[OPT_TARGET_UPDATE].i;
    d->train_freq = (uint32_t)o[OPT_TRAIN_FREQ].i;
    d->gradient_steps = (uint32_t)o[OPT_GRADIENT_STEPS].i;
    d->ratio_auto = st[ST_TRAIN_STEPS_RATIO].is_auto;
    d->ratio = st[ST_TRAIN_STEPS_RATIO].f;
    d->lr = (float)o[OPT_LR].f;
    d->lr_linear = o[OPT_LR_SCHEDULE].i == 1;
    d->gamma = (float)o[OPT_GAMMA].f;
    d->tau = (float)o[OPT_TAU].f;
    d->expl_fraction = (float)o[OPT_EXPL_FRACTION].f;
    d->eps_initial = (float)o[OPT_EXPL_INITIAL].f;
    d->eps_final = (float)o[OPT_EXPL_FINAL].f;
    d->eval_eps = (float)o[OPT_EVAL_EPSILON].f;
    d->huber = o[OPT_LOSS].i == 0;
    d->max_grad_norm = (float)o[OPT_MAX_GRAD_NORM].f;
    d->dbl = (int)o[OPT_DOUBLE].i;
    d->prioritized = (int)o[OPT_PRIORITIZED].i;
    d->alpha = (float)o[OPT_ALPHA].f;
    d->beta0 = (float)o[OPT_BETA0].f;
    d->per_eps = (float)o[OPT_PER_EPS].f;
    d->skip_nonfinite = o[OPT_ON_NONFINITE].i == 1;
    d->save_replay = (int)o[OPT_SAVE_REPLAY].i;
    d->batch_inference = (int)st[ST_BATCH_INFERENCE].i;
    d->epsilon = d->eps_initial;
    d->max_priority = 1.0;
    d->rep = rl_args_replicas(args);
    d->R = d->rep ? d->rep->count : 1;
    d->inference = rl_args_inference(args);
    d->mask_width = rl_env_info_mask_width(args->env);
    d->env_total = rl_replicas_shared(d->rep) ? d->num_envs : d->num_envs * d->R;
    /* Sharding splits Adam and the clipping R ways, and the moments are
       gathered after each update call that stepped: so only where an update
       call makes 4 or more steps (the zoo's 128 per train_freq, not
       snake_dqn's 2 per vector step). */
    double per_call = d->ratio_auto ? (double)d->gradient_steps : d->ratio * d->env_total;
    d->shard = d->R > 1 && per_call >= 4;
    /* replicas share the cores: BLAS threads of their own would oversubscribe them */
    rl_blas_set_threads(st[ST_BLAS_THREADS].is_auto ? (d->R > 1 ? 1 : (int)host->cpu_count())
                                                    : (int)st[ST_BLAS_THREADS].i);
}

/* The settings that cannot work together; d->batch becomes the replica's
   share of the minibatch. */
static int validate(dqn *d, const rl_value *o, char *err, size_t errlen)
{
    if (d->batch % d->R) {
        RL_ERRF(err, errlen, "%u replicas cannot split batch_size %u evenly", d->R, d->batch);
        return RL_EINVAL;
    }
    d->batch /= d->R;
    if (o[OPT_HIDDEN].n > RL_MLP_MAX_LAYERS - 1) {
        RL_ERRF(err, errlen, "hidden has %u layers; at most %d", (uint32_t)o[OPT_HIDDEN].n, RL_MLP_MAX_LAYERS - 1);
        return RL_EINVAL;
    }
    if (o[OPT_DUELING].i && o[OPT_HIDDEN].n == 0) {
        RL_ERRF(err, errlen, "dueling needs at least one hidden layer");
        return RL_EINVAL;
    }
    return RL_OK;
}

/* The online network (initialized), the target network's workspace and
   parameters, keep_best and Adam. */
static int build_networks(dqn *d, const rl_value *o, const rl_cnn_spec *cnn, uint64_t seed, char *err, size_t errlen)
{
    uint32_t hidden[RL_MLP_MAX_LAYERS], n_hidden = (uint32_t)o[OPT_HIDDEN].n;
    for (uint32_t k = 0; k < n_hidden; k++) hidden[k] = (uint32_t)o[OPT_HIDDEN].ilist[k];
    uint32_t max_rows = d->rows > d->batch ? d->rows : d->batch;
    int dueling = (int)o[OPT_DUELING].i;
    int rc = qnet_create(&d->q, &d->online, &d->obs.info, cnn, hidden, n_hidden, d->n_actions, dueling, max_rows, err,
                         errlen);
    if (rc == RL_OK) rc = rl_params_alloc(&d->online);
    if (rc == RL_OK) {
        rl_rng init;
        rl_rng_seed(&init, seed, 0x1417);
        qnet_init(&d->q, &d->online, &init);
        rl_params throwaway = {0};
        rc = qnet_create(&d->qt, &throwaway, &d->obs.info, cnn, hidden, n_hidden, d->n_actions, dueling, d->batch, err,
                         errlen);
        rl_params_free(&throwaway);
    }
    if (rc == RL_OK) rc = rl_params_clone(&d->target, &d->online);
    if (d->inference) return rc;
    if (rc == RL_OK) rc = rl_keep_best_init(&d->kb, (int)o[OPT_KEEP_BEST].i, &d->online);
    if (rc == RL_OK) rc = rl_adam_create(&d->adam, d->online.n, 0.9f, 0.999f, (float)o[OPT_ADAM_EPS].f, 0.0f);
    return rc;
}

/* The replay (each replica keeps that of its own envs, all of them when
   shared), the sum-tree and the minibatch workspaces. */
static int alloc_buffers(dqn *d, uint64_t buffer_size, const rl_env_info *env)
{
    int shared = rl_replicas_shared(d->rep);
    int rc = d->inference ? RL_OK
                          : rl_replay_create(&d->rb, (uint32_t)(buffer_size / (shared ? 1 : d->R)), d->num_envs, env);
    if (rc == RL_OK && d->prioritized && !d->inference) rc = sumtree_create(&d->tree, d->rb.capacity);
    if (rc != RL_OK) return rc;
    size_t D = d->obs_size, B = d->batch;
    d->act_x = rl_calloc_aligned((size_t)d->rows * D, sizeof(float));
    d->x = rl_calloc_aligned(B * D, sizeof(float));
    d->xn = rl_calloc_aligned(B * D, sizeof(float));
    d->ret = rl_calloc_aligned(B, sizeof(float));
    d->disc = rl_calloc_aligned(B, sizeof(float));
    d->pred = rl_calloc_aligned(B, sizeof(float));
    d->dpred = rl_calloc_aligned(B, sizeof(float));
    d->y = rl_calloc_aligned(B, sizeof(float));
    d->weights = rl_calloc_aligned(B, sizeof(float));
    d->dq = rl_calloc_aligned(B * d->n_actions, sizeof(float));
    d->qn = rl_calloc_aligned(B * d->n_actions, sizeof(float));
    d->slots = rl_calloc_aligned(B, sizeof(uint32_t));
    if (d->mask_width && !d->inference) {
        d->next_masks = rl_calloc_aligned(d->rb.capacity, d->mask_width);
        d->mb_masks = rl_calloc_aligned(B, d->mask_width);
        if (!d->next_masks || !d->mb_masks) return RL_ENOMEM;
    }
    return d->act_x && d->x && d->xn && d->ret && d->disc && d->pred && d->dpred && d->y && d->weights && d->dq &&
            d->qn && d->slots
        ? RL_OK
        : RL_ENOMEM;
}

static int dqn_create(const rl_algo_args *args, void **out, char *err, size_t errlen)
{
    const rl_value *o = args->options;
    dqn *d = calloc(1, sizeof *d);
    if (!d) {
        RL_ERRF(err, errlen, "out of memory");
        return RL_ENOMEM;
    }
    read_options(d, args);
    int rc = validate(d, o, err, errlen);
    if (rc) goto fail;
    if ((rc = rl_obs_layout_copy(&d->obs, args->env))) {
        RL_ERRF(err, errlen, "%s copying the observation's layout", rl_strerror(rc));
        goto fail;
    }
    rl_cnn_spec cnn;
    if (rl_cnn_spec_read(&cnn, &o[OPT_ENCODER], args->env, err, errlen)) {
        rc = RL_EINVAL;
        goto fail;
    }
    char nerr[RL_ERR_MAX] = "";
    rc = build_networks(d, o, &cnn, args->seed, nerr, sizeof nerr);
    if (rc == RL_EINVAL) {
        RL_ERRF(err, errlen, "%s", nerr);
        goto fail;
    }
    uint64_t ring = (uint64_t)o[OPT_BUFFER_SIZE].i;
    if (rc == RL_OK && !d->inference &&
        rl_mem_check(rl_replay_bytes(ring, args->env) + (d->prioritized ? 32 * ring : 0), "the replay buffer", err,
                     errlen) != RL_OK) {
        rc = RL_EINVAL; /* the config asks for more than the machine has */
        goto fail;
    }
    if (rc == RL_OK) rc = alloc_buffers(d, ring, args->env);
    if (rc != RL_OK) {
        RL_ERRF(err, errlen,
                "%s while building the Q-network (acting for %u rows at once) and a replay of %lld "
                "transitions",
                rl_strerror(rc), d->rows, (long long)o[OPT_BUFFER_SIZE].i);
        goto fail;
    }
    /* streams of their own per replica (replica 0's are the single run's) */
    uint64_t k = d->rep ? (uint64_t)d->rep->index << 32 : 0;
    rl_rng_seed(&d->explore, args->seed, 0xE791 ^ k);
    rl_rng_seed(&d->explore_eval, args->seed, 0xE7A1);
    rl_rng_seed(&d->sample, args->seed, 0x5A3E ^ k);
    *out = d;
    return RL_OK;
fail:
    dqn_destroy(d);
    return rc;
}

/* Epsilon-greedy among the actions each row's mask allows (masks NULL:
   all of them). */
static int dqn_act(void *p, const rl_act_batch *b, char *err, size_t errlen)
{
    dqn *d = p;
    uint32_t A = d->n_actions, count = b->count;
    const uint8_t *masks = b->masks;
    int32_t *actions = b->actions;
    rl_act_mode mode = b->mode;
    if (count > d->rows) {
        RL_ERRF(err, errlen, "act for %u envs; created for %u", count, d->rows);
        return RL_EINVAL;
    }
    rl_obs_input(&d->obs.info, b->obs, count, d->act_x);
    if (d->batch_inference) {
        const float *q = qnet_forward(&d->q, d->online.data, d->act_x, count, 1);
        for (uint32_t i = 0; i < count; i++)
            actions[i] = rl_argmax_masked(q + (size_t)i * A, masks ? masks + (size_t)i * A : NULL, A);
    } else {
        for (uint32_t i = 0; i < count; i++) {
            const float *q = qnet_forward(&d->q, d->online.data, d->act_x + (size_t)i * d->obs_size, 1, 1);
            actions[i] = rl_argmax_masked(q, masks ? masks + (size_t)i * A : NULL, A);
        }
    }
    double eps = mode == RL_MODE_TRAIN ? d->epsilon : d->eval_eps;
    rl_rng *rng = mode == RL_MODE_TRAIN ? &d->explore : &d->explore_eval;
    if (eps > 0)
        for (uint32_t i = 0; i < count; i++)
            if (rl_rng_uniform_d(rng) < eps)
                actions[i] = rl_uniform_masked(masks ? masks + (size_t)i * A : NULL, A, rng);
    return RL_OK;
}

static int dqn_observe(void *p, const rl_transition *t, char *err, size_t errlen)
{
    dqn *d = p;
    if (d->inference) {
        RL_ERRF(err, errlen, "this instance was made for inference (rl_algo_args.inference): it cannot train");
        return RL_EINVAL;
    }
    uint32_t first = rl_replay_add(&d->rb, t);
    if (d->next_masks) rl_transition_next_masks(t, d->mask_width, d->next_masks + (size_t)first * d->mask_width);
    if (d->prioritized) {
        double pr = pow(d->max_priority, d->alpha);
        for (uint32_t i = 0; i < t->count; i++) sumtree_set(&d->tree, first + i, pr);
    }
    return RL_OK;
}

static int dqn_update(void *p, uint64_t step, char *err, size_t errlen)
{
    dqn *d = p;
    d->vsteps++;
    d->last_step = step;
    d->progress = d->total_steps ? (double)step / (double)d->total_steps : 1.0;
    double frac = d->expl_fraction > 0 ? d->progress / d->expl_fraction : 1.0;
    d->epsilon = rl_schedule_linear(d->eps_initial, d->eps_final, frac);
    if (step - d->last_target >= d->target_interval) {
        if (d->tau >= 1.0f)
            rl_params_copy(&d->target, &d->online);
        else
            rl_params_polyak(&d->target, &d->online, d->tau);
        d->last_target = step;
    }
    if (step <= d->learning_starts) return RL_OK;
    uint64_t n;
    if (d->ratio_auto) {
        n = d->vsteps % d->train_freq == 0 ? d->gradient_steps : 0;
    } else {
        d->ratio_acc += d->ratio * d->env_total;
        n = (uint64_t)d->ratio_acc;
        d->ratio_acc -= (double)n;
    }
    for (uint64_t k = 0; k < n; k++) {
        int rc = dqn_train_step(d, err, errlen);
        if (rc != RL_OK) return rc;
    }
    /* sharded steps leave each replica's Adam moments current on its slice:
       whole again before the host may save them */
    if (n && d->shard && rl_adam_gather(d->rep, &d->adam) != RL_OK) {
        RL_ERRF(err, errlen, "the replicas' optimizer state gather failed");
        return RL_EINVAL;
    }
    return RL_OK;
}

static size_t dqn_metrics(void *p, rl_metric *out, size_t cap)
{
    dqn *d = p;
    /* train_steps_ratio as resolved (auto: gradient_steps per train_freq
       vector steps of all envs): the host records it for the stage */
    double ratio = d->ratio_auto ? (double)d->gradient_steps / ((double)d->train_freq * d->env_total) : d->ratio;
    rl_metric m[8] = {
        {"train_steps_ratio", ratio},
        {"skipped_batches", (double)d->skipped},
        {"loss", d->m_n ? d->m_loss / d->m_n : NAN},
        {"q_mean", d->m_n ? d->m_q / d->m_n : NAN},
        {"epsilon", d->epsilon},
        {"grad_steps", (double)d->grad_steps},
        {"lr", d->lr_linear ? rl_schedule_linear(d->lr, 0.0f, d->progress) : d->lr},
        {"is_weight", d->m_n ? d->m_w / d->m_n : NAN},
    };
    size_t n = d->prioritized ? 8 : 7;
    if (n > cap) n = cap;
    memcpy(out, m, n * sizeof *m);
    d->m_loss = d->m_q = d->m_w = 0;
    d->m_n = 0;
    return n;
}

RL_KEEP_BEST_EVAL_EXT(eval_ext, dqn, kb, online, host, "dqn");

RL_ALGO_STATE_EXT(state_ext, dqn_state);

static const void *dqn_get_extension(void *p, const char *id)
{
    (void)p;
    if (strcmp(id, RL_EXT_ALGO_EVAL) == 0) return &eval_ext;
    if (strcmp(id, RL_EXT_ALGO_STATE) == 0) return &state_ext;
    return NULL;
}

static const rl_algo_vtable vtable = {
    .struct_size = sizeof vtable,
    .create = dqn_create,
    .destroy = dqn_destroy,
    .observe = dqn_observe,
    .update = dqn_update,
    .metrics = dqn_metrics,
    .get_extension = dqn_get_extension,
    .act_batch = dqn_act,
};

/* The default search space of rlhost tune: the RL Zoo's DQN sampler
   (rl_zoo3/hyperparams_opt.py) over this plugin's options. */
static const char dqn_space[] = "lr = { log_uniform = [1e-5, 1.0]; };\n"
                                "gamma = { choice = [0.9, 0.99, 0.995, 0.999, 0.9999]; };\n"
                                "batch_size = { choice = [16, 32, 64, 100, 128, 256, 512]; };\n"
                                "buffer_size = { choice = [10000, 50000, 100000, 1000000]; };\n"
                                "exploration_final_eps = { uniform = [0.0, 0.2]; };\n"
                                "exploration_fraction = { uniform = [0.0, 0.5]; };\n"
                                "target_update_interval = { choice = [1, 1000, 5000, 10000, 15000, 20000]; };\n"
                                "learning_starts = { choice = [0, 1000, 5000, 10000, 20000]; };\n"
                                "train_freq = { choice = [1, 4, 8, 16, 128, 256, 1000]; };\n"
                                "hidden = { choice = ([64], [64, 64], [256, 256]); };\n";

#define PRESET(name_, opts_, text_)                                                                               \
    {                                                                                                             \
        .struct_size = sizeof(rl_plugin_desc), .kind = RL_KIND_ALGO, .name = name_, .version = "1.0.0",           \
        .description = text_, .options = opts_, .n_options = OPT_N, .stages = stages, .n_stages = ST_N,           \
        .vtable = &vtable, .flags = RL_DESC_REPLICAS | RL_DESC_MASKS | RL_DESC_OBS_PARTS, .tune_space = dqn_space \
    }

static const rl_plugin_desc descs[] = {
    PRESET("dqn", opts_dqn, "deep Q-network (replay, target network, epsilon-greedy)"),
    PRESET("double_dqn", opts_double, "DQN with double-Q targets (preset: double = true)"),
    PRESET("dueling_dqn", opts_dueling, "DQN with a dueling head (preset: dueling = true)"),
    PRESET("per_dqn", opts_per, "DQN with prioritized replay (preset: prioritized = true)"),
};

RL_PLUGIN_DEFINE_ARRAY(descs, &host);
