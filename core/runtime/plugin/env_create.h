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

/* A fresh instance of desc's env for num_envs envs seeded from seed, with
   options and stages: *info filled from nothing, a failure the sentence
   "env 'NAME': why" in err and RL_E* returned. */
int rl__env_open(const rl_plugin_desc *desc, const rl_value *options, const rl_value *stages, uint32_t num_envs,
                 uint64_t seed, void **env, rl_env_info *info, char *err, size_t errlen);

/* The descriptor whose create is running on this thread (for envs that a
   caller registers through <rlhost/host.h>, whose one create function
   serves several descriptors), or NULL. */
const rl_plugin_desc *rl__vecenv_creating(void);

#endif
