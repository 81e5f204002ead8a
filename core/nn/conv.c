/* 2-D convolution as matrix products: a batch's input patches are laid
   out as the rows of one [B P][K = in_c k k] matrix (P = out_h out_w, one
   row per output pixel), so a layer's forward is one sgemm cols W^T, and
   its backward two (dW from dY^T cols, dcols from dY W) and a scatter back
   (col2im).  A row holds, for each input channel and kernel row, k
   neighbouring input pixels: laying it out copies runs of k contiguous
   floats, where the transposed layout gathered one float at a time at the
   stride.  Tensors are channel-major: x [B][in_c][in_h][in_w],
   y [B][out_c][out_h][out_w]; W [out_c][in_c][k][k] as PyTorch stores it.
   Where the CPU has AVX2 and FMA the forward's product reads the patches in
   place instead (conv_gather.c): no patch matrix, no OpenBLAS packing, no
   transposing pass; backward lays the patches out as before. */
#include <stdlib.h>

#include "nn_internal.h"

int rl_conv2d_create(rl_conv2d *c, rl_params *p, const char *prefix, uint32_t in_c, uint32_t in_h,
                     uint32_t in_w, uint32_t out_c, uint32_t k, uint32_t stride, uint32_t pad,
                     uint32_t max_batch)
{
    memset(c, 0, sizeof *c);
    if (!in_c || !in_h || !in_w || !out_c || !k || !stride || !max_batch || in_h + 2 * pad < k ||
        in_w + 2 * pad < k)
        return RL_EINVAL;
    c->in_c = in_c, c->in_h = in_h, c->in_w = in_w, c->out_c = out_c;
    c->k = k, c->stride = stride, c->pad = pad, c->max_batch = max_batch;
    c->out_h = (in_h + 2 * pad - k) / stride + 1;
    c->out_w = (in_w + 2 * pad - k) / stride + 1;
    char name[128];
    snprintf(name, sizeof name, "%s.weight", prefix);
    c->w_off = rl_params_add(p, name, out_c, in_c * k * k);
    snprintf(name, sizeof name, "%s.bias", prefix);
    c->b_off = rl_params_add(p, name, out_c, 1);
    size_t K = (size_t)in_c * k * k, BP = (size_t)max_batch * c->out_h * c->out_w;
    c->cols = rl_calloc_aligned(K * BP, sizeof(float));
    c->yt = rl_calloc_aligned((size_t)out_c * BP, sizeof(float));
    if (!c->cols || !c->yt) goto oom;
    const uint32_t ph = in_h + 2 * pad, pw = in_w + 2 * pad;
    /* koff holds a patch element's offset within one sample in 32 bits */
    if (rl__conv_gather_fits() && (size_t)in_c * ph * pw <= UINT32_MAX) {
        size_t blocks = (out_c + RL__GATHER_NB - 1) / RL__GATHER_NB;
        c->wt = rl_calloc_aligned(blocks * RL__GATHER_NB * K, sizeof(float));
        c->koff = rl_calloc_aligned(K, sizeof(uint32_t));
        if (!c->wt || !c->koff) goto oom;
        for (uint32_t ci = 0, i = 0; ci < in_c; ci++)
            for (uint32_t ky = 0; ky < k; ky++)
                for (uint32_t kx = 0; kx < k; kx++) c->koff[i++] = (ci * ph + ky) * pw + kx;
        if (pad) { /* the border stays zero: only the inside is ever written */
            c->xpad = rl_calloc_aligned((size_t)max_batch * in_c * ph * pw, sizeof(float));
            if (!c->xpad) goto oom;
        }
    }
    return RL_OK;
oom:
    rl_conv2d_destroy(c);
    return RL_ENOMEM;
}

void rl_conv2d_destroy(rl_conv2d *c)
{
    rl_free(c->cols);
    rl_free(c->yt);
    rl_free(c->wt);
    rl_free(c->koff);
    rl_free(c->xpad);
    c->cols = c->yt = c->wt = c->xpad = NULL;
    c->koff = NULL;
}

/* Where output pixel (oy, ox)'s patch lies: its top-left input pixel
   (iy0, ix0), the kernel columns [lo, hi) inside the input (the rest is
   padding), and whether the whole patch is inside the image. */
typedef struct patch {
    long iy0, ix0;
    uint32_t lo, hi;
    int inside;
} patch;

static patch patch_at(const rl_conv2d *c, uint32_t oy, uint32_t ox)
{
    patch p = {(long)oy * c->stride - (long)c->pad, (long)ox * c->stride - (long)c->pad, 0, 0, 0};
    long a = p.ix0 < 0 ? -p.ix0 : 0, b = (long)c->in_w - p.ix0;
    if (b > (long)c->k) b = c->k;
    if (b < a) b = a;
    p.lo = (uint32_t)a, p.hi = (uint32_t)b;
    p.inside = p.lo == 0 && p.hi == c->k && p.iy0 >= 0 && p.iy0 + (long)c->k <= (long)c->in_h;
    return p;
}

/* k floats from s to r: the common kernel sides as fixed-size copies. */
static inline void run_copy(float *restrict r, const float *restrict s, uint32_t k)
{
    switch (k) {
    case 8: memcpy(r, s, 8 * sizeof(float)); break;
    case 4: memcpy(r, s, 4 * sizeof(float)); break;
    case 3: memcpy(r, s, 3 * sizeof(float)); break;
    default: memcpy(r, s, k * sizeof(float)); break;
    }
}

/* d[0 .. k) += s[0 .. k), the common sides with constant trip counts. */
static inline void run_add(float *restrict d, const float *restrict s, uint32_t k)
{
    switch (k) {
    case 8: for (int i = 0; i < 8; i++) d[i] += s[i]; break;
    case 4: for (int i = 0; i < 4; i++) d[i] += s[i]; break;
    case 3: for (int i = 0; i < 3; i++) d[i] += s[i]; break;
    default: for (uint32_t i = 0; i < k; i++) d[i] += s[i]; break;
    }
}

/* cols[b P + oy ow + ox][(ci k + ky) k + kx] = x[b][ci][oy s + ky - pad][ox s + kx - pad], 0 outside. */
static void im2col(const rl_conv2d *c, const float *restrict x, uint32_t B)
{
    const uint32_t k = c->k, K = c->in_c * k * k, in_c = c->in_c, in_h = c->in_h, in_w = c->in_w;
    const size_t plane = (size_t)in_h * in_w;
    float *restrict d = c->cols;
    for (uint32_t b = 0; b < B; b++) {
        const float *xb = x + (size_t)b * in_c * plane;
        for (uint32_t oy = 0; oy < c->out_h; oy++)
            for (uint32_t ox = 0; ox < c->out_w; ox++, d += K) {
                const patch pt = patch_at(c, oy, ox);
                const uint32_t lo = pt.lo, hi = pt.hi;
                if (pt.inside) { /* the whole patch lies in the image: k-float runs */
                    const float *src = xb + (size_t)pt.iy0 * in_w + pt.ix0;
                    float *r = d;
                    for (uint32_t ci = 0; ci < in_c; ci++, src += plane)
                        for (uint32_t ky = 0; ky < k; ky++, r += k) run_copy(r, src + (size_t)ky * in_w, k);
                    continue;
                }
                for (uint32_t ci = 0; ci < in_c; ci++)
                    for (uint32_t ky = 0; ky < k; ky++) {
                        float *r = d + ((size_t)ci * k + ky) * k;
                        long iy = pt.iy0 + ky;
                        if (iy < 0 || iy >= (long)in_h || lo == hi) {
                            memset(r, 0, k * sizeof(float));
                            continue;
                        }
                        const float *src = xb + ci * plane + (size_t)iy * in_w + pt.ix0;
                        for (uint32_t kx = 0; kx < lo; kx++) r[kx] = 0.0f;
                        for (uint32_t kx = lo; kx < hi; kx++) r[kx] = src[kx];
                        for (uint32_t kx = hi; kx < k; kx++) r[kx] = 0.0f;
                    }
            }
    }
}

/* The forward with the patches read in place: the weight transposed into
   blocks of RL__GATHER_NB channels, the input bordered with zeros when
   padded, then conv_gather.c's product. */
static void forward_gather(rl_conv2d *c, const float *params, const float *x, float *y, uint32_t B)
{
    const uint32_t K = c->in_c * c->k * c->k, NB = RL__GATHER_NB;
    const float *w = params + c->w_off;
    for (uint32_t j0 = 0; j0 < c->out_c; j0 += NB) {
        float *blk = c->wt + (size_t)j0 * K; /* zeros past out_c stay from the calloc */
        const uint32_t n = c->out_c - j0 < NB ? c->out_c - j0 : NB;
        for (uint32_t j = 0; j < n; j++) {
            const float *row = w + (size_t)(j0 + j) * K;
            for (uint32_t kk = 0; kk < K; kk++) blk[(size_t)kk * NB + j] = row[kk];
        }
    }
    const uint32_t pad = c->pad, ph = c->in_h + 2 * pad, pw = c->in_w + 2 * pad;
    if (pad) {
        for (size_t plane = 0; plane < (size_t)B * c->in_c; plane++)
            for (uint32_t iy = 0; iy < c->in_h; iy++)
                memcpy(c->xpad + (plane * ph + iy + pad) * pw + pad, x + (plane * c->in_h + iy) * c->in_w,
                       c->in_w * sizeof(float));
        x = c->xpad;
    }
    const rl__conv_gather_args g = {
        .x = x, .wt = c->wt, .bias = params + c->b_off, .koff = c->koff, .y = y, .B = B,
        .in_c = c->in_c, .in_h = ph, .in_w = pw, .out_c = c->out_c, .out_h = c->out_h,
        .out_w = c->out_w, .stride = c->stride, .K = K,
    };
    rl__conv_gather(&g);
    /* the floor (rlhost bench --stage floor) replays it as the product it is */
    rl__ledger_count(0, 1, B * c->out_h * c->out_w, c->out_c, K);
    c->cols_x = NULL; /* the patch matrix holds nothing of this input */
}

void rl_conv2d_forward(rl_conv2d *c, const float *params, const float *x, float *y, uint32_t B)
{
    if (c->wt) {
        forward_gather(c, params, x, y, B);
        return;
    }
    size_t P = (size_t)c->out_h * c->out_w, BP = B * P, K = (size_t)c->in_c * c->k * c->k;
    im2col(c, x, B);
    c->cols_x = x, c->cols_b = B;
    /* yt[BP][out_c] = cols[BP][K] W^T */
    rl__sgemm(0, 1, (uint32_t)BP, c->out_c, (uint32_t)K, c->cols, (uint32_t)K, params + c->w_off, (uint32_t)K,
              0.0f, c->yt, c->out_c);
    const float *bias = params + c->b_off;
    for (uint32_t b = 0; b < B; b++)
        for (uint32_t oc = 0; oc < c->out_c; oc++) {
            const float *src = c->yt + (size_t)b * P * c->out_c + oc;
            float *dst = y + ((size_t)b * c->out_c + oc) * P;
            for (size_t i = 0; i < P; i++) dst[i] = src[i * c->out_c] + bias[oc];
        }
}

void rl_conv2d_backward(rl_conv2d *c, const float *params, float *grad, const float *x, const float *dy,
                        float *dx, uint32_t B)
{
    size_t P = (size_t)c->out_h * c->out_w, BP = B * P, K = (size_t)c->in_c * c->k * c->k;
    float *db = grad + c->b_off;
    for (uint32_t oc = 0; oc < c->out_c; oc++) { /* dY as [B P][out_c], and db */
        double s = 0;
        for (uint32_t b = 0; b < B; b++) {
            const float *src = dy + ((size_t)b * c->out_c + oc) * P;
            float *dst = c->yt + (size_t)b * P * c->out_c + oc;
            for (size_t i = 0; i < P; i++) {
                dst[i * c->out_c] = src[i];
                s += src[i];
            }
        }
        db[oc] += (float)s;
    }
    if (c->cols_x != x || c->cols_b != B) im2col(c, x, B); /* another forward ran since */
    /* dW[out_c][K] += dY^T cols */
    rl__sgemm(1, 0, c->out_c, (uint32_t)K, (uint32_t)BP, c->yt, c->out_c, c->cols, (uint32_t)K, 1.0f,
              grad + c->w_off, (uint32_t)K);
    if (!dx) return;
    /* dcols[BP][K] = dY W, then scattered back into dx (col2im) */
    rl__sgemm(0, 0, (uint32_t)BP, (uint32_t)K, c->out_c, c->yt, c->out_c, params + c->w_off, (uint32_t)K, 0.0f,
              c->cols, (uint32_t)K);
    c->cols_x = NULL; /* cols holds gradients now */
    const uint32_t k = c->k, in_c = c->in_c, in_h = c->in_h, in_w = c->in_w;
    const size_t plane = (size_t)in_h * in_w;
    memset(dx, 0, (size_t)B * in_c * plane * sizeof(float));
    const float *restrict d = c->cols;
    for (uint32_t b = 0; b < B; b++) {
        float *xb = dx + (size_t)b * in_c * plane;
        for (uint32_t oy = 0; oy < c->out_h; oy++)
            for (uint32_t ox = 0; ox < c->out_w; ox++, d += K) {
                const patch pt = patch_at(c, oy, ox);
                if (pt.inside) {
                    float *dst = xb + (size_t)pt.iy0 * in_w + pt.ix0;
                    const float *r = d;
                    for (uint32_t ci = 0; ci < in_c; ci++, dst += plane)
                        for (uint32_t ky = 0; ky < k; ky++, r += k) run_add(dst + (size_t)ky * in_w, r, k);
                    continue;
                }
                for (uint32_t ci = 0; ci < in_c; ci++)
                    for (uint32_t ky = 0; ky < k; ky++) {
                        long iy = pt.iy0 + ky;
                        if (iy < 0 || iy >= (long)in_h) continue;
                        const float *r = d + ((size_t)ci * k + ky) * k;
                        float *dst = xb + ci * plane + (size_t)iy * in_w + pt.ix0;
                        for (uint32_t kx = pt.lo; kx < pt.hi; kx++) dst[kx] += r[kx];
                    }
            }
    }
}
