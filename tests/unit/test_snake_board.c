/* Several snakes on one board (snake_board.c), on hand-built positions and
   in long random play, without the host. */
#include <stdlib.h>
#include <string.h>

#include "snake_board.h"
#include "../tap.h"

#define K_MAX 4

typedef struct fixture {
    sn_config c;
    sn_board b;
    sn_state s[K_MAX];
    uint8_t cells[16 * 16];
    uint16_t body[K_MAX][12 * 12];
    uint32_t food[4];
} fixture;

static fixture *make(uint32_t k, uint32_t n_food)
{
    fixture *f = calloc(1, sizeof *f);
    f->c = (sn_config){12, 12, 1, 3, 50, 0, 1.0f, -1.0f, -0.01f, 0.0f};
    f->b = (sn_board){f->cells, f->s, k, n_food, f->food, {{0}}};
    rl_rng_seed(&f->b.rng, 11, 0);
    for (uint32_t j = 0; j < k; j++) f->s[j].cells = f->cells, f->s[j].body = f->body[j];
    snb_reset(&f->c, &f->b);
    return f;
}

/* Puts snake j with its head at (x, y), heading dir, the body straight
   behind it (the board must be clear there). */
static void place(fixture *f, uint32_t j, int x, int y, int dir, uint32_t len)
{
    sn_state *s = &f->s[j];
    uint32_t cap = sn_body_capacity(&f->c);
    int bx = dir == SN_RIGHT ? -1 : dir == SN_LEFT ? 1 : 0, by = dir == SN_DOWN ? -1 : dir == SN_UP ? 1 : 0;
    s->length = len, s->head = len - 1, s->dir = dir, s->idle = s->score = s->steps = 0;
    for (uint32_t k = 0; k < len; k++) {
        uint32_t i = sn_index(&f->c, x + bx * (int)k, y + by * (int)k);
        s->body[(s->head + cap - k) % cap] = (uint16_t)i;
        f->cells[i] = SN_BODY;
    }
}

/* Takes every snake and food off the board (before placing by hand). */
static void clear_all(fixture *f)
{
    for (uint32_t j = 0; j < f->b.k; j++) snb_clear(&f->c, &f->b, j);
    for (uint32_t q = 0; q < f->b.n_food; q++)
        if (f->food[q]) f->cells[f->food[q]] = SN_EMPTY, f->food[q] = 0;
}

static int count(const fixture *f, uint8_t code)
{
    int n = 0;
    for (uint32_t i = 0; i < sn_cells_bytes(&f->c); i++) n += f->cells[i] == code;
    return n;
}

int main(void)
{
    char why[160] = "";
    {
        fixture *f = make(2, 1);
        OK(snb_check(&f->c, &f->b, why, sizeof why) == 0 && count(f, SN_BODY) == 6 && count(f, SN_FOOD) == 1,
           "reset: two snakes of 3 and one food on the board");
        clear_all(f);
        place(f, 0, 2, 5, SN_RIGHT, 3);
        place(f, 1, 4, 7, SN_UP, 3); /* body (4,7) (4,8) (4,9): head moves to (4,6) */
        int32_t act[2] = {SN_RIGHT, SN_UP};
        float rew[2];
        sn_outcome out[2];
        snb_step(&f->c, &f->b, act, rew, out); /* 0 -> (3,5); 1 -> (4,6) */
        OK(out[0] == SN_GO_ON && out[1] == SN_GO_ON && rew[0] == -0.01f, "both move on");
        snb_step(&f->c, &f->b, act, rew, out); /* 0 -> (4,5); 1 -> (4,5): 0's head is there */
        OK(out[0] == SN_GO_ON && out[1] == SN_DIED && rew[1] == -1.01f,
           "head to head: the snake that moves second dies on the first one's new head");
        OK(count(f, SN_BODY) == 3, "the dead snake's body leaves the board at once");
        snb_respawn(&f->c, &f->b, 1);
        OK(f->s[1].length == 3 && f->s[1].score == 0 && snb_check(&f->c, &f->b, why, sizeof why) == 0,
           "the dead snake respawns, initial_length long, on empty cells");
        /* snake 0 runs into snake 1's side */
        clear_all(f);
        place(f, 1, 6, 4, SN_DOWN, 3); /* body (6,4) (6,3) (6,2) */
        place(f, 0, 5, 4, SN_RIGHT, 3);
        int32_t a2[2] = {SN_RIGHT, SN_RIGHT};
        snb_step(&f->c, &f->b, a2, rew, out); /* 0 -> (6,4): 1's head; 1 then moves right */
        OK(out[0] == SN_DIED && out[1] == SN_GO_ON, "a snake dies on another's body, the other plays on");
        /* a snake may follow its own tail */
        clear_all(f);
        place(f, 1, 8, 2, SN_RIGHT, 3);
        {
            sn_state *s = &f->s[0]; /* a 2x2 loop, the tail next to the head */
            uint32_t cap = sn_body_capacity(&f->c);
            int xy[4][2] = {{1, 9}, {1, 10}, {2, 10}, {2, 9}}; /* head first */
            s->length = 4, s->head = 3, s->dir = SN_UP, s->idle = 0;
            for (uint32_t k = 0; k < 4; k++) {
                uint32_t i = sn_index(&f->c, xy[k][0], xy[k][1]);
                s->body[(s->head + cap - k) % cap] = (uint16_t)i;
                f->cells[i] = SN_BODY;
            }
        }
        int32_t a3[2] = {SN_RIGHT, SN_RIGHT};
        snb_step(&f->c, &f->b, a3, rew, out);
        OK(out[0] == SN_GO_ON && snb_check(&f->c, &f->b, why, sizeof why) == 0,
           "moving into its own tail cell as the tail leaves is legal");
        free(f);
    }
    {
        fixture *f = make(2, 1);
        clear_all(f);
        place(f, 0, 2, 2, SN_RIGHT, 3);
        place(f, 1, 2, 8, SN_RIGHT, 3);
        f->food[0] = sn_index(&f->c, 3, 2);
        f->cells[f->food[0]] = SN_FOOD;
        int32_t act[2] = {SN_RIGHT, SN_RIGHT};
        float rew[2];
        sn_outcome out[2];
        snb_step(&f->c, &f->b, act, rew, out);
        OK(rew[0] == 0.99f && f->s[0].length == 4 && f->s[0].score == 1 && f->s[1].score == 0,
           "the eater grows and scores");
        OK(f->food[0] && f->food[0] != sn_index(&f->c, 3, 2) && count(f, SN_FOOD) == 1 &&
               snb_check(&f->c, &f->b, why, sizeof why) == 0,
           "the eaten food comes back on an empty cell");
        OK(snb_nearest_food(&f->c, &f->b, 1) == f->food[0], "nearest food of one food is that food");
        uint8_t grid[4 * 144];
        snb_write_grid(&f->c, &f->b, 1, grid);
        uint32_t area = 144, h1 = 8 * 12 + 3, b0 = 2 * 12 + 2;
        OK(grid[h1] == 255 && grid[area + h1] == 255 && grid[3 * area + h1] == 0 && grid[3 * area + b0] == 255 &&
               grid[b0] == 0,
           "grid: own body and head in channels 0 and 1, the other snake in channel 3");
        free(f);
    }
    {
        /* random play: the board stays one the rules allow, the food count holds */
        fixture *f = make(4, 3);
        rl_rng r;
        rl_rng_seed(&r, 5, 1);
        int ok = 1, deaths = 0, eats = 0;
        for (int t = 0; t < 20000 && ok; t++) {
            int32_t act[4];
            float rew[4];
            sn_outcome out[4];
            for (int j = 0; j < 4; j++) act[j] = (int32_t)rl_rng_below(&r, 4);
            uint32_t before = 0;
            for (int j = 0; j < 4; j++) before += f->s[j].score;
            snb_step(&f->c, &f->b, act, rew, out);
            for (int j = 0; j < 4; j++) eats += rew[j] > 0;
            for (int j = 0; j < 4; j++) {
                if (out[j] == SN_GO_ON) continue;
                deaths += out[j] == SN_DIED;
                if (out[j] == SN_IDLE_OUT) snb_clear(&f->c, &f->b, (uint32_t)j);
                if (snb_respawn(&f->c, &f->b, (uint32_t)j)) snb_reset(&f->c, &f->b);
            }
            ok = snb_check(&f->c, &f->b, why, sizeof why) == 0 && count(f, SN_FOOD) == 3;
            if (!ok) printf("# step %d: %s\n", t, why);
        }
        OK(ok && deaths > 100 && eats > 10, "20000 random steps of 4 snakes: every board is legal, 3 food throughout");
        /* what a loaded board may not hold */
        uint16_t keep = f->s[2].body[f->s[2].head];
        f->s[2].body[f->s[2].head] = (uint16_t)sn_index(&f->c, -1, 0); /* a wall */
        OK(snb_check(&f->c, &f->b, why, sizeof why) != 0 && strstr(why, "snake 2"), "check: a body on a wall");
        f->s[2].body[f->s[2].head] = keep;
        uint32_t fd = f->food[1];
        f->food[1] = f->food[0];
        OK(snb_check(&f->c, &f->b, why, sizeof why) != 0, "check: two list entries for one food");
        f->food[1] = fd;
        f->s[3].length += 1;
        OK(snb_check(&f->c, &f->b, why, sizeof why) != 0, "check: a length the board does not show");
        f->s[3].length -= 1;
        OK(snb_check(&f->c, &f->b, why, sizeof why) == 0, "check: the board restored passes");
        uint32_t cap = sn_body_capacity(&f->c);
        uint16_t other = f->s[1].body[f->s[1].head], mine = f->s[0].body[(f->s[0].head + cap - 1) % cap];
        f->s[0].body[(f->s[0].head + cap - 1) % cap] = other; /* two snakes claim one cell ... */
        f->cells[mine] = SN_BODY;                             /* ... and the count still adds up */
        OK(snb_check(&f->c, &f->b, why, sizeof why) != 0 && strstr(why, "of its own"),
           "check: a cell two snakes claim");
        free(f);
    }
    return tap_done();
}
