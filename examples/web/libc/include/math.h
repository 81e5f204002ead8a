#ifndef RLHOST_WEB_MATH_H
#define RLHOST_WEB_MATH_H
/* What WebAssembly computes in one instruction, for <rlhost/raster.h>'s
   drawing; sqrt, log and cos are declared for <rlhost/rlcore.h>'s inline
   helpers, which an env may use to draw (sqrt) but the web build does not
   otherwise call.  An exported policy built with -DRLHOST_NO_LIBM brings
   its own expf and tanhf. */
#define ceil(x) __builtin_ceil(x)
#define floor(x) __builtin_floor(x)
#define fmin(x, y) __builtin_fmin(x, y)
#define fmax(x, y) __builtin_fmax(x, y)
#define fabs(x) __builtin_fabs(x)
#define fabsf(x) __builtin_fabsf(x)
#define sqrt(x) __builtin_sqrt(x)
#define sqrtf(x) __builtin_sqrtf(x)
double log(double x);
double cos(double x);
#endif
