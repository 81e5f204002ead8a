/* The Platform domain's rules; see platform_rules.h. */
#include "platform_rules.h"

#include <math.h>

const double pf_platform[PF_PLATFORMS][2] = {{0, 250}, {475, 750}, {985, PF_LENGTH}};
const double pf_param_low[PF_MOVES] = {0, 0, 0}, pf_param_high[PF_MOVES] = {30, 720, 430};

#define DT 0.05
#define GRAVITY 900.0
#define RUN_TICKS 10
#define ENEMY_REACH 15.0 /* centre to centre, agent and enemy touching */
#define ENEMY_HEIGHT 20.0
#define MAX_TICKS 200

int pf_platform_of(double x)
{
    for (int p = 0; p < PF_PLATFORMS; p++)
        if (x >= pf_platform[p][0] && x < pf_platform[p][1]) return p;
    return -1;
}

void pf_reset(pf_state *s, double enemy_speed, rl_rng *rng)
{
    (void)enemy_speed;
    s->x = 10.0 * rl_rng_uniform_d(rng);
    for (int k = 0; k < PF_ENEMIES; k++) {
        double lo = pf_platform[k][0], hi = pf_platform[k][1];
        s->enemy[k] = lo + (hi - lo) * (0.4 + 0.55 * rl_rng_uniform_d(rng));
        s->dir[k] = rl_rng_uniform_d(rng) < 0.5 ? -1.0 : 1.0;
    }
}

/* The enemies walk one tick, turning at their platform's ends. */
static void enemies_tick(pf_state *s, double speed)
{
    for (int k = 0; k < PF_ENEMIES; k++) {
        double lo = pf_platform[k][0] + ENEMY_REACH, hi = pf_platform[k][1] - ENEMY_REACH;
        s->enemy[k] += s->dir[k] * speed * DT;
        if (s->enemy[k] > hi) s->enemy[k] = 2 * hi - s->enemy[k], s->dir[k] = -1.0;
        if (s->enemy[k] < lo) s->enemy[k] = 2 * lo - s->enemy[k], s->dir[k] = 1.0;
    }
}

static int caught(const pf_state *s, double y)
{
    if (y >= ENEMY_HEIGHT) return 0;
    int p = pf_platform_of(s->x);
    return p >= 0 && p < PF_ENEMIES && fabs(s->x - s->enemy[p]) < ENEMY_REACH;
}

double pf_step(pf_state *s, int move, float param, double enemy_speed, int *term)
{
    double x0 = s->x, vx, vy, y = 0;
    param = (float)(pf_param_low[move] + (pf_param_high[move] - pf_param_low[move]) * (param + 1.0) / 2.0);
    if (move == PF_RUN)
        vx = 3.0 * param, vy = 0;
    else if (move == PF_HOP)
        vx = 50.0, vy = param / 2.0;
    else
        vx = param, vy = 300.0;
    int air = vy > 0;
    *term = 0;
    for (int t = 0; t < (air ? MAX_TICKS : RUN_TICKS); t++) {
        s->x += vx * DT;
        if (air) {
            y += vy * DT - 0.5 * GRAVITY * DT * DT;
            vy -= GRAVITY * DT;
        }
        enemies_tick(s, enemy_speed);
        if (s->x >= PF_LENGTH) { /* crossed */
            s->x = PF_LENGTH;
            *term = 1;
            break;
        }
        if (air && y <= 0) y = 0, air = 0;
        if ((!air && pf_platform_of(s->x) < 0) || caught(s, y)) { /* fell, or caught */
            *term = 1;
            break;
        }
        if (!air && vy != 0) break; /* a jump ends where it lands */
    }
    return (s->x - x0) / PF_LENGTH;
}

void pf_obs(const pf_state *s, float *o)
{
    int p = pf_platform_of(s->x);
    if (p < 0) p = s->x < pf_platform[1][0] ? 0 : s->x < pf_platform[2][0] ? 1 : 2; /* a final observation */
    o[0] = (float)(s->x / PF_LENGTH);
    o[1] = (float)((pf_platform[p][1] - s->x) / 100.0);
    o[2] = p + 1 < PF_PLATFORMS ? (float)((pf_platform[p + 1][0] - pf_platform[p][1]) / 100.0) : 0.0f;
    o[3] = p < PF_ENEMIES ? (float)((s->enemy[p] - s->x) / 100.0) : 0.0f;
    o[4] = p < PF_ENEMIES ? (float)s->dir[p] : 0.0f;
    for (int k = 0; k < PF_PLATFORMS; k++) o[5 + k] = k == p ? 1.0f : 0.0f;
}
