/* Growable text and its escapes; see text.h. */
#define _GNU_SOURCE
#include "base/text.h"

#include "base/log.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Room for n more bytes and the NUL; 0, or -1 (oom set). */
static int sbuf_reserve(rl__sbuf *b, size_t n)
{
    if (b->oom) return -1;
    if (b->len + n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 256;
        while (cap < b->len + n + 1) cap *= 2;
        char *d = realloc(b->data, cap);
        if (!d) {
            b->oom = 1;
            return -1;
        }
        b->data = d;
        b->cap = cap;
    }
    return 0;
}

void rl__sbuf_vprintf(rl__sbuf *b, const char *fmt, va_list ap)
{
    if (b->oom) return;
    va_list ap2;
    va_copy(ap2, ap);
    int n = vsnprintf(NULL, 0, fmt, ap2);
    va_end(ap2);
    if (n < 0) {
        b->oom = 1;
        return;
    }
    if (sbuf_reserve(b, (size_t)n)) return;
    vsnprintf(b->data + b->len, b->cap - b->len, fmt, ap);
    b->len += (size_t)n;
}

void rl__sbuf_printf(rl__sbuf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    rl__sbuf_vprintf(b, fmt, ap);
    va_end(ap);
}

void rl__sbuf_puts(rl__sbuf *b, const char *s)
{
    rl__sbuf_printf(b, "%s", s);
}

void rl__sbuf_append(rl__sbuf *b, const void *d, size_t n)
{
    if (sbuf_reserve(b, n)) return;
    memcpy(b->data + b->len, d, n);
    b->len += n;
    b->data[b->len] = 0;
}

/* s in double quotes with " \ and newline escaped; other control bytes
   through ctrl_fmt (the two formats differ only there). */
static void sbuf_quoted(rl__sbuf *b, const char *s, const char *ctrl_fmt)
{
    rl__sbuf_puts(b, "\"");
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '"' || *p == '\\')
            rl__sbuf_printf(b, "\\%c", *p);
        else if (*p == '\n')
            rl__sbuf_puts(b, "\\n");
        else if (*p < 0x20)
            rl__sbuf_printf(b, ctrl_fmt, *p);
        else
            rl__sbuf_printf(b, "%c", *p);
    }
    rl__sbuf_puts(b, "\"");
}

/* The offset of the first byte that breaks UTF-8 (overlong forms,
   surrogates and code points past U+10FFFF included), or len. */
size_t rl__utf8_prefix(const char *text, size_t len)
{
    const unsigned char *s = (const unsigned char *)text;
    size_t i = 0;
    while (i < len) {
        unsigned c = s[i];
        size_t n = c < 0x80 ? 0 : (c & 0xe0) == 0xc0 ? 1 : (c & 0xf0) == 0xe0 ? 2 : (c & 0xf8) == 0xf0 ? 3 : 9;
        if (n == 9 || len - i <= n) return i;
        uint32_t cp = n == 0 ? c : n == 1 ? c & 0x1f : n == 2 ? c & 0x0f : c & 0x07;
        for (size_t k = 1; k <= n; k++) {
            if ((s[i + k] & 0xc0) != 0x80) return i;
            cp = cp << 6 | (s[i + k] & 0x3f);
        }
        static const uint32_t least[4] = {0, 0x80, 0x800, 0x10000};
        if (cp < least[n] || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return i;
        i += n + 1;
    }
    return len;
}

void rl__sbuf_json_str(rl__sbuf *b, const char *s)
{
    sbuf_quoted(b, s, "\\u%04x");
}

void rl__sbuf_cfg_str(rl__sbuf *b, const char *s)
{
    sbuf_quoted(b, s, "\\x%02x");
}

void rl__sbuf_double(rl__sbuf *b, double v, int json)
{
    if (!isfinite(v)) {
        if (json)
            rl__sbuf_puts(b, "null");
        else
            rl__sbuf_puts(b, isnan(v) ? "nan" : (v > 0 ? "inf" : "-inf"));
        return;
    }
    /* Shortest of %.{6..17}g that reads back exactly. */
    char tmp[40];
    for (int prec = 6; prec <= 17; prec++) {
        snprintf(tmp, sizeof tmp, "%.*g", prec, v);
        if (strtod(tmp, NULL) == v) break;
    }
    rl__sbuf_puts(b, tmp);
}

static void json_key(rl__sbuf *b, const char *key)
{
    if (b->len && b->data[b->len - 1] != '{') rl__sbuf_puts(b, ", ");
    rl__sbuf_json_str(b, key);
    rl__sbuf_puts(b, ": ");
}

void rl__json_str(rl__sbuf *b, const char *key, const char *v)
{
    json_key(b, key);
    rl__sbuf_json_str(b, v ? v : "");
}

void rl__json_num(rl__sbuf *b, const char *key, double v)
{
    json_key(b, key);
    rl__sbuf_double(b, v, 1);
}

void rl__json_u64(rl__sbuf *b, const char *key, unsigned long long v)
{
    json_key(b, key);
    rl__sbuf_printf(b, "%llu", v);
}

void rl__json_raw(rl__sbuf *b, const char *key, const char *literal)
{
    json_key(b, key);
    rl__sbuf_puts(b, literal);
}

void rl__json_print(rl__sbuf *b)
{
    rl__sbuf_puts(b, "}\n");
    if (b->oom)
        rl__log(RL_LOG_ERROR, NULL, "out of memory");
    else
        rl__result_text(b->data);
    rl__sbuf_free(b);
}

void rl__sbuf_xml_str(rl__sbuf *b, const char *s)
{
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        switch (c) {
        case '&':
            rl__sbuf_puts(b, "&amp;");
            break;
        case '<':
            rl__sbuf_puts(b, "&lt;");
            break;
        case '>':
            rl__sbuf_puts(b, "&gt;");
            break;
        case '\'':
            rl__sbuf_puts(b, "&apos;");
            break;
        case '"':
            rl__sbuf_puts(b, "&quot;");
            break;
        default:
            rl__sbuf_printf(b, "%c", c < 0x20 || c == 0x7f ? '?' : (char)c);
        }
    }
}

void rl__sbuf_comment_str(rl__sbuf *b, const char *s)
{
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        rl__sbuf_printf(b, "%c", c < 0x20 || c == 0x7f ? '?' : (char)c);
    }
}

const char *rl__brief(const char *path, char *buf)
{
    size_t n = strlen(path);
    if (n < RL__BRIEF_MAX) return path;
    size_t head = 60, tail = RL__BRIEF_MAX - 1 - head - 3;
    memcpy(buf, path, head);
    memcpy(buf + head, "...", 3);
    memcpy(buf + head + 3, path + n - tail, tail + 1);
    return buf;
}

void rl__sbuf_free(rl__sbuf *b)
{
    free(b->data);
    memset(b, 0, sizeof *b);
}
