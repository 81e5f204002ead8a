/* Action spaces (ABI 1.2): what the host checks in an env's declaration,
   whether an algorithm takes it, how an algorithm is asked for actions of
   either kind, clipping into a box, and the space as checkpoint metadata. */
#ifndef RLHOST_SPACES_H
#define RLHOST_SPACES_H

#include <stddef.h>
#include <stdint.h>

#include <rlhost/plugin.h>

#include "base/text.h"

#define RL__MAX_ACTION_DIM 256

/* An env's action space as the host keeps it (bounds copied at create). */
typedef struct rl__space {
    uint32_t kind; /* RL_SPACE_DISCRETE or RL_SPACE_BOX */
    uint32_t n;    /* DISCRETE: actions 0 .. n-1 */
    uint32_t dim;  /* BOX: floats per action */
    float *low, *high;
    size_t action_bytes; /* of one row's action: 4 (int32) or 4 dim (float32) */
} rl__space;

/* Reads and checks env `name`'s info (its kind, n or dim, finite bounds
   with low <= high); RL_EINVAL with the sentence in err. */
int rl__space_from_info(rl__space *s, const rl_env_info *info, const char *name, char *err, size_t errlen);
void rl__space_free(rl__space *s);

/* Checks env `name`'s observation description once, at open: a dtype the
   host carries (U8 or F32), 1 to 4 dimensions none of them 0, a shape
   whose product is obs_size, a row of at most RL_OBS_MAX_BYTES, a finite
   positive obs_scale, and bounds (when given) that are not NaN with
   low <= high.  Every buffer and network is sized from this description,
   so nothing reads or writes past a row of an env that misdescribes it.
   Returns the bytes of one row, or 0 with the sentence in err. */
size_t rl__obs_check(const rl_env_info *info, const char *name, char *err, size_t errlen);

/* Whether the algorithm of desc takes env_name's space: RL_ECONFIG with a
   sentence naming both and the space when it does not. */
int rl__space_check_algo(const rl__space *s, const char *env_name, const rl_plugin_desc *desc, char *err,
                         size_t errlen);

/* act or act_box by the space's kind; actions is count rows of
   s->action_bytes. */
int rl__space_act(const rl__space *s, const rl_algo_vtable *avt, void *algo, rl_act_mode mode, const void *obs,
                  const uint8_t *start, void *actions, uint32_t count, char *err, size_t errlen);

/* BOX: rows of actions into [low, high] (out may be actions); a NaN is
   RL_ENONFINITE with the row.  who names the chooser ("algo", "the caller"). */
int rl__space_clip(const rl__space *s, const float *actions, float *out, uint32_t rows, uint32_t agents,
                   const char *who, char *err, size_t errlen);
/* DISCRETE: every action in [0, n), else RL_EINVAL with the row; BOX: every
   value finite and inside the box, else RL_EINVAL (the caller's actions,
   which are not clipped for it). */
int rl__space_check_actions(const rl__space *s, const void *actions, uint32_t rows, uint32_t agents, const char *who,
                            char *err, size_t errlen);

/* The space as the checkpoint's rlhost.action_space JSON. */
void rl__space_json(const rl__space *s, rl__sbuf *b);

#endif
