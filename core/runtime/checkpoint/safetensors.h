/* Checkpoints in the safetensors format: an 8-byte little-endian header
   length, a JSON header (dtype, shape and data offsets of every tensor, plus
   "__metadata__" strings), then the raw little-endian data, so any
   safetensors reader loads the weights.  Writes are atomic and keep the
   previous file as checkpoint.prev.safetensors until the new one is
   complete; reads validate everything before anything is used. */
#ifndef RLHOST_CHECKPOINT_H
#define RLHOST_CHECKPOINT_H

#include <stddef.h>
#include <stdint.h>

#include <rlhost/plugin.h>

#include "base/files.h"
#include "base/text.h"

/* What a checkpoint may hold.  The reader refuses more, and the writer
   enforces the same limits, so every checkpoint rlhost writes reads back. */
#define RL__CKPT_MAX_TENSORS 65536
#define RL__CKPT_MAX_META 4096              /* metadata entries */
#define RL__CKPT_MAX_KEY 255                /* bytes of a metadata key */
#define RL__CKPT_MAX_VALUE ((1u << 20) - 1) /* bytes of a metadata value (the config) */
#define RL__CKPT_MAX_HEADER (64u << 20)     /* bytes of the JSON header */
/* The metadata entry the writer adds: each tensor's CRC-32 as 8 hex digits,
   separated by spaces, in header order.  The reader checks it when a file
   has it (files written before it do not). */
#define RL__CKPT_CRC_KEY "rlhost.crc32"

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
    const char *path;          /* for messages */
    char shown[RL__BRIEF_MAX]; /* path, when it had to be shortened */
    /* rl_state_io routing (state_io.c), optional: side takes the tensors
       to_side names (put) and is searched second (get) */
    struct rl__ckpt *side;
    int (*to_side)(const char *name);
    int missing_side; /* a get() asked for a to_side tensor that is absent */
} rl__ckpt;

/* Building and writing. */
int rl__ckpt_put(rl__ckpt *c, const char *name, rl_dtype dtype, uint32_t ndim, const uint64_t *shape, const void *data);
int rl__ckpt_meta(rl__ckpt *c, const char *key, const char *value);
/* The file's bytes (*out malloc'd, *out_len long); path names it in
   messages.  What the reader would refuse is refused here. */
int rl__ckpt_serialize(const rl__ckpt *c, const char *path, unsigned char **out, size_t *out_len, char *err,
                       size_t errlen);
/* Writes name in d atomically; an existing file becomes prev_name first
   (prev_name may be NULL). */
int rl__ckpt_write(const rl__ckpt *c, rl__dir d, const char *name, const char *prev_name, char *err, size_t errlen);

/* What the writer and the reader share: the dtype of a format name (0 for
   none), and the bytes of a tensor (RL_EINVAL past 4 dimensions or SIZE_MAX). */
rl_dtype rl__dtype_of_name(const char *name);
int rl__ckpt_shape_bytes(rl_dtype d, uint32_t ndim, const uint64_t *shape, size_t *out);

/* Reading (safetensors_read.c): validates the header length, the JSON, every name (unique, no
   NUL, fits), dtype, shape and offset, and that the tensors' data ranges
   tile the data exactly (no overlap, no gap, no trailing bytes), as the
   format's reference implementation requires.  On failure a sentence
   naming the file and the first problem ("at header byte N" counts from
   the header's start). */
int rl__ckpt_read(rl__ckpt *c, const char *path, char *err, size_t errlen);
/* The same; in_run_dir: path is a run directory's file, refused when it is
   a symbolic link (a writer of the directory may have planted it).  Anything
   but a regular file is refused without blocking. */
int rl__ckpt_read_file(rl__ckpt *c, const char *path, int in_run_dir, char *err, size_t errlen);
/* The same from len bytes in memory (name stands for the file in messages). */
int rl__ckpt_read_mem(rl__ckpt *c, const char *name, const void *buf, size_t len, char *err, size_t errlen);
const rl__ckpt_tensor *rl__ckpt_find(const rl__ckpt *c, const char *name);
const char *rl__ckpt_meta_get(const rl__ckpt *c, const char *key);

void rl__ckpt_free(rl__ckpt *c);

/* rl_state_io over a checkpoint (state_io.c): put records (save), get
   serves tensors back (load). */
void rl__ckpt_io(rl__ckpt *c, rl_state_io *io);

const char *rl__dtype_name(rl_dtype d);

#endif
