/* PPO's private declarations, shared by its files: ppo.c (options,
   create, act, observe, update) -> ppo_train.c (GAE and the epochs of
   minibatch updates), ppo_state.c (checkpoints and the policy's
   description) -> ppo_net.c (the networks and inference). */
#ifndef RLHOST_PPO_H
#define RLHOST_PPO_H

#include <rlhost/nn.h>
#include <rlhost/norm.h>
#include <rlhost/parts.h>
#include <rlhost/rollout.h>

#include "ppo_math.h"

/* ---- towers: optional CNN, optional LSTM, then an MLP -------------------- */

typedef struct tower {
    int recurrent, has_cnn, has_parts;
    rl_cnn cnn;
    rl_parts_encoder enc; /* a composite observation: its parts, each image through a CNN of its own */
    float *dcnn;          /* training: gradient of the CNN's (or encoder's) output [max_rows][F] */
    rl_lstm lstm;
    rl_mlp mlp;
    float *hseq, *dh; /* training: LSTM outputs [L*S][H] and their gradient */
} tower;

int tower_create(tower *t, rl_params *p, const char *name, const rl_env_info *env, const rl_cnn_spec *cnn,
                 int recurrent, uint32_t lstm_hidden, const uint32_t *hidden, uint32_t n_hidden, uint32_t out,
                 rl_activation act, uint32_t max_rows, uint32_t seqs, uint32_t steps, char *err, size_t errlen);
void tower_destroy(tower *t);
/* Training forward over L x S time-major rows. */
const float *tower_forward(tower *t, const float *params, const float *x, const float *h0, const float *c0,
                           const uint8_t *reset, uint32_t L, uint32_t S);
void tower_backward(tower *t, const float *params, float *grad, const float *x, const float *dout, uint32_t L,
                    uint32_t S);
/* Inference for B rows; h, c [B][H] are advanced in place (recurrent). */
const float *tower_infer(tower *t, const float *params, const float *x, float *h, float *c, float *gates, uint32_t B);

/* ---- the algorithm -------------------------------------------------------*/

/* Recurrent state of one tower for a set of env rows. */
typedef struct lstm_state {
    float *h, *c;
} lstm_state;

/* What the options and the env's spaces say, fixed at create. */
typedef struct ppo_settings {
    uint32_t n_actions, obs_size, num_envs; /* obs_size: floats of network input; num_envs: this replica's */
    int box;                                /* a box (or a hybrid action's): a diagonal Gaussian policy */
    int discrete;                           /* int actions: categoricals (a hybrid action has both) */
    uint32_t dim;                           /* box: floats per action */
    uint32_t n_out;                         /* the policy head's width: logits (n_actions, sum of nvec), then means */
    uint32_t comps;                         /* ints per action: MultiDiscrete's or hybrid's components, else 1 */
    uint32_t mask_width;                    /* bytes of a mask row; 0: the env does not mask */
    size_t log_std_off;                     /* box: the state-independent log-stds [dim] in the parameter block */
    uint32_t n_log_std;                     /* their count: dim, or gSDE's latent x (full_std ? dim : 1) */
    int sde, full_std;                      /* use_sde: noise linear in the policy's latent features */
    uint32_t sde_freq;                      /* steps per env between new matrices; 0: at each rollout's start */
    uint32_t latent;                        /* the policy's last hidden width (gSDE's features) */
    float log_std_init;
    int ortho_init;                  /* orthogonal init, else PyTorch's Linear default */
    int norm_reward;                 /* scale rewards by a running estimate of the return's spread */
    uint32_t rows;                   /* the most rows one act() takes: max(num_envs, eval envs) */
    uint32_t n_steps, batch, epochs; /* batch: this replica's share of a minibatch */
    uint32_t bptt, lstm_hidden;      /* recurrent: sequence length, LSTM width (else 1, 0) */
    uint32_t n_towers, replicas;
    uint64_t total_steps;
    float lr, gamma, lambda, clip, vclip, ent_coef, vf_coef, max_grad_norm;
    int lr_linear, clip_linear, norm_adv, det_eval, recurrent, shared, batch_inference, skip_nonfinite;
    int norm_obs;
    ppo_vloss vloss;
    int inference; /* acts only: no optimizer, keep_best or real rollout (rl_algo_args.inference) */
    rl_activation act;
} ppo_settings;

/* Scratch of the forward and backward passes, sized at create. */
typedef struct ppo_workspace {
    float *x, *logits, *dlogits, *dv, *vpred, *feat_scratch, *gates, *h0[2], *c0[2];
    float *act_x, *tmp_h, *tmp_c;
    uint32_t *perm, *rows_idx;
    uint8_t *reset;
    float *dlogstd; /* box: the minibatch's gradient of the log-stds [n_log_std] */
    float *sde_z;   /* gSDE: the acting rows' latent features [rows][latent] */
    float *sde_std; /* gSDE: the noise scales [latent][dim] of a draw */
    /* a minibatch's actions, [M][comps] ints or [M][dim] box floats, and
       masks [M][mask_width], their log-probabilities and the loss's
       gradient in them [M] */
    int32_t *mb_act;
    float *mb_box;
    uint8_t *mb_mask;
    float *mb_logp, *mb_glogp;
} ppo_workspace;

/* Sums since the last metrics() call. */
typedef struct ppo_sums {
    double policy_loss, value_loss, entropy, approx_kl, clip_fraction, explained_variance;
    uint64_t n;
} ppo_sums;

typedef struct ppo {
    ppo_settings cfg;
    rl_obs_layout obs; /* the env's observations, read into network input by rl_obs_input */
    /* data-parallel: this instance is replica rep->index of cfg.replicas;
       sums go through rep */
    const rl_replicas *rep;
    /* networks: shared -> towers[0] body + heads; else towers[0] actor, [1] critic */
    rl_params p;
    rl_keep_best kb;
    tower towers[2];
    rl_mlp head_pi, head_v; /* shared only */
    rl_adam adam;
    rl_rollout ro;
    rl_mpdist *dist;                  /* the policy's distribution over every kind of action space */
    float *sde_env;                   /* gSDE: each env's noise matrix [num_envs][latent][dim], held between draws */
    float *stored_h[2], *stored_c[2]; /* recurrent: the state carried into each rollout step [T][N][H] */
    rl_obs_norm norm;                 /* normalize_obs */
    rl_return_norm rnorm;             /* normalize_reward (Stable-Baselines3's VecNormalize) */
    /* recurrent state now: train [N][H], eval [rows][H], per tower */
    lstm_state live[2], eval[2];
    ppo_workspace ws;
    rl_rng rng, eval_rng, shuffle;
    uint64_t step, updates, skipped;
    double progress;
    ppo_sums m;
} ppo;

/* ppo_net.c: policy logits and values (values may be NULL) for B rows in
   inference mode, advancing the recurrent states st[] when given. */
void ppo_infer(ppo *p, const float *x, lstm_state *st, uint32_t B, float *logits, float *values);
/* ppo_train.c: the update on a full rollout. */
int ppo_train_rollout(ppo *p, char *err, size_t errlen);
/* ppo_state.c: save (load = 0) or load the state a resume needs. */
int ppo_state(ppo *p, const rl_state_io *io, int load, char *err, size_t errlen);

/* The policy's latent features of the rows of its last forward or
   inference: the shared body's activated output, or the actor MLP's last
   hidden layer (gSDE's z). */
static inline const float *ppo_latent(const ppo *p)
{
    if (p->cfg.shared) return p->ws.feat_scratch;
    const rl_mlp *m = &p->towers[0].mlp;
    return m->acts + m->act_off[m->n_layers - 2];
}

#endif
