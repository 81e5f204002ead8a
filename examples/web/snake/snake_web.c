/* Snake in the browser, played by an exported policy: the snake plugin's
   own rules and observations (envs/snake/snake_rules.c, snake_obs.c) and
   the policy `rlhost export --format c --name policy` wrote, compiled
   together to WebAssembly; snake.js draws the board and drives the loop.

   One board, stepped as the snake plugin steps a lone snake
   (sn_step_range in envs/snake/snake.c): an episode ends when the snake
   dies or wins (terminated) or goes max_idle_steps without food
   (truncated), and the next one starts from the same RNG stream.
   snake_seed(seed, stream) seeds it as the plugin seeds env `stream` of a
   vector env opened with `seed`, so the page's episode k seeded
   (eval seed, k) is the episode `rlhost eval --episodes K` plays in its
   env k.  env_config.h (written by build.sh from the run's config.cfg)
   holds the env's options: SN_W, SN_H, SN_MODE, ... */
#include <stddef.h>
#include <stdint.h>

#include "env_config.h"
#include "policy.h"
#include "snake_obs.h"
#include "snake_rules.h"

#define CELLS ((SN_W + 2 * SN_PAD) * (SN_H + 2 * SN_PAD))
#define BODY (SN_W * SN_H)

static const sn_config cfg = {SN_W,        SN_H,           SN_PAD,          SN_INITIAL_LENGTH, SN_MAX_IDLE,
                              SN_RELATIVE, SN_FOOD_REWARD, SN_DEATH_REWARD, SN_STEP_REWARD,    SN_DISTANCE_SHAPING};
static sn_state st;
static uint8_t cells[CELLS], image[3 * SN_W * SN_H], marks[CELLS];
static uint16_t body[BODY], queue[BODY];
static union { /* the observation row, aligned for the floats of "features" */
    float f[POLICY_OBS_SIZE + 4];
    unsigned char b[4 * POLICY_OBS_SIZE + 16];
} obs;
static unsigned char mask[SN_ACTIONS];
static policy_state pst;
static int done;
static float episode_return;
static uint32_t episode_length;

static void observe(void)
{
    sn_obs_scratch scratch = {marks, queue};
    sn_write_obs(&cfg, &st, SN_MODE, SN_ORDER, SN_FLOOD ? SN_ACTIONS : 0, SN_TAIL, SN_FLOOD ? &scratch : NULL, obs.b);
    if (SN_MASK) sn_action_mask(&cfg, &st, SN_MASK == 2, mask);
}

/* Starts episodes on stream `stream` of `seed` (the seed as two halves:
   JavaScript numbers hold 53 bits). */
void snake_seed(uint32_t seed_hi, uint32_t seed_lo, uint32_t stream)
{
    st.cells = cells;
    st.body = body;
    st.image = SN_MODE == SN_OBS_GRID || SN_MODE == SN_OBS_DICT ? image : NULL;
    rl_rng_seed(&st.rng, (uint64_t)seed_hi << 32 | seed_lo, stream);
    sn_reset(&cfg, &st);
    policy_reset(&pst);
    episode_return = 0;
    episode_length = 0;
    done = 0;
    observe();
}

/* The policy's action for the current observation (the page times it). */
int snake_act(void)
{
    int a = 0;
    policy_act(&pst, (const void *)obs.b, SN_MASK ? mask : NULL, &a);
    return a;
}

/* One step with `action`: 0 while the episode goes on, 1 when it ended
   (terminated), 2 when it was cut off (truncated).  At the end the board
   keeps its last position until snake_next starts the next episode. */
int snake_step(int action)
{
    sn_outcome out;
    episode_return += sn_step(&cfg, &st, action, &out);
    episode_length++;
    if (out == SN_GO_ON) {
        observe();
        return 0;
    }
    done = 1;
    return out == SN_IDLE_OUT ? 2 : 1;
}

/* After an episode ends: the next one on the same stream. */
void snake_next(void)
{
    sn_reset(&cfg, &st);
    policy_reset(&pst);
    episode_return = 0;
    episode_length = 0;
    done = 0;
    observe();
}

uint32_t snake_score(void)
{
    return st.score;
}
float snake_return(void)
{
    return episode_return;
}
uint32_t snake_length(void)
{
    return episode_length;
}
uint32_t snake_width(void)
{
    return SN_W;
}
uint32_t snake_height(void)
{
    return SN_H;
}

/* The k-th cell of the body counted from the head (k < its length): its
   board index y * width + x. */
uint32_t snake_body_length(void)
{
    return st.length;
}

uint32_t snake_body(uint32_t k)
{
    uint32_t cap = SN_W * SN_H, pw = SN_W + 2 * SN_PAD;
    uint32_t idx = st.body[(st.head + cap - k % cap) % cap];
    return (idx / pw - SN_PAD) * SN_W + idx % pw - SN_PAD;
}

/* Cell (x, y) of the board: 0 empty, 1 food, 2 body, 3 head. */
int snake_cell(uint32_t x, uint32_t y)
{
    uint32_t c = cells[sn_index(&cfg, (int)x, (int)y)];
    return c == SN_FOOD ? 1 : c == SN_HEAD ? 3 : c == SN_BODY ? 2 : 0;
}
