/* See create.h. */
#include "plugin/env_create.h"

#include <stdio.h>

#include <rlhost/rlcore.h>

#include "plugin/host_api.h"

static _Thread_local const rl_plugin_desc *g_creating;

const rl_plugin_desc *rl__vecenv_creating(void)
{
    return g_creating;
}

int rl__env_create(const rl_plugin_desc *desc, const rl_env_args *args, void **env, rl_env_info *info, char *err,
                   size_t errlen)
{
    g_creating = desc;
    int rc = ((const rl_env_vtable *)desc->vtable)->create(args, env, info, err, errlen);
    g_creating = NULL;
    return rc;
}

int rl__env_open(const rl_plugin_desc *desc, const rl_value *options, const rl_value *stages, uint32_t num_envs,
                 uint64_t seed, void **env, rl_env_info *info, char *err, size_t errlen)
{
    rl_env_args args = {.struct_size = sizeof args,
                        .num_envs = num_envs,
                        .seed = seed,
                        .options = options,
                        .stages = stages,
                        .host = rl__host_api()};
    *info = (rl_env_info){.struct_size = sizeof *info, .obs_scale = 1.0f};
    char perr[RL_ERR_MAX] = "";
    int rc = rl__env_create(desc, &args, env, info, perr, sizeof perr);
    if (rc == RL_OK) return RL_OK;
    snprintf(err, errlen, "env '%s': %s", desc->name, perr[0] ? perr : rl_strerror(rc));
    *env = NULL;
    return rc < 0 ? rc : RL_EINVAL;
}
