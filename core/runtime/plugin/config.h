/* Run configuration: reads a libconfig file, applies --set overrides, finds
   the env and algo plugins, validates every key against the host's and the
   plugins' schemas and resolves each option to a typed value (override, else
   file, else default).  Errors carry file:line, the key path and what was
   expected. */
#ifndef RLHOST_CONFIG_H
#define RLHOST_CONFIG_H

/* Bytes of a resolved config at most: every checkpoint stores it as one
   metadata value (checkpoint/safetensors.h holds at least this much). */
#define RL__CONFIG_MAX_TEXT ((1u << 20) - 1)

#include "plugin/host_schema.h"
#include "plugin/loader.h"
#include "plugin/schema.h"
#include "base/arena.h"
#include "base/text.h"

/* Resolved values for one schema, aligned with defs. */
typedef struct rl__group {
    const rl_option_def *defs;
    uint32_t n;
    rl_value *vals;
} rl__group;

typedef struct rl__override {
    const char *key;   /* "algo.lr", "env.optimizations.threads" */
    const char *value; /* config syntax, or a bare word for strings */
} rl__override;

typedef struct rl__config {
    rl__arena arena;
    const char *path;
    rl__group run; /* host: run group */
    const rl__plugin *env, *algo;
    const rl__registry *reg;      /* what the plugins were found in (opponents are looked up there) */
    rl__group env_host, env_opts; /* host env options, plugin options */
    rl__group env_host_stages, env_stages;
    rl__group algo_opts, algo_stages;
    rl__group seats;  /* host: who plays an env's seats (read for envs with seats) */
    int seats_given;  /* the file or an override sets the seats group: it is formatted */
    rl__group search; /* host: how an algorithm that trains on search searches (RL_DESC_SEARCHED) */
    int search_given; /* as seats_given */
    /* the env's options for an evaluation (a run's, `eval`, `play`): the
       config's with each training option (RL_OPT_TRAINING) at its default */
    rl_value *env_eval_vals;
} rl__config;

static inline const rl_value *rl__env_eval_opts(const rl__config *c)
{
    return c->env_eval_vals ? c->env_eval_vals : c->env_opts.vals;
}

/* The steps the algorithm's schedules span (rl_algo_args.total_steps):
   run.schedule_steps, or run.steps where that is 0. */
uint64_t rl__schedule_steps(const rl__config *c);
/* search.threads of the training search; 0 for "auto" (every core). */
uint32_t rl__search_threads(const rl__config *c);

/* Splits "key=value" into an override; RL_ECONFIG if there is no '='. */
int rl__override_parse(char *arg, rl__override *out);

/* Loads and resolves.  On failure returns RL_ECONFIG (or RL_EIO, RL_ENOMEM),
   appends one line per problem to errors and leaves *c empty (destroying it
   again is harmless). */
int rl__config_load(rl__config *c, const char *path, const rl__override *ov, size_t n_ov, const rl__registry *reg,
                    rl__sbuf *errors);

/* The same from text; origin names it in messages.  need_algo = 0 resolves
   the run and env groups only (c->algo stays NULL). */
int rl__config_load_text(rl__config *c, const char *origin, const char *text, const rl__override *ov, size_t n_ov,
                         const rl__registry *reg, rl__sbuf *errors, int need_algo);

/* The option KEY names in a resolved config ("algo.lr",
   "env.optimizations.threads"), with its value in *val (val may be NULL);
   NULL for a key of no schema. */
const rl_option_def *rl__config_find(rl__config *c, const char *key, const rl_value **val);

/* The fully resolved config in libconfig syntax (reads back as is). */
void rl__config_format(const rl__config *c, rl__sbuf *out);
/* 1 when key ("algo.NAME" or "env.NAME", klen bytes) is a plugin option
   flagged RL_OPT_ADDED and value (vlen bytes, as rl__config_format writes
   it) is its default: a checkpoint written before the option existed
   then ran with this value. */
int rl__config_added_default(const rl__config *c, const char *key, size_t klen, const char *value, size_t vlen);

void rl__config_destroy(rl__config *c);

#endif
