/* Action distributions; see <rlhost/dist.h>. */
#include <math.h>
#include <string.h>

#include <rlhost/dist.h>

/* ---- categorical ---------------------------------------------------------*/

/* exp of a log-probability: 0 for a masked action's (RL_MASKED_LOGIT, far
   below the -104 where expf already rounds to 0, so the result is exactly
   expf's) without expf's slow underflow path, which a mask otherwise takes
   once a logit a step. */
static inline float prob(float lp)
{
    return lp < -1e6f ? 0.0f : expf(lp);
}

void rl_log_softmax(float *logp, const float *logits, uint32_t batch, uint32_t n)
{
    for (uint32_t r = 0; r < batch; r++) {
        const float *x = logits + (size_t)r * n;
        float *y = logp + (size_t)r * n;
        float mx = x[0];
        for (uint32_t j = 1; j < n; j++) mx = x[j] > mx ? x[j] : mx;
        double sum = 0;
        for (uint32_t j = 0; j < n; j++) { /* exp of below -745 is 0 in double: a masked logit adds nothing */
            double d = (double)(x[j] - mx);
            sum += d < -1e6 ? 0.0 : exp(d);
        }
        float lse = mx + (float)log(sum);
        for (uint32_t j = 0; j < n; j++) y[j] = x[j] - lse;
    }
}

int32_t rl_categorical_sample(const float *logp_row, uint32_t n, rl_rng *rng)
{
    float u = rl_rng_uniform(rng), acc = 0;
    for (uint32_t j = 0; j < n; j++) {
        acc += prob(logp_row[j]);
        if (u < acc) return (int32_t)j;
    }
    /* Rounding left u above the total: take the last action with mass. */
    for (uint32_t j = n; j-- > 0;)
        if (prob(logp_row[j]) > 0) return (int32_t)j;
    return (int32_t)(n - 1);
}

float rl_categorical_entropy(const float *logp_row, uint32_t n)
{
    float h = 0;
    for (uint32_t j = 0; j < n; j++) h -= prob(logp_row[j]) * logp_row[j];
    return h;
}

void rl_categorical_backward(float *dlogits, const float *logp, uint32_t n, int32_t action, float g_logp, float g_ent)
{
    rl_categorical_backward_h(dlogits, logp, n, action, g_logp, g_ent, rl_categorical_entropy(logp, n));
}

void rl_categorical_backward_h(float *dlogits, const float *logp, uint32_t n, int32_t action, float g_logp, float g_ent,
                               float h)
{
    for (uint32_t j = 0; j < n; j++) {
        float p = prob(logp[j]);
        dlogits[j] += g_logp * (((int32_t)j == action ? 1.0f : 0.0f) - p) - g_ent * p * (logp[j] + h);
    }
}

int32_t rl_argmax(const float *row, uint32_t n)
{
    uint32_t best = 0;
    for (uint32_t j = 1; j < n; j++)
        if (row[j] > row[best]) best = j;
    return (int32_t)best;
}

/* ---- masks and MultiDiscrete ---------------------------------------------*/

void rl_log_softmax_masked(float *logp, const float *logits, const uint8_t *mask, uint32_t batch, uint32_t n)
{
    if (!mask) {
        rl_log_softmax(logp, logits, batch, n);
        return;
    }
    size_t all = (size_t)batch * n;
    for (size_t i = 0; i < all; i++) logp[i] = mask[i] ? logits[i] : RL_MASKED_LOGIT;
    rl_log_softmax(logp, logp, batch, n); /* row by row: in place is fine */
}

void rl_softmax_masked(float *probs, const float *logits, const uint8_t *mask, uint32_t batch, uint32_t n)
{
    for (uint32_t i = 0; i < batch; i++) {
        const float *l = logits + (size_t)i * n;
        const uint8_t *m = mask ? mask + (size_t)i * n : NULL;
        float *out = probs + (size_t)i * n, top = -INFINITY;
        double z = 0;
        for (uint32_t a = 0; a < n; a++)
            if (!m || m[a]) top = l[a] > top ? l[a] : top;
        for (uint32_t a = 0; a < n; a++) z += out[a] = !m || m[a] ? expf(l[a] - top) : 0.0f;
        for (uint32_t a = 0; a < n; a++) out[a] = z > 0 ? (float)(out[a] / z) : 0.0f;
    }
}

int32_t rl_argmax_masked(const float *row, const uint8_t *mask, uint32_t n)
{
    if (!mask) return rl_argmax(row, n);
    int32_t best = -1;
    for (uint32_t j = 0; j < n; j++)
        if (mask[j] && (best < 0 || row[j] > row[best])) best = (int32_t)j;
    return best < 0 ? 0 : best;
}

int32_t rl_uniform_masked(const uint8_t *mask, uint32_t n, rl_rng *rng)
{
    if (!mask) return (int32_t)rl_rng_below(rng, n);
    uint32_t valid = 0;
    for (uint32_t j = 0; j < n; j++) valid += mask[j] != 0;
    if (!valid) return (int32_t)rl_rng_below(rng, n); /* the host refuses such a row before act */
    uint32_t pick = rl_rng_below(rng, valid);
    for (uint32_t j = 0; j < n; j++)
        if (mask[j] && pick-- == 0) return (int32_t)j;
    return 0; /* not reached */
}

void rl_transition_next_masks(const rl_transition *t, uint32_t width, uint8_t *out)
{
    if (!RL_HAS_FIELD(t, rl_transition, final_masks) || !t->next_masks) return;
    for (uint32_t i = 0; i < t->count; i++) {
        int ended = t->terminated[i] || t->truncated[i];
        const uint8_t *src = ended && t->final_masks ? t->final_masks : t->next_masks;
        memcpy(out + (size_t)i * width, src + (size_t)i * width, width);
    }
}

void rl_log_softmax_multi(float *logp, const float *logits, const uint8_t *mask, uint32_t batch, const uint32_t *nvec,
                          uint32_t k)
{
    size_t n = 0;
    for (uint32_t c = 0; c < k; c++) n += nvec[c];
    for (uint32_t r = 0; r < batch; r++)
        for (uint32_t c = 0, off = 0; c < k; off += nvec[c++]) {
            size_t at = r * n + off;
            rl_log_softmax_masked(logp + at, logits + at, mask ? mask + at : NULL, 1, nvec[c]);
        }
}

void rl_multicat_act(const float *logp, const uint32_t *nvec, uint32_t k, rl_rng *rng, int32_t *action)
{
    for (uint32_t c = 0, off = 0; c < k; off += nvec[c++])
        action[c] = rng ? rl_categorical_sample(logp + off, nvec[c], rng) : rl_argmax(logp + off, nvec[c]);
}

double rl_multicat_logp(const float *logp, const uint32_t *nvec, uint32_t k, const int32_t *action)
{
    double s = 0;
    for (uint32_t c = 0, off = 0; c < k; off += nvec[c++]) s += logp[off + (uint32_t)action[c]];
    return s;
}

double rl_multicat_entropy(const float *logp, const uint32_t *nvec, uint32_t k)
{
    double s = 0;
    for (uint32_t c = 0, off = 0; c < k; off += nvec[c++]) s += rl_categorical_entropy(logp + off, nvec[c]);
    return s;
}

void rl_multicat_backward(float *dlogits, const float *logp, const uint32_t *nvec, uint32_t k, const int32_t *action,
                          float g_logp, float g_ent)
{
    for (uint32_t c = 0, off = 0; c < k; off += nvec[c++])
        rl_categorical_backward(dlogits + off, logp + off, nvec[c], action[c], g_logp, g_ent);
}

/* ---- diagonal Gaussian ---------------------------------------------------*/

void rl_gauss_sample(float *a, const float *mu, const float *log_std, uint32_t dim, rl_rng *rng)
{
    for (uint32_t k = 0; k < dim; k++) a[k] = mu[k] + expf(log_std[k]) * (float)rl_rng_normal(rng);
}

double rl_gauss_logp(const float *mu, const float *log_std, const float *a, uint32_t dim)
{
    double lp = 0;
    for (uint32_t k = 0; k < dim; k++) {
        double z = ((double)a[k] - mu[k]) / exp((double)log_std[k]);
        lp += -0.5 * z * z - log_std[k] - RL_LOG_SQRT_2PI;
    }
    return lp;
}

double rl_gauss_entropy(const float *log_std, uint32_t dim)
{
    double h = 0;
    for (uint32_t k = 0; k < dim; k++) h += 0.5 + RL_LOG_SQRT_2PI + log_std[k];
    return h;
}

void rl_gauss_logp_backward(float *dmu, float *dlog_std, const float *mu, const float *log_std, const float *a,
                            uint32_t dim, float g)
{
    for (uint32_t k = 0; k < dim; k++) {
        float iv = expf(-2.0f * log_std[k]), d = a[k] - mu[k];
        if (dmu) dmu[k] += g * d * iv;
        if (dlog_std) dlog_std[k] += g * (d * d * iv - 1.0f);
    }
}

void rl_gauss_entropy_backward(float *dlog_std, uint32_t dim, float g)
{
    for (uint32_t k = 0; k < dim; k++) dlog_std[k] += g;
}

/* ---- tanh-squashed Gaussian ----------------------------------------------*/

static float clamp(float x, float lo, float hi)
{
    return x < lo ? lo : x > hi ? hi : x;
}

double rl_squashed_gauss(float *a, const float *mu, const float *log_std, const float *eps, uint32_t dim, float lo,
                         float hi)
{
    double lp = 0;
    for (uint32_t k = 0; k < dim; k++) {
        float l = clamp(log_std[k], lo, hi), e = eps ? eps[k] : 0.0f;
        float u = mu[k] + expf(l) * e, t = tanhf(u);
        a[k] = t;
        lp += -0.5 * (double)e * e - l - RL_LOG_SQRT_2PI - log(1.0 - (double)t * t + 1e-6);
    }
    return lp;
}

void rl_squashed_gauss_backward(float *dmu, float *dlog_std, const float *log_std, const float *eps, const float *a,
                                const float *da, uint32_t dim, float lo, float hi, float coef, double n)
{
    for (uint32_t k = 0; k < dim; k++) {
        float t = a[k], dt = da[k] + (float)(coef * 2.0 * t / (1.0 - (double)t * t + 1e-6) / n);
        float du = dt * (1.0f - t * t);
        dmu[k] += du;
        if (log_std[k] < lo || log_std[k] > hi) continue; /* clamped: constant in log_std */
        dlog_std[k] += du * expf(log_std[k]) * eps[k] - (float)(coef / n);
    }
}

/* ---- a policy over a batch, either kind ----------------------------------*/

int rl_pdist_create(rl_pdist *d, int box, uint32_t n, const float *log_std, uint32_t max_batch)
{
    memset(d, 0, sizeof *d);
    if (!n || !max_batch || (box && !log_std)) return RL_EINVAL;
    d->box = box, d->n = n, d->log_std = log_std, d->max_batch = max_batch;
    if (!box && !(d->logp_all = rl_calloc_aligned((size_t)max_batch * n, sizeof(float)))) return RL_ENOMEM;
    return RL_OK;
}

void rl_pdist_destroy(rl_pdist *d)
{
    if (!d) return;
    rl_free(d->logp_all);
    d->logp_all = NULL;
}

void rl_pdist_act(rl_pdist *d, const float *out, uint32_t B, rl_rng *rng, int32_t *act, float *box)
{
    size_t n = d->n;
    if (d->box) {
        for (uint32_t b = 0; b < B; b++)
            if (rng)
                rl_gauss_sample(box + b * n, out + b * n, d->log_std, d->n, rng);
            else
                memcpy(box + b * n, out + b * n, n * sizeof(float));
        return;
    }
    rl_log_softmax(d->logp_all, out, B, d->n);
    for (uint32_t b = 0; b < B; b++)
        act[b] = rng ? rl_categorical_sample(d->logp_all + b * n, d->n, rng) : rl_argmax(out + b * n, d->n);
}

double rl_pdist_logp(rl_pdist *d, const float *out, const int32_t *act, const float *box, uint32_t B, float *logp)
{
    size_t n = d->n;
    if (d->box) {
        for (uint32_t b = 0; b < B; b++) logp[b] = (float)rl_gauss_logp(out + b * n, d->log_std, box + b * n, d->n);
        return B * rl_gauss_entropy(d->log_std, d->n);
    }
    double h = 0;
    rl_log_softmax(d->logp_all, out, B, d->n);
    for (uint32_t b = 0; b < B; b++) {
        logp[b] = d->logp_all[b * n + (size_t)act[b]];
        h += rl_categorical_entropy(d->logp_all + b * n, d->n);
    }
    return h;
}

void rl_pdist_backward(const rl_pdist *d, const float *out, const int32_t *act, const float *box, uint32_t B,
                       const float *g_logp, float g_ent, float *dout, float *dlog_std)
{
    size_t n = d->n;
    for (uint32_t b = 0; b < B; b++) {
        if (d->box)
            rl_gauss_logp_backward(dout + b * n, dlog_std, out + b * n, d->log_std, box + b * n, d->n, g_logp[b]);
        else
            rl_categorical_backward(dout + b * n, d->logp_all + b * n, d->n, act[b], g_logp[b], g_ent);
    }
    if (d->box) rl_gauss_entropy_backward(dlog_std, d->n, g_ent * (float)B);
}
