/* The processes of one run; see world.h. */
#include "parallel/world.h"

#include "base/log.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef RLHOST_MPI
#include <mpi.h>
#endif

static struct {
    uint32_t size, rank, local;
    int joined;
    void *send, *recv, *acc; /* the sums' scratch, grown to the largest use */
    size_t send_cap, recv_cap, acc_cap;
} w = {1, 0, 1, 0, NULL, NULL, NULL, 0, 0, 0};

uint32_t rl__world_size(void)
{
    return w.size;
}
uint32_t rl__world_rank(void)
{
    return w.rank;
}
uint32_t rl__world_local(void)
{
    return w.local;
}

/* Grows *p to at least bytes; 0, or -1 on out of memory. */
static int grow(void **p, size_t *cap, size_t bytes)
{
    if (bytes <= *cap) return 0;
    void *q = realloc(*p, bytes);
    if (!q) return -1;
    *p = q;
    *cap = bytes;
    return 0;
}

#ifdef RLHOST_MPI

const char *rl__world_mpi(void)
{
#if defined(OMPI_MAJOR_VERSION)
#define STR_(x) #x
#define STR(x) STR_(x)
    return "Open MPI " STR(OMPI_MAJOR_VERSION) "." STR(OMPI_MINOR_VERSION) "." STR(OMPI_RELEASE_VERSION);
#else
    return "MPI";
#endif
}

int rl__world_init(int *argc, char ***argv)
{
    /* Only under a launcher: a plain `rlhost run` never starts MPI. */
    if (!getenv("OMPI_COMM_WORLD_SIZE") && !getenv("PMIX_RANK") && !getenv("PMI_RANK")) return 0;
    int provided = 0, size = 1, rank = 0, local = 1;
    if (MPI_Init_thread(argc, argv, MPI_THREAD_FUNNELED, &provided) != MPI_SUCCESS) return -1;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm node;
    if (MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node) == MPI_SUCCESS) {
        MPI_Comm_size(node, &local);
        MPI_Comm_free(&node);
    }
    w.joined = 1;
    w.size = (uint32_t)size;
    w.rank = (uint32_t)rank;
    w.local = (uint32_t)local;
    return 0;
}

void rl__world_finalize(void)
{
    free(w.send);
    free(w.recv);
    free(w.acc);
    w.send = w.recv = w.acc = NULL;
    w.send_cap = w.recv_cap = w.acc_cap = 0;
    if (w.joined) MPI_Finalize();
    w.joined = 0;
}

_Noreturn void rl__world_abort(int code)
{
    rl__log_flush();
    if (w.joined) MPI_Abort(MPI_COMM_WORLD, code);
    exit(code);
}

int rl__world_max(int v)
{
    int out = v;
    if (w.size > 1) MPI_Allreduce(&v, &out, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    return out;
}

void rl__world_allgather(const void *mine, void *all, size_t bytes)
{
    if (w.size == 1) {
        memmove(all, mine, bytes);
        return;
    }
    MPI_Allgather(mine, (int)bytes, MPI_BYTE, all, (int)bytes, MPI_BYTE, MPI_COMM_WORLD);
}

void rl__world_bcast(void *buf, size_t bytes, uint32_t root)
{
    if (w.size > 1) MPI_Bcast(buf, (int)bytes, MPI_BYTE, (int)root, MPI_COMM_WORLD);
}

int rl__world_gather(const void *mine, size_t bytes, unsigned char **blobs, size_t *lens)
{
    *blobs = NULL;
    unsigned long long my = bytes, all[1024];
    if (w.size > sizeof all / sizeof *all) return -1;
    MPI_Gather(&my, 1, MPI_UNSIGNED_LONG_LONG, all, 1, MPI_UNSIGNED_LONG_LONG, 0, MPI_COMM_WORLD);
    int counts[1024], displs[1024], bad = 0;
    size_t total = 0;
    if (w.rank == 0)
        for (uint32_t r = 0; r < w.size; r++) {
            lens[r] = (size_t)all[r];
            if (all[r] > INT_MAX || total > (size_t)INT_MAX - all[r]) bad = 1;
            counts[r] = (int)all[r];
            displs[r] = (int)total;
            total += (size_t)all[r];
        }
    if (!bad && w.rank == 0 && !(*blobs = malloc(total ? total : 1))) bad = 1;
    if (rl__world_max(bad || bytes > INT_MAX)) {
        free(*blobs);
        *blobs = NULL;
        return -1;
    }
    MPI_Gatherv(mine, (int)bytes, MPI_BYTE, *blobs, counts, displs, MPI_BYTE, 0, MPI_COMM_WORLD);
    return 0;
}

/* Small buffers take one all-gather of every replica's whole buffer; large
   ones a reduce-scatter (rank q sums its chunk of every replica's buffer,
   in replica order) and an all-gather of the chunks: about 2n elements per
   rank on the wire instead of R n.  Both add in the same order. */
#define SMALL_SUM_BYTES (64u << 10)
#define WORLD_SUM(name, type, mpitype)                                                                             \
    int name(type *const *bufs, uint32_t local, size_t n)                                                          \
    {                                                                                                              \
        size_t P = w.size, R = P * local;                                                                          \
        if (n == 0) return 0;                                                                                      \
        if (n > (size_t)INT_MAX / R) return -1;                                                                    \
        type *out = bufs[0];                                                                                       \
        if (R * n * sizeof(type) <= SMALL_SUM_BYTES || P == 1) {                                                   \
            if (grow(&w.send, &w.send_cap, local * n * sizeof(type)) ||                                            \
                grow(&w.recv, &w.recv_cap, R * n * sizeof(type)))                                                  \
                return -1;                                                                                         \
            type *send = w.send, *recv = w.recv;                                                                   \
            for (uint32_t t = 0; t < local; t++) memcpy(send + t * n, bufs[t], n * sizeof(type));                  \
            if (P > 1)                                                                                             \
                MPI_Allgather(send, (int)(local * n), mpitype, recv, (int)(local * n), mpitype, MPI_COMM_WORLD);   \
            else                                                                                                   \
                memcpy(recv, send, local *n * sizeof(type));                                                       \
            memcpy(out, recv, n * sizeof(type));                                                                   \
            for (size_t r = 1; r < R; r++) {                                                                       \
                const type *b = recv + r * n;                                                                      \
                for (size_t i = 0; i < n; i++) out[i] += b[i];                                                     \
            }                                                                                                      \
        } else {                                                                                                   \
            int sc[1024], sd[1024], rc[1024], rd[1024], gc[1024], gd[1024];                                        \
            if (P > 1024) return -1;                                                                               \
            size_t me_lo = n * w.rank / P, me_len = n * (w.rank + 1) / P - me_lo, at = 0;                          \
            for (size_t q = 0; q < P; q++) {                                                                       \
                size_t lo = n * q / P, len = n * (q + 1) / P - lo;                                                 \
                sc[q] = (int)(local * len);                                                                        \
                sd[q] = (int)at;                                                                                   \
                at += local * len;                                                                                 \
                rc[q] = (int)(local * me_len);                                                                     \
                rd[q] = (int)(q * local * me_len);                                                                 \
                gc[q] = (int)len;                                                                                  \
                gd[q] = (int)lo;                                                                                   \
            }                                                                                                      \
            if (grow(&w.send, &w.send_cap, local * n * sizeof(type)) ||                                            \
                grow(&w.recv, &w.recv_cap, R * me_len * sizeof(type) + 1) ||                                       \
                grow(&w.acc, &w.acc_cap, me_len * sizeof(type) + 1))                                               \
                return -1;                                                                                         \
            type *send = w.send, *recv = w.recv, *acc = w.acc;                                                     \
            for (size_t q = 0, k = 0; q < P; q++) {                                                                \
                size_t lo = n * q / P, len = n * (q + 1) / P - lo;                                                 \
                for (uint32_t t = 0; t < local; t++, k += len) memcpy(send + k, bufs[t] + lo, len * sizeof(type)); \
            }                                                                                                      \
            MPI_Alltoallv(send, sc, sd, mpitype, recv, rc, rd, mpitype, MPI_COMM_WORLD);                           \
            memcpy(acc, recv, me_len * sizeof(type));                                                              \
            for (size_t r = 1; r < R; r++) {                                                                       \
                const type *b = recv + r * me_len;                                                                 \
                for (size_t i = 0; i < me_len; i++) acc[i] += b[i];                                                \
            }                                                                                                      \
            MPI_Allgatherv(acc, (int)me_len, mpitype, out, gc, gd, mpitype, MPI_COMM_WORLD);                       \
        }                                                                                                          \
        for (uint32_t t = 1; t < local; t++) memcpy(bufs[t], out, n * sizeof(type));                               \
        return 0;                                                                                                  \
    }
WORLD_SUM(rl__world_sum_f32, float, MPI_FLOAT)
WORLD_SUM(rl__world_sum_f64, double, MPI_DOUBLE)

/* The sharded halves (world.h): the large sum's reduce-scatter, each rank
   then keeping its range's sums; and an all-gather of the ranges. */
int rl__world_reduce_scatter_f32(float *const *bufs, uint32_t local, size_t n)
{
    size_t P = w.size, R = P * local;
    if (n == 0) return 0;
    if (n > (size_t)INT_MAX / R || P > 1024) return -1;
    int sc[1024], sd[1024], rc[1024], rd[1024];
    size_t me_lo = n * w.rank / P, me_len = n * (w.rank + 1) / P - me_lo, at = 0;
    for (size_t q = 0; q < P; q++) {
        size_t len = n * (q + 1) / P - n * q / P;
        sc[q] = (int)(local * len);
        sd[q] = (int)at;
        at += local * len;
        rc[q] = (int)(local * me_len);
        rd[q] = (int)(q * local * me_len);
    }
    if (grow(&w.send, &w.send_cap, local * n * sizeof(float)) ||
        grow(&w.recv, &w.recv_cap, R * me_len * sizeof(float) + 1))
        return -1;
    float *send = w.send, *recv = w.recv;
    for (size_t q = 0, k = 0; q < P; q++) {
        size_t lo = n * q / P, len = n * (q + 1) / P - lo;
        for (uint32_t t = 0; t < local; t++, k += len) memcpy(send + k, bufs[t] + lo, len * sizeof(float));
    }
    MPI_Alltoallv(send, sc, sd, MPI_FLOAT, recv, rc, rd, MPI_FLOAT, MPI_COMM_WORLD);
    float *out = bufs[0] + me_lo;
    memcpy(out, recv, me_len * sizeof(float));
    for (size_t r = 1; r < R; r++) {
        const float *b = recv + r * me_len;
        for (size_t i = 0; i < me_len; i++) out[i] += b[i];
    }
    for (uint32_t t = 1; t < local; t++) memcpy(bufs[t] + me_lo, out, me_len * sizeof(float));
    return 0;
}

int rl__world_allgather_f32(float *const *bufs, uint32_t local, size_t n)
{
    size_t P = w.size, R = P * local;
    if (n == 0) return 0;
    if (n > (size_t)INT_MAX || P > 1024) return -1;
    int gc[1024], gd[1024];
    for (size_t q = 0; q < P; q++) {
        gd[q] = (int)(n * q / P);
        gc[q] = (int)(n * (q + 1) / P - n * q / P);
    }
    for (uint32_t t = 1; t < local; t++) { /* this rank's range, assembled in bufs[0] */
        size_t g = (size_t)w.rank * local + t, lo = n * g / R, hi = n * (g + 1) / R;
        memcpy(bufs[0] + lo, bufs[t] + lo, (hi - lo) * sizeof(float));
    }
    MPI_Allgatherv(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, bufs[0], gc, gd, MPI_FLOAT, MPI_COMM_WORLD);
    for (uint32_t t = 1; t < local; t++) memcpy(bufs[t], bufs[0], n * sizeof(float));
    return 0;
}

#else /* no MPI: the world is this process */

const char *rl__world_mpi(void)
{
    return NULL;
}
int rl__world_init(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    return 0;
}
void rl__world_finalize(void)
{
}
_Noreturn void rl__world_abort(int code)
{
    rl__log_flush();
    exit(code);
}
int rl__world_max(int v)
{
    return v;
}
void rl__world_allgather(const void *mine, void *all, size_t bytes)
{
    memmove(all, mine, bytes);
}
void rl__world_bcast(void *buf, size_t bytes, uint32_t root)
{
    (void)buf;
    (void)bytes;
    (void)root;
}

int rl__world_gather(const void *mine, size_t bytes, unsigned char **blobs, size_t *lens)
{
    if (!(*blobs = malloc(bytes ? bytes : 1))) return -1;
    memcpy(*blobs, mine, bytes);
    lens[0] = bytes;
    return 0;
}

#define WORLD_SUM(name, type)                                                            \
    int name(type *const *bufs, uint32_t local, size_t n)                                \
    {                                                                                    \
        (void)grow;                                                                      \
        for (uint32_t t = 1; t < local; t++)                                             \
            for (size_t i = 0; i < n; i++) bufs[0][i] += bufs[t][i];                     \
        for (uint32_t t = 1; t < local; t++) memcpy(bufs[t], bufs[0], n * sizeof(type)); \
        return 0;                                                                        \
    }
WORLD_SUM(rl__world_sum_f32, float)
WORLD_SUM(rl__world_sum_f64, double)

/* One process: the replicas' threads slice and gather among themselves
   (replicas.c), so these are reached only with several ranks. */
int rl__world_reduce_scatter_f32(float *const *bufs, uint32_t local, size_t n)
{
    (void)bufs, (void)local, (void)n;
    return -1;
}

int rl__world_allgather_f32(float *const *bufs, uint32_t local, size_t n)
{
    (void)bufs, (void)local, (void)n;
    return -1;
}

#endif
