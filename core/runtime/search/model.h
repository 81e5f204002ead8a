/* An env's rules as the tree search sees them (<rlhost/search.h>): the
   env's own step, run on scratch instances of it.  A state is the env's
   saved state (rl.env.state/1) of one env, behind a header that says whose
   move it is and which moves are allowed; stepping one restores it into a
   scratch env of one env, steps that, and saves the result.  Only an env
   that declares RL_DESC_SEARCHABLE is modeled: its saved tensors hold one
   slice per env, so one env's state is cut from a live instance's save. */
#ifndef RLHOST_MODEL_H
#define RLHOST_MODEL_H

#include <stddef.h>
#include <stdint.h>

#include <rlhost/plugin.h>
#include <rlhost/search.h>

typedef struct rl__model rl__model;

/* A model of desc's env with options and stages (as the live env was
   made), one scratch env per worker.  info is the live env's.  RL_OK, or
   an RL_E* with a sentence naming the env: an env not searchable, without
   saved state, with actions other than discrete, or with agents other
   than one or two in turns. */
int rl__model_open(rl__model **out, const rl_plugin_desc *desc, const rl_value *options, const rl_value *stages,
                   const rl_env_info *info, uint32_t workers, char *err, size_t errlen);
void rl__model_close(rl__model *m); /* NULL is a no-op */

/* The model as the search takes it. */
const rl_search_model *rl__model_search(const rl__model *m);

/* Roots from a live instance of the env (vt, env) of `boards` envs, between
   steps: state [count][state_bytes] of env boards_of[j], whose agent
   movers[j] is to move with masks[j] (NULL: every move).  RL_ECORRUPT with
   a sentence when a saved tensor is not one slice per env. */
int rl__model_roots(rl__model *m, const rl_env_vtable *vt, void *env, uint32_t boards, const uint32_t *boards_of,
                    const uint32_t *movers, const uint8_t *masks, size_t mask_stride, uint32_t count, void *states,
                    char *err, size_t errlen);

#endif
