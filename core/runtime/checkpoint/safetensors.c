/* Checkpoints in the safetensors format, building and writing them; the
   reader is safetensors_read.c, the plugins' view state_io.c.  See
   safetensors.h. */
#define _GNU_SOURCE
#include "checkpoint/safetensors.h"

#include "base/crc32.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <rlhost/rlcore.h>

#include "plugin/config.h"
#include "base/files.h"
#include "base/text.h"

_Static_assert(RL__CONFIG_MAX_TEXT <= RL__CKPT_MAX_VALUE, "a checkpoint holds any resolved config");

#define MAX_HEADER RL__CKPT_MAX_HEADER

static const struct {
    rl_dtype d;
    const char *name;
} dtypes[] = {
    /* sizes: rl_dtype_size (<rlhost/plugin.h>) */
    {RL_DTYPE_F32, "F32"}, {RL_DTYPE_U8, "U8"}, {RL_DTYPE_I32, "I32"}, {RL_DTYPE_U64, "U64"}, {RL_DTYPE_F64, "F64"},
};

const char *rl__dtype_name(rl_dtype d)
{
    for (size_t i = 0; i < sizeof dtypes / sizeof *dtypes; i++)
        if (dtypes[i].d == d) return dtypes[i].name;
    return "?";
}

rl_dtype rl__dtype_of_name(const char *name)
{
    for (size_t i = 0; i < sizeof dtypes / sizeof *dtypes; i++)
        if (!strcmp(name, dtypes[i].name)) return dtypes[i].d;
    return 0;
}

int rl__ckpt_shape_bytes(rl_dtype d, uint32_t ndim, const uint64_t *shape, size_t *out)
{
    size_t n = rl_dtype_size(d);
    if (!n || ndim > 4) return RL_EINVAL;
    for (uint32_t k = 0; k < ndim; k++) {
        if (shape[k] && n > SIZE_MAX / shape[k]) return RL_EINVAL;
        n *= (size_t)shape[k];
    }
    *out = n;
    return RL_OK;
}

int rl__ckpt_put(rl__ckpt *c, const char *name, rl_dtype dtype, uint32_t ndim, const uint64_t *shape, const void *data)
{
    size_t bytes;
    if (rl__ckpt_shape_bytes(dtype, ndim, shape, &bytes) != RL_OK || strlen(name) >= sizeof c->tensors->name ||
        strchr(name, '"') || strchr(name, '\\')) {
        snprintf(c->err, sizeof c->err, "cannot store tensor '%s': bad name, dtype or shape", name);
        return RL_EINVAL;
    }
    if (rl__ckpt_find(c, name)) {
        snprintf(c->err, sizeof c->err, "tensor '%s' stored twice", name);
        return RL_EINVAL;
    }
    if (c->n >= RL__CKPT_MAX_TENSORS) {
        snprintf(c->err, sizeof c->err, "cannot store tensor '%s': a checkpoint holds at most %d tensors", name,
                 RL__CKPT_MAX_TENSORS);
        return RL_EINVAL;
    }
    if (c->n == c->cap) {
        size_t cap = c->cap ? 2 * c->cap : 64;
        rl__ckpt_tensor *t = realloc(c->tensors, cap * sizeof *t);
        if (!t) return RL_ENOMEM;
        c->tensors = t;
        c->cap = cap;
    }
    if (c->data_len + bytes > c->data_cap) {
        size_t cap = c->data_cap ? c->data_cap : 65536;
        while (cap < c->data_len + bytes) cap *= 2;
        unsigned char *d = realloc(c->data, cap);
        if (!d) return RL_ENOMEM;
        c->data = d;
        c->data_cap = cap;
    }
    rl__ckpt_tensor *t = &c->tensors[c->n++];
    memset(t, 0, sizeof *t);
    snprintf(t->name, sizeof t->name, "%s", name);
    t->dtype = dtype;
    t->ndim = ndim;
    memcpy(t->shape, shape, ndim * sizeof *shape);
    t->offset = c->data_len;
    t->bytes = bytes;
    if (bytes) memcpy(c->data + c->data_len, data, bytes);
    c->data_len += bytes;
    return RL_OK;
}

int rl__ckpt_meta(rl__ckpt *c, const char *key, const char *value)
{
    size_t kl = strlen(key), vl = strlen(value);
    if (rl__utf8_prefix(key, kl) < kl || rl__utf8_prefix(value, vl) < vl) { /* the reader's rule */
        snprintf(c->err, sizeof c->err, "cannot store metadata '%.64s': it is not UTF-8 text", key);
        return RL_EINVAL;
    }
    if (kl > RL__CKPT_MAX_KEY || vl > RL__CKPT_MAX_VALUE || c->n_meta >= RL__CKPT_MAX_META) {
        snprintf(c->err, sizeof c->err, "cannot store metadata '%.64s': %s", key,
                 kl > RL__CKPT_MAX_KEY         ? "the key is longer than 255 bytes"
                     : vl > RL__CKPT_MAX_VALUE ? "the value is longer than 1 MiB"
                                               : "a checkpoint holds at most 4096 metadata entries");
        return RL_EINVAL;
    }
    if (c->n_meta == c->meta_cap) {
        size_t cap = c->meta_cap ? 2 * c->meta_cap : 16;
        char **k = realloc(c->meta_key, cap * sizeof *k);
        if (k) c->meta_key = k;
        char **v = k ? realloc(c->meta_val, cap * sizeof *v) : NULL;
        if (!v) return RL_ENOMEM;
        c->meta_val = v;
        c->meta_cap = cap;
    }
    c->meta_key[c->n_meta] = strdup(key);
    c->meta_val[c->n_meta] = strdup(value);
    if (!c->meta_key[c->n_meta] || !c->meta_val[c->n_meta]) {
        free(c->meta_key[c->n_meta]);
        free(c->meta_val[c->n_meta]);
        return RL_ENOMEM;
    }
    c->n_meta++;
    return RL_OK;
}

int rl__ckpt_serialize(const rl__ckpt *c, const char *path, unsigned char **out, size_t *out_len, char *err,
                       size_t errlen)
{
    *out = NULL;
    size_t own = 0; /* the metadata entries beside the CRC-32 list, which the writer adds */
    for (size_t i = 0; i < c->n_meta; i++) own += strcmp(c->meta_key[i], RL__CKPT_CRC_KEY) != 0;
    if (own + 1 > RL__CKPT_MAX_META) {
        snprintf(err, errlen,
                 "cannot write %s: %zu metadata entries and the CRC-32 list are more than a checkpoint "
                 "holds (%d)",
                 path, own, RL__CKPT_MAX_META);
        return RL_EINVAL;
    }
    rl__sbuf h = {0};
    rl__sbuf_puts(&h, "{\"__metadata__\":{");
    for (size_t i = 0; i < c->n_meta; i++) {
        if (!strcmp(c->meta_key[i], RL__CKPT_CRC_KEY)) continue; /* a read checkpoint's: made anew below */
        rl__sbuf_json_str(&h, c->meta_key[i]);
        rl__sbuf_puts(&h, ":");
        rl__sbuf_json_str(&h, c->meta_val[i]);
        rl__sbuf_puts(&h, ",");
    }
    /* every tensor's CRC-32, in header order: a byte changed after the
       write is found at the next read */
    rl__sbuf_puts(&h, "\"" RL__CKPT_CRC_KEY "\":\"");
    for (size_t i = 0; i < c->n; i++)
        rl__sbuf_printf(&h, "%s%08x", i ? " " : "", rl__crc32(0, c->data + c->tensors[i].offset, c->tensors[i].bytes));
    rl__sbuf_puts(&h, "\"}");
    for (size_t i = 0; i < c->n; i++) {
        const rl__ckpt_tensor *t = &c->tensors[i];
        rl__sbuf_printf(&h, ",\"%s\":{\"dtype\":\"%s\",\"shape\":[", t->name, rl__dtype_name(t->dtype));
        for (uint32_t k = 0; k < t->ndim; k++)
            rl__sbuf_printf(&h, "%s%llu", k ? "," : "", (unsigned long long)t->shape[k]);
        rl__sbuf_printf(&h, "],\"data_offsets\":[%zu,%zu]}", t->offset, t->offset + t->bytes);
    }
    rl__sbuf_puts(&h, "}");
    while (!h.oom && h.len % 8) rl__sbuf_puts(&h, " "); /* data starts 8-aligned */
    if (h.oom) {
        snprintf(err, errlen, "out of memory writing %s", path);
        return RL_ENOMEM;
    }
    if (h.len > MAX_HEADER) {
        snprintf(err, errlen, "cannot write %s: its header would be %zu bytes, more than a checkpoint may hold", path,
                 h.len);
        rl__sbuf_free(&h);
        return RL_EINVAL;
    }
    size_t total = 8 + h.len + c->data_len;
    unsigned char *buf = malloc(total);
    if (!buf) {
        rl__sbuf_free(&h);
        snprintf(err, errlen, "out of memory writing %s", path);
        return RL_ENOMEM;
    }
    uint64_t hl = h.len;
    for (int k = 0; k < 8; k++) buf[k] = (unsigned char)(hl >> (8 * k));
    memcpy(buf + 8, h.data, h.len);
    if (c->data_len) memcpy(buf + 8 + h.len, c->data, c->data_len);
    rl__sbuf_free(&h);
    *out = buf;
    *out_len = total;
    return RL_OK;
}

int rl__ckpt_write(const rl__ckpt *c, rl__dir d, const char *path, const char *prev_path, char *err, size_t errlen)
{
    unsigned char *buf;
    size_t total;
    int rc = rl__ckpt_serialize(c, path, &buf, &total, err, errlen);
    if (rc != RL_OK) return rc;
    /* The new file is written completely before the old one is retired. */
    rc = rl__write_atomic(d, path, prev_path, buf, total, 1, err, errlen);
    free(buf);
    return rc;
}

const rl__ckpt_tensor *rl__ckpt_find(const rl__ckpt *c, const char *name)
{
    for (size_t i = 0; i < c->n; i++)
        if (!strcmp(c->tensors[i].name, name)) return &c->tensors[i];
    return NULL;
}

const char *rl__ckpt_meta_get(const rl__ckpt *c, const char *key)
{
    for (size_t i = 0; i < c->n_meta; i++)
        if (!strcmp(c->meta_key[i], key)) return c->meta_val[i];
    return NULL;
}

void rl__ckpt_free(rl__ckpt *c)
{
    free(c->tensors);
    free(c->data);
    for (size_t i = 0; i < c->n_meta; i++) {
        free(c->meta_key[i]);
        free(c->meta_val[i]);
    }
    free(c->meta_key);
    free(c->meta_val);
    const char *path = c->path;
    memset(c, 0, sizeof *c);
    c->path = path;
}
