/* Observations and their parts; see parts.h. */
#include "spaces/parts.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

size_t rl__obs_check(const rl_env_info *info, const char *name, char *err, size_t errlen)
{
    size_t elem = info->obs_dtype == RL_DTYPE_U8 ? 1 : info->obs_dtype == RL_DTYPE_F32 ? 4 : 0;
    if (!elem) {
        snprintf(err, errlen, "env '%s' reported observation dtype %d; the host carries u8 or f32", name,
                 (int)info->obs_dtype);
        return 0;
    }
    if (info->obs_ndim < 1 || info->obs_ndim > 4) {
        snprintf(err, errlen, "env '%s' reported an observation of %u dimensions (1 to 4)", name, info->obs_ndim);
        return 0;
    }
    char shape[64] = "";
    uint64_t product = 1;
    for (uint32_t k = 0; k < info->obs_ndim; k++) {
        size_t len = strlen(shape);
        snprintf(shape + len, sizeof shape - len, "%s%u", k ? "x" : "", info->obs_shape[k]);
        product *= info->obs_shape[k];
        if (product > (uint64_t)RL_OBS_MAX_BYTES) product = (uint64_t)RL_OBS_MAX_BYTES + 1; /* no overflow */
    }
    if (product == 0 || product * elem > RL_OBS_MAX_BYTES) {
        snprintf(err, errlen, "env '%s' reported observation shape %s: a row must hold 1 element to %u bytes", name,
                 shape, (unsigned)RL_OBS_MAX_BYTES);
        return 0;
    }
    if (product != info->obs_size) {
        snprintf(err, errlen, "env '%s' reported observation shape %s (%llu elements) but obs_size %u", name, shape,
                 (unsigned long long)product, info->obs_size);
        return 0;
    }
    if (!isfinite(info->obs_scale) || info->obs_scale <= 0) {
        snprintf(err, errlen, "env '%s' reported obs_scale %g; it must be finite and positive", name,
                 (double)info->obs_scale);
        return 0;
    }
    const float *lo = info->obs_low, *hi = info->obs_high; /* the host's own struct: zeroed, then filled */
    for (uint32_t k = 0; lo && hi && k < info->obs_size; k++) {
        if (isnan(lo[k]) || isnan(hi[k]) || lo[k] > hi[k]) {
            snprintf(err, errlen,
                     "env '%s' reported observation element %u in [%g, %g]: bounds must not be NaN, "
                     "with low <= high",
                     name, k, (double)lo[k], (double)hi[k]);
            return 0;
        }
    }
    return (size_t)product * elem;
}

/* The sentence for a part that is not what a part must be. */
#define BAD_PART(...)                                                                                    \
    do {                                                                                                 \
        int len_ = snprintf(err, errlen, "env '%s' reported observation part %u ", name, k);             \
        if (len_ > 0 && (size_t)len_ < errlen) snprintf(err + len_, errlen - (size_t)len_, __VA_ARGS__); \
        return RL_EINVAL;                                                                                \
    } while (0)

/* Part k of the env's table into p->part[k] (the env's names and nvec
   copied), checked alone; nvec_used counts p->nvec's entries so far. */
static int part_from(rl__parts *p, const rl_obs_part *src, uint32_t k, size_t row_bytes, size_t *nvec_used,
                     size_t nvec_cap, const char *name, char *err, size_t errlen)
{
    if (!RL_HAS_FIELD(src, rl_obs_part, nvec)) BAD_PART("with struct_size %u", src->struct_size);
    rl_obs_part *q = &p->part[k];
    *q = *src;
    q->struct_size = sizeof *q;
    const char *nm = src->name ? src->name : "";
    size_t len = strlen(nm);
    if (len == 0 || len >= RL__PART_NAME_MAX ||
        strspn(nm, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_") != len)
        BAD_PART("named '%.40s': a name is 1 to %d letters, digits or _", nm, RL__PART_NAME_MAX - 1);
    memcpy(p->name[k], nm, len + 1);
    q->name = p->name[k];
    for (uint32_t j = 0; j < k; j++)
        if (!strcmp(p->name[j], nm)) BAD_PART("named '%s' as part %u is", nm, j);
    int box = q->kind == RL_PART_BOX, disc = q->kind == RL_PART_DISCRETE;
    if (!box && !disc) BAD_PART("'%s' of kind %u (box or discrete)", nm, q->kind);
    int dt_ok =
        box ? q->dtype == RL_DTYPE_U8 || q->dtype == RL_DTYPE_F32 : q->dtype == RL_DTYPE_U8 || q->dtype == RL_DTYPE_I32;
    if (!dt_ok) BAD_PART("'%s' of dtype %d (a box part is u8 or f32, a discrete one u8 or i32)", nm, (int)q->dtype);
    if (q->ndim < 1 || q->ndim > 4) BAD_PART("'%s' of %u dimensions (1 to 4)", nm, q->ndim);
    uint64_t elems = 1;
    for (uint32_t d = 0; d < q->ndim; d++) {
        if (!q->shape[d]) BAD_PART("'%s' with dimension %u of size 0", nm, d);
        elems *= q->shape[d];
        if (elems > RL_OBS_MAX_BYTES) BAD_PART("'%s' of more than %u elements", nm, (unsigned)RL_OBS_MAX_BYTES);
    }
    size_t esz = rl_dtype_size(q->dtype);
    if (q->offset % esz) BAD_PART("'%s' at offset %u, not a multiple of its dtype's %zu bytes", nm, q->offset, esz);
    if ((uint64_t)q->offset + elems * esz > row_bytes)
        BAD_PART("'%s' of %llu bytes at offset %u: past the row's %zu bytes", nm, (unsigned long long)(elems * esz),
                 q->offset, row_bytes);
    if (box && (!isfinite(q->scale) || q->scale <= 0))
        BAD_PART("'%s' with scale %g (finite and positive)", nm, (double)q->scale);
    if (!disc) {
        q->nvec = NULL;
        return RL_OK;
    }
    if (!src->nvec) BAD_PART("'%s': a discrete part needs nvec", nm);
    if (*nvec_used + elems > nvec_cap) BAD_PART("'%s': more discrete elements than the row can hold", nm);
    for (uint64_t e = 0; e < elems; e++) {
        uint32_t c = src->nvec[e];
        if (c < 1 || c > 65536)
            BAD_PART("'%s' element %llu with %u categories (1 to 65536)", nm, (unsigned long long)e, c);
        p->nvec[*nvec_used + e] = c;
    }
    q->nvec = p->nvec + *nvec_used;
    *nvec_used += elems;
    return RL_OK;
}

int rl__parts_from_info(rl__parts *p, const rl_env_info *info, size_t row_bytes, const char *name, char *err,
                        size_t errlen)
{
    memset(p, 0, sizeof *p);
    const rl_obs_part *parts;
    uint32_t n = rl_env_info_parts(info, &parts);
    if (!n) return RL_OK;
    if (n > RL_OBS_MAX_PARTS) {
        snprintf(err, errlen, "env '%s' reported %u observation parts (at most %d)", name, n, RL_OBS_MAX_PARTS);
        return RL_EINVAL;
    }
    if (info->obs_dtype != RL_DTYPE_U8 || info->obs_ndim != 1 || info->obs_scale != 1.0f) {
        snprintf(err, errlen,
                 "env '%s' reported a composite observation whose row is not bytes: obs_dtype u8, obs_ndim 1 and "
                 "obs_scale 1 hold the parts",
                 name);
        return RL_EINVAL;
    }
    p->nvec = malloc(row_bytes * sizeof *p->nvec); /* a discrete element takes a byte at least */
    if (!p->nvec) {
        snprintf(err, errlen, "out of memory");
        return RL_ENOMEM;
    }
    size_t used = 0;
    for (uint32_t k = 0; k < n; k++) {
        int rc = part_from(p, &parts[k], k, row_bytes, &used, row_bytes, name, err, errlen);
        if (rc != RL_OK) {
            rl__parts_free(p);
            return rc;
        }
        p->n = k + 1;
    }
    for (uint32_t a = 0; a < n; a++) /* no two parts share a byte */
        for (uint32_t b = a + 1; b < n; b++) {
            const rl_obs_part *x = &p->part[a], *y = &p->part[b];
            uint64_t xe = x->offset + (uint64_t)rl_obs_part_elems(x) * rl_dtype_size(x->dtype);
            uint64_t ye = y->offset + (uint64_t)rl_obs_part_elems(y) * rl_dtype_size(y->dtype);
            if (x->offset < ye && y->offset < xe) {
                snprintf(err, errlen, "env '%s' reported observation parts '%s' and '%s' sharing bytes [%llu, %llu)",
                         name, x->name, y->name, (unsigned long long)(x->offset > y->offset ? x->offset : y->offset),
                         (unsigned long long)(xe < ye ? xe : ye));
                rl__parts_free(p);
                return RL_EINVAL;
            }
        }
    return RL_OK;
}

void rl__parts_free(rl__parts *p)
{
    free(p->nvec);
    memset(p, 0, sizeof *p);
}

void rl__row_name(uint32_t i, uint32_t agents, char *buf, size_t n)
{
    if (agents > 1)
        snprintf(buf, n, "env %u agent %u", i / agents, i % agents);
    else
        snprintf(buf, n, "env %u", i);
}

/* Part q of one row: element e that is not finite or not a category,
   or -1. */
static int64_t bad_element(const rl_obs_part *q, const unsigned char *row)
{
    uint32_t elems = rl_obs_part_elems(q);
    const unsigned char *at = row + q->offset;
    if (q->kind == RL_PART_BOX) {
        if (q->dtype != RL_DTYPE_F32) return -1;
        for (uint32_t e = 0; e < elems; e++) {
            float v;
            memcpy(&v, at + (size_t)e * 4, 4);
            if (!isfinite(v)) return e;
        }
        return -1;
    }
    for (uint32_t e = 0; e < elems; e++) {
        int64_t v = rl_obs_part_category(q, row, e);
        if (v < 0 || v >= q->nvec[e]) return e;
    }
    return -1;
}

int rl__parts_check_rows(const rl__parts *p, const void *rows, uint32_t n, size_t row_bytes, uint32_t agents,
                         const char *what, char *err, size_t errlen)
{
    for (uint32_t i = 0; i < n; i++) {
        const unsigned char *row = (const unsigned char *)rows + (size_t)i * row_bytes;
        for (uint32_t k = 0; k < p->n; k++) {
            const rl_obs_part *q = &p->part[k];
            int64_t e = bad_element(q, row);
            if (e < 0) continue;
            char rn[48];
            rl__row_name(i, agents, rn, sizeof rn);
            const unsigned char *at = row + q->offset;
            if (q->kind == RL_PART_BOX) {
                float v;
                memcpy(&v, at + (size_t)e * 4, 4);
                snprintf(err, errlen, "%s holding %g in part '%s', element %lld, at %s: observations must be finite",
                         what, (double)v, q->name, (long long)e, rn);
                return RL_ENONFINITE;
            }
            int64_t v = rl_obs_part_category(q, row, e);
            snprintf(err, errlen, "%s holding %lld in discrete part '%s', element %lld, at %s: outside [0, %u)", what,
                     (long long)v, q->name, (long long)e, rn, q->nvec[e]);
            return RL_EINVAL;
        }
    }
    return RL_OK;
}

static const char *dtype_name(rl_dtype d)
{
    return d == RL_DTYPE_U8 ? "U8" : d == RL_DTYPE_I32 ? "I32" : "F32";
}

void rl__parts_json(const rl__parts *p, rl__sbuf *b)
{
    if (!p->n) return;
    rl__sbuf_puts(b, ",\"parts\":[");
    for (uint32_t k = 0; k < p->n; k++) {
        const rl_obs_part *q = &p->part[k];
        rl__sbuf_printf(b, "%s{\"name\":\"%s\",\"kind\":\"%s\",\"dtype\":\"%s\",\"shape\":[", k ? "," : "", q->name,
                        q->kind == RL_PART_BOX ? "box" : "discrete", dtype_name(q->dtype));
        for (uint32_t d = 0; d < q->ndim; d++) rl__sbuf_printf(b, "%s%u", d ? "," : "", q->shape[d]);
        rl__sbuf_printf(b, "],\"offset\":%u", q->offset);
        if (q->kind == RL_PART_BOX) {
            rl__sbuf_printf(b, ",\"scale\":%.9g}", (double)q->scale);
            continue;
        }
        rl__sbuf_puts(b, ",\"nvec\":[");
        for (uint32_t e = 0; e < rl_obs_part_elems(q); e++) rl__sbuf_printf(b, "%s%u", e ? "," : "", q->nvec[e]);
        rl__sbuf_puts(b, "]}");
    }
    rl__sbuf_puts(b, "]");
}
