/* Running normalizers; see <rlhost/norm.h>. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <rlhost/nn.h>
#include <rlhost/norm.h>

static double replicas_of(const rl_replicas *rep)
{
    return rep && rep->count > 1 ? (double)rep->count : 1.0;
}

/* ---- observations ---------------------------------------------------------*/

static void obs_derive(rl_obs_norm *n)
{
    for (size_t j = 0; j < n->dim; j++) {
        n->shift[j] = (float)n->mean[j];
        n->mul[j] = (float)(1.0 / sqrt(n->var[j] + 1e-8));
    }
}

int rl_obs_norm_create(rl_obs_norm *n, uint32_t dim, float clip)
{
    memset(n, 0, sizeof *n);
    if (!dim || !(clip > 0)) return RL_EINVAL;
    n->dim = dim, n->clip = clip;
    if (!(n->mean = rl_calloc_aligned(dim, sizeof(double))) || !(n->var = rl_calloc_aligned(dim, sizeof(double))) ||
        !(n->batch = rl_calloc_aligned(2 * (size_t)dim, sizeof(double))) ||
        !(n->shift = rl_calloc_aligned(dim, sizeof(float))) || !(n->mul = rl_calloc_aligned(dim, sizeof(float)))) {
        rl_obs_norm_destroy(n);
        return RL_ENOMEM;
    }
    n->count = 1e-4;
    for (size_t j = 0; j < dim; j++) n->var[j] = 1.0;
    obs_derive(n);
    return RL_OK;
}

void rl_obs_norm_destroy(rl_obs_norm *n)
{
    if (!n) return;
    rl_free(n->mean);
    rl_free(n->var);
    rl_free(n->batch);
    rl_free(n->shift);
    rl_free(n->mul);
    memset(n, 0, sizeof *n);
}

void rl_obs_norm_update(rl_obs_norm *n, const float *x, uint32_t rows, const rl_replicas *rep)
{
    size_t D = n->dim;
    double *bm = n->batch, *bv = n->batch + D, n_b = (double)rows * replicas_of(rep);
    for (size_t j = 0; j < D; j++) {
        bm[j] = 0;
        for (uint32_t r = 0; r < rows; r++) bm[j] += x[r * D + j];
    }
    rl_replicas_sum_f64(rep, bm, D);
    for (size_t j = 0; j < D; j++) {
        bm[j] /= n_b;
        bv[j] = 0;
        for (uint32_t r = 0; r < rows; r++) {
            double d = x[r * D + j] - bm[j];
            bv[j] += d * d;
        }
    }
    rl_replicas_sum_f64(rep, bv, D);
    for (size_t j = 0; j < D; j++) {
        double c = n->count, tot = c + n_b, delta = bm[j] - n->mean[j], v = bv[j] / n_b;
        n->mean[j] += delta * n_b / tot;
        n->var[j] = (n->var[j] * c + v * n_b + delta * delta * c * n_b / tot) / tot;
    }
    n->count += n_b;
    obs_derive(n);
}

void rl_obs_norm_apply(const rl_obs_norm *n, float *x, uint32_t rows)
{
    size_t D = n->dim;
    float c = n->clip;
    for (uint32_t r = 0; r < rows; r++)
        for (size_t j = 0; j < D; j++) {
            float v = (x[r * D + j] - n->shift[j]) * n->mul[j];
            x[r * D + j] = v > c ? c : v < -c ? -c : v;
        }
}

int rl_obs_norm_state(rl_obs_norm *n, const rl_state_io *io, int load, const char *prefix, char *err, size_t errlen)
{
    char name[3][96];
    static const char *const what[3] = {"count", "mean", "var"};
    for (int k = 0; k < 3; k++) snprintf(name[k], sizeof name[k], "%s%s", prefix, what[k]);
    int rc;
    if ((rc = rl_scalar_state(&n->count, io, load, name[0], err, errlen))) return rc;
    uint64_t shape = n->dim;
    double *arrays[2] = {n->mean, n->var};
    for (int k = 0; k < 2; k++) {
        rc = load ? io->get(io->ctx, name[k + 1], RL_DTYPE_F64, 1, &shape, arrays[k])
                  : io->put(io->ctx, name[k + 1], RL_DTYPE_F64, 1, &shape, arrays[k]);
        if (load && rc == RL_ECORRUPT) /* the raw-bytes form */
            rc = rl_state_blob(io, 1, prefix, what[k + 1], arrays[k], (size_t)n->dim * 8, err, errlen);
        else if (rc != RL_OK)
            RL_ERRF(err, errlen, "%s", io->error(io->ctx));
        if (rc != RL_OK) return rc;
    }
    if (!load) return RL_OK;
    if ((rc = rl_state_check_f(name[0], n->count, 0, 1e300, err, errlen))) return rc;
    for (size_t j = 0; j < n->dim; j++)
        if ((rc = rl_state_check_f(name[1], n->mean[j], -1e300, 1e300, err, errlen)) ||
            (rc = rl_state_check_f(name[2], n->var[j], 0, 1e300, err, errlen)))
            return rc;
    obs_derive(n);
    return RL_OK;
}

/* ---- rewards --------------------------------------------------------------*/

int rl_return_norm_create(rl_return_norm *r, uint32_t envs, float gamma, float clip)
{
    memset(r, 0, sizeof *r);
    if (!envs || !(clip > 0) || !(gamma >= 0 && gamma <= 1)) return RL_EINVAL;
    if (!(r->ret = rl_calloc_aligned(envs, sizeof(double)))) return RL_ENOMEM;
    r->envs = envs, r->gamma = gamma, r->clip = clip;
    r->count = 1e-4, r->var = 1.0;
    return RL_OK;
}

void rl_return_norm_destroy(rl_return_norm *r)
{
    if (!r) return;
    rl_free(r->ret);
    memset(r, 0, sizeof *r);
}

void rl_return_norm_step(rl_return_norm *r, const float *rewards, const uint8_t *terminated, const uint8_t *truncated,
                         float *out, const rl_replicas *rep)
{
    uint32_t N = r->envs;
    double bm = 0, bv = 0, n_b = (double)N * replicas_of(rep);
    for (uint32_t i = 0; i < N; i++) bm += r->ret[i] = r->ret[i] * r->gamma + rewards[i];
    rl_replicas_sum_f64(rep, &bm, 1);
    bm /= n_b;
    for (uint32_t i = 0; i < N; i++) bv += (r->ret[i] - bm) * (r->ret[i] - bm);
    rl_replicas_sum_f64(rep, &bv, 1);
    bv /= n_b;
    double tot = r->count + n_b, delta = bm - r->mean;
    r->mean += delta * n_b / tot;
    r->var = (r->var * r->count + bv * n_b + delta * delta * r->count * n_b / tot) / tot;
    r->count = tot;
    double sd = sqrt(r->var + 1e-8), c = r->clip;
    for (uint32_t i = 0; i < N; i++) {
        double v = rewards[i] / sd;
        out[i] = (float)(v > c ? c : v < -c ? -c : v);
        if (terminated[i] || truncated[i]) r->ret[i] = 0;
    }
}

int rl_return_norm_state(rl_return_norm *r, const rl_state_io *io, int load, const char *prefix, char *err,
                         size_t errlen)
{
    double v[3] = {r->count, r->mean, r->var};
    static const char *const what[3] = {"return_count", "return_mean", "return_var"};
    static const double lo[3] = {0, -1e300, 0}, hi[3] = {1e300, 1e300, 1e300};
    char name[96];
    int rc;
    for (int k = 0; k < 3; k++) {
        snprintf(name, sizeof name, "%s%s", prefix, what[k]);
        if ((rc = rl_scalar_state(&v[k], io, load, name, err, errlen)) ||
            (load && (rc = rl_state_check_f(name, v[k], lo[k], hi[k], err, errlen))))
            return rc;
    }
    snprintf(name, sizeof name, "%sreturns", prefix);
    uint64_t shape = r->envs;
    rc = load ? io->get(io->ctx, name, RL_DTYPE_F64, 1, &shape, r->ret)
              : io->put(io->ctx, name, RL_DTYPE_F64, 1, &shape, r->ret);
    if (rc != RL_OK) {
        RL_ERRF(err, errlen, "%s", io->error(io->ctx));
        return rc;
    }
    for (uint32_t i = 0; load && i < r->envs; i++)
        if ((rc = rl_state_check_f(name, r->ret[i], -1e300, 1e300, err, errlen))) return rc;
    if (load) r->count = v[0], r->mean = v[1], r->var = v[2];
    return RL_OK;
}
