/* The librlcore functions env plugins call, for the web build: aligned
   memory from libc.c's allocator (64-byte aligned), and the state
   helpers, which a page never calls (it saves no checkpoint). */
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

int rl_state_blob(const rl_state_io *io, int load, const char *prefix, const char *name, void *data, size_t bytes,
                  char *err, size_t errlen)
{
    (void)io, (void)load, (void)prefix, (void)name, (void)data, (void)bytes, (void)err, (void)errlen;
    return RL_EINVAL;
}

int rl_state_check_rng(const char *name, const rl_rng *r, char *err, size_t errlen)
{
    (void)name, (void)r, (void)err, (void)errlen;
    return RL_EINVAL;
}

int rl_state_check_i(const char *name, int64_t v, int64_t lo, int64_t hi, char *err, size_t errlen)
{
    (void)name, (void)err, (void)errlen;
    return v >= lo && v <= hi ? RL_OK : RL_EINVAL;
}
