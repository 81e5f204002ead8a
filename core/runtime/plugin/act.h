/* The one way the host asks an algorithm for actions: rl_act_batch
   through the vtable's act_batch (ABI 1.8), and for a plugin built before
   it, the one adapter onto its act, act_box or act_masked. */
#ifndef RLHOST_ACT_H
#define RLHOST_ACT_H

#include <stddef.h>
#include <stdint.h>

#include <rlhost/plugin.h>

/* Whether the vtable (of a descriptor the loader checked) has act_batch. */
int rl__algo_has_act_batch(const rl_algo_vtable *vt);

/* Asks the algorithm for batch->count rows of actions.  action_kind is the
   env's (RL_SPACE_*): an older plugin's entry is picked by it as the host
   of that minor picked it (act_box for a box; act_masked for a
   MultiDiscrete space or an env that masks; act otherwise).  A plugin that
   lacks the entry its space needs is RL_ENOTSUP with a sentence (the
   caller names the plugin), never a call through NULL. */
int rl__algo_act(const rl_algo_vtable *vt, void *algo, uint32_t action_kind, const rl_act_batch *batch, char *err,
                 size_t errlen);

#endif
