/* The off-policy actor-critic family for box actions: SAC, TQC (SAC's
 * actor with critics of quantiles, Kuznetsov et al. 2020, as sb3-contrib
 * has it), CrossQ (SAC without target networks, batch renormalization in
 * every network, current and next states through the critics as one
 * batch: Bhatt et al. 2024, as sb3-contrib has it), TD3 and DDPG (TD3 with
 * one critic, no target smoothing and no delay), private
 * declarations shared by ac.c (options, create, act, observe, update) ->
 * ac_train.c (the gradient steps), ac_state.c (checkpoints) -> ac_net.c
 * (the networks, SAC's squashed sample).
 *
 * Actions: the actor works in [-1, 1]^dim (a tanh), rescaled to the env's
 * box [low, high] for act_box; the replay keeps actions as chosen (in the
 * box) and the critics see them mapped back to [-1, 1], as
 * Stable-Baselines3 stores them.  SAC's actor outputs a mean and a log-std
 * per dimension (log-std clipped to [-20, 2]); its log-probability carries
 * the tanh correction log(1 - a^2 + 1e-6). */
#ifndef RLHOST_AC_H
#define RLHOST_AC_H

#include <rlhost/nn.h>
#include <rlhost/parts.h>
#include <rlhost/replay.h>

enum { AC_SAC, AC_TD3, AC_TQC, AC_CROSSQ };
enum { AC_MAX_CRITICS = 16 };

#define AC_LOG_STD_MIN -20.0f
#define AC_LOG_STD_MAX 2.0f
#define AC_SDE_MEAN_CLIP 2.0f

typedef struct ac_settings {
    int kind;                /* AC_SAC, AC_TQC, AC_CROSSQ or AC_TD3 (DDPG is TD3's settings) */
    uint32_t obs_size, dim;  /* observation floats, action floats */
    uint32_t num_envs, rows; /* this replica's envs; the most rows one act takes */
    uint32_t batch;          /* this replica's share of a minibatch */
    uint32_t n_critics, policy_delay, target_interval;
    /* TQC: each critic's quantiles, the top ones per critic dropped from
       the target, and the target quantiles kept (n_critics (n_quantiles -
       drop)); SAC and TD3: one "quantile", the value, none dropped */
    uint32_t n_quantiles, drop, n_target;
    uint64_t total_steps, learning_starts;
    uint32_t train_freq, gradient_steps;
    int ratio_auto;
    double ratio;
    float actor_lr, critic_lr, gamma, tau, max_grad_norm;
    float beta1;               /* Adam's first-moment decay (CrossQ: 0.5, as the paper) */
    float bn_momentum, bn_eps; /* CrossQ: batch renormalization (rl_mlp_create_renorm) */
    uint64_t bn_warmup;        /* CrossQ: training forwards of a network by plain batch statistics */
    int ent_auto;              /* SAC: learn the entropy coefficient */
    float ent_init, target_entropy;
    int sde, full_std; /* SAC, TQC: gSDE exploration (rl_gsde_*), its log-std per feature and dimension */
    uint32_t sde_freq; /* gSDE: vector steps between new matrices of every env */
    uint32_t latent;   /* gSDE: the actor's last hidden width, the features the noise is linear in */
    float log_std_init;
    float expl_noise, target_noise, noise_clip; /* TD3 */
    int ou_noise;                               /* TD3: Ornstein-Uhlenbeck exploration noise (else Gaussian) */
    int skip_nonfinite, save_replay;
    int inference; /* acts only: no replay (rl_algo_args.inference) */
    rl_activation act;
    float *low, *high; /* the action box, [dim] */
} ac_settings;

/* Minibatch workspaces, batch rows each (act_x: rows). */
typedef struct ac_workspace {
    float *x, *xn;         /* observations, next observations [B][D] */
    float *qin;            /* critic input [B][D + dim] */
    float *a, *logp, *eps; /* actions in [-1, 1], log-probabilities, noise */
    float *y, *dq, *dqin;  /* targets [B][n_target], critic output gradient [B][n_quantiles], input gradient */
    float *qin2, *dq2;     /* CrossQ: current and next critic inputs as one batch [2B][D + dim], its gradient [2B] */
    float *zq;             /* TQC: the target critics' quantiles of a row, sorted [n_critics n_quantiles] */
    float *u, *sde_mu;     /* gSDE: pre-squash actions and clipped means [max(B, rows)][dim] */
    float *sde_env;        /* gSDE: each training env's noise matrix [num_envs][latent][dim] */
    float *sde_mat;        /* gSDE: a gradient step's noise matrix [latent][dim] */
    float *sde_std;        /* gSDE: the log-stds' exp, once per act() and per gradient step [latent][dim] */
    float *dout;           /* actor output gradient [B][2 dim] */
    float *rew, *disc;
    uint32_t *slots;
    float *act_x, *act_a, *act_eps; /* act(): rows of observations, actions in [-1, 1], noise */
    float *ou;                      /* TD3's OU noise state per training env [num_envs][dim] */
} ac_workspace;

typedef struct ac_sums {
    double critic_loss, actor_loss, q, entropy, alpha;
    uint64_t n, n_actor;
} ac_sums;

typedef struct ac {
    ac_settings cfg;
    rl_obs_layout obs; /* the env's observations (cfg.obs_size: floats of network input, all parts flattened) */
    const rl_replicas *rep;
    uint32_t replicas, env_total;                            /* R; envs of all replicas (the update ratio) */
    rl_params actor, critic, actor_t, critic_t;              /* actor_t: TD3 only */
    rl_mlp pi, pi_t, q[AC_MAX_CRITICS], q_t[AC_MAX_CRITICS]; /* workspaces per network use */
    rl_adam adam_actor, adam_critic, adam_alpha;
    float log_alpha;      /* SAC */
    uint64_t bn_steps[2]; /* CrossQ: training forwards of the actor and of the critics (renormalization's warm-up) */
    size_t sde_log_std;   /* gSDE: the log-stds' offset in actor */
    rl_keep_best kb;
    rl_replay rb;
    ac_workspace ws;
    rl_rng explore, explore_eval, sample;
    uint64_t vsteps, grad_steps, skipped;
    double ratio_acc;
    ac_sums m;
} ac;

/* SAC, TQC and CrossQ: the tanh-squashed Gaussian actor and the entropy term. */
static inline int ac_squashed(const ac_settings *c)
{
    return c->kind != AC_TD3;
}

/* [-1, 1] -> the box, and back (a box of zero width maps to 0). */
static inline float ac_to_box(const ac_settings *c, uint32_t k, float a)
{
    return c->low[k] + (a + 1.0f) * 0.5f * (c->high[k] - c->low[k]);
}

static inline float ac_from_box(const ac_settings *c, uint32_t k, float v)
{
    float w = c->high[k] - c->low[k];
    return w > 0 ? 2.0f * (v - c->low[k]) / w - 1.0f : 0.0f;
}

/* ac_net.c: the actor (hidden widths) and the critics (critic_hidden, nch
   widths), their targets but CrossQ's, initialized from seed; RL_ENOMEM
   or RL_EINVAL as rl_mlp_create. */
int ac_networks(ac *p, const uint32_t *hidden, uint32_t nh, const uint32_t *critic_hidden, uint32_t nch, uint64_t seed);
/* ac_net.c: SAC's squashed sample of the actor's outputs out [B][2 dim] with
   noise eps [B][dim] (eps NULL: the mean, for evaluation): a in [-1, 1]
   [B][dim], logp [B] (unless NULL). */
void ac_squash(const ac *p, const float *out, const float *eps, uint32_t B, float *a, float *logp);
/* ac_net.c, gSDE: the latent features of the actor's last forward [B][latent]. */
const float *ac_sde_latent(const ac *p);
/* ac_net.c, gSDE: the squashed sample of B rows of the actor's means out
   (clipped to [-2, 2], as Stable-Baselines3 clips them), the matrix
   mats + b * latent * dim for row b (per_row) or mats for every row (NULL:
   the mode), from the latents z and the scales in ws.sde_std; a [B][dim],
   ws.u, logp [B] (unless NULL). */
void ac_sde_squash(const ac *p, const float *out, const float *z, const float *mats, int per_row, uint32_t B, float *a,
                   float *logp);
/* ac_net.c, gSDE: act()'s training rows (start: the rows' episode starts,
   NULL in evaluation: the mode): new matrices as due, then the sample. */
void ac_sde_act(ac *p, const float *out, uint32_t count, const uint8_t *start, float *a);

/* ac_train.c: the due gradient steps of one update call. */
int ac_train(ac *p, uint64_t n, char *err, size_t errlen);

/* ac_state.c: save (load = 0) or load everything a resume needs. */
int ac_state(ac *p, const rl_state_io *io, int load, char *err, size_t errlen);

#endif
