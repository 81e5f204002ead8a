/* Sum and min trees; see sumtree.h. */
#include "sumtree.h"

#include <math.h>
#include <stdlib.h>

#include <rlhost/plugin.h>

int sumtree_create(sumtree *t, uint32_t size)
{
    uint32_t cap = 1;
    while (cap < size) cap <<= 1;
    t->capacity = cap;
    t->sum = calloc(2 * (size_t)cap, sizeof *t->sum);
    t->min = malloc(2 * (size_t)cap * sizeof *t->min);
    if (!t->sum || !t->min) {
        sumtree_destroy(t);
        return RL_ENOMEM;
    }
    for (size_t i = 0; i < 2 * (size_t)cap; i++) t->min[i] = INFINITY;
    return RL_OK;
}

void sumtree_destroy(sumtree *t)
{
    free(t->sum);
    free(t->min);
    t->sum = t->min = NULL;
}

void sumtree_set(sumtree *t, uint32_t i, double p)
{
    size_t n = (size_t)i + t->capacity;
    t->sum[n] = p;
    t->min[n] = p;
    for (n >>= 1; n >= 1; n >>= 1) {
        t->sum[n] = t->sum[2 * n] + t->sum[2 * n + 1];
        t->min[n] = fmin(t->min[2 * n], t->min[2 * n + 1]);
    }
}

double sumtree_get(const sumtree *t, uint32_t i)
{
    return t->sum[(size_t)i + t->capacity];
}

double sumtree_total(const sumtree *t)
{
    return t->sum[1];
}

double sumtree_min(const sumtree *t)
{
    return t->min[1];
}

uint32_t sumtree_find(const sumtree *t, double mass)
{
    size_t n = 1;
    while (n < t->capacity) {
        if (mass < t->sum[2 * n] || t->sum[2 * n + 1] <= 0.0) {
            n = 2 * n;
        } else {
            mass -= t->sum[2 * n];
            n = 2 * n + 1;
        }
    }
    return (uint32_t)(n - t->capacity);
}

int64_t sumtree_rebuild(sumtree *t, uint32_t used)
{
    for (uint32_t i = 0; i < t->capacity; i++) {
        double p = t->sum[(size_t)i + t->capacity], m = t->min[(size_t)i + t->capacity];
        int ok = i < used ? isfinite(p) && p >= 0 && (m == p || (p == 0 && m == INFINITY)) : p == 0 && m == INFINITY;
        if (!ok) return i;
    }
    for (size_t n = t->capacity - 1; n >= 1; n--) {
        t->sum[n] = t->sum[2 * n] + t->sum[2 * n + 1];
        t->min[n] = fmin(t->min[2 * n], t->min[2 * n + 1]);
    }
    return -1;
}
