/* A game's symmetries (ABI 1.13, rl_env_info.symmetries): every env that
   declares them plays the same random games in each image alike (the
   observations, masks, rewards, ends and movers of a game and of its image
   under each symmetry agree), and the host refuses tables that are not
   symmetries, each with a sentence, before anything reads them. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rlhost/rlcore.h>
#include <rlhost/search.h>

#include "../tap.h"
#include "base/text.h"
#include "env/vecenv.h"
#include "plugin/config.h"
#include "plugin/host_api.h"
#include "spaces/symmetry.h"

static rl__registry reg;

/* Envs whose first state is its own image under each symmetry (an empty
   board), so a game from it and its image start alike. */
static const char *const cases[] = {
    "plugin = \"connect_four\"; random_opening = 0;",
    "plugin = \"tictactoe\";",
};

static int resolve(rl__config *c, const char *opts)
{
    char text[512];
    snprintf(text, sizeof text, "env: { %s num_envs = 2; };", opts);
    rl__sbuf e = {0};
    int rc = rl__config_load_text(c, "test", text, NULL, 0, &reg, &e, 0);
    if (rc != RL_OK) printf("# %s", e.data);
    rl__sbuf_free(&e);
    return rc;
}

/* Row r of board 1 is row r of board 0 seen through sym: observation,
   mask, and (when done) the final observation. */
static int images(const rl__vecenv *v, const rl_symmetry *sym, const void *obs, const uint8_t *mask)
{
    size_t W = v->row_bytes, A = v->info.n_actions;
    uint32_t K = v->agents;
    for (uint32_t r = 0; r < K; r++) {
        const uint8_t *o0 = (const uint8_t *)obs + r * W, *o1 = (const uint8_t *)obs + (K + r) * W;
        for (size_t j = 0; j < W; j++)
            if (o1[j] != o0[sym->obs_from[j]]) return 0;
        const uint8_t *m0 = mask + r * A, *m1 = mask + (K + r) * A;
        for (size_t a = 0; a < A; a++)
            if (m1[sym->action_to[a]] != m0[a]) return 0;
    }
    return 1;
}

/* Random games on board 0 and their images on board 1, under symmetry k. */
static void play_images(const rl__config *c, uint32_t k, const char *what)
{
    char err[RL_ERR_MAX] = "", label[256];
    rl__seating raw = {.raw = 1};
    rl__vecenv v;
    if (rl__vecenv_create_seated(&v, c->env->desc, c->env_opts.vals, c->env_stages.vals, 2, 5, 1, 1, &raw, err,
                                 sizeof err) != RL_OK) {
        printf("# %s\n", err);
        OK(0, what);
        return;
    }
    const rl_symmetry *sym = &v.info.symmetries[k];
    uint32_t K = v.agents, A = v.info.n_actions;
    rl__vecenv_reset(&v);
    rl_rng rng;
    rl_rng_seed(&rng, 11, k);
    int same = images(&v, sym, v.io.obs, v.io.action_mask), rc = RL_OK;
    uint64_t games = 0;
    for (int step = 0; step < 4000 && same && rc == RL_OK; step++) {
        int32_t *act = v.actions;
        for (uint32_t r = 0; r < K; r++) { /* one random allowed move of the mover, and its image */
            if (!v.to_move[r]) continue;
            const uint8_t *m = v.io.action_mask + (size_t)r * A;
            int32_t a = rl_search_random_move(m, A, &rng);
            for (uint32_t q = 0; q < K; q++) act[q] = a, act[K + q] = (int32_t)sym->action_to[a];
        }
        rc = rl__vecenv_step(&v, err, sizeof err);
        for (uint32_t r = 0; r < K; r++) {
            uint32_t s = K + r;
            same &= v.rewards[r] == v.rewards[s] && v.terminated[r] == v.terminated[s] &&
                v.truncated[r] == v.truncated[s] && v.to_move[r] == v.to_move[s];
        }
        same &= images(&v, sym, v.io.obs, v.io.action_mask);
        if (v.terminated[0] | v.truncated[0]) {
            games++;
            same &= images(&v, sym, v.io.final_obs, v.io.final_mask);
        }
    }
    if (rc != RL_OK) printf("# %s\n", err);
    snprintf(label, sizeof label, "%s: %llu random games and their images under symmetry %u agree", what,
             (unsigned long long)games, k);
    OK(same && rc == RL_OK && games >= 100, label);
    rl__vecenv_destroy(&v);
}

/* rl__symmetries_from_info on hand-made descriptions. */
static int refuse(const rl_env_info *info, const rl__parts *parts, size_t row_bytes, const char *needle)
{
    rl__symmetries s;
    char err[RL_ERR_MAX] = "";
    int rc = rl__symmetries_from_info(&s, info, parts, row_bytes, "x", err, sizeof err);
    if (!strstr(err, needle)) printf("#   said: %s\n", err);
    return rc == RL_EINVAL && strstr(err, needle) && s.n == 0 && !s.table;
}

static void test_refusals(void)
{
    /* two f32 elements, three moves */
    uint32_t obs[8] = {4, 5, 6, 7, 0, 1, 2, 3}, act[3] = {2, 1, 0};
    rl_symmetry sym = {obs, act};
    rl_env_info info = {.struct_size = sizeof info, .obs_dtype = RL_DTYPE_F32, .obs_size = 2, .n_actions = 3};
    rl__parts none = {0};
    rl_env_info_set_symmetries(&info, 1, &sym);
    rl__symmetries s;
    char err[RL_ERR_MAX] = "";
    OK(rl__symmetries_from_info(&s, &info, &none, 8, "x", err, sizeof err) == RL_OK && s.n == 1 &&
           s.list[0].obs_from != obs && s.list[0].obs_from[0] == 4 && s.list[0].action_to[2] == 0,
       "two float elements swapped, three moves reversed: accepted and copied");
    rl__symmetries_free(&s);

    obs[0] = 8;
    OK(refuse(&info, &none, 8, "from byte 8 of a row of 8"), "a byte from past the row is refused");
    obs[0] = 4;
    memcpy(obs + 4, obs, 4 * sizeof *obs);
    OK(refuse(&info, &none, 8, "byte 4 twice"), "a byte taken twice is refused");
    for (uint32_t j = 0; j < 4; j++) obs[4 + j] = j;
    obs[1] = 6, obs[2] = 5;
    OK(refuse(&info, &none, 8, "whole elements"), "a float's bytes reordered are refused");
    obs[1] = 5, obs[2] = 6;
    act[0] = 1;
    OK(refuse(&info, &none, 8, "two moves to move 1"), "two moves to one are refused");
    act[0] = 3;
    OK(refuse(&info, &none, 8, "to 3 of 3 moves"), "a move past the last is refused");
    act[0] = 2;
    sym.action_to = NULL;
    OK(refuse(&info, &none, 8, "without action_to"), "a missing table is refused");
    sym.action_to = act;
    rl_env_info_set_symmetries(&info, RL_MAX_SYMMETRIES + 1, &sym);
    OK(refuse(&info, &none, 8, "at most"), "more than RL_MAX_SYMMETRIES is refused");
    rl_env_info_set_symmetries(&info, 1, &sym);
    info.action_kind = RL_SPACE_BOX;
    info.action_dim = 1;
    OK(refuse(&info, &none, 8, "not discrete"), "a box's symmetry is refused");
    info.action_kind = RL_SPACE_DISCRETE;

    /* a composite row: a u8 part of 2 and a discrete part of 2 (nvec 3 and
       4) must keep their bytes, and the categories of what they swap */
    uint32_t nvec[2] = {3, 4};
    rl__parts parts = {.n = 2};
    parts.part[0] = (rl_obs_part){sizeof(rl_obs_part), "a", RL_PART_BOX, RL_DTYPE_U8, 1, {2}, 0, 1.0f, NULL};
    parts.part[1] = (rl_obs_part){sizeof(rl_obs_part), "b", RL_PART_DISCRETE, RL_DTYPE_U8, 1, {2}, 2, 0, nvec};
    rl_env_info comp = {.struct_size = sizeof comp, .obs_dtype = RL_DTYPE_U8, .obs_size = 4, .n_actions = 3};
    uint32_t cross[4] = {2, 1, 0, 3}, swap_b[4] = {1, 0, 3, 2};
    rl_symmetry cs = {cross, act};
    rl_env_info_set_symmetries(&comp, 1, &cs);
    OK(refuse(&comp, &parts, 4, "within its part"), "a byte moved into another part is refused");
    cs.obs_from = swap_b;
    OK(refuse(&comp, &parts, 4, "as many categories"),
       "a discrete element swapped with one of other categories "
       "is refused");
    nvec[1] = 3;
    OK(rl__symmetries_from_info(&s, &comp, &parts, 4, "x", err, sizeof err) == RL_OK && s.n == 1,
       "elements swapped within each part, categories alike: accepted");
    rl__symmetries_free(&s);
}

int main(void)
{
    const char *fixtures = getenv("RLHOST_FIXTURE_DIR");
    rl__registry_discover(&reg, fixtures ? &fixtures : NULL, fixtures ? 1 : 0);
    for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
        rl__config c;
        if (!OK(resolve(&c, cases[k]) == RL_OK, cases[k])) continue;
        rl__seating raw = {.raw = 1};
        rl__vecenv v;
        char err[RL_ERR_MAX] = "";
        int rc = rl__vecenv_create_seated(&v, c.env->desc, c.env_opts.vals, c.env_stages.vals, 2, 5, 1, 1, &raw, err,
                                          sizeof err);
        uint32_t n = rc == RL_OK ? v.info.n_symmetries : 0;
        if (rc == RL_OK) rl__vecenv_destroy(&v);
        OK(n > 0, "the env declares symmetries");
        for (uint32_t s = 0; s < n; s++) play_images(&c, s, cases[k]);
        rl__config_destroy(&c);
    }

    /* an env's bad table: refused when the env is opened */
    rl__config c;
    if (OK(resolve(&c, "plugin = \"tictactoe\"; fault = \"bad_symmetry\";") == RL_OK,
           "a tictactoe with a bad "
           "symmetry resolves")) {
        rl__seating raw = {.raw = 1};
        rl__vecenv v;
        char err[RL_ERR_MAX] = "";
        int rc = rl__vecenv_create_seated(&v, c.env->desc, c.env_opts.vals, c.env_stages.vals, 2, 5, 1, 1, &raw, err,
                                          sizeof err);
        ASSERT_CONTAINS(err, "env 'tictactoe' reported symmetry 6 mapping two moves", "the env is refused at open");
        OK(rc == RL_EINVAL, "with RL_EINVAL");
        rl__config_destroy(&c);
    }
    test_refusals();
    rl__registry_destroy(&reg);
    return tap_done();
}
