/* Run outputs: directories and atomic file writes (temp file, optional
   fsync, rename, directory fsync) so a crash never leaves a torn file. */
#ifndef RLHOST_OUTPUT_H
#define RLHOST_OUTPUT_H

#include <stddef.h>

/* Creates dir and its parents.  RL_EIO with a sentence on failure. */
int rl__mkdir_p(const char *dir, char *err, size_t errlen);

/* Replaces path with data atomically; durable when sync != 0.  keep_as
   (may be NULL): once the new data is completely written, an existing path
   also gets the name keep_as (a hard link), then one rename puts the new
   file in place: at every instant path names a complete file. */
int rl__write_atomic(const char *path, const char *keep_as, const void *data, size_t len,
                     int sync, char *err, size_t errlen);

#endif
