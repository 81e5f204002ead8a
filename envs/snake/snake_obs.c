/* Snake observations; see snake_obs.h. */
#include "snake_obs.h"

#include <string.h>

static void danger_and_food(const sn_config *c, const sn_state *s, float *o)
{
    uint32_t head = sn_head_index(s);
    uint32_t tail = sn_tail_index(c, s);
    static const int rel[3] = {0, 3, 1}; /* straight, left, right */
    for (int k = 0; k < 3; k++) {
        uint32_t n = (uint32_t)((int)head + sn_delta(c, (s->dir + rel[k]) & 3));
        uint8_t code = s->cells[n];
        o[k] = (code == SN_WALL || (code == SN_BODY && n != tail)) ? 1.0f : 0.0f;
    }
    for (int k = 0; k < 4; k++) o[3 + k] = s->dir == k ? 1.0f : 0.0f;
    uint32_t pw = sn_padded_width(c);
    int hx = (int)(head % pw), hy = (int)(head / pw);
    int fx = (int)(s->food % pw), fy = (int)(s->food / pw);
    int has = s->food != 0;
    o[7] = has && fy < hy;
    o[8] = has && fx > hx;
    o[9] = has && fy > hy;
    o[10] = has && fx < hx;
}

/* Never inlined: inlined into a caller whose buffer is a fixed array (the
   unit test's 25-byte window), GCC's -Wstringop-overflow cannot see the
   guard on the 16-byte row copies below and warns about writes that never
   happen.  One call per env step, so the call costs nothing. */
__attribute__((noinline)) void sn_write_obs(const sn_config *c, const sn_state *s, int mode, int order,
                                            uint32_t flood_actions, int tail_reach, const sn_obs_scratch *scratch,
                                            void *dst)
{
    uint32_t base = 0;
    if (mode == SN_OBS_FEATURES) {
        float *o = dst;
        danger_and_food(c, s, o);
        base = 11;
    } else if (mode == SN_OBS_WINDOW) {
        uint8_t *o = dst;
        uint32_t v = c->pad, side = 2 * v + 1, pw = sn_padded_width(c);
        const uint8_t *src = s->cells + sn_head_index(s) - v * pw - v;
        /* A fixed 16-byte copy is one vector move; use it for the rows whose
           16 bytes stay inside the window (the spill past `side` is
           overwritten by the next row), and exact copies for the rest. */
        uint32_t end = side * side;
        for (uint32_t y = 0; y < side; y++) {
            if (side <= 16 && y * side + 16 <= end)
                memcpy(o + y * side, src + y * pw, 16);
            else
                memcpy(o + y * side, src + y * pw, side);
        }
        o[v * side + v] = SN_HEAD;
        base = side * side;
    } else {
        uint8_t *o = dst;
        uint32_t area = c->width * c->height, pw = sn_padded_width(c);
        memcpy(o, s->image, sn_image_bytes(c));
        if (order) {
            memset(o + 3 * area, 0, area);
            uint32_t cap = sn_body_capacity(c);
            for (uint32_t k = 0; k < s->length; k++) { /* k = 0 at the tail */
                uint32_t i = s->body[(s->head + cap + 1 - s->length + k) % cap];
                i -= c->pad * pw + c->pad;
                o[3 * area + (i / pw) * c->width + i % pw] = (uint8_t)(255u * (k + 1) / s->length);
            }
        }
        base = area * (order ? 4 : 3);
        if (mode == SN_OBS_DICT) { /* the board, then heading and stats */
            uint32_t heading, stats, row;
            sn_dict_layout(base, &heading, &stats, &row);
            memset(o + base, 0, row - base);
            o[heading] = (uint8_t)s->dir;
            float st[2] = {(float)s->length / (float)area, (float)s->idle / (float)c->max_idle_steps};
            memcpy(o + stats, st, sizeof st);
            return;
        }
    }
    if (flood_actions) {
        float frac[8];
        sn_flood_fractions(c, s, flood_actions, frac, tail_reach ? frac + flood_actions : NULL, scratch->marks,
                           scratch->queue);
        for (uint32_t a = 0; a < flood_actions * (tail_reach ? 2u : 1u); a++) {
            float f = frac[a];
            if (mode == SN_OBS_FEATURES)
                ((float *)dst)[base + a] = f;
            else
                ((uint8_t *)dst)[base + a] = (uint8_t)(f * 255.0f + 0.5f);
        }
    }
}
