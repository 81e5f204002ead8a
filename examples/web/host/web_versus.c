/* The game page's searching player, in a build of a game of two seats
   taking turns (build.sh compiles it with -DWEB_VERSUS): a person plays
   one seat of env 0 of the page's env, and the run's policy, searched,
   plays the other.
   The search is rlhost's own: librlcore's tree search
   (core/rlcore/search/mcts.c) over the host's model of an env
   (core/runtime/search/model.c: a saved state restored into a scratch env
   the host's env_create.c opens, and stepped), all compiled in unchanged.
   Its leaves are valued as `rlhost eval RUN --search N` values them:
   librlcore's masked softmax of the policy's logits as the priors, its
   value head (times AlphaZero's value_scale) as the value; no root noise,
   and the most visited move is played (the lowest among equals). */
#include <stdio.h>
#include <stdlib.h>

#include <rlhost/dist.h>
#include <rlhost/search.h>

#include "plugin/host_api.h"
#include "policy.h"
#include "search/model.h"
#include "web_options.h" /* first: it says whether the build is a game page */
#include "web_host.h"

#if !defined(POLICY_HAS_VALUE) || !POLICY_HAS_VALUE
#error "the game page searches with the policy's value head, and this policy has none"
#endif

#define WEB_MAX_SIMULATIONS 100000

static rl__model *model;
static rl_search *search;
static uint32_t search_simulations;
static float search_c_puct;
static uint8_t *root;
static policy_state pst;
static float visits[POLICY_MASK_SIZE], last_rewards[2];
static char text[1 << 14];

/* The host's services as the host's own env creation
   (core/runtime/plugin/env_create.c, compiled in) hands them to the
   model's scratch env: the page's. */
const rl_host_api *rl__host_api(void)
{
    return web_site_of().host;
}

static uint32_t n_actions(void)
{
    return web_site_of().info->n_actions;
}

/* Agent g's observation row and mask in env 0. */
static const uint8_t *obs_of(uint32_t g)
{
    web_site w = web_site_of();
    return (const uint8_t *)w.io->obs + g * w.row_bytes;
}
static const uint8_t *mask_of(uint32_t g)
{
    return web_site_of().io->action_mask + g * n_actions();
}

/* The leaves' priors and values from the exported policy, one at a time. */
static int network(void *ctx, uint32_t count, const void *obs, const uint8_t *masks, float *priors, float *values,
                   char *err, size_t errlen)
{
    (void)ctx;
    const uint32_t A = n_actions();
    const size_t rb = web_site_of().row_bytes;
    for (uint32_t i = 0; i < count; i++) {
        const uint8_t *mk = masks + (size_t)i * A;
        float *p = priors + (size_t)i * A;
        int a;
        if (policy_act(&pst, (const unsigned char *)obs + i * rb, mk, &a) != 0) {
            snprintf(err, errlen, "the policy refused a leaf of the search");
            return RL_EINVAL;
        }
        rl_softmax_masked(p, policy_params(&pst), mk, 1, A);
        values[i] = policy_value(&pst) * (float)WEB_VALUE_SCALE;
    }
    return RL_OK;
}

/* The seat to move in env 0. */
int web_versus_mover(void)
{
    const uint8_t *to_move = web_site_of().io->to_move;
    for (int g = 0; g < 2; g++)
        if (to_move[g]) return g;
    return -1;
}

/* A new game in env 0 (it opens as the run's evaluations open). */
void web_versus_new(void)
{
    web_site w = web_site_of();
    w.vt->reset(w.env, w.io, 0, 1);
}

uint32_t web_versus_actions(void)
{
    return n_actions();
}

/* Whether the mover may play move a. */
int web_versus_legal(int32_t a)
{
    int g = web_versus_mover();
    return g >= 0 && a >= 0 && (uint32_t)a < n_actions() && mask_of((uint32_t)g)[a] != 0;
}

/* The mover plays a: 0 while the game goes on, 1 when it ended (env 0 then
   starts the next; web_versus_text(1) draws the last board), -1 for a move
   not allowed. */
int web_versus_play(int32_t a)
{
    if (!web_versus_legal(a)) return -1;
    web_site w = web_site_of();
    int g = web_versus_mover();
    w.actions[0] = w.actions[1] = 0;
    w.actions[g] = a;
    w.vt->step(w.env, w.io, 0, 1);
    last_rewards[0] = w.io->rewards[0], last_rewards[1] = w.io->rewards[1];
    return w.io->terminated[g] || w.io->truncated[g];
}

/* The last move's reward to seat g (the game's result once it ended). */
float web_versus_reward(uint32_t g)
{
    return g < 2 ? last_rewards[g] : 0.0f;
}

/* The move the searched policy plays for env 0's mover: `simulations`
   leaves with PUCT's c_puct; -1 with web_error() saying why. */
int32_t web_versus_search(uint32_t simulations, float c_puct)
{
    char err[RL_ERR_MAX] = "";
    web_site w = web_site_of();
    int g = web_versus_mover();
    if (g < 0 || simulations < 1 || simulations > WEB_MAX_SIMULATIONS || !(c_puct >= 0 && c_puct <= 100)) {
        web_say("a search needs a mover, 1 to 100000 simulations and c_puct from 0 to 100", NULL);
        return -1;
    }
    if (!model && rl__model_open(&model, w.desc, w.opts, w.stages, w.info, 1, err, sizeof err) != RL_OK) {
        web_say(err, NULL);
        return -1;
    }
    const rl_search_model *face = rl__model_search(model);
    if (!search || simulations != search_simulations || c_puct != search_c_puct) {
        rl_search_destroy(search);
        search = NULL;
        rl_search_config cfg = rl_search_defaults();
        cfg.simulations = simulations;
        cfg.c_puct = c_puct;
        if (rl_search_create(&cfg, face, 1, &search, err, sizeof err) != RL_OK) {
            web_say(err, NULL);
            return -1;
        }
        search_simulations = simulations, search_c_puct = c_puct;
    }
    if (!root && !(root = malloc(face->state_bytes))) {
        web_say("out of memory for the search's root", NULL);
        return -1;
    }
    const uint32_t board = 0, mover = (uint32_t)g, A = n_actions();
    const uint64_t seed = 1; /* the trees' streams: only rollouts and noise draw from them */
    if (rl__model_roots(model, w.vt, w.env, WEB_ENVS, &board, &mover, mask_of(mover), A, 1, root, err, sizeof err) !=
            RL_OK ||
        rl_search_run(search, 1, root, obs_of(mover), mask_of(mover), &seed, network, NULL, NULL, NULL, visits, NULL,
                      err, sizeof err) != RL_OK) {
        web_say(err, NULL);
        return -1;
    }
    return rl_search_pick(visits, A, 0.0f, NULL);
}

/* The last search's visit counts, web_versus_actions() of them. */
const float *web_versus_visits(void)
{
    return visits;
}

/* Env 0's board as its text render draws it; final: the board the last
   game ended on. */
const char *web_versus_text(int final)
{
    web_site w = web_site_of();
    const rl_env_render_ext *r = w.vt->get_extension ? w.vt->get_extension(w.env, RL_EXT_ENV_RENDER) : NULL;
    if (!r) return NULL;
    int n = final && RL_HAS_FIELD(r, rl_env_render_ext, render_final) && r->render_final
        ? r->render_final(w.env, 0, 0, text, sizeof text)
        : r->render(w.env, 0, 0, text, sizeof text);
    return n < 0 ? NULL : text;
}
