/* Coroutines for replicas; see coop.h. */
#define _GNU_SOURCE
#include "coop.h"

#include <stdlib.h>
#include <sys/mman.h>
#include <ucontext.h>

#include "replicas.h" /* RL__MAX_REPLICAS */

/* BLAS kernels and the plugins run on these stacks: as large as a thread's. */
#define STACK_BYTES (8u << 20)

struct rl__coop {
    uint32_t cap, current;
    ucontext_t driver, ctx[RL__MAX_REPLICAS];
    void *stack[RL__MAX_REPLICAS];
    int done[RL__MAX_REPLICAS], blocked[RL__MAX_REPLICAS];
    rl__pool_fn fn;
    void *fn_ctx;
};

static __thread rl__coop *running; /* the coop whose coroutine starts next */

rl__coop *rl__coop_create(uint32_t n)
{
    if (n < 1 || n > RL__MAX_REPLICAS) return NULL;
    rl__coop *c = calloc(1, sizeof *c);
    if (!c) return NULL;
    c->cap = n;
    for (uint32_t r = 0; r < n; r++) {
        c->stack[r] = mmap(NULL, STACK_BYTES, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE |
                           MAP_STACK, -1, 0);
        if (c->stack[r] == MAP_FAILED) {
            c->stack[r] = NULL;
            rl__coop_destroy(c);
            return NULL;
        }
    }
    return c;
}

void rl__coop_destroy(rl__coop *c)
{
    if (!c) return;
    for (uint32_t r = 0; r < c->cap; r++)
        if (c->stack[r]) munmap(c->stack[r], STACK_BYTES);
    free(c);
}

static void entry(void)
{
    rl__coop *c = running;
    uint32_t r = c->current;
    c->fn(c->fn_ctx, r, 1);
    c->done[r] = 1; /* returning switches to uc_link: the driver */
}

void rl__coop_run(rl__coop *c, rl__pool_fn fn, void *ctx, uint32_t n, int (*ready)(void *ready_ctx, uint32_t r),
                  void *ready_ctx)
{
    c->fn = fn;
    c->fn_ctx = ctx;
    for (uint32_t r = 0; r < n; r++) {
        getcontext(&c->ctx[r]);
        c->ctx[r].uc_stack.ss_sp = c->stack[r];
        c->ctx[r].uc_stack.ss_size = STACK_BYTES;
        c->ctx[r].uc_link = &c->driver;
        makecontext(&c->ctx[r], entry, 0);
        c->done[r] = c->blocked[r] = 0;
    }
    for (uint32_t left = n; left;)
        for (uint32_t r = 0; r < n; r++) {
            if (c->done[r] || (c->blocked[r] && !ready(ready_ctx, r))) continue;
            c->blocked[r] = 0;
            c->current = r;
            running = c;
            swapcontext(&c->driver, &c->ctx[r]);
            if (c->done[r]) left--;
        }
}

void rl__coop_block(rl__coop *c)
{
    uint32_t r = c->current;
    c->blocked[r] = 1;
    swapcontext(&c->ctx[r], &c->driver);
}

uint32_t rl__coop_current(const rl__coop *c)
{
    return c->current;
}
