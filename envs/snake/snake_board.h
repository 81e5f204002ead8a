/* Several snakes on one board (snake's `snakes = K`, K >= 2), independent
 * of the host.
 *
 * The board is one padded grid of cell codes (snake_rules.h) that every
 * snake's sn_state points at; each snake keeps its own body ring, heading,
 * counters and score, and the board keeps `n_food` food cells and the RNG
 * for food and respawns.  A step moves the snakes one after another in
 * index order: a snake dies when it moves into a wall or into any body cell
 * (its own tail cell excepted while it does not eat: that cell is leaving);
 * a dead snake's body leaves the board at once, so the snakes after it may
 * move there.  A snake that eats grows, and that food comes back on a random
 * empty cell.  A snake whose episode ended (death, or max_idle_steps without
 * food) respawns straight, initial_length long, on empty cells; the others
 * play on. */
#ifndef RLHOST_SNAKE_BOARD_H
#define RLHOST_SNAKE_BOARD_H

#include "snake_rules.h"

typedef struct sn_board {
    uint8_t *cells;   /* the shared padded grid */
    sn_state *snakes; /* k snakes; cells = the board's, image NULL */
    uint32_t k, n_food;
    uint32_t *food; /* n_food padded indices, 0 where none fits */
    rl_rng rng;
} sn_board;

/* Starts every snake's episode on a fresh board, then places the food. */
void snb_reset(const sn_config *c, sn_board *b);
/* Steps every snake: actions[j], rewards[j], outcome[j] for snake j.
   Returns 0, or -1 when a snake that must respawn finds no empty cell (the
   board is full: the caller ends every snake's episode and resets it). */
int snb_step(const sn_config *c, sn_board *b, const int32_t *actions, float *rewards, sn_outcome *outcome);
/* Respawns snake j (its body already off the board); -1 when no empty cell. */
int snb_respawn(const sn_config *c, sn_board *b, uint32_t j);
/* Takes snake j's body off the board. */
void snb_clear(const sn_config *c, sn_board *b, uint32_t j);
/* Padded index of the food nearest to snake j's head (Manhattan; first on
   ties), 0 when there is none. */
uint32_t snb_nearest_food(const sn_config *c, const sn_board *b, uint32_t j);
/* Grid observation of snake j: uint8 [own body, own head, food, other
   snakes][height][width], 0 or 255. */
void snb_write_grid(const sn_config *c, const sn_board *b, uint32_t j, uint8_t *o);
/* 0 when b (loaded from an untrusted file) is a board the rules can reach:
   indexes in range, walls intact, each snake's body on body cells, no
   other body cells, food where the list says; else -1 and why. */
int snb_check(const sn_config *c, const sn_board *b, char *why, size_t n);

#endif
