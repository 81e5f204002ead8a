/* Snake rules; see snake_rules.h. */
#include "snake_rules.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

uint32_t sn_padded_width(const sn_config *c)
{
    return c->width + 2 * c->pad;
}

uint32_t sn_cells_bytes(const sn_config *c)
{
    return (c->width + 2 * c->pad) * (c->height + 2 * c->pad);
}

uint32_t sn_body_capacity(const sn_config *c)
{
    return c->width * c->height;
}

uint32_t sn_image_bytes(const sn_config *c)
{
    return 3 * c->width * c->height;
}

/* Board cell of a padded index, for the image. */
static uint32_t board_cell(const sn_config *c, uint32_t i)
{
    uint32_t pw = sn_padded_width(c);
    return (i / pw - c->pad) * c->width + (i % pw - c->pad);
}

/* Sets a cell's code and keeps the image in step. */
static void set_cell(const sn_config *c, sn_state *s, uint32_t i, uint8_t code)
{
    s->cells[i] = code;
    if (!s->image) return;
    uint32_t area = c->width * c->height, b = board_cell(c, i);
    s->image[b] = code == SN_BODY ? 255 : 0;
    s->image[2 * area + b] = code == SN_FOOD ? 255 : 0;
}

static void set_head_mark(const sn_config *c, sn_state *s, uint32_t i, uint8_t v)
{
    if (s->image) s->image[c->width * c->height + board_cell(c, i)] = v;
}

int sn_delta(const sn_config *c, int dir)
{
    int pw = (int)sn_padded_width(c);
    switch (dir) {
    case SN_UP:
        return -pw;
    case SN_RIGHT:
        return 1;
    case SN_DOWN:
        return pw;
    default:
        return -1;
    }
}

uint32_t sn_index(const sn_config *c, int x, int y)
{
    return (uint32_t)(y + (int)c->pad) * sn_padded_width(c) + (uint32_t)(x + (int)c->pad);
}

static void clear_board(const sn_config *c, sn_state *s)
{
    memset(s->cells, SN_WALL, sn_cells_bytes(c));
    for (uint32_t y = 0; y < c->height; y++) memset(s->cells + sn_index(c, 0, (int)y), SN_EMPTY, c->width);
    if (s->image) memset(s->image, 0, sn_image_bytes(c));
}

/* Food on a uniformly random empty cell: rejection sampling while the board
   is mostly free, a scan of the free cells otherwise. */
static void place_food(const sn_config *c, sn_state *s)
{
    uint32_t area = c->width * c->height;
    if (s->length >= area) {
        s->food = 0;
        return;
    }
    if (s->length * 2 < area) {
        for (;;) {
            uint32_t k = rl_rng_below(&s->rng, area);
            uint32_t i = sn_index(c, (int)(k % c->width), (int)(k / c->width));
            if (s->cells[i] == SN_EMPTY) {
                s->food = i;
                set_cell(c, s, i, SN_FOOD);
                return;
            }
        }
    }
    uint32_t free_cells = area - s->length;
    uint32_t pick = rl_rng_below(&s->rng, free_cells);
    for (uint32_t y = 0; y < c->height; y++)
        for (uint32_t x = 0; x < c->width; x++) {
            uint32_t i = sn_index(c, (int)x, (int)y);
            if (s->cells[i] == SN_EMPTY && pick-- == 0) {
                s->food = i;
                set_cell(c, s, i, SN_FOOD);
                return;
            }
        }
}

void sn_lay(const sn_config *c, sn_state *s, uint32_t head, int dir, uint32_t len)
{
    uint32_t cap = sn_body_capacity(c);
    int back = -sn_delta(c, dir);
    s->length = len;
    s->head = len - 1;
    for (uint32_t k = 0; k < len; k++) { /* ring: tail at 0, head at len-1 */
        uint32_t i = (uint32_t)((int)head + back * (int)k);
        s->body[(s->head + cap - k) % cap] = (uint16_t)i;
        set_cell(c, s, i, SN_BODY);
    }
    set_head_mark(c, s, head, 255);
    s->dir = dir;
    s->steps = s->idle = s->score = 0;
    s->food = 0;
}

void sn_reset(const sn_config *c, sn_state *s)
{
    clear_board(c, s);
    uint32_t len = c->initial_length;
    int dir = (int)rl_rng_below(&s->rng, 4);
    /* The body trails behind the head, opposite to dir; keep it inside. */
    int bx = dir == SN_RIGHT ? -1 : dir == SN_LEFT ? 1 : 0;
    int by = dir == SN_DOWN ? -1 : dir == SN_UP ? 1 : 0;
    int xmin = bx < 0 ? (int)len - 1 : 0, xmax = (int)c->width - 1 - (bx > 0 ? (int)len - 1 : 0);
    int ymin = by < 0 ? (int)len - 1 : 0, ymax = (int)c->height - 1 - (by > 0 ? (int)len - 1 : 0);
    int hx = xmin + (int)rl_rng_below(&s->rng, (uint32_t)(xmax - xmin + 1));
    int hy = ymin + (int)rl_rng_below(&s->rng, (uint32_t)(ymax - ymin + 1));
    sn_lay(c, s, sn_index(c, hx, hy), dir, len);
    place_food(c, s);
}

void sn_place(const sn_config *c, sn_state *s, const int *xy, uint32_t length, int dir, int fx, int fy)
{
    clear_board(c, s);
    uint32_t cap = sn_body_capacity(c);
    s->length = length;
    s->head = length - 1;
    for (uint32_t k = 0; k < length; k++) {
        uint32_t i = sn_index(c, xy[2 * k], xy[2 * k + 1]);
        s->body[(s->head + cap - k) % cap] = (uint16_t)i;
        set_cell(c, s, i, SN_BODY);
    }
    set_head_mark(c, s, s->body[s->head], 255);
    s->dir = dir;
    s->steps = s->idle = s->score = 0;
    s->food = 0;
    if (fx >= 0) {
        s->food = sn_index(c, fx, fy);
        set_cell(c, s, s->food, SN_FOOD);
    }
}

int sn_action_dir(const sn_config *c, const sn_state *s, int action)
{
    if (c->relative_actions) {
        if (action == SN_TURN_LEFT) return (s->dir + 3) & 3;
        if (action == SN_TURN_RIGHT) return (s->dir + 1) & 3;
        return s->dir;
    }
    /* Turning back into the neck keeps going straight. */
    if (s->length > 1 && action == ((s->dir + 2) & 3)) return s->dir;
    return action;
}

void sn_action_mask(const sn_config *c, const sn_state *s, int deadly, uint8_t *mask)
{
    uint32_t n = c->relative_actions ? 3 : 4;
    for (uint32_t a = 0; a < n; a++) mask[a] = c->relative_actions || s->length <= 1 || (int)a != ((s->dir + 2) & 3);
    if (!deadly || !s->length) return;
    uint32_t head = s->body[s->head], tail = sn_tail_index(c, s), safe = 0;
    uint8_t keep[4];
    for (uint32_t a = 0; a < n; a++) {
        uint32_t next = (uint32_t)((int)head + sn_delta(c, sn_action_dir(c, s, (int)a)));
        uint8_t code = s->cells[next];
        keep[a] = mask[a] && code != SN_WALL && !(code == SN_BODY && next != tail);
        safe += keep[a];
    }
    if (safe)
        for (uint32_t a = 0; a < n; a++) mask[a] = keep[a];
}

int sn_manhattan(const sn_config *c, uint32_t a, uint32_t b)
{
    uint32_t pw = sn_padded_width(c);
    int ax = (int)(a % pw), ay = (int)(a / pw), bx = (int)(b % pw), by = (int)(b / pw);
    return abs(ax - bx) + abs(ay - by);
}

sn_outcome sn_advance(const sn_config *c, sn_state *s, int action, int *ate)
{
    uint32_t cap = sn_body_capacity(c);
    int dir = sn_action_dir(c, s, action);
    uint32_t head = s->body[s->head];
    uint32_t next = (uint32_t)((int)head + sn_delta(c, dir));
    uint32_t tail = sn_tail_index(c, s);
    uint8_t code = s->cells[next];
    *ate = code == SN_FOOD;
    s->dir = dir;
    s->steps++;
    if (code == SN_WALL || (code == SN_BODY && next != tail)) return SN_DIED;
    if (!*ate) {
        set_cell(c, s, tail, SN_EMPTY); /* the tail leaves first */
    } else {
        s->length++;
        s->score++;
    }
    set_head_mark(c, s, head, 0);
    s->head = s->head + 1 == cap ? 0 : s->head + 1;
    s->body[s->head] = (uint16_t)next;
    set_cell(c, s, next, SN_BODY);
    set_head_mark(c, s, next, 255);
    if (*ate)
        s->idle = 0;
    else if (++s->idle >= c->max_idle_steps)
        return SN_IDLE_OUT;
    return SN_GO_ON;
}

float sn_step(const sn_config *c, sn_state *s, int action, sn_outcome *out)
{
    uint32_t head = s->body[s->head];
    int eats;
    float reward = c->step_reward;
    *out = sn_advance(c, s, action, &eats);
    if (*out == SN_DIED) return reward + c->death_reward;
    if (c->distance_shaping != 0.0f && s->food)
        reward +=
            c->distance_shaping * (float)(sn_manhattan(c, head, s->food) - sn_manhattan(c, s->body[s->head], s->food));
    if (!eats) return reward;
    reward += c->food_reward;
    if (s->length >= c->width * c->height) {
        s->food = 0;
        *out = SN_WON;
        return reward;
    }
    place_food(c, s);
    return reward;
}

float sn_flood_fraction(const sn_config *c, const sn_state *s, int dir, uint8_t *marks, uint16_t *queue)
{
    uint32_t head = s->body[s->head];
    uint32_t start = (uint32_t)((int)head + sn_delta(c, dir));
    uint32_t tail = sn_tail_index(c, s);
    uint8_t code = s->cells[start];
    int eats = code == SN_FOOD;
    if (code == SN_WALL || (code == SN_BODY && (eats || start != tail))) return 0.0f;
    /* After the move the tail cell is free (unless eating); everything else
       with body or wall code blocks. */
    memcpy(marks, s->cells, sn_cells_bytes(c));
    if (!eats) marks[tail] = SN_EMPTY;
    marks[head] = SN_BODY;
    uint32_t qh = 0, qt = 0, seen = 1;
    int d[4] = {sn_delta(c, 0), sn_delta(c, 1), sn_delta(c, 2), sn_delta(c, 3)};
    marks[start] = 0xff;
    queue[qt++] = (uint16_t)start;
    while (qh < qt) {
        uint32_t cur = queue[qh++];
        for (int k = 0; k < 4; k++) {
            uint32_t n = (uint32_t)((int)cur + d[k]);
            if (marks[n] == SN_EMPTY || marks[n] == SN_FOOD) {
                marks[n] = 0xff;
                queue[qt++] = (uint16_t)n;
                seen++;
            }
        }
    }
    /* Free cells after the move, and how many of them the new head reaches
       (seen counts the head's own cell). */
    uint32_t free_after = c->width * c->height - s->length - (eats ? 1u : 0u);
    return free_after ? (float)(seen - 1) / (float)free_after : 1.0f;
}

void sn_flood_fractions(const sn_config *c, const sn_state *s, uint32_t n_actions, float *out, float *tail_out,
                        uint8_t *marks, uint16_t *queue)
{
    uint32_t head = s->body[s->head];
    uint32_t tail = sn_tail_index(c, s);
    int d[4] = {sn_delta(c, 0), sn_delta(c, 1), sn_delta(c, 2), sn_delta(c, 3)};
    uint32_t comp_size[5] = {0};
    uint8_t labels = 0;
    memset(marks, 0, sn_cells_bytes(c));
    /* Free after a non-eating move: empty, food, and the tail cell. */
#define FREE(i) (s->cells[i] == SN_EMPTY || s->cells[i] == SN_FOOD || (i) == tail)
    for (uint32_t a = 0; a < n_actions; a++) {
        int dir = sn_action_dir(c, s, (int)a);
        uint32_t t = (uint32_t)((int)head + d[dir]);
        uint8_t code = s->cells[t];
        if (code == SN_FOOD) { /* eating keeps the tail: the exact way */
            out[a] = sn_flood_fraction(c, s, dir, marks + 0, queue);
            if (tail_out) { /* reached cells are 0xff: is one next to the tail? */
                tail_out[a] = 0.0f;
                for (int k = 0; k < 4; k++)
                    if (marks[(uint32_t)((int)tail + d[k])] == 0xff) tail_out[a] = 1.0f;
            }
            memset(marks, 0, sn_cells_bytes(c)); /* labels above are gone */
            labels = 0;
            memset(comp_size, 0, sizeof comp_size);
            continue;
        }
        if (!FREE(t)) {
            out[a] = 0.0f;
            if (tail_out) tail_out[a] = 0.0f;
            continue;
        }
        if (!marks[t]) { /* label t's component */
            uint8_t id = ++labels;
            uint32_t qh = 0, qt = 0;
            marks[t] = id;
            queue[qt++] = (uint16_t)t;
            while (qh < qt) {
                uint32_t cur = queue[qh++];
                for (int k = 0; k < 4; k++) {
                    uint32_t n = (uint32_t)((int)cur + d[k]);
                    if (!marks[n] && FREE(n)) {
                        marks[n] = id;
                        queue[qt++] = (uint16_t)n;
                    }
                }
            }
            comp_size[id] = qt;
        }
        /* After the move the snake covers `length` cells (tail freed, t taken). */
        uint32_t free_after = c->width * c->height - s->length;
        out[a] = free_after ? (float)(comp_size[marks[t]] - 1) / (float)free_after : 1.0f;
        if (tail_out) tail_out[a] = marks[tail] == marks[t] ? 1.0f : 0.0f; /* the tail cell is free */
    }
#undef FREE
}

int sn_cells_check(const sn_config *c, const uint8_t *cells, uint32_t *body, uint32_t *food, char *why, size_t n)
{
    uint32_t pw = sn_padded_width(c), count = sn_cells_bytes(c);
    *body = *food = 0;
    for (uint32_t i = 0; i < count; i++) {
        uint32_t x = i % pw, y = i / pw;
        int inside = x >= c->pad && x < c->pad + c->width && y >= c->pad && y < c->pad + c->height;
        uint8_t code = cells[i];
        if (inside ? code != SN_EMPTY && code != SN_FOOD && code != SN_BODY : code != SN_WALL) {
            snprintf(why, n, "cell %u holds code %u", i, code);
            return -1;
        }
        *body += code == SN_BODY;
        *food += code == SN_FOOD;
    }
    return 0;
}

int sn_state_check(const sn_config *c, const sn_state *s, char *why, size_t n)
{
    uint32_t cap = sn_body_capacity(c), cells = sn_cells_bytes(c);
    if (!(s->rng.s[0] | s->rng.s[1] | s->rng.s[2] | s->rng.s[3])) { /* it would place food forever */
        snprintf(why, n, "the random generator state is all zero");
        return -1;
    }
    if (s->length == 0 && s->head == 0 && s->food == 0) { /* never started (an eval env before */
        for (uint32_t i = 0; i < cells; i++)              /* its first evaluation): all zero */
            if (s->cells[i]) {
                snprintf(why, n, "an empty snake on a board that is not");
                return -1;
            }
        return 0;
    }
    if (s->length < 1 || s->length > cap || s->head >= cap || s->dir < 0 || s->dir > 3) {
        snprintf(why, n, "length %u, head %u or direction %d out of range", s->length, s->head, s->dir);
        return -1;
    }
    uint32_t body, food;
    if (sn_cells_check(c, s->cells, &body, &food, why, n)) return -1;
    for (uint32_t k = 0; k < s->length; k++) {
        uint32_t i = s->body[(s->head + cap - k) % cap];
        if (i >= cells || s->cells[i] != SN_BODY) {
            snprintf(why, n, "body segment %u is at cell %u, not on the body", k, i);
            return -1;
        }
    }
    if (body != s->length || food != (s->food != 0) ||
        (s->food && (s->food >= cells || s->cells[s->food] != SN_FOOD))) {
        snprintf(why, n, "the board holds %u body and %u food cells, the snake %u and food at %u", body, food,
                 s->length, s->food);
        return -1;
    }
    return 0;
}
