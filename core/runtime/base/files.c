/* Directories and atomic file writes; see files.h. */
#define _GNU_SOURCE
#include "base/files.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include <rlhost/plugin.h>

#include "base/text.h"

int rl__mkdir_p(const char *dir, int *created, char *err, size_t errlen)
{
    char path[PATH_MAX], brief[RL__BRIEF_MAX];
    if (created) *created = 0;
    if (!dir[0] || snprintf(path, sizeof path, "%s", dir) >= (int)sizeof path) {
        snprintf(err, errlen, "run.out_dir: %s", dir[0] ? "the path is too long" : "empty path");
        return RL_EIO;
    }
    for (char *p = path + 1;; p++) {
        if (*p == '/' || *p == 0) {
            char c = *p;
            *p = 0;
            int made = mkdir(path, 0777) == 0;
            if (!made && errno != EEXIST) {
                snprintf(err, errlen, "cannot create directory %s: %s", rl__brief(path, brief), strerror(errno));
                return RL_EIO;
            }
            *p = c;
            if (!c) {
                if (created) *created = made;
                break;
            }
        }
    }
    struct stat st;
    if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
        snprintf(err, errlen, "%s exists and is not a directory", rl__brief(dir, brief));
        return RL_EIO;
    }
    return RL_OK;
}

int rl__write_all(int fd, const void *data, size_t len, size_t *done)
{
    const char *p = data;
    size_t n = 0;
    int rc = 0;
    while (n < len) {
        ssize_t w = write(fd, p + n, len - n);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) {
            if (w == 0) errno = EIO; /* no progress: never loop on it */
            rc = -1;
            break;
        }
        n += (size_t)w;
    }
    if (done) *done = n;
    return rc;
}

/* A new temporary file beside name: exclusive, never through a link, with
   64 random bits in its name.  -1 with errno on failure. */
static int temp_open(int dfd, const char *name, char *tmp, size_t n)
{
    for (int tries = 0; tries < 8; tries++) {
        uint64_t r = 0;
        if (getrandom(&r, sizeof r, 0) != (ssize_t)sizeof r) return -1;
        if (snprintf(tmp, n, ".%s.%016llx.tmp", name, (unsigned long long)r) >= (int)n) {
            errno = ENAMETOOLONG;
            return -1;
        }
        int fd = openat(dfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
        if (fd >= 0 || errno != EEXIST) return fd;
    }
    return -1;
}

int rl__temp_base(const char *tmp, char *base, size_t n)
{
    size_t len = strlen(tmp);
    if (len < 1 + 1 + 1 + 16 + 4 || tmp[0] != '.' || strcmp(tmp + len - 4, ".tmp") != 0) return 0;
    const char *hex = tmp + len - 4 - 16;
    if (hex[-1] != '.') return 0;
    for (int k = 0; k < 16; k++)
        if (!((hex[k] >= '0' && hex[k] <= '9') || (hex[k] >= 'a' && hex[k] <= 'f'))) return 0;
    size_t blen = (size_t)(hex - 1 - (tmp + 1));
    if (!blen || blen >= n) return 0;
    memcpy(base, tmp + 1, blen);
    base[blen] = 0;
    return 1;
}

static int is_regular_at(int dfd, const char *name)
{
    struct stat st;
    return fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode);
}

/* Gives name the second name keep_as: a hard link where the file system
   has them, else a durable copy renamed into place. */
static int keep_copy(int dfd, const char *name, const char *keep_as)
{
    if (unlinkat(dfd, keep_as, 0) != 0 && errno != ENOENT) return -1;
    if (linkat(dfd, name, dfd, keep_as, 0) == 0) return 0;
    if (errno != EPERM && errno != ENOTSUP && errno != EXDEV && errno != EMLINK) return -1;
    char tmp[NAME_MAX + 1];
    int in = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC), out = -1, rc = -1;
    if (in >= 0) out = temp_open(dfd, keep_as, tmp, sizeof tmp);
    if (out >= 0) {
        char buf[65536];
        ssize_t r;
        while ((r = read(in, buf, sizeof buf)) > 0)
            if (rl__write_all(out, buf, (size_t)r, NULL) != 0) break;
        rc = r == 0 && fsync(out) == 0 ? 0 : -1;
        if (close(out) != 0) rc = -1;
        if (rc == 0) rc = renameat(dfd, tmp, dfd, keep_as);
        if (rc != 0) unlinkat(dfd, tmp, 0);
    }
    if (in >= 0) close(in);
    return rc;
}

int rl__write_atomic(rl__dir d, const char *name, const char *keep_as, const void *data, size_t len, int sync,
                     char *err, size_t errlen)
{
    char brief[RL__BRIEF_MAX];
    d.path = rl__brief(d.path, brief);
    char tmp[NAME_MAX + 1];
    int fd = temp_open(d.fd, name, tmp, sizeof tmp);
    if (fd < 0) {
        snprintf(err, errlen, "cannot write %s/%s: %s", d.path, name, strerror(errno));
        return RL_EIO;
    }
    if (rl__write_all(fd, data, len, NULL) != 0 || (sync && fsync(fd) != 0)) {
        int e = errno;
        close(fd);
        unlinkat(d.fd, tmp, 0);
        snprintf(err, errlen, "cannot write %s/%s: %s", d.path, name, strerror(e));
        return RL_EIO;
    }
    if (close(fd) != 0) {
        int e = errno;
        unlinkat(d.fd, tmp, 0);
        snprintf(err, errlen, "cannot write %s/%s: %s", d.path, name, strerror(e));
        return RL_EIO;
    }
    /* The old file gets a second name before the new one takes the first,
       so at every instant a complete file exists under name. */
    if (keep_as && is_regular_at(d.fd, name) && keep_copy(d.fd, name, keep_as) != 0) {
        int e = errno;
        unlinkat(d.fd, tmp, 0);
        snprintf(err, errlen, "cannot keep %s/%s as %s: %s", d.path, name, keep_as, strerror(e));
        return RL_EIO;
    }
    if (renameat(d.fd, tmp, d.fd, name) != 0) {
        int e = errno;
        unlinkat(d.fd, tmp, 0);
        snprintf(err, errlen, "cannot replace %s/%s: %s", d.path, name, strerror(e));
        return RL_EIO;
    }
    if (sync) fsync(d.fd);
    return RL_OK;
}

int rl__write_path(const char *path, const void *data, size_t len, char *err, size_t errlen)
{
    char dir[PATH_MAX];
    const char *slash = strrchr(path, '/');
    const char *name = slash ? slash + 1 : path;
    size_t dl = slash ? (size_t)(slash - path) : 0;
    if (!*name || dl >= sizeof dir) {
        snprintf(err, errlen, "%s: not a file name", path);
        return RL_EIO;
    }
    if (slash) {
        memcpy(dir, path, dl ? dl : 1); /* "/name": the root */
        dir[dl ? dl : 1] = 0;
    } else {
        snprintf(dir, sizeof dir, ".");
    }
    int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd < 0) {
        char brief[RL__BRIEF_MAX];
        snprintf(err, errlen, "cannot write %s: %s", rl__brief(path, brief), strerror(errno));
        return RL_EIO;
    }
    int rc = rl__write_atomic((rl__dir){dfd, dir}, name, NULL, data, len, 1, err, errlen);
    close(dfd);
    return rc;
}

int rl__open_regular(int dirfd, const char *path, int flags, struct stat *st)
{
    int fd = openat(dirfd, path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC | flags);
    if (fd < 0) return -1;
    if (fstat(fd, st) != 0 || !S_ISREG(st->st_mode)) {
        close(fd);
        return RL__NOT_REGULAR;
    }
    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
    return fd;
}
