/* The processes of one run: one, or the ranks of an Open MPI job
   (`mpirun -np N rlhost run CONFIG`).  Without MPI in the build, or when
   rlhost was not started by mpirun, the world is this process alone and
   every call below is a no-op on it.
 *
 * Each rank of a job steps every training env (envs are cheap next to the
 * update, and this keeps observations, episode statistics and env states
 * identical on every rank with no traffic); its replicas act and learn on
 * their own slices, and the ranks exchange actions once per step.  Rank 0
 * evaluates and writes the run directory.  All calls are collective: every
 * rank makes them in the same order.  Only the thread that called
 * rl__world_init makes them (MPI_THREAD_FUNNELED). */
#ifndef RLHOST_WORLD_H
#define RLHOST_WORLD_H

#include <stddef.h>
#include <stdint.h>

/* Joins the MPI job when started by mpirun (MPI built in and the launcher's
   environment present); otherwise nothing.  0, or -1 when MPI failed. */
int rl__world_init(int *argc, char ***argv);
void rl__world_finalize(void);
/* Ends every rank of the job at once (after a rank's error); exits. */
_Noreturn void rl__world_abort(int code);

uint32_t rl__world_size(void);  /* ranks; 1 without MPI */
uint32_t rl__world_rank(void);  /* 0 without MPI */
uint32_t rl__world_local(void); /* ranks on this machine (shares its cores) */
/* "Open MPI 4.1.4" when built with MPI, else NULL. */
const char *rl__world_mpi(void);

/* The largest v of all ranks. */
int rl__world_max(int v);
/* Every rank's `bytes` bytes, in rank order, into all (size x bytes). */
void rl__world_allgather(const void *mine, void *all, size_t bytes);
/* root's bytes to every rank. */
void rl__world_bcast(void *buf, size_t bytes, uint32_t root);
/* Rank 0 gets every rank's blob: *blobs (rank order, rank 0's first, freed
   by the caller with free()) and lens[size]; other ranks get NULL.  0, or
   -1 on out of memory (collective: every rank sees the same result). */
int rl__world_gather(const void *mine, size_t bytes, unsigned char **blobs, size_t *lens);

/* The sum of every rank's `local` buffers of n elements, in global replica
   order (rank 0's buffers first, each rank's in their order): element i is
   ((b0[i] + b1[i]) + b2[i]) + ..., the order the threads' sum uses, so the
   result is the same bit for bit whatever the transport.  Written into each
   of the local buffers.  0, or -1 when the ranks disagree on n. */
int rl__world_sum_f32(float *const *bufs, uint32_t local, size_t n);
int rl__world_sum_f64(double *const *bufs, uint32_t local, size_t n);

/* The sharded halves of that sum, over the same replica order and slices
   (replica g of R = size x local owns [n g / R, n (g + 1) / R); a rank's
   replicas own its contiguous range [n rank / size, n (rank + 1) / size)).
   reduce_scatter: each local buffer gets, over its rank's whole range, the
   sum of every replica's elements there, added as rl__world_sum adds them
   (the rest of the buffers is left as it is).  allgather: every replica's
   own slice, from its buffer, into every buffer of the job.  0, or -1 when
   the ranks disagree on n. */
int rl__world_reduce_scatter_f32(float *const *bufs, uint32_t local, size_t n);
int rl__world_allgather_f32(float *const *bufs, uint32_t local, size_t n);

#endif
