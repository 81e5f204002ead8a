/* CartPole rules, independent of the host: the classic cart-pole with the
   published CartPole-v1 constants (Barto, Sutton & Anderson 1983 as in
   Gymnasium): Euler integration, tau 0.02 s, force 10 N, termination at
   |x| > 2.4 or |theta| > 12 degrees, +1 per step, truncation at 500 steps. */
#ifndef RLHOST_CARTPOLE_H
#define RLHOST_CARTPOLE_H

#include <stdint.h>

#include <rlhost/rlcore.h>

#define CP_GRAVITY 9.8
#define CP_MASSCART 1.0
#define CP_MASSPOLE 0.1
#define CP_TOTAL_MASS (CP_MASSCART + CP_MASSPOLE)
#define CP_LENGTH 0.5 /* half the pole's length */
#define CP_POLEMASS_LENGTH (CP_MASSPOLE * CP_LENGTH)
#define CP_FORCE_MAG 10.0
#define CP_TAU 0.02
#define CP_THETA_THRESHOLD (12.0 * 2.0 * 3.14159265358979323846 / 360.0)
#define CP_X_THRESHOLD 2.4
#define CP_MAX_STEPS 500

typedef struct cp_state {
    double x, x_dot, theta, theta_dot;
    uint32_t steps;
} cp_state;

/* Uniform in [-0.05, 0.05) for all four variables. */
void cp_reset(cp_state *s, rl_rng *rng);

/* One step with action 0 (push left) or 1 (push right).  Returns the reward
   and sets *terminated / *truncated. */
float cp_step(cp_state *s, int action, int *terminated, int *truncated);

#endif
