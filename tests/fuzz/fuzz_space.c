/* libFuzzer target: a search-space file, as `rlhost tune CONFIG --space
   FILE --print-space` reads it against a shipped config (cartpole_ppo):
   libconfig, the entries' distributions, conditions, and every bound and
   choice loaded through the config resolver, then the space as JSON. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "plugin/loader.h"
#include "tune.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static char path[64];
    static int null_fd = -1;
    if (!path[0]) {
        /* every plugin opened once and kept: the command's own registry then
           only adds references, and no instrumented module is ever unloaded
           under libFuzzer's coverage counters */
        static rl__registry keep;
        rl__registry_discover(&keep, NULL, 0);
        snprintf(path, sizeof path, "/tmp/fuzz-space-XXXXXX");
        int fd = mkstemp(path);
        if (fd < 0) abort();
        close(fd);
        null_fd = open("/dev/null", O_WRONLY);
    }
    FILE *f = fopen(path, "w");
    if (!f) abort();
    fwrite(data, 1, size, f);
    fclose(f);
    char cfg[4096];
    snprintf(cfg, sizeof cfg, "%s/configs/cartpole_ppo.cfg", RLHOST_SOURCE_ROOT);
    char *argv[] = {"rlhost", "tune", cfg, "--space", path, "--print-space", NULL};
    fflush(stdout);
    int saved = dup(1);
    dup2(null_fd, 1); /* the JSON of a space that passes */
    rl__cmd_tune(6, argv);
    fflush(stdout);
    dup2(saved, 1);
    close(saved);
    return 0;
}
