/* Gridworld: rules without the host, then observations through the plugin
   on hand-built maps (start and goal fixed, so states are known). */
#include <stdlib.h>
#include <string.h>

#include "plugin/config.h"
#include "gridworld_rules.h"
#include "../tap.h"
#include "env/vecenv.h"
#include "base/text.h"

static rl__registry reg;

/* An env instance of the gridworld plugin from config text. */
static int make_env(rl__vecenv *v, rl__config *c, const char *opts, uint32_t n)
{
    char text[1024];
    snprintf(text, sizeof text, "env: { plugin = \"gridworld\"; %s };", opts);
    rl__sbuf e = {0};
    if (rl__config_load_text(c, "test", text, NULL, 0, &reg, &e, 0) != RL_OK) {
        printf("# %s", e.data);
        rl__sbuf_free(&e);
        return -1;
    }
    char err[RL_ERR_MAX];
    int rc = rl__vecenv_create(v, c->env->desc, c->env_opts.vals, c->env_stages.vals, n, 5, 1, 1, err, sizeof err);
    if (rc != RL_OK) printf("# %s\n", err);
    return rc;
}

int main(void)
{
    char err[256];
    gw_config c;
    memset(&c, 0, sizeof c);
    static const char *const rows[] = {"#######", "#S..G.#", "#.#L..#", "#######"};
    OK(gw_map_parse(&c.map, rows, 4, err, sizeof err) == RL_OK, "parse a map");
    c.max_steps = 6;
    c.goal_reward = 1.0f;
    c.lava_reward = -1.0f;
    c.step_reward = -0.01f;
    gw_state s;
    memset(&s, 0, sizeof s);
    rl_rng_seed(&s.rng, 1, 0);
    gw_reset(&c, &s);
    ASSERT_EQ(s.pos, 1 * 7 + 1, "starts on S");
    gw_outcome out;
    float r = gw_step(&c, &s, GW_UP, &out);
    ASSERT_EQ(s.pos, 8, "wall blocks");
    ASSERT_NEAR(r, -0.01, 1e-7, "step reward");
    gw_step(&c, &s, GW_RIGHT, &out);
    gw_step(&c, &s, GW_DOWN, &out);
    ASSERT_EQ(s.pos, 9, "inner wall blocks too");
    gw_step(&c, &s, GW_RIGHT, &out);
    r = gw_step(&c, &s, GW_RIGHT, &out);
    ASSERT_EQ(out, GW_REACHED_GOAL, "goal terminates");
    ASSERT_NEAR(r, 0.99, 1e-6, "goal reward plus the step reward");
    { /* several agents: another agent's cell blocks like a wall; a start
         with others avoids them and the map's start */
        gw_state a;
        memset(&a, 0, sizeof a);
        rl_rng_seed(&a.rng, 2, 0);
        gw_reset(&c, &a); /* on S, (1, 1) */
        int32_t others[1] = {1 * 7 + 2};
        gw_step_among(&c, &a, GW_RIGHT, others, 1, &out);
        ASSERT_EQ(a.pos, 8, "another agent's cell blocks a move");
        others[0] = 1 * 7 + 3;
        gw_step_among(&c, &a, GW_RIGHT, others, 1, &out);
        ASSERT_EQ(a.pos, 9, "a free cell does not");
        int clear = 1;
        for (int k = 0; k < 200; k++) {
            others[0] = 1 * 7 + 2;
            gw_reset_among(&c, &a, others, 1);
            clear &= a.pos != others[0] && a.pos != a.goal && c.map.cells[a.pos] == GW_FLOOR;
        }
        OK(clear, "a start among others: a random floor cell, never theirs or the goal");
    }
    gw_reset(&c, &s);
    gw_step(&c, &s, GW_RIGHT, &out);
    gw_step(&c, &s, GW_RIGHT, &out);
    r = gw_step(&c, &s, GW_DOWN, &out);
    ASSERT_EQ(out, GW_IN_LAVA, "lava terminates");
    ASSERT_NEAR(r, -1.01, 1e-6, "lava reward plus the step reward");
    gw_reset(&c, &s);
    for (int k = 0; k < 5; k++) gw_step(&c, &s, GW_UP, &out);
    ASSERT_EQ(out, GW_GO_ON, "five steps go on");
    gw_step(&c, &s, GW_UP, &out);
    ASSERT_EQ(out, GW_TIMEOUT, "max_steps truncates");

    /* Turn actions. */
    c.turn_actions = 1;
    gw_reset(&c, &s);
    s.dir = GW_UP;
    gw_step(&c, &s, GW_TURN_RIGHT, &out);
    ASSERT_EQ(s.dir, GW_RIGHT, "turn right from up faces right");
    ASSERT_EQ(s.pos, 8, "turning does not move");
    gw_step(&c, &s, GW_FORWARD, &out);
    ASSERT_EQ(s.pos, 9, "forward moves the way it faces");
    gw_step(&c, &s, GW_TURN_LEFT, &out);
    ASSERT_EQ(s.dir, GW_UP, "turn left from right faces up");
    c.turn_actions = 0;

    /* Map errors. */
    static const char *const open_border[] = {"#####", "#S.G.", "#####"};
    OK(gw_map_parse(&c.map, open_border, 3, err, sizeof err) != RL_OK, "open border refused");
    ASSERT_CONTAINS(err, "border must be walls", "open border message");
    static const char *const odd[] = {"####", "#SX#", "####"};
    OK(gw_map_parse(&c.map, odd, 3, err, sizeof err) != RL_OK, "unknown cell refused");
    ASSERT_CONTAINS(err, "unknown cell 'X'", "unknown cell message");

    /* Built-in layouts: every floor cell reachable from the start. */
    const char *names[] = {"empty", "four_rooms", "maze"};
    for (int k = 0; k < 3; k++) {
        gw_map m;
        OK(gw_map_builtin(&m, names[k], 8, 8, err, sizeof err) == RL_OK, names[k]);
        uint8_t seen[GW_MAX_SIDE * GW_MAX_SIDE] = {0};
        int32_t q[GW_MAX_SIDE * GW_MAX_SIDE], qh = 0, qt = 0, w = (int32_t)m.width;
        q[qt++] = m.start;
        seen[m.start] = 1;
        while (qh < qt) {
            int32_t cur = q[qh++], d[4] = {-w, 1, w, -1};
            for (int j = 0; j < 4; j++)
                if (!seen[cur + d[j]] && m.cells[cur + d[j]] != GW_WALL) seen[cur + d[j]] = 1, q[qt++] = cur + d[j];
        }
        int all = seen[m.goal];
        for (uint32_t i = 0; i < m.width * m.height; i++) all &= m.cells[i] == GW_WALL || seen[i];
        char label[64];
        snprintf(label, sizeof label, "%s: goal and every cell reachable", names[k]);
        OK(all, label);
    }

    /* T-maze: the cue and its outcome. */
    gw_config t;
    memset(&t, 0, sizeof t);
    OK(gw_map_builtin(&t.map, "tmaze", 0, 3, err, sizeof err) == RL_OK, "tmaze layout");
    t.max_steps = 20;
    t.cue_steps = 1;
    t.goal_reward = 1.0f;
    t.lava_reward = -1.0f;
    int right_ok = 0, wrong_ok = 0, ups = 0;
    for (int ep = 0; ep < 40; ep++) {
        gw_reset(&t, &s);
        ups += s.goal_up;
        int follow = ep % 2; /* follow the cue on odd episodes */
        for (int k = 0; k < 3; k++) gw_step(&t, &s, GW_RIGHT, &out);
        ASSERT_EQ(out, GW_GO_ON, "corridor walk goes on");
        int up = follow ? s.goal_up : !s.goal_up;
        r = gw_step(&t, &s, up ? GW_UP : GW_DOWN, &out);
        if (follow)
            right_ok += out == GW_REACHED_GOAL && r == 1.0f;
        else
            wrong_ok += out == GW_IN_LAVA && r == -1.0f;
    }
    ASSERT_EQ(right_ok, 20, "following the cue always reaches the goal");
    ASSERT_EQ(wrong_ok, 20, "the other arm is always lava");
    OK(ups > 8 && ups < 32, "the cue is random per episode");

    /* Observations through the plugin. */
    rl__registry_discover(&reg, NULL, 0);
    rl__vecenv v;
    rl__config cfg;
    if (make_env(&v, &cfg,
                 "map = [\"#######\", \"#S..G.#\", \"#.#L..#\", \"#######\"]; observation = \"view\"; view_size = 3;",
                 1) == RL_OK) {
        rl__vecenv_reset(&v);
        const uint8_t *o = v.io.obs;
        uint8_t walls[9] = {1, 1, 1, 1, 0, 0, 1, 0, 1};
        OK(memcmp(o, walls, 9) == 0, "view: wall channel around the start");
        ((int32_t *)v.actions)[0] = GW_RIGHT;
        rl__vecenv_step(&v, err, sizeof err);
        rl__vecenv_step(&v, err, sizeof err);
        o = v.io.obs;
        OK(o[9 + 5] == 1 && o[18 + 7] == 1, "view: goal right of the agent, lava below-left");
        int ones = 0;
        for (int k = 9; k < 27; k++) ones += o[k];
        ASSERT_EQ(ones, 2, "view: nothing else in goal/lava channels");
        rl__vecenv_destroy(&v);
        rl__config_destroy(&cfg);
    }
    if (make_env(&v, &cfg, "map = [\"#######\", \"#S..G.#\", \"#.#L..#\", \"#######\"]; observation = \"full\";", 1) ==
        RL_OK) {
        rl__vecenv_reset(&v);
        const uint8_t *o = v.io.obs;
        OK(o[0] == 1 && o[8] == 0 && o[28 + 4 + 7] == 1 && o[56 + 3 + 14] == 1 && o[84 + 8] == 1,
           "full: wall, goal, lava and agent channels");
        rl__vecenv_destroy(&v);
        rl__config_destroy(&cfg);
    }
    /* Turn mode: the view is rotated so the cell ahead is the top-centre one. */
    rl__vecenv vf, vv;
    rl__config cf, cv;
    const char *m4 = "map = [\"#####\", \"#..L#\", \"#.S.#\", \"#G..#\", \"#####\"]; actions = \"turn\";";
    char o1[512], o2[512];
    snprintf(o1, sizeof o1, "%s observation = \"full\";", m4);
    snprintf(o2, sizeof o2, "%s observation = \"view\"; view_size = 3;", m4);
    if (make_env(&vf, &cf, o1, 8) == RL_OK && make_env(&vv, &cv, o2, 8) == RL_OK) {
        rl__vecenv_reset(&vf);
        rl__vecenv_reset(&vv);
        /* cell codes around S=(2,2): up (2,1) '.', right (3,2) '.', down (2,3) '.',
           left (1,2) '.'; diagonals: (3,1) L, (1,3) G, (1,1) '.', (3,3) '.' */
        int good = 1, dirs_seen = 0;
        for (uint32_t i = 0; i < 8; i++) {
            const uint8_t *f = (const uint8_t *)vf.io.obs + i * vf.info.obs_size;
            const uint8_t *w = (const uint8_t *)vv.io.obs + i * vv.info.obs_size;
            int dir = -1;
            for (int d = 0; d < 4; d++)
                if (f[(3 + d) * 25 + 12]) dir = d;
            dirs_seen |= 1 << dir;
            /* ahead-right diagonal is view (2,0); ahead-left is (0,0) */
            /* e.g. facing right: lava (3,1) is ahead-left = view (0,0) and goal
               (1,3) is behind-right = view (2,2) */
            int lava_at = dir == GW_UP ? 2 : dir == GW_RIGHT ? 0 : dir == GW_DOWN ? 6 : 8;
            int goal_at = dir == GW_UP ? 6 : dir == GW_RIGHT ? 8 : dir == GW_DOWN ? 2 : 0;
            good &= w[18 + lava_at] == 1 && w[9 + goal_at] == 1 && w[4] == 0;
        }
        OK(good, "turn view: lava and goal where the rotation puts them, for each facing");
        printf("# facings seen: 0x%x\n", dirs_seen);
        rl__vecenv_destroy(&vf);
        rl__vecenv_destroy(&vv);
        rl__config_destroy(&cf);
        rl__config_destroy(&cv);
    }
    /* T-maze observation: cue only on the first step, arms look alike. */
    if (make_env(&v, &cfg, "layout = \"tmaze\"; corridor_length = 4; observation = \"full\";", 1) == RL_OK) {
        rl__vecenv_reset(&v);
        const uint8_t *o = v.io.obs;
        uint32_t n = v.info.obs_size, area = 7 * 5;
        OK(o[n - 2] + o[n - 1] == 1, "tmaze: cue visible at the start");
        int hidden = 1;
        for (uint32_t k = area; k < 3 * area; k++) hidden &= o[k] == 0;
        OK(hidden, "tmaze: goal and lava channels empty");
        ((int32_t *)v.actions)[0] = GW_RIGHT;
        rl__vecenv_step(&v, err, sizeof err);
        o = v.io.obs;
        OK(o[n - 2] + o[n - 1] == 0, "tmaze: cue gone after the first step");
        rl__vecenv_destroy(&v);
        rl__config_destroy(&cfg);
    }
    rl__registry_destroy(&reg);
    return tap_done();
}
