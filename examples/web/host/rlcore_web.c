/* The librlcore functions env plugins call that the web build cannot take
   from librlcore itself: aligned memory, from libc.c's allocator (64-byte
   aligned).  The status strings and the state helpers are librlcore's own
   (core/rlcore/state_io.c, compiled in as it is). */
#include <stdlib.h>

#include <rlhost/rlcore.h>

void *rl_calloc_aligned(size_t count, size_t size)
{
    return calloc(count ? count : 1, size ? size : 1);
}

void rl_free(void *p)
{
    free(p);
}
