/* A game's symmetries; see symmetry.h. */
#include "spaces/symmetry.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BAD(...)                                                                                         \
    do {                                                                                                 \
        int len_ = snprintf(err, errlen, "env '%s' reported symmetry %u ", name, k);                     \
        if (len_ > 0 && (size_t)len_ < errlen) snprintf(err + len_, errlen - (size_t)len_, __VA_ARGS__); \
        return RL_EINVAL;                                                                                \
    } while (0)

/* Where byte j of a row lies: its element's first byte and size, its part
   (-1 outside the parts or in one tensor) and, in a DISCRETE part, its
   element's categories (0 else). */
typedef struct where {
    size_t start, size;
    int part;
    uint32_t categories;
} where;

static where locate(const rl_env_info *info, const rl__parts *parts, size_t j)
{
    for (uint32_t q = 0; q < parts->n; q++) {
        const rl_obs_part *p = &parts->part[q];
        size_t elem = p->dtype == RL_DTYPE_U8 ? 1 : 4, count = 1;
        for (uint32_t d = 0; d < p->ndim; d++) count *= p->shape[d];
        if (j < p->offset || j >= p->offset + count * elem) continue;
        size_t e = (j - p->offset) / elem;
        return (where){p->offset + e * elem, elem, (int)q, p->kind == RL_PART_DISCRETE ? p->nvec[e] : 0};
    }
    size_t elem = parts->n || info->obs_dtype == RL_DTYPE_U8 ? 1 : 4;
    return (where){j - j % elem, elem, -1, 0};
}

/* Symmetry k's tables, checked; seen is scratch of max(row_bytes, n) bytes. */
static int check_one(const rl_env_info *info, const rl__parts *parts, size_t row_bytes, uint32_t k,
                     const rl_symmetry *sym, uint8_t *seen, const char *name, char *err, size_t errlen)
{
    if (!sym->obs_from || !sym->action_to) BAD("without %s", sym->obs_from ? "action_to" : "obs_from");
    memset(seen, 0, row_bytes);
    for (size_t j = 0; j < row_bytes; j++) {
        uint32_t f = sym->obs_from[j];
        if (f >= row_bytes) BAD("taking observation byte %zu from byte %u of a row of %zu", j, f, row_bytes);
        if (seen[f]++) BAD("taking observation byte %u twice: obs_from must be a permutation of the row", f);
        where to = locate(info, parts, j), from = locate(info, parts, f);
        if (to.part != from.part || to.size != from.size || to.categories != from.categories ||
            f - from.start != j - to.start || sym->obs_from[to.start] + (j - to.start) != f)
            BAD("moving observation byte %u to %zu: a symmetry moves whole elements, each within its part "
                "(and among elements of as many categories)",
                f, j);
    }
    uint32_t n = info->n_actions;
    memset(seen, 0, n);
    for (uint32_t a = 0; a < n; a++) {
        uint32_t t = sym->action_to[a];
        if (t >= n) BAD("mapping move %u to %u of %u moves", a, t, n);
        if (seen[t]++) BAD("mapping two moves to move %u: action_to must be a permutation of the moves", t);
    }
    return RL_OK;
}

int rl__symmetries_from_info(rl__symmetries *s, const rl_env_info *info, const rl__parts *parts, size_t row_bytes,
                             const char *name, char *err, size_t errlen)
{
    memset(s, 0, sizeof *s);
    const rl_symmetry *src;
    uint32_t n = rl_env_info_symmetries(info, &src), k = 0;
    if (!n) return RL_OK;
    if (n > RL_MAX_SYMMETRIES) {
        snprintf(err, errlen, "env '%s' reported %u symmetries; at most %u", name, n, RL_MAX_SYMMETRIES);
        return RL_EINVAL;
    }
    if (rl_env_info_action_kind(info) != RL_SPACE_DISCRETE) {
        snprintf(err, errlen,
                 "env '%s' reported symmetries of actions that are not discrete (only moves 0 .. n-1 "
                 "are permuted)",
                 name);
        return RL_EINVAL;
    }
    size_t width = row_bytes + info->n_actions;
    uint8_t *seen = malloc(width);
    s->table = malloc((size_t)n * width * sizeof *s->table);
    if (!seen || !s->table) {
        free(seen);
        rl__symmetries_free(s);
        snprintf(err, errlen, "env '%s': out of memory copying %u symmetries", name, n);
        return RL_ENOMEM;
    }
    int rc = RL_OK;
    for (k = 0; k < n && rc == RL_OK; k++) rc = check_one(info, parts, row_bytes, k, &src[k], seen, name, err, errlen);
    free(seen);
    if (rc != RL_OK) {
        rl__symmetries_free(s);
        return rc;
    }
    for (k = 0; k < n; k++) {
        uint32_t *obs = s->table + (size_t)k * width, *act = obs + row_bytes;
        memcpy(obs, src[k].obs_from, row_bytes * sizeof *obs);
        memcpy(act, src[k].action_to, info->n_actions * sizeof *act);
        s->list[k] = (rl_symmetry){obs, act};
    }
    s->n = n;
    return RL_OK;
}

void rl__symmetries_free(rl__symmetries *s)
{
    free(s->table);
    memset(s, 0, sizeof *s);
}
