/* Checks the files an MJCF model names; see model_files.h. */
#define _GNU_SOURCE /* O_CLOEXEC, S_ISSOCK */
#include "model_files.h"

#include <ctype.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAX_DEPTH 8         /* includes within includes */
#define MAX_FILES 4096      /* file= attributes looked at, in all */
#define MAX_BYTES (1 << 30) /* an MJCF file read to scan it */

typedef struct scan {
    char dir[4096];           /* the model's directory: relative names start there */
    char asset_dirs[3][1024]; /* <compiler meshdir, texturedir, assetdir> */
    int files, slot;          /* slot: which of asset_dirs the next value sets */
    char *why;
    size_t n;
} scan;

static const char *kind_of(mode_t mode)
{
    return S_ISFIFO(mode)                ? "a FIFO"
        : S_ISDIR(mode)                  ? "a directory"
        : S_ISCHR(mode) || S_ISBLK(mode) ? "a device"
        : S_ISSOCK(mode)                 ? "a socket"
                                         : "not a file";
}

/* -1 (with why) when path exists and is not a regular file; 1 when it is
   one; 0 when it does not exist (or cannot be looked at). */
static int regular(scan *s, const char *from, const char *path)
{
    struct stat st;
    if (stat(path, &st) != 0) return 0;
    if (S_ISREG(st.st_mode)) return 1;
    if (from)
        snprintf(s->why, s->n, "%s names %s, which is not a regular file (%s)", from, path, kind_of(st.st_mode));
    else
        snprintf(s->why, s->n, "%s is not a regular file (%s)", path, kind_of(st.st_mode));
    return -1;
}

/* The file's text (NUL-terminated), or NULL. */
static char *slurp(const char *path)
{
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) return NULL;
    struct stat st;
    char *text = NULL;
    if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size < MAX_BYTES &&
        (text = malloc((size_t)st.st_size + 1))) {
        size_t got = 0;
        ssize_t r;
        while (got < (size_t)st.st_size && (r = read(fd, text + got, (size_t)st.st_size - got)) > 0) got += (size_t)r;
        text[got] = 0;
    }
    close(fd);
    return text;
}

/* One code point as UTF-8 into out; its length. */
static size_t utf8(unsigned long c, char *out)
{
    if (c < 0x80) return out[0] = (char)c, 1;
    if (c < 0x800) return out[0] = (char)(0xC0 | c >> 6), out[1] = (char)(0x80 | (c & 0x3F)), 2;
    if (c < 0x10000) {
        out[0] = (char)(0xE0 | c >> 12), out[1] = (char)(0x80 | ((c >> 6) & 0x3F));
        out[2] = (char)(0x80 | (c & 0x3F));
        return 3;
    }
    out[0] = (char)(0xF0 | c >> 18), out[1] = (char)(0x80 | ((c >> 12) & 0x3F));
    out[2] = (char)(0x80 | ((c >> 6) & 0x3F)), out[3] = (char)(0x80 | (c & 0x3F));
    return 4;
}

/* An attribute value as MuJoCo's XML parser (TinyXML-2) hands it over, in
   place: the five predefined entities and character references (&#102;,
   &#x66;) decoded, CR LF as LF.  Anything else stays as written, as it
   does there: a name that only looks like a file must be the name that
   is opened. */
static void xml_decode(char *s)
{
    static const struct {
        const char *name;
        char c;
    } named[] = {{"amp;", '&'}, {"lt;", '<'}, {"gt;", '>'}, {"quot;", '"'}, {"apos;", '\''}};
    char *w = s;
    for (const char *r = s; *r;) {
        if (r[0] == '\r' && r[1] == '\n') {
            r++;
            continue;
        }
        if (*r != '&') {
            *w++ = *r++;
            continue;
        }
        size_t k = 0;
        while (k < 5 && strncmp(r + 1, named[k].name, strlen(named[k].name))) k++;
        if (k < 5) {
            *w++ = named[k].c;
            r += 1 + strlen(named[k].name);
            continue;
        }
        if (r[1] == '#') {
            int hex = r[2] == 'x';
            const char *d = r + 2 + hex, *e = d;
            unsigned long c = 0;
            while (hex ? isxdigit((unsigned char)*e) : isdigit((unsigned char)*e)) {
                int v = isdigit((unsigned char)*e) ? *e - '0' : (tolower((unsigned char)*e) - 'a' + 10);
                c = c * (hex ? 16u : 10u) + (unsigned long)v;
                if (c > 0x10FFFF) break;
                e++;
            }
            if (e > d && *e == ';' && c && c <= 0x10FFFF) {
                w += utf8(c, w); /* never longer than the reference it replaces */
                r = e + 1;
                continue;
            }
        }
        *w++ = *r++;
    }
    *w = 0;
}

/* The value of attribute NAME at p (just past the name), decoded, or 0
   when p is not `= "value"` or the value cannot name a path: into out. */
static int attr_value(const char *p, char *out, size_t cap)
{
    while (isspace((unsigned char)*p)) p++;
    if (*p++ != '=') return 0;
    while (isspace((unsigned char)*p)) p++;
    char q = *p++;
    if (q != '"' && q != '\'') return 0;
    const char *end = strchr(p, q);
    if (!end) return 0;
    size_t len = (size_t)(end - p);
    char *raw = malloc(len + 1);
    if (!raw) return 0;
    memcpy(raw, p, len);
    raw[len] = 0;
    xml_decode(raw); /* a long reference-laden value may decode to a short name */
    int fits = strlen(raw) < cap;
    if (fits) memcpy(out, raw, strlen(raw) + 1);
    free(raw);
    return fits;
}

/* Every occurrence of ` NAME=` in text: calls back with its value and
   whether it sits in an <include> tag. */
static int each_attr(scan *s, const char *text, const char *name, int depth, const char *from,
                     int (*fn)(scan *, const char *value, int include, int depth, const char *from))
{
    size_t len = strlen(name);
    for (const char *p = strstr(text, name); p; p = strstr(p + len, name)) {
        if (p == text || !isspace((unsigned char)p[-1])) continue;
        char value[4096];
        if (!attr_value(p + len, value, sizeof value)) continue;
        const char *lt = p;
        while (lt > text && *lt != '<') lt--;
        int include = !strncmp(lt, "<include", 8) && isspace((unsigned char)lt[8]);
        if (fn(s, value, include, depth, from)) return -1;
    }
    return 0;
}

static int check_file(const char *path, scan *s, int depth);

static int one_file(scan *s, const char *value, int include, int depth, const char *from)
{
    if (++s->files > MAX_FILES) return 0; /* a model that names this many: MuJoCo's to judge */
    char path[8192];
    const char *dirs[4] = {"", s->asset_dirs[0], s->asset_dirs[1], s->asset_dirs[2]};
    for (int k = 0; k < (include ? 1 : 4); k++) {
        if (k && !dirs[k][0]) continue;
        if (value[0] == '/')
            snprintf(path, sizeof path, "%s", value);
        else if (dirs[k][0] == '/')
            snprintf(path, sizeof path, "%s/%s", dirs[k], value);
        else
            snprintf(path, sizeof path, "%s/%s%s%s", s->dir, dirs[k], dirs[k][0] ? "/" : "", value);
        int r = regular(s, from, path);
        if (r < 0) return -1;
        if (r > 0 && include) return check_file(path, s, depth + 1);
    }
    return 0;
}

static int asset_dir(scan *s, const char *value, int include, int depth, const char *from)
{
    (void)include, (void)depth, (void)from;
    snprintf(s->asset_dirs[s->slot], sizeof s->asset_dirs[s->slot], "%s", value);
    return 0;
}

static int check_file(const char *path, scan *s, int depth)
{
    if (depth > MAX_DEPTH) return 0; /* MuJoCo refuses deep includes itself */
    char *text = slurp(path);
    if (!text) return 0;
    static const char *const dir_attrs[3] = {"meshdir", "texturedir", "assetdir"};
    for (s->slot = 0; s->slot < 3; s->slot++) each_attr(s, text, dir_attrs[s->slot], depth, path, asset_dir);
    int rc = each_attr(s, text, "file", depth, path, one_file);
    free(text);
    return rc ? -1 : 0;
}

int mj_model_files_check(const char *path, char *why, size_t n)
{
    scan s = {.why = why, .n = n};
    int r = regular(&s, NULL, path);
    if (r <= 0) return r; /* -1 with why; 0: missing, which MuJoCo's own message names */
    const char *slash = strrchr(path, '/');
    if (slash)
        snprintf(s.dir, sizeof s.dir, "%.*s", (int)(slash - path), path);
    else
        snprintf(s.dir, sizeof s.dir, ".");
    return check_file(path, &s, 0);
}
