/* Q-network; see qnet.h. */
#include "qnet.h"

#include <stdio.h>
#include <string.h>

static int create_nets(qnet *q, rl_params *p, uint32_t in_dim, const rl_cnn_spec *cnn,
                       const uint32_t *hidden, uint32_t n_hidden, uint32_t n_actions,
                       uint32_t max_batch, char *err, size_t errlen)
{
    int rc;
    if (cnn && cnn->enabled) {
        if ((rc = rl_cnn_create_spec(&q->cnn, p, "q/cnn", cnn, max_batch, err, errlen))) return rc;
        q->has_cnn = 1;
        in_dim = q->cnn.out_dim;
        q->dcnn = rl_calloc_aligned((size_t)max_batch * in_dim, sizeof(float));
        if (!q->dcnn) return RL_ENOMEM;
    }
    if (!q->dueling)
        return rl_mlp_create(&q->body, p, "q", in_dim, hidden, n_hidden, n_actions, RL_ACT_RELU,
                             max_batch);
    q->feat_dim = hidden[n_hidden - 1];
    if ((rc = rl_mlp_create(&q->body, p, "q/trunk", in_dim, hidden, n_hidden - 1, q->feat_dim,
                            RL_ACT_RELU, max_batch)) ||
        (rc = rl_mlp_create(&q->vhead, p, "q/value", q->feat_dim, NULL, 0, 1, RL_ACT_NONE,
                            max_batch)) ||
        (rc = rl_mlp_create(&q->ahead, p, "q/advantage", q->feat_dim, NULL, 0, n_actions,
                            RL_ACT_NONE, max_batch)))
        return rc;
    q->q = rl_calloc_aligned((size_t)max_batch * n_actions, sizeof(float));
    q->dv = rl_calloc_aligned(max_batch, sizeof(float));
    q->da = rl_calloc_aligned((size_t)max_batch * n_actions, sizeof(float));
    q->dfeat = rl_calloc_aligned((size_t)max_batch * q->feat_dim, sizeof(float));
    return q->q && q->dv && q->da && q->dfeat ? RL_OK : RL_ENOMEM;
}

int qnet_create(qnet *q, rl_params *p, uint32_t in_dim, const rl_cnn_spec *cnn,
                const uint32_t *hidden, uint32_t n_hidden, uint32_t n_actions, int dueling,
                uint32_t max_batch, char *err, size_t errlen)
{
    memset(q, 0, sizeof *q);
    q->dueling = dueling && n_hidden > 0;
    q->n_actions = n_actions;
    q->in_dim = in_dim;
    q->max_batch = max_batch;
    err[0] = 0;
    int rc = create_nets(q, p, in_dim, cnn, hidden, n_hidden, n_actions, max_batch, err, errlen);
    if (rc) {
        if (!err[0]) snprintf(err, errlen, "%s while building the Q-network", rl_strerror(rc));
        qnet_destroy(q);
    }
    return rc;
}

int qnet_ops(const qnet *q, char *buf, size_t cap)
{
    int rc = q->has_cnn ? rl_cnn_ops(&q->cnn, "q/cnn", buf, cap) : 0;
    if (!rc) rc = rl_mlp_ops(&q->body, q->dueling ? "q/trunk" : "q", buf, cap);
    return rc;
}

void qnet_destroy(qnet *q)
{
    rl_cnn_destroy(&q->cnn);
    rl_free(q->dcnn);
    q->dcnn = NULL;
    rl_mlp_destroy(&q->body);
    rl_mlp_destroy(&q->vhead);
    rl_mlp_destroy(&q->ahead);
    rl_free(q->q);
    rl_free(q->dv);
    rl_free(q->da);
    rl_free(q->dfeat);
    q->q = q->dv = q->da = q->dfeat = NULL;
}

void qnet_init(const qnet *q, rl_params *p, rl_rng *rng)
{
    if (q->has_cnn) rl_cnn_init(&q->cnn, p, RL_INIT_DEFAULT, rng);
    rl_mlp_init(&q->body, p, RL_INIT_DEFAULT, 1.0f, rng);
    if (q->dueling) {
        rl_mlp_init(&q->vhead, p, RL_INIT_DEFAULT, 1.0f, rng);
        rl_mlp_init(&q->ahead, p, RL_INIT_DEFAULT, 1.0f, rng);
    }
}

const float *qnet_forward(qnet *q, const float *params, const float *x, uint32_t batch,
                          int infer)
{
    const float *(*fwd)(rl_mlp *, const float *, const float *, uint32_t) =
        infer ? rl_mlp_infer : rl_mlp_forward;
    if (q->has_cnn) x = (infer ? rl_cnn_infer : rl_cnn_forward)(&q->cnn, params, x, batch);
    if (!q->dueling) return fwd(&q->body, params, x, batch);
    /* The trunk's last layer has no activation of its own: ReLU it here
       (in the trunk's output workspace, which backward reads back). */
    float *feat = (float *)fwd(&q->body, params, x, batch);
    rl_activation_forward(RL_ACT_RELU, feat, feat, (size_t)batch * q->feat_dim);
    const float *v = fwd(&q->vhead, params, feat, batch);
    const float *a = fwd(&q->ahead, params, feat, batch);
    rl_dueling_forward(q->q, v, a, batch, q->n_actions);
    return q->q;
}

/* Dueling heads and trunk backward: dx (may be NULL) += d input. */
static void dueling_backward(qnet *q, const float *params, float *grad, const float *x,
                             const float *dq, float *dx, uint32_t batch)
{
    const float *feat = q->body.acts + q->body.act_off[q->body.n_layers - 1];
    memset(q->dv, 0, batch * sizeof(float));
    memset(q->da, 0, (size_t)batch * q->n_actions * sizeof(float));
    memset(q->dfeat, 0, (size_t)batch * q->feat_dim * sizeof(float));
    rl_dueling_backward(q->dv, q->da, dq, batch, q->n_actions);
    rl_mlp_backward(&q->vhead, params, grad, feat, q->dv, q->dfeat, batch);
    rl_mlp_backward(&q->ahead, params, grad, feat, q->da, q->dfeat, batch);
    /* through the trunk's ReLU */
    for (size_t i = 0; i < (size_t)batch * q->feat_dim; i++)
        if (feat[i] <= 0.0f) q->dfeat[i] = 0.0f;
    rl_mlp_backward(&q->body, params, grad, x, q->dfeat, dx, batch);
}

void qnet_backward(qnet *q, const float *params, float *grad, const float *x, const float *dq,
                   uint32_t batch)
{
    const float *in = x; /* the MLP's input: the encoder's output when there is one */
    float *din = NULL;
    if (q->has_cnn) {
        in = q->cnn.acts[q->cnn.n_layers - 1];
        din = q->dcnn;
        memset(din, 0, (size_t)batch * q->cnn.out_dim * sizeof(float));
    }
    if (q->dueling)
        dueling_backward(q, params, grad, in, dq, din, batch);
    else
        rl_mlp_backward(&q->body, params, grad, in, dq, din, batch);
    if (q->has_cnn) rl_cnn_backward(&q->cnn, params, grad, x, din, batch);
}

void dqn_td_targets(float *y, const float *q_target_next, const float *q_online_next,
                    const float *ret, const float *disc, uint32_t batch, uint32_t n_actions)
{
    for (uint32_t j = 0; j < batch; j++) {
        const float *row = q_target_next + (size_t)j * n_actions;
        const float *pick = q_online_next ? q_online_next + (size_t)j * n_actions : row;
        y[j] = ret[j] + disc[j] * row[rl_argmax(pick, n_actions)];
    }
}
