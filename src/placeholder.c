/* A placeholder several runs may share: the empty .git of a project that is
 * no repository, or a coding agent's configuration directory that is not
 * there (.claude), which keeps the command from making one there. Each run
 * holds it with a shared flock for as long as it runs, and the last to let
 * go removes it, with rmdir: only while it is empty, so what another process
 * put there stays. Made or found empty, opened, locked, then checked to still
 * be what the path names: a run that let go and removed it in between makes
 * this one start over. */
#include "util.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

struct lcsb_hold {
    int fd;
    char *path;
};

static bool same_file(int fd, const char *path) {
    struct stat a, b;
    return fstat(fd, &a) == 0 && lstat(path, &b) == 0 && a.st_dev == b.st_dev &&
           a.st_ino == b.st_ino;
}

static bool dir_is_empty(int fd) {
    int copy = openat(fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    DIR *d = copy >= 0 ? fdopendir(copy) : NULL;
    if (!d) {
        if (copy >= 0) close(copy);
        return false;
    }
    struct dirent *e;
    bool empty = true;
    while (empty && (e = readdir(d)))
        empty = strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0;
    closedir(d);
    return empty;
}

/* A shared lock on FD, waiting at most about a second: another run holds
 * it exclusively only for the moment it takes to remove the directory, so a
 * longer wait means some other process is sitting on it. */
static int lock_shared(int fd) {
    for (int waited_ms = 0;; waited_ms += 2) {
        if (flock(fd, LOCK_SH | LOCK_NB) == 0) return 0;
        if (errno != EWOULDBLOCK || waited_ms >= 1000) return -1;
        nanosleep(&(struct timespec){.tv_nsec = 2000000}, NULL);
    }
}

int lcsb_hold_acquire(const char *path, lcsb_hold **out, bool *unwritable, lcsb_error *err) {
    *out = NULL;
    if (unwritable) *unwritable = false;
    if (!path || path[0] != '/') return lcsb__fail(err, LCSB_EINVAL, "hold: not an absolute path");
    const char *why = NULL;
    for (int attempt = 0; attempt < 16 && !why; attempt++) {
        if (mkdir(path, 0700) != 0 && errno != EEXIST) {
            if (unwritable) *unwritable = errno == EACCES || errno == EPERM || errno == EROFS;
            why = strerror(errno);
            break;
        }
        int fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (fd < 0 && errno == ENOENT) continue; /* let go of and removed just now */
        if (fd < 0) {
            why = strerror(errno);
        } else if (lock_shared(fd) != 0) {
            why = errno == EWOULDBLOCK ? "another process has held it locked for over a second"
                                       : strerror(errno);
        } else if (!same_file(fd, path)) {
            close(fd);
            continue;
        } else if (!dir_is_empty(fd)) {
            why = strerror(ENOTEMPTY);
        } else {
            lcsb_hold *h = malloc(sizeof *h);
            if (!h || !(h->path = strdup(path))) {
                free(h);
                close(fd);
                return lcsb__fail(err, LCSB_ENOMEM, "out of memory");
            }
            h->fd = fd;
            *out = h;
            return 0;
        }
        if (fd >= 0) close(fd);
    }
    return lcsb__fail(err, LCSB_ESYS, "%s: %s", path,
                      why ? why : "removed by other runs as often as it was made");
}

int lcsb_hold_release(lcsb_hold *h, lcsb_error *err) {
    if (!h) return 0;
    int rc = 0;
    /* Exclusive only when no other run holds it: then it is ours to remove. */
    if (flock(h->fd, LOCK_EX | LOCK_NB) == 0 && same_file(h->fd, h->path) && rmdir(h->path) != 0)
        rc = lcsb__fail(err, LCSB_ESYS, "%s: %s", h->path, strerror(errno));
    close(h->fd);
    free(h->path);
    free(h);
    return rc;
}
