/* A player that searches: the tree search (<rlhost/search.h>) over the
   model of the env it plays (model.h), its leaves valued by a policy with a
   value head (an algorithm with RL_DESC_VALUES) or by random rollouts.
   `rlhost eval --search`, `rlhost play --search` and the opponents
   mcts(...) and RUN(search=N) all act through it. */
#ifndef RLHOST_SEARCHER_H
#define RLHOST_SEARCHER_H

#include <stddef.h>
#include <stdint.h>

#include <rlhost/plugin.h>
#include <rlhost/search.h>

#include "parallel/pool.h"
#include "search/model.h"

/* What a search is asked for, as its keys name it (rl__search_opts_set). */
typedef struct rl__search_opts {
    uint32_t simulations;   /* per move, 1 .. RL__SEARCH_MAX_SIMULATIONS */
    double c_puct;          /* exploration */
    uint32_t rollouts;      /* random playouts per leaf (a search without a network) */
    double temperature;     /* 0: the most visited move; else drawn from visits^(1/T) */
    uint32_t max_mib;       /* the trees' memory cap */
    uint32_t threads;       /* 0: every core of the machine */
    double mix;             /* with a network: the weight of rollouts in a leaf's value */
    double dirichlet_alpha; /* root noise Dir(alpha) in the priors; 0: none */
    double dirichlet_frac;  /* its weight */
} rl__search_opts;

#define RL__SEARCH_MAX_SIMULATIONS 1000000u

/* simulations 100, c_puct 1.25 (2 with rollouts: UCB1's), rollouts 1,
   temperature 0, max_mib 1024, threads 0. */
rl__search_opts rl__search_defaults(void);
/* One key of the search ("simulations", "c_puct", "rollouts",
   "temperature", "max_mib", "threads", "mix", "dirichlet_alpha",
   "dirichlet_frac") set from its text, checked; RL_ECONFIG with a
   sentence naming what (e.g. "--search" or "opponent 'mcts(...)'"). */
int rl__search_opts_set(rl__search_opts *o, const char *key, const char *value, const char *what, char *err,
                        size_t errlen);
/* A whole spec: N (simulations), or key=value pairs split by commas. */
int rl__search_opts_parse(rl__search_opts *o, const char *spec, const char *what, char *err, size_t errlen);
/* Whether key is one of the search's. */
int rl__search_opts_has(const char *key);

/* Where a search plays: a live instance (vt, env) of desc's env of
   `boards` envs, made with options and stages, and its own info (not a
   table's view of it). */
typedef struct rl__env_site {
    const rl_plugin_desc *desc;
    const rl_value *options, *stages;
    const rl_env_info *info;
    const rl_env_vtable *vt;
    void *env;
    uint32_t boards;
} rl__env_site;

/* Whether env_desc's env can be searched with algo_desc's network (NULL:
   rollouts), by their flags alone: RL_ECONFIG with a sentence otherwise. */
int rl__search_check(const rl_plugin_desc *env_desc, const rl_env_info *info, const rl_plugin_desc *algo_desc,
                     char *err, size_t errlen);

typedef struct rl__searcher rl__searcher;

/* A searcher for up to `rows` moves at once on the site's env.  The
   evaluator is the algorithm (vt, algo of algo_desc) when vt is not NULL:
   it must declare RL_DESC_VALUES and act on batches of `rows`; else random
   rollouts.  act_workers: the instance's rl_algo_args.act_workers; with
   RL_DESC_ACT_WORKERS and at least as many as the search's threads, each
   thread evaluates its own trees' leaves (rl_search_run_each).  seed seeds
   the trees. */
int rl__searcher_open(rl__searcher **out, const rl__search_opts *o, const rl__env_site *site, uint32_t rows,
                      const rl_plugin_desc *algo_desc, const rl_algo_vtable *vt, void *algo, uint32_t act_workers,
                      uint64_t seed, char *err, size_t errlen);
void rl__searcher_close(rl__searcher *s); /* NULL is a no-op */

/* Moves for count rows of the site's env, between its steps: row j is
   agent movers[j] of env boards_of[j], to move, with its observation obs[j]
   and mask masks[j] (NULL: every move).  The trees' streams follow from
   the seed, `call` (the caller's count of its searches) and the env. */
/* The improved policy of each of the last search's count roots into out
   [count][n_actions] (rl_search_improved_policy with c_visit, c_scale). */
int rl__searcher_improved(const rl__searcher *s, uint32_t count, float c_visit, float c_scale, float *out, char *err,
                          size_t errlen);

int rl__searcher_act(rl__searcher *s, const rl__env_site *site, uint64_t call, const uint32_t *boards_of,
                     const uint32_t *movers, const void *obs, const uint8_t *masks, uint32_t count, int32_t *actions,
                     char *err, size_t errlen);

/* The search alone of rl__searcher_act: the roots' visit counts, [count]
   [n_actions], and their mean backed-up values from each root's mover's
   side, [count] (the evaluator's units), both until the next search,
   picked from by the caller. */
int rl__searcher_search(rl__searcher *s, const rl__env_site *site, uint64_t call, const uint32_t *boards_of,
                        const uint32_t *movers, const void *obs, const uint8_t *masks, uint32_t count,
                        const float **visits, const float **values, char *err, size_t errlen);

/* A policy that searches at each of its moves: the learner of eval and
   play --search, an opponent that searches.  Its searcher is opened at
   its first move, where the env it plays is known. */
typedef struct rl__search_actor {
    rl__search_opts opts;
    const rl_plugin_desc *algo_desc; /* its network's, or NULL: rollouts */
    rl__searcher *s;
    uint64_t seed, calls; /* calls: its searches so far, from which the trees' streams follow */
} rl__search_actor;

/* Moves for count rows (as rl__searcher_act) by the algorithm (vt, algo of
   a->algo_desc; NULL: rollouts), the searcher opened at the first call for
   `rows` rows at most. */
int rl__search_actor_act(rl__search_actor *a, const rl__env_site *site, uint32_t rows, const rl_algo_vtable *vt,
                         void *algo, const uint32_t *boards_of, const uint32_t *movers, const void *obs,
                         const uint8_t *masks, uint32_t count, int32_t *actions, char *err, size_t errlen);
/* Opens the searcher now (rl__search_actor_act opens it at the first
   move): a search that cannot be made is refused before anything plays. */
int rl__search_actor_open(rl__search_actor *a, const rl__env_site *site, uint32_t rows, const rl_algo_vtable *vt,
                          void *algo, char *err, size_t errlen);
void rl__search_actor_close(rl__search_actor *a);
/* Its count of searches, saved (load 0) or restored as PREFIX"search/calls". */
int rl__search_actor_state(rl__search_actor *a, const rl_state_io *io, const char *prefix, int load, char *err,
                           size_t errlen);

#endif
