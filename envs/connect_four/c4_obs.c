/* The observation of a Connect Four seat, written by the env and read back
   by the scripted opponent; see c4_plugin.h. */
#include <string.h>

#include "c4_plugin.h"

/* Row r (0 the top) of the stones s as 7 bytes of 0 or 1, one a column:
   the row's bits sit 7 apart (c4.h's layout), gathered into 7 contiguous
   bits by shifts (bit 7c moved down by 6c lands on c and nothing else
   does), then spread one to a byte by a multiply. */
static uint64_t row_bytes(uint64_t s, int r)
{
    uint64_t y = (s >> (C4_H - 1 - r)) & C4_BOTTOM;
    uint64_t bits = (y | y >> 6 | y >> 12 | y >> 18 | y >> 24 | y >> 30 | y >> 36) & 0x7f;
    return (bits * 0x0002040810204081ull) & 0x0101010101010101ull;
}

/* The stones s as a plane of [6][7] bytes at o, and at o2 too unless it
   is NULL (the other seat's copy, computed once): each row but the last
   as one 8-byte store (little-endian: byte c is column c) whose eighth
   byte the next row's store overwrites, so no write lands past the
   plane. */
static void plane(uint64_t s, uint8_t *o, uint8_t *o2)
{
    int r = 0;
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    for (; r + 1 < C4_H; r++) {
        uint64_t row = row_bytes(s, r);
        memcpy(o + r * C4_W, &row, sizeof row);
        if (o2) memcpy(o2 + r * C4_W, &row, sizeof row);
    }
#endif
    for (; r < C4_H; r++) {
        uint64_t row = row_bytes(s, r);
        for (int c = 0; c < C4_W; c++) o[r * C4_W + c] = (uint8_t)(row >> (8 * c));
        if (o2) memcpy(o2 + r * C4_W, o + r * C4_W, C4_W);
    }
}

/* The mover's and the other player's stones, from seat's side. */
static void sides(const c4_pos *p, uint32_t seat, uint64_t *own, uint64_t *opp)
{
    uint64_t mover = p->cur, other = p->cur ^ p->mask;
    *own = (p->moves & 1) == seat ? mover : other;
    *opp = *own ^ p->mask;
}

void c4_obs_write(const c4_pos *p, uint32_t seat, uint8_t *o)
{
    uint64_t own, opp;
    sides(p, seat, &own, &opp);
    plane(own, o, NULL);
    plane(opp, o + C4_H * C4_W, NULL);
}

void c4_obs_write_both(const c4_pos *p, uint8_t *seat0, uint8_t *seat1)
{
    uint64_t own, opp;
    sides(p, 0, &own, &opp);
    plane(own, seat0, seat1 + C4_H * C4_W);
    plane(opp, seat0 + C4_H * C4_W, seat1);
}

int c4_obs_read(const uint8_t *o, c4_pos *p)
{
    uint64_t own = 0, opp = 0;
    for (int r = 0; r < C4_H; r++)
        for (int c = 0; c < C4_W; c++) {
            uint64_t bit = 1ull << (c * (C4_H + 1) + (C4_H - 1 - r));
            uint8_t a = o[r * C4_W + c], b = o[C4_H * C4_W + r * C4_W + c];
            if (a > 1 || b > 1 || (a && b)) return -1;
            if (a) own |= bit;
            if (b) opp |= bit;
        }
    *p = (c4_pos){own, own | opp, (uint32_t)__builtin_popcountll(own | opp)};
    return c4_pos_valid(p) ? 0 : -1;
}

int c4_pos_valid(const c4_pos *p)
{
    if ((p->cur & ~p->mask) || (p->mask & ~C4_BOARD)) return 0;
    for (int c = 0; c < C4_W; c++) { /* stones rest on the bottom or another stone */
        uint64_t col = (p->mask & c4_column(c)) >> (c * (C4_H + 1));
        if (col & (col + 1)) return 0;
    }
    uint32_t n = (uint32_t)__builtin_popcountll(p->mask), own = (uint32_t)__builtin_popcountll(p->cur);
    /* the side to move has as many stones as the other, or one fewer */
    if (n != p->moves || !(own * 2 == n || own * 2 + 1 == n)) return 0;
    return !c4_aligned(p->cur) && !c4_aligned(p->cur ^ p->mask);
}
