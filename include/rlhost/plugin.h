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
 * The ABI is three headers: this one (status codes, option schemas, host
 * services, data types, descriptors and the entry), <rlhost/env.h> (spaces
 * and environments) and <rlhost/algo.h> (algorithms).  Including any one
 * of them brings all three.
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
#define RL_ABI_MINOR 15
/* A plugin built for minor m loads in any host of minor >= m.  Each field,
   flag and capability a later minor added says so where it stands
   ("ABI 1.6: ..."): those notes are the ABI's history, and a plugin reads
   such a field only through RL_HAS_FIELD (or the helpers that do). */

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
/* ABI 1.14: an option a plugin added after it had written checkpoints,
   whose default does what the plugin did before.  A checkpoint whose
   config lacks the option reads as written with the default: resuming it
   (or evaluating it) with the option at its default is no change of
   config, and any other value still is. */
#define RL_OPT_ADDED 0x10u

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

/* ---- Data and state I/O ---------------------------------------------------*/

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
/* ABI 1.2: the algorithm takes BOX action spaces, and
   does not take discrete ones.  Without either flag an algorithm takes
   discrete actions only, as every 1.0 and 1.1 algorithm does; the host
   refuses a pair that does not fit before creating anything. */
#define RL_DESC_BOX 0x2u
#define RL_DESC_NO_DISCRETE 0x4u
/* ABI 1.2, envs: reset and step are called on one thread only (the env
   is not thread-safe: a simulator with global state, an interpreter);
   the host then steps it without worker threads. */
#define RL_DESC_SERIAL 0x8u
/* ABI 1.6, algorithms: the algorithm takes action
   masks (an env that masks is refused to an algorithm without it), and
   MultiDiscrete actions; and reads composite observations by their parts
   (rl_env_info.obs_parts). */
#define RL_DESC_MASKS 0x10u
#define RL_DESC_MULTI_DISCRETE 0x20u
#define RL_DESC_OBS_PARTS 0x40u
/* ABI 1.9, envs: the env can be searched (<rlhost/search.h>): it saves and
   restores its exact state (rl.env.state/1), every state tensor holds one
   equal slice per env (env i's at i), and a step is a function of that
   state and the actions alone (no randomness but what the state holds).
   The search restores a state into a scratch env of one env and steps it. */
#define RL_DESC_SEARCHABLE 0x80u
/* ABI 1.9, algorithms: act_batch writes rl_act_batch.probs and values when
   the host asks for them (a policy with a value head, which a search can
   use for priors and values). */
#define RL_DESC_VALUES 0x100u
/* ABI 1.10, algorithms: the algorithm trains on a tree search's moves
   (AlphaZero): the host picks every training move by searching with the
   algorithm's own network as evaluator (it needs RL_DESC_VALUES), plays
   every seat of a training game itself (self-play through one network),
   and hands each move's policy target (the root's visit distribution, or
   its improved policy) in rl_transition.search_policy.  Its settings are
   the run's `search` group. */
#define RL_DESC_SEARCHED 0x200u
/* ABI 1.11, algorithms: the algorithm takes hybrid actions
   (RL_SPACE_HYBRID: discrete components and a box in one action). */
#define RL_DESC_HYBRID 0x400u
/* ABI 1.12, algorithms: act_batch may run on several threads at once, each
   call with its own rl_act_batch.worker below rl_algo_args.act_workers;
   calls on distinct workers write nothing in common (each its own
   scratch), and none runs beside update, observe or a checkpoint.  A
   search then evaluates each worker's leaves on that worker. */
#define RL_DESC_ACT_WORKERS 0x800u

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

/* The two kinds of plugin: environments, then algorithms (which read an
   env's rl_env_info). */
#include <rlhost/env.h>
#include <rlhost/algo.h>

#endif /* RLHOST_PLUGIN_H */
