/* Where a trained run is read from, as the commands (eval, play, export) and
   the embedding API (rlh_policy_open) name it: a run directory, or a
   checkpoint file that carries its config.  One resolver, so every reader
   takes the same paths and says the same sentences. */
#ifndef RLHOST_SOURCE_H
#define RLHOST_SOURCE_H

#include <stddef.h>

#include "base/text.h"
#include "plugin/config.h"

#define RL__PATH_MAX 4200
/* The files a run directory holds for its readers: config.cfg, the
   checkpoint and the previous one beside it (the fallback when the newest
   is missing or damaged). */
typedef struct rl__run_paths {
    char config[RL__PATH_MAX], checkpoint[RL__PATH_MAX], prev[RL__PATH_MAX];
} rl__run_paths;

typedef enum rl__source_kind {
    RL__SOURCE_OTHER = 0,  /* neither (a config file, or nothing there) */
    RL__SOURCE_RUN_DIR,    /* a directory: *p holds its three files */
    RL__SOURCE_CHECKPOINT, /* a regular file that starts as a safetensors
                              file does: p->checkpoint is path, no prev */
} rl__source_kind;

/* What path names; *p is filled for a run directory or a checkpoint. */
rl__source_kind rl__source_of(const char *path, rl__run_paths *p);
/* *p for the checkpoint file at path: no config file, no previous one. */
void rl__source_checkpoint_file(const char *path, rl__run_paths *p);
/* 1 when path is a directory (taken as a run directory; *p filled), 0 for
   anything else (*p untouched). */
int rl__run_paths_of(const char *path, rl__run_paths *p);

/* Loads the config the checkpoint at path was written with (its metadata
   rlhost.config; an @include in it is never followed), as rl__config_load
   loads a file: the overrides apply and every key is checked.  On failure
   a line in errors: the checkpoint's own refusal, or that it holds no
   config. */
int rl__source_checkpoint_config(rl__config *c, const char *path, const rl__override *ov, size_t n_ov,
                                 const rl__registry *reg, rl__sbuf *errors);

#endif
