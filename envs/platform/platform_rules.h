/* The Platform domain's rules (after Masson, Ranchod and Konidaris, 2016,
   "Reinforcement learning with parameterized actions"): an agent crosses
   three platforms separated by two gaps, past an enemy patrolling each of
   the first two.  Each decision is one of three moves with its own
   continuous parameter, simulated in ticks until the move ends:
     run  (speed 0 .. 30):  along the ground for 0.5 s at 3 x speed units/s;
     hop  (power 0 .. 720): a jump up at power / 2 units/s, 50 units/s ahead;
     leap (power 0 .. 430): a jump ahead at power units/s, 300 units/s up.
   The action gives each parameter in [-1, 1], mapped linearly onto its
   range (as the literature's agents scale them).
   Landing in a gap or touching an enemy ends the episode; so does passing
   the end of the last platform.  The reward is the distance made,
   divided by the course's length, so a crossed course returns about 1. */
#ifndef PLATFORM_RULES_H
#define PLATFORM_RULES_H

#include <stdint.h>

#include <rlhost/rlcore.h>

#define PF_LENGTH 1035.0
#define PF_PLATFORMS 3
#define PF_ENEMIES 2
#define PF_OBS 8
enum { PF_RUN, PF_HOP, PF_LEAP, PF_MOVES };

/* [start, end) of each platform along the course */
extern const double pf_platform[PF_PLATFORMS][2];
/* each move's parameter range */
extern const double pf_param_low[PF_MOVES], pf_param_high[PF_MOVES];

typedef struct pf_state {
    double x;                 /* the agent, on a platform between moves */
    double enemy[PF_ENEMIES]; /* enemy k patrols platform k */
    double dir[PF_ENEMIES];   /* +1 or -1 */
} pf_state;

/* A new course: the agent near the start, each enemy somewhere on the
   far part of its platform walking either way. */
void pf_reset(pf_state *s, double enemy_speed, rl_rng *rng);
/* One move with its parameter (in [-1, 1]): the reward, and
 *term set when the agent fell, was caught or crossed. */
double pf_step(pf_state *s, int move, float param, double enemy_speed, int *term);
/* The observation: position, distance to the platform's edge, the next
   gap's width, the enemy on this platform (distance and direction), and
   the platform as one of three. */
void pf_obs(const pf_state *s, float *o);
/* The platform the agent stands on, or -1 in a gap. */
int pf_platform_of(double x);

#endif
