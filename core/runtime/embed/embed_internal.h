/* What the files of the embedding API (<rlhost/host.h>) share: the
   handles' structs and the error helpers.  Not installed. */
#ifndef RLHOST_EMBED_INTERNAL_H
#define RLHOST_EMBED_INTERNAL_H

#include <rlhost/host.h>

#include "checkpoint/safetensors.h"
#include "env/vecenv.h"
#include "plugin/config.h"
#include "search/searcher.h"

/* An env the caller registered: its descriptor (first, so the descriptor
   rl__vecenv_creating() names is the record), a vtable of trampolines, and
   the caller's definition. */
typedef struct caller_env {
    rl_plugin_desc desc;
    rlh_env_def def;
    char name[64], description[160];
    struct caller_env *next;
} caller_env;

struct rlh_host {
    rl__registry reg;
    caller_env *callers;
};

struct rlh_vec {
    rl__vecenv v;
    rl__config cfg;
    rlh_buffers b;
    rlh_buffers own; /* the host's buffers, restored before destroy */
};

struct rlh_policy {
    rlh_host *h;
    rl__config cfg;
    rl__vecenv probe; /* one env: the spaces, and what a policy vec copies */
    void *algo;
    const rl_algo_vtable *avt;
    uint32_t n;
    uint64_t step;
    uint8_t *no_start;         /* n zeros: episode_start when the caller has none */
    rl__ckpt ckpt;             /* what was loaded, as validated */
    unsigned char *ckpt_bytes; /* ckpt as a file, made on first request */
    size_t ckpt_len;
    /* rlh_policy_search: the search of the last call, kept while its spec
       and vec stay the same */
    rl__search_actor search;
    char search_spec[512];
    const rlh_vec *search_vec;
    uint64_t search_calls;
};

/* err := fmt with a and b, when there is a buffer. */
void rl__embed_err(char *err, size_t errlen, const char *fmt, const char *a, const char *b);
/* Config errors (one per line, "origin:line: ...") as one sentence in err. */
void rl__embed_errors(char *err, size_t errlen, const rl__sbuf *errors);
/* An rlh_vec of the config's env, or of a config's text (vec.c; policy.c
   opens one too); eval: with its training options at their defaults, as
   an evaluation opens it (rl__env_eval_opts). */
rlh_vec *rl__embed_vec_from_config(rl__config *c, uint32_t num_envs, uint64_t seed, int eval, char *err, size_t errlen);
rlh_vec *rl__embed_vec_from_text(rlh_host *h, const char *origin, const rl__sbuf *text, const rl__override *ov,
                                 size_t n_ov, uint32_t num_envs, uint64_t seed, int eval, char *err, size_t errlen);
/* The caller's "key=value" overrides, copied into ov (train.c; policy.c
   takes them too); 0, or -1 with the sentence in err. */
int rl__embed_parse_overrides(const char *const *in, size_t n, rl__override *ov, const char **keys, char **copies,
                              char *err, size_t errlen);

#endif
