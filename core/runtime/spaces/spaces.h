/* Action spaces (ABI 1.2, MultiDiscrete and masks 1.6, hybrid 1.11): what the host
   checks in an env's declaration, whether an algorithm takes it, how an
   algorithm is asked for actions of each kind, masks, clipping into a
   box, and the space as checkpoint metadata. */
#ifndef RLHOST_SPACES_H
#define RLHOST_SPACES_H

#include <stddef.h>
#include <stdint.h>

#include <rlhost/plugin.h>

#include "base/text.h"

#define RL__MAX_ACTION_DIM 256

/* An env's action space as the host keeps it (bounds copied at create). */
/* Choices of all MultiDiscrete components together, at most. */
#define RL__MAX_MASK_WIDTH (1u << 20)

/* One row's action as the host keeps it (its buffers, replicas, seats,
   rlh_buffers.actions): `ints` int32s, then `floats` float32s.  Only a
   hybrid action has both; the ABI's calls take the two parts as separate
   arrays (rl__space_split and rl__space_pack convert). */
typedef struct rl__space {
    uint32_t kind;       /* RL_SPACE_DISCRETE, _BOX, _MULTI_DISCRETE or _HYBRID */
    uint32_t n;          /* DISCRETE: actions 0 .. n-1 */
    uint32_t dim;        /* BOX: floats per action; MULTI_DISCRETE and HYBRID: components */
    float *low, *high;   /* BOX and HYBRID: [floats] */
    uint32_t *nvec;      /* MULTI_DISCRETE and HYBRID: choices of each component */
    uint32_t ints;       /* int32s of a row: 1 (DISCRETE), dim (MULTI_DISCRETE, HYBRID), 0 (BOX) */
    uint32_t floats;     /* float32s of a row: dim (BOX), the box's (HYBRID), 0 (else) */
    uint32_t mask_width; /* bytes of a mask row; 0: the env does not mask */
    size_t action_bytes; /* of one row's action: 4 (ints + floats) */
} rl__space;

/* Reads and checks env `name`'s info (its kind, n or dim, finite bounds
   with low <= high, nvec, the mask width); RL_EINVAL with the sentence in
   err. */
int rl__space_from_info(rl__space *s, const rl_env_info *info, const char *name, char *err, size_t errlen);
void rl__space_free(rl__space *s);

/* What the algorithm of desc takes, from its flags: "discrete actions,
   box actions, MultiDiscrete actions, action masks, composite
   observations" or a part of that list. */
void rl__algo_takes(const rl_plugin_desc *desc, char *buf, size_t len);

/* Whether the algorithm of desc takes env_name's space: RL_ECONFIG with a
   sentence naming both and the space when it does not. */
int rl__space_check_algo(const rl__space *s, int composite, const char *env_name, const rl_plugin_desc *desc, char *err,
                         size_t errlen);

/* The algorithm's actions for count rows (rl__algo_act): actions is count
   rows of s->action_bytes, masks count rows of s->mask_width (NULL when the
   env does not mask). */
int rl__space_act(const rl__space *s, const rl_algo_vtable *avt, void *algo, rl_act_mode mode, const void *obs,
                  const uint8_t *start, const uint8_t *masks, void *actions, uint32_t count, char *err, size_t errlen);

/* Row i's mask (s->mask_width bytes) allows at least one action of every
   component: else RL_EINVAL with a sentence naming env `name`, the row
   and, when ep_step >= 0, the row's step in its episode.  what: "a mask",
   "a final mask". */
int rl__space_check_mask(const rl__space *s, const uint8_t *mask, uint32_t i, uint32_t agents, int64_t ep_step,
                         const char *name, const char *what, char *err, size_t errlen);

/* An algorithm's rows of actions (rows of s->action_bytes) as the env
   takes them, into out (may be actions): discrete parts checked against
   their ranges and masks (RL_EINVAL), floats clipped into the box (a NaN
   is RL_ENONFINITE with the row).  who names the chooser ("algo",
   "opponent 'x'"). */
int rl__space_settle(const rl__space *s, const void *actions, void *out, const uint8_t *masks, uint32_t rows,
                     uint32_t agents, const char *who, char *err, size_t errlen);
/* rows of host rows into the ABI's two arrays: ints [rows][s->ints]
   (NULL for a box) and floats [rows][s->floats] (NULL without floats);
   and back.  For any space but a hybrid one the host row is already one
   of them, so split and pack only copy. */
void rl__space_split(const rl__space *s, const void *rows_in, uint32_t rows, int32_t *ints, float *floats);
void rl__space_pack(const rl__space *s, const int32_t *ints, const float *floats, uint32_t rows, void *rows_out);
/* Every discrete part in range and, with masks, allowed by its row's
   mask, and every float finite and inside the box, else RL_EINVAL with
   the row (the caller's actions, which are not clipped for it). */
int rl__space_check_actions(const rl__space *s, const void *actions, const uint8_t *masks, uint32_t rows,
                            uint32_t agents, const char *who, char *err, size_t errlen);

/* The space as the checkpoint's rlhost.action_space JSON. */
void rl__space_json(const rl__space *s, rl__sbuf *b);

#endif
