/* Batch renormalization of a layer's input x [N][F] (Ioffe 2017, as
   sb3-contrib's BatchRenorm computes it; see rl_mlp_create_renorm): the
   training forward, the forward by running statistics, and the backward of
   each.  bn points at the layer's four tensors, F floats each: scale,
   bias, running mean, running variance.

   Training: mu and v are the batch's mean and unbiased variance, s =
   sqrt(v).  Before warm-up ends (renorm = 0) the input is normalized by mu
   and v; after it by mu_c = mu - d s / r and v_c = v / r^2, where r =
   sqrt(v + eps) / sqrt(var + eps) clipped to [1/3, 3] and d = (mu - mean)
   / sqrt(var + eps) clipped to [-5, 5] are constants of the gradient.
   xhat = (x - mu_c) / sigma with sigma = sqrt(v_c + eps); z = scale xhat +
   bias. */
#include <math.h>
#include <string.h>

#include "nn_internal.h"

#define RENORM_RMAX 3.0
#define RENORM_DMAX 5.0

/* stats, [RL__RENORM_STATS][F]: the batch's mean, sigma (the running
   statistics' sqrt(var + eps) in a forward by them), the batch's std, r,
   d, mu_c; and the backward's per-feature coefficients */
enum { ST_MEAN, ST_SIGMA, ST_STD, ST_R, ST_D, ST_MUC, ST_A, ST_C0, ST_COEF };

/* z = xhat scale + bias, xhat = (x - center) / sigma: element by element,
   the same float operations in any batch (a row's result never depends on
   the others). */
static void normalize(float *restrict z, float *restrict xhat, const float *restrict x, const float *restrict center,
                      const float *restrict sigma, const float *restrict scale, const float *restrict bias, uint32_t N,
                      uint32_t F)
{
    for (uint32_t i = 0; i < N; i++) {
        const float *restrict xi = x + (size_t)i * F;
        float *restrict zi = z + (size_t)i * F, *restrict hi = xhat + (size_t)i * F;
        for (uint32_t j = 0; j < F; j++) {
            float h = (xi[j] - center[j]) / sigma[j];
            hi[j] = h;
            zi[j] = h * scale[j] + bias[j];
        }
    }
}

void rl__renorm_train(float *z, float *xhat, rl__bn bn, float *stats, double *acc, const float *x, uint32_t N,
                      uint32_t F, float momentum, float eps, int renorm)
{
    float *rmean = bn.mean, *rvar = bn.var, *mean = stats + ST_MEAN * F;
    double *restrict sum = acc, *restrict sq = acc + F;
    memset(acc, 0, 2 * (size_t)F * sizeof *acc);
    for (uint32_t i = 0; i < N; i++) {
        const float *restrict xi = x + (size_t)i * F;
        for (uint32_t j = 0; j < F; j++) sum[j] += xi[j];
    }
    for (uint32_t j = 0; j < F; j++) mean[j] = (float)(sum[j] / N);
    for (uint32_t i = 0; i < N; i++) {
        const float *restrict xi = x + (size_t)i * F;
        for (uint32_t j = 0; j < F; j++) {
            double d = (double)xi[j] - mean[j];
            sq[j] += d * d;
        }
    }
    for (uint32_t j = 0; j < F; j++) {
        double mu = mean[j], v = sq[j] / (N - 1), s = sqrt(v), r = 1, d = 0, vc = v;
        if (renorm) {
            double rs = sqrt((double)rvar[j] + eps);
            r = sqrt(v + eps) / rs;
            r = r < 1 / RENORM_RMAX ? 1 / RENORM_RMAX : r > RENORM_RMAX ? RENORM_RMAX : r;
            d = (mu - rmean[j]) / rs;
            d = d < -RENORM_DMAX ? -RENORM_DMAX : d > RENORM_DMAX ? RENORM_DMAX : d;
            vc = v / (r * r);
        }
        stats[ST_MUC * F + j] = (float)(mu - d * s / r);
        stats[ST_SIGMA * F + j] = (float)sqrt(vc + eps);
        stats[ST_STD * F + j] = (float)s;
        stats[ST_R * F + j] = (float)r;
        stats[ST_D * F + j] = (float)d;
        if (isfinite(mu) && isfinite(v)) { /* a batch with a NaN or inf leaves the running statistics be */
            rmean[j] += momentum * (float)(mu - rmean[j]);
            rvar[j] += momentum * (float)(v - rvar[j]);
        }
    }
    normalize(z, xhat, x, stats + ST_MUC * F, stats + ST_SIGMA * F, bn.scale, bn.bias, N, F);
}

void rl__renorm_eval(float *z, float *xhat, rl__bn bn, float *stats, const float *x, uint32_t N, uint32_t F, float eps)
{
    float *sd = stats + ST_SIGMA * F;
    for (uint32_t j = 0; j < F; j++) sd[j] = sqrtf(bn.var[j] + eps);
    normalize(z, xhat, x, bn.mean, sd, bn.scale, bn.bias, N, F);
}

/* dscale += sum dz xhat, dbias += sum dz (into dbn unless its scale is
   NULL); acc: those sums by feature. */
static void affine_backward(rl__bn dbn, double *acc, const float *xhat, const float *dz, uint32_t N, uint32_t F)
{
    double *restrict sdz = acc, *restrict sdzx = acc + F;
    memset(acc, 0, 2 * (size_t)F * sizeof *acc);
    for (uint32_t i = 0; i < N; i++) {
        const float *restrict di = dz + (size_t)i * F, *restrict hi = xhat + (size_t)i * F;
        for (uint32_t j = 0; j < F; j++) {
            sdz[j] += di[j];
            sdzx[j] += (double)di[j] * hi[j];
        }
    }
    for (uint32_t j = 0; dbn.scale && j < F; j++) {
        dbn.scale[j] += (float)sdzx[j];
        dbn.bias[j] += (float)sdz[j];
    }
}

void rl__renorm_backward_train(float *dx, rl__bn dbn, rl__bn bn, float *stats, double *acc, const float *x,
                               const float *xhat, const float *dz, uint32_t N, uint32_t F)
{
    const float *scale = bn.scale;
    affine_backward(dbn, acc, xhat, dz, N, F);
    /* per feature: dx_i = g_i / sigma + dmu_c / N + coef (x_i - mu), with
       g = dz scale, dmu_c = -sum g / sigma and dv_c = -sum g xhat / (2
       sigma^2) the gradients of mu_c and v_c, and coef collecting what
       flows through v = sum (x - mu)^2 / (N - 1), into v_c = v / r^2 and
       through s = sqrt(v) into mu_c = mu - d s / r */
    float *a = stats + ST_A * F, *c0 = stats + ST_C0 * F, *coef = stats + ST_COEF * F;
    const float *mean = stats + ST_MEAN * F;
    for (uint32_t j = 0; j < F; j++) {
        double sigma = stats[ST_SIGMA * F + j], s = stats[ST_STD * F + j], r = stats[ST_R * F + j],
               d = stats[ST_D * F + j];
        double dmu = -scale[j] * acc[j] / sigma, dv = -scale[j] * acc[F + j] / (2 * sigma * sigma);
        double through_s = s > 0 ? -dmu * d / (r * 2 * s) : 0;
        a[j] = (float)(scale[j] / sigma);
        c0[j] = (float)(dmu / N);
        coef[j] = (float)((dv / (r * r) + through_s) * 2 / (N - 1));
    }
    for (uint32_t i = 0; i < N; i++) {
        const float *restrict di = dz + (size_t)i * F, *restrict xi = x + (size_t)i * F;
        float *restrict o = dx + (size_t)i * F;
        for (uint32_t j = 0; j < F; j++) o[j] = di[j] * a[j] + c0[j] + coef[j] * (xi[j] - mean[j]);
    }
}

void rl__renorm_backward_eval(float *dx, rl__bn dbn, rl__bn bn, const float *stats, double *acc, const float *xhat,
                              const float *dz, uint32_t N, uint32_t F)
{
    const float *scale = bn.scale, *sd = stats + ST_SIGMA * F;
    affine_backward(dbn, acc, xhat, dz, N, F);
    for (uint32_t i = 0; dx && i < N; i++) {
        const float *restrict di = dz + (size_t)i * F;
        float *restrict o = dx + (size_t)i * F;
        for (uint32_t j = 0; j < F; j++) o[j] = di[j] * scale[j] / sd[j];
    }
}
