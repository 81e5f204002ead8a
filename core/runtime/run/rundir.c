/* The run directory; see rundir.h. */
#define _GNU_SOURCE
#include "run/rundir.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <rlhost/plugin.h>

#include "base/files.h"
#include "base/text.h"
#include "base/log.h"
#include "plugin/host_schema.h"

/* What a run writes; a directory holding any of these holds a run. */
static const char *const run_files[] = {
    "config.cfg",
    "metrics.csv",
    "summary.json",
    "checkpoint.safetensors",
    "checkpoint.prev.safetensors",
    "replay.safetensors",
    "replay.prev.safetensors",
    "curve.svg",
    "evals.csv",
    "episodes.csv",
    RL__TB_FILE,
};
#define N_RUN_FILES (sizeof run_files / sizeof *run_files)

const char *const *rl__rundir_files(size_t *n)
{
    *n = N_RUN_FILES;
    return run_files;
}

static int is_run_file(const char *name)
{
    for (size_t i = 0; i < N_RUN_FILES; i++)
        if (strcmp(name, run_files[i]) == 0) return 1;
    return 0;
}

/* A temporary file rlhost wrote and a stopped run left: the name
   rl__write_atomic gives, for a file a run writes, a regular file (no link)
   of this user. */
static int is_stale_temp(int dfd, const char *name)
{
    char base[256];
    struct stat st;
    return rl__temp_base(name, base, sizeof base) && is_run_file(base) &&
        fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode) && st.st_uid == geteuid();
}

int rl__rundir_open(const char *path, rl__rundir_mode mode, rl__rundir *rd, char *err, size_t errlen)
{
    char brief[RL__BRIEF_MAX];
    const char *dir = rl__brief(path, brief); /* for messages */
    memset(rd, 0, sizeof *rd);
    rd->fd = -1;
    rd->mode = mode;
    if (rl__mkdir_p(path, &rd->created, err, errlen) != RL_OK) return RL_EIO;
    int dfd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    struct stat st;
    if (dfd < 0 || fstat(dfd, &st) != 0) {
        snprintf(err, errlen, "cannot open %s: %s", dir, strerror(errno));
        if (dfd >= 0) close(dfd);
        return RL_EIO;
    }
    rd->fd = dfd;
    rd->dev = (unsigned long long)st.st_dev;
    rd->ino = (unsigned long long)st.st_ino;
    if (flock(dfd, LOCK_EX | LOCK_NB) != 0) {
        int e = errno;
        rl__rundir_close(rd, path);
        if (e == EWOULDBLOCK) {
            snprintf(err, errlen, "%s is in use by another rlhost run; wait for it or choose another run.out_dir", dir);
            return RL_ECONFIG;
        }
        snprintf(err, errlen, "cannot lock %s: %s", dir, strerror(e));
        return RL_EIO;
    }
    if (mode == RL__RUNDIR_NEW) {
        const char *found = NULL;
        for (size_t i = 0; i < N_RUN_FILES && !found; i++)
            if (faccessat(dfd, run_files[i], F_OK, AT_SYMLINK_NOFOLLOW) == 0) found = run_files[i];
        if (!found && faccessat(dfd, "pool", F_OK, AT_SYMLINK_NOFOLLOW) == 0) found = "pool/, a self-play pool";
        if (found) {
            rl__rundir_close(rd, path);
            snprintf(err, errlen,
                     "%s holds another run (%s); continue it with 'rlhost run --resume %s', "
                     "or replace it with --force",
                     dir, found, dir);
            return RL_ECONFIG;
        }
    }
    return RL_OK;
}

/* A self-play snapshot's name in pool/: step-<15 digits>.safetensors. */
static int is_snapshot(const char *name)
{
    return strlen(name) == 32 && !strncmp(name, "step-", 5) && strspn(name + 5, "0123456789") == 15 &&
        !strcmp(name + 20, ".safetensors");
}

/* --force: the old run's self-play pool goes with it (its snapshots and
   their temporaries; anything else in pool/ stays, and so does pool/). */
static int remove_pool(int dfd, const char *dir, char *err, size_t errlen)
{
    int pfd = openat(dfd, "pool", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (pfd < 0) return RL_OK;
    DIR *d = fdopendir(pfd);
    int rc = RL_OK;
    char base[256];
    for (struct dirent *de; d && (de = readdir(d));)
        if ((is_snapshot(de->d_name) || (rl__temp_base(de->d_name, base, sizeof base) && is_snapshot(base))) &&
            unlinkat(pfd, de->d_name, 0) != 0 && errno != ENOENT) {
            snprintf(err, errlen, "cannot remove %s/pool/%s: %s", dir, de->d_name, strerror(errno));
            rc = RL_EIO;
            break;
        }
    if (d)
        closedir(d);
    else
        close(pfd);
    if (rc == RL_OK) unlinkat(dfd, "pool", AT_REMOVEDIR); /* kept when something else is in it */
    return rc;
}

int rl__rundir_claim(rl__rundir *rd, const char *path, char *err, size_t errlen)
{
    char brief[RL__BRIEF_MAX];
    const char *dir = rl__brief(path, brief); /* for messages */
    if (rd->mode == RL__RUNDIR_FORCE)         /* nothing of the old run stays */
        for (size_t i = 0; i < N_RUN_FILES; i++)
            if (unlinkat(rd->fd, run_files[i], 0) != 0 && errno != ENOENT) {
                snprintf(err, errlen, "cannot remove %s/%s: %s", dir, run_files[i], strerror(errno));
                return RL_EIO;
            }
    if (rd->mode == RL__RUNDIR_FORCE && remove_pool(rd->fd, dir, err, errlen) != RL_OK) return RL_EIO;
    /* Under the lock no other writer exists: rlhost's temporary files are stale. */
    DIR *d = fdopendir(dup(rd->fd));
    size_t removed = 0;
    for (struct dirent *de; d && (de = readdir(d));)
        if (is_stale_temp(rd->fd, de->d_name) && unlinkat(rd->fd, de->d_name, 0) == 0) removed++;
    if (d) closedir(d);
    if (removed)
        rl__log(RL_LOG_INFO, NULL, "removed %zu temporary file%s left in %s by a stopped run", removed,
                removed == 1 ? "" : "s", dir);
    rd->claimed = 1;
    return RL_OK;
}

void rl__rundir_close(rl__rundir *rd, const char *dir)
{
    if (rd->fd < 0) return;
    struct stat st;
    /* only the directory this run made, if the path still names it */
    if (rd->created && !rd->claimed && stat(dir, &st) == 0 && (unsigned long long)st.st_dev == rd->dev &&
        (unsigned long long)st.st_ino == rd->ino)
        rmdir(dir); /* fails, as it should, when something is in it */
    close(rd->fd);
    rd->fd = -1;
}
