/* Persistent worker pool; see pool.h.
 *
 * A run publishes (fn, ctx, n), bumps `gen` and wakes sleepers; each worker
 * runs its range and decrements `pending`; the caller runs range 0 and then
 * spins until pending is 0.  Between runs a worker spins on `gen` for a
 * short while (env steps come every few microseconds) before it sleeps on
 * the condition variable, so an idle pool costs no CPU. */
#define _GNU_SOURCE
#include "pool.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>

#define SPIN_ITERS 20000

typedef struct worker {
    struct rl__pool *pool;
    uint32_t index;
    pthread_t thread;
} worker;

struct rl__pool {
    uint32_t threads;
    worker *workers;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    _Atomic uint64_t gen;
    _Atomic uint32_t pending;
    _Atomic int stop;
    rl__pool_fn fn;
    void *ctx;
    uint32_t n;
};

static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#endif
}

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
    uint64_t seen = 0;
    for (;;) {
        uint64_t g = atomic_load_explicit(&p->gen, memory_order_acquire);
        for (int i = 0; g == seen && i < SPIN_ITERS; i++) {
            cpu_relax();
            g = atomic_load_explicit(&p->gen, memory_order_acquire);
        }
        if (g == seen) {
            pthread_mutex_lock(&p->mu);
            while ((g = atomic_load(&p->gen)) == seen && !atomic_load(&p->stop))
                pthread_cond_wait(&p->cv, &p->mu);
            pthread_mutex_unlock(&p->mu);
        }
        if (atomic_load(&p->stop)) return NULL;
        seen = g;
        run_range(p, self->index);
        atomic_fetch_sub_explicit(&p->pending, 1, memory_order_release);
    }
}

rl__pool *rl__pool_create(uint32_t threads)
{
    if (threads < 1) threads = 1;
    rl__pool *p = calloc(1, sizeof *p);
    if (!p) return NULL;
    p->threads = threads;
    pthread_mutex_init(&p->mu, NULL);
    pthread_cond_init(&p->cv, NULL);
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
    atomic_store_explicit(&p->pending, p->threads - 1, memory_order_relaxed);
    pthread_mutex_lock(&p->mu);
    atomic_fetch_add_explicit(&p->gen, 1, memory_order_release);
    pthread_cond_broadcast(&p->cv);
    pthread_mutex_unlock(&p->mu);
    run_range(p, 0);
    /* A late worker (descheduled on a busy machine) gets the core back. */
    for (uint32_t spins = 0; atomic_load_explicit(&p->pending, memory_order_acquire) != 0; spins++)
        if (spins < SPIN_ITERS) cpu_relax();
        else sched_yield();
}

void rl__pool_destroy(rl__pool *p)
{
    if (!p) return;
    if (p->workers) {
        pthread_mutex_lock(&p->mu);
        atomic_store(&p->stop, 1);
        pthread_cond_broadcast(&p->cv);
        pthread_mutex_unlock(&p->mu);
        for (uint32_t i = 1; i < p->threads; i++) pthread_join(p->workers[i].thread, NULL);
        free(p->workers);
    }
    pthread_mutex_destroy(&p->mu);
    pthread_cond_destroy(&p->cv);
    free(p);
}
