/* Bump allocator: many small allocations freed together (the config's
   strings and lists, the loader's registry). */
#ifndef RLHOST_BASE_ARENA_H
#define RLHOST_BASE_ARENA_H

#include <stddef.h>

typedef struct rl__arena_block rl__arena_block;
typedef struct rl__arena {
    rl__arena_block *head;
} rl__arena;

void *rl__arena_alloc(rl__arena *a, size_t bytes); /* zeroed; NULL on OOM */
char *rl__arena_strdup(rl__arena *a, const char *s);
void rl__arena_free(rl__arena *a);

#endif
