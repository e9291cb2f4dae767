/* A placeholder several runs may share: the empty .git of a project that is
 * no repository, or a coding agent's configuration directory that is not
 * there (.claude), which keeps the command from making one there. Each run
 * holds it with a shared flock for as long as it runs, and the last to let
 * go removes it: only while it is empty, so what another process put there
 * stays. Made or found empty, opened, locked, then checked to still be what
 * the path names: a run that let go and removed it in between makes this
 * one start over.
 *
 * Removed into the user's stash, not by rmdir, where it can be: the empty
 * directory is renamed into $XDG_STATE_HOME/lcsb/holds and the next run
 * renames it back, so that a run makes and frees no inode. On ext4 without
 * a journal (this project's CI machines) a new inode is searched for past
 * every one freed in the last seconds, and a mkdir there took up to a
 * millisecond when runs came one after another (docs/performance.md). The
 * stash is the user's own, and nothing but an empty directory of theirs is
 * taken from it; where it cannot serve (another file system, no state
 * directory) the placeholder is made and removed as before. */
#include "trust.h"
#include "util.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/random.h>
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

/* How many of the stash's entries a run looks at before it makes its own. */
#define STASH_LOOKS 16

/* The stash's directory (its path into STASH), opened and checked to be the
 * user's own and written by no one else; MAKE: made when it is not there
 * (its parent must be). -1 when there is none to use. */
static int open_stash(bool make, char stash[PATH_MAX]) {
    char store[PATH_MAX];
    struct stat st;
    if (lcsb__trust_store(store, sizeof store, NULL)) return -1;
    *strrchr(store, '/') = '\0';
    if ((size_t)snprintf(stash, PATH_MAX, "%s/holds", store) >= PATH_MAX) return -1;
    if (make && mkdir(stash, 0700) != 0 && errno != EEXIST) return -1;
    int fd = open(stash, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd >= 0 && (fstat(fd, &st) != 0 || st.st_uid != geteuid() || (st.st_mode & 077))) {
        close(fd);
        return -1;
    }
    return fd;
}

/* NAME in STASH, if it is an empty directory of the user's, mode 0700,
 * renamed to PATH: 0, or -1 with errno (ENOENT: another run took it). A
 * name is never used twice (stash), so the one checked is the one moved. */
static int take_one(int stash, const char *name, const char *path) {
    struct stat st;
    int fd = openat(stash, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC), rc = -1;
    if (fd < 0) return -1;
    if (fstat(fd, &st) == 0 && st.st_uid == geteuid() && (st.st_mode & 07777) == 0700 &&
        dir_is_empty(fd))
        rc = renameat2(stash, name, AT_FDCWD, path, RENAME_NOREPLACE);
    else
        errno = ENOTEMPTY;
    int saved = errno;
    close(fd);
    errno = saved;
    return rc;
}

/* A stashed placeholder renamed to PATH: 0, or -1 when the stash has none
 * to give or cannot reach PATH (errno EEXIST: PATH is there now). */
static int take_stashed(const char *path) {
    char where[PATH_MAX];
    int stash = open_stash(false, where), rc = -1;
    DIR *d = stash >= 0 ? fdopendir(stash) : NULL;
    struct dirent *e;
    if (!d) {
        if (stash >= 0) close(stash);
        return -1;
    }
    for (int looked = 0; rc != 0 && looked < STASH_LOOKS && (e = readdir(d)); looked++) {
        if (strncmp(e->d_name, "p.", 2) != 0) continue;
        rc = take_one(dirfd(d), e->d_name, path);
        /* Another file system, or PATH made meanwhile: no entry will do. */
        if (rc != 0 && errno != ENOENT && errno != ENOTEMPTY) break;
    }
    int saved = errno;
    closedir(d);
    errno = saved;
    return rc;
}

/* What became of a placeholder let go of into the stash. */
enum stashed { STASHED, NOT_STASHED, FILLED };

/* PATH, empty and held exclusively by FD, taken out of the project into the
 * stash under a name of its own (STASHED), or left where it is
 * (NOT_STASHED). Had anything been put in it meanwhile, FILLED: it goes
 * back to PATH, or, were PATH taken again in that instant, stays whole in
 * the stash, where no run takes a directory that is not empty; NAME says
 * which. */
static enum stashed stash(int fd, const char *path, char name[PATH_MAX]) {
    char stash_path[PATH_MAX], own[32];
    unsigned char bytes[8];
    int dir = open_stash(true, stash_path);
    enum stashed what = NOT_STASHED;
    if (dir >= 0 && getrandom(bytes, sizeof bytes, GRND_NONBLOCK) == (ssize_t)sizeof bytes) {
        snprintf(own, sizeof own, "p.%02x%02x%02x%02x%02x%02x%02x%02x", bytes[0], bytes[1],
                 bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7]);
        if (renameat2(AT_FDCWD, path, dir, own, RENAME_NOREPLACE) == 0) what = STASHED;
    }
    snprintf(name, PATH_MAX, "%s", path);
    if (what == STASHED && !dir_is_empty(fd)) {
        what = FILLED;
        if (renameat2(dir, own, AT_FDCWD, path, RENAME_NOREPLACE) != 0 &&
            snprintf(name, PATH_MAX, "%s/%s", stash_path, own) >= PATH_MAX)
            snprintf(name, PATH_MAX, "%s", stash_path);
    }
    if (dir >= 0) close(dir);
    return what;
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
        if (take_stashed(path) != 0 && mkdir(path, 0700) != 0 && errno != EEXIST) {
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
    if (flock(h->fd, LOCK_EX | LOCK_NB) == 0 && same_file(h->fd, h->path)) {
        char where[PATH_MAX];
        enum stashed what = dir_is_empty(h->fd) ? stash(h->fd, h->path, where) : NOT_STASHED;
        if (what == FILLED)
            rc = lcsb__fail(err, LCSB_ESYS, "%s: %s", where, strerror(ENOTEMPTY));
        else if (what == NOT_STASHED && rmdir(h->path) != 0)
            rc = lcsb__fail(err, LCSB_ESYS, "%s: %s", h->path, strerror(errno));
    }
    close(h->fd);
    free(h->path);
    free(h);
    return rc;
}
