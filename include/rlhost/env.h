/*
 * <rlhost/env.h> — the environment half of the plugin ABI: spaces, what an
 * env instance declares (rl_env_info), its I/O buffers, its vtable and its
 * optional capabilities.  Part of <rlhost/plugin.h>, whose rules (the version
 * window, struct_size, RL_HAS_FIELD) hold here; including either header
 * brings both.
 */
#include <rlhost/plugin.h>

#ifndef RLHOST_ENV_H
#define RLHOST_ENV_H

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Spaces ----------------------------------------------------------------*/

/* ABI 1.6: one named part of a composite observation (a Gymnasium Dict
   or Tuple space).  The parts lie in one row of bytes, so the host still
   moves one row per env through every buffer: the env's rl_env_info then
   says obs_dtype U8, obs_ndim 1, obs_size the row's bytes and obs_scale 1,
   and each part says where it lies and what it holds.  An algorithm reads
   the parts (RL_DESC_OBS_PARTS); <rlhost/parts.h> turns a row into the
   network input. */
typedef struct rl_obs_part {
    uint32_t struct_size;
    const char *name;  /* [A-Za-z0-9_]+, unique in the observation */
    uint32_t kind;     /* RL_PART_BOX or RL_PART_DISCRETE */
    rl_dtype dtype;    /* BOX: U8 or F32; DISCRETE: U8 or I32 */
    uint32_t ndim;     /* 1 to 4 */
    uint32_t shape[4]; /* row-major */
    uint32_t offset;   /* bytes from the row's start, a multiple of the
                          dtype's size; parts do not overlap */
    float scale;       /* BOX: multiply an element by it for the network
                          (1/255 for pixels); DISCRETE: unused */
    /* DISCRETE: categories of each element (product of shape of them),
       each element an index in [0, nvec[k]), one-hot encoded for the
       network as SB3 does (Discrete and MultiDiscrete spaces). */
    const uint32_t *nvec;
} rl_obs_part;

/* rl_obs_part.kind */
#define RL_PART_BOX 0u
#define RL_PART_DISCRETE 1u
#define RL_OBS_MAX_PARTS 32

/* Element e of a DISCRETE part of row (the row's bytes): its category
   index, as stored (u8 or i32). */
static inline int64_t rl_obs_part_category(const rl_obs_part *p, const void *row, uint32_t e)
{
    const unsigned char *at = (const unsigned char *)row + p->offset;
    if (p->dtype == RL_DTYPE_U8) return at[e];
    int32_t x;
    memcpy(&x, at + (size_t)e * 4, 4);
    return x;
}

/* Elements of a part: the product of its shape. */
static inline uint32_t rl_obs_part_elems(const rl_obs_part *p)
{
    uint32_t n = 1;
    for (uint32_t d = 0; d < p->ndim && d < 4; d++) n *= p->shape[d];
    return n;
}

/* What an env instance produces.  Filled by env create. */
/* ABI 1.13: one symmetry of a game (rl_env_info.symmetries). */
typedef struct rl_symmetry {
    const uint32_t *obs_from;  /* [bytes of an observation row] */
    const uint32_t *action_to; /* [n_actions] */
} rl_symmetry;
#define RL_MAX_SYMMETRIES 64u

typedef struct rl_env_info {
    uint32_t struct_size;
    rl_dtype obs_dtype;
    uint32_t obs_ndim;
    uint32_t obs_shape[4];  /* per env, row-major */
    uint32_t obs_size;      /* elements per env = product of obs_shape */
    float obs_scale;        /* multiply a stored element by this to get the
                               network input (1/255-style for U8, 1 for F32) */
    uint32_t n_actions;     /* discrete actions 0 .. n_actions-1 */
    const char *score_name; /* name of the env's episode score ("food"), or
                               NULL when the return is the score */
    /* ABI 1.1: agents per env (0 or 1: one).  With K agents every buffer
       of rl_env_io holds num_envs x K rows, env i's agents in rows
       [i K, (i+1) K), each row with its own observation, action, reward,
       flags and score; reset and step ranges still count envs.  An agent
       whose episode ends writes its final_obs and score and starts a new
       episode in the same env (the others play on), so every row is a
       stream of episodes as a one-agent env's is, and the host hands the
       algorithm num_envs x K rows (rl_algo_args.num_envs; a run's steps
       then count agent steps).  Hosts older than 1.1 refuse a 1.1 plugin,
       so an env may rely on it being read. */
    uint32_t agents;
    /* ABI 1.2: the action space.  RL_SPACE_DISCRETE (0, what a zeroed or
       older struct says): actions 0 .. n_actions-1.  RL_SPACE_BOX: each
       action is action_dim float32s, dimension k in
       [action_low[k], action_high[k]] (finite, low <= high); n_actions is
       unused.  The bounds point into the env's memory and stay valid until
       destroy; the host copies them at create. */
    uint32_t action_kind;
    uint32_t action_dim;
    const float *action_low, *action_high;
    /* ABI 1.2, optional: each observation element's bounds, obs_size of
       each in the network input's units (after obs_scale), or NULL when
       unbounded. */
    const float *obs_low, *obs_high;
    /* ABI 1.2, optional: the step at which every episode is truncated (a
       time limit, Gymnasium's max_episode_steps), or 0 when episodes have
       no fixed limit. */
    uint32_t max_episode_steps;
    /* ABI 1.6: RL_SPACE_MULTI_DISCRETE actions: action_dim components,
       component k an int32 in [0, action_nvec[k]) (valid until destroy). */
    const uint32_t *action_nvec;
    /* ABI 1.6: nonzero when the env writes an action mask row per env with
       every reset and step (rl_env_io.action_mask): one byte per discrete
       action, or per choice of every MultiDiscrete component in order
       (rl_env_info_mask_width), nonzero where the action is allowed. */
    uint32_t action_mask;
    /* ABI 1.6, optional: a composite observation's parts (see
       rl_obs_part), valid until destroy; 0 and NULL for one tensor. */
    uint32_t n_obs_parts;
    const rl_obs_part *obs_parts;
    /* ABI 1.7: seats >= 2 says the agents of every env play on sides
       (a two-player game: two seats of one agent each; two teams of
       snakes): agent k of each env sits at agent_seats[k], in
       [0, seats).  The host routes each seat's rows to the policy that
       plays it (the learner, a snapshot of it, a scripted opponent) and
       shows the learner only its own rows.  0 or 1: every agent is the
       learner's. */
    uint32_t seats;
    const uint32_t *agent_seats; /* [agents], valid until destroy */
    /* ABI 1.7: nonzero for a turn-based env (needs seats >= 2): reset and
       step write rl_env_io.to_move, one byte per row, nonzero for the
       agents that act in the next step (at least one per env).  The host
       steps an env only with an action for each of its movers, and step
       reads no other row's action.  Every row gets its reward from every
       step (what the others' moves did to it included); the env's
       episode ends for all its agents at once. */
    uint32_t turn_based;
    /* ABI 1.11: RL_SPACE_HYBRID actions are action_dim discrete
       components (action_nvec, masked as MultiDiscrete's are) and
       action_box_dim float32s, dimension k in [action_low[k],
       action_high[k]] (finite, low <= high): step reads both,
       rl_env_io.actions [num_envs][action_dim] and box_actions
       [num_envs][action_box_dim].  Both parts have at least one value
       (one alone is a MultiDiscrete or a box space). */
    uint32_t action_box_dim;
    /* ABI 1.13, optional: the game's symmetries besides the identity (a
       board's mirror image), for an algorithm that also trains on each
       position's images (alphazero).  Symmetry k relabels every state s
       as a state s' of the same game: s' shows each agent its
       observation of s with byte j taken from byte
       symmetries[k].obs_from[j] (every byte once, whole elements moved
       within their part), s's move a is s''s move
       symmetries[k].action_to[a] (a permutation; the mask moves with it),
       and moves that correspond bring the same rewards, ends and movers
       and lead to states that correspond again.  Discrete actions only;
       at most RL_MAX_SYMMETRIES; valid until destroy (the host checks
       and copies them at create).  rl_env_info_set_symmetries writes
       them. */
    uint32_t n_symmetries;
    const rl_symmetry *symmetries;
} rl_env_info;

/* The host checks an env's observation description once, when it opens
   the env: obs_dtype U8 or F32, obs_ndim 1 to 4, obs_size the product of
   obs_shape[0 .. obs_ndim), one row at most RL_OBS_MAX_BYTES bytes, and
   obs_scale finite and positive; any other description is refused with
   its sentence before a buffer is sized from it. */
#define RL_OBS_MAX_BYTES (64u << 20)

/* rl_env_info.action_kind */
#define RL_SPACE_DISCRETE 0u
#define RL_SPACE_BOX 1u
#define RL_SPACE_MULTI_DISCRETE 2u /* ABI 1.6 */
#define RL_SPACE_HYBRID 3u         /* ABI 1.11 */

/* For env create: declares a box of dim float32 actions (low, high: dim
   values each, valid until destroy).  0, or -1 when the host's
   rl_env_info has no room for it (refuse the config then). */
static inline int rl_env_info_set_box(rl_env_info *info, uint32_t dim, const float *low, const float *high)
{
    if (!RL_HAS_FIELD(info, rl_env_info, action_high)) return -1;
    info->action_kind = RL_SPACE_BOX;
    info->action_dim = dim;
    info->action_low = low;
    info->action_high = high;
    return 0;
}

/* For env create: every episode is truncated at `steps` (0: no fixed
   limit).  Silently nothing for a host whose rl_env_info predates it. */
static inline void rl_env_info_set_time_limit(rl_env_info *info, uint32_t steps)
{
    if (RL_HAS_FIELD(info, rl_env_info, max_episode_steps)) info->max_episode_steps = steps;
}

/* The action space an env info describes, whatever its writer's version:
   RL_SPACE_DISCRETE for a struct too old to say. */
static inline uint32_t rl_env_info_action_kind(const rl_env_info *info)
{
    return RL_HAS_FIELD(info, rl_env_info, action_kind) ? info->action_kind : RL_SPACE_DISCRETE;
}

/* For env create (ABI 1.6): declares dim MultiDiscrete components, nvec
   choices each (valid until destroy).  0, or -1 when the host's
   rl_env_info has no room for it (refuse the config then). */
static inline int rl_env_info_set_multi_discrete(rl_env_info *info, uint32_t dim, const uint32_t *nvec)
{
    if (!RL_HAS_FIELD(info, rl_env_info, action_nvec)) return -1;
    info->action_kind = RL_SPACE_MULTI_DISCRETE;
    info->action_dim = dim;
    info->action_nvec = nvec;
    return 0;
}

/* For env create (ABI 1.11): declares a hybrid action of k discrete
   components of nvec choices each and a box of n float32s in [low, high]
   (all valid until destroy).  0, or -1 when the host's rl_env_info has
   no room for it (refuse the config then). */
static inline int rl_env_info_set_hybrid(rl_env_info *info, uint32_t k, const uint32_t *nvec, uint32_t n,
                                         const float *low, const float *high)
{
    if (!RL_HAS_FIELD(info, rl_env_info, action_box_dim)) return -1;
    info->action_kind = RL_SPACE_HYBRID;
    info->action_dim = k;
    info->action_nvec = nvec;
    info->action_box_dim = n;
    info->action_low = low;
    info->action_high = high;
    return 0;
}

/* For env create (ABI 1.6): the env writes action masks.  0, or -1 when
   the host's rl_env_info has no room for it (the host then never reads a
   mask, so an env that cannot act unmasked refuses the config). */
static inline int rl_env_info_set_masks(rl_env_info *info)
{
    if (!RL_HAS_FIELD(info, rl_env_info, action_mask)) return -1;
    info->action_mask = 1;
    return 0;
}

/* For env create (ABI 1.6): a composite observation of n parts.  0, or -1
   when the host's rl_env_info has no room for it. */
static inline int rl_env_info_set_parts(rl_env_info *info, uint32_t n, const rl_obs_part *parts)
{
    if (!RL_HAS_FIELD(info, rl_env_info, obs_parts)) return -1;
    info->n_obs_parts = n;
    info->obs_parts = parts;
    return 0;
}

/* int32 values of one env's action: action_dim for MultiDiscrete and
   hybrid, else 1 (a box's are floats: rl_env_info_action_floats). */
static inline uint32_t rl_env_info_action_ints(const rl_env_info *info)
{
    uint32_t kind = rl_env_info_action_kind(info);
    return kind == RL_SPACE_MULTI_DISCRETE || kind == RL_SPACE_HYBRID ? info->action_dim : 1;
}

/* float32 values of one env's action: a box's action_dim, a hybrid
   action's action_box_dim, else 0. */
static inline uint32_t rl_env_info_action_floats(const rl_env_info *info)
{
    uint32_t kind = rl_env_info_action_kind(info);
    if (kind == RL_SPACE_HYBRID) return RL_HAS_FIELD(info, rl_env_info, action_box_dim) ? info->action_box_dim : 0;
    return kind == RL_SPACE_BOX ? info->action_dim : 0;
}

/* Logits of the discrete part, one per choice: n_actions, the sum of
   action_nvec for MultiDiscrete and hybrid (0 without its nvec), 0 for a
   box. */
static inline uint32_t rl_env_info_action_choices(const rl_env_info *info)
{
    uint32_t kind = rl_env_info_action_kind(info), w = 0;
    if (kind == RL_SPACE_BOX) return 0;
    if (kind == RL_SPACE_DISCRETE) return info->n_actions;
    for (uint32_t k = 0; info->action_nvec && k < info->action_dim; k++) w += info->action_nvec[k];
    return w;
}

/* The action's width as a policy outputs it: one logit per choice of
   the discrete part (rl_env_info_action_choices), then one mean per
   float (rl_env_info_action_floats). */
static inline uint32_t rl_env_info_action_width(const rl_env_info *info)
{
    return rl_env_info_action_choices(info) + rl_env_info_action_floats(info);
}

/* Bytes of one env's mask row: 0 when the env does not mask; else one
   per choice of the discrete part (a box does not mask). */
static inline uint32_t rl_env_info_mask_width(const rl_env_info *info)
{
    if (!RL_HAS_FIELD(info, rl_env_info, action_mask) || !info->action_mask) return 0;
    return rl_env_info_action_choices(info);
}

/* The composite observation's parts, 0 (and *parts NULL) for one tensor
   or a struct too old to say. */
static inline uint32_t rl_env_info_parts(const rl_env_info *info, const rl_obs_part **parts)
{
    int has = RL_HAS_FIELD(info, rl_env_info, obs_parts) && info->obs_parts && info->n_obs_parts;
    *parts = has ? info->obs_parts : NULL;
    return has ? info->n_obs_parts : 0;
}

/* For env create: reports `agents` per env in info.  0 when stored (or
   agents is 1), -1 when agents > 1 and the host's rl_env_info has no room
   for the field (refuse the option then). */
static inline int rl_env_info_set_agents(rl_env_info *info, uint32_t agents)
{
    if (RL_HAS_FIELD(info, rl_env_info, agents)) {
        info->agents = agents;
        return 0;
    }
    return agents > 1 ? -1 : 0;
}

/* For env create: reports seats (agent k at seats_of[k]) and whether the
   env is turn-based.  0 when stored, -1 when the host's rl_env_info is
   older than 1.7 (refuse the env then: a host that cannot route seats
   would train one policy on every side). */
static inline int rl_env_info_set_seats(rl_env_info *info, uint32_t seats, const uint32_t *seats_of,
                                        uint32_t turn_based)
{
    if (!RL_HAS_FIELD(info, rl_env_info, turn_based)) return -1;
    info->seats = seats;
    info->agent_seats = seats_of;
    info->turn_based = turn_based;
    return 0;
}

/* For env create: declares the game's n symmetries besides the identity
   (see rl_env_info.symmetries).  0 when stored, -1 when the host's
   rl_env_info is older than 1.13 (it then trains without them). */
static inline int rl_env_info_set_symmetries(rl_env_info *info, uint32_t n, const rl_symmetry *symmetries)
{
    if (!RL_HAS_FIELD(info, rl_env_info, symmetries)) return -1;
    info->n_symmetries = n;
    info->symmetries = symmetries;
    return 0;
}

/* The env's symmetries besides the identity into *out: their count, 0
   for none or from a struct too old to say. */
static inline uint32_t rl_env_info_symmetries(const rl_env_info *info, const rl_symmetry **out)
{
    int has = RL_HAS_FIELD(info, rl_env_info, symmetries) && info->n_symmetries && info->symmetries;
    *out = has ? info->symmetries : NULL;
    return has ? info->n_symmetries : 0;
}

/* The env's seats (0 or 1: none) and turn flag, 0 from a struct too old to say. */
static inline uint32_t rl_env_info_seats(const rl_env_info *info)
{
    return RL_HAS_FIELD(info, rl_env_info, seats) && info->seats >= 2 ? info->seats : 0;
}
static inline uint32_t rl_env_info_turn_based(const rl_env_info *info)
{
    return RL_HAS_FIELD(info, rl_env_info, turn_based) && info->turn_based;
}

/* ---- Environment plugins ---------------------------------------------------
 * An env instance simulates num_envs independent environments.  The host owns
 * all I/O buffers, structure-of-arrays and contiguous over envs; a call works
 * on envs [first, first+count) only, never allocates, never locks, and is
 * called concurrently from host worker threads for disjoint ranges. */

typedef struct rl_env_args {
    uint32_t struct_size;
    uint32_t num_envs;
    uint64_t seed;           /* env i seeds its RNG from (seed, i) only, so
                                results do not depend on thread count */
    const rl_value *options; /* one per rl_plugin_desc.options entry */
    const rl_value *stages;  /* one per rl_plugin_desc.stages entry */
    const rl_host_api *host;
} rl_env_args;

typedef struct rl_env_io {
    uint32_t struct_size;
    void *obs;              /* [num_envs][obs_size] of obs_dtype: written */
    const int32_t *actions; /* [num_envs]: read; validated by the host */
    float *rewards;         /* [num_envs]: written by step */
    uint8_t *terminated;    /* [num_envs]: written by step */
    uint8_t *truncated;     /* [num_envs]: written by step */
    void *final_obs;        /* [num_envs][obs_size]: step writes the last
                               observation of an episode that just ended,
                               before auto-resetting into obs */
    float *scores;          /* [num_envs]: on a finished episode, its score
                               (see rl_env_info.score_name) */
    /* ABI 1.2, BOX action spaces: [num_envs][action_dim], read by step, each
       value inside the box (actions is NULL then) */
    const float *box_actions;
    /* ABI 1.6, an env that masks (rl_env_info.action_mask): reset and step
       write each env's mask row of the observation they write into obs,
       [num_envs][mask width] bytes, and step writes final_mask's row (the
       mask of final_obs) where an episode ended.  MultiDiscrete actions
       are [num_envs][action_dim] int32s in actions. */
    uint8_t *action_mask;
    uint8_t *final_mask;
    /* ABI 1.7, a turn-based env (rl_env_info.turn_based): reset and step
       write one byte per row, nonzero for the rows that move next */
    uint8_t *to_move;
} rl_env_io;

typedef struct rl_env_vtable {
    uint32_t struct_size;
    /* main thread; fills *info; on failure returns RL_E* and writes err */
    int (*create)(const rl_env_args *args, void **env, rl_env_info *info, char *err, size_t errlen);
    /* main thread; destroy(NULL) is a no-op */
    void (*destroy)(void *env);
    /* any thread, envs [first, first+count): start fresh episodes, write obs */
    void (*reset)(void *env, const rl_env_io *io, uint32_t first, uint32_t count);
    /* any thread, envs [first, first+count): apply actions, write rewards,
       flags, obs; a finished env writes final_obs and scores, then resets */
    void (*step)(void *env, const rl_env_io *io, uint32_t first, uint32_t count);
    /* any thread; NULL when the capability is absent */
    const void *(*get_extension)(void *env, const char *id);
} rl_env_vtable;

/* Optional: text rendering of one env, "rl.env.render/1". */
#define RL_EXT_ENV_RENDER "rl.env.render/1"
typedef struct rl_env_render_ext {
    uint32_t struct_size;
    /* any thread; writes a NUL-terminated frame (may contain ANSI colours
       when color != 0) into buf and returns its length, or a negative RL_E* */
    int (*render)(void *env, uint32_t index, int color, char *buf, size_t cap);
    /* ABI 1.9, optional (read where struct_size covers it): the frame env
       `index` ended its last episode on, before the autoreset began the
       next (the winning move of a game), as render writes it; RL_ENOENT
       before any episode of it ended */
    int (*render_final)(void *env, uint32_t index, int color, char *buf, size_t cap);
} rl_env_render_ext;

/* Optional (ABI 1.2): an env whose reset or step can fail (a simulator's
   error, a caller's callback) reports it here, "rl.env.status/1": the host
   asks after every reset and step and stops with the sentence. */
#define RL_EXT_ENV_STATUS "rl.env.status/1"
typedef struct rl_env_status_ext {
    uint32_t struct_size;
    /* RL_OK, or a negative RL_E* with the sentence in err; reading a
       failure clears it */
    int (*status)(void *env, char *err, size_t errlen);
} rl_env_status_ext;

/* Optional (ABI 1.2): one env's frame as pixels, "rl.env.raster/1", for
   Gymnasium's render_mode "rgb_array" (videos).  <rlhost/raster.h> has
   drawing helpers. */
#define RL_EXT_ENV_RASTER "rl.env.raster/1"
typedef struct rl_env_raster_ext {
    uint32_t struct_size;
    /* any thread; the frame size in pixels, the same for every env and step */
    void (*size)(void *env, uint32_t *height, uint32_t *width);
    /* any thread; env index's frame into rgb: height x width x 3 bytes,
       row-major.  RL_OK or a negative RL_E* */
    int (*draw)(void *env, uint32_t index, uint8_t *rgb);
} rl_env_raster_ext;

/* Optional: values an env reports beside its rewards, "rl.env.info/1",
   for Python's infos (Gymnasium's and EnvPool's names: an Atari env's
   "lives", the raw "reward", the real game over "terminated").  An
   extension only: no ABI minor, and a host that does not know it never
   asks. */
#define RL_EXT_ENV_INFO "rl.env.info/1"
typedef struct rl_env_info_ext {
    uint32_t struct_size;
    uint32_t n;               /* values per env */
    const char *const *names; /* n names */
    const rl_dtype *dtypes;   /* n: how Python types them (RL_DTYPE_F64, I32, U8 for a flag) */
    /* main thread, between steps: env index's values into out[0..n), as
       its last step ended (now = 0: before an autoreset began the next
       episode) or as it is now (now = 1) */
    void (*read)(void *env, uint32_t index, int now, double *out);
} rl_env_info_ext;

/* Optional: save and restore every env's state (positions, RNGs, ...),
   "rl.env.state/1", so a resumed run continues exactly.  Tensor names get
   the host's prefix ("env/", "eval_env/").  The rl_state_io table is
   declared below with the algorithm capabilities. */
#define RL_EXT_ENV_STATE "rl.env.state/1"
typedef struct rl_env_state_ext {
    uint32_t struct_size;
    /* main thread, between steps */
    int (*save)(void *env, const struct rl_state_io *io, const char *prefix, char *err, size_t errlen);
    int (*load)(void *env, const struct rl_state_io *io, const char *prefix, char *err, size_t errlen);
} rl_env_state_ext;

/* Defines `static const rl_env_state_ext NAME` from one function
   STATE_FN(TYPE *env, const rl_state_io *io, const char *prefix, int load,
   char *err, size_t errlen) that saves (load 0) or loads (load 1) every
   env's state, as RL_ALGO_STATE_EXT does for algorithms. */
#define RL_ENV_STATE_EXT(NAME, STATE_FN)                                                                          \
    static int NAME##_save(void *env, const struct rl_state_io *io, const char *prefix, char *err, size_t errlen) \
    {                                                                                                             \
        return STATE_FN(env, io, prefix, 0, err, errlen);                                                         \
    }                                                                                                             \
    static int NAME##_load(void *env, const struct rl_state_io *io, const char *prefix, char *err, size_t errlen) \
    {                                                                                                             \
        return STATE_FN(env, io, prefix, 1, err, errlen);                                                         \
    }                                                                                                             \
    static const rl_env_state_ext NAME = {sizeof(rl_env_state_ext), NAME##_save, NAME##_load}

#ifdef __cplusplus
}
#endif

#endif /* RLHOST_ENV_H */
