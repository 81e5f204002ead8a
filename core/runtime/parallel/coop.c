/* Coroutines for replicas; see coop.h. */
#define _GNU_SOURCE
#include "parallel/coop.h"

#include <stdlib.h>
#include <sys/mman.h>

#include "parallel/replicas.h" /* RL__MAX_REPLICAS */

/* The switch: on x86-64 our own (coop_switch_x86_64.S), which makes no
   system call; elsewhere, and under AddressSanitizer (whose swapcontext
   interceptor keeps its view of the stacks right), ucontext. */
#if defined(__SANITIZE_ADDRESS__)
#define COOP_UCONTEXT 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define COOP_UCONTEXT 1
#endif
#endif
#if !defined(__x86_64__)
#define COOP_UCONTEXT 1
#endif

#ifdef COOP_UCONTEXT
#include <ucontext.h>
typedef ucontext_t coop_ctx;
#else
typedef struct {
    void *sp;
} coop_ctx;
void rl__coop_switch(void **save_sp, void *load_sp);
#endif

/* BLAS kernels and the plugins run on these stacks: as large as a thread's. */
#define STACK_BYTES (8u << 20)

struct rl__coop {
    uint32_t cap, current;
    coop_ctx driver, ctx[RL__MAX_REPLICAS];
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
        c->stack[r] = mmap(NULL, STACK_BYTES, PROT_READ | PROT_WRITE,
                           MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_STACK, -1, 0);
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

static void swap(coop_ctx *save, coop_ctx *load)
{
#ifdef COOP_UCONTEXT
    swapcontext(save, load);
#else
    rl__coop_switch(&save->sp, load->sp);
#endif
}

static void entry(void)
{
    rl__coop *c = running;
    uint32_t r = c->current;
    c->fn(c->fn_ctx, r, 1);
    c->done[r] = 1;
#ifndef COOP_UCONTEXT
    swap(&c->ctx[r], &c->driver); /* never resumed */
    __builtin_unreachable();
#endif /* ucontext: returning switches to uc_link, the driver */
}

/* Coroutine r's context, to start entry() at the top of its stack. */
static void start_at_entry(rl__coop *c, uint32_t r)
{
#ifdef COOP_UCONTEXT
    getcontext(&c->ctx[r]);
    c->ctx[r].uc_stack.ss_sp = c->stack[r];
    c->ctx[r].uc_stack.ss_size = STACK_BYTES;
    c->ctx[r].uc_link = &c->driver;
    makecontext(&c->ctx[r], entry, 0);
#else
    /* What rl__coop_switch pops, from the saved stack pointer up: the
       control words (MXCSR, then the x87 word; this thread's), r15 .. r12,
       rbx, rbp, the return address (entry), and entry's own return address
       (none: it never returns).  entry starts with the stack pointer 8 past
       a 16-byte boundary, as after a call. */
    uint64_t *top = (uint64_t *)((char *)c->stack[r] + STACK_BYTES), *sp = top - 9;
    uint32_t mxcsr;
    uint16_t fpucw;
    __asm__ volatile("stmxcsr %0" : "=m"(mxcsr));
    __asm__ volatile("fnstcw %0" : "=m"(fpucw));
    sp[0] = (uint64_t)mxcsr | (uint64_t)fpucw << 32;
    for (int k = 1; k <= 6; k++) sp[k] = 0;
    sp[7] = (uint64_t)(uintptr_t)entry;
    sp[8] = 0;
    c->ctx[r].sp = sp;
#endif
}

void rl__coop_run(rl__coop *c, rl__pool_fn fn, void *ctx, uint32_t n, int (*ready)(void *ready_ctx, uint32_t r),
                  void *ready_ctx)
{
    c->fn = fn;
    c->fn_ctx = ctx;
    for (uint32_t r = 0; r < n; r++) {
        start_at_entry(c, r);
        c->done[r] = c->blocked[r] = 0;
    }
    for (uint32_t left = n; left;)
        for (uint32_t r = 0; r < n; r++) {
            if (c->done[r] || (c->blocked[r] && !ready(ready_ctx, r))) continue;
            c->blocked[r] = 0;
            c->current = r;
            running = c;
            swap(&c->driver, &c->ctx[r]);
            if (c->done[r]) left--;
        }
}

void rl__coop_block(rl__coop *c)
{
    uint32_t r = c->current;
    c->blocked[r] = 1;
    swap(&c->ctx[r], &c->driver);
}

uint32_t rl__coop_current(const rl__coop *c)
{
    return c->current;
}
