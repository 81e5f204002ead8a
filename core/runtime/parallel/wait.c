/* Spin, then sleep; see wait.h. */
#define _GNU_SOURCE
#include "parallel/wait.h"

#include <linux/futex.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

/* About 50 microseconds of spinning: longer than the gaps between replica
   meetings on an idle machine, far shorter than a scheduler time slice. */
#define SPIN_NS 50000

static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#endif
}

static uint64_t now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

void rl__wait_while(rl__wait_word *w, uint32_t seen)
{
    if (atomic_load_explicit(&w->value, memory_order_acquire) != seen) return;
    uint64_t until = now_ns() + SPIN_NS;
    for (unsigned k = 1;; k++) {
        if (atomic_load_explicit(&w->value, memory_order_acquire) != seen) return;
        cpu_relax();
        if (k % 64 == 0 && now_ns() > until) break;
    }
    atomic_fetch_add_explicit(&w->sleepers, 1, memory_order_seq_cst);
    while (atomic_load_explicit(&w->value, memory_order_seq_cst) == seen)
        syscall(SYS_futex, &w->value, FUTEX_WAIT_PRIVATE, seen, NULL, NULL, 0);
    atomic_fetch_sub_explicit(&w->sleepers, 1, memory_order_relaxed);
}

void rl__wake_all(rl__wait_word *w)
{
    if (atomic_load_explicit(&w->sleepers, memory_order_seq_cst))
        syscall(SYS_futex, &w->value, FUTEX_WAKE_PRIVATE, 0x7fffffff, NULL, NULL, 0);
}
