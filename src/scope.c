/* A run's scope owns the private directories made for it (HOME, TMPDIR) and
 * removes them on every way out. The command may have planted symlinks, made
 * directories unwritable or mounted something: removal works on descriptors,
 * never follows a symlink and never leaves the filesystem it started on. */
#include "internal.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct lcsb__scope {
    lcsb__strv dirs;
};

lcsb__scope *lcsb__scope_new(void) { return calloc(1, sizeof(lcsb__scope)); }

int lcsb__scope_mkdtemp(lcsb__scope *scope, const char *label, char *out, lcsb_error *err) {
    const char *base = getenv("TMPDIR");
    char real_base[PATH_MAX];
    if (!base || base[0] != '/') base = "/tmp";
    /* The grant must name the directory itself, not a symlink to it. */
    if (!realpath(base, real_base))
        return lcsb__fail(err, LCSB_ESYS, "cannot resolve %s: %s", base, strerror(errno));
    if (snprintf(out, PATH_MAX, "%s/lcsb-%s.XXXXXX", real_base, label) >= PATH_MAX)
        return lcsb__fail(err, LCSB_ESYS, "temporary directory path too long");
    if (!mkdtemp(out))
        return lcsb__fail(err, LCSB_ESYS, "cannot create a directory in %s: %s", real_base,
                          strerror(errno));
    if (lcsb__strv_push(&scope->dirs, out)) {
        rmdir(out);
        return lcsb__fail(err, LCSB_ENOMEM, "out of memory");
    }
    return 0;
}

/* Open directory NAME in DIRFD for reading, on device DEV, never through a
 * symlink. The command may have left it unreadable or unwritable (a Go module
 * cache is 0555); we own it, so open it up to 0700 first, but through a
 * descriptor: a process the command left behind may swap NAME for a symlink
 * at any moment, and chmod by name would follow it. */
static int open_dir_nofollow(int dirfd, const char *name, dev_t dev) {
    struct stat st;
    int fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd >= 0) {
        /* Readable, but its entries cannot be removed unless it is writable. */
        if (fstat(fd, &st) == 0 && st.st_dev == dev && (st.st_mode & 0700) != 0700)
            fchmod(fd, 0700);
        return fd;
    }
    if (errno != EACCES) return -1;
    int path_fd = openat(dirfd, name, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    char proc[64];
    if (path_fd < 0) return -1;
    if (fstat(path_fd, &st) == 0 && st.st_dev == dev) {
        snprintf(proc, sizeof proc, "/proc/self/fd/%d", path_fd);
        if (chmod(proc, 0700) == 0) fd = openat(path_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    }
    close(path_fd);
    return fd;
}

/* Empty the directory open as DIRFD, which lives on device DEV. */
static int empty_dir(int dirfd, dev_t dev, int depth) {
    if (depth > 256) return -1;
    int fd = dup(dirfd);
    if (fd < 0) return -1;
    DIR *dir = fdopendir(fd);
    if (!dir) {
        close(fd);
        return -1;
    }
    int rc = 0;
    struct dirent *e;
    while ((e = readdir(dir))) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
        struct stat st;
        if (fstatat(dirfd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0) {
            rc = -1;
            continue;
        }
        if (S_ISDIR(st.st_mode)) {
            if (st.st_dev != dev) { /* a mount point: leave what is mounted alone */
                rc = -1;
                continue;
            }
            int sub = open_dir_nofollow(dirfd, e->d_name, dev);
            if (sub < 0 || empty_dir(sub, dev, depth + 1) != 0) rc = -1;
            if (sub >= 0) close(sub);
            if (unlinkat(dirfd, e->d_name, AT_REMOVEDIR) != 0) rc = -1;
        } else if (unlinkat(dirfd, e->d_name, 0) != 0) {
            rc = -1;
        }
    }
    closedir(dir);
    return rc;
}

static int remove_tree(const char *path) {
    struct stat st;
    if (lstat(path, &st) != 0) return errno == ENOENT ? 0 : -1;
    /* The command may have made its HOME itself unreadable or unwritable. */
    int fd = open_dir_nofollow(AT_FDCWD, path, st.st_dev);
    if (fd < 0) return -1;
    int rc = fstat(fd, &st) == 0 ? empty_dir(fd, st.st_dev, 0) : -1;
    close(fd);
    if (rmdir(path) != 0 && errno != ENOENT) rc = -1;
    return rc;
}

int lcsb__scope_close(lcsb__scope *scope, lcsb_error *err) {
    int rc = 0;
    if (!scope) return 0;
    for (size_t i = scope->dirs.n; i-- > 0;) {
        if (remove_tree(scope->dirs.v[i]) != 0 && rc == 0)
            rc = lcsb__fail(err, LCSB_ESYS, "could not remove all of %s", scope->dirs.v[i]);
    }
    lcsb__strv_clear(&scope->dirs);
    return rc;
}

void lcsb__scope_free(lcsb__scope *scope) {
    if (!scope) return;
    lcsb__scope_close(scope, NULL);
    free(scope);
}
