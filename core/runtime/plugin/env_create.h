/* Creating an env instance from its descriptor: one function, so every
   creator (the vectorized env, the seats' table reseeding its env) lets a
   caller's env (rlh_env_register) know which descriptor it serves. */
#ifndef RLHOST_ENV_CREATE_H
#define RLHOST_ENV_CREATE_H

#include <stddef.h>

#include <rlhost/plugin.h>

/* desc's vtable create, with rl__vecenv_creating() saying desc meanwhile. */
int rl__env_create(const rl_plugin_desc *desc, const rl_env_args *args, void **env, rl_env_info *info, char *err,
                   size_t errlen);

/* The descriptor whose create is running on this thread (for envs that a
   caller registers through <rlhost/host.h>, whose one create function
   serves several descriptors), or NULL. */
const rl_plugin_desc *rl__vecenv_creating(void);

#endif
