/* The gradient steps: minibatches drawn uniformly from the replay's window,
   the policy's cross-entropy to the search's visit distribution, the
   value's squared error to the return, and the L2 penalty. */
#include <math.h>
#include <string.h>

#include "az.h"

/* The losses' output gradients of one minibatch after its forward:
   dlogits [B][A] and dvalue [B] (the mean over the rows); adds the
   losses to the metrics. */
static double output_grads(az *p, const float *logits, const float *vout, uint32_t B)
{
    const az_settings *c = &p->cfg;
    uint32_t A = c->n_actions;
    double pl = 0, vl = 0, ent = 0;
    float probs[1024], *pr = A <= 1024 ? probs : NULL;
    for (uint32_t b = 0; b < B; b++) {
        const uint8_t *mask = p->bmask + (size_t)b * A;
        const float *pi = p->bpi + (size_t)b * A;
        float *dl = p->dlogits + (size_t)b * A;
        if (!pr) pr = dl; /* a wide action space: the gradient's row holds the probabilities first */
        rl_softmax_masked(pr, logits + (size_t)b * A, mask, 1, A);
        for (uint32_t a = 0; a < A; a++) {
            if (!mask[a]) {
                dl[a] = 0;
                continue;
            }
            float lp = logf(pr[a] > 1e-30f ? pr[a] : 1e-30f);
            pl -= pi[a] * lp;
            ent -= pr[a] * lp;
            dl[a] = (pr[a] - pi[a]) / (float)B;
        }
        if (pr == dl) pr = NULL;
        float t = tanhf(vout[b]), e = t - p->bz[b];
        vl += (double)e * e;
        p->dvalue[b] = c->value_coef * 2.0f * e * (1.0f - t * t) / (float)B;
    }
    p->m.policy_loss += pl / B;
    p->m.value_loss += vl / B;
    p->m.entropy += ent / B;
    return (pl + c->value_coef * vl) / B;
}

/* The L2 penalty's gradient into grad; returns the penalty. */
static double l2_grads(az *p)
{
    float c = p->cfg.l2;
    if (c <= 0) return 0;
    double sum = 0;
    for (size_t k = 0; k < p->net.n; k++) {
        float w = p->net.data[k];
        sum += (double)w * w;
        p->net.grad[k] += 2.0f * c * w;
    }
    return c * sum;
}

/* Row b of the minibatch: the replay's position s, seen through one of the
   env's symmetries drawn at random (the identity among them) where it
   declares any: the observation's bytes and the moves permuted alike. */
static void gather(az *p, uint32_t b, uint32_t s)
{
    const az_settings *c = &p->cfg;
    size_t A = c->n_actions, W = c->row_bytes;
    uint8_t *x = p->xraw + b * W, *mask = p->bmask + b * A;
    float *pi = p->bpi + b * A;
    const uint8_t *sx = p->rb.obs + s * W, *smask = p->rb.mask + s * A;
    const float *spi = p->rb.pi + s * A;
    uint32_t k = p->sym.n ? rl_rng_below(&p->sample, p->sym.n + 1) : 0;
    p->bz[b] = p->rb.z[s];
    if (!k) {
        memcpy(x, sx, W);
        memcpy(mask, smask, A);
        memcpy(pi, spi, A * sizeof *pi);
        return;
    }
    const uint32_t *from = p->sym.obs_from + (size_t)(k - 1) * W, *to = p->sym.action_to + (size_t)(k - 1) * A;
    for (size_t j = 0; j < W; j++) x[j] = sx[from[j]];
    for (size_t a = 0; a < A; a++) {
        mask[to[a]] = smask[a];
        pi[to[a]] = spi[a];
    }
}

int az_train(az *p, uint64_t n, char *err, size_t errlen)
{
    const az_settings *c = &p->cfg;
    uint32_t B = c->batch;
    float lr = c->lr_linear ? rl_schedule_linear(c->lr, 0.0f, p->progress) : c->lr;
    uint64_t held = p->rb.added < c->replay_cap ? p->rb.added : c->replay_cap;
    for (uint64_t step = 0; step < n; step++) {
        for (uint32_t b = 0; b < B; b++) gather(p, b, rl_rng_below(&p->sample, (uint32_t)held));
        rl_obs_input(&p->obs.info, p->xraw, B, p->x);
        const float *out[2];
        az_train_forward(p, p->x, B, out);
        double loss = output_grads(p, out[0], out[1], B);
        rl_params_zero_grad(&p->net);
        const float *const dout[2] = {p->dlogits, p->dvalue};
        az_backward(p, p->x, dout, B);
        double l2 = l2_grads(p);
        p->m.l2 += l2;
        p->m.n++;
        float norm = isfinite(loss + l2)
            ? rl_adam_clip_step(&p->adam, p->net.data, p->net.grad, p->net.n, c->max_grad_norm, lr)
            : NAN;
        if (!isfinite(norm)) {
            if (c->skip_nonfinite) {
                p->skipped++;
                continue;
            }
            long at = rl_params_find_nonfinite(p->net.grad, p->net.n);
            char why[160];
            RL_ERRF(err, errlen, "%s at gradient step %llu", rl_grad_problem(&p->net, at, why, sizeof why),
                    (unsigned long long)p->grad_steps + 1);
            return RL_ENONFINITE;
        }
        p->grad_steps++;
    }
    return RL_OK;
}
