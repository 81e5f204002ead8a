/* 2-D convolution as matrix products: a batch's input patches are laid
   out as the rows of one [B P][K = in_c k k] matrix (P = out_h out_w, one
   row per output pixel), so a layer's forward is one sgemm cols W^T, and
   its backward two (dW from dY^T cols, dcols from dY W) and a scatter back
   (col2im).  A row holds, for each input channel and kernel row, k
   neighbouring input pixels: laying it out copies runs of k contiguous
   floats, where the transposed layout gathered one float at a time at the
   stride.  Tensors are channel-major: x [B][in_c][in_h][in_w],
   y [B][out_c][out_h][out_w]; W [out_c][in_c][k][k] as PyTorch stores it.
   Where the CPU has AVX2 and FMA the forward's product and the weight
   gradient read the patches in place instead (conv_gather.c): no patch
   matrix, no OpenBLAS packing, no transposing pass after the forward; only
   the input gradient still goes through a patch matrix (dcols) and col2im. */
#include <stdlib.h>

#include "nn_internal.h"

int rl__conv2d_gathers(uint32_t in_c, uint32_t ph, uint32_t pw)
{
    /* koff and moff hold offsets within one sample in 32 bits */
    return rl__conv_gather_fits() && (size_t)in_c * ph * pw <= UINT32_MAX;
}

int rl_conv2d_create(rl_conv2d *c, rl_params *p, const char *prefix, uint32_t in_c, uint32_t in_h, uint32_t in_w,
                     uint32_t out_c, uint32_t k, uint32_t stride, uint32_t pad, uint32_t max_batch)
{
    memset(c, 0, sizeof *c);
    if (!in_c || !in_h || !in_w || !out_c || !k || !stride || !max_batch || in_h + 2 * pad < k || in_w + 2 * pad < k)
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
    const uint32_t ph = in_h + 2 * pad, pw = in_w + 2 * pad;
    const int gather = rl__conv2d_gathers(in_c, ph, pw);
    const size_t blocks = (out_c + RL__GATHER_NB - 1) / RL__GATHER_NB;
    c->ldyt = gather ? (uint32_t)(blocks * RL__GATHER_NB) : out_c;
    c->cols = rl_calloc_aligned(K * BP, sizeof(float));
    /* the kernel reads the columns past out_c and drops what they give */
    c->yt = rl_calloc_aligned((size_t)c->ldyt * BP, sizeof(float));
    c->dbsum = rl_calloc_aligned(out_c, sizeof(double));
    if (!c->cols || !c->yt || !c->dbsum) goto oom;
    if (gather) {
        c->wt = rl_calloc_aligned(blocks * RL__GATHER_NB * K, sizeof(float));
        c->koff = rl_calloc_aligned(K, sizeof(uint32_t));
        c->moff = rl_calloc_aligned((size_t)c->out_h * c->out_w, sizeof(uint32_t));
        if (!c->wt || !c->koff || !c->moff) goto oom;
        for (uint32_t ci = 0, i = 0; ci < in_c; ci++)
            for (uint32_t ky = 0; ky < k; ky++)
                for (uint32_t kx = 0; kx < k; kx++) c->koff[i++] = (ci * ph + ky) * pw + kx;
        for (uint32_t oy = 0, i = 0; oy < c->out_h; oy++)
            for (uint32_t ox = 0; ox < c->out_w; ox++) c->moff[i++] = oy * stride * pw + ox * stride;
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
    rl_free(c->dbsum);
    c->dbsum = NULL;
    rl_free(c->wt);
    rl_free(c->koff);
    rl_free(c->moff);
    rl_free(c->xpad);
    c->cols = c->yt = c->wt = c->xpad = NULL;
    c->koff = c->moff = NULL;
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
    case 8:
        memcpy(r, s, 8 * sizeof(float));
        break;
    case 4:
        memcpy(r, s, 4 * sizeof(float));
        break;
    case 3:
        memcpy(r, s, 3 * sizeof(float));
        break;
    default:
        memcpy(r, s, k * sizeof(float));
        break;
    }
}

/* d[0 .. k) += s[0 .. k), the common sides with constant trip counts; 8
   and 4 as whole vectors (unaligned, through memcpy). */
typedef float rl__v4 __attribute__((vector_size(16)));
static inline void add4(float *restrict d, const float *restrict s)
{
    rl__v4 a, b;
    memcpy(&a, d, sizeof a), memcpy(&b, s, sizeof b);
    a += b;
    memcpy(d, &a, sizeof a);
}

/* d[0 .. 3) += s[0 .. 3) as one 4-lane add whose fourth lane adds +0 to
   d[3], which must lie in d's row.  That lane keeps its bits: dx is a sum
   started from +0, and such a sum is never -0. */
static inline void add3_as4(float *restrict d, const float *restrict s)
{
    rl__v4 a, b = {s[0], s[1], s[2], 0.0f};
    memcpy(&a, d, sizeof a);
    a += b;
    memcpy(d, &a, sizeof a);
}

static inline void run_add(float *restrict d, const float *restrict s, uint32_t k)
{
    switch (k) {
    case 8:
        add4(d, s), add4(d + 4, s + 4);
        break;
    case 4:
        add4(d, s);
        break;
    case 3:
        for (int i = 0; i < 3; i++) d[i] += s[i];
        break;
    default:
        for (uint32_t i = 0; i < k; i++) d[i] += s[i];
        break;
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

/* The input as the in-place kernels read it: x itself, or with pad > 0 its
   copy inside xpad's zero border. */
static const float *padded(rl_conv2d *c, const float *x, uint32_t B)
{
    const uint32_t pad = c->pad, ph = c->in_h + 2 * pad, pw = c->in_w + 2 * pad;
    if (!pad) return x;
    for (size_t plane = 0; plane < (size_t)B * c->in_c; plane++)
        for (uint32_t iy = 0; iy < c->in_h; iy++)
            memcpy(c->xpad + (plane * ph + iy + pad) * pw + pad, x + (plane * c->in_h + iy) * c->in_w,
                   c->in_w * sizeof(float));
    return c->xpad;
}

/* The weight transposed into blocks of RL__GATHER_NB channels, as the
   in-place forward reads it. */
void rl__conv2d_pack(rl_conv2d *c, const float *params)
{
    if (!c->wt) return;
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
}

/* The forward with the patches read in place: the input bordered with zeros
   when padded, then conv_gather.c's product over the packed weight. */
static void forward_gather(rl_conv2d *c, const float *params, const float *x, float *y, uint32_t B)
{
    const uint32_t K = c->in_c * c->k * c->k;
    const rl__conv_gather_args g = {
        .x = padded(c, x, B),
        .wt = c->wt,
        .bias = params + c->b_off,
        .koff = c->koff,
        .y = y,
        .B = B,
        .in_c = c->in_c,
        .in_h = c->in_h + 2 * c->pad,
        .in_w = c->in_w + 2 * c->pad,
        .out_c = c->out_c,
        .out_h = c->out_h,
        .out_w = c->out_w,
        .stride = c->stride,
        .K = K,
    };
    rl__conv_gather(&g);
    /* the floor (rlhost bench --stage floor) replays it as the product it is */
    rl__ledger_count(0, 1, B * c->out_h * c->out_w, c->out_c, K);
    c->cols_x = NULL; /* the patch matrix holds nothing of this input */
}

void rl_conv2d_forward(rl_conv2d *c, const float *params, const float *x, float *y, uint32_t B)
{
    rl__conv2d_pack(c, params);
    rl__conv2d_forward_packed(c, params, x, y, B);
}

void rl__conv2d_forward_packed(rl_conv2d *c, const float *params, const float *x, float *y, uint32_t B)
{
    if (c->wt) {
        forward_gather(c, params, x, y, B);
        return;
    }
    size_t P = (size_t)c->out_h * c->out_w, BP = B * P, K = (size_t)c->in_c * c->k * c->k;
    im2col(c, x, B);
    c->cols_x = x, c->cols_b = B;
    /* yt[BP][out_c] = cols[BP][K] W^T */
    rl__sgemm(0, 1, (uint32_t)BP, c->out_c, (uint32_t)K, c->cols, (uint32_t)K, params + c->w_off, (uint32_t)K, 0.0f,
              c->yt, c->out_c);
    const float *bias = params + c->b_off;
    for (uint32_t b = 0; b < B; b++)
        for (uint32_t oc = 0; oc < c->out_c; oc++) {
            const float *src = c->yt + (size_t)b * P * c->out_c + oc;
            float *dst = y + ((size_t)b * c->out_c + oc) * P;
            for (size_t i = 0; i < P; i++) dst[i] = src[i * c->out_c] + bias[oc];
        }
}

void rl_conv2d_backward(rl_conv2d *c, const float *params, float *grad, const float *x, const float *dy, float *dx,
                        uint32_t B)
{
    size_t P = (size_t)c->out_h * c->out_w, BP = B * P, K = (size_t)c->in_c * c->k * c->k;
    const uint32_t ld = c->ldyt, out_c = c->out_c;
    /* dY as [B P][ld], 16 pixels at a time so that both sides stay in L1 */
    for (uint32_t b = 0; b < B; b++)
        for (size_t i0 = 0; i0 < P; i0 += 16) {
            const size_t n = P - i0 < 16 ? P - i0 : 16;
            float *dst = c->yt + ((size_t)b * P + i0) * ld;
            for (uint32_t oc = 0; oc < out_c; oc++) {
                const float *src = dy + ((size_t)b * out_c + oc) * P + i0;
                for (size_t i = 0; i < n; i++) dst[i * ld + oc] = src[i];
            }
        }
    /* db: each channel's sum in double over the pixels in order, the
       channels side by side */
    double *s = c->dbsum;
    memset(s, 0, out_c * sizeof *s);
    for (size_t m = 0; m < BP; m++) {
        const float *row = c->yt + m * ld;
        for (uint32_t oc = 0; oc < out_c; oc++) s[oc] += row[oc];
    }
    float *db = grad + c->b_off;
    for (uint32_t oc = 0; oc < out_c; oc++) db[oc] += (float)s[oc];
    /* dW[out_c][K] += dY^T cols */
    if (c->wt) {
        const rl__conv_gather_args g = {
            .x = padded(c, x, B),
            .koff = c->koff,
            .dyt = c->yt,
            .moff = c->moff,
            .dw = grad + c->w_off,
            .B = B,
            .in_c = c->in_c,
            .in_h = c->in_h + 2 * c->pad,
            .in_w = c->in_w + 2 * c->pad,
            .out_c = c->out_c,
            .out_h = c->out_h,
            .out_w = c->out_w,
            .stride = c->stride,
            .K = (uint32_t)K,
            .ld = ld,
        };
        rl__conv_gather_dw(&g);
        rl__ledger_count(1, 0, c->out_c, (uint32_t)K, (uint32_t)BP); /* as the sgemm it replaces */
    } else {
        if (c->cols_x != x || c->cols_b != B) im2col(c, x, B); /* another forward ran since */
        rl__sgemm(1, 0, c->out_c, (uint32_t)K, (uint32_t)BP, c->yt, ld, c->cols, (uint32_t)K, 1.0f, grad + c->w_off,
                  (uint32_t)K);
    }
    if (!dx) return;
    /* dcols[BP][K] = dY W, then scattered back into dx (col2im); fused.c's
       kernel stores the product without zeroing cols first */
    const rl__epilogue set = {.kind = RL__EPI_SET};
    rl__fused_gemm(0, 0, (uint32_t)BP, (uint32_t)K, c->out_c, c->yt, ld, params + c->w_off, (uint32_t)K, c->cols, &set);
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
                    if (k == 3 && pt.ix0 + 4 <= (long)in_w) { /* the row has a fourth float here */
                        for (uint32_t ci = 0; ci < in_c; ci++, dst += plane)
                            for (uint32_t ky = 0; ky < 3; ky++, r += 3) add3_as4(dst + (size_t)ky * in_w, r);
                        continue;
                    }
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

int rl__conv2d_op(const rl_conv2d *c, const char *name, char *buf, size_t cap)
{
    return rl__append(buf, cap,
                      "{\"op\":\"conv2d\",\"weight\":\"%s.weight\",\"bias\":\"%s.bias\",\"in_c\":%u,\"in_h\":%u,"
                      "\"in_w\":%u,\"out_c\":%u,\"kernel\":%u,\"stride\":%u,\"pad\":%u}",
                      name, name, c->in_c, c->in_h, c->in_w, c->out_c, c->k, c->stride, c->pad);
}
