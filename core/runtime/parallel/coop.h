/* Replicas as coroutines: n functions run on the calling thread, each on
   its own stack, switching where one must wait for another (a replica's
   barrier).  When the machine has fewer free cores than replicas, threads
   that meet many times a millisecond would each wait for a descheduled
   peer; coroutines on one core cost a context switch per meeting instead
   (see replicas.c).  The results are the same: the replicas do the same
   work in the same order of sums. */
#ifndef RLHOST_COOP_H
#define RLHOST_COOP_H

#include <stdint.h>

#include "parallel/pool.h"

typedef struct rl__coop rl__coop;

/* Room for n coroutines (their stacks are mapped lazily); NULL when out of
   memory. */
rl__coop *rl__coop_create(uint32_t n);
void rl__coop_destroy(rl__coop *c); /* NULL is a no-op */

/* Runs fn(ctx, r, 1) for every r < n as coroutines until all have returned.
   A coroutine that called rl__coop_block resumes once ready(ready_ctx, r)
   says so. */
void rl__coop_run(rl__coop *c, rl__pool_fn fn, void *ctx, uint32_t n, int (*ready)(void *ready_ctx, uint32_t r),
                  void *ready_ctx);
/* Inside rl__coop_run: suspends the current coroutine (rl__coop_current)
   until ready() says it may go on. */
void rl__coop_block(rl__coop *c);
uint32_t rl__coop_current(const rl__coop *c);

#endif
