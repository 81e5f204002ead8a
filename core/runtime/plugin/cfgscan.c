/* Config reading and @include expansion; see cfgscan.h. */
#define _GNU_SOURCE
#include "plugin/cfgscan.h"
#include "base/files.h"
#include "base/text.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <linux/magic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#ifndef CGROUP2_SUPER_MAGIC
#define CGROUP2_SUPER_MAGIC 0x63677270
#endif
#ifndef TRACEFS_MAGIC
#define TRACEFS_MAGIC 0x74726163
#endif

/* Kernel file systems whose "regular files" are interfaces: a read may
   block (/proc/kmsg) or never end. */
static int pseudo_fs(long type)
{
    static const long kinds[] = {PROC_SUPER_MAGIC,   SYSFS_MAGIC,        DEBUGFS_MAGIC,       TRACEFS_MAGIC,
                                 SECURITYFS_MAGIC,   CGROUP_SUPER_MAGIC, CGROUP2_SUPER_MAGIC, BPF_FS_MAGIC,
                                 DEVPTS_SUPER_MAGIC, PSTOREFS_MAGIC,     EFIVARFS_MAGIC};
    for (size_t i = 0; i < sizeof kinds / sizeof *kinds; i++)
        if (type == kinds[i]) return 1;
    return 0;
}

/* The whole file at path, at most `room` bytes; NULL with a sentence
   starting with `label` (what the reader calls the file) in errors. */
static char *read_file(const char *path, size_t room, const char *label, rl__sbuf *errors, size_t *len_out)
{
    struct stat st;
    struct statfs sf;
    int fd = rl__open_regular(AT_FDCWD, path, 0, &st);
    if (fd == RL__NOT_REGULAR) {
        rl__sbuf_printf(errors, "%s: not a regular file\n", label);
        return NULL;
    }
    if (fd < 0) {
        rl__sbuf_printf(errors, "%s: cannot open: %s\n", label, strerror(errno));
        return NULL;
    }
    const char *why = NULL;
    if (fstatfs(fd, &sf) == 0 && pseudo_fs((long)sf.f_type))
        why = "a kernel interface file, not a config";
    else if ((size_t)st.st_size > room)
        why = "larger than what is left of the 16 MiB a config may read";
    if (why) {
        close(fd);
        rl__sbuf_printf(errors, "%s: %s\n", label, why);
        return NULL;
    }
    size_t cap = (size_t)st.st_size + 1, len = 0;
    char *buf = malloc(cap + 1);
    ssize_t got = 0;
    while (buf && len < cap && (got = read(fd, buf + len, cap - len)) != 0) {
        if (got < 0 && errno == EINTR) continue;
        if (got < 0) break;
        len += (size_t)got;
    }
    close(fd);
    if (!buf || got < 0 || len > (size_t)st.st_size) { /* grew while read: not a plain file */
        free(buf);
        rl__sbuf_printf(errors, "%s: cannot read it (%s)\n", label,
                        !buf          ? "out of memory"
                            : got < 0 ? strerror(errno)
                                      : "it grew while being read");
        return NULL;
    }
    buf[len] = 0;
    *len_out = len;
    return buf;
}

typedef struct expander {
    rl__cfg_text *t;
    rl__sbuf *errors;
    int problems;
    unsigned out_line; /* the expanded text's current line (1-based) */
} expander;

static void seg(expander *x, const char *file, unsigned file_line)
{
    rl__cfg_text *t = x->t;
    if (t->n_segs == t->cap_segs) {
        size_t cap = t->cap_segs ? 2 * t->cap_segs : 8;
        rl__cfg_seg *s = realloc(t->segs, cap * sizeof *s);
        if (!s) {
            x->t->text.oom = 1;
            return;
        }
        t->segs = s;
        t->cap_segs = cap;
    }
    t->segs[t->n_segs++] = (rl__cfg_seg){x->out_line, file_line, file};
}

static void problem(expander *x, const char *file, unsigned line, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void problem(expander *x, const char *file, unsigned line, const char *fmt, ...)
{
    rl__sbuf_printf(x->errors, "%s:%u: ", file, line);
    va_list ap;
    va_start(ap, fmt);
    rl__sbuf_vprintf(x->errors, fmt, ap);
    va_end(ap);
    rl__sbuf_puts(x->errors, "\n");
    x->problems++;
}

/* An integer literal at p (a token start): flags it when it does not fit
   32 bits and has no L suffix.  Returns the end of the number. */
static const char *number(expander *x, const char *file, const char *p, unsigned line)
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
        if (wide == 2) problem(x, file, line, "integer %.*s does not fit in 64 bits", (int)(p - start), start);
        return p + 1;
    }
    if (wide)
        problem(x, file, line, "integer %.*s does not fit in 32 bits and libconfig would truncate it; write %.*sL",
                (int)(p - start), start, (int)(p - start), start);
    return p;
}

static void expand(expander *x, const char *file, const char *dir, const char *text, int depth);

/* @include "name" at line `line` of file (dir NULL: includes refused). */
static void include(expander *x, const char *file, const char *dir, const char *name, size_t nlen, unsigned line,
                    int depth)
{
    if (!dir) {
        problem(x, file, line,
                "@include \"%.*s\": not followed in a config that does not come from a file "
                "(a checkpoint's or the API's)",
                (int)nlen, name);
        return;
    }
    if (depth + 1 > RL__CFG_MAX_DEPTH) {
        problem(x, file, line, "@include nested deeper than %d files", RL__CFG_MAX_DEPTH);
        return;
    }
    if (x->t->n_files >= RL__CFG_MAX_FILES) {
        problem(x, file, line,
                "@include \"%.*s\": this config reads more than %d files in all (includes that "
                "multiply?)",
                (int)nlen, name, RL__CFG_MAX_FILES);
        return;
    }
    char path[4096];
    int n = name[0] == '/' ? snprintf(path, sizeof path, "%.*s", (int)nlen, name)
                           : snprintf(path, sizeof path, "%s/%.*s", dir, (int)nlen, name);
    if (n < 0 || (size_t)n >= sizeof path) {
        problem(x, file, line, "@include: the path is too long");
        return;
    }
    char where[4200];
    snprintf(where, sizeof where, "%s:%u: @include \"%.*s\"", file, line, (int)nlen, name);
    size_t len = 0;
    char *inner = read_file(path, RL__CFG_MAX_BYTES - x->t->bytes, where, x->errors, &len);
    if (!inner) {
        x->problems++;
        return;
    }
    x->t->bytes += len;
    char **files = realloc(x->t->files, (x->t->n_files + 1) * sizeof *files);
    char *kept = strdup(path);
    if (!files || !kept) {
        free(kept);
        if (files) x->t->files = files;
        free(inner);
        problem(x, file, line, "out of memory");
        return;
    }
    x->t->files = files;
    files[x->t->n_files++] = kept;
    /* libconfig resolves nested includes against the top config's directory */
    expand(x, kept, dir, inner, depth + 1);
    free(inner);
    if (x->t->text.len && x->t->text.data[x->t->text.len - 1] != '\n') {
        rl__sbuf_puts(&x->t->text, "\n");
        x->out_line++;
    }
    seg(x, file, line); /* the rest of the directive's line */
}

static void emit(expander *x, const char *p, size_t n)
{
    rl__sbuf_append(&x->t->text, p, n);
    for (size_t i = 0; i < n; i++) x->out_line += p[i] == '\n';
}

static void expand(expander *x, const char *file, const char *dir, const char *p, int depth)
{
    unsigned line = 1;
    int token_start = 1, line_start = 1; /* only blanks since the line began */
    seg(x, file, 1);
    while (*p && x->problems < 20) {
        const char *from = p;
        char c = *p;
        if (c == '#' || (c == '/' && p[1] == '/')) {
            while (*p && *p != '\n') p++;
            token_start = 1;
        } else if (c == '/' && p[1] == '*') {
            for (p += 2; *p && !(p[0] == '*' && p[1] == '/'); p++) line += *p == '\n';
            p += *p ? 2 : 0;
            token_start = 1;
        } else if (c == '"') {
            for (p++; *p && *p != '"'; p++) {
                if (*p == '\\' && p[1]) p++;
                line += *p == '\n';
            }
            p += *p ? 1 : 0;
            token_start = 1;
        } else if (c == '@' && line_start && !strncmp(p, "@include", 8)) { /* as libconfig: at a line's start */
            const char *q = p + 8;
            while (*q == ' ' || *q == '\t') q++;
            const char *end = *q == '"' ? strchr(q + 1, '"') : NULL;
            if (end && !memchr(q, '\n', (size_t)(end - q))) {
                include(x, file, dir, q + 1, (size_t)(end - q - 1), line, depth);
                p = end + 1;
                continue;
            }
            p += 8;
        } else if (token_start && isdigit((unsigned char)c)) {
            p = number(x, file, p, line);
            token_start = 0;
        } else {
            token_start = !(isalnum((unsigned char)c) || c == '_' || c == '.');
            line += c == '\n';
            p++;
        }
        line_start = c == '\n' || (line_start && (c == ' ' || c == '\t'));
        emit(x, from, (size_t)(p - from));
        if (p > from && p[-1] == '\n') line_start = 1;
    }
}

int rl__cfg_expand(rl__cfg_text *t, const char *path, const char *text, rl__sbuf *errors)
{
    memset(t, 0, sizeof *t);
    expander x = {t, errors, 0, 1};
    char *owned = NULL, *dir = NULL;
    if (!text) {
        size_t len = 0;
        if (!(owned = read_file(path, RL__CFG_MAX_BYTES, path, errors, &len))) return 1;
        t->bytes = len;
        char *copy = strdup(path);
        dir = copy ? strdup(dirname(copy)) : NULL;
        free(copy);
        if (!dir) {
            free(owned);
            rl__sbuf_puts(errors, "out of memory\n");
            return 1;
        }
        text = owned;
    }
    expand(&x, path, dir, text, 0);
    free(owned);
    free(dir);
    if (t->text.oom) {
        rl__sbuf_puts(errors, "out of memory reading the config\n");
        x.problems++;
    }
    if (!t->text.data) rl__sbuf_puts(&t->text, "");
    return x.problems;
}

void rl__cfg_where(const rl__cfg_text *t, unsigned line, const char **file, unsigned *file_line)
{
    *file = NULL;
    *file_line = line;
    for (size_t i = 0; i < t->n_segs && t->segs[i].line <= line; i++) {
        *file = t->segs[i].file;
        *file_line = t->segs[i].file_line + (line - t->segs[i].line);
    }
}

void rl__cfg_text_free(rl__cfg_text *t)
{
    rl__sbuf_free(&t->text);
    free(t->segs);
    for (size_t i = 0; i < t->n_files; i++) free(t->files[i]);
    free(t->files);
    memset(t, 0, sizeof *t);
}
