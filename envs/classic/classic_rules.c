/* Gymnasium's continuous classic-control tasks; see classic_rules.h. */
#include "classic_rules.h"

#include <math.h>

static const double PI = 3.14159265358979323846;

/* libm's pow and powf, called: a compiler would turn pow(x, 2) into x * x,
   which is not always what libm (and so NumPy) returns. */
static double (*volatile libm_pow)(double, double) = pow;
static float (*volatile libm_powf)(float, float) = powf;

double pd_angle_normalize(double x)
{
    double a = x + PI, b = 2 * PI;
    double m = fmod(a, b); /* NumPy's remainder: the sign of the divisor */
    if (m != 0 && (m < 0) != (b < 0)) m += b;
    if (m == 0) m = copysign(0.0, b);
    return m - PI;
}

double pd_step(pd_state *s, double g, float u)
{
    u = u < -PD_MAX_TORQUE ? -PD_MAX_TORQUE : u > PD_MAX_TORQUE ? PD_MAX_TORQUE : u;
    double th = s->th, thdot = s->thdot, an = pd_angle_normalize(th);
    /* NumPy's x**2 is libm's pow (powf for float32), which is not always
       the correctly rounded x*x */
    float uu = libm_powf(u, 2.0f);
    double costs = libm_pow(an, 2.0) + 0.1 * libm_pow(thdot, 2.0) + (double)(0.001f * uu);
    double acc = (3.0 * g) / 2.0 * sin(th) + (double)(3.0f * u);
    double newthdot = thdot + acc * PD_DT;
    newthdot = newthdot < -PD_MAX_SPEED ? -PD_MAX_SPEED : newthdot > PD_MAX_SPEED ? PD_MAX_SPEED : newthdot;
    s->th = th + newthdot * PD_DT;
    s->thdot = newthdot;
    return -costs;
}

void pd_obs(const pd_state *s, float *o)
{
    o[0] = (float)cos(s->th);
    o[1] = (float)sin(s->th);
    o[2] = (float)s->thdot;
}

/* What a value is in Gymnasium's step: a NumPy float32 or float64, or a
   Python float (a double that NumPy rounds to float32 beside a float32). */
enum { F32, F64, PY };

/* x > c, x < c, x == c as NumPy compares a value of kind k with a Python
   float (in float32 for a float32). */
static int gt(double x, int k, double c)
{
    return k == F32 ? (float)x > (float)c : x > c;
}

static int lt(double x, int k, double c)
{
    return k == F32 ? (float)x < (float)c : x < c;
}

static int ge(double x, int k, double c)
{
    return k == F32 ? (float)x >= (float)c : x >= c;
}

static int eq(double x, int k, double c)
{
    return k == F32 ? (float)x == (float)c : x == c;
}

/* a + b where a is of kind ka and b of kind kb (only the pairs a step
   meets); *k gets the result's kind. */
static double add(double a, int ka, double b, int kb, int *k)
{
    if (ka == F64 || kb == F64 || (ka == PY && kb == PY)) {
        *k = ka == PY && kb == PY ? PY : F64;
        return a + b;
    }
    *k = F32; /* float32 beside float32 or a Python float: in float32 */
    return (double)((float)a + (float)b);
}

double mc_step(mc_state *s, double goal_velocity, float a, int *terminated)
{
    int kp = s->wide ? F64 : F32, kv = kp, kf = F32, kx;
    double pos = s->pos, vel = s->vel, force = a;
    /* min(max(action[0], min_action), max_action): Python keeps the first
       of equals, so the float32 action survives ties */
    if (-1.0f > a) force = -1.0, kf = PY;
    if (kf == F32 && 1.0f < a) force = 1.0, kf = PY;
    double p3 = kp == F32 ? (double)(3.0f * (float)pos) : 3.0 * pos;
    double k = 0.0025 * cos(p3);
    double x;
    if (kf == F32) { /* force * power in float32, then minus a Python float */
        float t = (float)force * (float)MC_POWER;
        x = (double)(t - (float)k);
        kx = F32;
    } else {
        x = force * MC_POWER - k;
        kx = PY;
    }
    vel = add(vel, kv, x, kx, &kv);
    if (gt(vel, kv, MC_MAX_SPEED)) vel = MC_MAX_SPEED, kv = PY;
    if (lt(vel, kv, -MC_MAX_SPEED)) vel = -MC_MAX_SPEED, kv = PY;
    pos = add(pos, kp, vel, kv, &kp);
    if (gt(pos, kp, MC_MAX_POSITION)) pos = MC_MAX_POSITION, kp = PY;
    if (lt(pos, kp, MC_MIN_POSITION)) pos = MC_MIN_POSITION, kp = PY;
    if (eq(pos, kp, MC_MIN_POSITION) && vel < 0) vel = 0.0, kv = PY;
    *terminated = ge(pos, kp, MC_GOAL_POSITION) && ge(vel, kv, goal_velocity);
    double reward = *terminated ? 100.0 : 0.0;
    reward -= libm_pow((double)a, 2) * 0.1;
    /* Through float variables the compiler must keep: GCC 12's SLP
       vectorizer (-O2 and up, without LTO) dropped the rounding of pos here,
       so a portable build's states left float32 (tests/unit/test_classic.c). */
    volatile float pos32 = (float)pos, vel32 = (float)vel;
    s->pos = pos32;
    s->vel = vel32;
    s->wide = 0;
    return reward;
}

void mc_obs(const mc_state *s, float *o)
{
    o[0] = (float)s->pos;
    o[1] = (float)s->vel;
}
