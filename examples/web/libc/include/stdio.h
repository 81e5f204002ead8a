#ifndef RLHOST_WEB_STDIO_H
#define RLHOST_WEB_STDIO_H
#include <stdarg.h>
#include <stddef.h>
/* Formats nothing: the web build never prints (the rules' state checks,
   which format their reasons, are not called there); writes "". */
int snprintf(char *buf, size_t n, const char *fmt, ...);
#endif
