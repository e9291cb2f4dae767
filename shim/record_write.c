/* liblcsb-record.so's writer (record.h): lcsb's descriptor, taken at start
 * and kept through the program's closes, dups and execs, and the records
 * written on it: which failures read as a refusal, what each names (a path
 * made absolute, an address, a socket's kind), once per process, in one
 * write that never blocks. Apart from record.c, which holds the wrapped
 * calls: the wrappers read as one line each, and what a record is, and
 * where it goes, is read here in one sitting.
 *
 * The same rules as the wrappers: no blocking, no printing, no allocation
 * where a vfork child may run it; its own work goes through syscall(2). */
#undef _FORTIFY_SOURCE /* built as record.c is */
#define _GNU_SOURCE
#include "record.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/magic.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <unistd.h>

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

int current_fd(void) { return __atomic_load_n(&record_fd, __ATOMIC_ACQUIRE); }

static bool in_owner(void) { return syscall(SYS_getpid) == owner_pid; }

/* Is FD the descriptor lcsb handed over, still? */
bool ours(int fd) {
    struct stat st;
    return fd >= 0 && syscall(SYS_fstat, fd, &st) == 0 && st.st_dev == record_dev &&
           st.st_ino == record_ino;
}

/* NUMBER in decimal into OUT (at least 12 bytes); its length. */
size_t decimal(long number, char *out) {
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
bool first_time(const char *op, int err, const char *target) {
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

void record(const char *op, int err, const char *target) {
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
bool refusal_errno(int err) {
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
void note_path(const char *op, int err, int dirfd, const char *path, bool empty) {
    char target[PATH_MAX];
    if (!refusal_errno(err) || !absolute(dirfd, path, empty, target) ||
        !first_time(op, err, target))
        return;
    if ((err == ENOENT || err == ENOTDIR) && !missing_from_world(target)) return;
    record(op, err, target);
}

/* What a call returned, passed on with errno as it was. */
int noted(int r, const char *op, int dirfd, const char *path) {
    if (r < 0 && refusal_errno(errno)) {
        int err = errno;
        note_path(op, err, dirfd, path, false);
        errno = err;
    }
    return r;
}

/* A rename can be refused on either side: the name it takes away, or the
 * one it makes. */
int noted2(int r, int dirfd1, const char *path1, int dirfd2, const char *path2) {
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
int probed(int r, const char *op, int dirfd, const char *path) {
    if (r < 0 && absent && (errno == ENOENT || errno == ENOTDIR) && current_fd() >= 0) {
        int err = errno;
        note_path(op, err, dirfd, path, false);
        errno = err;
    }
    return r;
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
int make_room(int target, int source) {
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
void move_back(int left) {
    int moved = current_fd();
    __atomic_store_n(&record_fd, left, __ATOMIC_RELEASE);
    (void)syscall(SYS_close, moved);
    tell_environment(left);
}

/* Is FD the recorder's, to be passed over by a close? */
bool spared(int fd) { return fd >= 0 && fd == current_fd() && ours(fd); }

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
size_t env_slots(char *const env[]) {
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
char *const *env_fill(char *const env[], char **fixed, char *entry) {
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

/* ---- what a socket names ---- */

/* ADDR as a record's target: "ADDR:PORT", "[ADDR]:PORT", or a Unix
 * socket's path (an abstract one has none, and is passed over). */
void note_address(const char *op, int err, const struct sockaddr *addr, socklen_t len) {
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

/* A socket's kind as "FAMILY/TYPE" (inet/dgram, netlink/raw); numbers for
 * what has no name here. */
void socket_kind(int domain, int type, char *out) {
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
void take_descriptor(void) {
    const char *text = getenv(FD_VAR);
    const char *absent_text = getenv("LCSB_RECORD_ABSENT");
    struct stat st;
    long fd = 0, flags;

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
