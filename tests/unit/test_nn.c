/* NN library: every backward against central finite differences (float
   forward, double loss), Adam against the published rule on hand-computed
   values, clipping, initialisation, determinism. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rlhost/nn.h>

#include "nn_internal.h" /* librlcore internals under test: rl__fused_gemm */

#include "../tap.h"

/* A scalar "loss" L = sum_i r_i y_i with fixed random r, so dL/dy = r. */
static double project(const float *y, const float *r, size_t n)
{
    double s = 0;
    for (size_t i = 0; i < n; i++) s += (double)y[i] * r[i];
    return s;
}

static void fill(float *v, size_t n, rl_rng *rng, float scale)
{
    for (size_t i = 0; i < n; i++) v[i] = (2.0f * rl_rng_uniform(rng) - 1.0f) * scale;
}

/* Compares analytic gradients g[0..n) of values v against central
   differences of loss(); reports the worst relative error. */
typedef double (*loss_fn)(void *ctx);
static int grad_check(const char *what, float *v, const float *g, size_t n, loss_fn loss, void *ctx, double eps,
                      double tol)
{
    double worst = 0;
    size_t worst_i = 0;
    for (size_t i = 0; i < n; i++) {
        float keep = v[i];
        v[i] = keep + (float)eps;
        double lp = loss(ctx);
        v[i] = keep - (float)eps;
        double lm = loss(ctx);
        v[i] = keep;
        double num = (lp - lm) / (2 * eps);
        double err = fabs(num - g[i]) / fmax(1.0, fabs(num) + fabs(g[i]));
        if (err > worst) {
            worst = err;
            worst_i = i;
        }
    }
    char label[160];
    snprintf(label, sizeof label, "%s: %zu gradients match finite differences", what, n);
    if (!OK(worst <= tol, label)) printf("#   worst relative error %g at %zu (tol %g)\n", worst, worst_i, tol);
    return worst <= tol;
}

/* ---- Linear ---- */
typedef struct lin_ctx {
    float *x, *w, *b, *y, *r;
    uint32_t B, in, out;
} lin_ctx;

static double lin_loss(void *p)
{
    lin_ctx *c = p;
    rl_linear_forward(c->y, c->x, c->w, c->b, c->B, c->in, c->out);
    return project(c->y, c->r, (size_t)c->B * c->out);
}

static void test_linear(rl_rng *rng)
{
    for (uint32_t B = 1; B <= 5; B += 4) {
        lin_ctx c = {0};
        c.B = B;
        c.in = 7;
        c.out = 5;
        float x[35], w[35], b[5], y[25], r[25], dx[35] = {0}, dw[35] = {0}, db[5] = {0};
        c.x = x, c.w = w, c.b = b, c.y = y, c.r = r;
        fill(x, B * 7, rng, 1), fill(w, 35, rng, 0.5f), fill(b, 5, rng, 0.5f), fill(r, B * 5, rng, 1);
        lin_loss(&c);
        rl_linear_backward(dx, dw, db, r, x, w, B, 7, 5);
        char what[64];
        snprintf(what, sizeof what, "linear B=%u weight", B);
        grad_check(what, w, dw, 35, lin_loss, &c, 1e-2, 1e-3);
        snprintf(what, sizeof what, "linear B=%u bias", B);
        grad_check(what, b, db, 5, lin_loss, &c, 1e-2, 1e-3);
        snprintf(what, sizeof what, "linear B=%u input", B);
        grad_check(what, x, dx, B * 7, lin_loss, &c, 1e-2, 1e-3);
    }
}

/* ---- MLP ---- */
typedef struct mlp_ctx {
    rl_mlp m;
    rl_params p;
    float *x, *r;
    uint32_t B;
} mlp_ctx;

static double mlp_loss(void *p)
{
    mlp_ctx *c = p;
    const float *y = rl_mlp_forward(&c->m, c->p.data, c->x, c->B);
    return project(y, c->r, (size_t)c->B * rl_mlp_out_dim(&c->m));
}

static void test_mlp(rl_rng *rng, rl_activation act, const char *name)
{
    mlp_ctx c;
    memset(&c, 0, sizeof c);
    uint32_t hidden[2] = {16, 12};
    c.B = 6;
    OK(rl_mlp_create(&c.m, &c.p, "q", 9, hidden, 2, 4, act, 8) == RL_OK, "mlp create");
    OK(rl_params_alloc(&c.p) == RL_OK, "mlp params alloc");
    rl_mlp_init(&c.m, &c.p, RL_INIT_DEFAULT, 1.0f, rng);
    float x[54], r[24], dx[54] = {0};
    c.x = x, c.r = r;
    fill(x, 54, rng, 1), fill(r, 24, rng, 1);
    mlp_loss(&c);
    rl_mlp_backward(&c.m, c.p.data, c.p.grad, x, r, dx, c.B);
    char what[64];
    snprintf(what, sizeof what, "mlp (%s) parameters", name);
    grad_check(what, c.p.data, c.p.grad, c.p.n, mlp_loss, &c, 1e-3, 2e-2);
    snprintf(what, sizeof what, "mlp (%s) input", name);
    grad_check(what, x, dx, 54, mlp_loss, &c, 1e-3, 2e-2);
    rl_mlp_destroy(&c.m);
    rl_params_free(&c.p);
}

/* ---- MLP with batch renormalization ---- */
typedef struct renorm_ctx {
    rl_mlp m;
    rl_params p;
    float *x, *r;
    uint32_t B;
    int train, renorm;
} renorm_ctx;

static double renorm_loss(void *p)
{
    renorm_ctx *c = p;
    const float *y = c->train ? rl_mlp_forward_train(&c->m, c->p.data, c->x, c->B, c->renorm)
                              : rl_mlp_forward(&c->m, c->p.data, c->x, c->B);
    return project(y, c->r, (size_t)c->B * rl_mlp_out_dim(&c->m));
}

/* The learned values' analytic gradients against finite differences: every
   tensor but the running statistics, whose gradients stay 0 (a training
   forward does not differentiate through them: r and d are constants). */
static void renorm_grad_check(renorm_ctx *c, const char *what)
{
    float dx[60] = {0};
    rl_params_zero_grad(&c->p);
    renorm_loss(c);
    rl_mlp_backward(&c->m, c->p.data, c->p.grad, c->x, c->r, dx, c->B);
    int stats_zero = 1;
    for (uint32_t t = 0; t < c->p.n_tensors; t++) {
        const rl_param_tensor *pt = &c->p.tensors[t];
        size_t n = (size_t)pt->rows * pt->cols;
        char label[96];
        snprintf(label, sizeof label, "%s %s", what, pt->name);
        if (strstr(pt->name, "bn_mean") || strstr(pt->name, "bn_var")) {
            for (size_t k = 0; k < n; k++) stats_zero &= c->p.grad[pt->offset + k] == 0.0f;
            continue;
        }
        grad_check(label, c->p.data + pt->offset, c->p.grad + pt->offset, n, renorm_loss, c, 1e-3, 2e-2);
    }
    char label[96];
    snprintf(label, sizeof label, "%s: the running statistics get no gradient", what);
    OK(stats_zero, label);
    snprintf(label, sizeof label, "%s input", what);
    grad_check(label, c->x, dx, (size_t)c->B * c->m.dims[0], renorm_loss, c, 1e-3, 2e-2);
}

static void test_renorm(rl_rng *rng)
{
    renorm_ctx c;
    memset(&c, 0, sizeof c);
    uint32_t hidden[2] = {7, 6};
    c.B = 6;
    /* momentum 0: the running statistics stay put while differences are taken */
    OK(rl_mlp_create_renorm(&c.m, &c.p, "q", 5, hidden, 2, 3, RL_ACT_TANH, 8, 0.0f, 1e-3f) == RL_OK,
       "renorm mlp create");
    OK(rl_params_alloc(&c.p) == RL_OK, "renorm mlp params alloc");
    rl_mlp_init(&c.m, &c.p, RL_INIT_DEFAULT, 1.0f, rng);
    float x[40], r[24];
    c.x = x, c.r = r;
    fill(x, 40, rng, 1), fill(r, 24, rng, 1);
    for (uint32_t l = 0; l < c.m.n_layers; l++) { /* scales and biases away from 1 and 0 */
        float *scale = c.p.data + c.m.bn_off[l][0], *bias = c.p.data + c.m.bn_off[l][1];
        for (uint32_t j = 0; j < c.m.dims[l]; j++) scale[j] = 0.5f + rl_rng_uniform(rng), bias[j] = 0.3f;
    }
    c.train = 1;
    renorm_grad_check(&c, "renorm mlp (batch statistics)");
    /* running statistics that clip r to 1/3 and d to 5 whatever the batch
       (so both are constants indeed): the renormalized statistics'
       gradients */
    for (uint32_t l = 0; l < c.m.n_layers; l++) {
        float *mean = c.p.data + c.m.bn_off[l][2], *var = c.p.data + c.m.bn_off[l][3];
        for (uint32_t j = 0; j < c.m.dims[l]; j++) mean[j] = -1000.0f, var[j] = 1e4f;
    }
    c.renorm = 1;
    renorm_grad_check(&c, "renorm mlp (renormalized)");
    c.train = 0;
    for (uint32_t l = 0; l < c.m.n_layers; l++) {
        float *mean = c.p.data + c.m.bn_off[l][2], *var = c.p.data + c.m.bn_off[l][3];
        for (uint32_t j = 0; j < c.m.dims[l]; j++) mean[j] = 0.2f, var[j] = 0.7f;
    }
    renorm_grad_check(&c, "renorm mlp (running statistics)");

    /* the running statistics move by momentum towards the batch's mean and
       unbiased variance */
    c.m.bn_momentum = 0.25f;
    const float *mean0 = c.p.data + c.m.bn_off[0][2], *var0 = c.p.data + c.m.bn_off[0][3];
    rl_mlp_forward_train(&c.m, c.p.data, x, c.B, 0);
    double mu = 0, v = 0;
    for (uint32_t i = 0; i < c.B; i++) mu += x[i * 5] / (double)c.B;
    for (uint32_t i = 0; i < c.B; i++) v += (x[i * 5] - mu) * (x[i * 5] - mu) / (c.B - 1);
    OK(fabs(mean0[0] - (0.2 + 0.25 * (mu - 0.2))) < 1e-6 && fabs(var0[0] - (0.7 + 0.25 * (v - 0.7))) < 1e-6,
       "renorm: running mean and variance move by momentum towards the batch's (unbiased variance)");

    /* a NaN in a batch leaves that feature's running statistics be, and the others move */
    float keep_m = mean0[0], keep_v = var0[0], keep_m1 = mean0[1], saved = x[5];
    x[5] = NAN; /* row 1, feature 0 */
    rl_mlp_forward_train(&c.m, c.p.data, x, c.B, 0);
    OK(mean0[0] == keep_m && var0[0] == keep_v && mean0[1] != keep_m1 && isfinite(mean0[1]),
       "renorm: a feature with a NaN in the batch keeps its running statistics");
    x[5] = saved;

    /* rows by running statistics do not depend on the batch (action selection) */
    float one[3 * 6], all[3 * 6];
    memcpy(all, rl_mlp_infer(&c.m, c.p.data, x, c.B), sizeof all);
    for (uint32_t i = 0; i < c.B; i++)
        memcpy(one + 3 * i, rl_mlp_infer(&c.m, c.p.data, x + 5 * i, 1), 3 * sizeof(float));
    OK(memcmp(one, all, sizeof one) == 0, "renorm: a row's inference is the same alone and in a batch");
    const float *fw = rl_mlp_forward(&c.m, c.p.data, x, c.B);
    double worst = 0;
    for (size_t k = 0; k < 18; k++) worst = fmax(worst, fabs(fw[k] - all[k]));
    OK(worst < 1e-5, "renorm: inference agrees with the forward by running statistics");

    char err[160] = "";
    OK(rl_mlp_check_stats(&c.m, &c.p, "", err, sizeof err) == 0, "renorm: running variances >= 0 pass the check");
    c.p.data[c.m.bn_off[1][3] + 2] = -1.0f;
    OK(rl_mlp_check_stats(&c.m, &c.p, "best/", err, sizeof err) == -1 && strstr(err, "'best/q/layer1.bn_var'"),
       "renorm: a negative running variance is refused, naming its tensor");
    char ops[4096] = "";
    OK(rl_mlp_ops(&c.m, "q", ops, sizeof ops) == 0 &&
           strstr(ops, "{\"op\":\"batchnorm\",\"scale\":\"q/layer0.bn_scale\"") &&
           strstr(ops, "\"eps\":0.00100000005,\"size\":5}"),
       "renorm: the ops name each layer's batchnorm before its linear");
    rl_mlp_destroy(&c.m);
    rl_params_free(&c.p);
    rl_params q = {0};
    rl_mlp bad;
    OK(rl_mlp_create_renorm(&bad, &q, "q", 5, hidden, 2, 3, RL_ACT_TANH, 8, 1.5f, 1e-3f) == RL_EINVAL,
       "renorm: a momentum outside [0, 1] is refused");
    rl_params_free(&q);
}

/* ---- Trunk with two heads ---- */
typedef struct trunk_ctx {
    rl_trunk t;
    rl_params p;
    float *x, *r[2];
    uint32_t B;
    int heads; /* bit h: head h in the loss */
} trunk_ctx;

static double trunk_loss(void *p)
{
    trunk_ctx *c = p;
    const float *out[2];
    rl_trunk_forward(&c->t, c->p.data, c->x, c->B, 0, out);
    double l = 0;
    for (uint32_t h = 0; h < 2; h++)
        if (c->heads >> h & 1) l += project(out[h], c->r[h], (size_t)c->B * c->t.heads[h].dims[c->t.heads[h].n_layers]);
    return l;
}

static void test_trunk(rl_rng *rng)
{
    trunk_ctx c;
    memset(&c, 0, sizeof c);
    uint32_t hidden[2] = {10, 8};
    const rl_trunk_head heads[2] = {{.name = "pi", .out_dim = 3},
                                    {.name = "v", .out_dim = 1, .n_hidden = 1, .hidden = {5}}};
    OK(rl_trunk_create(&c.t, &c.p, "ac", 7, hidden, 2, RL_ACT_TANH, heads, 0, 8) == RL_EINVAL &&
           rl_trunk_create(&c.t, &c.p, "ac", 7, hidden, 0, RL_ACT_TANH, heads, 2, 8) == RL_EINVAL,
       "trunk: no heads, or no body layer, is refused");
    memset(&c.p, 0, sizeof c.p);
    c.B = 5;
    OK(rl_trunk_create(&c.t, &c.p, "ac", 7, hidden, 2, RL_ACT_TANH, heads, 2, 8) == RL_OK, "trunk create");
    OK(rl_params_alloc(&c.p) == RL_OK, "trunk params alloc");
    OK(c.p.n_tensors == 10 && strcmp(c.p.tensors[0].name, "ac/trunk/layer0.weight") == 0 &&
           strcmp(c.p.tensors[4].name, "ac/pi/layer0.weight") == 0 &&
           strcmp(c.p.tensors[8].name, "ac/v/layer1.weight") == 0,
       "trunk tensors: the body, then each head under its name");
    float gains[2] = {0.01f, 1.0f};
    rl_trunk_init(&c.t, &c.p, RL_INIT_ORTHOGONAL, gains, rng);
    float x[35], r0[15], r1[5], dx[35] = {0};
    c.x = x, c.r[0] = r0, c.r[1] = r1;
    fill(x, 35, rng, 1), fill(r0, 15, rng, 1), fill(r1, 5, rng, 1);
    c.heads = 3;
    trunk_loss(&c);
    const float *d[2] = {r0, r1};
    rl_trunk_backward(&c.t, c.p.data, c.p.grad, x, d, dx, c.B);
    grad_check("trunk (tanh, 2 heads) parameters", c.p.data, c.p.grad, c.p.n, trunk_loss, &c, 1e-3, 2e-2);
    grad_check("trunk (tanh, 2 heads) input", x, dx, 35, trunk_loss, &c, 1e-3, 2e-2);
    /* a head outside the loss: its tensors get nothing, the body the rest */
    rl_params_zero_grad(&c.p);
    c.heads = 1;
    trunk_loss(&c);
    const float *d0[2] = {r0, NULL};
    rl_trunk_backward(&c.t, c.p.data, c.p.grad, x, d0, NULL, c.B);
    size_t v0 = c.p.tensors[6].offset, zero = 1;
    for (size_t i = v0; i < c.p.n; i++) zero &= c.p.grad[i] == 0.0f;
    OK(zero, "trunk: a NULL head gradient leaves that head's gradients at 0");
    grad_check("trunk, one head in the loss: parameters", c.p.data, c.p.grad, v0, trunk_loss, &c, 1e-3, 2e-2);
    /* inference: the same values per row, whatever the batch */
    const float *o[2], *one[2];
    rl_trunk_forward(&c.t, c.p.data, x, c.B, 1, o);
    float all[15];
    memcpy(all, o[0], sizeof all);
    rl_trunk_forward(&c.t, c.p.data, x + 3 * 7, 1, 1, one);
    OK(memcmp(all + 9, one[0], 3 * sizeof(float)) == 0, "trunk inference: a row alone equals its row in a batch");
    char ops[2048] = "";
    OK(rl_trunk_ops(&c.t, 1, ops, sizeof ops) == 0 && strstr(ops, "\"ac/trunk/layer1.weight\"") &&
           strstr(ops, "\"out\":8},{\"op\":\"tanh\"},{\"op\":\"linear\",\"weight\":\"ac/v/layer0.weight\"") &&
           !strstr(ops, "ac/pi/"),
       "trunk ops: the body, its activation, then the one head");
    OK(rl_trunk_ops(&c.t, 2, ops, sizeof ops) == -1, "trunk ops: no head 2");
    rl_trunk_destroy(&c.t);
    rl_params_free(&c.p);
}

/* The packed forward (a search's leaves): the rows of rl_trunk_forward's
   batch of 64, and each row whatever rows are beside it, where
   librlcore's kernel takes every layer's product. */
static void test_packed(rl_rng *rng)
{
    enum { B = 64, IN = 84, H = 256 };
    rl_trunk t;
    rl_params p;
    memset(&p, 0, sizeof p);
    uint32_t hidden[2] = {H, H};
    const rl_trunk_head heads[2] = {{.name = "pi", .out_dim = 7}, {.name = "v", .out_dim = 1}};
    OK(rl_trunk_create(&t, &p, "net", IN, hidden, 2, RL_ACT_RELU, heads, 2, B) == RL_OK && rl_params_alloc(&p) == RL_OK,
       "packed: a trunk of [256, 256] with two heads");
    rl_trunk_init(&t, &p, RL_INIT_ORTHOGONAL, NULL, rng);
    size_t n = rl_trunk_packed_floats(&t);
    OK(n == (size_t)IN * H + H * H + H * 7 + H, "packed: one float per weight");
    float *packed = malloc(n * sizeof(float)), *x = malloc((size_t)B * IN * sizeof(float));
    float ref[2][B * 7], got[2][B * 7];
    fill(x, (size_t)B * IN, rng, 1);
    rl_trunk_pack(&t, p.data, packed);
    const float *o[2];
    rl_trunk_forward(&t, p.data, x, B, 0, o);
    memcpy(ref[0], o[0], B * 7 * sizeof(float)), memcpy(ref[1], o[1], B * sizeof(float));
    rl_trunk_forward_packed(&t, p.data, packed, x, B, o);
    memcpy(got[0], o[0], B * 7 * sizeof(float)), memcpy(got[1], o[1], B * sizeof(float));
    int kernel = rl__fused_fits(0, 1, B, H, IN) && rl__fused_fits(0, 1, B, H, H) && rl__fused_fits(0, 1, B, 7, H) &&
        rl__fused_fits(0, 1, B, 1, H);
    double maxd = 0;
    for (int i = 0; i < B * 7; i++) maxd = fmax(maxd, fabs(ref[0][i] - got[0][i]));
    for (int i = 0; i < B; i++) maxd = fmax(maxd, fabs(ref[1][i] - got[1][i]));
    char label[160];
    snprintf(label, sizeof label, "packed: the batch's outputs are rl_trunk_forward's (%s)",
             kernel ? "bit for bit" : "OpenBLAS: within rounding");
    if (!OK(kernel ? maxd == 0 : maxd < 1e-4, label)) printf("#   largest difference %g\n", maxd);
    int alone = 1, small = 1;
    for (uint32_t m = 1; m <= 31; m += 5) small &= rl__fused_fits(0, 0, m, 7, H) && rl__fused_fits(0, 0, m, 1, H);
    for (uint32_t r = 0; r < B; r += 9) { /* rows alone and in short batches */
        uint32_t m = r % 5 + 1 <= B - r ? r % 5 + 1 : B - r;
        rl_trunk_forward_packed(&t, p.data, packed, x + (size_t)r * IN, m, o);
        alone &= memcmp(o[0], got[0] + (size_t)r * 7, m * 7 * sizeof(float)) == 0 &&
            memcmp(o[1], got[1] + r, m * sizeof(float)) == 0;
    }
    if (small) OK(alone, "packed: a row's outputs do not depend on the rows beside it");
    for (uint32_t i = 0; i < p.n_tensors; i++) /* changed weights reach the outputs once packed again */
        if (!strcmp(p.tensors[i].name, "net/pi/layer0.weight"))
            for (size_t k = 0; k < (size_t)7 * H; k++) p.data[p.tensors[i].offset + k] += 0.5f;
    rl_trunk_forward_packed(&t, p.data, packed, x, 1, o);
    float stale = o[0][0];
    rl_trunk_pack(&t, p.data, packed);
    rl_trunk_forward_packed(&t, p.data, packed, x, 1, o);
    OK(stale == got[0][0] && o[0][0] != stale,
       "packed: the weights are read from the pack, and packing again updates them");
    free(packed);
    free(x);
    rl_trunk_destroy(&t);
    rl_params_free(&p);
}

/* ---- Conv2d ---- */
typedef struct conv_ctx {
    rl_conv2d c;
    rl_params p;
    float *x, *y, *r;
    uint32_t B;
} conv_ctx;

static double conv_loss(void *p)
{
    conv_ctx *c = p;
    rl_conv2d_forward(&c->c, c->p.data, c->x, c->y, c->B);
    return project(c->y, c->r, (size_t)c->B * c->c.out_c * c->c.out_h * c->c.out_w);
}

/* The textbook definition, one output at a time. */
static double conv_direct(const rl_conv2d *c, const float *params, const float *x, uint32_t b, uint32_t oc, uint32_t oy,
                          uint32_t ox)
{
    const float *w = params + c->w_off;
    double s = params[c->b_off + oc];
    for (uint32_t ci = 0; ci < c->in_c; ci++)
        for (uint32_t ky = 0; ky < c->k; ky++)
            for (uint32_t kx = 0; kx < c->k; kx++) {
                long iy = (long)oy * c->stride + ky - c->pad, ix = (long)ox * c->stride + kx - c->pad;
                if (iy < 0 || ix < 0 || iy >= (long)c->in_h || ix >= (long)c->in_w) continue;
                s += (double)w[((size_t)oc * c->in_c + ci) * c->k * c->k + ky * c->k + kx] *
                    x[(((size_t)b * c->in_c + ci) * c->in_h + iy) * c->in_w + ix];
            }
    return s;
}

/* dL/dW[oc][kk] for dL/dy = r: the sum over samples and output pixels of
   r times the input under patch element kk, in double. */
static double conv_dw_direct(const rl_conv2d *c, const float *x, const float *r, uint32_t B, uint32_t oc, uint32_t kk)
{
    const uint32_t k = c->k, ci = kk / (k * k), ky = kk / k % k, kx = kk % k;
    double s = 0;
    for (uint32_t b = 0; b < B; b++)
        for (uint32_t oy = 0; oy < c->out_h; oy++)
            for (uint32_t ox = 0; ox < c->out_w; ox++) {
                long iy = (long)oy * c->stride + ky - c->pad, ix = (long)ox * c->stride + kx - c->pad;
                if (iy < 0 || ix < 0 || iy >= (long)c->in_h || ix >= (long)c->in_w) continue;
                s += (double)r[(((size_t)b * c->out_c + oc) * c->out_h + oy) * c->out_w + ox] *
                    x[(((size_t)b * c->in_c + ci) * c->in_h + iy) * c->in_w + ix];
            }
    return s;
}

typedef struct conv_shape {
    uint32_t in_c, h, w, out_c, k, stride, pad, B;
} conv_shape;

static void test_conv2d(rl_rng *rng, conv_shape s)
{
    conv_ctx c;
    memset(&c, 0, sizeof c);
    c.B = s.B;
    const uint32_t in_c = s.in_c, h = s.h, w = s.w, out_c = s.out_c, k = s.k, stride = s.stride, pad = s.pad;
    char name[64], what[160];
    snprintf(name, sizeof name, "conv2d %ux%ux%u -> %u, %ux%u stride %u pad %u, batch %u", in_c, h, w, out_c, k, k,
             stride, pad, c.B);
    OK(rl_conv2d_create(&c.c, &c.p, "enc/conv0", in_c, h, w, out_c, k, stride, pad, c.B + 1) == RL_OK, name);
    OK(rl_params_alloc(&c.p) == RL_OK, "conv2d params alloc");
    fill(c.p.data, c.p.n, rng, 0.5f);
    const size_t P = (size_t)c.c.out_h * c.c.out_w, sample = (size_t)in_c * h * w;
    size_t nx = c.B * sample, ny = (size_t)c.B * out_c * P;
    float *x = malloc(nx * sizeof *x), *dx = calloc(nx, sizeof *dx), *y = malloc(ny * sizeof *y),
          *r = malloc(ny * sizeof *r), *y2 = malloc(ny * sizeof *y2);
    c.x = x, c.y = y, c.r = r;
    fill(x, nx, rng, 1), fill(r, ny, rng, 1);
    snprintf(what, sizeof what, "%s: output %ux%u", name, c.c.out_h, c.c.out_w);
    OK(c.c.out_h == (h + 2 * pad - k) / stride + 1 && c.c.out_w == (w + 2 * pad - k) / stride + 1, what);
    conv_loss(&c);
    double worst = 0;
    for (uint32_t b = 0; b < c.B; b++)
        for (uint32_t oc = 0; oc < out_c; oc++)
            for (uint32_t oy = 0; oy < c.c.out_h; oy++)
                for (uint32_t ox = 0; ox < c.c.out_w; ox++) {
                    double d = conv_direct(&c.c, c.p.data, x, b, oc, oy, ox) -
                        y[(((size_t)b * out_c + oc) * c.c.out_h + oy) * c.c.out_w + ox];
                    worst = fmax(worst, fabs(d));
                }
    snprintf(what, sizeof what, "%s: forward equals the direct sum", name);
    if (!OK(worst < 1e-5 * sqrt((double)in_c * k * k), what)) printf("#   worst difference %g\n", worst);
    if (c.c.wt) { /* the in-place patches against the laid-out ones through OpenBLAS */
        float *wt = c.c.wt;
        c.c.wt = NULL;
        rl_conv2d_forward(&c.c, c.p.data, x, y2, c.B);
        c.c.wt = wt;
        worst = 0;
        for (size_t i = 0; i < ny; i++) worst = fmax(worst, fabs((double)y[i] - y2[i]));
        snprintf(what, sizeof what, "%s: patches read in place equal the laid-out patches", name);
        if (!OK(worst < 1e-5 * sqrt((double)in_c * k * k), what)) printf("#   worst difference %g\n", worst);
        rl_conv2d_forward(&c.c, c.p.data, x, y2, c.B);
        snprintf(what, sizeof what, "%s: the same forward twice, bit for bit", name);
        OK(!memcmp(y, y2, ny * sizeof *y), what);
        rl_conv2d_forward(&c.c, c.p.data, x + (c.B - 1) * sample, y2, 1);
        snprintf(what, sizeof what, "%s: the last sample alone, bit for bit as in the batch", name);
        OK(!memcmp(y + (c.B - 1) * out_c * P, y2, out_c * P * sizeof *y), what);
    }
    memset(c.p.grad, 0, c.p.n * sizeof(float));
    rl_conv2d_backward(&c.c, c.p.data, c.p.grad, x, r, dx, c.B);
    const size_t K = (size_t)in_c * k * k, nw = (size_t)out_c * K;
    const float *dw = c.p.grad + c.c.w_off;
    worst = 0;
    double scale = 0;
    for (uint32_t oc = 0; oc < out_c; oc++)
        for (size_t kk = 0; kk < K; kk++) {
            const double d = conv_dw_direct(&c.c, x, r, c.B, oc, (uint32_t)kk);
            worst = fmax(worst, fabs(d - dw[oc * K + kk])), scale = fmax(scale, fabs(d));
        }
    snprintf(what, sizeof what, "%s: the weight gradient equals the direct sum", name);
    if (!OK(worst < 1e-5 * sqrt((double)c.B * P), what)) printf("#   worst difference %g of %g\n", worst, scale);
    if (c.c.wt) { /* in place against laid out, a repeat, and accumulation into grad */
        float *g1 = malloc(c.p.n * sizeof *g1), *dx2 = malloc(nx * sizeof *dx2);
        memcpy(g1, c.p.grad, c.p.n * sizeof *g1);
        float *wt = c.c.wt;
        c.c.wt = NULL;
        memset(c.p.grad, 0, c.p.n * sizeof(float));
        rl_conv2d_backward(&c.c, c.p.data, c.p.grad, x, r, dx2, c.B);
        c.c.wt = wt;
        worst = 0;
        for (size_t i = 0; i < nw; i++) worst = fmax(worst, fabs((double)dw[i] - g1[c.c.w_off + i]));
        snprintf(what, sizeof what, "%s: the weight gradient in place equals the laid-out one", name);
        if (!OK(worst < 1e-5 * sqrt((double)c.B * P), what)) printf("#   worst difference %g\n", worst);
        memset(c.p.grad, 0, c.p.n * sizeof(float));
        rl_conv2d_backward(&c.c, c.p.data, c.p.grad, x, r, dx2, c.B);
        snprintf(what, sizeof what, "%s: the same backward twice, bit for bit", name);
        OK(!memcmp(c.p.grad, g1, c.p.n * sizeof *g1) && !memcmp(dx, dx2, nx * sizeof *dx), what);
        rl_conv2d_backward(&c.c, c.p.data, c.p.grad, x, r, dx2, c.B);
        worst = 0;
        for (size_t i = 0; i < c.p.n; i++) worst = fmax(worst, fabs((double)c.p.grad[i] - 2.0 * g1[i]));
        snprintf(what, sizeof what, "%s: a second backward adds to the gradients", name);
        OK(worst <= 1e-6 * (1 + scale), what);
        memcpy(c.p.grad, g1, c.p.n * sizeof *g1);
        free(g1), free(dx2);
    }
    snprintf(what, sizeof what, "%s: parameters", name);
    grad_check(what, c.p.data, c.p.grad, c.p.n, conv_loss, &c, 1e-2, 2e-3);
    snprintf(what, sizeof what, "%s: input", name);
    grad_check(what, x, dx, nx, conv_loss, &c, 1e-2, 2e-3);
    rl_conv2d_destroy(&c.c);
    rl_params_free(&c.p);
    free(x), free(dx), free(y), free(r), free(y2);
}

static void test_conv2d_shapes(rl_rng *rng)
{
    static const conv_shape shapes[] = {
        {2, 6, 7, 3, 3, 1, 1, 3},    {2, 6, 7, 3, 3, 2, 0, 3}, {2, 6, 7, 3, 3, 2, 1, 3},
        {4, 20, 24, 16, 8, 4, 0, 3}, /* an Atari first layer: one whole block of 16 channels */
        {3, 9, 9, 20, 3, 1, 1, 2},   /* a block and a part */
        {5, 8, 8, 40, 4, 2, 0, 3},   /* two blocks and a part */
        {1, 5, 5, 1, 5, 1, 0, 5},    /* 1x1 outputs: fewer rows than a tile */
        {3, 12, 12, 20, 3, 1, 1, 5}, /* the weight gradient's groups of samples: 2, 2, 1 */
        {2, 16, 16, 8, 3, 1, 0, 2},  /* a sample a group */
    };
    for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++) test_conv2d(rng, shapes[i]);
    rl_conv2d bad;
    rl_params bp;
    memset(&bp, 0, sizeof bp);
    OK(rl_conv2d_create(&bad, &bp, "bad", 1, 2, 2, 1, 5, 1, 0, 1) == RL_EINVAL,
       "conv2d: a kernel larger than the padded input is refused");
    rl_params_free(&bp);
}

/* ---- CNN encoder ---- */
typedef struct cnn_ctx {
    rl_cnn n;
    rl_params p;
    float *x, *r;
    uint32_t B;
} cnn_ctx;

static double cnn_loss(void *p)
{
    cnn_ctx *c = p;
    const float *y = rl_cnn_forward(&c->n, c->p.data, c->x, c->B);
    return project(y, c->r, (size_t)c->B * c->n.out_dim);
}

static void test_cnn(rl_rng *rng)
{
    cnn_ctx c;
    memset(&c, 0, sizeof c);
    c.B = 5;
    const uint32_t ch[2] = {4, 3}, ks[2] = {3, 3}, st[2] = {1, 2}, pd[2] = {1, 0};
    char err[RL_ERR_MAX] = "";
    OK(rl_cnn_create(&c.n, &c.p, "enc", 2, 7, 6, ch, ks, st, pd, 2, 8, err, sizeof err) == RL_OK, "cnn create");
    OK(rl_params_alloc(&c.p) == RL_OK, "cnn params alloc");
    rl_cnn_init(&c.n, &c.p, RL_INIT_ORTHOGONAL, rng);
    OK(c.n.out_dim == 3 * 3 * 2, "cnn: output is the last layer flattened (3 x 3 x 2)");
    c.n.chunk = 2; /* 5 samples in chunks of 2, 2, 1 */
    size_t nx = (size_t)c.B * 2 * 7 * 6, ny = (size_t)c.B * c.n.out_dim;
    float *x = malloc(nx * sizeof *x), *r = malloc(ny * sizeof *r), *y = malloc(ny * sizeof *y);
    c.x = x, c.r = r;
    fill(x, nx, rng, 1), fill(r, ny, rng, 1);
    memcpy(y, rl_cnn_forward(&c.n, c.p.data, x, c.B), ny * sizeof *y);
    const float *yi = rl_cnn_infer(&c.n, c.p.data, x, c.B);
    double worst = 0;
    for (size_t i = 0; i < ny; i++) worst = fmax(worst, fabs((double)y[i] - yi[i]));
    if (!OK(worst < 1e-5, "cnn: inference equals the chunked training forward"))
        printf("#   worst difference %g\n", worst);
    memcpy(y, yi, ny * sizeof *y);
    const float *y4 = rl_cnn_infer(&c.n, c.p.data, x + 4 * 2 * 7 * 6, 1);
    OK(!memcmp(y4, y + 4 * c.n.out_dim, c.n.out_dim * sizeof *y) &&
           !memcmp(rl_cnn_infer(&c.n, c.p.data, x, 2), y, 2 * c.n.out_dim * sizeof *y),
       "cnn: a row's inference does not depend on the batch");
    cnn_loss(&c);
    memset(c.p.grad, 0, c.p.n * sizeof(float));
    rl_cnn_backward(&c.n, c.p.data, c.p.grad, x, r, c.B);
    grad_check("cnn (2 layers, chunks of 2) parameters", c.p.data, c.p.grad, c.p.n, cnn_loss, &c, 1e-3, 2e-2);
    char ops[1024] = "";
    OK(rl_cnn_ops(&c.n, "q/cnn", ops, sizeof ops) == 0 &&
           strstr(ops, "{\"op\":\"conv2d\",\"weight\":\"q/cnn/conv1.weight\"") &&
           strstr(ops, "\"stride\":2,\"pad\":0},{\"op\":\"relu\"},{\"op\":\"flatten\"}"),
       "cnn: policy ops name every layer, then flatten");
    rl_cnn_destroy(&c.n);
    rl_params_free(&c.p);
    free(x), free(r), free(y);

    /* The Nature encoder on an 84 x 84 frame stack; refusals say where. */
    rl_cnn nat;
    rl_params np;
    memset(&np, 0, sizeof np);
    const uint32_t nch[3] = {32, 64, 64}, nk[3] = {8, 4, 3}, ns[3] = {4, 2, 1}, np0[3] = {0, 0, 0};
    OK(rl_cnn_create(&nat, &np, "nature", 4, 84, 84, nch, nk, ns, np0, 3, 4, err, sizeof err) == RL_OK &&
           nat.out_dim == 64 * 7 * 7,
       "cnn: the Nature encoder maps 4x84x84 to 64x7x7");
    rl_cnn_destroy(&nat);
    rl_params_free(&np);
    memset(&np, 0, sizeof np);
    OK(rl_cnn_create(&nat, &np, "nature", 3, 20, 20, nch, nk, ns, np0, 3, 4, err, sizeof err) == RL_EINVAL &&
           strstr(err, "cnn layer 3: kernel 3 does not fit its 1x1 input (padding 0)"),
       "cnn: a layer that does not fit is refused with its number and input size");
    if (!strstr(err, "layer 3")) printf("#   %s\n", err);
    rl_params_free(&np);
}

/* ---- Residual tower ---- */
typedef struct res_ctx {
    rl_resnet n;
    rl_params p;
    float *x, *r;
    uint32_t B;
} res_ctx;

static double res_loss(void *p)
{
    res_ctx *c = p;
    const float *y = rl_resnet_forward(&c->n, c->p.data, c->x, c->B);
    return project(y, c->r, (size_t)c->B * c->n.out_dim);
}

/* Which units are active after a forward: the loss is smooth only while
   this pattern holds. */
static uint64_t res_pattern(const res_ctx *c)
{
    uint64_t h = 1469598103934665603ull;
    for (uint32_t l = 0; l < 1 + 2 * c->n.blocks; l++)
        for (size_t i = 0; i < (size_t)c->B * c->n.out_dim; i++) h = (h ^ (c->n.acts[l][i] > 0)) * 1099511628211ull;
    return h;
}

/* grad_check, where a tower of ReLUs and skips has a unit whose input lies
   within eps of 0 for many weights: a central difference across that kink
   measures nothing.  Each weight is compared where its two probes keep the
   forward's active units, and most weights must be. */
static void res_grad_check(res_ctx *c)
{
    const double eps = 1e-3;
    res_loss(c);
    uint64_t base = res_pattern(c);
    double worst = 0;
    size_t checked = 0, n = c->p.n;
    for (size_t i = 0; i < n; i++) {
        float keep = c->p.data[i];
        c->p.data[i] = keep + (float)eps;
        double lp = res_loss(c);
        uint64_t pp = res_pattern(c);
        c->p.data[i] = keep - (float)eps;
        double lm = res_loss(c);
        uint64_t pm = res_pattern(c);
        c->p.data[i] = keep;
        if (pp != base || pm != base) continue;
        double num = (lp - lm) / (2 * eps), g = c->p.grad[i];
        worst = fmax(worst, fabs(num - g) / fmax(1.0, fabs(num) + fabs(g)));
        checked++;
    }
    if (!OK(worst <= 2e-2 && checked * 10 >= n * 7,
            "resnet (stem, 2 blocks, chunks of 2): gradients match finite differences away from ReLU kinks"))
        printf("#   worst relative error %g over %zu of %zu weights\n", worst, checked, n);
}

static void test_resnet(rl_rng *rng)
{
    res_ctx c;
    memset(&c, 0, sizeof c);
    c.B = 5;
    char err[RL_ERR_MAX] = "";
    OK(rl_resnet_create(&c.n, &c.p, "net/res", 2, 6, 7, 4, 3, 2, 8, err, sizeof err) == RL_OK, "resnet create");
    OK(rl_params_alloc(&c.p) == RL_OK, "resnet params alloc");
    rl_resnet_init(&c.n, &c.p, RL_INIT_ORTHOGONAL, rng);
    OK(c.n.out_dim == 4 * 6 * 7 && c.p.n_tensors == 10, "resnet: a stem and two blocks, 4 channels of 6 x 7");
    size_t nx = (size_t)c.B * 2 * 6 * 7, ny = (size_t)c.B * c.n.out_dim;
    float *x = malloc(nx * sizeof *x), *r = malloc(ny * sizeof *r), *y = malloc(ny * sizeof *y);
    c.x = x, c.r = r;
    fill(x, nx, rng, 1), fill(r, ny, rng, 1);
    /* zero second convs: each block passes its input on (through ReLU, a no-op on the stem's output) */
    const float *y0 = rl_resnet_forward(&c.n, c.p.data, x, c.B);
    OK(!memcmp(y0, c.n.acts[0], ny * sizeof *y), "resnet: blocks start as the identity");
    fill(c.p.data, c.p.n, rng, 0.3f); /* every weight in play for the gradient check */
    c.n.chunk = 2;                    /* 5 samples in chunks of 2, 2, 1 */
    memcpy(y, rl_resnet_forward(&c.n, c.p.data, x, c.B), ny * sizeof *y);
    const float *yi = rl_resnet_infer(&c.n, c.p.data, x, c.B);
    double worst = 0;
    for (size_t i = 0; i < ny; i++) worst = fmax(worst, fabs((double)y[i] - yi[i]));
    if (!OK(worst < 1e-5, "resnet: inference equals the chunked training forward"))
        printf("#   worst difference %g\n", worst);
    memcpy(y, yi, ny * sizeof *y);
    const float *y4 = rl_resnet_infer(&c.n, c.p.data, x + 4 * 2 * 6 * 7, 1);
    OK(!memcmp(y4, y + 4 * c.n.out_dim, c.n.out_dim * sizeof *y) &&
           !memcmp(rl_resnet_infer(&c.n, c.p.data, x, 2), y, 2 * c.n.out_dim * sizeof *y),
       "resnet: a row's inference does not depend on the batch");
    /* the skip, by hand on sample 0: block 1's output is relu(its input + conv2(relu(conv1(input)))) */
    rl_resnet_forward(&c.n, c.p.data, x, c.B);
    size_t D = c.n.out_dim;
    float *h = malloc(D * sizeof *h), *z = malloc(D * sizeof *z);
    rl_conv2d_forward(&c.n.conv[3], c.p.data, c.n.acts[2], h, 1);
    for (size_t i = 0; i < D; i++) h[i] = h[i] > 0 ? h[i] : 0;
    rl_conv2d_forward(&c.n.conv[4], c.p.data, h, z, 1);
    worst = 0;
    for (size_t i = 0; i < D; i++) {
        float v = z[i] + c.n.acts[2][i];
        worst = fmax(worst, fabs((double)(v > 0 ? v : 0) - c.n.acts[4][i]));
    }
    OK(worst < 1e-5, "resnet: a block adds its input to its convs' output, then ReLU");
    free(h), free(z);
    res_loss(&c);
    memset(c.p.grad, 0, c.p.n * sizeof(float));
    rl_resnet_backward(&c.n, c.p.data, c.p.grad, x, r, c.B);
    res_grad_check(&c);
    char ops[4096] = "";
    OK(rl_resnet_ops(&c.n, "net/res", ops, sizeof ops) == 0 &&
           strstr(ops, "{\"op\":\"conv2d\",\"weight\":\"net/res/stem.weight\"") &&
           strstr(ops, "{\"op\":\"residual\",\"ops\":[{\"op\":\"conv2d\",\"weight\":\"net/res/block1/conv1.weight\"") &&
           strstr(ops, "\"pad\":1}]},{\"op\":\"relu\"},{\"op\":\"flatten\"}"),
       "resnet: policy ops name the stem and each block's residual, then flatten");
    rl_resnet_destroy(&c.n);
    rl_params_free(&c.p);
    free(x), free(r), free(y);

    rl_resnet bad;
    rl_params bp;
    memset(&bp, 0, sizeof bp);
    OK(rl_resnet_create(&bad, &bp, "r", 2, 6, 7, 4, 2, 1, 4, err, sizeof err) == RL_EINVAL &&
           strstr(err, "kernel must be odd"),
       "resnet: an even kernel is refused with a sentence");
    OK(rl_resnet_create(&bad, &bp, "r", 2, 6, 7, 4, 3, RL_RESNET_MAX_BLOCKS + 1, 4, err, sizeof err) == RL_EINVAL &&
           strstr(err, "blocks"),
       "resnet: too many blocks are refused with a sentence");
    rl_params_free(&bp);
}

/* ---- Dueling ---- */
typedef struct duel_ctx {
    float *v, *a, *q, *r;
} duel_ctx;

static double duel_loss(void *p)
{
    duel_ctx *c = p;
    rl_dueling_forward(c->q, c->v, c->a, 3, 4);
    return project(c->q, c->r, 12);
}

static void test_dueling(rl_rng *rng)
{
    float v[3], a[12], q[12], r[12], dv[3] = {0}, da[12] = {0};
    duel_ctx c = {v, a, q, r};
    fill(v, 3, rng, 1), fill(a, 12, rng, 1), fill(r, 12, rng, 1);
    rl_dueling_forward(q, v, a, 3, 4);
    float mean = (a[0] + a[1] + a[2] + a[3]) / 4;
    ASSERT_NEAR(q[2], v[0] + a[2] - mean, 1e-6, "dueling aggregation V + A - mean A");
    rl_dueling_backward(dv, da, r, 3, 4);
    grad_check("dueling V", v, dv, 3, duel_loss, &c, 1e-2, 1e-3);
    grad_check("dueling A", a, da, 12, duel_loss, &c, 1e-2, 1e-3);
}

/* ---- LSTM ---- */
typedef struct lstm_ctx {
    rl_lstm l;
    rl_params p;
    float *x, *h0, *c0, *hout, *r;
    uint8_t *reset;
    uint32_t T, B;
} lstm_ctx;

static double lstm_loss(void *p)
{
    lstm_ctx *c = p;
    float hl[64], cl[64];
    rl_lstm_forward(&c->l, c->p.data, c->x, c->h0, c->c0, c->reset, c->hout, hl, cl, c->T, c->B);
    return project(c->hout, c->r, (size_t)c->T * c->B * c->l.hidden);
}

static void test_lstm(rl_rng *rng)
{
    lstm_ctx c;
    memset(&c, 0, sizeof c);
    c.T = 9;
    c.B = 3;
    uint32_t in = 5, H = 6;
    OK(rl_lstm_create(&c.l, &c.p, "lstm", in, H, 4, 10) == RL_OK, "lstm create");
    OK(rl_params_alloc(&c.p) == RL_OK, "lstm params alloc");
    rl_lstm_init(&c.l, &c.p, rng);
    fill(c.p.data, c.p.n, rng, 0.4f); /* random biases too, not just the init */
    float x[9 * 3 * 5], h0[18], c0[18], hout[9 * 3 * 6], r[9 * 3 * 6], dx[9 * 3 * 5] = {0};
    uint8_t reset[27] = {0};
    reset[4 * 3 + 1] = 1; /* row 1 starts a new episode at step 4 */
    reset[6 * 3 + 0] = 1; /* row 0 at step 6 */
    c.x = x, c.h0 = h0, c.c0 = c0, c.hout = hout, c.r = r, c.reset = reset;
    fill(x, sizeof x / 4, rng, 1), fill(h0, 18, rng, 0.5f), fill(c0, 18, rng, 0.5f);
    fill(r, sizeof r / 4, rng, 1);
    lstm_loss(&c);
    rl_params_zero_grad(&c.p);
    rl_lstm_backward(&c.l, c.p.data, c.p.grad, x, r, dx, c.T, c.B);
    grad_check("lstm 9 steps with resets: parameters", c.p.data, c.p.grad, c.p.n, lstm_loss, &c, 1e-3, 2e-2);
    grad_check("lstm 9 steps with resets: inputs", x, dx, sizeof x / 4, lstm_loss, &c, 1e-3, 2e-2);

    /* A reset makes the state independent of everything before it. */
    float hl[18], cl[18], hout2[9 * 3 * 6];
    rl_lstm_forward(&c.l, c.p.data, x, h0, c0, reset, hout, hl, cl, 9, 3);
    for (int k = 0; k < 4 * 3 * 5; k++) x[k] += 0.5f; /* change steps 0..3 */
    rl_lstm_forward(&c.l, c.p.data, x, h0, c0, reset, hout2, hl, cl, 9, 3);
    int same = 1;
    for (uint32_t t = 4; t < 9; t++)
        for (uint32_t j = 0; j < H; j++) same &= hout[(t * 3 + 1) * H + j] == hout2[(t * 3 + 1) * H + j];
    OK(same, "after a reset the outputs ignore earlier inputs");
    /* rl_lstm_step reproduces the sequence forward. */
    float h[18], cc[18], g[2 * 3 * 24];
    memcpy(h, h0, sizeof h);
    memcpy(cc, c0, sizeof cc);
    double maxd = 0;
    for (uint32_t t = 0; t < 9; t++) {
        for (uint32_t b = 0; b < 3; b++)
            if (reset[t * 3 + b]) memset(h + b * H, 0, H * 4), memset(cc + b * H, 0, H * 4);
        rl_lstm_step(&c.l, c.p.data, x + t * 15, h, cc, g, 3);
        for (uint32_t k = 0; k < 18; k++) maxd = fmax(maxd, fabs(h[k] - hout2[t * 18 + k]));
    }
    OK(maxd < 1e-5, "step-by-step inference equals the sequence forward");
    rl_lstm_destroy(&c.l);
    rl_params_free(&c.p);
}

/* ---- Categorical ---- */
typedef struct cat_ctx {
    float *logits;
    int32_t a;
    float g_logp, g_ent;
} cat_ctx;

static double cat_loss(void *p)
{
    cat_ctx *c = p;
    float logp[5];
    rl_log_softmax(logp, c->logits, 1, 5);
    return (double)c->g_logp * logp[c->a] + (double)c->g_ent * rl_categorical_entropy(logp, 5);
}

static void test_categorical(rl_rng *rng)
{
    float logits[5], logp[5], d[5] = {0};
    fill(logits, 5, rng, 2);
    cat_ctx c = {logits, 3, -0.7f, 0.3f};
    rl_log_softmax(logp, logits, 1, 5);
    double sum = 0;
    for (int j = 0; j < 5; j++) sum += exp(logp[j]);
    ASSERT_NEAR(sum, 1.0, 1e-6, "softmax sums to 1");
    rl_categorical_backward(d, logp, 5, 3, c.g_logp, c.g_ent);
    grad_check("log-prob and entropy w.r.t. logits", logits, d, 5, cat_loss, &c, 1e-2, 1e-3);
    float big[3] = {1000.0f, 0.0f, -1000.0f};
    rl_log_softmax(logp, big, 1, 3);
    OK(isfinite(logp[2]) && fabsf(logp[0]) < 1e-6f, "log_softmax stable for large logits");
    /* Sampling frequencies follow the probabilities. */
    float lp[3] = {logf(0.2f), logf(0.5f), logf(0.3f)};
    int counts[3] = {0};
    for (int k = 0; k < 100000; k++) counts[rl_categorical_sample(lp, 3, rng)]++;
    ASSERT_NEAR(counts[1] / 100000.0, 0.5, 0.01, "sampling frequency of p=0.5");
    ASSERT_NEAR(counts[0] / 100000.0, 0.2, 0.01, "sampling frequency of p=0.2");
    float row[4] = {1, 3, 3, 2};
    ASSERT_EQ(rl_argmax(row, 4), 1, "argmax takes the first of ties");
}

/* ---- Losses ---- */
typedef struct loss_ctx {
    float *pred, *target, *w;
    int huber;
} loss_ctx;

static double loss_loss(void *p)
{
    loss_ctx *c = p;
    return c->huber ? rl_huber_loss(NULL, c->pred, c->target, c->w, 6) : rl_mse_loss(NULL, c->pred, c->target, c->w, 6);
}

static void test_losses(void)
{
    float pred[6] = {0.0f, 0.5f, 3.0f, -2.0f, 1.2f, -0.3f};
    float target[6] = {0.2f, -0.5f, 0.5f, 1.0f, 1.0f, -0.8f};
    float w[6] = {1.0f, 0.5f, 2.0f, 1.0f, 0.1f, 1.0f};
    /* Hand values: diffs -0.2, 1.0, 2.5, -3.0, 0.2, 0.5
       huber: 0.02, 0.5, 2.0, 2.5, 0.02, 0.125 ; weighted sum = 0.02+0.25+4+2.5+0.002+0.125 */
    ASSERT_NEAR(rl_huber_loss(NULL, pred, target, w, 6), (0.02 + 0.25 + 4.0 + 2.5 + 0.002 + 0.125) / 6, 1e-6,
                "weighted huber on hand values");
    ASSERT_NEAR(rl_mse_loss(NULL, pred, target, NULL, 6), (0.04 + 1.0 + 6.25 + 9.0 + 0.04 + 0.25) / 6, 1e-6,
                "mse on hand values");
    for (int h = 0; h < 2; h++) {
        float d[6] = {0};
        loss_ctx c = {pred, target, w, h};
        if (h)
            rl_huber_loss(d, pred, target, w, 6);
        else
            rl_mse_loss(d, pred, target, w, 6);
        /* keep away from the Huber kink at |diff| = 1 for the check */
        pred[1] = 0.45f;
        memset(d, 0, sizeof d);
        if (h)
            rl_huber_loss(d, pred, target, w, 6);
        else
            rl_mse_loss(d, pred, target, w, 6);
        grad_check(h ? "weighted huber" : "weighted mse", pred, d, 6, loss_loss, &c, 1e-3, 1e-3);
        pred[1] = 0.5f;
    }
}

/* ---- Adam and clipping ---- */
static void test_adam(void)
{
    rl_adam a;
    OK(rl_adam_create(&a, 2, 0.9f, 0.999f, 1e-8f, 0.0f) == RL_OK, "adam create");
    float p[2] = {1.0f, -2.0f};
    float g1[2] = {0.5f, -1.0f}, g2[2] = {0.1f, 2.0f};
    rl_adam_step(&a, p, g1, 0.1f);
    /* step 1: m = 0.1 g, v = 0.001 g^2, mhat = g, vhat = g^2 -> p -= 0.1 * sign(g) */
    ASSERT_NEAR(p[0], 0.9, 1e-6, "adam step 1, param 0");
    ASSERT_NEAR(p[1], -1.9, 1e-6, "adam step 1, param 1");
    rl_adam_step(&a, p, g2, 0.1f);
    /* step 2 by hand for param 0: m = 0.9*0.05 + 0.1*0.1 = 0.055; v = 0.999*0.00025 + 0.001*0.01
       = 0.00025975; mhat = 0.055/0.19 = 0.289474; vhat = 0.00025975/0.001999 = 0.129940;
       p = 0.9 - 0.1 * 0.289474 / (0.360472 + 1e-8) = 0.819696 */
    ASSERT_NEAR(p[0], 0.819696, 2e-5, "adam step 2 by hand, param 0");
    /* param 1: m = 0.9*(-0.1) + 0.1*2 = 0.11; v = 0.999*0.001 + 0.001*4 = 0.004999;
       mhat = 0.578947; vhat = 2.500750; p = -1.9 - 0.1*0.578947/1.581376 = -1.936610 */
    ASSERT_NEAR(p[1], -1.936610, 2e-5, "adam step 2 by hand, param 1");
    rl_adam_destroy(&a);
    OK(rl_adam_create(&a, 1, 0.9f, 0.999f, 1e-8f, 0.1f) == RL_OK, "adamw create");
    float q = 2.0f, gz = 0.0f;
    rl_adam_step(&a, &q, &gz, 0.5f);
    ASSERT_NEAR(q, 2.0 * (1 - 0.5 * 0.1), 1e-6, "decoupled weight decay with zero gradient");
    rl_adam_destroy(&a);

    float g[4] = {3.0f, 4.0f, 0.0f, 0.0f};
    float n = rl_clip_grad_norm(g, 4, 1.0f);
    ASSERT_NEAR(n, 5.0, 1e-6, "clip returns the norm before clipping");
    ASSERT_NEAR(g[0], 0.6, 1e-5, "clip scales to max norm (x)");
    ASSERT_NEAR(g[1], 0.8, 1e-5, "clip scales to max norm (y)");
    float h[2] = {0.3f, 0.4f};
    rl_clip_grad_norm(h, 2, 1.0f);
    ASSERT_NEAR(h[0], 0.3f, 0, "no clipping below max norm");
    ASSERT_NEAR(rl_schedule_linear(1e-3f, 0.0f, 0.25), 7.5e-4, 1e-9, "linear schedule");
}

static void test_init(rl_rng *rng)
{
    float w[6 * 10];
    rl_init_orthogonal(w, 6, 10, 2.0f, rng);
    double maxe = 0;
    for (int i = 0; i < 6; i++)
        for (int j = 0; j < 6; j++) {
            double d = 0;
            for (int k = 0; k < 10; k++) d += (double)w[i * 10 + k] * w[j * 10 + k];
            maxe = fmax(maxe, fabs(d - (i == j ? 4.0 : 0.0)));
        }
    OK(maxe < 1e-5, "orthogonal (wide): W W^T = gain^2 I");
    float t[10 * 4];
    rl_init_orthogonal(t, 10, 4, 1.0f, rng);
    maxe = 0;
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 4; j++) {
            double d = 0;
            for (int k = 0; k < 10; k++) d += (double)t[k * 4 + i] * t[k * 4 + j];
            maxe = fmax(maxe, fabs(d - (i == j ? 1.0 : 0.0)));
        }
    OK(maxe < 1e-5, "orthogonal (tall): W^T W = I");
    float k[100];
    rl_init_kaiming_uniform(k, 10, 10, rng);
    float bound = sqrtf(0.6f), mx = 0;
    for (int i = 0; i < 100; i++) mx = fmaxf(mx, fabsf(k[i]));
    OK(mx <= bound && mx > 0.8f * bound, "kaiming uniform within its bound");
}

/* Same seed -> bit-identical parameters after N updates. */
static void train(float *out, size_t *n_out)
{
    rl_rng rng;
    rl_rng_seed(&rng, 42, 0);
    rl_mlp m;
    rl_params p = {0};
    uint32_t hidden[2] = {32, 32};
    rl_mlp_create(&m, &p, "q", 8, hidden, 2, 3, RL_ACT_RELU, 64);
    rl_params_alloc(&p);
    rl_mlp_init(&m, &p, RL_INIT_ORTHOGONAL, 0.01f, &rng);
    rl_adam a;
    rl_adam_create(&a, p.n, 0.9f, 0.999f, 1e-8f, 0);
    float x[64 * 8], tgt[64 * 3], d[64 * 3];
    for (int it = 0; it < 50; it++) {
        fill(x, sizeof x / 4, &rng, 1);
        fill(tgt, sizeof tgt / 4, &rng, 1);
        const float *y = rl_mlp_forward(&m, p.data, x, 64);
        memset(d, 0, sizeof d);
        rl_huber_loss(d, y, tgt, NULL, 64 * 3);
        rl_params_zero_grad(&p);
        rl_mlp_backward(&m, p.data, p.grad, x, d, NULL, 64);
        rl_clip_grad_norm(p.grad, p.n, 10.0f);
        rl_adam_step(&a, p.data, p.grad, 1e-3f);
    }
    memcpy(out, p.data, p.n * sizeof(float));
    *n_out = p.n;
    rl_adam_destroy(&a);
    rl_mlp_destroy(&m);
    rl_params_free(&p);
}

static void test_determinism(void)
{
    static float a[8192], b[8192];
    size_t na, nb;
    rl_blas_set_threads(1);
    train(a, &na);
    train(b, &nb);
    OK(na == nb && memcmp(a, b, na * sizeof(float)) == 0, "same seed -> bit-identical parameters after 50 updates");
    rl_params p = {0};
    size_t o1 = rl_params_add(&p, "a", 3, 5), o2 = rl_params_add(&p, "b", 1, 1);
    OK(o1 == 0 && o2 == 16, "tensors 64-byte aligned inside the block");
    rl_params_alloc(&p);
    rl_params q;
    rl_params_clone(&q, &p);
    p.data[0] = 1.0f;
    q.data[0] = 0.0f;
    rl_params_polyak(&q, &p, 0.25f);
    ASSERT_NEAR(q.data[0], 0.25, 1e-7, "polyak averaging");
    p.data[16] = NAN;
    ASSERT_EQ(rl_params_find_nonfinite(p.data, p.n), 16, "finds a NaN parameter");
    rl_params_free(&p);
    rl_params_free(&q);
}

/* The inference kernel: matches sgemm within rounding, and each row is
   bit-identical whatever the batch. */
static void test_rowwise(rl_rng *rng)
{
    enum { B = 9, IN = 37, OUT = 11 };
    float x[B * IN], w[OUT * IN], b[OUT], y1[B * OUT], y2[B * OUT], y3[OUT];
    fill(x, B * IN, rng, 1), fill(w, OUT * IN, rng, 1), fill(b, OUT, rng, 1);
    rl_linear_forward(y1, x, w, b, B, IN, OUT);
    rl_linear_forward_rowwise(y2, x, w, b, B, IN, OUT);
    double maxd = 0;
    for (int i = 0; i < B * OUT; i++) maxd = fmax(maxd, fabs(y1[i] - y2[i]));
    OK(maxd < 1e-4, "rowwise kernel equals sgemm within rounding");
    int same = 1;
    for (int r = 0; r < B; r++) {
        rl_linear_forward_rowwise(y3, x + r * IN, w, b, 1, IN, OUT);
        same &= memcmp(y3, y2 + r * OUT, sizeof y3) == 0;
    }
    OK(same, "rowwise kernel: one row at a time is bit-identical to the batch");
}

/* librlcore internals under test (exported for the LSTM; see nn_internal.h). */
size_t rl__gemm_packed_size(uint32_t k, uint32_t n);
void rl__gemm_pack(float *bp, const float *b, size_t ldb, int trans, uint32_t k, uint32_t n);
void rl__gemm_small(uint32_t m, uint32_t n, uint32_t k, const float *a, size_t lda, const float *bp, float *c,
                    size_t ldc, int accumulate);

/* The small-matrix kernel against a double reference, with full tiles and
   edge tiles in both directions (19 rows: 8 + 8 + 2 + 1 with AVX-512,
   6 + 6 + 6 + 1 with AVX, 9 x 2 + 1 below; 37 columns: 16 + 16 + 5),
   both packings, both modes, and one row at a time bit-identical to the
   batch. */
static void test_gemm_small(rl_rng *rng)
{
    enum { M = 19, N = 37, K = 13 };
    float a[M * K], b[K * N], bt[N * K], c0[M * N], c1[M * N], c2[M * N], row[N];
    static float bp[K * 48], btp[K * 48];
    fill(a, M * K, rng, 1), fill(b, K * N, rng, 1), fill(c0, M * N, rng, 1);
    for (int k = 0; k < K; k++)
        for (int j = 0; j < N; j++) bt[j * K + k] = b[k * N + j];
    OK(rl__gemm_packed_size(K, N) == K * 48, "packed size pads n to 16 columns");
    rl__gemm_pack(bp, b, N, 0, K, N);
    rl__gemm_pack(btp, bt, K, 1, K, N);
    OK(memcmp(bp, btp, sizeof bp) == 0, "packing b and packing its transpose agree");
    memcpy(c1, c0, sizeof c1);
    rl__gemm_small(M, N, K, a, K, bp, c1, N, 1);
    rl__gemm_small(M, N, K, a, K, bp, c2, N, 0);
    double worst1 = 0, worst2 = 0;
    for (int i = 0; i < M; i++)
        for (int j = 0; j < N; j++) {
            double ref = 0;
            for (int k = 0; k < K; k++) ref += (double)a[i * K + k] * b[k * N + j];
            worst1 = fmax(worst1, fabs(c1[i * N + j] - (c0[i * N + j] + ref)));
            worst2 = fmax(worst2, fabs(c2[i * N + j] - ref));
        }
    OK(worst1 < 1e-5 && worst2 < 1e-5, "small gemm matches the reference (accumulate and overwrite)");
    int same = 1;
    for (int i = 0; i < M; i++) {
        rl__gemm_small(1, N, K, a + i * K, K, bp, row, N, 0);
        same &= memcmp(row, c2 + i * N, sizeof row) == 0;
    }
    OK(same, "small gemm: one row at a time is bit-identical to the batch");
}

/* op(A)[i][p] and op(B)[p][j] of a product stored row-major with
   leading dimension ld (the transposed operand stored as its transpose). */
static double op_at(const float *x, int trans, size_t ld, size_t r, size_t c)
{
    return trans ? x[c * ld + r] : x[r * ld + c];
}

/* One product of rl__fused_gemm against a double reference, for every
   epilogue; and where the kernel takes it, the rows i0.. of the same product
   computed as their own smaller product, bit-identical (a row's result
   depends only on the row; OpenBLAS promises no such thing). */
static int check_fused(rl_rng *rng, int ta, int tb, uint32_t m, uint32_t n, uint32_t k, rl__epi_kind kind,
                       rl_activation act, int with_bias, double *worst)
{
    size_t lda = ta ? m : k, ldb = tb ? k : n;
    float *a = malloc(sizeof(float) * m * k), *b = malloc(sizeof(float) * k * n), *c = malloc(sizeof(float) * m * n),
          *c2 = malloc(sizeof(float) * m * n), *y = malloc(sizeof(float) * m * n), *bias = malloc(sizeof(float) * n),
          *db = calloc(n, sizeof(float)), *db2 = calloc(n, sizeof(float));
    fill(a, (size_t)m * k, rng, 1), fill(b, (size_t)k * n, rng, 1), fill(c, (size_t)m * n, rng, 1);
    fill(y, (size_t)m * n, rng, 1), fill(bias, n, rng, 1), fill(db, n, rng, 1);
    memcpy(c2, c, sizeof(float) * m * n);
    memcpy(db2, db, sizeof(float) * n);
    rl__epilogue e = {.kind = kind, .act = act, .bias = with_bias ? bias : NULL, .y = y, .db = db};
    rl__fused_gemm(ta, tb, m, n, k, a, (uint32_t)lda, b, (uint32_t)ldb, c, &e);
    int ok = 1;
    for (size_t j = 0; j < n; j++) {
        double dbj = db2[j];
        for (size_t i = 0; i < m; i++) {
            double v = 0;
            for (size_t p = 0; p < k; p++) v += op_at(a, ta, lda, i, p) * op_at(b, tb, ldb, p, j);
            double yv = y[i * n + j];
            if (kind == RL__EPI_ADD) v += c2[i * n + j];
            if (kind == RL__EPI_BIAS_ACT) {
                v += with_bias ? bias[j] : 0;
                v = act == RL_ACT_TANH ? tanh(v) : act == RL_ACT_RELU ? (v > 0 ? v : 0) : v;
            }
            if (kind == RL__EPI_ACT_GRAD) {
                v *= act == RL_ACT_TANH ? 1 - yv * yv : act == RL_ACT_RELU ? (yv > 0) : 1;
                dbj += v;
            }
            *worst = fmax(*worst, fabs(c[i * n + j] - v));
        }
        if (kind == RL__EPI_ACT_GRAD) *worst = fmax(*worst, fabs(db[j] - dbj) / (1 + sqrt(m)));
    }
    /* rows i0.. alone: the same values bit for bit (not for ADD, which reads c) */
    uint32_t i0 = m > 5 ? 5 : 1;
    if (kind != RL__EPI_ADD && rl__fused_fits(ta, tb, m, n, k) && rl__fused_fits(ta, tb, m - i0, n, k)) {
        rl__epilogue e2 = e;
        e2.y = y + (size_t)i0 * n;
        e2.db = NULL;
        const float *a2 = ta ? a + i0 : a + (size_t)i0 * k;
        rl__fused_gemm(ta, tb, m - i0, n, k, a2, (uint32_t)lda, b, (uint32_t)ldb, c2, &e2);
        ok &= memcmp(c2, c + (size_t)i0 * n, sizeof(float) * (m - i0) * n) == 0;
    }
    free(a), free(b), free(c), free(c2), free(y), free(bias), free(db), free(db2);
    return ok;
}

/* A transposed-B product with few rows is computed the other way round
   (C^T = B A^T, fused.c): its rows are those of the same rows in a batch
   long enough to go the usual way, bit for bit, for every epilogue. */
static int check_flipped(rl_rng *rng, rl__epi_kind kind, rl_activation act)
{
    enum { M = 160, ROWS = 32, N = 256, K = 256 }; /* M (K + N) > N K > ROWS (K + N) */
    float *a = malloc(sizeof(float) * M * K), *b = malloc(sizeof(float) * N * K), *c = malloc(sizeof(float) * M * N),
          *c2 = malloc(sizeof(float) * M * N), *y = malloc(sizeof(float) * M * N), *bias = malloc(sizeof(float) * N);
    fill(a, (size_t)M * K, rng, 1), fill(b, (size_t)N * K, rng, 1), fill(c, (size_t)M * N, rng, 1);
    fill(y, (size_t)M * N, rng, 1), fill(bias, N, rng, 1);
    memcpy(c2, c, sizeof(float) * M * N);
    rl__epilogue e = {.kind = kind, .act = act, .bias = bias, .y = y, .db = NULL};
    rl__fused_gemm(0, 1, M, N, K, a, K, b, K, c, &e);
    rl__fused_gemm(0, 1, ROWS, N, K, a, K, b, K, c2, &e);
    int ok = memcmp(c, c2, sizeof(float) * ROWS * N) == 0;
    free(a), free(b), free(c), free(c2), free(y), free(bias);
    return ok;
}

/* The dense layers' products with fused epilogues, on shapes the kernel
   takes (where the CPU has it) and shapes it leaves to OpenBLAS: edge
   tiles in rows (m % 6) and columns (n % 16, several 64-column blocks),
   sums not a multiple of 8 (the transpose's edges), every epilogue. */
static void test_fused(void)
{
    rl_rng own, *rng = &own; /* a stream of its own: the tests after it keep their draws */
    rl_rng_seed(rng, 11, 0);
    static const uint32_t shapes[][3] = {
        {256, 64, 64}, {37, 70, 13}, {40, 130, 256}, {9, 16, 1},     {64, 64, 4},
        {13, 37, 200}, {6, 2, 64},   {3, 64, 64},    {100, 48, 300}, {4, 17, 9},
    };
    static const struct {
        rl__epi_kind kind;
        rl_activation act;
        int bias;
    } epis[] = {
        {RL__EPI_SET, RL_ACT_NONE, 0},      {RL__EPI_ADD, RL_ACT_NONE, 0},      {RL__EPI_BIAS_ACT, RL_ACT_TANH, 1},
        {RL__EPI_BIAS_ACT, RL_ACT_RELU, 1}, {RL__EPI_BIAS_ACT, RL_ACT_NONE, 0}, {RL__EPI_ACT_GRAD, RL_ACT_TANH, 0},
        {RL__EPI_ACT_GRAD, RL_ACT_RELU, 0}, {RL__EPI_ACT_GRAD, RL_ACT_NONE, 0},
    };
    static const int orient[3][2] = {{0, 1}, {0, 0}, {1, 0}};
    double worst = 0;
    int rows_ok = 1, kernel = 0, blas = 0;
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++)
        for (int o = 0; o < 3; o++) {
            int ta = orient[o][0], tb = orient[o][1];
            if (rl__fused_fits(ta, tb, shapes[s][0], shapes[s][1], shapes[s][2]))
                kernel++;
            else
                blas++;
            for (size_t x = 0; x < sizeof epis / sizeof epis[0]; x++)
                rows_ok &= check_fused(rng, ta, tb, shapes[s][0], shapes[s][1], shapes[s][2], epis[x].kind, epis[x].act,
                                       epis[x].bias, &worst);
        }
    int flipped_ok = 1;
    for (size_t x = 0; x < sizeof epis / sizeof epis[0]; x++)
        flipped_ok &= check_flipped(rng, epis[x].kind, epis[x].act);
    OK(flipped_ok, "a transposed-B product of few rows, computed as C^T = B A^T, is bit-identical");
    printf("# fused products: worst error %.2g; %d shapes on the kernel, %d on OpenBLAS\n", worst, kernel, blas);
    OK(worst < 2e-5, "fused products match the double reference for every epilogue");
    OK(rows_ok, "fused products: rows computed alone are bit-identical to the same rows in the batch");
    OK(!rl__fused_fits(1, 0, 64, 64, 300) && !rl__fused_fits(1, 1, 64, 64, 64) && !rl__fused_fits(0, 1, 16, 64, 64),
       "the kernel leaves long-sum, doubly transposed and short transposed-B products to OpenBLAS");
#ifdef __AVX512F__
    OK(!rl__fused_fits(0, 1, 256, 2, 64) && !rl__fused_fits(0, 0, 3, 64, 64),
       "the AVX-512 kernel leaves narrow and short-row products to OpenBLAS");
#endif
}

/* The ledger counts each product by shape while on, and nothing while off. */
static void test_ledger(rl_rng *rng)
{
    float x[5 * 3], w[4 * 3], bias[4], y[5 * 4], dy[5 * 4], dw[4 * 3] = {0}, dx[5 * 3] = {0};
    fill(x, 15, rng, 1), fill(w, 12, rng, 1), fill(bias, 4, rng, 1), fill(dy, 20, rng, 1);
    rl_ledger_start();
    for (int r = 0; r < 3; r++) rl_linear_forward(y, x, w, bias, 5, 3, 4);
    rl_linear_backward(dx, dw, NULL, dy, x, w, 5, 3, 4);
    rl_linear_forward(y, x, w, bias, 1, 3, 4);
    rl_ledger_stop();
    rl_linear_forward(y, x, w, bias, 5, 3, 4); /* not counted */
    const rl_gemm_shape *sh;
    uint64_t dropped = 1;
    size_t n = rl_ledger_shapes(&sh, &dropped);
    int fwd = 0, dwok = 0, dxok = 0, vec = 0;
    for (size_t i = 0; i < n; i++) {
        const rl_gemm_shape *s = &sh[i];
        fwd |= s->m == 5 && s->n == 4 && s->k == 3 && !s->trans_a && s->trans_b && s->count == 3;
        dwok |= s->m == 4 && s->n == 3 && s->k == 5 && s->trans_a && !s->trans_b && s->count == 1;
        dxok |= s->m == 5 && s->n == 3 && s->k == 4 && !s->trans_a && !s->trans_b && s->count == 1;
        vec |= s->m == 1 && s->n == 4 && s->k == 3 && s->count == 1;
    }
    OK(n == 4 && fwd && dwok && dxok && vec && dropped == 0, "ledger: four shapes with their counts");
    OK(rl_ledger_flops() == 2.0 * (3 * 60 + 60 + 60 + 12), "ledger: FLOPs are 2 m n k summed");
}

/* The library's own tanh against double-precision tanh. */
static void test_tanh(void)
{
    static float in[400001], out[400001];
    for (int i = 0; i <= 400000; i++) in[i] = -20.0f + 1e-4f * (float)i;
    rl_activation_forward(RL_ACT_TANH, out, in, 400001);
    double worst = 0;
    for (int i = 0; i <= 400000; i++) worst = fmax(worst, fabs(out[i] - tanh((double)in[i])));
    /* 4e-7 is under 7 ulp of values near 1: far below what float training notices. */
    OK(worst < 4e-7, "tanh within 4e-7 of the exact value on [-20, 20]");
    if (worst >= 4e-7) printf("#   worst %g\n", worst);
    float tiny[4] = {1e-30f, -3e-12f, 1e-6f, 0.0f}, tout[4];
    rl_activation_forward(RL_ACT_TANH, tout, tiny, 4);
    OK(fabsf(tout[0] - 1e-30f) < 1e-36f && fabsf(tout[1] + 3e-12f) < 3e-18f && fabsf(tout[2] - 1e-6f) < 1e-12f &&
           tout[3] == 0.0f,
       "tanh keeps relative accuracy for tiny inputs");
    float odd[3] = {NAN, INFINITY, -INFINITY}, oout[3];
    rl_activation_forward(RL_ACT_TANH, oout, odd, 3);
    OK(isnan(oout[0]) && oout[1] == 1.0f && oout[2] == -1.0f, "tanh of NaN is NaN, of +-inf is +-1");
    float one = 0.3f, r;
    rl_activation_forward(RL_ACT_TANH, &r, &one, 1);
    OK(r == out[(int)((0.3f + 20.0f) / 1e-4f + 0.5f)] || fabsf(r - tanhf(0.3f)) < 4e-7f,
       "tanh of a single value agrees");
    float mid[9], outs[9], outb[18];
    for (int i = 0; i < 9; i++) mid[i] = 0.1f * (float)i - 0.4f;
    rl_activation_forward(RL_ACT_TANH, outs, mid, 9);
    float two[18];
    memcpy(two, mid, sizeof mid);
    memcpy(two + 9, mid, sizeof mid);
    rl_activation_forward(RL_ACT_TANH, outb, two, 18);
    OK(memcmp(outs, outb, sizeof outs) == 0 && memcmp(outs, outb + 9, sizeof outs) == 0,
       "tanh results do not depend on the position in the array");
}

int main(void)
{
    rl_rng rng;
    rl_rng_seed(&rng, 7, 0);
    rl_blas_set_threads(1);
    test_linear(&rng);
    test_rowwise(&rng);
    rl_rng gemm_rng; /* its own stream too, for the same reason as the trunk's below */
    rl_rng_seed(&gemm_rng, 13, 0);
    test_gemm_small(&gemm_rng);
    test_fused();
    test_ledger(&rng);
    test_tanh();
    test_mlp(&rng, RL_ACT_TANH, "tanh");
    test_mlp(&rng, RL_ACT_RELU, "relu");
    rl_rng renorm_rng; /* its own stream, so the later tests' values stay theirs */
    rl_rng_seed(&renorm_rng, 17, 0);
    test_renorm(&renorm_rng);
    test_dueling(&rng);
    /* its own stream: the finite differences of the ReLU tests below hold
       on the values the shared stream gives them (a kink within eps fails) */
    rl_rng trunk_rng;
    rl_rng_seed(&trunk_rng, 11, 0);
    test_trunk(&trunk_rng);
    rl_rng packed_rng;
    rl_rng_seed(&packed_rng, 19, 0);
    test_packed(&packed_rng);
    test_lstm(&rng);
    test_conv2d_shapes(&rng);
    test_cnn(&rng);
    test_resnet(&rng);
    test_categorical(&rng);
    test_losses();
    test_adam();
    test_init(&rng);
    test_determinism();
    return tap_done();
}
