/* The training moves of an algorithm that trains on search (AlphaZero,
   RL_DESC_SEARCHED): each is picked by a tree search from the training
   env's own state, the algorithm's network valuing the leaves; the
   root's visit distribution goes to the algorithm with the transition
   (rl_transition.search_policy), beside whether the next row is the same
   mover's.  The run's `search` group sets it; with seats, the learner
   plays every seat (RL__SEAT_EVERY). */
#ifndef RLHOST_SEARCHED_H
#define RLHOST_SEARCHED_H

#include <stdint.h>

#include <rlhost/plugin.h>

#include "env/vecenv.h"
#include "plugin/config.h"
#include "search/searcher.h"

typedef struct rl__searched {
    double temperature;
    uint64_t temperature_moves;
    int improved;           /* the policy's target: the improved policy, else the visit fractions */
    float c_visit, c_scale; /* the improved policy's constants */
    uint32_t rows, n_actions;
    rl__searcher *s;
    uint64_t seed, calls; /* calls: searches so far, from which the trees' streams follow */
    void *block;          /* every buffer below */
    uint32_t *where;      /* [2][rows]: each row's env and agent */
    uint64_t *moves;      /* [rows]: moves of the row's game so far */
    float *policy;        /* [rows][n_actions]: the policy target of the last search */
    uint8_t *same;        /* [rows]: the row's next mover is the one that moved */
    const float *value;   /* [rows]: the roots' mean backed-up values of the last search (the searcher's) */
} rl__searched;

/* Whether c's algorithm trains on search; if so, checks the config
   (RL_ECONFIG with a sentence when the algorithm gives no values or the
   seats group asks for an opponent; whether the env can be searched,
   rl__searched_open checks); a search group for an algorithm that does
   not train on search is refused too. */
int rl__searched_wanted(const rl__config *c, int *wanted, char *err, size_t errlen);

/* A search of the training envs v, valued by (vt, algo); seed seeds its
   trees and its draws. */
int rl__searched_open(rl__searched *t, const rl__config *c, rl__vecenv *v, const rl_algo_vtable *vt, void *algo,
                      uint64_t seed, char *err, size_t errlen);
void rl__searched_close(rl__searched *t);

/* The training moves of every row into v->actions, searched with the
   network rl__searched_open was given; the policy targets (the visit
   fractions, or the improved policy) into t->policy. */
int rl__searched_act(rl__searched *t, rl__vecenv *v, char *err, size_t errlen);
/* After v's step: same_mover, and each row's count of moves (0 where its
   game ended). */
void rl__searched_stepped(rl__searched *t, const rl__vecenv *v);

/* The counts of searches and of each game's moves, saved (load 0) or
   restored under "host/search/". */
int rl__searched_state(rl__searched *t, const rl_state_io *io, int load, char *err, size_t errlen);

#endif
