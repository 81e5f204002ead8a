/* Config text before libconfig reads it.  rlhost reads every config file
   itself and expands @include into one text, so that:
   - nothing is read that is not a regular file on a disk-backed file
     system (a FIFO, a device or a /proc file would block the read);
   - the includes have a budget: at most RL__CFG_MAX_FILES files,
     RL__CFG_MAX_BYTES in all, nested RL__CFG_MAX_DEPTH deep (a structure
     that multiplies stops with a sentence);
   - config text that does not come from a file (a checkpoint's metadata,
     the C and Python APIs) never follows @include;
   - integer literals wider than 32 bits without the L suffix, which
     libconfig 1.5 truncates silently (10000000000 becomes 1410065408), are
     refused with their file and line;
   - messages name the file and line each part of the text came from. */
#ifndef RLHOST_CFGSCAN_H
#define RLHOST_CFGSCAN_H

#include <stddef.h>
#include <stdint.h>

#include <rlhost/plugin.h>

#include "base/text.h"

#define RL__CFG_MAX_FILES 64
#define RL__CFG_MAX_BYTES (16u << 20)
#define RL__CFG_MAX_DEPTH 10

/* From the expanded text's line `line` on, the text is file's from file_line. */
typedef struct rl__cfg_seg {
    unsigned line, file_line;
    const char *file;
} rl__cfg_seg;

typedef struct rl__cfg_text {
    rl__sbuf text; /* the expanded config */
    rl__cfg_seg *segs;
    size_t n_segs, cap_segs;
    char **files; /* the names segs point at */
    size_t n_files;
    size_t bytes; /* read so far, against RL__CFG_MAX_BYTES */
} rl__cfg_text;

/* Expands the config named path (text NULL: read from the file, @include
   followed relative to its directory) or the given text (path names it in
   messages; an @include is refused).  Returns the number of problems, each
   one "FILE:LINE: ..." line in errors; RL_ENOMEM-free: out of memory is a
   problem too. */
int rl__cfg_expand(rl__cfg_text *t, const char *path, const char *text, rl__sbuf *errors);
/* Where line of the expanded text came from. */
void rl__cfg_where(const rl__cfg_text *t, unsigned line, const char **file, unsigned *file_line);
void rl__cfg_text_free(rl__cfg_text *t);

#endif
