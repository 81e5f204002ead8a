/*
 * The off-policy actor-critic family for box (continuous) actions: `sac`,
 * `tqc`, `crossq`, `td3` and `ddpg` (see ac.h).  act_box: the actor's action for every env in
 * one batched forward (uniform random actions until learning_starts;
 * training adds SAC's sampling or TD3's Gaussian exploration noise);
 * observe(): the replay (librlcore's, shared with the DQN family); update():
 * the gradient steps that are due (train_freq and gradient_steps, or the
 * train_steps_ratio stage) in ac_train.c.  Files: ac.c -> ac_train.c,
 * ac_state.c -> ac_net.c; no arrow back.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ac.h"

static const rl_host_api *host;

static const char *const activations[] = {"relu", "tanh", NULL};
static const char *const nonfinite_choices[] = {"stop", "skip", NULL};
static const char *const noise_types[] = {"normal", "ornstein_uhlenbeck", NULL};

/* Options every member takes, then each one's own. */
enum {
    OPT_HIDDEN,
    OPT_ACTIVATION,
    OPT_LR,
    OPT_ACTOR_LR,
    OPT_CRITIC_LR,
    OPT_BATCH_SIZE,
    OPT_BUFFER_SIZE,
    OPT_LEARNING_STARTS,
    OPT_GAMMA,
    OPT_TRAIN_FREQ,
    OPT_GRADIENT_STEPS,
    OPT_MAX_GRAD_NORM,
    OPT_KEEP_BEST,
    OPT_ON_NONFINITE,
    OPT_SAVE_REPLAY,
    OPT_COMMON_N,
    /* sac, tqc, crossq: the entropy coefficient */
    OPT_ENT_COEF = OPT_COMMON_N,
    OPT_ENT_COEF_INIT,
    OPT_TARGET_ENTROPY,
    OPT_ENTROPY_N,
    /* sac, tqc: target critics and gSDE */
    OPT_TAU = OPT_ENTROPY_N,
    OPT_TARGET_UPDATE,
    OPT_USE_SDE,
    OPT_SDE_FREQ,
    OPT_LOG_STD_INIT,
    OPT_FULL_STD,
    SAC_OPT_N,
    /* tqc: sac's and these */
    OPT_TQC_CRITICS = SAC_OPT_N,
    OPT_N_QUANTILES,
    OPT_DROP,
    TQC_OPT_N,
    /* crossq: the entropy's and these */
    OPT_CQ_DELAY = OPT_ENTROPY_N,
    OPT_CRITIC_HIDDEN,
    OPT_BN_MOMENTUM,
    OPT_BN_EPS,
    OPT_BN_WARMUP,
    OPT_ADAM_BETA1,
    CROSSQ_OPT_N,
    /* td3, ddpg */
    OPT_TD3_TAU = OPT_COMMON_N,
    OPT_N_CRITICS,
    OPT_POLICY_DELAY,
    OPT_TARGET_NOISE,
    OPT_NOISE_CLIP,
    OPT_EXPL_NOISE,
    OPT_NOISE_TYPE,
    TD3_OPT_N
};

enum { ST_TRAIN_STEPS_RATIO, ST_BLAS_THREADS, ST_N };

#define AC_COMMON(hidden, hidden_doc, lr)                                                                              \
    [OPT_HIDDEN] = RL_OPTION_INT_LIST("hidden", hidden, 1, 65536, hidden_doc),                                         \
    [OPT_ACTIVATION] = RL_OPTION_ENUM("activation", "relu", activations, "hidden activation: relu or tanh"),           \
    [OPT_LR] = RL_OPTION_FLOAT("lr", lr, 0, 1, "Adam learning rate of the actor and the critics"),                     \
    [OPT_ACTOR_LR] = RL_OPTION_FLOAT_F("actor_lr", "\"auto\"", 0, 1, RL_OPT_AUTO, "the actor's; auto = lr"),           \
    [OPT_CRITIC_LR] = RL_OPTION_FLOAT_F("critic_lr", "\"auto\"", 0, 1, RL_OPT_AUTO, "the critics'; auto = lr"),        \
    [OPT_BATCH_SIZE] = RL_OPTION_INT("batch_size", "256", 1, 65536, "transitions per gradient step"),                  \
    [OPT_BUFFER_SIZE] = RL_OPTION_INT("buffer_size", "1000000", 1, 1e9, "replay capacity in transitions"),             \
    [OPT_LEARNING_STARTS] = RL_OPTION_INT("learning_starts", "100", 0, 1e15,                                           \
                                          "env steps of uniform random actions before the first gradient step"),       \
    [OPT_GAMMA] = RL_OPTION_FLOAT("gamma", "0.99", 0, 1, "discount factor"),                                           \
    [OPT_TRAIN_FREQ] = RL_OPTION_INT("train_freq", "1", 1, 1e9, "vector steps between trainings"),                     \
    [OPT_GRADIENT_STEPS] = RL_OPTION_INT("gradient_steps", "1", 1, 1e9, "gradient steps per training"),                \
    [OPT_MAX_GRAD_NORM] = RL_OPTION_FLOAT("max_grad_norm", "0.0", 0, 1e9,                                              \
                                          "clip each network's gradients to this global norm (0 = off)"),              \
    [OPT_KEEP_BEST] = RL_OPTION_BOOL("keep_best", "false",                                                             \
                                     "end with the best actor seen by periodic evaluation (needs run.eval_interval)"), \
    [OPT_ON_NONFINITE] = RL_OPTION_ENUM("on_nonfinite", "stop", nonfinite_choices,                                     \
                                        "a NaN/inf loss or gradient: stop the run (the last good checkpoint stays) "   \
                                        "or skip that batch"),                                                         \
    [OPT_SAVE_REPLAY] = RL_OPTION_BOOL("save_replay", "false",                                                         \
                                       "save the replay buffer with checkpoints (replay.safetensors), so a "           \
                                       "resumed run continues exactly")

#define BOTH_HIDDEN "hidden layer widths of the actor and each critic"

#define TAU_OPTION(index) [index] = RL_OPTION_FLOAT("tau", "0.005", 0, 1, "Polyak coefficient of the target networks")

#define ENTROPY_OPTIONS                                                                                          \
    [OPT_ENT_COEF] = RL_OPTION_FLOAT_F("ent_coef", "\"auto\"", 0, 1e6, RL_OPT_AUTO,                              \
                                       "entropy coefficient alpha; auto = learned towards target_entropy"),      \
    [OPT_ENT_COEF_INIT] = RL_OPTION_FLOAT("ent_coef_init", "1.0", 1e-8, 1e6, "alpha at the start when learned"), \
    [OPT_TARGET_ENTROPY] = RL_OPTION_FLOAT_F("target_entropy", "\"auto\"", -1e6, 1e6, RL_OPT_AUTO,               \
                                             "the entropy alpha is tuned towards; auto = -action dimensions")

#define SAC_OPTIONS                                                                                            \
    AC_COMMON("[256, 256]", BOTH_HIDDEN, "3e-4"), ENTROPY_OPTIONS, TAU_OPTION(OPT_TAU),                        \
        [OPT_TARGET_UPDATE] = RL_OPTION_INT("target_update_interval", "1", 1, 1e9,                             \
                                            "gradient steps between Polyak updates of the target critics"),    \
        [OPT_USE_SDE] = RL_OPTION_BOOL("use_sde", "false",                                                     \
                                       "generalized state-dependent exploration: noise linear in the actor's " \
                                       "last hidden features, its matrix held between draws"),                 \
        [OPT_SDE_FREQ] = RL_OPTION_INT_F("sde_sample_freq", "\"auto\"", 1, 1e9, RL_OPT_AUTO,                   \
                                         "use_sde: vector steps between new noise matrices (an env's also at " \
                                         "its episode start); auto = at each training, every train_freq"),     \
        [OPT_LOG_STD_INIT] = RL_OPTION_FLOAT("log_std_init", "-3.0", -20, 2,                                   \
                                             "use_sde: the initial log-std of the noise matrix's entries"),    \
        [OPT_FULL_STD] = RL_OPTION_BOOL("full_std", "true",                                                    \
                                        "use_sde: a log-std per feature and action dimension (else per feature)")

static const rl_option_def opts_sac[SAC_OPT_N] = {SAC_OPTIONS};
/* CrossQ: sb3-contrib's defaults (its critics [1024, 1024]); momentum 0.01
   is Flax's 0.99 */
static const rl_option_def opts_crossq[CROSSQ_OPT_N] = {
    AC_COMMON("[256, 256]", "hidden layer widths of the actor (the critics' are critic_hidden)", "1e-3"),
    ENTROPY_OPTIONS,
    [OPT_CQ_DELAY] = RL_OPTION_INT("policy_delay", "3", 1, 1000, "critic updates per actor update"),
    [OPT_CRITIC_HIDDEN] =
        RL_OPTION_INT_LIST("critic_hidden", "[1024, 1024]", 1, 65536, "hidden layer widths of each critic"),
    [OPT_BN_MOMENTUM] = RL_OPTION_FLOAT("batch_norm_momentum", "0.01", 1e-9, 0.999999,
                                        "batch renormalization: the running statistics' step towards the batch's, "
                                        "in (0, 1)"),
    [OPT_BN_EPS] = RL_OPTION_FLOAT("batch_norm_eps", "0.001", 1e-12, 1, "batch renormalization: added to variances"),
    [OPT_BN_WARMUP] = RL_OPTION_INT("renorm_warmup_steps", "100000", 0, 1e15,
                                    "batch renormalization: training forwards of a network normalized by the "
                                    "batch's statistics alone, before the running ones correct them"),
    [OPT_ADAM_BETA1] = RL_OPTION_FLOAT("adam_beta1", "0.5", 0, 0.999999, "Adam's first-moment decay of every network"),
};

static const rl_option_def opts_tqc[TQC_OPT_N] = {
    SAC_OPTIONS,
    [OPT_TQC_CRITICS] = RL_OPTION_INT("n_critics", "2", 1, AC_MAX_CRITICS, "critics, each of n_quantiles outputs"),
    [OPT_N_QUANTILES] = RL_OPTION_INT("n_quantiles", "25", 1, 1000, "quantiles of the return each critic gives"),
    [OPT_DROP] = RL_OPTION_INT("top_quantiles_to_drop_per_net", "2", 0, 999,
                               "the largest target quantiles left out, per critic (fewer than n_quantiles)"),
};

#define TD3_OPTIONS(hidden, lr, critics, delay, noise)                                                                 \
    {                                                                                                                  \
        AC_COMMON(hidden, BOTH_HIDDEN, lr), TAU_OPTION(OPT_TD3_TAU),                                                   \
            [OPT_N_CRITICS] =                                                                                          \
                RL_OPTION_INT("n_critics", critics, 1, 2, "critics; with 2 the target is their minimum"),              \
            [OPT_POLICY_DELAY] =                                                                                       \
                RL_OPTION_INT("policy_delay", delay, 1, 1000, "critic updates per actor and target update"),           \
            [OPT_TARGET_NOISE] = RL_OPTION_FLOAT("target_policy_noise", noise, 0, 10,                                  \
                                                 "std of the smoothing noise on target actions (in [-1, 1] units)"),   \
            [OPT_NOISE_CLIP] = RL_OPTION_FLOAT("target_noise_clip", "0.5", 0, 10, "the smoothing noise's clip"),       \
            [OPT_EXPL_NOISE] =                                                                                         \
                RL_OPTION_FLOAT("exploration_noise", "0.1", 0, 10, "std of the exploration noise (in [-1, 1] units)"), \
            [OPT_NOISE_TYPE] = RL_OPTION_ENUM("noise_type", "normal", noise_types,                                     \
                                              "exploration noise: normal (independent each step) or "                  \
                                              "ornstein_uhlenbeck (theta 0.15, dt 0.01, reset each episode)"),         \
    }

static const rl_option_def opts_td3[TD3_OPT_N] = TD3_OPTIONS("[400, 300]", "1e-3", "2", "2", "0.2");
static const rl_option_def opts_ddpg[TD3_OPT_N] = TD3_OPTIONS("[400, 300]", "1e-3", "1", "1", "0.0");

static const rl_option_def stages[ST_N] = {
    [ST_TRAIN_STEPS_RATIO] =
        RL_OPTION_FLOAT_F("train_steps_ratio", "\"auto\"", 0, 1e6, RL_OPT_AUTO | RL_OPT_CHANGES_RESULTS,
                          "gradient steps per collected transition, trained every vector "
                          "step; auto = train_freq/gradient_steps (changes results)"),
    [ST_BLAS_THREADS] = RL_OPTION_INT_F("blas_threads", "1", 1, 1024, RL_OPT_AUTO,
                                        "OpenBLAS threads for the networks; auto = all cores"),
};

static void ac_destroy(void *p_)
{
    ac *p = p_;
    if (!p) return;
    rl_mlp_destroy(&p->pi);
    rl_mlp_destroy(&p->pi_t);
    for (int j = 0; j < AC_MAX_CRITICS; j++) {
        rl_mlp_destroy(&p->q[j]);
        rl_mlp_destroy(&p->q_t[j]);
    }
    rl_params_free(&p->actor);
    rl_params_free(&p->critic);
    rl_params_free(&p->actor_t);
    rl_params_free(&p->critic_t);
    rl_adam_destroy(&p->adam_actor);
    rl_adam_destroy(&p->adam_critic);
    rl_adam_destroy(&p->adam_alpha);
    rl_keep_best_free(&p->kb);
    rl_replay_destroy(&p->rb);
    ac_workspace *w = &p->ws;
    float *f[] = {w->x,    w->xn,   w->qin,    w->a,       w->logp,    w->eps,     w->y,       w->dq,
                  w->dqin, w->dout, w->rew,    w->disc,    w->act_x,   w->act_a,   w->act_eps, w->ou,
                  w->zq,   w->u,    w->sde_mu, w->sde_env, w->sde_mat, w->sde_std, w->qin2,    w->dq2};
    for (size_t k = 0; k < sizeof f / sizeof *f; k++) rl_free(f[k]);
    rl_free(w->slots);
    free(p->cfg.low);
    free(p->cfg.high);
    rl_obs_layout_free(&p->obs);
    free(p);
}

static void read_options(ac *p, const rl_algo_args *args, int kind)
{
    const rl_value *o = args->options, *st = args->stages;
    ac_settings *c = &p->cfg;
    c->kind = kind;
    c->obs_size = rl_obs_input_width(args->env);
    c->dim = args->env->action_dim;
    c->num_envs = args->num_envs;
    c->rows = args->num_envs > args->num_eval_envs ? args->num_envs : args->num_eval_envs;
    c->batch = (uint32_t)o[OPT_BATCH_SIZE].i;
    c->total_steps = args->total_steps;
    c->learning_starts = (uint64_t)o[OPT_LEARNING_STARTS].i;
    c->train_freq = (uint32_t)o[OPT_TRAIN_FREQ].i;
    c->gradient_steps = (uint32_t)o[OPT_GRADIENT_STEPS].i;
    c->ratio_auto = st[ST_TRAIN_STEPS_RATIO].is_auto;
    c->ratio = st[ST_TRAIN_STEPS_RATIO].f;
    float lr = (float)o[OPT_LR].f;
    c->actor_lr = o[OPT_ACTOR_LR].is_auto ? lr : (float)o[OPT_ACTOR_LR].f;
    c->critic_lr = o[OPT_CRITIC_LR].is_auto ? lr : (float)o[OPT_CRITIC_LR].f;
    c->gamma = (float)o[OPT_GAMMA].f;
    c->beta1 = 0.9f;
    c->max_grad_norm = (float)o[OPT_MAX_GRAD_NORM].f;
    c->skip_nonfinite = o[OPT_ON_NONFINITE].i == 1;
    c->save_replay = (int)o[OPT_SAVE_REPLAY].i;
    c->act = o[OPT_ACTIVATION].i == 1 ? RL_ACT_TANH : RL_ACT_RELU;
    c->n_quantiles = 1;
    if (kind != AC_TD3) {
        c->n_critics = kind == AC_TQC ? (uint32_t)o[OPT_TQC_CRITICS].i : 2;
        c->n_quantiles = kind == AC_TQC ? (uint32_t)o[OPT_N_QUANTILES].i : 1;
        c->drop = kind == AC_TQC ? (uint32_t)o[OPT_DROP].i : 0;
        c->policy_delay = 1;
        c->target_interval = 1;
        c->ent_auto = o[OPT_ENT_COEF].is_auto;
        c->ent_init = (float)(c->ent_auto ? o[OPT_ENT_COEF_INIT].f : o[OPT_ENT_COEF].f);
        c->target_entropy = o[OPT_TARGET_ENTROPY].is_auto ? -(float)c->dim : (float)o[OPT_TARGET_ENTROPY].f;
    }
    if (kind == AC_SAC || kind == AC_TQC) {
        c->tau = (float)o[OPT_TAU].f;
        c->target_interval = (uint32_t)o[OPT_TARGET_UPDATE].i;
        c->sde = (int)o[OPT_USE_SDE].i;
        c->sde_freq = o[OPT_SDE_FREQ].is_auto ? c->train_freq : (uint32_t)o[OPT_SDE_FREQ].i;
        c->full_std = (int)o[OPT_FULL_STD].i;
        c->log_std_init = (float)o[OPT_LOG_STD_INIT].f;
    } else if (kind == AC_CROSSQ) {
        c->policy_delay = (uint32_t)o[OPT_CQ_DELAY].i;
        c->bn_momentum = (float)o[OPT_BN_MOMENTUM].f;
        c->bn_eps = (float)o[OPT_BN_EPS].f;
        c->bn_warmup = (uint64_t)o[OPT_BN_WARMUP].i;
        c->beta1 = (float)o[OPT_ADAM_BETA1].f;
    } else {
        c->tau = (float)o[OPT_TD3_TAU].f;
        c->n_critics = (uint32_t)o[OPT_N_CRITICS].i;
        c->policy_delay = (uint32_t)o[OPT_POLICY_DELAY].i;
        c->target_interval = 1;
        c->target_noise = (float)o[OPT_TARGET_NOISE].f;
        c->noise_clip = (float)o[OPT_NOISE_CLIP].f;
        c->expl_noise = (float)o[OPT_EXPL_NOISE].f;
        c->ou_noise = o[OPT_NOISE_TYPE].i == 1;
    }
    c->n_target = c->drop < c->n_quantiles ? c->n_critics * (c->n_quantiles - c->drop) : 0;
    p->rep = rl_args_replicas(args);
    p->replicas = p->rep ? p->rep->count : 1;
    p->env_total = rl_replicas_shared(p->rep) ? c->num_envs : c->num_envs * p->replicas;
    /* replicas share the cores: BLAS threads of their own would oversubscribe them */
    rl_blas_set_threads(st[ST_BLAS_THREADS].is_auto ? (p->replicas > 1 ? 1 : (int)host->cpu_count())
                                                    : (int)st[ST_BLAS_THREADS].i);
}

static int validate(ac *p, const rl_algo_args *args, char *err, size_t errlen)
{
    const rl_value *o = args->options;
    if (rl_env_info_action_kind(args->env) != RL_SPACE_BOX) { /* the host refuses the pair first */
        RL_ERRF(err, errlen, "needs a box action space");
        return RL_EINVAL;
    }
    if (p->cfg.batch % p->replicas) {
        RL_ERRF(err, errlen, "%u replicas cannot split batch_size %u evenly", p->replicas, p->cfg.batch);
        return RL_EINVAL;
    }
    p->cfg.batch /= p->replicas;
    if (p->cfg.drop >= p->cfg.n_quantiles) {
        RL_ERRF(err, errlen, "top_quantiles_to_drop_per_net %u leaves no target quantile of the %u per critic",
                p->cfg.drop, p->cfg.n_quantiles);
        return RL_EINVAL;
    }
    if (o[OPT_HIDDEN].n < 1 || o[OPT_HIDDEN].n > RL_MLP_MAX_LAYERS - 1) {
        RL_ERRF(err, errlen, "hidden needs 1 to %d layers", RL_MLP_MAX_LAYERS - 1);
        return RL_EINVAL;
    }
    if (p->cfg.kind != AC_CROSSQ) return RL_OK;
    /* each renormalized layer is six tensors: the two critics' share one block */
    int most = RL_PARAMS_MAX_TENSORS / (6 * (int)p->cfg.n_critics) - 1;
    if (o[OPT_CRITIC_HIDDEN].n < 1 || o[OPT_CRITIC_HIDDEN].n > (size_t)most) {
        RL_ERRF(err, errlen, "critic_hidden needs 1 to %d layers", most);
        return RL_EINVAL;
    }
    if (p->cfg.batch < 2) { /* the actor's batch statistics need two rows */
        RL_ERRF(err, errlen, "batch_size %u: crossq's batch statistics need at least 2 rows per replica", p->cfg.batch);
        return RL_EINVAL;
    }
    return RL_OK;
}

/* A list of layer widths (validated: at most RL_MLP_MAX_LAYERS - 1) into
   out; their count. */
static uint32_t widths(const rl_value *v, uint32_t *out)
{
    for (size_t k = 0; k < v->n; k++) out[k] = (uint32_t)v->ilist[k];
    return (uint32_t)v->n;
}

/* The networks (ac_net.c), their optimizers and keep_best. */
static int build_networks(ac *p, const rl_value *o, uint64_t seed)
{
    uint32_t hidden[RL_MLP_MAX_LAYERS], critic_hidden[RL_MLP_MAX_LAYERS];
    uint32_t nh = widths(&o[OPT_HIDDEN], hidden);
    uint32_t nch = widths(&o[p->cfg.kind == AC_CROSSQ ? OPT_CRITIC_HIDDEN : OPT_HIDDEN], critic_hidden);
    int rc = ac_networks(p, hidden, nh, critic_hidden, nch, seed);
    float b1 = p->cfg.beta1;
    if (!rc) rc = rl_adam_create(&p->adam_actor, p->actor.n, b1, 0.999f, 1e-8f, 0.0f);
    if (!rc) rc = rl_adam_create(&p->adam_critic, p->critic.n, b1, 0.999f, 1e-8f, 0.0f);
    if (!rc) rc = rl_adam_create(&p->adam_alpha, 1, 0.9f, 0.999f, 1e-8f, 0.0f); /* beta1 is the networks' */
    if (!rc) rc = rl_keep_best_init(&p->kb, (int)o[OPT_KEEP_BEST].i, &p->actor);
    p->log_alpha = logf(p->cfg.ent_init > 0 ? p->cfg.ent_init : 1.0f);
    return rc;
}

#define ALLOC(ptr, n, type) ((ptr) = rl_calloc_aligned((size_t)(n), sizeof(type)))

static int alloc_buffers(ac *p, uint64_t buffer_size, const rl_env_info *env)
{
    ac_settings *c = &p->cfg;
    c->low = malloc(c->dim * sizeof *c->low);
    c->high = malloc(c->dim * sizeof *c->high);
    if (!c->low || !c->high) return RL_ENOMEM;
    memcpy(c->low, env->action_low, c->dim * sizeof *c->low);
    memcpy(c->high, env->action_high, c->dim * sizeof *c->high);
    int shared = rl_replicas_shared(p->rep);
    int rc = c->inference
        ? RL_OK
        : rl_replay_create(&p->rb, (uint32_t)(buffer_size / (shared ? 1 : p->replicas)), c->num_envs, env);
    if (rc != RL_OK) return rc;
    ac_workspace *w = &p->ws;
    size_t B = c->batch, D = c->obs_size, A = c->dim;
    if (!ALLOC(w->x, B * D, float) || !ALLOC(w->xn, B * D, float) || !ALLOC(w->qin, B * (D + A), float) ||
        !ALLOC(w->a, B * A, float) || !ALLOC(w->logp, B, float) || !ALLOC(w->eps, B * A, float) ||
        !ALLOC(w->y, B * (c->n_target > c->n_quantiles ? c->n_target : c->n_quantiles), float) ||
        !ALLOC(w->dq, B * c->n_quantiles, float) || !ALLOC(w->zq, (size_t)c->n_critics * c->n_quantiles, float) ||
        !ALLOC(w->dqin, B * (D + A), float) || !ALLOC(w->dout, B * 2 * A, float) || !ALLOC(w->rew, B, float) ||
        !ALLOC(w->disc, B, float) || !ALLOC(w->slots, B, uint32_t) || !ALLOC(w->act_x, (size_t)c->rows * D, float) ||
        !ALLOC(w->act_a, (size_t)c->rows * A, float) || !ALLOC(w->act_eps, (size_t)c->rows * A, float) ||
        !ALLOC(w->ou, (size_t)c->num_envs * A, float))
        return RL_ENOMEM;
    if (c->kind == AC_CROSSQ && (!ALLOC(w->qin2, 2 * B * (D + A), float) || !ALLOC(w->dq2, 2 * B, float)))
        return RL_ENOMEM;
    size_t LA = (size_t)c->latent * A, rows = B > c->rows ? B : c->rows;
    if (c->sde &&
        (!ALLOC(w->u, rows * A, float) || !ALLOC(w->sde_mu, rows * A, float) ||
         !ALLOC(w->sde_env, c->num_envs * LA, float) || !ALLOC(w->sde_mat, LA, float) || !ALLOC(w->sde_std, LA, float)))
        return RL_ENOMEM;
    return RL_OK;
}

static int create(int kind, const rl_algo_args *args, void **out, char *err, size_t errlen)
{
    ac *p = calloc(1, sizeof *p);
    if (!p) {
        RL_ERRF(err, errlen, "out of memory");
        return RL_ENOMEM;
    }
    read_options(p, args, kind);
    int rc = validate(p, args, err, errlen);
    if (rc) goto fail;
    if ((rc = rl_obs_layout_copy(&p->obs, args->env))) {
        RL_ERRF(err, errlen, "%s copying the observation's layout", rl_strerror(rc));
        goto fail;
    }
    uint64_t ring = (uint64_t)args->options[OPT_BUFFER_SIZE].i;
    p->cfg.inference = rl_args_inference(args);
    if (!p->cfg.inference && rl_mem_check(rl_replay_bytes(ring, args->env), "the replay buffer", err, errlen)) {
        rc = RL_EINVAL; /* the config asks for more than the machine has */
        goto fail;
    }
    if ((rc = build_networks(p, args->options, args->seed)) == RL_OK) rc = alloc_buffers(p, ring, args->env);
    if (rc) {
        RL_ERRF(err, errlen, "%s while building the networks and a replay of %lld transitions", rl_strerror(rc),
                (long long)args->options[OPT_BUFFER_SIZE].i);
        goto fail;
    }
    /* streams of their own per replica (replica 0's are the single run's) */
    uint64_t k = p->rep ? (uint64_t)p->rep->index << 32 : 0;
    rl_rng_seed(&p->explore, args->seed, 0xE791 ^ k);
    rl_rng_seed(&p->explore_eval, args->seed, 0xE7A1);
    rl_rng_seed(&p->sample, args->seed, 0x5A3E ^ k);
    *out = p;
    return RL_OK;
fail:
    ac_destroy(p);
    return rc;
}

static int sac_create(const rl_algo_args *args, void **out, char *err, size_t errlen)
{
    return create(AC_SAC, args, out, err, errlen);
}

static int tqc_create(const rl_algo_args *args, void **out, char *err, size_t errlen)
{
    return create(AC_TQC, args, out, err, errlen);
}

static int crossq_create(const rl_algo_args *args, void **out, char *err, size_t errlen)
{
    return create(AC_CROSSQ, args, out, err, errlen);
}

static int td3_create(const rl_algo_args *args, void **out, char *err, size_t errlen)
{
    return create(AC_TD3, args, out, err, errlen);
}

/* TD3's exploration noise for element k of training row i: Gaussian, or
   Stable-Baselines3's Ornstein-Uhlenbeck process (theta 0.15, dt 0.01,
   started afresh with each episode). */
static float exploration_noise(ac *p, uint32_t i, const uint8_t *start, size_t k)
{
    const ac_settings *c = &p->cfg;
    float n = (float)rl_rng_normal(&p->explore);
    if (!c->ou_noise) return c->expl_noise * n;
    float *x = &p->ws.ou[k];
    if (start[i]) *x = 0.0f;
    *x += 0.15f * (0.0f - *x) * 0.01f + c->expl_noise * 0.1f * n; /* sqrt(dt) = 0.1 */
    return *x;
}

static int ac_act(void *p_, const rl_act_batch *b, char *err, size_t errlen)
{
    ac *p = p_;
    const ac_settings *c = &p->cfg;
    uint32_t count = b->count;
    const uint8_t *start = b->episode_start;
    float *actions = b->box_actions;
    if (count > c->rows) {
        RL_ERRF(err, errlen, "act for %u envs; created for %u", count, c->rows);
        return RL_EINVAL;
    }
    uint32_t A = c->dim;
    float *a = p->ws.act_a;
    int train = b->mode == RL_MODE_TRAIN;
    if (train && p->vsteps * p->env_total < c->learning_starts) { /* warm-up: uniform in the box */
        for (size_t k = 0; k < (size_t)count * A; k++) a[k] = 2.0f * rl_rng_uniform(&p->explore) - 1.0f;
    } else {
        rl_obs_input(&p->obs.info, b->obs, count, p->ws.act_x);
        /* row by row (rl_mlp_infer): an env's action does not depend on the batch */
        const float *out = rl_mlp_infer(&p->pi, p->actor.data, p->ws.act_x, count);
        if (c->sde) {
            ac_sde_act(p, out, count, train ? start : NULL, a);
        } else if (ac_squashed(c)) {
            float *eps = train ? p->ws.act_eps : NULL; /* evaluation: the mean */
            for (size_t k = 0; eps && k < (size_t)count * A; k++) eps[k] = (float)rl_rng_normal(&p->explore);
            ac_squash(p, out, eps, count, a, NULL);
        } else {
            for (size_t k = 0; k < (size_t)count * A; k++) {
                float t = tanhf(out[k]);
                if (train && c->expl_noise > 0) {
                    t += exploration_noise(p, (uint32_t)(k / A), start, k);
                    t = t < -1.0f ? -1.0f : t > 1.0f ? 1.0f : t;
                }
                a[k] = t;
            }
        }
    }
    for (uint32_t i = 0; i < count; i++)
        for (uint32_t k = 0; k < A; k++) actions[(size_t)i * A + k] = ac_to_box(c, k, a[(size_t)i * A + k]);
    return RL_OK;
}

static int ac_observe(void *p_, const rl_transition *t, char *err, size_t errlen)
{
    ac *p = p_;
    if (p->cfg.inference) {
        RL_ERRF(err, errlen, "this instance was made for inference (rl_algo_args.inference): it cannot train");
        return RL_EINVAL;
    }
    rl_replay_add(&p->rb, t);
    return RL_OK;
}

static int ac_update(void *p_, uint64_t step, char *err, size_t errlen)
{
    ac *p = p_;
    const ac_settings *c = &p->cfg;
    p->vsteps++;
    if (step <= c->learning_starts) return RL_OK;
    uint64_t n;
    if (c->ratio_auto) {
        n = p->vsteps % c->train_freq == 0 ? c->gradient_steps : 0;
    } else {
        p->ratio_acc += c->ratio * p->env_total;
        n = (uint64_t)p->ratio_acc;
        p->ratio_acc -= (double)n;
    }
    return n ? ac_train(p, n, err, errlen) : RL_OK;
}

static size_t ac_metrics(void *p_, rl_metric *out, size_t cap)
{
    ac *p = p_;
    const ac_settings *c = &p->cfg;
    double n = p->m.n ? (double)p->m.n : NAN, na = p->m.n_actor ? (double)p->m.n_actor : NAN;
    double ratio = c->ratio_auto ? (double)c->gradient_steps / ((double)c->train_freq * p->env_total) : c->ratio;
    rl_metric m[8] = {
        {"train_steps_ratio", ratio},          {"skipped_batches", (double)p->skipped},
        {"grad_steps", (double)p->grad_steps}, {"critic_loss", p->m.critic_loss / n},
        {"actor_loss", p->m.actor_loss / na},  {"q_mean", p->m.q / n},
        {"ent_coef", p->m.alpha / na},         {"entropy", p->m.entropy / na},
    };
    size_t k = ac_squashed(c) ? 8 : 6;
    if (k > cap) k = cap;
    memcpy(out, m, k * sizeof *m);
    memset(&p->m, 0, sizeof p->m);
    return k;
}

RL_KEEP_BEST_EVAL_EXT(eval_ext, ac, kb, actor, host, "ac");

RL_ALGO_STATE_EXT(state_ext, ac_state);

static const void *ac_get_extension(void *p, const char *id)
{
    (void)p;
    if (strcmp(id, RL_EXT_ALGO_EVAL) == 0) return &eval_ext;
    if (strcmp(id, RL_EXT_ALGO_STATE) == 0) return &state_ext;
    return NULL;
}

#define AC_VTABLE(create_fn)                                                                                      \
    {                                                                                                             \
        .struct_size = sizeof(rl_algo_vtable), .create = create_fn, .destroy = ac_destroy, .observe = ac_observe, \
        .update = ac_update, .metrics = ac_metrics, .get_extension = ac_get_extension, .act_batch = ac_act,       \
    }
static const rl_algo_vtable sac_vtable = AC_VTABLE(sac_create), tqc_vtable = AC_VTABLE(tqc_create),
                            crossq_vtable = AC_VTABLE(crossq_create), td3_vtable = AC_VTABLE(td3_create);

/* The default search spaces of rlhost tune: the RL Zoo's SAC and TD3
   samplers (rl_zoo3/hyperparams_opt.py) over these plugins' options. */
#define SAC_SPACE                                                            \
    "lr = { log_uniform = [1e-5, 1e-2]; };\n"                                \
    "gamma = { choice = [0.9, 0.95, 0.98, 0.99, 0.995, 0.999, 0.9999]; };\n" \
    "batch_size = { choice = [16, 32, 64, 128, 256, 512, 1024, 2048]; };\n"  \
    "buffer_size = { choice = [10000, 100000, 1000000]; };\n"                \
    "learning_starts = { choice = [0, 1000, 10000, 20000]; };\n"             \
    "train_freq = { choice = [1, 4, 8, 16, 32, 64, 128, 256, 512]; };\n"     \
    "tau = { choice = [0.001, 0.005, 0.01, 0.02, 0.05, 0.08]; };\n"          \
    "hidden = { choice = ([64, 64], [256, 256], [400, 300]); };\n"
static const char sac_space[] = SAC_SPACE;
/* and the Zoo's TQC sampler's two of its own */
static const char tqc_space[] = SAC_SPACE "n_quantiles = { int = [5, 50]; };\n"
                                          "top_quantiles_to_drop_per_net = { int = [0, 4]; };\n";
/* CrossQ: no Zoo sampler of its own; SAC's without the target networks',
   with the critics' width and the actor's delay */
static const char crossq_space[] = "lr = { log_uniform = [1e-5, 1e-2]; };\n"
                                   "gamma = { choice = [0.9, 0.95, 0.98, 0.99, 0.995, 0.999, 0.9999]; };\n"
                                   "batch_size = { choice = [64, 128, 256, 512, 1024]; };\n"
                                   "buffer_size = { choice = [10000, 100000, 1000000]; };\n"
                                   "learning_starts = { choice = [0, 1000, 10000, 20000]; };\n"
                                   "train_freq = { choice = [1, 4, 8, 16, 32, 64, 128, 256, 512]; };\n"
                                   "policy_delay = { choice = [1, 2, 3]; };\n"
                                   "hidden = { choice = ([64, 64], [256, 256], [400, 300]); };\n"
                                   "critic_hidden = { choice = ([256, 256], [512, 512], [1024, 1024]); };\n";
static const char td3_space[] = "lr = { log_uniform = [1e-5, 1.0]; };\n"
                                "gamma = { choice = [0.9, 0.95, 0.98, 0.99, 0.995, 0.999, 0.9999]; };\n"
                                "batch_size = { choice = [16, 32, 64, 100, 128, 256, 512, 1024, 2048]; };\n"
                                "buffer_size = { choice = [10000, 100000, 1000000]; };\n"
                                "train_freq = { choice = [1, 4, 8, 16, 32, 64, 128, 256, 512]; };\n"
                                "tau = { choice = [0.001, 0.005, 0.01, 0.02, 0.05, 0.08]; };\n"
                                "exploration_noise = { uniform = [0.0, 1.0]; };\n"
                                "hidden = { choice = ([64, 64], [256, 256], [400, 300]); };\n";

/* composite observations: every part flattened into the MLPs (rl_obs_input) */
#define AC_FLAGS (RL_DESC_REPLICAS | RL_DESC_BOX | RL_DESC_NO_DISCRETE | RL_DESC_OBS_PARTS)
/* CrossQ's batch statistics are one process's batch's: no replicas */
#define CROSSQ_FLAGS (RL_DESC_BOX | RL_DESC_NO_DISCRETE | RL_DESC_OBS_PARTS)
/* One member of the family: its name, what it is, its options, vtable,
   flags and default tuning space; every member takes the same stages. */
#define AC_DESC(NAME, TEXT, OPTS, N_OPTS, VTABLE, FLAGS, SPACE)                                        \
    {                                                                                                  \
        .struct_size = sizeof(rl_plugin_desc), .kind = RL_KIND_ALGO, .name = NAME, .version = "1.0.0", \
        .description = TEXT, .options = OPTS, .n_options = N_OPTS, .stages = stages, .n_stages = ST_N, \
        .vtable = VTABLE, .flags = FLAGS, .tune_space = SPACE,                                         \
    }

static const rl_plugin_desc descs[] = {
    AC_DESC("sac", "soft actor-critic: tanh-squashed Gaussian actor, twin critics, learned entropy coefficient",
            opts_sac, SAC_OPT_N, &sac_vtable, AC_FLAGS, sac_space),
    AC_DESC("tqc",
            "truncated quantile critics: SAC's actor, critics of return quantiles, the top quantiles dropped from "
            "the target",
            opts_tqc, TQC_OPT_N, &tqc_vtable, AC_FLAGS, tqc_space),
    AC_DESC("crossq",
            "CrossQ: SAC without target networks, batch renormalization in the actor and the critics, current and "
            "next states through the critics as one batch",
            opts_crossq, CROSSQ_OPT_N, &crossq_vtable, CROSSQ_FLAGS, crossq_space),
    AC_DESC("td3", "twin delayed DDPG: deterministic actor, clipped double Q, target smoothing, delayed actor updates",
            opts_td3, TD3_OPT_N, &td3_vtable, AC_FLAGS, td3_space),
    AC_DESC("ddpg", "DDPG: TD3 with one critic, no target smoothing and an actor update every step", opts_ddpg,
            TD3_OPT_N, &td3_vtable, AC_FLAGS, td3_space),
};

RL_PLUGIN_DEFINE_ARRAY(descs, &host);
