/* Config pre-scan; see cfgscan.h. */
#define _GNU_SOURCE
#include "cfgscan.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define MAX_CONFIG_BYTES (16u << 20)
#define MAX_INCLUDE_DEPTH 10 /* libconfig's own limit */

char *rl__cfg_slurp(const char *path, rl__sbuf *errors)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        rl__sbuf_printf(errors, "%s: cannot open: %s\n", path, strerror(errno));
        return NULL;
    }
    size_t cap = 4096, len = 0;
    char *buf = malloc(cap);
    for (size_t got; buf && (got = fread(buf + len, 1, cap - 1 - len, f)) > 0;) {
        len += got;
        if (len + 1 == cap) {
            char *b = cap < MAX_CONFIG_BYTES ? realloc(buf, cap * 2) : NULL;
            if (!b) {
                free(buf);
                buf = NULL;
            }
            buf = b;
            cap *= 2;
        }
    }
    int bad = ferror(f);
    fclose(f);
    if (!buf || bad) {
        free(buf);
        rl__sbuf_printf(errors, "%s: cannot read it (%s)\n", path,
                        bad ? "read error" : "larger than 16 MiB or out of memory");
        return NULL;
    }
    buf[len] = 0;
    return buf;
}

typedef struct scan {
    const char *file, *dir;
    rl__sbuf *errors;
    int depth, problems;
} scan;

static int scan_text(scan *s, const char *text);

static void include(scan *s, const char *p, const char *end, unsigned line)
{
    char path[4096];
    int n = p[0] == '/' || !s->dir ? snprintf(path, sizeof path, "%.*s", (int)(end - p), p)
                                   : snprintf(path, sizeof path, "%s/%.*s", s->dir, (int)(end - p), p);
    if (n < 0 || (size_t)n >= sizeof path) return;
    struct stat st;
    if (stat(path, &st) != 0) return; /* libconfig says it is missing */
    if (!S_ISREG(st.st_mode)) {
        rl__sbuf_printf(s->errors, "%s:%u: @include \"%.*s\": not a regular file\n", s->file, line,
                        (int)(end - p), p);
        s->problems++;
        return;
    }
    if (s->depth + 1 > MAX_INCLUDE_DEPTH) {
        rl__sbuf_printf(s->errors, "%s:%u: @include nested deeper than %d files\n", s->file, line,
                        MAX_INCLUDE_DEPTH);
        s->problems++;
        return;
    }
    char *text = rl__cfg_slurp(path, s->errors);
    if (!text) {
        s->problems++;
        return;
    }
    scan inner = {path, s->dir, s->errors, s->depth + 1, 0};
    s->problems += scan_text(&inner, text);
    free(text);
}

/* An integer literal at p (a token start): flags it when it does not fit
   32 bits and has no L suffix.  Returns the end of the number. */
static const char *number(scan *s, const char *p, unsigned line)
{
    const char *start = p;
    int hex = p[0] == '0' && (p[1] == 'x' || p[1] == 'X');
    unsigned long long v = 0;
    int wide = 0;
    if (hex) {
        for (p += 2; isxdigit((unsigned char)*p); p++) {
            if (v >> 60) wide = 2;
            v = v * 16 + (unsigned)(isdigit((unsigned char)*p) ? *p - '0' : (*p | 32) - 'a' + 10);
        }
    } else {
        for (; isdigit((unsigned char)*p); p++) {
            if (v > (~0ull - 9) / 10) wide = 2;
            v = v * 10 + (unsigned)(*p - '0');
        }
        if (*p == '.' || *p == 'e' || *p == 'E') { /* a float */
            while (isalnum((unsigned char)*p) || *p == '.' || *p == '+' || *p == '-') p++;
            return p;
        }
    }
    if (!wide && v > 0x7fffffffull) wide = 1;
    if (*p == 'L') {
        if (wide == 2) {
            rl__sbuf_printf(s->errors, "%s:%u: integer %.*s does not fit in 64 bits\n", s->file, line,
                            (int)(p - start), start);
            s->problems++;
        }
        return p + 1;
    }
    if (wide) {
        rl__sbuf_printf(s->errors,
                        "%s:%u: integer %.*s does not fit in 32 bits and libconfig would truncate it; "
                        "write %.*sL\n",
                        s->file, line, (int)(p - start), start, (int)(p - start), start);
        s->problems++;
    }
    return p;
}

static int scan_text(scan *s, const char *p)
{
    unsigned line = 1;
    int token_start = 1; /* the previous character cannot continue a name or number */
    while (*p) {
        char c = *p;
        if (c == '\n') line++;
        if (c == '#' || (c == '/' && p[1] == '/')) {
            while (*p && *p != '\n') p++;
            token_start = 1;
        } else if (c == '/' && p[1] == '*') {
            for (p += 2; *p && !(p[0] == '*' && p[1] == '/'); p++)
                if (*p == '\n') line++;
            p += *p ? 2 : 0;
            token_start = 1;
        } else if (c == '"') {
            for (p++; *p && *p != '"'; p++) {
                if (*p == '\\' && p[1]) p++;
                if (*p == '\n') line++;
            }
            p += *p ? 1 : 0;
            token_start = 1;
        } else if (c == '@' && !strncmp(p, "@include", 8)) {
            const char *q = p + 8;
            while (*q == ' ' || *q == '\t') q++;
            if (*q == '"') {
                const char *end = strchr(q + 1, '"');
                if (end) {
                    include(s, q + 1, end, line);
                    p = end + 1;
                    continue;
                }
            }
            p += 8;
        } else if (token_start && isdigit((unsigned char)c)) {
            p = number(s, p, line);
            token_start = 0;
        } else {
            token_start = !(isalnum((unsigned char)c) || c == '_' || c == '.');
            p++;
        }
    }
    return s->problems;
}

int rl__cfg_scan(const char *file, const char *text, const char *include_dir, rl__sbuf *errors)
{
    scan s = {file, include_dir, errors, 0, 0};
    return scan_text(&s, text);
}
