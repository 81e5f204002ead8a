/* The DQN plugin's instance, shared by its files (see dqn.c for the map). */
#ifndef RLHOST_DQN_H
#define RLHOST_DQN_H

#include <rlhost/nn.h>
#include <rlhost/replay.h>

#include "dqn_net.h"
#include "sumtree.h"

typedef struct dqn {
    /* settings */
    uint32_t n_actions, obs_size, num_envs, rows, batch, n_step;
    /* data-parallel: replica rep->index of R, batch is its share; the
       update ratio counts the envs of all replicas (env_total) */
    const rl_replicas *rep;
    uint32_t R, env_total;
    int shard; /* sharded optimizer steps (rl_replicated_adam_step) */
    uint64_t total_steps, learning_starts, target_interval;
    uint32_t train_freq, gradient_steps;
    int ratio_auto;
    double ratio;
    float lr, gamma, tau, expl_fraction, eps_initial, eps_final, eval_eps, max_grad_norm;
    float alpha, beta0, per_eps;
    int lr_linear, huber, dbl, prioritized, batch_inference, skip_nonfinite, save_replay;
    rl_obs_layout obs; /* the env's observations (obs_size: floats of network input) */
    int inference;     /* acts only: no replay, optimizer or keep_best (rl_algo_args.inference) */
    uint64_t skipped;
    /* networks */
    rl_params online, target;
    qnet q, qt;
    rl_adam adam;
    rl_keep_best kb;
    /* action masks (mask_width = n_actions when the env masks, else 0):
       the mask of each replay slot's next observation (its final one where
       the episode ended), for targets over valid actions only */
    uint32_t mask_width;
    uint8_t *next_masks; /* [capacity][n_actions] */
    uint8_t *mb_masks;   /* [batch][n_actions]: of each row's bootstrap slot */
    /* replay */
    rl_replay rb;
    sumtree tree;
    double max_priority;
    /* workspaces */
    float *act_x, *x, *xn, *qn, *ret, *disc, *pred, *dpred, *y, *dq, *weights;
    uint32_t *slots;
    /* state */
    rl_rng explore, explore_eval, sample;
    uint64_t vsteps, last_step, last_target, grad_steps;
    double ratio_acc, epsilon, progress;
    /* metrics since the last report */
    double m_loss, m_q, m_w;
    uint64_t m_n;
} dqn;

/* dqn_train.c: one gradient step on a sampled minibatch (RL_ENONFINITE
   with a sentence on a non-finite loss or gradient, unless skipping). */
int dqn_train_step(dqn *d, char *err, size_t errlen);
/* dqn_state.c: the checkpoint (rl.algo.state/1), saved or loaded, with
   the policy description on save. */
int dqn_state(dqn *d, const rl_state_io *io, int load, char *err, size_t errlen);

#endif
