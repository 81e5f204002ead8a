/* libFuzzer target: plugin-descriptor validation (what the loader checks
   before it trusts a plugin's schema) on descriptors built from arbitrary
   bytes: kinds, names, versions, option and stage tables with any types,
   defaults, ranges, choices and flags, vtables of any struct_size. */
#include <stdint.h>
#include <string.h>

#include "plugin/loader.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

typedef struct rd {
    const uint8_t *p, *end;
    char strs[64][24];
    int n_strs;
} rd;

static uint8_t byte(rd *r)
{
    return r->p < r->end ? *r->p++ : 0;
}

/* A short string from the input, or NULL (length byte 255). */
static const char *str(rd *r)
{
    uint8_t len = byte(r);
    if (len == 255 || r->n_strs == 64) return NULL;
    char *s = r->strs[r->n_strs++];
    len %= sizeof r->strs[0];
    for (uint8_t i = 0; i < len; i++) s[i] = (char)byte(r);
    s[len] = 0;
    return s;
}

static double num(rd *r)
{
    int8_t v = (int8_t)byte(r);
    return byte(r) & 1 ? (double)v : (double)v / 8;
}

static int noop(void)
{
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    rd r = {data, data + size, {{0}}, 0};
    rl_option_def defs[16];
    const char *choices[16][4];
    memset(defs, 0, sizeof defs);
    uint32_t n_opt = byte(&r) % 9, n_st = byte(&r) % 8;
    for (uint32_t k = 0; k < n_opt + n_st; k++) {
        rl_option_def *d = &defs[k];
        d->struct_size = byte(&r) & 1 ? sizeof *d : byte(&r);
        d->type = (rl_opt_type)(byte(&r) % 9);
        d->name = str(&r);
        d->help = str(&r);
        d->default_text = str(&r);
        d->min = num(&r);
        d->max = num(&r);
        uint8_t nc = byte(&r) % 4;
        for (uint8_t c = 0; c < nc; c++) choices[k][c] = str(&r);
        choices[k][nc] = NULL;
        d->choices = byte(&r) & 1 ? choices[k] : NULL;
        d->flags = byte(&r) & 7;
    }
    /* vtables with every function set, their struct_size from the input */
    static rl_env_vtable evt;
    static rl_algo_vtable avt;
    evt.struct_size = byte(&r) & 1 ? sizeof evt : byte(&r);
#define SET(f) ((f) = (__typeof__(f))noop) /* never called: the check only looks */
    SET(evt.create), SET(evt.destroy), SET(evt.reset), SET(evt.step);
    avt.struct_size = byte(&r) & 1 ? sizeof avt : byte(&r);
    SET(avt.create), SET(avt.destroy), SET(avt.act), SET(avt.observe), SET(avt.update);
    rl_plugin_desc d;
    memset(&d, 0, sizeof d);
    d.struct_size = byte(&r) & 1 ? sizeof d : byte(&r);
    d.kind = (rl_plugin_kind)(byte(&r) % 4);
    d.name = str(&r);
    d.version = str(&r);
    d.description = str(&r);
    d.options = byte(&r) & 1 ? defs : NULL;
    d.n_options = n_opt;
    d.stages = defs + n_opt;
    d.n_stages = n_st;
    d.vtable = byte(&r) % 3 == 0 ? NULL : d.kind == RL_KIND_ENV ? (const void *)&evt : (const void *)&avt;
    char why[RL_ERR_MAX];
    rl__desc_check(&d, why, sizeof why);
    return 0;
}
