/* What the page's host (web_host.c) shares with the game page's searching
   player (web_versus.c, in a build of a two-player game). */
#ifndef RLHOST_WEB_HOST_H
#define RLHOST_WEB_HOST_H
#include <stddef.h>
#include <stdint.h>

#include <rlhost/plugin.h>

#define WEB_ENVS 16 /* rlhost eval's most envs (RL__MAX_EVAL_ENVS) */
#ifdef WEB_VERSUS
#define WEB_AGENTS 2 /* a game of two seats taking turns */
#else
#define WEB_AGENTS 1
#endif

/* The env as web_open opened it: its plugin's descriptor, the option and
   stage values it was created with, the host it was given, and the
   instance of WEB_ENVS envs with its buffers (rows of row_bytes per env
   and agent, actions written through `actions`). */
typedef struct web_site {
    const rl_plugin_desc *desc;
    const rl_value *opts, *stages;
    const rl_host_api *host;
    const rl_env_vtable *vt;
    void *env;
    const rl_env_info *info;
    rl_env_io *io;
    int32_t *actions; /* what io.actions reads: [env][agent] */
    size_t row_bytes;
} web_site;
web_site web_site_of(void);

/* web_error()'s message: a, then b (may be NULL). */
void web_say(const char *a, const char *b);
#endif
