/* Generalized state-dependent exploration; see <rlhost/dist.h>. */
#include <math.h>

#include <rlhost/dist.h>

/* Whether a log-std is inside its clamp (the gradient's gate). */
static int gsde_free(float ls)
{
    return ls >= RL_GSDE_LOG_STD_MIN && ls <= RL_GSDE_LOG_STD_MAX;
}

void rl_gsde_std(float *std, const float *log_std, int full, uint32_t L, uint32_t D)
{
    for (uint32_t l = 0; l < L; l++)
        for (uint32_t d = 0; d < D; d++) {
            float ls = log_std[full ? (size_t)l * D + d : l];
            ls = ls < RL_GSDE_LOG_STD_MIN ? RL_GSDE_LOG_STD_MIN : ls > RL_GSDE_LOG_STD_MAX ? RL_GSDE_LOG_STD_MAX : ls;
            std[(size_t)l * D + d] = expf(ls);
        }
}

void rl_gsde_sample(const float *std, uint32_t L, uint32_t D, rl_rng *rng, float *E)
{
    for (size_t k = 0; k < (size_t)L * D; k++) E[k] = std[k] * (float)rl_rng_normal(rng);
}

void rl_gsde_resample(const float *std, uint32_t L, uint32_t D, uint32_t n, int all, const uint8_t *start, rl_rng *rng,
                      float *E)
{
    for (uint32_t i = 0; start && i < n; i++)
        if (all || start[i]) rl_gsde_sample(std, L, D, rng, E + (size_t)i * L * D);
}

/* The noise of a row in dimension d: sum_l z_l E_ld (0 without a matrix). */
static double gsde_noise(const float *z, const float *E, uint32_t L, uint32_t D, uint32_t d)
{
    double n = 0;
    for (uint32_t l = 0; E && l < L; l++) n += (double)z[l] * E[(size_t)l * D + d];
    return n;
}

/* V_d of one row: the variance of u_d given z. */
static double gsde_var(const float *z, const float *std, uint32_t L, uint32_t D, uint32_t d)
{
    double v = 1e-6;
    for (uint32_t l = 0; l < L; l++) {
        double s = std[(size_t)l * D + d];
        v += (double)z[l] * z[l] * s * s;
    }
    return v;
}

double rl_gsde_squashed(float *a, float *u, const float *mu, const float *z, const float *E, const float *std,
                        uint32_t L, uint32_t D)
{
    double lp = 0;
    for (uint32_t d = 0; d < D; d++) {
        double n = gsde_noise(z, E, L, D, d);
        u[d] = mu[d] + (float)n;
        a[d] = tanhf(u[d]);
        double v = gsde_var(z, std, L, D, d), t = a[d];
        lp += -n * n / (2.0 * v) - 0.5 * log(2.0 * 3.14159265358979323846 * v) - log(1.0 - t * t + 1e-6);
    }
    return lp;
}

void rl_gsde_squashed_backward(float *dmu, float *dlog_std, const float *mu, const float *z, const float *E,
                               const float *std, const float *log_std, int full, const float *u, const float *a,
                               const float *da, uint32_t L, uint32_t D, float coef, double n)
{
    double c = coef / n;
    for (uint32_t d = 0; d < D; d++) {
        double t = a[d], v = gsde_var(z, std, L, D, d), dev = (double)u[d] - mu[d];
        /* through a (L and the tanh term), then logp's Gaussian term in u */
        double dt = da[d] + c * 2.0 * t / (1.0 - t * t + 1e-6), du = dt * (1.0 - t * t) - c * dev / v;
        dmu[d] += (float)(du + c * dev / v); /* u - mu does not move with mu: those two cancel */
        double dv = c * (dev * dev / (2.0 * v * v) - 0.5 / v);
        for (uint32_t l = 0; l < L; l++) {
            size_t at = full ? (size_t)l * D + d : l;
            if (!gsde_free(log_std[at])) continue; /* clamped: constant in log_std */
            double s = std[(size_t)l * D + d];
            /* dE_ld / dlog_std = E_ld; dV_d / dlog_std = 2 z_l^2 s_ld^2 */
            dlog_std[at] += (float)(du * z[l] * E[(size_t)l * D + d] + dv * 2.0 * z[l] * z[l] * s * s);
        }
    }
}

double rl_gsde_gauss(float *u, const float *mu, const float *z, const float *E, const float *std, uint32_t L,
                     uint32_t D)
{
    for (uint32_t d = 0; d < D; d++) u[d] = mu[d] + (float)gsde_noise(z, E, L, D, d);
    return rl_gsde_gauss_logp(u, mu, z, std, L, D, NULL);
}

double rl_gsde_gauss_logp(const float *u, const float *mu, const float *z, const float *std, uint32_t L, uint32_t D,
                          double *entropy)
{
    double lp = 0, h = 0, two_pi = 2.0 * 3.14159265358979323846;
    for (uint32_t d = 0; d < D; d++) {
        double v = gsde_var(z, std, L, D, d), dev = (double)u[d] - mu[d];
        lp += -dev * dev / (2.0 * v) - 0.5 * log(two_pi * v);
        h += 0.5 * log(two_pi * 2.718281828459045 * v);
    }
    if (entropy) *entropy = h;
    return lp;
}

void rl_gsde_gauss_backward(float *dmu, float *dlog_std, const float *u, const float *mu, const float *z,
                            const float *std, const float *log_std, int full, uint32_t L, uint32_t D, float g_logp,
                            float g_ent)
{
    for (uint32_t d = 0; d < D; d++) {
        double v = gsde_var(z, std, L, D, d), dev = (double)u[d] - mu[d];
        dmu[d] += (float)(g_logp * dev / v);
        /* d/dV of g_logp logp + g_ent H, then dV_d / dlog_std_ld = 2 z_l^2 s_ld^2 */
        double dv = g_logp * (dev * dev / (2.0 * v * v) - 0.5 / v) + g_ent * 0.5 / v;
        for (uint32_t l = 0; l < L; l++) {
            size_t at = full ? (size_t)l * D + d : l;
            if (!gsde_free(log_std[at])) continue;
            double s = std[(size_t)l * D + d];
            dlog_std[at] += (float)(dv * 2.0 * z[l] * z[l] * s * s);
        }
    }
}
