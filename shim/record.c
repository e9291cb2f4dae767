/* liblcsb-record.so: lcsb's recorder, which the shim preloads into the
 * command's dynamically linked programs (docs/wire-format.md, "The
 * recorder").
 *
 * It wraps the libc calls through which a program runs, opens, creates,
 * changes or removes a path, connects, binds and makes sockets. When one
 * fails the way a sandbox refuses (EACCES, EPERM, EROFS; in a world of its
 * own also ENOENT and ENOTDIR, since a path outside the policy is not
 * there), it writes one line to lcsb's pipe, LCSB_RECORD_FD,
 *
 *     OP \t ERRNO \t PID \t PROGRAM \t TARGET \n
 *
 * and returns what the call returned, errno included. The kernel has
 * already said no: a record is evidence for lcsb's hints, never a decision.
 *
 * It runs inside every program of the command, so it must never block (the
 * pipe is non-blocking and a full pipe loses the record), print, allocate
 * where a vfork child may run it, or call back into itself: its own work
 * goes through syscall(2), and every real function is found with
 * dlsym(RTLD_NEXT). Without a usable LCSB_RECORD_FD it does nothing but
 * call the real functions.
 *
 * Its descriptor outlives the command's close-everything loops: close,
 * close_range, closefrom and posix_spawn's close action pass over it, and a
 * dup2, dup3 or spawn action onto its number first moves it to a free high
 * one. The exec wrappers give the next program the number it is at now
 * (where its environment names one the descriptor was at), and leave
 * LCSB_RECORD_FD out once the descriptor is no longer lcsb's. A vfork child
 * shares its parent's memory: there the recorder changes nothing of its own
 * state.
 *
 * What it cannot see: static binaries, raw system calls (Go, io_uring),
 * set-uid programs (the loader ignores LD_PRELOAD for them), libc's calls
 * from inside itself (system, popen, a posix_spawn child's file actions)
 * and the pre-2.33 stat entry points (__xstat), which dlsym cannot reach. */
#undef _FORTIFY_SOURCE   /* open, fopen and the rest are defined here, not inlined */
#undef _FILE_OFFSET_BITS /* open and open64 are two symbols, each wrapped */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/magic.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdarg.h>
#include <netdb.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/un.h>
#include <unistd.h>
#include <utime.h>

#define EXPORT __attribute__((visibility("default")))

#define FD_VAR "LCSB_RECORD_FD"
/* Where a descriptor moved off a number the program wants goes: above the
 * numbers shells and programs pick for themselves. */
#define MOVE_FLOOR 255
/* Directories climbed, at most, to find where a missing path would be. */
#define CLIMB_MAX 64
/* The program's name as lcsb keeps it (64 bytes with its NUL). */
#define PROGRAM_MAX 63
#define SEEN_SLOTS 256
#define SEEN_PROBES 8 /* slots a record may take, from its own on */
/* Numbers moved away from, remembered. */
#define LEFT_MAX 8

/* Entry points libc keeps only for binaries built against it with
 * _FORTIFY_SOURCE; no header declares them without it. */
int __open_2(const char *path, int flags);
int __open64_2(const char *path, int flags);
int __openat_2(int dirfd, const char *path, int flags);
int __openat64_2(int dirfd, const char *path, int flags);

/* ---- the real functions ---- */

/* Every function wrapped here, as NAME, return type and parameters. */
#define REALS(X)                                                                                   \
    X(execve, int, (const char *, char *const[], char *const[]))                                   \
    X(execveat, int, (int, const char *, char *const[], char *const[], int))                       \
    X(execvpe, int, (const char *, char *const[], char *const[]))                                  \
    X(fexecve, int, (int, char *const[], char *const[]))                                           \
    X(posix_spawn, int,                                                                            \
      (pid_t *, const char *, const posix_spawn_file_actions_t *, const posix_spawnattr_t *,       \
       char *const[], char *const[]))                                                              \
    X(posix_spawnp, int,                                                                           \
      (pid_t *, const char *, const posix_spawn_file_actions_t *, const posix_spawnattr_t *,       \
       char *const[], char *const[]))                                                              \
    X(posix_spawn_file_actions_addclose, int, (posix_spawn_file_actions_t *, int))                 \
    X(posix_spawn_file_actions_adddup2, int, (posix_spawn_file_actions_t *, int, int))             \
    X(posix_spawn_file_actions_addopen, int,                                                       \
      (posix_spawn_file_actions_t *, int, const char *, int, mode_t))                              \
    X(close, int, (int))                                                                           \
    X(close_range, int, (unsigned int, unsigned int, int))                                         \
    X(closefrom, void, (int))                                                                      \
    X(dup2, int, (int, int))                                                                       \
    X(dup3, int, (int, int, int))                                                                  \
    X(open, int, (const char *, int, ...))                                                         \
    X(open64, int, (const char *, int, ...))                                                       \
    X(openat, int, (int, const char *, int, ...))                                                  \
    X(openat64, int, (int, const char *, int, ...))                                                \
    X(__open_2, int, (const char *, int))                                                          \
    X(__open64_2, int, (const char *, int))                                                        \
    X(__openat_2, int, (int, const char *, int))                                                   \
    X(__openat64_2, int, (int, const char *, int))                                                 \
    X(creat, int, (const char *, mode_t))                                                          \
    X(creat64, int, (const char *, mode_t))                                                        \
    X(fopen, FILE *, (const char *, const char *))                                                 \
    X(fopen64, FILE *, (const char *, const char *))                                               \
    X(freopen, FILE *, (const char *, const char *, FILE *))                                       \
    X(freopen64, FILE *, (const char *, const char *, FILE *))                                     \
    X(opendir, DIR *, (const char *))                                                              \
    X(mkdir, int, (const char *, mode_t))                                                          \
    X(mkdirat, int, (int, const char *, mode_t))                                                   \
    X(unlink, int, (const char *))                                                                 \
    X(unlinkat, int, (int, const char *, int))                                                     \
    X(rmdir, int, (const char *))                                                                  \
    X(rename, int, (const char *, const char *))                                                   \
    X(renameat, int, (int, const char *, int, const char *))                                       \
    X(renameat2, int, (int, const char *, int, const char *, unsigned int))                        \
    X(link, int, (const char *, const char *))                                                     \
    X(linkat, int, (int, const char *, int, const char *, int))                                    \
    X(symlink, int, (const char *, const char *))                                                  \
    X(symlinkat, int, (const char *, int, const char *))                                           \
    X(truncate, int, (const char *, off_t))                                                        \
    X(truncate64, int, (const char *, off64_t))                                                    \
    X(chmod, int, (const char *, mode_t))                                                          \
    X(fchmodat, int, (int, const char *, mode_t, int))                                             \
    X(chown, int, (const char *, uid_t, gid_t))                                                    \
    X(lchown, int, (const char *, uid_t, gid_t))                                                   \
    X(fchownat, int, (int, const char *, uid_t, gid_t, int))                                       \
    X(utime, int, (const char *, const struct utimbuf *))                                          \
    X(utimes, int, (const char *, const struct timeval[2]))                                        \
    X(utimensat, int, (int, const char *, const struct timespec[2], int))                          \
    X(mknod, int, (const char *, mode_t, dev_t))                                                   \
    X(mknodat, int, (int, const char *, mode_t, dev_t))                                            \
    X(mkfifo, int, (const char *, mode_t))                                                         \
    X(mkfifoat, int, (int, const char *, mode_t))                                                  \
    X(stat, int, (const char *, struct stat *))                                                    \
    X(stat64, int, (const char *, struct stat64 *))                                                \
    X(lstat, int, (const char *, struct stat *))                                                   \
    X(lstat64, int, (const char *, struct stat64 *))                                               \
    X(fstatat, int, (int, const char *, struct stat *, int))                                       \
    X(fstatat64, int, (int, const char *, struct stat64 *, int))                                   \
    X(statx, int, (int, const char *, int, unsigned int, struct statx *))                          \
    X(access, int, (const char *, int))                                                            \
    X(faccessat, int, (int, const char *, int, int))                                               \
    X(connect, int, (int, const struct sockaddr *, socklen_t))                                     \
    X(bind, int, (int, const struct sockaddr *, socklen_t))                                        \
    X(socket, int, (int, int, int))                                                                \
    X(getaddrinfo, int,                                                                            \
      (const char *, const char *, const struct addrinfo *, struct addrinfo **))

#define AS_ENUM(name, ret, params) R_##name,
#define AS_TYPE(name, ret, params) typedef ret(*name##_fn) params;
#define AS_NAME(name, ret, params) #name,
enum real_index { REALS(AS_ENUM) REAL_COUNT };
REALS(AS_TYPE)
static const char *const real_names[REAL_COUNT] = {REALS(AS_NAME)};
static void *real_found[REAL_COUNT];

/* The next definition of WHICH after this library's: libc's. Found by the
 * constructor, or on first use before it ran; threads that race find the
 * same pointer. */
static void *real(enum real_index which) {
    void *f = __atomic_load_n(&real_found[which], __ATOMIC_ACQUIRE);
    if (f == NULL) {
        f = dlsym(RTLD_NEXT, real_names[which]);
        __atomic_store_n(&real_found[which], f, __ATOMIC_RELEASE);
    }
    return f;
}

#define REAL(name) ((name##_fn)real(R_##name))

/* ---- the recorder's state ---- */

static int record_fd = -1; /* lcsb's pipe or file; -1: record nothing */
static bool absent;        /* LCSB_RECORD_ABSENT=1: a world of its own */
static bool record_is_pipe;
static dev_t record_dev; /* what the descriptor is, to know it is still ours */
static ino_t record_ino;
/* The process this memory belongs to: a vfork child runs with another pid
 * in the same memory, and changes none of it. fork's children take it over. */
static pid_t owner_pid;
/* Records written by this process, by hash: the same refusal once. */
static uint64_t seen[SEEN_SLOTS];
/* The numbers the descriptor was at before it moved, latest last: an
 * environment naming one is out of date. */
static int left_numbers[LEFT_MAX];
static unsigned int left_count;

static int current_fd(void) { return __atomic_load_n(&record_fd, __ATOMIC_ACQUIRE); }

static bool in_owner(void) { return syscall(SYS_getpid) == owner_pid; }

/* Is FD the descriptor lcsb handed over, still? */
static bool ours(int fd) {
    struct stat st;
    return fd >= 0 && syscall(SYS_fstat, fd, &st) == 0 && st.st_dev == record_dev &&
           st.st_ino == record_ino;
}

/* NUMBER in decimal into OUT (at least 12 bytes); its length. */
static size_t decimal(long number, char *out) {
    char digits[24];
    size_t n = 0, len = 0;
    unsigned long v = number < 0 ? 0UL - (unsigned long)number : (unsigned long)number;
    do digits[n++] = (char)('0' + v % 10);
    while ((v /= 10) != 0);
    if (number < 0) out[len++] = '-';
    while (n > 0) out[len++] = digits[--n];
    out[len] = '\0';
    return len;
}

/* ---- one record ---- */

struct line {
    char text[PIPE_BUF];
    size_t len;
    bool overflow;
};

static void put(struct line *l, const char *s, size_t n) {
    if (l->overflow || n > sizeof l->text - l->len) {
        l->overflow = true;
        return;
    }
    memcpy(l->text + l->len, s, n);
    l->len += n;
}

/* At most MOST bytes of S, with every byte below '!', DEL and '%' as %XX:
 * a field never holds a tab, a newline or a control byte. */
static void put_escaped(struct line *l, const char *s, size_t most) {
    static const char hex[] = "0123456789ABCDEF";
    for (size_t i = 0; s[i] != '\0' && i < most; i++) {
        unsigned char c = (unsigned char)s[i];
        char esc[3] = {'%', hex[c >> 4], hex[c & 15]};
        if (c < '!' || c == 0x7f || c == '%')
            put(l, esc, 3);
        else
            put(l, (const char *)&c, 1);
    }
}

static void put_number(struct line *l, long number) {
    char text[24];
    put(l, text, decimal(number, text));
}

/* FNV-1a of the record's op, errno and target. Is it new to this process?
 * Noted when it is; a slot holds the last record that fell in it. */
static bool first_time(const char *op, int err, const char *target) {
    uint64_t h = 1469598103934665603ULL;
    for (const char *s = op; *s; s++) h = (h ^ (unsigned char)*s) * 1099511628211ULL;
    h = (h ^ (uint64_t)(unsigned)err) * 1099511628211ULL;
    for (const char *s = target; *s; s++) h = (h ^ (unsigned char)*s) * 1099511628211ULL;
    if (h == 0) h = 1; /* 0 is an empty slot */
    /* Open addressing over a short window, so that two records whose hashes
     * meet take a slot each; a full window gives its first slot to the new
     * one (a record may then be written again: evidence, not accounting). */
    for (size_t i = 0; i < SEEN_PROBES; i++) {
        uint64_t *slot = &seen[(h + i) % SEEN_SLOTS], empty = 0;
        if (__atomic_load_n(slot, __ATOMIC_RELAXED) == h) return false;
        if (__atomic_compare_exchange_n(slot, &empty, h, false, __ATOMIC_RELAXED,
                                        __ATOMIC_RELAXED))
            return true;
        if (empty == h) return false; /* another thread noted it just now */
    }
    __atomic_store_n(&seen[h % SEEN_SLOTS], h, __ATOMIC_RELAXED);
    return true;
}

/* LINE onto lcsb's descriptor with one write, or nowhere: not when the
 * number now holds something else, and not when the pipe would make the
 * program wait. A pipe whose reader is gone fails the write with EPIPE;
 * the SIGPIPE that comes with it is taken back, unless one was already
 * pending. */
static void emit(const struct line *l) {
    int fd = current_fd();
    if (!ours(fd)) return;
    if (!record_is_pipe) {
        (void)syscall(SYS_write, fd, l->text, l->len);
        return;
    }
    long flags = syscall(SYS_fcntl, fd, F_GETFL);
    if (flags < 0 || !(flags & O_NONBLOCK)) return;
    sigset_t pipe_only, old, pending;
    sigemptyset(&pipe_only);
    sigaddset(&pipe_only, SIGPIPE);
    if (pthread_sigmask(SIG_BLOCK, &pipe_only, &old) != 0) return;
    bool was_pending = sigpending(&pending) == 0 && sigismember(&pending, SIGPIPE) == 1;
    if (syscall(SYS_write, fd, l->text, l->len) < 0 && errno == EPIPE && !was_pending) {
        struct timespec now = {0, 0};
        (void)syscall(SYS_rt_sigtimedwait, &pipe_only, NULL, &now, _NSIG / 8);
    }
    pthread_sigmask(SIG_SETMASK, &old, NULL);
}

static void record(const char *op, int err, const char *target) {
    struct line l = {.len = 0};
    char name[17] = "";
    const char *program = program_invocation_short_name;
    if (program == NULL || program[0] == '\0') {
        (void)syscall(SYS_prctl, PR_GET_NAME, name, 0, 0, 0);
        program = name;
    }
    put(&l, op, strlen(op));
    put(&l, "\t", 1);
    put_number(&l, err);
    put(&l, "\t", 1);
    put_number(&l, syscall(SYS_getpid));
    put(&l, "\t", 1);
    put_escaped(&l, program, PROGRAM_MAX);
    put(&l, "\t", 1);
    put_escaped(&l, target, PATH_MAX);
    put(&l, "\n", 1);
    if (!l.overflow) emit(&l);
}

/* ---- which failures ---- */

/* Could ERR be the sandbox's refusal? Cheap, before any work. */
static bool refusal_errno(int err) {
    if (current_fd() < 0) return false;
    return err == EACCES || err == EPERM || err == EROFS ||
           (absent && (err == ENOENT || err == ENOTDIR));
}

/* Is the nearest directory above PATH that exists on a tmpfs? In a world
 * of its own the root is a tmpfs and the policy's paths are the host's,
 * bound in: a path missing under one of them is missing on the host too
 * (a compiler's search for headers under /usr), not kept out. */
static bool missing_from_world(const char *path) {
    char dir[PATH_MAX];
    size_t len = strlen(path);
    if (len >= sizeof dir) return false;
    memcpy(dir, path, len + 1);
    for (int i = 0; i < CLIMB_MAX; i++) {
        char *slash = strrchr(dir, '/');
        if (slash == NULL) return false;
        if (slash == dir)
            slash[1] = '\0';
        else
            *slash = '\0';
        struct statfs fs;
        if (syscall(SYS_statfs, dir, &fs) == 0) return fs.f_type == TMPFS_MAGIC;
        if ((errno != ENOENT && errno != ENOTDIR) || slash == dir) return false;
    }
    return false;
}

/* PATH as DIRFD sees it, made absolute into OUT (PATH_MAX bytes). A
 * relative path is joined to the working directory, or to where DIRFD
 * points (/proc/self/fd); false when neither can be read. An empty PATH
 * names DIRFD itself, where EMPTY allows it. */
static bool absolute(int dirfd, const char *path, bool empty, char *out) {
    size_t len = 0;
    if (path == NULL || (path[0] == '\0' && !empty)) return false;
    if (path[0] != '/') {
        long n;
        if (dirfd == AT_FDCWD) {
            n = syscall(SYS_getcwd, out, PATH_MAX);
            n = n > 0 ? (long)strlen(out) : -1;
        } else {
            char link[32] = "/proc/self/fd/";
            decimal(dirfd, link + strlen(link));
            n = syscall(SYS_readlinkat, AT_FDCWD, link, out, PATH_MAX - 1);
        }
        if (n <= 0 || out[0] != '/') return false; /* also "(unreachable)/..." */
        len = (size_t)n;
        out[len] = '\0';
        while (path[0] == '.' && path[1] == '/') path += 2;
        if (path[0] == '\0') return true;
        if (out[len - 1] != '/') out[len++] = '/';
    }
    size_t rest = strlen(path);
    if (len + rest >= PATH_MAX) return false;
    memcpy(out + len, path, rest + 1);
    return true;
}

/* The call on PATH (from DIRFD) failed with ERR: a record when it reads
 * as a refusal. */
static void note_path(const char *op, int err, int dirfd, const char *path, bool empty) {
    char target[PATH_MAX];
    if (!refusal_errno(err) || !absolute(dirfd, path, empty, target) ||
        !first_time(op, err, target))
        return;
    if ((err == ENOENT || err == ENOTDIR) && !missing_from_world(target)) return;
    record(op, err, target);
}

/* What a call returned, passed on with errno as it was. */
static int noted(int r, const char *op, int dirfd, const char *path) {
    if (r < 0 && refusal_errno(errno)) {
        int err = errno;
        note_path(op, err, dirfd, path, false);
        errno = err;
    }
    return r;
}

/* A rename can be refused on either side: the name it takes away, or the
 * one it makes. */
static int noted2(int r, int dirfd1, const char *path1, int dirfd2, const char *path2) {
    if (r < 0 && refusal_errno(errno)) {
        int err = errno;
        note_path("write", err, dirfd1, path1, false);
        note_path("write", err, dirfd2, path2, false);
        errno = err;
    }
    return r;
}

/* stat and access only ask: their EACCES is no refusal (Landlock does not
 * answer them; access(X_OK) is a search for a program), but in a world of
 * its own the path they ask about may be outside it. */
static int probed(int r, const char *op, int dirfd, const char *path) {
    if (r < 0 && absent && (errno == ENOENT || errno == ENOTDIR) && current_fd() >= 0) {
        int err = errno;
        note_path(op, err, dirfd, path, false);
        errno = err;
    }
    return r;
}

static const char *open_op(int flags) {
    return (flags & O_ACCMODE) != O_RDONLY || (flags & (O_CREAT | O_TRUNC)) ? "write" : "read";
}

/* fopen's MODE: "r" reads; "w", "a" or "+" writes (",ccs=" is not the mode). */
static const char *mode_op(const char *mode) {
    for (; mode != NULL && *mode != '\0' && *mode != ','; mode++)
        if (*mode == 'w' || *mode == 'a' || *mode == '+') return "write";
    return "read";
}

/* ---- the descriptor kept ---- */

/* LCSB_RECORD_FD for what this process runs through libc without us
 * (system, popen). Never in a vfork child: setenv allocates. */
static void tell_environment(int fd) {
    char number[24];
    decimal(fd, number);
    (void)setenv(FD_VAR, number, 1);
}

/* The program is about to put something of its own at TARGET (from
 * SOURCE): when that is the recorder's number, the recorder moves to a
 * free one first. Returns the number it left, or -1 when it did not move
 * (not ours, or a vfork child: then the program's descriptor takes the
 * number, and the recorder no longer writes there). */
static int make_room(int target, int source) {
    int fd = current_fd();
    if (fd < 0 || target != fd || source == target || !in_owner() || !ours(fd)) return -1;
    long moved = syscall(SYS_fcntl, fd, F_DUPFD, MOVE_FLOOR);
    if (moved < 0) moved = syscall(SYS_fcntl, fd, F_DUPFD, 3);
    if (moved < 0) return -1;
    left_numbers[left_count++ % LEFT_MAX] = fd;
    __atomic_store_n(&record_fd, (int)moved, __ATOMIC_RELEASE);
    tell_environment((int)moved);
    return fd;
}

/* The program's call failed: the recorder goes back to LEFT. */
static void move_back(int left) {
    int moved = current_fd();
    __atomic_store_n(&record_fd, left, __ATOMIC_RELEASE);
    (void)syscall(SYS_close, moved);
    tell_environment(left);
}

/* Is FD the recorder's, to be passed over by a close? */
static bool spared(int fd) { return fd >= 0 && fd == current_fd() && ours(fd); }

static int real_close_range(unsigned int first, unsigned int last, int flags) {
    close_range_fn f = REAL(close_range);
    return f != NULL ? f(first, last, flags) : (int)syscall(SYS_close_range, first, last, flags);
}

/* Does TEXT name a number the descriptor was at, now or before? */
static bool names_ours(const char *text, int fd) {
    char number[24];
    decimal(fd, number);
    if (strcmp(text, number) == 0) return true;
    for (unsigned int i = 0; i < left_count && i < LEFT_MAX; i++) {
        decimal(left_numbers[i], number);
        if (strcmp(text, number) == 0) return true;
    }
    return false;
}

/* How many slots ENV needs for the next program to be told where the
 * recorder's descriptor is now: 0 when it says so already, or says
 * nothing of it (a program that dropped LCSB_RECORD_FD, or set it to a
 * number of its own, meant to). The descriptor is kept open across the
 * exec on the way. */
static size_t env_slots(char *const env[]) {
    int fd = current_fd();
    const char *said = NULL;
    size_t n = 0;
    if (fd < 0 || env == NULL) return 0;
    for (; env[n] != NULL; n++)
        if (said == NULL && strncmp(env[n], FD_VAR "=", sizeof FD_VAR) == 0)
            said = env[n] + sizeof FD_VAR;
    if (said == NULL || !names_ours(said, fd)) return 0;
    if (ours(fd)) {
        char number[24];
        long flags = syscall(SYS_fcntl, fd, F_GETFD);
        if (flags > 0 && (flags & FD_CLOEXEC)) (void)syscall(SYS_fcntl, fd, F_SETFD, 0);
        decimal(fd, number);
        if (strcmp(said, number) == 0) return 0;
    }
    return n + 1;
}

/* ENV into FIXED (env_slots' count): the first LCSB_RECORD_FD as ENTRY
 * (32 bytes) says, or left out when the descriptor is no longer lcsb's. */
static char *const *env_fill(char *const env[], char **fixed, char *entry) {
    int fd = current_fd();
    bool keep = ours(fd);
    size_t k = 0;
    memcpy(entry, FD_VAR "=", sizeof FD_VAR);
    decimal(fd, entry + sizeof FD_VAR);
    for (size_t i = 0; env[i] != NULL; i++) {
        if (strncmp(env[i], FD_VAR "=", sizeof FD_VAR) != 0)
            fixed[k++] = env[i];
        else if (keep) {
            fixed[k++] = entry;
            keep = false;
        }
    }
    fixed[k] = NULL;
    return fixed;
}

/* The environment a wrapper hands on: ENV, or FIXED filled. */
#define HANDED_ENV(env, use)                                                                       \
    size_t slots_ = env_slots(env);                                                                \
    char *fixed_[slots_ + 1];                                                                      \
    char entry_[32];                                                                               \
    char *const *use = slots_ ? env_fill(env, fixed_, entry_) : (env)

/* ---- exec ---- */

/* FILE was searched for along PATH, as execvp and posix_spawnp do, and ERR
 * is how the search ended. Each candidate there is noted: one that exists
 * was refused with ERR (the search goes on past EACCES), one that does not
 * is missing (kept only in a world of its own, when missing from it). */
static void note_search(const char *file, int err) {
    if (file == NULL || file[0] == '\0' || current_fd() < 0) return;
    if (strchr(file, '/') != NULL) {
        note_path("exec", err, AT_FDCWD, file, false);
        return;
    }
    const char *path = getenv("PATH");
    size_t flen = strlen(file);
    if (path == NULL) path = "/bin:/usr/bin"; /* glibc's default */
    for (const char *dir = path;;) {
        const char *end = strchrnul(dir, ':');
        size_t dlen = (size_t)(end - dir);
        char candidate[PATH_MAX];
        if (dlen + 1 + flen < sizeof candidate) {
            memcpy(candidate, dir, dlen);
            candidate[dlen] = '/';
            memcpy(candidate + dlen + 1, file, flen + 1);
            /* An empty element is the working directory. */
            const char *name = dlen ? candidate : candidate + 1;
            if (syscall(SYS_faccessat, AT_FDCWD, name, F_OK) == 0) {
                if (err == EACCES || err == EPERM) note_path("exec", err, AT_FDCWD, name, false);
            } else if (errno == EACCES || errno == ENOENT || errno == ENOTDIR) {
                note_path("exec", errno, AT_FDCWD, name, false);
            }
        }
        if (*end == '\0') break;
        dir = end + 1;
    }
}

static int exec_file(const char *path, char *const argv[], char *const envp[]) {
    HANDED_ENV(envp, env);
    int r = REAL(execve)(path, argv, env);
    int err = errno;
    note_path("exec", err, AT_FDCWD, path, false);
    errno = err;
    return r;
}

static int exec_search(const char *file, char *const argv[], char *const envp[]) {
    HANDED_ENV(envp, env);
    int r = REAL(execvpe)(file, argv, env);
    int err = errno;
    note_search(file, err);
    errno = err;
    return r;
}

EXPORT int execve(const char *path, char *const argv[], char *const envp[]) {
    return exec_file(path, argv, envp);
}

EXPORT int execv(const char *path, char *const argv[]) { return exec_file(path, argv, environ); }

EXPORT int execvp(const char *file, char *const argv[]) { return exec_search(file, argv, environ); }

EXPORT int execvpe(const char *file, char *const argv[], char *const envp[]) {
    return exec_search(file, argv, envp);
}

EXPORT int execveat(int dirfd, const char *path, char *const argv[], char *const envp[],
                    int flags) {
    HANDED_ENV(envp, env);
    int r = REAL(execveat)(dirfd, path, argv, env, flags);
    int err = errno;
    note_path("exec", err, dirfd, path, (flags & AT_EMPTY_PATH) != 0);
    errno = err;
    return r;
}

/* A descriptor names no path worth a hint: run, never recorded. */
EXPORT int fexecve(int fd, char *const argv[], char *const envp[]) {
    HANDED_ENV(envp, env);
    return REAL(fexecve)(fd, argv, env);
}

/* execl's list as an argv on the stack (no allocation: a vfork child may
 * run this), as glibc makes it: ARG, then the rest up to a NULL. AP_ is left
 * past the NULL, where execle's environment is. */
#define LIST_ARGV(argv, arg)                                                                       \
    size_t count_ = 1;                                                                             \
    va_list ap_;                                                                                   \
    va_start(ap_, arg);                                                                            \
    while (va_arg(ap_, const char *) != NULL) count_++;                                            \
    va_end(ap_);                                                                                   \
    char *argv[count_ + 1];                                                                        \
    argv[0] = (char *)arg;                                                                         \
    va_start(ap_, arg);                                                                            \
    for (size_t i_ = 1; i_ <= count_; i_++) argv[i_] = va_arg(ap_, char *)

EXPORT int execl(const char *path, const char *arg, ...) {
    LIST_ARGV(argv, arg);
    va_end(ap_);
    return exec_file(path, argv, environ);
}

EXPORT int execlp(const char *file, const char *arg, ...) {
    LIST_ARGV(argv, arg);
    va_end(ap_);
    return exec_search(file, argv, environ);
}

EXPORT int execle(const char *path, const char *arg, ...) {
    LIST_ARGV(argv, arg);
    char *const *envp = va_arg(ap_, char *const *);
    va_end(ap_);
    return exec_file(path, argv, envp);
}

EXPORT int posix_spawn(pid_t *pid, const char *path, const posix_spawn_file_actions_t *actions,
                       const posix_spawnattr_t *attr, char *const argv[], char *const envp[]) {
    HANDED_ENV(envp, env);
    int rc = REAL(posix_spawn)(pid, path, actions, attr, argv, env);
    int err = errno;
    if (rc != 0) note_path("exec", rc, AT_FDCWD, path, false);
    errno = err;
    return rc;
}

EXPORT int posix_spawnp(pid_t *pid, const char *file, const posix_spawn_file_actions_t *actions,
                        const posix_spawnattr_t *attr, char *const argv[], char *const envp[]) {
    HANDED_ENV(envp, env);
    int rc = REAL(posix_spawnp)(pid, file, actions, attr, argv, env);
    int err = errno;
    if (rc != 0) note_search(file, rc);
    errno = err;
    return rc;
}

/* A spawned child's descriptors, as the parent describes them. */
EXPORT int posix_spawn_file_actions_addclose(posix_spawn_file_actions_t *actions, int fd) {
    return spared(fd) ? 0 : REAL(posix_spawn_file_actions_addclose)(actions, fd);
}

EXPORT int posix_spawn_file_actions_adddup2(posix_spawn_file_actions_t *actions, int fd,
                                            int newfd) {
    (void)make_room(newfd, fd);
    return REAL(posix_spawn_file_actions_adddup2)(actions, fd, newfd);
}

EXPORT int posix_spawn_file_actions_addopen(posix_spawn_file_actions_t *actions, int fd,
                                            const char *path, int flags, mode_t mode) {
    (void)make_room(fd, -1);
    return REAL(posix_spawn_file_actions_addopen)(actions, fd, path, flags, mode);
}

/* ---- descriptors ---- */

/* Closing the recorder's descriptor succeeds without closing it. */
EXPORT int close(int fd) { return spared(fd) ? 0 : REAL(close)(fd); }

EXPORT int close_range(unsigned int first, unsigned int last, int flags) {
    int fd = current_fd();
    int r = 0;
    if (fd < 0 || (unsigned int)fd < first || (unsigned int)fd > last || !ours(fd))
        return real_close_range(first, last, flags);
    /* Both sides of it, with the same flags (CLOSE_RANGE_UNSHARE twice is
     * once; CLOSE_RANGE_CLOEXEC passes over it too). */
    if ((unsigned int)fd > first) r = real_close_range(first, (unsigned int)fd - 1, flags);
    if (r == 0 && (unsigned int)fd < last) r = real_close_range((unsigned int)fd + 1, last, flags);
    return r;
}

EXPORT void closefrom(int lowfd) {
    int fd = current_fd();
    if (fd < 0 || lowfd < 0 || fd < lowfd || !ours(fd)) {
        REAL(closefrom)(lowfd);
        return;
    }
    if (lowfd < fd && real_close_range((unsigned int)lowfd, (unsigned int)fd - 1, 0) != 0)
        for (int i = lowfd; i < fd; i++) (void)syscall(SYS_close, i);
    REAL(closefrom)(fd + 1);
}

EXPORT int dup2(int oldfd, int newfd) {
    int left = make_room(newfd, oldfd);
    int r = REAL(dup2)(oldfd, newfd);
    if (r < 0 && left >= 0) {
        int err = errno;
        move_back(left);
        errno = err;
    }
    return r;
}

EXPORT int dup3(int oldfd, int newfd, int flags) {
    int left = make_room(newfd, oldfd);
    int r = REAL(dup3)(oldfd, newfd, flags);
    if (r < 0 && left >= 0) {
        int err = errno;
        move_back(left);
        errno = err;
    }
    return r;
}

/* ---- open ---- */

/* open's MODE argument, there only when FLAGS create. */
#define OPEN_MODE(mode, flags)                                                                     \
    mode_t mode = 0;                                                                               \
    if (__OPEN_NEEDS_MODE(flags)) {                                                                \
        va_list ap_;                                                                               \
        va_start(ap_, flags);                                                                      \
        mode = va_arg(ap_, mode_t);                                                                \
        va_end(ap_);                                                                               \
    }

EXPORT int open(const char *path, int flags, ...) {
    OPEN_MODE(mode, flags);
    return noted(REAL(open)(path, flags, mode), open_op(flags), AT_FDCWD, path);
}

EXPORT int open64(const char *path, int flags, ...) {
    OPEN_MODE(mode, flags);
    return noted(REAL(open64)(path, flags, mode), open_op(flags), AT_FDCWD, path);
}

EXPORT int openat(int dirfd, const char *path, int flags, ...) {
    OPEN_MODE(mode, flags);
    return noted(REAL(openat)(dirfd, path, flags, mode), open_op(flags), dirfd, path);
}

EXPORT int openat64(int dirfd, const char *path, int flags, ...) {
    OPEN_MODE(mode, flags);
    return noted(REAL(openat64)(dirfd, path, flags, mode), open_op(flags), dirfd, path);
}

EXPORT int __open_2(const char *path, int flags) {
    return noted(REAL(__open_2)(path, flags), open_op(flags), AT_FDCWD, path);
}

EXPORT int __open64_2(const char *path, int flags) {
    return noted(REAL(__open64_2)(path, flags), open_op(flags), AT_FDCWD, path);
}

EXPORT int __openat_2(int dirfd, const char *path, int flags) {
    return noted(REAL(__openat_2)(dirfd, path, flags), open_op(flags), dirfd, path);
}

EXPORT int __openat64_2(int dirfd, const char *path, int flags) {
    return noted(REAL(__openat64_2)(dirfd, path, flags), open_op(flags), dirfd, path);
}

EXPORT int creat(const char *path, mode_t mode) {
    return noted(REAL(creat)(path, mode), "write", AT_FDCWD, path);
}

EXPORT int creat64(const char *path, mode_t mode) {
    return noted(REAL(creat64)(path, mode), "write", AT_FDCWD, path);
}

/* A stream or a directory that could not be opened. */
static void *noted_ptr(void *r, const char *op, const char *path) {
    if (r == NULL && refusal_errno(errno)) {
        int err = errno;
        note_path(op, err, AT_FDCWD, path, false);
        errno = err;
    }
    return r;
}

EXPORT FILE *fopen(const char *path, const char *mode) {
    return noted_ptr(REAL(fopen)(path, mode), mode_op(mode), path);
}

EXPORT FILE *fopen64(const char *path, const char *mode) {
    return noted_ptr(REAL(fopen64)(path, mode), mode_op(mode), path);
}

EXPORT FILE *freopen(const char *path, const char *mode, FILE *stream) {
    return noted_ptr(REAL(freopen)(path, mode, stream), mode_op(mode), path);
}

EXPORT FILE *freopen64(const char *path, const char *mode, FILE *stream) {
    return noted_ptr(REAL(freopen64)(path, mode, stream), mode_op(mode), path);
}

EXPORT DIR *opendir(const char *path) { return noted_ptr(REAL(opendir)(path), "read", path); }

/* ---- what changes a path ---- */

EXPORT int mkdir(const char *path, mode_t mode) {
    return noted(REAL(mkdir)(path, mode), "write", AT_FDCWD, path);
}

EXPORT int mkdirat(int dirfd, const char *path, mode_t mode) {
    return noted(REAL(mkdirat)(dirfd, path, mode), "write", dirfd, path);
}

EXPORT int unlink(const char *path) { return noted(REAL(unlink)(path), "write", AT_FDCWD, path); }

EXPORT int unlinkat(int dirfd, const char *path, int flags) {
    return noted(REAL(unlinkat)(dirfd, path, flags), "write", dirfd, path);
}

EXPORT int rmdir(const char *path) { return noted(REAL(rmdir)(path), "write", AT_FDCWD, path); }

EXPORT int rename(const char *from, const char *to) {
    return noted2(REAL(rename)(from, to), AT_FDCWD, from, AT_FDCWD, to);
}

EXPORT int renameat(int fromfd, const char *from, int tofd, const char *to) {
    return noted2(REAL(renameat)(fromfd, from, tofd, to), fromfd, from, tofd, to);
}

EXPORT int renameat2(int fromfd, const char *from, int tofd, const char *to, unsigned int flags) {
    return noted2(REAL(renameat2)(fromfd, from, tofd, to, flags), fromfd, from, tofd, to);
}

/* A link is made where the new name is; the old one is only read. */
EXPORT int link(const char *from, const char *to) {
    return noted(REAL(link)(from, to), "write", AT_FDCWD, to);
}

EXPORT int linkat(int fromfd, const char *from, int tofd, const char *to, int flags) {
    return noted(REAL(linkat)(fromfd, from, tofd, to, flags), "write", tofd, to);
}

/* A symlink's content is text, not a path it touches. */
EXPORT int symlink(const char *content, const char *path) {
    return noted(REAL(symlink)(content, path), "write", AT_FDCWD, path);
}

EXPORT int symlinkat(const char *content, int dirfd, const char *path) {
    return noted(REAL(symlinkat)(content, dirfd, path), "write", dirfd, path);
}

EXPORT int truncate(const char *path, off_t length) {
    return noted(REAL(truncate)(path, length), "write", AT_FDCWD, path);
}

EXPORT int truncate64(const char *path, off64_t length) {
    return noted(REAL(truncate64)(path, length), "write", AT_FDCWD, path);
}

EXPORT int chmod(const char *path, mode_t mode) {
    return noted(REAL(chmod)(path, mode), "write", AT_FDCWD, path);
}

EXPORT int fchmodat(int dirfd, const char *path, mode_t mode, int flags) {
    return noted(REAL(fchmodat)(dirfd, path, mode, flags), "write", dirfd, path);
}

EXPORT int chown(const char *path, uid_t owner, gid_t group) {
    return noted(REAL(chown)(path, owner, group), "write", AT_FDCWD, path);
}

EXPORT int lchown(const char *path, uid_t owner, gid_t group) {
    return noted(REAL(lchown)(path, owner, group), "write", AT_FDCWD, path);
}

EXPORT int fchownat(int dirfd, const char *path, uid_t owner, gid_t group, int flags) {
    return noted(REAL(fchownat)(dirfd, path, owner, group, flags), "write", dirfd, path);
}

EXPORT int utime(const char *path, const struct utimbuf *times) {
    return noted(REAL(utime)(path, times), "write", AT_FDCWD, path);
}

EXPORT int utimes(const char *path, const struct timeval times[2]) {
    return noted(REAL(utimes)(path, times), "write", AT_FDCWD, path);
}

/* A NULL path is futimens on DIRFD: no path to name. */
EXPORT int utimensat(int dirfd, const char *path, const struct timespec times[2], int flags) {
    return noted(REAL(utimensat)(dirfd, path, times, flags), "write", dirfd, path);
}

EXPORT int mknod(const char *path, mode_t mode, dev_t dev) {
    return noted(REAL(mknod)(path, mode, dev), "write", AT_FDCWD, path);
}

EXPORT int mknodat(int dirfd, const char *path, mode_t mode, dev_t dev) {
    return noted(REAL(mknodat)(dirfd, path, mode, dev), "write", dirfd, path);
}

EXPORT int mkfifo(const char *path, mode_t mode) {
    return noted(REAL(mkfifo)(path, mode), "write", AT_FDCWD, path);
}

EXPORT int mkfifoat(int dirfd, const char *path, mode_t mode) {
    return noted(REAL(mkfifoat)(dirfd, path, mode), "write", dirfd, path);
}

/* ---- what only asks ---- */

EXPORT int stat(const char *path, struct stat *st) {
    return probed(REAL(stat)(path, st), "read", AT_FDCWD, path);
}

EXPORT int stat64(const char *path, struct stat64 *st) {
    return probed(REAL(stat64)(path, st), "read", AT_FDCWD, path);
}

EXPORT int lstat(const char *path, struct stat *st) {
    return probed(REAL(lstat)(path, st), "read", AT_FDCWD, path);
}

EXPORT int lstat64(const char *path, struct stat64 *st) {
    return probed(REAL(lstat64)(path, st), "read", AT_FDCWD, path);
}

EXPORT int fstatat(int dirfd, const char *path, struct stat *st, int flags) {
    return probed(REAL(fstatat)(dirfd, path, st, flags), "read", dirfd, path);
}

EXPORT int fstatat64(int dirfd, const char *path, struct stat64 *st, int flags) {
    return probed(REAL(fstatat64)(dirfd, path, st, flags), "read", dirfd, path);
}

EXPORT int statx(int dirfd, const char *path, int flags, unsigned int mask, struct statx *st) {
    return probed(REAL(statx)(dirfd, path, flags, mask, st), "read", dirfd, path);
}

/* access(X_OK) looks for a program to run. */
EXPORT int access(const char *path, int mode) {
    return probed(REAL(access)(path, mode), mode & X_OK ? "exec" : "read", AT_FDCWD, path);
}

EXPORT int faccessat(int dirfd, const char *path, int mode, int flags) {
    return probed(REAL(faccessat)(dirfd, path, mode, flags), mode & X_OK ? "exec" : "read", dirfd,
                  path);
}

/* ---- sockets ---- */

/* ADDR as a record's target: "ADDR:PORT", "[ADDR]:PORT", or a Unix
 * socket's path (an abstract one has none, and is passed over). */
static void note_address(const char *op, int err, const struct sockaddr *addr, socklen_t len) {
    char target[INET6_ADDRSTRLEN + 16];
    size_t n;
    if (addr == NULL || len < sizeof(sa_family_t)) return;
    if (addr->sa_family == AF_UNIX) {
        const struct sockaddr_un *un = (const struct sockaddr_un *)addr;
        char path[sizeof un->sun_path + 1];
        size_t most = len - offsetof(struct sockaddr_un, sun_path);
        if (len <= offsetof(struct sockaddr_un, sun_path) || un->sun_path[0] == '\0') return;
        if (most > sizeof un->sun_path) most = sizeof un->sun_path;
        memcpy(path, un->sun_path, most);
        path[most] = '\0';
        note_path(op, err, AT_FDCWD, path, false);
        return;
    }
    if (err != EACCES && err != EPERM) return;
    if (addr->sa_family == AF_INET && len >= sizeof(struct sockaddr_in)) {
        const struct sockaddr_in *in = (const struct sockaddr_in *)addr;
        if (inet_ntop(AF_INET, &in->sin_addr, target, sizeof target) == NULL) return;
        n = strlen(target);
        target[n++] = ':';
        decimal(ntohs(in->sin_port), target + n);
    } else if (addr->sa_family == AF_INET6 && len >= sizeof(struct sockaddr_in6)) {
        const struct sockaddr_in6 *in6 = (const struct sockaddr_in6 *)addr;
        target[0] = '[';
        if (inet_ntop(AF_INET6, &in6->sin6_addr, target + 1, sizeof target - 1) == NULL) return;
        n = strlen(target);
        target[n++] = ']';
        target[n++] = ':';
        decimal(ntohs(in6->sin6_port), target + n);
    } else {
        return;
    }
    if (first_time(op, err, target)) record(op, err, target);
}

EXPORT int connect(int fd, const struct sockaddr *addr, socklen_t len) {
    int r = REAL(connect)(fd, addr, len);
    if (r < 0 && refusal_errno(errno)) {
        int err = errno;
        note_address("connect", err, addr, len);
        errno = err;
    }
    return r;
}

EXPORT int bind(int fd, const struct sockaddr *addr, socklen_t len) {
    int r = REAL(bind)(fd, addr, len);
    if (r < 0 && refusal_errno(errno)) {
        int err = errno;
        note_address("bind", err, addr, len);
        errno = err;
    }
    return r;
}

/* A socket's kind as "FAMILY/TYPE" (inet/dgram, netlink/raw); numbers for
 * what has no name here. */
static void socket_kind(int domain, int type, char *out) {
    static const struct {
        int number;
        const char *name;
    } families[] = {{AF_UNIX, "unix"},       {AF_INET, "inet"},           {AF_INET6, "inet6"},
                    {AF_NETLINK, "netlink"}, {AF_PACKET, "packet"},       {AF_ALG, "alg"},
                    {AF_VSOCK, "vsock"},     {AF_BLUETOOTH, "bluetooth"}, {AF_CAN, "can"},
                    {AF_XDP, "xdp"}},
      types[] = {{SOCK_STREAM, "stream"},       {SOCK_DGRAM, "dgram"}, {SOCK_RAW, "raw"},
                 {SOCK_SEQPACKET, "seqpacket"}, {SOCK_RDM, "rdm"},     {SOCK_PACKET, "packet"}};
    const char *family = NULL, *kind = NULL;
    size_t n;
    type &= ~(SOCK_NONBLOCK | SOCK_CLOEXEC);
    for (size_t i = 0; i < sizeof families / sizeof families[0]; i++)
        if (families[i].number == domain) family = families[i].name;
    for (size_t i = 0; i < sizeof types / sizeof types[0]; i++)
        if (types[i].number == type) kind = types[i].name;
    if (family != NULL) {
        n = strlen(family);
        memcpy(out, family, n);
    } else {
        memcpy(out, "af", 2);
        n = 2 + decimal(domain, out + 2);
    }
    out[n++] = '/';
    if (kind != NULL)
        memcpy(out + n, kind, strlen(kind) + 1);
    else {
        memcpy(out + n, "type", 4);
        decimal(type, out + n + 4);
    }
}

/* The host the process last looked up, "NAME:PORT" (port 0: not said), so
 * that a refused socket names where it was for: the address a connect
 * would have named is not known when the socket itself is refused. One
 * per process: a resolver thread (libuv's) looks up what another thread
 * connects to. A race words a hint wrongly at worst. */
static char wanted[NI_MAXHOST + 8];

static void note_wanted(const char *node, const char *service) {
    static const struct {
        const char *name;
        unsigned port;
    } known[] = {{"http", 80}, {"https", 443}, {"ssh", 22}, {"git", 9418}, {"ftp", 21}};
    size_t n = strnlen(node, NI_MAXHOST);
    unsigned port = 0;
    if (n == 0 || n >= NI_MAXHOST) return;
    if (service != NULL && *service >= '0' && *service <= '9')
        for (const char *p = service; *p >= '0' && *p <= '9' && port <= 65535; p++)
            port = port * 10 + (unsigned)(*p - '0');
    else
        for (size_t i = 0; service != NULL && i < sizeof known / sizeof known[0]; i++)
            if (strcmp(service, known[i].name) == 0) port = known[i].port;
    if (port > 65535) port = 0;
    memcpy(wanted, node, n);
    wanted[n++] = ':';
    decimal((int)port, wanted + n);
}

/* A lookup that failed is a connect to the name that did not happen: lcsb
 * keeps it only when the policy restricts the network, where DNS is
 * refused (no UDP) or absent (a network of the command's own), and glibc
 * then answers EAI_AGAIN, EAI_NONAME or EAI_SYSTEM as it pleases (its
 * resolver's socket is its own, out of this library's sight). A call the
 * program got wrong (flags, family, service) is its own business. */
EXPORT int getaddrinfo(const char *node, const char *service, const struct addrinfo *hints,
                       struct addrinfo **res) {
    int saved = errno;
    errno = 0;
    int r = REAL(getaddrinfo)(node, service, hints, res);
    int err = errno;
    if (node != NULL && current_fd() >= 0) {
        note_wanted(node, service);
        int said = r == EAI_SYSTEM && err != 0 ? err : EAGAIN;
        bool lookup_failed = r == EAI_AGAIN || r == EAI_FAIL || r == EAI_NONAME ||
                             r == EAI_NODATA || r == EAI_SYSTEM;
        if (lookup_failed && first_time("connect", said, wanted))
            record("connect", said, wanted);
    }
    errno = err != 0 ? err : saved;
    return r;
}

EXPORT int socket(int domain, int type, int protocol) {
    int r = REAL(socket)(domain, type, protocol);
    if (r < 0 && (errno == EACCES || errno == EPERM) && current_fd() >= 0) {
        int err = errno;
        char kind[64];
        bool inet = domain == AF_INET || domain == AF_INET6;
        socket_kind(domain, type, kind);
        /* A TCP socket refused right after a lookup: a connect to that host. */
        if (inet && (type & 0xf) == SOCK_STREAM && wanted[0] != '\0') {
            if (first_time("connect", err, wanted)) record("connect", err, wanted);
        } else if (first_time("socket", err, kind)) {
            record("socket", err, kind);
        }
        errno = err;
    }
    return r;
}

/* ---- start ---- */

/* A fork's child is a process of its own: it owns its memory, and writes
 * its own records again. */
static void forked(void) {
    owner_pid = (pid_t)syscall(SYS_getpid);
    memset(seen, 0, sizeof seen);
}

/* LCSB_RECORD_FD is taken only when it names a descriptor above 2 open for
 * writing that is a non-blocking pipe (lcsb's) or a file opened to append
 * (a test's): anything else, and the library records nothing. */
__attribute__((constructor)) static void start(void) {
    const char *text = getenv(FD_VAR);
    const char *absent_text = getenv("LCSB_RECORD_ABSENT");
    struct stat st;
    long fd = 0, flags;

    /* Every real function is found now (some 70 lookups, 3 µs): a vfork
     * child may be the first to call one, and dlsym is not promised to be
     * safe there. What runs before this constructor finds them on use. */
    for (int i = 0; i < REAL_COUNT; i++) (void)real((enum real_index)i);
    if (text == NULL || *text == '\0') return;
    for (const char *p = text; *p; p++) {
        if (*p < '0' || *p > '9' || fd > INT_MAX / 10) return;
        fd = fd * 10 + (*p - '0');
    }
    if (fd <= 2 || fd > INT_MAX || syscall(SYS_fstat, (int)fd, &st) != 0) return;
    flags = syscall(SYS_fcntl, (int)fd, F_GETFL);
    if (flags < 0 || (flags & O_ACCMODE) == O_RDONLY) return;
    if (S_ISFIFO(st.st_mode) && (flags & O_NONBLOCK))
        record_is_pipe = true;
    else if (!S_ISREG(st.st_mode) || !(flags & O_APPEND))
        return;
    record_dev = st.st_dev;
    record_ino = st.st_ino;
    absent = absent_text != NULL && strcmp(absent_text, "1") == 0;
    owner_pid = (pid_t)syscall(SYS_getpid);
    (void)pthread_atfork(NULL, NULL, forked);
    __atomic_store_n(&record_fd, (int)fd, __ATOMIC_RELEASE);
}
