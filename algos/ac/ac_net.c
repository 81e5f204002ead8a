/* The actor-critic family's networks and its squashed policies (SAC's,
   and with gSDE the state-dependent one); see ac.h. */
#include <math.h>
#include <stdio.h>

#include "ac.h"

/* An MLP of the family: CrossQ's renormalized, the others' plain. */
static int mlp(const ac *p, rl_mlp *m, rl_params *block, const char *prefix, uint32_t in, const uint32_t *hidden,
               uint32_t nh, uint32_t out, uint32_t rows)
{
    const ac_settings *c = &p->cfg;
    if (c->kind == AC_CROSSQ)
        return rl_mlp_create_renorm(m, block, prefix, in, hidden, nh, out, c->act, rows, c->bn_momentum, c->bn_eps);
    return rl_mlp_create(m, block, prefix, in, hidden, nh, out, c->act, rows);
}

/* The actor, the critics and their targets (none for CrossQ); PyTorch's
   default initialization (as Stable-Baselines3 has it), targets equal at
   the start. */
int ac_networks(ac *p, const uint32_t *hidden, uint32_t nh, const uint32_t *critic_hidden, uint32_t nch, uint64_t seed)
{
    ac_settings *c = &p->cfg;
    uint32_t M = c->batch > c->rows ? c->batch : c->rows, out = ac_squashed(c) && !c->sde ? 2 * c->dim : c->dim;
    uint32_t qin = c->obs_size + c->dim, qrows = c->kind == AC_CROSSQ ? 2 * c->batch : c->batch;
    int rc = mlp(p, &p->pi, &p->actor, "actor", c->obs_size, hidden, nh, out, M);
    c->latent = hidden[nh - 1];
    if (!rc && c->sde &&
        (p->sde_log_std = rl_params_add(&p->actor, "actor/log_std", c->latent, c->full_std ? c->dim : 1)) == (size_t)-1)
        rc = RL_ENOMEM;
    char names[AC_MAX_CRITICS][16];
    for (uint32_t j = 0; j < c->n_critics; j++) snprintf(names[j], sizeof names[j], "critic/q%u", j);
    for (uint32_t j = 0; !rc && j < c->n_critics; j++)
        rc = mlp(p, &p->q[j], &p->critic, names[j], qin, critic_hidden, nch, c->n_quantiles, qrows);
    if (!rc) rc = rl_params_alloc(&p->actor);
    if (!rc) rc = rl_params_alloc(&p->critic);
    if (rc) return rc;
    rl_rng init;
    rl_rng_seed(&init, seed, 0x1417);
    rl_mlp_init(&p->pi, &p->actor, RL_INIT_DEFAULT, 1.0f, &init);
    for (uint32_t k = 0; c->sde && k < c->latent * (c->full_std ? c->dim : 1); k++)
        p->actor.data[p->sde_log_std + k] = c->log_std_init;
    for (uint32_t j = 0; j < c->n_critics; j++) rl_mlp_init(&p->q[j], &p->critic, RL_INIT_DEFAULT, 1.0f, &init);
    if (c->kind == AC_CROSSQ) return RL_OK;
    /* Target workspaces: the same layouts over throwaway blocks, the values in
       critic_t / actor_t.  One block per target, so that each network's
       offsets are those of the block it reads (the critics share one, as
       critic does; the actor's starts at 0, as in actor). */
    rl_params scratch_q = {0}, scratch_pi = {0};
    for (uint32_t j = 0; !rc && j < c->n_critics; j++)
        rc = rl_mlp_create(&p->q_t[j], &scratch_q, names[j], qin, critic_hidden, nch, c->n_quantiles, c->act, c->batch);
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

const float *ac_sde_latent(const ac *p)
{
    return p->pi.acts + p->pi.act_off[p->pi.n_layers - 2];
}

void ac_sde_squash(const ac *p, const float *out, const float *z, const float *mats, int per_row, uint32_t B, float *a,
                   float *logp)
{
    const ac_settings *c = &p->cfg;
    uint32_t A = c->dim, L = c->latent;
    for (uint32_t b = 0; b < B; b++) {
        float *mu = p->ws.sde_mu + (size_t)b * A;
        for (uint32_t k = 0; k < A; k++) { /* the mean clipped, as Stable-Baselines3's gSDE actor has it */
            float m = out[(size_t)b * A + k];
            mu[k] = m < -AC_SDE_MEAN_CLIP ? -AC_SDE_MEAN_CLIP : m > AC_SDE_MEAN_CLIP ? AC_SDE_MEAN_CLIP : m;
        }
        const float *E = mats ? mats + (per_row ? (size_t)b * L * A : 0) : NULL;
        double lp =
            rl_gsde_squashed(a + (size_t)b * A, p->ws.u + (size_t)b * A, mu, z + (size_t)b * L, E, p->ws.sde_std, L, A);
        if (logp) logp[b] = (float)lp;
    }
}

void ac_sde_act(ac *p, const float *out, uint32_t count, const uint8_t *start, float *a)
{
    const ac_settings *c = &p->cfg;
    /* vsteps: the vector steps before this one; the first after the
       warm-up draws every env's matrix */
    int first = p->vsteps == 0 || (p->vsteps - 1) * p->env_total < c->learning_starts;
    int all = start && (first || p->vsteps % c->sde_freq == 0);
    rl_gsde_std(p->ws.sde_std, p->actor.data + p->sde_log_std, c->full_std, c->latent, c->dim);
    rl_gsde_resample(p->ws.sde_std, c->latent, c->dim, count, all, start, &p->explore, p->ws.sde_env);
    ac_sde_squash(p, out, ac_sde_latent(p), start ? p->ws.sde_env : NULL, 1, count, a, NULL);
}
