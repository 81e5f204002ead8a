/* The C library the web build links against: only what an env plugin and
   an exported policy call, for a freestanding wasm32 target (libc.c). */
#ifndef RLHOST_WEB_STRING_H
#define RLHOST_WEB_STRING_H
#include <stddef.h>
void *memcpy(void *dst, const void *src, size_t n);
void *memmove(void *dst, const void *src, size_t n);
void *memset(void *dst, int c, size_t n);
int memcmp(const void *a, const void *b, size_t n);
size_t strlen(const char *s);
int strcmp(const char *a, const char *b);
int strncmp(const char *a, const char *b, size_t n);
#endif
