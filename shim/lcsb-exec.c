/* lcsb-exec: the Landlock exec shim.
 *
 *     lcsb-exec HEADER PART_1 ... PART_N -- COMMAND [ARG...]
 *
 * The policy arrives as JSON on argv (docs/wire-format.md) because the library's
 * `wrap` is pure and cannot hand over a ruleset descriptor. The shim reads it
 * with its own parser (wire.c), builds the ruleset, restricts itself and execs
 * COMMAND. This file is the enforcement, in the order the kernel sees it: the
 * ruleset, the world (world.c: namespaces of its own, with "proxy" a network
 * whose one way out is lcsb's proxy, a root built from the policy, under an
 * init, init.c, in a memory cgroup of its own, cgroup.c), the rules,
 * no_new_privs and restrict_self,
 * the capabilities and rlimits, the seccomp filters, the exec.
 *
 * Landlock's network rules cover TCP only, so when the header's "sockets" asks
 * for it, a seccomp filter written out below closes every other socket family
 * (UDP, raw, packet, ...) and io_uring, installed last, right before exec.
 * The command cannot push input into the caller's terminal (TIOCSTI,
 * TIOCLINUX) unless the header lists "terminal" as dropped (a host without
 * seccomp), cannot run a program from a memfd, reaches only its own keyrings,
 * and, when lcsb runs as root, it runs with no capabilities: Landlock alone
 * does not stop root from loading a module.
 *
 * It trusts nothing it is given: every byte is re-checked, and any fault, in
 * the policy or in the kernel's answers, ends in a `lcsb-exec: cannot ...`
 * message and exit 97 *before* COMMAND could run. There is no path on which
 * COMMAND runs with less than the whole policy in force.
 *
 * The policy is read from the same argv strings once to check all of it and
 * again, once the ruleset exists, with a sink that adds its rules (world.c
 * sorts the paths first, so that a directory is mounted before what is in
 * it); hidden and protected paths take one more read of the header. Every
 * pass runs the same parser, so what is checked and what is enforced cannot
 * drift apart.
 *
 * One program of eight files (this one, wire.c, world.c, init.c, cgroup.c,
 * say.c and their headers, kernel_uapi.h), libc and kernel headers only;
 * nothing from the library (docs/architecture.md, rule 2). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <linux/capability.h>
#include <linux/filter.h>
#include <linux/openat2.h>
#include <linux/seccomp.h>
#include <netinet/in.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "cgroup.h"
#include "init.h"
#include "kernel_uapi.h"
#include "say.h"
#include "wire.h"
#include "world.h"

#define EXIT_SETUP 97

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

/* lcsb passes descriptors named in the environment: a pipe's write end
 * (LCSB_EXEC_REPORT_FD) on which a failed setup is said out of band, since
 * the command can exit 97 too; and a unix socket (LCSB_EXEC_PROXY_FD) on
 * which the proxy's listening socket goes to lcsb. The names go before
 * anything runs, and the descriptors with the exec. */
static int take_fd(const char *name) {
    const char *text = getenv(name);
    char *end;
    long fd = text ? strtol(text, &end, 10) : -1;

    unsetenv(name);
    if (!text || !*text || *end || fd < 3 || fd > INT_MAX || fcntl((int)fd, F_SETFD, FD_CLOEXEC) != 0)
        return -1;
    return (int)fd;
}

/* lcsb's recorder (docs/wire-format.md): a library preloaded into the
 * command's dynamically linked programs, which reports what the kernel
 * refused them on a pipe lcsb reads (LCSB_EXEC_RECORD_FD), for hints only.
 * The shim grants the library itself read access, hands the command the
 * pipe and LD_PRELOAD, and reports its own failed exec there too. It adds
 * nothing the command could not do: the pipe is lcsb's to read, and the
 * library runs with the command's rights. */
struct recorder {
    int fd;
    char library[PATH_MAX];
};

static struct recorder take_recorder(void) {
    struct recorder r = {.fd = take_fd("LCSB_EXEC_RECORD_FD")};
    const char *library = getenv("LCSB_EXEC_RECORDER");

    if (r.fd >= 0 && library != NULL && library[0] == '/' && strlen(library) < sizeof r.library)
        strcpy(r.library, library);
    else if (r.fd >= 0) {
        close(r.fd);
        r.fd = -1;
    }
    unsetenv("LCSB_EXEC_RECORDER");
    return r;
}

/* A program built with AddressSanitizer refuses to start unless its runtime
 * is the first library loaded, and a preloaded recorder comes before it:
 * ASAN_OPTIONS lets it start (the command's own options, after this one,
 * still win). Too long to add to, it is left as it is. */
static void let_asan_follow(void) {
    const char *own = getenv("ASAN_OPTIONS");
    char options[4096];
    int n = own != NULL && *own != '\0'
                ? snprintf(options, sizeof options, "verify_asan_link_order=0:%s", own)
                : snprintf(options, sizeof options, "verify_asan_link_order=0");

    if (n > 0 && (size_t)n < sizeof options)
        (void)setenv("ASAN_OPTIONS", options, 1);
}

/* The command's environment gets the recorder, ahead of any LD_PRELOAD of
 * its own, and the pipe, open across exec. In a world of its own a path
 * outside the policy does not exist: ABSENT asks for ENOENT to be reported
 * too (lcsb checks each against the host). A recorder that cannot be set
 * up is left out: it is evidence, not enforcement. */
static void arm_recorder(struct recorder *r, bool absent) {
    const char *preload = getenv("LD_PRELOAD");
    char number[16], libraries[2 * PATH_MAX + 2];

    if (r->fd < 0)
        return;
    snprintf(number, sizeof number, "%d", r->fd);
    if (preload != NULL && *preload != '\0' &&
        (size_t)snprintf(libraries, sizeof libraries, "%s:%s", r->library, preload) >= sizeof libraries)
        preload = NULL;
    if (preload == NULL || *preload == '\0')
        snprintf(libraries, sizeof libraries, "%s", r->library);
    if (fcntl(r->fd, F_SETFD, 0) != 0 || setenv("LCSB_RECORD_FD", number, 1) != 0 ||
        setenv("LD_PRELOAD", libraries, 1) != 0 ||
        (absent && setenv("LCSB_RECORD_ABSENT", "1", 1) != 0)) {
        unsetenv("LCSB_RECORD_FD");
        unsetenv("LCSB_RECORD_ABSENT");
        if (preload == NULL || *preload == '\0')
            unsetenv("LD_PRELOAD");
        else
            setenv("LD_PRELOAD", preload, 1);
        return;
    }
    let_asan_follow();
}

/* A record of the recorder's form for the command the shim could not run:
 * NAME as execvp took it, each of PATH's candidates for a bare name. The
 * recorder's own escaping: every byte below '!', DEL and '%' as %XX. */
static void record_one(int fd, const char *dir, const char *name, int err) {
    char line[4096];
    size_t n = (size_t)snprintf(line, sizeof line, "exec\t%d\t%d\tlcsb-exec\t", err, (int)getpid());
    char path[PATH_MAX];

    if (dir != NULL)
        snprintf(path, sizeof path, "%s/%s", dir, name);
    else if (name[0] != '/' && getcwd(path, sizeof path) != NULL)
        snprintf(path + strlen(path), sizeof path - strlen(path), "/%s", name);
    else
        snprintf(path, sizeof path, "%s", name);
    for (const unsigned char *p = (const unsigned char *)path; *p && n + 5 < sizeof line; p++)
        n += (size_t)(*p < '!' || *p == 0x7f || *p == '%'
                          ? snprintf(line + n, sizeof line - n, "%%%02X", *p)
                          : snprintf(line + n, sizeof line - n, "%c", *p));
    line[n++] = '\n';
    (void)!write(fd, line, n);
}

static void record_exec(const struct recorder *r, const char *name, int err) {
    const char *path = getenv("PATH");
    char dirs[PATH_MAX];

    if (r->fd < 0 || (err != EACCES && err != EPERM && err != ENOENT && err != ENOTDIR))
        return;
    if (strchr(name, '/') != NULL) {
        record_one(r->fd, NULL, name, err);
        return;
    }
    snprintf(dirs, sizeof dirs, "%s", path != NULL ? path : "/bin:/usr/bin");
    for (char *dir = strtok(dirs, ":"); dir != NULL; dir = strtok(NULL, ":"))
        record_one(r->fd, dir, name, err);
}

static void usage(void) {
    fputs("lcsb-exec: usage: lcsb-exec HEADER [PART...] -- COMMAND [ARG...]\n"
          "lcsb-exec: the policy format is docs/wire-format.md, version 2\n",
          stderr);
}

/* The kernel must handle everything the policy names: a lower ABI would
 * silently leave rights unrestricted, so it is a refusal, not a downgrade. */
static int check_kernel(unsigned need) {
    int abi = landlock_create_ruleset(NULL, 0, LANDLOCK_CREATE_RULESET_VERSION);

    if (abi < 0) {
        int err = errno;
        fail("use Landlock: %s", strerror(err));
        if (err == ENOSYS)
            hint("this kernel was built without Landlock (CONFIG_SECURITY_LANDLOCK)");
        else if (err == EOPNOTSUPP)
            hint("Landlock is built in but disabled; add \"landlock\" to the lsm= boot option");
        return -1;
    }
    if ((unsigned)abi < need) {
        fail("enforce the policy: it needs Landlock ABI %u and this kernel has ABI %d", need,
             abi);
        hint("wrap the command again on this host (lcsb reads the kernel's ABI), "
             "or boot a kernel with Landlock ABI %u", need);
        return -1;
    }
    return 0;
}

/* The size tells the kernel which fields we fill: only those the policy's
 * ABI has, so an older kernel never sees a field it does not know. */
static size_t ruleset_size(unsigned abi) {
    return abi < 4   ? offsetof(struct ruleset_attr, handled_access_net)
           : abi < 6 ? offsetof(struct ruleset_attr, scoped)
                     : sizeof(struct ruleset_attr);
}

static int create_ruleset(const struct header *h) {
    struct ruleset_attr attr = {
        .handled_access_fs = h->handled.fs,
        .handled_access_net = h->handled.net,
        .scoped = h->handled.scope,
    };
    int fd = landlock_create_ruleset(&attr, ruleset_size(h->abi), 0);
    if (fd < 0)
        fail("create the Landlock ruleset: %s", strerror(errno));
    return fd;
}

/* The rights the kernel accepts on a rule for a non-directory; it refuses a
 * rule on a file that names any other (EINVAL). */
#define FS_FILE (LANDLOCK_ACCESS_FS_EXECUTE | LANDLOCK_ACCESS_FS_WRITE_FILE | \
    LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_TRUNCATE | \
    LANDLOCK_ACCESS_FS_IOCTL_DEV | LANDLOCK_ACCESS_FS_RESOLVE_UNIX)

/* The rule on PATH, open as FD (O_PATH, reached without a symlink), of
 * mode MODE. */
static int add_fd_rule(int ruleset_fd, int fd, mode_t mode, const char *path, uint64_t access) {
    struct path_beneath_attr attr;

    if (!S_ISDIR(mode))
        access &= FS_FILE;
    /* Only directory rights on a file: nothing the kernel could grant there. */
    if (access == 0)
        return 0;
    attr.allowed_access = access;
    attr.parent_fd = fd;
    if (landlock_add_rule(ruleset_fd, LANDLOCK_RULE_PATH_BENEATH, &attr, 0) != 0)
        return fail("add a Landlock rule for %s: %s", show(path), strerror(errno));
    return 0;
}

static int add_path_rule(int ruleset_fd, const char *path, uint64_t access) {
    struct stat st;
    int ret = -1;
    /* The library names real paths only; a symlink here was planted after it
     * checked, and would move the grant to wherever it points. */
    struct open_how how = {.flags = O_PATH | O_CLOEXEC, .resolve = RESOLVE_NO_SYMLINKS};
    int fd = (int)syscall(SYS_openat2, AT_FDCWD, path, &how, sizeof how);

    if (fd < 0) {
        fail("open %s: %s", show(path),
             errno == ELOOP ? "the path passes through a symlink" : strerror(errno));
        goto out;
    }
    if (fstat(fd, &st) != 0) {
        fail("stat %s: %s", show(path), strerror(errno));
        goto close_fd;
    }
    ret = add_fd_rule(ruleset_fd, fd, st.st_mode, path, access);
close_fd:
    close(fd);
out:
    return ret;
}

static int add_port_rule(int ruleset_fd, uint64_t port, uint64_t access) {
    struct net_port_attr attr = {.allowed_access = access, .port = port};

    if (landlock_add_rule(ruleset_fd, LANDLOCK_RULE_NET_PORT, &attr, 0) != 0)
        return fail("add a Landlock rule for TCP port %" PRIu64 ": %s", port, strerror(errno));
    return 0;
}

/* The rules pass's sink (wire.h): each port and each path, as the reader
 * reaches it (in a world of its own: as world.c has placed it), becomes a
 * rule. */
static int grant_port(void *ctx, uint64_t port, uint64_t access) {
    return add_port_rule(*(const int *)ctx, port, access);
}

static int grant_path(void *ctx, const char *path, uint64_t access) {
    return add_path_rule(*(const int *)ctx, path, access);
}

static int grant_fd(void *ctx, int fd, mode_t mode, const char *path, uint64_t access) {
    return add_fd_rule(*(const int *)ctx, fd, mode, path, access);
}

/* Root keeps its capabilities under Landlock, and with them ways around it
 * (finit_module of any readable module, sethostname, raw devices): drop them
 * all. The bounding set matters because exec as uid 0 hands root its
 * capabilities back from it; only root needs it emptied, and only root may. */
static int drop_capabilities(void) {
    if (getuid() == 0 || geteuid() == 0) {
        for (unsigned long cap = 0; cap < 64; cap++) {
            int in_set = prctl(PR_CAPBSET_READ, cap, 0, 0, 0);
            if (in_set < 0)
                break; /* past the kernel's last capability */
            if (in_set && prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) != 0)
                return fail("drop capability %lu: %s", cap, strerror(errno));
        }
    }
    if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) != 0)
        return fail("clear the ambient capabilities: %s", strerror(errno));
    struct __user_cap_header_struct hdr = {.version = _LINUX_CAPABILITY_VERSION_3, .pid = 0};
    struct __user_cap_data_struct none[2];
    memset(none, 0, sizeof none);
    if (syscall(SYS_capset, &hdr, none) != 0)
        return fail("drop the capabilities: %s", strerror(errno));
    return 0;
}

/* The command dies with lcsb: killed with SIGKILL, lcsb cannot pass anything
 * on, so the kernel does. The signal survives the exec below (no set-uid
 * can intervene under no_new_privs). A parent already gone before the prctl
 * took effect would never send it: then nobody is waiting, and nothing runs. */
static int die_with_parent(void) {
    pid_t parent = getppid();

    if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) != 0)
        return fail("ask to die with lcsb: %s", strerror(errno));
    if (getppid() != parent)
        return fail("run the command: lcsb exited before it started");
    return 0;
}

#ifdef FILTER_ARCH
/* The low 32 bits of syscall argument I: the socket calls take ints, and the
 * kernel ignores the upper half too. */
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define ARG_LO(i) (offsetof(struct seccomp_data, args) + 8 * (i))
#else
#define ARG_LO(i) (offsetof(struct seccomp_data, args) + 8 * (i) + 4)
#endif
/* A jump's numbers count the instructions it skips when the test holds, and
 * when not. */
#define LOAD(offset) BPF_STMT(BPF_LD | BPF_W | BPF_ABS, (uint32_t)(offset))
#define JEQ(k, jt, jf) BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (uint32_t)(k), jt, jf)
#define RET(k) BPF_STMT(BPF_RET | BPF_K, (uint32_t)(k))
#define ERRNO(e) RET(SECCOMP_RET_ERRNO | ((e) & SECCOMP_RET_DATA))
#define JSET(k, jt, jf) BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, (uint32_t)(k), jt, jf)

/* Every filter starts here: native syscalls only (see FILTER_ARCH), then the
 * syscall number loaded for the checks that follow. On x86_64, x32 calls come
 * under the same arch with a bit set in the number, so a check for socket() or
 * ioctl() would miss x32's; they fail with ENOSYS, what a kernel without x32
 * answers (as most do): a program probing for x32 falls back quietly, where a
 * kill would end it and EPERM would claim a policy that says nothing of x32. */
#if defined(__x86_64__)
#define NATIVE_SYSCALL_NUMBER                                                   \
    LOAD(offsetof(struct seccomp_data, arch)), JEQ(FILTER_ARCH, 1, 0),          \
        RET(SECCOMP_RET_KILL_PROCESS), LOAD(offsetof(struct seccomp_data, nr)), \
        BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, __X32_SYSCALL_BIT, 0, 1), ERRNO(ENOSYS)
#else
#define NATIVE_SYSCALL_NUMBER                                                   \
    LOAD(offsetof(struct seccomp_data, arch)), JEQ(FILTER_ARCH, 1, 0),          \
        RET(SECCOMP_RET_KILL_PROCESS), LOAD(offsetof(struct seccomp_data, nr))
#endif

/* The filter is one program of segments, one per concern below. Each
 * segment starts with the syscall number loaded again, and where it allows
 * (has nothing against the call) it goes on to the next one: the first to
 * refuse answers. One program rather than one filter per concern: each
 * filter is compiled on its own, and every system call the command makes
 * runs every filter. */
struct program {
    struct sock_filter v[768];
    unsigned n;
    bool full;
};

static void emit(struct program *p, struct sock_filter ins) {
    if (p->n == COUNT(p->v)) {
        p->full = true;
        return;
    }
    p->v[p->n++] = ins;
}

static bool allows(const struct sock_filter *ins) {
    return ins->code == (BPF_RET | BPF_K) && ins->k == SECCOMP_RET_ALLOW;
}

/* RULES (N of them, expecting the syscall number loaded) as a segment: its
 * allows become jumps past its end. */
static void add_segment(struct program *p, const struct sock_filter *rules, size_t n) {
    emit(p, (struct sock_filter)LOAD(offsetof(struct seccomp_data, nr)));
    for (size_t i = 0; i < n; i++)
        emit(p, allows(&rules[i]) ? (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JA,
                                                                 (uint32_t)(n - i - 1), 0, 0)
                                  : rules[i]);
}

/* Whatever the policy: the command must not type into the caller's terminal
 * (TIOCSTI pushes bytes into its input queue, TIOCLINUX can paste a selection),
 * which would run commands in the caller's shell after lcsb exits. Interactive
 * programs keep the terminal; no new session detaches them. */
static void add_tty_rules(struct program *p) {
    const struct sock_filter rules[] = {
        JEQ(__NR_ioctl, 0, 3), /* to allow */
        LOAD(ARG_LO(1)),
        JEQ(TIOCSTI, 2, 0),    /* to EPERM */
        JEQ(TIOCLINUX, 1, 0),  /* to EPERM */
        RET(SECCOMP_RET_ALLOW),
        ERRNO(EPERM),
    };
    add_segment(p, rules, COUNT(rules));
}

#define SETID (S_ISUID | S_ISGID)
#define CREATING (O_CREAT | 020000000) /* O_CREAT, __O_TMPFILE */

/* Syscall NR sets a mode from argument MODE: refused when it holds a set-id bit. */
#define MODE_RULE(nr, mode) \
    JEQ(nr, 0, 4), LOAD(ARG_LO(mode)), JSET(SETID, 0, 1), ERRNO(EPERM), RET(SECCOMP_RET_ALLOW)
/* The same for a call that takes a mode only when FLAGS create a file. */
#define CREATE_RULE(nr, flags, mode)                                                   \
    JEQ(nr, 0, 6), LOAD(ARG_LO(flags)), JSET(CREATING, 0, 3), LOAD(ARG_LO(mode)),       \
        JSET(SETID, 0, 1), ERRNO(EPERM), RET(SECCOMP_RET_ALLOW)

/* Files the command leaves behind outlive the sandbox: a set-uid root shell,
 * or one with file capabilities, made by a command lcsb ran as root, would
 * hand root to whoever runs it later. So no set-id bit is set (chmod, or a
 * mode given when creating) and no extended attribute is written
 * (security.capability is one; the name cannot be read from here, so none
 * is, and tools take EOPNOTSUPP as "no xattrs here"). openat2 and io_uring,
 * whose modes sit behind pointers, are left to their callers' fallbacks. */
static void add_setid_rules(struct program *p) {
    const struct sock_filter rules[] = {
#ifdef __NR_chmod
        MODE_RULE(__NR_chmod, 1),
#endif
        MODE_RULE(__NR_fchmod, 1),
        MODE_RULE(__NR_fchmodat, 2),
        MODE_RULE(__NR_fchmodat2, 2),
#ifdef __NR_creat
        MODE_RULE(__NR_creat, 1),
#endif
#ifdef __NR_mknod
        MODE_RULE(__NR_mknod, 1),
#endif
        MODE_RULE(__NR_mknodat, 2),
#ifdef __NR_open
        CREATE_RULE(__NR_open, 1, 2),
#endif
        CREATE_RULE(__NR_openat, 2, 3),
        JEQ(__NR_openat2, 0, 1), ERRNO(ENOSYS),
        JEQ(__NR_io_uring_setup, 0, 1), ERRNO(EPERM),
        JEQ(__NR_setxattrat, 3, 0), JEQ(__NR_setxattr, 2, 0), JEQ(__NR_lsetxattr, 1, 0),
        JEQ(__NR_fsetxattr, 0, 1),
        ERRNO(EOPNOTSUPP),
        RET(SECCOMP_RET_ALLOW),
    };
    add_segment(p, rules, COUNT(rules));
}

/* Landlock does not govern a memfd (an internal file, in no directory), so a
 * program written into one would run outside the exec allowlist, through
 * execveat or /proc/self/fd. memfd_create is refused unless the memfd is
 * sealed against exec (MFD_NOEXEC_SEAL), what vm.memfd_noexec = 2 would
 * enforce; that sysctl only root may set in a pid namespace, this holds for
 * everyone. */
static void add_memfd_rules(struct program *p) {
    const struct sock_filter rules[] = {
        JEQ(__NR_memfd_create, 0, 3), /* to allow */
        LOAD(ARG_LO(1)),
        JSET(MFD_NOEXEC_SEAL_, 1, 0), /* to allow */
        ERRNO(EACCES),
        RET(SECCOMP_RET_ALLOW),
    };
    add_segment(p, rules, COUNT(rules));
}

/* The session keyring is a new one (world.c) and the user keyrings belong to
 * the user namespace, so the caller's keys are not the command's. A key can
 * still be named by its serial number, and one the caller let its uid read
 * would be read. So a key or keyring argument of keyctl and add_key must be
 * one of the special, negative KEY_SPEC_* numbers (the command's own
 * keyrings) or 0 where 0 means "none"; request_key is refused; keyctl operations that
 * carry keys behind a pointer (DH_COMPUTE, the PKEY_* crypto) or that this
 * table does not know are refused whole. */
struct key_args {
    uint32_t op;
    uint8_t args; /* bit I: argument I is a key */
};

static const struct key_args keyctl_ops[] = {
    {0, 1 << 1},  {2, 1 << 1},  {3, 1 << 1},          {4, 1 << 1},  {5, 1 << 1},
    {6, 1 << 1},  {7, 1 << 1},  {8, 1 << 1 | 1 << 2}, {9, 1 << 1 | 1 << 2},
    {10, 1 << 1 | 1 << 4},      {11, 1 << 1},         {12, 1 << 1 | 1 << 4},
    {13, 1 << 1 | 1 << 3},      {15, 1 << 1},         {16, 1 << 1}, {17, 1 << 1},
    {19, 1 << 1 | 1 << 4},      {20, 1 << 1 | 1 << 4}, {21, 1 << 1}, {22, 1 << 2},
    {24, 1 << 1}, {29, 1 << 1}, {30, 1 << 1 | 1 << 2 | 1 << 3},       {32, 1 << 1},
    /* JOIN_SESSION_KEYRING, SET_REQKEY_KEYRING, SESSION_TO_PARENT, CAPABILITIES */
    {1, 0},       {14, 0},      {18, 0},              {31, 0},
};

/* The arguments in ARGS hold a special key number, or 0: else EACCES. */
static void emit_key_checks(struct program *p, unsigned args) {
    for (unsigned i = 0; i < 6; i++) {
        if ((args & (1U << i)) == 0)
            continue;
        emit(p, (struct sock_filter)LOAD(ARG_LO(i)));
        emit(p, (struct sock_filter)JSET(0x80000000u, 2, 0)); /* negative: next check */
        emit(p, (struct sock_filter)JEQ(0, 1, 0));            /* none: next check */
        emit(p, (struct sock_filter)ERRNO(EACCES));
    }
    emit(p, (struct sock_filter)RET(SECCOMP_RET_ALLOW));
}

static unsigned key_checks_length(unsigned args) {
    return 4 * (unsigned)__builtin_popcount(args) + 1;
}

/* Syscall NR with its key arguments ARGS: checked, or skipped past. */
static void emit_call(struct program *p, uint32_t nr, unsigned args) {
    emit(p, (struct sock_filter)JEQ(nr, 0, key_checks_length(args)));
    emit_key_checks(p, args);
}

/* keyctl: its operation loaded once and matched against the table, each
 * match jumping to the checks of its key arguments; operations that check
 * the same arguments share those checks (the program is compiled on every
 * run, and a table of one check block per operation was most of it). */
static int add_keyring_rules(struct program *out) {
    struct program p = {.n = 0};
    uint8_t masks[COUNT(keyctl_ops)];
    unsigned at[COUNT(keyctl_ops)]; /* where each mask's checks start, after the table */
    size_t n_masks = 0;
    unsigned checks = 0, keyctl_len;

    for (size_t i = 0; i < COUNT(keyctl_ops); i++) {
        size_t m = 0;
        while (m < n_masks && masks[m] != keyctl_ops[i].args)
            m++;
        if (m == n_masks) {
            masks[n_masks++] = keyctl_ops[i].args;
            at[m] = checks;
            checks += key_checks_length(keyctl_ops[i].args);
        }
    }
    /* The operation loaded, the table, an operation not in it, the checks. */
    keyctl_len = 1 + (unsigned)COUNT(keyctl_ops) + 1 + checks;
    /* A jump counts 255 instructions at most; the table is kept within. */
    if (keyctl_len > 255)
        return fail("build the seccomp filter: the keyctl table is too long");
    /* add_key(type, description, payload, plen, keyring) */
    emit_call(&p, __NR_add_key, 1 << 4);
    /* request_key may start the host's /sbin/request-key, as root, outside
     * any sandbox, to make the key: refused whole. */
    emit(&p, (struct sock_filter)JEQ(__NR_request_key, 0, 1));
    emit(&p, (struct sock_filter)ERRNO(EACCES));
    emit(&p, (struct sock_filter)JEQ(__NR_keyctl, 0, keyctl_len));
    emit(&p, (struct sock_filter)LOAD(ARG_LO(0)));
    for (size_t i = 0; i < COUNT(keyctl_ops); i++) {
        size_t m = 0;
        while (masks[m] != keyctl_ops[i].args)
            m++;
        /* Past the rest of the table and the refusal, into the checks. */
        emit(&p, (struct sock_filter)JEQ(keyctl_ops[i].op,
                                         (unsigned)(COUNT(keyctl_ops) - i - 1) + 1 + at[m], 0));
    }
    emit(&p, (struct sock_filter)ERRNO(EACCES)); /* an operation not in the table */
    for (size_t m = 0; m < n_masks; m++)
        emit_key_checks(&p, masks[m]);
    emit(&p, (struct sock_filter)RET(SECCOMP_RET_ALLOW));
    add_segment(out, p.v, p.n);
    return 0;
}

/* The process that waits for the command shares its uid, and the
 * scheduler calls and prlimit take no Landlock scope: a command could
 * starve it (idle policy, lowest priority, one CPU) so that it never reaps,
 * or take its descriptors away (prlimit RLIMIT_NOFILE), and what the
 * command left would run on. In a world of its own that is the init (pid
 * 1); in the host's, lcsb, the shim's parent, which also serves the
 * command's proxy and keeps what it refused. Those calls are refused on
 * GUARDED, and setpriority and ioprio_set on a process group or a user
 * (which hold it too) are refused whole; on the command's own processes
 * they work. */
static void emit_refused_on(struct program *p, uint32_t nr, uint32_t guarded) {
    emit(p, (struct sock_filter)JEQ(nr, 0, 4));
    emit(p, (struct sock_filter)LOAD(ARG_LO(0)));
    emit(p, (struct sock_filter)JEQ(guarded, 0, 1));
    emit(p, (struct sock_filter)ERRNO(EPERM));
    emit(p, (struct sock_filter)RET(SECCOMP_RET_ALLOW));
}

/* NR(which, who, ...): allowed for WHICH_PROCESS and a pid but GUARDED. */
static void emit_process_only(struct program *p, uint32_t nr, uint32_t which_process,
                              uint32_t guarded) {
    emit(p, (struct sock_filter)JEQ(nr, 0, 6));
    emit(p, (struct sock_filter)LOAD(ARG_LO(0)));
    emit(p, (struct sock_filter)JEQ(which_process, 0, 2));
    emit(p, (struct sock_filter)LOAD(ARG_LO(1)));
    emit(p, (struct sock_filter)JEQ(guarded, 0, 1));
    emit(p, (struct sock_filter)ERRNO(EPERM));
    emit(p, (struct sock_filter)RET(SECCOMP_RET_ALLOW));
}

static void add_guard_rules(struct program *out, uint32_t guarded) {
    static const uint32_t pid_first[] = {__NR_sched_setscheduler, __NR_sched_setparam,
                                         __NR_sched_setattr, __NR_sched_setaffinity,
                                         __NR_prlimit64};
    struct program p = {.n = 0};

    for (size_t i = 0; i < COUNT(pid_first); i++)
        emit_refused_on(&p, pid_first[i], guarded);
    emit_process_only(&p, __NR_setpriority, 0 /* PRIO_PROCESS */, guarded);
    emit_process_only(&p, __NR_ioprio_set, 1 /* IOPRIO_WHO_PROCESS */, guarded);
    emit(&p, (struct sock_filter)RET(SECCOMP_RET_ALLOW));
    add_segment(out, p.v, p.n);
}

/* Landlock's network rules cover TCP only. This lets the command create
 * AF_UNIX sockets and, with "unix+tcp", TCP sockets over IPv4 and IPv6 (which
 * Landlock then holds to the policy's ports), and refuses every other socket
 * with EACCES, the errno Landlock gives, so that the command and lcsb's
 * explanations both see "Permission denied". io_uring is refused whole
 * (EPERM): IORING_OP_SOCKET creates sockets without socket(). */
static void add_socket_rules(struct program *p, enum sockets sockets) {
    bool tcp = sockets == SOCKETS_UNIX_TCP;
    const struct sock_filter rules[] = {
        JEQ(__NR_socket, 4, 0),         /* to the domain check */
        JEQ(__NR_socketpair, 3, 0),     /* to the domain check */
        JEQ(__NR_io_uring_setup, 1, 0), /* to EPERM */
        RET(SECCOMP_RET_ALLOW),
        ERRNO(EPERM),
        /* socket(domain, type, protocol), socketpair(domain, type, protocol, sv) */
        LOAD(ARG_LO(0)),
        JEQ(AF_UNIX, 8, 0), /* allow */
        /* With "unix" both compare with AF_UNIX, which cannot match here. */
        JEQ(tcp ? AF_INET : AF_UNIX, 1, 0),  /* to the type check */
        JEQ(tcp ? AF_INET6 : AF_UNIX, 0, 7), /* to the type check, or refuse */
        LOAD(ARG_LO(1)),
        BPF_STMT(BPF_ALU | BPF_AND | BPF_K, ~(uint32_t)(SOCK_NONBLOCK | SOCK_CLOEXEC)),
        JEQ(SOCK_STREAM, 0, 4), /* to the protocol check, or refuse */
        LOAD(ARG_LO(2)),
        JEQ(0, 1, 0),           /* the family's default, which is TCP: allow */
        JEQ(IPPROTO_TCP, 0, 1), /* allow, or refuse */
        RET(SECCOMP_RET_ALLOW),
        ERRNO(EACCES),
    };
    add_segment(p, rules, COUNT(rules));
}

/* The syscall numbers the segments of P look at: those a call that none of
 * them names is compared with on its way through, from FROM (where the
 * number is loaded) to the allow it reaches. Any other step on that way (an
 * argument loaded, a test but for equality, anything but an allow at its
 * end) would make the way depend on more than the number: then 0, and the
 * program stays as it is. */
static size_t watched_calls(const struct program *p, unsigned from, uint32_t *nrs, size_t max) {
    size_t n = 0;

    for (unsigned pc = from; pc < p->n;) {
        const struct sock_filter *ins = &p->v[pc];
        if (ins->code == (BPF_LD | BPF_W | BPF_ABS) &&
            ins->k == offsetof(struct seccomp_data, nr)) {
            pc++;
        } else if (ins->code == (BPF_JMP | BPF_JEQ | BPF_K)) {
            /* The number is in the accumulator: every load above was of it. */
            if (n == max)
                return 0;
            nrs[n++] = ins->k;
            pc += 1u + ins->jf;
        } else if (ins->code == (BPF_JMP | BPF_JA)) {
            pc += 1u + ins->k;
        } else {
            return allows(ins) ? n : 0;
        }
    }
    return 0;
}

static int by_number(const void *a, const void *b) {
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

    return x < y ? -1 : x > y;
}

static unsigned search_length(size_t n) {
    return n <= 3 ? (unsigned)n + 1 : 1 + search_length(n / 2) + search_length(n - n / 2);
}

/* A search for the number among NRS (N, sorted): on into the segments,
 * which start at index END, for a number it holds; allowed at once for any
 * other. */
static void emit_search(struct program *p, const uint32_t *nrs, size_t n, unsigned end) {
    if (n <= 3) {
        for (size_t i = 0; i < n; i++)
            emit(p, (struct sock_filter)JEQ(nrs[i], end - p->n - 1, 0));
        emit(p, (struct sock_filter)RET(SECCOMP_RET_ALLOW));
        return;
    }
    emit(p, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, nrs[n / 2],
                                         search_length(n / 2), 0));
    emit_search(p, nrs, n / 2, end);
    emit_search(p, nrs + n / 2, n - n / 2, end);
}

/* P with the calls its segments name sorted out first: OUT is P's start
 * (FROM instructions, the number loaded at their end), a search for the
 * number, then P's segments. When the filter is installed the kernel runs
 * the program once for every syscall number, to learn which it may let
 * through unfiltered later; a number none of the segments names went
 * through every one of them, which made that most of the filter's cost.
 * Left as P when its segments do not lend themselves to it. */
static const struct program *sorted_out(const struct program *p, unsigned from,
                                        struct program *out) {
    uint32_t nrs[128];
    size_t n = watched_calls(p, from, nrs, COUNT(nrs)), unique = 0;
    unsigned end;

    if (n == 0)
        return p;
    qsort(nrs, n, sizeof nrs[0], by_number);
    for (size_t i = 0; i < n; i++)
        if (unique == 0 || nrs[unique - 1] != nrs[i])
            nrs[unique++] = nrs[i];
    end = from + search_length(unique);
    /* A jump counts 255 instructions at most. */
    if (end - from > 255)
        return p;
    out->n = 0;
    out->full = false;
    for (unsigned i = 0; i < from; i++)
        emit(out, p->v[i]);
    emit_search(out, nrs, unique, end);
    for (unsigned i = from; i < p->n; i++)
        emit(out, p->v[i]);
    return out->full ? p : out;
}

/* The program for H: the terminal and set-id rules (unless seccomp is
 * dropped), memfd when execute is handled, the keyrings and the init in a
 * world of its own, and sockets when the header restricts them; installed
 * last, right before exec (no_new_privs is already set, as an unprivileged
 * filter requires). */
static int install_filters(const struct header *h) {
    static struct program p, sorted;
    const struct program *final;
    const struct sock_filter start[] = {NATIVE_SYSCALL_NUMBER};
    bool guards = (h->dropped & DROPPED_TERMINAL) == 0;

    if (!guards && h->sockets == SOCKETS_ANY)
        return 0;
    p.n = 0;
    p.full = false;
    for (size_t i = 0; i < COUNT(start); i++)
        emit(&p, start[i]);
    if (guards) {
        add_tty_rules(&p);
        add_setid_rules(&p);
        if ((h->handled.fs & LANDLOCK_ACCESS_FS_EXECUTE) != 0)
            add_memfd_rules(&p);
        if (h->world == WORLD_POLICY) {
            if (add_keyring_rules(&p) != 0)
                return -1;
            add_guard_rules(&p, 1);
        } else {
            add_guard_rules(&p, (uint32_t)getppid());
        }
    }
    if (h->sockets != SOCKETS_ANY)
        add_socket_rules(&p, h->sockets);
    emit(&p, (struct sock_filter)RET(SECCOMP_RET_ALLOW));
    if (p.full)
        return fail("build the seccomp filter: it is longer than %zu instructions", COUNT(p.v));
    final = sorted_out(&p, COUNT(start), &sorted);
    struct sock_fprog prog = {.len = (unsigned short)final->n, .filter = (struct sock_filter *)final->v};
    if (prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) != 0)
        return fail("install the seccomp filter: %s", strerror(errno));
    return 0;
}

#else
static int install_filters(const struct header *h) {
    /* check_header has refused a header restricting sockets here already. */
    if ((h->dropped & DROPPED_TERMINAL) == 0)
        return fail("guard the terminal on this architecture: the seccomp filter knows "
                    "x86_64 and aarch64 only");
    return 0;
}
#endif

/* The seam's env hop, `/usr/bin/env [-u NAME]... -- [NAME=VALUE]... COMMAND
 * [ARG...]`, is carried out here as env would: unset, set, then execvp with
 * the new PATH. One exec fewer on every run with an env overlay, which is
 * every exec_policy run. Only that exact shape, with names that hold no '=',
 * is taken; anything else runs env itself. Returns the index of the argv to
 * exec, or -1 when the environment could not be changed. */
static int env_hop(char **argv, int at) {
    int i = at + 1, first_set;

    if (strcmp(argv[at], "/usr/bin/env") != 0)
        return at;
    for (; argv[i] != NULL && strcmp(argv[i], "-u") == 0; i += 2)
        if (argv[i + 1] == NULL || argv[i + 1][0] == '\0' || strchr(argv[i + 1], '=') != NULL)
            return at;
    if (argv[i] == NULL || strcmp(argv[i], "--") != 0)
        return at;
    first_set = ++i;
    for (; argv[i] != NULL && strchr(argv[i], '=') != NULL; i++)
        if (argv[i][0] == '=')
            return at;
    if (argv[i] == NULL)
        return at; /* env without a command prints the environment */
    for (int k = at + 1; k < first_set - 1; k += 2)
        if (unsetenv(argv[k + 1]) != 0)
            return fail("unset %s: %s", show(argv[k + 1]), strerror(errno));
    for (int k = first_set; k < i; k++)
        if (putenv(argv[k]) != 0)
            return fail("set the environment: %s", strerror(errno));
    return i;
}

/* The command's own Landlock domain, nested in the one it shares with the
 * init: Landlock lets no process trace one in an enclosing domain, nor, with
 * scoping, signal it. The layer takes nothing away that the policy grants:
 * it handles making block devices only, which no tier grants, and the
 * scopes the policy already has. Landlock takes every domain to handle
 * REFER, and one with no rule for it refuses every link and rename across
 * directories (EXDEV), the project's own included: so the layer grants
 * REFER on its whole root, leaving it to the policy's layer. */
static int enter_child_domain(const struct header *h) {
    bool refer = (h->handled.fs & LANDLOCK_ACCESS_FS_REFER) != 0;
    struct ruleset_attr attr = {
        .handled_access_fs = LANDLOCK_ACCESS_FS_MAKE_BLOCK | (refer ? LANDLOCK_ACCESS_FS_REFER : 0),
        .scoped = h->handled.scope,
    };
    /* "/" by open(2): the filters are in place by now, and answer openat2
     * with ENOSYS; the root is no symlink. */
    struct path_beneath_attr root = {.allowed_access = LANDLOCK_ACCESS_FS_REFER};
    int fd = landlock_create_ruleset(&attr, ruleset_size(h->abi), 0);

    if (fd < 0)
        return fail("create the command's Landlock domain: %s", strerror(errno));
    if (refer && (root.parent_fd = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC)) < 0) {
        fail("open / for the command's Landlock domain: %s", strerror(errno));
        close(fd);
        return -1;
    }
    if (refer && landlock_add_rule(fd, LANDLOCK_RULE_PATH_BENEATH, &root, 0) != 0) {
        fail("grant moves across directories in the command's Landlock domain: %s",
             strerror(errno));
        close(root.parent_fd);
        close(fd);
        return -1;
    }
    if (refer)
        close(root.parent_fd);
    if (landlock_restrict_self(fd, 0) != 0) {
        fail("enter the command's Landlock domain: %s", strerror(errno));
        close(fd);
        return -1;
    }
    close(fd);
    return 0;
}

/* The limits an rlimit holds, set in the command right before its exec.
 * RLIMIT_NPROC counts the uid's processes in the new user namespace, the
 * outer shim and the init included; root is exempt from it, and held by the
 * pid namespace's pid_max (world.c) instead. */
static int set_rlimits(const struct limits *l) {
    static const struct {
        int resource;
        const char *name;
    } kinds[] = {{RLIMIT_AS, "memory"}, {RLIMIT_NPROC, "pids"}, {RLIMIT_NOFILE, "files"}};
    uint64_t values[] = {l->memory, l->pids ? l->pids + 2 : 0, l->files};

    for (size_t i = 0; i < COUNT(kinds); i++) {
        struct rlimit r = {(rlim_t)values[i], (rlim_t)values[i]};
        if (values[i] != 0 && setrlimit(kinds[i].resource, &r) != 0)
            return fail("set the %s limit to %llu: %s", kinds[i].name,
                        (unsigned long long)values[i], strerror(errno));
    }
    return 0;
}

/* In a world of its own: the init builds the root, and the rules are added
 * as their paths are placed in it. Otherwise the rules go on the host's
 * paths as they are read. */
static int add_rules(char **argv, int argc, int dashdash, const struct header *h,
                     const struct policy_sink *rules, sigset_t *old_mask, int report_fd,
                     int proxy_fd, const struct recorder *rec, struct cgroup *cg) {
    struct header scratch;
    /* The recorder's library, read-only, where reads are handled at all. */
    const char *library = rec->fd >= 0 ? rec->library : NULL;
    uint64_t read_file = h->handled.fs & LANDLOCK_ACCESS_FS_READ_FILE;

    if (h->world == WORLD_OPEN)
        return read_policy(argv, argc, dashdash, &scratch, rules) == 0 &&
                       (library == NULL || rules->on_path(rules->ctx, library, read_file) == 0) &&
                       die_with_parent() == 0
                   ? 0
                   : -1;
    if (h->proxy != 0 && proxy_fd < 0) {
        fail("reach lcsb's proxy: no LCSB_EXEC_PROXY_FD to hand it the listening socket");
        hint("net.domains is served by lcsb itself: run the command with lcsb, not the "
             "wrapped argv alone");
        return -1;
    }
    /* Before the namespaces: the cgroup is the caller's to make, and the
     * kernel judges the init's move into it by the caller's credentials. */
    if (cgroup_make(h->limits.cgroup, h->limits.memory, cg) != 0 ||
        enter_namespaces(h->proxy != 0, h->limits.memory) != 0)
        return -1;
    /* Before the init is forked: nothing below lcsb-exec holds the channel. */
    if (h->proxy != 0) {
        int handed = hand_over_listener(h->proxy, proxy_fd);
        close(proxy_fd);
        if (handed != 0)
            return -1;
    }
    if (die_with_parent() != 0 || start_init(old_mask, h->limits.time, report_fd, cg) != 0 ||
        build_world(argv, argc, dashdash, h, rules, grant_fd, library, read_file) != 0 ||
        join_new_keyring() != 0)
        return -1;
    if (h->limits.pids != 0 && limit_pids(h->limits.pids) != 0)
        return -1;
    return 0;
}

/* What the command's own process does before its exec. */
struct launch {
    char **argv;
    int dashdash;
    const struct header *h;
    struct recorder *rec;
    int report_fd;
};

/* In a world of its own the command first enters a Landlock domain of its
 * own below the init's. The rlimits last: what runs under them is the exec
 * alone (arming the recorder allocates, which a memory limit may not leave
 * room for). Returns only when the command could not be executed: the exit
 * status to end with. */
static int exec_command(void *ctx) {
    const struct launch *l = ctx;
    char **argv = l->argv;
    int command, err;

    if (l->h->world == WORLD_POLICY && enter_child_domain(l->h) != 0)
        goto out;
    command = env_hop(argv, l->dashdash + 1);
    if (command < 0)
        goto out;
    arm_recorder(l->rec, l->h->world != WORLD_OPEN);
    if (set_rlimits(&l->h->limits) != 0)
        goto out;
    execvp(argv[command], &argv[command]);
    err = errno;
    record_exec(l->rec, argv[command], err);
    /* 126 and 127 are the shim's own here, not a status of the command's. */
    if (l->report_fd >= 0)
        (void)!write(l->report_fd, "E", 1);
    fail("execute %s: %s", show(argv[command]), strerror(err));
    return err == ENOENT || err == ENOTDIR ? 127 : 126;
out:
    if (l->report_fd >= 0)
        (void)!write(l->report_fd, "F", 1);
    return EXIT_SETUP;
}

int main(int argc, char **argv) {
    struct header h;
    int ruleset_fd;
    const struct policy_sink rules = {.ctx = &ruleset_fd, .on_port = grant_port,
                                      .on_path = grant_path};
    int dashdash = 2;
    struct launch launch;
    int report_fd = take_fd("LCSB_EXEC_REPORT_FD");
    int proxy_fd = take_fd("LCSB_EXEC_PROXY_FD");
    struct recorder rec = take_recorder();
    struct cgroup cg = CGROUP_INIT;
    sigset_t old_mask;

    if (argc == 2 && strcmp(argv[1], "--version") == 0) {
        printf("lcsb-exec %d\n", WIRE_VERSION);
        return fflush(stdout) == 0 ? EXIT_SUCCESS : EXIT_SETUP;
    }
    if (argc < 2) {
        fail("read the policy: no arguments");
        usage();
        goto out;
    }
    /* A part is a JSON object, so the first "--" after the header is ours. */
    while (dashdash < argc && strcmp(argv[dashdash], "--") != 0)
        dashdash++;
    if (read_policy(argv, argc, dashdash, &h, NULL) != 0)
        goto out;
    /* Only a network of its own has a listening socket to hand over. */
    if (h.proxy == 0 && proxy_fd >= 0)
        close(proxy_fd);
    if (dashdash + 1 == argc) {
        fail("find the command: nothing follows \"--\"");
        goto out;
    }
    if (check_kernel(h.abi) != 0)
        goto out;
    ruleset_fd = create_ruleset(&h);
    if (ruleset_fd < 0)
        goto out;
    if (add_rules(argv, argc, dashdash, &h, &rules, &old_mask, report_fd, proxy_fd, &rec,
                  &cg) != 0)
        goto close_ruleset;
    /* Required by the kernel for an unprivileged restrict_self, and what stops
     * a set-uid binary from carrying privileges into the sandbox. */
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) {
        fail("set no_new_privs: %s", strerror(errno));
        goto close_ruleset;
    }
    if (landlock_restrict_self(ruleset_fd, 0) != 0) {
        fail("enforce the Landlock ruleset: %s", strerror(errno));
        goto close_ruleset;
    }
    close(ruleset_fd);
    if (drop_capabilities() != 0)
        goto out;
    /* Last, so that nothing above runs under them, and right before exec,
     * which they let through: the command starts with every rule in force. */
    if (install_filters(&h) != 0)
        goto out;
    /* The init starts the command and stays to wait for it; in a world of
     * the host's, this process is the command. */
    launch = (struct launch){.argv = argv, .dashdash = dashdash, .h = &h, .rec = &rec,
                             .report_fd = report_fd};
    if (h.world == WORLD_OPEN)
        return exec_command(&launch);
    run_command(&old_mask, &h.limits, report_fd, exec_command, &launch);
    goto out;

close_ruleset:
    close(ruleset_fd);
out:
    /* Made, and no init forked to join it (in the init, a no-op). */
    cgroup_remove(&cg);
    if (report_fd >= 0)
        (void)!write(report_fd, "F", 1);
    return EXIT_SETUP;
}
