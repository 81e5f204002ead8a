/* Training moves by search; see searched.h. */
#include "run/searched.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plugin/host_schema.h"
#include "plugin/loader.h"
#include "run/eval.h"
#include "seats/table.h"

int rl__searched_wanted(const rl__config *c, int *wanted, char *err, size_t errlen)
{
    const rl_plugin_desc *ad = c->algo->desc;
    *wanted = (rl__desc_flags(ad) & RL_DESC_SEARCHED) != 0;
    if (!*wanted) {
        if (!c->search_given) return RL_OK;
        snprintf(err, errlen,
                 "the search group sets the training search of an algorithm that trains on search (alphazero); "
                 "algo '%s' does not (to search at play time: rlhost eval RUN --search N)",
                 ad->name);
        return RL_ECONFIG;
    }
    if (!(rl__desc_flags(ad) & RL_DESC_VALUES)) {
        snprintf(err, errlen, "algo '%s' trains on search but gives it no probabilities and values (RL_DESC_VALUES)",
                 ad->name);
        return RL_ECONFIG;
    }
    const rl_value *sv = c->seats.vals;
    if (c->seats_given &&
        (strcmp(sv[RL__SEATS_OPPONENT].s, "self") || !sv[RL__SEATS_LEARNER_SEAT].is_auto ||
         sv[RL__SEATS_POOL_OPPONENTS].n)) {
        snprintf(err, errlen,
                 "algo '%s' plays every seat of its training games itself: seats.opponent, learner_seat and "
                 "pool_opponents are for an algorithm that learns one seat (seats.eval_opponents still names "
                 "the evaluation's opponents)",
                 ad->name);
        return RL_ECONFIG;
    }
    return RL_OK;
}

int rl__searched_open(rl__searched *t, const rl__config *c, rl__vecenv *v, const rl_algo_vtable *vt, void *algo,
                      uint64_t seed, char *err, size_t errlen)
{
    memset(t, 0, sizeof *t);
    const rl_value *g = c->search.vals;
    rl__search_opts o = rl__search_defaults();
    o.simulations = (uint32_t)g[RL__SEARCH_SIMULATIONS].i;
    o.c_puct = g[RL__SEARCH_C_PUCT].f;
    o.dirichlet_alpha = g[RL__SEARCH_DIRICHLET_ALPHA].f;
    o.dirichlet_frac = g[RL__SEARCH_DIRICHLET_FRAC].f;
    o.max_mib = (uint32_t)g[RL__SEARCH_MAX_MIB].i;
    o.threads = rl__search_threads(c);
    t->temperature = g[RL__SEARCH_TEMPERATURE].f;
    t->temperature_moves = (uint64_t)g[RL__SEARCH_TEMPERATURE_MOVES].i;
    t->improved = g[RL__SEARCH_POLICY_TARGET].i == 1;
    t->c_visit = (float)g[RL__SEARCH_C_VISIT].f;
    t->c_scale = (float)g[RL__SEARCH_C_SCALE].f;
    t->rows = v->n;
    t->n_actions = v->info.n_actions;
    t->seed = seed;
    size_t R = t->rows, A = t->n_actions;
    size_t bytes = R * (2 * sizeof(uint32_t) + sizeof(uint64_t) + A * sizeof(float) + 1);
    uint8_t *p = t->block = calloc(1, bytes ? bytes : 1);
    if (!p) {
        snprintf(err, errlen, "out of memory for the training search of %u envs", t->rows);
        return RL_ENOMEM;
    }
    t->moves = (uint64_t *)p, p += R * sizeof(uint64_t);
    t->policy = (float *)p, p += R * A * sizeof(float);
    t->where = (uint32_t *)p, p += 2 * R * sizeof(uint32_t);
    t->same = p;
    memset(t->same, 1, R);
    rl__env_site site = rl__eval_site(v, t->where, t->where + R);
    int rc = rl__searcher_open(&t->s, &o, &site, t->rows, c->algo->desc, vt, algo,
                               rl__act_workers(c->algo->desc, o.threads), seed, err, errlen);
    if (rc != RL_OK) rl__searched_close(t);
    return rc;
}

void rl__searched_close(rl__searched *t)
{
    rl__searcher_close(t->s);
    free(t->block);
    memset(t, 0, sizeof *t);
}

int rl__searched_act(rl__searched *t, rl__vecenv *v, char *err, size_t errlen)
{
    uint32_t R = t->rows, A = t->n_actions;
    rl__env_site site = rl__eval_site(v, t->where, t->where + R);
    const float *visits;
    int rc = rl__searcher_search(t->s, &site, t->calls, t->where, t->where + R, v->io.obs, v->io.action_mask, R,
                                 &visits, &t->value, err, errlen);
    if (rc == RL_OK && t->improved) rc = rl__searcher_improved(t->s, R, t->c_visit, t->c_scale, t->policy, err, errlen);
    if (rc != RL_OK) return rc;
    /* the draws of a call follow from the seed and the call alone */
    rl_rng rng;
    uint64_t key = t->seed ^ 0x5eac4edull;
    rl_rng_seed(&rng, rl__splitmix64(&key), t->calls);
    int32_t *actions = v->actions;
    for (uint32_t i = 0; i < R; i++) {
        const float *vi = visits + (size_t)i * A;
        if (!t->improved) { /* the target: the visit fractions */
            float sum = 0;
            for (uint32_t k = 0; k < A; k++) sum += vi[k];
            for (uint32_t k = 0; k < A; k++) t->policy[(size_t)i * A + k] = sum > 0 ? vi[k] / sum : 0.0f;
        }
        float temp = t->moves[i] < t->temperature_moves ? (float)t->temperature : 0.0f;
        actions[i] = rl_search_pick(vi, A, temp, &rng);
    }
    t->calls++;
    return RL_OK;
}

void rl__searched_stepped(rl__searched *t, const rl__vecenv *v)
{
    for (uint32_t i = 0; i < t->rows; i++) {
        int ended = (v->terminated[i] | v->truncated[i]) != 0;
        t->same[i] = v->table ? (uint8_t)rl__table_same_mover(v->table, i) : 1;
        t->moves[i] = ended ? 0 : t->moves[i] + 1;
    }
}

int rl__searched_state(rl__searched *t, const rl_state_io *io, int load, char *err, size_t errlen)
{
    int rc = rl_state_blob(io, load, "host/search/", "calls", &t->calls, sizeof t->calls, err, errlen);
    if (rc == RL_OK)
        rc =
            rl_state_blob(io, load, "host/search/", "moves", t->moves, (size_t)t->rows * sizeof *t->moves, err, errlen);
    for (uint32_t i = 0; load && rc == RL_OK && i < t->rows; i++)
        rc = rl_state_check_u("host/search/moves", t->moves[i], 0, 1ull << 40, err, errlen);
    return rc;
}
