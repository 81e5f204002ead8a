/* `rlhost bench nn`: the NN library's speed against raw sgemm.
 *
 * For an MLP input 64 -> hidden -> hidden -> 4 it times (a) exactly the
 * sgemm calls one training update makes (forward, weight gradients, input
 * gradients of the hidden layers) and (b) the full update (forward, loss
 * gradient, backward with biases and activations, Adam), interleaved and
 * repeated, and reports the median of each.  Both use the same FLOP count,
 * so update_gflops / sgemm_gflops is the share of BLAS speed the library
 * keeps.  It then splits small-batch inference time into BLAS and the rest,
 * and times a search's batches of leaves against their products' floor. */
#include <cblas.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rlhost/nn.h>

#include "bench.h"
#include "parallel/cpu.h"

#define IN_DIM 64
#define OUT_DIM 4

typedef struct net {
    rl_mlp m;
    rl_params p;
    rl_adam adam;
    float *x, *dout;
    uint32_t batch, hidden;
} net;

static int net_create(net *n, uint32_t batch, uint32_t hidden)
{
    memset(n, 0, sizeof *n);
    n->batch = batch;
    n->hidden = hidden;
    uint32_t hid[2] = {hidden, hidden};
    rl_rng rng;
    rl_rng_seed(&rng, 1, 0);
    if (rl_mlp_create(&n->m, &n->p, "q", IN_DIM, hid, 2, OUT_DIM, RL_ACT_RELU, batch) || rl_params_alloc(&n->p) ||
        rl_adam_create(&n->adam, n->p.n, 0.9f, 0.999f, 1e-8f, 0))
        return RL_ENOMEM;
    rl_mlp_init(&n->m, &n->p, RL_INIT_KAIMING, 1.0f, &rng);
    n->x = rl_calloc_aligned((size_t)batch * IN_DIM, sizeof(float));
    n->dout = rl_calloc_aligned((size_t)batch * OUT_DIM, sizeof(float));
    if (!n->x || !n->dout) return RL_ENOMEM;
    for (size_t i = 0; i < (size_t)batch * IN_DIM; i++) n->x[i] = rl_rng_uniform(&rng);
    return RL_OK;
}

static void net_destroy(net *n)
{
    rl_mlp_destroy(&n->m);
    rl_params_free(&n->p);
    rl_adam_destroy(&n->adam);
    rl_free(n->x);
    rl_free(n->dout);
}

/* FLOPs of one update: forward 2BΣ(in·out), weight grads the same, input
   grads for every layer but the first. */
static double update_flops(uint32_t B, uint32_t h)
{
    double l0 = (double)IN_DIM * h, l1 = (double)h * h, l2 = (double)h * OUT_DIM;
    return 2.0 * B * (3 * (l0 + l1 + l2) - l0);
}

static void one_update(void *ctx)
{
    net *n = ctx;
    const float *y = rl_mlp_forward(&n->m, n->p.data, n->x, n->batch);
    size_t k = (size_t)n->batch * OUT_DIM;
    for (size_t i = 0; i < k; i++) n->dout[i] = (y[i] - 0.5f) / (float)k;
    rl_params_zero_grad(&n->p);
    rl_mlp_backward(&n->m, n->p.data, n->p.grad, n->x, n->dout, NULL, n->batch);
    rl_adam_step(&n->adam, n->p.data, n->p.grad, 1e-4f);
}

/* The same sgemm calls as one_update, nothing else. */
static void one_sgemm_set(void *ctx)
{
    net *n = ctx;
    const rl_mlp *m = &n->m;
    int B = (int)n->batch;
    const float *x = n->x;
    for (uint32_t l = 0; l < m->n_layers; l++) {
        int in = (int)m->dims[l], out = (int)m->dims[l + 1];
        float *o = m->acts + m->act_off[l];
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, B, out, in, 1.0f, x, in, n->p.data + m->w_off[l], in, 0.0f,
                    o, out);
        cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, out, in, B, 1.0f, o, out, x, in, 1.0f,
                    n->p.grad + m->w_off[l], in);
        if (l)
            cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, B, in, out, 1.0f, o, out, n->p.data + m->w_off[l],
                        in, 0.0f, m->dacts + m->act_off[l - 1], in);
        x = o;
    }
}

/* Seconds per call of fn(ctx), timed over >= min_s. */
static double time_calls(void (*fn)(void *), void *ctx, double min_s)
{
    fn(ctx);
    long reps = 0;
    double t0 = rl_now(), t;
    do {
        fn(ctx);
        reps++;
        t = rl_now() - t0;
    } while (t < min_s);
    return t / reps;
}

static void inference_blas_only(void *ctx)
{
    net *n = ctx;
    const rl_mlp *m = &n->m;
    const float *x = n->x;
    for (uint32_t l = 0; l < m->n_layers; l++) {
        int in = (int)m->dims[l], out = (int)m->dims[l + 1];
        float *o = m->acts + m->act_off[l];
        if (n->batch == 1)
            cblas_sgemv(CblasRowMajor, CblasNoTrans, out, in, 1.0f, n->p.data + m->w_off[l], in, x, 1, 0.0f, o, 1);
        else
            cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, (int)n->batch, out, in, 1.0f, x, in,
                        n->p.data + m->w_off[l], in, 0.0f, o, out);
        x = o;
    }
}

static void inference_full(void *ctx)
{
    net *n = ctx;
    rl_mlp_forward(&n->m, n->p.data, n->x, n->batch);
}

/* The row-independent kernel action selection uses. */
static void inference_rowwise(void *ctx)
{
    net *n = ctx;
    rl_mlp_infer(&n->m, n->p.data, n->x, n->batch);
}

/* ---- a search's leaves: Connect Four's AlphaZero network ---------------
   The network's evaluation of a batch of leaves (84 inputs -> 256 -> 256,
   a policy head of 7 and a value head, ReLU) at the batch sizes a search
   thread hands it, through the packed weights (rl_trunk_forward_packed)
   and through rl_trunk_forward, against its floor: the same four products
   through cblas_sgemm alone. */
#define LEAF_IN 84
#define LEAF_H 256

typedef struct leaves {
    rl_trunk t;
    rl_params p;
    float *packed, *x;
    uint32_t batch;
} leaves;

static void leaves_destroy(leaves *n)
{
    rl_trunk_destroy(&n->t);
    rl_params_free(&n->p);
    rl_free(n->packed);
    rl_free(n->x);
}

static int leaves_create(leaves *n, uint32_t batch)
{
    memset(n, 0, sizeof *n);
    n->batch = batch;
    uint32_t hid[2] = {LEAF_H, LEAF_H};
    const rl_trunk_head heads[2] = {{.name = "pi", .out_dim = 7}, {.name = "v", .out_dim = 1}};
    rl_rng rng;
    rl_rng_seed(&rng, 1, 0);
    if (rl_trunk_create(&n->t, &n->p, "net", LEAF_IN, hid, 2, RL_ACT_RELU, heads, 2, batch) || rl_params_alloc(&n->p))
        return RL_ENOMEM;
    rl_trunk_init(&n->t, &n->p, RL_INIT_ORTHOGONAL, NULL, &rng);
    n->packed = rl_calloc_aligned(rl_trunk_packed_floats(&n->t), sizeof(float));
    n->x = rl_calloc_aligned((size_t)batch * LEAF_IN, sizeof(float));
    if (!n->packed || !n->x) return RL_ENOMEM;
    rl_trunk_pack(&n->t, n->p.data, n->packed);
    for (size_t i = 0; i < (size_t)batch * LEAF_IN; i++) n->x[i] = (float)(rl_rng_below(&rng, 3) == 0);
    return RL_OK;
}

static void leaves_sgemm(void *ctx)
{
    leaves *n = ctx;
    const rl_mlp *ms[3] = {&n->t.body, &n->t.heads[0], &n->t.heads[1]};
    const float *x = n->x, *feat = NULL;
    for (int k = 0; k < 3; k++) {
        const rl_mlp *m = ms[k];
        if (k) x = feat;
        for (uint32_t l = 0; l < m->n_layers; l++) {
            int in = (int)m->dims[l], out = (int)m->dims[l + 1];
            float *o = m->acts + m->act_off[l];
            cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, (int)n->batch, out, in, 1.0f, x, in,
                        n->p.data + m->w_off[l], in, 0.0f, o, out);
            x = o;
        }
        if (!k) feat = x;
    }
}

static void leaves_packed(void *ctx)
{
    leaves *n = ctx;
    const float *out[2];
    rl_trunk_forward_packed(&n->t, n->p.data, n->packed, n->x, n->batch, out);
}

static void leaves_forward(void *ctx)
{
    leaves *n = ctx;
    const float *out[2];
    rl_trunk_forward(&n->t, n->p.data, n->x, n->batch, 0, out);
}

static int bench_leaves(int json, int repeat)
{
    static const uint32_t batches[] = {1, 8, 16, 32, 64};
    if (!json)
        printf("\na search's leaves: %d -> %d -> %d -> 7 + 1, ReLU (Connect Four's AlphaZero network):\n"
               "%6s %12s %12s %12s %14s\n",
               LEAF_IN, LEAF_H, LEAF_H, "batch", "sgemm us", "packed us", "forward us", "packed / sgemm");
    for (size_t bi = 0; bi < sizeof batches / sizeof batches[0]; bi++) {
        leaves n;
        if (leaves_create(&n, batches[bi]) != RL_OK) {
            fprintf(stderr, "rlhost: bench nn: out of memory\n");
            leaves_destroy(&n);
            return 1;
        }
        double ts[64], tp[64], tf[64];
        int r = repeat > 64 ? 64 : repeat;
        for (int k = 0; k < r; k++) { /* interleaved */
            ts[k] = time_calls(leaves_sgemm, &n, 0.05);
            tp[k] = time_calls(leaves_packed, &n, 0.05);
            tf[k] = time_calls(leaves_forward, &n, 0.05);
        }
        double s = rl__median(ts, r) * 1e6, pk = rl__median(tp, r) * 1e6, f = rl__median(tf, r) * 1e6;
        if (json)
            printf("{\"bench\": \"nn_leaves\", \"batch\": %u, \"sgemm_us\": %.3f, \"packed_us\": %.3f, "
                   "\"forward_us\": %.3f, \"ratio\": %.3f}\n",
                   n.batch, s, pk, f, pk / s);
        else
            printf("%6u %12.2f %12.2f %12.2f %14.2f\n", n.batch, s, pk, f, pk / s);
        fflush(stdout);
        leaves_destroy(&n);
    }
    return 0;
}

/* ---- convolutions: a small-grid encoder's update against its sgemms ---- */

typedef struct cnn {
    rl_conv2d c0, c1;
    rl_params p;
    rl_adam adam;
    float *x, *h0, *h1, *d1, *d0;
    uint32_t batch;
} cnn;

#define CNN_IN_C 4
#define CNN_SIDE 10
#define CNN_C0 32
#define CNN_C1 64

static void cnn_destroy(cnn *n)
{
    rl_conv2d_destroy(&n->c0);
    rl_conv2d_destroy(&n->c1);
    rl_adam_destroy(&n->adam);
    rl_params_free(&n->p);
    rl_free(n->x), rl_free(n->h0), rl_free(n->h1), rl_free(n->d1), rl_free(n->d0);
}

static int cnn_create(cnn *n, uint32_t B)
{
    memset(n, 0, sizeof *n);
    n->batch = B;
    rl_rng rng;
    rl_rng_seed(&rng, 1, 2);
    size_t P = CNN_SIDE * CNN_SIDE;
    if (rl_conv2d_create(&n->c0, &n->p, "conv0", CNN_IN_C, CNN_SIDE, CNN_SIDE, CNN_C0, 3, 1, 1, B) ||
        rl_conv2d_create(&n->c1, &n->p, "conv1", CNN_C0, CNN_SIDE, CNN_SIDE, CNN_C1, 3, 1, 1, B) ||
        rl_params_alloc(&n->p) || rl_adam_create(&n->adam, n->p.n, 0.9f, 0.999f, 1e-8f, 0.0f))
        return RL_ENOMEM;
    for (size_t i = 0; i < n->p.n; i++) n->p.data[i] = 0.05f * (rl_rng_uniform(&rng) - 0.5f);
    n->x = rl_calloc_aligned((size_t)B * CNN_IN_C * P, sizeof(float));
    n->h0 = rl_calloc_aligned((size_t)B * CNN_C0 * P, sizeof(float));
    n->h1 = rl_calloc_aligned((size_t)B * CNN_C1 * P, sizeof(float));
    n->d1 = rl_calloc_aligned((size_t)B * CNN_C1 * P, sizeof(float));
    n->d0 = rl_calloc_aligned((size_t)B * CNN_C0 * P, sizeof(float));
    if (!n->x || !n->h0 || !n->h1 || !n->d1 || !n->d0) return RL_ENOMEM;
    for (size_t i = 0; i < (size_t)B * CNN_IN_C * P; i++) n->x[i] = (float)(rl_rng_below(&rng, 4)) / 3.0f;
    return RL_OK;
}

/* forward (conv, ReLU, conv, ReLU), a loss gradient, backward, Adam */
static void cnn_update(void *ctx)
{
    cnn *n = ctx;
    size_t P = CNN_SIDE * CNN_SIDE, n0 = (size_t)n->batch * CNN_C0 * P, n1 = (size_t)n->batch * CNN_C1 * P;
    rl_conv2d_forward(&n->c0, n->p.data, n->x, n->h0, n->batch);
    rl_activation_forward(RL_ACT_RELU, n->h0, n->h0, n0);
    rl_conv2d_forward(&n->c1, n->p.data, n->h0, n->h1, n->batch);
    rl_activation_forward(RL_ACT_RELU, n->h1, n->h1, n1);
    for (size_t i = 0; i < n1; i++) n->d1[i] = n->h1[i] > 0 ? (n->h1[i] - 0.5f) / (float)n1 : 0.0f;
    rl_params_zero_grad(&n->p);
    rl_conv2d_backward(&n->c1, n->p.data, n->p.grad, n->h0, n->d1, n->d0, n->batch);
    for (size_t i = 0; i < n0; i++) n->d0[i] = n->h0[i] > 0 ? n->d0[i] : 0.0f;
    rl_conv2d_backward(&n->c0, n->p.data, n->p.grad, n->x, n->d0, NULL, n->batch);
    rl_adam_step(&n->adam, n->p.data, n->p.grad, 1e-4f);
}

/* the five products cnn_update makes, through cblas alone on the same buffers */
static void cnn_sgemms(void *ctx)
{
    cnn *n = ctx;
    const rl_conv2d *cs[2] = {&n->c0, &n->c1};
    int BP = (int)(n->batch * CNN_SIDE * CNN_SIDE);
    for (int l = 0; l < 2; l++) {
        const rl_conv2d *c = cs[l];
        int K = (int)(c->in_c * c->k * c->k), O = (int)c->out_c;
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, O, BP, K, 1.0f, n->p.data + c->w_off, K, c->cols, BP,
                    0.0f, c->yt, BP);
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, O, K, BP, 1.0f, c->yt, BP, c->cols, BP, 1.0f,
                    n->p.grad + c->w_off, K);
        if (l)
            cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, K, BP, O, 1.0f, n->p.data + c->w_off, K, c->yt, BP,
                        0.0f, c->cols, BP);
    }
}

static double cnn_flops(const cnn *n)
{
    double BP = (double)n->batch * CNN_SIDE * CNN_SIDE, f = 0;
    const rl_conv2d *cs[2] = {&n->c0, &n->c1};
    for (int l = 0; l < 2; l++) {
        double K = (double)cs[l]->in_c * cs[l]->k * cs[l]->k, O = cs[l]->out_c;
        f += 2 * O * BP * K * (l ? 3 : 2);
    }
    return f;
}

static int bench_conv(int json, int repeat)
{
    static const uint32_t batches[] = {32, 128};
    if (!json)
        printf("\nconvolutions: %dx%d grid, %d -> %d -> %d channels, 3x3, stride 1, pad 1, ReLU, Adam:\n"
               "%6s %14s %16s %7s\n",
               CNN_SIDE, CNN_SIDE, CNN_IN_C, CNN_C0, CNN_C1, "batch", "sgemm GFLOP/s", "update GFLOP/s", "ratio");
    for (size_t bi = 0; bi < 2; bi++) {
        cnn n;
        if (cnn_create(&n, batches[bi]) != RL_OK) {
            fprintf(stderr, "rlhost: bench nn: out of memory\n");
            cnn_destroy(&n);
            return 1;
        }
        double ts[64], tu[64];
        int r = repeat > 64 ? 64 : repeat;
        for (int k = 0; k < r; k++) {
            ts[k] = time_calls(cnn_sgemms, &n, 0.05);
            tu[k] = time_calls(cnn_update, &n, 0.05);
        }
        double f = cnn_flops(&n), gs = f / rl__median(ts, r) * 1e-9, gu = f / rl__median(tu, r) * 1e-9;
        if (json)
            printf("{\"bench\": \"nn_conv_update\", \"batch\": %u, \"sgemm_gflops\": %.2f, "
                   "\"update_gflops\": %.2f, \"ratio\": %.3f}\n",
                   n.batch, gs, gu, gu / gs);
        else
            printf("%6u %14.1f %16.1f %6.0f%%\n", n.batch, gs, gu, 100 * gu / gs);
        fflush(stdout);
        cnn_destroy(&n);
    }
    return 0;
}

int rl__bench_nn(int json, int repeat)
{
    /* 32: a replica's share of a 64-row minibatch with 2 replicas */
    static const uint32_t batches[] = {32, 64, 256, 1024}, hiddens[] = {64, 256};
    if (repeat < 1) repeat = 5;
    if (!json) {
        printf("rlhost bench nn: MLP %d -> h -> h -> %d, ReLU, Adam; BLAS %s, %d thread%s\n", IN_DIM, OUT_DIM,
               rl__blas_choice(), rl_blas_get_threads(), rl_blas_get_threads() == 1 ? "" : "s");
        printf("median of %d interleaved repeats\n\n", repeat);
        printf("%6s %6s %14s %16s %7s\n", "batch", "hidden", "sgemm GFLOP/s", "update GFLOP/s", "ratio");
    }
    for (size_t hi = 0; hi < sizeof hiddens / sizeof hiddens[0]; hi++) {
        for (size_t bi = 0; bi < sizeof batches / sizeof batches[0]; bi++) {
            net n;
            if (net_create(&n, batches[bi], hiddens[hi]) != RL_OK) {
                fprintf(stderr, "rlhost: bench nn: out of memory\n");
                net_destroy(&n);
                return 1;
            }
            double ts[64], tu[64];
            int r = repeat > 64 ? 64 : repeat;
            for (int k = 0; k < r; k++) { /* off, on, off, on, ... */
                ts[k] = time_calls(one_sgemm_set, &n, 0.05);
                tu[k] = time_calls(one_update, &n, 0.05);
            }
            double f = update_flops(n.batch, n.hidden);
            double gs = f / rl__median(ts, r) * 1e-9, gu = f / rl__median(tu, r) * 1e-9;
            if (json)
                printf("{\"bench\": \"nn_update\", \"batch\": %u, \"hidden\": %u, \"sgemm_gflops\": "
                       "%.2f, \"update_gflops\": %.2f, \"ratio\": %.3f, \"blas_core\": \"%s\"}\n",
                       n.batch, n.hidden, gs, gu, gu / gs, rl_blas_corename());
            else
                printf("%6u %6u %14.1f %16.1f %6.0f%%\n", n.batch, n.hidden, gs, gu, 100 * gu / gs);
            fflush(stdout);
            net_destroy(&n);
        }
    }
    static const uint32_t small[] = {1, 4, 16, 64};
    if (!json)
        printf("\ninference (forward only), hidden 64:\n%6s %12s %12s %14s %14s\n", "batch", "us/call", "BLAS us",
               "outside BLAS", "rowwise us");
    for (size_t bi = 0; bi < 4; bi++) {
        net n;
        if (net_create(&n, small[bi], 64) != RL_OK) {
            net_destroy(&n);
            return 1;
        }
        double tb[64], tf[64], tr[64];
        int r = repeat > 64 ? 64 : repeat;
        for (int k = 0; k < r; k++) {
            tb[k] = time_calls(inference_blas_only, &n, 0.02);
            tf[k] = time_calls(inference_full, &n, 0.02);
            tr[k] = time_calls(inference_rowwise, &n, 0.02);
        }
        double b = rl__median(tb, r) * 1e6, full = rl__median(tf, r) * 1e6, row = rl__median(tr, r) * 1e6;
        double outside = full > b ? (full - b) / full : 0;
        if (json)
            printf("{\"bench\": \"nn_inference\", \"batch\": %u, \"hidden\": 64, \"us_per_call\": "
                   "%.3f, \"blas_us\": %.3f, \"outside_blas_frac\": %.3f, \"rowwise_us\": %.3f}\n",
                   n.batch, full, b, outside, row);
        else
            printf("%6u %12.2f %12.2f %13.0f%% %14.2f\n", n.batch, full, b, 100 * outside, row);
        fflush(stdout);
        net_destroy(&n);
    }
    if (bench_leaves(json, repeat)) return 1;
    return bench_conv(json, repeat);
}
