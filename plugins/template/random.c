/*
 * The template algorithm plugin: a uniform-random policy.
 *
 * Copy this folder to start a new algorithm.  It shows everything a plugin
 * needs and nothing more:
 *   - an option schema (the host validates the config against it and hands
 *     the plugin typed values in the same order: args->options[OPT_...]);
 *   - an rl_algo_vtable: create / destroy / act / observe / update / metrics;
 *   - the one exported symbol, made by RL_PLUGIN_DEFINE_ENTRY.
 * Build it out of tree with:
 *   cc -shared -fPIC -fvisibility=hidden $(pkg-config --cflags rlhost-plugin) \
 *      random.c -o random.so $(pkg-config --libs rlhost-plugin)
 * and install it into $(pkg-config --variable=plugindir rlhost-plugin).
 */
#include <stdlib.h>
#include <string.h>

#include <rlhost/plugin.h>
#include <rlhost/rlcore.h>

/* Options, in schema order; args->options[] follows the same order. */
enum { OPT_STICKY, OPT_N };

static const rl_option_def options[OPT_N] = {
    [OPT_STICKY] = {sizeof(rl_option_def), RL_OPT_FLOAT, "sticky",
                    "probability of repeating the env's previous action instead of drawing "
                    "a new one",
                    "0.0", 0.0, 1.0, NULL, 0},
};

typedef struct random_algo {
    uint32_t n_actions;
    float sticky;
    uint32_t rows; /* max(num_envs, num_eval_envs) */
    rl_rng *rng;   /* one stream per env row: results do not depend on batch order */
    int32_t *last;
    uint64_t acted;
} random_algo;

static int ra_create(const rl_algo_args *args, void **out, char *err, size_t errlen)
{
    random_algo *a = calloc(1, sizeof *a);
    if (!a) {
        RL_ERRF(err, errlen, "out of memory");
        return RL_ENOMEM;
    }
    a->n_actions = args->env->n_actions;
    a->sticky = (float)args->options[OPT_STICKY].f;
    a->rows = args->num_envs > args->num_eval_envs ? args->num_envs : args->num_eval_envs;
    a->rng = calloc(a->rows, sizeof *a->rng);
    a->last = calloc(a->rows, sizeof *a->last);
    if (!a->rng || !a->last) {
        free(a->rng);
        free(a->last);
        free(a);
        RL_ERRF(err, errlen, "out of memory for %u envs", args->num_envs);
        return RL_ENOMEM;
    }
    for (uint32_t i = 0; i < a->rows; i++) rl_rng_seed(&a->rng[i], args->seed, 1000003u + i);
    *out = a;
    return RL_OK;
}

static void ra_destroy(void *algo)
{
    random_algo *a = algo;
    if (!a) return;
    free(a->rng);
    free(a->last);
    free(a);
}

static int ra_act(void *algo, rl_act_mode mode, const void *obs, const uint8_t *episode_start,
                  int32_t *actions, uint32_t count, char *err, size_t errlen)
{
    random_algo *a = algo;
    (void)mode;
    (void)obs;
    if (count > a->rows) {
        RL_ERRF(err, errlen, "act called for %u envs, created for %u", count, a->rows);
        return RL_EINVAL;
    }
    for (uint32_t i = 0; i < count; i++) {
        int keep = !episode_start[i] && a->sticky > 0 && rl_rng_uniform(&a->rng[i]) < a->sticky;
        if (!keep) a->last[i] = (int32_t)rl_rng_below(&a->rng[i], a->n_actions);
        actions[i] = a->last[i];
    }
    a->acted += count;
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

static const rl_algo_vtable vtable = {
    sizeof vtable, ra_create, ra_destroy, ra_act, ra_observe, ra_update, ra_metrics, NULL,
};

static const rl_plugin_desc desc = {
    sizeof desc, RL_KIND_ALGO, "random", "1.0.0",
    "uniform-random policy (the template to copy for a new algorithm)",
    options, OPT_N, NULL, 0, &vtable, 0,
};

static int plugin_init(const rl_host_api *host, char *err, size_t errlen)
{
    (void)host;
    (void)err;
    (void)errlen;
    return RL_OK;
}

static uint32_t plugin_count(void)
{
    return 1;
}

static const rl_plugin_desc *plugin_get(uint32_t i)
{
    return i == 0 ? &desc : NULL;
}

RL_PLUGIN_DEFINE_ENTRY(plugin_init, NULL, plugin_count, plugin_get);
