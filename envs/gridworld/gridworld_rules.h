/* Gridworld rules, independent of the host.
 *
 * A map is a grid of cells ('#' wall, '.' floor, 'S' start, 'G' goal,
 * 'L' lava).  The agent moves (up/right/down/left) or turns and steps
 * forward; walls block, the goal and lava end the episode.  In the T-maze a
 * cue shown only in the first steps says which arm holds the goal; the
 * other arm is lava, and the two arm ends look alike. */
#ifndef RLHOST_GRIDWORLD_RULES_H
#define RLHOST_GRIDWORLD_RULES_H

#include <stddef.h>
#include <stdint.h>

#include <rlhost/rlcore.h>

enum { GW_FLOOR = 0, GW_WALL = 1, GW_GOAL = 2, GW_LAVA = 3 };
enum { GW_UP = 0, GW_RIGHT = 1, GW_DOWN = 2, GW_LEFT = 3 };
enum { GW_TURN_LEFT = 0, GW_TURN_RIGHT = 1, GW_FORWARD = 2 };

#define GW_MAX_SIDE 64

typedef struct gw_map {
    uint32_t width, height;
    uint8_t cells[GW_MAX_SIDE * GW_MAX_SIDE]; /* GW_* codes; goal/lava of the
                                                 base map */
    int32_t start, goal;                      /* cell indices, -1 if none */
    int tmaze;                                /* arms at tmaze_up / tmaze_down */
    int32_t tmaze_up, tmaze_down;
} gw_map;

typedef struct gw_config {
    gw_map map;
    int turn_actions;
    int random_start, random_goal;
    uint32_t max_steps, cue_steps;
    float goal_reward, lava_reward, step_reward;
} gw_config;

typedef struct gw_state {
    int32_t pos, goal, lava; /* lava: this episode's extra lava cell, or -1 */
    int dir;
    int goal_up; /* T-maze: the cue */
    uint32_t steps;
    rl_rng rng;
} gw_state;

typedef enum gw_outcome { GW_GO_ON = 0, GW_REACHED_GOAL, GW_IN_LAVA, GW_TIMEOUT } gw_outcome;

/* 0 when s (loaded from an untrusted file) indexes only cells of the map
   and holds directions and cues in range (the all-zero state of an env
   never reset passes); else -1 and the problem in why. */
int gw_state_check(const gw_config *c, const gw_state *s, char *why, size_t n);

/* Parses rows of map characters; writes a sentence into err on failure. */
int gw_map_parse(gw_map *m, const char *const *rows, uint32_t n_rows, char *err, size_t errlen);
/* Built-in layouts: "empty" (size x size floor inside walls), "four_rooms",
   "maze", "tmaze" (corridor of `corridor` cells). */
int gw_map_builtin(gw_map *m, const char *name, uint32_t size, uint32_t corridor, char *err, size_t errlen);

void gw_reset(const gw_config *c, gw_state *s);
float gw_step(const gw_config *c, gw_state *s, int action, gw_outcome *out);
/* The same for one of several agents on a map: others[0..n_others) are the
   cells the other agents hold.  A move into one of them is blocked (as by a
   wall), and with others the start is a random floor cell none of them
   holds (the map's start is not forced).  The map needs a free floor
   cell. */
void gw_reset_among(const gw_config *c, gw_state *s, const int32_t *others, uint32_t n_others);
float gw_step_among(const gw_config *c, gw_state *s, int action, const int32_t *others, uint32_t n_others,
                    gw_outcome *out);
/* What the cell holds for this episode (goal and lava may move). */
uint8_t gw_cell(const gw_config *c, const gw_state *s, int32_t i);

#endif
