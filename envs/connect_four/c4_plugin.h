/* What the two plugins of the connect_four library share: the observation
   (connect_four.c writes it, the scripted opponent reads it back) and the
   opponent's descriptor, which the library's one entry lists. */
#ifndef RLHOST_C4_PLUGIN_H
#define RLHOST_C4_PLUGIN_H

#include <rlhost/plugin.h>

#include "c4.h"

#define C4_OBS_SIZE (2 * C4_H * C4_W)

/* The observation of seat `seat` (0 moves first) of position p. */
void c4_obs_write(const c4_pos *p, uint32_t seat, uint8_t *obs);
/* Both seats' observations at once (seat 1's is seat 0's planes swapped),
   each plane computed once. */
void c4_obs_write_both(const c4_pos *p, uint8_t *seat0, uint8_t *seat1);
/* The position an observation shows, its owner to move; -1 when it shows
   none (a cell of both sides, stones floating, four in a row, counts no
   game reaches). */
int c4_obs_read(const uint8_t *obs, c4_pos *p);
/* Whether p is a position of a game in progress or just drawn. */
int c4_pos_valid(const c4_pos *p);

#define C4_OPP_N_OPTIONS 3
extern const rl_option_def c4_opponent_options[C4_OPP_N_OPTIONS];
extern const rl_algo_vtable c4_opponent_vtable;
#define C4_OPPONENT_DESC                                                                                    \
    {                                                                                                       \
        .struct_size = sizeof(rl_plugin_desc), .kind = RL_KIND_ALGO, .name = "connect_four_alphabeta",      \
        .version = "1.0.0",                                                                                 \
        .description = "a scripted Connect Four player: alpha-beta search to a given depth, ties drawn at " \
                       "random",                                                                            \
        .options = c4_opponent_options, .n_options = C4_OPP_N_OPTIONS, .vtable = &c4_opponent_vtable,       \
        .flags = RL_DESC_MASKS                                                                              \
    }

#endif
