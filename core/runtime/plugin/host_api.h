/* The services table the host hands every plugin at init (rl_host_api):
   the log, the CPU count, status strings. */
#ifndef RLHOST_PLUGIN_HOST_API_H
#define RLHOST_PLUGIN_HOST_API_H

#include <rlhost/plugin.h>

/* The services table handed to plugins. */
const rl_host_api *rl__host_api(void);

#endif
