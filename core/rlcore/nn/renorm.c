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

enum { ST_MEAN, ST_SIGMA, ST_STD, ST_R, ST_D, ST_N };

void rl__renorm_train(float *z, float *xhat, rl__bn bn, float *stats, double *acc, const float *x, uint32_t N,
                      uint32_t F, float momentum, float eps, int renorm)
{
    const float *scale = bn.scale, *bias = bn.bias;
    float *rmean = bn.mean, *rvar = bn.var;
    double *mu_c = acc, *sq = acc + F;
    memset(acc, 0, 2 * (size_t)F * sizeof *acc);
    for (uint32_t i = 0; i < N; i++)
        for (uint32_t j = 0; j < F; j++) mu_c[j] += x[(size_t)i * F + j];
    for (uint32_t j = 0; j < F; j++) stats[ST_MEAN * F + j] = (float)(mu_c[j] / N);
    for (uint32_t i = 0; i < N; i++)
        for (uint32_t j = 0; j < F; j++) {
            double d = (double)x[(size_t)i * F + j] - stats[ST_MEAN * F + j];
            sq[j] += d * d;
        }
    for (uint32_t j = 0; j < F; j++) {
        double mu = stats[ST_MEAN * F + j], v = sq[j] / (N - 1), s = sqrt(v), r = 1, d = 0, vc = v;
        if (renorm) {
            double rs = sqrt((double)rvar[j] + eps);
            r = sqrt(v + eps) / rs;
            r = r < 1 / RENORM_RMAX ? 1 / RENORM_RMAX : r > RENORM_RMAX ? RENORM_RMAX : r;
            d = (mu - rmean[j]) / rs;
            d = d < -RENORM_DMAX ? -RENORM_DMAX : d > RENORM_DMAX ? RENORM_DMAX : d;
            vc = v / (r * r);
        }
        mu_c[j] = mu - d * s / r;
        stats[ST_SIGMA * F + j] = (float)sqrt(vc + eps);
        stats[ST_STD * F + j] = (float)s;
        stats[ST_R * F + j] = (float)r;
        stats[ST_D * F + j] = (float)d;
        rmean[j] += momentum * (float)(mu - rmean[j]);
        rvar[j] += momentum * (float)(v - rvar[j]);
    }
    for (uint32_t i = 0; i < N; i++)
        for (uint32_t j = 0; j < F; j++) {
            size_t k = (size_t)i * F + j;
            float h = (float)(((double)x[k] - mu_c[j]) / stats[ST_SIGMA * F + j]);
            xhat[k] = h;
            z[k] = h * scale[j] + bias[j];
        }
}

void rl__renorm_eval(float *z, float *xhat, rl__bn bn, const float *x, uint32_t N, uint32_t F, float eps)
{
    const float *scale = bn.scale, *bias = bn.bias, *mean = bn.mean, *var = bn.var;
    for (uint32_t i = 0; i < N; i++)
        for (uint32_t j = 0; j < F; j++) {
            size_t k = (size_t)i * F + j;
            float h = (x[k] - mean[j]) / sqrtf(var[j] + eps);
            xhat[k] = h;
            z[k] = h * scale[j] + bias[j];
        }
}

/* dscale += sum dz xhat, dbias += sum dz (into dbn unless its scale is
   NULL); acc: those sums by feature. */
static void affine_backward(rl__bn dbn, double *acc, const float *xhat, const float *dz, uint32_t N, uint32_t F)
{
    double *sdz = acc, *sdzx = acc + F;
    memset(acc, 0, 2 * (size_t)F * sizeof *acc);
    for (uint32_t i = 0; i < N; i++)
        for (uint32_t j = 0; j < F; j++) {
            size_t k = (size_t)i * F + j;
            sdz[j] += dz[k];
            sdzx[j] += (double)dz[k] * xhat[k];
        }
    for (uint32_t j = 0; dbn.scale && j < F; j++) {
        dbn.scale[j] += (float)sdzx[j];
        dbn.bias[j] += (float)sdz[j];
    }
}

void rl__renorm_backward_train(float *dx, rl__bn dbn, rl__bn bn, const float *stats, double *acc, const float *x,
                               const float *xhat, const float *dz, uint32_t N, uint32_t F)
{
    const float *scale = bn.scale;
    affine_backward(dbn, acc, xhat, dz, N, F);
    /* per feature: dx_i = g_i / sigma + dmu_c / N + coef (x_i - mu), with
       g = dz scale, dmu_c = -sum g / sigma and dv_c = -sum g xhat / (2
       sigma^2) the gradients of mu_c and v_c, and coef collecting what
       flows through v = sum (x - mu)^2 / (N - 1), into v_c = v / r^2 and
       through s = sqrt(v) into mu_c = mu - d s / r */
    double *c0 = acc, *coef = acc + F; /* overwrite the sums they are made of */
    for (uint32_t j = 0; j < F; j++) {
        double sigma = stats[ST_SIGMA * F + j], s = stats[ST_STD * F + j], r = stats[ST_R * F + j],
               d = stats[ST_D * F + j];
        double dmu = -scale[j] * c0[j] / sigma, dv = -scale[j] * coef[j] / (2 * sigma * sigma);
        double through_s = s > 0 ? -dmu * d / (r * 2 * s) : 0;
        c0[j] = dmu / N;
        coef[j] = (dv / (r * r) + through_s) * 2 / (N - 1);
    }
    for (uint32_t i = 0; i < N; i++)
        for (uint32_t j = 0; j < F; j++) {
            size_t k = (size_t)i * F + j;
            dx[k] = (float)((double)dz[k] * scale[j] / stats[ST_SIGMA * F + j] + c0[j] +
                            coef[j] * ((double)x[k] - stats[ST_MEAN * F + j]));
        }
}

void rl__renorm_backward_eval(float *dx, rl__bn dbn, rl__bn bn, double *acc, const float *xhat, const float *dz,
                              uint32_t N, uint32_t F, float eps)
{
    const float *scale = bn.scale, *var = bn.var;
    affine_backward(dbn, acc, xhat, dz, N, F);
    for (uint32_t i = 0; dx && i < N; i++)
        for (uint32_t j = 0; j < F; j++) {
            size_t k = (size_t)i * F + j;
            dx[k] = dz[k] * scale[j] / sqrtf(var[j] + eps);
        }
}
