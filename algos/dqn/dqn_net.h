/* dqn_net.c: the Q-network, an MLP from observations to one value per
   action, or a dueling network (an rl_trunk with a value and an advantage
   head, combined as V + A - mean A), optionally behind a CNN encoder over
   image observations (q/cnn/convK).  All parameters live in one rl_params
   block.  A leaf: it uses librlcore only. */
#ifndef RLHOST_DQN_NET_H
#define RLHOST_DQN_NET_H

#include <rlhost/nn.h>
#include <rlhost/parts.h>

typedef struct qnet {
    int dueling;
    uint32_t n_actions, in_dim;
    int has_cnn, has_parts;
    rl_cnn cnn;           /* has_cnn: obs -> flattened features for body */
    rl_parts_encoder enc; /* has_parts: a composite observation's parts -> features for body */
    float *dcnn;          /* has_cnn or has_parts: d features [max_batch][features] */
    rl_mlp body;          /* plain: obs -> ... -> n_actions */
    rl_trunk trunk;       /* dueling: q/trunk, heads q/value (1) and q/advantage */
    float *q, *dv, *da;   /* dueling workspaces [max_batch][...] */
    uint32_t max_batch;
} qnet;

/* The network over env's observations (rl_obs_input, and a composite one's
   parts through rl_parts_encoder); cnn: NULL or a spec with enabled 0 for
   none.  err gets a sentence. */
int qnet_create(qnet *q, rl_params *p, const rl_env_info *env, const rl_cnn_spec *cnn, const uint32_t *hidden,
                uint32_t n_hidden, uint32_t n_actions, int dueling, uint32_t max_batch, char *err, size_t errlen);
void qnet_destroy(qnet *q);
void qnet_init(const qnet *q, rl_params *p, rl_rng *rng);
/* Q-values [batch][n_actions], valid until the next call.  infer = 1 uses
   the row-independent kernel (action selection), 0 uses sgemm (training). */
const float *qnet_forward(qnet *q, const float *params, const float *x, uint32_t batch, int infer);
/* Backward of the last training forward (infer = 0) on x. */
void qnet_backward(qnet *q, const float *params, float *grad, const float *x, const float *dq, uint32_t batch);
/* The network as rlhost.policy/1 operations (see rl_mlp_ops) into buf:
   the dueling network's last op combines its heads' ops. */
int qnet_ops(const qnet *q, char *buf, size_t cap);

/* TD targets y = ret + disc * Q_target(next, a*), where a* is the argmax of
   q_online_next (double DQN) or, when that is NULL, of q_target_next, over
   the actions masks allows (masks [batch][n_actions]; NULL: all). */
void dqn_td_targets(float *y, const float *q_target_next, const float *q_online_next, const uint8_t *masks,
                    const float *ret, const float *disc, uint32_t batch, uint32_t n_actions);

#endif
