/* Gridworld rules; see gridworld_rules.h. */
#include "gridworld_rules.h"

#include <stdio.h>
#include <string.h>

int gw_map_parse(gw_map *m, const char *const *rows, uint32_t n_rows, char *err, size_t errlen)
{
    memset(m, 0, sizeof *m);
    m->start = m->goal = m->tmaze_up = m->tmaze_down = -1;
    if (n_rows < 3 || n_rows > GW_MAX_SIDE) {
        snprintf(err, errlen, "map needs 3 to %d rows, got %u", GW_MAX_SIDE, n_rows);
        return RL_EINVAL;
    }
    size_t w = strlen(rows[0]);
    if (w < 3 || w > GW_MAX_SIDE) {
        snprintf(err, errlen, "map rows need 3 to %d characters, row 0 has %zu", GW_MAX_SIDE, w);
        return RL_EINVAL;
    }
    m->width = (uint32_t)w;
    m->height = n_rows;
    for (uint32_t y = 0; y < n_rows; y++) {
        if (strlen(rows[y]) != w) {
            snprintf(err, errlen, "map row %u has %zu characters, row 0 has %zu", y, strlen(rows[y]), w);
            return RL_EINVAL;
        }
        for (uint32_t x = 0; x < w; x++) {
            int32_t i = (int32_t)(y * w + x);
            uint8_t code;
            switch (rows[y][x]) {
            case '#':
                code = GW_WALL;
                break;
            case '.':
            case ' ':
                code = GW_FLOOR;
                break;
            case 'S':
                code = GW_FLOOR;
                m->start = i;
                break;
            case 'G':
                code = GW_GOAL;
                m->goal = i;
                break;
            case 'L':
                code = GW_LAVA;
                break;
            default:
                snprintf(err, errlen, "map row %u column %u: unknown cell '%c' (use # . S G L)", y, x, rows[y][x]);
                return RL_EINVAL;
            }
            if ((x == 0 || y == 0 || x + 1 == w || y + 1 == n_rows) && code != GW_WALL) {
                snprintf(err, errlen, "map row %u column %u: the border must be walls ('#')", y, x);
                return RL_EINVAL;
            }
            m->cells[i] = code;
        }
    }
    return RL_OK;
}

static const char *const four_rooms[] = {
    "#############", "#S....#.....#", "#.....#.....#", "#...........#", "#.....#.....#",
    "#.....#.....#", "##.####.....#", "#.....###.###", "#.....#.....#", "#.....#.....#",
    "#...........#", "#.....#....G#", "#############",
};

static const char *const maze[] = {
    "###########", "#S..#.....#", "##.##.###.#", "#..#..#...#", "#.##.##.###", "#....#..#.#",
    "###.##.##.#", "#...#...#.#", "#.###.#.#.#", "#.....#..G#", "###########",
};

int gw_map_builtin(gw_map *m, const char *name, uint32_t size, uint32_t corridor, char *err, size_t errlen)
{
    if (strcmp(name, "four_rooms") == 0) return gw_map_parse(m, four_rooms, 13, err, errlen);
    if (strcmp(name, "maze") == 0) return gw_map_parse(m, maze, 11, err, errlen);
    char rows[GW_MAX_SIDE][GW_MAX_SIDE + 1];
    const char *ptr[GW_MAX_SIDE];
    uint32_t w, h;
    if (strcmp(name, "empty") == 0) {
        if (size < 1 || size > GW_MAX_SIDE - 2) {
            snprintf(err, errlen, "empty layout size %u is outside [1, %d]", size, GW_MAX_SIDE - 2);
            return RL_EINVAL;
        }
        w = h = size + 2;
        for (uint32_t y = 0; y < h; y++)
            for (uint32_t x = 0; x < w; x++) rows[y][x] = (x == 0 || y == 0 || x + 1 == w || y + 1 == h) ? '#' : '.';
        rows[1][1] = 'S';
        rows[h - 2][w - 2] = 'G';
    } else if (strcmp(name, "tmaze") == 0) {
        /* #S....J#  with one-cell arms above and below the junction J. */
        if (corridor < 1 || corridor > GW_MAX_SIDE - 3) {
            snprintf(err, errlen, "tmaze corridor_length %u is outside [1, %d]", corridor, GW_MAX_SIDE - 3);
            return RL_EINVAL;
        }
        w = corridor + 3;
        h = 5;
        for (uint32_t y = 0; y < h; y++)
            for (uint32_t x = 0; x < w; x++) rows[y][x] = '#';
        for (uint32_t x = 1; x <= corridor + 1; x++) rows[2][x] = '.';
        rows[2][1] = 'S';
        rows[1][corridor + 1] = '.';
        rows[3][corridor + 1] = '.';
    } else {
        snprintf(err, errlen, "unknown layout '%s'", name);
        return RL_EINVAL;
    }
    for (uint32_t y = 0; y < h; y++) {
        rows[y][w] = 0;
        ptr[y] = rows[y];
    }
    int rc = gw_map_parse(m, ptr, h, err, errlen);
    if (rc == RL_OK && strcmp(name, "tmaze") == 0) {
        m->tmaze = 1;
        m->tmaze_up = (int32_t)(1 * w + corridor + 1);
        m->tmaze_down = (int32_t)(3 * w + corridor + 1);
    }
    return rc;
}

uint8_t gw_cell(const gw_config *c, const gw_state *s, int32_t i)
{
    if (i == s->goal) return GW_GOAL;
    if (i == s->lava) return GW_LAVA;
    uint8_t code = c->map.cells[i];
    return code == GW_GOAL ? GW_FLOOR : code; /* the base goal moved */
}

static int taken(int32_t i, const int32_t *others, uint32_t n_others)
{
    for (uint32_t k = 0; k < n_others; k++)
        if (others[k] == i) return 1;
    return 0;
}

static int32_t random_floor(const gw_config *c, gw_state *s, int32_t avoid, const int32_t *others, uint32_t n_others)
{
    uint32_t n = c->map.width * c->map.height;
    for (;;) {
        int32_t i = (int32_t)rl_rng_below(&s->rng, n);
        if (c->map.cells[i] == GW_FLOOR && i != avoid && i != c->map.goal && !taken(i, others, n_others)) return i;
    }
}

void gw_reset_among(const gw_config *c, gw_state *s, const int32_t *others, uint32_t n_others)
{
    const gw_map *m = &c->map;
    s->steps = 0;
    s->lava = -1;
    s->dir = c->turn_actions ? (int)rl_rng_below(&s->rng, 4) : GW_UP;
    if (m->tmaze) {
        s->goal_up = (int)rl_rng_below(&s->rng, 2);
        s->goal = s->goal_up ? m->tmaze_up : m->tmaze_down;
        s->lava = s->goal_up ? m->tmaze_down : m->tmaze_up;
        s->pos = m->start;
        s->dir = GW_RIGHT;
        return;
    }
    s->goal = m->goal;
    if (c->random_goal || s->goal < 0) s->goal = random_floor(c, s, -1, NULL, 0);
    s->pos = (c->random_start || m->start < 0 || n_others) ? random_floor(c, s, s->goal, others, n_others) : m->start;
}

void gw_reset(const gw_config *c, gw_state *s)
{
    gw_reset_among(c, s, NULL, 0);
}

float gw_step_among(const gw_config *c, gw_state *s, int action, const int32_t *others, uint32_t n_others,
                    gw_outcome *out)
{
    static const int dx[4] = {0, 1, 0, -1}, dy[4] = {-1, 0, 1, 0};
    int move = -1;
    if (c->turn_actions) {
        if (action == GW_TURN_LEFT)
            s->dir = (s->dir + 3) & 3;
        else if (action == GW_TURN_RIGHT)
            s->dir = (s->dir + 1) & 3;
        else
            move = s->dir;
    } else {
        move = action;
        s->dir = action;
    }
    if (move >= 0) {
        int32_t w = (int32_t)c->map.width;
        int32_t next = s->pos + dy[move] * w + dx[move];
        if (gw_cell(c, s, next) != GW_WALL && !taken(next, others, n_others)) s->pos = next;
    }
    s->steps++;
    uint8_t here = gw_cell(c, s, s->pos);
    if (here == GW_GOAL) {
        *out = GW_REACHED_GOAL;
        return c->step_reward + c->goal_reward;
    }
    if (here == GW_LAVA) {
        *out = GW_IN_LAVA;
        return c->step_reward + c->lava_reward;
    }
    *out = s->steps >= c->max_steps ? GW_TIMEOUT : GW_GO_ON;
    return c->step_reward;
}

float gw_step(const gw_config *c, gw_state *s, int action, gw_outcome *out)
{
    return gw_step_among(c, s, action, NULL, 0, out);
}

int gw_state_check(const gw_config *c, const gw_state *s, char *why, size_t n)
{
    const gw_map *m = &c->map;
    int32_t area = (int32_t)(m->width * m->height);
    if (!(s->rng.s[0] | s->rng.s[1] | s->rng.s[2] | s->rng.s[3])) { /* random cells would never come */
        snprintf(why, n, "the random generator state is all zero");
        return -1;
    }
    if (!s->pos && !s->goal && !s->lava && !s->dir && !s->goal_up && !s->steps)
        return 0; /* never reset (an eval env before its first evaluation) */
    if (s->pos < 0 || s->pos >= area || m->cells[s->pos] == GW_WALL || s->goal < 0 || s->goal >= area || s->lava < -1 ||
        s->lava >= area) {
        snprintf(why, n, "position %d, goal %d or lava %d is not a cell of the %ux%u map", s->pos, s->goal, s->lava,
                 m->width, m->height);
        return -1;
    }
    if (s->dir < 0 || s->dir > 3 || s->goal_up < 0 || s->goal_up > 1) {
        snprintf(why, n, "direction %d or cue %d out of range", s->dir, s->goal_up);
        return -1;
    }
    return 0;
}
