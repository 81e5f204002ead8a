/* The run directory; see rundir.h. */
#define _GNU_SOURCE
#include "rundir.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <rlhost/plugin.h>

#include "output.h"
#include "util.h"

/* What a run writes; a directory holding any of these holds a run. */
static const char *const run_files[] = {
    "config.cfg",          "metrics.csv",           "summary.json",
    "checkpoint.safetensors", "checkpoint.prev.safetensors", "replay.safetensors",
    "replay.prev.safetensors", "curve.svg", "evals.csv", RL__TB_FILE,
};
#define N_RUN_FILES (sizeof run_files / sizeof *run_files)

const char *const *rl__rundir_files(size_t *n)
{
    *n = N_RUN_FILES;
    return run_files;
}

/* "NAME.tmp.DIGITS": what rl__write_atomic writes before its rename. */
static int is_temp(const char *name)
{
    const char *t = strstr(name, ".tmp.");
    if (!t || t == name) return 0;
    for (t += 5; *t; t++)
        if (*t < '0' || *t > '9') return 0;
    return t[-1] != '.';
}

int rl__rundir_open(const char *dir, rl__rundir_mode mode, int *fd, char *err, size_t errlen)
{
    *fd = -1;
    if (rl__mkdir_p(dir, err, errlen) != RL_OK) return RL_EIO;
    int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd < 0) {
        snprintf(err, errlen, "cannot open %s: %s", dir, strerror(errno));
        return RL_EIO;
    }
    if (flock(dfd, LOCK_EX | LOCK_NB) != 0) {
        int e = errno;
        close(dfd);
        if (e == EWOULDBLOCK) {
            snprintf(err, errlen, "%s is in use by another rlhost run; wait for it or choose another run.out_dir", dir);
            return RL_ECONFIG;
        }
        snprintf(err, errlen, "cannot lock %s: %s", dir, strerror(e));
        return RL_EIO;
    }
    /* Under the lock no other writer exists: temporary files are stale. */
    DIR *d = fdopendir(dup(dfd));
    size_t removed = 0;
    for (struct dirent *de; d && (de = readdir(d));)
        if (is_temp(de->d_name) && unlinkat(dfd, de->d_name, 0) == 0) removed++;
    if (d) closedir(d);
    if (removed)
        rl__log(RL_LOG_INFO, NULL, "removed %zu temporary file%s left in %s by a stopped run", removed,
                removed == 1 ? "" : "s", dir);
    if (mode != RL__RUNDIR_RESUME) {
        const char *found = NULL;
        for (size_t i = 0; i < N_RUN_FILES && !found; i++)
            if (faccessat(dfd, run_files[i], F_OK, 0) == 0) found = run_files[i];
        if (found && mode == RL__RUNDIR_NEW) {
            close(dfd);
            snprintf(err, errlen, "%s holds another run (%s); continue it with 'rlhost run --resume %s', "
                                  "or replace it with --force",
                     dir, found, dir);
            return RL_ECONFIG;
        }
        for (size_t i = 0; found && i < N_RUN_FILES; i++) /* --force: nothing of the old run stays */
            if (unlinkat(dfd, run_files[i], 0) != 0 && errno != ENOENT) {
                snprintf(err, errlen, "cannot remove %s/%s: %s", dir, run_files[i], strerror(errno));
                close(dfd);
                return RL_EIO;
            }
    }
    *fd = dfd;
    return RL_OK;
}

int rl__run_paths_of(const char *path, rl__run_paths *p)
{
    struct stat st;
    if (stat(path, &st) != 0 || !S_ISDIR(st.st_mode)) return 0;
    snprintf(p->config, sizeof p->config, "%s/config.cfg", path);
    snprintf(p->checkpoint, sizeof p->checkpoint, "%s/checkpoint.safetensors", path);
    snprintf(p->prev, sizeof p->prev, "%s/checkpoint.prev.safetensors", path);
    return 1;
}
