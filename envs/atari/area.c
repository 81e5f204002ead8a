/* INTER_AREA as OpenCV computes it (area.h). */
#include "area.h"

#include <math.h>
#include <stdlib.h>

/* OpenCV's computeResizeAreaTab: the taps of one axis, in its order. */
static uint32_t taps(uint32_t ssize, uint32_t dsize, uint32_t cn, double scale, area_tap *t)
{
    uint32_t k = 0;
    for (uint32_t d = 0; d < dsize; d++) {
        double f1 = d * scale, f2 = f1 + scale;
        double cell = scale < (double)ssize - f1 ? scale : (double)ssize - f1;
        int s1 = (int)ceil(f1), s2 = (int)floor(f2);
        if (s2 > (int)ssize - 1) s2 = (int)ssize - 1;
        if (s1 > s2) s1 = s2;
        if (s1 - f1 > 1e-3) t[k++] = (area_tap){(int32_t)((s1 - 1) * cn), (int32_t)(d * cn), (float)((s1 - f1) / cell)};
        for (int s = s1; s < s2; s++) t[k++] = (area_tap){(int32_t)(s * cn), (int32_t)(d * cn), (float)(1.0 / cell)};
        if (f2 - s2 > 1e-3) {
            double w = f2 - s2 < 1.0 ? f2 - s2 : 1.0;
            w = w < cell ? w : cell;
            t[k++] = (area_tap){(int32_t)(s2 * cn), (int32_t)(d * cn), (float)(w / cell)};
        }
    }
    return k;
}

int area_plan_init(area_plan *p, uint32_t sh, uint32_t sw, uint32_t dh, uint32_t dw, uint32_t cn)
{
    *p = (area_plan){.sh = sh, .sw = sw, .dh = dh, .dw = dw, .cn = cn};
    if (!dh || !dw || dh > sh || dw > sw) return -1;
    p->x = malloc(2 * (size_t)sw * sizeof *p->x);
    p->y = malloc(2 * (size_t)sh * sizeof *p->y);
    if (!p->x || !p->y) {
        area_plan_free(p);
        return -1;
    }
    /* OpenCV's scale is 1 / (dsize / ssize), not ssize / dsize */
    p->nx = taps(sw, dw, cn, 1.0 / ((double)dw / sw), p->x);
    p->ny = taps(sh, dh, 1, 1.0 / ((double)dh / sh), p->y);
    return 0;
}

void area_plan_free(area_plan *p)
{
    free(p->x);
    free(p->y);
    p->x = p->y = NULL;
}

static uint8_t round_u8(float v)
{
    long r = lrintf(v); /* half to even, as cvRound */
    return (uint8_t)(r < 0 ? 0 : r > 255 ? 255 : r);
}

void area_resize(const area_plan *p, float *scratch, const uint8_t *src, uint8_t *dst)
{
    uint32_t width = p->dw * p->cn, cn = p->cn;
    float *buf = scratch, *sum = scratch + width;
    for (uint32_t d = 0; d < width; d++) sum[d] = 0;
    int32_t prev = p->y[0].dst;
    for (uint32_t j = 0; j < p->ny; j++) {
        float beta = p->y[j].w;
        const uint8_t *s = src + (size_t)p->y[j].src * p->sw * cn;
        for (uint32_t d = 0; d < width; d++) buf[d] = 0;
        for (uint32_t k = 0; k < p->nx; k++) {
            const area_tap *t = &p->x[k];
            for (uint32_t c = 0; c < cn; c++) buf[t->dst + c] += s[t->src + c] * t->w;
        }
        if (p->y[j].dst != prev) {
            uint8_t *o = dst + (size_t)prev * width;
            for (uint32_t d = 0; d < width; d++) {
                o[d] = round_u8(sum[d]);
                sum[d] = beta * buf[d];
            }
            prev = p->y[j].dst;
        } else {
            for (uint32_t d = 0; d < width; d++) sum[d] += beta * buf[d];
        }
    }
    uint8_t *o = dst + (size_t)prev * width;
    for (uint32_t d = 0; d < width; d++) o[d] = round_u8(sum[d]);
}
