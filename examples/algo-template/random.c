/*
 * The template algorithm plugin: a uniform-random policy.
 *
 * Copy this folder to start a new algorithm.  It shows everything a plugin
 * needs and nothing more:
 *   - an option schema (the host validates the config against it and hands
 *     the plugin typed values in the same order: args->options[OPT_...]),
 *     written with the RL_OPTION_* macros;
 *   - an rl_algo_vtable: create / destroy / act_batch / observe / update /
 *     metrics; act_batch chooses the actions of every space the descriptor
 *     claims: discrete, box (RL_DESC_BOX), masked, MultiDiscrete and hybrid
 *     (RL_DESC_MASKS, RL_DESC_MULTI_DISCRETE, RL_DESC_HYBRID);
 *   - the rl.algo.state/1 capability: its state in checkpoints, so `rlhost
 *     eval` and `play` of its runs and `run --resume` work, loaded state
 *     checked before use;
 *   - the one exported symbol, made by RL_PLUGIN_DEFINE_SINGLE.
 * Build it out of tree with:
 *   cc -shared -fPIC -fvisibility=hidden $(pkg-config --cflags rlhost-plugin) \
 *      random.c -o random.so $(pkg-config --libs rlhost-plugin)
 * (the flags make an undefined symbol a link error and find librlcore at run
 * time) and install it into $(pkg-config --variable=plugindir rlhost-plugin).
 */
#include <stdlib.h>
#include <string.h>

#include <rlhost/dist.h> /* rl_uniform_masked */
#include <rlhost/plugin.h>
#include <rlhost/rlcore.h>

/* Options, in schema order; args->options[] follows the same order. */
enum { OPT_STICKY, OPT_N };

static const rl_option_def options[OPT_N] = {
    [OPT_STICKY] = RL_OPTION_FLOAT("sticky", "0.0", 0.0, 1.0,
                                   "probability of repeating the env's previous action instead of "
                                   "drawing a new one"),
};

typedef struct random_algo {
    uint32_t n_actions; /* discrete spaces */
    uint32_t comps;     /* ints per action: MultiDiscrete's or hybrid's components, else 1 */
    int discrete;       /* the action has ints (any space but a box) */
    uint32_t *nvec;     /* choices of each component: {n_actions} for Discrete */
    uint32_t dim;       /* box and hybrid spaces: floats per action (0 for discrete) */
    float *low, *high;  /* their bounds, [dim] */
    float sticky;
    uint32_t train, eval; /* rows: num_envs training envs, then num_eval_envs */
    rl_rng *rng;          /* one stream per row: results do not depend on batch order */
    int32_t *last;        /* each row's previous action (discrete), [rows][comps] */
    float *last_box;      /* each row's previous action (box), [rows][dim] */
    uint64_t acted;
} random_algo;

static void ra_destroy(void *algo)
{
    random_algo *a = algo;
    if (!a) return;
    free(a->rng);
    free(a->last);
    free(a->last_box);
    free(a->nvec);
    free(a->low);
    free(a->high);
    free(a);
}

static int ra_create(const rl_algo_args *args, void **out, char *err, size_t errlen)
{
    random_algo *a = calloc(1, sizeof *a);
    if (!a) {
        RL_ERRF(err, errlen, "out of memory");
        return RL_ENOMEM;
    }
    const rl_env_info *env = args->env;
    a->n_actions = env->n_actions;
    a->comps = rl_env_info_action_ints(env);
    a->sticky = (float)args->options[OPT_STICKY].f;
    a->train = args->num_envs;
    a->eval = args->num_eval_envs;
    size_t rows = (size_t)a->train + a->eval;
    a->rng = calloc(rows, sizeof *a->rng);
    a->last = calloc(rows * a->comps, sizeof *a->last);
    a->nvec = malloc(a->comps * sizeof *a->nvec);
    int ok = a->rng && a->last && a->nvec;
    uint32_t kind = rl_env_info_action_kind(env);
    a->discrete = kind != RL_SPACE_BOX;
    if (ok && (kind == RL_SPACE_MULTI_DISCRETE || kind == RL_SPACE_HYBRID))
        memcpy(a->nvec, env->action_nvec, a->comps * sizeof *a->nvec);
    else if (ok)
        a->nvec[0] = env->n_actions;
    if (ok && rl_env_info_action_floats(env)) { /* a box, or a hybrid action's: the host checked the bounds */
        a->dim = rl_env_info_action_floats(env);
        a->low = malloc(a->dim * sizeof *a->low);
        a->high = malloc(a->dim * sizeof *a->high);
        a->last_box = calloc(rows * a->dim, sizeof *a->last_box);
        ok = a->low && a->high && a->last_box;
        if (ok) memcpy(a->low, env->action_low, a->dim * sizeof *a->low);
        if (ok) memcpy(a->high, env->action_high, a->dim * sizeof *a->high);
    }
    if (!ok) {
        ra_destroy(a);
        RL_ERRF(err, errlen, "out of memory for %u envs", args->num_envs);
        return RL_ENOMEM;
    }
    /* training and evaluation draw from streams of their own: evaluating
       never changes what training does next */
    for (uint32_t i = 0; i < a->train; i++) rl_rng_seed(&a->rng[i], args->seed, 1000003u + i);
    for (uint32_t i = 0; i < a->eval; i++) rl_rng_seed(&a->rng[a->train + i], args->seed, 2000003u + i);
    *out = a;
    return RL_OK;
}

/* Discrete and MultiDiscrete actions, each component uniform among the
   choices the row's mask allows (masks NULL: all of them; the host checks
   that every row allows one).  A sticky row repeats its previous action
   when the mask still allows it. */
static void discrete_rows(random_algo *a, const rl_act_batch *b, uint32_t first)
{
    const uint8_t *masks = b->masks, *episode_start = b->episode_start;
    int32_t *actions = b->actions;
    uint32_t width = 0; /* of a mask row */
    for (uint32_t c = 0; c < a->comps; c++) width += a->nvec[c];
    for (uint32_t k = 0; k < b->count; k++) {
        uint32_t i = first + k;
        int32_t *last = a->last + (size_t)i * a->comps;
        const uint8_t *mask = masks ? masks + (size_t)k * width : NULL;
        int keep = !episode_start[k] && a->sticky > 0 && rl_rng_uniform(&a->rng[i]) < a->sticky;
        for (uint32_t c = 0; keep && mask && c < a->comps; mask += a->nvec[c++]) keep = mask[last[c]] != 0;
        mask = masks ? masks + (size_t)k * width : NULL;
        for (uint32_t c = 0; !keep && c < a->comps; mask = mask ? mask + a->nvec[c] : NULL, c++)
            last[c] = rl_uniform_masked(mask, a->nvec[c], &a->rng[i]);
        memcpy(actions + (size_t)k * a->comps, last, a->comps * sizeof *last);
    }
}

/* The same for a box: each dimension uniform in [low, high]. */
static void box_rows(random_algo *a, const rl_act_batch *b, uint32_t first)
{
    const uint8_t *episode_start = b->episode_start;
    float *actions = b->box_actions;
    for (uint32_t k = 0; k < b->count; k++) {
        uint32_t i = first + k;
        float *last = a->last_box + (size_t)i * a->dim;
        int keep = !episode_start[k] && a->sticky > 0 && rl_rng_uniform(&a->rng[i]) < a->sticky;
        for (uint32_t d = 0; !keep && d < a->dim; d++)
            last[d] = a->low[d] + (a->high[d] - a->low[d]) * (float)rl_rng_uniform(&a->rng[i]);
        memcpy(actions + (size_t)k * a->dim, last, a->dim * sizeof *last);
    }
}

/* One entry for every space: box_actions is set for a box, actions
   for discrete ones, both for a hybrid action.  Evaluation rows have RNG
   streams of their own, after the training rows'. */
static int ra_act(void *algo, const rl_act_batch *b, char *err, size_t errlen)
{
    random_algo *a = algo;
    int eval = b->mode == RL_MODE_EVAL;
    uint32_t first = eval ? a->train : 0, rows = eval ? a->eval : a->train;
    if (b->count > rows) {
        RL_ERRF(err, errlen, "act called for %u envs, created for %u", b->count, rows);
        return RL_EINVAL;
    }
    if (b->actions) discrete_rows(a, b, first);
    if (b->box_actions) box_rows(a, b, first);
    a->acted += b->count;
    return RL_OK;
}

static int ra_observe(void *algo, const rl_transition *t, char *err, size_t errlen)
{
    (void)algo;
    (void)t;
    (void)err;
    (void)errlen;
    return RL_OK; /* a random policy learns nothing */
}

static int ra_update(void *algo, uint64_t step, char *err, size_t errlen)
{
    (void)algo;
    (void)step;
    (void)err;
    (void)errlen;
    return RL_OK;
}

static size_t ra_metrics(void *algo, rl_metric *out, size_t cap)
{
    random_algo *a = algo;
    if (cap < 1) return 0;
    out[0].name = "actions";
    out[0].value = (double)a->acted;
    return 1;
}

/* rl.algo.state/1: the training rows' generators and last actions and the
   count, so a resumed run continues exactly; they depend on num_envs only,
   so `rlhost eval` with any number of episodes loads them.  A checkpoint is
   untrusted: every loaded value that indexes or drives anything is checked
   before use. */
static int ra_state(random_algo *a, const rl_state_io *io, int load, char *err, size_t errlen)
{
    int rc;
    if ((rc = rl_state_blob(io, load, "random/", "rng", a->rng, a->train * sizeof *a->rng, err, errlen)) ||
        (rc = rl_state_blob(io, load, "random/", "last", a->last, (size_t)a->train * a->comps * sizeof *a->last, err,
                            errlen)) ||
        (rc = rl_state_blob(io, load, "random/", "acted", &a->acted, sizeof a->acted, err, errlen)))
        return rc;
    size_t box = (size_t)a->train * a->dim;
    if (a->dim &&
        (rc = rl_state_blob(io, load, "random/", "last_box", a->last_box, box * sizeof *a->last_box, err, errlen)))
        return rc;
    if (!load) return RL_OK;
    for (uint32_t i = 0; i < a->train; i++)
        if ((rc = rl_state_check_rng("random/rng", &a->rng[i], err, errlen))) return rc;
    for (size_t k = 0; k < box; k++) /* a previous action repeats: it must be in the box */
        if ((rc = rl_state_check_f("random/last_box", a->last_box[k], a->low[k % a->dim], a->high[k % a->dim], err,
                                   errlen)))
            return rc;
    for (uint32_t i = 0; a->discrete && i < a->train; i++) /* each component in range: sticky rows repeat it */
        for (uint32_t c = 0; c < a->comps; c++)
            if ((rc = rl_state_check_i32s("random/last", &a->last[(size_t)i * a->comps + c], 1, 0,
                                          (int32_t)a->nvec[c] - 1, err, errlen)))
                return rc;
    return RL_OK;
}

/* The rl.algo.state/1 table: save and load both call ra_state. */
RL_ALGO_STATE_ONLY(state_ext, ra_state);

static const rl_algo_vtable vtable = {
    .struct_size = sizeof vtable,
    .create = ra_create,
    .destroy = ra_destroy,
    .observe = ra_observe,
    .update = ra_update,
    .metrics = ra_metrics,
    .get_extension = state_ext_get_extension,
    .act_batch = ra_act,
};

static const rl_plugin_desc desc = {
    .struct_size = sizeof desc,
    .kind = RL_KIND_ALGO,
    .name = "random",
    .version = "1.0.0",
    .description = "uniform-random policy (the template to copy for a new algorithm)",
    .options = options,
    .n_options = OPT_N,
    .vtable = &vtable,
    /* every action space, masked or not; any observation (it reads none) */
    .flags = RL_DESC_BOX | RL_DESC_MASKS | RL_DESC_MULTI_DISCRETE | RL_DESC_HYBRID | RL_DESC_OBS_PARTS,
};

/* The exported entry for a .so with this one descriptor.  A .so with
   several, or with work to do at load, uses RL_PLUGIN_DEFINE_ENTRY with its
   own init, deinit, count and get. */
RL_PLUGIN_DEFINE_SINGLE(desc);
