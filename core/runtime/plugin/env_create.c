/* See create.h. */
#include "plugin/env_create.h"

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
