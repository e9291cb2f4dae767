/* The init sees every exec (execseen.h).
 *
 * The recorder sees what a dynamically linked program's libc is refused;
 * a static program (Go's toolchain, busybox, anything musl-static) never
 * loads it, and its refused exec left no trace. Here the kernel itself
 * tells the init of each execve and execveat in the world (seccomp user
 * notification), before it decides them: the init reads the path from the
 * caller's memory, writes it on the recorder's pipe as an "exec_seen"
 * record (docs/wire-format.md), and answers CONTINUE, so that the call goes
 * on to the kernel as if nobody had looked, Landlock included. lcsb, which
 * knows the policy, takes a path the exec tier does not hold, in a run that
 * failed, as a refused exec.
 *
 * The path is evidence only, never a decision: the caller (or another of
 * its threads) can change the memory after the init has read it, and the
 * kernel reads it again. The notification is checked to be still live
 * (SECCOMP_IOCTL_NOTIF_ID_VALID) after the reads, so that a pid the caller
 * left and another process took does not lend it its memory. A caller that
 * is not dumpable cannot be read, and its exec goes on unseen: a program
 * that made itself so. The command's own process before its first exec is
 * one (forked from the init, which is not dumpable), so the filter lets
 * that exec through without telling the init at all; the shim records its
 * failure itself.
 *
 * Why the init: it is not the command, outlives every process of it, and
 * its memory and descriptors are out of their reach (it is not dumpable).
 * The supervisor must never be a process an exec it is notified of waits
 * on: the init starts the command with fork, not vfork, when it watches
 * (init.c), or the command's own first exec would wait for an init that
 * waits for it.
 *
 * The other filters refuse with ERRNO or KILL, which outrank USER_NOTIF:
 * what they refuse (a memfd exec) is refused before the init hears of it,
 * and CONTINUE cannot let it through. */
#define _GNU_SOURCE
#include "execseen.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include "kernel_uapi.h"

/* Linux 6.6: the caller and the init hand the CPU to each other rather than
 * wake one another on another CPU (docs/performance.md, issue 31). */
#ifndef SECCOMP_IOCTL_NOTIF_SET_FLAGS
#define SECCOMP_IOCTL_NOTIF_SET_FLAGS SECCOMP_IOW(4, __u64)
#endif
#ifndef SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP
#define SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP 1UL
#endif

/* The kernel's structures, with room for fields a newer kernel adds:
 * watch_execs checks that they fit. */
union notif {
    struct seccomp_notif n;
    char room[256];
};
union notif_resp {
    struct seccomp_notif_resp r;
    char room[128];
};

/* The two halves of execve's path argument, the pointer the caller passed. */
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define PATH_LO offsetof(struct seccomp_data, args)
#define PATH_HI (offsetof(struct seccomp_data, args) + 4)
#else
#define PATH_LO (offsetof(struct seccomp_data, args) + 4)
#define PATH_HI offsetof(struct seccomp_data, args)
#endif

int watch_execs(const char *first) {
#ifdef FILTER_ARCH
    struct seccomp_notif_sizes sizes;
    uint64_t at = (uint64_t)(uintptr_t)first;
    /* Another arch's calls are the other filter's to kill. The command's
     * first exec, which names FIRST, goes on without a word: the init could
     * not read it (the command is not dumpable until that exec, above), and
     * the command waiting for the init to be told cost every run a round
     * trip. After the exec that memory is the program's; one that passes
     * the same address only hides its exec, as one that makes itself
     * undumpable does. */
    struct sock_filter v[] = {
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, FILTER_ARCH, 1, 0),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_execve, 3, 0),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_execveat, 1, 0),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_USER_NOTIF),
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, PATH_LO),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (uint32_t)at, 0, 2),
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, PATH_HI),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (uint32_t)(at >> 32), 1, 0),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_USER_NOTIF),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
    };
    struct sock_fprog prog = {.len = sizeof v / sizeof v[0], .filter = v};
    int listener;

    if (syscall(SYS_seccomp, SECCOMP_GET_NOTIF_SIZES, 0, &sizes) != 0 ||
        sizes.seccomp_notif > sizeof(union notif) ||
        sizes.seccomp_notif_resp > sizeof(union notif_resp))
        return -1;
    /* The listener comes close-on-exec; the command's process closes it
     * before its exec all the same (init.c). */
    listener = (int)syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER,
                            SECCOMP_FILTER_FLAG_NEW_LISTENER, &prog);
    /* Each exec waits for the init: the two hand each other the CPU they
     * are on rather than wake one another on another (docs/performance.md,
     * issue 31). A kernel before 6.6 refuses the flag, and waits longer. */
    if (listener >= 0)
        (void)!ioctl(listener, SECCOMP_IOCTL_NOTIF_SET_FLAGS, SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP);
    return listener;
#else
    (void)first;
    return -1;
#endif
}

/* The NUL-terminated string at ADDR in PID's memory into OUT (PATH_MAX
 * bytes), a page at a time so that a string near the end of a mapping is
 * read up to it. */
static bool read_string(pid_t pid, uint64_t addr, char *out) {
    size_t got = 0;

    while (got < PATH_MAX) {
        size_t page_left = 4096 - (size_t)((addr + got) % 4096);
        size_t want = page_left < PATH_MAX - got ? page_left : PATH_MAX - got;
        struct iovec local = {out + got, want};
        struct iovec remote = {(void *)(uintptr_t)(addr + got), want};
        ssize_t n = process_vm_readv(pid, &local, 1, &remote, 1, 0);
        if (n <= 0)
            return false;
        if (memchr(out + got, '\0', (size_t)n) != NULL)
            return true;
        got += (size_t)n;
    }
    return false;
}

/* Where PID's link /proc/PID/NAME points, into OUT (PATH_MAX bytes). */
static bool read_link(pid_t pid, const char *name, char *out) {
    char link[64];
    ssize_t n;

    snprintf(link, sizeof link, "/proc/%d/%s", (int)pid, name);
    n = readlink(link, out, PATH_MAX - 1);
    if (n <= 0)
        return false;
    out[n] = '\0';
    return true;
}

/* The path the call names, made absolute as the kernel would start from:
 * the working directory, or execveat's directory descriptor (its file, for
 * AT_EMPTY_PATH). */
static bool target_of(const struct seccomp_notif *n, char *out) {
    bool at = n->data.nr == __NR_execveat;
    int dirfd = at ? (int)n->data.args[0] : AT_FDCWD;
    char path[PATH_MAX], dir[PATH_MAX], fd[32];

    if (!read_string((pid_t)n->pid, n->data.args[at ? 1 : 0], path))
        return false;
    if (path[0] == '/') {
        memcpy(out, path, strlen(path) + 1);
        return true;
    }
    snprintf(fd, sizeof fd, "fd/%d", dirfd);
    if (!read_link((pid_t)n->pid, dirfd == AT_FDCWD ? "cwd" : fd, dir) || dir[0] != '/')
        return false;
    if (path[0] == '\0') {
        if (!at || (n->data.args[4] & AT_EMPTY_PATH) == 0)
            return false;
        memcpy(out, dir, strlen(dir) + 1);
        return true;
    }
    return (size_t)snprintf(out, PATH_MAX, "%s/%s", strcmp(dir, "/") ? dir : "", path) < PATH_MAX;
}

/* FNV-1a of PATH: a path written once is not again. */
static uint64_t path_hash(const char *path) {
    uint64_t h = 1469598103934665603ULL;
    for (const unsigned char *p = (const unsigned char *)path; *p; p++)
        h = (h ^ *p) * 1099511628211ULL;
    return h ? h : 1;
}

/* Where W notes the hash H of a path not written yet, or NULL when it has
 * been. Of eight slots from its own, a hash takes the first free one, or,
 * all taken, the first (what it displaces may be written again: lcsb counts
 * a path once however often it comes). */
static uint64_t *slot_for(struct exec_watch *w, uint64_t h) {
    for (unsigned i = 0; i < 8; i++) {
        uint64_t *slot = &w->seen[(h + i) % SEEN_SLOTS];
        if (*slot == h)
            return NULL;
        if (*slot == 0)
            return slot;
    }
    return &w->seen[h % SEEN_SLOTS];
}

/* The recorder's escaping (docs/wire-format.md): every byte below '!', DEL
 * and '%' as %XX. False when the line has no room left. */
static bool add_escaped(char *line, size_t size, size_t *n, const char *text) {
    for (const unsigned char *p = (const unsigned char *)text; *p; p++) {
        if (*n + 4 >= size)
            return false;
        *n += (size_t)(*p < '!' || *p == 0x7f || *p == '%'
                           ? snprintf(line + *n, size - *n, "%%%02X", *p)
                           : snprintf(line + *n, size - *n, "%c", *p));
    }
    return true;
}

/* The caller's name as the kernel keeps it (comm), or "?". */
static void program_of(pid_t pid, char *out, size_t size) {
    char file[64];
    int fd;
    ssize_t n = -1;

    snprintf(file, sizeof file, "/proc/%d/comm", (int)pid);
    fd = open(file, O_RDONLY | O_CLOEXEC);
    if (fd >= 0) {
        n = read(fd, out, size - 1);
        close(fd);
    }
    if (n > 0 && out[n - 1] == '\n')
        n--;
    if (n <= 0)
        snprintf(out, size, "?");
    else
        out[n] = '\0';
}

/* One record, in one write of at most PIPE_BUF bytes, so that it never
 * mixes with the recorder's; the pipe does not block, and a full one loses
 * it. */
static void write_record(int fd, pid_t pid, const char *program, const char *target) {
    char line[PIPE_BUF];
    size_t n = (size_t)snprintf(line, sizeof line, "exec_seen\t0\t%d\t", (int)pid);

    if (!add_escaped(line, sizeof line, &n, program) || n + 1 >= sizeof line)
        return;
    line[n++] = '\t';
    if (!add_escaped(line, sizeof line, &n, target) || n + 1 >= sizeof line)
        return;
    line[n++] = '\n';
    (void)!write(fd, line, n);
}

void see_exec(struct exec_watch *w) {
    union notif req;
    union notif_resp resp;
    char target[PATH_MAX], program[64];
    uint64_t hash = 0, *slot = NULL;

    memset(&req, 0, sizeof req);
    memset(&resp, 0, sizeof resp);
    /* ENOENT: the caller was gone before the init took its call. */
    if (ioctl(w->listener, SECCOMP_IOCTL_NOTIF_RECV, &req) != 0)
        return;
    if (target_of(&req.n, target)) {
        hash = path_hash(target);
        slot = slot_for(w, hash);
    }
    if (slot != NULL)
        program_of((pid_t)req.n.pid, program, sizeof program);
    /* Still the caller's: what was read was its own. */
    if (slot != NULL && ioctl(w->listener, SECCOMP_IOCTL_NOTIF_ID_VALID, &req.n.id) != 0)
        slot = NULL;
    resp.r.id = req.n.id;
    resp.r.flags = SECCOMP_USER_NOTIF_FLAG_CONTINUE;
    (void)!ioctl(w->listener, SECCOMP_IOCTL_NOTIF_SEND, &resp);
    if (slot != NULL) {
        *slot = hash;
        write_record(w->record_fd, (pid_t)req.n.pid, program, target);
    }
}
