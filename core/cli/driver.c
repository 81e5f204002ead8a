/* Python drivers run from the rlhost command (see driver.h). */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "cli.h"
#include "driver.h"
#include "plugin/loader.h"

#ifndef RLHOST_SOURCE_ROOT
#define RLHOST_SOURCE_ROOT ""
#endif

/* Where the Python driver is: the interpreter and, run from the build
   tree, this checkout's package and libraries. */
static const char *python_exe(char *buf, size_t n)
{
    const char *py = getenv("RLHOST_PYTHON");
    if (py && *py) return py;
    if (rl__running_from_build_tree() && RLHOST_SOURCE_ROOT[0]) {
        snprintf(buf, n, "%s/.venv/bin/python", RLHOST_SOURCE_ROOT);
        if (access(buf, X_OK) == 0) return buf;
    }
    return "python3";
}

int rl__exec_driver(const char *module, const char *need_extra, const char *pip_extra, int argc, char **argv,
                    const char *space_json)
{
    char pybuf[PATH_MAX], self[PATH_MAX];
    const char *py = python_exe(pybuf, sizeof pybuf);
    ssize_t len = readlink("/proc/self/exe", self, sizeof self - 1);
    if (len > 0) {
        self[len] = 0;
        setenv("RLHOST_EXE", self, 1);
    }
    if (rl__running_from_build_tree()) {
        char path[2 * PATH_MAX + 8];
        const char *old = getenv("PYTHONPATH");
        snprintf(path, sizeof path, "%s/python%s%s", RLHOST_SOURCE_ROOT, old && *old ? ":" : "", old ? old : "");
        setenv("PYTHONPATH", path, 1);
        setenv("RLHOST_LIB_DIR", RLHOST_BUILD_ROOT, 0);
    }
    /* What the driver needs, and how to get it: said in one sentence when
       the interpreter is missing (here) or lacks a module (the bootstrap,
       so that it is no traceback). */
    char need[160], how[256], boot[1024];
    snprintf(need, sizeof need, "rlhost: %s needs Python with the rlhost package, NumPy, Gymnasium%s", module,
             need_extra);
    snprintf(how, sizeof how,
             "in a checkout run scripts/pydeps.sh (it fills .venv, which rlhost uses); installed, pip install "
             "rlhost%s; RLHOST_PYTHON names another interpreter",
             pip_extra);
    snprintf(boot, sizeof boot,
             "import sys\n"
             "try:\n"
             "    import rlhost._%s as m\n"
             "except ImportError as e:\n"
             "    sys.exit('%s (' + str(e) + '): %s')\n"
             "sys.exit(m.T.cli(m.main))\n",
             module, need, how);
    /* argv: python -c BOOT [--space-fd FD] ARGS...; the space travels in an
       anonymous file, as a 12,000-value choice is more than one argument
       may hold */
    char fdtext[16];
    if (space_json) {
        int fd = memfd_create("rlhost-driver-space", 0); /* inherited across exec */
        size_t n_json = strlen(space_json), put = 0;
        ssize_t w = 0;
        while (fd >= 0 && put < n_json && (w = write(fd, space_json + put, n_json - put)) > 0) put += (size_t)w;
        if (fd < 0 || put < n_json || lseek(fd, 0, SEEK_SET) != 0) {
            fprintf(stderr, "rlhost: %s: cannot hand the search space to the driver: %s\n", module, strerror(errno));
            return EXIT_RUN_FAILED;
        }
        snprintf(fdtext, sizeof fdtext, "%d", fd);
    }
    char **args = calloc((size_t)argc + 6, sizeof *args);
    if (!args) return EXIT_RUN_FAILED;
    size_t k = 0;
    args[k++] = (char *)py;
    args[k++] = "-c";
    args[k++] = boot;
    if (space_json) {
        args[k++] = "--space-fd";
        args[k++] = fdtext;
    }
    for (int i = 2; i < argc; i++) args[k++] = argv[i];
    args[k] = NULL;
    fflush(NULL);
    execvp(py, args);
    fprintf(stderr, "%s (%s: %s): %s\n", need, py, strerror(errno), how);
    free(args);
    return EXIT_RUN_FAILED;
}
