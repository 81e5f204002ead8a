/* libFuzzer target: the safetensors reader (header length, JSON, names,
   dtypes, shapes, offsets, tiling) on arbitrary bytes, then every lookup
   and typed read a plugin could make of what it accepted. */
#include <stdint.h>
#include <string.h>

#include "checkpoint/safetensors.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    rl__ckpt c;
    char err[RL_ERR_MAX];
    if (rl__ckpt_read_mem(&c, "fuzz.safetensors", data, size, err, sizeof err) != RL_OK) return 0;
    rl_state_io io;
    rl__ckpt_io(&c, &io);
    static unsigned char out[1 << 16];
    for (size_t i = 0; i < c.n; i++) {
        const rl__ckpt_tensor *t = &c.tensors[i];
        if (rl__ckpt_find(&c, t->name) != t) __builtin_trap(); /* names are unique */
        if (t->offset + t->bytes > c.data_len) __builtin_trap();
        if (t->bytes <= sizeof out) io.get(io.ctx, t->name, t->dtype, t->ndim, t->shape, out);
    }
    for (size_t i = 0; i < c.n_meta; i++) rl__ckpt_meta_get(&c, c.meta_key[i]);
    rl__ckpt_free(&c);
    return 0;
}
