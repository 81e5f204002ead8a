/* Residual tower: a stem conv, then blocks of two convs with a skip; see
   nn.h.  As in cnn.c the batch runs through the layers in chunks so the
   patch matrices stay small, and every layer's output is kept for the
   whole batch, since backward needs them. */
#include <stdio.h>

#include "nn_internal.h"

static size_t in_size(const rl_resnet *n)
{
    return (size_t)n->in_c * n->in_h * n->in_w;
}

static uint32_t n_convs(const rl_resnet *n)
{
    return 1 + 2 * n->blocks;
}

int rl_resnet_create(rl_resnet *n, rl_params *p, const char *prefix, uint32_t in_c, uint32_t in_h, uint32_t in_w,
                     uint32_t channels, uint32_t kernel, uint32_t blocks, uint32_t max_batch, char *err, size_t errlen)
{
    memset(n, 0, sizeof *n);
    if (!in_c || !in_h || !in_w || !channels || !max_batch || blocks > RL_RESNET_MAX_BLOCKS) {
        snprintf(err, errlen, "a residual tower needs an input image, channels and 0 to %d blocks",
                 RL_RESNET_MAX_BLOCKS);
        return RL_EINVAL;
    }
    if (!(kernel & 1)) {
        snprintf(err, errlen, "a residual tower's kernel must be odd (got %u): a block keeps its input's shape",
                 kernel);
        return RL_EINVAL;
    }
    n->in_c = in_c, n->in_h = in_h, n->in_w = in_w;
    n->channels = channels, n->k = kernel, n->blocks = blocks, n->max_batch = max_batch;
    n->out_dim = channels * in_h * in_w;
    uint32_t pad = kernel / 2, ph = in_h + 2 * pad, pw = in_w + 2 * pad;
    /* the widest patch matrix a chunk lays out: a block's conv (the stem,
       reading in place, lays out none: it has no input gradient) */
    size_t worst = blocks ? (size_t)channels * kernel * kernel * in_h * in_w : 1;
    if (!rl__conv2d_gathers(in_c, ph, pw) && (size_t)in_c * kernel * kernel * in_h * in_w > worst)
        worst = (size_t)in_c * kernel * kernel * in_h * in_w;
    n->chunk = (uint32_t)(RL__CONV_CHUNK_FLOATS / worst);
    if (n->chunk < 1) n->chunk = 1;
    if (n->chunk > max_batch) n->chunk = max_batch;
    for (uint32_t l = 0; l < n_convs(n); l++) {
        char name[RL_PARAM_NAME_MAX];
        if (l)
            snprintf(name, sizeof name, "%s/block%u/conv%u", prefix, (l - 1) / 2, 1 + (l - 1) % 2);
        else
            snprintf(name, sizeof name, "%s/stem", prefix);
        int rc =
            rl_conv2d_create(&n->conv[l], p, name, l ? channels : in_c, in_h, in_w, channels, kernel, 1, pad, n->chunk);
        if (rc) {
            snprintf(err, errlen, "residual tower conv %u: %s", l + 1, rl_strerror(rc));
            rl_resnet_destroy(n);
            return rc;
        }
        if (n->conv[l].w_off == (size_t)-1 || n->conv[l].b_off == (size_t)-1) {
            snprintf(err, errlen, "residual tower: more than %d parameter tensors", RL_PARAMS_MAX_TENSORS);
            rl_resnet_destroy(n);
            return RL_ENOMEM;
        }
        if (!(n->acts[l] = rl_calloc_aligned((size_t)max_batch * n->out_dim, sizeof(float)))) goto oom;
    }
    for (int i = 0; i < 3; i++)
        if (!(n->dscratch[i] = rl_calloc_aligned((size_t)n->chunk * n->out_dim, sizeof(float)))) goto oom;
    return RL_OK;
oom:
    snprintf(err, errlen, "residual tower: out of memory for a batch of %u", max_batch);
    rl_resnet_destroy(n);
    return RL_ENOMEM;
}

void rl_resnet_destroy(rl_resnet *n)
{
    for (uint32_t l = 0; l < 1 + 2 * RL_RESNET_MAX_BLOCKS; l++) {
        rl_conv2d_destroy(&n->conv[l]);
        rl_free(n->acts[l]);
        n->acts[l] = NULL;
    }
    for (int i = 0; i < 3; i++) {
        rl_free(n->dscratch[i]);
        n->dscratch[i] = NULL;
    }
}

void rl_resnet_init(const rl_resnet *n, rl_params *p, rl_init_scheme scheme, rl_rng *rng)
{
    for (uint32_t l = 0; l < n_convs(n); l++) {
        const rl_conv2d *c = &n->conv[l];
        float *w = p->data + c->w_off, *b = p->data + c->b_off;
        if (l && l % 2 == 0) { /* a block's second conv */
            memset(w, 0, (size_t)c->out_c * c->in_c * c->k * c->k * sizeof(float));
            memset(b, 0, c->out_c * sizeof(float));
            continue;
        }
        rl__init_layer(w, b, c->out_c, c->in_c * c->k * c->k, scheme, 1.41421356f, rng);
    }
}

static void pack(rl_resnet *n, const float *params)
{
    for (uint32_t l = 0; l < n_convs(n); l++) rl__conv2d_pack(&n->conv[l], params);
}

/* Samples [b0, b0+B) through the tower, the weights packed. */
static void run_layers(rl_resnet *n, const float *params, const float *x, uint32_t b0, uint32_t B)
{
    size_t D = n->out_dim, off = (size_t)b0 * D, m = (size_t)B * D;
    float *a = n->acts[0] + off;
    rl__conv2d_forward_packed(&n->conv[0], params, x + (size_t)b0 * in_size(n), a, B);
    rl_activation_forward(RL_ACT_RELU, a, a, m);
    for (uint32_t j = 0; j < n->blocks; j++) {
        float *h = n->acts[1 + 2 * j] + off, *y = n->acts[2 + 2 * j] + off;
        rl__conv2d_forward_packed(&n->conv[1 + 2 * j], params, a, h, B);
        rl_activation_forward(RL_ACT_RELU, h, h, m);
        rl__conv2d_forward_packed(&n->conv[2 + 2 * j], params, h, y, B);
        for (size_t i = 0; i < m; i++) y[i] += a[i];
        rl_activation_forward(RL_ACT_RELU, y, y, m);
        a = y;
    }
}

const float *rl_resnet_forward(rl_resnet *n, const float *params, const float *x, uint32_t B)
{
    pack(n, params);
    for (uint32_t b0 = 0; b0 < B; b0 += n->chunk) {
        uint32_t m = B - b0 < n->chunk ? B - b0 : n->chunk;
        run_layers(n, params, x, b0, m);
    }
    return n->acts[n_convs(n) - 1];
}

/* As rl_cnn_infer: the whole batch at once where every conv reads its
   patches in place (a sample's sums do not depend on B), else one sample
   at a time. */
const float *rl_resnet_infer(rl_resnet *n, const float *params, const float *x, uint32_t B)
{
    uint32_t gather = 0;
    for (uint32_t l = 0; l < n_convs(n); l++) gather += n->conv[l].wt != NULL;
    if (gather == n_convs(n)) return rl_resnet_forward(n, params, x, B);
    pack(n, params);
    for (uint32_t b = 0; b < B; b++) run_layers(n, params, x, b, 1);
    return n->acts[n_convs(n) - 1];
}

void rl_resnet_backward(rl_resnet *n, const float *params, float *grad, const float *x, const float *dout, uint32_t B)
{
    size_t D = n->out_dim;
    /* Last chunk first: its patches are still in the workspaces. */
    uint32_t n_chunks = (B + n->chunk - 1) / n->chunk;
    for (uint32_t c = n_chunks; c-- > 0;) {
        uint32_t b0 = c * n->chunk, mb = B - b0 < n->chunk ? B - b0 : n->chunk;
        size_t off = (size_t)b0 * D, m = (size_t)mb * D;
        /* d: the gradient at a block's output, then (the skip) at its input */
        float *d = n->dscratch[0], *dh = n->dscratch[1], *dx = n->dscratch[2];
        memcpy(d, dout + off, m * sizeof(float));
        for (uint32_t j = n->blocks; j-- > 0;) {
            const float *y = n->acts[2 + 2 * j] + off, *h = n->acts[1 + 2 * j] + off;
            const float *a = n->acts[2 * j] + off; /* the block's input: the stem's or the block before's */
            rl__activation_grad_inplace(RL_ACT_RELU, d, y, m);
            rl_conv2d_backward(&n->conv[2 + 2 * j], params, grad, h, d, dh, mb);
            rl__activation_grad_inplace(RL_ACT_RELU, dh, h, m);
            rl_conv2d_backward(&n->conv[1 + 2 * j], params, grad, a, dh, dx, mb);
            for (size_t i = 0; i < m; i++) d[i] += dx[i];
        }
        rl__activation_grad_inplace(RL_ACT_RELU, d, n->acts[0] + off, m);
        rl_conv2d_backward(&n->conv[0], params, grad, x + (size_t)b0 * in_size(n), d, NULL, mb);
    }
}

int rl_resnet_ops(const rl_resnet *n, const char *prefix, char *buf, size_t cap)
{
    size_t len = strlen(buf);
    int rc = len && buf[len - 1] == '}' ? rl__append(buf, cap, ",") : 0;
    char name[RL_PARAM_NAME_MAX + 32];
    snprintf(name, sizeof name, "%s/stem", prefix);
    if (!rc) rc = rl__conv2d_op(&n->conv[0], name, buf, cap);
    if (!rc) rc = rl__append(buf, cap, ",{\"op\":\"relu\"}");
    for (uint32_t j = 0; !rc && j < n->blocks; j++) {
        rc = rl__append(buf, cap, ",{\"op\":\"residual\",\"ops\":[");
        snprintf(name, sizeof name, "%s/block%u/conv1", prefix, j);
        if (!rc) rc = rl__conv2d_op(&n->conv[1 + 2 * j], name, buf, cap);
        if (!rc) rc = rl__append(buf, cap, ",{\"op\":\"relu\"},");
        snprintf(name, sizeof name, "%s/block%u/conv2", prefix, j);
        if (!rc) rc = rl__conv2d_op(&n->conv[2 + 2 * j], name, buf, cap);
        if (!rc) rc = rl__append(buf, cap, "]},{\"op\":\"relu\"}");
    }
    if (!rc) rc = rl__append(buf, cap, ",{\"op\":\"flatten\"}");
    return rc;
}
