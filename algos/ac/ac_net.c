/* The actor-critic family's networks and its squashed policy; see ac.h. */
#include <math.h>
#include <stdio.h>

#include "ac.h"

/* The actor, the critics and their targets; PyTorch's default
   initialization (as Stable-Baselines3 has it), targets equal at the start. */
int ac_networks(ac *p, const uint32_t *hidden, uint32_t nh, uint64_t seed)
{
    ac_settings *c = &p->cfg;
    uint32_t M = c->batch > c->rows ? c->batch : c->rows, out = ac_squashed(c) ? 2 * c->dim : c->dim;
    uint32_t qin = c->obs_size + c->dim;
    int rc = rl_mlp_create(&p->pi, &p->actor, "actor", c->obs_size, hidden, nh, out, c->act, M);
    char names[AC_MAX_CRITICS][16];
    for (uint32_t j = 0; j < c->n_critics; j++) snprintf(names[j], sizeof names[j], "critic/q%u", j);
    for (uint32_t j = 0; !rc && j < c->n_critics; j++)
        rc = rl_mlp_create(&p->q[j], &p->critic, names[j], qin, hidden, nh, c->n_quantiles, c->act, c->batch);
    if (!rc) rc = rl_params_alloc(&p->actor);
    if (!rc) rc = rl_params_alloc(&p->critic);
    if (rc) return rc;
    rl_rng init;
    rl_rng_seed(&init, seed, 0x1417);
    rl_mlp_init(&p->pi, &p->actor, RL_INIT_DEFAULT, 1.0f, &init);
    for (uint32_t j = 0; j < c->n_critics; j++) rl_mlp_init(&p->q[j], &p->critic, RL_INIT_DEFAULT, 1.0f, &init);
    /* Target workspaces: the same layouts over throwaway blocks, the values in
       critic_t / actor_t.  One block per target, so that each network's
       offsets are those of the block it reads (the critics share one, as
       critic does; the actor's starts at 0, as in actor). */
    rl_params scratch_q = {0}, scratch_pi = {0};
    for (uint32_t j = 0; !rc && j < c->n_critics; j++)
        rc = rl_mlp_create(&p->q_t[j], &scratch_q, names[j], qin, hidden, nh, c->n_quantiles, c->act, c->batch);
    if (!rc && c->kind == AC_TD3)
        rc = rl_mlp_create(&p->pi_t, &scratch_pi, "actor", c->obs_size, hidden, nh, out, c->act, c->batch);
    rl_params_free(&scratch_q);
    rl_params_free(&scratch_pi);
    if (!rc) rc = rl_params_clone(&p->critic_t, &p->critic);
    if (!rc && c->kind == AC_TD3) rc = rl_params_clone(&p->actor_t, &p->actor);
    return rc;
}

void ac_squash(const ac *p, const float *out, const float *eps, uint32_t B, float *a, float *logp)
{
    uint32_t A = p->cfg.dim;
    for (uint32_t b = 0; b < B; b++) {
        const float *mu = out + (size_t)b * 2 * A;
        double lp = rl_squashed_gauss(a + (size_t)b * A, mu, mu + A, eps ? eps + (size_t)b * A : NULL, A,
                                      AC_LOG_STD_MIN, AC_LOG_STD_MAX);
        if (logp) logp[b] = (float)lp;
    }
}
