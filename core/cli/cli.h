/* What the command-line files share. */
#ifndef RLHOST_CLI_H
#define RLHOST_CLI_H

#include <rlhost/plugin.h>

#include "run/run.h"

#define EXIT_RUN_FAILED 1
#define EXIT_USAGE 2

/* The one place a status becomes the process's exit code: 0 ok, 1 failed,
   2 a usage or config error, 128 + the signal for a run a signal stopped
   (130 SIGINT, 143 SIGTERM). */
static inline int rl__exit_code(int status)
{
    if (status == RL_OK) return 0;
    if (status == RL_EINTR) return 128 + rl__run_signal();
    return status == RL_ECONFIG ? EXIT_USAGE : EXIT_RUN_FAILED;
}

#endif
