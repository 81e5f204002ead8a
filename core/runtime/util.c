/* Host-internal helpers; see util.h. */
#define _GNU_SOURCE
#include "util.h"

#include <math.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rlhost/rlcore.h>

struct rl__arena_block {
    rl__arena_block *next;
    size_t used, cap;
    _Alignas(16) unsigned char data[];
};

void *rl__arena_alloc(rl__arena *a, size_t bytes)
{
    bytes = (bytes + 15) & ~(size_t)15;
    rl__arena_block *b = a->head;
    if (!b || b->cap - b->used < bytes) {
        size_t cap = bytes > 4096 ? bytes : 4096;
        b = malloc(sizeof *b + cap);
        if (!b) return NULL;
        b->next = a->head;
        b->used = 0;
        b->cap = cap;
        a->head = b;
    }
    void *p = b->data + b->used;
    b->used += bytes;
    memset(p, 0, bytes);
    return p;
}

char *rl__arena_strdup(rl__arena *a, const char *s)
{
    size_t n = strlen(s) + 1;
    char *p = rl__arena_alloc(a, n);
    if (p) memcpy(p, s, n);
    return p;
}

void rl__arena_free(rl__arena *a)
{
    rl__arena_block *b = a->head;
    while (b) {
        rl__arena_block *next = b->next;
        free(b);
        b = next;
    }
    a->head = NULL;
}

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
    if (b->oom) fprintf(stderr, "rlhost: out of memory\n");
    else fputs(b->data, stdout);
    rl__sbuf_free(b);
}

void rl__sbuf_xml_str(rl__sbuf *b, const char *s)
{
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        switch (c) {
        case '&': rl__sbuf_puts(b, "&amp;"); break;
        case '<': rl__sbuf_puts(b, "&lt;"); break;
        case '>': rl__sbuf_puts(b, "&gt;"); break;
        case '\'': rl__sbuf_puts(b, "&apos;"); break;
        case '"': rl__sbuf_puts(b, "&quot;"); break;
        default: rl__sbuf_printf(b, "%c", c < 0x20 || c == 0x7f ? '?' : (char)c);
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

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double rl__median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

size_t rl__edit_distance(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    if (la > 64 || lb > 64) return (size_t)-1;
    size_t row[65];
    for (size_t j = 0; j <= lb; j++) row[j] = j;
    for (size_t i = 1; i <= la; i++) {
        size_t prev = row[0];
        row[0] = i;
        for (size_t j = 1; j <= lb; j++) {
            size_t cur = row[j];
            size_t sub = prev + (a[i - 1] != b[j - 1]);
            size_t del = row[j] + 1, ins = row[j - 1] + 1;
            row[j] = sub < del ? (sub < ins ? sub : ins) : (del < ins ? del : ins);
            prev = cur;
        }
    }
    return row[lb];
}

const char *rl__nearest(const char *s, const char *const *names, size_t n)
{
    const char *best = NULL;
    size_t best_d = (size_t)-1;
    for (size_t i = 0; i < n; i++) {
        size_t d = rl__edit_distance(s, names[i]);
        if (d < best_d) {
            best_d = d;
            best = names[i];
        }
    }
    /* Suggest only plausible typos: a third of the length, at least 2. */
    size_t len = strlen(s);
    size_t limit = len / 3 > 2 ? len / 3 : 2;
    return best_d <= limit ? best : NULL;
}

static rl_log_level g_log_level = RL_LOG_INFO;

rl_log_level rl__log_get_level(void) { return g_log_level; }

void rl__log_set_level(rl_log_level max_level)
{
    g_log_level = max_level;
}

static rl__log_sink g_log_sink;
static void *g_log_ctx;
static char *g_capture;
static size_t g_capture_cap;

void rl__log_capture(char *buf, size_t cap)
{
    g_capture = cap ? buf : NULL;
    g_capture_cap = cap;
    if (g_capture) g_capture[0] = 0;
}

void rl__log_set_sink(rl__log_sink sink, void *ctx)
{
    g_log_sink = sink;
    g_log_ctx = ctx;
}

static void host_vlog(rl_log_level level, const char *who, const char *fmt,
                      va_list ap)
{
    if (level > g_log_level) return;
    static const char *const tag[] = {"error", "warning", "info", "debug"};
    char line[1024];
    vsnprintf(line, sizeof line, fmt, ap);
    if (level == RL_LOG_ERROR && g_capture && !g_capture[0])
        snprintf(g_capture, g_capture_cap, "%s%s%s", who ? who : "", who ? ": " : "", line);
    if (g_log_sink) {
        char msg[1100];
        snprintf(msg, sizeof msg, "%s%s%s", who ? who : "", who ? ": " : "", line);
        g_log_sink(g_log_ctx, (int)level, msg);
    } else if (level <= RL_LOG_WARN)
        fprintf(stderr, "rlhost: %s%s%s: %s\n", who ? who : "", who ? ": " : "",
                tag[level], line);
    else
        fprintf(stderr, "%s%s%s\n", who ? who : "", who ? ": " : "", line);
}

void rl__log(rl_log_level level, const char *who, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    host_vlog(level, who, fmt, ap);
    va_end(ap);
}

static uint32_t host_cpu_count(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) == 0) {
        int c = CPU_COUNT(&set);
        if (c > 0 && (n <= 0 || c < n)) n = c;
    }
    return n > 0 ? (uint32_t)n : 1;
}

static const rl_host_api g_host_api = {
    sizeof(rl_host_api), {RL_ABI_MAJOR, RL_ABI_MINOR}, rl__log,
    host_cpu_count,      rl_strerror,
};

const rl_host_api *rl__host_api(void)
{
    return &g_host_api;
}
