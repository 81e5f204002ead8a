/* Snake rules and observations on hand-built positions, without the host. */
#include <stdlib.h>
#include <string.h>

#include "snake_obs.h"
#include "../tap.h"

typedef struct board {
    sn_config c;
    sn_state s;
    uint8_t cells[64 * 64], image[3 * 64 * 64], marks[64 * 64];
    uint16_t body[64 * 64], queue[64 * 64];
} board;

static board *new_board(uint32_t w, uint32_t h, uint32_t pad)
{
    board *b = calloc(1, sizeof *b);
    b->c = (sn_config){w, h, pad, 3, 2 * w * h, 0, 1.0f, -1.0f, 0.0f, 0.0f};
    b->s.cells = b->cells;
    b->s.body = b->body;
    b->s.image = b->image;
    rl_rng_seed(&b->s.rng, 3, 0);
    return b;
}

static uint32_t at(const board *b, int x, int y)
{
    return (uint32_t)(y + (int)b->c.pad) * sn_padded_width(&b->c) + (uint32_t)(x + (int)b->c.pad);
}

static int on_body(const board *b, uint32_t i)
{
    uint32_t cap = sn_body_capacity(&b->c);
    for (uint32_t k = 0; k < b->s.length; k++)
        if (b->s.body[(b->s.head + cap - k) % cap] == i) return 1;
    return 0;
}

/* A plain BFS for tail_reach: moving the head onto t, is the tail (or, when
   t holds food and the snake grows, a cell next to it) reachable over free
   cells (the tail's own cell too unless eating)? */
static int tail_reachable(const board *b, uint32_t head, uint32_t tail, uint32_t t)
{
    uint8_t code = b->cells[t];
    int eats = code == SN_FOOD, reach = 0;
    if (!(code == SN_EMPTY || code == SN_FOOD || (t == tail && !eats))) return 0;
    static uint8_t seen[64 * 64];
    static uint16_t q[64 * 64];
    memset(seen, 0, sizeof seen);
    uint32_t qh = 0, qt = 0;
    seen[t] = 1, q[qt++] = (uint16_t)t, seen[head] = 1;
    while (qh < qt) {
        uint32_t cur = q[qh++];
        if (!eats && cur == tail) reach = 1;
        for (int dd = 0; dd < 4; dd++) {
            uint32_t nb = (uint32_t)((int)cur + sn_delta(&b->c, dd));
            if (eats && nb == tail) reach = 1;
            uint8_t c2 = b->cells[nb];
            if (!seen[nb] && (c2 == SN_EMPTY || c2 == SN_FOOD || (nb == tail && !eats)))
                seen[nb] = 1, q[qt++] = (uint16_t)nb;
        }
    }
    return reach;
}

int main(void)
{
    sn_outcome out;
    /* Grows on food. */
    board *b = new_board(10, 10, 1);
    int xy[] = {4, 5, 3, 5, 2, 5}; /* head at (4,5) heading right */
    sn_place(&b->c, &b->s, xy, 3, SN_RIGHT, 5, 5);
    float r = sn_step(&b->c, &b->s, SN_RIGHT, &out);
    ASSERT_EQ(out, SN_GO_ON, "eating goes on");
    ASSERT_NEAR(r, 1.0, 0, "food reward");
    ASSERT_EQ(b->s.length, 4, "grows by one");
    ASSERT_EQ(b->s.score, 1, "score counts food");
    ASSERT_EQ(sn_head_index(&b->s), at(b, 5, 5), "head moved onto the food");
    OK(b->s.food && !on_body(b, b->s.food) && b->s.cells[b->s.food] == SN_FOOD, "new food off the body");
    OK(b->s.cells[at(b, 2, 5)] == SN_BODY, "tail stays when eating");
    r = sn_step(&b->c, &b->s, SN_RIGHT, &out);
    OK(b->s.cells[at(b, 2, 5)] == SN_EMPTY, "tail leaves when not eating");

    /* Dies on the wall. */
    int xy2[] = {9, 2, 8, 2, 7, 2};
    sn_place(&b->c, &b->s, xy2, 3, SN_RIGHT, 0, 0);
    r = sn_step(&b->c, &b->s, SN_RIGHT, &out);
    ASSERT_EQ(out, SN_DIED, "wall kills");
    ASSERT_NEAR(r, -1.0, 0, "death reward");

    /* Dies on itself: a hook, head turning into its own body. */
    int hook[] = {3, 3, 3, 4, 4, 4, 5, 4, 5, 3, 5, 2}; /* head (3,3) heading up */
    sn_place(&b->c, &b->s, hook, 6, SN_UP, 0, 0);
    sn_step(&b->c, &b->s, SN_RIGHT, &out); /* (4,3) is free */
    ASSERT_EQ(out, SN_GO_ON, "turn into a free cell");
    sn_step(&b->c, &b->s, SN_DOWN, &out); /* (4,4) is body */
    ASSERT_EQ(out, SN_DIED, "running into the body kills");

    /* Moving into the cell the tail leaves is legal. */
    int loop[] = {1, 1, 1, 2, 2, 2, 2, 1}; /* square; tail at (2,1) next to the head */
    sn_place(&b->c, &b->s, loop, 4, SN_DOWN, 8, 8);
    sn_step(&b->c, &b->s, SN_RIGHT, &out);
    ASSERT_EQ(out, SN_GO_ON, "chasing the tail is safe");

    /* Reverse into the neck keeps going straight. */
    sn_place(&b->c, &b->s, xy, 3, SN_RIGHT, 0, 0);
    sn_step(&b->c, &b->s, SN_LEFT, &out);
    ASSERT_EQ(out, SN_GO_ON, "reverse does not kill");
    ASSERT_EQ(sn_head_index(&b->s), at(b, 5, 5), "reverse keeps going straight");
    ASSERT_EQ(b->s.dir, SN_RIGHT, "heading unchanged");

    /* Masks: the move into the neck; with deadly, walls and the body too
       (not the tail's cell), and everything when nothing is safe. */
    uint8_t m[4];
    sn_place(&b->c, &b->s, xy, 3, SN_RIGHT, 0, 0); /* head (4,5) heading right, neck (3,5) */
    sn_action_mask(&b->c, &b->s, 0, m);
    OK(m[SN_UP] && m[SN_RIGHT] && m[SN_DOWN] && !m[SN_LEFT], "reverse mask: only the neck");
    sn_place(&b->c, &b->s, xy2, 3, SN_RIGHT, 0, 0); /* head (9,2) at the right wall */
    sn_action_mask(&b->c, &b->s, 1, m);
    OK(m[SN_UP] && !m[SN_RIGHT] && m[SN_DOWN] && !m[SN_LEFT], "deadly mask: the wall and the neck");
    sn_place(&b->c, &b->s, hook, 6, SN_UP, 0, 0); /* head (3,3) up, body at (3,4), (4,4) ... */
    sn_action_mask(&b->c, &b->s, 1, m);
    OK(m[SN_UP] && m[SN_RIGHT] && !m[SN_DOWN] && m[SN_LEFT], "deadly mask: the body");
    sn_place(&b->c, &b->s, loop, 4, SN_DOWN, 8, 8); /* tail (2,1) right of the head (1,1) */
    sn_action_mask(&b->c, &b->s, 1, m);
    OK(m[SN_RIGHT], "deadly mask: the tail's cell is allowed");
    int corner[] = {0, 0, 1, 0, 1, 1, 0, 1, 0, 2}; /* head (0,0) heading left, boxed in by walls and its body */
    sn_place(&b->c, &b->s, corner, 5, SN_LEFT, 8, 8);
    sn_action_mask(&b->c, &b->s, 1, m);
    OK(m[SN_UP] && !m[SN_RIGHT] && m[SN_DOWN] && m[SN_LEFT], "deadly mask: no safe move keeps all but the neck");

    /* Relative actions. */
    b->c.relative_actions = 1;
    sn_place(&b->c, &b->s, xy, 3, SN_RIGHT, 0, 0);
    sn_step(&b->c, &b->s, SN_TURN_LEFT, &out);
    ASSERT_EQ(b->s.dir, SN_UP, "relative left from right is up");
    ASSERT_EQ(sn_head_index(&b->s), at(b, 4, 4), "moved up");
    sn_step(&b->c, &b->s, SN_TURN_RIGHT, &out);
    ASSERT_EQ(b->s.dir, SN_RIGHT, "relative right from up is right");
    b->c.relative_actions = 0;

    /* Idle truncation. */
    b->c.max_idle_steps = 3;
    sn_place(&b->c, &b->s, xy, 3, SN_RIGHT, 0, 0);
    sn_step(&b->c, &b->s, SN_UP, &out);
    sn_step(&b->c, &b->s, SN_UP, &out);
    ASSERT_EQ(out, SN_GO_ON, "two idle steps go on");
    sn_step(&b->c, &b->s, SN_RIGHT, &out);
    ASSERT_EQ(out, SN_IDLE_OUT, "third idle step truncates");
    b->c.max_idle_steps = 200;

    /* Food never on the body: many random steps. */
    int bad = 0, episodes = 0;
    sn_reset(&b->c, &b->s);
    for (int k = 0; k < 200000; k++) {
        sn_step(&b->c, &b->s, (int)rl_rng_below(&b->s.rng, 4), &out);
        if (out != SN_GO_ON) {
            sn_reset(&b->c, &b->s);
            episodes++;
        }
        if (b->s.food && (on_body(b, b->s.food) || b->s.cells[b->s.food] != SN_FOOD)) bad++;
    }
    ASSERT_EQ(bad, 0, "food never spawns on the snake (200k random steps)");
    printf("# %d episodes\n", episodes);

    /* Dense board: after eating, food lands only on the two free cells. */
    board *d = new_board(4, 4, 1);
    int full[] = {0, 3, 0, 2, 0, 1, 0, 0, 1, 0, 2, 0, 3, 0, 3, 1, 2, 1, 1, 1, 1, 2, 2, 2, 3, 2, 3, 3, 2, 3};
    int hit[2] = {0, 0}, elsewhere = 0;
    for (int k = 0; k < 400; k++) {
        sn_place(&d->c, &d->s, full, 13, SN_DOWN, 1, 3); /* free: (1,3) food, (2,3), (3,3) */
        sn_step(&d->c, &d->s, SN_RIGHT, &out);
        if (d->s.food == at(d, 2, 3))
            hit[0]++;
        else if (d->s.food == at(d, 3, 3))
            hit[1]++;
        else
            elsewhere++;
    }
    ASSERT_EQ(elsewhere, 0, "dense board: food only on free cells");
    OK(hit[0] > 150 && hit[1] > 150, "dense board: both free cells chosen about equally");
    /* Full board is a win: 4x4, 15 cells of snake, food on the last cell. */
    sn_place(&d->c, &d->s, full, 15, SN_DOWN, 1, 3); /* head (0,3), food (1,3) */
    r = sn_step(&d->c, &d->s, SN_RIGHT, &out);
    ASSERT_EQ(out, SN_WON, "filling the board wins");
    ASSERT_NEAR(r, 1.0, 0, "the last food is rewarded");
    ASSERT_EQ(d->s.length, 16, "snake covers the board");

    /* Observations on a hand-built position (10x10, pad 1). */
    int pos[] = {4, 5, 3, 5, 3, 6}; /* head (4,5) heading right; neck left, tail below-left */
    sn_place(&b->c, &b->s, pos, 3, SN_RIGHT, 4, 2);
    float f[11];
    sn_write_obs(&b->c, &b->s, SN_OBS_FEATURES, 0, 0, 0, NULL, f);
    float want[11] = {0, 0, 0, 0, 1, 0, 0, 1, 0, 0, 0};
    OK(memcmp(f, want, sizeof f) == 0, "features: no danger, heading right, food up");
    int edge[] = {9, 0, 8, 0, 7, 0}; /* top-right corner heading right */
    sn_place(&b->c, &b->s, edge, 3, SN_RIGHT, 0, 9);
    sn_write_obs(&b->c, &b->s, SN_OBS_FEATURES, 0, 0, 0, NULL, f);
    float want2[11] = {1, 1, 0, 0, 1, 0, 0, 0, 0, 1, 1};
    OK(memcmp(f, want2, sizeof f) == 0, "features: wall ahead and left, food down-left");

    uint8_t g[300];
    sn_place(&b->c, &b->s, pos, 3, SN_RIGHT, 4, 2);
    sn_write_obs(&b->c, &b->s, SN_OBS_GRID, 0, 0, 0, NULL, g);
    int body_ok = g[5 * 10 + 4] == 255 && g[5 * 10 + 3] == 255 && g[6 * 10 + 3] == 255;
    int count = 0;
    for (int i = 0; i < 100; i++) count += g[i] == 255;
    OK(body_ok && count == 3, "grid: body channel has the 3 body cells");
    count = 0;
    for (int i = 100; i < 200; i++) count += g[i] == 255;
    OK(g[100 + 5 * 10 + 4] == 255 && count == 1, "grid: head channel has the head only");
    OK(g[200 + 2 * 10 + 4] == 255, "grid: food channel has the food");
    sn_step(&b->c, &b->s, SN_UP, &out);
    sn_write_obs(&b->c, &b->s, SN_OBS_GRID, 0, 0, 0, NULL, g);
    OK(g[100 + 4 * 10 + 4] == 255 && g[100 + 5 * 10 + 4] == 0 && g[6 * 10 + 3] == 0,
       "grid image follows a move (head moved, tail cleared)");
    uint8_t go[400];
    sn_place(&b->c, &b->s, pos, 3, SN_RIGHT, 4, 2);
    sn_write_obs(&b->c, &b->s, SN_OBS_GRID, 1, 0, 0, NULL, go);
    OK(go[300 + 5 * 10 + 4] == 255 && go[300 + 5 * 10 + 3] == 170 && go[300 + 6 * 10 + 3] == 85,
       "grid body order: head 255, neck 170, tail 85");

    board *wb = new_board(10, 10, 2);
    sn_place(&wb->c, &wb->s, edge, 3, SN_RIGHT, 9, 2);
    uint8_t w[25];
    sn_write_obs(&wb->c, &wb->s, SN_OBS_WINDOW, 0, 0, 0, NULL, w);
    /* 5x5 around (9,0): rows y=-2..2, cols x=7..11 */
    uint8_t wantw[25] = {189, 189, 189, 189, 189, 189, 189, 189, 189, 189, 126, 126, 252,
                         189, 189, 0,   0,   0,   189, 189, 0,   0,   63,  189, 189};
    OK(memcmp(w, wantw, 25) == 0, "window: walls, body, head at the centre, food");

    /* Flood fill on a hand-built trap: a wall of body from (5,0) down to (5,8)
       with the head at (4,8) heading down; left of the wall is 45 - 2 cells,
       right 50. */
    int trap[2 * 12];
    int n = 0;
    trap[n++] = 4, trap[n++] = 8; /* head */
    for (int y = 8; y >= 0; y--) trap[n++] = 5, trap[n++] = y;
    sn_place(&b->c, &b->s, trap, 10, SN_DOWN, -1, -1);
    float frac[4], exact;
    sn_flood_fractions(&b->c, &b->s, 4, frac, NULL, b->marks, b->queue);
    /* free after a move: 100 - 10 = 90.  Moving left (3,8) or down (4,9): the
       region left of the wall plus the bottom row connects everything but the
       body -> all 89 other free cells; the tail (5,0) frees too. */
    exact = sn_flood_fraction(&b->c, &b->s, SN_LEFT, b->marks, b->queue);
    ASSERT_NEAR(frac[SN_LEFT], exact, 1e-6, "flood: labelled equals exact BFS (left)");
    ASSERT_NEAR(frac[SN_RIGHT], 0.0, 0, "flood: moving into the body reaches nothing");
    ASSERT_NEAR(frac[SN_UP], frac[SN_DOWN], 1e-6, "flood: up is reverse, so straight (down)");
    /* A sealed pocket: head (4,8) came up from (4,9); the body then runs
       (5,9) up to (5,0) and ends in the tail (6,0), outside the pocket. */
    int trap2[2 * 14];
    n = 0;
    trap2[n++] = 4, trap2[n++] = 8;
    trap2[n++] = 4, trap2[n++] = 9;
    for (int y = 9; y >= 0; y--) trap2[n++] = 5, trap2[n++] = y;
    trap2[n++] = 6, trap2[n++] = 0;
    sn_place(&b->c, &b->s, trap2, 13, SN_UP, -1, -1);
    sn_flood_fractions(&b->c, &b->s, 4, frac, NULL, b->marks, b->queue);
    /* Pocket: columns 0..4 = 50 cells minus head and neck = 48 free; the head
       takes (3,8), leaving 47 reachable of 100 - 13 = 87 free cells. */
    ASSERT_NEAR(frac[SN_LEFT], 47.0 / 87.0, 1e-6, "flood: sealed pocket fraction by hand");
    ASSERT_NEAR(sn_flood_fraction(&b->c, &b->s, SN_LEFT, b->marks, b->queue), 47.0 / 87.0, 1e-6,
                "flood: exact BFS agrees by hand");
    ASSERT_NEAR(frac[SN_RIGHT], 0.0, 0, "flood: into the body is 0");
    /* tail_reach by hand in the sealed pocket */
    sn_place(&b->c, &b->s, trap2, 13, SN_UP, -1, -1);
    float tr[4];
    sn_flood_fractions(&b->c, &b->s, 4, frac, tr, b->marks, b->queue);
    OK(tr[SN_LEFT] == 0.0f && tr[SN_UP] == 0.0f && tr[SN_RIGHT] == 0.0f,
       "tail_reach: inside the sealed pocket the tail is out of reach");
    /* Random positions: for every action, the labelled fractions equal the
       exact BFS, and tail_reach equals a plain BFS. */
    int agree = 1, tail_agree = 1, reached_some = 0;
    sn_reset(&b->c, &b->s);
    for (int k = 0; k < 20000; k++) {
        sn_step(&b->c, &b->s, (int)rl_rng_below(&b->s.rng, 4), &out);
        if (out != SN_GO_ON) sn_reset(&b->c, &b->s);
        sn_flood_fractions(&b->c, &b->s, 4, frac, tr, b->marks, b->queue);
        uint32_t head = sn_head_index(&b->s), tail = sn_tail_index(&b->c, &b->s);
        for (int a = 0; a < 4; a++) {
            int dir = sn_action_dir(&b->c, &b->s, a);
            float e2 = sn_flood_fraction(&b->c, &b->s, dir, b->marks, b->queue);
            if (fabsf(e2 - frac[a]) > 1e-6f) agree = 0;
            int reach = tail_reachable(b, head, tail, (uint32_t)((int)head + sn_delta(&b->c, dir)));
            if ((tr[a] != 0.0f) != reach) tail_agree = 0;
            reached_some += reach;
        }
    }
    OK(agree, "flood: labelled fractions equal exact BFS on 20k random positions");
    OK(tail_agree && reached_some > 1000, "tail_reach equals a plain BFS on 20k random positions");
    free(b);
    free(d);
    free(wb);
    return tap_done();
}
