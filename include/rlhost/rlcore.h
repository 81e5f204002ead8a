/*
 * <rlhost/rlcore.h> — librlcore basics shared by the host and the plugins:
 * status strings, a seedable RNG, a clock, aligned allocation and the BLAS
 * runtime settings.  The neural-network library is <rlhost/nn.h>.
 *
 * Everything here is thread-safe unless a function says otherwise; an rl_rng
 * belongs to one thread at a time.
 */
#ifndef RLHOST_RLCORE_H
#define RLHOST_RLCORE_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>

#include <rlhost/plugin.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Text for an RL_E* status ("unknown status" for anything else). */
const char *rl_strerror(int status);

/* ---- RNG: xoshiro256** seeded through splitmix64 ------------------------
 * rl_rng_seed(r, seed, stream) gives independent, reproducible streams for
 * (seed, stream) pairs, e.g. stream = env index. */
typedef struct rl_rng {
    uint64_t s[4];
} rl_rng;

static inline uint64_t rl__splitmix64(uint64_t *x)
{
    uint64_t z = (*x += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static inline void rl_rng_seed(rl_rng *r, uint64_t seed, uint64_t stream)
{
    uint64_t x = seed ^ (stream * 0xd1342543de82ef95ull + 0x2545f4914f6cdd1dull);
    for (int i = 0; i < 4; i++) r->s[i] = rl__splitmix64(&x);
}

static inline uint64_t rl__rotl(uint64_t x, int k)
{
    return (x << k) | (x >> (64 - k));
}

static inline uint64_t rl_rng_u64(rl_rng *r)
{
    uint64_t *s = r->s;
    uint64_t result = rl__rotl(s[1] * 5, 7) * 9;
    uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rl__rotl(s[3], 45);
    return result;
}

static inline uint32_t rl_rng_u32(rl_rng *r)
{
    return (uint32_t)(rl_rng_u64(r) >> 32);
}

/* Uniform integer in [0, n), n > 0 (Lemire's multiply-shift; the bias is
   below 2^-32 and irrelevant here). */
static inline uint32_t rl_rng_below(rl_rng *r, uint32_t n)
{
    return (uint32_t)(((uint64_t)rl_rng_u32(r) * n) >> 32);
}

/* Uniform float in [0, 1). */
static inline float rl_rng_uniform(rl_rng *r)
{
    return (float)(rl_rng_u64(r) >> 40) * (1.0f / 16777216.0f);
}

/* Uniform double in [0, 1). */
static inline double rl_rng_uniform_d(rl_rng *r)
{
    return (double)(rl_rng_u64(r) >> 11) * (1.0 / 9007199254740992.0);
}

/* Standard normal (Box-Muller, one value per call). */
static inline double rl_rng_normal(rl_rng *r)
{
    double u1 = 1.0 - rl_rng_uniform_d(r); /* (0, 1] */
    double u2 = rl_rng_uniform_d(r);
    return sqrt(-2.0 * log(u1)) * cos(6.283185307179586 * u2);
}

/* ---- Time and memory ------------------------------------------------------*/

/* Monotonic clock in seconds (vDSO; no syscall). */
double rl_now(void);

/* 64-byte aligned, zeroed allocation; NULL on failure or overflow.
   Free with rl_free. */
void *rl_calloc_aligned(size_t count, size_t size);
void rl_free(void *p);

/* ---- Observations ---------------------------------------------------------
   n observation elements of dtype (RL_DTYPE_U8 or RL_DTYPE_F32) as network
   input: each times scale (rl_env_info.obs_scale). */
void rl_obs_to_float(rl_dtype dtype, float scale, const void *src, size_t n, float *dst);

/* ---- Names ----------------------------------------------------------------
   Levenshtein distance between two names (for "did you mean"), or SIZE_MAX
   when either is longer than 64 bytes. */
size_t rl_edit_distance(const char *a, const char *b);

/* ---- Option values ------------------------------------------------------
   An INT_LIST option's values (non-negative, as the schema's minimum
   ensured) as uint32 into out[0..cap); returns the list's length, which
   may be more than cap (as snprintf: the caller refuses a list too long). */
uint32_t rl_value_u32s(const rl_value *v, uint32_t *out, uint32_t cap);

/* ---- State blobs for checkpoints ------------------------------------------
   Saves (load = 0) or restores (load = 1) `bytes` raw bytes as the uint8
   tensor PREFIX+NAME; for state that must come back exactly (env states,
   RNGs) rather than be read by other tools.  err gets the host's sentence. */
int rl_state_blob(const rl_state_io *io, int load, const char *prefix, const char *name, void *data, size_t bytes,
                  char *err, size_t errlen);

/* Stores a metadata string KEY = value with the checkpoint (as "algo.KEY")
   when the host offers it (ABI 1.1 hosts, saving, replica 0); RL_OK and
   nothing stored otherwise. */
int rl_state_meta(const rl_state_io *io, const char *key, const char *value, char *err, size_t errlen);

/* ---- Metric means ---------------------------------------------------------
   An algorithm's per-update values (losses, entropy) summed between two
   metrics() calls, reported as means and reset.  The sums are training
   state: saved with the checkpoint, a resumed run reports the rows an
   unbroken one would. */
#define RL_MEANS_MAX 16
typedef struct rl_means {
    const char *const *names; /* n metric names, static */
    uint32_t n;
    double sum[RL_MEANS_MAX], count;
} rl_means;

/* n <= RL_MEANS_MAX (more are ignored). */
void rl_means_init(rl_means *m, const char *const *names, uint32_t n);
/* Adds one update's values v[0..n). */
void rl_means_add(rl_means *m, const double *v);
/* The means (NaN with nothing added) as metrics into out[0..cap), then
   resets; returns how many were written. */
size_t rl_means_report(rl_means *m, rl_metric *out, size_t cap);
/* Saves or loads the sums and count as the float64 tensor PREFIXmeans
   [n + 1]; load checks each finite and the count a whole number >= 0. */
int rl_means_state(rl_means *m, const rl_state_io *io, int load, const char *prefix, char *err, size_t errlen);

/* ---- Checks on loaded state -----------------------------------------------
   Everything a checkpoint holds is untrusted: a loaded value that indexes or
   sizes anything is range-checked before use.  Each returns RL_OK when the
   value is inside [lo, hi] (finite, for doubles), else RL_ECORRUPT with
   "tensor 'NAME' holds V, outside [LO, HI]" in err.  NAME is the tensor the
   value came from, optionally with a field ("env/snake/scalars: head"). */
int rl_state_check_u(const char *name, uint64_t v, uint64_t lo, uint64_t hi, char *err, size_t errlen);
int rl_state_check_i(const char *name, int64_t v, int64_t lo, int64_t hi, char *err, size_t errlen);
int rl_state_check_f(const char *name, double v, double lo, double hi, char *err, size_t errlen);
/* A generator state that can produce numbers: xoshiro's all-zero state
   stays zero forever (rejection sampling on it never ends). */
int rl_state_check_rng(const char *name, const rl_rng *r, char *err, size_t errlen);
/* Every float of v[0..n) finite: observations, rewards, recurrent states. */
int rl_state_check_finite(const char *name, const float *v, size_t n, char *err, size_t errlen);
/* Every int32 of v[0..n) inside [lo, hi]: action and index arrays. */
int rl_state_check_i32s(const char *name, const int32_t *v, size_t n, int32_t lo, int32_t hi, char *err, size_t errlen);

/* ---- Replicas (ABI 1.1) --------------------------------------------------
   rl_args_replicas, rl_replicas_shared and rl_args_inference are in
   <rlhost/plugin.h>. */
/* RL_OK when `bytes` more fit in the memory the machine has available
   (/proc/meminfo's MemAvailable; always RL_OK where it cannot be read),
   else RL_ENOMEM with "WHAT needs N GiB; this machine has M GiB
   available" in err: a config is refused with its estimate before
   anything is allocated. */
int rl_mem_check(uint64_t bytes, const char *what, char *err, size_t errlen);
/* v[0..n) := its elementwise sum over the replicas (rl_replicas.allreduce_f64);
   nothing to do, and RL_OK, without a table or with one replica. */
int rl_replicas_sum_f64(const rl_replicas *r, double *v, size_t n);

/* ---- BLAS runtime -------------------------------------------------------- */

/* Threads OpenBLAS may use for one call (>= 1). */
void rl_blas_set_threads(int n);
int rl_blas_get_threads(void);
/* Name of the kernel set OpenBLAS chose ("SkylakeX", "Haswell", ...). */
const char *rl_blas_corename(void);

#ifdef __cplusplus
}
#endif

#endif /* RLHOST_RLCORE_H */
