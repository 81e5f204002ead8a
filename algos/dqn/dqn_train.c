/* DQN's gradient step; see dqn.h. */
#include <math.h>
#include <string.h>

#include "dqn.h"

/* One gradient step on a sampled batch. */
int dqn_train_step(dqn *d, char *err, size_t errlen)
{
    uint32_t B = d->batch, A = d->n_actions, D = d->obs_size, size = rl_replay_size(&d->rb);
    double beta = d->beta0 + (1.0 - d->beta0) * d->progress, max_w = 1.0, sum_w = 0;
    if (d->prioritized) {
        double total = sumtree_total(&d->tree), seg = total / B;
        double pmin = sumtree_min(&d->tree) / total;
        max_w = pow((double)size * pmin, -beta);
        for (uint32_t j = 0; j < B; j++) {
            double mass = (j + rl_rng_uniform_d(&d->sample)) * seg;
            uint32_t s = sumtree_find(&d->tree, mass < total ? mass : total * 0.999999);
            if (s >= size) s = size - 1; /* rounding at the right edge */
            d->slots[j] = s;
            double pj = sumtree_get(&d->tree, s) / total;
            d->weights[j] = (float)(pow((double)size * pj, -beta) / max_w);
            sum_w += d->weights[j];
        }
    } else {
        for (uint32_t j = 0; j < B; j++) d->slots[j] = rl_rng_below(&d->sample, size);
    }
    for (uint32_t j = 0; j < B; j++) {
        rl_nstep ns = rl_replay_nstep(&d->rb, d->slots[j], d->n_step, d->gamma);
        rl_replay_obs_input(&d->rb, &d->obs.info, d->slots[j], 0, d->x + (size_t)j * D);
        rl_replay_obs_input(&d->rb, &d->obs.info, ns.boot_slot, 1, d->xn + (size_t)j * D);
        d->ret[j] = ns.ret;
        d->disc[j] = ns.discount;
        if (d->mb_masks) /* the bootstrap observation's mask */
            memcpy(d->mb_masks + (size_t)j * A, d->next_masks + (size_t)ns.boot_slot * A, A);
    }
    if (d->dbl) { /* the online net's choice, kept before its workspace is reused */
        const float *qn = qnet_forward(&d->q, d->online.data, d->xn, B, 0);
        memcpy(d->qn, qn, (size_t)B * A * sizeof(float));
    }
    const float *qt = qnet_forward(&d->qt, d->target.data, d->xn, B, 0);
    dqn_td_targets(d->y, qt, d->dbl ? d->qn : NULL, d->mb_masks, d->ret, d->disc, B, A);
    const float *q = qnet_forward(&d->q, d->online.data, d->x, B, 0);
    double qsum = 0;
    for (uint32_t j = 0; j < B; j++) {
        d->pred[j] = q[(size_t)j * A + d->rb.actions[d->slots[j]]];
        qsum += d->pred[j];
    }
    memset(d->dpred, 0, B * sizeof(float));
    const float *w = d->prioritized ? d->weights : NULL;
    float loss = d->huber ? rl_huber_loss(d->dpred, d->pred, d->y, w, B) : rl_mse_loss(d->dpred, d->pred, d->y, w, B);
    if (d->R > 1) { /* the mean over all replicas' rows; every replica decides alike */
        double part[3] = {loss, qsum, sum_w};
        d->rep->allreduce_f64(d->rep->ctx, part, 3);
        loss = (float)(part[0] / d->R), qsum = part[1], sum_w = part[2];
        for (uint32_t j = 0; j < B; j++) d->dpred[j] /= (float)d->R;
        B *= d->R; /* from here on only the global means */
    }
    if (!isfinite(loss)) {
        if (d->skip_nonfinite) {
            d->skipped++;
            return RL_OK;
        }
        RL_ERRF(err, errlen, "non-finite TD loss at gradient step %llu (q: mean %g)",
                (unsigned long long)d->grad_steps + 1, qsum / B);
        return RL_ENONFINITE;
    }
    uint32_t Bl = d->batch; /* this replica's rows */
    memset(d->dq, 0, (size_t)Bl * A * sizeof(float));
    for (uint32_t j = 0; j < Bl; j++) d->dq[(size_t)j * A + d->rb.actions[d->slots[j]]] = d->dpred[j];
    rl_params_zero_grad(&d->online);
    qnet_backward(&d->q, d->online.data, d->online.grad, d->x, d->dq, Bl);
    float lr = d->lr_linear ? rl_schedule_linear(d->lr, 0.0f, d->progress) : d->lr, norm;
    long at;
    if (rl_replicated_adam_step(d->R > 1 ? d->rep : NULL, d->shard, &d->adam, d->online.data, d->online.grad,
                                d->online.n, d->max_grad_norm, lr, &norm, &at) != RL_OK) {
        RL_ERRF(err, errlen, "the replicas' gradient sum failed");
        return RL_EINVAL;
    }
    if (!isfinite(norm)) {
        if (d->skip_nonfinite) {
            d->skipped++;
            return RL_OK;
        }
        char why[160];
        RL_ERRF(err, errlen, "%s at gradient step %llu", rl_grad_problem(&d->online, at, why, sizeof why),
                (unsigned long long)d->grad_steps + 1);
        return RL_ENONFINITE;
    }
    if (d->prioritized) {
        for (uint32_t j = 0; j < Bl; j++) {
            double pr = fabs((double)d->pred[j] - d->y[j]) + d->per_eps;
            if (pr > d->max_priority) d->max_priority = pr;
            sumtree_set(&d->tree, d->slots[j], pow(pr, d->alpha));
        }
    }
    d->grad_steps++;
    d->m_loss += loss;
    d->m_q += qsum / B;
    d->m_w += d->prioritized ? sum_w / B : 1.0;
    d->m_n++;
    return RL_OK;
}
