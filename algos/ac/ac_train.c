/* The gradient steps of SAC, TQC, CrossQ and TD3 (see ac.h).  Every replica samples its
   share of the minibatch from its own stream; gradients are summed over the
   replicas by rl_replicated_adam_step (the means are over all of them), so
   their networks stay identical. */
#include <math.h>
#include <string.h>

#include "ac.h"

/* Samples B transitions: observations, next observations (the final one
   where an episode ended), rewards, discounts (0 where it terminated) and
   the critic input's action part, mapped back to [-1, 1]. */
static void sample_batch(ac *p)
{
    const ac_settings *c = &p->cfg;
    ac_workspace *w = &p->ws;
    uint32_t B = c->batch, D = c->obs_size, A = c->dim, size = rl_replay_size(&p->rb);
    for (uint32_t b = 0; b < B; b++) {
        uint32_t s = rl_rng_below(&p->sample, size);
        w->slots[b] = s;
        rl_nstep ns = rl_replay_nstep(&p->rb, s, 1, c->gamma);
        rl_replay_obs_input(&p->rb, &p->obs.info, s, 0, w->x + (size_t)b * D);
        rl_replay_obs_input(&p->rb, &p->obs.info, ns.boot_slot, 1, w->xn + (size_t)b * D);
        w->rew[b] = ns.ret;
        w->disc[b] = ns.discount;
        float *qa = w->qin + (size_t)b * (D + A) + D;
        memcpy(w->qin + (size_t)b * (D + A), w->x + (size_t)b * D, D * sizeof(float));
        for (uint32_t k = 0; k < A; k++) qa[k] = ac_from_box(c, k, p->rb.box_actions[(size_t)s * A + k]);
    }
}

/* qin's action part := a (B rows), with obs rows from x. */
static void critic_input(const ac *p, const float *x, const float *a, float *qin)
{
    uint32_t D = p->cfg.obs_size, A = p->cfg.dim;
    for (uint32_t b = 0; b < p->cfg.batch; b++) {
        memcpy(qin + (size_t)b * (D + A), x + (size_t)b * D, D * sizeof(float));
        memcpy(qin + (size_t)b * (D + A) + D, a + (size_t)b * A, A * sizeof(float));
    }
}

/* Rearranges z [n] so that z[k] holds the value of rank k, none above it
   before it and none below it after (Wirth's selection; a NaN moves
   anywhere, and the loss it reaches then stops or skips the batch). */
static void select_rank(float *z, int n, int k)
{
    for (int lo = 0, hi = n - 1; lo < hi;) {
        float x = z[k];
        int i = lo, j = hi;
        do {
            while (z[i] < x) i++;
            while (x < z[j]) j--;
            if (i <= j) {
                float t = z[i];
                z[i++] = z[j];
                z[j--] = t;
            }
        } while (i <= j);
        if (j < k) lo = i;
        if (k < i) hi = j;
    }
}

/* TQC's targets: a row's quantiles of every target critic pooled, the
   n_critics * drop largest left out, and each kept z_t (in no order: the
   loss sums over them) gives y[b][t] = r + discount (z_t - alpha logp'). */
static void tqc_targets(ac *p, float alpha, const float *qin_n)
{
    const ac_settings *c = &p->cfg;
    ac_workspace *w = &p->ws;
    uint32_t B = c->batch, M = c->n_quantiles, T = c->n_target;
    const float *qt[AC_MAX_CRITICS];
    for (uint32_t j = 0; j < c->n_critics; j++) qt[j] = rl_mlp_forward(&p->q_t[j], p->critic_t.data, qin_n, B);
    for (uint32_t b = 0; b < B; b++) {
        for (uint32_t j = 0; j < c->n_critics; j++) memcpy(w->zq + j * M, qt[j] + (size_t)b * M, M * sizeof(float));
        if (T < c->n_critics * M) select_rank(w->zq, (int)(c->n_critics * M), (int)T - 1);
        for (uint32_t t = 0; t < T; t++)
            w->y[(size_t)b * T + t] = w->rew[b] + w->disc[b] * (w->zq[t] - alpha * w->logp[b]);
    }
}

/* SAC's a' ~ pi(s') and its log-probability for the batch's next
   observations (the actor by its running statistics where it has them). */
static void next_actions(ac *p)
{
    ac_workspace *w = &p->ws;
    uint32_t B = p->cfg.batch;
    const float *out = rl_mlp_forward(&p->pi, p->actor.data, w->xn, B);
    for (size_t k = 0; k < (size_t)B * p->cfg.dim; k++) w->eps[k] = (float)rl_rng_normal(&p->sample);
    ac_squash(p, out, w->eps, B, w->a, w->logp);
}

/* The targets y = r + discount (min_j Q'_j(s', a') - alpha logp') for
   SAC's a' ~ pi(s'), TQC's quantiles of it, or TD3's smoothed target
   action. */
static void targets(ac *p, float alpha)
{
    const ac_settings *c = &p->cfg;
    ac_workspace *w = &p->ws;
    uint32_t B = c->batch, A = c->dim;
    if (c->sde) { /* one matrix for the step's targets and its actor loss, as Stable-Baselines3 draws it */
        rl_gsde_std(w->sde_std, p->actor.data + p->sde_log_std, c->full_std, c->latent, A); /* the actor's too */
        rl_gsde_sample(w->sde_std, c->latent, A, &p->sample, w->sde_mat);
        const float *out = rl_mlp_forward(&p->pi, p->actor.data, w->xn, B);
        ac_sde_squash(p, out, ac_sde_latent(p), w->sde_mat, 0, B, w->a, w->logp);
    } else if (ac_squashed(c)) {
        next_actions(p);
    } else {
        const float *out = rl_mlp_forward(&p->pi_t, p->actor_t.data, w->xn, B);
        for (size_t k = 0; k < (size_t)B * A; k++) {
            float n = c->target_noise > 0 ? c->target_noise * (float)rl_rng_normal(&p->sample) : 0.0f;
            n = n < -c->noise_clip ? -c->noise_clip : n > c->noise_clip ? c->noise_clip : n;
            float t = tanhf(out[k]) + n;
            w->a[k] = t < -1.0f ? -1.0f : t > 1.0f ? 1.0f : t;
        }
    }
    float *qin_n = w->dqin; /* scratch until the critic's backward */
    critic_input(p, w->xn, w->a, qin_n);
    if (c->kind == AC_TQC) {
        tqc_targets(p, alpha, qin_n);
        return;
    }
    for (uint32_t j = 0; j < c->n_critics; j++) {
        const float *qt = rl_mlp_forward(&p->q_t[j], p->critic_t.data, qin_n, B);
        for (uint32_t b = 0; b < B; b++) w->y[b] = j == 0 || qt[b] < w->y[b] ? qt[b] : w->y[b];
    }
    for (uint32_t b = 0; b < B; b++) {
        float v = w->y[b] - (ac_squashed(c) ? alpha * w->logp[b] : 0.0f);
        w->y[b] = w->rew[b] + w->disc[b] * v;
    }
}

/* One Adam step of a network; RL_OK, 1 when on_nonfinite = "skip" skipped a
   non-finite gradient, or an error. */
static int step(ac *p, rl_adam *opt, rl_params *net, float lr, const char *what, char *err, size_t errlen)
{
    float norm;
    long at;
    if (rl_replicated_adam_step(p->replicas > 1 ? p->rep : NULL, 0, opt, net->data, net->grad, net->n,
                                p->cfg.max_grad_norm, lr, &norm, &at) != RL_OK) {
        RL_ERRF(err, errlen, "the replicas' gradient sum failed");
        return RL_EINVAL;
    }
    if (isfinite(norm)) return RL_OK;
    if (p->cfg.skip_nonfinite) return 1;
    char why[160];
    RL_ERRF(err, errlen, "%s (%s) at gradient step %llu", rl_grad_problem(net, at, why, sizeof why), what,
            (unsigned long long)p->grad_steps + 1);
    return RL_ENONFINITE;
}

/* The critics' Adam step once their loss (and gradients) are in: a
   non-finite loss stops the run or skips the batch (1); the loss and the
   mean Q value go to the metrics. */
static int critic_step(ac *p, double loss, double q_mean, char *err, size_t errlen)
{
    if (!isfinite(loss)) {
        if (p->cfg.skip_nonfinite) return 1;
        RL_ERRF(err, errlen, "non-finite critic loss at gradient step %llu", (unsigned long long)p->grad_steps + 1);
        return RL_ENONFINITE;
    }
    int rc = step(p, &p->adam_critic, &p->critic, p->cfg.critic_lr, "critic", err, errlen);
    if (rc == RL_OK) {
        p->m.critic_loss += loss;
        p->m.q += q_mean;
        p->m.n++;
    }
    return rc;
}

/* TQC's quantile Huber loss of critic output q [B][M] against the targets:
   the mean over rows, critics, quantiles m and targets t of
   |tau_m - [d < 0]| huber(d), d = y_t - q_m, tau_m = (m + 1/2) / M (as
   sb3-contrib's quantile_huber_loss, not summed over quantiles); its
   gradient (scale: 1 / that mean's count) into dq.  Returns the row sums. */
static double quantile_huber(const ac *p, const float *q, float *dq, double scale)
{
    const ac_settings *c = &p->cfg;
    uint32_t M = c->n_quantiles, T = c->n_target;
    float *restrict l = p->ws.zq, inv_m = 1.0f / (float)M; /* zq: free after the targets */
    double loss = 0;
    for (uint32_t b = 0; b < c->batch; b++) {
        const float *restrict y = p->ws.y + (size_t)b * T, *restrict qb = q + (size_t)b * M;
        float *restrict g = dq + (size_t)b * M;
        memset(l, 0, M * sizeof(float));
        memset(g, 0, M * sizeof(float));
        for (uint32_t t = 0; t < T; t++) /* quantiles inner, branch-free: no reduction, so it vectorizes */
            for (uint32_t m = 0; m < M; m++) {
                float d = y[t] - qb[m], ad = fabsf(d), a = 0.5f * (ad + 1.0f - fabsf(ad - 1.0f)); /* min(|d|, 1) */
                float wt = fabsf(((float)m + 0.5f) * inv_m - (float)(d < 0));
                l[m] += wt * a * (ad - 0.5f * a); /* Huber: d^2 / 2 within 1, |d| - 1/2 beyond */
                g[m] += wt * copysignf(a, d);     /* d clipped to [-1, 1] */
            }
        for (uint32_t m = 0; m < M; m++) {
            loss += l[m];
            g[m] = (float)(-g[m] * scale);
        }
    }
    return loss;
}

/* The critics towards y: SAC's loss is 0.5 sum_j mean (Q_j - y)^2 and TD3's
   sum_j mean (Q_j - y)^2, as Stable-Baselines3 has them; TQC's the
   quantile Huber loss. */
static int critic_update(ac *p, char *err, size_t errlen)
{
    const ac_settings *c = &p->cfg;
    ac_workspace *w = &p->ws;
    uint32_t B = c->batch, M = c->n_quantiles;
    double Bg = (double)B * p->replicas, scale = c->kind == AC_TD3 ? 2.0 : 1.0, sums[2] = {0, 0};
    double count = c->kind == AC_TQC ? Bg * c->n_critics * M * c->n_target : Bg; /* the loss is a mean over these */
    rl_params_zero_grad(&p->critic);
    for (uint32_t j = 0; j < c->n_critics; j++) {
        const float *q = rl_mlp_forward(&p->q[j], p->critic.data, w->qin, B);
        if (c->kind == AC_TQC) {
            sums[0] += quantile_huber(p, q, w->dq, 1.0 / count);
            for (size_t k = 0; k < (size_t)B * M; k++) sums[1] += q[k] / ((double)c->n_critics * M);
            rl_mlp_backward(&p->q[j], p->critic.data, p->critic.grad, w->qin, w->dq, NULL, B);
            continue;
        }
        for (uint32_t b = 0; b < B; b++) {
            double d = (double)q[b] - w->y[b];
            sums[0] += scale * 0.5 * d * d;
            sums[1] += q[b] / c->n_critics;
            w->dq[b] = (float)(scale * d / Bg);
        }
        rl_mlp_backward(&p->q[j], p->critic.data, p->critic.grad, w->qin, w->dq, NULL, B);
    }
    rl_replicas_sum_f64(p->rep, sums, 2);
    return critic_step(p, sums[0] / count, sums[1] / Bg, err, errlen);
}

/* CrossQ's critic step (in place of targets() and critic_update()): the
   next actions from the actor by its running statistics, then the current
   rows (s, a) and the next ones (s', a') through each critic as one batch
   of 2B, normalized by that batch's statistics (which move the running
   ones); the targets y = r + discount (min_j Q_j(s', a') - alpha logp')
   held constant; SAC's loss 0.5 sum_j mean (Q_j(s, a) - y)^2 on the
   current rows. */
static int crossq_critic_update(ac *p, float alpha, char *err, size_t errlen)
{
    const ac_settings *c = &p->cfg;
    ac_workspace *w = &p->ws;
    uint32_t B = c->batch, D = c->obs_size, A = c->dim;
    next_actions(p);
    memcpy(w->qin2, w->qin, (size_t)B * (D + A) * sizeof(float));
    critic_input(p, w->xn, w->a, w->qin2 + (size_t)B * (D + A));
    int renorm = p->bn_steps[1] > c->bn_warmup; /* as sb3-contrib counts its warm-up */
    const float *q[AC_MAX_CRITICS];
    for (uint32_t j = 0; j < c->n_critics; j++)
        q[j] = rl_mlp_forward_train(&p->q[j], p->critic.data, w->qin2, 2 * B, renorm);
    p->bn_steps[1]++;
    for (uint32_t b = 0; b < B; b++) {
        float m = q[0][B + b];
        for (uint32_t j = 1; j < c->n_critics; j++) m = q[j][B + b] < m ? q[j][B + b] : m;
        w->y[b] = w->rew[b] + w->disc[b] * (m - alpha * w->logp[b]);
    }
    double sums[2] = {0, 0};
    rl_params_zero_grad(&p->critic);
    memset(w->dq2 + B, 0, B * sizeof(float)); /* the next rows are the targets': no gradient */
    for (uint32_t j = 0; j < c->n_critics; j++) {
        for (uint32_t b = 0; b < B; b++) {
            double d = (double)q[j][b] - w->y[b];
            sums[0] += 0.5 * d * d;
            sums[1] += q[j][b] / c->n_critics;
            w->dq2[b] = (float)(d / B);
        }
        rl_mlp_backward(&p->q[j], p->critic.data, p->critic.grad, w->qin2, w->dq2, NULL, 2 * B);
    }
    return critic_step(p, sums[0] / B, sums[1] / B, err, errlen);
}

/* SAC's actor (loss mean(alpha logp - min_j Q_j(s, a)), a ~ pi(s)
   reparameterized; TQC's with the mean of every critic's quantiles in
   place of the minimum) and entropy coefficient (loss -mean(log_alpha
   (logp + target_entropy))), or TD3's actor (loss -mean Q_0(s, pi(s))).
   CrossQ's actor is SAC's, by its batch's statistics (which move its
   running ones), through critics by their running statistics. */
static int actor_update(ac *p, float alpha, char *err, size_t errlen)
{
    const ac_settings *c = &p->cfg;
    ac_workspace *w = &p->ws;
    uint32_t B = c->batch, D = c->obs_size, A = c->dim;
    double Bg = (double)B * p->replicas;
    int sac = ac_squashed(c);
    const float *out = c->kind == AC_CROSSQ
        ? rl_mlp_forward_train(&p->pi, p->actor.data, w->x, B, p->bn_steps[0]++ > c->bn_warmup)
        : rl_mlp_forward(&p->pi, p->actor.data, w->x, B);
    if (c->sde) { /* the step's matrix and scales, from targets() */
        ac_sde_squash(p, out, ac_sde_latent(p), w->sde_mat, 0, B, w->a, w->logp);
    } else if (sac) {
        for (size_t k = 0; k < (size_t)B * A; k++) w->eps[k] = (float)rl_rng_normal(&p->sample);
        ac_squash(p, out, w->eps, B, w->a, w->logp);
    } else {
        for (size_t k = 0; k < (size_t)B * A; k++) w->a[k] = tanhf(out[k]);
    }
    critic_input(p, w->x, w->a, w->qin);
    /* dL/dQ: -1/Bg on the critic each row takes (the smaller for SAC) */
    uint32_t nq = sac ? c->n_critics : 1;
    const float *qv[AC_MAX_CRITICS] = {NULL};
    for (uint32_t j = 0; j < nq; j++) qv[j] = rl_mlp_forward(&p->q[j], p->critic.data, w->qin, B);
    double sums[3] = {0, 0, 0};
    memset(w->dqin, 0, (size_t)B * (D + A) * sizeof(float));
    float *dsel = w->y;                                     /* targets are used up */
    for (uint32_t b = 0; c->kind == AC_TQC && b < B; b++) { /* every quantile's share of the mean */
        double qm = 0, M = c->n_quantiles;
        for (uint32_t j = 0; j < nq; j++)
            for (uint32_t m = 0; m < M; m++) qm += qv[j][(size_t)b * c->n_quantiles + m];
        sums[0] += alpha * w->logp[b] - qm / (nq * M);
        for (uint32_t m = 0; m < M; m++) dsel[(size_t)b * c->n_quantiles + m] = (float)(-1.0 / (Bg * nq * M));
    }
    for (uint32_t j = 0; c->kind == AC_TQC && j < nq; j++)
        rl_mlp_backward(&p->q[j], p->critic.data, NULL, w->qin, dsel, w->dqin, B); /* the critics stay */
    for (uint32_t j = 0; c->kind != AC_TQC && j < nq; j++) {
        for (uint32_t b = 0; b < B; b++) {
            int pick = nq == 1 || (j == 0 ? qv[0][b] <= qv[1][b] : qv[1][b] < qv[0][b]);
            dsel[b] = pick ? (float)(-1.0 / Bg) : 0.0f;
            if (pick) sums[0] += (sac ? alpha * w->logp[b] : 0.0f) - qv[j][b];
        }
        rl_mlp_backward(&p->q[j], p->critic.data, NULL, w->qin, dsel, w->dqin, B); /* the critics stay */
    }
    /* through the squashing into the actor's outputs: SAC's sample and its
       alpha logp term (gSDE's into the means and the noise's log-stds), or
       TD3's tanh */
    if (sac) memset(w->dout, 0, (size_t)B * 2 * A * sizeof(float));
    rl_params_zero_grad(&p->actor);
    for (uint32_t b = 0; b < B; b++) {
        const float *a = w->a + (size_t)b * A, *da = w->dqin + (size_t)b * (D + A) + D;
        if (c->sde) {
            float *d = w->dout + (size_t)b * A;
            const float *mu = w->sde_mu + (size_t)b * A, *o = out + (size_t)b * A;
            rl_gsde_squashed_backward(d, p->actor.grad + p->sde_log_std, mu, ac_sde_latent(p) + (size_t)b * c->latent,
                                      w->sde_mat, w->sde_std, p->actor.data + p->sde_log_std, c->full_std,
                                      w->u + (size_t)b * A, a, da, c->latent, A, alpha, Bg);
            for (uint32_t k = 0; k < A; k++) /* the clip passes no gradient */
                if (o[k] < -AC_SDE_MEAN_CLIP || o[k] > AC_SDE_MEAN_CLIP) d[k] = 0.0f;
            sums[1] += -w->logp[b], sums[2] += w->logp[b] + c->target_entropy;
            continue;
        }
        if (sac) {
            float *d = w->dout + (size_t)b * 2 * A;
            const float *ls = out + (size_t)b * 2 * A + A;
            rl_squashed_gauss_backward(d, d + A, ls, w->eps + (size_t)b * A, a, da, A, AC_LOG_STD_MIN, AC_LOG_STD_MAX,
                                       alpha, Bg);
            sums[1] += -w->logp[b], sums[2] += w->logp[b] + c->target_entropy;
            continue;
        }
        for (uint32_t k = 0; k < A; k++) w->dout[(size_t)b * A + k] = da[k] * (1.0f - a[k] * a[k]);
    }
    rl_mlp_backward(&p->pi, p->actor.data, p->actor.grad, w->x, w->dout, NULL, B);
    rl_replicas_sum_f64(p->rep, sums, 3);
    int rc = step(p, &p->adam_actor, &p->actor, c->actor_lr, "actor", err, errlen);
    if (rc != RL_OK) return rc;
    if (sac && c->ent_auto) { /* d/dlog_alpha of -mean(log_alpha (logp + target)) */
        float g = (float)(-sums[2] / Bg), la = p->log_alpha;
        rl_adam_step(&p->adam_alpha, &la, &g, c->actor_lr);
        p->log_alpha = la;
    }
    p->m.actor_loss += sums[0] / Bg;
    p->m.entropy += sums[1] / Bg;
    p->m.alpha += alpha;
    p->m.n_actor++;
    return RL_OK;
}

int ac_train(ac *p, uint64_t n, char *err, size_t errlen)
{
    const ac_settings *c = &p->cfg;
    for (uint64_t k = 0; k < n; k++) {
        float alpha = ac_squashed(c) ? (c->ent_auto ? expf(p->log_alpha) : c->ent_init) : 0.0f;
        sample_batch(p);
        int rc;
        if (c->kind == AC_CROSSQ) {
            rc = crossq_critic_update(p, alpha, err, errlen);
        } else {
            targets(p, alpha);
            rc = critic_update(p, err, errlen);
        }
        if (rc == RL_OK && (p->grad_steps + 1) % c->policy_delay == 0) rc = actor_update(p, alpha, err, errlen);
        if (rc == 1) {
            p->skipped++;
            continue;
        }
        if (rc != RL_OK) return rc;
        p->grad_steps++;
        if (c->kind != AC_CROSSQ && p->grad_steps % c->target_interval == 0 && p->grad_steps % c->policy_delay == 0) {
            rl_params_polyak(&p->critic_t, &p->critic, c->tau);
            if (c->kind == AC_TD3) rl_params_polyak(&p->actor_t, &p->actor, c->tau);
        }
    }
    return RL_OK;
}
