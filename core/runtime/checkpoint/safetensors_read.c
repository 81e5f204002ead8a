/* Reading checkpoints in the safetensors format: everything validated
   before anything is used; see safetensors.h. */
#define _GNU_SOURCE
#include "checkpoint/safetensors.h"

#include "base/crc32.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <rlhost/rlcore.h>

#include "base/files.h"
#include "base/text.h"

#define MAX_HEADER RL__CKPT_MAX_HEADER

/* A small JSON parser for the header: the format's whole grammar, nothing
   more, every byte of it untrusted. */

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
        snprintf(p->err, sizeof p->err, "expected '%c' at header byte %ld", ch, (long)(p->s - p->start));
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
            if (e == 'n')
                ch = '\n';
            else if (e == 't')
                ch = '\t';
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
            snprintf(p->err, sizeof p->err, "header string at byte %ld longer than %zu bytes", (long)(p->s - p->start),
                     cap - 1);
            return -1;
        }
        if (ch == 0) {
            snprintf(p->err, sizeof p->err, "NUL character in a header string at byte %ld", (long)(p->s - p->start));
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
            t->dtype = rl__dtype_of_name(d);
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
            if (expect(p, '[') || number(p, &begin) || expect(p, ',') || number(p, &end) || expect(p, ']')) return -1;
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
    if (end < begin || rl__ckpt_shape_bytes(t->dtype, t->ndim, t->shape, &bytes) != RL_OK || end - begin != bytes) {
        snprintf(p->err, sizeof p->err, "tensor '%s': data_offsets [%llu, %llu] do not hold its %s shape", t->name,
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
            snprintf(err, errlen, "tensor '%s' starts at data byte %zu, where %zu was expected (%s)", t->name,
                     t->offset, at, t->offset < at ? "ranges overlap" : "a gap");
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
        snprintf(err, errlen, "%s: header length %llu does not fit the file (%lld bytes)", path, (unsigned long long)hl,
                 (long long)st.st_size);
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
        snprintf(err, errlen, "%s: cannot read %llu bytes of header and %zu of data", path, (unsigned long long)hl,
                 data_len);
        return RL_EIO;
    }
    fclose(f);
    c->data_len = c->data_cap = data_len;
    return parse_header(c, header, (size_t)hl, err, errlen);
}

int rl__ckpt_read_mem(rl__ckpt *c, const char *name, const void *buf, size_t len, char *err, size_t errlen)
{
    memset(c, 0, sizeof *c);
    c->path = rl__brief(name, c->shown);
    const unsigned char *b = buf;
    uint64_t hl = 0;
    for (int k = 7; len >= 8 && k >= 0; k--) hl = (hl << 8) | b[k];
    if (len < 8 || hl < 2 || hl > MAX_HEADER || hl > (uint64_t)len - 8) {
        snprintf(err, errlen, "%s: header length %llu does not fit the file (%zu bytes)", name, (unsigned long long)hl,
                 len);
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

/* Each tensor's bytes against its CRC-32 in the metadata, when there is one. */
static int check_crcs(const rl__ckpt *c, char *err, size_t errlen)
{
    const char *list = rl__ckpt_meta_get(c, RL__CKPT_CRC_KEY);
    if (!list) return 0;
    const char *s = list;
    for (size_t i = 0; i < c->n; i++) {
        const rl__ckpt_tensor *t = &c->tensors[i];
        char *end;
        errno = 0;
        unsigned long want = strtoul(s, &end, 16);
        if (end - s != 8 || errno || (*end != ' ' && *end != 0) || (*end == 0) != (i + 1 == c->n)) {
            snprintf(err, errlen, "metadata %s does not list a CRC-32 for each of the %zu tensors", RL__CKPT_CRC_KEY,
                     c->n);
            return -1;
        }
        s = *end ? end + 1 : end;
        if (rl__crc32(0, c->data + t->offset, t->bytes) != (uint32_t)want) {
            snprintf(err, errlen, "tensor '%s' does not match its CRC-32: the file changed after it was written",
                     t->name);
            return -1;
        }
    }
    if (*s || (!c->n && *list)) {
        snprintf(err, errlen, "metadata %s lists more CRC-32s than the %zu tensors", RL__CKPT_CRC_KEY, c->n);
        return -1;
    }
    return 0;
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
    if (!bad && peek(&p, '}'))
        p.s++;
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
                    snprintf(p.err, sizeof p.err, "tensor '%s' ends at byte %zu of %zu bytes of data", name,
                             t->offset + t->bytes, data_len);
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
    if (check_crcs(c, p.err, sizeof p.err)) {
        snprintf(err, errlen, "%s: %s", path, p.err);
        rl__ckpt_free(c);
        return RL_ECORRUPT;
    }
    return RL_OK;
}
