/* A policy's distribution over any action space; see <rlhost/dist.h>. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rlhost/dist.h>

struct rl_mpdist {
    int kind;
    uint32_t k, n; /* components (0 for a box); logits per row (sum nvec) or box dims */
    uint32_t *nvec;
    const float *log_std;
    uint32_t max_batch;
    float *logp; /* [max_batch][n], the masked log-softmax of the last logp/act */
    float *ent;  /* [max_batch][k], each component's entropy at the last logp (backward reads it) */
    /* gSDE (rl_mpdist_gsde): latent width, full log-stds, exp(log_std)
       [L][n] of the last act or logp, a fresh matrix's scratch [L][n], and
       the rows set by rl_mpdist_gsde_rows */
    uint32_t sde_L;
    int sde_full;
    float *sde_std, *sde_draw;
    const float *z, *E;
};

rl_mpdist *rl_mpdist_new(int kind, const uint32_t *nvec, uint32_t k, uint32_t n, const float *log_std,
                         uint32_t max_batch, char *err, size_t errlen)
{
    if (kind == RL_MPDIST_DISCRETE) k = 1;
    if (kind == RL_MPDIST_BOX ? !n || !log_std : kind != RL_MPDIST_DISCRETE && kind != RL_MPDIST_MULTI) {
        RL_ERRF(err, errlen, "a distribution of kind %d over %u dimensions%s", kind, n,
                kind == RL_MPDIST_BOX ? " needs dimensions and log-stds" : " is no kind rlcore knows");
        return NULL;
    }
    if (kind != RL_MPDIST_BOX) {
        n = 0;
        for (uint32_t c = 0; nvec && c < k; c++) {
            if (!nvec[c]) {
                RL_ERRF(err, errlen, "component %u of the action space has no choice", c);
                return NULL;
            }
            n += nvec[c];
        }
        if (!nvec || !k || n < k) {
            RL_ERRF(err, errlen, "a discrete distribution needs nvec, one or more counts");
            return NULL;
        }
    }
    rl_mpdist *d = calloc(1, sizeof *d);
    if (d) {
        *d = (rl_mpdist){.kind = kind,
                         .k = kind == RL_MPDIST_BOX ? 0 : k,
                         .n = n,
                         .log_std = log_std,
                         .max_batch = max_batch ? max_batch : 1};
        d->nvec = kind == RL_MPDIST_BOX ? NULL : malloc(k * sizeof *d->nvec);
        d->logp = kind == RL_MPDIST_BOX ? NULL : rl_calloc_aligned((size_t)d->max_batch * n, sizeof(float));
        d->ent = kind == RL_MPDIST_BOX ? NULL : rl_calloc_aligned((size_t)d->max_batch * k, sizeof(float));
    }
    if (!d || (kind != RL_MPDIST_BOX && (!d->nvec || !d->logp || !d->ent))) {
        rl_mpdist_free(d);
        RL_ERRF(err, errlen, "out of memory for a distribution over %u rows", max_batch);
        return NULL;
    }
    if (d->nvec) memcpy(d->nvec, nvec, k * sizeof *d->nvec);
    return d;
}

rl_mpdist *rl_mpdist_for_env(const rl_env_info *env, const float *log_std, uint32_t max_batch, char *err, size_t errlen)
{
    uint32_t kind = rl_env_info_action_kind(env);
    if (kind == RL_SPACE_BOX)
        return rl_mpdist_new(RL_MPDIST_BOX, NULL, 0, env->action_dim, log_std, max_batch, err, errlen);
    if (kind == RL_SPACE_MULTI_DISCRETE)
        return rl_mpdist_new(RL_MPDIST_MULTI, env->action_nvec, env->action_dim, 0, NULL, max_batch, err, errlen);
    return rl_mpdist_new(RL_MPDIST_DISCRETE, &env->n_actions, 1, 0, NULL, max_batch, err, errlen);
}

int rl_mpdist_gsde(rl_mpdist *d, uint32_t L, int full, const float *log_std, char *err, size_t errlen)
{
    if (d->kind != RL_MPDIST_BOX || !L || !log_std) {
        RL_ERRF(err, errlen, "gSDE needs a box action space, latent features and log-stds");
        return RL_EINVAL;
    }
    rl_free(d->sde_std), rl_free(d->sde_draw);
    d->sde_std = rl_calloc_aligned((size_t)L * d->n, sizeof(float));
    d->sde_draw = rl_calloc_aligned((size_t)L * d->n, sizeof(float));
    if (!d->sde_std || !d->sde_draw) {
        RL_ERRF(err, errlen, "out of memory for gSDE's %u x %u log-stds", L, d->n);
        return RL_ENOMEM;
    }
    d->sde_L = L, d->sde_full = full, d->log_std = log_std;
    return RL_OK;
}

void rl_mpdist_gsde_rows(rl_mpdist *d, const float *z, const float *E)
{
    d->z = z, d->E = E;
}

void rl_mpdist_free(rl_mpdist *d)
{
    if (!d) return;
    rl_free(d->sde_std);
    rl_free(d->sde_draw);
    free(d->nvec);
    rl_free(d->logp);
    rl_free(d->ent);
    free(d);
}

uint32_t rl_mpdist_width(const rl_mpdist *d)
{
    return d->n;
}

const uint32_t *rl_mpdist_nvec(const rl_mpdist *d)
{
    return d->kind == RL_MPDIST_BOX ? NULL : d->nvec;
}

uint32_t rl_mpdist_action_ints(const rl_mpdist *d)
{
    return d->k;
}

int rl_actions_check(const uint32_t *nvec, uint32_t k, const int32_t *act, const uint8_t *mask, size_t rows,
                     const char *what, char *err, size_t errlen)
{
    uint32_t width = 0;
    for (uint32_t c = 0; c < k; c++) width += nvec[c];
    for (size_t r = 0; r < rows; r++) {
        const uint8_t *m = mask ? mask + r * width : NULL;
        for (uint32_t c = 0; c < k; m = m ? m + nvec[c] : NULL, c++) {
            int32_t a = act[r * k + c];
            if ((uint32_t)a < nvec[c] && (!m || m[a])) continue;
            RL_ERRF(err, errlen, "tensor '%s' holds action %d in row %zu (component %u), which %s", what, (int)a, r, c,
                    (uint32_t)a < nvec[c] ? "its mask forbids" : "is out of range");
            return RL_ECORRUPT;
        }
    }
    return RL_OK;
}

int rl_mpdist_check(const rl_mpdist *d, const int32_t *act, const uint8_t *mask, size_t rows, const char *what,
                    char *err, size_t errlen)
{
    return d->kind == RL_MPDIST_BOX ? RL_OK : rl_actions_check(d->nvec, d->k, act, mask, rows, what, err, errlen);
}

int rl_mpdist_greedy(const rl_mpdist *d, int sample, const char *log_std, char *buf, size_t cap)
{
    size_t n;
    if (d->kind == RL_MPDIST_BOX && d->sde_L) /* the mode: a sample's noise depends on the state */
        n = (size_t)snprintf(buf, cap, "{\"identity\":\"mean\"}");
    else if (d->kind == RL_MPDIST_BOX)
        n = (size_t)snprintf(buf, cap, "{\"%s\":\"mean\",\"log_std\":\"%s\"}", sample ? "sample_gaussian" : "identity",
                             log_std ? log_std : "");
    else
        n = (size_t)snprintf(buf, cap, "{\"%s\":\"logits\"", sample ? "sample_softmax" : "argmax");
    for (uint32_t c = 0; d->k > 1 && c < d->k && n < cap; c++)
        n += (size_t)snprintf(buf + n, cap - n, "%s%u", c ? "," : ",\"nvec\":[", d->nvec[c]);
    if (n < cap && d->kind != RL_MPDIST_BOX) n += (size_t)snprintf(buf + n, cap - n, "%s}", d->k > 1 ? "]" : "");
    return n < cap ? (int)n : -1;
}

void rl_mpdist_act(rl_mpdist *d, const float *out, const uint8_t *mask, uint32_t B, rl_rng *rng, int32_t *act,
                   float *box)
{
    size_t n = d->n, L = d->sde_L;
    if (L) { /* gSDE: a row's noise is its latent times its matrix */
        rl_gsde_std(d->sde_std, d->log_std, d->sde_full, d->sde_L, d->n);
        for (uint32_t b = 0; b < B; b++) {
            const float *E = !rng ? NULL : d->E ? d->E + b * L * n : d->sde_draw;
            if (rng && !d->E) rl_gsde_sample(d->sde_std, d->sde_L, d->n, rng, d->sde_draw);
            rl_gsde_gauss(box + b * n, out + b * n, d->z + b * L, E, d->sde_std, d->sde_L, d->n);
        }
        return;
    }
    if (d->kind == RL_MPDIST_BOX) {
        for (uint32_t b = 0; b < B; b++)
            if (rng)
                rl_gauss_sample(box + b * n, out + b * n, d->log_std, d->n, rng);
            else
                memcpy(box + b * n, out + b * n, n * sizeof *box);
        return;
    }
    rl_log_softmax_multi(d->logp, out, mask, B, d->nvec, d->k);
    if (rng) {
        for (uint32_t b = 0; b < B; b++) rl_multicat_act(d->logp + b * n, d->nvec, d->k, rng, act + (size_t)b * d->k);
        return;
    }
    /* the mode: the argmax of the logits themselves, as an export's
       "greedy" takes it (a log-softmax can round two near logits equal) */
    for (uint32_t b = 0; b < B; b++)
        for (uint32_t c = 0, off = 0; c < d->k; off += d->nvec[c++])
            act[(size_t)b * d->k + c] =
                rl_argmax_masked(out + b * n + off, mask ? mask + b * n + off : NULL, d->nvec[c]);
}

double rl_mpdist_logp(rl_mpdist *d, const float *out, const uint8_t *mask, const int32_t *act, const float *box,
                      uint32_t B, float *logp)
{
    size_t n = d->n;
    if (d->sde_L) {
        double h = 0, hb;
        rl_gsde_std(d->sde_std, d->log_std, d->sde_full, d->sde_L, d->n);
        for (uint32_t b = 0; b < B; b++) {
            logp[b] = (float)rl_gsde_gauss_logp(box + b * n, out + b * n, d->z + b * d->sde_L, d->sde_std, d->sde_L,
                                                d->n, &hb);
            h += hb;
        }
        return h;
    }
    if (d->kind == RL_MPDIST_BOX) {
        for (uint32_t b = 0; b < B; b++) logp[b] = (float)rl_gauss_logp(out + b * n, d->log_std, box + b * n, d->n);
        return B * rl_gauss_entropy(d->log_std, d->n);
    }
    double h = 0;
    rl_log_softmax_multi(d->logp, out, mask, B, d->nvec, d->k);
    for (uint32_t b = 0; b < B; b++) {
        const float *lp = d->logp + b * n;
        float *e = d->ent + (size_t)b * d->k;
        logp[b] = (float)rl_multicat_logp(lp, d->nvec, d->k, act + (size_t)b * d->k);
        double hb = 0; /* rl_multicat_entropy, its terms kept */
        for (uint32_t c = 0, off = 0; c < d->k; off += d->nvec[c++])
            hb += e[c] = rl_categorical_entropy(lp + off, d->nvec[c]);
        h += hb;
    }
    return h;
}

void rl_mpdist_act_logp(rl_mpdist *d, const float *out, const uint8_t *mask, uint32_t B, rl_rng *rng, int32_t *act,
                        float *box, float *logp)
{
    size_t n = d->n;
    rl_mpdist_act(d, out, mask, B, rng, act, box);
    for (uint32_t b = 0; b < B; b++) /* the log-softmax (or gSDE's scales) act left in d */
        logp[b] = d->sde_L
            ? (float)rl_gsde_gauss_logp(box + b * n, out + b * n, d->z + b * d->sde_L, d->sde_std, d->sde_L, d->n, NULL)
            : d->kind == RL_MPDIST_BOX
            ? (float)rl_gauss_logp(out + b * n, d->log_std, box + b * n, d->n)
            : (float)rl_multicat_logp(d->logp + b * n, d->nvec, d->k, act + (size_t)b * d->k);
}

void rl_mpdist_backward(const rl_mpdist *d, const float *out, const int32_t *act, const float *box, uint32_t B,
                        const float *g_logp, float g_ent, float *dout, float *dlog_std)
{
    size_t n = d->n;
    for (uint32_t b = 0; d->sde_L && b < B; b++) /* gSDE: the scales of the logp call before */
        rl_gsde_gauss_backward(dout + b * n, dlog_std, box + b * n, out + b * n, d->z + b * d->sde_L, d->sde_std,
                               d->log_std, d->sde_full, d->sde_L, d->n, g_logp[b], g_ent);
    if (d->sde_L) return;
    for (uint32_t b = 0; b < B; b++) {
        if (d->kind == RL_MPDIST_BOX)
            rl_gauss_logp_backward(dout + b * n, dlog_std, out + b * n, d->log_std, box + b * n, d->n, g_logp[b]);
        else
            for (uint32_t c = 0, off = 0; c < d->k; off += d->nvec[c++]) /* rl_multicat_backward, entropies kept */
                rl_categorical_backward_h(dout + b * n + off, d->logp + b * n + off, d->nvec[c],
                                          act[(size_t)b * d->k + c], g_logp[b], g_ent, d->ent[(size_t)b * d->k + c]);
    }
    if (d->kind == RL_MPDIST_BOX) rl_gauss_entropy_backward(dlog_std, d->n, g_ent * (float)B);
}
