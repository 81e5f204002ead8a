/* Sum tree with a min tree beside it, for proportional prioritized replay:
   O(log n) update, prefix-sum search and total; O(1) min. */
#ifndef RLHOST_SUMTREE_H
#define RLHOST_SUMTREE_H

#include <stdint.h>

typedef struct sumtree {
    uint32_t capacity; /* leaves, a power of two >= the requested size */
    double *sum;       /* [2 capacity], node 1 is the root */
    double *min;       /* [2 capacity], +inf for empty leaves */
} sumtree;

int sumtree_create(sumtree *t, uint32_t size);
void sumtree_destroy(sumtree *t);
void sumtree_set(sumtree *t, uint32_t i, double priority);
double sumtree_get(const sumtree *t, uint32_t i);
double sumtree_total(const sumtree *t);
double sumtree_min(const sumtree *t); /* over leaves ever set */
/* After loading the leaves from an untrusted file: checks that leaves
   [0, used) hold finite priorities >= 0 (min equal, or +inf while unset)
   and the rest are empty, then recomputes every inner node from the leaves
   (the values incremental updates produce).  Returns -1, or the first bad
   leaf. */
int64_t sumtree_rebuild(sumtree *t, uint32_t used);
/* The leaf i with prefix(i) <= mass < prefix(i) + p_i (mass in [0, total)). */
uint32_t sumtree_find(const sumtree *t, double mass);

#endif
