#ifndef RLHOST_WEB_MATH_H
#define RLHOST_WEB_MATH_H
/* What WebAssembly computes in one instruction (<rlhost/raster.h>'s
   drawing, the tree search's exploration), and the elementary functions
   libc.c computes for the tree search's root noise and sampled moves and
   for librlcore's distributions (the game page uses their softmax; the
   noise, the draws and the rest it does not use).  An exported policy built with -DRLHOST_NO_LIBM brings its
   own expf and tanhf. */
#define ceil(x) __builtin_ceil(x)
#define floor(x) __builtin_floor(x)
#define fmin(x, y) __builtin_fmin(x, y)
#define fmax(x, y) __builtin_fmax(x, y)
#define fabs(x) __builtin_fabs(x)
#define fabsf(x) __builtin_fabsf(x)
#define sqrt(x) __builtin_sqrt(x)
#define sqrtf(x) __builtin_sqrtf(x)
#define isfinite(x) __builtin_isfinite(x)
#define INFINITY __builtin_inff()
double log(double x);
double cos(double x);
double exp(double x);
double pow(double x, double y);
float expf(float x);
float logf(float x);
float tanhf(float x);
#endif
