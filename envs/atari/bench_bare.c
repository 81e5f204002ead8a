/* atari_bare ROM NUM_ENVS STEPS: the floor under the atari env's speed
 * (docs/performance.md, Atari).
 *
 * NUM_ENVS games on one thread with ALE's act() and the same preprocessing
 * written out plainly: per env step 4 frames of the action, the last two
 * grayscale screens max-pooled, INTER_AREA to 84 x 84, the frame pushed
 * onto a stack of 4 and the 4 frames copied out as the observation; at a
 * game's end reset_game and 1 to 30 no-ops.  The envs are seeded as the
 * atari env seeds them (seed 1) and the actions are the table `rlhost
 * bench env` draws (64 sets of NUM_ENVS from rl_rng stream (1, 0), set
 * k % 64 at step k), so `rlhost bench env atari` plays the same frames and
 * the difference in time is rlhost's per-step cost.  Prints env steps per
 * second. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rlhost/rlcore.h>

#include "ale_shim.h"
#include "area.h"
#include "np_random.h"

enum { TABLES = 64, SKIP = 4, STACK = 4, SIDE = 84, RAW = ALE_SHIM_H * ALE_SHIM_W, FRAME = SIDE * SIDE };

typedef struct game {
    ale_shim *ale;
    np_pcg64 rng;
    uint8_t raw0[RAW], raw1[RAW], frames[STACK][FRAME];
    int head;
} game;

static float scratch[2 * SIDE + ALE_SHIM_W]; /* area_scratch_floats for one channel */

static void push(game *g, const area_plan *plan, uint8_t *obs)
{
    for (int k = 0; k < RAW; k++) g->raw0[k] = g->raw0[k] > g->raw1[k] ? g->raw0[k] : g->raw1[k];
    g->head = (g->head + 1) % STACK;
    area_resize(plan, scratch, g->raw0, g->frames[g->head]);
    for (int k = 0; k < STACK; k++) memcpy(obs + k * FRAME, g->frames[(g->head + 1 + k) % STACK], FRAME);
}

static void reset(game *g, const int *ids, const area_plan *plan, uint8_t *obs)
{
    ale_shim_reset(g->ale);
    for (int k = (int)np_integers(&g->rng, 1, 31); k > 0; k--) {
        ale_shim_act(g->ale, ids[0]);
        if (ale_shim_game_over(g->ale) || ale_shim_truncated(g->ale)) ale_shim_reset(g->ale);
    }
    ale_shim_gray(g->ale, g->raw0);
    memset(g->raw1, 0, RAW);
    push(g, plan, obs);
    for (int k = 0; k < STACK; k++) memcpy(g->frames[k], g->frames[g->head], FRAME);
}

int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: atari_bare ROM NUM_ENVS STEPS\n");
        return 2;
    }
    int n = atoi(argv[2]);
    long long steps = atoll(argv[3]);
    if (n < 1 || steps < 1) {
        fprintf(stderr, "atari_bare: NUM_ENVS and STEPS must be positive\n");
        return 2;
    }
    game *g = calloc((size_t)n, sizeof *g);
    uint8_t *obs = malloc((size_t)n * STACK * FRAME);
    int *table = malloc((size_t)TABLES * n * sizeof *table), ids[ALE_SHIM_MAX_ACTIONS];
    area_plan plan;
    if (!g || !obs || !table || area_plan_init(&plan, ALE_SHIM_H, ALE_SHIM_W, SIDE, SIDE, 1)) return 1;
    char err[512];
    int n_actions = 0;
    for (int i = 0; i < n; i++) {
        uint32_t w[2];
        np_seed_sequence(1 + (uint64_t)i, w, 2);
        np_pcg64_seed(&g[i].rng, w[0]);
        ale_shim_opts o = {
            .rom = argv[1], .seed = (int32_t)w[1], .sticky = 0.25f, .max_frames = 108000, .mode = -1, .difficulty = -1};
        if (!(g[i].ale = ale_shim_open(&o, err, sizeof err))) {
            fprintf(stderr, "atari_bare: %s\n", err);
            return 1;
        }
        n_actions = ale_shim_actions(g[i].ale, 0, ids, ALE_SHIM_MAX_ACTIONS);
        reset(&g[i], ids, &plan, obs + (size_t)i * STACK * FRAME);
    }
    rl_rng rng;
    rl_rng_seed(&rng, 1, 0);
    for (int i = 0; i < TABLES * n; i++) table[i] = (int)rl_rng_below(&rng, (uint32_t)n_actions);
    double t0 = rl_now();
    for (long long k = 0; k < steps; k++)
        for (int i = 0; i < n; i++) {
            game *e = &g[i];
            uint8_t *o = obs + (size_t)i * STACK * FRAME;
            int id = ids[table[(k % TABLES) * n + i]], end = 0;
            for (int t = 0; t < SKIP && !end; t++) {
                ale_shim_act(e->ale, id);
                end = ale_shim_game_over(e->ale) || ale_shim_truncated(e->ale);
                if (!end && t == SKIP - 2) ale_shim_gray(e->ale, e->raw1);
                if (!end && t == SKIP - 1) ale_shim_gray(e->ale, e->raw0);
            }
            push(e, &plan, o);
            if (end) reset(e, ids, &plan, o);
        }
    printf("%.1f\n", (double)steps * n / (rl_now() - t0));
    for (int i = 0; i < n; i++) ale_shim_close(g[i].ale);
    return 0;
}
