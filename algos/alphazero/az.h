/* AlphaZero (Silver et al. 2018) on rlhost's search, private declarations
 * shared by az.c (options, create, act, observe, update) -> az_train.c
 * (the gradient steps), az_state.c (checkpoints) -> az_net.c (the
 * policy/value network).
 *
 * The host picks every training move by tree search with this network
 * valuing the leaves (RL_DESC_SEARCHED), and hands each move's root visit
 * distribution with the transition.  A move waits in its env's game until
 * the game ends; then its value target is the return from its mover's
 * side (the other player's rewards negated, rl_transition.same_mover),
 * and the game's moves join the replay: a window of the most recent
 * positions (with root_weight, each target is mixed with the search's
 * value at the move's root).  The network (optionally a residual conv
 * tower over the board, then a shared trunk, a policy head of logits and a
 * value head through tanh) learns the visit distributions by cross-entropy
 * and the returns by squared error, with an L2 penalty on its weights. */
#ifndef RLHOST_AZ_H
#define RLHOST_AZ_H

#include <rlhost/nn.h>
#include <rlhost/parts.h>

typedef struct az_settings {
    uint32_t obs_size, n_actions; /* network input floats; moves */
    size_t row_bytes;             /* one observation as the env writes it */
    uint32_t num_envs, rows;      /* training envs; the most rows one act takes */
    uint32_t batch, replay_cap, max_game;
    uint64_t learning_starts;
    double replay_ratio;  /* positions trained on per position played */
    uint64_t total_steps; /* the run's, for the learning rate's schedule */
    int lr_linear;
    float lr, l2, value_coef, gamma, value_scale, max_grad_norm;
    float root_weight; /* the search's root value's share of a value target */
    int det_eval, inference, skip_nonfinite;
    rl_activation act;
    /* network = "resnet": a residual tower of `blocks` blocks of `channels`
       over the image [img_c][img_h][img_w] before the trunk (resnet 0: none) */
    int resnet;
    uint32_t channels, blocks, img_c, img_h, img_w;
} az_settings;

/* One position as the replay keeps it: the observation as the env wrote
   it, its mask, the search's visit distribution and the value target. */
typedef struct az_replay {
    uint8_t *obs;   /* [cap][row_bytes] */
    uint8_t *mask;  /* [cap][n_actions] */
    float *pi;      /* [cap][n_actions] */
    float *z;       /* [cap] */
    uint64_t added; /* positions ever added; the ring's next slot is added % cap */
} az_replay;

/* The env's symmetries besides the identity (rl_env_info.symmetries),
   copied: symmetry k maps an observation's byte j from byte
   obs_from[k][j] and move a to action_to[k][a]. */
typedef struct az_symmetries {
    uint32_t n;
    uint32_t *obs_from;  /* [n][row_bytes] */
    uint32_t *action_to; /* [n][n_actions] */
} az_symmetries;

/* The moves of each training env's game in progress, waiting for its end:
   the same fields, and the reward to the mover and whether the next move
   was the same mover's, from which the targets follow. */
typedef struct az_games {
    uint8_t *obs, *mask; /* [num_envs][max_game][...] */
    float *pi, *reward;
    float *root; /* the search's root value of each move (root_weight > 0; else NULL) */
    uint8_t *same;
    uint32_t *len; /* [num_envs] */
} az_games;

typedef struct az_sums {
    double policy_loss, value_loss, entropy, l2;
    uint64_t n;
    double game_len;
    uint64_t games;
} az_sums;

/* The network's layers (their workspaces; the parameters are the az's):
   the residual tower when there is one, then the trunk and its heads. */
typedef struct az_layers {
    rl_resnet res;
    rl_trunk trunk; /* heads: 0 the policy's logits, 1 the value (before tanh) */
} az_layers;

/* An act worker's own workspace (RL_DESC_ACT_WORKERS): worker 0 acts
   through the az's own layers and buffers, worker w >= 1 through
   actors[w - 1]: its layers' buffers over the same parameters. */
typedef struct az_actor {
    az_layers nn;
    float *x, *v, *p;
    rl_rng rng; /* its draws, where the policy is sampled */
} az_actor;

typedef struct az {
    az_settings cfg;
    rl_obs_layout obs;
    rl_params net;
    az_layers nn;
    float *packed; /* the trunk's weights laid out for a search's leaves (az_pack) */
    rl_adam adam;
    az_replay rb;
    az_games games;
    rl_rng sample, explore;
    uint64_t grad_steps, skipped;
    double ratio_acc, progress; /* progress: the run's share done, 0 to 1 */
    az_sums m;
    /* workspaces: a minibatch, and an act's rows */
    uint8_t *xraw; /* a minibatch's observations as the env wrote them */
    float *x, *dlogits, *dvalue;
    float *dfeat;                 /* the trunk's input gradient, into the tower (resnet) */
    float *act_x, *act_v, *act_p; /* an act's network input, values and probabilities */
    uint8_t *bmask;               /* a minibatch's masks, visit distributions and value targets */
    float *bpi, *bz;
    az_symmetries sym;
    az_actor *actors; /* [workers - 1] */
    uint32_t workers; /* act calls that may run at once (rl_algo_args.act_workers) */
} az;

/* az_net.c: the tower (resnet), the trunk and its heads for hidden
   widths, initialized from seed, and each act worker's layers over the
   same parameters; err gets the sentence when they cannot be built. */
int az_network(az *p, const uint32_t *hidden, uint32_t nh, uint64_t seed, char *err, size_t errlen);
void az_layers_destroy(az_layers *nn);
/* az_net.c: the network's weights into p->packed; after every change to
   them (creation, gradient steps, a load), before the next act. */
void az_pack(az *p);
/* az_net.c: logits [B][A] and values [B] (in [-value_scale, value_scale])
   of B rows of network input x through layers nn (the az's own, or an act
   worker's), the trunk row by row (infer: a move) or through p->packed (a
   search's leaves); each row's result depends on nothing but the row. */
void az_forward(const az *p, az_layers *nn, const float *x, uint32_t B, int infer, const float **logits, float *values);
/* az_net.c: the training forward of B rows of x, out[0] the logits and
   out[1] the value before tanh; az_backward then takes their gradients
   into p->net.grad. */
void az_train_forward(az *p, const float *x, uint32_t B, const float **out);
void az_backward(az *p, const float *x, const float *const *dout, uint32_t B);
/* az_net.c: the policy as rlhost.policy/1 (logits and value). */
int az_describe(const az *p, const rl_state_io *io, char *err, size_t errlen);

/* az_train.c: n gradient steps on minibatches from the replay. */
int az_train(az *p, uint64_t n, char *err, size_t errlen);

/* az_state.c: save (load = 0) or load everything a resume needs. */
int az_state(az *p, const rl_state_io *io, int load, char *err, size_t errlen);

#endif
