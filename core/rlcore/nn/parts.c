/* Network input of any observation and the multi-input encoder; see
   <rlhost/parts.h>. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rlhost/parts.h>
#include <rlhost/rlcore.h>

#include "nn_internal.h"

/* Floats part q contributes to the input: its elements, or the sum of its
   categories when discrete (one-hot). */
static uint32_t part_width(const rl_obs_part *q)
{
    uint32_t elems = rl_obs_part_elems(q), w = 0;
    if (q->kind != RL_PART_DISCRETE) return elems;
    for (uint32_t e = 0; e < elems; e++) w += q->nvec[e];
    return w;
}

uint32_t rl_obs_input_width(const rl_env_info *env)
{
    const rl_obs_part *parts;
    uint32_t n = rl_env_info_parts(env, &parts), w = 0;
    if (!n) return env->obs_size;
    for (uint32_t k = 0; k < n; k++) w += part_width(&parts[k]);
    return w;
}

size_t rl_obs_row_bytes(const rl_env_info *env)
{
    return (size_t)env->obs_size * rl_dtype_size(env->obs_dtype);
}

/* Part q of one row into out; returns the floats written. */
static uint32_t part_input(const rl_obs_part *q, const unsigned char *row, float *out)
{
    uint32_t elems = rl_obs_part_elems(q);
    const unsigned char *at = row + q->offset;
    if (q->kind != RL_PART_DISCRETE) {
        rl_obs_to_float(q->dtype, q->scale, at, elems, out);
        return elems;
    }
    uint32_t w = 0;
    for (uint32_t e = 0; e < elems; e++) {
        int64_t v = rl_obs_part_category(q, row, e);
        memset(out + w, 0, q->nvec[e] * sizeof(float));
        if (v >= 0 && v < q->nvec[e]) out[w + (uint32_t)v] = 1.0f; /* the host checked every row */
        w += q->nvec[e];
    }
    return w;
}

void rl_obs_input(const rl_env_info *env, const void *rows, uint32_t count, float *out)
{
    const rl_obs_part *parts;
    uint32_t n = rl_env_info_parts(env, &parts);
    if (!n) {
        rl_obs_to_float(env->obs_dtype, env->obs_scale, rows, (size_t)count * env->obs_size, out);
        return;
    }
    size_t rb = rl_obs_row_bytes(env);
    for (uint32_t i = 0; i < count; i++) {
        const unsigned char *row = (const unsigned char *)rows + i * rb;
        for (uint32_t k = 0; k < n; k++) out += part_input(&parts[k], row, out);
    }
}

int rl_obs_layout_copy(rl_obs_layout *l, const rl_env_info *env)
{
    memset(l, 0, sizeof *l);
    size_t size = env->struct_size < sizeof l->info ? env->struct_size : sizeof l->info;
    memcpy(&l->info, env, size);
    l->info.struct_size = (uint32_t)size;
    const rl_obs_part *parts;
    uint32_t n = rl_env_info_parts(env, &parts);
    if (!n) return RL_OK;
    if (n > RL_OBS_MAX_PARTS) return RL_EINVAL;
    size_t total = 0;
    for (uint32_t k = 0; k < n; k++)
        if (parts[k].kind == RL_PART_DISCRETE) total += rl_obs_part_elems(&parts[k]);
    l->nvec = malloc((total ? total : 1) * sizeof *l->nvec);
    if (!l->nvec) return RL_ENOMEM;
    total = 0;
    for (uint32_t k = 0; k < n; k++) {
        l->parts[k] = parts[k];
        l->parts[k].name = NULL; /* the env's string: not needed to read a row */
        if (parts[k].kind != RL_PART_DISCRETE) continue;
        uint32_t e = rl_obs_part_elems(&parts[k]);
        memcpy(l->nvec + total, parts[k].nvec, e * sizeof *l->nvec);
        l->parts[k].nvec = l->nvec + total;
        total += e;
    }
    l->info.obs_parts = l->parts;
    l->info.n_obs_parts = n;
    return RL_OK;
}

void rl_obs_layout_free(rl_obs_layout *l)
{
    free(l->nvec);
    memset(l, 0, sizeof *l);
}

/* ---- the encoder ----------------------------------------------------------*/

/* Whether part q is an image: a box of [C][H][W] or [H][W]. */
static int image_dims(const rl_obs_part *q, uint32_t *c, uint32_t *h, uint32_t *w)
{
    if (q->kind != RL_PART_BOX || q->ndim < 2 || q->ndim > 3) return 0;
    *c = q->ndim == 3 ? q->shape[0] : 1;
    *h = q->shape[q->ndim - 2];
    *w = q->shape[q->ndim - 1];
    return 1;
}

void rl_parts_encoder_destroy(rl_parts_encoder *e)
{
    for (uint32_t k = 0; e->cnns && k < e->n_cnn; k++) rl_cnn_destroy(&e->cnns[k]);
    for (uint32_t k = 0; e->gather && k < e->n_cnn; k++) rl_free(e->gather[k]);
    free(e->cnns);
    free(e->gather);
    rl_free(e->dpart);
    rl_free(e->out);
    memset(e, 0, sizeof *e);
}

int rl_parts_encoder_create(rl_parts_encoder *e, rl_params *p, const char *prefix, const rl_env_info *env,
                            const rl_cnn_spec *cnn, uint32_t max_batch, char *err, size_t errlen)
{
    memset(e, 0, sizeof *e);
    const rl_obs_part *parts;
    e->n = rl_env_info_parts(env, &parts);
    e->max_batch = max_batch;
    if (!e->n) {
        RL_ERRF(err, errlen, "the observation has no parts");
        return RL_EINVAL;
    }
    e->cnns = calloc(e->n, sizeof *e->cnns);
    e->gather = calloc(e->n, sizeof *e->gather);
    if (!e->cnns || !e->gather) goto oom;
    uint32_t widest = 0;
    for (uint32_t k = 0; k < e->n; k++) {
        rl_parts_segment *s = &e->seg[k];
        s->in_off = e->in_dim;
        s->in_len = part_width(&parts[k]);
        s->out_off = e->out_dim;
        s->out_len = s->in_len;
        s->cnn = -1;
        uint32_t c, h, w;
        if (cnn && cnn->enabled && image_dims(&parts[k], &c, &h, &w)) {
            char pre[RL_PARAM_NAME_MAX];
            snprintf(pre, sizeof pre, "%s/cnn%u", prefix, k);
            rl_cnn *net = &e->cnns[e->n_cnn];
            char why[RL_ERR_MAX];
            /* layers that do not fit the image leave it flattened */
            if (rl_cnn_create(net, p, pre, c, h, w, cnn->channels, cnn->kernels, cnn->strides, cnn->pads, cnn->n_layers,
                              max_batch, why, sizeof why) == RL_OK) {
                s->cnn = (int)e->n_cnn;
                s->out_len = net->out_dim;
                if (!(e->gather[e->n_cnn] = rl_calloc_aligned((size_t)max_batch * s->in_len, sizeof(float)))) goto oom;
                e->n_cnn++;
                if (net->out_dim > widest) widest = net->out_dim;
            } else {
                rl_cnn_destroy(net);
                memset(net, 0, sizeof *net);
            }
        }
        e->in_dim += s->in_len;
        e->out_dim += s->out_len;
    }
    e->out = rl_calloc_aligned((size_t)max_batch * e->out_dim, sizeof(float));
    e->dpart = rl_calloc_aligned((size_t)max_batch * (widest ? widest : 1), sizeof(float));
    if (e->out && e->dpart) return RL_OK;
oom:
    rl_parts_encoder_destroy(e);
    RL_ERRF(err, errlen, "out of memory for the observation's encoder");
    return RL_ENOMEM;
}

void rl_parts_encoder_init(const rl_parts_encoder *e, rl_params *p, rl_init_scheme scheme, rl_rng *rng)
{
    for (uint32_t k = 0; k < e->n_cnn; k++) rl_cnn_init(&e->cnns[k], p, scheme, rng);
}

/* Rows [0, B) of columns [off, off + len) of src (width sw) into dst
   (width dw) at column doff. */
static void copy_cols(float *dst, uint32_t dw, uint32_t doff, const float *src, uint32_t sw, uint32_t off, uint32_t len,
                      uint32_t B)
{
    for (uint32_t b = 0; b < B; b++)
        memcpy(dst + (size_t)b * dw + doff, src + (size_t)b * sw + off, len * sizeof(float));
}

const float *rl_parts_encoder_forward(rl_parts_encoder *e, const float *params, const float *x, uint32_t B, int infer)
{
    for (uint32_t k = 0; k < e->n; k++) {
        const rl_parts_segment *s = &e->seg[k];
        if (s->cnn < 0) {
            copy_cols(e->out, e->out_dim, s->out_off, x, e->in_dim, s->in_off, s->in_len, B);
            continue;
        }
        float *g = e->gather[s->cnn];
        copy_cols(g, s->in_len, 0, x, e->in_dim, s->in_off, s->in_len, B);
        rl_cnn *net = &e->cnns[s->cnn];
        const float *y = infer ? rl_cnn_infer(net, params, g, B) : rl_cnn_forward(net, params, g, B);
        copy_cols(e->out, e->out_dim, s->out_off, y, s->out_len, 0, s->out_len, B);
    }
    return e->out;
}

void rl_parts_encoder_backward(rl_parts_encoder *e, const float *params, float *grad, const float *dout, uint32_t B)
{
    for (uint32_t k = 0; k < e->n; k++) {
        const rl_parts_segment *s = &e->seg[k];
        if (s->cnn < 0) continue; /* no parameters before it */
        copy_cols(e->dpart, s->out_len, 0, dout, e->out_dim, s->out_off, s->out_len, B);
        rl_cnn_backward(&e->cnns[s->cnn], params, grad, e->gather[s->cnn], e->dpart, B);
    }
}

int rl_parts_encoder_ops(const rl_parts_encoder *e, const char *prefix, char *buf, size_t cap)
{
    size_t len = strlen(buf);
    int rc = rl__append(buf, cap, "%s{\"op\":\"concat\",\"parts\":[", len && buf[len - 1] == '}' ? "," : "");
    for (uint32_t k = 0; rc == 0 && k < e->n; k++) {
        const rl_parts_segment *s = &e->seg[k];
        rc = rl__append(buf, cap, "%s[{\"op\":\"slice\",\"start\":%u,\"len\":%u}", k ? "," : "", s->in_off, s->in_len);
        if (rc == 0 && s->cnn >= 0) {
            char pre[RL_PARAM_NAME_MAX];
            snprintf(pre, sizeof pre, "%s/cnn%u", prefix, k);
            rc = rl_cnn_ops(&e->cnns[s->cnn], pre, buf, cap);
        }
        if (rc == 0) rc = rl__append(buf, cap, "]");
    }
    if (rc == 0) rc = rl__append(buf, cap, "]}");
    return rc;
}
