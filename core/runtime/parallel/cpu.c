/* Hardware detection and BLAS kernel choice; see cpu.h. */
#define _GNU_SOURCE
#include "parallel/cpu.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rlhost/rlcore.h>

#define REEXEC_MARK "RLHOST_BLAS_REEXEC"

static char g_choice[192];

static int has_avx512(void)
{
#if defined(__x86_64__) && defined(__GNUC__)
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
        __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vl");
#else
    return 0;
#endif
}

static int is_avx512_core(const char *name)
{
    static const char *const cores[] = {"SkylakeX", "Cooperlake", "SapphireRapids", NULL};
    for (int i = 0; cores[i]; i++)
        if (strcasecmp(name, cores[i]) == 0) return 1;
    return 0;
}

void rl__blas_select_kernels(char **argv)
{
    const char *core = rl_blas_corename();
    const char *user = getenv("OPENBLAS_CORETYPE");
    const char *mark = getenv(REEXEC_MARK);
    if (mark) {
        snprintf(g_choice, sizeof g_choice, "%s (chosen by rlhost over OpenBLAS's %s)", core, mark);
        unsetenv(REEXEC_MARK);
        unsetenv("OPENBLAS_CORETYPE"); /* children pick for themselves */
        return;
    }
    if (user) {
        snprintf(g_choice, sizeof g_choice, "%s (OPENBLAS_CORETYPE=%s set by the user)", core, user);
        return;
    }
    /* Tests exercise the re-exec on CPUs without AVX-512 by naming a core
       type this CPU can run (e.g. Haswell); never needed otherwise. */
    const char *test_core = getenv("RLHOST_TEST_BLAS_CORETYPE");
    if ((has_avx512() && !is_avx512_core(core)) || (test_core && *test_core)) {
        setenv(REEXEC_MARK, core, 1);
        setenv("OPENBLAS_CORETYPE", test_core && *test_core ? test_core : "SkylakeX", 1);
        unsetenv("RLHOST_TEST_BLAS_CORETYPE");
        execv("/proc/self/exe", argv);
        /* exec failed: carry on with OpenBLAS's own choice */
        unsetenv(REEXEC_MARK);
        unsetenv("OPENBLAS_CORETYPE");
        snprintf(g_choice, sizeof g_choice, "%s (AVX-512 present but re-exec failed)", core);
        return;
    }
    snprintf(g_choice, sizeof g_choice, "%s (OpenBLAS's pick; %s)", core,
             has_avx512() ? "AVX-512" : "no AVX-512 on this CPU");
}

const char *rl__blas_choice(void)
{
    if (!g_choice[0]) snprintf(g_choice, sizeof g_choice, "%s", rl_blas_corename());
    return g_choice;
}
