/* Minimal TAP for rlhost tests: each check prints "ok N - what" or
   "not ok N - what" with both values; tap_done() prints the plan and
   returns the exit code. */
#ifndef RLHOST_TAP_H
#define RLHOST_TAP_H

#include <math.h>
#include <stdio.h>
#include <string.h>

static int tap_count, tap_failed;

static inline int tap_ok(int cond, const char *what, const char *file, int line)
{
    tap_count++;
    printf("%sok %d - %s\n", cond ? "" : "not ", tap_count, what);
    if (!cond) {
        tap_failed++;
        printf("#   at %s:%d\n", file, line);
    }
    fflush(stdout);
    return cond;
}

#define OK(cond, what) tap_ok(!!(cond), what, __FILE__, __LINE__)

#define ASSERT_EQ(a, b, what)                                                     \
    do {                                                                          \
        long long a_ = (long long)(a), b_ = (long long)(b);                       \
        if (!OK(a_ == b_, what)) printf("#   got %lld, expected %lld\n", a_, b_); \
    } while (0)

#define ASSERT_NEAR(a, b, tol, what)                                                   \
    do {                                                                               \
        double a_ = (double)(a), b_ = (double)(b);                                     \
        if (!OK(fabs(a_ - b_) <= (tol), what))                                         \
            printf("#   got %.17g, expected %.17g (tol %g)\n", a_, b_, (double)(tol)); \
    } while (0)

#define ASSERT_CONTAINS(hay, needle, what)                                                                       \
    do {                                                                                                         \
        const char *h_ = (hay), *n_ = (needle);                                                                  \
        if (!OK(h_ && strstr(h_, n_), what)) printf("#   '%s' does not contain '%s'\n", h_ ? h_ : "(null)", n_); \
    } while (0)

static inline int tap_done(void)
{
    printf("1..%d\n", tap_count);
    if (tap_failed) printf("# %d of %d failed\n", tap_failed, tap_count);
    return tap_failed ? 1 : 0;
}

#endif
