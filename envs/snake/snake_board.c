/* Several snakes on one board; see snake_board.h. */
#include "snake_board.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A uniformly random empty cell (rejection first, then a scan); 0 if none. */
static uint32_t random_empty(const sn_config *c, sn_board *b)
{
    uint32_t area = c->width * c->height;
    for (int t = 0; t < 32; t++) {
        uint32_t k = rl_rng_below(&b->rng, area);
        uint32_t i = sn_index(c, (int)(k % c->width), (int)(k / c->width));
        if (b->cells[i] == SN_EMPTY) return i;
    }
    uint32_t free_cells = 0;
    for (uint32_t y = 0; y < c->height; y++)
        for (uint32_t x = 0; x < c->width; x++) free_cells += b->cells[sn_index(c, (int)x, (int)y)] == SN_EMPTY;
    if (!free_cells) return 0;
    uint32_t pick = rl_rng_below(&b->rng, free_cells);
    for (uint32_t y = 0; y < c->height; y++)
        for (uint32_t x = 0; x < c->width; x++) {
            uint32_t i = sn_index(c, (int)x, (int)y);
            if (b->cells[i] == SN_EMPTY && pick-- == 0) return i;
        }
    return 0;
}

static void place_food(const sn_config *c, sn_board *b, uint32_t f)
{
    b->food[f] = random_empty(c, b);
    if (b->food[f]) b->cells[b->food[f]] = SN_FOOD;
}

static int line_empty(const sn_config *c, const uint8_t *cells, uint32_t head, int dir, uint32_t len)
{
    int back = -sn_delta(c, dir);
    for (uint32_t k = 0; k < len; k++)
        if (cells[(uint32_t)((int)head + back * (int)k)] != SN_EMPTY) return 0;
    return 1;
}

int snb_respawn(const sn_config *c, sn_board *b, uint32_t j)
{
    sn_state *s = &b->snakes[j];
    uint32_t len = c->initial_length;
    for (int t = 0; t < 64; t++) { /* random places first ... */
        uint32_t head = random_empty(c, b);
        int dir = (int)rl_rng_below(&b->rng, 4);
        if (!head) break;
        if (line_empty(c, b->cells, head, dir, len)) {
            sn_lay(c, s, head, dir, len);
            return 0;
        }
    }
    for (uint32_t l = len; l >= 1; l--) /* ... then any place, shorter if need be */
        for (uint32_t y = 0; y < c->height; y++)
            for (uint32_t x = 0; x < c->width; x++)
                for (int dir = 0; dir < 4; dir++) {
                    uint32_t head = sn_index(c, (int)x, (int)y);
                    if (line_empty(c, b->cells, head, dir, l)) {
                        sn_lay(c, s, head, dir, l);
                        return 0;
                    }
                }
    s->length = 0;
    return -1;
}

void snb_clear(const sn_config *c, sn_board *b, uint32_t j)
{
    sn_state *s = &b->snakes[j];
    uint32_t cap = sn_body_capacity(c);
    for (uint32_t k = 0; k < s->length; k++) b->cells[s->body[(s->head + cap - k) % cap]] = SN_EMPTY;
}

void snb_reset(const sn_config *c, sn_board *b)
{
    memset(b->cells, SN_WALL, sn_cells_bytes(c));
    for (uint32_t y = 0; y < c->height; y++) memset(b->cells + sn_index(c, 0, (int)y), SN_EMPTY, c->width);
    for (uint32_t j = 0; j < b->k; j++) snb_respawn(c, b, j); /* create checks they fit */
    for (uint32_t f = 0; f < b->n_food; f++) place_food(c, b, f);
}

int snb_step(const sn_config *c, sn_board *b, const int32_t *actions, float *rewards, sn_outcome *outcome)
{
    for (uint32_t j = 0; j < b->k; j++) {
        sn_state *s = &b->snakes[j];
        int eats;
        rewards[j] = c->step_reward;
        outcome[j] = sn_advance(c, s, actions[j], &eats);
        if (outcome[j] == SN_DIED) {
            rewards[j] += c->death_reward;
            snb_clear(c, b, j);
            continue;
        }
        if (!eats) continue;
        rewards[j] += c->food_reward;
        uint32_t next = s->body[s->head];
        for (uint32_t f = 0; f < b->n_food; f++)
            if (b->food[f] == next) {
                place_food(c, b, f);
                break;
            }
    }
    return 0;
}

uint32_t snb_nearest_food(const sn_config *c, const sn_board *b, uint32_t j)
{
    const sn_state *s = &b->snakes[j];
    uint32_t head = s->body[s->head], best = 0;
    int best_d = 1 << 30;
    for (uint32_t f = 0; f < b->n_food; f++) {
        if (!b->food[f]) continue;
        int d = sn_manhattan(c, head, b->food[f]);
        if (d < best_d) best_d = d, best = b->food[f];
    }
    return best;
}

void snb_write_grid(const sn_config *c, const sn_board *b, uint32_t j, uint8_t *o)
{
    uint32_t area = c->width * c->height, pw = sn_padded_width(c), cap = sn_body_capacity(c);
    for (uint32_t y = 0; y < c->height; y++)
        for (uint32_t x = 0; x < c->width; x++) {
            uint8_t code = b->cells[sn_index(c, (int)x, (int)y)];
            uint32_t k = y * c->width + x;
            o[k] = 0;
            o[area + k] = 0;
            o[2 * area + k] = code == SN_FOOD ? 255 : 0;
            o[3 * area + k] = code == SN_BODY ? 255 : 0; /* own cells are moved below */
        }
    const sn_state *s = &b->snakes[j];
    uint32_t off = c->pad * pw + c->pad;
    for (uint32_t k = 0; k < s->length; k++) {
        uint32_t i = s->body[(s->head + cap - k) % cap] - off, cell = (i / pw) * c->width + i % pw;
        o[cell] = 255;
        o[3 * area + cell] = 0;
        if (k == 0) o[area + cell] = 255;
    }
}

int snb_check(const sn_config *c, const sn_board *b, char *why, size_t n)
{
    uint32_t cap = sn_body_capacity(c), cells = sn_cells_bytes(c);
    if (!(b->rng.s[0] | b->rng.s[1] | b->rng.s[2] | b->rng.s[3])) {
        snprintf(why, n, "the board's random generator state is all zero");
        return -1;
    }
    uint32_t body, food, lengths = 0, listed = 0;
    if (sn_cells_check(c, b->cells, &body, &food, why, n)) return -1;
    uint8_t *claimed = calloc(cells, 1); /* a body cell belongs to one snake, once */
    if (!claimed) {
        snprintf(why, n, "out of memory");
        return -1;
    }
    for (uint32_t j = 0; j < b->k; j++) {
        const sn_state *s = &b->snakes[j];
        if (s->length < 1 || s->length > cap || s->head >= cap || s->dir < 0 || s->dir > 3) {
            snprintf(why, n, "snake %u: length %u, head %u or direction %d out of range", j, s->length, s->head,
                     s->dir);
            free(claimed);
            return -1;
        }
        for (uint32_t k = 0; k < s->length; k++) {
            uint32_t i = s->body[(s->head + cap - k) % cap];
            if (i >= cells || b->cells[i] != SN_BODY || claimed[i]) {
                snprintf(why, n, "snake %u: body segment %u is at cell %u, not on a body cell of its own", j, k, i);
                free(claimed);
                return -1;
            }
            claimed[i] = 1;
        }
        lengths += s->length;
    }
    for (uint32_t f = 0; f < b->n_food; f++) {
        if (!b->food[f]) continue;
        if (b->food[f] >= cells || b->cells[b->food[f]] != SN_FOOD || claimed[b->food[f]]) {
            snprintf(why, n, "food %u is at cell %u, which holds no food of its own", f, b->food[f]);
            free(claimed);
            return -1;
        }
        claimed[b->food[f]] = 1;
        listed++;
    }
    free(claimed);
    if (body != lengths || food != listed) {
        snprintf(why, n, "the board holds %u body and %u food cells, the snakes %u and the list %u", body, food,
                 lengths, listed);
        return -1;
    }
    return 0;
}
