/* Restoring a run (algorithm, replicas, host and env state) from a
   checkpoint, with the fallback to the previous one and the replay of the
   same step. */
#ifndef RLHOST_RESTORE_H
#define RLHOST_RESTORE_H

#include "checkpoint/safetensors.h"

/* Restores an algorithm (and, with host_load, the host) from a checkpoint
   written for the same env and algo plugins (names and major versions must
   match).  Everything is validated before use; a problem is one sentence
   naming the file.  When path is missing or bad and prev_path holds a good
   checkpoint, that one is used and a warning says so. */
struct rl__config;
enum { RL__PHASE_UNKNOWN, RL__PHASE_TRAINING, RL__PHASE_FINAL };
typedef int (*rl__host_state_fn)(void *ctx, const rl_state_io *io, char *err, size_t errlen);
typedef struct rl__restore {
    /* prev_path is set for a run directory's checkpoint (else NULL); then
       neither file is read through a symbolic link */
    const char *path, *prev_path;
    /* replay.safetensors (or NULL): it, or its .prev copy, must hold the
       checkpoint's step; one that exists for another step is refused */
    const char *replay_path;
    /* options that differ from the checkpoint's config: refused when
       strict_config (resume) unless named in allowed (the --set keys),
       else a warning */
    int strict_config;
    const char *const *allowed;
    size_t n_allowed;
    rl__host_state_fn host_load; /* may be NULL */
    void *host_ctx;
    /* resume: the replicas the run has; a checkpoint of another count is
       refused (0: not checked; eval and play use replica 0's state) */
    uint32_t replicas;
    /* loads the algorithm's state (all replicas); NULL: ext->load(algo) */
    int (*algo_load)(void *ctx, const rl_algo_state_ext *ext, const rl_state_io *io, char *err, size_t errlen);
    void *algo_ctx;
    /* optional: a successful restore moves the checkpoint it read (tensors
       and metadata, as validated) here; the caller frees it */
    rl__ckpt *keep;
    /* out */
    uint64_t step, episodes;
    /* the checkpoint's rlhost.phase: RL__PHASE_FINAL when written after the
       algorithm's training_done (the final evaluation may be pending) */
    int phase;
    const char *used;   /* path or prev_path */
    int missing_replay; /* the algo asked for replay tensors none supplied */
    /* the replay of the checkpoint's step was the previous file: the newer
       one is a write that a kill cut off before its checkpoint, and the next
       write must not push the pair's replay out */
    int replay_from_prev;
} rl__restore;
int rl__ckpt_restore(rl__restore *r, const struct rl__config *c, void *algo, char *err, size_t errlen);
/* The same from a checkpoint in memory (r->path names it; no fallback). */
int rl__ckpt_restore_mem(const void *buf, size_t len, rl__restore *r, const struct rl__config *c, void *algo, char *err,
                         size_t errlen);

/* 1 for a tensor of the replay ("replay/..." or a replica's
   "replica<r>/replay/..."): what a run keeps in its replay file, apart
   from the checkpoint (rl__ckpt.to_side). */
int rl__is_replay_tensor(const char *name);

#endif
