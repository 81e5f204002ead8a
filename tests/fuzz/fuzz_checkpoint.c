/* libFuzzer target: checkpoints loaded into the shipped plugins.  The
   first byte picks a run (snake PER-DQN, snake dueling DQN on the grid
   observation, T-maze recurrent PPO on gridworld, CartPole PPO with
   normalize_obs); the rest is a checkpoint, restored into a fresh
   algorithm and the run's envs exactly as a resume does, and then trained
   on for two steps, so whatever the loaders accept is also used. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checkpoint/safetensors.h"
#include "checkpoint/restore.h"
#include "plugin/config.h"
#include "run/eval.h"
#include "plugin/loader.h"
#include "env/vecenv.h"
#include "spaces/spaces.h"
#include "base/text.h"
#include "base/log.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

typedef struct target {
    const char *cfg;
    rl__override sets[12];
    rl__config c;
    rl__vecenv train, eval;
    uint32_t n_eval;
} target;

static target targets[] = {
    {.cfg = "snake_dqn.cfg",
     .sets = {{"algo.plugin", "per_dqn"},
              {"algo.hidden", "[16]"},
              {"algo.buffer_size", "64"},
              {"env.num_envs", "2"},
              {"run.eval_episodes", "2"},
              {"algo.batch_size", "8"},
              {"algo.learning_starts", "0"}}},
    {.cfg = "snake_dqn.cfg",
     .sets = {{"algo.plugin", "dueling_dqn"},
              {"env.observation", "grid"},
              {"algo.hidden", "[16]"},
              {"algo.buffer_size", "64"},
              {"env.num_envs", "2"},
              {"run.eval_episodes", "1"},
              {"env.width", "6"},
              {"env.height", "6"},
              {"algo.batch_size", "8"},
              {"algo.learning_starts", "0"}}},
    {.cfg = "tmaze_rppo.cfg",
     .sets = {{"algo.hidden", "[8]"},
              {"algo.lstm_hidden", "8"},
              {"env.num_envs", "2"},
              {"algo.n_steps", "8"},
              {"algo.batch_size", "8"},
              {"algo.bptt_horizon", "4"},
              {"run.eval_episodes", "2"}}},
    {.cfg = "cartpole_ppo.cfg",
     .sets = {{"algo.hidden", "[8]"},
              {"env.num_envs", "2"},
              {"algo.n_steps", "8"},
              {"algo.batch_size", "8"},
              {"algo.normalize_obs", "true"},
              {"run.eval_episodes", "2"}}},
};
#define N_TARGETS (sizeof targets / sizeof *targets)

static const rl_env_state_ext *state_ext(const rl__vecenv *v)
{
    const rl_env_state_ext *e = v->vt->get_extension ? v->vt->get_extension(v->env, RL_EXT_ENV_STATE) : NULL;
    return e && e->struct_size >= sizeof *e && e->load ? e : NULL;
}

/* The envs' part of a resume. */
static int load_envs(void *ctx, const rl_state_io *io, char *err, size_t errlen)
{
    target *t = ctx;
    const rl_env_state_ext *te = state_ext(&t->train), *ee = state_ext(&t->eval);
    int rc = te ? te->load(t->train.env, io, "env/", err, errlen) : RL_OK;
    if (rc == RL_OK && ee) rc = ee->load(t->eval.env, io, "eval_env/", err, errlen);
    return rc;
}

static void setup(void)
{
    static rl__registry reg;
    rl__log_set_level(RL_LOG_ERROR); /* config differences are warnings: thousands a second */
    rl__registry_discover(&reg, NULL, 0);
    for (size_t k = 0; k < N_TARGETS; k++) {
        target *t = &targets[k];
        char path[4096], err[RL_ERR_MAX];
        snprintf(path, sizeof path, "%s/configs/%s", RLHOST_SOURCE_ROOT, t->cfg);
        size_t n = 0;
        while (n < 12 && t->sets[n].key) n++;
        rl__sbuf errors = {0};
        if (rl__config_load(&t->c, path, t->sets, n, &reg, &errors) != RL_OK ||
            rl__vecenv_create(&t->train, t->c.env->desc, t->c.env_opts.vals, t->c.env_stages.vals,
                              (uint32_t)t->c.env_host.vals[RL__ENV_NUM_ENVS].i, 1, 1, 1, err, sizeof err) ||
            rl__vecenv_create(&t->eval, t->c.env->desc, t->c.env_opts.vals, t->c.env_stages.vals,
                              (uint32_t)t->c.run.vals[RL__RUN_EVAL_EPISODES].i, 2, 1, 1, err, sizeof err)) {
            fprintf(stderr, "fuzz_checkpoint: cannot set up %s: %s%s\n", t->cfg, errors.data ? errors.data : "", err);
            abort();
        }
        t->n_eval = (uint32_t)t->c.run.vals[RL__RUN_EVAL_EPISODES].i;
        rl__vecenv_reset(&t->train);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static int ready;
    if (!ready) {
        setup();
        ready = 1;
    }
    if (size < 1) return 0;
    target *t = &targets[data[0] % N_TARGETS];
    char perr[RL_ERR_MAX];
    void *algo = rl__algo_open(&t->c, &t->train.info, t->n_eval, 0, NULL, perr, sizeof perr); /* as a resume */
    if (!algo) abort();
    const rl_algo_vtable *avt = t->c.algo->desc->vtable;
    rl__restore r = {.path = "fuzz.safetensors", .host_load = load_envs, .host_ctx = t};
    char err[RL_ERR_MAX];
    if (rl__ckpt_restore_mem(data + 1, size - 1, &r, &t->c, algo, err, sizeof err) == RL_OK) {
        rl__vecenv *v = &t->train;
        rl_transition tr = {.struct_size = sizeof tr,
                            .count = v->n,
                            .actions = v->actions,
                            .rewards = v->rewards,
                            .final_obs = v->io.final_obs,
                            .terminated = v->terminated,
                            .truncated = v->truncated};
        for (int s = 0; s < 2; s++) {
            if (rl__space_act(&v->space, avt, algo, RL_MODE_TRAIN, v->io.obs, v->episode_start, v->io.action_mask,
                              v->actions, v->n, err, sizeof err) ||
                rl__vecenv_step(v, err, sizeof err))
                break;
            tr.obs = v->prev_obs;
            tr.next_obs = v->io.obs;
            if (avt->observe(algo, &tr, err, sizeof err) || avt->update(algo, 2 * v->n, err, sizeof err)) break;
        }
    }
    avt->destroy(algo);
    return 0;
}
