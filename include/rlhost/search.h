/* <rlhost/search.h> — librlcore's Monte Carlo tree search: PUCT with the
   priors and values of a policy/value network, or UCT with random rollouts
   when there is none.  The search knows a game only through a model of its
   rules (rl_search_model): an opaque state, a step from it, and the
   observation and mask of the next state's mover.  The host makes one from
   any env that saves and restores its exact state and declares itself
   searchable (RL_DESC_SEARCHABLE), by restoring the state into a scratch
   env and stepping it, so an env never writes its rules twice; a plugin may
   also make its own.
 *
 * Values are from the side of the agent to move at a state (negamax): a
 * step either keeps the mover (one agent) or hands the move to the other of
 * two players of a zero-sum game, whose value is the negation.
 *
 * Many trees search at once, one per root: in each round every tree walks
 * to one leaf, the leaves that need a value are evaluated in one call (one
 * network batch), and the values are backed up.  The walks run on the
 * caller's workers.  A search is deterministic for its seeds: each tree
 * draws from its own stream, whatever the workers.
 */
#ifndef RLHOST_SEARCH_H
#define RLHOST_SEARCH_H

#include <stddef.h>
#include <stdint.h>

#include <rlhost/plugin.h>
#include <rlhost/rlcore.h>

#ifdef __cplusplus
extern "C" {
#endif

/* What one step of a model did. */
typedef struct rl_search_step {
    float reward;       /* to the agent that moved */
    uint8_t over;       /* the episode ended (terminated or truncated): nothing follows */
    uint8_t same_mover; /* the next state's mover moved here (one agent); 0: the other player */
} rl_search_step;

typedef struct rl_search_model {
    uint32_t struct_size;
    void *ctx;
    size_t state_bytes; /* one state, opaque to the search */
    size_t obs_bytes;   /* one mover's observation, as the evaluator reads it */
    uint32_t n_actions; /* discrete moves 0 .. n_actions-1 */
    uint32_t workers;   /* step and rollout run on workers 0 .. workers-1 at once */
    /* On worker w: the state after `action` from `state` into next, with
       next's mover's observation (obs_bytes) and mask (n_actions bytes,
       nonzero where allowed; every move when the episode is over), and
       what the step did.  RL_OK, or an RL_E* with a sentence. */
    int (*step)(void *ctx, uint32_t worker, const void *state, int32_t action, void *next, void *obs, uint8_t *mask,
                rl_search_step *out, char *err, size_t errlen);
    /* Optional, on worker w: uniformly random allowed moves from state to
       the episode's end, drawn from rng; *value is the return of state's
       mover (the other player's rewards negated, discounted by discount).
       NULL: the search plays them through step. */
    int (*rollout)(void *ctx, uint32_t worker, const void *state, rl_rng *rng, float discount, float *value, char *err,
                   size_t errlen);
} rl_search_model;

/* Priors and values for count states, one network call: obs
   [count][obs_bytes] and masks [count][n_actions] of each state's mover;
   writes priors [count][n_actions] (non-negative weights; the search
   renormalizes them over the allowed moves) and values [count], each in
   [-1, 1] from the mover's side.  RL_OK, or an RL_E* with a sentence. */
typedef int (*rl_search_eval_fn)(void *ctx, uint32_t count, const void *obs, const uint8_t *masks, float *priors,
                                 float *values, char *err, size_t errlen);

/* Runs fn(arg, w) for every w in 0 .. n-1, at once where the caller has
   threads (n never exceeds the model's workers). */
typedef void (*rl_search_parallel_fn)(void *ctx, void (*fn)(void *arg, uint32_t w), void *arg, uint32_t n);

typedef struct rl_search_config {
    uint32_t struct_size;
    uint32_t simulations; /* leaves each tree reaches per search, >= 1 */
    /* exploration: PUCT's c with priors (Q + c P sqrt(N) / (1 + n)), UCB1's
       with rollouts (Q + c sqrt(ln N / n), every move tried once first) */
    float c_puct;
    float dirichlet_alpha; /* root noise Dir(alpha) mixed into the priors; 0: none */
    float dirichlet_frac;  /* its weight, 0 .. 1 */
    float discount;        /* of rewards down the tree; 1 for games */
    uint32_t rollouts;     /* random playouts per leaf (without an evaluator, or with mix > 0), >= 1 */
    uint64_t max_bytes;    /* the trees' memory; rl_search_create refuses more */
    /* with an evaluator: a leaf's value is (1 - mix) times the evaluator's
       plus mix times its rollouts' mean (AlphaGo's mixing); 0: the
       evaluator's alone */
    float mix;
} rl_search_config;

/* The config a search starts from: 100 simulations, c_puct 1.25, no
   noise, discount 1, 1 rollout, 1 GiB, no mixing. */
rl_search_config rl_search_defaults(void);

/* The bytes rl_search_create allocates for `trees` trees. */
uint64_t rl_search_bytes(const rl_search_config *cfg, const rl_search_model *model, uint32_t trees);

typedef struct rl_search rl_search;

/* A search of up to `trees` roots at once, all of its memory allocated
   here: RL_EINVAL for a config out of range, RL_ENOMEM past max_bytes or
   when out of memory, each with a sentence. */
int rl_search_create(const rl_search_config *cfg, const rl_search_model *model, uint32_t trees, rl_search **out,
                     char *err, size_t errlen);
void rl_search_destroy(rl_search *s); /* NULL is a no-op */

/* Searches from count <= trees roots: states [count][state_bytes], their
   movers' obs and masks (at least one move allowed), seeds [count] (each
   tree's stream).  eval NULL: random rollouts.  Writes visits
   [count][n_actions], the roots' visit counts, and values [count] (may be
   NULL), each root's mean backed-up value.  par NULL: worker 0 alone. */
int rl_search_run(rl_search *s, uint32_t count, const void *states, const void *obs, const uint8_t *masks,
                  const uint64_t *seeds, rl_search_eval_fn eval, void *eval_ctx, rl_search_parallel_fn par,
                  void *par_ctx, float *visits, float *values, char *err, size_t errlen);

/* rl_search_run for an evaluator that may run on every worker at once:
   worker w takes its share of the roots through the whole search, calling
   eval(eval_ctxs[w], ...) on its own trees' leaves, and waits for no other
   worker until the search ends; par is then called once.  eval must be
   safe to call from several workers at once with distinct contexts.  Each
   tree's search is rl_search_run's wherever the evaluator's output for a
   state does not depend on the other states of its batch.  RL_EINVAL
   without an evaluator. */
int rl_search_run_each(rl_search *s, uint32_t count, const void *states, const void *obs, const uint8_t *masks,
                       const uint64_t *seeds, rl_search_eval_fn eval, void *const *eval_ctxs, rl_search_parallel_fn par,
                       void *par_ctx, float *visits, float *values, char *err, size_t errlen);

/* ABI 1.15: the policy root `root` of the last search improves its priors to
   (Gumbel AlphaZero's target, Danihelka et al. 2022): over the allowed
   moves, softmax(log prior + (c_visit + max visits) * c_scale * q), where
   q is each move's mean value from the root mover's side (a move the
   search did not visit: its exact reward where it ends the episode, else
   the root's value mixed with the visited moves' values), rescaled to
   [0, 1] over the root's moves; the priors are the evaluator's, before
   the root noise.  Writes out [n_actions] (0 where not allowed); RL_EINVAL
   for a root past the last search's count or a negative constant.  The
   usual constants (DeepMind's mctx): c_visit 50, c_scale 0.1. */
int rl_search_improved_policy(const rl_search *s, uint32_t root, float c_visit, float c_scale, float *out);

/* A uniformly random move of those mask allows (nonzero), drawn from rng;
   -1 when it allows none.  What a rollout plays. */
int32_t rl_search_random_move(const uint8_t *mask, uint32_t n_actions, rl_rng *rng);

/* A move from a root's visits: temperature 0, the most visited (the first
   among equals); else one drawn with probability proportional to
   visits^(1/temperature) from rng. */
int32_t rl_search_pick(const float *visits, uint32_t n_actions, float temperature, rl_rng *rng);

#ifdef __cplusplus
}
#endif

#endif /* RLHOST_SEARCH_H */
