/*
 * PPO and recurrent PPO as one plugin: `ppo` and `recurrent_ppo` are presets
 * of the same code (recurrent = true puts an LSTM before the heads).
 *
 * Networks are "towers": an optional LSTM, then an MLP.  shared = false
 * (default) gives the actor and the critic a tower each; shared = true gives
 * one body tower whose features feed two linear heads.
 *
 * Data flow: act() samples from the policy for all envs in one batched
 * forward and records obs, action, log-prob, value (and, recurrent, the
 * LSTM state each env carried into the step); observe() records rewards and
 * episode ends, with the value of the final observation for truncations;
 * update() runs when n_steps are collected: GAE, then n_epochs over shuffled
 * minibatches (whole bptt_horizon sequences when recurrent) of the clipped
 * surrogate + value loss - entropy bonus, global-norm clipping, Adam.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <rlhost/nn.h>

#include "ppo_math.h"

static const rl_host_api *host;

static const char *const activations[] = {"tanh", "relu", NULL};
static const char *const schedules[] = {"constant", "linear", NULL};
static const char *const nonfinite_choices[] = {"stop", "skip", NULL};

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
    OPT_ENCODER,
    OPT_ENCODER_LAST = OPT_ENCODER + RL_ENCODER_N_OPTIONS - 1,
    OPT_N
};

enum { ST_BATCH_INFERENCE, ST_BLAS_THREADS, ST_N };

#define PPO_OPTIONS(recurrent)                                                                      \
    {                                                                                               \
        [OPT_HIDDEN] = RL_OPTION_INT_LIST("hidden", "[64, 64]", 1, 65536,                           \
                                          "hidden widths of the actor and critic MLPs"),            \
        [OPT_ACTIVATION] = RL_OPTION_ENUM("activation", "tanh", activations, "hidden activation"),  \
        [OPT_SHARED] = RL_OPTION_BOOL("shared", "false",                                            \
                                      "one body (and LSTM) for actor and critic, with two heads"),  \
        [OPT_LR] = RL_OPTION_FLOAT("lr", "3e-4", 0, 1, "Adam learning rate"),                       \
        [OPT_LR_SCHEDULE] = RL_OPTION_ENUM("lr_schedule", "constant", schedules,                    \
                                           "constant, or linear decay to 0 over the run"),          \
        [OPT_N_STEPS] = RL_OPTION_INT("n_steps", "2048", 1, 1e7, "steps per env per rollout"),      \
        [OPT_BATCH_SIZE] = RL_OPTION_INT("batch_size", "64", 1, 1e8, "minibatch size in transitions"), \
        [OPT_N_EPOCHS] = RL_OPTION_INT("n_epochs", "10", 1, 10000, "passes over each rollout"),     \
        [OPT_GAMMA] = RL_OPTION_FLOAT("gamma", "0.99", 0, 1, "discount factor"),                    \
        [OPT_GAE_LAMBDA] = RL_OPTION_FLOAT("gae_lambda", "0.95", 0, 1, "GAE lambda"),               \
        [OPT_CLIP_RANGE] = RL_OPTION_FLOAT("clip_range", "0.2", 0, 10, "surrogate clipping epsilon"), \
        [OPT_CLIP_SCHEDULE] = RL_OPTION_ENUM("clip_schedule", "constant", schedules,                \
                                             "constant, or linear decay to 0 over the run"),        \
        [OPT_CLIP_RANGE_VF] = RL_OPTION_FLOAT("clip_range_vf", "0.0", 0, 1e6,                       \
                                              "value clipping around the rollout's values (0 = off)"), \
        [OPT_NORMALIZE_ADV] = RL_OPTION_BOOL("normalize_advantage", "true",                         \
                                             "normalize advantages per minibatch"),                 \
        [OPT_ENT_COEF] = RL_OPTION_FLOAT("ent_coef", "0.0", 0, 1e3, "entropy bonus coefficient"),   \
        [OPT_VF_COEF] = RL_OPTION_FLOAT("vf_coef", "0.5", 0, 1e3, "value loss coefficient"),        \
        [OPT_MAX_GRAD_NORM] = RL_OPTION_FLOAT("max_grad_norm", "0.5", 0, 1e9,                       \
                                              "clip gradients to this global norm (0 = off)"),      \
        [OPT_ADAM_EPS] = RL_OPTION_FLOAT("adam_eps", "1e-5", 0, 1, "Adam epsilon"),                 \
        [OPT_DETERMINISTIC_EVAL] = RL_OPTION_BOOL("deterministic_eval", "true",                     \
                                                  "evaluate with the most likely action; false samples"), \
        [OPT_RECURRENT] = RL_OPTION_BOOL("recurrent", recurrent,                                    \
                                         "an LSTM before the heads, trained through time"),         \
        [OPT_LSTM_HIDDEN] = RL_OPTION_INT("lstm_hidden", "64", 1, 4096, "LSTM width (recurrent)"),  \
        [OPT_BPTT] = RL_OPTION_INT("bptt_horizon", "16", 1, 100000,                                 \
                                   "sequence length for backpropagation through time (recurrent); " \
                                   "must divide n_steps"),                                          \
        [OPT_KEEP_BEST] = RL_OPTION_BOOL("keep_best", "false",                                      \
                                         "end with the best policy seen by periodic evaluation "    \
                                         "(needs run.eval_interval)"),                              \
        [OPT_ON_NONFINITE] = RL_OPTION_ENUM("on_nonfinite", "stop", nonfinite_choices,              \
                                            "a NaN/inf loss or gradient: stop the run (the last good " \
                                            "checkpoint stays) or skip that minibatch"),            \
        [OPT_NORMALIZE_OBS] = RL_OPTION_BOOL("normalize_obs", "false",                              \
                                             "scale observations by a running mean and std of the training " \
                                             "observations (clipped to +-10; kept in checkpoints)"), \
        RL_ENCODER_OPTIONS(OPT_ENCODER),                                                            \
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

/* ---- towers: optional CNN, optional LSTM, then an MLP -------------------- */

typedef struct tower {
    int recurrent, has_cnn;
    rl_cnn cnn;
    float *dcnn; /* training: gradient of the CNN's output [max_rows][F] */
    rl_lstm lstm;
    rl_mlp mlp;
    float *hseq, *dh; /* training: LSTM outputs [L*S][H] and their gradient */
} tower;

static int tower_create(tower *t, rl_params *p, const char *name, uint32_t in,
                        const rl_cnn_spec *cnn, int recurrent, uint32_t lstm_hidden,
                        const uint32_t *hidden, uint32_t n_hidden, uint32_t out, rl_activation act,
                        uint32_t max_rows, uint32_t seqs, uint32_t steps, char *err, size_t errlen)
{
    memset(t, 0, sizeof *t);
    t->recurrent = recurrent;
    char pre[32];
    int rc;
    if (cnn->enabled) {
        snprintf(pre, sizeof pre, "%s/cnn", name);
        if ((rc = rl_cnn_create_spec(&t->cnn, p, pre, cnn, max_rows, err, errlen))) return rc;
        t->has_cnn = 1;
        in = t->cnn.out_dim;
        t->dcnn = rl_calloc_aligned((size_t)max_rows * in, sizeof(float));
        if (!t->dcnn) return RL_ENOMEM;
    }
    if (recurrent) {
        snprintf(pre, sizeof pre, "%s/lstm", name);
        if ((rc = rl_lstm_create(&t->lstm, p, pre, in, lstm_hidden, seqs, steps))) return rc;
        t->hseq = rl_calloc_aligned((size_t)max_rows * lstm_hidden, sizeof(float));
        t->dh = rl_calloc_aligned((size_t)max_rows * lstm_hidden, sizeof(float));
        if (!t->hseq || !t->dh) return RL_ENOMEM;
        in = lstm_hidden;
    }
    snprintf(pre, sizeof pre, "%s/mlp", name);
    return rl_mlp_create(&t->mlp, p, pre, in, hidden, n_hidden, out, act, max_rows);
}

static void tower_destroy(tower *t)
{
    rl_cnn_destroy(&t->cnn);
    rl_free(t->dcnn);
    rl_lstm_destroy(&t->lstm);
    rl_mlp_destroy(&t->mlp);
    rl_free(t->hseq);
    rl_free(t->dh);
}

/* Training forward over L x S time-major rows. */
static const float *tower_forward(tower *t, const float *params, const float *x, const float *h0,
                                  const float *c0, const uint8_t *reset, uint32_t L, uint32_t S)
{
    if (t->has_cnn) x = rl_cnn_forward(&t->cnn, params, x, L * S);
    const float *in = x;
    if (t->recurrent) {
        rl_lstm_forward(&t->lstm, params, x, h0, c0, reset, t->hseq, NULL, NULL, L, S);
        in = t->hseq;
    }
    return rl_mlp_forward(&t->mlp, params, in, L * S);
}

static void tower_backward(tower *t, const float *params, float *grad, const float *x,
                           const float *dout, uint32_t L, uint32_t S)
{
    const float *in = x; /* past the CNN, when there is one */
    float *din = NULL;
    if (t->has_cnn) {
        in = t->cnn.acts[t->cnn.n_layers - 1];
        din = t->dcnn;
        memset(din, 0, (size_t)L * S * t->cnn.out_dim * sizeof(float));
    }
    if (!t->recurrent) {
        rl_mlp_backward(&t->mlp, params, grad, in, dout, din, L * S);
    } else {
        memset(t->dh, 0, (size_t)L * S * t->lstm.hidden * sizeof(float));
        rl_mlp_backward(&t->mlp, params, grad, t->hseq, dout, t->dh, L * S);
        rl_lstm_backward(&t->lstm, params, grad, in, t->dh, din, L, S);
    }
    if (t->has_cnn) rl_cnn_backward(&t->cnn, params, grad, x, din, L * S);
}

/* Inference for B rows; h, c [B][H] are advanced in place (recurrent). */
static const float *tower_infer(tower *t, const float *params, const float *x, float *h, float *c,
                                float *gates, uint32_t B)
{
    if (t->has_cnn) x = rl_cnn_infer(&t->cnn, params, x, B);
    const float *in = x;
    if (t->recurrent) {
        rl_lstm_step(&t->lstm, params, x, h, c, gates, B);
        in = h;
    }
    return rl_mlp_infer(&t->mlp, params, in, B);
}

/* ---- the algorithm -------------------------------------------------------*/

/* Recurrent state of one tower for a set of env rows. */
typedef struct lstm_state {
    float *h, *c;
} lstm_state;

typedef struct ppo {
    /* settings */
    uint32_t A, D, N, rows, T, batch, epochs, L, H, n_towers;
    uint64_t total_steps;
    float lr, gamma, lambda, clip, vclip, ent_coef, vf_coef, max_grad_norm;
    int lr_linear, clip_linear, norm_adv, det_eval, recurrent, shared, batch_inference;
    int skip_nonfinite;
    uint64_t skipped;
    /* data-parallel: this instance is replica rep->index of R; p->batch is
       its share of the minibatch (batch_size / R), sums go through rep */
    const rl_replicas *rep;
    uint32_t R;
    rl_activation act;
    rl_dtype dtype;
    float scale;
    /* normalize_obs: running statistics (in double) and what is applied */
    int norm_obs;
    double obs_count, *obs_mean, *obs_var;
    float *obs_shift, *obs_mul;
    /* networks: shared -> towers[0] body + heads; else towers[0] actor, [1] critic */
    rl_params p;
    rl_keep_best kb;
    tower towers[2];
    rl_mlp head_pi, head_v; /* shared only */
    rl_adam adam;
    /* rollout [T][N] */
    float *obs, *logp, *values, *rewards, *final_values, *adv, *ret, *last_obs;
    int32_t *actions;
    uint8_t *terminated, *truncated, *start;
    float *st_h[2], *st_c[2]; /* recurrent: state carried into each step [T][N][H] */
    uint32_t t;
    /* recurrent state now: train [N][H], eval [rows][H], per tower */
    lstm_state live[2], eval[2];
    /* workspaces */
    float *x, *logits, *logp_all, *dlogits, *dv, *vpred, *feat_scratch, *gates, *h0[2], *c0[2];
    float *act_x, *tmp_h, *tmp_c;
    uint32_t *perm, *rows_idx;
    uint8_t *reset;
    rl_rng rng, eval_rng, shuffle;
    uint64_t step;
    double progress;
    /* metrics */
    double m_pg, m_v, m_ent, m_kl, m_clip, m_ev;
    uint64_t m_n, updates;
} ppo;

static void ppo_destroy(void *p_)
{
    ppo *p = p_;
    if (!p) return;
    for (int k = 0; k < 2; k++) {
        tower_destroy(&p->towers[k]);
        rl_free(p->st_h[k]);
        rl_free(p->st_c[k]);
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
    float *f[] = {p->obs, p->logp, p->values, p->rewards, p->final_values, p->adv, p->ret,
                  p->last_obs, p->x, p->logits, p->logp_all, p->dlogits, p->dv, p->vpred,
                  p->feat_scratch, p->gates, p->h0[0], p->c0[0], p->h0[1], p->c0[1], p->act_x,
                  p->tmp_h, p->tmp_c};
    for (size_t k = 0; k < sizeof f / sizeof *f; k++) rl_free(f[k]);
    rl_free(p->actions);
    rl_free(p->terminated);
    rl_free(p->truncated);
    rl_free(p->start);
    rl_free(p->perm);
    rl_free(p->rows_idx);
    rl_free(p->reset);
    rl_free(p->obs_mean);
    rl_free(p->obs_var);
    rl_free(p->obs_shift);
    rl_free(p->obs_mul);
    free(p);
}

/* normalize_obs: what is applied, derived from the running statistics. */
static void obs_norm_derive(ppo *p)
{
    for (size_t j = 0; j < p->D; j++) {
        p->obs_shift[j] = (float)p->obs_mean[j];
        p->obs_mul[j] = (float)(1.0 / sqrt(p->obs_var[j] + 1e-8));
    }
}

#define ALLOC(ptr, n, type) ((ptr) = rl_calloc_aligned((size_t)(n), sizeof(type)))

/* The options and the env's spaces, as the settings fields. */
static void read_options(ppo *p, const rl_algo_args *args)
{
    const rl_value *o = args->options, *st = args->stages;
    p->A = args->env->n_actions;
    p->D = args->env->obs_size;
    p->N = args->num_envs;
    p->dtype = args->env->obs_dtype;
    p->scale = args->env->obs_scale;
    p->rows = args->num_envs > args->num_eval_envs ? args->num_envs : args->num_eval_envs;
    p->T = (uint32_t)o[OPT_N_STEPS].i;
    p->batch = (uint32_t)o[OPT_BATCH_SIZE].i;
    p->epochs = (uint32_t)o[OPT_N_EPOCHS].i;
    p->total_steps = args->total_steps;
    p->lr = (float)o[OPT_LR].f;
    p->lr_linear = o[OPT_LR_SCHEDULE].i == 1;
    p->gamma = (float)o[OPT_GAMMA].f;
    p->lambda = (float)o[OPT_GAE_LAMBDA].f;
    p->clip = (float)o[OPT_CLIP_RANGE].f;
    p->clip_linear = o[OPT_CLIP_SCHEDULE].i == 1;
    p->vclip = (float)o[OPT_CLIP_RANGE_VF].f;
    p->norm_adv = (int)o[OPT_NORMALIZE_ADV].i;
    p->ent_coef = (float)o[OPT_ENT_COEF].f;
    p->vf_coef = (float)o[OPT_VF_COEF].f;
    p->max_grad_norm = (float)o[OPT_MAX_GRAD_NORM].f;
    p->det_eval = (int)o[OPT_DETERMINISTIC_EVAL].i;
    p->norm_obs = (int)o[OPT_NORMALIZE_OBS].i;
    p->recurrent = (int)o[OPT_RECURRENT].i;
    p->shared = (int)o[OPT_SHARED].i;
    p->skip_nonfinite = o[OPT_ON_NONFINITE].i == 1;
    p->batch_inference = (int)st[ST_BATCH_INFERENCE].i;
    p->act = o[OPT_ACTIVATION].i == 1 ? RL_ACT_RELU : RL_ACT_TANH;
    p->L = p->recurrent ? (uint32_t)o[OPT_BPTT].i : 1;
    p->H = p->recurrent ? (uint32_t)o[OPT_LSTM_HIDDEN].i : 0;
    p->n_towers = p->shared ? 1 : 2;
    p->rep = rl_args_replicas(args);
    p->R = p->rep ? p->rep->count : 1;
    /* replicas share the cores: BLAS threads of their own would oversubscribe them */
    rl_blas_set_threads(st[ST_BLAS_THREADS].is_auto ? (p->R > 1 ? 1 : (int)host->cpu_count())
                                                   : (int)st[ST_BLAS_THREADS].i);
}

/* The settings that cannot work together; p->batch becomes the replica's
   share of the minibatch. */
static int validate(ppo *p, const rl_value *o, char *err, size_t errlen)
{
    if (p->R > 1 && rl_replicas_shared(p->rep)) {
        RL_ERRF(err, errlen, "%u replicas cannot split env.num_envs = %u evenly (PPO replicas own their envs)",
                p->R, p->N);
        return RL_EINVAL;
    }
    uint32_t units = p->recurrent ? p->batch / (p->L ? p->L : 1) : p->batch;
    if (p->R > 1 && (units % p->R || (p->recurrent && p->batch % p->L))) {
        RL_ERRF(err, errlen, "%u replicas cannot split batch_size %u evenly%s", p->R, p->batch,
                p->recurrent ? " into whole sequences of bptt_horizon" : "");
        return RL_EINVAL;
    }
    p->batch /= p->R;
    if (p->batch > (uint64_t)p->T * p->N) {
        RL_ERRF(err, errlen, "batch_size %u is larger than a rollout (n_steps %u x %u envs)",
                p->batch * p->R, p->T, p->N * p->R);
        return RL_EINVAL;
    }
    if (p->recurrent && (p->T % p->L || p->batch % p->L)) {
        RL_ERRF(err, errlen, "bptt_horizon %u must divide n_steps (%u) and batch_size (%u)", p->L,
                p->T, p->batch * p->R);
        return RL_EINVAL;
    }
    if (o[OPT_HIDDEN].n > RL_MLP_MAX_LAYERS - 1 || (p->shared && o[OPT_HIDDEN].n == 0)) {
        RL_ERRF(err, errlen, "hidden needs 1 to %d layers with shared, at most %d without",
                RL_MLP_MAX_LAYERS - 1, RL_MLP_MAX_LAYERS - 1);
        return RL_EINVAL;
    }
    return RL_OK;
}

/* The towers (and heads, when shared) carved from one parameter block, M
   rows at most per pass, S sequences per minibatch. */
static int build_networks(ppo *p, const rl_cnn_spec *cnn, const uint32_t *hidden, uint32_t nh, uint32_t M,
                          uint32_t S, char *err, size_t errlen)
{
    int rc;
    if (p->shared) {
        uint32_t feat = hidden[nh - 1];
        rc = tower_create(&p->towers[0], &p->p, "body", p->D, cnn, p->recurrent, p->H, hidden, nh - 1, feat,
                          p->act, M, S, p->L, err, errlen);
        if (!rc) rc = rl_mlp_create(&p->head_pi, &p->p, "pi", feat, NULL, 0, p->A, RL_ACT_NONE, M);
        if (!rc) rc = rl_mlp_create(&p->head_v, &p->p, "vf", feat, NULL, 0, 1, RL_ACT_NONE, M);
    } else {
        rc = tower_create(&p->towers[0], &p->p, "actor", p->D, cnn, p->recurrent, p->H, hidden, nh, p->A,
                          p->act, M, S, p->L, err, errlen);
        if (!rc)
            rc = tower_create(&p->towers[1], &p->p, "critic", p->D, cnn, p->recurrent, p->H, hidden, nh, 1,
                              p->act, M, S, p->L, err, errlen);
    }
    return rc ? rc : rl_params_alloc(&p->p);
}

/* Orthogonal init: sqrt(2) on hidden layers, 0.01 on the policy output, 1
   on the value output. */
static void init_weights(ppo *p, uint64_t seed)
{
    rl_rng init;
    rl_rng_seed(&init, seed, 0x1417);
    for (uint32_t k = 0; k < p->n_towers; k++) {
        tower *t = &p->towers[k];
        if (t->has_cnn) rl_cnn_init(&t->cnn, &p->p, RL_INIT_ORTHOGONAL, &init);
        if (t->recurrent) rl_lstm_init(&t->lstm, &p->p, &init);
        float out_gain = p->shared ? 1.41421356f : (k == 0 ? 0.01f : 1.0f);
        rl_mlp_init(&t->mlp, &p->p, RL_INIT_ORTHOGONAL, out_gain, &init);
    }
    if (p->shared) {
        rl_mlp_init(&p->head_pi, &p->p, RL_INIT_ORTHOGONAL, 0.01f, &init);
        rl_mlp_init(&p->head_v, &p->p, RL_INIT_ORTHOGONAL, 1.0f, &init);
    }
}

/* The rollout [T][N], the workspaces for M rows (feat: the widest last
   hidden layer), the observation statistics and the recurrent state. */
static int alloc_buffers(ppo *p, uint32_t M, uint32_t S, uint32_t feat)
{
    size_t TN = (size_t)p->T * p->N, D = p->D;
    if (!ALLOC(p->obs, TN * D, float) || !ALLOC(p->logp, TN, float) || !ALLOC(p->values, TN, float) ||
        !ALLOC(p->rewards, TN, float) || !ALLOC(p->final_values, TN, float) || !ALLOC(p->adv, TN, float) ||
        !ALLOC(p->ret, TN, float) || !ALLOC(p->last_obs, (size_t)p->N * D, float) ||
        !ALLOC(p->actions, TN, int32_t) || !ALLOC(p->terminated, TN, uint8_t) ||
        !ALLOC(p->truncated, TN, uint8_t) || !ALLOC(p->start, TN, uint8_t) ||
        !ALLOC(p->x, (size_t)M * D, float) || !ALLOC(p->logits, (size_t)M * p->A, float) ||
        !ALLOC(p->logp_all, (size_t)M * p->A, float) || !ALLOC(p->dlogits, (size_t)M * p->A, float) ||
        !ALLOC(p->dv, M, float) || !ALLOC(p->vpred, M, float) ||
        !ALLOC(p->feat_scratch, (size_t)M * feat * 3, float) || !ALLOC(p->act_x, (size_t)p->rows * D, float) ||
        !ALLOC(p->perm, TN, uint32_t) || !ALLOC(p->rows_idx, p->batch, uint32_t) ||
        !ALLOC(p->reset, p->batch, uint8_t) || !ALLOC(p->obs_mean, D, double) ||
        !ALLOC(p->obs_var, D, double) || !ALLOC(p->obs_shift, D, float) || !ALLOC(p->obs_mul, D, float))
        return RL_ENOMEM;
    /* SB3's start: mean 0, variance 1, a count of 1e-4 */
    p->obs_count = 1e-4;
    for (size_t j = 0; j < D; j++) p->obs_var[j] = 1.0;
    obs_norm_derive(p);
    if (!p->recurrent) return RL_OK;
    size_t H = p->H;
    if (!ALLOC(p->gates, 2 * (size_t)p->rows * 4 * H, float) || !ALLOC(p->tmp_h, 2 * H, float) ||
        !ALLOC(p->tmp_c, 2 * H, float))
        return RL_ENOMEM;
    for (uint32_t k = 0; k < p->n_towers; k++)
        if (!ALLOC(p->h0[k], (size_t)S * H, float) || !ALLOC(p->c0[k], (size_t)S * H, float) ||
            !ALLOC(p->st_h[k], TN * H, float) || !ALLOC(p->st_c[k], TN * H, float) ||
            !ALLOC(p->live[k].h, (size_t)p->N * H, float) || !ALLOC(p->live[k].c, (size_t)p->N * H, float) ||
            !ALLOC(p->eval[k].h, (size_t)p->rows * H, float) || !ALLOC(p->eval[k].c, (size_t)p->rows * H, float))
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
    uint32_t hidden[RL_MLP_MAX_LAYERS], nh = (uint32_t)o[OPT_HIDDEN].n;
    for (uint32_t k = 0; k < nh; k++) hidden[k] = (uint32_t)o[OPT_HIDDEN].ilist[k];
    uint32_t M = p->batch > p->rows ? p->batch : p->rows, S = p->batch / p->L;
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
    if (!rc) rc = rl_keep_best_init(&p->kb, (int)o[OPT_KEEP_BEST].i, &p->p);
    if (!rc) rc = rl_adam_create(&p->adam, p->p.n, 0.9f, 0.999f, (float)o[OPT_ADAM_EPS].f, 0.0f);
    if (!rc) init_weights(p, args->seed);
    if (!rc) rc = alloc_buffers(p, M, S, nh ? hidden[nh - 1] : 1);
    if (rc) {
        RL_ERRF(err, errlen, "%s while building the networks and a rollout of %llu steps", rl_strerror(rc),
                (unsigned long long)p->T * p->N);
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

/* normalize_obs: folds a batch of raw observation rows into the running
   mean and variance (the parallel form of Welford's update, in double). */
static void obs_stats_update(ppo *p, const float *x, uint32_t rows)
{
    size_t D = p->D;
    for (size_t j = 0; j < D; j++) {
        double bm = 0, bv = 0;
        for (uint32_t r = 0; r < rows; r++) bm += x[r * D + j];
        bm /= rows;
        for (uint32_t r = 0; r < rows; r++) {
            double d = x[r * D + j] - bm;
            bv += d * d;
        }
        bv /= rows;
        double n = p->obs_count, tot = n + rows, delta = bm - p->obs_mean[j];
        p->obs_mean[j] += delta * rows / tot;
        p->obs_var[j] = (p->obs_var[j] * n + bv * rows + delta * delta * n * rows / tot) / tot;
    }
    p->obs_count += rows;
    obs_norm_derive(p);
}

/* Observation rows as network input; with normalize_obs, training rows
   (update != 0) first update the statistics. */
static void to_float_stats(ppo *p, const void *obs, uint32_t rows, float *out, int update)
{
    size_t D = p->D;
    rl_obs_to_float(p->dtype, p->scale, obs, (size_t)rows * D, out);
    if (!p->norm_obs) return;
    if (update) obs_stats_update(p, out, rows);
    for (uint32_t r = 0; r < rows; r++)
        for (size_t j = 0; j < D; j++) {
            float v = (out[r * D + j] - p->obs_shift[j]) * p->obs_mul[j];
            out[r * D + j] = v > 10.0f ? 10.0f : v < -10.0f ? -10.0f : v;
        }
}

static void to_float(ppo *p, const void *obs, uint32_t rows, float *out)
{
    to_float_stats(p, obs, rows, out, 0);
}

/* Policy logits and values for B rows in inference mode, advancing the
   recurrent states st[] (rows 0..B-1 of them). */
static void infer(ppo *p, const float *x, lstm_state *st, uint32_t B, float *logits, float *values)
{
    if (p->shared) {
        const float *f = tower_infer(&p->towers[0], p->p.data, x, st ? st[0].h : NULL,
                                     st ? st[0].c : NULL, p->gates, B);
        uint32_t F = p->head_pi.dims[0];
        float *feat = p->feat_scratch;
        rl_activation_forward(p->act, feat, f, (size_t)B * F);
        memcpy(logits, rl_mlp_infer(&p->head_pi, p->p.data, feat, B), (size_t)B * p->A * sizeof(float));
        if (values) memcpy(values, rl_mlp_infer(&p->head_v, p->p.data, feat, B), B * sizeof(float));
        return;
    }
    memcpy(logits,
           tower_infer(&p->towers[0], p->p.data, x, st ? st[0].h : NULL, st ? st[0].c : NULL,
                       p->gates, B),
           (size_t)B * p->A * sizeof(float));
    if (values)
        memcpy(values,
               tower_infer(&p->towers[1], p->p.data, x, st ? st[1].h : NULL, st ? st[1].c : NULL,
                           p->gates, B),
               B * sizeof(float));
}

/* Per-row view of the recurrent states, for one-env-at-a-time inference. */
static void state_rows(const ppo *p, const lstm_state *all, uint32_t row, lstm_state *out)
{
    for (uint32_t k = 0; k < p->n_towers; k++) {
        out[k].h = all[k].h ? all[k].h + (size_t)row * p->H : NULL;
        out[k].c = all[k].c ? all[k].c + (size_t)row * p->H : NULL;
    }
}

static void infer_rows(ppo *p, const float *x, lstm_state *st, uint32_t B, float *logits,
                       float *values)
{
    if (p->batch_inference) {
        infer(p, x, p->recurrent ? st : NULL, B, logits, values);
        return;
    }
    for (uint32_t i = 0; i < B; i++) {
        lstm_state row[2];
        state_rows(p, st, i, row);
        infer(p, x + (size_t)i * p->D, p->recurrent ? row : NULL, 1, logits + (size_t)i * p->A,
              values ? values + i : NULL);
    }
}

static void reset_states(ppo *p, lstm_state *st, const uint8_t *start, uint32_t B)
{
    if (!p->recurrent) return;
    size_t H = p->H;
    for (uint32_t k = 0; k < p->n_towers; k++)
        for (uint32_t i = 0; i < B; i++)
            if (start[i]) {
                memset(st[k].h + i * H, 0, H * sizeof(float));
                memset(st[k].c + i * H, 0, H * sizeof(float));
            }
}

static int ppo_act(void *p_, rl_act_mode mode, const void *obs, const uint8_t *start,
                   int32_t *actions, uint32_t count, char *err, size_t errlen)
{
    ppo *p = p_;
    uint32_t A = p->A;
    if (mode == RL_ACT_EVAL) {
        if (count > p->rows) {
            RL_ERRF(err, errlen, "eval act for %u envs; created for %u", count, p->rows);
            return RL_EINVAL;
        }
        to_float(p, obs, count, p->act_x);
        reset_states(p, p->eval, start, count);
        infer_rows(p, p->act_x, p->eval, count, p->logits, NULL);
        rl_log_softmax(p->logp_all, p->logits, count, A);
        for (uint32_t i = 0; i < count; i++)
            actions[i] = p->det_eval ? rl_argmax(p->logits + (size_t)i * A, A)
                                     : rl_categorical_sample(p->logp_all + (size_t)i * A, A, &p->eval_rng);
        return RL_OK;
    }
    if (count != p->N) {
        RL_ERRF(err, errlen, "train act for %u envs; created for %u", count, p->N);
        return RL_EINVAL;
    }
    size_t at = (size_t)p->t * p->N, H = p->H;
    float *x = p->obs + at * p->D;
    to_float_stats(p, obs, count, x, 1);
    memcpy(p->start + at, start, count);
    if (p->recurrent)
        for (uint32_t k = 0; k < p->n_towers; k++) { /* the state carried in, before resets */
            memcpy(p->st_h[k] + at * H, p->live[k].h, count * H * sizeof(float));
            memcpy(p->st_c[k] + at * H, p->live[k].c, count * H * sizeof(float));
        }
    reset_states(p, p->live, start, count);
    infer_rows(p, x, p->live, count, p->logits, p->values + at);
    rl_log_softmax(p->logp_all, p->logits, count, A);
    for (uint32_t i = 0; i < count; i++) {
        const float *lp = p->logp_all + (size_t)i * A;
        int32_t a = rl_categorical_sample(lp, A, &p->rng);
        actions[i] = a;
        p->actions[at + i] = a;
        p->logp[at + i] = lp[a];
    }
    return RL_OK;
}

/* V of the final observations of truncated episodes, continuing each env's
   critic state by one step (on copies). */
static void truncation_values(ppo *p, const rl_transition *t, float *out)
{
    size_t H = p->H;
    for (uint32_t i = 0; i < t->count; i++) {
        out[i] = 0.0f;
        if (!t->truncated[i] || t->terminated[i]) continue;
        float *x = p->act_x;
        to_float(p, (const uint8_t *)t->final_obs + (size_t)i * p->D * (p->dtype == RL_DTYPE_U8 ? 1 : 4), 1, x);
        lstm_state row[2];
        if (p->recurrent) {
            for (uint32_t k = 0; k < p->n_towers; k++) {
                memcpy(p->tmp_h + k * H, p->live[k].h + i * H, H * sizeof(float));
                memcpy(p->tmp_c + k * H, p->live[k].c + i * H, H * sizeof(float));
                row[k].h = p->tmp_h + k * H;
                row[k].c = p->tmp_c + k * H;
            }
        }
        infer(p, x, p->recurrent ? row : NULL, 1, p->logits, &out[i]);
    }
}

static int ppo_observe(void *p_, const rl_transition *t, char *err, size_t errlen)
{
    ppo *p = p_;
    (void)err;
    (void)errlen;
    size_t at = (size_t)p->t * p->N;
    memcpy(p->rewards + at, t->rewards, p->N * sizeof(float));
    memcpy(p->terminated + at, t->terminated, p->N);
    memcpy(p->truncated + at, t->truncated, p->N);
    truncation_values(p, t, p->final_values + at);
    to_float(p, t->next_obs, p->N, p->last_obs);
    p->t++;
    return RL_OK;
}

/* Training forward of the minibatch in p->x (L x S rows): logits into
   p->logits, values into p->vpred. */
static void train_forward(ppo *p, uint32_t L, uint32_t S)
{
    uint32_t M = L * S;
    if (p->shared) {
        const float *f = tower_forward(&p->towers[0], p->p.data, p->x, p->h0[0], p->c0[0], p->reset, L, S);
        uint32_t F = p->head_pi.dims[0];
        float *feat = p->feat_scratch;
        rl_activation_forward(p->act, feat, f, (size_t)M * F);
        memcpy(p->logits, rl_mlp_forward(&p->head_pi, p->p.data, feat, M), (size_t)M * p->A * sizeof(float));
        memcpy(p->vpred, rl_mlp_forward(&p->head_v, p->p.data, feat, M), M * sizeof(float));
        return;
    }
    memcpy(p->logits, tower_forward(&p->towers[0], p->p.data, p->x, p->h0[0], p->c0[0], p->reset, L, S),
           (size_t)M * p->A * sizeof(float));
    /* The critic's sequences start from its own stored state. */
    memcpy(p->vpred, tower_forward(&p->towers[1], p->p.data, p->x, p->h0[1], p->c0[1], p->reset, L, S),
           M * sizeof(float));
}

static void train_backward(ppo *p, uint32_t L, uint32_t S)
{
    uint32_t M = L * S;
    float *g = p->p.grad;
    if (p->shared) {
        uint32_t F = p->head_pi.dims[0];
        size_t MF = (size_t)M * F;
        float *feat = p->feat_scratch, *dfeat = feat + MF, *dpre = dfeat + MF;
        memset(dfeat, 0, MF * sizeof(float));
        memset(dpre, 0, MF * sizeof(float));
        rl_mlp_backward(&p->head_pi, p->p.data, g, feat, p->dlogits, dfeat, M);
        rl_mlp_backward(&p->head_v, p->p.data, g, feat, p->dv, dfeat, M);
        rl_activation_backward(p->act, dpre, dfeat, feat, MF);
        tower_backward(&p->towers[0], p->p.data, g, p->x, dpre, L, S);
        return;
    }
    tower_backward(&p->towers[0], p->p.data, g, p->x, p->dlogits, L, S);
    tower_backward(&p->towers[1], p->p.data, g, p->x, p->dv, L, S);
}

/* Fills the minibatch workspaces for rollout rows p->rows_idx (time-major
   when recurrent) and returns the number of rows. */
static void gather(ppo *p, uint32_t M, uint32_t S)
{
    size_t D = p->D, H = p->H;
    for (uint32_t r = 0; r < M; r++)
        memcpy(p->x + r * D, p->obs + (size_t)p->rows_idx[r] * D, D * sizeof(float));
    if (!p->recurrent) return;
    for (uint32_t k = 0; k < p->n_towers; k++)
        for (uint32_t s = 0; s < S; s++) { /* row l = 0 of sequence s: its stored state */
            uint32_t row = p->rows_idx[s];
            memcpy(p->h0[k] + s * H, p->st_h[k] + (size_t)row * H, H * sizeof(float));
            memcpy(p->c0[k] + s * H, p->st_c[k] + (size_t)row * H, H * sizeof(float));
        }
}

/* Sums over the replicas (nothing to do for one). */
static void allreduce_d(const ppo *p, double *v, size_t n)
{
    if (p->R > 1) p->rep->allreduce_f64(p->rep->ctx, v, n);
}

/* GAE over the rollout, bootstrapped from V of the observation after its
   last step (continuing the live recurrent states), and the explained
   variance of the rollout's values over all replicas. */
static void advantages(ppo *p)
{
    uint32_t T = p->T, N = p->N;
    size_t TN = (size_t)T * N;
    float *last_v = p->dv; /* N <= rows <= M */
    lstm_state copy[2];
    if (p->recurrent) {
        size_t H = p->H;
        for (uint32_t k = 0; k < p->n_towers; k++) { /* borrow eval-sized buffers as copies */
            memcpy(p->eval[k].h, p->live[k].h, N * H * sizeof(float));
            memcpy(p->eval[k].c, p->live[k].c, N * H * sizeof(float));
            copy[k] = p->eval[k];
        }
    }
    infer(p, p->last_obs, p->recurrent ? copy : NULL, N, p->logits, last_v);
    if (p->recurrent) /* the eval states were borrowed: start evaluation afresh */
        for (uint32_t k = 0; k < p->n_towers; k++) {
            memset(p->eval[k].h, 0, (size_t)p->rows * p->H * sizeof(float));
            memset(p->eval[k].c, 0, (size_t)p->rows * p->H * sizeof(float));
        }
    ppo_gae(p->adv, p->ret, p->rewards, p->values, p->terminated, p->truncated, p->final_values,
            last_v, T, N, p->gamma, p->lambda);
    double sums[2] = {0, 0};
    for (size_t k = 0; k < TN; k++) sums[0] += p->ret[k], sums[1] += p->ret[k] - p->values[k];
    allreduce_d(p, sums, 2);
    double mr = sums[0] / ((double)TN * p->R), mres = sums[1] / ((double)TN * p->R);
    double var[2] = {0, 0};
    for (size_t k = 0; k < TN; k++) {
        double a = p->ret[k] - mr, b = p->ret[k] - p->values[k] - mres;
        var[0] += a * a, var[1] += b * b;
    }
    allreduce_d(p, var, 2);
    p->m_ev = var[0] > 0 ? 1.0 - var[1] / var[0] : NAN;
}

/* The losses of a gathered minibatch (its forward done: logp_all, vpred)
   and their gradients in dlogits and dv.  M rows here, Mg over all
   replicas: the advantages' statistics and the means are over all of it,
   and part = {policy, value, entropy, kl, clipped} is summed over them, so
   every replica decides alike. */
static void minibatch_losses(ppo *p, uint32_t M, uint32_t Mg, float clip, double part[5])
{
    uint32_t A = p->A;
    double amean = 0, astd = 0;
    for (uint32_t r = 0; r < M; r++) amean += p->adv[p->rows_idx[r]];
    allreduce_d(p, &amean, 1);
    amean /= Mg;
    for (uint32_t r = 0; r < M; r++) {
        double d = p->adv[p->rows_idx[r]] - amean;
        astd += d * d;
    }
    allreduce_d(p, &astd, 1);
    astd = Mg > 1 ? sqrt(astd / (Mg - 1)) : 1.0;
    memset(p->dlogits, 0, (size_t)M * A * sizeof(float));
    double pg = 0, vl = 0, ent = 0, kl = 0, clipped_n = 0;
    for (uint32_t r = 0; r < M; r++) {
        uint32_t row = p->rows_idx[r];
        const float *lp = p->logp_all + (size_t)r * A;
        int32_t a = p->actions[row];
        float adv = p->adv[row];
        if (p->norm_adv && Mg > 1) adv = (float)((adv - amean) / (astd + 1e-8));
        float dlogp;
        int was_clipped;
        float ratio; /* exp(logr), computed once for the loss and the KL */
        pg += ppo_policy_loss(lp[a], p->logp[row], adv, clip, &dlogp, &was_clipped, &ratio);
        clipped_n += was_clipped;
        float logr = lp[a] - p->logp[row];
        kl += (ratio - 1.0f) - logr;
        float h = rl_categorical_entropy(lp, A);
        ent += h;
        rl_categorical_backward_h(p->dlogits + (size_t)r * A, lp, A, a, dlogp / Mg, -p->ent_coef / Mg, h);
        float dvr;
        vl += ppo_value_loss(p->vpred[r], p->values[row], p->ret[row], p->vclip, &dvr);
        p->dv[r] = p->vf_coef * dvr / Mg;
    }
    part[0] = pg, part[1] = vl, part[2] = ent, part[3] = kl, part[4] = clipped_n;
    allreduce_d(p, part, 5);
}

/* Backward and one Adam step for a minibatch whose losses (summed over Mg
   rows) are part; RL_OK, 1 when on_nonfinite = "skip" skipped it, or an
   error. */
static int minibatch_step(ppo *p, uint32_t Lm, uint32_t S, float lr, const double part[5], uint32_t Mg,
                          char *err, size_t errlen)
{
    double pg = part[0], vl = part[1], ent = part[2];
    double loss = pg / Mg + p->vf_coef * vl / Mg - p->ent_coef * ent / Mg;
    if (!isfinite(loss) && p->skip_nonfinite) return 1;
    if (!isfinite(loss)) {
        RL_ERRF(err, errlen, "non-finite PPO loss (policy %g, value %g) in update %llu", pg / Mg, vl / Mg,
                (unsigned long long)p->updates + 1);
        return RL_ENONFINITE;
    }
    rl_params_zero_grad(&p->p);
    train_backward(p, Lm, S);
    float norm;
    long at;
    if (rl_replicated_adam_step(p->R > 1 ? p->rep : NULL, 1, &p->adam, p->p.data, p->p.grad, p->p.n,
                                p->max_grad_norm, lr, &norm, &at) != RL_OK) {
        RL_ERRF(err, errlen, "the replicas' gradient sum failed");
        return RL_EINVAL;
    }
    if (isfinite(norm)) return RL_OK;
    if (p->skip_nonfinite) return 1;
    RL_ERRF(err, errlen, "non-finite gradient in tensor '%s' in PPO update %llu",
            at >= 0 ? rl_params_tensor_at(&p->p, (size_t)at) : "?", (unsigned long long)p->updates + 1);
    return RL_ENONFINITE;
}

/* The epochs over a full rollout: shuffled minibatches of rows (of whole
   sequences when recurrent), each a forward, the losses and a step. */
static int train_rollout(ppo *p, char *err, size_t errlen)
{
    uint32_t N = p->N, L = p->L;
    size_t TN = (size_t)p->T * N;
    advantages(p);
    float lr = p->lr_linear ? rl_schedule_linear(p->lr, 0.0f, p->progress) : p->lr;
    float clip = p->clip_linear ? rl_schedule_linear(p->clip, 0.0f, p->progress) : p->clip;
    uint32_t units = p->recurrent ? (uint32_t)(TN / L) : (uint32_t)TN; /* sequences or rows */
    uint32_t per_mb = p->recurrent ? p->batch / L : p->batch;
    for (uint32_t u = 0; u < units; u++) p->perm[u] = u;
    for (uint32_t e = 0; e < p->epochs; e++) {
        for (uint32_t u = units - 1; u > 0; u--) { /* Fisher-Yates */
            uint32_t j = rl_rng_below(&p->shuffle, u + 1), tmp = p->perm[u];
            p->perm[u] = p->perm[j];
            p->perm[j] = tmp;
        }
        for (uint32_t start = 0; start + per_mb <= units; start += per_mb) {
            uint32_t S = p->recurrent ? per_mb : 1, Lm = p->recurrent ? L : per_mb, M = per_mb * (p->recurrent ? L : 1);
            if (p->recurrent)
                ppo_sequence_rows(p->rows_idx, p->reset, p->perm + start, S, L, N, p->start);
            else
                memcpy(p->rows_idx, p->perm + start, M * sizeof(uint32_t));
            gather(p, M, S);
            train_forward(p, Lm, S);
            rl_log_softmax(p->logp_all, p->logits, M, p->A);
            uint32_t Mg = M * p->R;
            double part[5];
            minibatch_losses(p, M, Mg, clip, part);
            int rc = minibatch_step(p, Lm, S, lr, part, Mg, err, errlen);
            if (rc == 1) {
                p->skipped++;
                continue;
            }
            if (rc != RL_OK) return rc;
            p->m_pg += part[0] / Mg;
            p->m_v += part[1] / Mg;
            p->m_ent += part[2] / Mg;
            p->m_kl += part[3] / Mg;
            p->m_clip += part[4] / Mg;
            p->m_n++;
        }
    }
    p->updates++;
    /* the steps are sharded (a gather per rollout costs little): each
       replica's Adam moments are current on its slice only, so they are
       made whole before the host may save them */
    if (p->R > 1 && rl_adam_gather(p->rep, &p->adam) != RL_OK) {
        RL_ERRF(err, errlen, "the replicas' optimizer state gather failed");
        return RL_EINVAL;
    }
    return RL_OK;
}

static int ppo_update(void *p_, uint64_t step, char *err, size_t errlen)
{
    ppo *p = p_;
    p->step = step;
    p->progress = p->total_steps ? (double)step / (double)p->total_steps : 1.0;
    if (p->t < p->T) return RL_OK;
    p->t = 0;
    return train_rollout(p, err, errlen);
}

static size_t ppo_metrics(void *p_, rl_metric *out, size_t cap)
{
    ppo *p = p_;
    double n = p->m_n ? (double)p->m_n : NAN;
    rl_metric m[8] = {
        {"skipped_batches", (double)p->skipped},
        {"policy_loss", p->m_pg / n}, {"value_loss", p->m_v / n}, {"entropy", p->m_ent / n},
        {"approx_kl", p->m_kl / n},   {"clip_fraction", p->m_clip / n},
        {"explained_variance", p->m_ev},
        {"lr", p->lr_linear ? rl_schedule_linear(p->lr, 0.0f, p->progress) : p->lr},
    };
    size_t k = cap < 8 ? cap : 8;
    memcpy(out, m, k * sizeof *m);
    p->m_pg = p->m_v = p->m_ent = p->m_kl = p->m_clip = 0;
    p->m_n = 0;
    return k;
}

RL_KEEP_BEST_EVAL_EXT(eval_ext, ppo, kb, p, host, "ppo");

/* Checkpoints: networks, optimizer, RNGs, update count, and (below) the
   rollout so far and the LSTM states, so a resume is exact. */
static int ppo_describe(const ppo *p, const rl_state_io *io, char *err, size_t errlen);
static int ppo_state(ppo *p, const rl_state_io *io, int load, char *err, size_t errlen)
{
    int rc;
    if (!load && (rc = ppo_describe(p, io, err, errlen))) return rc;
    if ((rc = load ? rl_params_load(&p->p, io, "", err, errlen) : rl_params_save(&p->p, io, "", err, errlen)) ||
        (rc = load ? rl_adam_load(&p->adam, &p->p, io, err, errlen)
                   : rl_adam_save(&p->adam, &p->p, io, err, errlen)))
        return rc;
    rl_rng *rngs[3] = {&p->rng, &p->eval_rng, &p->shuffle};
    static const char *const names[3] = {"state/rng_policy", "state/rng_eval", "state/rng_shuffle"};
    for (int k = 0; k < 3; k++)
        if ((rc = load ? rl_rng_load(rngs[k], io, names[k], err, errlen)
                       : rl_rng_save(rngs[k], io, names[k], err, errlen)))
            return rc;
    double updates = (double)p->updates;
    if ((rc = rl_scalar_state(&updates, io, load, "state/updates", err, errlen)) ||
        (load && (rc = rl_state_check_f("state/updates", updates, 0, 9e18, err, errlen))))
        return rc;
    p->updates = (uint64_t)updates;
    /* The rollout so far, the LSTM states, metric sums and keep_best: with
       these a resumed run continues exactly. */
    struct {
        double m_pg, m_v, m_ent, m_kl, m_clip, m_ev;
        uint64_t m_n, skipped;
        uint32_t t;
    } acc;
    memset(&acc, 0, sizeof acc); /* padding too: checkpoints compare byte for byte */
    acc.m_pg = p->m_pg, acc.m_v = p->m_v, acc.m_ent = p->m_ent, acc.m_kl = p->m_kl;
    acc.m_clip = p->m_clip, acc.m_ev = p->m_ev;
    acc.m_n = p->m_n, acc.skipped = p->skipped, acc.t = p->t;
    if ((rc = rl_state_blob(io, load, "state/", "accumulators", &acc, sizeof acc, err, errlen))) return rc;
    if (load) {
        p->m_pg = acc.m_pg, p->m_v = acc.m_v, p->m_ent = acc.m_ent, p->m_kl = acc.m_kl;
        p->m_clip = acc.m_clip, p->m_ev = acc.m_ev;
        p->m_n = acc.m_n, p->skipped = acc.skipped, p->t = acc.t;
        /* the rollout position indexes the rollout arrays */
        if ((rc = rl_state_check_u("state/accumulators: rollout position", p->t, 0, p->T - 1, err, errlen)))
            return rc;
    }
    size_t TN = (size_t)p->T * p->N, D = p->D, H = p->H;
    struct {
        const char *name;
        void *data;
        size_t bytes;
    } blobs[] = {
        {"obs", p->obs, TN * D * 4}, {"logp", p->logp, TN * 4}, {"values", p->values, TN * 4},
        {"rewards", p->rewards, TN * 4}, {"final_values", p->final_values, TN * 4},
        {"last_obs", p->last_obs, (size_t)p->N * D * 4}, {"actions", p->actions, TN * 4},
        {"terminated", p->terminated, TN}, {"truncated", p->truncated, TN}, {"start", p->start, TN},
    };
    for (size_t k = 0; k < sizeof blobs / sizeof *blobs; k++)
        if ((rc = rl_state_blob(io, load, "rollout/", blobs[k].name, blobs[k].data, blobs[k].bytes, err, errlen)))
            return rc;
    if (load && (rc = rl_state_check_i32s("rollout/actions", p->actions, TN, 0, (int32_t)p->A - 1, err, errlen)))
        return rc;
    for (size_t k = 0; load && k < 6; k++) /* the float arrays: obs .. last_obs */
        if ((rc = rl_state_check_finite(blobs[k].name, blobs[k].data, blobs[k].bytes / 4, err, errlen)))
            return rc;
    /* The training LSTM states; the evaluation ones are not state: every
       evaluation starts its episodes afresh (zero states), and leaving them
       out lets `rlhost eval` load the checkpoint with any number of envs. */
    for (uint32_t k = 0; p->recurrent && k < p->n_towers; k++) {
        char name[32];
        float *arrays[4] = {p->st_h[k], p->st_c[k], p->live[k].h, p->live[k].c};
        size_t sizes[4] = {TN * H, TN * H, (size_t)p->N * H, (size_t)p->N * H};
        static const char *const what[4] = {"stored_h", "stored_c", "live_h", "live_c"};
        for (int j = 0; j < 4; j++) {
            snprintf(name, sizeof name, "%s%u", what[j], k);
            if ((rc = rl_state_blob(io, load, "rollout/", name, arrays[j], sizes[j] * 4, err, errlen)) ||
                (load && (rc = rl_state_check_finite(name, arrays[j], sizes[j], err, errlen))))
                return rc;
        }
    }
    if ((rc = rl_keep_best_state(&p->kb, io, load, err, errlen))) return rc;
    if (p->norm_obs) {
        /* float64 tensors [D], as any reader takes them (older checkpoints
           held their bytes as uint8: still read) */
        uint64_t shape = D;
        double *arrays[2] = {p->obs_mean, p->obs_var};
        static const char *const norm_names[2] = {"state/obs_mean", "state/obs_var"};
        if ((rc = rl_scalar_state(&p->obs_count, io, load, "state/obs_count", err, errlen))) return rc;
        for (int k = 0; k < 2; k++) {
            rc = load ? io->get(io->ctx, norm_names[k], RL_DTYPE_F64, 1, &shape, arrays[k])
                      : io->put(io->ctx, norm_names[k], RL_DTYPE_F64, 1, &shape, arrays[k]);
            if (load && rc == RL_ECORRUPT)
                rc = rl_state_blob(io, 1, "state/", norm_names[k] + 6, arrays[k], D * 8, err, errlen);
            else if (rc != RL_OK)
                RL_ERRF(err, errlen, "%s", io->error(io->ctx));
            if (rc != RL_OK) return rc;
        }
        if (load) {
            if ((rc = rl_state_check_f("state/obs_count", p->obs_count, 0, 1e300, err, errlen)))
                return rc;
            for (size_t j = 0; j < D; j++)
                if ((rc = rl_state_check_f("state/obs_mean", p->obs_mean[j], -1e300, 1e300, err, errlen)) ||
                    (rc = rl_state_check_f("state/obs_var", p->obs_var[j], 0, 1e300, err, errlen)))
                    return rc;
            obs_norm_derive(p);
        }
    }
    return RL_OK;
}

/* One tower's ops (an LSTM first when recurrent, then its MLP), appended. */
static int tower_ops(const tower *t, const char *name, char *buf, size_t cap)
{
    char pre[32];
    if (t->has_cnn) {
        snprintf(pre, sizeof pre, "%s/cnn", name);
        if (rl_cnn_ops(&t->cnn, pre, buf, cap)) return -1;
    }
    size_t len = strlen(buf);
    if (t->recurrent) {
        int n = snprintf(buf + len, cap - len,
                         "%s{\"op\":\"lstm\",\"weight_ih\":\"%s/lstm/weight_ih\",\"weight_hh\":\"%s/lstm/weight_hh\","
                         "\"bias\":\"%s/lstm/bias\",\"in\":%u,\"hidden\":%u,\"gates\":\"i,f,g,o\",\"state\":\"%s\"}",
                         len && buf[len - 1] == '}' ? "," : "", name, name, name, t->lstm.in_dim, t->lstm.hidden, name);
        if (n < 0 || (size_t)n >= cap - len) return -1;
    }
    snprintf(pre, sizeof pre, "%s/mlp", name);
    return rl_mlp_ops(&t->mlp, pre, buf, cap);
}

/* The policy as rlhost.policy/1 (README: "Checkpoints that explain
   themselves"): input normalization, then the actor's logits and the
   critic's value as ops over the checkpoint's tensors; greedy is the argmax
   of the logits (deterministic_eval), else a sample of their softmax.  An
   "lstm" op's state (h, c) is carried from step to step of an episode and
   zero at its start; "state" names which one (actor, critic or body). */
static int ppo_describe(const ppo *p, const rl_state_io *io, char *err, size_t errlen)
{
    char actor[4096] = "", critic[4096] = "", json[9216], norm[160] = "null";
    int rc = 0;
    if (p->shared) {
        char act[32];
        snprintf(act, sizeof act, "{\"op\":\"%s\"}", rl_activation_name(p->act));
        rc = tower_ops(&p->towers[0], "body", actor, sizeof actor);
        if (!rc && p->act != RL_ACT_NONE) rc = strlen(actor) + strlen(act) + 2 > sizeof actor;
        if (!rc && p->act != RL_ACT_NONE) strcat(strcat(actor, ","), act);
        if (!rc) memcpy(critic, actor, sizeof critic);
        if (!rc) rc = rl_mlp_ops(&p->head_pi, "pi", actor, sizeof actor);
        if (!rc) rc = rl_mlp_ops(&p->head_v, "vf", critic, sizeof critic);
    } else {
        rc = tower_ops(&p->towers[0], "actor", actor, sizeof actor);
        if (!rc) rc = tower_ops(&p->towers[1], "critic", critic, sizeof critic);
    }
    if (p->norm_obs)
        snprintf(norm, sizeof norm,
                 "{\"mean\":\"state/obs_mean\",\"var\":\"state/obs_var\",\"eps\":1e-8,\"clip\":10,"
                 "\"formula\":\"clip((x - mean) / sqrt(var + eps), -clip, clip)\"}");
    int n = snprintf(json, sizeof json,
                     "{\"format\":\"rlhost.policy/1\",\"algo\":\"ppo\",\"input\":{\"size\":%u,\"normalize\":%s},"
                     "\"outputs\":{\"logits\":[%s],\"value\":[%s]},\"greedy\":{\"%s\":\"logits\"}}",
                     p->D, norm, actor, critic, p->det_eval ? "argmax" : "sample_softmax");
    if (rc || n < 0 || (size_t)n >= sizeof json) {
        RL_ERRF(err, errlen, "the network is too large to describe");
        return RL_EINVAL;
    }
    return rl_state_meta(io, "policy", json, err, errlen);
}

static int ppo_save(void *p, const rl_state_io *io, char *err, size_t errlen)
{
    return ppo_state(p, io, 0, err, errlen);
}

static int ppo_load(void *p, const rl_state_io *io, char *err, size_t errlen)
{
    return ppo_state(p, io, 1, err, errlen);
}

static const rl_algo_state_ext state_ext = {sizeof state_ext, ppo_save, ppo_load};

static const void *ppo_get_extension(void *p, const char *id)
{
    (void)p;
    if (strcmp(id, RL_EXT_ALGO_EVAL) == 0) return &eval_ext;
    if (strcmp(id, RL_EXT_ALGO_STATE) == 0) return &state_ext;
    return NULL;
}

static const rl_algo_vtable vtable = {
    sizeof vtable, ppo_create, ppo_destroy, ppo_act, ppo_observe, ppo_update, ppo_metrics,
    ppo_get_extension,
};

static const rl_plugin_desc descs[] = {
    {sizeof(rl_plugin_desc), RL_KIND_ALGO, "ppo", "1.0.0",
     "proximal policy optimization (clipped surrogate, GAE)", opts_ppo, OPT_N, stages, ST_N,
     &vtable, RL_DESC_REPLICAS},
    {sizeof(rl_plugin_desc), RL_KIND_ALGO, "recurrent_ppo", "1.0.0",
     "PPO with an LSTM before the heads (preset: recurrent = true)", opts_rppo, OPT_N, stages,
     ST_N, &vtable, RL_DESC_REPLICAS},
};

static int plugin_init(const rl_host_api *h, char *err, size_t errlen)
{
    (void)err;
    (void)errlen;
    host = h;
    return RL_OK;
}

static uint32_t plugin_count(void)
{
    return sizeof descs / sizeof *descs;
}

static const rl_plugin_desc *plugin_get(uint32_t i)
{
    return i < plugin_count() ? &descs[i] : NULL;
}

RL_PLUGIN_DEFINE_ENTRY(plugin_init, NULL, plugin_count, plugin_get);
