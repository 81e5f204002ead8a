/* The services table the host hands every plugin at init (rl_host_api):
   the log, the CPU count, status strings, whether the user asked to stop. */
#ifndef RLHOST_PLUGIN_HOST_API_H
#define RLHOST_PLUGIN_HOST_API_H

#include <signal.h>

#include <rlhost/plugin.h>

/* The services table handed to plugins. */
const rl_host_api *rl__host_api(void);

/* The signal that asked the run to stop (SIGINT, SIGTERM), 0 while none
   has: set by the run's handler, read by rl_host_api.interrupted. */
extern volatile sig_atomic_t rl__stop_signal;

#endif
