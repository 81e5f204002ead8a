/* A2C (synchronous advantage actor-critic) on librlcore, the SDK's example that learns: every action space through
   rl_mpdist (categoricals, masked or one per component, a Gaussian (gSDE on request), or both for a hybrid action),
   actor and critic MLPs in one parameter block over any observation, n-step rollouts with GAE, RMSprop (as SB3) or
   Adam; docs/plugins.md walks through it. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <rlhost/nn.h>
#include <rlhost/norm.h>
#include <rlhost/parts.h>
#include <rlhost/rollout.h>

/* The options, in schema order: args->options[OPT_...] holds each typed and checked. */
enum {
    OPT_LR,
    OPT_N_STEPS,
    OPT_GAMMA,
    OPT_LAMBDA,
    OPT_ENT,
    OPT_VF,
    OPT_MAX_NORM,
    OPT_HIDDEN,
    OPT_OPTIM,
    OPT_NORM_ADV,
    OPT_NORM_OBS,
    OPT_NORM_REWARD,
    OPT_LOG_STD,
    OPT_ORTHO,
    OPT_SDE,
    OPT_SDE_FREQ,
    OPT_FULL_STD,
    OPT_N
};
static const char *const optimizers[] = {"rmsprop", "adam", NULL};
static const rl_option_def options[OPT_N] = {
    [OPT_LR] = RL_OPTION_FLOAT("lr", "7e-4", 0, 1, "learning rate"),
    [OPT_N_STEPS] = RL_OPTION_INT("n_steps", "5", 1, 65536, "steps per env in a rollout; one update each"),
    [OPT_GAMMA] = RL_OPTION_FLOAT("gamma", "0.99", 0, 1, "discount"),
    [OPT_LAMBDA] = RL_OPTION_FLOAT("gae_lambda", "1.0", 0, 1, "GAE lambda (1: n-step returns)"),
    [OPT_ENT] = RL_OPTION_FLOAT("ent_coef", "0.0", 0, 10, "entropy bonus"),
    [OPT_VF] = RL_OPTION_FLOAT("vf_coef", "0.5", 0, 100, "value loss weight"),
    [OPT_MAX_NORM] = RL_OPTION_FLOAT("max_grad_norm", "0.5", 0, 1e9, "global gradient norm clip (0: off)"),
    [OPT_HIDDEN] = RL_OPTION_INT_LIST("hidden", "[64, 64]", 1, 4096, "hidden widths of actor and critic"),
    [OPT_OPTIM] = RL_OPTION_ENUM("optimizer", "rmsprop", optimizers, "rmsprop (alpha 0.99, eps 1e-5) or adam"),
    [OPT_NORM_ADV] = RL_OPTION_BOOL("normalize_advantage", "false", "normalize each rollout's advantages"),
    [OPT_NORM_OBS] = RL_OPTION_BOOL("normalize_obs", "false", "running mean/std of observations"),
    [OPT_NORM_REWARD] = RL_OPTION_BOOL("normalize_reward", "false", "scale rewards by the return's spread"),
    [OPT_LOG_STD] = RL_OPTION_FLOAT("log_std_init", "0.0", -20, 2, "box: initial log-std"),
    [OPT_ORTHO] = RL_OPTION_BOOL("ortho_init", "true", "orthogonal init (gains 0.01, 1); false: PyTorch's default"),
    [OPT_SDE] = RL_OPTION_BOOL("use_sde", "false", "box: gSDE, noise linear in the actor's last hidden features"),
    [OPT_SDE_FREQ] = RL_OPTION_INT_F("sde_sample_freq", "\"auto\"", 1, 1e9, RL_OPT_AUTO,
                                     "use_sde: steps per env between noise matrices (also at an episode's start); "
                                     "auto: each rollout's start"),
    [OPT_FULL_STD] = RL_OPTION_BOOL("full_std", "true", "use_sde: a log-std per feature and action dimension"),
};

typedef struct a2c {
    const rl_value *o;                /* the options, valid until destroy */
    uint32_t obs, A, envs, rows, box; /* floats of network input; the actor's outputs; box floats */
    uint32_t L, n_log_std;            /* use_sde: the actor's last hidden width (else 0); the log-stds */
    rl_obs_layout lay;                /* the env's observations, read as network input by rl_obs_input */
    rl_params p;                      /* actor, critic and (box) log_std: one block */
    rl_mlp pi, v;
    size_t log_std; /* box: the log-stds' offset in p */
    rl_mpdist *pd;  /* the policy over the actor's outputs: any action space, masks too */
    rl_rmsprop rms; /* the optimizer option picks one of the two */
    rl_adam adam;
    rl_rollout ro;
    rl_obs_norm on; /* normalize_obs, normalize_reward */
    rl_return_norm rn;
    rl_rng rng;
    float *scratch, *x, *lp, *g, *dpi, *dv, *lastv; /* one block, carved at create */
    float *sde_std, *sde_env; /* use_sde: exp(log_std) [L][box]; each env's noise matrix [envs][L][box] */
    rl_means means;           /* policy loss, value loss, entropy since metrics() */
} a2c;

#define OPT(k) (a->o[OPT_##k])

static void a2c_destroy(void *p)
{
    a2c *a = p;
    if (!a) return;
    rl_mlp_destroy(&a->pi), rl_mlp_destroy(&a->v), rl_params_free(&a->p), rl_mpdist_free(a->pd);
    rl_rmsprop_destroy(&a->rms), rl_adam_destroy(&a->adam), rl_rollout_destroy(&a->ro), rl_obs_layout_free(&a->lay);
    rl_obs_norm_destroy(&a->on), rl_return_norm_destroy(&a->rn), rl_free(a->scratch), rl_free(a->sde_std);
    rl_free(a->sde_env), free(a);
}

/* Everything is allocated here, nothing per step. */
static int a2c_create(const rl_algo_args *args, void **out, char *err, size_t errlen)
{
    a2c *a = calloc(1, sizeof *a);
    if (!a) return RL_ENOMEM;
    const rl_env_info *env = args->env;
    a->o = args->options, a->obs = rl_obs_input_width(env), a->envs = args->num_envs;
    a->box = rl_env_info_action_floats(env), a->A = rl_env_info_action_width(env);
    a->rows = args->num_envs > args->num_eval_envs ? args->num_envs : args->num_eval_envs;
    uint32_t T = (uint32_t)OPT(N_STEPS).i, M = T * a->envs, B = M > a->rows ? M : a->rows;
    uint32_t hidden[RL_MLP_MAX_LAYERS - 1], nh = rl_value_u32s(&OPT(HIDDEN), hidden, RL_MLP_MAX_LAYERS - 1);
    if (OPT(SDE).i && (a->box != a->A || !nh)) { /* gSDE: a box's noise, linear in the last hidden layer */
        RL_ERRF(err, errlen, "use_sde needs a box action space and a hidden layer; this env's actions are %s",
                a->box == a->A ? "a box"
                    : a->box   ? "hybrid (discrete and box)"
                               : "discrete");
        a2c_destroy(a);
        return RL_EINVAL;
    }
    a->L = OPT(SDE).i ? hidden[nh - 1] : 0, a->n_log_std = a->L ? a->L * (OPT(FULL_STD).i ? a->box : 1) : a->box;
    int rc = rl_obs_layout_copy(&a->lay, env);
    if (!rc) rc = rl_mlp_create(&a->pi, &a->p, "actor", a->obs, hidden, nh, a->A, RL_ACT_TANH, B);
    if (!rc) rc = rl_mlp_create(&a->v, &a->p, "critic", a->obs, hidden, nh, 1, RL_ACT_TANH, B);
    /* [box] log-stds, or gSDE's [L][box] (full_std) or [L][1] */
    uint32_t ls_rows = a->L ? a->L : a->box, ls_cols = a->L && OPT(FULL_STD).i ? a->box : 1;
    if (!rc && a->box && (a->log_std = rl_params_add(&a->p, "actor/log_std", ls_rows, ls_cols)) == (size_t)-1)
        rc = RL_ENOMEM;
    if (!rc) rc = rl_params_alloc(&a->p);
    if (!rc && !(a->pd = rl_mpdist_for_env(env, a->p.data + a->log_std, B, err, errlen))) rc = RL_EINVAL;
    if (!rc && a->L) rc = rl_mpdist_gsde(a->pd, a->L, (int)OPT(FULL_STD).i, a->p.data + a->log_std, err, errlen);
    if (!rc && a->L &&
        (!(a->sde_std = rl_calloc_aligned((size_t)a->L * a->box, sizeof(float))) ||
         !(a->sde_env = rl_calloc_aligned((size_t)a->envs * a->L * a->box, sizeof(float)))))
        rc = RL_ENOMEM;
    if (!rc)
        rc = OPT(OPTIM).i ? rl_adam_create(&a->adam, a->p.n, 0.9f, 0.999f, 1e-5f, 0)
                          : rl_rmsprop_create(&a->rms, a->p.n, 0.99f, 1e-5f);
    if (!rc) rc = rl_rollout_for_env(&a->ro, T, a->envs, a->obs, env); /* with each row's components and mask */
    if (!rc) rc = rl_obs_norm_create(&a->on, a->obs, 10.0f);
    if (!rc) rc = rl_return_norm_create(&a->rn, a->envs, (float)OPT(GAMMA).f, 10.0f);
    size_t nx = (size_t)a->rows * a->obs;
    if (!rc && !(a->scratch = rl_calloc_aligned(nx + (size_t)B * (a->A + 3) + a->envs, sizeof(float)))) rc = RL_ENOMEM;
    if (rc) {
        a2c_destroy(a);
        if (rc != RL_EINVAL || !err[0])
            RL_ERRF(err, errlen, "cannot build the networks: %s (hidden: 1 to %d layers)", rl_strerror(rc),
                    RL_MLP_MAX_LAYERS - 1);
        return rc;
    }
    a->x = a->scratch, a->lp = a->x + nx, a->g = a->lp + B, a->dv = a->g + B, a->lastv = a->dv + B,
    a->dpi = a->lastv + a->envs;
    rl_rng init; /* initial weights from a stream of their own */
    rl_rng_seed(&a->rng, args->seed, 11), rl_rng_seed(&init, args->seed, 13);
    rl_init_scheme scheme = OPT(ORTHO).i ? RL_INIT_ORTHOGONAL : RL_INIT_DEFAULT;
    rl_mlp_init(&a->pi, &a->p, scheme, 0.01f, &init);
    rl_mlp_init(&a->v, &a->p, scheme, 1.0f, &init);
    for (uint32_t k = 0; k < a->n_log_std; k++) a->p.data[a->log_std + k] = (float)OPT(LOG_STD).f;
    static const char *const metrics[3] = {"policy_loss", "value_loss", "entropy"};
    rl_means_init(&a->means, metrics, 3);
    *out = a;
    return RL_OK;
}

/* Observations as network input, normalized when asked (training rows update the statistics). */
static void input(a2c *a, const void *obs, uint32_t rows, float *x, int update)
{
    rl_obs_input(&a->lay.info, obs, rows, x);
    if (OPT(NORM_OBS).i && update) rl_obs_norm_update(&a->on, x, rows, NULL);
    if (OPT(NORM_OBS).i) rl_obs_norm_apply(&a->on, x, rows);
}

/* gSDE: the rows' latent features (the actor's last hidden layer, held); in training (start set)
   each env's matrix, drawn afresh every sde_sample_freq steps (auto: at a rollout's start) and at an
   episode's start, as SB3 draws it. */
static void sde_rows(a2c *a, const uint8_t *start)
{
    const rl_mlp *m = &a->pi;
    uint32_t f = OPT(SDE_FREQ).is_auto ? 0 : (uint32_t)OPT(SDE_FREQ).i, pos = a->ro.pos;
    if (start) {
        rl_gsde_std(a->sde_std, a->p.data + a->log_std, (int)OPT(FULL_STD).i, a->L, a->box);
        rl_gsde_resample(a->sde_std, a->L, a->box, a->envs, f ? pos % f == 0 : pos == 0, start, &a->rng, a->sde_env);
    }
    rl_mpdist_gsde_rows(a->pd, m->acts + m->act_off[m->n_layers - 2], start ? a->sde_env : NULL);
}

/* Training: a sample, stored with its observation and value; evaluation: the mode.  rl_mlp_infer
   uses the training workspace, safe here: act() never runs between a forward and its backward. */
static int a2c_act(void *p, const rl_act_batch *b, char *err, size_t errlen)
{
    a2c *a = p;
    int train = b->mode == RL_MODE_TRAIN;
    if (b->count > (train ? a->envs : a->rows)) return RL_EINVAL; /* more rows than create was told */
    float *x = train ? a->ro.obs + rl_rollout_at(&a->ro) * a->obs : a->x;
    input(a, b->obs, b->count, x, train);
    const float *out = rl_mlp_infer(&a->pi, a->p.data, x, b->count);
    if (a->L) sde_rows(a, train ? b->episode_start : NULL);
    rl_mpdist_act(a->pd, out, b->masks, b->count, train ? &a->rng : NULL, b->actions, b->box_actions);
    if (train) rl_rollout_act_batch(&a->ro, b, NULL, rl_mlp_infer(&a->v, a->p.data, x, b->count));
    return RL_OK;
}

/* The env's answer: rewards (scaled when asked), V of a time-limited episode's final observation. */
static int a2c_observe(void *p, const rl_transition *t, char *err, size_t errlen)
{
    a2c *a = p;
    size_t at = rl_rollout_at(&a->ro), row = rl_obs_row_bytes(&a->lay.info);
    for (uint32_t i = 0; i < t->count; i++) {
        a->ro.final_values[at + i] = 0.0f;
        if (!t->truncated[i] || t->terminated[i]) continue;
        input(a, (const char *)t->final_obs + i * row, 1, a->x, 0);
        a->ro.final_values[at + i] = rl_mlp_infer(&a->v, a->p.data, a->x, 1)[0];
    }
    if (OPT(NORM_REWARD).i)
        rl_return_norm_step(&a->rn, t->rewards, t->terminated, t->truncated, a->ro.rewards + at, NULL);
    input(a, t->next_obs, t->count, a->ro.last_obs, 0);
    rl_rollout_observe(&a->ro, t, OPT(NORM_REWARD).i ? a->ro.rewards + at : NULL);
    return RL_OK;
}

/* One step on a full rollout of M rows: loss = -mean(adv logp) + vf mean((V - R)^2) - ent mean(H). */
static int a2c_update(void *p, uint64_t step, char *err, size_t errlen)
{
    a2c *a = p;
    rl_rollout *r = &a->ro;
    if (r->pos < r->steps) return RL_OK;
    uint32_t M = r->steps * r->envs;
    memcpy(a->lastv, rl_mlp_infer(&a->v, a->p.data, r->last_obs, r->envs), r->envs * sizeof(float));
    rl_rollout_gae(r, a->lastv, (float)OPT(GAMMA).f, (float)OPT(LAMBDA).f);
    double mean = 0, sd = 1, pg = 0;
    if (OPT(NORM_ADV).i) rl_advantage_stats(r->adv, M, &mean, &sd), sd += 1e-8;
    const float *out = rl_mlp_forward(&a->pi, a->p.data, r->obs, M);
    if (a->L) sde_rows(a, NULL); /* the rollout's latent features, from this forward */
    const int32_t *acts = rl_rollout_actions(r);
    double ent = rl_mpdist_logp(a->pd, out, r->masks, acts, r->box_actions, M, a->lp);
    for (uint32_t k = 0; k < M; k++) {
        float adv = (float)((r->adv[k] - mean) / sd);
        pg -= adv * a->lp[k], a->g[k] = -adv / M;
    }
    rl_params_zero_grad(&a->p), memset(a->dpi, 0, (size_t)M * a->A * sizeof(float));
    rl_mpdist_backward(a->pd, out, acts, r->box_actions, M, a->g, -(float)OPT(ENT).f / M, a->dpi,
                       a->box ? a->p.grad + a->log_std : NULL);
    rl_mlp_backward(&a->pi, a->p.data, a->p.grad, r->obs, a->dpi, NULL, M);
    memset(a->dv, 0, M * sizeof(float));
    double vl = rl_mse_loss(a->dv, rl_mlp_forward(&a->v, a->p.data, r->obs, M), r->ret, NULL, M);
    for (uint32_t k = 0; k < M; k++) a->dv[k] *= (float)OPT(VF).f;
    rl_mlp_backward(&a->v, a->p.data, a->p.grad, r->obs, a->dv, NULL, M);
    float norm = rl_clip_grad_norm(a->p.grad, a->p.n, (float)OPT(MAX_NORM).f); /* 0: measured, not clipped */
    if (!isfinite(norm) || !isfinite(pg) || !isfinite(vl)) {
        RL_ERRF(err, errlen, "non-finite A2C loss or gradient at step %llu", (unsigned long long)step);
        return RL_ENONFINITE;
    }
    OPT(OPTIM).i ? rl_adam_step(&a->adam, a->p.data, a->p.grad, (float)OPT(LR).f)
                 : rl_rmsprop_step(&a->rms, a->p.data, a->p.grad, (float)OPT(LR).f);
    rl_means_add(&a->means, (double[3]){pg / M, vl, ent / M});
    rl_rollout_clear(r);
    return RL_OK;
}

static size_t a2c_metrics(void *p, rl_metric *out, size_t cap)
{
    return rl_means_report(&((a2c *)p)->means, out, cap);
}

/* The policy for readers without rlhost (docs/plugins.md): outputs as ops over the saved tensors. */
static int describe(a2c *a, const rl_state_io *io, char *err, size_t errlen)
{
    char pi[2048] = "", v[2048] = "", greedy[2048];
    const char *names[2] = {a->box == a->A ? "mean" : "logits", "value"}, *ops[2] = {pi, v};
    int big = rl_mlp_ops(&a->pi, "actor", pi, sizeof pi) || rl_mlp_ops(&a->v, "critic", v, sizeof v) ||
        rl_mpdist_greedy(a->pd, 0, "actor/log_std", greedy, sizeof greedy) < 0;
    if (big) RL_ERRF(err, errlen, "the network is too large to describe");
    return big ? RL_EINVAL
               : rl_policy_meta(io, "a2c", a->obs, OPT(NORM_OBS).i ? "a2c/obs_" : NULL, 10, 2, names, ops, greedy, err,
                                errlen);
}

/* The resume duties: all the next step reads comes back exactly (networks, optimizer, random stream,
   the rollout so far with its position, normalizers, metric sums); every helper checks what it loads. */
static int a2c_state(a2c *a, const rl_state_io *io, int load, char *err, size_t errlen)
{
    int rc = load ? RL_OK : describe(a, io, err, errlen);
    if (!rc) rc = rl_params_state(&a->p, io, load, "", err, errlen);
    if (!rc)
        rc = OPT(OPTIM).i ? rl_adam_state(&a->adam, &a->p, io, load, "adam/", err, errlen)
                          : rl_rmsprop_state(&a->rms, &a->p, io, load, "rmsprop/", err, errlen);
    if (!rc) rc = rl_rng_state(&a->rng, io, load, "a2c/rng", err, errlen);
    if (!rc) rc = rl_rollout_state(&a->ro, io, load, err, errlen);
    if (!rc && OPT(NORM_OBS).i) rc = rl_obs_norm_state(&a->on, io, load, "a2c/obs_", err, errlen);
    if (!rc && OPT(NORM_REWARD).i) rc = rl_return_norm_state(&a->rn, io, load, "a2c/", err, errlen);
    if (!rc) rc = rl_means_state(&a->means, io, load, "a2c/", err, errlen);
    size_t n = (size_t)a->envs * a->L * a->box; /* gSDE: each env's matrix, held between draws */
    if (!rc && n) rc = rl_state_blob(io, load, "a2c/", "sde_matrices", a->sde_env, n * sizeof(float), err, errlen);
    if (!rc && n && load) rc = rl_state_check_finite("a2c/sde_matrices", a->sde_env, n, err, errlen);
    return rc;
}

RL_ALGO_STATE_ONLY(state_ext, a2c_state);

static const rl_algo_vtable vtable = {
    .struct_size = sizeof vtable,
    .create = a2c_create,
    .destroy = a2c_destroy,
    .observe = a2c_observe,
    .update = a2c_update,
    .metrics = a2c_metrics,
    .get_extension = state_ext_get_extension,
    .act_batch = a2c_act,
};

/* rlhost tune's default space (the RL Zoo's A2C sampler, in brief) */
static const char space[] =
    "lr = { log_uniform = [1e-5, 1e-2]; }; n_steps = { choice = [5, 8, 16, 32, 64]; }; "
    "gamma = { choice = [0.9, 0.95, 0.98, 0.99, 0.995, 0.999]; }; ent_coef = { log_uniform = [1e-8, 0.1]; }; "
    "gae_lambda = { choice = [0.8, 0.9, 0.92, 0.95, 0.98, 1.0]; }; vf_coef = { uniform = [0.0, 1.0]; }; max_grad_norm "
    "= { choice = [0.3, 0.5, 1.0, 2.0, 5.0]; }; hidden = { choice = ([64, 64], [256, 256]); };";

static const rl_plugin_desc desc = {
    .struct_size = sizeof desc,
    .kind = RL_KIND_ALGO,
    .name = "a2c",
    .version = "1.0.0",
    .description = "advantage actor-critic (synchronous), the SDK's example: categorical or Gaussian policy",
    .options = options,
    .n_options = OPT_N,
    .vtable = &vtable,
    .flags = RL_DESC_BOX | RL_DESC_MASKS | RL_DESC_MULTI_DISCRETE | RL_DESC_HYBRID | RL_DESC_OBS_PARTS,
    .tune_space = space,
};

RL_PLUGIN_DEFINE_SINGLE(desc);
