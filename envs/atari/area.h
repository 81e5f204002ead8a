/* OpenCV's INTER_AREA resize of uint8 images, bit for bit (cv2.resize
   with interpolation=INTER_AREA, as Gymnasium's AtariPreprocessing calls
   it) for a shrink in both axes.  OpenCV builds tables of (source,
   destination, weight) per axis in double, stores the weights as float,
   sums each source row's taps into a float row and each destination row's
   rows into a float sum in table order, then rounds half to even; the same
   float operations in the same order give the same bytes.  This file is
   compiled without contraction into fused multiply-adds (-ffp-contract=off),
   which would change the sums' rounding.
   Where both scales are whole numbers (a side that divides the screen's:
   210 x 160 to 10 x 10 is 21 x 16 pixels a cell) OpenCV takes another
   path, reproduced too: each cell's integer sum times the float 1 / area,
   rounded half to even. */
#ifndef RLHOST_AREA_H
#define RLHOST_AREA_H

#include <stddef.h>
#include <stdint.h>

typedef struct area_tap {
    int32_t src, dst;
    float w;
} area_tap;

typedef struct area_plan {
    uint32_t sh, sw, dh, dw, cn;
    area_tap *x, *y; /* OpenCV's xtab (offsets times cn) and ytab */
    uint32_t nx, ny;
    /* whether area_resize takes the vector pass (one channel, AVX2 here),
       chosen once; then x again by slot for it: destination column d's t-th
       tap reads source pixel xi[t dw + d] with weight xw[t dw + d]; a column
       with fewer taps than xslots has weight 0 in the rest */
    int vector;
    uint32_t xslots;
    int32_t *xi;
    float *xw;
    /* OpenCV's integer-scale path: cells of ix x iy source pixels */
    int fast;
    uint32_t ix, iy;
    float inv_area;
} area_plan;

/* 0, or -1 (out of memory; or not a shrink: dh > sh or dw > sw). */
int area_plan_init(area_plan *p, uint32_t sh, uint32_t sw, uint32_t dh, uint32_t dw, uint32_t cn);
void area_plan_free(area_plan *p);
/* Floats of the scratch one resize needs (each concurrent call its own;
   the plan itself is read-only and shared). */
static inline size_t area_scratch_floats(const area_plan *p)
{
    return (2 * (size_t)p->dw + p->sw) * p->cn;
}
/* src: sh x sw x cn, dst: dh x dw x cn, both row-major and packed. */
void area_resize(const area_plan *p, float *scratch, const uint8_t *src, uint8_t *dst);
/* The same with the scalar loop on every host (the tests compare the two). */
void area_resize_scalar(const area_plan *p, float *scratch, const uint8_t *src, uint8_t *dst);

#endif
