/* The operands' extents, checked on entry to a kernel of this folder in a
 * build under AddressSanitizer.  There the kernels are compiled without
 * instrumentation (meson.build: a shadow check on every vector load made
 * an update many times slower, and the sanitized suites spent most of
 * their time in them), so each kernel checks instead, before it reads or
 * writes anything, that every operand's extent (its first element to its
 * last) lies in addressable memory.  A byte outside is reported as the
 * access ASan would have caught inside the kernel.  Elsewhere the checks
 * compile to nothing. */
#ifndef RL_PRODUCTS_EXTENTS_H
#define RL_PRODUCTS_EXTENTS_H

#include <stddef.h>

#ifdef RL_KERNEL_EXTENTS
#include <sanitizer/asan_interface.h>

/* bytes at p are about to be read (is_write 0) or written */
static __attribute__((noinline, unused)) void rl__extent(const void *p, size_t bytes, int is_write)
{
    if (!p || !bytes) return;
    void *bad = __asan_region_is_poisoned((void *)p, bytes);
    if (bad) {
        char sp;
        __asan_report_error(__builtin_return_address(0), __builtin_frame_address(0), &sp, bad, is_write, 4);
    }
}

/* an offset the kernel will add to p reaches past the n elements p's
   operand holds: reported at the element it would touch */
static __attribute__((noinline, unused)) void rl__reach(const float *p, size_t reach, size_t n)
{
    if (reach >= n) {
        char sp;
        __asan_report_error(__builtin_return_address(0), __builtin_frame_address(0), &sp, (void *)(p + reach), 0, 4);
    }
}

#define RL__EXTENT(p, count, is_write) rl__extent((p), (size_t)(count) * sizeof *(p), (is_write))
#else
#define RL__EXTENT(p, count, is_write) ((void)(p), (void)(count), (void)(is_write))
#define rl__reach(p, reach, n) ((void)(p), (void)(reach), (void)(n))
#endif

#endif
