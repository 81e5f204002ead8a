/* Checkpoints in the safetensors format; see safetensors.h. */
#define _GNU_SOURCE
#include "checkpoint/safetensors.h"

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
} dtypes[] = { /* sizes: rl_dtype_size (<rlhost/plugin.h>) */
    {RL_DTYPE_F32, "F32"}, {RL_DTYPE_U8, "U8"}, {RL_DTYPE_I32, "I32"}, {RL_DTYPE_U64, "U64"}, {RL_DTYPE_F64, "F64"},
};

const char *rl__dtype_name(rl_dtype d)
{
    for (size_t i = 0; i < sizeof dtypes / sizeof *dtypes; i++)
        if (dtypes[i].d == d) return dtypes[i].name;
    return "?";
}

static int shape_bytes(rl_dtype d, uint32_t ndim, const uint64_t *shape, size_t *out)
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

int rl__ckpt_put(rl__ckpt *c, const char *name, rl_dtype dtype, uint32_t ndim,
                 const uint64_t *shape, const void *data)
{
    size_t bytes;
    if (shape_bytes(dtype, ndim, shape, &bytes) != RL_OK || strlen(name) >= sizeof c->tensors->name ||
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
                 kl > RL__CKPT_MAX_KEY   ? "the key is longer than 255 bytes"
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
    rl__sbuf h = {0};
    rl__sbuf_puts(&h, "{\"__metadata__\":{");
    for (size_t i = 0; i < c->n_meta; i++) {
        if (i) rl__sbuf_puts(&h, ",");
        rl__sbuf_json_str(&h, c->meta_key[i]);
        rl__sbuf_puts(&h, ":");
        rl__sbuf_json_str(&h, c->meta_val[i]);
    }
    rl__sbuf_puts(&h, "}");
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
        snprintf(err, errlen, "cannot write %s: its header would be %zu bytes, more than a checkpoint may hold",
                 path, h.len);
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

int rl__ckpt_write(const rl__ckpt *c, rl__dir d, const char *path, const char *prev_path, char *err,
                   size_t errlen)
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

/* ---- reading: a small JSON parser for the header --------------------------*/

typedef struct jp {
    const char *start, *s, *end;
    char err[200];
} jp;

static void ws(jp *p)
{
    while (p->s < p->end && (*p->s == ' ' || *p->s == '\n' || *p->s == '\t' || *p->s == '\r')) p->s++;
}

static int expect(jp *p, char ch)
{
    ws(p);
    if (p->s >= p->end || *p->s != ch) {
        snprintf(p->err, sizeof p->err, "expected '%c' at header byte %ld", ch,
                 (long)(p->s - p->start));
        return -1;
    }
    p->s++;
    return 0;
}

/* A JSON string into out (escapes \" \\ \/ \n \t and \u00XX only). */
static int string(jp *p, char *out, size_t cap)
{
    if (expect(p, '"')) return -1;
    size_t n = 0;
    while (p->s < p->end && *p->s != '"') {
        char ch = *p->s++;
        int raw = ch != '\\';
        if (!raw) {
            if (p->s >= p->end) break;
            char e = *p->s++;
            if (e == 'n') ch = '\n';
            else if (e == 't') ch = '\t';
            else if (e == 'u' && p->end - p->s >= 4) {
                unsigned v;
                char hex[5] = {p->s[0], p->s[1], p->s[2], p->s[3], 0};
                if (sscanf(hex, "%4x", &v) != 1 || v > 0x7f) {
                    snprintf(p->err, sizeof p->err, "unsupported \\u escape in header");
                    return -1;
                }
                if (v == 0) {
                    snprintf(p->err, sizeof p->err, "NUL character in a header string at byte %ld",
                             (long)(p->s - p->start));
                    return -1;
                }
                ch = (char)v;
                p->s += 4;
            } else
                ch = e;
        }
        if (n + 1 >= cap) {
            snprintf(p->err, sizeof p->err, "header string at byte %ld longer than %zu bytes",
                     (long)(p->s - p->start), cap - 1);
            return -1;
        }
        if (ch == 0) {
            snprintf(p->err, sizeof p->err, "NUL character in a header string at byte %ld",
                     (long)(p->s - p->start));
            return -1;
        }
        if (raw && (unsigned char)ch < 0x20) { /* JSON escapes control characters */
            snprintf(p->err, sizeof p->err, "an unescaped control character in a header string at byte %ld",
                     (long)(p->s - p->start));
            return -1;
        }
        out[n++] = ch;
    }
    if (p->s >= p->end) {
        snprintf(p->err, sizeof p->err, "unterminated string in header");
        return -1;
    }
    p->s++;
    out[n] = 0;
    return 0;
}

static int number(jp *p, uint64_t *out)
{
    ws(p);
    const char *start = p->s;
    uint64_t v = 0;
    while (p->s < p->end && *p->s >= '0' && *p->s <= '9') {
        if (v > (UINT64_MAX - 9) / 10) {
            snprintf(p->err, sizeof p->err, "number too large in header");
            return -1;
        }
        v = v * 10 + (uint64_t)(*p->s++ - '0');
    }
    if (p->s == start) {
        snprintf(p->err, sizeof p->err, "expected a non-negative integer in header");
        return -1;
    }
    *out = v;
    return 0;
}

static int peek(jp *p, char ch)
{
    ws(p);
    return p->s < p->end && *p->s == ch;
}

static int parse_meta_entries(jp *p, rl__ckpt *c, char *v)
{
    for (;;) {
        char k[RL__CKPT_MAX_KEY + 1];
        if (string(p, k, sizeof k) || expect(p, ':') || string(p, v, RL__CKPT_MAX_VALUE + 1)) return -1;
        if (rl__ckpt_meta_get(c, k)) {
            snprintf(p->err, sizeof p->err, "metadata key '%s' appears twice", k);
            return -1;
        }
        int rc = rl__ckpt_meta(c, k, v);
        if (rc != RL_OK) {
            snprintf(p->err, sizeof p->err, "%s", rc == RL_ENOMEM ? "out of memory" : c->err);
            return -1;
        }
        if (peek(p, ',')) {
            p->s++;
            continue;
        }
        return expect(p, '}');
    }
}

static int parse_meta(jp *p, rl__ckpt *c)
{
    if (expect(p, '{')) return -1;
    if (peek(p, '}')) return p->s++, 0;
    char *v = malloc(RL__CKPT_MAX_VALUE + 1);
    if (!v) {
        snprintf(p->err, sizeof p->err, "out of memory");
        return -1;
    }
    int rc = parse_meta_entries(p, c, v);
    free(v);
    return rc;
}

static int parse_tensor(jp *p, rl__ckpt_tensor *t)
{
    if (expect(p, '{')) return -1;
    int have_dtype = 0, have_shape = 0, have_off = 0;
    uint64_t begin = 0, end = 0;
    for (;;) {
        char key[32];
        if (string(p, key, sizeof key) || expect(p, ':')) return -1;
        if (!strcmp(key, "dtype")) {
            char d[16];
            if (string(p, d, sizeof d)) return -1;
            t->dtype = 0;
            for (size_t i = 0; i < sizeof dtypes / sizeof *dtypes; i++)
                if (!strcmp(d, dtypes[i].name)) t->dtype = dtypes[i].d;
            if (!t->dtype) {
                snprintf(p->err, sizeof p->err, "tensor '%s' has unsupported dtype '%s'", t->name, d);
                return -1;
            }
            have_dtype = 1;
        } else if (!strcmp(key, "shape")) {
            if (expect(p, '[')) return -1;
            t->ndim = 0;
            if (!peek(p, ']'))
                for (;;) {
                    if (t->ndim == 4) {
                        snprintf(p->err, sizeof p->err, "tensor '%s' has more than 4 dimensions", t->name);
                        return -1;
                    }
                    if (number(p, &t->shape[t->ndim++])) return -1;
                    if (!peek(p, ',')) break;
                    p->s++;
                }
            if (expect(p, ']')) return -1;
            have_shape = 1;
        } else if (!strcmp(key, "data_offsets")) {
            if (expect(p, '[') || number(p, &begin) || expect(p, ',') || number(p, &end) ||
                expect(p, ']'))
                return -1;
            have_off = 1;
        } else {
            snprintf(p->err, sizeof p->err, "tensor '%s' has unknown field '%s'", t->name, key);
            return -1;
        }
        if (peek(p, ',')) {
            p->s++;
            continue;
        }
        if (expect(p, '}')) return -1;
        break;
    }
    if (!have_dtype || !have_shape || !have_off) {
        snprintf(p->err, sizeof p->err, "tensor '%s' lacks dtype, shape or data_offsets", t->name);
        return -1;
    }
    size_t bytes;
    if (end < begin || shape_bytes(t->dtype, t->ndim, t->shape, &bytes) != RL_OK ||
        end - begin != bytes) {
        snprintf(p->err, sizeof p->err,
                 "tensor '%s': data_offsets [%llu, %llu] do not hold its %s shape", t->name,
                 (unsigned long long)begin, (unsigned long long)end, rl__dtype_name(t->dtype));
        return -1;
    }
    t->offset = (size_t)begin;
    t->bytes = bytes;
    return 0;
}

static int by_offset(const void *a, const void *b)
{
    const rl__ckpt_tensor *x = *(rl__ckpt_tensor *const *)a, *y = *(rl__ckpt_tensor *const *)b;
    if (x->offset != y->offset) return x->offset < y->offset ? -1 : 1;
    return (x->bytes > y->bytes) - (x->bytes < y->bytes);
}

/* The tensors' data ranges, in offset order, must cover the data exactly:
   each begins where the one before ends, the last ends at the data's end. */
static int check_tiling(const rl__ckpt *c, char *err, size_t errlen)
{
    rl__ckpt_tensor **order = malloc((c->n ? c->n : 1) * sizeof *order);
    if (!order) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    for (size_t i = 0; i < c->n; i++) order[i] = &c->tensors[i];
    qsort(order, c->n, sizeof *order, by_offset);
    size_t at = 0;
    int bad = 0;
    for (size_t i = 0; i < c->n && !bad; i++) {
        const rl__ckpt_tensor *t = order[i];
        if (t->offset != at) {
            snprintf(err, errlen, "tensor '%s' starts at data byte %zu, where %zu was expected (%s)",
                     t->name, t->offset, at, t->offset < at ? "ranges overlap" : "a gap");
            bad = -1;
        }
        at = t->offset + t->bytes;
    }
    if (!bad && at != c->data_len) {
        snprintf(err, errlen, "the tensors cover %zu of %zu data bytes (trailing bytes)", at, c->data_len);
        bad = -1;
    }
    free(order);
    return bad;
}

static int parse_header(rl__ckpt *c, char *header, size_t hl, char *err, size_t errlen);

int rl__ckpt_read(rl__ckpt *c, const char *path, char *err, size_t errlen)
{
    return rl__ckpt_read_file(c, path, 0, err, errlen);
}

int rl__ckpt_read_file(rl__ckpt *c, const char *file, int in_run_dir, char *err, size_t errlen)
{
    memset(c, 0, sizeof *c);
    const char *path = c->path = rl__brief(file, c->shown); /* for messages */
    struct stat st;
    int fd = rl__open_regular(AT_FDCWD, file, in_run_dir ? O_NOFOLLOW : 0, &st);
    if (fd == RL__NOT_REGULAR) {
        snprintf(err, errlen, "%s: not a regular file", path);
        return RL_ECORRUPT;
    }
    if (fd < 0) {
        if (errno == ELOOP && in_run_dir)
            snprintf(err, errlen, "%s: is a symbolic link; a run directory's checkpoints are its own files", path);
        else
            snprintf(err, errlen, "%s: cannot open: %s", path, strerror(errno));
        return errno == ELOOP ? RL_ECORRUPT : RL_EIO;
    }
    FILE *f = fdopen(fd, "rb");
    if (!f) {
        close(fd);
        snprintf(err, errlen, "%s: cannot open: %s", path, strerror(errno));
        return RL_EIO;
    }
    if (st.st_size < 8) {
        fclose(f);
        snprintf(err, errlen, "%s: not a safetensors file (shorter than its 8-byte header length)", path);
        return RL_ECORRUPT;
    }
    unsigned char len8[8];
    if (fread(len8, 1, 8, f) != 8) {
        fclose(f);
        snprintf(err, errlen, "%s: cannot read the header length", path);
        return RL_EIO;
    }
    uint64_t hl = 0;
    for (int k = 7; k >= 0; k--) hl = (hl << 8) | len8[k];
    if (hl < 2 || hl > MAX_HEADER || hl > (uint64_t)st.st_size - 8) {
        fclose(f);
        snprintf(err, errlen, "%s: header length %llu does not fit the file (%lld bytes)", path,
                 (unsigned long long)hl, (long long)st.st_size);
        return RL_ECORRUPT;
    }
    size_t data_len = (size_t)st.st_size - 8 - (size_t)hl;
    char *header = malloc((size_t)hl + 1);
    c->data = malloc(data_len ? data_len : 1);
    if (!header || !c->data || fread(header, 1, (size_t)hl, f) != hl ||
        (data_len && fread(c->data, 1, data_len, f) != data_len)) {
        fclose(f);
        free(header);
        rl__ckpt_free(c);
        snprintf(err, errlen, "%s: cannot read %llu bytes of header and %zu of data", path,
                 (unsigned long long)hl, data_len);
        return RL_EIO;
    }
    fclose(f);
    c->data_len = c->data_cap = data_len;
    return parse_header(c, header, (size_t)hl, err, errlen);
}

int rl__ckpt_read_mem(rl__ckpt *c, const char *name, const void *buf, size_t len, char *err,
                      size_t errlen)
{
    memset(c, 0, sizeof *c);
    c->path = rl__brief(name, c->shown);
    const unsigned char *b = buf;
    uint64_t hl = 0;
    for (int k = 7; len >= 8 && k >= 0; k--) hl = (hl << 8) | b[k];
    if (len < 8 || hl < 2 || hl > MAX_HEADER || hl > (uint64_t)len - 8) {
        snprintf(err, errlen, "%s: header length %llu does not fit the file (%zu bytes)", name,
                 (unsigned long long)hl, len);
        return RL_ECORRUPT;
    }
    size_t data_len = len - 8 - (size_t)hl;
    char *header = malloc((size_t)hl + 1);
    c->data = malloc(data_len ? data_len : 1);
    if (!header || !c->data) {
        free(header);
        rl__ckpt_free(c);
        snprintf(err, errlen, "%s: out of memory", name);
        return RL_ENOMEM;
    }
    memcpy(header, b + 8, (size_t)hl);
    if (data_len) memcpy(c->data, b + 8 + hl, data_len);
    c->data_len = c->data_cap = data_len;
    return parse_header(c, header, (size_t)hl, err, errlen);
}

/* Parses and validates the JSON header (hl bytes; takes ownership). */
static int parse_header(rl__ckpt *c, char *header, size_t hl, char *err, size_t errlen)
{
    const char *path = c->path;
    size_t data_len = c->data_len;
    header[hl] = 0;
    size_t valid = rl__utf8_prefix(header, hl);
    if (valid < hl) {
        snprintf(err, errlen, "%s: the header is not UTF-8 text (byte %zu): the file is damaged", path, valid + 8);
        free(header);
        rl__ckpt_free(c);
        return RL_ECORRUPT;
    }
    jp p = {header, header, header + hl, ""};
    int bad = expect(&p, '{'), seen_meta = 0;
    if (!bad && peek(&p, '}')) p.s++;
    else if (!bad)
        for (;;) {
            char name[sizeof c->tensors->name];
            if ((bad = string(&p, name, sizeof name)) || (bad = expect(&p, ':'))) break;
            if (!strcmp(name, "__metadata__")) {
                if (seen_meta++) {
                    snprintf(p.err, sizeof p.err, "__metadata__ appears twice");
                    bad = -1;
                    break;
                }
                if ((bad = parse_meta(&p, c))) break;
            } else if (rl__ckpt_find(c, name)) {
                snprintf(p.err, sizeof p.err, "tensor '%s' appears twice", name);
                bad = -1;
                break;
            } else {
                if (c->n == c->cap) {
                    size_t cap = c->cap ? 2 * c->cap : 64;
                    rl__ckpt_tensor *t = cap <= RL__CKPT_MAX_TENSORS ? realloc(c->tensors, cap * sizeof *t) : NULL;
                    if (!t) {
                        snprintf(p.err, sizeof p.err, "more than %d tensors", RL__CKPT_MAX_TENSORS);
                        bad = -1;
                        break;
                    }
                    c->tensors = t;
                    c->cap = cap;
                }
                rl__ckpt_tensor *t = &c->tensors[c->n];
                memset(t, 0, sizeof *t);
                snprintf(t->name, sizeof t->name, "%s", name);
                if ((bad = parse_tensor(&p, t))) break;
                if (t->offset + t->bytes > data_len) {
                    snprintf(p.err, sizeof p.err, "tensor '%s' ends at byte %zu of %zu bytes of data",
                             name, t->offset + t->bytes, data_len);
                    bad = -1;
                    break;
                }
                c->n++;
            }
            if (peek(&p, ',')) {
                p.s++;
                continue;
            }
            bad = expect(&p, '}');
            break;
        }
    ws(&p);
    if (!bad && p.s != p.end) {
        snprintf(p.err, sizeof p.err, "unexpected bytes after the header object at header byte %ld",
                 (long)(p.s - p.start));
        bad = -1;
    }
    if (!bad) bad = check_tiling(c, p.err, sizeof p.err);
    free(header);
    if (bad) {
        snprintf(err, errlen, "%s: corrupt header: %s", path, p.err);
        rl__ckpt_free(c);
        return RL_ECORRUPT;
    }
    return RL_OK;
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

/* ---- rl_state_io -------------------------------------------------------- */

/* "replay/..." or a replica's "replica<r>/replay/...": what goes to the
   replay file. */
static int is_replay(const char *name)
{
    if (!strncmp(name, "replica", 7)) {
        const char *p = name + 7;
        while (*p >= '0' && *p <= '9') p++;
        if (p > name + 7 && *p == '/') name = p + 1;
    }
    return !strncmp(name, "replay/", 7);
}

static int io_put(void *ctx, const char *name, rl_dtype dtype, uint32_t ndim, const uint64_t *shape,
                  const void *data)
{
    rl__ckpt *c = ctx;
    if (c->side && is_replay(name)) {
        int rc = rl__ckpt_put(c->side, name, dtype, ndim, shape, data);
        if (rc) snprintf(c->err, sizeof c->err, "%s", c->side->err);
        return rc;
    }
    return rl__ckpt_put(c, name, dtype, ndim, shape, data);
}

static void shape_text(char *buf, size_t n, uint32_t ndim, const uint64_t *shape)
{
    size_t at = (size_t)snprintf(buf, n, "[");
    for (uint32_t k = 0; k < ndim && at < n; k++)
        at += (size_t)snprintf(buf + at, n - at, "%s%llu", k ? ", " : "", (unsigned long long)shape[k]);
    if (at < n) snprintf(buf + at, n - at, "]");
}

static int io_get(void *ctx, const char *name, rl_dtype dtype, uint32_t ndim, const uint64_t *shape,
                  void *data)
{
    rl__ckpt *c = ctx;
    const rl__ckpt_tensor *t = rl__ckpt_find(c, name);
    const rl__ckpt *owner = c;
    if (!t && c->side && (t = rl__ckpt_find(c->side, name))) owner = c->side;
    if (!t) {
        if (is_replay(name)) c->missing_replay = 1;
        snprintf(c->err, sizeof c->err, "tensor '%s' is missing", name);
        return RL_ENOENT;
    }
    int same = t->dtype == dtype && t->ndim == ndim;
    for (uint32_t k = 0; same && k < ndim; k++) same = t->shape[k] == shape[k];
    if (!same) {
        char have[96], want[96];
        shape_text(have, sizeof have, t->ndim, t->shape);
        shape_text(want, sizeof want, ndim, shape);
        snprintf(c->err, sizeof c->err,
                 "tensor '%s' is %s %s in the checkpoint, but the config builds %s %s", name, rl__dtype_name(t->dtype), have, rl__dtype_name(dtype), want);
        return RL_ECORRUPT;
    }
    /* Typed float tensors (weights, optimizer moments, scalars) must be
       finite: a NaN loaded is a NaN trained on. */
    const unsigned char *src = owner->data + t->offset;
    size_t count = t->bytes / rl_dtype_size(t->dtype);
    for (size_t i = 0; (t->dtype == RL_DTYPE_F32 || t->dtype == RL_DTYPE_F64) && i < count; i++) {
        double v;
        if (t->dtype == RL_DTYPE_F32) {
            float f;
            memcpy(&f, src + 4 * i, 4);
            v = f;
        } else {
            memcpy(&v, src + 8 * i, 8);
        }
        if (!isfinite(v)) {
            snprintf(c->err, sizeof c->err, "tensor '%s' holds %g at element %zu, not a finite number",
                     name, v, i);
            return RL_ECORRUPT;
        }
    }
    memcpy(data, src, t->bytes);
    return RL_OK;
}

static const char *io_error(void *ctx)
{
    return ((rl__ckpt *)ctx)->err;
}

/* A plugin's metadata, under "algo.": the host's own keys stay its own. */
static int io_meta(void *ctx, const char *key, const char *value)
{
    rl__ckpt *c = ctx;
    char full[128];
    if (!key || !value || !key[0] || strlen(key) > 100 || strchr(key, '"') || strchr(key, '\\')) {
        snprintf(c->err, sizeof c->err, "bad metadata key '%s'", key ? key : "(null)");
        return RL_EINVAL;
    }
    snprintf(full, sizeof full, "algo.%s", key);
    if (rl__ckpt_meta_get(c, full)) {
        snprintf(c->err, sizeof c->err, "metadata '%s' stored twice", full);
        return RL_EINVAL;
    }
    return rl__ckpt_meta(c, full, value);
}

void rl__ckpt_io(rl__ckpt *c, rl_state_io *io)
{
    memset(io, 0, sizeof *io);
    io->struct_size = sizeof *io;
    io->ctx = c;
    io->put = io_put;
    io->get = io_get;
    io->error = io_error;
    io->meta = io_meta;
}
