/* Making and freeing the atari env's games (atari.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rlhost/rlcore.h>

#include "atari.h"
#include "roms.h"

enum { ALE_NOOP = 0, ALE_FIRE = 1 };

void atari_destroy(void *env)
{
    atari *e = env;
    if (!e) return;
    for (uint32_t i = 0; e->games && i < e->n; i++) {
        atari_game *g = &e->games[i];
        if (g->ale) ale_shim_close(g->ale);
        free(g->raw0);
        free(g->raw1);
        free(g->frames);
        free(g->scratch);
    }
    area_plan_free(&e->plan);
    free(e->games);
    free(e);
}

/* Env i: seeded as Gymnasium's AtariEnv.seed_game(seed + i) seeds it. */
static int open_game(atari *e, uint32_t i, const char *rom, const rl_value *o, char *err, size_t errlen)
{
    atari_game *g = &e->games[i];
    uint32_t w[2];
    np_seed_sequence(e->seed + i, w, 2);
    np_pcg64_seed(&g->rng, w[0]);
    g->seed_words[0] = w[0], g->seed_words[1] = w[1];
    g->first = 1;
    ale_shim_opts ao = {.rom = rom,
                        .seed = (int32_t)w[1],
                        .sticky = (float)o[OPT_STICKY].f,
                        .max_frames = (int)o[OPT_MAX_FRAMES].i,
                        .mode = o[OPT_MODE].is_auto ? -1 : (int)o[OPT_MODE].i,
                        .difficulty = o[OPT_DIFFICULTY].is_auto ? -1 : (int)o[OPT_DIFFICULTY].i};
    g->ale = ale_shim_open(&ao, err, errlen);
    if (!g->ale) return RL_ECONFIG;
    g->raw0 = calloc(1, e->raw_bytes);
    g->raw1 = calloc(1, e->raw_bytes);
    g->frames = calloc(e->stack, e->frame_bytes);
    g->scratch = calloc(area_scratch_floats(&e->plan), sizeof(float));
    if (!g->raw0 || !g->raw1 || !g->frames || !g->scratch) {
        RL_ERRF(err, errlen, "out of memory for %u envs", e->n);
        return RL_ENOMEM;
    }
    return RL_OK;
}

static int action_set(atari *e, const rl_value *o, char *err, size_t errlen)
{
    e->n_actions = ale_shim_actions(e->games[0].ale, (int)o[OPT_FULL_ACTIONS].i, e->ids, ALE_SHIM_MAX_ACTIONS);
    if (e->n_actions < 1 || e->n_actions > ALE_SHIM_MAX_ACTIONS) {
        RL_ERRF(err, errlen, "game '%s': ALE reports %d actions", e->game, e->n_actions);
        return RL_ECONFIG;
    }
    if (e->noop_max > 0 && e->ids[0] != ALE_NOOP) {
        RL_ERRF(err, errlen, "game '%s': env.noop_max needs NOOP as the first action, and it is not", e->game);
        return RL_ECONFIG;
    }
    e->fire = -1;
    for (int k = 0; o[OPT_FIRE_RESET].i && k < e->n_actions; k++)
        if (e->ids[k] == ALE_FIRE) e->fire = ALE_FIRE;
    return RL_OK;
}

static void describe(const atari *e, const rl_value *o, rl_env_info *info)
{
    info->obs_dtype = RL_DTYPE_U8;
    info->obs_ndim = e->gray ? 3 : 4;
    info->obs_shape[0] = e->stack;
    info->obs_shape[1] = e->size;
    info->obs_shape[2] = e->size;
    info->obs_shape[3] = e->gray ? 0 : 3;
    info->obs_size = (uint32_t)e->obs_bytes;
    info->obs_scale = 1.0f / 255.0f;
    info->n_actions = (uint32_t)e->n_actions;
    info->score_name = "score";
    int64_t frames = o[OPT_MAX_FRAMES].i;
    rl_env_info_set_time_limit(info, frames ? (uint32_t)((frames + e->frame_skip - 1) / e->frame_skip) : 0);
}

int atari_create(const rl_env_args *args, void **out, rl_env_info *info, char *err, size_t errlen)
{
    const rl_value *o = args->options;
    char rom[4096];
    if (atari_rom_find(o[OPT_GAME].s, o[OPT_ROM].s, rom, sizeof rom, err, errlen)) return RL_ECONFIG;
    atari *e = calloc(1, sizeof *e);
    if (!e) {
        RL_ERRF(err, errlen, "out of memory");
        return RL_ENOMEM;
    }
    if (ale_shim_identify(rom, e->game, sizeof e->game, err, errlen)) {
        free(e);
        return RL_ECONFIG;
    }
    e->n = args->num_envs;
    e->seed = args->seed;
    e->stack = (uint32_t)o[OPT_FRAME_STACK].i;
    e->frame_skip = (uint32_t)o[OPT_FRAME_SKIP].i;
    e->size = (uint32_t)o[OPT_SCREEN_SIZE].i;
    e->gray = (uint32_t)o[OPT_GRAYSCALE].i;
    e->noop_max = (int)o[OPT_NOOP_MAX].i;
    e->episodic = (int)o[OPT_EPISODIC_LIFE].i;
    e->clip = (int)o[OPT_REWARD_CLIP].i;
    e->life_ends = (int)o[OPT_TERMINAL_ON_LIFE_LOSS].i;
    if (e->life_ends && e->episodic) {
        RL_ERRF(err, errlen,
                "env.terminal_on_life_loss (Gymnasium's: a new game after a lost life) and "
                "env.episodic_life (EnvPool's: the game goes on) are two answers to one question: "
                "choose one");
        free(e);
        return RL_ECONFIG;
    }
    e->raw_bytes = (size_t)ALE_SHIM_H * ALE_SHIM_W * (e->gray ? 1 : 3);
    e->frame_bytes = (size_t)e->size * e->size * (e->gray ? 1 : 3);
    e->obs_bytes = e->frame_bytes * e->stack;
    e->games = calloc(e->n, sizeof *e->games);
    int rc = e->games && !area_plan_init(&e->plan, ALE_SHIM_H, ALE_SHIM_W, e->size, e->size, e->gray ? 1 : 3)
        ? RL_OK
        : RL_ENOMEM;
    if (rc != RL_OK) RL_ERRF(err, errlen, "out of memory for %u envs", e->n);
    for (uint32_t i = 0; rc == RL_OK && i < e->n; i++) {
        if (rl_host_interrupted(args->host)) {
            RL_ERRF(err, errlen, "interrupted while loading %u games", e->n);
            rc = RL_EINTR;
        } else {
            rc = open_game(e, i, rom, o, err, errlen);
        }
    }
    if (rc == RL_OK) rc = action_set(e, o, err, errlen);
    if (rc != RL_OK) {
        atari_destroy(e);
        return rc;
    }
    describe(e, o, info);
    *out = e;
    return RL_OK;
}
