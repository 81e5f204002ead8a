/* Run outputs: directories and atomic file writes (an exclusive temp file
   with a name nobody can predict, optional fsync, rename, directory fsync)
   so a crash never leaves a torn file.  Every write names its file
   relative to a directory descriptor: a run keeps writing into its own
   directory wherever it is moved, and no link planted in the directory is
   followed.  And how the host opens a file for reading: regular files
   only. */
#ifndef RLHOST_OUTPUT_H
#define RLHOST_OUTPUT_H

#include <stddef.h>

/* Creates dir and its parents; *created (may be NULL) says whether dir
   itself was made here.  RL_EIO with a sentence on failure. */
int rl__mkdir_p(const char *dir, int *created, char *err, size_t errlen);

/* An open directory: its descriptor and its name (for messages only). */
typedef struct rl__dir {
    int fd;
    const char *path;
} rl__dir;

/* Replaces name in d with data atomically; durable when sync != 0.  keep_as
   (may be NULL): once the new data is completely written, an existing
   regular file name also gets the name keep_as (a hard link), then one
   rename puts the new file in place: at every instant name is a complete
   file.  An existing name that is not a regular file (a planted symlink)
   is replaced, never followed or kept. */
int rl__write_atomic(rl__dir d, const char *name, const char *keep_as, const void *data, size_t len, int sync,
                     char *err, size_t errlen);
/* Writes all len bytes of data to fd, going on after a signal; 0, or -1
   with errno set.  *done (may be NULL) gets the bytes written either way. */
int rl__write_all(int fd, const void *data, size_t len, size_t *done);
/* The same for a file named by path (the directory is opened for it). */
int rl__write_path(const char *path, const void *data, size_t len, char *err, size_t errlen);

/* A file opened for reading only when it is a regular file, so a FIFO or a
   device in its place never blocks the reader: path relative to dirfd
   (AT_FDCWD or a directory), flags added to the open (O_NOFOLLOW where
   links are refused).  The descriptor (blocking, close-on-exec) with *st
   filled; -1 when open failed (errno says why), RL__NOT_REGULAR when it is
   something else. */
enum { RL__NOT_REGULAR = -2 };
struct stat;
int rl__open_regular(int dirfd, const char *path, int flags, struct stat *st);

/* Temporary files are ".NAME.XXXXXXXXXXXXXXXX.tmp" (16 random hex digits).
   1 when tmp has that form; base (n bytes) gets NAME. */
int rl__temp_base(const char *tmp, char *base, size_t n);

#endif
