/* PPO's update on a full rollout: GAE, then n_epochs over shuffled
   minibatches (whole bptt_horizon sequences when recurrent) of the clipped
   surrogate + value loss - entropy bonus, global-norm clipping and Adam,
   with the replicas' sums where there are several. */
#include <math.h>
#include <string.h>

#include "ppo.h"
#include "ppo_math.h"

/* Training forward of the minibatch in p->ws.x (L x S rows): logits into
   p->ws.logits, values into p->ws.vpred. */
static void train_forward(ppo *p, uint32_t L, uint32_t S)
{
    uint32_t M = L * S;
    if (p->cfg.shared) {
        const float *f = tower_forward(&p->towers[0], p->p.data, p->ws.x, p->ws.h0[0], p->ws.c0[0], p->ws.reset, L, S);
        uint32_t F = p->head_pi.dims[0];
        float *feat = p->ws.feat_scratch;
        rl_activation_forward(p->cfg.act, feat, f, (size_t)M * F);
        memcpy(p->ws.logits, rl_mlp_forward(&p->head_pi, p->p.data, feat, M), (size_t)M * p->cfg.n_out * sizeof(float));
        memcpy(p->ws.vpred, rl_mlp_forward(&p->head_v, p->p.data, feat, M), M * sizeof(float));
        return;
    }
    memcpy(p->ws.logits, tower_forward(&p->towers[0], p->p.data, p->ws.x, p->ws.h0[0], p->ws.c0[0], p->ws.reset, L, S),
           (size_t)M * p->cfg.n_out * sizeof(float));
    /* The critic's sequences start from its own stored state. */
    memcpy(p->ws.vpred, tower_forward(&p->towers[1], p->p.data, p->ws.x, p->ws.h0[1], p->ws.c0[1], p->ws.reset, L, S),
           M * sizeof(float));
}

static void train_backward(ppo *p, uint32_t L, uint32_t S)
{
    uint32_t M = L * S;
    float *g = p->p.grad;
    if (p->cfg.shared) {
        uint32_t F = p->head_pi.dims[0];
        size_t MF = (size_t)M * F;
        float *feat = p->ws.feat_scratch, *dfeat = feat + MF, *dpre = dfeat + MF;
        memset(dfeat, 0, MF * sizeof(float));
        memset(dpre, 0, MF * sizeof(float));
        rl_mlp_backward(&p->head_pi, p->p.data, g, feat, p->ws.dlogits, dfeat, M);
        rl_mlp_backward(&p->head_v, p->p.data, g, feat, p->ws.dv, dfeat, M);
        rl_activation_backward(p->cfg.act, dpre, dfeat, feat, MF);
        tower_backward(&p->towers[0], p->p.data, g, p->ws.x, dpre, L, S);
        return;
    }
    tower_backward(&p->towers[0], p->p.data, g, p->ws.x, p->ws.dlogits, L, S);
    tower_backward(&p->towers[1], p->p.data, g, p->ws.x, p->ws.dv, L, S);
}

/* Fills the minibatch workspaces for rollout rows p->ws.rows_idx (time-major
   when recurrent) and returns the number of rows. */
static void gather(ppo *p, uint32_t M, uint32_t S)
{
    size_t D = p->cfg.obs_size, H = p->cfg.lstm_hidden;
    for (uint32_t r = 0; r < M; r++)
        memcpy(p->ws.x + r * D, p->ro.obs + (size_t)p->ws.rows_idx[r] * D, D * sizeof(float));
    if (!p->cfg.recurrent) return;
    for (uint32_t k = 0; k < p->cfg.n_towers; k++)
        for (uint32_t s = 0; s < S; s++) { /* row l = 0 of sequence s: its stored state */
            uint32_t row = p->ws.rows_idx[s];
            memcpy(p->ws.h0[k] + s * H, p->stored_h[k] + (size_t)row * H, H * sizeof(float));
            memcpy(p->ws.c0[k] + s * H, p->stored_c[k] + (size_t)row * H, H * sizeof(float));
        }
}

/* GAE over the rollout, bootstrapped from V of the observation after its
   last step (continuing the live recurrent states), and the explained
   variance of the rollout's values over all replicas. */
static void advantages(ppo *p)
{
    uint32_t T = p->cfg.n_steps, N = p->cfg.num_envs;
    size_t TN = (size_t)T * N;
    float *last_v = p->ws.dv; /* N <= rows <= M */
    lstm_state copy[2];
    if (p->cfg.recurrent) {
        size_t H = p->cfg.lstm_hidden;
        for (uint32_t k = 0; k < p->cfg.n_towers; k++) { /* borrow eval-sized buffers as copies */
            memcpy(p->eval[k].h, p->live[k].h, N * H * sizeof(float));
            memcpy(p->eval[k].c, p->live[k].c, N * H * sizeof(float));
            copy[k] = p->eval[k];
        }
    }
    ppo_infer(p, p->ro.last_obs, p->cfg.recurrent ? copy : NULL, N, p->ws.logits, last_v);
    if (p->cfg.recurrent) /* the eval states were borrowed: start evaluation afresh */
        for (uint32_t k = 0; k < p->cfg.n_towers; k++) {
            memset(p->eval[k].h, 0, (size_t)p->cfg.rows * p->cfg.lstm_hidden * sizeof(float));
            memset(p->eval[k].c, 0, (size_t)p->cfg.rows * p->cfg.lstm_hidden * sizeof(float));
        }
    rl_rollout_gae(&p->ro, last_v, p->cfg.gamma, p->cfg.lambda);
    double sums[2] = {0, 0};
    for (size_t k = 0; k < TN; k++) sums[0] += p->ro.ret[k], sums[1] += p->ro.ret[k] - p->ro.values[k];
    rl_replicas_sum_f64(p->rep, sums, 2);
    double mr = sums[0] / ((double)TN * p->cfg.replicas), mres = sums[1] / ((double)TN * p->cfg.replicas);
    double var[2] = {0, 0};
    for (size_t k = 0; k < TN; k++) {
        double a = p->ro.ret[k] - mr, b = p->ro.ret[k] - p->ro.values[k] - mres;
        var[0] += a * a, var[1] += b * b;
    }
    rl_replicas_sum_f64(p->rep, var, 2);
    p->m.explained_variance = var[0] > 0 ? 1.0 - var[1] / var[0] : NAN;
}

/* The losses of a gathered minibatch (its forward done: logits, vpred)
   and their gradients in dlogits, dv and (a box) dlogstd: each row's
   log-probability and entropy under the policy's distribution and its
   stored mask (none on a masked logit).  M rows here, Mg over all
   replicas: the advantages' statistics and the means are over all of it,
   and part = {policy, value, entropy, kl, clipped} is summed over them, so
   every replica decides alike. */
static void minibatch_losses(ppo *p, uint32_t M, uint32_t Mg, float clip, double part[5])
{
    double amean = 0, astd = 0;
    for (uint32_t r = 0; r < M; r++) amean += p->ro.adv[p->ws.rows_idx[r]];
    rl_replicas_sum_f64(p->rep, &amean, 1);
    amean /= Mg;
    for (uint32_t r = 0; r < M; r++) {
        double d = p->ro.adv[p->ws.rows_idx[r]] - amean;
        astd += d * d;
    }
    rl_replicas_sum_f64(p->rep, &astd, 1);
    astd = Mg > 1 ? sqrt(astd / (Mg - 1)) : 1.0;
    memset(p->ws.dlogits, 0, (size_t)M * p->cfg.n_out * sizeof(float));
    size_t C = p->cfg.comps, W = p->cfg.mask_width, A = p->cfg.dim;
    const int32_t *acts = p->cfg.discrete ? rl_rollout_actions(&p->ro) : NULL;
    for (uint32_t r = 0; r < M; r++) { /* a few values a row: copied in place, not through memcpy */
        uint32_t row = p->ws.rows_idx[r];
        for (size_t c = 0; acts && c < C; c++) p->ws.mb_act[r * C + c] = acts[row * C + c];
        for (size_t w = 0; w < W; w++) p->ws.mb_mask[r * W + w] = p->ro.masks[row * W + w];
        for (size_t k = 0; k < A; k++) p->ws.mb_box[r * A + k] = p->ro.box_actions[row * A + k];
    }
    if (p->cfg.sde) rl_mpdist_gsde_rows(p->dist, ppo_latent(p), NULL); /* the minibatch's, from its forward */
    double ent =
        rl_mpdist_logp(p->dist, p->ws.logits, W ? p->ws.mb_mask : NULL, p->ws.mb_act, p->ws.mb_box, M, p->ws.mb_logp);
    double pg = 0, vl = 0, kl = 0, clipped_n = 0;
    for (uint32_t r = 0; r < M; r++) {
        uint32_t row = p->ws.rows_idx[r];
        float adv = p->ro.adv[row], lp = p->ws.mb_logp[r], dlogp, ratio;
        if (p->cfg.norm_adv && Mg > 1) adv = (float)((adv - amean) / (astd + 1e-8));
        int was_clipped;
        pg += ppo_policy_loss(lp, p->ro.logp[row], adv, clip, &dlogp, &was_clipped, &ratio);
        clipped_n += was_clipped;
        kl += (ratio - 1.0f) - (lp - p->ro.logp[row]);
        p->ws.mb_glogp[r] = dlogp / Mg;
        float dvr;
        vl += ppo_value_loss(p->cfg.vloss, p->ws.vpred[r], p->ro.values[row], p->ro.ret[row], p->cfg.vclip, &dvr);
        p->ws.dv[r] = p->cfg.vf_coef * dvr / Mg;
    }
    if (A) memset(p->ws.dlogstd, 0, p->cfg.n_log_std * sizeof(float));
    rl_mpdist_backward(p->dist, p->ws.logits, p->ws.mb_act, p->ws.mb_box, M, p->ws.mb_glogp, -p->cfg.ent_coef / Mg,
                       p->ws.dlogits, p->ws.dlogstd);
    part[0] = pg, part[1] = vl, part[2] = ent, part[3] = kl, part[4] = clipped_n;
    rl_replicas_sum_f64(p->rep, part, 5);
}

/* Backward and one Adam step for a minibatch whose losses (summed over Mg
   rows) are part; RL_OK, 1 when on_nonfinite = "skip" skipped it, or an
   error. */
static int minibatch_step(ppo *p, uint32_t Lm, uint32_t S, float lr, const double part[5], uint32_t Mg, char *err,
                          size_t errlen)
{
    double pg = part[0], vl = part[1], ent = part[2];
    double loss = pg / Mg + p->cfg.vf_coef * vl / Mg - p->cfg.ent_coef * ent / Mg;
    if (!isfinite(loss) && p->cfg.skip_nonfinite) return 1;
    if (!isfinite(loss)) {
        RL_ERRF(err, errlen, "non-finite PPO loss (policy %g, value %g) in update %llu", pg / Mg, vl / Mg,
                (unsigned long long)p->updates + 1);
        return RL_ENONFINITE;
    }
    rl_params_zero_grad(&p->p);
    train_backward(p, Lm, S);
    for (uint32_t k = 0; p->cfg.box && k < p->cfg.n_log_std; k++) p->p.grad[p->cfg.log_std_off + k] += p->ws.dlogstd[k];
    float norm;
    long at;
    if (rl_replicated_adam_step(p->cfg.replicas > 1 ? p->rep : NULL, 1, &p->adam, p->p.data, p->p.grad, p->p.n,
                                p->cfg.max_grad_norm, lr, &norm, &at) != RL_OK) {
        RL_ERRF(err, errlen, "the replicas' gradient sum failed");
        return RL_EINVAL;
    }
    if (isfinite(norm)) return RL_OK;
    if (p->cfg.skip_nonfinite) return 1;
    char why[160];
    RL_ERRF(err, errlen, "%s in PPO update %llu", rl_grad_problem(&p->p, at, why, sizeof why),
            (unsigned long long)p->updates + 1);
    return RL_ENONFINITE;
}

/* The epochs over a full rollout: shuffled minibatches of rows (of whole
   sequences when recurrent), each a forward, the losses and a step. */
int ppo_train_rollout(ppo *p, char *err, size_t errlen)
{
    uint32_t N = p->cfg.num_envs, L = p->cfg.bptt;
    size_t TN = (size_t)p->cfg.n_steps * N;
    advantages(p);
    float lr = p->cfg.lr_linear ? rl_schedule_linear(p->cfg.lr, 0.0f, p->progress) : p->cfg.lr;
    float clip = p->cfg.clip_linear ? rl_schedule_linear(p->cfg.clip, 0.0f, p->progress) : p->cfg.clip;
    uint32_t units = p->cfg.recurrent ? (uint32_t)(TN / L) : (uint32_t)TN; /* sequences or rows */
    uint32_t per_mb = p->cfg.recurrent ? p->cfg.batch / L : p->cfg.batch;
    for (uint32_t u = 0; u < units; u++) p->ws.perm[u] = u;
    for (uint32_t e = 0; e < p->cfg.epochs; e++) {
        for (uint32_t u = units - 1; u > 0; u--) { /* Fisher-Yates */
            uint32_t j = rl_rng_below(&p->shuffle, u + 1), tmp = p->ws.perm[u];
            p->ws.perm[u] = p->ws.perm[j];
            p->ws.perm[j] = tmp;
        }
        for (uint32_t start = 0; start + per_mb <= units; start += per_mb) {
            uint32_t S = p->cfg.recurrent ? per_mb : 1, Lm = p->cfg.recurrent ? L : per_mb,
                     M = per_mb * (p->cfg.recurrent ? L : 1);
            if (p->cfg.recurrent)
                ppo_sequence_rows(p->ws.rows_idx, p->ws.reset, p->ws.perm + start, S, L, N, p->ro.start);
            else
                memcpy(p->ws.rows_idx, p->ws.perm + start, M * sizeof(uint32_t));
            gather(p, M, S);
            train_forward(p, Lm, S);
            uint32_t Mg = M * p->cfg.replicas;
            double part[5];
            minibatch_losses(p, M, Mg, clip, part);
            int rc = minibatch_step(p, Lm, S, lr, part, Mg, err, errlen);
            if (rc == 1) {
                p->skipped++;
                continue;
            }
            if (rc != RL_OK) return rc;
            p->m.policy_loss += part[0] / Mg;
            p->m.value_loss += part[1] / Mg;
            p->m.entropy += part[2] / Mg;
            p->m.approx_kl += part[3] / Mg;
            p->m.clip_fraction += part[4] / Mg;
            p->m.n++;
        }
    }
    p->updates++;
    /* the steps are sharded (a gather per rollout costs little): each
       replica's Adam moments are current on its slice only, so they are
       made whole before the host may save them */
    if (p->cfg.replicas > 1 && rl_adam_gather(p->rep, &p->adam) != RL_OK) {
        RL_ERRF(err, errlen, "the replicas' optimizer state gather failed");
        return RL_EINVAL;
    }
    return RL_OK;
}
