#ifndef RLHOST_WEB_MATH_H
#define RLHOST_WEB_MATH_H
/* Declared for <rlhost/rlcore.h>'s inline helpers, which the web build
   does not call; an exported policy built with -DRLHOST_NO_LIBM brings its
   own expf and tanhf. */
double sqrt(double x);
double log(double x);
double cos(double x);
#endif
