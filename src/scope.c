/* A run's scope owns the private directories made for it (HOME, TMPDIR) and
 * removes them on every way out. The command may have planted symlinks, made
 * directories unwritable or mounted something: removal works on descriptors,
 * never follows a symlink and never leaves the mount it started on (a bind
 * mount of the same file system included). */
#include "scope.h"

#include "private.h"
#include "sys.h"

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
    uint64_t *mounts; /* the mount each of DIRS was made on */
};

lcsb__scope *lcsb__scope_new(void) { return calloc(1, sizeof(lcsb__scope)); }

/* OUT := BASE/lcsb-LABEL.XXXXXX, BASE the caller's TMPDIR (else /tmp) by
 * its real path: the grant must name the directory itself, not a symlink. */
static int template_of(const char *label, char *out, lcsb_error *err) {
    const char *base = getenv("TMPDIR");
    char real_base[PATH_MAX];
    if (!base || base[0] != '/') base = "/tmp";
    if (!lcsb__realpath(base, real_base))
        return lcsb__fail(err, LCSB_ESYS, "cannot resolve %s: %s", base, strerror(errno));
    if (snprintf(out, PATH_MAX, "%s/lcsb-%s.XXXXXX", real_base, label) >= PATH_MAX)
        return lcsb__fail(err, LCSB_ESYS, "temporary directory path too long");
    return 0;
}

/* Keep PATH, on MOUNT, for removal at close. */
static int own(lcsb__scope *scope, const char *path, uint64_t mount, lcsb_error *err) {
    uint64_t *mounts = realloc(scope->mounts, (scope->dirs.n + 1) * sizeof *mounts);
    if (mounts) scope->mounts = mounts;
    if (!mounts || lcsb__strv_push(&scope->dirs, path))
        return lcsb__fail(err, LCSB_ENOMEM, "out of memory");
    scope->mounts[scope->dirs.n - 1] = mount;
    return 0;
}

static const char name_chars[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";

/* PATH, a name nobody has made, owned by SCOPE: made later on the mount of
 * the directory it is made in, where removal stays (a directory's mount is
 * its parent's). */
static int own_reserved(lcsb__scope *scope, const char *path, lcsb_error *err) {
    char parent[PATH_MAX];
    snprintf(parent, sizeof parent, "%.*s", (int)(strrchr(path, '/') - path), path);
    uint64_t mount;
    int fd = open(parent, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    int known = fd >= 0 ? lcsb__mount_of(fd, &mount, NULL, NULL) : -1;
    int saved = errno;
    if (fd >= 0) close(fd);
    if (known != 0)
        return lcsb__fail(err, LCSB_ESYS, "cannot tell which mount %s is on: %s", parent,
                          strerror(saved));
    return own(scope, path, mount, err);
}

int lcsb__scope_reserve(lcsb__scope *scope, const char *label, char *out, lcsb_error *err) {
    int rc = template_of(label, out, err);
    if (rc) return rc;
    /* Twelve characters (71 bits): a name nobody can guess before the
     * command's environment shows it, by which time it is made. */
    size_t at = strlen(out) - 6;
    if (at + 12 >= PATH_MAX) return lcsb__fail(err, LCSB_ESYS, "temporary directory path too long");
    for (int tries = 0; tries < 8; tries++) {
        unsigned char rnd[12];
        arc4random_buf(rnd, sizeof rnd);
        for (size_t i = 0; i < sizeof rnd; i++)
            out[at + i] = name_chars[rnd[i] % (sizeof name_chars - 1)];
        out[at + sizeof rnd] = '\0';
        struct stat st;
        if (lstat(out, &st) != 0) return own_reserved(scope, out, err);
    }
    return lcsb__fail(err, LCSB_ESYS, "cannot find an unused name in %.*s",
                      (int)(strrchr(out, '/') - out), out);
}

int lcsb__scope_reserve_as(lcsb__scope *scope, const char *label, const char *const *wanted,
                           char *out, lcsb_error *err) {
    char template[PATH_MAX];
    int rc = template_of(label, template, err);
    size_t at = rc ? 0 : strlen(template) - 6;
    for (size_t i = 0; !rc && wanted && wanted[i]; i++) {
        const char *path = wanted[i];
        struct stat st;
        /* Of the form reserve gives LABEL's names, beside where it would
         * make one, and nothing there now. */
        if (strlen(path) == at + 12 && strncmp(path, template, at) == 0 &&
            strspn(path + at, name_chars) == 12 && lstat(path, &st) != 0 && errno == ENOENT) {
            memcpy(out, path, at + 13);
            return own_reserved(scope, out, err);
        }
    }
    return rc ? rc : lcsb__scope_reserve(scope, label, out, err);
}

int lcsb__scope_mkdtemp(lcsb__scope *scope, const char *label, char *out, lcsb_error *err) {
    int rc = template_of(label, out, err);
    if (rc) return rc;
    if (!mkdtemp(out))
        return lcsb__fail(err, LCSB_ESYS, "cannot create a directory in %.*s: %s",
                          (int)(strrchr(out, '/') - out), out, strerror(errno));
    /* Removal stays on the mount the directory was made on: a mount the
     * command (or anyone) puts on it later is never emptied. */
    uint64_t mount;
    int fd = open(out, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    int known = fd >= 0 ? lcsb__mount_of(fd, &mount, NULL, NULL) : -1;
    int saved = errno;
    if (fd >= 0) close(fd);
    if (known != 0) {
        rmdir(out);
        return lcsb__fail(err, LCSB_ESYS, "cannot tell which mount %s is on: %s", out,
                          strerror(saved));
    }
    if (own(scope, out, mount, err)) {
        rmdir(out);
        return LCSB_ENOMEM;
    }
    /* A run's policy names it as a private directory: there already when
     * the run makes those, and to be taken as made. */
    return lcsb__private_made(out, err);
}

/* Is the file open as FD on MOUNT? */
static bool on_mount(int fd, uint64_t mount) {
    uint64_t here;
    return lcsb__mount_of(fd, &here, NULL, NULL) == 0 && here == mount;
}

/* Open directory NAME in DIRFD for reading, never through a symlink, and
 * only when it is on MOUNT (else -1, errno EXDEV). The command may have left
 * it unreadable or unwritable (a Go module cache is 0555); we own it, so open
 * it up to 0700 first, but through a descriptor: a process the command left
 * behind may swap NAME for a symlink at any moment, and chmod by name would
 * follow it. */
static int open_dir_nofollow(int dirfd, const char *name, uint64_t mount) {
    struct stat st;
    int fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd >= 0) {
        if (!on_mount(fd, mount)) {
            close(fd);
            errno = EXDEV;
            return -1;
        }
        /* Readable, but its entries cannot be removed unless it is writable. */
        if (fstat(fd, &st) == 0 && (st.st_mode & 0700) != 0700) fchmod(fd, 0700);
        return fd;
    }
    if (errno != EACCES) return -1;
    int path_fd = openat(dirfd, name, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    char proc[64];
    if (path_fd < 0) return -1;
    if (on_mount(path_fd, mount)) {
        snprintf(proc, sizeof proc, "/proc/self/fd/%d", path_fd);
        if (chmod(proc, 0700) == 0) fd = openat(path_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    } else {
        errno = EXDEV;
    }
    close(path_fd);
    return fd;
}

/* A file by identity: removal remembers what it could not remove (a mount
 * point, a file it may not unlink) so that it never tries it twice. */
typedef struct file_id {
    dev_t dev;
    ino_t ino;
} file_id;

typedef struct id_set {
    file_id *v;
    size_t n;
} id_set;

static bool id_set_has(const id_set *set, const struct stat *st) {
    for (size_t i = 0; i < set->n; i++)
        if (set->v[i].dev == st->st_dev && set->v[i].ino == st->st_ino) return true;
    return false;
}

static int id_set_add(id_set *set, const struct stat *st) {
    file_id *v = realloc(set->v, (set->n + 1) * sizeof *v);
    if (!v) return -1;
    set->v = v;
    set->v[set->n++] = (file_id){st->st_dev, st->st_ino};
    return 0;
}

/* Remove what DIRFD holds but its subdirectories; *CHILD gets the name of
 * one subdirectory to descend into (NULL when none is left). Entries in
 * STUCK are skipped; what cannot be removed joins them. -1 on a failure. */
static int remove_files(int dirfd, id_set *stuck, char **child) {
    *child = NULL;
    int fd = dup(dirfd);
    DIR *dir = fd < 0 ? NULL : fdopendir(fd);
    if (!dir) {
        if (fd >= 0) close(fd);
        return -1;
    }
    int rc = 0;
    struct dirent *e;
    while (!*child && (e = readdir(dir))) {
        struct stat st;
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
        if (fstatat(dirfd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0) {
            rc = -1;
            continue;
        }
        if (id_set_has(stuck, &st)) continue;
        /* A directory is entered (and checked for a mount there) below; a
         * file with something mounted on it cannot be unlinked (EBUSY). */
        bool removable = S_ISDIR(st.st_mode) || unlinkat(dirfd, e->d_name, 0) == 0;
        if (removable && S_ISDIR(st.st_mode) && !(*child = strdup(e->d_name))) removable = false;
        if (!removable && (rc = -1, id_set_add(stuck, &st) != 0)) break;
    }
    closedir(dir);
    return rc;
}

typedef struct frame {
    char *name;     /* of the directory being emptied, in its parent */
    file_id parent; /* who the parent was when removal went down */
} frame;

/* Remove the tree at PATH depth first, holding one descriptor at a time, so
 * no depth the command can make runs removal out of descriptors or stack.
 * The way back up is "..", checked against the directory removal came down
 * from: a process the command left behind may move a directory elsewhere
 * meanwhile, and then removal stops rather than empty whatever is above it. */
int lcsb__remove_tree(const char *path, uint64_t mount) {
    struct stat st;
    if (lstat(path, &st) != 0) return errno == ENOENT ? 0 : -1;
    /* The command may have made its HOME itself unreadable or unwritable, or
     * mounted something on it. */
    int fd = open_dir_nofollow(AT_FDCWD, path, mount);
    if (fd < 0) return -1;
    frame *stack = NULL;
    size_t depth = 0;
    id_set stuck = {0};
    int rc = 0;
    for (;;) {
        char *child;
        if (remove_files(fd, &stuck, &child) != 0) rc = -1;
        if (child) {
            struct stat here, sub_st;
            frame *grown = realloc(stack, (depth + 1) * sizeof *stack);
            int sub = grown && fstat(fd, &here) == 0 ? open_dir_nofollow(fd, child, mount) : -1;
            if (grown) stack = grown;
            if (sub < 0) {
                rc = -1;
                bool known = fstatat(fd, child, &sub_st, AT_SYMLINK_NOFOLLOW) == 0;
                free(child);
                if (known && id_set_add(&stuck, &sub_st) == 0) continue;
                break;
            }
            stack[depth++] = (frame){child, {here.st_dev, here.st_ino}};
            close(fd);
            fd = sub;
            continue;
        }
        if (depth == 0) break;
        frame top = stack[--depth];
        struct stat emptied, up_st;
        int up = openat(fd, "..", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        bool same = up >= 0 && fstat(up, &up_st) == 0 && fstat(fd, &emptied) == 0 &&
                    up_st.st_dev == top.parent.dev && up_st.st_ino == top.parent.ino;
        if (!same) {
            free(top.name);
            if (up >= 0) close(up);
            rc = -1;
            break;
        }
        close(fd);
        fd = up;
        if (unlinkat(fd, top.name, AT_REMOVEDIR) != 0 && id_set_add(&stuck, &emptied) != 0) {
            free(top.name);
            rc = -1;
            break;
        }
        free(top.name);
    }
    close(fd);
    for (size_t i = 0; i < depth; i++) free(stack[i].name);
    free(stack);
    bool left = stuck.n > 0;
    free(stuck.v);
    if (left) rc = -1;
    if (rmdir(path) != 0 && errno != ENOENT) rc = -1;
    return rc;
}

int lcsb__scope_close(lcsb__scope *scope, lcsb_error *err) {
    int rc = 0;
    if (!scope) return 0;
    for (size_t i = scope->dirs.n; i-- > 0;) {
        lcsb__private_gone(scope->dirs.v[i]);
        if (lcsb__remove_tree(scope->dirs.v[i], scope->mounts[i]) != 0 && rc == 0)
            rc = lcsb__fail(err, LCSB_ESYS,
                            "could not remove all of %s (a mount point inside, or a file lcsb "
                            "may not remove, is left where it is)",
                            scope->dirs.v[i]);
    }
    lcsb__strv_clear(&scope->dirs);
    free(scope->mounts);
    scope->mounts = NULL;
    return rc;
}

void lcsb__scope_free(lcsb__scope *scope) {
    if (!scope) return;
    lcsb__scope_close(scope, NULL);
    free(scope);
}
