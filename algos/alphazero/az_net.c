/* The policy/value network: a trunk whose features feed two heads, the
   moves' logits and the value (through tanh, times value_scale). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "az.h"

static int make_trunk(const az *p, rl_trunk *t, rl_params *params, const uint32_t *hidden, uint32_t nh,
                      uint32_t max_batch)
{
    const az_settings *c = &p->cfg;
    rl_trunk_head heads[2] = {{.name = "pi", .out_dim = c->n_actions}, {.name = "v", .out_dim = 1}};
    return rl_trunk_create(t, params, "net", c->obs_size, hidden, nh, c->act, heads, 2, max_batch);
}

int az_network(az *p, const uint32_t *hidden, uint32_t nh, uint64_t seed)
{
    const az_settings *c = &p->cfg;
    int rc = make_trunk(p, &p->trunk, &p->net, hidden, nh, c->batch > c->rows ? c->batch : c->rows);
    if (rc == RL_OK) rc = rl_params_alloc(&p->net);
    if (rc == RL_OK && !(p->packed = rl_calloc_aligned(rl_trunk_packed_floats(&p->trunk), sizeof(float))))
        rc = RL_ENOMEM;
    /* the workers' trunks declare the same tensors in the same order, so
       their offsets are the parameters' own; the table itself is dropped */
    rl_params *layout = p->workers > 1 ? calloc(1, sizeof *layout) : NULL;
    if (p->workers > 1 && !layout) rc = RL_ENOMEM;
    for (uint32_t w = 1; rc == RL_OK && w < p->workers; w++) {
        memset(layout, 0, sizeof *layout);
        rc = make_trunk(p, &p->actors[w - 1].trunk, layout, hidden, nh, c->rows);
    }
    free(layout);
    if (rc != RL_OK) return rc;
    rl_rng rng;
    rl_rng_seed(&rng, seed, 0xA21A);
    const float gains[2] = {0.01f, 1.0f}; /* near-uniform priors at the start */
    rl_trunk_init(&p->trunk, &p->net, RL_INIT_ORTHOGONAL, gains, &rng);
    az_pack(p);
    return RL_OK;
}

void az_pack(az *p)
{
    rl_trunk_pack(&p->trunk, p->net.data, p->packed);
}

void az_forward(const az *p, rl_trunk *t, const float *x, uint32_t B, int infer, const float **logits, float *values)
{
    const float *out[2];
    if (infer)
        rl_trunk_forward(t, p->net.data, x, B, 1, out);
    else
        rl_trunk_forward_packed(t, p->net.data, p->packed, x, B, out);
    *logits = out[0];
    for (uint32_t i = 0; i < B && values; i++) values[i] = tanhf(out[1][i]) * p->cfg.value_scale;
}

int az_describe(const az *p, const rl_state_io *io, char *err, size_t errlen)
{
    enum { CAP = 16384 };
    char *pi = calloc(2, CAP), *v = pi + CAP;
    if (!pi) {
        RL_ERRF(err, errlen, "out of memory describing the policy");
        return RL_ENOMEM;
    }
    int rc = rl_trunk_ops(&p->trunk, 0, pi, CAP) || rl_trunk_ops(&p->trunk, 1, v, CAP) || strlen(v) + 32 > CAP;
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
