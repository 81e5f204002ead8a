/* A policy's distribution over any action space; see <rlhost/dist.h>. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rlhost/dist.h>

struct rl_mpdist {
    int kind;
    uint32_t k, n; /* components (0 for a box); outputs per row: c logits, then m means */
    uint32_t c, m; /* logits per row (sum nvec, 0 for a box); box dims (0 without a box) */
    uint32_t *nvec;
    const float *log_std;
    uint32_t max_batch;
    float *logp; /* [max_batch][c], the masked log-softmax of the last logp/act */
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
    int box = kind == RL_MPDIST_BOX || kind == RL_MPDIST_HYBRID, discrete = kind != RL_MPDIST_BOX;
    if (kind < RL_MPDIST_DISCRETE || kind > RL_MPDIST_HYBRID || (box && (!n || !log_std))) {
        RL_ERRF(err, errlen, "a distribution of kind %d over %u dimensions%s", kind, n,
                box ? " needs dimensions and log-stds" : " is no kind rlcore knows");
        return NULL;
    }
    uint32_t c = 0, m = box ? n : 0;
    if (discrete) {
        for (uint32_t i = 0; nvec && i < k; i++) {
            if (!nvec[i]) {
                RL_ERRF(err, errlen, "component %u of the action space has no choice", i);
                return NULL;
            }
            c += nvec[i];
        }
        if (!nvec || !k || c < k) {
            RL_ERRF(err, errlen, "a discrete distribution needs nvec, one or more counts");
            return NULL;
        }
    }
    rl_mpdist *d = calloc(1, sizeof *d);
    if (d) {
        *d = (rl_mpdist){.kind = kind,
                         .k = discrete ? k : 0,
                         .n = c + m,
                         .c = c,
                         .m = m,
                         .log_std = log_std,
                         .max_batch = max_batch ? max_batch : 1};
        d->nvec = discrete ? malloc(k * sizeof *d->nvec) : NULL;
        d->logp = discrete ? rl_calloc_aligned((size_t)d->max_batch * c, sizeof(float)) : NULL;
        d->ent = discrete ? rl_calloc_aligned((size_t)d->max_batch * k, sizeof(float)) : NULL;
    }
    if (!d || (discrete && (!d->nvec || !d->logp || !d->ent))) {
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
    if (kind == RL_SPACE_HYBRID)
        return rl_mpdist_new(RL_MPDIST_HYBRID, env->action_nvec, env->action_dim, rl_env_info_action_floats(env),
                             log_std, max_batch, err, errlen);
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
    return d->nvec;
}

uint32_t rl_mpdist_action_floats(const rl_mpdist *d)
{
    return d->m;
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
    return d->k ? rl_actions_check(d->nvec, d->k, act, mask, rows, what, err, errlen) : RL_OK;
}

int rl_mpdist_greedy(const rl_mpdist *d, int sample, const char *log_std, char *buf, size_t cap)
{
    size_t n;
    if (d->kind == RL_MPDIST_BOX && d->sde_L) /* the mode: a sample's noise depends on the state */
        return (n = (size_t)snprintf(buf, cap, "{\"identity\":\"mean\"}")) < cap ? (int)n : -1;
    if (d->kind == RL_MPDIST_BOX)
        n = (size_t)snprintf(buf, cap, "{\"%s\":\"mean\",\"log_std\":\"%s\"}", sample ? "sample_gaussian" : "identity",
                             log_std ? log_std : "");
    else
        n = (size_t)snprintf(buf, cap, "{\"%s\":\"logits\"", sample ? "sample_softmax" : "argmax");
    int hybrid = d->kind == RL_MPDIST_HYBRID;
    for (uint32_t c = 0; (d->k > 1 || hybrid) && c < d->k && n < cap; c++)
        n += (size_t)snprintf(buf + n, cap - n, "%s%u", c ? "," : ",\"nvec\":[", d->nvec[c]);
    if (n < cap && (d->k > 1 || hybrid)) n += (size_t)snprintf(buf + n, cap - n, "]");
    /* a hybrid action's box: the output's last m values are its means */
    if (n < cap && hybrid) n += (size_t)snprintf(buf + n, cap - n, ",\"box\":%u", d->m);
    if (n < cap && hybrid && sample)
        n += (size_t)snprintf(buf + n, cap - n, ",\"log_std\":\"%s\"", log_std ? log_std : "");
    if (n < cap && d->kind != RL_MPDIST_BOX) n += (size_t)snprintf(buf + n, cap - n, "}");
    return n < cap ? (int)n : -1;
}

/* Row b's discrete part: the log-softmax of its logits into d->logp. */
static void row_softmax(rl_mpdist *d, const float *out, const uint8_t *mask, uint32_t b)
{
    rl_log_softmax_multi(d->logp + (size_t)b * d->c, out + (size_t)b * d->n, mask ? mask + (size_t)b * d->c : NULL, 1,
                         d->nvec, d->k);
}

void rl_mpdist_act(rl_mpdist *d, const float *out, const uint8_t *mask, uint32_t B, rl_rng *rng, int32_t *act,
                   float *box)
{
    size_t n = d->n, L = d->sde_L, c = d->c, m = d->m;
    if (L) { /* gSDE: a row's noise is its latent times its matrix */
        rl_gsde_std(d->sde_std, d->log_std, d->sde_full, d->sde_L, d->n);
        for (uint32_t b = 0; b < B; b++) {
            const float *E = !rng ? NULL : d->E ? d->E + b * L * n : d->sde_draw;
            if (rng && !d->E) rl_gsde_sample(d->sde_std, d->sde_L, d->n, rng, d->sde_draw);
            rl_gsde_gauss(box + b * n, out + b * n, d->z + b * L, E, d->sde_std, d->sde_L, d->n);
        }
        return;
    }
    /* each row's components, then its box (a hybrid action has both) */
    for (uint32_t b = 0; b < B; b++) {
        if (c) row_softmax(d, out, mask, b);
        if (c && rng) rl_multicat_act(d->logp + b * c, d->nvec, d->k, rng, act + (size_t)b * d->k);
        /* the mode: the argmax of the logits themselves, as an export's
           "greedy" takes it (a log-softmax can round two near logits equal) */
        for (uint32_t i = 0, off = 0; c && !rng && i < d->k; off += d->nvec[i++])
            act[(size_t)b * d->k + i] =
                rl_argmax_masked(out + b * n + off, mask ? mask + b * c + off : NULL, d->nvec[i]);
        if (m && rng)
            rl_gauss_sample(box + b * m, out + b * n + c, d->log_std, d->m, rng);
        else if (m)
            memcpy(box + b * m, out + b * n + c, m * sizeof *box);
    }
}

/* Row b's log-probability of its discrete part after row_softmax, and its
   components' entropies kept in d->ent (their sum into *h). */
static double row_discrete_logp(rl_mpdist *d, const int32_t *act, uint32_t b, double *h)
{
    const float *lp = d->logp + (size_t)b * d->c;
    float *e = d->ent + (size_t)b * d->k;
    for (uint32_t i = 0, off = 0; i < d->k; off += d->nvec[i++]) /* rl_multicat_entropy, its terms kept */
        *h += e[i] = rl_categorical_entropy(lp + off, d->nvec[i]);
    return rl_multicat_logp(lp, d->nvec, d->k, act + (size_t)b * d->k);
}

double rl_mpdist_logp(rl_mpdist *d, const float *out, const uint8_t *mask, const int32_t *act, const float *box,
                      uint32_t B, float *logp)
{
    size_t n = d->n, c = d->c, m = d->m;
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
    double h = m ? B * rl_gauss_entropy(d->log_std, d->m) : 0;
    for (uint32_t b = 0; b < B; b++) {
        double lp = 0;
        if (c) row_softmax(d, out, mask, b);
        if (c) lp += row_discrete_logp(d, act, b, &h);
        if (m) lp += rl_gauss_logp(out + b * n + c, d->log_std, box + b * m, d->m);
        logp[b] = (float)lp;
    }
    return h;
}

void rl_mpdist_act_logp(rl_mpdist *d, const float *out, const uint8_t *mask, uint32_t B, rl_rng *rng, int32_t *act,
                        float *box, float *logp)
{
    size_t n = d->n, c = d->c, m = d->m;
    rl_mpdist_act(d, out, mask, B, rng, act, box);
    for (uint32_t b = 0; b < B; b++) { /* the log-softmax (or gSDE's scales) act left in d */
        if (d->sde_L) {
            logp[b] = (float)rl_gsde_gauss_logp(box + b * n, out + b * n, d->z + b * d->sde_L, d->sde_std, d->sde_L,
                                                d->n, NULL);
            continue;
        }
        double lp = c ? rl_multicat_logp(d->logp + b * c, d->nvec, d->k, act + (size_t)b * d->k) : 0;
        if (m) lp += rl_gauss_logp(out + b * n + c, d->log_std, box + b * m, d->m);
        logp[b] = (float)lp;
    }
}

void rl_mpdist_backward(const rl_mpdist *d, const float *out, const int32_t *act, const float *box, uint32_t B,
                        const float *g_logp, float g_ent, float *dout, float *dlog_std)
{
    size_t n = d->n, c = d->c, m = d->m;
    for (uint32_t b = 0; d->sde_L && b < B; b++) /* gSDE: the scales of the logp call before */
        rl_gsde_gauss_backward(dout + b * n, dlog_std, box + b * n, out + b * n, d->z + b * d->sde_L, d->sde_std,
                               d->log_std, d->sde_full, d->sde_L, d->n, g_logp[b], g_ent);
    if (d->sde_L) return;
    for (uint32_t b = 0; b < B; b++) {
        for (uint32_t i = 0, off = 0; c && i < d->k; off += d->nvec[i++]) /* rl_multicat_backward, entropies kept */
            rl_categorical_backward_h(dout + b * n + off, d->logp + b * c + off, d->nvec[i], act[(size_t)b * d->k + i],
                                      g_logp[b], g_ent, d->ent[(size_t)b * d->k + i]);
        if (m)
            rl_gauss_logp_backward(dout + b * n + c, dlog_std, out + b * n + c, d->log_std, box + b * m, d->m,
                                   g_logp[b]);
    }
    if (m) rl_gauss_entropy_backward(dlog_std, d->m, g_ent * (float)B);
}
