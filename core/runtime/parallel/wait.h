/* Waiting for another thread, as OpenMP runtimes do it: spin a short while
   (the other thread is usually a few microseconds away), then sleep in the
   kernel (futex) so that a waiting thread never takes a core from the
   thread it waits for, or from another process, when the machine has more
   runnable threads than cores. */
#ifndef RLHOST_WAIT_H
#define RLHOST_WAIT_H

#include <stdatomic.h>
#include <stdint.h>

/* A word other threads change, with the count of threads asleep on it. */
typedef struct rl__wait_word {
    _Atomic uint32_t value;
    _Atomic uint32_t sleepers;
} rl__wait_word;

/* Returns once w->value != seen (it may already be). */
void rl__wait_while(rl__wait_word *w, uint32_t seen);
/* Wakes every thread asleep on w; call after changing w->value. */
void rl__wake_all(rl__wait_word *w);

#endif
