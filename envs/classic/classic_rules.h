/* Gymnasium's continuous classic-control tasks, step for step, independent
 * of the host (tests/unit/test_classic.c drives them against recorded Gymnasium
 * trajectories).
 *
 * Pendulum-v1: state (theta, theta_dot) in float64; a torque clipped to
 * [-2, 2] in float32; theta_dot clipped to [-8, 8] after each Euler step of
 * dt = 0.05; reward -(normalize(theta)^2 + 0.1 theta_dot^2 + 0.001 u^2) from
 * the state before the step; never terminates (the 200-step limit
 * truncates).
 *
 * MountainCarContinuous-v0: state (position, velocity); force clipped to
 * [-1, 1]; velocity clipped to [-0.07, 0.07], position to [-1.2, 0.6]
 * (stopping at the left wall); terminated at position >= 0.45 with
 * velocity >= goal_velocity; reward 100 on reaching the goal minus
 * 0.1 action^2 of the unclipped action; 999-step limit.
 *
 * The arithmetic follows Gymnasium's NumPy 2 types exactly: the state is
 * float64 right after a reset and float32 after every step, and a Python
 * float beside a float32 value is rounded to float32 first (NEP 50), so
 * every value here is rounded where NumPy rounds it, and x**2 is libm's
 * pow (powf in float32) as NumPy computes it.  Nothing depends on
 * -ffast-math-style contraction: the build is ISO C, where GCC does not
 * fuse multiply-adds. */
#ifndef RLHOST_CLASSIC_RULES_H
#define RLHOST_CLASSIC_RULES_H

#include <stdint.h>

#define PD_MAX_SPEED 8.0
#define PD_MAX_TORQUE 2.0f
#define PD_DT 0.05
#define PD_STEPS 200

typedef struct pd_state {
    double th, thdot;
} pd_state;

/* One step with torque u (any float, not NaN); returns Gymnasium's reward
   (float64). */
double pd_step(pd_state *s, double g, float u);
/* [cos theta, sin theta, theta_dot] as float32. */
void pd_obs(const pd_state *s, float *o);
/* ((x + pi) mod 2 pi) - pi with NumPy's floor-mod. */
double pd_angle_normalize(double x);

#define MC_MIN_POSITION -1.2
#define MC_MAX_POSITION 0.6
#define MC_MAX_SPEED 0.07
#define MC_GOAL_POSITION 0.45
#define MC_POWER 0.0015
#define MC_STEPS 999

typedef struct mc_state {
    double pos, vel;
    int wide; /* 1 right after a reset (float64 state), 0 after a step (float32) */
} mc_state;

/* One step with action a (not NaN); returns the reward (float64) and sets
 *terminated. */
double mc_step(mc_state *s, double goal_velocity, float a, int *terminated);
/* [position, velocity] as float32. */
void mc_obs(const mc_state *s, float *o);

#endif
