/* <rlhost/dist.h>: every gradient against central finite differences of the
   function it differentiates (in double), the log-probabilities against
   the densities written out independently, and the samplers against the
   distributions' moments. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rlhost/dist.h>

#include "../tap.h"

#define DIM 3
#define PI 3.14159265358979323846
#define E_ 2.71828182845904523536

/* The worst relative error of an analytic gradient g against central
   differences of f(x) in x[0..n), stepping each x[i] by eps. */
typedef double (*scalar_fn)(const float *x, void *ctx);
static double worst_error(float *x, const float *g, size_t n, scalar_fn f, void *ctx, float eps)
{
    double worst = 0;
    for (size_t i = 0; i < n; i++) {
        float keep = x[i];
        x[i] = keep + eps;
        double hi = f(x, ctx);
        x[i] = keep - eps;
        double lo = f(x, ctx);
        x[i] = keep;
        double step = (double)(keep + eps) - (double)(keep - eps); /* as rounded in float */
        double num = (hi - lo) / step;
        double err = fabs(num - g[i]) / fmax(1.0, fabs(num) + fabs(g[i]));
        if (err > worst) worst = err;
    }
    return worst;
}

/* ---- categorical --------------------------------------------------------- */

typedef struct cat_ctx {
    uint32_t n;
    int32_t action;
    double g_logp, g_ent;
} cat_ctx;

/* g_logp log p(a) + g_ent H, from the logits */
static double cat_objective(const float *logits, void *ctx)
{
    const cat_ctx *c = ctx;
    float logp[8];
    rl_log_softmax(logp, logits, 1, c->n);
    return c->g_logp * logp[c->action] + c->g_ent * rl_categorical_entropy(logp, c->n);
}

static void test_categorical(void)
{
    float logits[5] = {0.3f, -1.2f, 2.0f, 0.0f, 0.7f}, logp[5], d[5] = {0};
    cat_ctx c = {5, 3, 0.7, -0.25};
    rl_log_softmax(logp, logits, 1, 5);
    double total = 0;
    for (int j = 0; j < 5; j++) total += exp(logp[j]);
    ASSERT_NEAR(total, 1.0, 1e-6, "categorical: probabilities sum to 1");
    rl_categorical_backward(d, logp, 5, c.action, (float)c.g_logp, (float)c.g_ent);
    double e = worst_error(logits, d, 5, cat_objective, &c, 1e-2f);
    if (!OK(e < 2e-3, "categorical: the gradient of g logp(a) + g' H matches finite differences"))
        printf("#   worst relative error %g\n", e);
    ASSERT_EQ(rl_argmax(logits, 5), 2, "categorical: the mode is the largest logit");
    rl_rng rng;
    rl_rng_seed(&rng, 5, 0);
    int count[5] = {0};
    for (int i = 0; i < 200000; i++) count[rl_categorical_sample(logp, 5, &rng)]++;
    double worst = 0;
    for (int j = 0; j < 5; j++) worst = fmax(worst, fabs(count[j] / 200000.0 - exp(logp[j])));
    OK(worst < 0.005, "categorical: sample frequencies match the probabilities");
}

/* ---- diagonal Gaussian --------------------------------------------------- */

typedef struct gauss_ctx {
    const float *mu, *log_std, *a;
    int wrt; /* 0: x is mu, 1: x is log_std */
    double g;
} gauss_ctx;

static double gauss_objective(const float *x, void *ctx)
{
    const gauss_ctx *c = ctx;
    return c->g * rl_gauss_logp(c->wrt ? c->mu : x, c->wrt ? x : c->log_std, c->a, DIM);
}

static void test_gauss(void)
{
    float mu[DIM] = {0.5f, -1.0f, 0.1f}, ls[DIM] = {-0.3f, 0.2f, -1.1f}, a[DIM] = {0.9f, -1.4f, 0.05f};
    /* the density written out: prod_k exp(-(a-mu)^2 / 2 s^2) / (s sqrt(2 pi)) */
    double dens = 1;
    for (int k = 0; k < DIM; k++) {
        double s = exp(ls[k]), z = (a[k] - mu[k]) / s;
        dens *= exp(-0.5 * z * z) / (s * sqrt(2 * PI));
    }
    ASSERT_NEAR(rl_gauss_logp(mu, ls, a, DIM), log(dens), 1e-9, "gauss: logp is the log density");
    double h = 0;
    for (int k = 0; k < DIM; k++) h += 0.5 * log(2 * PI * E_ * exp(2.0 * ls[k]));
    ASSERT_NEAR(rl_gauss_entropy(ls, DIM), h, 1e-9, "gauss: the entropy is sum log(sigma sqrt(2 pi e))");

    float dmu[DIM] = {0}, dls[DIM] = {0};
    gauss_ctx c = {mu, ls, a, 0, 0.8};
    rl_gauss_logp_backward(dmu, dls, mu, ls, a, DIM, (float)c.g);
    double e = worst_error(mu, dmu, DIM, gauss_objective, &c, 1e-2f);
    if (!OK(e < 1e-3, "gauss: d logp / d mu matches finite differences")) printf("#   worst %g\n", e);
    c.wrt = 1;
    e = worst_error(ls, dls, DIM, gauss_objective, &c, 1e-2f);
    if (!OK(e < 1e-3, "gauss: d logp / d log_std matches finite differences")) printf("#   worst %g\n", e);
    float dh[DIM] = {0};
    rl_gauss_entropy_backward(dh, DIM, 0.5f);
    OK(dh[0] == 0.5f && dh[1] == 0.5f && dh[2] == 0.5f, "gauss: d entropy / d log_std is 1 per dimension");

    /* samples: mean mu, standard deviation exp(log_std); and E[-logp] = H */
    rl_rng rng;
    rl_rng_seed(&rng, 9, 1);
    double m[DIM] = {0}, v[DIM] = {0}, neg = 0;
    const int n = 200000;
    for (int i = 0; i < n; i++) {
        float s[DIM];
        rl_gauss_sample(s, mu, ls, DIM, &rng);
        neg -= rl_gauss_logp(mu, ls, s, DIM);
        for (int k = 0; k < DIM; k++) m[k] += s[k], v[k] += (double)(s[k] - mu[k]) * (s[k] - mu[k]);
    }
    double worst_m = 0, worst_s = 0;
    for (int k = 0; k < DIM; k++) {
        worst_m = fmax(worst_m, fabs(m[k] / n - mu[k]) / exp(ls[k]));
        worst_s = fmax(worst_s, fabs(sqrt(v[k] / n) / exp(ls[k]) - 1));
    }
    OK(worst_m < 0.01 && worst_s < 0.01, "gauss: samples have mean mu and deviation exp(log_std)");
    ASSERT_NEAR(neg / n, rl_gauss_entropy(ls, DIM), 0.02, "gauss: E[-logp] of samples is the entropy");
}

/* ---- tanh-squashed Gaussian ---------------------------------------------- */

typedef struct sq_ctx {
    const float *mu, *log_std, *eps, *r;
    int wrt;
    float coef;
    double n;
} sq_ctx;

/* L(a) + (coef / n) logp(a) with L(a) = sum r_k a_k, a reparameterized */
static double sq_objective(const float *x, void *ctx)
{
    const sq_ctx *c = ctx;
    float a[DIM];
    double lp = rl_squashed_gauss(a, c->wrt ? c->mu : x, c->wrt ? x : c->log_std, c->eps, DIM, -20.0f, 2.0f);
    double l = 0;
    for (int k = 0; k < DIM; k++) l += (double)c->r[k] * a[k];
    return l + c->coef / c->n * lp;
}

static void test_squashed(void)
{
    float mu[DIM] = {0.4f, -0.8f, 0.05f}, ls[DIM] = {-0.5f, 0.1f, -1.5f}, eps[DIM] = {0.3f, -1.2f, 0.8f};
    float r[DIM] = {0.6f, -0.4f, 1.1f}, a[DIM];
    double lp = rl_squashed_gauss(a, mu, ls, eps, DIM, -20.0f, 2.0f);
    /* change of variables written out: log N(u) - sum log(1 - tanh(u)^2) */
    double want = 0;
    for (int k = 0; k < DIM; k++) {
        double s = exp(ls[k]), u = mu[k] + s * eps[k], t = tanh(u);
        want += -0.5 * (double)eps[k] * eps[k] - log(s) - 0.5 * log(2 * PI) - log(1 - t * t + 1e-6);
        if (fabs(a[k] - t) > 1e-6) want = NAN;
    }
    ASSERT_NEAR(lp, want, 1e-5, "squashed: a = tanh(mu + sigma eps) and logp by the change of variables");
    float mode[DIM];
    rl_squashed_gauss(mode, mu, ls, NULL, DIM, -20.0f, 2.0f);
    ASSERT_NEAR(mode[1], tanh(mu[1]), 1e-6, "squashed: the mode is tanh(mu)");

    /* the gradient of L(a) + (coef / n) logp through the sample */
    sq_ctx c = {mu, ls, eps, r, 0, 0.2f, 4.0};
    float dmu[DIM] = {0}, dls[DIM] = {0};
    rl_squashed_gauss_backward(dmu, dls, ls, eps, a, r, DIM, -20.0f, 2.0f, c.coef, c.n);
    double e = worst_error(mu, dmu, DIM, sq_objective, &c, 1e-2f);
    if (!OK(e < 2e-3, "squashed: d/d mu of L(a) + alpha logp matches finite differences")) printf("#   worst %g\n", e);
    c.wrt = 1;
    e = worst_error(ls, dls, DIM, sq_objective, &c, 1e-2f);
    if (!OK(e < 2e-3, "squashed: d/d log_std of L(a) + alpha logp matches finite differences"))
        printf("#   worst %g\n", e);
    /* a log_std past the clamp is constant: no gradient */
    float big[DIM] = {3.0f, 0.0f, -25.0f}, d2[DIM] = {0}, m2[DIM] = {0};
    rl_squashed_gauss(a, mu, big, eps, DIM, -20.0f, 2.0f);
    rl_squashed_gauss_backward(m2, d2, big, eps, a, r, DIM, -20.0f, 2.0f, c.coef, c.n);
    OK(d2[0] == 0.0f && d2[2] == 0.0f && d2[1] != 0.0f, "squashed: a clamped log_std gets no gradient");
}

/* ---- gSDE --------------------------------------------------------------- */

enum { GL = 4 }; /* latent features; DIM actions */

typedef struct gs_ctx {
    const float *mu, *log_std, *z, *eps, *r;
    int wrt, full;
    float coef;
    double n;
} gs_ctx;

/* L(a) + (coef / n) logp(a), E = exp(log_std) eps reparameterized */
static double gs_objective(const float *x, void *ctx)
{
    const gs_ctx *c = ctx;
    const float *mu = c->wrt ? c->mu : x, *ls = c->wrt ? x : c->log_std;
    float E[GL * DIM], S[GL * DIM], a[DIM], u[DIM];
    rl_gsde_std(S, ls, c->full, GL, DIM);
    for (int k = 0; k < GL * DIM; k++) E[k] = S[k] * c->eps[k];
    double lp = rl_gsde_squashed(a, u, mu, c->z, E, S, GL, DIM), l = 0;
    for (int k = 0; k < DIM; k++) l += (double)c->r[k] * a[k];
    return l + c->coef / c->n * lp;
}

/* gSDE's gradients in mu and in the log-stds (full: [GL][DIM], else [GL])
   against finite differences of f, which reads ctx's wrt to know which of
   the two x is (an int field that must be 0 on entry). */
static void gsde_fd(const char *what, int full, float *mu, const float *dmu, float *ls, const float *dls, scalar_fn f,
                    void *ctx, int *wrt)
{
    char desc[160];
    *wrt = 0;
    double e = worst_error(mu, dmu, DIM, f, ctx, 1e-2f);
    snprintf(desc, sizeof desc, "%s (%s): d/d mu matches finite differences", what, full ? "full" : "per feature");
    if (!OK(e < 2e-3, desc)) printf("#   worst %g\n", e);
    *wrt = 1;
    e = worst_error(ls, dls, full ? GL * DIM : GL, f, ctx, 1e-2f);
    snprintf(desc, sizeof desc, "%s (%s): d/d log_std matches finite differences", what, full ? "full" : "per feature");
    if (!OK(e < 2e-3, desc)) printf("#   worst %g\n", e);
}

static void test_gsde(void)
{
    float mu[DIM] = {0.3f, -0.6f, 0.1f}, z[GL] = {0.9f, -0.4f, 0.2f, 1.3f}, r[DIM] = {0.6f, -0.4f, 1.1f};
    float ls[GL * DIM], eps[GL * DIM], E[GL * DIM], S[GL * DIM], a[DIM], u[DIM];
    for (int k = 0; k < GL * DIM; k++) ls[k] = -1.0f + 0.15f * (float)k, eps[k] = 0.7f * sinf(1.0f + (float)k);
    for (int k = 0; k < GL * DIM; k++) E[k] = expf(ls[k]) * eps[k];
    rl_gsde_std(S, ls, 1, GL, DIM);
    double lp = rl_gsde_squashed(a, u, mu, z, E, S, GL, DIM), want = 0;
    for (int d = 0; d < DIM; d++) { /* N(u; mu, V) by the change of variables, written out */
        double n = 0, v = 1e-6;
        for (int l = 0; l < GL; l++)
            n += (double)z[l] * E[l * DIM + d], v += (double)z[l] * z[l] * exp(2.0 * ls[l * DIM + d]);
        double t = tanh(mu[d] + n);
        want += -n * n / (2 * v) - 0.5 * log(2 * PI * v) - log(1 - t * t + 1e-6);
        if (fabs(a[d] - t) > 1e-6) want = NAN;
    }
    ASSERT_NEAR(lp, want, 1e-5, "gSDE: a = tanh(mu + z E) and logp with the variance z^2 s^2");
    float mode[DIM];
    rl_gsde_squashed(mode, u, mu, z, NULL, S, GL, DIM);
    ASSERT_NEAR(mode[1], tanh(mu[1]), 1e-6, "gSDE: without a matrix, the mode tanh(mu)");
    for (int full = 1; full >= 0; full--) {
        gs_ctx c = {mu, ls, z, eps, r, 0, full, 0.2f, 4.0};
        float dmu[DIM] = {0}, dls[GL * DIM] = {0};
        rl_gsde_std(S, ls, full, GL, DIM);
        for (int k = 0; k < GL * DIM; k++) E[k] = S[k] * eps[k];
        rl_gsde_squashed(a, u, mu, z, E, S, GL, DIM);
        rl_gsde_squashed_backward(dmu, dls, mu, z, E, S, ls, full, u, a, r, GL, DIM, c.coef, c.n);
        gsde_fd("gSDE, L(a) + alpha logp", full, mu, dmu, ls, dls, gs_objective, &c, &c.wrt);
    }
    /* a matrix drawn: N(0, s^2) entries, s from the clamped log_std */
    rl_rng rng;
    rl_rng_seed(&rng, 3, 0);
    float big[GL] = {30.0f, -30.0f, 0.0f, 0.0f}, M[GL * DIM];
    rl_gsde_std(S, big, 0, GL, DIM);
    rl_gsde_sample(S, GL, DIM, &rng, M);
    OK(fabsf(M[0]) < 8 * expf(2.0f) && fabsf(M[DIM]) < 1e-7f && M[2 * DIM] != 0.0f,
       "gSDE: a matrix's scale is exp of the log_std clamped to [-20, 2]");
    float dmu[DIM] = {0}, dls[GL] = {0};
    rl_gsde_squashed(a, u, mu, z, M, S, GL, DIM);
    rl_gsde_squashed_backward(dmu, dls, mu, z, M, S, big, 0, u, a, r, GL, DIM, 0.2f, 4.0);
    OK(dls[0] == 0.0f && dls[1] == 0.0f && dls[2] != 0.0f, "gSDE: a clamped log_std gets no gradient");
}

/* g_logp logp(u) + g_ent H with u held, the unsquashed form (PPO, A2C) */
typedef struct gg_ctx {
    const float *mu, *log_std, *z, *u;
    int wrt, full;
    float g_logp, g_ent;
} gg_ctx;

static double gg_objective(const float *x, void *ctx)
{
    const gg_ctx *c = ctx;
    const float *mu = c->wrt ? c->mu : x, *ls = c->wrt ? x : c->log_std;
    float S[GL * DIM];
    double h;
    rl_gsde_std(S, ls, c->full, GL, DIM);
    double lp = rl_gsde_gauss_logp(c->u, mu, c->z, S, GL, DIM, &h);
    return c->g_logp * lp + c->g_ent * h;
}

static void test_gsde_gauss(void)
{
    float mu[DIM] = {0.3f, -0.6f, 0.1f}, z[GL] = {0.9f, -0.4f, 0.2f, 1.3f};
    float ls[GL * DIM], E[GL * DIM], S[GL * DIM], u[DIM];
    for (int k = 0; k < GL * DIM; k++) ls[k] = -1.0f + 0.15f * (float)k, E[k] = 0.5f * sinf(2.0f + (float)k);
    rl_gsde_std(S, ls, 1, GL, DIM);
    double h, lp = rl_gsde_gauss(u, mu, z, E, S, GL, DIM), want = 0, want_h = 0;
    for (int d = 0; d < DIM; d++) { /* N(u; mu, V), written out */
        double n = 0, v = 1e-6;
        for (int l = 0; l < GL; l++)
            n += (double)z[l] * E[l * DIM + d], v += (double)z[l] * z[l] * exp(2.0 * ls[l * DIM + d]);
        want += -n * n / (2 * v) - 0.5 * log(2 * PI * v), want_h += 0.5 * log(2 * PI * exp(1.0) * v);
        if (fabs(u[d] - (mu[d] + n)) > 1e-6) want = NAN;
    }
    ASSERT_NEAR(lp, want, 1e-5, "gSDE unsquashed: u = mu + z E and logp with the variance z^2 s^2");
    ASSERT_NEAR(rl_gsde_gauss_logp(u, mu, z, S, GL, DIM, &h), want, 1e-5, "gSDE unsquashed: logp of a stored u");
    ASSERT_NEAR(h, want_h, 1e-5, "gSDE unsquashed: the entropy, log sqrt(2 pi e V) summed");
    float mode[DIM];
    rl_gsde_gauss(mode, mu, z, NULL, S, GL, DIM);
    OK(mode[0] == mu[0] && mode[2] == mu[2], "gSDE unsquashed: without a matrix, the mode mu");
    for (int full = 1; full >= 0; full--) {
        gg_ctx c = {mu, ls, z, u, 0, full, -0.7f, 0.3f};
        float dmu[DIM] = {0}, dls[GL * DIM] = {0};
        rl_gsde_std(S, ls, full, GL, DIM);
        rl_gsde_gauss_backward(dmu, dls, u, mu, z, S, ls, full, GL, DIM, c.g_logp, c.g_ent);
        gsde_fd("gSDE unsquashed, logp and entropy", full, mu, dmu, ls, dls, gg_objective, &c, &c.wrt);
    }
    /* through rl_mpdist: held matrices give u = mu + z E row by row, the mode
       is the mean, logp and backward agree with the row functions */
    char err[256] = "";
    enum { B = 2 };
    float out[B * DIM] = {0.3f, -0.6f, 0.1f, -0.2f, 0.5f, 0.0f},
                  zz[B * GL] = {0.9f, -0.4f, 0.2f, 1.3f, 0.1f, 0.7f, -1.2f, 0.4f};
    float Es[B * GL * DIM], box[B * DIM], lpb[B], lp2[B];
    for (int k = 0; k < B * GL * DIM; k++) Es[k] = 0.3f * cosf((float)k);
    rl_mpdist *m = rl_mpdist_new(RL_MPDIST_BOX, NULL, 0, DIM, ls, B, err, sizeof err);
    OK(rl_mpdist_gsde(m, GL, 1, ls, err, sizeof err) == RL_OK, "mpdist gSDE: set up on a box");
    rl_mpdist_gsde_rows(m, zz, Es);
    rl_rng rng;
    rl_rng_seed(&rng, 5, 0);
    rl_mpdist_act_logp(m, out, NULL, B, &rng, NULL, box, lpb);
    rl_gsde_std(S, ls, 1, GL, DIM);
    float u1[DIM];
    double l1 = rl_gsde_gauss(u1, out + DIM, zz + GL, Es + GL * DIM, S, GL, DIM);
    OK(!memcmp(u1, box + DIM, sizeof u1) && fabs(lpb[1] - l1) < 1e-5, "mpdist gSDE: row b's noise is z_b E_b");
    double ent = rl_mpdist_logp(m, out, NULL, NULL, box, B, lp2);
    OK(lp2[0] == lpb[0] && lp2[1] == lpb[1] && isfinite(ent), "mpdist gSDE: logp of the stored actions");
    float dout[B * DIM] = {0}, dls2[GL * DIM] = {0}, want_dout[DIM] = {0}, want_dls[GL * DIM] = {0},
                   g[B] = {0.5f, -1.0f};
    rl_mpdist_backward(m, out, NULL, box, B, g, 0.1f, dout, dls2);
    rl_gsde_gauss_backward(want_dout, want_dls, box + DIM, out + DIM, zz + GL, S, ls, 1, GL, DIM, -1.0f, 0.1f);
    OK(!memcmp(dout + DIM, want_dout, sizeof want_dout), "mpdist gSDE: backward is the row gradient");
    rl_mpdist_act(m, out, NULL, B, NULL, NULL, box);
    OK(!memcmp(box, out, sizeof out), "mpdist gSDE: the mode is the mean");
    rl_mpdist_gsde_rows(m, zz, NULL);
    rl_mpdist_act(m, out, NULL, B, &rng, NULL, box);
    OK(box[0] != out[0] && isfinite(box[5]), "mpdist gSDE: without matrices, a fresh one per row from the rng");
    char gr[128];
    OK(rl_mpdist_greedy(m, 1, "actor/log_std", gr, sizeof gr) > 0 && !strcmp(gr, "{\"identity\":\"mean\"}"),
       "mpdist gSDE: the export's rule is the mean (the noise depends on the state)");
    rl_mpdist_free(m);
    m = rl_mpdist_new(RL_MPDIST_DISCRETE, (uint32_t[1]){3}, 1, 0, NULL, B, err, sizeof err);
    OK(rl_mpdist_gsde(m, GL, 1, ls, err, sizeof err) == RL_EINVAL && strstr(err, "box"),
       "mpdist gSDE: a discrete distribution is refused with a sentence");
    rl_mpdist_free(m);
}

/* ---- a batch, either kind ------------------------------------------------ */

typedef struct pd_ctx {
    rl_pdist *d;
    const int32_t *act;
    const float *box, *g;
    float g_ent, *ls; /* box: the log-stds the pdist reads */
    int wrt_ls;
    const float *out;
} pd_ctx;

/* sum_b g_b logp_b + g_ent sum_b H_b; x is out, or the log-stds */
static double pd_objective(const float *x, void *ctx)
{
    pd_ctx *c = ctx;
    float logp[4];
    double h = rl_pdist_logp(c->d, c->wrt_ls ? c->out : x, c->act, c->box, 4, logp), s = c->g_ent * h;
    for (int b = 0; b < 4; b++) s += (double)c->g[b] * logp[b];
    return s;
}

static void test_pdist(void)
{
    float out[4 * DIM], g[4] = {0.3f, -0.5f, 0.8f, -0.1f}, ls[DIM] = {-0.2f, 0.3f, -0.9f}, box[4 * DIM];
    int32_t act[4] = {0, 2, 1, 2};
    rl_rng rng;
    rl_rng_seed(&rng, 21, 0);
    for (int k = 0; k < 4 * DIM; k++) out[k] = 2.0f * rl_rng_uniform(&rng) - 1.0f, box[k] = out[k] + 0.3f;
    for (int box_kind = 0; box_kind < 2; box_kind++) {
        rl_pdist d;
        ASSERT_EQ(rl_pdist_create(&d, box_kind, DIM, box_kind ? ls : NULL, 4), RL_OK, "pdist: created");
        pd_ctx c = {&d, act, box, g, 0.2f, ls, 0, out};
        float logp[4], dout[4 * DIM] = {0}, dls[DIM] = {0};
        rl_pdist_logp(&d, out, act, box, 4, logp);
        rl_pdist_backward(&d, out, act, box, 4, g, c.g_ent, dout, dls);
        double e = worst_error(out, dout, 4 * DIM, pd_objective, &c, 1e-2f);
        char what[96];
        snprintf(what, sizeof what, "pdist %s: d/d out matches finite differences", box_kind ? "box" : "discrete");
        if (!OK(e < 2e-3, what)) printf("#   worst %g\n", e);
        if (box_kind) {
            c.wrt_ls = 1;
            e = worst_error(ls, dls, DIM, pd_objective, &c, 1e-2f);
            if (!OK(e < 2e-3, "pdist box: d/d log_std matches finite differences")) printf("#   worst %g\n", e);
        }
        int32_t a[4];
        float mode[4 * DIM];
        rl_pdist_act(&d, out, 4, NULL, a, mode);
        OK(box_kind ? mode[5] == out[5] : a[1] == rl_argmax(out + DIM, DIM), "pdist: without a generator, the mode");
        rl_pdist_destroy(&d);
    }
}

/* ---- masks and MultiDiscrete against sb3-contrib ---------------------------
   tests/data/masked_categorical.txt holds sb3-contrib's MaskableCategorical
   and MaskableMultiCategoricalDistribution on random logits and masks
   (record_masked_categorical.py): the same log-probabilities and entropies,
   within float rounding, and the gradient of the masked objective matching
   finite differences, with none on an invalid logit. */

enum { MC_MAX = 64 };

typedef struct mc_ctx {
    const uint32_t *nvec;
    uint32_t k;
    const uint8_t *mask;
    const int32_t *act;
} mc_ctx;

static double mc_objective(const float *x, void *ctx)
{
    const mc_ctx *c = ctx;
    float logp[MC_MAX];
    rl_log_softmax_multi(logp, x, c->mask, 1, c->nvec, c->k);
    return 0.7 * rl_multicat_logp(logp, c->nvec, c->k, c->act) + 0.3 * rl_multicat_entropy(logp, c->nvec, c->k);
}

static void test_masked_fixture(void)
{
    const char *dir = getenv("RLHOST_TEST_DATA");
    char path[1024];
    snprintf(path, sizeof path, "%s/masked_categorical.txt", dir ? dir : "tests/data");
    FILE *f = fopen(path, "r");
    if (!OK(f != NULL, "the sb3-contrib fixture opens")) return;
    char line[8192];
    int rows = 0, logp_ok = 1, ent_ok = 1, grad_ok = 1, none_ok = 1, mode_ok = 1, sample_ok = 1;
    double worst_lp = 0, worst_h = 0;
    rl_rng rng;
    rl_rng_seed(&rng, 3, 0);
    while (fgets(line, sizeof line, f)) {
        if (line[0] == '#') continue;
        char *p = line, *end;
        uint32_t k = (uint32_t)strtoul(p, &end, 10), nvec[8], n = 0;
        p = end;
        if (k < 1 || k > 8) break;
        for (uint32_t c = 0; c < k; c++) n += nvec[c] = (uint32_t)strtoul(p, &p, 10);
        if (n > MC_MAX) break;
        float logits[MC_MAX], logp[MC_MAX], d[MC_MAX] = {0};
        uint8_t mask[MC_MAX];
        int32_t act[8];
        for (uint32_t j = 0; j < n; j++) logits[j] = strtof(p, &p);
        for (uint32_t j = 0; j < n; j++) mask[j] = (uint8_t)strtoul(p, &p, 10);
        for (uint32_t c = 0; c < k; c++) act[c] = (int32_t)strtol(p, &p, 10);
        double want_lp = strtod(p, &p), want_h = strtod(p, &p);
        rl_log_softmax_multi(logp, logits, mask, 1, nvec, k);
        double lp = rl_multicat_logp(logp, nvec, k, act), h = rl_multicat_entropy(logp, nvec, k);
        double elp = fabs(lp - want_lp) / (1 + fabs(want_lp)), eh = fabs(h - want_h) / (1 + fabs(want_h));
        worst_lp = elp > worst_lp ? elp : worst_lp, worst_h = eh > worst_h ? eh : worst_h;
        logp_ok &= elp < 1e-5, ent_ok &= eh < 1e-5;
        mc_ctx c = {nvec, k, mask, act};
        rl_multicat_backward(d, logp, nvec, k, act, 0.7f, 0.3f);
        for (uint32_t j = 0; j < n; j++) none_ok &= mask[j] || d[j] == 0;
        if (rows % 7 == 0) grad_ok &= worst_error(logits, d, n, mc_objective, &c, 1e-3f) < 5e-3;
        int32_t a[8];
        rl_multicat_act(logp, nvec, k, NULL, a);
        for (uint32_t cc = 0, off = 0; cc < k; off += nvec[cc++]) {
            mode_ok &= mask[off + (uint32_t)a[cc]] && a[cc] == rl_argmax_masked(logits + off, mask + off, nvec[cc]);
        }
        for (int t = 0; t < 20; t++) {
            rl_multicat_act(logp, nvec, k, &rng, a);
            for (uint32_t cc = 0, off = 0; cc < k; off += nvec[cc++]) sample_ok &= mask[off + (uint32_t)a[cc]];
        }
        rows++;
    }
    fclose(f);
    OK(rows == 320, "320 rows of the fixture read");
    if (!OK(logp_ok, "log-probabilities equal sb3-contrib's")) printf("#   worst relative %g\n", worst_lp);
    if (!OK(ent_ok, "entropies equal sb3-contrib's")) printf("#   worst relative %g\n", worst_h);
    OK(grad_ok, "the masked gradient matches finite differences");
    OK(none_ok, "an invalid logit gets no gradient");
    OK(mode_ok, "the mode is each component's best valid action");
    OK(sample_ok, "2,000 samples per case are all valid");
}

/* ---- rl_mpdist ---------------------------------------------------------------
   The unmasked discrete and box cases equal rl_pdist's; a masked
   MultiDiscrete batch's gradient matches finite differences of its
   objective, with none on a masked logit; every sample and mode is valid;
   bad shapes are refused with a sentence. */

typedef struct mp_ctx {
    rl_mpdist *d;
    const uint8_t *mask;
    const int32_t *act;
    const float *g;
    float g_ent;
} mp_ctx;

static double mp_objective(const float *x, void *ctx)
{
    mp_ctx *c = ctx;
    float logp[3];
    double s = c->g_ent * rl_mpdist_logp(c->d, x, c->mask, c->act, NULL, 3, logp);
    for (int b = 0; b < 3; b++) s += (double)c->g[b] * logp[b];
    return s;
}

static void test_mpdist(void)
{
    char err[160] = "";
    uint32_t bad_nvec[2] = {3, 0}, nvec[3] = {3, 2, 4};
    OK(!rl_mpdist_new(RL_MPDIST_MULTI, bad_nvec, 2, 0, NULL, 4, err, sizeof err) && strstr(err, "no choice"),
       "an nvec with an empty component is refused with a sentence");
    OK(!rl_mpdist_new(RL_MPDIST_BOX, NULL, 0, 3, NULL, 4, err, sizeof err) && err[0],
       "a box without log-stds is refused");
    OK(!rl_mpdist_new(7, nvec, 3, 0, NULL, 4, err, sizeof err), "an unknown kind is refused");

    /* unmasked: rl_pdist's numbers, discrete and box */
    float out[4 * DIM], ls[DIM] = {-0.2f, 0.3f, -0.9f}, box[4 * DIM], g[4] = {0.3f, -0.5f, 0.8f, -0.1f};
    int32_t act[4] = {0, 2, 1, 2};
    rl_rng rng;
    rl_rng_seed(&rng, 5, 0);
    for (int k = 0; k < 4 * DIM; k++) out[k] = 2.0f * rl_rng_uniform(&rng) - 1.0f, box[k] = out[k] + 0.2f;
    for (int kind = 0; kind < 2; kind++) {
        uint32_t one = DIM;
        rl_pdist p;
        rl_pdist_create(&p, kind, DIM, kind ? ls : NULL, 4);
        rl_mpdist *m = rl_mpdist_new(kind ? RL_MPDIST_BOX : RL_MPDIST_DISCRETE, &one, 1, DIM, kind ? ls : NULL, 4, err,
                                     sizeof err);
        float lp1[4], lp2[4], d1[4 * DIM] = {0}, d2[4 * DIM] = {0}, s1[DIM] = {0}, s2[DIM] = {0};
        double h1 = rl_pdist_logp(&p, out, act, box, 4, lp1), h2 = rl_mpdist_logp(m, out, NULL, act, box, 4, lp2);
        rl_pdist_backward(&p, out, act, box, 4, g, 0.2f, d1, s1);
        rl_mpdist_backward(m, out, act, box, 4, g, 0.2f, d2, s2);
        OK(m && h1 == h2 && !memcmp(lp1, lp2, sizeof lp1) && !memcmp(d1, d2, sizeof d1) && !memcmp(s1, s2, sizeof s1),
           kind ? "box: rl_pdist's log-probabilities, entropy and gradients, bit for bit"
                : "discrete, unmasked: rl_pdist's log-probabilities, entropy and gradient, bit for bit");
        rl_pdist_destroy(&p);
        rl_mpdist_free(m);
    }

    /* masked MultiDiscrete: 3 rows of 3 + 2 + 4 logits */
    rl_mpdist *m = rl_mpdist_new(RL_MPDIST_MULTI, nvec, 3, 0, NULL, 3, err, sizeof err);
    if (!OK(m && rl_mpdist_width(m) == 9 && rl_mpdist_action_ints(m) == 3, "a MultiDiscrete of 3 + 2 + 4")) return;
    float x[27], dx[27] = {0}, lp[3];
    uint8_t mask[27];
    int32_t a[9] = {2, 1, 0, 0, 0, 3, 1, 1, 2};
    for (int j = 0; j < 27; j++) x[j] = 3.0f * rl_rng_uniform(&rng) - 1.5f, mask[j] = (uint8_t)(j % 3 != 1);
    for (int b = 0; b < 3; b++) /* the chosen actions are valid */
        for (int c = 0, off = 0; c < 3; off += (int)nvec[c++]) mask[b * 9 + off + a[b * 3 + c]] = 1;
    mp_ctx c = {m, mask, a, g, 0.25f};
    rl_mpdist_logp(m, x, mask, a, NULL, 3, lp);
    rl_mpdist_backward(m, x, a, NULL, 3, g, c.g_ent, dx, NULL);
    double e = worst_error(x, dx, 27, mp_objective, &c, 1e-2f);
    if (!OK(e < 2e-3, "masked MultiDiscrete: the gradient matches finite differences")) printf("#   worst %g\n", e);
    int none = 1, valid = 1;
    for (int j = 0; j < 27; j++) none &= mask[j] || dx[j] == 0;
    OK(none, "masked MultiDiscrete: no gradient on a masked logit");
    int32_t s[9];
    for (int t = 0; t < 200; t++) {
        rl_mpdist_act(m, x, mask, 3, t ? &rng : NULL, s, NULL);
        for (int b = 0; b < 3; b++)
            for (int cc = 0, off = 0; cc < 3; off += (int)nvec[cc++]) valid &= mask[b * 9 + off + s[b * 3 + cc]];
    }
    OK(valid, "masked MultiDiscrete: the mode and 199 samples per row are valid");
    char gr[128];
    OK(rl_mpdist_greedy(m, 0, NULL, gr, sizeof gr) > 0 && !strcmp(gr, "{\"argmax\":\"logits\",\"nvec\":[3,2,4]}") &&
           rl_mpdist_greedy(m, 0, NULL, gr, 12) < 0,
       "MultiDiscrete's greedy rule names each component's slice, and one too long for its buffer is refused");
    rl_mpdist_free(m);
    /* the mode is the argmax of the logits themselves: 0 and 1e-10 differ,
       where their log-softmax rounds both to the same -log 2 */
    float near[2] = {0.0f, 1e-10f}, ls1[1] = {0};
    int32_t mode = -1;
    m = rl_mpdist_new(RL_MPDIST_DISCRETE, (uint32_t[]){2}, 1, 0, NULL, 1, err, sizeof err);
    rl_mpdist_act(m, near, NULL, 1, NULL, &mode, NULL);
    OK(mode == 1 && rl_mpdist_greedy(m, 1, NULL, gr, sizeof gr) > 0 && !strcmp(gr, "{\"sample_softmax\":\"logits\"}"),
       "a discrete mode is the larger logit; its sampled rule is named");
    rl_mpdist_free(m);
    m = rl_mpdist_new(RL_MPDIST_BOX, NULL, 0, 1, ls1, 1, err, sizeof err);
    OK(m && rl_mpdist_greedy(m, 0, "pi/log_std", gr, sizeof gr) > 0 &&
           !strcmp(gr, "{\"identity\":\"mean\",\"log_std\":\"pi/log_std\"}"),
       "a box's greedy rule is its mean, and names its log-stds");
    rl_mpdist_free(m);
}

/* Epsilon-greedy's random action among the valid ones, and a replay's
   masks of next observations. */
static void test_mask_helpers(void)
{
    rl_rng a, b;
    rl_rng_seed(&a, 5, 1), rl_rng_seed(&b, 5, 1);
    int same = 1;
    for (int k = 0; k < 100; k++) same &= rl_uniform_masked(NULL, 7, &a) == (int32_t)rl_rng_below(&b, 7);
    OK(same, "uniform without a mask: one rl_rng_below draw");
    uint8_t mask[6] = {0, 1, 0, 0, 1, 1};
    int hits[6] = {0}, draws = 60000;
    for (int k = 0; k < draws; k++) hits[rl_uniform_masked(mask, 6, &a)]++;
    OK(!hits[0] && !hits[2] && !hits[3], "uniform with a mask: never a masked action");
    int even = 1;
    for (int j = 1; j < 6; j += 3) even &= abs(hits[j] - draws / 3) < draws / 50;
    OK(even && abs(hits[5] - draws / 3) < draws / 50, "uniform with a mask: each valid action a third of the time");
    uint8_t next[6] = {1, 0, 0, 1, 1, 1}, fin[6] = {0, 0, 1, 1, 0, 0}, out[6];
    uint8_t term[3] = {0, 1, 0}, trunc[3] = {0, 0, 1};
    rl_transition t = {.struct_size = sizeof t,
                       .count = 3,
                       .terminated = term,
                       .truncated = trunc,
                       .next_masks = next,
                       .final_masks = fin};
    rl_transition_next_masks(&t, 2, out);
    uint8_t want[6] = {1, 0, 1, 1, 0, 0};
    OK(!memcmp(out, want, 6), "next masks: the final mask where the episode ended");
}

/* A hybrid action's distribution is the product of its parts: logp,
   entropy and gradients are the MultiDiscrete part's plus the box's, each on
   its slice of the output; the mode is each part's; sampling draws a row's
   components, then its floats. */
static void test_mpdist_hybrid(void)
{
    enum { B = 5, K = 2, C = 5, M = 2, W = C + M };
    const uint32_t nvec[K] = {3, 2};
    float ls[M] = {-0.3f, 0.4f};
    char err[RL_ERR_MAX];
    OK(!rl_mpdist_new(RL_MPDIST_HYBRID, nvec, K, 0, ls, B, err, sizeof err) && err[0],
       "a hybrid distribution without floats is refused");
    OK(!rl_mpdist_new(RL_MPDIST_HYBRID, nvec, K, M, NULL, B, err, sizeof err) && err[0], "and one without log-stds");
    rl_mpdist *h = rl_mpdist_new(RL_MPDIST_HYBRID, nvec, K, M, ls, B, err, sizeof err);
    rl_mpdist *d = rl_mpdist_new(RL_MPDIST_MULTI, nvec, K, 0, NULL, B, err, sizeof err);
    rl_mpdist *g = rl_mpdist_new(RL_MPDIST_BOX, NULL, 0, M, ls, B, err, sizeof err);
    if (!OK(h && d && g, "hybrid, MultiDiscrete and box distributions")) return;
    OK(rl_mpdist_width(h) == W && rl_mpdist_action_ints(h) == K && rl_mpdist_action_floats(h) == M,
       "width: the logits and the means; K ints and M floats an action");
    OK(rl_mpdist_gsde(h, 4, 0, ls, err, sizeof err) == RL_EINVAL, "gSDE is refused on a hybrid action");
    float out[B * W], logits[B * C], means[B * M];
    uint8_t mask[B * C];
    rl_rng rng;
    rl_rng_seed(&rng, 9, 0);
    for (int i = 0; i < B * W; i++) out[i] = 2.0f * (float)rl_rng_uniform(&rng) - 1.0f;
    for (int i = 0; i < B * C; i++) mask[i] = i % 4 != 1; /* every component keeps a choice */
    for (int b = 0; b < B; b++) {
        memcpy(logits + b * C, out + b * W, C * sizeof *out);
        memcpy(means + b * M, out + b * W + C, M * sizeof *out);
    }
    int32_t act[B * K];
    float box[B * M], lp[B], lpd[B], lpg[B], lpa[B];
    rl_mpdist_act_logp(h, out, mask, B, &rng, act, box, lpa);
    OK(rl_mpdist_check(h, act, mask, B, "a", err, sizeof err) == RL_OK, "sampled components: allowed by the masks");
    double H = rl_mpdist_logp(h, out, mask, act, box, B, lp);
    double Hd = rl_mpdist_logp(d, logits, mask, act, NULL, B, lpd);
    double Hg = rl_mpdist_logp(g, means, NULL, NULL, box, B, lpg);
    double worst = fabs(H - Hd - Hg);
    for (int b = 0; b < B; b++) worst = fmax(worst, fmax(fabs(lp[b] - lpd[b] - lpg[b]), fabs(lpa[b] - lp[b])));
    ASSERT_NEAR(worst, 0, 1e-5, "logp and entropy: the parts' sums, and act_logp's logp is logp's");
    float gl[B] = {0.5f, -1.0f, 0.25f, 2.0f, -0.75f}, dout[B * W] = {0}, dd[B * C] = {0}, dg[B * M] = {0};
    float dls[M] = {0}, dlsg[M] = {0};
    rl_mpdist_logp(h, out, mask, act, box, B, lp);
    rl_mpdist_backward(h, out, act, box, B, gl, 0.1f, dout, dls);
    rl_mpdist_logp(d, logits, mask, act, NULL, B, lpd);
    rl_mpdist_backward(d, logits, act, NULL, B, gl, 0.1f, dd, NULL);
    rl_mpdist_logp(g, means, NULL, NULL, box, B, lpg);
    rl_mpdist_backward(g, means, NULL, box, B, gl, 0.1f, dg, dlsg);
    worst = fmax(fabs(dls[0] - dlsg[0]), fabs(dls[1] - dlsg[1]));
    for (int b = 0; b < B; b++) {
        for (int i = 0; i < C; i++) worst = fmax(worst, fabs(dout[b * W + i] - dd[b * C + i]));
        for (int i = 0; i < M; i++) worst = fmax(worst, fabs(dout[b * W + C + i] - dg[b * M + i]));
    }
    ASSERT_NEAR(worst, 0, 1e-6, "gradients: each part's on its slice, the log-stds the box's");
    rl_mpdist_act(h, out, mask, B, NULL, act, box);
    int modes = 1;
    for (int b = 0; b < B; b++) {
        for (int k = 0, off = 0; k < K; off += (int)nvec[k++])
            modes &= act[b * K + k] == (int32_t)rl_argmax_masked(out + b * W + off, mask + b * C + off, nvec[k]);
        modes &= box[b * M] == means[b * M] && box[b * M + 1] == means[b * M + 1];
    }
    OK(modes, "the mode: each component's allowed argmax, and the means");
    char buf[256];
    rl_mpdist_greedy(h, 0, "pi/log_std", buf, sizeof buf);
    ASSERT_CONTAINS(buf, "{\"argmax\":\"logits\",\"nvec\":[3,2],\"box\":2}",
                    "its greedy rule names the components and the box");
    rl_mpdist_greedy(h, 1, "pi/log_std", buf, sizeof buf);
    ASSERT_CONTAINS(buf, "{\"sample_softmax\":\"logits\",\"nvec\":[3,2],\"box\":2,\"log_std\":\"pi/log_std\"}",
                    "and, sampling, the log-stds");
    rl_mpdist_free(h), rl_mpdist_free(d), rl_mpdist_free(g);
}

int main(void)
{
    test_mpdist_hybrid();
    test_mask_helpers();
    test_masked_fixture();
    test_mpdist();
    test_gsde();
    test_gsde_gauss();
    test_pdist();
    test_categorical();
    test_gauss();
    test_squashed();
    return tap_done();
}
