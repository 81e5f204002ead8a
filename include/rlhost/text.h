/* Writing an env's text frame (the render of rl.env.render/1) into the
   caller's buffer: printf-style appends bounded by its capacity.  Once the
   buffer is full the rest is dropped and the frame stays NUL-terminated; a
   formatting error is remembered and ends the frame as RL_EIO. */
#ifndef RLHOST_TEXT_H
#define RLHOST_TEXT_H

#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>

#include <rlhost/plugin.h>

typedef struct rl_text {
    char *buf;
    size_t cap;
    size_t len; /* bytes written, at most cap - 1 */
    int failed; /* a formatting error */
} rl_text;

static inline rl_text rl_text_begin(char *buf, size_t cap)
{
    rl_text t;
    t.buf = buf;
    t.cap = cap;
    t.len = 0;
    t.failed = 0;
    if (cap) buf[0] = '\0';
    return t;
}

#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
static inline void
rl_text_put(rl_text *t, const char *fmt, ...)
{
    if (t->failed || t->len + 1 >= t->cap) return; /* full, or no room at all */
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(t->buf + t->len, t->cap - t->len, fmt, ap);
    va_end(ap);
    if (n < 0) {
        t->failed = 1;
        return;
    }
    size_t room = t->cap - t->len - 1;
    t->len += (size_t)n < room ? (size_t)n : room;
}

/* What render returns: the frame's length, or RL_EIO. */
static inline int rl_text_end(const rl_text *t)
{
    return t->failed ? RL_EIO : (int)t->len;
}

#endif
