/* mini_dqn: deep Q-learning in one file, the SDK's off-policy example.  What an off-policy learner is
   made of, each from librlcore: a replay ring and minibatches drawn from it (<rlhost/replay.h>), a
   target network as a second parameter block on the same rl_mlp, an epsilon-greedy schedule read from
   the host's step count (rl_args_steps), one clip + Adam step per minibatch, and every piece of it in
   the checkpoint so a resume is exact.  docs/plugins.md walks through it; the full DQN family
   (double, dueling, prioritized, n-step, CNN encoders, replicas) is algos/dqn. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <rlhost/nn.h>
#include <rlhost/replay.h>

enum {
    OPT_LR,
    OPT_GAMMA,
    OPT_BATCH,
    OPT_BUFFER,
    OPT_STARTS,
    OPT_TRAIN_FREQ,
    OPT_GRAD_STEPS,
    OPT_TARGET,
    OPT_EPS_START,
    OPT_EPS_END,
    OPT_EXPLORE,
    OPT_HIDDEN,
    OPT_MAX_NORM,
    OPT_SAVE_REPLAY,
    OPT_N
};
static const rl_option_def options[OPT_N] = {
    [OPT_LR] = RL_OPTION_FLOAT("lr", "1e-3", 0, 1, "Adam learning rate"),
    [OPT_GAMMA] = RL_OPTION_FLOAT("gamma", "0.99", 0, 1, "discount"),
    [OPT_BATCH] = RL_OPTION_INT("batch_size", "64", 1, 65536, "transitions per gradient step"),
    [OPT_BUFFER] = RL_OPTION_INT("buffer_size", "50000", 1, 1 << 26, "replay capacity in transitions"),
    [OPT_STARTS] = RL_OPTION_INT("learning_starts", "1000", 0, 1e12, "env steps before the first update"),
    [OPT_TRAIN_FREQ] = RL_OPTION_INT("train_freq", "4", 1, 1e9, "env steps between updates"),
    [OPT_GRAD_STEPS] = RL_OPTION_INT("gradient_steps", "1", 1, 65536, "gradient steps per update"),
    [OPT_TARGET] = RL_OPTION_INT("target_update_interval", "1000", 1, 1e9, "env steps between target copies"),
    [OPT_EPS_START] = RL_OPTION_FLOAT("exploration_initial_eps", "1.0", 0, 1, "epsilon at step 0"),
    [OPT_EPS_END] = RL_OPTION_FLOAT("exploration_final_eps", "0.05", 0, 1, "epsilon after the schedule"),
    [OPT_EXPLORE] = RL_OPTION_FLOAT("exploration_fraction", "0.2", 0, 1, "share of total_steps epsilon decays over"),
    [OPT_HIDDEN] = RL_OPTION_INT_LIST("hidden", "[64, 64]", 1, 4096, "hidden widths of the Q network"),
    [OPT_MAX_NORM] = RL_OPTION_FLOAT("max_grad_norm", "10", 0, 1e9, "global gradient norm clip (0: off)"),
    [OPT_SAVE_REPLAY] = RL_OPTION_BOOL("save_replay", "false", "keep the replay with checkpoints (exact resume)"),
};

typedef struct mini_dqn {
    rl_algo_args args; /* a copy: options, the env, the host's step count (rl_args_steps) */
    uint32_t obs, A, envs, rows;
    rl_params q, target; /* one rl_mlp, two parameter blocks: the online and the target network */
    rl_mlp net;
    rl_adam adam;
    rl_replay rb;
    rl_replay_batch batch;
    rl_rng explore, sample; /* two streams: acting never shifts which transitions are sampled */
    uint64_t grad_steps;    /* gradient steps taken (a metric) */
    float *x, *y, *dq;      /* one block: observations as input, targets (then the predictions
                               and their gradient), the loss gradient per Q value */
    rl_means means;         /* loss, q_mean since metrics() */
} mini_dqn;

#define OPT(k) (d->args.options[OPT_##k])

static void mini_destroy(void *p)
{
    mini_dqn *d = p;
    if (!d) return;
    rl_mlp_destroy(&d->net), rl_params_free(&d->q), rl_params_free(&d->target), rl_adam_destroy(&d->adam);
    rl_replay_destroy(&d->rb), rl_replay_batch_destroy(&d->batch), rl_free(d->x), free(d);
}

static int mini_create(const rl_algo_args *args, void **out, char *err, size_t errlen)
{
    mini_dqn *d = calloc(1, sizeof *d);
    if (!d) return RL_ENOMEM;
    d->args = *args;
    d->obs = args->env->obs_size, d->A = args->env->n_actions, d->envs = args->num_envs;
    d->rows = args->num_envs > args->num_eval_envs ? args->num_envs : args->num_eval_envs;
    uint32_t B = (uint32_t)OPT(BATCH).i, M = B > d->rows ? B : d->rows; /* rows the network runs on */
    uint32_t hidden[RL_MLP_MAX_LAYERS - 1], nh = rl_value_u32s(&OPT(HIDDEN), hidden, RL_MLP_MAX_LAYERS - 1);
    int rc = rl_mlp_create(&d->net, &d->q, "q", d->obs, hidden, nh, d->A, RL_ACT_RELU, M);
    if (!rc) rc = rl_params_alloc(&d->q);
    /* An instance that only acts (eval, play) needs the network alone. */
    int train = !rl_args_inference(args);
    if (!rc && train) rc = rl_adam_create(&d->adam, d->q.n, 0.9f, 0.999f, 1e-8f, 0);
    if (!rc && train) rc = rl_mem_check(rl_replay_bytes((uint64_t)OPT(BUFFER).i, args->env), "the replay", err, errlen);
    if (!rc && train) rc = rl_replay_create(&d->rb, (uint32_t)OPT(BUFFER).i, d->envs, args->env);
    if (!rc && train) rc = rl_replay_batch_create(&d->batch, &d->rb, B);
    if (!rc && !(d->x = rl_calloc_aligned((size_t)d->rows * d->obs + (size_t)B * (3 + d->A), sizeof(float))))
        rc = RL_ENOMEM;
    if (rc) {
        if (!err[0]) RL_ERRF(err, errlen, "cannot build mini_dqn: %s", rl_strerror(rc)); /* else rl_mem_check's */
        mini_destroy(d);
        return rc;
    }
    d->y = d->x + (size_t)d->rows * d->obs, d->dq = d->y + 3 * (size_t)B;
    rl_rng init;
    rl_rng_seed(&init, args->seed, 1), rl_rng_seed(&d->explore, args->seed, 2), rl_rng_seed(&d->sample, args->seed, 3);
    rl_mlp_init(&d->net, &d->q, RL_INIT_DEFAULT, 1.0f, &init);
    if (train && (rc = rl_params_clone(&d->target, &d->q))) { /* the target starts as a copy */
        mini_destroy(d);
        return rc;
    }
    static const char *const metrics[2] = {"loss", "q_mean"};
    rl_means_init(&d->means, metrics, 2);
    *out = d;
    return RL_OK;
}

/* Linear from exploration_initial_eps to exploration_final_eps over the first exploration_fraction of
   total_steps, read from the host's step count: no counter of our own to save. */
static double epsilon(const mini_dqn *d)
{
    double span = OPT(EXPLORE).f * (double)d->args.total_steps, t = (double)rl_args_steps(&d->args);
    double f = span > 0 && t < span ? t / span : 1.0;
    return OPT(EPS_START).f + f * (OPT(EPS_END).f - OPT(EPS_START).f);
}

static int mini_act(void *p, const rl_act_batch *b, char *err, size_t errlen)
{
    mini_dqn *d = p;
    const rl_env_info *env = d->args.env;
    uint32_t count = b->count;
    int32_t *actions = b->actions;
    rl_act_mode mode = b->mode;
    if (count > d->rows) return RL_EINVAL;
    rl_obs_to_float(env->obs_dtype, env->obs_scale, b->obs, (size_t)count * d->obs, d->x);
    const float *qv = rl_mlp_infer(&d->net, d->q.data, d->x, count);
    double eps = mode == RL_MODE_TRAIN ? epsilon(d) : 0.0;
    for (uint32_t i = 0; i < count; i++) {
        uint32_t best = 0;
        for (uint32_t a = 1; a < d->A; a++)
            if (qv[i * d->A + a] > qv[i * d->A + best]) best = a;
        /* one draw per row in training, whatever epsilon: the stream stays aligned */
        int random = mode == RL_MODE_TRAIN && rl_rng_uniform_d(&d->explore) < eps;
        actions[i] = random ? (int32_t)rl_rng_below(&d->explore, d->A) : (int32_t)best;
    }
    return RL_OK;
}

static int mini_observe(void *p, const rl_transition *t, char *err, size_t errlen)
{
    rl_replay_add(&((mini_dqn *)p)->rb, t);
    return RL_OK;
}

/* One gradient step: y = r + gamma (1 - terminated) max_a' Q_target(s', a'), Huber loss on Q(s, a).
   The target values come first: an rl_mlp keeps one workspace, so nothing may run on it between the
   training forward and its backward. */
static int grad_step(mini_dqn *d, uint64_t step, char *err, size_t errlen)
{
    rl_replay_batch *b = &d->batch;
    uint32_t B = b->n, A = d->A;
    rl_replay_sample(&d->rb, &d->sample, b);
    const float *qn = rl_mlp_infer(&d->net, d->target.data, b->next_obs, B);
    for (uint32_t j = 0; j < B; j++) {
        float m = qn[j * A];
        for (uint32_t a = 1; a < A; a++) m = fmaxf(m, qn[j * A + a]);
        d->y[j] = b->rewards[j] + (float)OPT(GAMMA).f * (1.0f - b->terminated[j]) * m;
    }
    const float *qv = rl_mlp_forward(&d->net, d->q.data, b->obs, B);
    float *pred = d->y + B, *dpred = pred + B;
    double qsum = 0;
    for (uint32_t j = 0; j < B; j++) pred[j] = qv[j * A + b->actions[j]], dpred[j] = 0, qsum += pred[j];
    float loss = rl_huber_loss(dpred, pred, d->y, NULL, B);
    memset(d->dq, 0, (size_t)B * A * sizeof(float));
    for (uint32_t j = 0; j < B; j++) d->dq[j * A + b->actions[j]] = dpred[j];
    rl_params_zero_grad(&d->q);
    rl_mlp_backward(&d->net, d->q.data, d->q.grad, b->obs, d->dq, NULL, B);
    float norm = rl_adam_clip_step(&d->adam, d->q.data, d->q.grad, d->q.n, (float)OPT(MAX_NORM).f, (float)OPT(LR).f);
    if (!isfinite(norm) || !isfinite(loss)) {
        RL_ERRF(err, errlen, "non-finite mini_dqn loss or gradient at step %llu", (unsigned long long)step);
        return RL_ENONFINITE;
    }
    d->grad_steps++;
    rl_means_add(&d->means, (double[2]){loss, qsum / B});
    return RL_OK;
}

/* step: env steps so far, all envs counted; one vector step adds envs of them.  The target copy and
   training fall due when the step crosses a multiple of their intervals, a rule that needs no state of
   its own.  The copy comes first, so each training round works against the target of its start (as
   Stable-Baselines3 counts target_update_interval: in env steps). */
static int crossed(uint64_t step, uint64_t prev, int64_t every)
{
    return step / (uint64_t)every != prev / (uint64_t)every;
}

static int mini_update(void *p, uint64_t step, char *err, size_t errlen)
{
    mini_dqn *d = p;
    uint64_t prev = step >= d->envs ? step - d->envs : 0;
    if (crossed(step, prev, OPT(TARGET).i)) rl_params_copy(&d->target, &d->q);
    if (step < (uint64_t)OPT(STARTS).i || !crossed(step, prev, OPT(TRAIN_FREQ).i) || rl_replay_size(&d->rb) == 0)
        return RL_OK;
    int rc = RL_OK;
    for (int64_t k = 0; k < OPT(GRAD_STEPS).i && rc == RL_OK; k++) rc = grad_step(d, step, err, errlen);
    return rc;
}

static size_t mini_metrics(void *p, rl_metric *out, size_t cap)
{
    mini_dqn *d = p;
    size_t n = rl_means_report(&d->means, out, cap);
    if (n < cap) out[n++] = (rl_metric){"epsilon", epsilon(d)};
    if (n < cap) out[n++] = (rl_metric){"grad_steps", (double)d->grad_steps};
    return n;
}

/* Everything the next step reads: both networks, Adam, both random streams, the gradient-step count,
   the metric sums and, with save_replay, the ring (the host keeps "replay/" tensors in a file of their
   own).  A load always asks for the ring: when it is absent the buffer starts empty and the host warns
   that the resume is close to, not identical with, an unbroken run.  An instance that only acts loads
   the Q network alone. */
static int mini_state(mini_dqn *d, const rl_state_io *io, int load, char *err, size_t errlen)
{
    if (!load) { /* readers without rlhost: Q values, greedy = their argmax */
        char ops[2048] = "";
        const char *names[1] = {"q"}, *opl[1] = {ops};
        if (rl_mlp_ops(&d->net, "q", ops, sizeof ops) != 0) {
            RL_ERRF(err, errlen, "the network is too large to describe");
            return RL_EINVAL;
        }
        int rc = rl_policy_meta(io, "mini_dqn", d->obs, NULL, 0, 1, names, opl, "{\"argmax\":\"q\"}", err, errlen);
        if (rc) return rc;
    }
    int rc = rl_params_state(&d->q, io, load, "", err, errlen);
    if (rc || rl_args_inference(&d->args)) return rc;
    if (!rc) rc = rl_params_state(&d->target, io, load, "target/", err, errlen);
    if (!rc) rc = rl_adam_state(&d->adam, &d->q, io, load, "adam/", err, errlen);
    if (!rc) rc = rl_rng_state(&d->explore, io, load, "mini_dqn/explore", err, errlen);
    if (!rc) rc = rl_rng_state(&d->sample, io, load, "mini_dqn/sample", err, errlen);
    if (!rc) rc = rl_count_state(&d->grad_steps, UINT64_MAX, io, load, "mini_dqn/grad_steps", err, errlen);
    if (!rc) rc = rl_means_state(&d->means, io, load, "mini_dqn/", err, errlen);
    if (rc || (!load && !OPT(SAVE_REPLAY).i)) return rc;
    rc = rl_replay_state(&d->rb, io, load, d->A, NULL, NULL, err, errlen);
    return rc == RL_ENOENT ? RL_OK : rc;
}

RL_ALGO_STATE_ONLY(state_ext, mini_state);

static const rl_algo_vtable vtable = {
    .struct_size = sizeof vtable,
    .create = mini_create,
    .destroy = mini_destroy,
    .act_batch = mini_act,
    .observe = mini_observe,
    .update = mini_update,
    .metrics = mini_metrics,
    .get_extension = state_ext_get_extension,
};

static const rl_plugin_desc desc = {
    .struct_size = sizeof desc,
    .kind = RL_KIND_ALGO,
    .name = "mini_dqn",
    .version = "1.0.0",
    .description = "deep Q-learning in one file, the SDK's off-policy example: replay, target network, epsilon",
    .options = options,
    .n_options = OPT_N,
    .vtable = &vtable,
};

RL_PLUGIN_DEFINE_SINGLE(desc);
