/* A pass over config text before libconfig reads it, for what libconfig
   1.5 gets wrong silently: integer literals wider than 32 bits without the
   L suffix (it truncates them: 10000000000 becomes 1410065408) and
   @include of something that is not a regular file (a FIFO hangs the
   read).  Follows @include the way libconfig does (relative to the
   including config's directory). */
#ifndef RLHOST_CFGSCAN_H
#define RLHOST_CFGSCAN_H

#include "util.h"

/* Appends one "FILE:LINE: ..." line per problem to errors; returns how many. */
int rl__cfg_scan(const char *file, const char *text, const char *include_dir, rl__sbuf *errors);

/* Reads a whole config file (at most 16 MiB) into a NUL-terminated
   malloc'd string; NULL with a sentence in errors on failure. */
char *rl__cfg_slurp(const char *path, rl__sbuf *errors);

#endif
