/* The files an MJCF model names, checked before MuJoCo opens any of them:
   MuJoCo's parser blocks for ever on a FIFO and cannot be interrupted, so
   the model file, every <include file=...> (recursively) and every other
   file= attribute (meshes, textures, height fields) that exists must be a
   regular file.  A file that does not exist is left for MuJoCo to name. */
#ifndef RLHOST_MUJOCO_MODEL_FILES_H
#define RLHOST_MUJOCO_MODEL_FILES_H

#include <stddef.h>

/* 0, or -1 with the sentence in why[0..n) ("/tmp/x.xml includes
   /tmp/fifo, which is not a regular file (a FIFO)"). */
int mj_model_files_check(const char *path, char *why, size_t n);

#endif
