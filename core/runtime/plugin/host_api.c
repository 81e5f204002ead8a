/* The services table handed to plugins; see host_api.h. */
#define _GNU_SOURCE
#include "plugin/host_api.h"

#include <sched.h>
#include <unistd.h>

#include <rlhost/rlcore.h>

#include "base/log.h"

static uint32_t host_cpu_count(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) == 0) {
        int c = CPU_COUNT(&set);
        if (c > 0 && (n <= 0 || c < n)) n = c;
    }
    return n > 0 ? (uint32_t)n : 1;
}

volatile sig_atomic_t rl__stop_signal;

static int host_interrupted(void)
{
    return rl__stop_signal != 0;
}

static const rl_host_api g_host_api = {
    .struct_size = sizeof(rl_host_api),
    .abi = {RL_ABI_MAJOR, RL_ABI_MINOR},
    .log = rl__log,
    .cpu_count = host_cpu_count,
    .strerror = rl_strerror,
    .interrupted = host_interrupted,
};

const rl_host_api *rl__host_api(void)
{
    return &g_host_api;
}
