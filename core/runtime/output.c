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

/* Gives path the second name keep_as: a hard link where the file system has
   them, else a durable copy renamed into place. */
static int keep_copy(const char *path, const char *keep_as)
{
    if (unlink(keep_as) != 0 && errno != ENOENT) return -1;
    if (link(path, keep_as) == 0) return 0;
    if (errno != EPERM && errno != ENOTSUP && errno != EXDEV && errno != EMLINK) return -1;
    char tmp[PATH_MAX];
    if (snprintf(tmp, sizeof tmp, "%s.tmp.%ld", keep_as, (long)getpid()) >= (int)sizeof tmp) {
        errno = ENAMETOOLONG;
        return -1;
    }
    int in = open(path, O_RDONLY | O_CLOEXEC), out = -1, rc = -1;
    if (in >= 0) out = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
    if (out >= 0) {
        char buf[65536];
        ssize_t r;
        while ((r = read(in, buf, sizeof buf)) > 0)
            if (write_all(out, buf, (size_t)r) != 0) break;
        rc = r == 0 && fsync(out) == 0 ? 0 : -1;
        if (close(out) != 0) rc = -1;
        if (rc == 0) rc = rename(tmp, keep_as);
        if (rc != 0) unlink(tmp);
    }
    if (in >= 0) close(in);
    return rc;
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
    /* The old file gets a second name before the new one takes the first,
       so at every instant a complete file exists under path. */
    if (keep_as && access(path, F_OK) == 0 && keep_copy(path, keep_as) != 0) {
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
