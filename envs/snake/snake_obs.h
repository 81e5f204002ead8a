/* Snake observations, independent of the host:
     features  float32: danger straight/left/right, heading (4), food
               direction up/right/down/left (4)
     grid      uint8 channels [body, head, food (, body order)][height][width],
               0 or 255 (order: 255 at the head down to 255/length at the tail)
     window    uint8 (2 vision + 1)^2 cell codes around the head: empty 0,
               food 63, body 126, wall 189, head 252
     dict      a composite row (ABI 1.6 parts): board, the grid's channels
               (uint8); heading, one byte 0..3 (up, right, down, left);
               stats, two float32 at the next multiple of 4: length over
               the board's cells, and hunger, the steps since the last
               food over max_idle_steps (sn_dict_layout)
   flood_actions > 0 appends, per action, the fraction of free cells still
   reachable after taking it (float, or uint8 x255 for grid/window), and
   with tail_reach then, per action, 1 when the snake's tail stays
   reachable after it (the way out of a pocket the body closes). */
#ifndef RLHOST_SNAKE_OBS_H
#define RLHOST_SNAKE_OBS_H

#include "snake_rules.h"

enum { SN_OBS_FEATURES = 0, SN_OBS_GRID, SN_OBS_WINDOW, SN_OBS_DICT };

/* The dict row's byte offsets of heading and stats, and its bytes. */
static inline void sn_dict_layout(uint32_t board_bytes, uint32_t *heading, uint32_t *stats, uint32_t *row)
{
    *heading = board_bytes;
    *stats = (board_bytes + 1 + 3) / 4 * 4;
    *row = *stats + 8;
}

typedef struct sn_obs_scratch {
    uint8_t *marks;  /* sn_cells_bytes */
    uint16_t *queue; /* sn_body_capacity */
} sn_obs_scratch;

/* Writes one env's observation; grid mode needs s->image. */
void sn_write_obs(const sn_config *c, const sn_state *s, int mode, int order, uint32_t flood_actions, int tail_reach,
                  const sn_obs_scratch *scratch, void *dst);

#endif
