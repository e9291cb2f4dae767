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
 * and the pre-2.33 stat entry points (__xstat), which dlsym cannot reach.
 *
 * This file holds the wrapped calls, one family to a section; lcsb's
 * descriptor and the records written on it are record_write.c's (record.h). */
#undef _FORTIFY_SOURCE   /* open, fopen and the rest are defined here, not inlined */
#undef _FILE_OFFSET_BITS /* open and open64 are two symbols, each wrapped */
#define _GNU_SOURCE
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <spawn.h>
#include <stdarg.h>
#include <netdb.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <unistd.h>
#include <utime.h>

#include "record.h"

#define EXPORT __attribute__((visibility("default")))

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

/* ---- what the wrappers share ---- */

static const char *open_op(int flags) {
    return (flags & O_ACCMODE) != O_RDONLY || (flags & (O_CREAT | O_TRUNC)) ? "write" : "read";
}

/* fopen's MODE: "r" reads; "w", "a" or "+" writes (",ccs=" is not the mode). */
static const char *mode_op(const char *mode) {
    for (; mode != NULL && *mode != '\0' && *mode != ','; mode++)
        if (*mode == 'w' || *mode == 'a' || *mode == '+') return "write";
    return "read";
}

static int real_close_range(unsigned int first, unsigned int last, int flags) {
    close_range_fn f = REAL(close_range);
    return f != NULL ? f(first, last, flags) : (int)syscall(SYS_close_range, first, last, flags);
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

/* The real functions first, then lcsb's descriptor (take_descriptor). */
__attribute__((constructor)) static void start(void) {
    /* Every real function is found now (some 70 lookups, 3 µs): a vfork
     * child may be the first to call one, and dlsym is not promised to be
     * safe there. What runs before this constructor finds them on use. */
    for (int i = 0; i < REAL_COUNT; i++) (void)real((enum real_index)i);
    take_descriptor();
}
