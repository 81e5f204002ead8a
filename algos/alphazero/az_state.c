/* AlphaZero's checkpoints: the network and Adam, the random streams and
   counters, the replay's window and every game in progress (so a resume
   continues exactly), and the policy's description.  Everything loaded is
   checked: observations finite, masks 0 or 1, visit distributions
   non-negative, summing to 1 and nothing on a forbidden move, value
   targets in [-1, 1], rewards and root values finite, game lengths
   within max_game_moves. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "az.h"

static int scalars(az *p, const rl_state_io *io, int load, char *err, size_t errlen)
{
    int rc;
    if ((rc = rl_rng_state(&p->sample, io, load, "state/rng_sample", err, errlen)) ||
        (rc = rl_count_state(&p->grad_steps, UINT64_MAX >> 8, io, load, "state/grad_steps", err, errlen)) ||
        (rc = rl_count_state(&p->skipped, UINT64_MAX >> 8, io, load, "state/skipped", err, errlen)) ||
        (rc = rl_scalar_state(&p->ratio_acc, io, load, "state/ratio_acc", err, errlen)) ||
        (load && (rc = rl_state_check_f("state/ratio_acc", p->ratio_acc, 0, 1, err, errlen))))
        return rc;
    az_sums s;
    memset(&s, 0, sizeof s); /* padding too: checkpoints compare byte for byte */
    s = p->m;
    rc = rl_state_blob(io, load, "state/", "accumulators", &s, sizeof s, err, errlen);
    if (rc == RL_OK && load) p->m = s; /* means for a metrics row: any double is harmless */
    return rc;
}

/* n positions' fields at obs, mask, pi and z (values, or NULL for the
   games' rewards, checked as finite) as they must be. */
static int check_positions(const az *p, const char *what, size_t n, const uint8_t *obs, const uint8_t *mask,
                           const float *pi, const float *z, char *err, size_t errlen)
{
    const az_settings *c = &p->cfg;
    size_t A = c->n_actions;
    if (p->obs.info.obs_dtype == RL_DTYPE_F32) {
        size_t floats = n * c->row_bytes / 4;
        float *tmp = malloc(floats ? floats * sizeof *tmp : 1);
        if (!tmp) return RL_ENOMEM;
        memcpy(tmp, obs, floats * sizeof *tmp);
        char name[64];
        snprintf(name, sizeof name, "%s/obs", what);
        int rc = rl_state_check_finite(name, tmp, floats, err, errlen);
        free(tmp);
        if (rc) return rc;
    }
    for (size_t i = 0; i < n; i++) {
        double sum = 0;
        int allowed = 0;
        for (size_t a = 0; a < A; a++) {
            uint8_t m = mask[i * A + a];
            float q = pi[i * A + a];
            if (m > 1 || !isfinite(q) || q < 0 || (!m && q > 0)) {
                RL_ERRF(err, errlen, "tensor '%s': position %zu's move %zu has mask %u and search weight %g", what, i,
                        a, m, (double)q);
                return RL_ECORRUPT;
            }
            sum += q;
            allowed += m;
        }
        if (!allowed || fabs(sum - 1.0) > 1e-3) {
            RL_ERRF(err, errlen, "tensor '%s': position %zu's search weights sum to %g over %d allowed moves", what, i,
                    sum, allowed);
            return RL_ECORRUPT;
        }
        if (!isfinite(z[i]) || (pi == p->rb.pi && (z[i] < -1 || z[i] > 1))) {
            RL_ERRF(err, errlen, "tensor '%s': position %zu's %s %g is out of range", what, i,
                    pi == p->rb.pi ? "value target" : "reward", (double)z[i]);
            return RL_ECORRUPT;
        }
    }
    return RL_OK;
}

static int replay(az *p, const rl_state_io *io, int load, char *err, size_t errlen)
{
    const az_settings *c = &p->cfg;
    az_replay *r = &p->rb;
    int rc = rl_count_state(&r->added, UINT64_MAX >> 8, io, load, "replay/added", err, errlen);
    if (rc) return rc;
    size_t held = r->added < c->replay_cap ? (size_t)r->added : c->replay_cap, A = c->n_actions;
    if ((rc = rl_state_blob(io, load, "replay/", "obs", r->obs, held * c->row_bytes, err, errlen)) ||
        (rc = rl_state_blob(io, load, "replay/", "mask", r->mask, held * A, err, errlen)) ||
        (rc = rl_state_blob(io, load, "replay/", "pi", r->pi, held * A * sizeof(float), err, errlen)) ||
        (rc = rl_state_blob(io, load, "replay/", "z", r->z, held * sizeof(float), err, errlen)))
        return rc;
    return load ? check_positions(p, "replay", held, r->obs, r->mask, r->pi, r->z, err, errlen) : RL_OK;
}

/* The games in progress, packed: each env's moves one after another. */
static int games(az *p, const rl_state_io *io, int load, char *err, size_t errlen)
{
    const az_settings *c = &p->cfg;
    az_games *g = &p->games;
    size_t A = c->n_actions, W = c->row_bytes, E = c->num_envs, M = c->max_game;
    int rc = rl_state_blob(io, load, "state/", "game_moves", g->len, E * sizeof *g->len, err, errlen);
    if (rc) return rc;
    size_t total = 0;
    for (size_t e = 0; e < E; e++) {
        if (load && (rc = rl_state_check_u("state/game_moves", g->len[e], 0, M - 1, err, errlen))) return rc;
        total += g->len[e];
    }
    uint8_t *pack = malloc(total ? total * (W + A + 1) : 1);           /* obs, masks, same */
    float *pi_a = malloc(total ? total * (A + 2) * sizeof(float) : 1); /* visit weights, rewards, roots */
    if (!pack || !pi_a) {
        free(pack);
        free(pi_a);
        return RL_ENOMEM;
    }
    uint8_t *obs = pack, *mask = obs + total * W, *same = mask + total * A;
    float *rew_a = pi_a + total * A, *root_a = rew_a + total;
    for (size_t e = 0, k = 0; !load && e < E; e++)
        for (size_t i = 0; i < g->len[e]; i++, k++) {
            size_t at = e * M + i;
            memcpy(obs + k * W, g->obs + at * W, W);
            memcpy(mask + k * A, g->mask + at * A, A);
            memcpy(pi_a + k * A, g->pi + at * A, A * sizeof(float));
            rew_a[k] = g->reward[at];
            if (g->root) root_a[k] = g->root[at];
            same[k] = g->same[at];
        }
    if (g->root) { /* root_value_weight's: the search's value at each move's root */
        rc = rl_state_blob(io, load, "state/", "game_root", root_a, total * sizeof(float), err, errlen);
        if (rc == RL_OK && load) rc = rl_state_check_finite("state/game_root", root_a, total, err, errlen);
    }
    if (rc == RL_OK && !(rc = rl_state_blob(io, load, "state/", "game_obs", obs, total * W, err, errlen)) &&
        !(rc = rl_state_blob(io, load, "state/", "game_mask", mask, total * A, err, errlen)) &&
        !(rc = rl_state_blob(io, load, "state/", "game_pi", pi_a, total * A * sizeof(float), err, errlen)) &&
        !(rc = rl_state_blob(io, load, "state/", "game_reward", rew_a, total * sizeof(float), err, errlen)) &&
        !(rc = rl_state_blob(io, load, "state/", "game_same", same, total, err, errlen)) && load)
        rc = check_positions(p, "state/game", total, obs, mask, pi_a, rew_a, err, errlen);
    for (size_t k = 0; rc == RL_OK && load && k < total; k++)
        if (same[k] > 1) {
            RL_ERRF(err, errlen, "tensor 'state/game_same': move %zu has %u, not 0 or 1", k, same[k]);
            rc = RL_ECORRUPT;
        }
    for (size_t e = 0, k = 0; rc == RL_OK && load && e < E; e++)
        for (size_t i = 0; i < g->len[e]; i++, k++) {
            size_t at = e * M + i;
            memcpy(g->obs + at * W, obs + k * W, W);
            memcpy(g->mask + at * A, mask + k * A, A);
            memcpy(g->pi + at * A, pi_a + k * A, A * sizeof(float));
            g->reward[at] = rew_a[k];
            if (g->root) g->root[at] = root_a[k];
            g->same[at] = same[k];
        }
    free(pi_a);
    free(pack);
    return rc;
}

int az_state(az *p, const rl_state_io *io, int load, char *err, size_t errlen)
{
    int rc;
    if (!load && (rc = az_describe(p, io, err, errlen))) return rc;
    rc = rl_params_state(&p->net, io, load, "", err, errlen);
    if (load) az_pack(p); /* whatever the load left in the network, the search reads */
    if (rc || (rc = rl_rng_state(&p->explore, io, load, "state/rng_explore", err, errlen))) return rc;
    if (p->cfg.inference) return RL_OK; /* acting reads the network and draws from its stream alone */
    if ((rc = rl_adam_state(&p->adam, &p->net, io, load, "adam/", err, errlen)) ||
        (rc = scalars(p, io, load, err, errlen)) || (rc = replay(p, io, load, err, errlen)) ||
        (rc = games(p, io, load, err, errlen)))
        return rc;
    return RL_OK;
}
