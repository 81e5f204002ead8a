/*
 * `alphazero`: a policy/value network trained on the host's tree search of
 * its own moves (see az.h).  act: the network's move probabilities and
 * values (the search's priors and leaf values) and its greedy move;
 * observe: each move into its game, each finished game into the replay;
 * update: the gradient steps due (replay_ratio) in az_train.c.  Files:
 * az.c -> az_train.c, az_state.c -> az_net.c; no arrow back.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "az.h"

static const rl_host_api *host;

static const char *const activations[] = {"relu", "tanh", NULL};
static const char *const nonfinite_choices[] = {"stop", "skip", NULL};
static const char *const lr_schedules[] = {"constant", "linear", NULL};
static const char *const networks[] = {"mlp", "resnet", NULL};

enum {
    OPT_HIDDEN,
    OPT_ACTIVATION,
    OPT_LR,
    OPT_LR_SCHEDULE,
    OPT_L2,
    OPT_VALUE_COEF,
    OPT_BATCH_SIZE,
    OPT_REPLAY_POSITIONS,
    OPT_REPLAY_RATIO,
    OPT_LEARNING_STARTS,
    OPT_MAX_GAME_MOVES,
    OPT_GAMMA,
    OPT_VALUE_SCALE,
    OPT_MAX_GRAD_NORM,
    OPT_DET_EVAL,
    OPT_ON_NONFINITE,
    OPT_SYMMETRIES,
    OPT_ROOT_WEIGHT,
    OPT_NETWORK,
    OPT_CHANNELS,
    OPT_BLOCKS,
    OPT_N
};

enum { ST_BLAS_THREADS, ST_N };

static const rl_option_def options[OPT_N] = {
    [OPT_HIDDEN] =
        RL_OPTION_INT_LIST("hidden", "[256, 256]", 1, 65536, "widths of the trunk the policy and value heads share"),
    [OPT_ACTIVATION] = RL_OPTION_ENUM("activation", "relu", activations, "hidden activation: relu or tanh"),
    [OPT_LR] = RL_OPTION_FLOAT("lr", "1e-3", 0, 1, "Adam learning rate"),
    [OPT_LR_SCHEDULE] =
        RL_OPTION_ENUM("lr_schedule", "constant", lr_schedules, "constant, or linear decay to 0 over the run"),
    [OPT_L2] = RL_OPTION_FLOAT("l2", "1e-4", 0, 1, "L2 penalty c ||w||^2 on every parameter, added to the loss"),
    [OPT_VALUE_COEF] = RL_OPTION_FLOAT("value_coef", "1.0", 0, 1e6, "weight of the value loss beside the policy's"),
    [OPT_BATCH_SIZE] = RL_OPTION_INT("batch_size", "256", 1, 65536, "positions per gradient step"),
    [OPT_REPLAY_POSITIONS] = RL_OPTION_INT("replay_positions", "100000", 1, 1e8,
                                           "the window of recent positions trained on; the oldest leave first"),
    [OPT_REPLAY_RATIO] = RL_OPTION_FLOAT("replay_ratio", "8", 0, 1e4,
                                         "positions trained on (drawn from the window) per position played"),
    [OPT_LEARNING_STARTS] =
        RL_OPTION_INT("learning_starts", "1000", 0, 1e15, "positions in the window before the first gradient step"),
    [OPT_MAX_GAME_MOVES] = RL_OPTION_INT("max_game_moves", "1000", 1, 1e6,
                                         "the longest game kept whole until it ends (its moves wait for the result)"),
    [OPT_GAMMA] = RL_OPTION_FLOAT("gamma", "1.0", 0, 1, "discount of rewards within a game (1 for board games)"),
    [OPT_VALUE_SCALE] = RL_OPTION_FLOAT("value_scale", "1.0", 1e-6, 1e9,
                                        "returns are divided by it (and clipped to [-1, 1]) as the value head's "
                                        "targets; 1 for a game's result"),
    [OPT_MAX_GRAD_NORM] =
        RL_OPTION_FLOAT("max_grad_norm", "0.0", 0, 1e9, "clip the gradients to this global norm (0 = off)"),
    [OPT_DET_EVAL] = RL_OPTION_BOOL("deterministic_eval", "true",
                                    "evaluation plays the most probable move (else samples the network's policy)"),
    [OPT_ON_NONFINITE] = RL_OPTION_ENUM("on_nonfinite", "stop", nonfinite_choices,
                                        "a NaN/inf loss or gradient: stop the run (the last good checkpoint stays) or "
                                        "skip that batch"),
    [OPT_SYMMETRIES] = RL_OPTION_BOOL("symmetries", "true",
                                      "train on each position seen through one of the game's symmetries (its mirror "
                                      "image), drawn at random, where the env declares them"),
    /* added after the first checkpoints, each at a default that does what
       alphazero did before it: such a checkpoint reads as written with it */
    [OPT_ROOT_WEIGHT] = RL_OPTION_FLOAT_F("root_value_weight", "0.0", 0, 1, RL_OPT_ADDED,
                                          "each move's value target: (1 - w) times its game's return plus w times the "
                                          "search's mean value at its root (0: the return alone)"),
    [OPT_NETWORK] = RL_OPTION_ENUM_F("network", "mlp", networks, RL_OPT_ADDED,
                                     "mlp: the observation flattened into the trunk; resnet: a residual tower of 3x3 "
                                     "convs (channels, blocks) over an image observation first"),
    [OPT_CHANNELS] = RL_OPTION_INT_F("channels", "64", 1, 1024, RL_OPT_ADDED, "resnet: the tower's channels"),
    [OPT_BLOCKS] = RL_OPTION_INT_F("blocks", "2", 0, RL_RESNET_MAX_BLOCKS, RL_OPT_ADDED,
                                   "resnet: residual blocks (two convs and a skip each) after the stem conv"),
};

static const rl_option_def stages[ST_N] = {
    [ST_BLAS_THREADS] = RL_OPTION_INT_F("blas_threads", "1", 1, 1024, RL_OPT_AUTO,
                                        "OpenBLAS threads for the network; auto = all cores"),
};

static void az_destroy(void *p_)
{
    az *p = p_;
    if (!p) return;
    for (uint32_t w = 1; p->actors && w < p->workers; w++) {
        az_actor *a = &p->actors[w - 1];
        az_layers_destroy(&a->nn);
        rl_free(a->x);
        rl_free(a->v);
        rl_free(a->p);
    }
    free(p->actors);
    az_layers_destroy(&p->nn);
    rl_free(p->packed);
    rl_params_free(&p->net);
    rl_adam_destroy(&p->adam);
    void *bufs[] = {p->rb.obs,   p->rb.mask,      p->rb.pi,      p->rb.z,         p->games.obs,     p->games.mask,
                    p->games.pi, p->games.reward, p->games.root, p->games.same,   p->games.len,     p->x,
                    p->dlogits,  p->dvalue,       p->act_x,      p->act_v,        p->act_p,         p->bmask,
                    p->bpi,      p->bz,           p->xraw,       p->sym.obs_from, p->sym.action_to, p->dfeat};
    for (size_t k = 0; k < sizeof bufs / sizeof *bufs; k++) rl_free(bufs[k]);
    rl_obs_layout_free(&p->obs);
    free(p);
}

static void read_options(az *p, const rl_algo_args *args)
{
    const rl_value *o = args->options;
    az_settings *c = &p->cfg;
    c->obs_size = rl_obs_input_width(args->env);
    c->n_actions = args->env->n_actions;
    c->row_bytes = rl_obs_row_bytes(args->env);
    c->num_envs = args->num_envs;
    c->rows = args->num_envs > args->num_eval_envs ? args->num_envs : args->num_eval_envs;
    c->batch = (uint32_t)o[OPT_BATCH_SIZE].i;
    c->replay_cap = (uint32_t)o[OPT_REPLAY_POSITIONS].i;
    c->max_game = (uint32_t)o[OPT_MAX_GAME_MOVES].i;
    c->learning_starts = (uint64_t)o[OPT_LEARNING_STARTS].i;
    c->replay_ratio = o[OPT_REPLAY_RATIO].f;
    c->lr = (float)o[OPT_LR].f;
    c->lr_linear = o[OPT_LR_SCHEDULE].i == 1;
    c->total_steps = args->total_steps;
    c->l2 = (float)o[OPT_L2].f;
    c->value_coef = (float)o[OPT_VALUE_COEF].f;
    c->gamma = (float)o[OPT_GAMMA].f;
    c->value_scale = (float)o[OPT_VALUE_SCALE].f;
    c->max_grad_norm = (float)o[OPT_MAX_GRAD_NORM].f;
    c->root_weight = (float)o[OPT_ROOT_WEIGHT].f;
    c->det_eval = (int)o[OPT_DET_EVAL].i;
    c->skip_nonfinite = o[OPT_ON_NONFINITE].i == 1;
    c->act = o[OPT_ACTIVATION].i == 1 ? RL_ACT_TANH : RL_ACT_RELU;
    c->resnet = o[OPT_NETWORK].i == 1;
    c->channels = (uint32_t)o[OPT_CHANNELS].i;
    c->blocks = (uint32_t)o[OPT_BLOCKS].i;
    if (c->resnet) rl_obs_image_shape(args->env, &c->img_c, &c->img_h, &c->img_w); /* validate() checked it is one */
    c->inference = rl_args_inference(args);
    p->workers = rl_args_act_workers(args);
    const rl_value *st = &args->stages[ST_BLAS_THREADS];
    rl_blas_set_threads(st->is_auto ? (int)host->cpu_count() : (int)st->i);
}

static int validate(const rl_algo_args *args, char *err, size_t errlen)
{
    const rl_value *o = args->options;
    if (rl_env_info_action_kind(args->env) != RL_SPACE_DISCRETE) { /* the host refuses the pair first */
        RL_ERRF(err, errlen, "needs discrete actions: a search picks one move of n");
        return RL_EINVAL;
    }
    if (o[OPT_HIDDEN].n < 1 || o[OPT_HIDDEN].n > RL_MLP_MAX_LAYERS - 1) {
        RL_ERRF(err, errlen, "hidden needs 1 to %d layers", RL_MLP_MAX_LAYERS - 1);
        return RL_EINVAL;
    }
    const rl_env_info *env = args->env;
    uint32_t c, h, w;
    if (o[OPT_NETWORK].i == 1 && (!rl_obs_image_shape(env, &c, &h, &w) || rl_obs_input_width(env) != env->obs_size)) {
        RL_ERRF(err, errlen,
                "network = \"resnet\" needs an image observation ([C][H][W] or [H][W], one value per input); "
                "the env's has %u dimension%s and %u network inputs",
                env->obs_ndim, env->obs_ndim == 1 ? "" : "s", rl_obs_input_width(env));
        return RL_EINVAL;
    }
    return RL_OK;
}

#define ALLOC(ptr, n, type) ((ptr) = rl_calloc_aligned((size_t)(n), sizeof(type)))

/* The replay and games (training only) and the workspaces. */
static int alloc_buffers(az *p)
{
    const az_settings *c = &p->cfg;
    size_t A = c->n_actions, D = c->obs_size, W = c->row_bytes, B = c->batch, R = c->rows;
    if (!ALLOC(p->act_x, R * D, float) || !ALLOC(p->act_v, R, float) || !ALLOC(p->act_p, R * A, float))
        return RL_ENOMEM;
    for (uint32_t w = 1; w < p->workers; w++) {
        az_actor *a = &p->actors[w - 1];
        if (!ALLOC(a->x, R * D, float) || !ALLOC(a->v, R, float) || !ALLOC(a->p, R * A, float)) return RL_ENOMEM;
    }
    if (c->inference) return RL_OK;
    size_t cap = c->replay_cap, G = (size_t)c->num_envs * c->max_game;
    if (!ALLOC(p->rb.obs, cap * W, uint8_t) || !ALLOC(p->rb.mask, cap * A, uint8_t) ||
        !ALLOC(p->rb.pi, cap * A, float) || !ALLOC(p->rb.z, cap, float) || !ALLOC(p->games.obs, G * W, uint8_t) ||
        !ALLOC(p->games.mask, G * A, uint8_t) || !ALLOC(p->games.pi, G * A, float) ||
        !ALLOC(p->games.reward, G, float) || !ALLOC(p->games.same, G, uint8_t) ||
        !ALLOC(p->games.len, c->num_envs, uint32_t) || !ALLOC(p->x, B * D, float) || !ALLOC(p->dlogits, B * A, float) ||
        (c->root_weight > 0 && !ALLOC(p->games.root, G, float)) || !ALLOC(p->dvalue, B, float) ||
        !ALLOC(p->bmask, B * A, uint8_t) || !ALLOC(p->bpi, B * A, float) || !ALLOC(p->bz, B, float) ||
        !ALLOC(p->xraw, B * W, uint8_t))
        return RL_ENOMEM;
    return RL_OK;
}

/* The bytes the replay and the games in progress take. */
static uint64_t training_bytes(const az_settings *c)
{
    uint64_t A = c->n_actions, W = c->row_bytes, per = W + A + 4 * A + 4;
    return (uint64_t)c->replay_cap * per + (uint64_t)c->num_envs * c->max_game * (per + 1 + 4 * (c->root_weight > 0));
}

/* The bytes a residual tower's activations take: every conv's output for
   the largest batch, and for each other act worker's rows. */
static uint64_t tower_bytes(const az_settings *c, uint32_t workers)
{
    uint64_t layer = (uint64_t)c->channels * c->img_h * c->img_w * 4 * (1 + 2 * (uint64_t)c->blocks);
    uint64_t rows = (c->batch > c->rows ? c->batch : c->rows) + (uint64_t)(workers - 1) * c->rows;
    return layer * rows + (c->inference ? 0 : (uint64_t)c->batch * c->channels * c->img_h * c->img_w * 4);
}

/* The env's symmetries (the host's checked copy) into p->sym, for the
   training's minibatches. */
static int copy_symmetries(az *p, const rl_env_info *env)
{
    const az_settings *c = &p->cfg;
    const rl_symmetry *sym;
    uint32_t n = rl_env_info_symmetries(env, &sym);
    if (!n || c->inference) return RL_OK;
    size_t W = c->row_bytes, A = c->n_actions;
    if (!ALLOC(p->sym.obs_from, n * W, uint32_t) || !ALLOC(p->sym.action_to, n * A, uint32_t)) return RL_ENOMEM;
    for (uint32_t k = 0; k < n; k++) {
        memcpy(p->sym.obs_from + k * W, sym[k].obs_from, W * sizeof(uint32_t));
        memcpy(p->sym.action_to + k * A, sym[k].action_to, A * sizeof(uint32_t));
    }
    p->sym.n = n;
    return RL_OK;
}

static int az_create(const rl_algo_args *args, void **out, char *err, size_t errlen)
{
    az *p = calloc(1, sizeof *p);
    if (!p) {
        RL_ERRF(err, errlen, "out of memory");
        return RL_ENOMEM;
    }
    int rc = validate(args, err, errlen);
    if (rc) goto fail;
    read_options(p, args);
    if ((rc = rl_obs_layout_copy(&p->obs, args->env))) {
        RL_ERRF(err, errlen, "%s copying the observation's layout", rl_strerror(rc));
        goto fail;
    }
    if (!p->cfg.inference &&
        rl_mem_check(training_bytes(&p->cfg), "the replay and the games in progress", err, errlen)) {
        rc = RL_EINVAL;
        goto fail;
    }
    if (p->cfg.resnet && rl_mem_check(tower_bytes(&p->cfg, p->workers), "the residual tower", err, errlen)) {
        rc = RL_EINVAL;
        goto fail;
    }
    const rl_value *h = &args->options[OPT_HIDDEN];
    uint32_t hidden[RL_MLP_MAX_LAYERS];
    for (uint32_t k = 0; k < h->n; k++) hidden[k] = (uint32_t)h->ilist[k];
    if (p->workers > 1 && !(p->actors = calloc(p->workers - 1, sizeof *p->actors))) rc = RL_ENOMEM;
    if (rc) {
        RL_ERRF(err, errlen, "out of memory");
        goto fail;
    }
    if ((rc = az_network(p, hidden, (uint32_t)h->n, args->seed, err, errlen))) goto fail;
    rc = rl_adam_create(&p->adam, p->net.n, 0.9f, 0.999f, 1e-8f, 0.0f);
    if (!rc) rc = alloc_buffers(p);
    if (rc) {
        RL_ERRF(err, errlen, "%s while building the network and a window of %u positions", rl_strerror(rc),
                p->cfg.replay_cap);
        goto fail;
    }
    if (args->options[OPT_SYMMETRIES].i && (rc = copy_symmetries(p, args->env))) {
        RL_ERRF(err, errlen, "out of memory copying the env's symmetries");
        goto fail;
    }
    rl_rng_seed(&p->sample, args->seed, 0xA25A);
    rl_rng_seed(&p->explore, args->seed, 0xA2E7);
    for (uint32_t w = 1; w < p->workers; w++) rl_rng_seed(&p->actors[w - 1].rng, args->seed, 0xA2E7 + w);
    *out = p;
    return RL_OK;
fail:
    az_destroy(p);
    return rc;
}

static int az_act(void *p_, const rl_act_batch *b, char *err, size_t errlen)
{
    az *p = p_;
    const az_settings *c = &p->cfg;
    uint32_t A = c->n_actions, count = b->count;
    if (count > c->rows) {
        RL_ERRF(err, errlen, "act for %u rows; created for %u", count, c->rows);
        return RL_EINVAL;
    }
    int has = RL_HAS_FIELD(b, rl_act_batch, values);
    uint32_t w = RL_HAS_FIELD(b, rl_act_batch, worker) ? b->worker : 0;
    if (w >= p->workers) {
        RL_ERRF(err, errlen, "act on worker %u; created for %u", w, p->workers);
        return RL_EINVAL;
    }
    /* worker w's own workspace and draws: calls on two workers share no
       buffer they write */
    az_actor *own = w ? &p->actors[w - 1] : NULL;
    az_layers *nn = own ? &own->nn : &p->nn;
    rl_rng *rng = own ? &own->rng : &p->explore;
    float *x = own ? own->x : p->act_x;
    float *probs = has && b->probs ? b->probs : own ? own->p : p->act_p;
    float *values = has && b->values ? b->values : own ? own->v : p->act_v;
    rl_obs_input(&p->obs.info, b->obs, count, x);
    /* A search's batch of leaves goes through the packed weights, a move
       through the row-by-row kernel (an exported network gives the same):
       either way a row's values do not depend on the rows beside it. */
    const float *logits;
    az_forward(p, nn, x, count, !(has && b->probs), &logits, values);
    int greedy = b->mode == RL_MODE_EVAL && c->det_eval;
    rl_softmax_masked(probs, logits, b->masks, count, A);
    for (uint32_t i = 0; i < count; i++) {
        const float *pr = probs + (size_t)i * A;
        int32_t best = 0;
        if (greedy) { /* the exported network's rule: the first largest allowed logit */
            best = rl_argmax_masked(logits + (size_t)i * A, b->masks ? b->masks + (size_t)i * A : NULL, A);
        } else { /* a draw from the policy; the last allowed move where rounding leaves a sliver */
            float u = rl_rng_uniform(rng), acc = 0;
            best = -1;
            for (uint32_t a = 0; a < A && best < 0; a++) {
                acc += pr[a];
                if (pr[a] > 0 && u < acc) best = (int32_t)a;
            }
            for (uint32_t a = A; best < 0 && a-- > 0;)
                if (pr[a] > 0) best = (int32_t)a;
            if (best < 0) best = 0;
        }
        b->actions[i] = best;
    }
    return RL_OK;
}

static float clip1(float v)
{
    return v < -1.0f ? -1.0f : v > 1.0f ? 1.0f : v;
}

/* Game g ended: its moves' targets, the return from each mover's side,
   and the moves into the replay. */
static void finish_game(az *p, uint32_t g)
{
    const az_settings *c = &p->cfg;
    az_games *gm = &p->games;
    size_t A = c->n_actions, W = c->row_bytes, base = (size_t)g * c->max_game;
    uint32_t n = gm->len[g];
    double G = 0;
    for (uint32_t k = n; k-- > 0;) { /* the returns, backwards, into the rewards' places */
        size_t at = base + k;
        if (k + 1 < n) G = gm->same[at] ? c->gamma * G : -c->gamma * G;
        G += gm->reward[at];
        float z = clip1((float)(G / c->value_scale));
        if (gm->root) /* the root's value, in the network's units, as a target */
            z = (1.0f - c->root_weight) * z + c->root_weight * clip1(gm->root[at] / c->value_scale);
        gm->reward[at] = z;
    }
    for (uint32_t k = 0; k < n; k++) {
        size_t at = base + k, slot = p->rb.added % c->replay_cap;
        memcpy(p->rb.obs + slot * W, gm->obs + at * W, W);
        memcpy(p->rb.mask + slot * A, gm->mask + at * A, A);
        memcpy(p->rb.pi + slot * A, gm->pi + at * A, A * sizeof(float));
        p->rb.z[slot] = gm->reward[at];
        p->rb.added++;
    }
    p->m.game_len += n;
    p->m.games++;
    gm->len[g] = 0;
}

static int az_observe(void *p_, const rl_transition *t, char *err, size_t errlen)
{
    az *p = p_;
    const az_settings *c = &p->cfg;
    if (c->inference) {
        RL_ERRF(err, errlen, "this instance was made for inference (rl_algo_args.inference): it cannot train");
        return RL_EINVAL;
    }
    if (!RL_HAS_FIELD(t, rl_transition, same_mover) || !t->search_policy || !t->same_mover) {
        RL_ERRF(err, errlen, "alphazero trains on the host's searches of its moves, and this host gave none");
        return RL_EINVAL;
    }
    size_t A = c->n_actions, W = c->row_bytes;
    az_games *gm = &p->games;
    if (gm->root && !(RL_HAS_FIELD(t, rl_transition, search_value) && t->search_value)) {
        RL_ERRF(err, errlen, "root_value_weight needs the search's root values, and this host gave none");
        return RL_EINVAL;
    }
    for (uint32_t i = 0; i < t->count; i++) {
        if (gm->len[i] >= c->max_game) {
            RL_ERRF(err, errlen, "a game of env %u ran past max_game_moves (%u) without ending: raise it", i,
                    c->max_game);
            return RL_EINVAL;
        }
        size_t at = (size_t)i * c->max_game + gm->len[i]++;
        memcpy(gm->obs + at * W, (const uint8_t *)t->obs + i * W, W);
        if (t->masks)
            memcpy(gm->mask + at * A, t->masks + i * A, A);
        else
            memset(gm->mask + at * A, 1, A);
        memcpy(gm->pi + at * A, t->search_policy + i * A, A * sizeof(float));
        gm->reward[at] = t->rewards[i];
        gm->same[at] = t->same_mover[i] != 0;
        if (gm->root) gm->root[at] = t->search_value[i];
        if (t->terminated[i] || t->truncated[i]) finish_game(p, i);
    }
    return RL_OK;
}

static int az_update(void *p_, uint64_t step, char *err, size_t errlen)
{
    az *p = p_;
    const az_settings *c = &p->cfg;
    p->progress = c->total_steps ? (double)step / (double)c->total_steps : 1.0;
    if (p->rb.added < c->learning_starts || !p->rb.added) return RL_OK;
    p->ratio_acc += c->replay_ratio * c->num_envs / c->batch;
    uint64_t n = (uint64_t)p->ratio_acc;
    p->ratio_acc -= (double)n;
    if (!n) return RL_OK;
    int rc = az_train(p, n, err, errlen);
    az_pack(p);
    return rc;
}

static size_t az_metrics(void *p_, rl_metric *out, size_t cap)
{
    az *p = p_;
    double n = p->m.n ? (double)p->m.n : NAN, g = p->m.games ? (double)p->m.games : NAN;
    uint64_t held = p->rb.added < p->cfg.replay_cap ? p->rb.added : p->cfg.replay_cap;
    rl_metric m[8] = {
        {"policy_loss", p->m.policy_loss / n}, {"value_loss", p->m.value_loss / n},
        {"policy_entropy", p->m.entropy / n},  {"l2_loss", p->m.l2 / n},
        {"game_length", p->m.game_len / g},    {"replay_positions", (double)held},
        {"grad_steps", (double)p->grad_steps}, {"skipped_batches", (double)p->skipped},
    };
    size_t k = cap < 8 ? cap : 8;
    memcpy(out, m, k * sizeof *m);
    memset(&p->m, 0, sizeof p->m);
    return k;
}

RL_ALGO_STATE_ONLY(state_ext, az_state);

static const rl_algo_vtable vtable = {
    .struct_size = sizeof vtable,
    .create = az_create,
    .destroy = az_destroy,
    .observe = az_observe,
    .update = az_update,
    .metrics = az_metrics,
    .get_extension = state_ext_get_extension,
    .act_batch = az_act,
};

static const char tune_space[] = "lr = { log_uniform = [1e-4, 3e-3]; };\n"
                                 "l2 = { log_uniform = [1e-6, 1e-3]; };\n"
                                 "replay_ratio = { choice = [2, 4, 8, 16]; };\n"
                                 "hidden = { choice = ([128, 128], [256, 256], [512, 512]); };\n";

static const rl_plugin_desc descs[] = {{
    .struct_size = sizeof(rl_plugin_desc),
    .kind = RL_KIND_ALGO,
    .name = "alphazero",
    .version = "1.0.0",
    .description = "AlphaZero: a policy/value network trained on the tree search of its own self-play moves",
    .options = options,
    .n_options = OPT_N,
    .stages = stages,
    .n_stages = ST_N,
    .vtable = &vtable,
    .flags = RL_DESC_MASKS | RL_DESC_OBS_PARTS | RL_DESC_VALUES | RL_DESC_SEARCHED | RL_DESC_ACT_WORKERS,
    .tune_space = tune_space,
}};

RL_PLUGIN_DEFINE_ARRAY(descs, &host);
