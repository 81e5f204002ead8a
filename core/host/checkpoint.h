/* Checkpoints in the safetensors format: an 8-byte little-endian header
   length, a JSON header (dtype, shape and data offsets of every tensor, plus
   "__metadata__" strings), then the raw little-endian data, so any
   safetensors reader loads the weights.  Writes are atomic and keep the
   previous file as checkpoint.prev.safetensors until the new one is
   complete; reads validate everything before anything is used. */
#ifndef RLHOST_CHECKPOINT_H
#define RLHOST_CHECKPOINT_H

#include "util.h"

#define RL__CKPT_MAX_TENSORS 1024
#define RL__CKPT_MAX_META 4096

typedef struct rl__ckpt_tensor {
    char name[96];
    rl_dtype dtype;
    uint32_t ndim;
    uint64_t shape[4];
    size_t offset, bytes; /* into data */
} rl__ckpt_tensor;

typedef struct rl__ckpt {
    rl__ckpt_tensor *tensors;
    size_t n, cap;
    unsigned char *data; /* all tensor bytes */
    size_t data_len, data_cap;
    char **meta_key, **meta_val; /* n_meta of each, growable */
    size_t n_meta, meta_cap;
    char err[RL_ERR_MAX];
    const char *path; /* for messages */
    int missing_replay; /* a get() asked for a "replay/" tensor that is absent */
    struct rl__ckpt *side; /* optional: takes the "replay/" tensors (put) and
                              is searched second (get) */
} rl__ckpt;

/* Building and writing. */
int rl__ckpt_put(rl__ckpt *c, const char *name, rl_dtype dtype, uint32_t ndim,
                 const uint64_t *shape, const void *data);
int rl__ckpt_meta(rl__ckpt *c, const char *key, const char *value);
/* Writes path atomically; an existing file becomes prev_path first. */
int rl__ckpt_write(const rl__ckpt *c, const char *path, const char *prev_path, char *err,
                   size_t errlen);

/* Reading: validates the header length, the JSON, every name (unique, no
   NUL, fits), dtype, shape and offset, and that the tensors' data ranges
   tile the data exactly (no overlap, no gap, no trailing bytes), as the
   format's reference implementation requires.  On failure a sentence
   naming the file and the first problem ("at header byte N" counts from
   the header's start). */
int rl__ckpt_read(rl__ckpt *c, const char *path, char *err, size_t errlen);
/* The same from len bytes in memory (name stands for the file in messages). */
int rl__ckpt_read_mem(rl__ckpt *c, const char *name, const void *buf, size_t len, char *err,
                      size_t errlen);
const rl__ckpt_tensor *rl__ckpt_find(const rl__ckpt *c, const char *name);
const char *rl__ckpt_meta_get(const rl__ckpt *c, const char *key);

void rl__ckpt_free(rl__ckpt *c);

/* rl_state_io views of a checkpoint: one that records (save), one that
   serves tensors back (load). */
void rl__ckpt_io(rl__ckpt *c, rl_state_io *io);

/* Restores an algorithm (and, with host_load, the host) from a checkpoint
   written for the same env and algo plugins (names and major versions must
   match).  Everything is validated before use; a problem is one sentence
   naming the file.  When path is missing or bad and prev_path holds a good
   checkpoint, that one is used and a warning says so. */
struct rl__config;
typedef int (*rl__host_state_fn)(void *ctx, const rl_state_io *io, char *err, size_t errlen);
typedef struct rl__restore {
    const char *path, *prev_path; /* prev_path may be NULL */
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
    int (*algo_load)(void *ctx, const rl_algo_state_ext *ext, const rl_state_io *io, char *err,
                     size_t errlen);
    void *algo_ctx;
    /* out */
    uint64_t step, episodes;
    const char *used;   /* path or prev_path */
    int missing_replay; /* the algo asked for replay tensors none supplied */
} rl__restore;
int rl__ckpt_restore(rl__restore *r, const struct rl__config *c, void *algo, char *err,
                     size_t errlen);
/* The same from a checkpoint in memory (r->path names it; no fallback). */
int rl__ckpt_restore_mem(const void *buf, size_t len, rl__restore *r, const struct rl__config *c,
                         void *algo, char *err, size_t errlen);

const char *rl__dtype_name(rl_dtype d);
size_t rl__dtype_size(rl_dtype d);

#endif
