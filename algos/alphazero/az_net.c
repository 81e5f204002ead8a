/* The policy/value network: a trunk (over a residual conv tower's features
   with network = "resnet") whose features feed two heads, the moves'
   logits and the value (through tanh, times value_scale). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "az.h"

/* Declares the layers' tensors into params in one fixed order (the tower,
   then the trunk), so that every worker's layers find the parameters at
   the az's own offsets. */
static int make_layers(const az *p, az_layers *nn, rl_params *params, const uint32_t *hidden, uint32_t nh,
                       uint32_t max_batch, char *err, size_t errlen)
{
    const az_settings *c = &p->cfg;
    uint32_t in = c->obs_size;
    if (c->resnet) {
        int rc = rl_resnet_create(&nn->res, params, "net/res", c->img_c, c->img_h, c->img_w, c->channels, 3, c->blocks,
                                  max_batch, err, errlen);
        if (rc) return rc;
        in = nn->res.out_dim;
    }
    rl_trunk_head heads[2] = {{.name = "pi", .out_dim = c->n_actions}, {.name = "v", .out_dim = 1}};
    int rc = rl_trunk_create(&nn->trunk, params, "net", in, hidden, nh, c->act, heads, 2, max_batch);
    if (rc) RL_ERRF(err, errlen, "%s building the trunk", rl_strerror(rc));
    return rc;
}

void az_layers_destroy(az_layers *nn)
{
    rl_resnet_destroy(&nn->res);
    rl_trunk_destroy(&nn->trunk);
}

int az_network(az *p, const uint32_t *hidden, uint32_t nh, uint64_t seed, char *err, size_t errlen)
{
    const az_settings *c = &p->cfg;
    uint32_t max_batch = c->batch > c->rows ? c->batch : c->rows;
    int rc = make_layers(p, &p->nn, &p->net, hidden, nh, max_batch, err, errlen);
    if (rc == RL_OK && (rc = rl_params_alloc(&p->net))) RL_ERRF(err, errlen, "out of memory for the network");
    if (rc == RL_OK && !(p->packed = rl_calloc_aligned(rl_trunk_packed_floats(&p->nn.trunk), sizeof(float)))) {
        RL_ERRF(err, errlen, "out of memory for the network");
        rc = RL_ENOMEM;
    }
    if (rc == RL_OK && c->resnet && !c->inference &&
        !(p->dfeat = rl_calloc_aligned((size_t)c->batch * p->nn.res.out_dim, sizeof(float)))) {
        RL_ERRF(err, errlen, "out of memory for the network");
        rc = RL_ENOMEM;
    }
    /* the workers' layers declare the same tensors in the same order, so
       their offsets are the parameters' own; the table itself is dropped */
    rl_params *layout = p->workers > 1 ? calloc(1, sizeof *layout) : NULL;
    if (p->workers > 1 && !layout) rc = RL_ENOMEM;
    for (uint32_t w = 1; rc == RL_OK && w < p->workers; w++) {
        memset(layout, 0, sizeof *layout);
        rc = make_layers(p, &p->actors[w - 1].nn, layout, hidden, nh, c->rows, err, errlen);
    }
    free(layout);
    if (rc != RL_OK) return rc;
    rl_rng rng;
    rl_rng_seed(&rng, seed, 0xA21A);
    const float gains[2] = {0.01f, 1.0f}; /* near-uniform priors at the start */
    rl_trunk_init(&p->nn.trunk, &p->net, RL_INIT_ORTHOGONAL, gains, &rng);
    if (c->resnet) rl_resnet_init(&p->nn.res, &p->net, RL_INIT_ORTHOGONAL, &rng);
    az_pack(p);
    return RL_OK;
}

void az_pack(az *p)
{
    rl_trunk_pack(&p->nn.trunk, p->net.data, p->packed);
}

void az_forward(const az *p, az_layers *nn, const float *x, uint32_t B, int infer, const float **logits, float *values)
{
    const float *out[2];
    if (p->cfg.resnet) x = rl_resnet_infer(&nn->res, p->net.data, x, B);
    if (infer)
        rl_trunk_forward(&nn->trunk, p->net.data, x, B, 1, out);
    else
        rl_trunk_forward_packed(&nn->trunk, p->net.data, p->packed, x, B, out);
    *logits = out[0];
    for (uint32_t i = 0; i < B && values; i++) values[i] = tanhf(out[1][i]) * p->cfg.value_scale;
}

void az_train_forward(az *p, const float *x, uint32_t B, const float **out)
{
    if (p->cfg.resnet) x = rl_resnet_forward(&p->nn.res, p->net.data, x, B);
    rl_trunk_forward(&p->nn.trunk, p->net.data, x, B, 0, out);
}

void az_backward(az *p, const float *x, const float *const *dout, uint32_t B)
{
    if (!p->cfg.resnet) {
        rl_trunk_backward(&p->nn.trunk, p->net.data, p->net.grad, x, dout, NULL, B);
        return;
    }
    rl_resnet *res = &p->nn.res;
    memset(p->dfeat, 0, (size_t)B * res->out_dim * sizeof(float));
    rl_trunk_backward(&p->nn.trunk, p->net.data, p->net.grad, res->acts[2 * res->blocks], dout, p->dfeat, B);
    rl_resnet_backward(res, p->net.data, p->net.grad, x, p->dfeat, B);
}

int az_describe(const az *p, const rl_state_io *io, char *err, size_t errlen)
{
    enum { CAP = 16384 };
    char *pi = calloc(2, CAP), *v = pi + CAP;
    if (!pi) {
        RL_ERRF(err, errlen, "out of memory describing the policy");
        return RL_ENOMEM;
    }
    int rc = 0;
    if (p->cfg.resnet) /* the tower's ops open both outputs; an exporter computes them once */
        rc = rl_resnet_ops(&p->nn.res, "net/res", pi, CAP) || rl_resnet_ops(&p->nn.res, "net/res", v, CAP);
    rc = rc || rl_trunk_ops(&p->nn.trunk, 0, pi, CAP) || rl_trunk_ops(&p->nn.trunk, 1, v, CAP) || strlen(v) + 32 > CAP;
    if (!rc) strcat(v, ",{\"op\":\"tanh\"}"); /* the value in [-1, 1], before value_scale */
    char greedy[128];
    snprintf(greedy, sizeof greedy, "{\"%s\":\"logits\"}", p->cfg.det_eval ? "argmax" : "sample_softmax");
    const char *names[2] = {"logits", "value"}, *ops[2] = {pi, v};
    if (rc) {
        RL_ERRF(err, errlen, "the network is too large to describe");
        rc = RL_EINVAL;
    } else {
        rc = rl_policy_meta(io, "alphazero", p->cfg.obs_size, NULL, 0.0f, 2, names, ops, greedy, err, errlen);
    }
    free(pi);
    return rc;
}
