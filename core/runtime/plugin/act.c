/* The host's one act call; see act.h. */
#include "plugin/act.h"

#include <stdio.h>

int rl__algo_has_act_batch(const rl_algo_vtable *vt)
{
    return RL_HAS_FIELD(vt, rl_algo_vtable, act_batch) && vt->act_batch;
}

/* An older plugin's entries, read only as far as its struct_size covers. */
static int legacy_act(const rl_algo_vtable *vt, void *algo, uint32_t action_kind, const rl_act_batch *b, char *err,
                      size_t errlen)
{
    if (action_kind == RL_SPACE_BOX) {
        if (RL_HAS_FIELD(vt, rl_algo_vtable, act_box) && vt->act_box)
            return vt->act_box(algo, b->mode, b->obs, b->episode_start, b->box_actions, b->count, err, errlen);
        snprintf(err, errlen, "its vtable has neither act_batch nor act_box: it cannot choose box actions");
        return RL_ENOTSUP;
    }
    if (action_kind == RL_SPACE_MULTI_DISCRETE || b->masks) {
        if (RL_HAS_FIELD(vt, rl_algo_vtable, act_masked) && vt->act_masked)
            return vt->act_masked(algo, b->mode, b->obs, b->episode_start, b->masks, b->actions, b->count, err, errlen);
        snprintf(err, errlen,
                 "its vtable has neither act_batch nor act_masked: it cannot take action masks or MultiDiscrete "
                 "actions");
        return RL_ENOTSUP;
    }
    if (vt->act) return vt->act(algo, b->mode, b->obs, b->episode_start, b->actions, b->count, err, errlen);
    snprintf(err, errlen, "its vtable has neither act_batch nor act: it cannot choose discrete actions");
    return RL_ENOTSUP;
}

int rl__algo_act(const rl_algo_vtable *vt, void *algo, uint32_t action_kind, const rl_act_batch *batch, char *err,
                 size_t errlen)
{
    if (rl__algo_has_act_batch(vt)) return vt->act_batch(algo, batch, err, errlen);
    return legacy_act(vt, algo, action_kind, batch, err, errlen);
}
