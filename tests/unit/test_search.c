/* <rlhost/search.h> against exhaustive minimax: on tic-tac-toe, written
   here as a model of its own, PUCT with a perfect evaluator and UCT with
   random rollouts pick a minimax-optimal move from reachable positions; a
   one-agent walk finds its goal; visits respect masks and add up to the
   simulations; searches repeat exactly for their seeds on any number of
   workers; bad configs, a memory cap and a failing evaluator are refused
   with a sentence. */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rlhost/search.h>

#include "../tap.h"

/* ---- tic-tac-toe as a model ---------------------------------------------- */

typedef struct ttt {
    uint8_t cell[9]; /* 0 empty, 1 the first player's, 2 the second's */
    uint8_t mover;   /* 1 or 2 */
} ttt;

static const uint8_t lines[8][3] = {{0, 1, 2}, {3, 4, 5}, {6, 7, 8}, {0, 3, 6},
                                    {1, 4, 7}, {2, 5, 8}, {0, 4, 8}, {2, 4, 6}};

static int wins(const uint8_t *c, uint8_t m)
{
    for (int l = 0; l < 8; l++)
        if (c[lines[l][0]] == m && c[lines[l][1]] == m && c[lines[l][2]] == m) return 1;
    return 0;
}

static int full(const uint8_t *c)
{
    for (int k = 0; k < 9; k++)
        if (!c[k]) return 0;
    return 1;
}

static int ttt_step(void *ctx, uint32_t worker, const void *state, int32_t action, void *next, void *obs, uint8_t *mask,
                    rl_search_step *out, char *err, size_t errlen)
{
    (void)ctx, (void)worker, (void)err, (void)errlen;
    ttt t;
    memcpy(&t, state, sizeof t);
    if (action < 0 || action > 8 || t.cell[action]) return RL_EINVAL;
    t.cell[action] = t.mover;
    out->over = 0, out->reward = 0, out->same_mover = 0;
    if (wins(t.cell, t.mover))
        out->over = 1, out->reward = 1;
    else if (full(t.cell))
        out->over = 1;
    t.mover = (uint8_t)(3 - t.mover);
    for (int k = 0; k < 9; k++) {
        mask[k] = out->over || !t.cell[k];
        ((uint8_t *)obs)[k] = t.cell[k] == t.mover ? 1 : t.cell[k] ? 2 : 0; /* the mover's view */
    }
    memcpy(next, &t, sizeof t);
    return RL_OK;
}

static rl_search_model ttt_model(uint32_t workers)
{
    return (rl_search_model){.struct_size = sizeof(rl_search_model),
                             .state_bytes = sizeof(ttt),
                             .obs_bytes = 9,
                             .n_actions = 9,
                             .workers = workers,
                             .step = ttt_step};
}

/* Minimax values by base-3 index and mover, from the mover's side. */
static int8_t memo[2 * 19683];

static int key_of(const uint8_t *c, uint8_t mover)
{
    int k = 0;
    for (int i = 8; i >= 0; i--) k = k * 3 + c[i];
    return 2 * k + mover - 1;
}

static int negamax(uint8_t *c, uint8_t me)
{
    int k = key_of(c, me);
    if (memo[k] != 2) return memo[k];
    int best = -2;
    for (int a = 0; a < 9; a++) {
        if (c[a]) continue;
        c[a] = me;
        int v = wins(c, me) ? 1 : full(c) ? 0 : -negamax(c, (uint8_t)(3 - me));
        c[a] = 0;
        best = v > best ? v : best;
    }
    return memo[k] = (int8_t)best;
}

/* The move values of position t for its mover (-2: occupied). */
static void values_of(const ttt *t, int *v)
{
    uint8_t c[9];
    memcpy(c, t->cell, 9);
    for (int a = 0; a < 9; a++) {
        v[a] = -2;
        if (c[a]) continue;
        c[a] = t->mover;
        v[a] = wins(c, t->mover) ? 1 : full(c) ? 0 : -negamax(c, (uint8_t)(3 - t->mover));
        c[a] = 0;
    }
}

/* Every reachable position with the game not over. */
static ttt *positions;
static uint32_t n_positions;
static uint8_t seen[2 * 19683];

static void collect(ttt *t)
{
    int k = key_of(t->cell, t->mover);
    if (seen[k]) return;
    seen[k] = 1;
    positions[n_positions++] = *t;
    for (int a = 0; a < 9; a++) {
        if (t->cell[a]) continue;
        t->cell[a] = t->mover;
        if (!wins(t->cell, t->mover) && !full(t->cell)) {
            t->mover = (uint8_t)(3 - t->mover);
            collect(t);
            t->mover = (uint8_t)(3 - t->mover);
        }
        t->cell[a] = 0;
    }
}

/* A perfect evaluator: the minimax value, uniform priors.  The board is
   read back from the mover's view (1 the mover's, 2 the other's). */
static int perfect(void *ctx, uint32_t count, const void *obs, const uint8_t *masks, float *priors, float *values,
                   char *err, size_t errlen)
{
    (void)ctx, (void)err, (void)errlen;
    for (uint32_t i = 0; i < count; i++) {
        uint8_t c[9];
        memcpy(c, (const uint8_t *)obs + i * 9, 9);
        values[i] = (float)negamax(c, 1);
        for (int a = 0; a < 9; a++) priors[i * 9 + a] = masks[i * 9 + a] ? 1.0f : 0.0f;
    }
    return RL_OK;
}

static int poisoned(void *ctx, uint32_t count, const void *obs, const uint8_t *masks, float *priors, float *values,
                    char *err, size_t errlen)
{
    int rc = perfect(ctx, count, obs, masks, priors, values, err, errlen);
    values[0] = NAN;
    return rc;
}

/* Searches the count positions at pos and counts the moves picked that
   minimax values best. */
static uint32_t optimal_picks(rl_search *s, const ttt *pos, uint32_t count, rl_search_eval_fn eval,
                              rl_search_parallel_fn par, float *visits)
{
    static uint8_t obs[512 * 9], masks[512 * 9];
    static uint64_t seeds[512];
    for (uint32_t i = 0; i < count; i++) {
        const ttt *t = &pos[i];
        for (int a = 0; a < 9; a++) {
            masks[i * 9 + a] = !t->cell[a];
            obs[i * 9 + a] = t->cell[a] == t->mover ? 1 : t->cell[a] ? 2 : 0;
        }
        seeds[i] = (uint64_t)(t - positions);
    }
    char err[RL_ERR_MAX] = "";
    int rc = rl_search_run(s, count, pos, obs, masks, seeds, eval, NULL, par, NULL, visits, NULL, err, sizeof err);
    if (rc != RL_OK) {
        printf("# %s\n", err);
        return 0;
    }
    uint32_t good = 0;
    for (uint32_t i = 0; i < count; i++) {
        int v[9], best = -3;
        values_of(&pos[i], v);
        for (int a = 0; a < 9; a++) best = v[a] > best ? v[a] : best;
        good += v[rl_search_pick(visits + i * 9, 9, 0, NULL)] == best;
    }
    return good;
}

/* Threads, one a worker. */
typedef struct job {
    void (*fn)(void *, uint32_t);
    void *arg;
    uint32_t w;
} job;

static void *thread_main(void *p)
{
    job *j = p;
    j->fn(j->arg, j->w);
    return NULL;
}

static void on_threads(void *ctx, void (*fn)(void *arg, uint32_t w), void *arg, uint32_t n)
{
    (void)ctx;
    pthread_t th[8];
    job jobs[8];
    for (uint32_t w = 0; w < n; w++) {
        jobs[w] = (job){fn, arg, w};
        pthread_create(&th[w], NULL, thread_main, &jobs[w]);
    }
    for (uint32_t w = 0; w < n; w++) pthread_join(th[w], NULL);
}

static void test_tictactoe(void)
{
    memset(memo, 2, sizeof memo);
    positions = malloc(6000 * sizeof *positions);
    ttt empty = {{0}, 1};
    collect(&empty);
    ASSERT_EQ(n_positions, 4520, "tic-tac-toe has 4520 reachable positions with the game not over");
    float *visits = malloc(512 * 9 * sizeof(float));
    rl_search_model m = ttt_model(3);
    char err[RL_ERR_MAX] = "";

    rl_search_config cfg = rl_search_defaults();
    cfg.simulations = 64;
    rl_search *s = NULL;
    OK(rl_search_create(&cfg, &m, 512, &s, err, sizeof err) == RL_OK, "a search of 512 trees of 64 simulations");
    uint32_t good = 0;
    for (uint32_t first = 0; first < n_positions; first += 512) {
        uint32_t count = n_positions - first < 512 ? n_positions - first : 512;
        good += optimal_picks(s, positions + first, count, perfect, on_threads, visits);
    }
    ASSERT_EQ(good, n_positions, "PUCT with a perfect value picks a minimax-optimal move from every position");
    rl_search_destroy(s);

    /* UCT with random rollouts, every 7th position */
    cfg.simulations = 3000;
    cfg.c_puct = 2.0f;
    OK(rl_search_create(&cfg, &m, 128, &s, err, sizeof err) == RL_OK,
       "a rollout search of 128 trees of 3000 simulations");
    uint32_t asked = 0;
    good = 0;
    static ttt picked[700];
    uint32_t n_picked = 0;
    for (uint32_t i = 0; i < n_positions; i += 7) picked[n_picked++] = positions[i];
    for (uint32_t first = 0; first < n_picked; first += 128) {
        uint32_t count = n_picked - first < 128 ? n_picked - first : 128;
        good += optimal_picks(s, picked + first, count, NULL, on_threads, visits);
        asked += count;
    }
    printf("# UCT with rollouts: %u of %u positions optimal\n", good, asked);
    ASSERT_EQ(good, asked, "UCT with random rollouts picks a minimax-optimal move from every 7th position");
    rl_search_destroy(s);

    free(visits);
}

/* A tic-tac-toe search on `workers` workers of `trees` trees with root
   noise Dir(0.3). */
static rl_search *noisy_search(uint32_t workers, uint32_t simulations, uint32_t trees, const char *what)
{
    rl_search_model m = ttt_model(workers);
    rl_search_config cfg = rl_search_defaults();
    cfg.simulations = simulations;
    cfg.dirichlet_alpha = 0.3f;
    rl_search *s = NULL;
    char err[RL_ERR_MAX] = "";
    OK(rl_search_create(&cfg, &m, trees, &s, err, sizeof err) == RL_OK, what);
    return s;
}

/* The same roots and seeds give the same visits, serially and on threads;
   visits add up to the simulations and never touch a masked move. */
static void test_repeatable(void)
{
    rl_search *s = noisy_search(4, 300, 16, "a search with root noise");
    char err[RL_ERR_MAX] = "";
    ttt roots[16];
    uint8_t obs[16 * 9], masks[16 * 9];
    uint64_t seeds[16];
    for (int i = 0; i < 16; i++) {
        roots[i] = positions[i * 97 % n_positions];
        for (int a = 0; a < 9; a++) {
            masks[i * 9 + a] = !roots[i].cell[a];
            obs[i * 9 + a] = roots[i].cell[a] == roots[i].mover ? 1 : roots[i].cell[a] ? 2 : 0;
        }
        seeds[i] = 1000 + (uint64_t)i;
    }
    float a[16 * 9], b[16 * 9], c[16 * 9];
    int rc = rl_search_run(s, 16, roots, obs, masks, seeds, perfect, NULL, NULL, NULL, a, NULL, err, sizeof err);
    rc |= rl_search_run(s, 16, roots, obs, masks, seeds, perfect, NULL, on_threads, NULL, b, NULL, err, sizeof err);
    seeds[0]++;
    rc |= rl_search_run(s, 16, roots, obs, masks, seeds, perfect, NULL, on_threads, NULL, c, NULL, err, sizeof err);
    OK(rc == RL_OK, "three searches ran");
    OK(!memcmp(a, b, sizeof a), "the same seeds give the same visits, serially and on 4 threads");
    OK(memcmp(a, c, 9 * sizeof(float)) != 0 && !memcmp(a + 9, c + 9, 15 * 9 * sizeof(float)),
       "another seed changes its own tree's noise and no other tree");
    int sums = 1, masked = 1;
    for (int i = 0; i < 16; i++) {
        float sum = 0;
        for (int k = 0; k < 9; k++) {
            sum += a[i * 9 + k];
            if (!masks[i * 9 + k] && a[i * 9 + k] != 0) masked = 0;
        }
        sums &= sum == 300.0f;
    }
    OK(sums, "each root's visits add up to its 300 simulations");
    OK(masked, "no visit goes to a masked move");
    seeds[0]--;
    /* each worker evaluating its own trees' leaves: a row-independent
       evaluator gives rl_search_run's visits, on any number of workers */
    int ctx_of[4] = {0, 1, 2, 3};
    void *ctxs[4] = {&ctx_of[0], &ctx_of[1], &ctx_of[2], &ctx_of[3]};
    rc = rl_search_run_each(s, 16, roots, obs, masks, seeds, perfect, ctxs, on_threads, NULL, b, NULL, err, sizeof err);
    OK(rc == RL_OK && !memcmp(a, b, sizeof a), "rl_search_run_each on 4 threads gives rl_search_run's visits");
    rc = rl_search_run_each(s, 16, roots, obs, masks, seeds, perfect, ctxs, NULL, NULL, b, NULL, err, sizeof err);
    OK(rc == RL_OK && !memcmp(a, b, sizeof a), "and so does its serial run");
    rc = rl_search_run_each(s, 3, roots, obs, masks, seeds, perfect, ctxs, on_threads, NULL, b, NULL, err, sizeof err);
    OK(rc == RL_OK && !memcmp(a, b, 3 * 9 * sizeof(float)), "fewer roots than workers: the first roots' visits");
    rc =
        rl_search_run_each(s, 16, roots, obs, masks, seeds, poisoned, ctxs, on_threads, NULL, b, NULL, err, sizeof err);
    OK(rc == RL_ENONFINITE && strstr(err, "not finite"), "a worker's NaN value is refused with a sentence");
    rc = rl_search_run_each(s, 16, roots, obs, masks, seeds, NULL, ctxs, on_threads, NULL, b, NULL, err, sizeof err);
    OK(rc == RL_EINVAL && strstr(err, "needs an evaluator"), "rl_search_run_each without an evaluator is refused");
    rc = rl_search_run(s, 16, roots, obs, masks, seeds, poisoned, NULL, NULL, NULL, a, NULL, err, sizeof err);
    OK(rc == RL_ENONFINITE && strstr(err, "not finite"), "an evaluator's NaN value is refused with a sentence");
    memset(masks, 0, 9);
    rc = rl_search_run(s, 16, roots, obs, masks, seeds, perfect, NULL, NULL, NULL, a, NULL, err, sizeof err);
    OK(rc == RL_EINVAL && strstr(err, "root 0 allows no move"), "a root that allows no move is refused");
    rl_search_destroy(s);
}

static void test_refusals(void)
{
    rl_search_model m = ttt_model(1);
    rl_search_config cfg = rl_search_defaults();
    rl_search *s = (rl_search *)1;
    char err[RL_ERR_MAX] = "";
    cfg.simulations = 0;
    OK(rl_search_create(&cfg, &m, 4, &s, err, sizeof err) == RL_EINVAL && !s && strstr(err, "simulations is 0"),
       "0 simulations are refused");
    cfg = rl_search_defaults();
    cfg.c_puct = NAN;
    OK(rl_search_create(&cfg, &m, 4, &s, err, sizeof err) == RL_EINVAL, "a NaN c_puct is refused");
    cfg = rl_search_defaults();
    cfg.simulations = 1u << 20;
    cfg.max_bytes = 64ull << 20;
    uint64_t need = rl_search_bytes(&cfg, &m, 64);
    OK(need > cfg.max_bytes, "64 trees of 2^20 simulations need more than 64 MiB");
    OK(rl_search_create(&cfg, &m, 64, &s, err, sizeof err) == RL_ENOMEM && strstr(err, "past the cap of 64.0 MiB"),
       "a search past its memory cap is refused before anything is allocated");
    printf("# %s\n", err);
    m.step = NULL;
    OK(rl_search_create(&cfg, &m, 4, &s, err, sizeof err) == RL_EINVAL, "a model without a step is refused");
}

/* ---- one agent: a walk to a goal ---------------------------------------- */

#define GOAL 6
typedef struct walk_state {
    int32_t pos, t;
} walk_state;

static int walk_step(void *ctx, uint32_t worker, const void *state, int32_t action, void *next, void *obs,
                     uint8_t *mask, rl_search_step *out, char *err, size_t errlen)
{
    (void)ctx, (void)worker, (void)err, (void)errlen, (void)obs;
    walk_state w;
    memcpy(&w, state, sizeof w);
    w.pos += action ? 1 : -1;
    if (w.pos < 0) w.pos = 0;
    w.t++;
    out->same_mover = 1;
    out->reward = w.pos == GOAL ? 1.0f : -0.01f;
    out->over = w.pos == GOAL || w.t >= 30;
    mask[0] = mask[1] = 1;
    memcpy(next, &w, sizeof w);
    return RL_OK;
}

/* An evaluator that says every state is won (value 1), uniform priors (two moves). */
static int liar(void *ctx, uint32_t count, const void *obs, const uint8_t *masks, float *priors, float *values,
                char *err, size_t errlen)
{
    (void)ctx, (void)obs, (void)err, (void)errlen;
    for (uint32_t i = 0; i < count; i++) {
        values[i] = 1;
        for (int a = 0; a < 2; a++) priors[i * 2 + a] = masks[i * 2 + a] ? 1.0f : 0.0f;
    }
    return RL_OK;
}

static void test_one_agent(void)
{
    rl_search_model m = {.struct_size = sizeof m,
                         .state_bytes = sizeof(walk_state),
                         .obs_bytes = 1,
                         .n_actions = 2,
                         .workers = 1,
                         .step = walk_step};
    rl_search_config cfg = rl_search_defaults();
    cfg.simulations = 400;
    cfg.c_puct = 1.0f;
    cfg.discount = 0.99f;
    rl_search *s = NULL;
    char err[RL_ERR_MAX] = "";
    OK(rl_search_create(&cfg, &m, 1, &s, err, sizeof err) == RL_OK, "a one-agent search");
    walk_state root = {2, 0};
    uint8_t obs = 0, mask[2] = {1, 1};
    uint64_t seed = 7;
    float visits[2], value;
    int rc = rl_search_run(s, 1, &root, &obs, mask, &seed, NULL, NULL, NULL, NULL, visits, &value, err, sizeof err);
    OK(rc == RL_OK && visits[1] > visits[0], "with rollouts, a walk steps towards its goal");
    printf("# visits left %g right %g, value %g\n", (double)visits[0], (double)visits[1], (double)value);
    rl_search_destroy(s);

    /* an evaluator that says every state is won, alone and mixed with
       rollouts (mix 1): mixed, the values are the rollouts' own */
    float v_alone = 0, v_mixed = 0;
    for (int mixed = 0; mixed < 2; mixed++) {
        cfg.simulations = 200;
        cfg.mix = mixed ? 1.0f : 0.0f;
        OK(rl_search_create(&cfg, &m, 1, &s, err, sizeof err) == RL_OK, "a search with a lying evaluator");
        rc = rl_search_run(s, 1, &root, &obs, mask, &seed, liar, NULL, NULL, NULL, visits, mixed ? &v_mixed : &v_alone,
                           err, sizeof err);
        OK(rc == RL_OK, "it runs");
        rl_search_destroy(s);
    }
    printf("# root value: %g believing the evaluator, %g mixed with rollouts\n", (double)v_alone, (double)v_mixed);
    OK(v_mixed < v_alone - 0.05f, "mix 1 values leaves by rollouts, below what the evaluator claims");
}

/* The improved policy (Gumbel AlphaZero's target) of every reachable
   position, searched with root noise and a perfect value: a distribution
   over the allowed moves whose most probable move is minimax-optimal, and
   which puts more on the optimal moves than the visits do, on average. */
static void test_improved(void)
{
    rl_search *s = noisy_search(2, 32, 512, "a search of 512 trees of 32 simulations");
    float pi[9];
    OK(rl_search_improved_policy(s, 0, 50, 0.1f, pi) == RL_EINVAL, "no improved policy before a search");
    float *visits = malloc(512 * 9 * sizeof(float));
    uint32_t argmax_ok = 0, dist_ok = 0;
    double mass_pi = 0, mass_visits = 0;
    for (uint32_t first = 0; first < n_positions; first += 512) {
        uint32_t count = n_positions - first < 512 ? n_positions - first : 512;
        optimal_picks(s, positions + first, count, perfect, on_threads, visits);
        for (uint32_t i = 0; i < count; i++) {
            const ttt *t = &positions[first + i];
            int v[9], best = -3;
            values_of(t, v);
            for (int a = 0; a < 9; a++) best = v[a] > best ? v[a] : best;
            if (rl_search_improved_policy(s, i, 50, 0.1f, pi) != RL_OK) continue;
            double sum = 0, on_best = 0, visits_best = 0, n = 0;
            int ok = 1, top = -1;
            for (int a = 0; a < 9; a++) {
                ok &= pi[a] >= 0 && (!t->cell[a] || pi[a] == 0);
                sum += pi[a];
                if (v[a] == best) on_best += pi[a], visits_best += visits[i * 9 + a];
                n += visits[i * 9 + a];
                if (top < 0 || pi[a] > pi[top]) top = a;
            }
            dist_ok += ok && sum > 0.9999 && sum < 1.0001;
            argmax_ok += v[top] == best;
            mass_pi += on_best, mass_visits += visits_best / n;
        }
    }
    printf("# improved policy: %u of %u positions' most probable move optimal; mean mass on the optimal moves "
           "%.3f (the visits: %.3f)\n",
           argmax_ok, n_positions, mass_pi / n_positions, mass_visits / n_positions);
    ASSERT_EQ(dist_ok, n_positions, "each improved policy is a distribution over the allowed moves");
    ASSERT_EQ(argmax_ok, n_positions, "its most probable move is minimax-optimal in every position");
    OK(mass_pi > mass_visits + 0.02 * n_positions, "it puts more on the optimal moves than the visits do");
    OK(rl_search_improved_policy(s, 512, 50, 0.1f, pi) == RL_EINVAL, "a root past the search's count is refused");
    OK(rl_search_improved_policy(s, 0, -1, 0.1f, pi) == RL_EINVAL, "a negative constant is refused");
    free(visits);
    rl_search_destroy(s);
}

static void test_pick(void)
{
    float v[4] = {10, 30, 0, 60};
    ASSERT_EQ(rl_search_pick(v, 4, 0, NULL), 3, "temperature 0 picks the most visited");
    rl_rng r;
    rl_rng_seed(&r, 1, 2);
    int count[4] = {0};
    for (int i = 0; i < 10000; i++) count[rl_search_pick(v, 4, 1.0f, &r)]++;
    OK(count[2] == 0 && abs(count[1] - 3000) < 300 && abs(count[3] - 6000) < 300,
       "temperature 1 draws in proportion to the visits, never an unvisited move");
}

int main(void)
{
    test_tictactoe();
    test_repeatable();
    test_refusals();
    test_one_agent();
    test_improved();
    test_pick();
    free(positions);
    return tap_done();
}
