/* The command's world (world.h). Landlock decides what the command may do
 * with a path; this decides which paths exist at all. A socket, a file or a
 * directory the policy does not name is not in the command's root, so it
 * cannot be connected to, stat'ed or listed, whatever Landlock governs.
 *
 * The root is a tmpfs: the policy's paths are bound into it from the host
 * (by descriptor, RESOLVE_NO_SYMLINKS), read-only and recursively so, with
 * the write tier writable again (that mount only), then what "hide" names is
 * covered with something empty and what "protect" names mounted read-only on
 * top. The tmpfs itself is read-only once built: nothing can be created
 * beside what the policy names. A directory holding several of the policy's
 * files may be bound whole, one mount for all of them, when showing its
 * other entries by name gives nothing away that Landlock does not hold
 * (bind_whole).
 *
 * The namespaces the root is built in, and the network a "proxy" gives the
 * command, are namespaces.c's.
 *
 * libc and kernel headers only, like the rest of the shim. */
#define _GNU_SOURCE
#include "world.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/openat2.h>
#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "covers.h"
#include "kernel_uapi.h"
#include "mounts.h"
#include "say.h"

/* Where the host's root stays while the new one is built, inside the new one. */
#define HOST "/.lcsb-host"

/* Rights that make a rule's path part of the write tier. */
#define WRITES (LANDLOCK_ACCESS_FS_WRITE_FILE | LANDLOCK_ACCESS_FS_MAKE_REG | \
    LANDLOCK_ACCESS_FS_MAKE_DIR | LANDLOCK_ACCESS_FS_REMOVE_FILE | LANDLOCK_ACCESS_FS_REMOVE_DIR)

/* The directories above PATH, made in the new root's tmpfs. Sorted paths
 * come in runs of siblings: the directory made last is not made again. */
static int make_parents(const char *path) {
    static char made[PATH_MAX];
    char dir[PATH_MAX];
    size_t len = strlen(path);
    size_t parent = (size_t)(strrchr(path, '/') - path);

    if (parent > 0 && strlen(made) == parent && strncmp(made, path, parent) == 0)
        return 0;
    memcpy(dir, path, len + 1);
    for (char *slash = strchr(dir + 1, '/'); slash != NULL; slash = strchr(slash + 1, '/')) {
        *slash = '\0';
        if (mkdir(dir, 0755) != 0 && errno != EEXIST)
            return fail("make %s in the command's root: %s", show(dir), strerror(errno));
        *slash = '/';
    }
    memcpy(made, path, parent);
    made[parent] = '\0';
    return 0;
}

struct entry {
    char *path;
    uint64_t access;
};

/* The policy's paths, gathered so they can be sorted: a directory must be
 * mounted before anything inside it, or it would cover that. */
struct plan {
    struct entry *v;
    size_t n, cap;
    const struct policy_sink *rules;
    rule_on_fd on_fd;
    /* The directory of the last path placed without a mount, open while
     * the paths that follow are in it too (dir_fd -1: none). */
    int dir_fd;
    size_t dir_len;
    char dir[PATH_MAX];
    dev_t scaffold; /* the new root's tmpfs */
    const struct limits *limits;
    bool tmp_mounted;
    /* The header's private directories, and whether each is mounted yet. */
    struct entry *priv;
    size_t priv_n;
};

/* FROM, the host's PATH opened (its mode MODE), mounted at the same path in
 * the new root. */
static int bind_opened(int from, mode_t mode, const char *path, bool writable) {
    if (make_parents(path) != 0)
        return -1;
    /* A mount needs a point of its own kind: a directory, or a file for
     * anything else (a socket or a device is bound onto a file). */
    if ((S_ISDIR(mode) ? mkdir(path, 0755) : mknod(path, S_IFREG | 0600, 0)) != 0 &&
        errno != EEXIST)
        return fail("make %s in the command's root: %s", show(path), strerror(errno));
    return mount_copy(from, path, writable, path);
}

/* PATH from the host, mounted at the same path in the new root. With a
 * plan and an entry, E's rule goes on what was bound (the very inode the
 * new root now shows at PATH). */
static int bind_from_host(const char *path, bool writable, const struct plan *plan,
                          const struct entry *e) {
    char host[sizeof HOST + PATH_MAX];
    struct stat st;
    int from, ret;

    snprintf(host, sizeof host, "%s%s", HOST, path);
    from = open_path(AT_FDCWD, host);
    if (from < 0)
        return fail("open %s: %s", show(path), open_error(errno));
    if (fstat(from, &st) != 0)
        ret = fail("stat %s: %s", show(path), strerror(errno));
    else
        ret = bind_opened(from, st.st_mode, path, writable);
    if (ret == 0 && e != NULL)
        ret = plan->on_fd(plan->rules->ctx, from, st.st_mode, e->path, e->access);
    close(from);
    return ret;
}

/* A private tmp of its own size (0: the kernel's default, half the memory,
 * charged to the command's memory cgroup like any page it uses), in place
 * of TMPDIR's host directory, or a private directory the host never has. */
static int mount_tmp(const char *path, uint64_t size) {
    char options[64] = "mode=0700";

    if (size != 0)
        snprintf(options, sizeof options, "size=%llu,mode=0700", (unsigned long long)size);
    if (make_parents(path) != 0)
        return -1;
    if (mkdir(path, 0700) != 0 && errno != EEXIST)
        return fail("make %s in the command's root: %s", show(path), strerror(errno));
    if (mount("tmpfs", path, "tmpfs", MS_NOSUID | MS_NODEV, options) != 0)
        return fail("mount a private tmp of %llu bytes on %s: %s", (unsigned long long)size,
                    show(path), strerror(errno));
    return 0;
}

static int gather(void *ctx, const char *path, uint64_t access) {
    struct plan *plan = ctx;

    if (plan->n == plan->cap) {
        size_t cap = plan->cap ? plan->cap * 2 : 256;
        struct entry *v = realloc(plan->v, cap * sizeof *v);
        if (v == NULL)
            return fail("hold the policy's paths: out of memory");
        plan->v = v;
        plan->cap = cap;
    }
    if ((plan->v[plan->n].path = strdup(path)) == NULL)
        return fail("hold the policy's paths: out of memory");
    plan->v[plan->n++].access = access;
    return 0;
}

static int note_private(void *ctx, const char *path) {
    struct plan *plan = ctx;
    struct entry *v = realloc(plan->priv, (plan->priv_n + 1) * sizeof *v);

    if (v == NULL || (v[plan->priv_n].path = strdup(path)) == NULL) {
        if (v != NULL)
            plan->priv = v;
        return fail("hold the policy's paths: out of memory");
    }
    plan->priv = v;
    plan->priv[plan->priv_n++].access = 0; /* not mounted yet */
    return 0;
}

/* PATH's entry among the private directories, or NULL. */
static struct entry *private_at(const struct plan *plan, const char *path) {
    for (size_t i = 0; i < plan->priv_n; i++)
        if (strcmp(plan->priv[i].path, path) == 0)
            return &plan->priv[i];
    return NULL;
}

/* A link in a private directory: REL made below DIR, a tmpfs of the
 * command's own mounted already, by descriptor (RESOLVE_BENEATH: nothing of
 * REL leaves it), the directories on the way 0700. */
static int make_link(void *ctx, const char *dir, const char *rel, const char *target) {
    struct open_how how = {.flags = O_PATH | O_DIRECTORY | O_CLOEXEC,
                           .resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS};
    const struct entry *e = private_at(ctx, dir);
    char part[PATH_MAX];
    const char *at = rel, *slash;
    int fd, rc = 0;

    if (e == NULL || e->access == 0)
        return fail("show %s in %s: the policy grants no access to it", show(target), show(dir));
    if ((fd = open_path(AT_FDCWD, dir)) < 0)
        return fail("open %s: %s", show(dir), open_error(errno));
    for (; rc == 0 && (slash = strchr(at, '/')) != NULL; at = slash + 1) {
        int next;
        snprintf(part, sizeof part, "%.*s", (int)(slash - at), at);
        if ((mkdirat(fd, part, 0700) != 0 && errno != EEXIST) ||
            (next = (int)syscall(SYS_openat2, fd, part, &how, sizeof how)) < 0)
            rc = fail("make %s in %s: %s", show(rel), show(dir), open_error(errno));
        else {
            close(fd);
            fd = next;
        }
    }
    if (rc == 0 && symlinkat(target, fd, at) != 0)
        rc = fail("show %s in %s: %s", show(target), show(dir), strerror(errno));
    close(fd);
    return rc;
}

static int pass_port(void *ctx, uint64_t port, uint64_t access) {
    const struct plan *plan = ctx;

    return plan->rules->on_port(plan->rules->ctx, port, access);
}

static int by_path(const void *a, const void *b) {
    return strcmp(((const struct entry *)a)->path, ((const struct entry *)b)->path);
}

/* A mount is about to change what lies under the directory kept open. */
static void forget_dir(struct plan *plan) {
    if (plan->dir_fd >= 0)
        close(plan->dir_fd);
    plan->dir_fd = -1;
}

/* The index of the first path at or after KEY: the plan is sorted. */
static size_t lower_bound(const struct plan *plan, const char *key) {
    size_t lo = 0, hi = plan->n;

    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (strcmp(plan->v[mid].path, key) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

static bool in_plan(const struct plan *plan, const char *path) {
    size_t i = lower_bound(plan, path);

    return i < plan->n && strcmp(plan->v[i].path, path) == 0;
}

/* How many entries a directory bound whole may hold for each one the
 * policy names in it. */
#define WHOLE_RATIO 8

struct linux_dirent64_ {
    uint64_t d_ino;
    int64_t d_off;
    unsigned short d_reclen;
    unsigned char d_type;
    char d_name[];
};

/* May DIR (FD, the host's, open for reading) be bound whole? Only when
 * each of its entries is harmless to show: no unix socket (before Landlock
 * ABI 9 nothing governs connecting to one), no directory the policy does
 * not name (its whole tree would come along), and no more than WHOLE_RATIO
 * entries for each of the NAMED the policy names in it. */
static bool shows_only_siblings(const struct plan *plan, int fd, const char *dir, size_t named) {
    char buf[16384], path[PATH_MAX];
    size_t entries = 0;
    long n;

    while ((n = syscall(SYS_getdents64, fd, buf, sizeof buf)) > 0) {
        for (long at = 0; at < n;) {
            const struct linux_dirent64_ *d = (const void *)(buf + at);
            unsigned char type = d->d_type;
            struct stat st;
            at += d->d_reclen;
            if (strcmp(d->d_name, ".") == 0 || strcmp(d->d_name, "..") == 0)
                continue;
            if (++entries > WHOLE_RATIO * named)
                return false;
            if (type == DT_UNKNOWN) {
                if (fstatat(fd, d->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0)
                    return false;
                type = S_ISSOCK(st.st_mode) ? DT_SOCK : S_ISDIR(st.st_mode) ? DT_DIR : DT_REG;
            }
            if (type == DT_SOCK)
                return false;
            if (type == DT_DIR &&
                ((size_t)snprintf(path, sizeof path, "%s/%s", dir, d->d_name) >= sizeof path ||
                 !in_plan(plan, path)))
                return false;
        }
    }
    return n == 0;
}

/* A path outside every tree bound so far is a mount of its own, and a mount
 * costs some 20 µs to make and more to tear down. Where the policy names
 * two or more entries of one directory that each need a mount (not the write
 * tier's, which get theirs anyway), the directory is bound whole instead,
 * read-only, when shows_only_siblings says it may: its other entries then
 * exist for the command, with no Landlock right on them (stat'ed by name,
 * never read, listed, run or written). FIRST is the index of the first path
 * inside DIR, so that nothing in it is placed before it. Returns 1 when
 * DIR is bound, 0 when its paths are to be placed one by one, -1 when it
 * could not be bound. */
static int bind_whole(struct plan *plan, size_t first, const char *dir) {
    char host[sizeof HOST + PATH_MAX];
    struct open_how how = {.flags = O_RDONLY | O_DIRECTORY | O_CLOEXEC,
                           .resolve = RESOLVE_NO_SYMLINKS};
    size_t len = strlen(dir), named = 0;
    const char *last = NULL;
    int fd, rc = 0;

    for (size_t i = first; i < plan->n && strncmp(plan->v[i].path, dir, len) == 0 &&
                           plan->v[i].path[len] == '/'; i++) {
        const char *path = plan->v[i].path;
        bool here = strchr(path + len + 1, '/') == NULL;
        bool tmp = plan->limits->tmp != 0 && strcmp(path, plan->limits->tmpdir) == 0;
        if (here && !tmp && (plan->v[i].access & WRITES) == 0 &&
            (last == NULL || strcmp(last, path) != 0))
            named++;
        if (here)
            last = path;
    }
    if (named < 2)
        return 0;
    /* In the new root already (inside a tree bound, or the world's own
     * /dev), or not to be reached there without a symlink. */
    if ((fd = open_path(AT_FDCWD, dir)) >= 0 || errno != ENOENT) {
        if (fd >= 0)
            close(fd);
        return 0;
    }
    snprintf(host, sizeof host, "%s%s", HOST, dir);
    fd = (int)syscall(SYS_openat2, AT_FDCWD, host, &how, sizeof how);
    if (fd < 0)
        return 0;
    if (shows_only_siblings(plan, fd, dir, named)) {
        forget_dir(plan);
        rc = bind_opened(fd, S_IFDIR, dir, false) == 0 ? 1 : -1;
    }
    close(fd);
    return rc;
}

/* "/" in the policy: the host's top-level directories, each bound as it is
 * (the scaffold's root cannot be covered: the process's root stays the
 * tmpfs beneath any mount on it). The world's own /proc, /dev and /tmp
 * stay: the host's processes, devices and other users' files are no more
 * the command's for "/" being readable. Sorted first, it goes before
 * anything inside it. */
static int place_root(bool writable) {
    struct dirent *d;
    DIR *dir = opendir(HOST);
    int rc = 0;

    if (dir == NULL)
        return fail("list the host's root: %s", strerror(errno));
    while (rc == 0 && (d = readdir(dir)) != NULL) {
        static const char *const own[] = {".", "..", HOST + 1, EMPTY + 1, EMPTY_DIR + 1,
                                          "proc", "dev", "tmp"};
        char path[PATH_MAX];
        struct stat st;
        bool skip = false;

        for (size_t i = 0; i < sizeof own / sizeof own[0]; i++)
            skip |= strcmp(d->d_name, own[i]) == 0;
        /* The symlinks are copied already (copy_top_symlinks). */
        if (skip || fstatat(dirfd(dir), d->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 ||
            S_ISLNK(st.st_mode))
            continue;
        snprintf(path, sizeof path, "/%s", d->d_name);
        rc = bind_from_host(path, writable, NULL, NULL);
    }
    closedir(dir);
    return rc;
}

/* PATH opened in the new root: by its name alone in the directory kept
 * open when it is in it, which saves the walk down to it. */
static int open_placed(const struct plan *plan, const char *path) {
    size_t len = (size_t)(strrchr(path, '/') - path);

    if (plan->dir_fd >= 0 && len == plan->dir_len && strncmp(path, plan->dir, len) == 0)
        return open_path(plan->dir_fd, path + len + 1);
    return open_path(AT_FDCWD, path);
}

/* PATH was placed without a mount: when NEXT is in the same directory, that
 * directory is kept open for it. Sorted paths come in runs of siblings. */
static void keep_dir(struct plan *plan, const char *path, const char *next) {
    size_t len = (size_t)(strrchr(path, '/') - path);

    if (len == 0 || next == NULL || strncmp(next, path, len + 1) != 0 ||
        strchr(next + len + 1, '/') != NULL ||
        (plan->dir_fd >= 0 && len == plan->dir_len && strncmp(path, plan->dir, len) == 0))
        return;
    forget_dir(plan);
    memcpy(plan->dir, path, len);
    plan->dir[len] = '\0';
    plan->dir_len = len;
    plan->dir_fd = open_path(AT_FDCWD, plan->dir);
}

/* One path of the policy: in the new root already (inside a tree bound
 * before it, or /proc), or bound now; then its rule. A write-tier path gets
 * a mount of its own, writable, even inside a writable tree: a mount point
 * cannot be renamed or removed, so .git stays where git looks for it. NEXT
 * is the path placed after it (NULL: none). */
static int place(struct plan *plan, const struct entry *e, const char *next) {
    bool writable = (e->access & WRITES) != 0;
    const struct limits *l = plan->limits;
    struct entry *fresh = private_at(plan, e->path);
    struct stat st;
    int at;

    if (strcmp(e->path, "/") == 0) {
        forget_dir(plan);
        if (place_root(writable) != 0)
            return -1;
    } else if (fresh != NULL) {
        /* Made here, never on the host: it goes with the world. */
        forget_dir(plan);
        if (mount_tmp(e->path, l->tmp != 0 && strcmp(e->path, l->tmpdir) == 0 ? l->tmp : 0) != 0)
            return -1;
        fresh->access = e->access;
    } else if (l->tmp != 0 && strcmp(e->path, l->tmpdir) == 0) {
        forget_dir(plan);
        if (!plan->tmp_mounted && mount_tmp(e->path, l->tmp) != 0)
            return -1;
        plan->tmp_mounted = true;
    } else if ((at = open_placed(plan, e->path)) >= 0) {
        int rc = fstat(at, &st) != 0 ? -1 : 0;
        bool scaffold = rc == 0 && st.st_dev == plan->scaffold;
        if (rc != 0)
            fail("stat %s: %s", show(e->path), strerror(errno));
        else if (!scaffold && !writable) {
            /* In place already, inside a tree bound: the rule goes on what
             * was just opened. */
            rc = plan->on_fd(plan->rules->ctx, at, st.st_mode, e->path, e->access);
            close(at);
            keep_dir(plan, e->path, next);
            return rc;
        }
        forget_dir(plan);
        /* Only a directory made for what lies inside it is on the scaffold;
         * anything else is already a copy of the host's, and its copy the
         * same inode. */
        if (rc == 0 && scaffold)
            rc = bind_from_host(e->path, writable, plan, e);
        else if (rc == 0 && (rc = mount_copy(at, e->path, true, e->path)) == 0 &&
                 (rc = cover_hold(e->path)) == 0)
            rc = plan->on_fd(plan->rules->ctx, at, st.st_mode, e->path, e->access);
        close(at);
        return rc;
    } else if (errno == ENOENT) {
        forget_dir(plan);
        return bind_from_host(e->path, writable, plan, e);
    } else {
        return fail("open %s in the command's root: %s", show(e->path), open_error(errno));
    }
    return plan->rules->on_path(plan->rules->ctx, e->path, e->access);
}

/* The host's top-level symlinks (/bin -> usr/bin on a merged /usr): a name
 * and where it points reveal nothing the policy would hide, and programs
 * are found through them. */
static int copy_top_symlinks(void) {
    char target[PATH_MAX];
    struct dirent *d;
    DIR *dir = opendir(HOST);

    if (dir == NULL)
        return fail("list the host's root: %s", strerror(errno));
    while ((d = readdir(dir)) != NULL) {
        struct stat st;
        ssize_t n;
        if (d->d_type != DT_LNK &&
            (d->d_type != DT_UNKNOWN || fstatat(dirfd(dir), d->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 ||
             !S_ISLNK(st.st_mode)))
            continue;
        n = readlinkat(dirfd(dir), d->d_name, target, sizeof target - 1);
        if (n < 0)
            continue;
        target[n] = '\0';
        if (symlinkat(target, AT_FDCWD, d->d_name) != 0 && errno != EEXIST) {
            fail("link /%s in the command's root: %s", show(d->d_name), strerror(errno));
            closedir(dir);
            return -1;
        }
    }
    closedir(dir);
    return 0;
}

/* A fresh /proc that shows the new pid namespace only, and /dev's links into
 * it; the devices themselves are the policy's. */
static int make_proc_and_dev(void) {
    static const char *const links[][2] = {{"/proc/self/fd", "/dev/fd"},
                                           {"/proc/self/fd/0", "/dev/stdin"},
                                           {"/proc/self/fd/1", "/dev/stdout"},
                                           {"/proc/self/fd/2", "/dev/stderr"}};

    if (mkdir("/proc", 0555) != 0 ||
        mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) != 0)
        return fail("mount a /proc of its own: %s", strerror(errno));
    if (mkdir("/dev", 0755) != 0)
        return fail("make /dev in the command's root: %s", strerror(errno));
    for (size_t i = 0; i < sizeof links / sizeof links[0]; i++)
        if (symlink(links[i][0], links[i][1]) != 0)
            return fail("link %s: %s", links[i][1], strerror(errno));
    return 0;
}

/* The new root: in a mount namespace of the init's own, a tmpfs on /tmp
 * (any directory would do), made the root with the host's below it at
 * HOST, until the binds are done. */
static int enter_scaffold(dev_t *scaffold) {
    struct stat st;

    if (unshare(CLONE_NEWNS) != 0)
        return fail("enter a mount namespace of its own: %s", strerror(errno));
    if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0)
        return fail("make the mounts private: %s", strerror(errno));
    if (mount("tmpfs", "/tmp", "tmpfs", MS_NOSUID | MS_NODEV, "mode=0755") != 0)
        return fail("mount the command's root: %s", strerror(errno));
    if (chdir("/tmp") != 0 || mkdir(HOST + 1, 0700) != 0 ||
        syscall(SYS_pivot_root, ".", HOST + 1) != 0 || chdir("/") != 0)
        return fail("enter the command's root: %s", strerror(errno));
    if (stat("/", &st) != 0)
        return fail("stat the command's root: %s", strerror(errno));
    *scaffold = st.st_dev;
    /* What a hidden file or directory shows: nothing, to nobody. A bind of
     * these costs the world less than a tmpfs of its own would. */
    if (mknod(EMPTY, S_IFREG | 0000, 0) != 0)
        return fail("make %s: %s", EMPTY, strerror(errno));
    if (mkdir(EMPTY_DIR, 0) != 0)
        return fail("make %s: %s", EMPTY_DIR, strerror(errno));
    return 0;
}

/* The host's root goes; the scaffold becomes read-only. Last of all the
 * world's mounts, the covers are looked at again. */
static int leave_scaffold(void) {
    if (umount2(HOST, MNT_DETACH) != 0 || rmdir(HOST) != 0)
        return fail("let go of the host's root: %s", strerror(errno));
    if (keep_covers() != 0)
        return -1;
    if (unlink(EMPTY) != 0 || rmdir(EMPTY_DIR) != 0)
        return fail("let go of the empty file and directory: %s", strerror(errno));
    if (set_mount_attr(AT_FDCWD, "/", 0, true) != 0)
        return fail("make the command's root read-only: %s", strerror(errno));
    return 0;
}

int build_world(char **argv, int argc, int dashdash, const struct header *h,
                const struct policy_sink *rules, rule_on_fd on_fd, const char *extra,
                uint64_t extra_access) {
    struct plan plan = {.rules = rules, .on_fd = on_fd, .dir_fd = -1, .limits = &h->limits};
    const struct policy_sink collect = {
        .ctx = &plan, .on_port = pass_port, .on_path = gather, .on_private = note_private};
    const struct policy_sink after = {
        .ctx = &plan, .on_hide = cover_hide, .on_protect = cover_protect, .on_link = make_link};
    struct header again;
    char cwd[PATH_MAX];
    int rc = -1;

    if (getcwd(cwd, sizeof cwd) == NULL)
        return fail("find the working directory: %s", strerror(errno));
    if (enter_scaffold(&plan.scaffold) != 0 || make_proc_and_dev() != 0 ||
        copy_top_symlinks() != 0 || read_policy(argv, argc, dashdash, &again, &collect) != 0 ||
        (extra != NULL && gather(&plan, extra, extra_access) != 0))
        goto out;
    qsort(plan.v, plan.n, sizeof *plan.v, by_path);
    /* A path named twice (a device read and written) is placed once, with
     * every right it was given. */
    for (size_t i = 0; i < plan.n; i++) {
        struct entry merged = plan.v[i];
        char dir[PATH_MAX];
        size_t len = (size_t)(strrchr(merged.path, '/') - merged.path);
        /* The first path in its directory: the directory may be bound whole. */
        if (len > 0 && (i == 0 || strncmp(plan.v[i - 1].path, merged.path, len + 1) != 0)) {
            memcpy(dir, merged.path, len);
            dir[len] = '\0';
            if (bind_whole(&plan, i, dir) < 0)
                goto out;
        }
        while (i + 1 < plan.n && strcmp(plan.v[i + 1].path, merged.path) == 0)
            merged.access |= plan.v[++i].access;
        if (place(&plan, &merged, i + 1 < plan.n ? plan.v[i + 1].path : NULL) != 0)
            goto out;
    }
    forget_dir(&plan);
    /* On top of what is placed: a protected path inside a hidden directory
     * stays hidden, whichever comes first (hidden, it is gone; hidden after,
     * it is covered); the private directories' links in them. */
    if ((h->hidden_paths > 0 || h->protected_paths > 0 || h->private_dirs > 0) &&
        read_header(argv[1], &again, &after) != 0)
        goto out;
    if (leave_scaffold() != 0)
        goto out;
    if (chdir(cwd) != 0) {
        int err = errno;
        fail("enter the working directory %s: %s", show(cwd), strerror(err));
        if (err == ENOENT)
            hint("the policy does not name it, so it is not in the command's world");
        goto out;
    }
    rc = 0;
out:
    forget_dir(&plan);
    for (size_t i = 0; i < plan.n; i++)
        free(plan.v[i].path);
    free(plan.v);
    for (size_t i = 0; i < plan.priv_n; i++)
        free(plan.priv[i].path);
    free(plan.priv);
    return rc;
}
