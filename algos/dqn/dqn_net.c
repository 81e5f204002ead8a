/* The Q-network; see dqn_net.h. */
#include "dqn_net.h"

#include <stdio.h>
#include <string.h>

static int create_nets(qnet *q, rl_params *p, const rl_env_info *env, const rl_cnn_spec *cnn, const uint32_t *hidden,
                       uint32_t n_hidden, uint32_t n_actions, uint32_t max_batch, char *err, size_t errlen)
{
    int rc;
    uint32_t in_dim = rl_obs_input_width(env);
    const rl_obs_part *parts;
    if (rl_env_info_parts(env, &parts) && cnn && cnn->enabled) { /* without a CNN the parts go in as they are */
        if ((rc = rl_parts_encoder_create(&q->enc, p, "q/parts", env, cnn, max_batch, err, errlen))) return rc;
        if (q->enc.n_cnn) {
            q->has_parts = 1;
            in_dim = q->enc.out_dim;
            q->dcnn = rl_calloc_aligned((size_t)max_batch * in_dim, sizeof(float));
            if (!q->dcnn) return RL_ENOMEM;
        } else { /* no image part the layers fit: nothing for an encoder to do */
            rl_parts_encoder_destroy(&q->enc);
        }
    } else if (cnn && cnn->enabled && !rl_env_info_parts(env, &parts)) {
        if ((rc = rl_cnn_create_spec(&q->cnn, p, "q/cnn", cnn, max_batch, err, errlen))) return rc;
        q->has_cnn = 1;
        in_dim = q->cnn.out_dim;
        q->dcnn = rl_calloc_aligned((size_t)max_batch * in_dim, sizeof(float));
        if (!q->dcnn) return RL_ENOMEM;
    }
    if (!q->dueling)
        return rl_mlp_create(&q->body, p, "q", in_dim, hidden, n_hidden, n_actions, RL_ACT_RELU, max_batch);
    const rl_trunk_head heads[2] = {{.name = "value", .out_dim = 1}, {.name = "advantage", .out_dim = n_actions}};
    if ((rc = rl_trunk_create(&q->trunk, p, "q", in_dim, hidden, n_hidden, RL_ACT_RELU, heads, 2, max_batch)))
        return rc;
    q->q = rl_calloc_aligned((size_t)max_batch * n_actions, sizeof(float));
    q->dv = rl_calloc_aligned(max_batch, sizeof(float));
    q->da = rl_calloc_aligned((size_t)max_batch * n_actions, sizeof(float));
    return q->q && q->dv && q->da ? RL_OK : RL_ENOMEM;
}

int qnet_create(qnet *q, rl_params *p, const rl_env_info *env, const rl_cnn_spec *cnn, const uint32_t *hidden,
                uint32_t n_hidden, uint32_t n_actions, int dueling, uint32_t max_batch, char *err, size_t errlen)
{
    memset(q, 0, sizeof *q);
    q->dueling = dueling && n_hidden > 0;
    q->n_actions = n_actions;
    q->in_dim = rl_obs_input_width(env);
    q->max_batch = max_batch;
    err[0] = 0;
    int rc = create_nets(q, p, env, cnn, hidden, n_hidden, n_actions, max_batch, err, errlen);
    if (rc) {
        if (!err[0]) snprintf(err, errlen, "%s while building the Q-network", rl_strerror(rc));
        qnet_destroy(q);
    }
    return rc;
}

int qnet_ops(const qnet *q, char *buf, size_t cap)
{
    int rc = q->has_cnn ? rl_cnn_ops(&q->cnn, "q/cnn", buf, cap) : 0;
    if (!rc && q->has_parts) rc = rl_parts_encoder_ops(&q->enc, "q/parts", buf, cap);
    if (rc || !q->dueling) return rc ? rc : rl_mlp_ops(&q->body, "q", buf, cap);
    /* the trunk's ops, its ReLU, then the heads inside the dueling op */
    const rl_trunk *t = &q->trunk;
    char v[512] = "", a[512] = "";
    if ((rc = rl_mlp_ops(&t->body, "q/trunk", buf, cap)) || (rc = rl_mlp_ops(&t->heads[0], "q/value", v, sizeof v)) ||
        (rc = rl_mlp_ops(&t->heads[1], "q/advantage", a, sizeof a)))
        return rc;
    size_t len = strlen(buf);
    int n = snprintf(buf + len, cap - len,
                     ",{\"op\":\"relu\"},{\"op\":\"dueling\",\"value\":[%s],"
                     "\"advantage\":[%s]}",
                     v, a);
    return n < 0 || (size_t)n >= cap - len ? -1 : 0;
}

void qnet_destroy(qnet *q)
{
    rl_cnn_destroy(&q->cnn);
    rl_parts_encoder_destroy(&q->enc);
    rl_free(q->dcnn);
    q->dcnn = NULL;
    rl_mlp_destroy(&q->body);
    rl_trunk_destroy(&q->trunk);
    rl_free(q->q);
    rl_free(q->dv);
    rl_free(q->da);
    q->q = q->dv = q->da = NULL;
}

void qnet_init(const qnet *q, rl_params *p, rl_rng *rng)
{
    if (q->has_cnn) rl_cnn_init(&q->cnn, p, RL_INIT_DEFAULT, rng);
    if (q->has_parts) rl_parts_encoder_init(&q->enc, p, RL_INIT_DEFAULT, rng);
    if (q->dueling)
        rl_trunk_init(&q->trunk, p, RL_INIT_DEFAULT, NULL, rng);
    else
        rl_mlp_init(&q->body, p, RL_INIT_DEFAULT, 1.0f, rng);
}

const float *qnet_forward(qnet *q, const float *params, const float *x, uint32_t batch, int infer)
{
    const float *(*fwd)(rl_mlp *, const float *, const float *, uint32_t) = infer ? rl_mlp_infer : rl_mlp_forward;
    if (q->has_cnn) x = (infer ? rl_cnn_infer : rl_cnn_forward)(&q->cnn, params, x, batch);
    if (q->has_parts) x = rl_parts_encoder_forward(&q->enc, params, x, batch, infer);
    if (!q->dueling) return fwd(&q->body, params, x, batch);
    const float *va[2];
    rl_trunk_forward(&q->trunk, params, x, batch, infer, va);
    rl_dueling_forward(q->q, va[0], va[1], batch, q->n_actions);
    return q->q;
}

void qnet_backward(qnet *q, const float *params, float *grad, const float *x, const float *dq, uint32_t batch)
{
    const float *in = x; /* the MLP's input: the encoder's output when there is one */
    float *din = NULL;
    if (q->has_cnn || q->has_parts) {
        in = q->has_cnn ? q->cnn.acts[q->cnn.n_layers - 1] : q->enc.out;
        din = q->dcnn;
        memset(din, 0, (size_t)batch * (q->has_cnn ? q->cnn.out_dim : q->enc.out_dim) * sizeof(float));
    }
    if (q->dueling) {
        memset(q->dv, 0, batch * sizeof(float));
        memset(q->da, 0, (size_t)batch * q->n_actions * sizeof(float));
        rl_dueling_backward(q->dv, q->da, dq, batch, q->n_actions);
        const float *dva[2] = {q->dv, q->da};
        rl_trunk_backward(&q->trunk, params, grad, in, dva, din, batch);
    } else {
        rl_mlp_backward(&q->body, params, grad, in, dq, din, batch);
    }
    if (q->has_cnn) rl_cnn_backward(&q->cnn, params, grad, x, din, batch);
    if (q->has_parts) rl_parts_encoder_backward(&q->enc, params, grad, din, batch);
}

void dqn_td_targets(float *y, const float *q_target_next, const float *q_online_next, const uint8_t *masks,
                    const float *ret, const float *disc, uint32_t batch, uint32_t n_actions)
{
    for (uint32_t j = 0; j < batch; j++) {
        const float *row = q_target_next + (size_t)j * n_actions;
        const float *pick = q_online_next ? q_online_next + (size_t)j * n_actions : row;
        const uint8_t *m = masks ? masks + (size_t)j * n_actions : NULL;
        y[j] = ret[j] + disc[j] * row[rl_argmax_masked(pick, m, n_actions)];
    }
}
