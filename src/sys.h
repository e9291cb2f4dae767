/* Layer 2, impure: the few questions the library asks the host's file
 * system (and where the library itself is), in the habit of minijail's
 * system.c. With detect.c, the only
 * place a platform branch may stand. */
#ifndef LCSB_SYS_H
#define LCSB_SYS_H

#include "util.h"

#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <time.h>

/* While the library has a child to wait for, SIGCHLD is not ignored: with
 * SIG_IGN (or SA_NOCLDWAIT) the kernel reaps the child itself, sends no
 * SIGCHLD, and waitpid finds none, so a wait would fail, or never end in a
 * process under it (the shim). Held from before a child is made until it
 * is reaped; the caller's disposition comes back with the last hold let
 * go. Process-wide, as dispositions are: one run at a time. */
void lcsb__children_hold(void);
void lcsb__children_release(void);
/* Waits for the child PID (EINTR retried), its wait status into *STATUS
 * (NULL: not wanted), then lets go of the hold taken to make it. */
pid_t lcsb__children_reap(pid_t pid, int *status);

/* realpath(3), faster where the host can tell at once that a normalized path
 * holds no symlink. OUT has PATH_MAX bytes. */
char *lcsb__realpath(const char *path, char *out);
/* Where PATH is, or would be once made: its real path, else its nearest
 * existing ancestor's real path with the rest appended as written (a path
 * under a symlinked ~/.config lies where the link leads). NULL when no
 * ancestor resolves. OUT has PATH_MAX bytes. */
char *lcsb__realpath_where(const char *path, char *out);
/* The running program's real path (realpath of /proc/self/exe) into OUT
 * (PATH_MAX bytes); NULL when it has none. */
char *lcsb__program_path(char *out);

/* What a read learned of the file from the descriptor it read through:
 * decisions about those bytes are made on this, never on the path again,
 * which may lead elsewhere by then. */
typedef struct lcsb__file_seen {
    struct stat st;   /* its fstat: which file (dev, ino), size, times, owner, mode */
    bool kernel_made; /* on a file system the kernel makes up as it is read (proc,
                       * sysfs), whose content is the moment's */
} lcsb__file_seen;

/* The regular file at PATH, read whole through one descriptor (which never
 * waits on a FIFO; never through a final symlink when NOFOLLOW): its bytes
 * in *DATA (NUL-terminated, caller frees), *LEN of them, at most MAX, and,
 * when REAL (PATH_MAX bytes) is not NULL, where it really is; when SEEN is
 * not NULL, what the descriptor says of it. 0, or -1 with errno: EINVAL not
 * a regular file, EFBIG more than MAX, else open's or read's own. */
int lcsb__read_regular(const char *path, size_t max, bool nofollow, char **data, size_t *len,
                       char *real, lcsb__file_seen *seen);
/* The same, PATH relative to the directory open as DIRFD (or AT_FDCWD). */
int lcsb__read_regular_at(int dirfd, const char *path, size_t max, bool nofollow, char **data,
                          size_t *len, char *real, lcsb__file_seen *seen);
/* The same, read through FD, which stays open. */
int lcsb__read_regular_fd(int fd, size_t max, char **data, size_t *len, lcsb__file_seen *seen);

/* The file the kernel makes up at PATH, a path in /proc or /sys as written
 * (absolute, normal: no "." or ".."), read as lcsb__read_regular reads one,
 * but only when the way there follows no magic link (/proc/PID/cwd, root,
 * exe, fd/N: each leads wherever a process points it) and the descriptor is
 * on proc or sysfs, in /proc or /sys: -1 with errno otherwise (ELOOP a magic
 * link on the way, EXDEV not such a path or file, ENOSYS no such files
 * here, else open's or read's own). */
int lcsb__read_kernel_file(const char *path, size_t max, char **data, size_t *len, char *real,
                           lcsb__file_seen *seen);

/* The mount that the file open as FD lives on, as an identity to compare (a
 * platform's own notion: Linux's mount ID, else the device), and, when DEV
 * is not NULL, which file it is (DEV and INO), from the same call. 0 or -1. */
int lcsb__mount_of(int fd, uint64_t *out, dev_t *dev, ino_t *ino);

/* Is there anything at REL (a relative path) below the directory open as
 * DIRFD, looked up without following a symlink (one there counts) or
 * leaving its mount? 1 yes, 0 no, -1 cannot tell (no openat2). */
int lcsb__present_beneath(int dirfd, const char *rel);

/* The time as the file system stamps what changes now: a file changed after
 * this call has a ctime no earlier (Linux stamps with the coarse clock, which
 * a finer one runs ahead of by up to a tick). */
struct timespec lcsb__fs_now(void);
/* All LEN bytes of DATA to FD, through short writes and EINTR: true, or
 * false with errno (EIO where a write wrote nothing). */
bool lcsb__write_all(int fd, const void *data, size_t len);
/* The same to a descriptor of the caller's (its stderr), which may be a pipe
 * whose reader is gone: no SIGPIPE of it reaches the caller. */
bool lcsb__write_all_unpiped(int fd, const void *data, size_t len);
/* The monotonic clock in milliseconds: for deadlines and budgets. */
long long lcsb__now_ms(void);
/* ST's status change time (ctime), which no one but the kernel sets. */
struct timespec lcsb__ctime(const struct stat *st);

/* NAME looked up on PATH the way execvp does (absolute entries only): the
 * first executable regular file, into OUT (SIZE bytes). False when none. */
bool lcsb__find_on_path(const char *name, char *out, size_t size);

/* The real path of the file this library's code was loaded from: liblcsb's
 * shared object, the Lua module core.so, or the program the static library
 * is linked into. False when the host cannot say. OUT has PATH_MAX bytes. */
bool lcsb__self_path(char *out);

/* One byte and the descriptor sent with it (SCM_RIGHTS) from the unix
 * socket CHANNEL: the descriptor (close-on-exec), or -1 when none came; the
 * byte into *BYTE (0 when none came either). */
int lcsb__recv_fd(int channel, unsigned char *byte);
/* BYTE and the N descriptors FDS (at most 4) sent with it on the unix
 * socket CHANNEL (SCM_RIGHTS), without SIGPIPE: 0, or -1 with errno. */
int lcsb__send_fds(int channel, char byte, const int *fds, size_t n);

#endif
