/* TensorBoard event files; see tbevents.h. */
#include "run/tbevents.h"
#include "base/text.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

uint32_t rl__crc32c(const void *data, size_t n)
{
    static uint32_t table[256];
    static int ready;
    if (!ready) { /* reflected polynomial 0x82F63B78 */
        for (uint32_t i = 0; i < 256; i++) {
            uint32_t c = i;
            for (int k = 0; k < 8; k++) c = c & 1 ? (c >> 1) ^ 0x82F63B78u : c >> 1;
            table[i] = c;
        }
        ready = 1;
    }
    const unsigned char *p = data;
    uint32_t c = 0xFFFFFFFFu;
    for (size_t i = 0; i < n; i++) c = table[(c ^ p[i]) & 0xFF] ^ (c >> 8);
    return c ^ 0xFFFFFFFFu;
}

static uint32_t masked(uint32_t crc)
{
    return ((crc >> 15) | (crc << 17)) + 0xa282ead8u;
}

/* A small protocol-buffer writer into a fixed buffer. */
typedef struct pb {
    unsigned char b[1024];
    size_t n;
    int overflow;
} pb;

static void put(pb *p, const void *d, size_t n)
{
    if (p->n + n > sizeof p->b) {
        p->overflow = 1;
        return;
    }
    memcpy(p->b + p->n, d, n);
    p->n += n;
}

static void varint(pb *p, uint64_t v)
{
    unsigned char t[10];
    size_t n = 0;
    do {
        t[n++] = (unsigned char)((v & 0x7F) | (v > 0x7F ? 0x80 : 0));
        v >>= 7;
    } while (v);
    put(p, t, n);
}

static void le(pb *p, uint64_t v, size_t bytes)
{
    unsigned char t[8];
    for (size_t i = 0; i < bytes; i++) t[i] = (unsigned char)(v >> (8 * i));
    put(p, t, bytes);
}

static void field_bytes(pb *p, uint32_t field, const void *d, size_t n)
{
    varint(p, (uint64_t)field << 3 | 2);
    varint(p, n);
    put(p, d, n);
}

static void record(rl__sbuf *out, const pb *ev)
{
    if (ev->overflow) return;
    unsigned char head[12];
    uint64_t len = ev->n;
    for (int i = 0; i < 8; i++) head[i] = (unsigned char)(len >> (8 * i));
    uint32_t c = masked(rl__crc32c(head, 8));
    for (int i = 0; i < 4; i++) head[8 + i] = (unsigned char)(c >> (8 * i));
    uint32_t d = masked(rl__crc32c(ev->b, ev->n));
    unsigned char tail[4];
    for (int i = 0; i < 4; i++) tail[i] = (unsigned char)(d >> (8 * i));
    rl__sbuf_append(out, head, sizeof head);
    rl__sbuf_append(out, ev->b, ev->n);
    rl__sbuf_append(out, tail, sizeof tail);
}

static void event_head(pb *e, double wall, uint64_t step)
{
    uint64_t bits;
    memcpy(&bits, &wall, sizeof bits);
    varint(e, 1 << 3 | 1); /* wall_time: double */
    le(e, bits, 8);
    varint(e, 2 << 3 | 0); /* step: int64 */
    varint(e, step);
}

static void scalar(rl__sbuf *out, double wall, uint64_t step, const char *tag, float v)
{
    pb value = {.n = 0}, summary = {.n = 0}, e = {.n = 0};
    field_bytes(&value, 1, tag, strlen(tag)); /* Value.tag */
    uint32_t bits;
    memcpy(&bits, &v, sizeof bits);
    varint(&value, 2 << 3 | 5); /* Value.simple_value: float */
    le(&value, bits, 4);
    field_bytes(&summary, 1, value.b, value.n); /* Summary.value */
    event_head(&e, wall, step);
    field_bytes(&e, 5, summary.b, summary.n); /* Event.summary */
    if (!value.overflow && !summary.overflow) record(out, &e);
}

/* The next comma-separated field of [*at, end) into buf; 0 at the line's end. */
static int next_field(const char **at, const char *end, char *buf, size_t cap)
{
    const char *p = *at;
    if (p >= end || *p == '\n') return 0;
    size_t n = 0;
    while (p < end && *p != ',' && *p != '\n') {
        if (n + 1 < cap) buf[n++] = *p;
        p++;
    }
    buf[n] = 0;
    if (p < end && *p == ',') p++;
    *at = p;
    return 1;
}

void rl__tb_from_csv(rl__sbuf *out, const char *csv, size_t len, const char *prefix, double t0)
{
    if (!out->len) { /* first: the file version */
        pb e = {.n = 0};
        event_head(&e, t0, 0);
        field_bytes(&e, 3, "brain.Event:2", 13);
        record(out, &e);
    }
    const char *p = csv, *end = csv + len;
    char names[64][64], field[128];
    size_t ncol = 0;
    while (ncol < 64 && next_field(&p, end, names[ncol], sizeof names[ncol])) ncol++;
    while (p < end && *p != '\n') p++; /* a header of more than 64 columns: the rest unused */
    while (p < end) {
        p++; /* the newline */
        if (p >= end) break;
        double vals[64];
        size_t k = 0;
        for (; next_field(&p, end, field, sizeof field); k++) {
            char *e;
            double v = strtod(field, &e);
            if (k < 64) vals[k] = (e == field || *e) ? NAN : v;
        }
        while (p < end && *p != '\n') p++;
        if (k == 0 || !(vals[0] >= 0)) continue;
        uint64_t step = (uint64_t)vals[0];
        double wall = t0;
        for (size_t c = 1; c < k && c < ncol; c++)
            if (!strcmp(names[c], "wall_s") && isfinite(vals[c])) wall = t0 + vals[c];
        for (size_t c = 1; c < k && c < ncol; c++) {
            if (!strcmp(names[c], "wall_s") || !isfinite(vals[c])) continue;
            char tag[160];
            snprintf(tag, sizeof tag, "%s/%s", prefix, names[c]);
            scalar(out, wall, step, tag, (float)vals[c]);
        }
    }
}
