/* "Did you mean": the nearest of a list of names to a misspelt one. */
#ifndef RLHOST_BASE_NEAREST_H
#define RLHOST_BASE_NEAREST_H

#include <stddef.h>

/* Of names[0..n), the one closest to s (rl_edit_distance) if close enough
   to suggest; else NULL. */
const char *rl__nearest(const char *s, const char *const *names, size_t n);

#endif
