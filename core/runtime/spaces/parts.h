/* Observations (ABI 1.6 for composite ones): the description every env
   passes at open, and a composite observation's parts, checked once at
   open (layout) and on every row the env writes (values). */
#ifndef RLHOST_PARTS_H
#define RLHOST_PARTS_H

#include <stddef.h>
#include <stdint.h>

#include <rlhost/plugin.h>

#include "base/text.h"

#define RL__PART_NAME_MAX 32

/* The host's copy of a composite observation's parts: the env's table,
   names and nvec copied at open, so a checkpoint or an algorithm never
   reads the env's memory after it is gone. */
typedef struct rl__parts {
    uint32_t n; /* 0: one tensor */
    rl_obs_part part[RL_OBS_MAX_PARTS];
    char name[RL_OBS_MAX_PARTS][RL__PART_NAME_MAX];
    uint32_t *nvec; /* every DISCRETE part's nvec, back to back */
} rl__parts;

/* Checks env `name`'s observation description once, at open: a dtype the
   host carries (U8 or F32), 1 to 4 dimensions none of them 0, a shape
   whose product is obs_size, a row of at most RL_OBS_MAX_BYTES, a finite
   positive obs_scale, and bounds (when given) that are not NaN with
   low <= high; and, for a composite observation, its parts (see
   rl__parts_from_info).  Every buffer and network is sized from this
   description, so nothing reads or writes past a row of an env that
   misdescribes it.  Returns the bytes of one row, or 0 with the sentence
   in err. */
size_t rl__obs_check(const rl_env_info *info, const char *name, char *err, size_t errlen);

/* The parts of env `name`'s info, checked against its row of row_bytes:
   the row is U8 of one dimension with obs_scale 1; each part is named
   [A-Za-z0-9_]+ (unique, under RL__PART_NAME_MAX bytes), BOX (U8 or F32,
   scale finite and positive) or DISCRETE (U8 or I32, each element's nvec
   1 to 2^16), 1 to 4 dimensions none 0, at an offset aligned to its dtype,
   inside the row and overlapping no other part.  RL_OK (p->n = 0 for one
   tensor), or RL_EINVAL / RL_ENOMEM with the sentence. */
int rl__parts_from_info(rl__parts *p, const rl_env_info *info, size_t row_bytes, const char *name, char *err,
                        size_t errlen);
void rl__parts_free(rl__parts *p);

/* Rows [0, rows) of a composite observation (row_bytes each) hold finite
   BOX F32 elements and DISCRETE elements inside their nvec, else
   RL_ENONFINITE / RL_EINVAL with a sentence: what ("env 'x' returned an
   observation"), then the value, the part, the element and the row. */
int rl__parts_check_rows(const rl__parts *p, const void *rows, uint32_t n, size_t row_bytes, uint32_t agents,
                         const char *what, char *err, size_t errlen);

/* Row i of a batch as the host's sentences name it: "env E", or "env E
   agent A" with several agents per env. */
void rl__row_name(uint32_t i, uint32_t agents, char *buf, size_t n);

/* The parts as JSON for the checkpoint's rlhost.observation: ,"parts":[
   {"name":..,"kind":"box"|"discrete","dtype":..,"shape":[..],"offset":..,
   "scale":..,"nvec":[..]}, ...] (nothing for one tensor). */
void rl__parts_json(const rl__parts *p, rl__sbuf *b);

#endif
