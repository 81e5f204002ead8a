/*
 * Connect Four on bitboards: 7 columns of 6 cells, column c's cells at bits
 * 7c .. 7c+5 (bottom up) and bit 7c+6 always empty, so a shift by 1, 6, 7
 * or 8 moves a cell to its neighbour in one direction without wrapping into
 * the next column.  A position is the stones of the side to move (`cur`)
 * and every stone (`mask`); playing a move swaps sides.
 *
 * c4_search.c holds the searches on these positions: the exact solver and
 * the depth-limited alpha-beta a scripted opponent plays.
 */
#ifndef RLHOST_C4_H
#define RLHOST_C4_H

#include <stdint.h>

#define C4_W 7
#define C4_H 6
#define C4_CELLS (C4_W * C4_H)

typedef struct c4_pos {
    uint64_t cur;  /* the stones of the side to move */
    uint64_t mask; /* every stone */
    uint32_t moves;
} c4_pos;

#define C4_BOTTOM 0x0040810204081ull /* bit 7c of every column */
#define C4_BOARD (C4_BOTTOM * ((1ull << C4_H) - 1))

static inline uint64_t c4_bottom(int col)
{
    return 1ull << (col * (C4_H + 1));
}
static inline uint64_t c4_top(int col)
{
    return 1ull << (C4_H - 1 + col * (C4_H + 1));
}
static inline uint64_t c4_column(int col)
{
    return ((1ull << C4_H) - 1) << (col * (C4_H + 1));
}

static inline int c4_can_play(const c4_pos *p, int col)
{
    return (p->mask & c4_top(col)) == 0;
}

/* Plays the bit `move` (one cell, the lowest empty one of its column). */
static inline void c4_play_bit(c4_pos *p, uint64_t move)
{
    p->cur ^= p->mask;
    p->mask |= move;
    p->moves++;
}

static inline void c4_play(c4_pos *p, int col)
{
    c4_play_bit(p, (p->mask + c4_bottom(col)) & c4_column(col));
}

/* Four in a row anywhere among the stones s. */
static inline int c4_aligned(uint64_t s)
{
    static const int dirs[4] = {1, C4_H, C4_H + 1, C4_H + 2};
    for (int d = 0; d < 4; d++) {
        uint64_t m = s & (s >> dirs[d]);
        if (m & (m >> (2 * dirs[d]))) return 1;
    }
    return 0;
}

/* The empty cells that would complete four for the stones s. */
static inline uint64_t c4_threats(uint64_t s, uint64_t mask)
{
    uint64_t r = (s << 1) & (s << 2) & (s << 3); /* vertical: only upwards */
    static const int dirs[3] = {C4_H + 1, C4_H, C4_H + 2};
    for (int d = 0; d < 3; d++) {
        int k = dirs[d];
        uint64_t p = (s << k) & (s << 2 * k);
        r |= p & (s << 3 * k);
        r |= p & (s >> k);
        p = (s >> k) & (s >> 2 * k);
        r |= p & (s << k);
        r |= p & (s >> 3 * k);
    }
    return r & (C4_BOARD ^ mask);
}

/* The cells the side to move can play now. */
static inline uint64_t c4_playable(const c4_pos *p)
{
    return (p->mask + C4_BOTTOM) & C4_BOARD;
}

/* Whether playing col wins for the side to move. */
static inline int c4_wins(const c4_pos *p, int col)
{
    return (c4_threats(p->cur, p->mask) & (p->mask + c4_bottom(col)) & c4_column(col)) != 0;
}

static inline int c4_can_win_next(const c4_pos *p)
{
    return (c4_threats(p->cur, p->mask) & c4_playable(p)) != 0;
}

/* A unique key of the position (cur + mask: the mask's sentinel bits make
   it one-to-one). */
static inline uint64_t c4_key(const c4_pos *p)
{
    return p->cur + p->mask;
}

/* The search's score of a position, from the side to move: positive wins,
   the sooner the larger (22 - the winner's stones at the end), 0 a draw. */
#define C4_MIN_SCORE (-(C4_CELLS) / 2 + 3)
#define C4_MAX_SCORE ((C4_CELLS + 1) / 2 - 3)

typedef struct c4_solver c4_solver;
/* A solver with a transposition table of 2^log2_entries entries (about 9
   bytes each); NULL when out of memory. */
c4_solver *c4_solver_create(unsigned log2_entries);
void c4_solver_destroy(c4_solver *s);
/* The exact score of p (no four in a row on it, not full). */
int c4_solve(c4_solver *s, const c4_pos *p);
/* The exact score of every column of p into scores[7] (INT32_MIN where the
   column is full); returns a bit per column that scores the best. */
unsigned c4_solve_moves(c4_solver *s, const c4_pos *p, int32_t *scores);
/* Nodes searched since create. */
uint64_t c4_solver_nodes(const c4_solver *s);

/* Depth-limited alpha-beta for the side to move, depth >= 1 plies (the
   move itself counts): the score of every column into scores[7]
   (INT32_MIN where full).  A win found scores above 100, the sooner the
   higher (a loss the negation); at the horizon a position scores its
   mover's threats less the other side's, unless the mover wins at once.
   Returns a bit per column that scores the best. */
unsigned c4_alphabeta_moves(const c4_pos *p, int depth, int32_t *scores);

/* Reads a position from its moves as column digits 1..7 ("4453"); -1 when
   a move is illegal or ends the game, else 0. */
int c4_from_moves(c4_pos *p, const char *moves);

#endif
