/* "Did you mean": the nearest of a list of names to a misspelt one. */
#ifndef RLHOST_BASE_NEAREST_H
#define RLHOST_BASE_NEAREST_H

#include <stddef.h>

/* Levenshtein distance, for "did you mean". */
size_t rl__edit_distance(const char *a, const char *b);
/* Of names[0..n), the one closest to s if close enough to suggest; else NULL. */
const char *rl__nearest(const char *s, const char *const *names, size_t n);

#endif
