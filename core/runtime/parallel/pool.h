/* Persistent worker pool for env stepping.  rl__pool_run splits [0, n) into
   one contiguous range per thread (the caller runs range 0) and returns when
   all are done.  Workers spin briefly, then sleep, between runs. */
#ifndef RLHOST_POOL_H
#define RLHOST_POOL_H

#include <stdint.h>

typedef struct rl__pool rl__pool;
typedef void (*rl__pool_fn)(void *ctx, uint32_t first, uint32_t count);

/* threads >= 1 counts the caller; NULL on failure. */
rl__pool *rl__pool_create(uint32_t threads);
uint32_t rl__pool_threads(const rl__pool *p);
void rl__pool_run(rl__pool *p, rl__pool_fn fn, void *ctx, uint32_t n);
void rl__pool_destroy(rl__pool *p); /* NULL is a no-op */

#endif
