/* CNN encoder: conv2d layers with ReLU, flattened; see nn.h.  The batch
   runs through the layers in chunks of `chunk` samples so the im2col patch
   matrices stay a few MiB whatever the minibatch; every layer's output is
   kept for the whole batch, since backward needs them. */
#include <stdio.h>

#include "nn_internal.h"

int rl_cnn_create(rl_cnn *n, rl_params *p, const char *prefix, uint32_t in_c, uint32_t in_h, uint32_t in_w,
                  const uint32_t *channels, const uint32_t *kernels, const uint32_t *strides, const uint32_t *pads,
                  uint32_t n_layers, uint32_t max_batch, char *err, size_t errlen)
{
    memset(n, 0, sizeof *n);
    if (!n_layers || n_layers > RL_CNN_MAX_LAYERS || !max_batch || !in_c || !in_h || !in_w) {
        snprintf(err, errlen, "a cnn needs 1 to %d layers and an input image", RL_CNN_MAX_LAYERS);
        return RL_EINVAL;
    }
    n->n_layers = n_layers, n->in_c = in_c, n->in_h = in_h, n->in_w = in_w;
    n->max_batch = max_batch;
    /* the chunk: as many samples as keep every layer's patches under RL__CONV_CHUNK_FLOATS */
    size_t worst = 1;
    uint32_t c = in_c, h = in_h, w = in_w;
    for (uint32_t l = 0; l < n_layers; l++) {
        uint32_t k = kernels[l], s = strides[l], pd = pads[l];
        if (!channels[l] || !k || !s) {
            snprintf(err, errlen, "cnn layer %u: channels, kernel and stride must be at least 1", l + 1);
            return RL_EINVAL;
        }
        if (h + 2 * pd < k || w + 2 * pd < k) {
            snprintf(err, errlen, "cnn layer %u: kernel %u does not fit its %ux%u input (padding %u)", l + 1, k, h, w,
                     pd);
            return RL_EINVAL;
        }
        uint32_t oh = (h + 2 * pd - k) / s + 1, ow = (w + 2 * pd - k) / s + 1;
        size_t patch = (size_t)c * k * k * oh * ow;
        /* a first layer that reads its patches in place lays out none: it
           has no input gradient to compute */
        if (l == 0 && rl__conv2d_gathers(c, h + 2 * pd, w + 2 * pd)) patch = 0;
        if (patch > worst) worst = patch;
        c = channels[l], h = oh, w = ow;
    }
    n->chunk = (uint32_t)(RL__CONV_CHUNK_FLOATS / worst);
    if (n->chunk < 1) n->chunk = 1;
    if (n->chunk > max_batch) n->chunk = max_batch;
    c = in_c, h = in_h, w = in_w;
    size_t widest = 0;
    for (uint32_t l = 0; l < n_layers; l++) {
        char name[RL_PARAM_NAME_MAX];
        snprintf(name, sizeof name, "%s/conv%u", prefix, l);
        int rc =
            rl_conv2d_create(&n->conv[l], p, name, c, h, w, channels[l], kernels[l], strides[l], pads[l], n->chunk);
        if (rc) {
            snprintf(err, errlen, "cnn layer %u: %s", l + 1, rl_strerror(rc));
            rl_cnn_destroy(n);
            return rc;
        }
        const rl_conv2d *cv = &n->conv[l];
        if (cv->w_off == (size_t)-1 || cv->b_off == (size_t)-1) {
            snprintf(err, errlen, "cnn: more than %d parameter tensors", RL_PARAMS_MAX_TENSORS);
            rl_cnn_destroy(n);
            return RL_ENOMEM;
        }
        c = cv->out_c, h = cv->out_h, w = cv->out_w;
        n->act_size[l] = (size_t)c * h * w;
        if (n->act_size[l] > widest) widest = n->act_size[l];
        n->acts[l] = rl_calloc_aligned((size_t)max_batch * n->act_size[l], sizeof(float));
        if (!n->acts[l]) goto oom;
    }
    n->out_dim = (uint32_t)n->act_size[n_layers - 1];
    n->dscratch[0] = rl_calloc_aligned((size_t)n->chunk * widest, sizeof(float));
    n->dscratch[1] = rl_calloc_aligned((size_t)n->chunk * widest, sizeof(float));
    if (n->dscratch[0] && n->dscratch[1]) return RL_OK;
oom:
    snprintf(err, errlen, "cnn: out of memory for a batch of %u", max_batch);
    rl_cnn_destroy(n);
    return RL_ENOMEM;
}

void rl_cnn_destroy(rl_cnn *n)
{
    for (uint32_t l = 0; l < RL_CNN_MAX_LAYERS; l++) {
        rl_conv2d_destroy(&n->conv[l]);
        rl_free(n->acts[l]);
        n->acts[l] = NULL;
    }
    rl_free(n->dscratch[0]);
    rl_free(n->dscratch[1]);
    n->dscratch[0] = n->dscratch[1] = NULL;
}

void rl_cnn_init(const rl_cnn *n, rl_params *p, rl_init_scheme scheme, rl_rng *rng)
{
    for (uint32_t l = 0; l < n->n_layers; l++) {
        const rl_conv2d *c = &n->conv[l];
        rl__init_layer(p->data + c->w_off, p->data + c->b_off, c->out_c, c->in_c * c->k * c->k, scheme, 1.41421356f,
                       rng);
    }
}

static size_t in_size(const rl_cnn *n)
{
    return (size_t)n->in_c * n->in_h * n->in_w;
}

/* The weights as the in-place products read them, once per batch. */
static void pack(rl_cnn *n, const float *params)
{
    for (uint32_t l = 0; l < n->n_layers; l++) rl__conv2d_pack(&n->conv[l], params);
}

/* Layers over samples [b0, b0+B) with the weights packed: per-chunk
   products, ReLU in place. */
static void run_layers(rl_cnn *n, const float *params, const float *x, uint32_t b0, uint32_t B)
{
    for (uint32_t l = 0; l < n->n_layers; l++) {
        const float *in = l ? n->acts[l - 1] + (size_t)b0 * n->act_size[l - 1] : x + (size_t)b0 * in_size(n);
        float *out = n->acts[l] + (size_t)b0 * n->act_size[l];
        rl__conv2d_forward_packed(&n->conv[l], params, in, out, B);
        rl_activation_forward(RL_ACT_RELU, out, out, (size_t)B * n->act_size[l]);
    }
}

const float *rl_cnn_forward(rl_cnn *n, const float *params, const float *x, uint32_t B)
{
    pack(n, params);
    for (uint32_t b0 = 0; b0 < B; b0 += n->chunk) {
        uint32_t m = B - b0 < n->chunk ? B - b0 : n->chunk;
        run_layers(n, params, x, b0, m);
    }
    return n->acts[n->n_layers - 1];
}

/* A sample's actions must not depend on the batch it is inferred in.  The
   in-place patches give every sample the same sums whatever B; OpenBLAS's
   products may not, so unless every layer reads its patches in place the
   samples go one at a time. */
const float *rl_cnn_infer(rl_cnn *n, const float *params, const float *x, uint32_t B)
{
    uint32_t gather = 0;
    for (uint32_t l = 0; l < n->n_layers; l++) gather += n->conv[l].wt != NULL;
    if (gather == n->n_layers) return rl_cnn_forward(n, params, x, B);
    pack(n, params);
    for (uint32_t b = 0; b < B; b++) run_layers(n, params, x, b, 1);
    return n->acts[n->n_layers - 1];
}

void rl_cnn_backward(rl_cnn *n, const float *params, float *grad, const float *x, const float *dout, uint32_t B)
{
    /* Last chunk first: its patches are still in the workspaces. */
    uint32_t n_chunks = (B + n->chunk - 1) / n->chunk;
    for (uint32_t j = n_chunks; j-- > 0;) {
        uint32_t b0 = j * n->chunk, m = B - b0 < n->chunk ? B - b0 : n->chunk;
        uint32_t top = n->n_layers - 1;
        float *d = n->dscratch[0];
        memcpy(d, dout + (size_t)b0 * n->act_size[top], (size_t)m * n->act_size[top] * sizeof(float));
        for (uint32_t l = n->n_layers; l-- > 0;) {
            const float *out = n->acts[l] + (size_t)b0 * n->act_size[l];
            rl__activation_grad_inplace(RL_ACT_RELU, d, out, (size_t)m * n->act_size[l]);
            const float *in = l ? n->acts[l - 1] + (size_t)b0 * n->act_size[l - 1] : x + (size_t)b0 * in_size(n);
            float *dx = l ? n->dscratch[(top - l + 1) & 1] : NULL;
            rl_conv2d_backward(&n->conv[l], params, grad, in, d, dx, m);
            d = dx;
        }
    }
}

int rl_cnn_ops(const rl_cnn *n, const char *prefix, char *buf, size_t cap)
{
    size_t len = strlen(buf);
    int rc = len && buf[len - 1] == '}' ? rl__append(buf, cap, ",") : 0;
    for (uint32_t l = 0; rc == 0 && l < n->n_layers; l++) {
        char name[RL_PARAM_NAME_MAX + 16];
        snprintf(name, sizeof name, "%s/conv%u", prefix, l);
        if (l) rc = rl__append(buf, cap, ",");
        if (rc == 0) rc = rl__conv2d_op(&n->conv[l], name, buf, cap);
        if (rc == 0) rc = rl__append(buf, cap, ",{\"op\":\"relu\"}");
    }
    if (rc == 0) rc = rl__append(buf, cap, ",{\"op\":\"flatten\"}");
    return rc;
}

const char *const rl_encoder_names[] = {"mlp", "cnn", NULL};

int rl_obs_image_shape(const rl_env_info *env, uint32_t *c, uint32_t *h, uint32_t *w)
{
    const rl_obs_part *parts;
    if (rl_env_info_parts(env, &parts) || (env->obs_ndim != 2 && env->obs_ndim != 3)) return 0;
    int two = env->obs_ndim == 2;
    *c = two ? 1 : env->obs_shape[0];
    *h = env->obs_shape[two ? 0 : 1];
    *w = env->obs_shape[two ? 1 : 2];
    return 1;
}

int rl_cnn_spec_read(rl_cnn_spec *s, const rl_value *o, const rl_env_info *env, char *err, size_t errlen)
{
    memset(s, 0, sizeof *s);
    s->enabled = o[0].i == 1;
    if (!s->enabled) return RL_OK;
    size_t n = o[1].n;
    if (n < 1 || n > RL_CNN_MAX_LAYERS || o[2].n != n || o[3].n != n || o[4].n != n) {
        snprintf(err, errlen,
                 "cnn_channels, cnn_kernels, cnn_strides and cnn_padding need one entry per layer, "
                 "1 to %d layers (got %zu, %zu, %zu, %zu)",
                 RL_CNN_MAX_LAYERS, n, o[2].n, o[3].n, o[4].n);
        return RL_EINVAL;
    }
    const rl_obs_part *parts;
    if (rl_env_info_parts(env, &parts)) {
        /* a composite observation: each image part gets these layers (rl_parts_encoder) */
    } else if (!rl_obs_image_shape(env, &s->in_c, &s->in_h, &s->in_w)) {
        snprintf(err, errlen,
                 "encoder = \"cnn\" needs an image observation ([C][H][W] or [H][W]); the env's is "
                 "a vector of %u (snake: observation = \"grid\" or \"window\" without extra "
                 "features; gridworld: observation = \"full\" outside the T-maze)",
                 env->obs_size);
        return RL_EINVAL;
    }
    s->n_layers = (uint32_t)n;
    for (size_t l = 0; l < n; l++) {
        s->channels[l] = (uint32_t)o[1].ilist[l];
        s->kernels[l] = (uint32_t)o[2].ilist[l];
        s->strides[l] = (uint32_t)o[3].ilist[l];
        s->pads[l] = (uint32_t)o[4].ilist[l];
    }
    return RL_OK;
}

int rl_cnn_create_spec(rl_cnn *n, rl_params *p, const char *prefix, const rl_cnn_spec *s, uint32_t max_batch, char *err,
                       size_t errlen)
{
    return rl_cnn_create(n, p, prefix, s->in_c, s->in_h, s->in_w, s->channels, s->kernels, s->strides, s->pads,
                         s->n_layers, max_batch, err, errlen);
}
