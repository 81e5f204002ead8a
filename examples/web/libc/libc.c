/* The few C library functions the web build needs (see include/), for a
   wasm32 target without a C library: memory from a bump allocator over
   the module's growing memory (an env is created once and lives as long
   as the page, so free returns nothing), strings, and printf's family
   copying the format alone.  clang also emits calls to memcpy and memset
   for plain loops, as every freestanding C compiler may. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void *memcpy(void *dst, const void *src, size_t n)
{
    unsigned char *d = dst;
    const unsigned char *s = src;
    while (n--) *d++ = *s++;
    return dst;
}

void *memmove(void *dst, const void *src, size_t n)
{
    unsigned char *d = dst;
    const unsigned char *s = src;
    if (d < s)
        while (n--) *d++ = *s++;
    else
        while (n--) d[n] = s[n];
    return dst;
}

void *memset(void *dst, int c, size_t n)
{
    unsigned char *d = dst;
    while (n--) *d++ = (unsigned char)c;
    return dst;
}

int memcmp(const void *a, const void *b, size_t n)
{
    const unsigned char *x = a, *y = b;
    for (; n--; x++, y++)
        if (*x != *y) return *x < *y ? -1 : 1;
    return 0;
}

size_t strlen(const char *s)
{
    size_t n = 0;
    while (s[n]) n++;
    return n;
}

int abs(int x)
{
    return x < 0 ? -x : x;
}

/* printf's family for text frames and messages: %s %c %d %i %u %x %% with
   an optional width, '-' and '0' flags and the l, ll and z sizes; a
   floating-point conversion prints '?'. */
static void put(char *buf, size_t n, size_t *k, char c)
{
    if (*k + 1 < n) buf[*k] = c;
    (*k)++;
}

int vsnprintf(char *buf, size_t n, const char *fmt, va_list ap)
{
    size_t k = 0;
    for (; *fmt; fmt++) {
        char digits[24], *d = digits + sizeof digits;
        const char *str = NULL;
        int left = 0, zero = 0, longs = 0, neg = 0;
        unsigned long long u = 0;
        size_t width = 0, len = (size_t)-1;
        if (*fmt != '%') {
            put(buf, n, &k, *fmt);
            continue;
        }
        for (fmt++; *fmt == '-' || *fmt == '0'; fmt++) *fmt == '-' ? (left = 1) : (zero = 1);
        for (; *fmt >= '0' && *fmt <= '9'; fmt++) width = 10 * width + (size_t)(*fmt - '0');
        for (; *fmt == 'l' || *fmt == 'z'; fmt++) longs++;
        switch (*fmt) {
        case 's':
            str = va_arg(ap, const char *);
            if (!str) str = "(null)";
            break;
        case 'c':
            *--d = (char)va_arg(ap, int);
            str = d;
            len = 1; /* the character, even NUL */
            break;
        case 'd':
        case 'i': {
            long long v = longs >= 2 ? va_arg(ap, long long) : longs ? va_arg(ap, long) : va_arg(ap, int);
            neg = v < 0;
            u = neg ? 0ull - (unsigned long long)v : (unsigned long long)v;
        } /* fall through */
        case 'u':
        case 'x':
            if (*fmt == 'u' || *fmt == 'x')
                u = longs >= 2 ? va_arg(ap, unsigned long long)
                    : longs    ? va_arg(ap, unsigned long)
                               : va_arg(ap, unsigned);
            *--d = 0;
            do {
                unsigned r = (unsigned)(u % (*fmt == 'x' ? 16 : 10));
                *--d = (char)(r < 10 ? '0' + r : 'a' + r - 10);
                u /= *fmt == 'x' ? 16 : 10;
            } while (u);
            if (neg) *--d = '-';
            str = d;
            break;
        case 'f':
        case 'g':
        case 'e':
            (void)va_arg(ap, double);
            str = "?";
            break;
        case '%':
            str = "%";
            break;
        default:
            str = "";
            if (!*fmt) fmt--;
        }
        if (len == (size_t)-1) len = strlen(str);
        for (; !left && width > len; width--) put(buf, n, &k, zero ? '0' : ' ');
        for (size_t j = 0; j < len; j++) put(buf, n, &k, str[j]);
        for (; left && width > len; width--) put(buf, n, &k, ' ');
    }
    if (n) buf[k < n ? k : n - 1] = 0;
    return (int)k;
}

int snprintf(char *buf, size_t n, const char *fmt, ...)
{
    va_list ap;
    int k;
    va_start(ap, fmt);
    k = vsnprintf(buf, n, fmt, ap);
    va_end(ap);
    return k;
}

int strcmp(const char *a, const char *b)
{
    for (; *a && *a == *b; a++, b++) continue;
    return (unsigned char)*a - (unsigned char)*b;
}

int strncmp(const char *a, const char *b, size_t n)
{
    for (; n && *a && *a == *b; a++, b++, n--) continue;
    return n ? (unsigned char)*a - (unsigned char)*b : 0;
}

extern unsigned char __heap_base;
static size_t heap_top;

/* 64-byte aligned blocks, each after a header holding its size. */
void *malloc(size_t n)
{
    size_t start, end, pages;
    if (!heap_top) heap_top = (size_t)&__heap_base;
    start = (heap_top + 16 + 63) & ~(size_t)63;
    end = start + n;
    pages = (size_t)__builtin_wasm_memory_size(0);
    if (end > pages * 65536 && __builtin_wasm_memory_grow(0, (end - pages * 65536 + 65535) / 65536) == (size_t)-1)
        return NULL;
    ((size_t *)start)[-1] = n;
    heap_top = end;
    return (void *)start;
}

void *calloc(size_t count, size_t size)
{
    void *p;
    if (size && count > (size_t)-1 / size) return NULL;
    p = malloc(count * size);
    if (p) memset(p, 0, count * size);
    return p;
}

void *realloc(void *p, size_t n)
{
    void *q = malloc(n);
    size_t old = p ? ((size_t *)p)[-1] : 0;
    if (q && p) memcpy(q, p, old < n ? old : n);
    return q;
}

void free(void *p)
{
    (void)p;
}

/* The elementary functions of the tree search (core/rlcore/search/mcts.c
   draws its root noise and samples moves by visit counts with them) and of
   librlcore's distributions (core/rlcore/learn/dist.c: the page takes its
   masked softmax); what links must work even where the page does not call
   it: series after range reduction, within a few units in the last place. */
static double scale2(double x, int k) /* x 2^k */
{
    while (k > 1000) x *= 0x1p1000, k -= 1000;
    while (k < -1000) x *= 0x1p-1000, k += 1000;
    union {
        double d;
        unsigned long long u;
    } p = {.u = (unsigned long long)(1023 + k) << 52};
    return x * p.d;
}

double exp(double x)
{
    if (x != x) return x;
    if (x > 709.8) return __builtin_inf();
    if (x < -745.2) return 0.0;
    const double ln2_hi = 0x1.62e42fee00000p-1, ln2_lo = 0x1.a39ef35793c76p-33;
    double k = __builtin_nearbyint(x * 0x1.71547652b82fep0);
    double r = (x - k * ln2_hi) - k * ln2_lo, term = 1, sum = 1; /* |r| <= ln 2 / 2 */
    for (int n = 1; n < 20; n++) sum += term *= r / n;
    return scale2(sum, (int)k);
}

double log(double x)
{
    if (x != x || x < 0) return __builtin_nan("");
    if (x == 0) return -__builtin_inf();
    if (x == __builtin_inf()) return x;
    int e = 0;
    if (x < 0x1p-1000) x *= 0x1p54, e = -54; /* subnormal */
    union {
        double d;
        unsigned long long u;
    } p = {.d = x};
    e += (int)(p.u >> 52) - 1023;
    p.u = (p.u & ((1ull << 52) - 1)) | (1023ull << 52); /* m in [1, 2) */
    double m = p.d;
    if (m > 1.4142135623730951) m /= 2, e++;
    double f = (m - 1) / (m + 1), s = f * f, term = f, sum = 0; /* |f| <= 0.172 */
    for (int n = 1; n < 40; n += 2, term *= s) sum += term / n;
    return e * 0x1.62e42fefa39efp-1 + 2 * sum;
}

float logf(float x)
{
    return (float)log(x);
}

float expf(float x)
{
    return (float)exp(x);
}

float tanhf(float x)
{
    double a = x < 0 ? -(double)x : x, t = 1 - 2 / (exp(2 * a) + 1); /* exp(2a) = inf: 1 */
    return (float)(x < 0 ? -t : t);
}

double pow(double x, double y)
{
    if (y == 0 || x == 1) return 1;
    if (x != x || y != y) return x + y;
    if (x == 0) return y > 0 ? 0.0 : __builtin_inf();
    if (x < 0) {
        double i = __builtin_trunc(y);
        if (i != y) return __builtin_nan("");
        double r = exp(y * log(-x));
        return i != 2 * __builtin_trunc(i / 2) ? -r : r; /* an odd power of a negative */
    }
    return exp(y * log(x));
}

double cos(double x)
{
    if (x != x || x == __builtin_inf() || x == -__builtin_inf()) return __builtin_nan("");
    const double two_pi = 6.283185307179586;
    x -= two_pi * __builtin_nearbyint(x / two_pi); /* |x| <= pi */
    double s = x * x, term = 1, sum = 1;
    for (int n = 2; n < 40; n += 2) sum += term *= -s / ((n - 1) * n);
    return sum;
}
