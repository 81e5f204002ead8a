/*
 * <rlhost/plugin.h> — the rlhost plugin ABI.
 *
 * A plugin is a shared object that exports exactly one symbol,
 * RL_PLUGIN_ENTRY_SYMBOL, a const rl_plugin_entry.  Through it the host finds
 * one or more plugin descriptors (environments or algorithms), each with an
 * option schema, an optimization-stage schema and a vtable.
 *
 * Compatibility rules (the host enforces them before calling anything):
 *   - entry.abi.major must equal the host's RL_ABI_MAJOR, and
 *     entry.abi.minor must not exceed the host's RL_ABI_MINOR;
 *   - every struct below starts with uint32_t struct_size, the size of the
 *     struct as its writer was compiled; structs only grow at the end, and
 *     neither side reads a field that the other side's struct_size does not
 *     cover.  Three exceptions, each fixed for the life of major version 1:
 *     rl_abi_version (two uint16_t, read before anything else),
 *     rl_plugin_entry (rl_abi_version first, so any host can read the
 *     version; struct_size second), and rl_metric (an element of an array
 *     whose capacity the host passes, never grown: a metric needs a name
 *     and a value only).
 * Optional capabilities are looked up by a revisioned string id through
 * get_extension() and may be absent (NULL).
 *
 * Errors cross the ABI as a negative RL_E* status plus a one-line message
 * written into a caller-owned buffer (err, errlen).  Plugins never exit(),
 * abort() or print; they log through rl_host_api.log.
 *
 * This header is C99 and C++ clean.
 */
#ifndef RLHOST_PLUGIN_H
#define RLHOST_PLUGIN_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#ifdef __cplusplus
extern "C" {
#endif

#define RL_ABI_MAJOR 1
#define RL_ABI_MINOR 7
/* The history of major version 1; a plugin built for minor m loads in any
   host of minor >= m, and reads a field of a later minor only through
   RL_HAS_FIELD (or the helpers below, which do).
   1.0  the entry, descriptors, option and stage schemas, the env and algo
        vtables, rl.env.render/1, rl.env.state/1, rl.algo.eval/1,
        rl.algo.state/1.
   1.1  data-parallel training: rl_algo_args.replicas with rl_replicas and
        the descriptor flag RL_DESC_REPLICAS (rl_plugin_desc.flags);
        several agents per env (rl_env_info.agents); rl_state_io.meta.
   1.2  action spaces: rl_env_info.action_kind (discrete or a box of
        float32 actions) with its bounds and optional observation bounds
        and max_episode_steps, rl_env_io.box_actions,
        rl_transition.box_actions, rl_algo_vtable.act_box, the descriptor
        flags RL_DESC_BOX, RL_DESC_NO_DISCRETE and RL_DESC_SERIAL,
        rl_algo_args.inference, rl.env.status/1 and rl.env.raster/1.
   1.3  rl_plugin_desc.tune_space (a plugin's default search space for
        `rlhost tune`); rl_host_api.interrupted; sharded optimizer steps
        (rl_replicas.reduce_scatter_f32 and allgather_f32).
   1.4  the option flag RL_OPT_TRAINING (training wrappers an evaluation
        leaves at their default).
   1.5  rl_algo_args.steps (the run's step count, for schedules in act).
   1.6  spaces: action masks (rl_env_info.action_mask, rl_env_io.action_mask
        and final_mask, the masks of rl_transition), MultiDiscrete actions
        (RL_SPACE_MULTI_DISCRETE with rl_env_info.action_nvec), composite
        observations (rl_obs_part), rl_algo_vtable.act_masked and the
        descriptor flags RL_DESC_MASKS, RL_DESC_MULTI_DISCRETE and
        RL_DESC_OBS_PARTS.
   1.7  seats and turns: rl_env_info.seats and agent_seats (which side each
        agent plays), rl_env_info.turn_based with rl_env_io.to_move. */

/* Nonzero when the struct at p, written by a side whose struct_size says
   how much it holds, has the field FIELD of TYPE: the one check before
   reading any field a later minor added. */
#define RL_HAS_FIELD(p, TYPE, FIELD) ((p)->struct_size >= offsetof(TYPE, FIELD) + sizeof(((const TYPE *)0)->FIELD))

/* Name of the one symbol a plugin exports. */
#define RL_PLUGIN_ENTRY_SYMBOL "rlhost_plugin_entry"

#if defined(_WIN32)
#define RL_EXPORT __declspec(dllexport)
#else
#define RL_EXPORT __attribute__((visibility("default")))
#endif

/* Size of the caller-owned message buffers passed as (err, errlen). */
#define RL_ERR_MAX 512

/* ---- Status codes -------------------------------------------------------- */

/* X(name, value, text): one list generates the enum and rl_strerror(). */
#define RL_ERRNO_MAP(X)                     \
    X(EINVAL, -1, "invalid argument")       \
    X(ENOMEM, -2, "out of memory")          \
    X(EIO, -3, "input/output error")        \
    X(ENOENT, -4, "not found")              \
    X(EABI, -5, "incompatible plugin ABI")  \
    X(ENOTSUP, -6, "not supported")         \
    X(ENONFINITE, -7, "non-finite value")   \
    X(EINTR, -8, "interrupted")             \
    X(ECONFIG, -9, "invalid configuration") \
    X(ECORRUPT, -10, "corrupt data")

typedef enum rl_status {
    RL_OK = 0,
#define RL__ERR_ENUM(name, val, text) RL_##name = (val),
    RL_ERRNO_MAP(RL__ERR_ENUM)
#undef RL__ERR_ENUM
} rl_status;

/* ---- Versions ------------------------------------------------------------ */

typedef struct rl_abi_version {
    uint16_t major;
    uint16_t minor;
} rl_abi_version;

/* ---- Option and stage schemas --------------------------------------------
 * A plugin describes every option it takes; the host validates the config
 * against it, fills in defaults and hands the plugin typed values.  The same
 * form describes optimization stages (the `optimizations = { ... }` group). */

typedef enum rl_opt_type {
    RL_OPT_BOOL = 1,
    RL_OPT_INT,
    RL_OPT_FLOAT,
    RL_OPT_STRING,
    RL_OPT_ENUM,       /* a string from a fixed list of choices */
    RL_OPT_INT_LIST,   /* e.g. hidden = [256, 256] */
    RL_OPT_STRING_LIST /* e.g. map = ["#####", "#S.G#", "#####"] */
} rl_opt_type;

/* Flags of rl_option_def.flags. */
#define RL_OPT_AUTO 0x1u            /* also accepts the string "auto" */
#define RL_OPT_CHANGES_RESULTS 0x2u /* stage: may change learning results */
#define RL_OPT_REQUIRED 0x4u        /* no default: the config must set it */
/* ABI 1.4, env options: a training wrapper (reward clipping, a lost life
   ending the episode).  The host's evaluations (a run's, `eval`, `play`)
   open the env with such an option at its default, so their returns are
   the task's own. */
#define RL_OPT_TRAINING 0x8u

typedef struct rl_option_def {
    uint32_t struct_size;
    rl_opt_type type;
    const char *name;
    const char *help;           /* one line */
    const char *default_text;   /* in config syntax: "1e-3", "[64, 64]", "true",
                                   "auto", "features"; NULL only if REQUIRED */
    double min, max;            /* INT, FLOAT, and list elements; ignored when
                                   min > max (unbounded) */
    const char *const *choices; /* ENUM: NULL-terminated list */
    uint32_t flags;
} rl_option_def;

/* Option definitions with named fields, so min, max and default cannot be
   swapped by position:
     [OPT_LR] = RL_OPTION_FLOAT("lr", "3e-4", 0, 1, "Adam learning rate"),
     [OPT_HIDDEN] = RL_OPTION_INT_LIST("hidden", "[64, 64]", 1, 4096, "layer widths"),
     [OPT_MODE] = RL_OPTION_ENUM("mode", "fast", mode_names, "how to ..."),
   The _F forms take flags (RL_OPT_AUTO, RL_OPT_CHANGES_RESULTS,
   RL_OPT_REQUIRED), as stages often need:
     [ST_THREADS] = RL_OPTION_INT_F("threads", "\"auto\"", 1, 64, RL_OPT_AUTO, "...") */
#define RL_OPTION(type_, name_, def_, min_, max_, choices_, flags_, help_)                             \
    {                                                                                                  \
        .struct_size = sizeof(rl_option_def), .type = (type_), .name = (name_), .help = (help_),       \
        .default_text = (def_), .min = (min_), .max = (max_), .choices = (choices_), .flags = (flags_) \
    }
#define RL_OPTION_BOOL(name, def, help) RL_OPTION(RL_OPT_BOOL, name, def, 1, 0, NULL, 0, help)
#define RL_OPTION_BOOL_F(name, def, flags, help) RL_OPTION(RL_OPT_BOOL, name, def, 1, 0, NULL, flags, help)
#define RL_OPTION_INT(name, def, min, max, help) RL_OPTION(RL_OPT_INT, name, def, min, max, NULL, 0, help)
#define RL_OPTION_INT_F(name, def, min, max, flags, help) RL_OPTION(RL_OPT_INT, name, def, min, max, NULL, flags, help)
#define RL_OPTION_FLOAT(name, def, min, max, help) RL_OPTION(RL_OPT_FLOAT, name, def, min, max, NULL, 0, help)
#define RL_OPTION_FLOAT_F(name, def, min, max, flags, help) \
    RL_OPTION(RL_OPT_FLOAT, name, def, min, max, NULL, flags, help)
#define RL_OPTION_STRING(name, def, help) RL_OPTION(RL_OPT_STRING, name, def, 1, 0, NULL, 0, help)
#define RL_OPTION_ENUM(name, def, choices, help) RL_OPTION(RL_OPT_ENUM, name, def, 1, 0, choices, 0, help)
#define RL_OPTION_ENUM_F(name, def, choices, flags, help) RL_OPTION(RL_OPT_ENUM, name, def, 1, 0, choices, flags, help)
#define RL_OPTION_INT_LIST(name, def, min, max, help) RL_OPTION(RL_OPT_INT_LIST, name, def, min, max, NULL, 0, help)
#define RL_OPTION_STRING_LIST(name, def, help) RL_OPTION(RL_OPT_STRING_LIST, name, def, 1, 0, NULL, 0, help)

/* A resolved value, in the order of the plugin's own rl_option_def array. */
typedef struct rl_value {
    uint32_t struct_size;
    rl_opt_type type;
    int is_auto;   /* "auto" was given (flag RL_OPT_AUTO); i holds the
                      value the host resolved it to when it knows one */
    int64_t i;     /* BOOL (0/1), INT, ENUM (index into choices) */
    double f;      /* FLOAT */
    const char *s; /* STRING, ENUM (the choice) */
    size_t n;      /* list length */
    const int64_t *ilist;
    const char *const *slist;
} rl_value;

/* ---- Host services --------------------------------------------------------
 * Handed to every plugin at init and again in create args; valid until deinit.
 * All functions are thread-safe. */

typedef enum rl_log_level { RL_LOG_ERROR = 0, RL_LOG_WARN, RL_LOG_INFO, RL_LOG_DEBUG } rl_log_level;

typedef struct rl_host_api {
    uint32_t struct_size;
    rl_abi_version abi;
    void (*log)(rl_log_level level, const char *who, const char *fmt, ...)
#if defined(__GNUC__)
        __attribute__((format(printf, 3, 4)))
#endif
        ;
    uint32_t (*cpu_count)(void); /* online cores available to us */
    const char *(*strerror)(int status);
    /* ABI 1.3 (check struct_size): nonzero once the user asked the run to
       stop (SIGINT, SIGTERM).  Something long in create (compiling a large
       model, loading data) polls it and gives up with RL_EINTR, so that
       Ctrl-C stops a run within about a second whatever it is doing. */
    int (*interrupted)(void);
} rl_host_api;

/* Nonzero once the user asked the run to stop; 0 from a host older than
   1.3, which does not say (h may be NULL). */
static inline int rl_host_interrupted(const rl_host_api *h)
{
    return h && RL_HAS_FIELD(h, rl_host_api, interrupted) && h->interrupted && h->interrupted();
}

/* ---- Spaces ----------------------------------------------------------------*/

typedef enum rl_dtype {
    RL_DTYPE_F32 = 1,
    RL_DTYPE_U8,
    RL_DTYPE_I32, /* the rest appear in checkpoints, not in observations */
    RL_DTYPE_U64,
    RL_DTYPE_F64
} rl_dtype;

/* Bytes of one element of d; 0 for a value that is not a dtype. */
static inline size_t rl_dtype_size(rl_dtype d)
{
    switch (d) {
    case RL_DTYPE_U8:
        return 1;
    case RL_DTYPE_F32:
    case RL_DTYPE_I32:
        return 4;
    case RL_DTYPE_U64:
    case RL_DTYPE_F64:
        return 8;
    }
    return 0;
}

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

/* Bytes of one env's mask row: 0 when the env does not mask; n_actions,
   or the sum of action_nvec for MultiDiscrete. */
static inline uint32_t rl_env_info_mask_width(const rl_env_info *info)
{
    if (!RL_HAS_FIELD(info, rl_env_info, action_mask) || !info->action_mask) return 0;
    if (info->action_kind == RL_SPACE_DISCRETE) return info->n_actions;
    if (info->action_kind != RL_SPACE_MULTI_DISCRETE || !info->action_nvec) return 0;
    uint32_t w = 0;
    for (uint32_t k = 0; k < info->action_dim; k++) w += info->action_nvec[k];
    return w;
}

/* int32 values of one env's action: action_dim for MultiDiscrete, else 1
   (BOX actions are floats: see rl_env_io.box_actions). */
static inline uint32_t rl_env_info_action_ints(const rl_env_info *info)
{
    return rl_env_info_action_kind(info) == RL_SPACE_MULTI_DISCRETE ? info->action_dim : 1;
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
struct rl_state_io;
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

/* ---- Algorithm plugins ---------------------------------------------------- */

typedef enum rl_act_mode {
    RL_MODE_TRAIN = 0, /* exploration on; the state used by observe/update */
    RL_MODE_EVAL       /* greedy (unless the algo's options say otherwise);
                          separate recurrent state for the eval envs */
} rl_act_mode;
/* The names before 1.4's headers, for old plugins' sources (RL_ACT_* is
   the prefix of the activations in <rlhost/nn.h>). */
#define RL_ACT_TRAIN RL_MODE_TRAIN
#define RL_ACT_EVAL RL_MODE_EVAL

/* ABI 1.1: data-parallel training.  A run may have R replicas, each an
   algorithm instance of its own that owns a contiguous slice of the
   training envs (num_envs of rl_algo_args are the replica's share) and a
   share of every minibatch.  Before each optimizer step the replicas sum
   their gradients with allreduce, and all take the same step, so their
   parameters stay identical.  The sum adds the replicas' buffers in replica
   order 0, 1, ..., R-1 whatever the transport (threads in one process, or
   MPI ranks), so results depend on (config, seed, R) only.  With R = 1
   every call returns at once and leaves buf as it is.
   When the envs cannot be split (fewer than R, or not a multiple of R) the
   replicas share them instead (shared_envs = 1): every replica observes
   every env's transitions, and replica 0's act() alone drives the envs;
   an algorithm that needs envs of its own refuses that at create. */
typedef struct rl_replicas {
    uint32_t struct_size;
    uint32_t count; /* R >= 1 */
    uint32_t index; /* this replica, 0 .. R-1; replica 0 also evaluates */
    void *ctx;
    /* the replica's thread.  Every replica makes the same calls in the
       same order with the same n; each blocks until all have arrived, then
       buf holds the elementwise sum over the replicas, identical in all. */
    int (*allreduce_f32)(void *ctx, float *buf, size_t n);
    int (*allreduce_f64)(void *ctx, double *buf, size_t n);
    uint32_t shared_envs; /* see above; num_envs is then all of them */
    /* Sharded optimizer steps (read only when struct_size covers them).
       Replica r owns the slice [n r / R, n (r + 1) / R) of an n-element
       buffer (rl_replica_slice).  reduce_scatter_f32 leaves in buf's own
       slice the sum over the replicas, element i added in replica order as
       allreduce_f32 adds it (the rest of buf is then unspecified);
       allgather_f32 copies every replica's slice of its buf into the same
       slice of every other replica's buf.  Collective, like allreduce: so a
       step can sum, clip and update each slice on one replica only, and
       gather the updated parameters (rl_replicated_adam_step). */
    int (*reduce_scatter_f32)(void *ctx, float *buf, size_t n);
    int (*allgather_f32)(void *ctx, float *buf, size_t n);
} rl_replicas;

/* The slice [*lo, *hi) of an n-element buffer that replica rep->index owns. */
static inline void rl_replica_slice(const rl_replicas *rep, size_t n, size_t *lo, size_t *hi)
{
    *lo = n * rep->index / rep->count;
    *hi = n * (rep->index + 1) / rep->count;
}

typedef struct rl_algo_args {
    uint32_t struct_size;
    const rl_env_info *env;
    uint32_t num_envs;      /* training envs, rows of act/observe batches */
    uint32_t num_eval_envs; /* rows of RL_MODE_EVAL batches */
    uint64_t seed;
    uint64_t total_steps; /* env steps the schedules span: run.schedule_steps, else run.steps */
    const rl_value *options;
    const rl_value *stages;
    const rl_host_api *host;
    /* ABI 1.1 (read only when struct_size covers it): the replica this
       instance is; never NULL from a 1.1 host.  Only descriptors with
       RL_DESC_REPLICAS get a count above 1. */
    const rl_replicas *replicas;
    /* ABI 1.2 (read only when struct_size covers it): nonzero when the
       instance will only act on num_eval_envs rows (eval, play, the
       embedding API) from a checkpoint of a run with any replica count: it
       may leave out what training needs (replay, rollout, optimizer) and
       load only what acting reads.  num_envs is then still the run's. */
    uint32_t inference;
    /* ABI 1.5 (read it with rl_args_steps): the env steps the run has
       taken so far, all envs counted, as update's step counts them: in act,
       the steps before the one being chosen.  The host keeps it current
       for the instance's life (a resumed run's count included), so an
       exploration schedule needs no counter of its own; it stays 0 for an
       instance that never trains (eval, play, the embedding API). */
    const uint64_t *steps;
} rl_algo_args;

/* The fields of rl_algo_args and rl_replicas that later minors added, read
   whatever the host's version.  Inline: they only read the structs.
   librlcore also exports them out of line, from these definitions
   (core/rlcore/compat.c): plugins built against the headers of 1.4 and before
   call rl_args_replicas, rl_args_inference and rl_replicas_shared there. */
#ifdef RL__ACCESSORS_OUT_OF_LINE
#define RL__ACCESSOR
const rl_replicas *rl_args_replicas(const rl_algo_args *args);
int rl_args_inference(const rl_algo_args *args);
int rl_replicas_shared(const rl_replicas *r);
uint64_t rl_args_steps(const rl_algo_args *args);
#else
#define RL__ACCESSOR static inline
#endif
/* The replica table create() was given: NULL from a host older than 1.1
   (then the algorithm is the only replica). */
RL__ACCESSOR const rl_replicas *rl_args_replicas(const rl_algo_args *args)
{
    return RL_HAS_FIELD(args, rl_algo_args, replicas) ? args->replicas : NULL;
}
/* rl_algo_args.inference, 0 from a host too old to say. */
RL__ACCESSOR int rl_args_inference(const rl_algo_args *args)
{
    return RL_HAS_FIELD(args, rl_algo_args, inference) && args->inference;
}
/* *rl_algo_args.steps, 0 from a host older than 1.5. */
RL__ACCESSOR uint64_t rl_args_steps(const rl_algo_args *args)
{
    return RL_HAS_FIELD(args, rl_algo_args, steps) && args->steps ? *args->steps : 0;
}
/* Whether the replicas share the envs (rl_replicas.shared_envs; 0 without
   a table, or with one too old to say). */
RL__ACCESSOR int rl_replicas_shared(const rl_replicas *r)
{
    return r && RL_HAS_FIELD(r, rl_replicas, shared_envs) && r->shared_envs;
}
#undef RL__ACCESSOR

/* One vectorized env step, as the algorithm sees it. */
typedef struct rl_transition {
    uint32_t struct_size;
    uint32_t count;  /* = num_envs */
    const void *obs; /* what act() saw */
    const int32_t *actions;
    const float *rewards;
    const void *next_obs;  /* after auto-reset where an episode ended */
    const void *final_obs; /* valid where terminated || truncated */
    const uint8_t *terminated;
    const uint8_t *truncated;
    /* ABI 1.2, BOX action spaces (actions is NULL then): [count][action_dim],
       what act_box chose, before the host clipped it into the box for the
       env: an on-policy algorithm's log-probabilities stay those of its
       sample */
    const float *box_actions;
    /* ABI 1.6: MultiDiscrete actions are [count][action_dim] in actions.
       For an env that masks, [count][mask width] bytes each: the masks of
       obs (what act_masked saw), of next_obs and of final_obs (valid
       where an episode ended), NULL otherwise. */
    const uint8_t *masks;
    const uint8_t *next_masks;
    const uint8_t *final_masks;
} rl_transition;

/* No struct_size (see the rules at the top): an array element. */
typedef struct rl_metric {
    const char *name; /* static storage in the plugin */
    double value;
} rl_metric;

typedef struct rl_algo_vtable {
    uint32_t struct_size;
    /* main thread */
    int (*create)(const rl_algo_args *args, void **algo, char *err, size_t errlen);
    /* main thread; destroy(NULL) is a no-op */
    void (*destroy)(void *algo);
    /* main thread (with replicas: the replica's own thread; one instance is
       never called from two threads at once, but replicas run at the same
       time, so instances share no mutable state): choose actions for count envs.  episode_start[i] != 0
       marks obs row i as the first of an episode (reset recurrent state). */
    int (*act)(void *algo, rl_act_mode mode, const void *obs, const uint8_t *episode_start, int32_t *actions,
               uint32_t count, char *err, size_t errlen);
    /* main thread: the transition batch of the step just taken */
    int (*observe)(void *algo, const rl_transition *t, char *err, size_t errlen);
    /* main thread, after each observe: train if due. step = env steps taken
       so far (all envs). */
    int (*update)(void *algo, uint64_t step, char *err, size_t errlen);
    /* main thread: current metrics (means since the last call); returns how
       many were written, at most cap */
    size_t (*metrics)(void *algo, rl_metric *out, size_t cap);
    /* main thread; NULL when the capability is absent */
    const void *(*get_extension)(void *algo, const char *id);
    /* ABI 1.2, required with RL_DESC_BOX: act for a BOX action space, count
       rows of action_dim floats.  The host clips each into the box before
       the env sees it (a NaN is an error), and hands back the values as
       chosen in rl_transition.box_actions.  Same threading as act. */
    int (*act_box)(void *algo, rl_act_mode mode, const void *obs, const uint8_t *episode_start, float *actions,
                   uint32_t count, char *err, size_t errlen);
    /* ABI 1.6, required with RL_DESC_MASKS or RL_DESC_MULTI_DISCRETE: act
       for a discrete or MultiDiscrete space, actions count rows of
       rl_env_info_action_ints ints; masks count rows of the mask width
       (NULL when the env does not mask: every action allowed).  The host
       calls it instead of act for such an algorithm, and refuses an action
       the mask forbids.  Same threading as act. */
    int (*act_masked)(void *algo, rl_act_mode mode, const void *obs, const uint8_t *episode_start, const uint8_t *masks,
                      int32_t *actions, uint32_t count, char *err, size_t errlen);
} rl_algo_vtable;

/* Optional: hear about evaluations, "rl.algo.eval/1".  Lets an algorithm
   keep the best policy seen by periodic evaluation (run.eval_interval). */
#define RL_EXT_ALGO_EVAL "rl.algo.eval/1"
typedef struct rl_algo_eval_ext {
    uint32_t struct_size;
    /* main thread: a periodic greedy evaluation at env step `step` ended
       with this mean return */
    int (*evaluated)(void *algo, uint64_t step, double return_mean, char *err, size_t errlen);
    /* main thread: training is over; the final evaluation comes next */
    int (*training_done)(void *algo, char *err, size_t errlen);
} rl_algo_eval_ext;

/* Optional: save and restore the algorithm's state, "rl.algo.state/1".
   The host writes what save() puts into checkpoint.safetensors (tensors
   named by role: "q/layer0.weight", "target/...", "adam/m/..."), and load()
   gets each tensor back by name, checked against the dtype and shape the
   algorithm asks for. */
typedef struct rl_state_io {
    uint32_t struct_size;
    void *ctx;
    /* save: record a tensor; the host copies the data before returning */
    int (*put)(void *ctx, const char *name, rl_dtype dtype, uint32_t ndim, const uint64_t *shape, const void *data);
    /* load: copy the named tensor into data if its dtype and shape match;
       RL_ENOENT when absent, RL_ECORRUPT on a mismatch (message in the
       host's error, which load() should pass on) */
    int (*get)(void *ctx, const char *name, rl_dtype dtype, uint32_t ndim, const uint64_t *shape, void *data);
    /* the host's sentence for the last failed get() */
    const char *(*error)(void *ctx);
    /* ABI 1.1, save only (NULL on load, from a 1.0 host, and for replicas
       other than 0): a metadata string stored as "algo.KEY" beside the
       tensors, for readers of the checkpoint that have no rlhost (e.g.
       "policy", the network as rlhost.policy/1 JSON, whose layer operations
       rl_mlp_ops and rl_cnn_ops in <rlhost/nn.h> write).  Use rl_state_meta
       (<rlhost/rlcore.h>), which checks for it. */
    int (*meta)(void *ctx, const char *key, const char *value);
} rl_state_io;

#define RL_EXT_ALGO_STATE "rl.algo.state/1"
typedef struct rl_algo_state_ext {
    uint32_t struct_size;
    /* main thread, between steps */
    int (*save)(void *algo, const rl_state_io *io, char *err, size_t errlen);
    /* main thread, right after create */
    int (*load)(void *algo, const rl_state_io *io, char *err, size_t errlen);
} rl_algo_state_ext;

/* Defines `static const rl_algo_state_ext NAME` from one function
   STATE_FN(TYPE *algo, const rl_state_io *io, int load, char *err,
   size_t errlen) that saves (load 0) or loads (load 1) the algorithm's
   state: one function serves both directions, so they cannot drift apart. */
#define RL_ALGO_STATE_EXT(NAME, STATE_FN)                                               \
    static int NAME##_save(void *algo, const rl_state_io *io, char *err, size_t errlen) \
    {                                                                                   \
        return STATE_FN(algo, io, 0, err, errlen);                                      \
    }                                                                                   \
    static int NAME##_load(void *algo, const rl_state_io *io, char *err, size_t errlen) \
    {                                                                                   \
        return STATE_FN(algo, io, 1, err, errlen);                                      \
    }                                                                                   \
    static const rl_algo_state_ext NAME = {sizeof(rl_algo_state_ext), NAME##_save, NAME##_load}

/* ---- Descriptors and the entry --------------------------------------------*/

typedef enum rl_plugin_kind { RL_KIND_ENV = 1, RL_KIND_ALGO = 2 } rl_plugin_kind;

typedef struct rl_plugin_desc {
    uint32_t struct_size;
    rl_plugin_kind kind;
    const char *name;        /* [a-z0-9_]+, unique per kind */
    const char *version;     /* the plugin's own version, "1.0.0" */
    const char *description; /* one line */
    const rl_option_def *options;
    uint32_t n_options;
    const rl_option_def *stages;
    uint32_t n_stages;
    const void *vtable; /* const rl_env_vtable * or const rl_algo_vtable * */
    /* ABI 1.1: RL_DESC_* bits */
    uint32_t flags;
    /* ABI 1.3, optional: the default search space of `rlhost tune` over
       this plugin's options, in the syntax of a config's `tune` group with
       keys relative to the plugin's group (docs/tune.md):
         "lr = { log_uniform = [1e-5, 1e-2]; };"
         "hidden = { choice = ([64, 64], [256, 256]); };"
       The host checks it against options above like any space; NULL: the
       plugin declares none. */
    const char *tune_space;
} rl_plugin_desc;

/* rl_plugin_desc.flags: the algorithm trains data-parallel with
   rl_algo_args.replicas (splits its minibatches and sums gradients). */
#define RL_DESC_REPLICAS 0x1u
/* ABI 1.2: the algorithm takes BOX action spaces (through act_box), and
   does not take discrete ones.  Without either flag an algorithm takes
   discrete actions only, as every 1.0 and 1.1 algorithm does; the host
   refuses a pair that does not fit before creating anything. */
#define RL_DESC_BOX 0x2u
#define RL_DESC_NO_DISCRETE 0x4u
/* ABI 1.2, envs: reset and step are called on one thread only (the env
   is not thread-safe: a simulator with global state, an interpreter);
   the host then steps it without worker threads. */
#define RL_DESC_SERIAL 0x8u
/* ABI 1.6, algorithms, each through act_masked: the algorithm takes action
   masks (an env that masks is refused to an algorithm without it), and
   MultiDiscrete actions; and reads composite observations by their parts
   (rl_env_info.obs_parts). */
#define RL_DESC_MASKS 0x10u
#define RL_DESC_MULTI_DISCRETE 0x20u
#define RL_DESC_OBS_PARTS 0x40u

typedef struct rl_plugin_entry {
    rl_abi_version abi; /* first, always: RL_ABI_MAJOR, RL_ABI_MINOR */
    uint32_t struct_size;
    /* main thread, once, before anything else; err on failure */
    int (*init)(const rl_host_api *host, char *err, size_t errlen);
    /* main thread, once, after every instance is destroyed */
    void (*deinit)(void);
    uint32_t (*count)(void);
    const rl_plugin_desc *(*get)(uint32_t index);
} rl_plugin_entry;

/* Convenience for plugin authors: define the entry with the current ABI. */
#define RL_PLUGIN_DEFINE_ENTRY(init_fn, deinit_fn, count_fn, get_fn) \
    RL_EXPORT extern const rl_plugin_entry rlhost_plugin_entry;      \
    const rl_plugin_entry rlhost_plugin_entry = {                    \
        {RL_ABI_MAJOR, RL_ABI_MINOR}, sizeof(rl_plugin_entry), init_fn, deinit_fn, count_fn, get_fn}

/* The whole entry for a .so whose descriptors are the array DESCS_ (a
   `static const rl_plugin_desc DESCS_[]`: one plugin each).  HOST_SLOT_ is
   where init keeps the host's services table, the address of a
   `static const rl_host_api *`, or NULL for a plugin that never asks for
   one.  A plugin that must do more at init writes RL_PLUGIN_DEFINE_ENTRY. */
#define RL_PLUGIN_DEFINE_ARRAY(descs_, host_slot_)                     \
    static int rl__array_init(const rl_host_api *h, char *e, size_t n) \
    {                                                                  \
        const rl_host_api **slot = (host_slot_);                       \
        (void)e;                                                       \
        (void)n;                                                       \
        if (slot) *slot = h;                                           \
        return RL_OK;                                                  \
    }                                                                  \
    static uint32_t rl__array_count(void)                              \
    {                                                                  \
        return (uint32_t)(sizeof(descs_) / sizeof *(descs_));          \
    }                                                                  \
    static const rl_plugin_desc *rl__array_get(uint32_t i)             \
    {                                                                  \
        return i < rl__array_count() ? &(descs_)[i] : NULL;            \
    }                                                                  \
    RL_PLUGIN_DEFINE_ENTRY(rl__array_init, NULL, rl__array_count, rl__array_get)

/* The whole entry for a .so with one descriptor and nothing to initialise
   (the template plugin spells the same out by hand). */
#define RL_PLUGIN_DEFINE_SINGLE(desc_)                                  \
    static int rl__single_init(const rl_host_api *h, char *e, size_t n) \
    {                                                                   \
        (void)h;                                                        \
        (void)e;                                                        \
        (void)n;                                                        \
        return RL_OK;                                                   \
    }                                                                   \
    static uint32_t rl__single_count(void)                              \
    {                                                                   \
        return 1;                                                       \
    }                                                                   \
    static const rl_plugin_desc *rl__single_get(uint32_t i)             \
    {                                                                   \
        return i == 0 ? &(desc_) : NULL;                                \
    }                                                                   \
    RL_PLUGIN_DEFINE_ENTRY(rl__single_init, NULL, rl__single_count, rl__single_get)

/* Write a formatted one-line message into a caller-owned buffer. */
#define RL_ERRF(err, errlen, ...)                                      \
    do {                                                               \
        if ((err) && (errlen)) snprintf((err), (errlen), __VA_ARGS__); \
    } while (0)

#ifdef __cplusplus
}
#endif

#endif /* RLHOST_PLUGIN_H */
