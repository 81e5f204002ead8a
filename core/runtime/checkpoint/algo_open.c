/* An algorithm built from a config to act (or train) outside a run; see
   algo_open.h. */
#include "checkpoint/algo_open.h"

#include <stdio.h>

#include <rlhost/rlcore.h>

#include "checkpoint/restore.h"
#include "parallel/replicas.h"
#include "plugin/loader.h"
#include "plugin/config.h"
#include "plugin/host_api.h"

void *rl__policy_open(const rl__config *c, const rl_env_info *info, uint32_t n_eval, rl__restore *r, char *err,
                      size_t errlen)
{
    return rl__algo_open(c, info, n_eval, 1, r, err, errlen);
}

void *rl__algo_open(const rl__config *c, const rl_env_info *info, uint32_t n_eval, int inference, rl__restore *r,
                    char *err, size_t errlen)
{
    char perr[RL_ERR_MAX] = "";
    const rl_algo_vtable *avt = c->algo->desc->vtable;
    uint32_t agents = info->agents ? info->agents : 1; /* the algorithm's envs are rows */
    rl_algo_args args = {.struct_size = sizeof args,
                         .env = info,
                         .num_envs = (uint32_t)c->env_host.vals[RL__ENV_NUM_ENVS].i * agents,
                         .num_eval_envs = n_eval,
                         .seed = (uint64_t)c->run.vals[RL__RUN_SEED].i,
                         .total_steps = rl__schedule_steps(c),
                         .options = c->algo_opts.vals,
                         .stages = c->algo_stages.vals,
                         .host = rl__host_api(),
                         .replicas = rl__replicas_single(),
                         .inference = (uint32_t)(inference != 0),
                         .steps = &rl__no_steps,
                         .act_workers = rl__act_workers(c->algo->desc, 0)};
    void *algo = NULL;
    int rc = avt->create(&args, &algo, perr, sizeof perr);
    if (rc != RL_OK) {
        snprintf(err, errlen, "algo '%s': %s", c->algo->desc->name, perr[0] ? perr : rl_strerror(rc));
        return NULL;
    }
    if (r && r->path && rl__ckpt_restore(r, c, algo, err, errlen) != RL_OK) {
        avt->destroy(algo);
        return NULL;
    }
    return algo;
}
