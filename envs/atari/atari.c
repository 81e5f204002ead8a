/* Atari env plugin: the Arcade Learning Environment (ale_shim.h) with
   Gymnasium's v5 semantics and its standard preprocessing, read from
   ale-py's AtariEnv, Gymnasium's AtariPreprocessing and
   FrameStackObservation:
   - ALE itself: sticky actions (repeat_action_probability, 0.25), the
     minimal or full action set, the 108,000-frame limit (truncation);
   - a reset: reset_game, then 1..noop_max no-op frames drawn from the
     env's NumPy-compatible generator (np_random.h), then the screen;
   - a step: the action for frame_skip frames, rewards summed, stopping at
     the game's end; the last two frames' grayscale screens max-pooled in
     place exactly as AtariPreprocessing does (also when a game ends early);
   - 84 x 84 with OpenCV's INTER_AREA arithmetic (area.h), then the last
     frame_stack frames, oldest first, the stack filled with the first
     frame at a reset.
   Env i seeded with s behaves as Gymnasium's env after reset(seed=s + i)
   (tests/atari_gym.py checks it byte for byte).
   Training options beyond Gymnasium's, as EnvPool and the baselines' wrappers
   define them: episodic_life (a lost life ends the learner's episode, the
   game goes on: no-ops, FIRE, and the stack kept), fire_reset and
   reward_clip; and Gymnasium's terminal_on_life_loss (a lost life ends the
   episode at that frame, and the next is a new game).  The reported score
   is always the raw game score of whole games: an episode ended by a lost
   life with episodic_life reports NaN (no game ended).  Beside the rewards
   (rl.env.info/1, Python's infos): lives, the raw reward, the real game
   over, the episode's frame and ALE's frame, under Gymnasium's and
   EnvPool's names. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rlhost/plugin.h>
#include <rlhost/rlcore.h>

#include "atari.h"

static const rl_option_def options[ATARI_N_OPTS] = {
    [OPT_GAME] = RL_OPTION_STRING("game", "\"pong\"",
                                  "the game, as ale-py names its ROMs (\"pong\", "
                                  "\"breakout\", \"space_invaders\"); its ROM is env.rom or <game>.bin where "
                                  "ale-py's are installed, or in ALE_ROM_DIR"),
    [OPT_ROM] = RL_OPTION_STRING("rom", "\"\"", "a ROM file to play instead of finding the game's (\"\": find it)"),
    [OPT_MODE] = RL_OPTION_INT_F("mode", "\"auto\"", 0, 255, RL_OPT_AUTO, "the game mode (auto: the game's default)"),
    [OPT_DIFFICULTY] = RL_OPTION_INT_F("difficulty", "\"auto\"", 0, 255, RL_OPT_AUTO,
                                       "the game difficulty (auto: the game's default)"),
    [OPT_STICKY] = RL_OPTION_FLOAT("repeat_action_probability", "0.25", 0, 1,
                                   "sticky actions: each frame repeats the previous action with this probability"),
    [OPT_FULL_ACTIONS] =
        RL_OPTION_BOOL("full_action_space", "false", "all 18 actions instead of the game's minimal set"),
    [OPT_NOOP_MAX] = RL_OPTION_INT("noop_max", "30", 0, 1000, "a reset plays 1 to noop_max no-op frames (0: none)"),
    [OPT_FRAME_SKIP] =
        RL_OPTION_INT("frame_skip", "4", 1, 100, "frames per step, rewards summed, the last two screens max-pooled"),
    [OPT_SCREEN_SIZE] = RL_OPTION_INT("screen_size", "84", 1, 160, "the observation's side in pixels"),
    [OPT_GRAYSCALE] =
        RL_OPTION_BOOL("grayscale", "true", "ALE's grayscale screen; false: RGB (frame_stack x size x size x 3)"),
    [OPT_FRAME_STACK] = RL_OPTION_INT("frame_stack", "4", 1, 64, "frames per observation, oldest first"),
    [OPT_MAX_FRAMES] =
        RL_OPTION_INT("max_frames", "108000", 0, 100000000, "truncate a game at this many frames (0: never)"),
    [OPT_EPISODIC_LIFE] = RL_OPTION_BOOL_F("episodic_life", "false", RL_OPT_TRAINING,
                                           "training: a lost life ends the episode while the game goes on"),
    [OPT_FIRE_RESET] =
        RL_OPTION_BOOL("fire_reset", "false",
                       "press FIRE for a frame after each reset's no-ops and after a lost life (games that have it)"),
    [OPT_REWARD_CLIP] =
        RL_OPTION_BOOL_F("reward_clip", "false", RL_OPT_TRAINING, "training: each step's reward becomes its sign"),
    [OPT_TERMINAL_ON_LIFE_LOSS] = RL_OPTION_BOOL_F(
        "terminal_on_life_loss", "false", RL_OPT_TRAINING,
        "training: Gymnasium's AtariPreprocessing option: a lost life ends the episode mid-step, and the next "
        "episode is a new game (episodic_life is EnvPool's: the game goes on)"),
};

static float sign(float r)
{
    return r > 0 ? 1.0f : r < 0 ? -1.0f : 0.0f;
}

/* ---- one game ------------------------------------------------------------ */

static void grab(const atari *e, atari_game *g, uint8_t *raw)
{
    if (e->gray)
        ale_shim_gray(g->ale, raw);
    else
        ale_shim_rgb(g->ale, raw);
}

/* AtariPreprocessing._get_obs: raw0 = max(raw0, raw1) in place when frames
   are skipped, resized, pushed onto the stack (all of it when `fill`). */
static void push(atari *e, atari_game *g, int fill)
{
    if (e->frame_skip > 1) { /* restrict: the two screens are separate buffers, so this vectorizes */
        uint8_t *restrict a = g->raw0;
        const uint8_t *restrict b = g->raw1;
        for (size_t k = 0, n = e->raw_bytes; k < n; k++) a[k] = a[k] > b[k] ? a[k] : b[k];
    }
    g->head = (g->head + 1) % e->stack;
    area_resize(&e->plan, g->scratch, g->raw0, g->frames + (size_t)g->head * e->frame_bytes);
    if (fill)
        for (uint32_t k = 0; k < e->stack; k++)
            if (k != g->head)
                memcpy(g->frames + (size_t)k * e->frame_bytes, g->frames + (size_t)g->head * e->frame_bytes,
                       e->frame_bytes);
}

static void write_obs(const atari *e, const atari_game *g, uint8_t *out)
{
    for (uint32_t k = 0; k < e->stack; k++) {
        uint32_t src = (g->head + 1 + k) % e->stack;
        memcpy(out + (size_t)k * e->frame_bytes, g->frames + (size_t)src * e->frame_bytes, e->frame_bytes);
    }
}

/* A game that ended during a reset's frames starts again, as Gymnasium's
   reset does: AtariPreprocessing resets the env with the seed its own
   reset was given, so during the first (seeded) reset ALE is seeded and
   the ROM loaded again, and the no-op generator seeded again, as ale-py's
   reset(seed=...) does. */
static void restart_if_over(atari_game *g, int seeded)
{
    if (!ale_shim_game_over(g->ale) && !ale_shim_truncated(g->ale)) return;
    char err[256];
    if (seeded && ale_shim_reseed(g->ale, (int32_t)g->seed_words[1], err, sizeof err) == 0)
        np_pcg64_seed(&g->rng, g->seed_words[0]);
    else
        ale_shim_reset(g->ale); /* a ROM that loaded once loads again: not reached */
    g->score = 0;
}

/* AtariPreprocessing.reset: a new game (`whole`), or with episodic_life a
   new life in the game that goes on, its frame stack kept: the no-ops (and
   FIRE), then the screen as the newest frame. */
static void begin(atari *e, atari_game *g, int whole)
{
    int seeded = whole && g->first;
    g->first = 0;
    if (whole) {
        ale_shim_reset(g->ale);
        g->score = 0;
    }
    int noops = e->noop_max > 0 ? (int)np_integers(&g->rng, 1, e->noop_max + 1) : 0;
    for (int k = 0; k < noops; k++) {
        ale_shim_act(g->ale, e->ids[0]);
        restart_if_over(g, seeded);
    }
    if (e->fire >= 0) {
        g->score += ale_shim_act(g->ale, e->fire);
        restart_if_over(g, 0);
    }
    g->lives = ale_shim_lives(g->ale);
    grab(e, g, g->raw0);
    memset(g->raw1, 0, e->raw_bytes);
    push(e, g, whole);
}

/* How a step ended. */
enum { GOES_ON, GAME_OVER, TRUNCATED, LIFE_LOST };

/* One step of frame_skip frames: *reward the raw sum, and how it ended
   (LIFE_LOST only with episodic_life).  With fire_reset and without
   episodic_life (an evaluation) a lost life is followed by FIRE for a
   frame, as a new life begins with it in training: a policy that never
   had to press FIRE would otherwise stall the game. */
static int frames(atari *e, atari_game *g, int id, float *reward)
{
    int fs = (int)e->frame_skip, term = 0, trunc = 0;
    double r = 0;
    for (int t = 0; t < fs; t++) {
        r += ale_shim_act(g->ale, id);
        term = ale_shim_game_over(g->ale);
        trunc = ale_shim_truncated(g->ale);
        if (e->life_ends) { /* AtariPreprocessing: checked every frame */
            int now = ale_shim_lives(g->ale);
            term = term || now < g->lives;
            g->lives = now;
        }
        if (term || trunc) break;
        if (t == fs - 2)
            grab(e, g, g->raw1);
        else if (t == fs - 1)
            grab(e, g, g->raw0);
    }
    push(e, g, 0);
    *reward = (float)r;
    g->score += r;
    int lives = ale_shim_lives(g->ale), lost = !term && !trunc && lives > 0 && lives < g->lives;
    g->lives = lives;
    if (lost && !e->episodic && e->fire >= 0) {
        double f = ale_shim_act(g->ale, e->fire);
        *reward += (float)f;
        g->score += f;
        term = ale_shim_game_over(g->ale);
        trunc = ale_shim_truncated(g->ale);
        lost = 0;
    }
    return term ? GAME_OVER : trunc ? TRUNCATED : lost && e->episodic ? LIFE_LOST : GOES_ON;
}

/* ---- the plugin ---------------------------------------------------------- */

/* rl.env.info/1's values of a game as it is, after a step of raw reward r
   (info_names below). */
static void info_values(const atari_game *g, double r, double out[5])
{
    out[0] = ale_shim_lives(g->ale);
    out[1] = r;
    out[2] = ale_shim_game_over(g->ale);
    out[3] = ale_shim_episode_frame(g->ale);
    out[4] = ale_shim_frame(g->ale);
}

static void atari_reset(void *env, const rl_env_io *io, uint32_t first, uint32_t count)
{
    atari *e = env;
    for (uint32_t i = first; i < first + count; i++) {
        atari_game *g = &e->games[i];
        begin(e, g, 1);
        write_obs(e, g, (uint8_t *)io->obs + (size_t)i * e->obs_bytes);
        info_values(g, 0, g->ended); /* the info of a reset: the new game's */
    }
}

static void atari_step(void *env, const rl_env_io *io, uint32_t first, uint32_t count)
{
    atari *e = env;
    for (uint32_t i = first; i < first + count; i++) {
        atari_game *g = &e->games[i];
        float r;
        int end = frames(e, g, e->ids[io->actions[i]], &r);
        info_values(g, r, g->ended);
        io->rewards[i] = e->clip ? sign(r) : r;
        io->terminated[i] = (uint8_t)(end == GAME_OVER || end == LIFE_LOST);
        io->truncated[i] = (uint8_t)(end == TRUNCATED);
        uint8_t *obs = (uint8_t *)io->obs + (size_t)i * e->obs_bytes;
        if (end != GOES_ON) {
            write_obs(e, g, (uint8_t *)io->final_obs + (size_t)i * e->obs_bytes);
            io->scores[i] = end == LIFE_LOST ? NAN : (float)g->score; /* no game ended */
            begin(e, g, end != LIFE_LOST);
        }
        write_obs(e, g, obs);
    }
}

static const char *const info_names[5] = {"lives", "reward", "terminated", "episode_frame_number", "frame_number"};
static const rl_dtype info_dtypes[5] = {RL_DTYPE_I32, RL_DTYPE_F64, RL_DTYPE_U8, RL_DTYPE_I32, RL_DTYPE_I32};

static void atari_info(void *env, uint32_t i, int now, double *out)
{
    const atari *e = env;
    const atari_game *g = &e->games[i];
    if (now)
        info_values(g, 0, out);
    else
        memcpy(out, g->ended, sizeof g->ended);
}

const rl_env_info_ext atari_info_ext = {sizeof atari_info_ext, 5, info_names, info_dtypes, atari_info};

static const void *atari_get_extension(void *env, const char *id)
{
    (void)env;
    if (strcmp(id, RL_EXT_ENV_INFO) == 0) return &atari_info_ext;
    if (strcmp(id, RL_EXT_ENV_RENDER) == 0) return &atari_render_ext;
    if (strcmp(id, RL_EXT_ENV_RASTER) == 0) return &atari_raster_ext;
    if (strcmp(id, RL_EXT_ENV_STATE) == 0) return &atari_state_ext;
    return NULL;
}

static const rl_env_vtable vtable = {
    .struct_size = sizeof vtable,
    .create = atari_create,
    .destroy = atari_destroy,
    .reset = atari_reset,
    .step = atari_step,
    .get_extension = atari_get_extension,
};

static const rl_plugin_desc desc = {
    .struct_size = sizeof desc,
    .kind = RL_KIND_ENV,
    .name = "atari",
    .version = "1.0.0",
    .description = "Atari 2600 games on the Arcade Learning Environment with Gymnasium's v5 semantics and "
                   "AtariPreprocessing (84x84 grayscale, 4 frames stacked)",
    .options = options,
    .n_options = ATARI_N_OPTS,
    .vtable = &vtable,
};

RL_PLUGIN_DEFINE_SINGLE(desc);
