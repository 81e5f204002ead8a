/* Snake rules, independent of the host (tests drive them directly).
 *
 * The board is width x height cells inside a wall; the state keeps a padded
 * grid of cell codes (a wall border `pad` cells thick, so egocentric windows
 * need no bounds checks) and the body as a ring of padded cell indices.
 * Moving into the cell the tail is leaving is legal unless the snake eats
 * on that step (then the tail stays).  Food never spawns on the snake; a
 * full board is a win. */
#ifndef RLHOST_SNAKE_RULES_H
#define RLHOST_SNAKE_RULES_H

#include <stddef.h>
#include <stdint.h>

#include <rlhost/rlcore.h>

/* Cell codes in the padded grid, scaled so the `window` observation is a
   plain copy (code k stored as 63 k). */
enum { SN_EMPTY = 0, SN_FOOD = 63, SN_BODY = 126, SN_WALL = 189, SN_HEAD = 252 };
/* Absolute directions; also the `absolute` action values. */
enum { SN_UP = 0, SN_RIGHT = 1, SN_DOWN = 2, SN_LEFT = 3 };
/* Relative actions. */
enum { SN_STRAIGHT = 0, SN_TURN_LEFT = 1, SN_TURN_RIGHT = 2 };

typedef struct sn_config {
    uint32_t width, height, pad;
    uint32_t initial_length;
    uint32_t max_idle_steps;
    int relative_actions;
    float food_reward, death_reward, step_reward, distance_shaping;
} sn_config;

typedef struct sn_state {
    uint8_t *cells; /* (height + 2 pad) x (width + 2 pad) codes */
    uint8_t *image; /* optional (NULL): [body, head, food][height][width]
                       0/255, kept up to date move by move */
    uint16_t *body; /* ring of padded indices, capacity width*height */
    uint32_t head;  /* ring position of the head */
    uint32_t length;
    uint32_t food; /* padded index of the food (0 when the board is full) */
    int dir;
    uint32_t steps, idle, score;
    rl_rng rng;
} sn_state;

typedef enum sn_outcome { SN_GO_ON = 0, SN_DIED, SN_WON, SN_IDLE_OUT } sn_outcome;

/* Bytes of grid, image and body storage one state needs. */
uint32_t sn_image_bytes(const sn_config *c);
uint32_t sn_padded_width(const sn_config *c);
uint32_t sn_cells_bytes(const sn_config *c);
uint32_t sn_body_capacity(const sn_config *c);

/* Starts an episode: snake of initial_length in a random place and
   direction, food on a random empty cell. */
void sn_reset(const sn_config *c, sn_state *s);
/* Places the snake exactly (tests): body[0] is the head, cells given as
   (x, y) board coordinates; food at (fx, fy) or none when fx < 0. */
void sn_place(const sn_config *c, sn_state *s, const int *xy, uint32_t length, int dir, int fx, int fy);
/* Applies an action; returns the reward and the outcome. */
float sn_step(const sn_config *c, sn_state *s, int action, sn_outcome *out);

/* The rules every snake moves by, alone or on a board of several: the
   heading from the action (sn_action_dir), death in a wall or a body cell
   (the tail cell excepted: it is leaving), else the head advances, the tail
   leaves unless the snake eats (then it grows and scores), and
   max_idle_steps without food is SN_IDLE_OUT.  A dead snake's cells are
   unchanged.  What follows a death, a meal or an idle-out (food, respawn,
   the win on a full board) is the caller's.  *ate: it moved onto food. */
sn_outcome sn_advance(const sn_config *c, sn_state *s, int action, int *ate);
/* Lays a snake of len cells straight back from head (opposite to dir) on
   empty cells, with fresh counters and no food of its own. */
void sn_lay(const sn_config *c, sn_state *s, uint32_t head, int dir, uint32_t len);

/* 0 when s is a state the rules can reach (loaded from an untrusted file):
   indexes in range, walls intact, the body on body cells and nothing else
   there, food where it says (or the all-zero state of an env never reset);
   else -1 and the first problem in why. */
int sn_state_check(const sn_config *c, const sn_state *s, char *why, size_t n);
/* A loaded board's cells: walls exactly on the border, inside only empty,
   food or body codes; counts the body and food cells.  0, or -1 with why. */
int sn_cells_check(const sn_config *c, const uint8_t *cells, uint32_t *body, uint32_t *food, char *why, size_t n);

/* Helpers for observations. */
static inline uint32_t sn_head_index(const sn_state *s)
{
    return s->body[s->head];
}
/* Padded index of the tail (the body's oldest cell). */
static inline uint32_t sn_tail_index(const sn_config *c, const sn_state *s)
{
    uint32_t cap = c->width * c->height; /* sn_body_capacity */
    return s->body[(s->head + cap + 1 - s->length) % cap];
}
int sn_delta(const sn_config *c, int dir);
/* Padded index of board cell (x, y); Manhattan distance of two indexes. */
uint32_t sn_index(const sn_config *c, int x, int y);
int sn_manhattan(const sn_config *c, uint32_t a, uint32_t b);
/* Absolute direction an action leads to (the reverse-into-neck rule
   applied). */
int sn_action_dir(const sn_config *c, const sn_state *s, int action);
/* The action mask of s (n_actions bytes, 1 where allowed).  Absolute
   actions never allow the move back into the neck (it would go straight
   on: a second name for another action); deadly also forbids every move
   into a wall or a body cell other than the tail, unless all of them are
   deadly (then the ones reverse allows stay allowed: the snake dies
   whatever it does). */
void sn_action_mask(const sn_config *c, const sn_state *s, int deadly, uint8_t *mask);
/* Fraction of the board's free cells reachable from the head after moving
   in direction dir (0 if that move dies); marks needs cells_bytes bytes,
   queue body_capacity entries.  Exact BFS of the position after the move. */
float sn_flood_fraction(const sn_config *c, const sn_state *s, int dir, uint8_t *marks, uint16_t *queue);
/* The same for every action at once (out[a] for a < n_actions): a move into
   cell t reaches exactly t's component of free cells minus t itself, so one
   labelling serves all actions (an exact BFS only when the move eats).
   tail_out (may be NULL): 1 where the tail's cell (or, when the move eats,
   a cell next to it) is still reachable after the move, else 0. */
void sn_flood_fractions(const sn_config *c, const sn_state *s, uint32_t n_actions, float *out, float *tail_out,
                        uint8_t *marks, uint16_t *queue);

#endif
