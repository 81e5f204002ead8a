/* Persistent worker pool; see pool.h.
 *
 * A run publishes (fn, ctx, n) and bumps `gen`; each worker runs its range
 * and counts `pending` down; the caller runs range 0 and then waits for
 * pending to reach 0.  Every wait spins a short while, then sleeps in the
 * kernel (wait.h): env steps come every few microseconds on an idle
 * machine, and on a busy one a waiting thread gives its core back. */
#define _GNU_SOURCE
#include "parallel/pool.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>

#include "parallel/wait.h"

typedef struct worker {
    struct rl__pool *pool;
    uint32_t index;
    pthread_t thread;
} worker;

struct rl__pool {
    uint32_t threads;
    worker *workers;
    rl__wait_word gen, pending;
    _Atomic int stop;
    rl__pool_fn fn;
    void *ctx;
    uint32_t n;
};

static void run_range(rl__pool *p, uint32_t w)
{
    uint32_t first = (uint32_t)((uint64_t)p->n * w / p->threads);
    uint32_t last = (uint32_t)((uint64_t)p->n * (w + 1) / p->threads);
    if (last > first) p->fn(p->ctx, first, last - first);
}

static void *worker_main(void *arg)
{
    worker *self = arg;
    rl__pool *p = self->pool;
    uint32_t seen = 0;
    for (;;) {
        rl__wait_while(&p->gen, seen);
        if (atomic_load(&p->stop)) return NULL;
        seen = atomic_load_explicit(&p->gen.value, memory_order_acquire);
        run_range(p, self->index);
        if (atomic_fetch_sub(&p->pending.value, 1) == 1) rl__wake_all(&p->pending);
    }
}

rl__pool *rl__pool_create(uint32_t threads)
{
    if (threads < 1) threads = 1;
    rl__pool *p = calloc(1, sizeof *p);
    if (!p) return NULL;
    p->threads = threads;
    if (threads > 1) {
        p->workers = calloc(threads, sizeof *p->workers);
        if (!p->workers) {
            rl__pool_destroy(p);
            return NULL;
        }
        for (uint32_t i = 1; i < threads; i++) {
            p->workers[i].pool = p;
            p->workers[i].index = i;
            if (pthread_create(&p->workers[i].thread, NULL, worker_main, &p->workers[i])) {
                p->threads = i; /* join what started */
                rl__pool_destroy(p);
                return NULL;
            }
        }
    }
    return p;
}

uint32_t rl__pool_threads(const rl__pool *p)
{
    return p->threads;
}

void rl__pool_run(rl__pool *p, rl__pool_fn fn, void *ctx, uint32_t n)
{
    if (p->threads == 1) {
        if (n) fn(ctx, 0, n);
        return;
    }
    p->fn = fn;
    p->ctx = ctx;
    p->n = n;
    atomic_store_explicit(&p->pending.value, p->threads - 1, memory_order_relaxed);
    atomic_fetch_add(&p->gen.value, 1); /* publishes fn, ctx, n and pending */
    rl__wake_all(&p->gen);
    run_range(p, 0);
    for (uint32_t left; (left = atomic_load_explicit(&p->pending.value, memory_order_acquire)) != 0;)
        rl__wait_while(&p->pending, left);
}

void rl__pool_destroy(rl__pool *p)
{
    if (!p) return;
    if (p->workers) {
        atomic_store(&p->stop, 1);
        atomic_fetch_add(&p->gen.value, 1);
        rl__wake_all(&p->gen);
        for (uint32_t i = 1; i < p->threads; i++) pthread_join(p->workers[i].thread, NULL);
        free(p->workers);
    }
    free(p);
}
