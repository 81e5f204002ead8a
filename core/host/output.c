/* Run outputs; see output.h. */
#define _GNU_SOURCE
#include "output.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <rlhost/plugin.h>

int rl__mkdir_p(const char *dir, char *err, size_t errlen)
{
    char path[PATH_MAX];
    if (snprintf(path, sizeof path, "%s", dir) >= (int)sizeof path) {
        snprintf(err, errlen, "%s: path too long", dir);
        return RL_EIO;
    }
    for (char *p = path + 1;; p++) {
        if (*p == '/' || *p == 0) {
            char c = *p;
            *p = 0;
            if (mkdir(path, 0777) != 0 && errno != EEXIST) {
                snprintf(err, errlen, "cannot create directory %s: %s", path, strerror(errno));
                return RL_EIO;
            }
            *p = c;
            if (!c) break;
        }
    }
    struct stat st;
    if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
        snprintf(err, errlen, "%s exists and is not a directory", dir);
        return RL_EIO;
    }
    return RL_OK;
}

static int write_all(int fd, const char *p, size_t len)
{
    while (len) {
        ssize_t w = write(fd, p, len);
        if (w < 0) {
            if (errno == EINTR) continue;
            return -1;
        }
        p += w;
        len -= (size_t)w;
    }
    return 0;
}

int rl__write_atomic(const char *path, const char *keep_as, const void *data, size_t len,
                     int sync, char *err, size_t errlen)
{
    char tmp[PATH_MAX];
    if (snprintf(tmp, sizeof tmp, "%s.tmp.%ld", path, (long)getpid()) >= (int)sizeof tmp) {
        snprintf(err, errlen, "%s: path too long", path);
        return RL_EIO;
    }
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
    if (fd < 0) {
        snprintf(err, errlen, "cannot write %s: %s", tmp, strerror(errno));
        return RL_EIO;
    }
    if (write_all(fd, data, len) != 0 || (sync && fsync(fd) != 0)) {
        int e = errno;
        close(fd);
        unlink(tmp);
        snprintf(err, errlen, "cannot write %s: %s", path, strerror(e));
        return RL_EIO;
    }
    if (close(fd) != 0) {
        int e = errno;
        unlink(tmp);
        snprintf(err, errlen, "cannot write %s: %s", path, strerror(e));
        return RL_EIO;
    }
    if (keep_as && access(path, F_OK) == 0 && rename(path, keep_as) != 0) {
        int e = errno;
        unlink(tmp);
        snprintf(err, errlen, "cannot keep %s as %s: %s", path, keep_as, strerror(e));
        return RL_EIO;
    }
    if (rename(tmp, path) != 0) {
        int e = errno;
        unlink(tmp);
        snprintf(err, errlen, "cannot replace %s: %s", path, strerror(e));
        return RL_EIO;
    }
    if (sync) {
        char dcopy[PATH_MAX];
        snprintf(dcopy, sizeof dcopy, "%s", path);
        int dfd = open(dirname(dcopy), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (dfd >= 0) {
            fsync(dfd);
            close(dfd);
        }
    }
    return RL_OK;
}
