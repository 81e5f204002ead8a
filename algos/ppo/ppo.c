/*
 * PPO and recurrent PPO as one plugin: `ppo` and `recurrent_ppo` are presets
 * of the same code (recurrent = true puts an LSTM before the heads).
 *
 * Networks are "towers" (ppo_net.c): an optional CNN, an optional LSTM, then
 * an MLP.  shared = false
 * (default) gives the actor and the critic a tower each; shared = true gives
 * one body tower whose features feed two linear heads.
 *
 * Data flow: act() samples from the policy for all envs in one batched
 * forward and records obs, action, log-prob, value (and, recurrent, the
 * LSTM state each env carried into the step); observe() records rewards and
 * episode ends, with the value of the final observation for truncations;
 * update() runs when n_steps are collected (ppo_train.c).  Checkpoints are
 * ppo_state.c.  Files: ppo.c -> ppo_train.c, ppo_state.c -> ppo_net.c,
 * ppo_math.c (the losses); no arrow back.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <rlhost/nn.h>

#include "ppo.h"
#include "ppo_math.h"

static const rl_host_api *host;

static const char *const activations[] = {"tanh", "relu", NULL};
static const char *const schedules[] = {"constant", "linear", NULL};
static const char *const nonfinite_choices[] = {"stop", "skip", NULL};
static const char *const vloss_forms[] = {"sb3", "baselines", NULL}; /* in ppo_vloss order */

enum {
    OPT_HIDDEN,
    OPT_ACTIVATION,
    OPT_SHARED,
    OPT_LR,
    OPT_LR_SCHEDULE,
    OPT_N_STEPS,
    OPT_BATCH_SIZE,
    OPT_N_EPOCHS,
    OPT_GAMMA,
    OPT_GAE_LAMBDA,
    OPT_CLIP_RANGE,
    OPT_CLIP_SCHEDULE,
    OPT_CLIP_RANGE_VF,
    OPT_VALUE_LOSS,
    OPT_NORMALIZE_ADV,
    OPT_ENT_COEF,
    OPT_VF_COEF,
    OPT_MAX_GRAD_NORM,
    OPT_ADAM_EPS,
    OPT_DETERMINISTIC_EVAL,
    OPT_RECURRENT,
    OPT_LSTM_HIDDEN,
    OPT_BPTT,
    OPT_KEEP_BEST,
    OPT_ON_NONFINITE,
    OPT_NORMALIZE_OBS,
    OPT_NORMALIZE_REWARD,
    OPT_LOG_STD_INIT,
    OPT_ORTHO_INIT,
    OPT_USE_SDE,
    OPT_SDE_FREQ,
    OPT_FULL_STD,
    OPT_ENCODER,
    OPT_ENCODER_LAST = OPT_ENCODER + RL_ENCODER_N_OPTIONS - 1,
    OPT_N
};

enum { ST_BATCH_INFERENCE, ST_BLAS_THREADS, ST_N };

#define PPO_OPTIONS(recurrent)                                                                                        \
    {                                                                                                                 \
        [OPT_HIDDEN] =                                                                                                \
            RL_OPTION_INT_LIST("hidden", "[64, 64]", 1, 65536, "hidden widths of the actor and critic MLPs"),         \
        [OPT_ACTIVATION] = RL_OPTION_ENUM("activation", "tanh", activations, "hidden activation"),                    \
        [OPT_SHARED] = RL_OPTION_BOOL("shared", "false", "one body (and LSTM) for actor and critic, with two heads"), \
        [OPT_LR] = RL_OPTION_FLOAT("lr", "3e-4", 0, 1, "Adam learning rate"),                                         \
        [OPT_LR_SCHEDULE] =                                                                                           \
            RL_OPTION_ENUM("lr_schedule", "constant", schedules, "constant, or linear decay to 0 over the run"),      \
        [OPT_N_STEPS] = RL_OPTION_INT("n_steps", "2048", 1, 1e7, "steps per env per rollout"),                        \
        [OPT_BATCH_SIZE] = RL_OPTION_INT("batch_size", "64", 1, 1e8, "minibatch size in transitions"),                \
        [OPT_N_EPOCHS] = RL_OPTION_INT("n_epochs", "10", 1, 10000, "passes over each rollout"),                       \
        [OPT_GAMMA] = RL_OPTION_FLOAT("gamma", "0.99", 0, 1, "discount factor"),                                      \
        [OPT_GAE_LAMBDA] = RL_OPTION_FLOAT("gae_lambda", "0.95", 0, 1, "GAE lambda"),                                 \
        [OPT_CLIP_RANGE] = RL_OPTION_FLOAT("clip_range", "0.2", 0, 10, "surrogate clipping epsilon"),                 \
        [OPT_CLIP_SCHEDULE] =                                                                                         \
            RL_OPTION_ENUM("clip_schedule", "constant", schedules, "constant, or linear decay to 0 over the run"),    \
        [OPT_CLIP_RANGE_VF] =                                                                                         \
            RL_OPTION_FLOAT("clip_range_vf", "0.0", 0, 1e6, "value clipping around the rollout's values (0 = off)"),  \
        [OPT_VALUE_LOSS] = RL_OPTION_ENUM("value_loss", "sb3", vloss_forms,                                           \
                                          "sb3: (v' - R)^2 with v' the clipped value; baselines: "                    \
                                          "0.5 max((v - R)^2, (v' - R)^2), as OpenAI Baselines' "                     \
                                          "ppo2 and CleanRL"),                                                        \
        [OPT_NORMALIZE_ADV] = RL_OPTION_BOOL("normalize_advantage", "true", "normalize advantages per minibatch"),    \
        [OPT_ENT_COEF] = RL_OPTION_FLOAT("ent_coef", "0.0", 0, 1e3, "entropy bonus coefficient"),                     \
        [OPT_VF_COEF] = RL_OPTION_FLOAT("vf_coef", "0.5", 0, 1e3, "value loss coefficient"),                          \
        [OPT_MAX_GRAD_NORM] =                                                                                         \
            RL_OPTION_FLOAT("max_grad_norm", "0.5", 0, 1e9, "clip gradients to this global norm (0 = off)"),          \
        [OPT_ADAM_EPS] = RL_OPTION_FLOAT("adam_eps", "1e-5", 0, 1, "Adam epsilon"),                                   \
        [OPT_DETERMINISTIC_EVAL] =                                                                                    \
            RL_OPTION_BOOL("deterministic_eval", "true", "evaluate with the most likely action; false samples"),      \
        [OPT_RECURRENT] = RL_OPTION_BOOL("recurrent", recurrent, "an LSTM before the heads, trained through time"),   \
        [OPT_LSTM_HIDDEN] = RL_OPTION_INT("lstm_hidden", "64", 1, 4096, "LSTM width (recurrent)"),                    \
        [OPT_BPTT] = RL_OPTION_INT("bptt_horizon", "16", 1, 100000,                                                   \
                                   "sequence length for backpropagation through time (recurrent); "                   \
                                   "must divide n_steps"),                                                            \
        [OPT_KEEP_BEST] = RL_OPTION_BOOL("keep_best", "false",                                                        \
                                         "end with the best policy seen by periodic evaluation "                      \
                                         "(needs run.eval_interval)"),                                                \
        [OPT_ON_NONFINITE] = RL_OPTION_ENUM("on_nonfinite", "stop", nonfinite_choices,                                \
                                            "a NaN/inf loss or gradient: stop the run (the last good "                \
                                            "checkpoint stays) or skip that minibatch"),                              \
        [OPT_NORMALIZE_OBS] = RL_OPTION_BOOL("normalize_obs", "false",                                                \
                                             "scale observations by a running mean and std of the training "          \
                                             "observations (clipped to +-10; kept in checkpoints)"),                  \
        [OPT_NORMALIZE_REWARD] = RL_OPTION_BOOL("normalize_reward", "false",                                          \
                                                "divide rewards by a running estimate of the discounted return's "    \
                                                "standard deviation, clipped to +-10 (VecNormalize)"),                \
        [OPT_LOG_STD_INIT] =                                                                                          \
            RL_OPTION_FLOAT("log_std_init", "0.0", -20, 2, "box actions: the Gaussian policy's initial log-std"),     \
        [OPT_ORTHO_INIT] = RL_OPTION_BOOL("ortho_init", "true",                                                       \
                                          "orthogonal init (gains sqrt 2, 0.01 policy, 1 value); false = "            \
                                          "PyTorch's Linear default, as SB3's ortho_init=False"),                     \
        [OPT_USE_SDE] = RL_OPTION_BOOL("use_sde", "false",                                                            \
                                       "box actions: generalized state-dependent exploration, noise linear in the "   \
                                       "policy's last hidden features with its matrix held between draws; "           \
                                       "log_std_init is then its entries' initial log-std"),                          \
        [OPT_SDE_FREQ] = RL_OPTION_INT_F("sde_sample_freq", "\"auto\"", 1, 1e9, RL_OPT_AUTO,                          \
                                         "use_sde: steps per env between new noise matrices (an env's also at its "   \
                                         "episode start); auto = at each rollout's start"),                           \
        [OPT_FULL_STD] = RL_OPTION_BOOL("full_std", "true",                                                           \
                                        "use_sde: a log-std per feature and action dimension (else per feature)"),    \
        RL_ENCODER_OPTIONS(OPT_ENCODER),                                                                              \
    }

static const rl_option_def opts_ppo[OPT_N] = PPO_OPTIONS("false");
static const rl_option_def opts_rppo[OPT_N] = PPO_OPTIONS("true");

static const rl_option_def stages[ST_N] = {
    [ST_BATCH_INFERENCE] = RL_OPTION_BOOL("batch_inference", "true",
                                          "one forward pass for all envs' actions; false = one per env "
                                          "(same results, for measurement)"),
    [ST_BLAS_THREADS] = RL_OPTION_INT_F("blas_threads", "1", 1, 1024, RL_OPT_AUTO,
                                        "OpenBLAS threads for the networks; auto = all cores"),
};

static void ppo_destroy(void *p_)
{
    ppo *p = p_;
    if (!p) return;
    for (int k = 0; k < 2; k++) {
        tower_destroy(&p->towers[k]);
        rl_free(p->stored_h[k]);
        rl_free(p->stored_c[k]);
        rl_free(p->live[k].h);
        rl_free(p->live[k].c);
        rl_free(p->eval[k].h);
        rl_free(p->eval[k].c);
    }
    rl_mlp_destroy(&p->head_pi);
    rl_mlp_destroy(&p->head_v);
    rl_params_free(&p->p);
    rl_keep_best_free(&p->kb);
    rl_adam_destroy(&p->adam);
    rl_rollout_destroy(&p->ro);
    rl_obs_layout_free(&p->obs);
    rl_mpdist_free(p->dist);
    rl_free(p->ws.mb_act);
    rl_free(p->ws.mb_mask);
    rl_free(p->ws.mb_logp);
    rl_free(p->ws.mb_glogp);
    float *f[] = {p->ws.x,     p->ws.logits,       p->ws.mb_box, p->ws.dlogits, p->ws.dv,
                  p->ws.vpred, p->ws.feat_scratch, p->ws.gates,  p->ws.h0[0],   p->ws.c0[0],
                  p->ws.h0[1], p->ws.c0[1],        p->ws.act_x,  p->ws.tmp_h,   p->ws.tmp_c};
    for (size_t k = 0; k < sizeof f / sizeof *f; k++) rl_free(f[k]);
    rl_free(p->ws.perm);
    rl_free(p->ws.rows_idx);
    rl_free(p->ws.reset);
    rl_obs_norm_destroy(&p->norm);
    rl_return_norm_destroy(&p->rnorm);
    rl_free(p->ws.dlogstd);
    rl_free(p->ws.sde_z);
    rl_free(p->ws.sde_std);
    rl_free(p->sde_env);
    free(p);
}

#define ALLOC(ptr, n, type) ((ptr) = rl_calloc_aligned((size_t)(n), sizeof(type)))

/* The options and the env's spaces, as the settings fields. */
static void read_options(ppo *p, const rl_algo_args *args)
{
    const rl_value *o = args->options, *st = args->stages;
    uint32_t kind = rl_env_info_action_kind(args->env);
    p->cfg.dim = rl_env_info_action_floats(args->env);
    p->cfg.box = p->cfg.dim > 0;
    p->cfg.discrete = kind != RL_SPACE_BOX;
    p->cfg.n_actions = kind == RL_SPACE_DISCRETE ? args->env->n_actions : 0;
    p->cfg.comps = rl_env_info_action_ints(args->env);
    p->cfg.mask_width = rl_env_info_mask_width(args->env);
    p->cfg.n_out = rl_env_info_action_width(args->env);
    p->cfg.log_std_init = (float)o[OPT_LOG_STD_INIT].f;
    p->cfg.ortho_init = (int)o[OPT_ORTHO_INIT].i;
    p->cfg.sde = (int)o[OPT_USE_SDE].i;
    p->cfg.sde_freq = o[OPT_SDE_FREQ].is_auto ? 0 : (uint32_t)o[OPT_SDE_FREQ].i;
    p->cfg.full_std = (int)o[OPT_FULL_STD].i;
    p->cfg.norm_reward = (int)o[OPT_NORMALIZE_REWARD].i;
    p->cfg.obs_size = rl_obs_input_width(args->env);
    p->cfg.num_envs = args->num_envs;
    p->cfg.rows = args->num_envs > args->num_eval_envs ? args->num_envs : args->num_eval_envs;
    p->cfg.n_steps = (uint32_t)o[OPT_N_STEPS].i;
    p->cfg.batch = (uint32_t)o[OPT_BATCH_SIZE].i;
    p->cfg.epochs = (uint32_t)o[OPT_N_EPOCHS].i;
    p->cfg.total_steps = args->total_steps;
    p->cfg.lr = (float)o[OPT_LR].f;
    p->cfg.lr_linear = o[OPT_LR_SCHEDULE].i == 1;
    p->cfg.gamma = (float)o[OPT_GAMMA].f;
    p->cfg.lambda = (float)o[OPT_GAE_LAMBDA].f;
    p->cfg.clip = (float)o[OPT_CLIP_RANGE].f;
    p->cfg.clip_linear = o[OPT_CLIP_SCHEDULE].i == 1;
    p->cfg.vclip = (float)o[OPT_CLIP_RANGE_VF].f;
    p->cfg.vloss = (ppo_vloss)o[OPT_VALUE_LOSS].i;
    p->cfg.norm_adv = (int)o[OPT_NORMALIZE_ADV].i;
    p->cfg.ent_coef = (float)o[OPT_ENT_COEF].f;
    p->cfg.vf_coef = (float)o[OPT_VF_COEF].f;
    p->cfg.max_grad_norm = (float)o[OPT_MAX_GRAD_NORM].f;
    p->cfg.det_eval = (int)o[OPT_DETERMINISTIC_EVAL].i;
    p->cfg.norm_obs = (int)o[OPT_NORMALIZE_OBS].i;
    p->cfg.recurrent = (int)o[OPT_RECURRENT].i;
    p->cfg.shared = (int)o[OPT_SHARED].i;
    p->cfg.skip_nonfinite = o[OPT_ON_NONFINITE].i == 1;
    p->cfg.batch_inference = (int)st[ST_BATCH_INFERENCE].i;
    p->cfg.act = o[OPT_ACTIVATION].i == 1 ? RL_ACT_RELU : RL_ACT_TANH;
    p->cfg.bptt = p->cfg.recurrent ? (uint32_t)o[OPT_BPTT].i : 1;
    p->cfg.lstm_hidden = p->cfg.recurrent ? (uint32_t)o[OPT_LSTM_HIDDEN].i : 0;
    p->cfg.n_towers = p->cfg.shared ? 1 : 2;
    p->rep = rl_args_replicas(args);
    p->cfg.replicas = p->rep ? p->rep->count : 1;
    if ((p->cfg.inference = rl_args_inference(args))) { /* acting only: a one-env, one-sequence rollout */
        p->cfg.num_envs = 1;
        p->cfg.rows = args->num_eval_envs > 1 ? args->num_eval_envs : 1;
        p->cfg.n_steps = p->cfg.batch = p->cfg.bptt;
        p->cfg.replicas = 1;
    }
    /* replicas share the cores: BLAS threads of their own would oversubscribe them */
    rl_blas_set_threads(st[ST_BLAS_THREADS].is_auto ? (p->cfg.replicas > 1 ? 1 : (int)host->cpu_count())
                                                    : (int)st[ST_BLAS_THREADS].i);
}

/* The settings that cannot work together; p->cfg.batch becomes the replica's
   share of the minibatch. */
static int validate(ppo *p, const rl_value *o, char *err, size_t errlen)
{
    if (p->cfg.replicas > 1 && rl_replicas_shared(p->rep)) {
        RL_ERRF(err, errlen, "%u replicas cannot split env.num_envs = %u evenly (PPO replicas own their envs)",
                p->cfg.replicas, p->cfg.num_envs);
        return RL_EINVAL;
    }
    uint32_t units = p->cfg.recurrent ? p->cfg.batch / (p->cfg.bptt ? p->cfg.bptt : 1) : p->cfg.batch;
    if (p->cfg.replicas > 1 && (units % p->cfg.replicas || (p->cfg.recurrent && p->cfg.batch % p->cfg.bptt))) {
        RL_ERRF(err, errlen, "%u replicas cannot split batch_size %u evenly%s", p->cfg.replicas, p->cfg.batch,
                p->cfg.recurrent ? " into whole sequences of bptt_horizon" : "");
        return RL_EINVAL;
    }
    p->cfg.batch /= p->cfg.replicas;
    if (p->cfg.batch > (uint64_t)p->cfg.n_steps * p->cfg.num_envs) {
        RL_ERRF(err, errlen, "batch_size %u is larger than a rollout (n_steps %u x %u envs)",
                p->cfg.batch * p->cfg.replicas, p->cfg.n_steps, p->cfg.num_envs * p->cfg.replicas);
        return RL_EINVAL;
    }
    if (p->cfg.recurrent && (p->cfg.n_steps % p->cfg.bptt || p->cfg.batch % p->cfg.bptt)) {
        RL_ERRF(err, errlen, "bptt_horizon %u must divide n_steps (%u) and batch_size (%u)", p->cfg.bptt,
                p->cfg.n_steps, p->cfg.batch * p->cfg.replicas);
        return RL_EINVAL;
    }
    if (p->cfg.sde && (!p->cfg.box || p->cfg.discrete || o[OPT_HIDDEN].n == 0)) {
        RL_ERRF(err, errlen, "use_sde needs %s",
                !p->cfg.box           ? "a box action space; this env's actions are discrete"
                    : p->cfg.discrete ? "a box action space; this env's actions are hybrid (discrete and box)"
                                      : "a hidden layer, whose features its noise is linear in");
        return RL_EINVAL;
    }
    if (o[OPT_HIDDEN].n > RL_MLP_MAX_LAYERS - 1 || (p->cfg.shared && o[OPT_HIDDEN].n == 0)) {
        RL_ERRF(err, errlen, "hidden needs 1 to %d layers with shared, at most %d without", RL_MLP_MAX_LAYERS - 1,
                RL_MLP_MAX_LAYERS - 1);
        return RL_EINVAL;
    }
    return RL_OK;
}

/* The towers (and heads, when shared) carved from one parameter block, M
   rows at most per pass, S sequences per minibatch. */
static int build_networks(ppo *p, const rl_cnn_spec *cnn, const uint32_t *hidden, uint32_t nh, uint32_t M, uint32_t S,
                          char *err, size_t errlen)
{
    int rc;
    if (p->cfg.shared) {
        uint32_t feat = hidden[nh - 1];
        rc = tower_create(&p->towers[0], &p->p, "body", &p->obs.info, cnn, p->cfg.recurrent, p->cfg.lstm_hidden, hidden,
                          nh - 1, feat, p->cfg.act, M, S, p->cfg.bptt, err, errlen);
        if (!rc) rc = rl_mlp_create(&p->head_pi, &p->p, "pi", feat, NULL, 0, p->cfg.n_out, RL_ACT_NONE, M);
        if (!rc) rc = rl_mlp_create(&p->head_v, &p->p, "vf", feat, NULL, 0, 1, RL_ACT_NONE, M);
    } else {
        rc = tower_create(&p->towers[0], &p->p, "actor", &p->obs.info, cnn, p->cfg.recurrent, p->cfg.lstm_hidden,
                          hidden, nh, p->cfg.n_out, p->cfg.act, M, S, p->cfg.bptt, err, errlen);
        if (!rc)
            rc = tower_create(&p->towers[1], &p->p, "critic", &p->obs.info, cnn, p->cfg.recurrent, p->cfg.lstm_hidden,
                              hidden, nh, 1, p->cfg.act, M, S, p->cfg.bptt, err, errlen);
    }
    /* the Gaussian's state-independent log-stds, as SB3 and CleanRL have them; gSDE's [latent][dim or 1] */
    p->cfg.latent = nh ? hidden[nh - 1] : 0;
    p->cfg.n_log_std = p->cfg.sde ? p->cfg.latent * (p->cfg.full_std ? p->cfg.dim : 1) : p->cfg.dim;
    if (!rc && p->cfg.box) {
        const char *name = p->cfg.shared ? "pi/log_std" : "actor/log_std";
        p->cfg.log_std_off = p->cfg.sde ? rl_params_add(&p->p, name, p->cfg.latent, p->cfg.full_std ? p->cfg.dim : 1)
                                        : rl_params_add(&p->p, name, p->cfg.dim, 1);
        if (p->cfg.log_std_off == (size_t)-1) rc = RL_ENOMEM;
    }
    return rc ? rc : rl_params_alloc(&p->p);
}

/* Orthogonal init: sqrt(2) on hidden layers, 0.01 on the policy output, 1
   on the value output; or PyTorch's Linear default everywhere (ortho_init
   false; the gains then mean nothing). */
static void init_weights(ppo *p, uint64_t seed)
{
    rl_rng init;
    rl_rng_seed(&init, seed, 0x1417);
    rl_init_scheme scheme = p->cfg.ortho_init ? RL_INIT_ORTHOGONAL : RL_INIT_DEFAULT;
    for (uint32_t k = 0; k < p->cfg.n_towers; k++) {
        tower *t = &p->towers[k];
        if (t->has_cnn) rl_cnn_init(&t->cnn, &p->p, scheme, &init);
        if (t->has_parts) rl_parts_encoder_init(&t->enc, &p->p, scheme, &init);
        if (t->recurrent) rl_lstm_init(&t->lstm, &p->p, &init);
        float out_gain = p->cfg.shared ? 1.41421356f : (k == 0 ? 0.01f : 1.0f);
        rl_mlp_init(&t->mlp, &p->p, scheme, out_gain, &init);
    }
    if (p->cfg.shared) {
        rl_mlp_init(&p->head_pi, &p->p, scheme, 0.01f, &init);
        rl_mlp_init(&p->head_v, &p->p, scheme, 1.0f, &init);
    }
    for (uint32_t k = 0; p->cfg.box && k < p->cfg.n_log_std; k++)
        p->p.data[p->cfg.log_std_off + k] = p->cfg.log_std_init;
}

/* The rollout [T][N] (with each row's components and mask), the workspaces for M rows (feat: the widest last
   hidden layer), the observation statistics and the recurrent state. */
static int alloc_buffers(ppo *p, const rl_env_info *env, uint32_t M, uint32_t S, uint32_t feat)
{
    size_t TN = (size_t)p->cfg.n_steps * p->cfg.num_envs, D = p->cfg.obs_size;
    int rc = rl_rollout_for_env(&p->ro, p->cfg.n_steps, p->cfg.num_envs, (uint32_t)D, env);
    if (rc != RL_OK) return rc;
    size_t C = p->cfg.comps, W = p->cfg.mask_width;
    if (p->cfg.box &&
        (!ALLOC(p->ws.mb_box, (size_t)M * p->cfg.dim, float) || !ALLOC(p->ws.dlogstd, p->cfg.n_log_std, float) ||
         (p->cfg.sde &&
          (!ALLOC(p->ws.sde_z, (size_t)p->cfg.rows * p->cfg.latent, float) ||
           !ALLOC(p->ws.sde_std, (size_t)p->cfg.latent * p->cfg.dim, float) ||
           !ALLOC(p->sde_env, (size_t)p->cfg.num_envs * p->cfg.latent * p->cfg.dim, float)))))
        return RL_ENOMEM;
    if (p->cfg.discrete &&
        (!ALLOC(p->ws.mb_act, (size_t)M * C, int32_t) || (W && !ALLOC(p->ws.mb_mask, (size_t)M * W, uint8_t))))
        return RL_ENOMEM;
    if (!ALLOC(p->ws.x, (size_t)M * D, float) || !ALLOC(p->ws.logits, (size_t)M * p->cfg.n_out, float) ||
        !ALLOC(p->ws.mb_logp, M, float) || !ALLOC(p->ws.mb_glogp, M, float) ||
        !ALLOC(p->ws.dlogits, (size_t)M * p->cfg.n_out, float) || !ALLOC(p->ws.dv, M, float) ||
        !ALLOC(p->ws.vpred, M, float) || !ALLOC(p->ws.feat_scratch, (size_t)M * feat * 3, float) ||
        !ALLOC(p->ws.act_x, (size_t)p->cfg.rows * D, float) || !ALLOC(p->ws.perm, TN, uint32_t) ||
        !ALLOC(p->ws.rows_idx, p->cfg.batch, uint32_t) || !ALLOC(p->ws.reset, p->cfg.batch, uint8_t))
        return RL_ENOMEM;
    if ((rc = rl_obs_norm_create(&p->norm, (uint32_t)D, 10.0f)) ||
        (rc = rl_return_norm_create(&p->rnorm, p->cfg.num_envs, p->cfg.gamma, 10.0f)))
        return rc;
    if (!p->cfg.recurrent) return RL_OK;
    size_t H = p->cfg.lstm_hidden;
    if (!ALLOC(p->ws.gates, 2 * (size_t)p->cfg.rows * 4 * H, float) || !ALLOC(p->ws.tmp_h, 2 * H, float) ||
        !ALLOC(p->ws.tmp_c, 2 * H, float))
        return RL_ENOMEM;
    for (uint32_t k = 0; k < p->cfg.n_towers; k++)
        if (!ALLOC(p->ws.h0[k], (size_t)S * H, float) || !ALLOC(p->ws.c0[k], (size_t)S * H, float) ||
            !ALLOC(p->stored_h[k], TN * H, float) || !ALLOC(p->stored_c[k], TN * H, float) ||
            !ALLOC(p->live[k].h, (size_t)p->cfg.num_envs * H, float) ||
            !ALLOC(p->live[k].c, (size_t)p->cfg.num_envs * H, float) ||
            !ALLOC(p->eval[k].h, (size_t)p->cfg.rows * H, float) ||
            !ALLOC(p->eval[k].c, (size_t)p->cfg.rows * H, float))
            return RL_ENOMEM;
    return RL_OK;
}

static int ppo_create(const rl_algo_args *args, void **out, char *err, size_t errlen)
{
    const rl_value *o = args->options;
    ppo *p = calloc(1, sizeof *p);
    if (!p) {
        RL_ERRF(err, errlen, "out of memory");
        return RL_ENOMEM;
    }
    read_options(p, args);
    int rc = validate(p, o, err, errlen);
    if (rc) goto fail;
    if ((rc = rl_obs_layout_copy(&p->obs, args->env))) {
        RL_ERRF(err, errlen, "%s copying the observation's layout", rl_strerror(rc));
        goto fail;
    }
    uint32_t hidden[RL_MLP_MAX_LAYERS], nh = (uint32_t)o[OPT_HIDDEN].n;
    for (uint32_t k = 0; k < nh; k++) hidden[k] = (uint32_t)o[OPT_HIDDEN].ilist[k];
    uint32_t M = p->cfg.batch > p->cfg.rows ? p->cfg.batch : p->cfg.rows, S = p->cfg.batch / p->cfg.bptt;
    rl_cnn_spec cnn;
    if ((rc = rl_cnn_spec_read(&cnn, &o[OPT_ENCODER], args->env, err, errlen))) {
        rc = RL_EINVAL;
        goto fail;
    }
    char nerr[RL_ERR_MAX] = "";
    if ((rc = build_networks(p, &cnn, hidden, nh, M, S, nerr, sizeof nerr)) && nerr[0]) {
        RL_ERRF(err, errlen, "%s", nerr);
        goto fail;
    }
    /* categoricals (masked where the env masks) over the logits, or the Gaussian around the means */
    if (!rc && !(p->dist = rl_mpdist_for_env(args->env, p->p.data + p->cfg.log_std_off, M, err, errlen))) {
        rc = RL_EINVAL;
        goto fail;
    }
    if (!rc && p->cfg.sde &&
        (rc = rl_mpdist_gsde(p->dist, p->cfg.latent, p->cfg.full_std, p->p.data + p->cfg.log_std_off, err, errlen)))
        goto fail;
    if (!rc && !p->cfg.inference) rc = rl_keep_best_init(&p->kb, (int)o[OPT_KEEP_BEST].i, &p->p);
    if (!rc && !p->cfg.inference) rc = rl_adam_create(&p->adam, p->p.n, 0.9f, 0.999f, (float)o[OPT_ADAM_EPS].f, 0.0f);
    uint64_t TN = (uint64_t)p->cfg.n_steps * p->cfg.num_envs;
    if (!rc &&
        rl_mem_check(TN *
                         (4 * (uint64_t)p->cfg.obs_size + 32 + 4 * (uint64_t)p->cfg.dim + 4 * (uint64_t)p->cfg.comps +
                          p->cfg.mask_width + 8 * (uint64_t)p->cfg.lstm_hidden * p->cfg.n_towers),
                     "the rollout", err, errlen) != RL_OK) {
        rc = RL_EINVAL; /* the config asks for more than the machine has */
        goto fail;
    }
    if (!rc) init_weights(p, args->seed);
    if (!rc) rc = alloc_buffers(p, args->env, M, S, nh ? hidden[nh - 1] : 1);
    if (rc) {
        RL_ERRF(err, errlen, "%s while building the networks and a rollout of %llu steps", rl_strerror(rc),
                (unsigned long long)p->cfg.n_steps * p->cfg.num_envs);
        goto fail;
    }
    /* Streams of their own per replica (replica 0's are the single run's);
       the network's initialization above is the same everywhere. */
    uint64_t k = p->rep ? (uint64_t)p->rep->index << 32 : 0;
    rl_rng_seed(&p->rng, args->seed, 0xA4C7 ^ k);
    rl_rng_seed(&p->eval_rng, args->seed, 0xE7A1);
    rl_rng_seed(&p->shuffle, args->seed, 0x5F1E ^ k);
    *out = p;
    return RL_OK;
fail:
    ppo_destroy(p);
    return rc;
}

/* Training act() and observe() run on every replica in step, so the
   statistics below, summed over the replicas, are those of all envs and
   stay identical on every replica. */
/* Observation rows as network input; with normalize_obs, training rows
   (update != 0) first update the statistics. */
static void to_float_stats(ppo *p, const void *obs, uint32_t rows, float *out, int update)
{
    rl_obs_input(&p->obs.info, obs, rows, out);
    if (!p->cfg.norm_obs) return;
    if (update) rl_obs_norm_update(&p->norm, out, rows, p->rep);
    rl_obs_norm_apply(&p->norm, out, rows);
}

static void to_float(ppo *p, const void *obs, uint32_t rows, float *out)
{
    to_float_stats(p, obs, rows, out, 0);
}

/* Per-row view of the recurrent states, for one-env-at-a-time inference. */
static void state_rows(const ppo *p, const lstm_state *all, uint32_t row, lstm_state *out)
{
    for (uint32_t k = 0; k < p->cfg.n_towers; k++) {
        out[k].h = all[k].h ? all[k].h + (size_t)row * p->cfg.lstm_hidden : NULL;
        out[k].c = all[k].c ? all[k].c + (size_t)row * p->cfg.lstm_hidden : NULL;
    }
}

/* ppo_infer over B rows, at once or one by one (batch_inference); gSDE
   keeps each row's latent features in ws.sde_z. */
static void infer_rows(ppo *p, const float *x, lstm_state *st, uint32_t B, float *logits, float *values)
{
    size_t L = p->cfg.latent;
    if (p->cfg.batch_inference) {
        ppo_infer(p, x, p->cfg.recurrent ? st : NULL, B, logits, values);
        if (p->cfg.sde) memcpy(p->ws.sde_z, ppo_latent(p), B * L * sizeof(float));
        return;
    }
    for (uint32_t i = 0; i < B; i++) {
        lstm_state row[2];
        state_rows(p, st, i, row);
        ppo_infer(p, x + (size_t)i * p->cfg.obs_size, p->cfg.recurrent ? row : NULL, 1,
                  logits + (size_t)i * p->cfg.n_out, values ? values + i : NULL);
        if (p->cfg.sde) memcpy(p->ws.sde_z + i * L, ppo_latent(p), L * sizeof(float));
    }
}

static void reset_states(ppo *p, lstm_state *st, const uint8_t *start, uint32_t B)
{
    if (!p->cfg.recurrent) return;
    size_t H = p->cfg.lstm_hidden;
    for (uint32_t k = 0; k < p->cfg.n_towers; k++)
        for (uint32_t i = 0; i < B; i++)
            if (start[i]) {
                memset(st[k].h + i * H, 0, H * sizeof(float));
                memset(st[k].c + i * H, 0, H * sizeof(float));
            }
}

/* The policy on count rows of obs: logits (discrete) or means (box) in
   ws.logits.  Evaluation uses the eval rows' recurrent state; training
   records the rows in the rollout at *at (observation, the recurrent
   state carried in, the value; act_rows the rest). */
static int policy_rows(ppo *p, rl_act_mode mode, const void *obs, const uint8_t *start, uint32_t count, size_t *at,
                       float *values, char *err, size_t errlen)
{
    if (mode == RL_MODE_EVAL) {
        if (count > p->cfg.rows) {
            RL_ERRF(err, errlen, "eval act for %u envs; created for %u", count, p->cfg.rows);
            return RL_EINVAL;
        }
        to_float(p, obs, count, p->ws.act_x);
        reset_states(p, p->eval, start, count);
        infer_rows(p, p->ws.act_x, p->eval, count, p->ws.logits, values);
        return RL_OK;
    }
    if (count != p->cfg.num_envs) {
        RL_ERRF(err, errlen, "train act for %u envs; created for %u", count, p->cfg.num_envs);
        return RL_EINVAL;
    }
    *at = rl_rollout_at(&p->ro);
    size_t H = p->cfg.lstm_hidden;
    float *x = p->ro.obs + *at * p->cfg.obs_size;
    to_float_stats(p, obs, count, x, 1);
    if (p->cfg.recurrent)
        for (uint32_t k = 0; k < p->cfg.n_towers; k++) { /* the state carried in, before resets */
            memcpy(p->stored_h[k] + *at * H, p->live[k].h, count * H * sizeof(float));
            memcpy(p->stored_c[k] + *at * H, p->live[k].c, count * H * sizeof(float));
        }
    reset_states(p, p->live, start, count);
    infer_rows(p, x, p->live, count, p->ws.logits, p->ro.values + *at);
    return RL_OK;
}

/* gSDE's matrices for the training step at the rollout's position: every
   env's drawn afresh at each rollout's start (and every sde_sample_freq
   steps when set), an env's alone at its episode start. */
static const float *sde_matrices(ppo *p, const uint8_t *start)
{
    uint32_t pos = p->ro.pos, f = p->cfg.sde_freq;
    rl_gsde_std(p->ws.sde_std, p->p.data + p->cfg.log_std_off, p->cfg.full_std, p->cfg.latent, p->cfg.dim);
    rl_gsde_resample(p->ws.sde_std, p->cfg.latent, p->cfg.dim, p->cfg.num_envs, f ? pos % f == 0 : pos == 0, start,
                     &p->rng, p->sde_env);
    return p->sde_env;
}

/* Each row's action from the policy's distribution over ws.logits (a
   sample, or the mode with deterministic_eval); a training row's action,
   mask and log-probability go to the rollout. */
static void act_rows(ppo *p, const rl_act_batch *b, size_t at)
{
    int greedy = b->mode == RL_MODE_EVAL && p->cfg.det_eval;
    rl_rng *rng = greedy ? NULL : b->mode == RL_MODE_TRAIN ? &p->rng : &p->eval_rng;
    uint32_t count = b->count;
    if (p->cfg.sde) /* evaluation: a fresh matrix per row from rng; training: each env's, held */
        rl_mpdist_gsde_rows(p->dist, p->ws.sde_z, b->mode == RL_MODE_EVAL ? NULL : sde_matrices(p, b->episode_start));
    if (b->mode == RL_MODE_EVAL) {
        rl_mpdist_act(p->dist, p->ws.logits, b->masks, count, rng, b->actions, b->box_actions);
        return;
    }
    rl_mpdist_act_logp(p->dist, p->ws.logits, b->masks, count, rng, b->actions, b->box_actions, p->ro.logp + at);
    rl_rollout_act_batch(&p->ro, b, NULL, NULL);
}

static int ppo_act(void *p_, const rl_act_batch *b, char *err, size_t errlen)
{
    ppo *p = p_;
    size_t at = 0;
    int asked = RL_HAS_FIELD(b, rl_act_batch, values) && (b->probs || b->values);
    if (asked && (b->mode != RL_MODE_EVAL || p->cfg.recurrent || p->cfg.box || p->cfg.comps != 1)) {
        RL_ERRF(err, errlen,
                "ppo gives probabilities and values for evaluation batches of one discrete action, without "
                "recurrence");
        return RL_ENOTSUP;
    }
    int rc = policy_rows(p, b->mode, b->obs, b->episode_start, b->count, &at, asked ? b->values : NULL, err, errlen);
    if (rc != RL_OK) return rc;
    if (asked && b->probs) rl_softmax_masked(b->probs, p->ws.logits, b->masks, b->count, p->cfg.n_actions);
    act_rows(p, b, at);
    return RL_OK;
}

/* V of the final observations of truncated episodes, continuing each env's
   critic state by one step (on copies). */
static void truncation_values(ppo *p, const rl_transition *t, float *out)
{
    size_t H = p->cfg.lstm_hidden;
    for (uint32_t i = 0; i < t->count; i++) {
        out[i] = 0.0f;
        if (!t->truncated[i] || t->terminated[i]) continue;
        float *x = p->ws.act_x;
        to_float(p, (const uint8_t *)t->final_obs + i * rl_obs_row_bytes(&p->obs.info), 1, x);
        lstm_state row[2];
        if (p->cfg.recurrent) {
            for (uint32_t k = 0; k < p->cfg.n_towers; k++) {
                memcpy(p->ws.tmp_h + k * H, p->live[k].h + i * H, H * sizeof(float));
                memcpy(p->ws.tmp_c + k * H, p->live[k].c + i * H, H * sizeof(float));
                row[k].h = p->ws.tmp_h + k * H;
                row[k].c = p->ws.tmp_c + k * H;
            }
        }
        ppo_infer(p, x, p->cfg.recurrent ? row : NULL, 1, p->ws.logits, &out[i]);
    }
}

static int ppo_observe(void *p_, const rl_transition *t, char *err, size_t errlen)
{
    ppo *p = p_;
    if (p->cfg.inference) {
        RL_ERRF(err, errlen, "this instance was made for inference (rl_algo_args.inference): it cannot train");
        return RL_EINVAL;
    }
    size_t at = rl_rollout_at(&p->ro);
    if (p->cfg.norm_reward)
        rl_return_norm_step(&p->rnorm, t->rewards, t->terminated, t->truncated, p->ro.rewards + at, p->rep);
    truncation_values(p, t, p->ro.final_values + at);
    to_float(p, t->next_obs, p->cfg.num_envs, p->ro.last_obs);
    rl_rollout_observe(&p->ro, t, p->cfg.norm_reward ? p->ro.rewards + at : NULL);
    return RL_OK;
}

static int ppo_update(void *p_, uint64_t step, char *err, size_t errlen)
{
    ppo *p = p_;
    p->step = step;
    p->progress = p->cfg.total_steps ? (double)step / (double)p->cfg.total_steps : 1.0;
    if (p->ro.pos < p->cfg.n_steps) return RL_OK;
    rl_rollout_clear(&p->ro);
    return ppo_train_rollout(p, err, errlen);
}

static size_t ppo_metrics(void *p_, rl_metric *out, size_t cap)
{
    ppo *p = p_;
    double n = p->m.n ? (double)p->m.n : NAN;
    rl_metric m[8] = {
        {"skipped_batches", (double)p->skipped},
        {"policy_loss", p->m.policy_loss / n},
        {"value_loss", p->m.value_loss / n},
        {"entropy", p->m.entropy / n},
        {"approx_kl", p->m.approx_kl / n},
        {"clip_fraction", p->m.clip_fraction / n},
        {"explained_variance", p->m.explained_variance},
        {"lr", p->cfg.lr_linear ? rl_schedule_linear(p->cfg.lr, 0.0f, p->progress) : p->cfg.lr},
    };
    size_t k = cap < 8 ? cap : 8;
    memcpy(out, m, k * sizeof *m);
    p->m.policy_loss = p->m.value_loss = p->m.entropy = p->m.approx_kl = p->m.clip_fraction = 0;
    p->m.n = 0;
    return k;
}

RL_KEEP_BEST_EVAL_EXT(eval_ext, ppo, kb, p, host, "ppo");

RL_ALGO_STATE_EXT(state_ext, ppo_state);

static const void *ppo_get_extension(void *p, const char *id)
{
    (void)p;
    if (strcmp(id, RL_EXT_ALGO_EVAL) == 0) return &eval_ext;
    if (strcmp(id, RL_EXT_ALGO_STATE) == 0) return &state_ext;
    return NULL;
}

static const rl_algo_vtable vtable = {
    .struct_size = sizeof vtable,
    .create = ppo_create,
    .destroy = ppo_destroy,
    .observe = ppo_observe,
    .update = ppo_update,
    .metrics = ppo_metrics,
    .get_extension = ppo_get_extension,
    .act_batch = ppo_act,
};

/* The default search space of rlhost tune: the RL Zoo's PPO sampler
   (rl_zoo3/hyperparams_opt.py) over this plugin's options, the batch capped
   at the rollout as that sampler caps it.  Recurrent PPO's n_steps and
   batch start at the default bptt_horizon (16), which must divide them. */
#define PPO_SPACE_BATCH "at_most = (\"algo.n_steps\", \"env.num_envs\"); };\n"
#define PPO_SPACE_REST                                                               \
    "n_epochs = { choice = [1, 5, 10, 20]; };\n"                                     \
    "gamma = { choice = [0.9, 0.95, 0.98, 0.99, 0.995, 0.999, 0.9999]; };\n"         \
    "gae_lambda = { choice = [0.8, 0.9, 0.92, 0.95, 0.98, 0.99, 1.0]; };\n"          \
    "clip_range = { choice = [0.1, 0.2, 0.3, 0.4]; };\n"                             \
    "ent_coef = { log_uniform = [1e-8, 0.1]; };\n"                                   \
    "vf_coef = { uniform = [0.0, 1.0]; };\n"                                         \
    "max_grad_norm = { choice = [0.3, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0, 2.0, 5.0]; };\n" \
    "hidden = { choice = ([64, 64], [256, 256]); };\n"                               \
    "activation = { choice = [\"tanh\", \"relu\"]; };\n"
static const char ppo_space[] =
    "lr = { log_uniform = [1e-5, 3e-3]; };\n"
    "n_steps = { choice = [8, 16, 32, 64, 128, 256, 512, 1024, 2048]; };\n"
    "batch_size = { choice = [8, 16, 32, 64, 128, 256, 512]; " PPO_SPACE_BATCH PPO_SPACE_REST;
static const char rppo_space[] = "lr = { log_uniform = [1e-5, 3e-3]; };\n"
                                 "n_steps = { choice = [16, 32, 64, 128, 256, 512, 1024, 2048]; };\n"
                                 "batch_size = { choice = [16, 32, 64, 128, 256, 512]; " PPO_SPACE_BATCH PPO_SPACE_REST;

static const rl_plugin_desc descs[] = {
    {
        .struct_size = sizeof(rl_plugin_desc),
        .kind = RL_KIND_ALGO,
        .name = "ppo",
        .version = "1.0.0",
        .description = "proximal policy optimization (clipped surrogate, GAE)",
        .options = opts_ppo,
        .n_options = OPT_N,
        .stages = stages,
        .n_stages = ST_N,
        .vtable = &vtable,
        .flags = RL_DESC_REPLICAS | RL_DESC_BOX | RL_DESC_MASKS | RL_DESC_MULTI_DISCRETE | RL_DESC_HYBRID |
            RL_DESC_OBS_PARTS | RL_DESC_VALUES,
        .tune_space = ppo_space,
    },
    {
        .struct_size = sizeof(rl_plugin_desc),
        .kind = RL_KIND_ALGO,
        .name = "recurrent_ppo",
        .version = "1.0.0",
        .description = "PPO with an LSTM before the heads (preset: recurrent = true)",
        .options = opts_rppo,
        .n_options = OPT_N,
        .stages = stages,
        .n_stages = ST_N,
        .vtable = &vtable,
        .flags = RL_DESC_REPLICAS | RL_DESC_BOX | RL_DESC_MASKS | RL_DESC_MULTI_DISCRETE | RL_DESC_HYBRID |
            RL_DESC_OBS_PARTS,
        .tune_space = rppo_space,
    },
};

RL_PLUGIN_DEFINE_ARRAY(descs, &host);
