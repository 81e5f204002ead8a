#ifndef RLHOST_WEB_STDLIB_H
#define RLHOST_WEB_STDLIB_H
#include <stddef.h>
int abs(int x);
#endif
