#ifndef RLHOST_WEB_STDIO_H
#define RLHOST_WEB_STDIO_H
#include <stdarg.h>
#include <stddef.h>
/* %s %c %d %i %u %x %% (libc.c): what text frames and messages use. */
int snprintf(char *buf, size_t n, const char *fmt, ...);
int vsnprintf(char *buf, size_t n, const char *fmt, va_list ap);
#endif
