/* Action spaces; see spaces.h. */
#include "plugin/spaces.h"

#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rlhost/rlcore.h>

#include "plugin/loader.h"
#include "base/text.h"

/* Row i as "env E" or "env E agent A". */
static void row_name(uint32_t i, uint32_t agents, char *buf, size_t n)
{
    if (agents > 1)
        snprintf(buf, n, "env %u agent %u", i / agents, i % agents);
    else
        snprintf(buf, n, "env %u", i);
}

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

int rl__space_from_info(rl__space *s, const rl_env_info *info, const char *name, char *err, size_t errlen)
{
    memset(s, 0, sizeof *s);
    s->kind = rl_env_info_action_kind(info);
    if (s->kind == RL_SPACE_DISCRETE) {
        s->n = info->n_actions;
        s->action_bytes = sizeof(int32_t);
        if (s->n) return RL_OK;
        snprintf(err, errlen, "env '%s' reported a discrete action space of 0 actions", name);
        return RL_EINVAL;
    }
    if (s->kind != RL_SPACE_BOX) {
        snprintf(err, errlen, "env '%s' reported unknown action space kind %u", name, s->kind);
        return RL_EINVAL;
    }
    s->dim = info->action_dim;
    if (s->dim < 1 || s->dim > RL__MAX_ACTION_DIM || !info->action_low || !info->action_high) {
        snprintf(err, errlen, "env '%s' reported a box of %u actions%s (1 to %d, with bounds)", name, s->dim,
                 info->action_low && info->action_high ? "" : " without bounds", RL__MAX_ACTION_DIM);
        return RL_EINVAL;
    }
    for (uint32_t k = 0; k < s->dim; k++) {
        float lo = info->action_low[k], hi = info->action_high[k];
        if (!isfinite(lo) || !isfinite(hi) || lo > hi) {
            snprintf(err, errlen,
                     "env '%s' reported an action box with dimension %u in [%g, %g]: bounds must "
                     "be finite with low <= high",
                     name, k, (double)lo, (double)hi);
            return RL_EINVAL;
        }
    }
    s->low = malloc(s->dim * sizeof *s->low);
    s->high = malloc(s->dim * sizeof *s->high);
    if (!s->low || !s->high) {
        rl__space_free(s);
        snprintf(err, errlen, "out of memory");
        return RL_ENOMEM;
    }
    memcpy(s->low, info->action_low, s->dim * sizeof *s->low);
    memcpy(s->high, info->action_high, s->dim * sizeof *s->high);
    s->action_bytes = (size_t)s->dim * sizeof(float);
    return RL_OK;
}

void rl__space_free(rl__space *s)
{
    free(s->low);
    free(s->high);
    s->low = s->high = NULL;
}

int rl__space_check_algo(const rl__space *s, const char *env_name, const rl_plugin_desc *desc, char *err, size_t errlen)
{
    uint32_t flags = rl__desc_flags(desc);
    if (s->kind == RL_SPACE_BOX && !(flags & RL_DESC_BOX)) {
        snprintf(err, errlen,
                 "algo '%s' takes discrete actions, and env '%s' has a box of %u float action%s: "
                 "pick an algorithm for continuous actions (rlhost list)",
                 desc->name, env_name, s->dim, s->dim == 1 ? "" : "s");
        return RL_ECONFIG;
    }
    if (s->kind == RL_SPACE_DISCRETE && (flags & RL_DESC_NO_DISCRETE)) {
        snprintf(err, errlen,
                 "algo '%s' takes box (continuous) actions, and env '%s' has %u discrete actions: "
                 "pick an algorithm for discrete actions (rlhost list)",
                 desc->name, env_name, s->n);
        return RL_ECONFIG;
    }
    return RL_OK;
}

int rl__space_act(const rl__space *s, const rl_algo_vtable *avt, void *algo, rl_act_mode mode, const void *obs,
                  const uint8_t *start, void *actions, uint32_t count, char *err, size_t errlen)
{
    if (s->kind == RL_SPACE_BOX) return avt->act_box(algo, mode, obs, start, actions, count, err, errlen);
    return avt->act(algo, mode, obs, start, actions, count, err, errlen);
}

int rl__space_clip(const rl__space *s, const float *actions, float *out, uint32_t rows, uint32_t agents,
                   const char *who, char *err, size_t errlen)
{
    for (uint32_t i = 0; i < rows; i++)
        for (uint32_t k = 0; k < s->dim; k++) {
            float a = actions[(size_t)i * s->dim + k];
            if (isnan(a)) {
                char row[48];
                row_name(i, agents, row, sizeof row);
                snprintf(err, errlen, "%s chose a NaN action for %s (dimension %u)", who, row, k);
                return RL_ENONFINITE;
            }
            out[(size_t)i * s->dim + k] = a < s->low[k] ? s->low[k] : a > s->high[k] ? s->high[k] : a;
        }
    return RL_OK;
}

int rl__space_check_actions(const rl__space *s, const void *actions, uint32_t rows, uint32_t agents, const char *who,
                            char *err, size_t errlen)
{
    char row[48];
    for (uint32_t i = 0; i < rows; i++) {
        if (s->kind == RL_SPACE_DISCRETE) {
            int32_t a = ((const int32_t *)actions)[i];
            if ((uint32_t)a < s->n) continue;
            row_name(i, agents, row, sizeof row);
            snprintf(err, errlen, "%s chose action %d for %s, outside [0, %u)", who, (int)a, row, s->n);
            return RL_EINVAL;
        }
        for (uint32_t k = 0; k < s->dim; k++) {
            float a = ((const float *)actions)[(size_t)i * s->dim + k];
            if (a >= s->low[k] && a <= s->high[k]) continue; /* false for NaN */
            row_name(i, agents, row, sizeof row);
            snprintf(err, errlen, "%s chose %.9g for dimension %u of %s's action, outside the box [%.9g, %.9g]", who,
                     (double)a, k, row, (double)s->low[k], (double)s->high[k]);
            return RL_EINVAL;
        }
    }
    return RL_OK;
}

void rl__space_json(const rl__space *s, rl__sbuf *b)
{
    if (s->kind == RL_SPACE_DISCRETE) {
        rl__sbuf_printf(b, "{\"type\":\"discrete\",\"n\":%u}", s->n);
        return;
    }
    rl__sbuf_printf(b, "{\"type\":\"box\",\"dim\":%u,\"low\":[", s->dim);
    for (uint32_t k = 0; k < s->dim; k++) rl__sbuf_printf(b, "%s%.9g", k ? "," : "", (double)s->low[k]);
    rl__sbuf_puts(b, "],\"high\":[");
    for (uint32_t k = 0; k < s->dim; k++) rl__sbuf_printf(b, "%s%.9g", k ? "," : "", (double)s->high[k]);
    rl__sbuf_puts(b, "]}");
}
