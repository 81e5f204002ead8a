/* CartPole dynamics; see cartpole.h.  State in double, as Gymnasium keeps
   it; the plugin emits float32 observations. */
#include <math.h>

#include "cartpole.h"

void cp_reset(cp_state *s, rl_rng *rng)
{
    s->x = rl_rng_uniform_d(rng) * 0.1 - 0.05;
    s->x_dot = rl_rng_uniform_d(rng) * 0.1 - 0.05;
    s->theta = rl_rng_uniform_d(rng) * 0.1 - 0.05;
    s->theta_dot = rl_rng_uniform_d(rng) * 0.1 - 0.05;
    s->steps = 0;
}

float cp_step(cp_state *s, int action, int *terminated, int *truncated)
{
    double force = action == 1 ? CP_FORCE_MAG : -CP_FORCE_MAG;
    double costheta = cos(s->theta), sintheta = sin(s->theta);
    /* The squares first, as Gymnasium's np.square: the same operations in
       the same order give the same doubles. */
    double temp = (force + CP_POLEMASS_LENGTH * (s->theta_dot * s->theta_dot) * sintheta) / CP_TOTAL_MASS;
    double thetaacc = (CP_GRAVITY * sintheta - costheta * temp) /
        (CP_LENGTH * (4.0 / 3.0 - CP_MASSPOLE * (costheta * costheta) / CP_TOTAL_MASS));
    double xacc = temp - CP_POLEMASS_LENGTH * thetaacc * costheta / CP_TOTAL_MASS;
    s->x += CP_TAU * s->x_dot;
    s->x_dot += CP_TAU * xacc;
    s->theta += CP_TAU * s->theta_dot;
    s->theta_dot += CP_TAU * thetaacc;
    s->steps++;
    *terminated = s->x < -CP_X_THRESHOLD || s->x > CP_X_THRESHOLD || s->theta < -CP_THETA_THRESHOLD ||
        s->theta > CP_THETA_THRESHOLD;
    *truncated = s->steps >= CP_MAX_STEPS; /* Gymnasium's TimeLimit: both flags on step 500 */
    return 1.0f;
}
