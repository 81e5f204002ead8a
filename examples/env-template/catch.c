/* catch: the SDK's env template, a complete env in one file to copy.  bsuite's Catch: a ball falls
   one row a step from a random column of the top row; a paddle on the bottom row moves left, stays
   or moves right; the episode ends when the ball reaches the bottom row, with reward +1 if the paddle
   is under it and -1 if not.  Every part of an env plugin is here, in the order the host meets it:
   the option table, create (the observation description and the action space), reset and step over
   a range of envs writing straight into the host's buffers, a text frame for `rlhost play`, and the
   state that makes `rlhost run --resume` exact.  docs/plugins.md walks through it.

   Invariants (each env's): 0 <= ball_row < rows - 1 between steps (the ball is never left on the
   bottom row: the step that brings it there ends the episode and resets), 0 <= ball_col, paddle <
   cols, and the random stream is env i's own, seeded from (seed, i) alone, so results never depend on
   how the host splits envs over threads. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rlhost/rlcore.h>
#include <rlhost/text.h>

/* The options: the host checks a config against this table before create, then hands the values
   in this order (args->options[OPT_ROWS].i). */
enum { OPT_ROWS, OPT_COLS, OPT_N };
static const rl_option_def options[OPT_N] = {
    [OPT_ROWS] = RL_OPTION_INT("rows", "10", 3, 64, "rows of the board: the ball falls rows - 1 steps"),
    [OPT_COLS] = RL_OPTION_INT("columns", "5", 2, 64, "columns of the board"),
};

/* One env: all it is between two steps.  A plain struct, so rl_state_blob saves it whole. */
typedef struct catch_state {
    int32_t ball_row, ball_col, paddle;
} catch_state;

typedef struct catch_env {
    uint32_t n, rows, cols;
    catch_state *s;
    rl_rng *rng; /* one stream per env */
} catch_env;

/* ---- the rules: no host in them -------------------------------------------- */

static void catch_reset_one(const catch_env *c, catch_state *s, rl_rng *rng)
{
    s->ball_row = 0;
    s->ball_col = (int32_t)rl_rng_below(rng, c->cols);
    s->paddle = (int32_t)(c->cols / 2);
}

/* Applies action (0 left, 1 stay, 2 right); returns the reward, *done when the ball landed. */
static float catch_step_one(const catch_env *c, catch_state *s, int32_t action, int *done)
{
    s->paddle += action - 1;
    if (s->paddle < 0) s->paddle = 0;
    if (s->paddle >= (int32_t)c->cols) s->paddle = (int32_t)c->cols - 1;
    s->ball_row++;
    *done = s->ball_row == (int32_t)c->rows - 1;
    return *done ? (s->ball_col == s->paddle ? 1.0f : -1.0f) : 0.0f;
}

/* The observation: the board as rows x cols bytes, 1 where the ball or the paddle is. */
static void catch_observe(const catch_env *c, const catch_state *s, uint8_t *o)
{
    memset(o, 0, (size_t)c->rows * c->cols);
    o[(size_t)s->ball_row * c->cols + (size_t)s->ball_col] = 1;
    o[(size_t)(c->rows - 1) * c->cols + (size_t)s->paddle] = 1;
}

/* ---- the plugin: glue between the rules and the host's buffers -------------- */

static void catch_destroy(void *env)
{
    catch_env *c = env;
    if (!c) return;
    free(c->s);
    free(c->rng);
    free(c);
}

/* Main thread.  Allocates everything the env will ever need, and says what it produces. */
static int catch_create(const rl_env_args *args, void **out, rl_env_info *info, char *err, size_t errlen)
{
    catch_env *c = calloc(1, sizeof *c);
    if (c) {
        c->n = args->num_envs;
        c->rows = (uint32_t)args->options[OPT_ROWS].i, c->cols = (uint32_t)args->options[OPT_COLS].i;
        c->s = calloc(c->n, sizeof *c->s);
        c->rng = calloc(c->n, sizeof *c->rng);
    }
    if (!c || !c->s || !c->rng) {
        catch_destroy(c);
        RL_ERRF(err, errlen, "out of memory for %u envs", args->num_envs);
        return RL_ENOMEM;
    }
    for (uint32_t i = 0; i < c->n; i++) rl_rng_seed(&c->rng[i], args->seed, i);
    info->obs_dtype = RL_DTYPE_U8; /* compact: the host turns a batch into floats, times obs_scale */
    info->obs_ndim = 2;
    info->obs_shape[0] = c->rows;
    info->obs_shape[1] = c->cols;
    info->obs_size = c->rows * c->cols;
    info->obs_scale = 1.0f;
    info->n_actions = 3;     /* discrete: 0 .. 2 */
    info->score_name = NULL; /* the return is the score */
    *out = c;
    return RL_OK;
}

/* Any thread, envs [first, first + count) only: the host runs disjoint ranges at once. */
static void catch_reset(void *env, const rl_env_io *io, uint32_t first, uint32_t count)
{
    catch_env *c = env;
    size_t row = (size_t)c->rows * c->cols;
    for (uint32_t i = first; i < first + count; i++) {
        catch_reset_one(c, &c->s[i], &c->rng[i]);
        catch_observe(c, &c->s[i], (uint8_t *)io->obs + i * row);
    }
}

/* Any thread, envs [first, first + count): the host checked every action.  An env whose episode ends
   writes its last observation to final_obs and its score, then starts the next episode in obs. */
static void catch_step(void *env, const rl_env_io *io, uint32_t first, uint32_t count)
{
    catch_env *c = env;
    size_t row = (size_t)c->rows * c->cols;
    for (uint32_t i = first; i < first + count; i++) {
        int done;
        io->rewards[i] = catch_step_one(c, &c->s[i], io->actions[i], &done);
        io->terminated[i] = (uint8_t)done;
        io->truncated[i] = 0; /* no time limit: every episode ends by the rules */
        if (done) {
            catch_observe(c, &c->s[i], (uint8_t *)io->final_obs + i * row);
            io->scores[i] = io->rewards[i];
            catch_reset_one(c, &c->s[i], &c->rng[i]);
        }
        catch_observe(c, &c->s[i], (uint8_t *)io->obs + i * row);
    }
}

/* rl.env.render/1, for `rlhost play`: the board as text, o the ball, = the paddle. */
static int catch_render(void *env, uint32_t index, int color, char *buf, size_t cap)
{
    catch_env *c = env;
    if (index >= c->n) return RL_EINVAL;
    const catch_state *s = &c->s[index];
    rl_text t = rl_text_begin(buf, cap);
    for (int32_t r = 0; r < (int32_t)c->rows; r++) {
        for (int32_t k = 0; k < (int32_t)c->cols; k++) {
            int ball = r == s->ball_row && k == s->ball_col, paddle = r == (int32_t)c->rows - 1 && k == s->paddle;
            rl_text_put(&t, "%s", ball ? (color ? "\x1b[1mo\x1b[0m" : "o") : paddle ? "=" : ".");
        }
        rl_text_put(&t, "\n");
    }
    return rl_text_end(&t);
}

static const rl_env_render_ext render_ext = {.struct_size = sizeof render_ext, .render = catch_render};

/* rl.env.state/1: every env's state and random stream, so a resumed run continues exactly.  A
   checkpoint is untrusted: each loaded value is checked before a step reads it. */
static int catch_state_io(catch_env *c, const rl_state_io *io, const char *prefix, int load, char *err, size_t errlen)
{
    int rc = rl_state_blob(io, load, prefix, "catch/state", c->s, c->n * sizeof *c->s, err, errlen);
    if (!rc) rc = rl_state_blob(io, load, prefix, "catch/rng", c->rng, c->n * sizeof *c->rng, err, errlen);
    char name[96];
    snprintf(name, sizeof name, "%scatch/state", prefix);
    for (uint32_t i = 0; !rc && load && i < c->n; i++) {
        const catch_state *s = &c->s[i];
        if (!(rc = rl_state_check_i(name, s->ball_row, 0, c->rows - 2, err, errlen)) &&
            !(rc = rl_state_check_i(name, s->ball_col, 0, c->cols - 1, err, errlen)))
            rc = rl_state_check_i(name, s->paddle, 0, c->cols - 1, err, errlen);
        if (!rc) rc = rl_state_check_rng(name, &c->rng[i], err, errlen);
    }
    return rc;
}

RL_ENV_STATE_EXT(state_ext, catch_state_io);

static const void *catch_get_extension(void *env, const char *id)
{
    (void)env;
    if (strcmp(id, RL_EXT_ENV_RENDER) == 0) return &render_ext;
    if (strcmp(id, RL_EXT_ENV_STATE) == 0) return &state_ext;
    return NULL;
}

static const rl_env_vtable vtable = {
    .struct_size = sizeof vtable,
    .create = catch_create,
    .destroy = catch_destroy,
    .reset = catch_reset,
    .step = catch_step,
    .get_extension = catch_get_extension,
};

static const rl_plugin_desc desc = {
    .struct_size = sizeof desc,
    .kind = RL_KIND_ENV,
    .name = "catch",
    .version = "1.0.0",
    .description = "bsuite's Catch: move a paddle under a falling ball (the SDK's env template)",
    .options = options,
    .n_options = OPT_N,
    .vtable = &vtable,
};

RL_PLUGIN_DEFINE_SINGLE(desc);
