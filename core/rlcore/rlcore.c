/* librlcore basics: clock, aligned memory, names, BLAS settings (the status
   strings and the state helpers: state_io.c). */
#define _POSIX_C_SOURCE 200809L
#include <rlhost/rlcore.h>

#include <cblas.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Debian's cblas.h declares these for OpenBLAS; keep our own prototypes so
   the build also works with headers that omit them. */
void openblas_set_num_threads(int num_threads);
int openblas_get_num_threads(void);
char *openblas_get_corename(void);

double rl_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* /proc/meminfo's MemAvailable in bytes, or UINT64_MAX where it cannot
   be read. */
static uint64_t mem_available(void)
{
    FILE *f = fopen("/proc/meminfo", "r");
    if (!f) return UINT64_MAX;
    char line[256];
    unsigned long long kb = 0;
    int found = 0;
    while (!found && fgets(line, sizeof line, f)) found = sscanf(line, "MemAvailable: %llu kB", &kb) == 1;
    fclose(f);
    return found ? (uint64_t)kb * 1024 : UINT64_MAX;
}

void *rl_calloc_aligned(size_t count, size_t size)
{
    if (size && count > SIZE_MAX / size) return NULL;
    size_t bytes = count * size;
    bytes = (bytes + 63) & ~(size_t)63;
    if (bytes == 0) bytes = 64;
    /* zeroing touches every page: an allocation larger than the memory
       available would get the process killed (the kernel overcommits),
       where NULL lets its caller say what did not fit */
    if (bytes >= ((size_t)64 << 20) && bytes > mem_available()) return NULL;
    void *p = NULL;
    if (posix_memalign(&p, 64, bytes) != 0) return NULL;
    memset(p, 0, bytes);
    return p;
}

void rl_free(void *p)
{
    free(p);
}

void rl_obs_to_float(rl_dtype dtype, float scale, const void *src, size_t n, float *dst)
{
    if (dtype == RL_DTYPE_F32) {
        const float *f = src;
        if (scale == 1.0f)
            memcpy(dst, f, n * sizeof(float));
        else
            for (size_t j = 0; j < n; j++) dst[j] = f[j] * scale;
    } else {
        const uint8_t *u = src;
        for (size_t j = 0; j < n; j++) dst[j] = (float)u[j] * scale;
    }
}

int rl_mem_check(uint64_t bytes, const char *what, char *err, size_t errlen)
{
    uint64_t avail = mem_available();
    if (avail == UINT64_MAX || bytes <= avail) return RL_OK;
    RL_ERRF(err, errlen, "%s needs %.1f GiB; this machine has %.1f GiB available", what, (double)bytes / (1u << 30),
            (double)avail / (1u << 30));
    return RL_ENOMEM;
}

int rl_replicas_sum_f64(const rl_replicas *r, double *v, size_t n)
{
    return r && r->count > 1 ? r->allreduce_f64(r->ctx, v, n) : RL_OK;
}

void rl_blas_set_threads(int n)
{
    openblas_set_num_threads(n < 1 ? 1 : n);
}

int rl_blas_get_threads(void)
{
    return openblas_get_num_threads();
}

const char *rl_blas_corename(void)
{
    const char *s = openblas_get_corename();
    return s ? s : "unknown";
}

size_t rl_edit_distance(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    if (la > 64 || lb > 64) return SIZE_MAX;
    size_t row[65];
    for (size_t j = 0; j <= lb; j++) row[j] = j;
    for (size_t i = 1; i <= la; i++) {
        size_t prev = row[0];
        row[0] = i;
        for (size_t j = 1; j <= lb; j++) {
            size_t cur = row[j];
            size_t sub = prev + (a[i - 1] != b[j - 1]);
            size_t del = row[j] + 1, ins = row[j - 1] + 1;
            row[j] = sub < del ? (sub < ins ? sub : ins) : (del < ins ? del : ins);
            prev = cur;
        }
    }
    return row[lb];
}

uint32_t rl_value_u32s(const rl_value *v, uint32_t *out, uint32_t cap)
{
    for (uint32_t k = 0; k < v->n && k < cap; k++) out[k] = (uint32_t)v->ilist[k];
    return v->n > UINT32_MAX ? UINT32_MAX : (uint32_t)v->n;
}

void rl_means_init(rl_means *m, const char *const *names, uint32_t n)
{
    memset(m, 0, sizeof *m);
    m->names = names;
    m->n = n < RL_MEANS_MAX ? n : RL_MEANS_MAX;
}

void rl_means_add(rl_means *m, const double *v)
{
    for (uint32_t k = 0; k < m->n; k++) m->sum[k] += v[k];
    m->count++;
}

size_t rl_means_report(rl_means *m, rl_metric *out, size_t cap)
{
    size_t n = 0;
    for (; n < m->n && n < cap; n++) out[n] = (rl_metric){m->names[n], m->count > 0 ? m->sum[n] / m->count : NAN};
    memset(m->sum, 0, sizeof m->sum);
    m->count = 0;
    return n;
}

int rl_means_state(rl_means *m, const rl_state_io *io, int load, const char *prefix, char *err, size_t errlen)
{
    char name[160];
    snprintf(name, sizeof name, "%smeans", prefix ? prefix : "");
    double v[RL_MEANS_MAX + 1];
    memcpy(v, m->sum, m->n * sizeof(double));
    v[m->n] = m->count;
    uint64_t shape = m->n + 1;
    int rc =
        load ? io->get(io->ctx, name, RL_DTYPE_F64, 1, &shape, v) : io->put(io->ctx, name, RL_DTYPE_F64, 1, &shape, v);
    if (rc != RL_OK) {
        if (err && errlen) snprintf(err, errlen, "%s", io->error ? io->error(io->ctx) : rl_strerror(rc));
        return rc;
    }
    if (!load) return RL_OK;
    for (uint32_t k = 0; k < m->n; k++)
        if ((rc = rl_state_check_f(name, v[k], -1e300, 1e300, err, errlen))) return rc;
    if ((rc = rl_state_check_f(name, v[m->n], 0, 9e15, err, errlen))) return rc;
    if (v[m->n] != floor(v[m->n])) {
        if (err && errlen)
            snprintf(err, errlen, "tensor '%s' holds a count of %g updates, not a whole number", name, v[m->n]);
        return RL_ECORRUPT;
    }
    memcpy(m->sum, v, m->n * sizeof(double));
    m->count = v[m->n];
    return RL_OK;
}
