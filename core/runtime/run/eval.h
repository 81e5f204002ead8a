/* Greedy evaluation: episodes spread over the eval envs (env i runs its
   share, so short episodes are not over-counted), acting in RL_MODE_EVAL
   mode.  Used by the run loop and by `rlhost eval`. */
#ifndef RLHOST_EVAL_H
#define RLHOST_EVAL_H

#include <signal.h>

#include <stdio.h>

#include "env/vecenv.h"
#include "checkpoint/algo_open.h"
#include "search/searcher.h"

typedef struct rl__eval_result {
    int done;
    uint32_t episodes;
    double return_mean, return_std, return_min, return_max, length_mean, score_mean;
} rl__eval_result;

#define RL__MAX_EVAL_ENVS 16
/* An evaluation episode of an env that declares no time limit (its
   rl_env_info.max_episode_steps is 0) that runs this many steps without
   ending stops the evaluation with a sentence: an env that never ends
   would otherwise keep the evaluation, and the run, going forever. */
#define RL__EVAL_MAX_EPISODE_STEPS 1000000u

/* The evaluation envs' seed stream, apart from training's so evaluation
   never replays training episodes.  A run's final evaluation and
   `rlhost eval` both start from it, so they play the same episodes. */
static inline uint64_t rl__eval_seed(uint64_t run_seed)
{
    return run_seed ^ 0x5eed5eed5eed5eedull;
}

/* RL_EINTR if *stop became nonzero; other errors with a sentence in err.
   trace (may be NULL) gets a CSV row for every step of every counted
   episode: env, episode, t, action, reward, terminated, truncated, then the
   observation the action was chosen on (obs_0, obs_1, ...). */
int rl__evaluate(rl__vecenv *ev, const rl_algo_vtable *avt, void *algo, const char *algo_name, uint32_t episodes,
                 volatile sig_atomic_t *stop, FILE *trace, rl__eval_result *out, char *err, size_t errlen);
/* The same, adding each counted game's result (an env with seats) to
   tally, by the seat the learner played; with search (may be NULL) the
   learner searches at each of its moves, its network the algorithm's. */
int rl__evaluate_games(rl__vecenv *ev, const rl_algo_vtable *avt, void *algo, const char *algo_name, uint32_t episodes,
                       volatile sig_atomic_t *stop, FILE *trace, rl__eval_result *out, rl__table_tally *tally,
                       rl__search_actor *search, char *err, size_t errlen);

/* An env with seats (ev->table): games against every evaluation opponent
   (rl__eval_opponents) at every seat, `episodes` each, every one from the
   evaluation seed.  out gets the result over all of them; cols and vals
   evals.csv's columns of each opponent and seat (win, draw and loss rates)
   and the learner's Elo-style rating; text (may be NULL) a line each. */
struct rl__config;
uint32_t rl__eval_opponents(const struct rl__config *c, const char *const **list);
/* RL_ECONFIG with a sentence when two of them would name the same columns
   of evals.csv (the same opponent twice, or two that differ in spacing or
   case only). */
int rl__eval_opponents_check(const struct rl__config *c, char *err, size_t errlen);
int rl__evaluate_seats(rl__vecenv *ev, const struct rl__config *c, const rl_algo_vtable *avt, void *algo,
                       uint32_t episodes, uint64_t seed, volatile sig_atomic_t *stop, rl__search_actor *search,
                       rl__eval_result *out, rl__sbuf *cols, rl__sbuf *vals, rl__sbuf *text, char *err, size_t errlen);

/* The rows of ev as a search plays them: the env a table seats (or ev's
   own, one agent per env) and where each learner row stands in it. */
rl__env_site rl__eval_site(const rl__vecenv *ev, uint32_t *boards_of, uint32_t *movers);

#endif
