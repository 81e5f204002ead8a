/*
 * <rlhost/dist.h> — librlcore's action distributions, for algorithm plugins:
 * categorical (discrete actions), diagonal Gaussian (box actions, as PPO
 * and A2C sample them) and tanh-squashed Gaussian (SAC's reparameterized
 * actor).  Each family has sample, log-probability, entropy, mode and the
 * gradients a policy loss needs; tests/unit/test_dist.c checks every gradient
 * against finite differences.
 *
 * Conventions (those of <rlhost/nn.h>): one call is one row; gradients
 * accumulate (+=) into buffers the caller zeroed; log-probabilities and
 * entropies are summed in double and returned as such, the caller rounds.
 * The functions keep no state: an rl_rng is the only thing they advance.
 */
#ifndef RLHOST_DIST_H
#define RLHOST_DIST_H

#include <stdint.h>

#include <rlhost/rlcore.h>

#ifdef __cplusplus
extern "C" {
#endif

/* log sqrt(2 pi), the Gaussian's normalizer per dimension. */
#define RL_LOG_SQRT_2PI 0.91893853320467274

/* ---- Categorical over n logits ------------------------------------------- */

/* logp[B][n] = log_softmax(logits) (stable). */
void rl_log_softmax(float *logp, const float *logits, uint32_t batch, uint32_t n);
/* Samples one index per row from probabilities exp(logp). */
int32_t rl_categorical_sample(const float *logp_row, uint32_t n, rl_rng *rng);
/* Entropy of one row given its log-probabilities. */
float rl_categorical_entropy(const float *logp_row, uint32_t n);
/* For one row: dlogits += g_logp * d log p(a)/dlogits + g_ent * dH/dlogits,
   i.e. g_logp (onehot(a) - p) - g_ent p (logp + H). */
void rl_categorical_backward(float *dlogits_row, const float *logp_row, uint32_t n, int32_t action, float g_logp,
                             float g_ent);
/* The same with the row's entropy H already known (rl_categorical_entropy). */
void rl_categorical_backward_h(float *dlogits_row, const float *logp_row, uint32_t n, int32_t action, float g_logp,
                               float g_ent, float h);
/* Index of the largest value (first on ties): the mode, from logits or logp. */
int32_t rl_argmax(const float *row, uint32_t n);

/* ---- Action masks: MaskablePPO's semantics --------------------------------
   A mask holds one byte per logit, nonzero where that action is valid.  As
   sb3-contrib's MaskableCategorical does, an invalid logit is replaced by
   RL_MASKED_LOGIT before the softmax: its probability is exactly 0, so the
   functions above then never sample it, never take it as the mode (from
   logp), add nothing to the entropy for it and give its logit no gradient.
   A row with no valid action is the caller's to refuse. */
#define RL_MASKED_LOGIT (-1e8f)

/* logp[B][n] = log_softmax of the logits with the invalid ones masked
   (mask [B][n]; NULL: none, rl_log_softmax). */
void rl_log_softmax_masked(float *logp, const float *logits, const uint8_t *mask, uint32_t batch, uint32_t n);
/* probs[B][n] = the softmax of the logits over the valid ones (mask
   [B][n]; NULL: all valid), exactly 0 for an invalid one: a policy's
   probability of each action (a search's priors). */
void rl_softmax_masked(float *probs, const float *logits, const uint8_t *mask, uint32_t batch, uint32_t n);
/* Index of the largest valid value (first on ties; mask NULL: any). */
int32_t rl_argmax_masked(const float *row, const uint8_t *mask, uint32_t n);
/* An action drawn uniformly among the valid ones of n (mask NULL: all),
   with one rl_rng_below draw: epsilon-greedy's random action. */
int32_t rl_uniform_masked(const uint8_t *mask, uint32_t n, rl_rng *rng);
/* The mask rows of a transition's next observations, as a replay keeps
   them: final_masks' row where the episode ended (terminated or
   truncated), next_masks' otherwise; width bytes a row, t->count rows
   into out.  Nothing when t carries no masks. */
void rl_transition_next_masks(const rl_transition *t, uint32_t width, uint8_t *out);

/* ---- MultiDiscrete: a product of k categoricals --------------------------
   nvec[k] choices per component, their logits side by side in one row of
   sum(nvec); an action is k int32, one index per component.  The
   log-probability and the entropy are the components' sums, as
   sb3-contrib's MaskableMultiCategoricalDistribution; each component is
   masked by its slice of the row's mask.  The row's logp comes from
   rl_log_softmax_multi. */

/* Each component's log_softmax, masked (mask NULL: none): logp [B][sum nvec]. */
void rl_log_softmax_multi(float *logp, const float *logits, const uint8_t *mask, uint32_t batch, const uint32_t *nvec,
                          uint32_t k);
/* One index per component into action[k], sampled from rng in component
   order (rng NULL: each component's mode). */
void rl_multicat_act(const float *logp_row, const uint32_t *nvec, uint32_t k, rl_rng *rng, int32_t *action);
double rl_multicat_logp(const float *logp_row, const uint32_t *nvec, uint32_t k, const int32_t *action);
double rl_multicat_entropy(const float *logp_row, const uint32_t *nvec, uint32_t k);
/* dlogits += g_logp d logp(a)/dlogits + g_ent dH/dlogits, component by
   component (rl_categorical_backward on each slice). */
void rl_multicat_backward(float *dlogits_row, const float *logp_row, const uint32_t *nvec, uint32_t k,
                          const int32_t *action, float g_logp, float g_ent);

/* ---- Diagonal Gaussian N(mu, exp(log_std)^2) over dim floats -------------
   The mode is mu.  PPO's and A2C's box policies: the network writes mu,
   log_std is a state-independent parameter (or a second head). */

/* a = mu + exp(log_std) eps with eps ~ N(0, 1), one rl_rng_normal per
   dimension in order. */
void rl_gauss_sample(float *a, const float *mu, const float *log_std, uint32_t dim, rl_rng *rng);
/* log N(a; mu, exp(log_std)^2), summed over the dimensions. */
double rl_gauss_logp(const float *mu, const float *log_std, const float *a, uint32_t dim);
/* The entropy, sum_k 1/2 + log sqrt(2 pi) + log_std[k] (independent of mu). */
double rl_gauss_entropy(const float *log_std, uint32_t dim);
/* Gradient of g * logp(a): dmu += g (a - mu) / sigma^2 and
   dlog_std += g ((a - mu)^2 / sigma^2 - 1); either may be NULL. */
void rl_gauss_logp_backward(float *dmu, float *dlog_std, const float *mu, const float *log_std, const float *a,
                            uint32_t dim, float g);
/* Gradient of g * entropy: dlog_std += g. */
void rl_gauss_entropy_backward(float *dlog_std, uint32_t dim, float g);

/* ---- tanh-squashed Gaussian: a = tanh(mu + exp(l) eps) -------------------
   SAC's actor.  l is log_std clamped to [lo, hi] (SAC's [-20, 2]); the
   sample is reparameterized by eps ~ N(0, 1), so gradients flow through
   a into mu and log_std.  log-probability with tanh's change of variables,
   sum_k -eps_k^2 / 2 - l_k - log sqrt(2 pi) - log(1 - a_k^2 + 1e-6); the
   1e-6 keeps it finite where tanh saturates.  The mode is tanh(mu). */

/* a[dim] from mu, log_std and eps (NULL: the mode); returns logp(a). */
double rl_squashed_gauss(float *a, const float *mu, const float *log_std, const float *eps, uint32_t dim, float lo,
                         float hi);
/* Gradient of L(a) + (coef / n) logp(a) through the reparameterized
   sample, where da = dL/da: dmu += du and dlog_std += du exp(l) eps -
   coef / n, with du = (da + (coef / n) 2 a / (1 - a^2 + 1e-6)) (1 - a^2);
   a clamped log_std gets no gradient.  coef / n is SAC's alpha over the
   minibatch, kept apart so the arithmetic is one rounding per term. */
void rl_squashed_gauss_backward(float *dmu, float *dlog_std, const float *log_std, const float *eps, const float *a,
                                const float *da, uint32_t dim, float lo, float hi, float coef, double n);

/* ---- generalized state-dependent exploration (gSDE) ----------------------
   Raffin et al. 2021, as Stable-Baselines3 has it: a tanh-squashed
   Gaussian a = tanh(u), u = mu + z E, whose noise is linear in the
   policy's latent features z [L] (its last hidden layer, taken as
   constant: no gradient flows into z).  The matrix E [L][D] is drawn
   E_ld ~ N(0, s_ld^2) and held for a while; s = exp(log_std), log_std
   [L][D] (full) or [L] (one per feature for every dimension), clamped to
   [RL_GSDE_LOG_STD_MIN, RL_GSDE_LOG_STD_MAX] where s is read (a clamped
   entry gets no gradient).  Given z, u is Gaussian around mu with variance
   V_d = sum_l z_l^2 s_ld^2 + 1e-6, so logp(a) = sum_d -(u_d - mu_d)^2 /
   (2 V_d) - log sqrt(2 pi V_d) - log(1 - a_d^2 + 1e-6). */
#define RL_GSDE_LOG_STD_MIN -20.0f
#define RL_GSDE_LOG_STD_MAX 2.0f

/* s [L][D] = exp(log_std) clamped, once for the rows that share the
   log-stds (the calls below read s). */
void rl_gsde_std(float *std, const float *log_std, int full, uint32_t L, uint32_t D);
/* A matrix E [L][D] drawn from rng: s times L * D normals, row-major. */
void rl_gsde_sample(const float *std, uint32_t L, uint32_t D, rl_rng *rng, float *E);
/* Each of n envs' held matrices E [n][L][D]: a new one from rng, in env
   order, for every env when all, else for those whose start is nonzero
   (an episode's first step); start NULL draws none. */
void rl_gsde_resample(const float *std, uint32_t L, uint32_t D, uint32_t n, int all, const uint8_t *start, rl_rng *rng,
                      float *E);
/* One row: u [D] = mu + z E (E NULL: u = mu, the mode), a [D] = tanh(u);
   returns logp(a). */
double rl_gsde_squashed(float *a, float *u, const float *mu, const float *z, const float *E, const float *std,
                        uint32_t L, uint32_t D);
/* One row's gradient of L(a) + (coef / n) logp(a) with E held (the noise
   reparameterized through log_std), where da = dL/da and u, a are what
   rl_gsde_squashed gave: dmu [D] += and dlog_std ([L][D], or [L]) +=; a
   log_std outside the clamp gets none. */
void rl_gsde_squashed_backward(float *dmu, float *dlog_std, const float *mu, const float *z, const float *E,
                               const float *std, const float *log_std, int full, const float *u, const float *a,
                               const float *da, uint32_t L, uint32_t D, float coef, double n);

/* The unsquashed form, Stable-Baselines3's PPO and A2C: the action is u
   itself (the host clips what the env sees), logp(u) = sum_d -(u_d -
   mu_d)^2 / (2 V_d) - log sqrt(2 pi V_d), the entropy sum_d log sqrt(2 pi
   e V_d).  One row: u [D] = mu + z E (E NULL: the mode, mu); returns
   logp(u). */
double rl_gsde_gauss(float *u, const float *mu, const float *z, const float *E, const float *std, uint32_t L,
                     uint32_t D);
/* logp(u) of a stored action u [D] given z; *entropy gets the row's. */
double rl_gsde_gauss_logp(const float *u, const float *mu, const float *z, const float *std, uint32_t L, uint32_t D,
                          double *entropy);
/* One row's gradient of g_logp logp(u) + g_ent H with u held (PPO's and
   A2C's losses): dmu [D] += and dlog_std ([L][D], or [L]) +=; a log_std
   outside the clamp gets none. */
void rl_gsde_gauss_backward(float *dmu, float *dlog_std, const float *u, const float *mu, const float *z,
                            const float *std, const float *log_std, int full, uint32_t L, uint32_t D, float g_logp,
                            float g_ent);

/* ---- A policy's distribution over a batch, either action kind ------------
   Deprecated: new algorithms use rl_mpdist (below), one distribution for
   Discrete, MultiDiscrete and Box spaces with masks; rl_pdist stays for the
   plugins built against it, and its symbols stay in librlcore.
   For an algorithm that takes discrete and box spaces alike:
   discrete, each row of out is n logits and an action an int32; box, each
   row is n means, the n log-stds are shared by every row (a state-
   independent parameter, usually inside the parameter block) and an
   action is n floats.  Box actions are the samples as drawn: the host
   clips what the env sees, the log-probabilities stay the sample's. */
typedef struct rl_pdist {
    int box;
    uint32_t n;           /* logits, or action dimensions */
    const float *log_std; /* box: [n] */
    uint32_t max_batch;
    float *logp_all; /* discrete: [max_batch][n], from the last rl_pdist_logp */
} rl_pdist;

/* RL_EINVAL (n 0, a box without log_std), RL_ENOMEM. */
int rl_pdist_create(rl_pdist *d, int box, uint32_t n, const float *log_std, uint32_t max_batch);
void rl_pdist_destroy(rl_pdist *d); /* NULL-safe */
/* Actions for B rows of out: a sample drawn from rng in row order, or the
   mode with rng NULL; into act [B] (discrete) or box [B][n]. */
void rl_pdist_act(rl_pdist *d, const float *out, uint32_t B, rl_rng *rng, int32_t *act, float *box);
/* logp [B] of the actions (act or box) under out; returns the rows'
   entropies summed. */
double rl_pdist_logp(rl_pdist *d, const float *out, const int32_t *act, const float *box, uint32_t B, float *logp);
/* After rl_pdist_logp on the same rows: the gradient of
   sum_b g_logp[b] logp_b + g_ent sum_b H_b, accumulated into dout [B][n]
   and, for a box, dlog_std [n]. */
void rl_pdist_backward(const rl_pdist *d, const float *out, const int32_t *act, const float *box, uint32_t B,
                       const float *g_logp, float g_ent, float *dout, float *dlog_std);

/* ---- A policy's distribution over any action space ------------------------
   rl_pdist's successor for the spaces beyond one Discrete or Box: the same
   calls with a mask per row, and MultiDiscrete actions (k int32 per row,
   one per component).  Opaque, so that it can grow without breaking a
   plugin built against this header.  kind: RL_MPDIST_DISCRETE (nvec of
   one), RL_MPDIST_MULTI (nvec of k), RL_MPDIST_BOX (n means per row, the n
   log-stds shared, as rl_pdist's box; masks are ignored).  A mask row has
   one byte per logit (sum nvec), nonzero where valid; mask NULL: none. */
typedef struct rl_mpdist rl_mpdist;
/* RL_MPDIST_HYBRID: k components of nvec choices and a box of n floats in
   one action (RL_SPACE_HYBRID); a row of out is the components' logits
   (sum nvec), then the box's n means; log-probabilities and entropies
   add; an action is k int32s and n floats. */
enum { RL_MPDIST_DISCRETE = 1, RL_MPDIST_MULTI, RL_MPDIST_BOX, RL_MPDIST_HYBRID };

/* NULL with a sentence in err (a zero or empty nvec, a box without
   log_std, out of memory).  nvec is copied; log_std is kept (the caller's
   parameters). */
rl_mpdist *rl_mpdist_new(int kind, const uint32_t *nvec, uint32_t k, uint32_t n, const float *log_std,
                         uint32_t max_batch, char *err, size_t errlen);
/* gSDE (above) on a box distribution, unsquashed: the noise of a row
   is its latent features z [L] times a matrix E [L][n], log_std [L][n]
   (full) or [L] (the caller's parameters) replacing the state-independent
   log-stds; the mode stays the mean.  After it, the calls below read the
   rows set by rl_mpdist_gsde_rows.  RL_EINVAL with a sentence for a
   discrete distribution, L 0 or no log_std; RL_ENOMEM. */
int rl_mpdist_gsde(rl_mpdist *d, uint32_t L, int full, const float *log_std, char *err, size_t errlen);
/* The rows of the next act, logp and backward calls: their latent
   features z [B][L] (held: no gradient flows into them) and, for act with
   an rng, their noise matrices E [B][L][n], or NULL to draw a fresh matrix
   for each row from that rng. */
void rl_mpdist_gsde_rows(rl_mpdist *d, const float *z, const float *E);
/* rl_mpdist_new for an env's action space (log_std for a box only):
   the distribution over rl_env_info_action_width outputs per row. */
rl_mpdist *rl_mpdist_for_env(const rl_env_info *env, const float *log_std, uint32_t max_batch, char *err,
                             size_t errlen);
void rl_mpdist_free(rl_mpdist *d); /* NULL-safe */
/* Logits (or means) per row, and int32 per action (k, or 0 for a box). */
uint32_t rl_mpdist_width(const rl_mpdist *d);
uint32_t rl_mpdist_action_ints(const rl_mpdist *d);
/* Choices of each component (rl_mpdist_action_ints of them); NULL for a box. */
const uint32_t *rl_mpdist_nvec(const rl_mpdist *d);
/* Floats per action: a box's dimensions (a hybrid action's box), else 0. */
uint32_t rl_mpdist_action_floats(const rl_mpdist *d);
/* Rows of loaded actions [rows][k] checked against the components and the
   masks [rows][width] (NULL: none): RL_OK, or RL_ECORRUPT with a sentence
   naming `what` (a tensor), the row and the component.  A box: RL_OK. */
int rl_actions_check(const uint32_t *nvec, uint32_t k, const int32_t *act, const uint8_t *mask, size_t rows,
                     const char *what, char *err, size_t errlen);
/* rl_actions_check against the distribution's components. */
int rl_mpdist_check(const rl_mpdist *d, const int32_t *act, const uint8_t *mask, size_t rows, const char *what,
                    char *err, size_t errlen);
/* The "greedy" object of an rlhost.policy/1 description (rl_policy_meta):
   discrete, the argmax (sample: a draw from the softmax) of the output
   "logits" per component, "nvec" for several; a box, the output "mean"
   itself (sample: a Gaussian draw around it) with the log-stds in the
   tensor named log_std (none with gSDE, whose noise depends on the
   state); a hybrid action, the logits' rule with "nvec" and "box": m, the
   output's last m values its means (and "log_std" when sampling).  Masks are the action space's to say
   ("rlhost.action_space").  Its length, or -1 when it does not fit cap. */
int rl_mpdist_greedy(const rl_mpdist *d, int sample, const char *log_std, char *buf, size_t cap);
/* Actions for B rows: sampled from rng in row then component order, or
   the mode (rng NULL); into act [B][k] or box [B][n]. */
void rl_mpdist_act(rl_mpdist *d, const float *out, const uint8_t *mask, uint32_t B, rl_rng *rng, int32_t *act,
                   float *box);
/* rl_mpdist_act, and logp [B] of the actions it chose (one softmax for both). */
void rl_mpdist_act_logp(rl_mpdist *d, const float *out, const uint8_t *mask, uint32_t B, rl_rng *rng, int32_t *act,
                        float *box, float *logp);
/* logp [B] of the actions under out and the masks; returns the rows'
   entropies summed. */
double rl_mpdist_logp(rl_mpdist *d, const float *out, const uint8_t *mask, const int32_t *act, const float *box,
                      uint32_t B, float *logp);
/* After rl_mpdist_logp on the same rows: the gradient of
   sum_b g_logp[b] logp_b + g_ent sum_b H_b into dout [B][width] (none on a
   masked logit) and, for a box, dlog_std [n]. */
void rl_mpdist_backward(const rl_mpdist *d, const float *out, const int32_t *act, const float *box, uint32_t B,
                        const float *g_logp, float g_ent, float *dout, float *dlog_std);

#ifdef __cplusplus
}
#endif

#endif /* RLHOST_DIST_H */
