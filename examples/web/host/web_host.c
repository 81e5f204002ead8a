/* A host for one env plugin in the browser: the plugin's own C (its
   rlhost_plugin_entry, create, reset, step and raster extension) and the
   policy `rlhost export --format c --name policy` wrote, compiled together
   to WebAssembly (build.sh); web.js draws the frames and drives the loop.

   The env is opened as `rlhost eval` opens it: with the run's options
   (web_options.h, written by build.sh from the run's config.cfg; training
   wrappers at their defaults), WEB_ENVS envs seeded from the run's
   evaluation seed, each stepped alone.  Episode k plays env k mod WEB_ENVS,
   whose episodes follow one another as the plugin auto-resets it, which
   is how `rlhost eval` numbers its episodes: env i plays episodes i,
   i + n, ... with n = min(episodes, WEB_ENVS).  So the page's episode k is
   eval's episode k, for any number of episodes.

   A game of two seats taking turns is built with WEB_VERSUS (web_options.h)
   into the game page: web_versus.c plays env 0 against a person, through
   the env this file opened (web_site_of). */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <rlhost/plugin.h>

#include "policy.h"
#include "web_options.h" /* first: it says whether the build is a game page */
#include "web_host.h"

extern const rl_plugin_entry rlhost_plugin_entry;

static const rl_env_vtable *vt;
static const rl_env_raster_ext *raster;
static const rl_env_render_ext *render;
static void *env;
static rl_env_info info;
static rl_env_io io;
static policy_state pst;
static size_t row_bytes;
static uint32_t current, started[WEB_ENVS], episode_length;
static double episode_return;
static float last_score;
static char error[256];
static const rl_plugin_desc *desc;
static rl_value opts[64], stages[16];

/* The buffers of WEB_ENVS envs of WEB_AGENTS agents; the observation rows
   aligned for floats. */
static float obs_buf[(WEB_ENVS * WEB_AGENTS * POLICY_OBS_SIZE * 4 + 64) / 4],
    final_buf[(WEB_ENVS * WEB_AGENTS * POLICY_OBS_SIZE * 4 + 64) / 4];
static int32_t actions[WEB_ENVS * WEB_AGENTS * POLICY_ACTION_DIM];
static float box[WEB_ENVS * POLICY_ACTION_DIM];
static float rewards[WEB_ENVS * WEB_AGENTS];
static float scores[WEB_ENVS * WEB_AGENTS];
static uint8_t terminated[WEB_ENVS * WEB_AGENTS], truncated[WEB_ENVS * WEB_AGENTS], to_move[WEB_ENVS * WEB_AGENTS];
static uint8_t masks[WEB_ENVS * WEB_AGENTS * (POLICY_MASK_SIZE + 1)];
static uint8_t final_masks[WEB_ENVS * WEB_AGENTS * (POLICY_MASK_SIZE + 1)];
static uint8_t frame[1 << 20];
static char text_frame[1 << 14];

static void host_log(rl_log_level level, const char *who, const char *fmt, ...)
{
    (void)level, (void)who, (void)fmt;
}
static uint32_t host_cpus(void)
{
    return 1;
}
static const char *host_strerror(int status)
{
    (void)status;
    return "error";
}
static int host_interrupted(void)
{
    return 0;
}
static const rl_host_api host = {sizeof host,     {RL_ABI_MAJOR, RL_ABI_MINOR}, host_log, host_cpus, host_strerror,
                                 host_interrupted};

web_site web_site_of(void)
{
    return (web_site){desc, opts, stages, &host, vt, env, &info, &io, actions, row_bytes};
}

void web_say(const char *a, const char *b)
{
    size_t n = 0;
    for (; *a && n + 1 < sizeof error; a++) error[n++] = *a;
    for (; b && *b && n + 1 < sizeof error; b++) error[n++] = *b;
    error[n] = 0;
}

/* One option's value from the run's config (web_options.h), as the host's
   config loader resolves it, or the option's default for a training wrapper. */
static int option_value(const rl_option_def *d, rl_value *v)
{
    const web_option *o = NULL;
    memset(v, 0, sizeof *v);
    v->struct_size = sizeof *v;
    v->type = d->type;
    for (size_t k = 0; k < WEB_N_OPTIONS; k++)
        if (!strcmp(web_options[k].name, d->name)) o = &web_options[k];
    if (d->flags & RL_OPT_TRAINING) { /* evaluation opens it at its default: a bool or an int */
        const char *t = d->default_text;
        int neg = t && *t == '-';
        v->i = t && !strcmp(t, "true");
        for (t += neg; t && *t >= '0' && *t <= '9'; t++) v->i = 10 * v->i + (*t - '0');
        if (neg) v->i = -v->i;
        v->f = (double)v->i;
        if (d->type == RL_OPT_BOOL || d->type == RL_OPT_INT) return 0;
        web_say("the page cannot set the training option ", d->name);
        return -1;
    }
    if (!o) {
        web_say("no value for the env option ", d->name);
        return -1;
    }
    v->is_auto = o->is_auto;
    v->i = o->i;
    v->f = o->f;
    v->s = o->s;
    v->n = o->n;
    v->ilist = o->ilist;
    v->slist = o->slist;
    if (d->type == RL_OPT_ENUM && !o->is_auto) {
        int64_t k = 0;
        for (; d->choices && d->choices[k] && strcmp(d->choices[k], o->s); k++) continue;
        if (!d->choices || !d->choices[k]) {
            web_say("a value outside the choices of ", d->name);
            return -1;
        }
        v->i = k;
    }
    return 0;
}

/* Opens the env; 0, or -1 with web_error() saying why. */
int web_open(uint32_t seed_hi, uint32_t seed_lo)
{
    char err[256] = "";
    desc = NULL;
    if (rlhost_plugin_entry.init && rlhost_plugin_entry.init(&host, err, sizeof err) != RL_OK) {
        web_say("the plugin's init failed: ", err);
        return -1;
    }
    for (uint32_t k = 0; k < rlhost_plugin_entry.count(); k++) {
        const rl_plugin_desc *d = rlhost_plugin_entry.get(k);
        if (d->kind == RL_KIND_ENV && !strcmp(d->name, WEB_ENV_NAME)) desc = d;
    }
    if (!desc || desc->n_options > 64 || desc->n_stages > 16) {
        web_say("the build holds no env plugin named ", WEB_ENV_NAME);
        return -1;
    }
    for (uint32_t k = 0; k < desc->n_options; k++)
        if (option_value(&desc->options[k], &opts[k]) != 0) return -1;
    for (uint32_t k = 0; k < desc->n_stages; k++)
        if (option_value(&desc->stages[k], &stages[k]) != 0) return -1;
    rl_env_args args = {sizeof args, WEB_ENVS, (uint64_t)seed_hi << 32 | seed_lo, opts, stages, &host};
    vt = desc->vtable;
    memset(&info, 0, sizeof info);
    info.struct_size = sizeof info;
    if (vt->create(&args, &env, &info, err, sizeof err) != RL_OK) {
        web_say("the env refused its options: ", err);
        return -1;
    }
#ifdef WEB_VERSUS
    if (info.agents != 2 || rl_env_info_seats(&info) != 2 || !rl_env_info_turn_based(&info)) {
        web_say("the game page plays envs of two seats taking turns", NULL);
        return -1;
    }
#else
    if (info.agents > 1 || rl_env_info_seats(&info) > 1) {
        web_say("the page plays envs of one agent and no seats", NULL);
        return -1;
    }
#endif
    row_bytes = (size_t)info.obs_size * rl_dtype_size(info.obs_dtype);
    if (row_bytes > POLICY_OBS_SIZE * 4 || (info.action_mask && rl_env_info_mask_width(&info) != POLICY_MASK_SIZE)) {
        web_say("the env's spaces are not the policy's", NULL);
        return -1;
    }
    raster = vt->get_extension ? vt->get_extension(env, RL_EXT_ENV_RASTER) : NULL;
    render = vt->get_extension ? vt->get_extension(env, RL_EXT_ENV_RENDER) : NULL;
    if (!raster && !render) {
        web_say("the env draws no frames (neither a raster nor a text render extension)", NULL);
        return -1;
    }
    io.struct_size = sizeof io;
    io.obs = obs_buf;
    io.final_obs = final_buf;
    io.rewards = rewards;
    io.terminated = terminated;
    io.truncated = truncated;
    io.scores = scores;
    io.to_move = rl_env_info_turn_based(&info) ? to_move : NULL;
    if (info.action_kind == RL_SPACE_BOX)
        io.box_actions = box;
    else
        io.actions = actions;
    if (info.action_mask) {
        io.action_mask = masks;
        io.final_mask = final_masks;
    }
    return 0;
}

const char *web_error(void)
{
    return error;
}

/* Starts episode k: env k mod WEB_ENVS, reset the first time it plays. */
void web_begin(uint32_t k)
{
    current = k % WEB_ENVS;
    if (!started[current]) {
        vt->reset(env, &io, current, 1);
        started[current] = 1;
    }
    policy_reset(&pst);
    episode_return = 0;
    episode_length = 0;
}

/* The policy's action for the current observation (the page times it);
   the action goes into the env's action buffer.  0, or the policy's
   negative code. */
int web_act(void)
{
    const unsigned char *row = (const unsigned char *)obs_buf + current * row_bytes;
    const uint8_t *mask = info.action_mask ? masks + (size_t)current * POLICY_MASK_SIZE : NULL;
#if POLICY_ACTION_BOX
    return policy_act(&pst, (const void *)row, mask, box + (size_t)current * POLICY_ACTION_DIM);
#else
    return policy_act(&pst, (const void *)row, mask, (int *)actions + (size_t)current * POLICY_ACTION_DIM);
#endif
}

/* One step of the current env with the action web_act chose: 0 while the
   episode goes on, 1 when it ended (terminated), 2 when it was cut off. */
int web_step(void)
{
    vt->step(env, &io, current, 1);
    episode_return += rewards[current];
    episode_length++;
    if (!terminated[current] && !truncated[current]) return 0;
    last_score = info.score_name ? scores[current] : (float)episode_return;
    return terminated[current] ? 1 : 2;
}

double web_return(void)
{
    return episode_return;
}
uint32_t web_length(void)
{
    return episode_length;
}
/* The finished episode's score: the env's own (rl_env_info.score_name) or its return. */
float web_score(void)
{
    return last_score;
}
const char *web_score_name(void)
{
    return info.score_name ? info.score_name : "return";
}
const char *web_env_name(void)
{
    return WEB_ENV_NAME;
}

/* The current env's frame: web_frame_width x web_frame_height RGB bytes
   (0 x 0 and NULL for an env that draws text only: web_text). */
uint32_t web_frame_height(void)
{
    uint32_t h = 0, w = 0;
    if (raster) raster->size(env, &h, &w);
    return h;
}
uint32_t web_frame_width(void)
{
    uint32_t h = 0, w = 0;
    if (raster) raster->size(env, &h, &w);
    return w;
}
/* The current env's text frame (its render extension, without colours),
   or NULL. */
const char *web_text(void)
{
    if (!render || render->render(env, current, 0, text_frame, sizeof text_frame) < 0) return NULL;
    return text_frame;
}
const uint8_t *web_frame(void)
{
    uint32_t h = 0, w = 0;
    if (!raster) return NULL;
    raster->size(env, &h, &w);
    if ((size_t)h * w * 3 > sizeof frame || raster->draw(env, current, frame) != RL_OK) return NULL;
    return frame;
}
