/* The host's file system, asked: real paths, mounts, programs on PATH, the
 * file the library was loaded from. */
#include "sys.h"

#include "path.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#ifdef __linux__
#include <linux/magic.h>
#include <linux/openat2.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/vfs.h>
#endif

/* What one openat2 that refuses symlinks says of PATH: PLAIN_THERE (it
 * exists, and no symlink leads to it), PLAIN_MISSING (a component is
 * missing, and none before it is a symlink: PATH lies where it is written),
 * or PLAIN_UNKNOWN (a symlink on the way, or no openat2). */
enum plain { PLAIN_THERE, PLAIN_MISSING, PLAIN_UNKNOWN };
static enum plain probe_plain(const char *path) {
#ifdef __linux__
    if (lcsb__path_is_normal(path) && strlen(path) < PATH_MAX) {
        struct open_how how = {.flags = O_PATH | O_CLOEXEC, .resolve = RESOLVE_NO_SYMLINKS};
        int fd = (int)syscall(SYS_openat2, AT_FDCWD, path, &how, sizeof how);
        if (fd >= 0) {
            close(fd);
            return PLAIN_THERE;
        }
        if (errno == ENOENT || errno == ENOTDIR) return PLAIN_MISSING;
    }
#else
    (void)path;
#endif
    return PLAIN_UNKNOWN;
}

static int children_holds;
static bool children_replaced;
static struct sigaction callers_chld;

void lcsb__children_hold(void) {
    struct sigaction now, dfl = {.sa_handler = SIG_DFL};
    children_holds++;
    /* Asked at every hold: the caller may have changed it since the first
     * (a runner holds its next shim between commands); what it set last
     * comes back. */
    if (sigaction(SIGCHLD, NULL, &now) != 0) return;
    if (now.sa_handler != SIG_IGN && !(now.sa_flags & SA_NOCLDWAIT)) return;
    sigemptyset(&dfl.sa_mask);
    callers_chld = now;
    children_replaced = sigaction(SIGCHLD, &dfl, NULL) == 0 || children_replaced;
}

void lcsb__children_release(void) {
    struct sigaction now;
    if (children_holds == 0 || --children_holds > 0) return;
    /* Not over what the caller set meanwhile (a handler, say). */
    if (children_replaced && sigaction(SIGCHLD, NULL, &now) == 0 && now.sa_handler == SIG_DFL &&
        !(now.sa_flags & SA_NOCLDWAIT))
        sigaction(SIGCHLD, &callers_chld, NULL);
    children_replaced = false;
}

pid_t lcsb__children_reap(pid_t pid, int *status) {
    pid_t got;
    while ((got = waitpid(pid, status, 0)) < 0 && errno == EINTR) {
    }
    lcsb__children_release();
    return got;
}

char *lcsb__realpath(const char *path, char *out) {
    /* One openat2 answers for most paths, where realpath(3) asks readlink
     * of every component. */
    enum plain plain = probe_plain(path);
    if (plain == PLAIN_THERE) return strcpy(out, path);
    if (plain == PLAIN_MISSING) return NULL; /* errno says how: ENOENT, ENOTDIR */
#ifdef __linux__
    /* Through a symlink: the kernel resolves it in one open, and says where
     * it led, where realpath(3) would readlink every component. */
    int fd = open(path, O_PATH | O_CLOEXEC);
    if (fd < 0) return NULL;
    char link[32];
    snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
    ssize_t n = readlink(link, out, PATH_MAX - 1);
    close(fd);
    if (n > 0 && n < PATH_MAX - 1 && out[0] == '/') {
        out[n] = '\0';
        return out;
    }
#endif
    return realpath(path, out);
}

char *lcsb__program_path(char *out) {
#ifdef __linux__
    /* The kernel names the program by its real path already: one readlink,
     * where realpath(3) would readlink /proc, /proc/self, ... then every
     * component again. A program replaced since it started reads "PATH
     * (deleted)": that is asked of the file system, as realpath would. */
    static const char deleted[] = " (deleted)";
    ssize_t n = readlink("/proc/self/exe", out, PATH_MAX - 1);
    if (n > 0 && n < PATH_MAX - 1 && out[0] == '/') {
        out[n] = '\0';
        size_t tail = sizeof deleted - 1;
        if ((size_t)n <= tail || strcmp(out + n - tail, deleted) != 0) return out;
    }
#endif
    return realpath("/proc/self/exe", out);
}

char *lcsb__realpath_where(const char *path, char *out) {
    enum plain plain = probe_plain(path);
    if (plain == PLAIN_THERE || plain == PLAIN_MISSING) return strcpy(out, path);
    if (lcsb__realpath(path, out)) return out;
    if (errno != ENOENT && errno != ENOTDIR) return NULL;
    /* Not there, past a symlink: where it would be, under its nearest
     * ancestor that is. */
    const char *slash = strrchr(path, '/');
    if (!slash || slash == path) return NULL;
    char parent[PATH_MAX];
    size_t len = (size_t)(slash - path);
    if (len >= sizeof parent) return NULL;
    memcpy(parent, path, len);
    parent[len] = '\0';
    if (!lcsb__realpath_where(parent, out)) return NULL;
    size_t have = strlen(out);
    bool root = have == 1;
    if (have + strlen(slash) + 1 > PATH_MAX) return NULL;
    strcpy(out + have - (root ? 1 : 0), slash);
    return out;
}

/* Is the file open as FD (whose fstat is ST) on a file system the kernel
 * makes up as it is read? */
static bool kernel_made(int fd, const struct stat *st) {
#ifdef __linux__
    /* By the file system, not the path: /dev/shm is a tmpfs anyone writes.
     * proc and sysfs have no device: a file on a block device's file
     * system (major not 0: ext4, xfs) is on neither, and is not asked. */
    struct statfs fs;
    return major(st->st_dev) == 0 && fstatfs(fd, &fs) == 0 &&
           (fs.f_type == PROC_SUPER_MAGIC || fs.f_type == SYSFS_MAGIC);
#else
    (void)fd;
    (void)st;
    return false;
#endif
}

int lcsb__read_regular(const char *path, size_t max, bool nofollow, char **data, size_t *len,
                       char *real, lcsb__file_seen *seen) {
    return lcsb__read_regular_at(AT_FDCWD, path, max, nofollow, data, len, real, seen);
}

/* The regular file open as FD, read whole as lcsb__read_regular says; PATH
 * is how it was named. */
static int read_fd(int fd, const char *path, size_t max, char **data, size_t *len, char *real,
                   lcsb__file_seen *seen) {
    struct stat st;
    char *buf = NULL;
    size_t cap = 0, got = 0;
    int error = 0;
    if (fstat(fd, &st) != 0)
        error = errno;
    else if (!S_ISREG(st.st_mode))
        error = EINVAL;
    else if ((size_t)st.st_size > max)
        error = EFBIG;
    /* A file the kernel makes up says no size (0): a page, not a byte,
     * to start with, as each read is a call. */
    else if (!(buf = malloc((cap = st.st_size ? (size_t)st.st_size + 1 : 4096) + 1)))
        error = ENOMEM;
    if (!error && seen) {
        seen->st = st;
        seen->kernel_made = kernel_made(fd, &st);
    }
#ifdef __linux__
    (void)path;
    if (!error && real) {
        char link[32];
        snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
        ssize_t n = readlink(link, real, PATH_MAX - 1);
        if (n <= 0 || n >= PATH_MAX - 1)
            error = n < 0 ? errno : ENAMETOOLONG;
        else
            real[n] = '\0';
    }
#else
    if (!error && real && !realpath(path, real)) error = errno;
#endif
    /* Until the end, not st_size: the file may have grown since. */
    while (!error) {
        ssize_t n = read(fd, buf + got, cap - got);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) error = errno;
        if (n <= 0) break;
        if ((got += (size_t)n) > max) {
            error = EFBIG;
        } else if (got == cap) {
            char *grown = realloc(buf, (cap *= 2) + 1);
            if (!grown)
                error = ENOMEM;
            else
                buf = grown;
        }
    }
    if (error) {
        free(buf);
        errno = error;
        return -1;
    }
    buf[got] = '\0';
    *data = buf;
    *len = got;
    return 0;
}

/* The same, FD closed after. */
static int read_open(int fd, const char *path, size_t max, char **data, size_t *len, char *real,
                     lcsb__file_seen *seen) {
    int rc = read_fd(fd, path, max, data, len, real, seen);
    int saved = errno;
    close(fd);
    errno = saved;
    return rc;
}

int lcsb__read_regular_fd(int fd, size_t max, char **data, size_t *len, lcsb__file_seen *seen) {
    *data = NULL;
    *len = 0;
    return read_fd(fd, "", max, data, len, NULL, seen);
}

int lcsb__read_regular_at(int dirfd, const char *path, size_t max, bool nofollow, char **data,
                          size_t *len, char *real, lcsb__file_seen *seen) {
    *data = NULL;
    *len = 0;
    int fd = openat(dirfd, path,
                    O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK | (nofollow ? O_NOFOLLOW : 0));
    if (fd < 0) return -1;
    return read_open(fd, path, max, data, len, real, seen);
}

int lcsb__read_kernel_file(const char *path, size_t max, char **data, size_t *len, char *real,
                           lcsb__file_seen *seen) {
    *data = NULL;
    *len = 0;
#ifdef __linux__
    if (!lcsb__path_is_normal(path) || strlen(path) >= PATH_MAX ||
        !(lcsb__path_within(path, "/proc") || lcsb__path_within(path, "/sys"))) {
        errno = EXDEV;
        return -1;
    }
    /* A magic link (/proc/PID/cwd, root, exe, fd/N) leads wherever a
     * process points it, a project's directory or a symlink the command
     * made there: the kernel refuses to follow one (ELOOP). The plain
     * symlinks left on the way (/proc/self, /proc/mounts, sysfs's own) are
     * the kernel's, and the path, having no "..", never leaves the tree
     * but through them. */
    struct open_how how = {.flags = O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK,
                           .resolve = RESOLVE_NO_MAGICLINKS};
    int fd = (int)syscall(SYS_openat2, AT_FDCWD, path, &how, sizeof how);
    if (fd < 0) return -1;
    lcsb__file_seen own;
    if (!seen) seen = &own;
    char where[PATH_MAX];
    if (!real) real = where;
    if (read_open(fd, path, max, data, len, real, seen) != 0) return -1;
    /* Where it ended, asked of the descriptor: on the kernel's file system,
     * in its tree. */
    if (seen->kernel_made && (lcsb__path_within(real, "/proc") || lcsb__path_within(real, "/sys")))
        return 0;
    free(*data);
    *data = NULL;
    *len = 0;
    errno = EXDEV;
    return -1;
#else
    (void)path, (void)max, (void)real, (void)seen;
    errno = ENOSYS;
    return -1;
#endif
}

int lcsb__mount_of(int fd, uint64_t *out, dev_t *dev, ino_t *ino) {
#ifdef __linux__
    /* A bind mount of the same file system shares its device number; only the
     * mount ID tells it apart. */
    struct statx stx;
    if (statx(fd, "", AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW, STATX_MNT_ID | STATX_INO, &stx) != 0)
        return -1;
    if (!(stx.stx_mask & STATX_MNT_ID)) {
        errno = ENOSYS;
        return -1;
    }
    *out = stx.stx_mnt_id;
    if (dev) {
        *dev = makedev(stx.stx_dev_major, stx.stx_dev_minor);
        *ino = (ino_t)stx.stx_ino;
    }
#else
    struct stat st;
    if (fstat(fd, &st) != 0) return -1;
    *out = (uint64_t)st.st_dev;
    if (dev) {
        *dev = st.st_dev;
        *ino = st.st_ino;
    }
#endif
    return 0;
}

int lcsb__present_beneath(int dirfd, const char *rel) {
#ifdef __linux__
    struct open_how how = {.flags = O_PATH | O_CLOEXEC,
                           .resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_XDEV};
    int fd = (int)syscall(SYS_openat2, dirfd, rel, &how, sizeof how);
    if (fd >= 0) {
        close(fd);
        return 1;
    }
    if (errno == ELOOP) return 1; /* a symlink on the way, or there */
    if (errno == ENOENT || errno == ENOTDIR || errno == EXDEV) return 0;
#else
    (void)dirfd;
    (void)rel;
#endif
    return -1;
}

bool lcsb__write_all(int fd, const void *data, size_t len) {
    const char *at = data;
    while (len > 0) {
        ssize_t n = write(fd, at, len);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) {
            if (n == 0) errno = EIO;
            return false;
        }
        at += n;
        len -= (size_t)n;
    }
    return true;
}

/* SIGPIPE held in this thread while it writes (a write's SIGPIPE is the
 * writing thread's), and one the write raised taken. */
bool lcsb__write_all_unpiped(int fd, const void *data, size_t len) {
    sigset_t pipe_only, was, pending;
    struct timespec now = {0, 0};
    sigemptyset(&pipe_only);
    sigaddset(&pipe_only, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &pipe_only, &was);
    bool held_before = sigpending(&pending) == 0 && sigismember(&pending, SIGPIPE);
    bool ok = lcsb__write_all(fd, data, len);
    if (!ok && errno == EPIPE && !held_before) sigtimedwait(&pipe_only, NULL, &now);
    pthread_sigmask(SIG_SETMASK, &was, NULL);
    return ok;
}

long long lcsb__now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

struct timespec lcsb__fs_now(void) {
    struct timespec now = {0};
#ifdef __linux__
    clock_gettime(CLOCK_REALTIME_COARSE, &now);
#else
    clock_gettime(CLOCK_REALTIME, &now);
#endif
    return now;
}

struct timespec lcsb__ctime(const struct stat *st) {
#ifdef __APPLE__
    return st->st_ctimespec;
#else
    return st->st_ctim;
#endif
}

bool lcsb__find_on_path(const char *name, char *out, size_t size) {
    const char *path = getenv("PATH");
    if (!path) path = "/usr/local/bin:/usr/bin:/bin";
    while (*path) {
        const char *end = strchr(path, ':');
        size_t len = end ? (size_t)(end - path) : strlen(path);
        struct stat st;
        /* Relative PATH entries depend on the working directory; skip them. */
        if (len > 0 && path[0] == '/') {
            int n = snprintf(out, size, "%.*s/%s", (int)len, path, name);
            if (n > 0 && (size_t)n < size && stat(out, &st) == 0 && S_ISREG(st.st_mode) &&
                access(out, X_OK) == 0)
                return true;
        }
        path += len + (end ? 1 : 0);
    }
    out[0] = '\0';
    return false;
}

#ifdef __linux__
/* The file mapped at ADDR, as /proc/self/maps names it: the kernel's answer,
 * whatever name the loader had (glibc's dladdr names the main program by
 * its argv[0], and a module by the path given to dlopen, maybe relative). */
static bool mapped_file(uintptr_t addr, char *out) {
    FILE *f = fopen("/proc/self/maps", "re");
    if (!f) return false;
    char line[PATH_MAX + 128];
    bool found = false, whole = true;
    while (fgets(line, sizeof line, f)) {
        bool starts = whole; /* the rest of a line too long for LINE is no line */
        whole = strchr(line, '\n') != NULL;
        unsigned long long lo, hi;
        int at = 0;
        if (!starts || sscanf(line, "%llx-%llx %*s %*s %*s %*s %n", &lo, &hi, &at) != 2 || !at ||
            addr < lo || addr >= hi)
            continue;
        line[strcspn(line, "\n")] = '\0';
        /* A file replaced since it was loaded reads "PATH (deleted)", which
         * resolves to nothing. */
        found = line[at] == '/' && lcsb__realpath(line + at, out);
        break;
    }
    fclose(f);
    return found;
}
#endif

/* The file this code was loaded from, found once per process: it cannot
 * change while the process runs, and finding it reads /proc/self/maps. */
static char self_file[PATH_MAX];
static bool self_found;
static pthread_once_t self_once = PTHREAD_ONCE_INIT;

static void find_self(void) {
    void *self = (void *)(uintptr_t)&lcsb__self_path;
#ifdef __linux__
    if (mapped_file((uintptr_t)self, self_file)) {
        self_found = true;
        return;
    }
#endif
    Dl_info info;
    self_found = dladdr(self, &info) && info.dli_fname && info.dli_fname[0] == '/' &&
                 realpath(info.dli_fname, self_file);
}

bool lcsb__self_path(char *out) {
    pthread_once(&self_once, find_self);
    if (self_found) memcpy(out, self_file, strlen(self_file) + 1);
    return self_found;
}

int lcsb__send_fds(int channel, char byte, const int *fds, size_t n) {
    union {
        char buf[CMSG_SPACE(4 * sizeof(int))];
        struct cmsghdr align;
    } control;
    if (n > 4) {
        errno = EINVAL;
        return -1;
    }
    memset(&control, 0, sizeof control);
    struct iovec iov = {.iov_base = &byte, .iov_len = 1};
    struct msghdr msg = {.msg_iov = &iov,
                         .msg_iovlen = 1,
                         .msg_control = control.buf,
                         .msg_controllen = CMSG_SPACE(n * sizeof(int))};
    struct cmsghdr *c = CMSG_FIRSTHDR(&msg);
    c->cmsg_level = SOL_SOCKET;
    c->cmsg_type = SCM_RIGHTS;
    c->cmsg_len = CMSG_LEN(n * sizeof(int));
    memcpy(CMSG_DATA(c), fds, n * sizeof(int));
    ssize_t sent;
    while ((sent = sendmsg(channel, &msg, MSG_NOSIGNAL)) < 0 && errno == EINTR) {
    }
    return sent == 1 ? 0 : -1;
}

int lcsb__recv_fd(int channel, unsigned char *byte) {
    union {
        char buf[CMSG_SPACE(sizeof(int))];
        struct cmsghdr align;
    } control;
    struct iovec iov = {.iov_base = byte, .iov_len = 1};
    struct msghdr msg = {.msg_iov = &iov,
                         .msg_iovlen = 1,
                         .msg_control = control.buf,
                         .msg_controllen = sizeof control.buf};
    ssize_t n;
    *byte = 0;
    while ((n = recvmsg(channel, &msg, MSG_CMSG_CLOEXEC)) < 0 && errno == EINTR) {
    }
    struct cmsghdr *c = n == 1 ? CMSG_FIRSTHDR(&msg) : NULL;
    if (!c || (msg.msg_flags & MSG_CTRUNC) || c->cmsg_level != SOL_SOCKET ||
        c->cmsg_type != SCM_RIGHTS || c->cmsg_len != CMSG_LEN(sizeof(int)))
        return -1;
    int fd;
    memcpy(&fd, CMSG_DATA(c), sizeof fd);
    return fd;
}
