/* rlhost embedding API: librlhost, the library the rlhost executable itself
 * runs on.  A C or C++ program (or Python, through the rlhost package) finds
 * and loads plugins, steps vectorized envs at C speed, and acts with a
 * trained policy:
 *
 *     char err[256];
 *     rlh_host *h = rlh_open(NULL, err, sizeof err);
 *     rlh_policy *p = rlh_policy_open(h, "runs/cartpole_ppo", 1, NULL, 0, err, sizeof err);
 *     rlh_vec *v = rlh_policy_vec(p, 1, 42, err, sizeof err);
 *     const rlh_buffers *b = rlh_vec_buffers(v);
 *     rlh_vec_reset(v);
 *     for (int t = 0; t < 500; t++) {
 *         rlh_policy_act(p, b->obs, b->episode_start, b->actions, 1, err, sizeof err);
 *         rlh_vec_step(v, err, sizeof err);
 *     }
 *
 * Conventions: a call that can fail returns RL_OK (0) or a negative RL_E*
 * code and writes one sentence into err (errlen bytes; err may be NULL);
 * an open that fails returns NULL.  A struct the caller fills starts with
 * struct_size (set it to sizeof the struct): the library reads no member
 * that struct_size does not cover, so a program built against an older
 * header keeps working when members are added at the end.  Objects are not thread-safe: use one
 * from one thread at a time (a vec steps its envs on its own worker pool).
 * Sentences are the ones `rlhost check` prints for the same mistakes. */
#ifndef RLHOST_HOST_H
#define RLHOST_HOST_H

#include <stddef.h>
#include <stdint.h>

#include <rlhost/plugin.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Bumped when a declaration here changes incompatibly.  2: rlh_buffers
   starts with struct_size and its actions (and rlh_policy_act's) are
   int32 or float32 by the action space; rlh_run takes rlh_run_options and
   returns a status. */
#define RLH_API_VERSION 2

typedef struct rlh_host rlh_host;
typedef struct rlh_vec rlh_vec;
typedef struct rlh_policy rlh_policy;

/* "0.1.0": the version of the library loaded (not of this header). */
const char *rlh_version(void);
int rlh_api_version(void);

/* Messages the library logs (warnings, a plugin's own log lines) go to
   stderr up to this level; RL_LOG_WARN by default, RL_LOG_ERROR - 1 for
   none. */
void rlh_set_log_level(int max_level);
/* Sends those messages to fn instead of stderr (any thread may call it;
   NULL: stderr again).  message is one line, "who: text", without the
   "rlhost: LEVEL: " prefix stderr gets. */
typedef void (*rlh_log_fn)(void *ctx, int level, const char *message);
void rlh_set_log_handler(rlh_log_fn fn, void *ctx);

/* ---- Plugins --------------------------------------------------------------
   plugin_path: ':'-separated directories searched first (may be NULL); then
   $RLHOST_PLUGIN_PATH, the build tree when this library runs from it, and
   the installed plugin directory, as the CLI searches.  A file that cannot
   be loaded is skipped with a warning. */
rlh_host *rlh_open(const char *plugin_path, char *err, size_t errlen);
void rlh_close(rlh_host *h);
/* The i-th plugin of a kind in search order (a shadowed one is left out),
   or NULL past the last. */
const char *rlh_plugin_name(const rlh_host *h, rl_plugin_kind kind, size_t i);

/* Plugin `name` of a kind described as one JSON object: name, kind,
   version, description, file, and its options and stages, each with name,
   type, default (config syntax), min and max where bounded, choices of an
   enum, auto, required, changes_results, training and help.  Writes it into buf (cap
   bytes, NUL-terminated, cut to fit) and returns its length (call again
   with a larger buf when it is >= cap), or RL_ENOENT with the sentence
   (the plugins there are, the nearest name) in err. */
int rlh_plugin_info(const rlh_host *h, rl_plugin_kind kind, const char *name, char *buf, size_t cap, char *err,
                    size_t errlen);

/* ---- Vectorized envs ------------------------------------------------------
   num_envs copies of env `name`; env i seeds its RNG from (seed, i), as in
   a run.  options: the settings of a config's env group in libconfig
   syntax, for example "size = 10; observation = \"grid\";" or
   "optimizations = { threads = 2; };" (NULL: the defaults), validated by
   the env's schema.

   Autoreset is same-step by default: when an episode ends, step writes its
   last observation into final_obs, starts the next episode and writes that
   episode's first observation into obs (so obs always holds the
   observation to act on); episode_start marks such rows.  Next-step
   autoreset (rlh_vec_set_autoreset) is Gymnasium's default instead: the
   ending step writes the last observation into obs, and that row's next
   step ignores its action and begins the new episode (reward 0, no flags,
   episode_start set).

   An env with several agents per env (rl_env_info.agents = K > 1, e.g.
   snake's `snakes`) has num_envs x K rows, env i's agents in rows
   [i K, (i+1) K): every buffer below and rlh_vec_num_envs count rows. */
typedef struct rlh_buffers {
    uint32_t struct_size; /* sizeof(rlh_buffers) */
    void *obs;            /* [num_envs][obs_size] of info->obs_dtype */
    void *actions;        /* read by step: int32 [num_envs] for discrete actions, float32
                             [num_envs][action_dim] for a box (each value inside it); a
                             hybrid action's row is its action_dim int32s, then its
                             action_box_dim float32s (ABI 1.11) */
    float *rewards;       /* [num_envs] */
    uint8_t *terminated;  /* [num_envs] */
    uint8_t *truncated;   /* [num_envs] */
    void *final_obs;      /* [num_envs][obs_size]: valid where an episode ended */
    float *scores;        /* [num_envs]: an ended episode's score */
    /* host-owned, read-only */
    uint8_t *episode_start;   /* [num_envs]: obs begins an episode */
    double *episode_return;   /* [num_envs]: return of the episode that ended */
    uint32_t *episode_length; /* [num_envs]: its length in env steps */
    /* An env that masks its actions (rl_env_info_mask_width > 0), else
       NULL; host-owned, read-only, [num_envs][mask width] bytes: the mask
       of obs (nonzero where an action is allowed; a step refuses an action
       the mask forbids), and of final_obs where an episode ended.
       MultiDiscrete actions are [num_envs][action_dim] int32s. */
    uint8_t *action_mask;
    uint8_t *final_mask;
    /* A turn-based env (rl_env_info.turn_based, ABI 1.7), else NULL;
       host-owned, read-only, [num_envs] bytes: nonzero for the rows that
       move next.  A step reads only their actions (the others' must still
       be allowed by their masks). */
    uint8_t *to_move;
} rlh_buffers;

rlh_vec *rlh_vec_open(rlh_host *h, const char *name, uint32_t num_envs, uint64_t seed, const char *options, char *err,
                      size_t errlen);
void rlh_vec_close(rlh_vec *v);
const rl_env_info *rlh_vec_info(const rlh_vec *v);
/* Rows: num_envs x agents per env. */
uint32_t rlh_vec_num_envs(const rlh_vec *v);
/* Worker threads stepping the envs (the config's optimizations.threads). */
uint32_t rlh_vec_threads(const rlh_vec *v);
/* Where reset and step read and write.  The same pointers for the vec's
   whole life (no copy per step) unless rlh_vec_set_buffers changes them. */
const rlh_buffers *rlh_vec_buffers(const rlh_vec *v);
/* Caller-owned storage for obs, actions, rewards, terminated, truncated,
   final_obs and scores (num_envs rows each, aligned for their type); a NULL
   member, or one past b->struct_size, keeps the current one; the host-owned
   members are ignored. */
int rlh_vec_set_buffers(rlh_vec *v, const rlh_buffers *b, char *err, size_t errlen);
/* RLH_AUTORESET_SAME_STEP (the default) or RLH_AUTORESET_NEXT_STEP, which
   needs one agent per env; takes effect from the next reset. */
enum { RLH_AUTORESET_SAME_STEP = 0, RLH_AUTORESET_NEXT_STEP = 1 };
int rlh_vec_set_autoreset(rlh_vec *v, int mode, char *err, size_t errlen);
/* Starts every env's episode and writes the first observations. */
void rlh_vec_reset(rlh_vec *v);
/* As rlh_vec_reset, after reseeding env i from (seed, i). */
int rlh_vec_reseed(rlh_vec *v, uint64_t seed, char *err, size_t errlen);
/* One step of every env with buffers->actions: each discrete action in
   [0, n_actions), each box value finite and inside the box (the caller's
   actions are refused, not clipped, with the row in err). */
int rlh_vec_step(rlh_vec *v, char *err, size_t errlen);

/* The env's values beside its rewards (rl_env_info_ext in plugin.h): their
   count, their names and types (RL_DTYPE_*) into names[0..cap) and
   dtypes[0..cap) (either NULL: the count only); 0 for an env without any. */
uint32_t rlh_vec_info_names(rlh_vec *v, const char **names, int *dtypes, uint32_t cap);
/* Every board's values, boards x count doubles into out: as each board's
   last step ended (now = 0: the episode that ended, before the next began)
   or as it is now (now = 1).  RL_ENOTSUP for an env without them. */
int rlh_vec_info_read(rlh_vec *v, int now, double *out, char *err, size_t errlen);

/* Row `row`'s env as text (its rl.env.render/1 frame, no colours) into
   buf (cap bytes, NUL-terminated, cut to fit): the frame's length, or a
   negative RL_E* with the sentence in err (RL_ENOTSUP: the env draws no
   text).  For envs of several agents every row of one env shows it. */
int rlh_vec_render_text(rlh_vec *v, uint32_t row, char *buf, size_t cap, char *err, size_t errlen);
/* Row `row`'s env as pixels (rl.env.raster/1): size[0] = height and
   size[1] = width are always written; with rgb non-NULL and cap >= height x
   width x 3, the RGB frame (row-major) goes to rgb.  RL_OK, or a negative
   RL_E* with the sentence in err (RL_ENOTSUP: the env draws no pixels). */
int rlh_vec_render_rgb(rlh_vec *v, uint32_t row, uint8_t *rgb, size_t cap, uint32_t size[2], char *err, size_t errlen);

/* ---- Your own env --------------------------------------------------------
   An env whose create, reset and step are the caller's functions over the
   host's buffers, so a program trains rlhost's algorithms on an in-process
   simulator without writing a plugin.  rlh_env_register adds it to h under
   `name`; configs name it as env.plugin, with num_envs and the host's env
   settings (optimizations.action_repeat) but no options of its own, and
   rlh_vec_open and rlh_policy_vec open it like any env.

   The functions have the meaning of rl_env_vtable's (plugin.h): create
   makes num_envs envs (env i seeded from (seed, i)) and fills info (the
   spaces; pointers in it stay valid until destroy); reset writes the
   first observations of envs [first, first + count); step reads their
   actions (io->actions, or io->box_actions for a box), writes observations,
   rewards and flags, and for an env whose episode ended writes its last
   observation into final_obs and starts the next episode (same-step).  A
   call that fails returns a negative RL_E* with the sentence in err: the
   step or run stops with it.  They are called on one thread at a time
   (the env is stepped without worker threads); a run's evaluation creates
   an instance of its own.

   A run on such an env checkpoints the learner; `--resume` (rlh_run's
   resume) is refused, since the env's state lives in the caller. */
typedef struct rlh_env_def {
    uint32_t struct_size;    /* sizeof(rlh_env_def) */
    const char *name;        /* [a-z0-9_]+, not taken by a plugin or an earlier registration */
    const char *description; /* one line (may be NULL) */
    void *ctx;               /* passed to every call */
    int (*create)(void *ctx, uint32_t num_envs, uint64_t seed, rl_env_info *info, void **inst, char *err,
                  size_t errlen);
    void (*destroy)(void *ctx, void *inst);
    int (*reset)(void *ctx, void *inst, const rl_env_io *io, uint32_t first, uint32_t count, char *err, size_t errlen);
    int (*step)(void *ctx, void *inst, const rl_env_io *io, uint32_t first, uint32_t count, char *err, size_t errlen);
} rlh_env_def;

/* The strings are copied; ctx and the functions must outlive h. */
int rlh_env_register(rlh_host *h, const rlh_env_def *def, char *err, size_t errlen);

/* ---- Training -----------------------------------------------------------
   Trains the config file at config_path as `rlhost run` does.  opts may be
   NULL (no overrides, no force).  Returns RL_OK (done), RL_EINTR (stopped
   by SIGINT or SIGTERM, its outputs written), RL_ECONFIG (refused: the
   sentence is in err) or another RL_E* (failed while training: logged to
   stderr and summarized in err, with the first error logged).  The run owns SIGINT and SIGTERM while it
   trains; the caller's handlers and log level come back after. */
typedef struct rlh_run_options {
    uint32_t struct_size;         /* sizeof(rlh_run_options) */
    const char *const *overrides; /* "KEY=VALUE" as --set takes them ("algo.lr=3e-4") */
    size_t n_overrides;
    int force;     /* replace a run that out_dir already holds */
    char *out_dir; /* may be NULL; receives the run directory */
    size_t out_len;
    /* continue the run in the directory config_path names (its config.cfg
       and checkpoint) as `rlhost run --resume DIR` does */
    int resume;
} rlh_run_options;

int rlh_run(rlh_host *h, const char *config_path, const rlh_run_options *opts, char *err, size_t errlen);

/* ---- Trained policies -----------------------------------------------------
   path: a run directory (its config.cfg and checkpoint.safetensors, or
   checkpoint.prev.safetensors when the newest is damaged) or a checkpoint
   file (the config comes from its metadata).  num_envs: the most rows one
   act call takes; each row keeps its own recurrent state.  overrides:
   "KEY=VALUE" changes to the config as `--set` takes them, for example
   "algo.deterministic_eval=false" to sample from a PPO policy instead of
   taking its most likely action. */
rlh_policy *rlh_policy_open(rlh_host *h, const char *path, uint32_t num_envs, const char *const *overrides,
                            size_t n_overrides, char *err, size_t errlen);
void rlh_policy_close(rlh_policy *p);
/* The observation and action spaces it was trained on. */
const rl_env_info *rlh_policy_info(const rlh_policy *p);
const char *rlh_policy_env_name(const rlh_policy *p);
const char *rlh_policy_algo_name(const rlh_policy *p);
/* The env step count of the checkpoint. */
uint64_t rlh_policy_step(const rlh_policy *p);
/* count <= num_envs rows of observations (the env's dtype and layout) to
   actions: int32 for discrete actions, action_dim float32 per row for a
   box (rlh_policy_info's action_kind), clipped into the box; a hybrid
   action's row is its components' int32s, then its floats, clipped.  episode_start (may be NULL: none) marks rows whose
   episode begins with this observation: their recurrent state is cleared.  A float observation holding a NaN or
   infinity is RL_EINVAL, naming the row and element. */
int rlh_policy_act(rlh_policy *p, const void *obs, const uint8_t *episode_start, void *actions, uint32_t count,
                   char *err, size_t errlen);
/* As rlh_policy_act, for a policy whose env masks its actions: masks is
   count rows of the mask width (rlh_buffers.action_mask), and every action
   chosen is one the row allows.  masks NULL: every action allowed. */
int rlh_policy_act_masked(rlh_policy *p, const void *obs, const uint8_t *episode_start, const uint8_t *masks,
                          void *actions, uint32_t count, char *err, size_t errlen);
/* The checkpoint the policy acts with, as the bytes of a safetensors file:
   the tensors and metadata read and validated at open (checkpoint.prev's
   when the newest was damaged), not the file as it is now.  *data lives
   until rlh_policy_close. */
int rlh_policy_checkpoint(rlh_policy *p, const void **data, size_t *len, char *err, size_t errlen);
/* The same checkpoint already parsed, one entry at a time, so a reader
   needs no parser of its own: tensor i (from 0) with its name, dtype (an
   rl_dtype), dimensions and bytes, or metadata entry i with its key and
   value.  Everything lives until rlh_policy_close.  RL_OK, or RL_ENOENT
   past the last (the caller's struct is then untouched). */
typedef struct rlh_tensor {
    uint32_t struct_size; /* sizeof(rlh_tensor) */
    const char *name;
    int dtype;
    uint32_t ndim;
    uint64_t shape[4];
    const void *data;
    size_t bytes;
} rlh_tensor;
int rlh_policy_tensor(const rlh_policy *p, size_t i, rlh_tensor *out);
int rlh_policy_meta(const rlh_policy *p, size_t i, const char **key, const char **value);
/* Moves searched for every row of v to move (a turn-based env's rows whose
   to_move is set, else every row) by a tree search through v's env, an env
   that declares itself searchable, the policy's probabilities and values
   guiding it (an algorithm with a value head): spec is `rlhost eval
   --search`'s, N simulations or "key=value,..." (simulations, c_puct,
   temperature, max_mib, threads).  actions gets one int32 per row, -1 for
   a row not to move; at most the policy's num_envs rows move at once.
   The trees' streams follow from the policy's seed and its count of
   searches, so a program's searches repeat exactly. */
int rlh_policy_search(rlh_policy *p, rlh_vec *v, const char *spec, int32_t *actions, char *err, size_t errlen);
/* The env of the policy's config (its options and stages), num_envs
   copies seeded from seed, opened as `rlhost eval` opens it: an option
   that only shapes training (RL_OPT_TRAINING: reward clipping, a lost life
   ending the episode) at its default. */
rlh_vec *rlh_policy_vec(rlh_policy *p, uint32_t num_envs, uint64_t seed, char *err, size_t errlen);

#ifdef __cplusplus
}
#endif

#endif
