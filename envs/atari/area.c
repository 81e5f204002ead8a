/* INTER_AREA as OpenCV computes it (area.h). */
#include "area.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define AREA_AVX2 1
#endif

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
    double scale_x = 1.0 / ((double)dw / sw), scale_y = 1.0 / ((double)dh / sh);
    p->nx = taps(sw, dw, cn, scale_x, p->x);
    p->ny = taps(sh, dh, 1, scale_y, p->y);
    /* its test for whole scales (resize.cpp, is_area_fast): cvRound, then
       a difference below DBL_EPSILON */
    double rx = nearbyint(scale_x), ry = nearbyint(scale_y);
    if (fabs(scale_x - rx) < DBL_EPSILON && fabs(scale_y - ry) < DBL_EPSILON) {
        p->fast = 1, p->ix = (uint32_t)rx, p->iy = (uint32_t)ry;
        p->inv_area = 1.f / (float)(p->ix * p->iy);
    }
#ifdef AREA_AVX2
    p->vector = cn == 1 && __builtin_cpu_supports("avx2");
#endif
    if (!p->vector) return 0;
    /* taps() writes each destination's taps together, in OpenCV's order */
    for (uint32_t k = 0, run = 0; k < p->nx; k++) {
        run = k && p->x[k].dst == p->x[k - 1].dst ? run + 1 : 1;
        if (run > p->xslots) p->xslots = run;
    }
    p->xi = calloc((size_t)p->xslots * dw, sizeof *p->xi);
    p->xw = calloc((size_t)p->xslots * dw, sizeof *p->xw);
    if (!p->xi || !p->xw) {
        area_plan_free(p);
        return -1;
    }
    for (uint32_t k = 0, t = 0; k < p->nx; k++) {
        t = k && p->x[k].dst == p->x[k - 1].dst ? t + 1 : 0;
        uint32_t d = (uint32_t)p->x[k].dst / cn;
        p->xi[(size_t)t * dw + d] = p->x[k].src / (int32_t)cn;
        p->xw[(size_t)t * dw + d] = p->x[k].w;
    }
    return 0;
}

void area_plan_free(area_plan *p)
{
    free(p->x);
    free(p->y);
    free(p->xi);
    free(p->xw);
    p->x = p->y = NULL;
    p->xi = NULL;
    p->xw = NULL;
}

static uint8_t round_u8(float v)
{
    long r = lrintf(v); /* half to even, as cvRound */
    return (uint8_t)(r < 0 ? 0 : r > 255 ? 255 : r);
}

/* One source row through the horizontal taps, as OpenCV sums them:
   buf[dst] += src * w, tap after tap. */
static void across(const area_plan *p, const uint8_t *s, float *row, float *buf)
{
    (void)row;
    const uint32_t cn = p->cn;
    for (uint32_t d = 0; d < p->dw * cn; d++) buf[d] = 0;
    for (uint32_t k = 0; k < p->nx; k++) {
        const area_tap *t = &p->x[k];
        for (uint32_t c = 0; c < cn; c++) buf[t->dst + c] += s[t->src + c] * t->w;
    }
}

#ifdef AREA_AVX2
/* across() for one channel, eight destination columns at a time, each
   column's taps by slot (xi, xw): the same products and sums in the same
   order (the first, 0 + x, is x; a padding slot adds exactly 0; this file is
   never contracted and the target has no FMA), so the same bytes. */
__attribute__((target("avx2"))) static void across_gray_avx2(const area_plan *p, const uint8_t *s, float *row,
                                                             float *buf)
{
    const uint32_t sw = p->sw, dw = p->dw;
    uint32_t i = 0;
    for (; i + 8 <= sw; i += 8) {
        __m128i b = _mm_loadl_epi64((const __m128i *)(s + i));
        _mm256_storeu_ps(row + i, _mm256_cvtepi32_ps(_mm256_cvtepu8_epi32(b)));
    }
    for (; i < sw; i++) row[i] = s[i];
    uint32_t d = 0;
    for (; d + 8 <= dw; d += 8) {
        __m256 acc = _mm256_mul_ps(_mm256_i32gather_ps(row, _mm256_loadu_si256((const __m256i *)(p->xi + d)), 4),
                                   _mm256_loadu_ps(p->xw + d));
        for (uint32_t t = 1; t < p->xslots; t++) {
            size_t o = (size_t)t * dw + d;
            __m256 v = _mm256_i32gather_ps(row, _mm256_loadu_si256((const __m256i *)(p->xi + o)), 4);
            acc = _mm256_add_ps(acc, _mm256_mul_ps(v, _mm256_loadu_ps(p->xw + o)));
        }
        _mm256_storeu_ps(buf + d, acc);
    }
    for (; d < dw; d++) {
        float acc = row[p->xi[d]] * p->xw[d];
        for (uint32_t t = 1; t < p->xslots; t++) acc += row[p->xi[(size_t)t * dw + d]] * p->xw[(size_t)t * dw + d];
        buf[d] = acc;
    }
}
#endif

typedef void across_fn(const area_plan *p, const uint8_t *s, float *row, float *buf);

static void resize(const area_plan *p, float *scratch, const uint8_t *src, uint8_t *dst, across_fn *pass)
{
    uint32_t width = p->dw * p->cn, cn = p->cn;
    float *buf = scratch, *sum = scratch + width, *row = scratch + 2 * (size_t)width;
    for (uint32_t d = 0; d < width; d++) sum[d] = 0;
    int32_t prev = p->y[0].dst;
    for (uint32_t j = 0; j < p->ny; j++) {
        float beta = p->y[j].w;
        pass(p, src + (size_t)p->y[j].src * p->sw * cn, row, buf);
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

/* OpenCV's resizeAreaFast_ for uint8 (every cell inside the screen, as
   the scales are whole): at 2 x 2 with 1, 3 or 4 channels its vector op
   rounds half up, (sum + 2) >> 2; elsewhere sum * (1.f / area), half to
   even. */
static void resize_cells(const area_plan *p, const uint8_t *src, uint8_t *dst)
{
    const uint32_t cn = p->cn, sw = p->sw * cn;
    const int halves = p->ix == 2 && p->iy == 2 && (cn == 1 || cn == 3 || cn == 4);
    for (uint32_t dy = 0; dy < p->dh; dy++)
        for (uint32_t dx = 0; dx < p->dw; dx++)
            for (uint32_t c = 0; c < cn; c++) {
                const uint8_t *s = src + (size_t)dy * p->iy * sw + (size_t)dx * p->ix * cn + c;
                int32_t sum = 0;
                for (uint32_t y = 0; y < p->iy; y++)
                    for (uint32_t x = 0; x < p->ix; x++) sum += s[(size_t)y * sw + (size_t)x * cn];
                dst[((size_t)dy * p->dw + dx) * cn + c] =
                    halves ? (uint8_t)((sum + 2) >> 2) : round_u8((float)sum * p->inv_area);
            }
}

void area_resize(const area_plan *p, float *scratch, const uint8_t *src, uint8_t *dst)
{
    if (p->fast) {
        resize_cells(p, src, dst);
        return;
    }
#ifdef AREA_AVX2
    if (p->vector) {
        resize(p, scratch, src, dst, across_gray_avx2);
        return;
    }
#endif
    resize(p, scratch, src, dst, across);
}

void area_resize_scalar(const area_plan *p, float *scratch, const uint8_t *src, uint8_t *dst)
{
    if (p->fast) {
        resize_cells(p, src, dst);
        return;
    }
    resize(p, scratch, src, dst, across);
}
