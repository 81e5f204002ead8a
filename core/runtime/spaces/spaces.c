/* Action spaces; see spaces.h. */
#include "spaces/spaces.h"
#include "spaces/parts.h"

#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rlhost/rlcore.h>

#include "plugin/act.h"
#include "plugin/loader.h"
#include "base/text.h"

/* MULTI_DISCRETE: dim components of nvec choices each. */
static int multi_from_info(rl__space *s, const rl_env_info *info, const char *name, char *err, size_t errlen)
{
    s->dim = info->action_dim;
    if (s->dim < 1 || s->dim > RL__MAX_ACTION_DIM || !info->action_nvec) {
        snprintf(err, errlen, "env '%s' reported a MultiDiscrete action of %u components%s (1 to %d, with nvec)", name,
                 s->dim, info->action_nvec ? "" : " without nvec", RL__MAX_ACTION_DIM);
        return RL_EINVAL;
    }
    uint64_t width = 0;
    for (uint32_t k = 0; k < s->dim; k++) {
        uint32_t c = info->action_nvec[k];
        if (c < 1 || c > RL__MAX_MASK_WIDTH) {
            snprintf(err, errlen, "env '%s' reported MultiDiscrete component %u with %u choices (1 to %u)", name, k, c,
                     RL__MAX_MASK_WIDTH);
            return RL_EINVAL;
        }
        width += c;
    }
    if (width > RL__MAX_MASK_WIDTH) {
        snprintf(err, errlen, "env '%s' reported MultiDiscrete actions of %llu choices in all (at most %u)", name,
                 (unsigned long long)width, RL__MAX_MASK_WIDTH);
        return RL_EINVAL;
    }
    s->nvec = malloc(s->dim * sizeof *s->nvec);
    if (!s->nvec) {
        snprintf(err, errlen, "out of memory");
        return RL_ENOMEM;
    }
    memcpy(s->nvec, info->action_nvec, s->dim * sizeof *s->nvec);
    return RL_OK;
}

/* The box part: n floats, each in finite [low, high]. */
static int box_part(rl__space *s, const rl_env_info *info, uint32_t n, const char *name, char *err, size_t errlen)
{
    const char *what = s->kind == RL_SPACE_HYBRID ? "a hybrid action's box" : "a box";
    if (n < 1 || n > RL__MAX_ACTION_DIM || !info->action_low || !info->action_high) {
        snprintf(err, errlen, "env '%s' reported %s of %u float%s%s (1 to %d, with bounds)", name, what, n,
                 n == 1 ? "" : "s", info->action_low && info->action_high ? "" : " without bounds", RL__MAX_ACTION_DIM);
        return RL_EINVAL;
    }
    for (uint32_t k = 0; k < n; k++) {
        float lo = info->action_low[k], hi = info->action_high[k];
        if (!isfinite(lo) || !isfinite(hi) || lo > hi) {
            snprintf(err, errlen,
                     "env '%s' reported %s with dimension %u in [%g, %g]: bounds must be finite with low <= high", name,
                     s->kind == RL_SPACE_HYBRID ? "a hybrid action's box" : "an action box", k, (double)lo, (double)hi);
            return RL_EINVAL;
        }
    }
    s->low = malloc(n * sizeof *s->low);
    s->high = malloc(n * sizeof *s->high);
    if (!s->low || !s->high) {
        snprintf(err, errlen, "out of memory");
        return RL_ENOMEM;
    }
    memcpy(s->low, info->action_low, n * sizeof *s->low);
    memcpy(s->high, info->action_high, n * sizeof *s->high);
    s->floats = n;
    return RL_OK;
}

/* HYBRID: MultiDiscrete's components, then a box; at least one of each. */
static int hybrid_from_info(rl__space *s, const rl_env_info *info, const char *name, char *err, size_t errlen)
{
    uint32_t n = info->action_box_dim;
    if (info->action_dim < 1 || n < 1) {
        snprintf(err, errlen,
                 "env '%s' reported a hybrid action of %u discrete component%s and %u float%s: it needs at least one "
                 "of each (one part alone is a MultiDiscrete or a box space)",
                 name, info->action_dim, info->action_dim == 1 ? "" : "s", n, n == 1 ? "" : "s");
        return RL_EINVAL;
    }
    int rc = multi_from_info(s, info, name, err, errlen);
    if (rc == RL_OK) rc = box_part(s, info, n, name, err, errlen);
    return rc;
}

int rl__space_from_info(rl__space *s, const rl_env_info *info, const char *name, char *err, size_t errlen)
{
    memset(s, 0, sizeof *s);
    s->kind = rl_env_info_action_kind(info);
    int rc = RL_OK;
    if (s->kind == RL_SPACE_DISCRETE) {
        s->n = info->n_actions;
        if (!s->n || s->n > RL__MAX_MASK_WIDTH) {
            snprintf(err, errlen, "env '%s' reported a discrete action space of %u actions (1 to %u)", name, s->n,
                     RL__MAX_MASK_WIDTH);
            rc = RL_EINVAL;
        }
    } else if (s->kind == RL_SPACE_BOX) {
        s->dim = info->action_dim;
        rc = box_part(s, info, info->action_dim, name, err, errlen);
    } else if (s->kind == RL_SPACE_MULTI_DISCRETE && RL_HAS_FIELD(info, rl_env_info, action_nvec)) {
        rc = multi_from_info(s, info, name, err, errlen);
    } else if (s->kind == RL_SPACE_HYBRID && RL_HAS_FIELD(info, rl_env_info, action_box_dim)) {
        rc = hybrid_from_info(s, info, name, err, errlen);
    } else {
        snprintf(err, errlen, "env '%s' reported unknown action space kind %u", name, s->kind);
        rc = RL_EINVAL;
    }
    s->ints = s->kind == RL_SPACE_DISCRETE ? 1 : s->kind == RL_SPACE_BOX ? 0 : s->dim;
    s->action_bytes = (size_t)(s->ints + s->floats) * 4;
    if (rc == RL_OK && RL_HAS_FIELD(info, rl_env_info, action_mask) && info->action_mask) {
        if (s->kind == RL_SPACE_BOX) {
            snprintf(err, errlen,
                     "env '%s' reported action masks for a box of float actions: masks are for discrete "
                     "and MultiDiscrete actions",
                     name);
            rc = RL_EINVAL;
        } else {
            s->mask_width = rl_env_info_mask_width(info);
        }
    }
    if (rc != RL_OK) rl__space_free(s);
    return rc;
}

void rl__space_free(rl__space *s)
{
    free(s->low);
    free(s->high);
    free(s->nvec);
    s->low = s->high = NULL;
    s->nvec = NULL;
}

void rl__algo_takes(const rl_plugin_desc *desc, char *buf, size_t len)
{
    uint32_t f = rl__desc_flags(desc);
    snprintf(buf, len, "%s%s%s%s%s%s", f & RL_DESC_NO_DISCRETE ? "" : "discrete actions, ",
             f & RL_DESC_BOX ? "box actions, " : "", f & RL_DESC_MULTI_DISCRETE ? "MultiDiscrete actions, " : "",
             f & RL_DESC_HYBRID ? "hybrid actions, " : "", f & RL_DESC_MASKS ? "action masks, " : "",
             f & RL_DESC_OBS_PARTS ? "composite observations, " : "");
    size_t n = strlen(buf);
    if (n >= 2) buf[n - 2] = 0; /* the last ", " */
}

int rl__space_check_algo(const rl__space *s, int composite, const char *env_name, const rl_plugin_desc *desc, char *err,
                         size_t errlen)
{
    uint32_t flags = rl__desc_flags(desc);
    const char *lacks = NULL;
    char has[48];
    if (s->kind == RL_SPACE_HYBRID && !(flags & RL_DESC_HYBRID)) {
        snprintf(has, sizeof has, "a hybrid action (%u discrete, %u float)", s->dim, s->floats);
        lacks = "hybrid actions";
    } else if (s->kind == RL_SPACE_BOX && !(flags & RL_DESC_BOX)) {
        snprintf(has, sizeof has, "a box of %u float action%s", s->dim, s->dim == 1 ? "" : "s");
        lacks = "box actions";
    } else if (s->kind != RL_SPACE_BOX && (flags & RL_DESC_NO_DISCRETE)) {
        if (s->kind == RL_SPACE_MULTI_DISCRETE)
            snprintf(has, sizeof has, "%u MultiDiscrete components", s->dim);
        else
            snprintf(has, sizeof has, "%u discrete actions", s->n);
        lacks = "discrete actions";
    } else if (s->kind == RL_SPACE_MULTI_DISCRETE && !(flags & RL_DESC_MULTI_DISCRETE)) {
        snprintf(has, sizeof has, "%u MultiDiscrete components", s->dim);
        lacks = "MultiDiscrete actions";
    } else if (s->mask_width && !(flags & RL_DESC_MASKS)) {
        snprintf(has, sizeof has, "action masks");
        lacks = "action masks";
    } else if (composite && !(flags & RL_DESC_OBS_PARTS)) {
        snprintf(has, sizeof has, "a composite observation");
        lacks = "composite observations";
    }
    if (!lacks) return RL_OK;
    char takes[128];
    rl__algo_takes(desc, takes, sizeof takes);
    snprintf(err, errlen,
             "algo '%s' does not take %s (it takes %s), and env '%s' has %s: pick an algorithm that does "
             "(rlhost info ALGO says what each takes)",
             desc->name, lacks, takes, env_name, has);
    return RL_ECONFIG;
}

int rl__space_act(const rl__space *s, const rl_algo_vtable *avt, void *algo, rl_act_mode mode, const void *obs,
                  const uint8_t *start, const uint8_t *masks, void *actions, uint32_t count, char *err, size_t errlen)
{
    int hybrid = s->kind == RL_SPACE_HYBRID;
    /* the algorithm writes a hybrid action's two parts as two arrays, packed into host rows after */
    void *planar = hybrid ? malloc((size_t)count * s->action_bytes + 1) : actions;
    if (!planar) {
        snprintf(err, errlen, "out of memory for the actions of %u rows", count);
        return RL_ENOMEM;
    }
    int32_t *ints = s->ints ? planar : NULL;
    float *floats = s->floats ? (float *)planar + (size_t)count * s->ints : NULL;
    rl_act_batch b = {
        .struct_size = sizeof b,
        .mode = mode,
        .count = count,
        .obs = obs,
        .episode_start = start,
        .masks = s->mask_width ? masks : NULL,
        .actions = ints,
        .box_actions = floats,
    };
    int rc = rl__algo_act(avt, algo, s->kind, &b, err, errlen);
    if (hybrid) {
        if (rc == RL_OK) rl__space_pack(s, ints, floats, count, actions);
        free(planar);
    }
    return rc;
}

void rl__space_split(const rl__space *s, const void *rows_in, uint32_t rows, int32_t *ints, float *floats)
{
    const unsigned char *in = rows_in;
    for (uint32_t i = 0; i < rows; i++, in += s->action_bytes) {
        if (ints) memcpy(ints + (size_t)i * s->ints, in, s->ints * 4u);
        if (floats) memcpy(floats + (size_t)i * s->floats, in + s->ints * 4u, s->floats * 4u);
    }
}

void rl__space_pack(const rl__space *s, const int32_t *ints, const float *floats, uint32_t rows, void *rows_out)
{
    unsigned char *out = rows_out;
    for (uint32_t i = 0; i < rows; i++, out += s->action_bytes) {
        if (ints) memcpy(out, ints + (size_t)i * s->ints, s->ints * 4u);
        if (floats) memcpy(out + s->ints * 4u, floats + (size_t)i * s->floats, s->floats * 4u);
    }
}

/* Components of one row's discrete part: 1 of n choices, or dim. */
static uint32_t components(const rl__space *s, const uint32_t **nvec)
{
    *nvec = s->kind == RL_SPACE_DISCRETE ? &s->n : s->nvec;
    return s->kind == RL_SPACE_DISCRETE ? 1 : s->dim;
}

int rl__space_check_mask(const rl__space *s, const uint8_t *mask, uint32_t i, uint32_t agents, int64_t ep_step,
                         const char *name, const char *what, char *err, size_t errlen)
{
    const uint32_t *nvec;
    uint32_t dims = components(s, &nvec);
    for (uint32_t k = 0; k < dims; mask += nvec[k], k++) {
        uint32_t c = 0;
        while (c < nvec[k] && !mask[c]) c++;
        if (c < nvec[k]) continue;
        char row[48], comp[40] = "", at[48] = "";
        rl__row_name(i, agents, row, sizeof row);
        if (dims > 1) snprintf(comp, sizeof comp, " in component %u", k);
        if (ep_step >= 0) snprintf(at, sizeof at, " at step %lld of its episode", (long long)ep_step);
        snprintf(err, errlen, "env '%s' wrote %s allowing no action%s for %s%s", name, what, comp, row, at);
        return RL_EINVAL;
    }
    return RL_OK;
}

/* Row i's int actions against its range and mask. */
static int check_ints(const rl__space *s, const int32_t *a, const uint8_t *mask, uint32_t i, uint32_t agents,
                      const char *who, char *err, size_t errlen)
{
    const uint32_t *nvec;
    uint32_t dims = components(s, &nvec);
    for (uint32_t k = 0; k < dims; mask = mask ? mask + nvec[k] : NULL, k++) {
        int in_range = (uint32_t)a[k] < nvec[k];
        if (in_range && (!mask || mask[a[k]])) continue;
        char row[48], comp[40] = "";
        rl__row_name(i, agents, row, sizeof row);
        if (dims > 1) snprintf(comp, sizeof comp, " (component %u)", k);
        if (!in_range)
            snprintf(err, errlen, "%s chose action %d for %s%s, outside [0, %u)", who, (int)a[k], row, comp, nvec[k]);
        else
            snprintf(err, errlen, "%s chose action %d for %s%s, which its action mask forbids", who, (int)a[k], row,
                     comp);
        return RL_EINVAL;
    }
    return RL_OK;
}

/* Row i's floats (s->floats of them) into [low, high]; a NaN is an error. */
static int clip_floats(const rl__space *s, const float *a, float *out, uint32_t i, uint32_t agents, const char *who,
                       char *err, size_t errlen)
{
    for (uint32_t k = 0; k < s->floats; k++) {
        if (isnan(a[k])) {
            char row[48];
            rl__row_name(i, agents, row, sizeof row);
            snprintf(err, errlen, "%s chose a NaN action for %s (dimension %u)", who, row, k);
            return RL_ENONFINITE;
        }
        out[k] = a[k] < s->low[k] ? s->low[k] : a[k] > s->high[k] ? s->high[k] : a[k];
    }
    return RL_OK;
}

/* Row i's floats inside the box, else RL_EINVAL (the caller's, not clipped for it). */
static int floats_inside(const rl__space *s, const float *f, uint32_t i, uint32_t agents, const char *who, char *err,
                         size_t errlen)
{
    for (uint32_t k = 0; k < s->floats; k++) {
        if (f[k] >= s->low[k] && f[k] <= s->high[k]) continue; /* false for NaN */
        char row[48];
        rl__row_name(i, agents, row, sizeof row);
        snprintf(err, errlen, "%s chose %.9g for dimension %u of %s's action, outside the box [%.9g, %.9g]", who,
                 (double)f[k], k, row, (double)s->low[k], (double)s->high[k]);
        return RL_EINVAL;
    }
    return RL_OK;
}

/* Rows of actions: each discrete part checked against its range and mask;
   the floats clipped into out's rows (settle), or with out NULL refused
   outside the box (check). */
static int walk_rows(const rl__space *s, const void *actions, void *out, const uint8_t *masks, uint32_t rows,
                     uint32_t agents, const char *who, char *err, size_t errlen)
{
    for (uint32_t i = 0; i < rows; i++) {
        const int32_t *a = (const int32_t *)((const unsigned char *)actions + (size_t)i * s->action_bytes);
        int32_t *o = out ? (int32_t *)((unsigned char *)out + (size_t)i * s->action_bytes) : NULL;
        const uint8_t *m = s->mask_width && masks ? masks + (size_t)i * s->mask_width : NULL;
        int rc = s->ints ? check_ints(s, a, m, i, agents, who, err, errlen) : RL_OK;
        if (rc == RL_OK && o && o != a) memcpy(o, a, s->ints * 4u);
        if (rc == RL_OK)
            rc = o ? clip_floats(s, (const float *)(a + s->ints), (float *)(o + s->ints), i, agents, who, err, errlen)
                   : floats_inside(s, (const float *)(a + s->ints), i, agents, who, err, errlen);
        if (rc != RL_OK) return rc;
    }
    return RL_OK;
}

int rl__space_settle(const rl__space *s, const void *actions, void *out, const uint8_t *masks, uint32_t rows,
                     uint32_t agents, const char *who, char *err, size_t errlen)
{
    return walk_rows(s, actions, out, masks, rows, agents, who, err, errlen);
}

int rl__space_check_actions(const rl__space *s, const void *actions, const uint8_t *masks, uint32_t rows,
                            uint32_t agents, const char *who, char *err, size_t errlen)
{
    return walk_rows(s, actions, NULL, masks, rows, agents, who, err, errlen);
}

/* "low":[...],"high":[...] of the box part. */
static void bounds_json(const rl__space *s, rl__sbuf *b)
{
    rl__sbuf_puts(b, ",\"low\":[");
    for (uint32_t k = 0; k < s->floats; k++) rl__sbuf_printf(b, "%s%.9g", k ? "," : "", (double)s->low[k]);
    rl__sbuf_puts(b, "],\"high\":[");
    for (uint32_t k = 0; k < s->floats; k++) rl__sbuf_printf(b, "%s%.9g", k ? "," : "", (double)s->high[k]);
    rl__sbuf_puts(b, "]");
}

void rl__space_json(const rl__space *s, rl__sbuf *b)
{
    const char *masked = s->mask_width ? ",\"masked\":true" : "";
    if (s->kind == RL_SPACE_DISCRETE) {
        rl__sbuf_printf(b, "{\"type\":\"discrete\",\"n\":%u%s}", s->n, masked);
        return;
    }
    if (s->kind == RL_SPACE_BOX) {
        rl__sbuf_printf(b, "{\"type\":\"box\",\"dim\":%u", s->dim);
        bounds_json(s, b);
        rl__sbuf_puts(b, "}");
        return;
    }
    rl__sbuf_printf(b, "{\"type\":\"%s\",\"nvec\":[", s->kind == RL_SPACE_HYBRID ? "hybrid" : "multi_discrete");
    for (uint32_t k = 0; k < s->dim; k++) rl__sbuf_printf(b, "%s%u", k ? "," : "", s->nvec[k]);
    rl__sbuf_puts(b, "]");
    if (s->kind == RL_SPACE_HYBRID) {
        rl__sbuf_printf(b, ",\"dim\":%u", s->floats);
        bounds_json(s, b);
    }
    rl__sbuf_printf(b, "%s}", masked);
}
