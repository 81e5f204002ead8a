/* connect_four_alphabeta: a scripted Connect Four player, an algorithm
   plugin that never learns.  It reads the position back from each row's
   observation and plays a column that depth-limited alpha-beta scores best
   (c4_alphabeta_moves), drawing among equal columns from its own RNG, so a
   game against it varies while a run stays reproducible.  With epsilon > 0
   it plays a uniformly random allowed column instead, that often: a player
   that blunders, whose open wins a learner must learn to take.  With
   exact_from = k it plays perfectly from k stones on (a column the exact
   solver scores best, drawn among equals): the ceiling a learner is
   measured against.  It acts the same in training and evaluation mode. */
#include <stdlib.h>
#include <string.h>

#include <rlhost/plugin.h>
#include <rlhost/rlcore.h>

#include "c4_plugin.h"

enum { OPT_DEPTH, OPT_EPSILON, OPT_EXACT_FROM };

const rl_option_def c4_opponent_options[C4_OPP_N_OPTIONS] = {
    [OPT_DEPTH] = RL_OPTION_INT("depth", "4", 1, 12, "plies searched, its own move included"),
    [OPT_EPSILON] = RL_OPTION_FLOAT("epsilon", "0", 0, 1,
                                    "probability of a uniformly random allowed column instead of the search's"),
    [OPT_EXACT_FROM] = RL_OPTION_INT("exact_from", "0", 0, C4_CELLS,
                                     "from this many stones on, play perfectly: a column the exact solver "
                                     "scores best (0: never)"),
};

typedef struct c4_opponent {
    int depth, exact_from;
    float epsilon;
    c4_solver *solver; /* exact_from: made at its first exact move */
    rl_rng rng;
    uint64_t moves;
} c4_opponent;

static int opp_create(const rl_algo_args *args, void **out, char *err, size_t errlen)
{
    const rl_env_info *in = args->env;
    if (in->obs_dtype != RL_DTYPE_U8 || in->obs_ndim != 3 || in->obs_shape[0] != 2 || in->obs_shape[1] != C4_H ||
        in->obs_shape[2] != C4_W || rl_env_info_action_kind(in) != RL_SPACE_DISCRETE || in->n_actions != C4_W) {
        RL_ERRF(err, errlen,
                "connect_four_alphabeta plays connect_four only (uint8 [2][6][7] observations, 7 actions)");
        return RL_EINVAL;
    }
    c4_opponent *a = calloc(1, sizeof *a);
    if (!a) return RL_ENOMEM;
    a->depth = (int)args->options[OPT_DEPTH].i;
    a->epsilon = (float)args->options[OPT_EPSILON].f;
    a->exact_from = (int)args->options[OPT_EXACT_FROM].i;
    rl_rng_seed(&a->rng, args->seed, 0xc4);
    *out = a;
    return RL_OK;
}

static void opp_destroy(void *algo)
{
    c4_opponent *a = algo;
    if (a) c4_solver_destroy(a->solver);
    free(a);
}

static int opp_act(void *algo, const rl_act_batch *b, char *err, size_t errlen)
{
    c4_opponent *a = algo;
    const uint8_t *obs = b->obs, *masks = b->masks;
    int32_t *actions = b->actions;
    uint32_t count = b->count;
    for (uint32_t i = 0; i < count; i++) {
        c4_pos p;
        if (c4_obs_read(obs + (size_t)i * C4_OBS_SIZE, &p) != 0 || p.moves >= C4_CELLS) {
            RL_ERRF(err, errlen, "connect_four_alphabeta: row %u shows no position of a game in progress", i);
            return RL_EINVAL;
        }
        unsigned best = 0;
        /* no draw at epsilon 0: its games are those it played before the option */
        if (a->epsilon > 0 && rl_rng_uniform(&a->rng) < a->epsilon)
            for (int c = 0; c < C4_W; c++) best |= (unsigned)c4_can_play(&p, c) << c;
        else if (a->exact_from && (int)p.moves >= a->exact_from) {
            int32_t scores[C4_W];
            if (!a->solver && !(a->solver = c4_solver_create(22))) {
                RL_ERRF(err, errlen, "connect_four_alphabeta: out of memory for the exact solver's table");
                return RL_ENOMEM;
            }
            best = c4_solve_moves(a->solver, &p, scores);
        } else {
            int32_t scores[C4_W];
            best = c4_alphabeta_moves(&p, a->depth, scores);
        }
        if (masks) { /* the env's mask is the rule; the search agrees unless a column is masked for another reason */
            unsigned allowed = 0;
            for (int c = 0; c < C4_W; c++) allowed |= (unsigned)(masks[(size_t)i * C4_W + c] != 0) << c;
            if (!(best & allowed)) best = allowed;
            best &= allowed;
        }
        unsigned k = rl_rng_below(&a->rng, (uint32_t)__builtin_popcount(best));
        int col = 0;
        for (; col < C4_W; col++)
            if (((best >> col) & 1) && k-- == 0) break;
        actions[i] = col;
    }
    a->moves += count;
    return RL_OK;
}

static int opp_observe(void *algo, const rl_transition *t, char *err, size_t errlen)
{
    (void)algo, (void)t, (void)err, (void)errlen;
    return RL_OK;
}

static int opp_update(void *algo, uint64_t step, char *err, size_t errlen)
{
    (void)algo, (void)step, (void)err, (void)errlen;
    return RL_OK;
}

static size_t opp_metrics(void *algo, rl_metric *out, size_t cap)
{
    c4_opponent *a = algo;
    if (cap < 1) return 0;
    out[0] = (rl_metric){"moves", (double)a->moves};
    return 1;
}

/* Its RNG, so a resumed run's opponent draws what it would have. */
static int opp_state_io(c4_opponent *a, const rl_state_io *io, int load, char *err, size_t errlen)
{
    int rc = rl_state_blob(io, load, "", "alphabeta/rng", &a->rng, sizeof a->rng, err, errlen);
    if (rc == RL_OK && load) rc = rl_state_check_rng("alphabeta/rng", &a->rng, err, errlen);
    return rc;
}

RL_ALGO_STATE_ONLY(state_ext, opp_state_io);

const rl_algo_vtable c4_opponent_vtable = {
    .struct_size = sizeof(rl_algo_vtable),
    .create = opp_create,
    .destroy = opp_destroy,
    .observe = opp_observe,
    .update = opp_update,
    .metrics = opp_metrics,
    .get_extension = state_ext_get_extension,
    .act_batch = opp_act,
};
