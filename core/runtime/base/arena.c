/* Bump allocator; see arena.h. */
#include "base/arena.h"

#include <stdlib.h>
#include <string.h>

struct rl__arena_block {
    rl__arena_block *next;
    size_t used, cap;
    _Alignas(16) unsigned char data[];
};

void *rl__arena_alloc(rl__arena *a, size_t bytes)
{
    bytes = (bytes + 15) & ~(size_t)15;
    rl__arena_block *b = a->head;
    if (!b || b->cap - b->used < bytes) {
        size_t cap = bytes > 4096 ? bytes : 4096;
        b = malloc(sizeof *b + cap);
        if (!b) return NULL;
        b->next = a->head;
        b->used = 0;
        b->cap = cap;
        a->head = b;
    }
    void *p = b->data + b->used;
    b->used += bytes;
    memset(p, 0, bytes);
    return p;
}

char *rl__arena_strdup(rl__arena *a, const char *s)
{
    size_t n = strlen(s) + 1;
    char *p = rl__arena_alloc(a, n);
    if (p) memcpy(p, s, n);
    return p;
}

void rl__arena_free(rl__arena *a)
{
    rl__arena_block *b = a->head;
    while (b) {
        rl__arena_block *next = b->next;
        free(b);
        b = next;
    }
    a->head = NULL;
}
