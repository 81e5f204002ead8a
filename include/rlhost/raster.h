/* Drawing helpers for an env's raster frame (rl.env.raster/1): an RGB
   image of h x w pixels, row-major, 3 bytes a pixel.  Coordinates are
   pixels as doubles, y down; every shape is clipped to the image. */
#ifndef RLHOST_RASTER_H
#define RLHOST_RASTER_H

#include <math.h>
#include <stdint.h>

typedef struct rl_raster {
    uint8_t *rgb;
    uint32_t h, w;
} rl_raster;

typedef struct rl_rgb {
    uint8_t r, g, b;
} rl_rgb;

static inline void rl_raster_put(const rl_raster *im, int x, int y, rl_rgb c)
{
    if (x < 0 || y < 0 || (uint32_t)x >= im->w || (uint32_t)y >= im->h) return;
    uint8_t *p = im->rgb + 3 * ((size_t)y * im->w + (size_t)x);
    p[0] = c.r;
    p[1] = c.g;
    p[2] = c.b;
}

static inline void rl_raster_fill(const rl_raster *im, rl_rgb c)
{
    for (uint32_t y = 0; y < im->h; y++)
        for (uint32_t x = 0; x < im->w; x++) rl_raster_put(im, (int)x, (int)y, c);
}

/* The pixels whose centres lie in [x0, x1) x [y0, y1). */
static inline void rl_raster_rect(const rl_raster *im, double x0, double y0, double x1, double y1, rl_rgb c)
{
    int xa = (int)ceil(x0 - 0.5), xb = (int)ceil(x1 - 0.5), ya = (int)ceil(y0 - 0.5), yb = (int)ceil(y1 - 0.5);
    if (xa < 0) xa = 0;
    if (ya < 0) ya = 0;
    if (xb > (int)im->w) xb = (int)im->w;
    if (yb > (int)im->h) yb = (int)im->h;
    for (int y = ya; y < yb; y++)
        for (int x = xa; x < xb; x++) rl_raster_put(im, x, y, c);
}

/* The pixels whose centres lie within `radius` of the segment (x0, y0) -
   (x1, y1): a line `2 radius` thick with round ends (a disk when the
   segment is a point). */
static inline void rl_raster_segment(const rl_raster *im, double x0, double y0, double x1, double y1, double radius,
                                     rl_rgb c)
{
    double dx = x1 - x0, dy = y1 - y0, len2 = dx * dx + dy * dy;
    int xa = (int)floor(fmin(x0, x1) - radius), xb = (int)ceil(fmax(x0, x1) + radius);
    int ya = (int)floor(fmin(y0, y1) - radius), yb = (int)ceil(fmax(y0, y1) + radius);
    if (xa < 0) xa = 0;
    if (ya < 0) ya = 0;
    if (xb > (int)im->w - 1) xb = (int)im->w - 1;
    if (yb > (int)im->h - 1) yb = (int)im->h - 1;
    for (int y = ya; y <= yb; y++)
        for (int x = xa; x <= xb; x++) {
            double px = x + 0.5 - x0, py = y + 0.5 - y0;
            double t = len2 > 0 ? (px * dx + py * dy) / len2 : 0;
            t = t < 0 ? 0 : t > 1 ? 1 : t;
            double ex = px - t * dx, ey = py - t * dy;
            if (ex * ex + ey * ey <= radius * radius) rl_raster_put(im, x, y, c);
        }
}

#endif
