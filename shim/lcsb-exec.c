/* lcsb-exec: the Landlock exec shim.
 *
 *     lcsb-exec HEADER PART_1 ... PART_N -- COMMAND [ARG...]
 *
 * The policy arrives as JSON on argv (docs/wire-format.md) because the library's
 * `wrap` is pure and cannot hand over a ruleset descriptor. The shim reads it
 * with its own parser (wire.c), builds the ruleset, restricts itself and execs
 * COMMAND. This file is the enforcement, in the order the kernel sees it: the
 * ruleset, the mount namespace, the rules, no_new_privs and restrict_self,
 * the capabilities, the parent-death signal, the seccomp filters, the exec.
 *
 * Landlock's network rules cover TCP only, so when the header's "sockets" asks
 * for it, a seccomp filter written out below closes every other socket family
 * (UDP, raw, packet, ...) and io_uring, installed last, right before exec.
 * The command cannot push input into the caller's terminal (TIOCSTI,
 * TIOCLINUX) unless the header lists "terminal" as dropped (a host without
 * seccomp), and, when lcsb runs as root, it runs with no capabilities:
 * Landlock alone does not stop root from loading a module.
 *
 * It trusts nothing it is given: every byte is re-checked, and any fault, in
 * the policy or in the kernel's answers, ends in a `lcsb-exec: cannot ...`
 * message and exit 97 *before* COMMAND could run. There is no path on which
 * COMMAND runs with less than the whole policy in force.
 *
 * Nothing is stored between parsing and acting: the policy is read from the
 * same argv strings once to check all of it and again, once the ruleset
 * exists, with a sink that adds its rules; protected paths take one more read
 * of the header, after the write tier. Every pass runs the same parser, so
 * what is checked and what is enforced cannot drift apart, and a 20,000-path
 * policy needs no allocation at all.
 *
 * One program of four files (this one, wire.c, say.c, kernel_uapi.h), libc
 * and kernel headers only; nothing from the library (docs/architecture.md, rule 2). */
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
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "kernel_uapi.h"
#include "say.h"
#include "wire.h"

#define EXIT_SETUP 97

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

/* lcsb passes a pipe's write end, named in LCSB_EXEC_REPORT_FD, on which a
 * failed setup is said out of band: the command can exit 97 too. The name
 * goes before anything runs, and the descriptor with the exec. */
static int take_report_fd(void) {
    const char *text = getenv("LCSB_EXEC_REPORT_FD");
    char *end;
    long fd = text ? strtol(text, &end, 10) : -1;

    unsetenv("LCSB_EXEC_REPORT_FD");
    if (!text || !*text || *end || fd < 3 || fd > INT_MAX || fcntl((int)fd, F_SETFD, FD_CLOEXEC) != 0)
        return -1;
    return (int)fd;
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

static int create_ruleset(const struct header *h) {
    struct ruleset_attr attr = {
        .handled_access_fs = h->handled.fs,
        .handled_access_net = h->handled.net,
        .scoped = h->handled.scope,
    };
    /* The size tells the kernel which fields we fill: only those the policy's
     * ABI has, so an older kernel never sees a field it does not know. */
    size_t size = sizeof attr;
    int fd;

    if (h->abi < 4)
        size = offsetof(struct ruleset_attr, handled_access_net);
    else if (h->abi < 6)
        size = offsetof(struct ruleset_attr, scoped);
    fd = landlock_create_ruleset(&attr, size, 0);
    if (fd < 0)
        fail("create the Landlock ruleset: %s", strerror(errno));
    return fd;
}

static int write_proc(const char *file, const char *text) {
    int fd = open(file, O_WRONLY | O_CLOEXEC);
    ssize_t n = fd < 0 ? -1 : write(fd, text, strlen(text));
    int err = errno;

    if (fd >= 0)
        close(fd);
    if (n != (ssize_t)strlen(text))
        return fail("write %s: %s", file, strerror(err));
    return 0;
}

/* Make the mount at DIRFD/PATH read-only, and every mount below it; or
 * writable again, that one mount only: a mount below a write-tier path that
 * was read-only before lcsb came stays so. */
static int set_readonly(int dirfd, const char *path, unsigned flags, bool readonly) {
    struct mount_attr_v0 attr = {0};

    if (readonly)
        attr.attr_set = MOUNT_ATTR_RDONLY_;
    else
        attr.attr_clr = MOUNT_ATTR_RDONLY_;
    return (int)syscall(SYS_mount_setattr, dirfd, path, flags | (readonly ? AT_RECURSIVE_ : 0),
                        &attr, sizeof attr);
}

/* Landlock has no right for metadata (chmod, chown, utimes, xattrs), so
 * outside the write tier the file system itself says no: a mount namespace
 * of its own (in a user namespace of its own, mapping only the caller's uid
 * and gid, when not root), every mount private and read-only. The write
 * tier's paths are then mounted writable again as the rules are added. */
static int enter_readonly_world(void) {
    uid_t uid = geteuid();
    gid_t gid = getegid();
    char map[64];

    /* Root with CAP_SYS_ADMIN needs only the mount namespace; anyone else
     * (root in a container without it too) maps its own ids into a user
     * namespace of its own, and gets the capability there. */
    if (uid != 0 || unshare(CLONE_NEWNS) != 0) {
        if (unshare(CLONE_NEWUSER | CLONE_NEWNS) != 0)
            return fail("enter a user and mount namespace: %s", strerror(errno));
        snprintf(map, sizeof map, "%u %u 1\n", (unsigned)uid, (unsigned)uid);
        if (write_proc("/proc/self/uid_map", map) != 0 ||
            write_proc("/proc/self/setgroups", "deny") != 0)
            return -1;
        snprintf(map, sizeof map, "%u %u 1\n", (unsigned)gid, (unsigned)gid);
        if (write_proc("/proc/self/gid_map", map) != 0)
            return -1;
    }
    if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0)
        return fail("make the mounts private: %s", strerror(errno));
    if (set_readonly(AT_FDCWD, "/", 0, true) != 0)
        return fail("make the file system read-only: %s", strerror(errno));
    return 0;
}

/* A copy of the tree at PATH mounted on top of it, read-only or writable: by
 * descriptor, so a symlink planted on the way cannot move it elsewhere. */
static int remount_over(const char *path, bool readonly) {
    struct open_how how = {.flags = O_PATH | O_CLOEXEC, .resolve = RESOLVE_NO_SYMLINKS};
    int at = (int)syscall(SYS_openat2, AT_FDCWD, path, &how, sizeof how);
    int tree, ret = -1;

    if (at < 0)
        return fail("open %s: %s", show(path),
                    errno == ELOOP ? "the path passes through a symlink" : strerror(errno));
    tree = (int)syscall(SYS_open_tree, at, "",
                        OPEN_TREE_CLONE_ | O_CLOEXEC | AT_EMPTY_PATH | AT_RECURSIVE_);
    if (tree < 0 || set_readonly(tree, "", AT_EMPTY_PATH, readonly) != 0 ||
        syscall(SYS_move_mount, tree, "", at, "",
                MOVE_MOUNT_F_EMPTY_PATH_ | MOVE_MOUNT_T_EMPTY_PATH_) != 0)
        fail("mount %s %s: %s", show(path), readonly ? "read-only" : "writable",
             strerror(errno));
    else
        ret = 0;
    if (tree >= 0)
        close(tree);
    close(at);
    return ret;
}

/* The rights the kernel accepts on a rule for a non-directory; it refuses a
 * rule on a file that names any other (EINVAL). */
#define FS_FILE (LANDLOCK_ACCESS_FS_EXECUTE | LANDLOCK_ACCESS_FS_WRITE_FILE | \
    LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_TRUNCATE | \
    LANDLOCK_ACCESS_FS_IOCTL_DEV)

static int add_path_rule(int ruleset_fd, const char *path, uint64_t access) {
    struct path_beneath_attr attr;
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
    if (!S_ISDIR(st.st_mode))
        access &= FS_FILE;
    /* Only directory rights on a file: nothing the kernel could grant there. */
    if (access == 0) {
        ret = 0;
        goto close_fd;
    }
    attr.allowed_access = access;
    attr.parent_fd = fd;
    if (landlock_add_rule(ruleset_fd, LANDLOCK_RULE_PATH_BENEATH, &attr, 0) != 0) {
        fail("add a Landlock rule for %s: %s", show(path), strerror(errno));
        goto close_fd;
    }
    ret = 0;
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

/* Rights that make a rule's path part of the write tier. */
#define WRITES (LANDLOCK_ACCESS_FS_WRITE_FILE | LANDLOCK_ACCESS_FS_MAKE_REG | \
    LANDLOCK_ACCESS_FS_MAKE_DIR | LANDLOCK_ACCESS_FS_REMOVE_FILE | LANDLOCK_ACCESS_FS_REMOVE_DIR)

/* What the rules pass acts with, besides each rule. */
struct enforcement {
    int ruleset_fd;
    bool readonly_world;
};

/* The rules pass's sink (wire.h): each port and each path, as the reader
 * reaches it, becomes a rule. */
static int grant_port(void *ctx, uint64_t port, uint64_t access) {
    const struct enforcement *e = ctx;

    return add_port_rule(e->ruleset_fd, port, access);
}

/* In a read-only world a write-tier path is first mounted writable again,
 * so that its rule is added on the new mount. */
static int grant_path(void *ctx, const char *path, uint64_t access) {
    const struct enforcement *e = ctx;

    if (e->readonly_world && (access & WRITES) != 0 && remount_over(path, false) != 0)
        return -1;
    return add_path_rule(e->ruleset_fd, path, access);
}

/* The protect pass's sink: a read-only copy on top of the writable tree. */
static int protect_path(void *ctx, const char *path) {
    return remount_over(path, true);
}

static int reenter_cwd(void) {
    char cwd[PATH_MAX];

    if (getcwd(cwd, sizeof cwd) == NULL || chdir(cwd) != 0)
        return fail("enter the working directory again: %s", strerror(errno));
    return 0;
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

/* WHAT names the filter in the message when the kernel refuses it. */
static int install_filter(struct sock_filter *filter, size_t len, const char *what) {
    struct sock_fprog prog = {.len = (unsigned short)len, .filter = filter};

    /* no_new_privs is already set, as an unprivileged filter requires. */
    if (prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) != 0)
        return fail("install the %s filter: %s", what, strerror(errno));
    return 0;
}

/* Whatever the policy: the command must not type into the caller's terminal
 * (TIOCSTI pushes bytes into its input queue, TIOCLINUX can paste a selection),
 * which would run commands in the caller's shell after lcsb exits. Interactive
 * programs keep the terminal; no new session detaches them. */
static int install_tty_filter(void) {
    struct sock_filter filter[] = {
        NATIVE_SYSCALL_NUMBER,
        JEQ(__NR_ioctl, 0, 3), /* to allow */
        LOAD(ARG_LO(1)),
        JEQ(TIOCSTI, 2, 0),    /* to EPERM */
        JEQ(TIOCLINUX, 1, 0),  /* to EPERM */
        RET(SECCOMP_RET_ALLOW),
        ERRNO(EPERM),
    };
    return install_filter(filter, COUNT(filter), "terminal");
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
static int install_setid_filter(void) {
    struct sock_filter filter[] = {
        NATIVE_SYSCALL_NUMBER,
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
        JEQ(__NR_setxattr, 2, 0), JEQ(__NR_lsetxattr, 1, 0), JEQ(__NR_fsetxattr, 0, 1),
        ERRNO(EOPNOTSUPP),
        RET(SECCOMP_RET_ALLOW),
    };
    return install_filter(filter, COUNT(filter), "set-id");
}
/* Landlock's network rules cover TCP only. This lets the command create
 * AF_UNIX sockets and, with "unix+tcp", TCP sockets over IPv4 and IPv6 (which
 * Landlock then holds to the policy's ports), and refuses every other socket
 * with EACCES, the errno Landlock gives, so that the command and lcsb's
 * explanations both see "Permission denied". io_uring is refused whole
 * (EPERM): IORING_OP_SOCKET creates sockets without socket(). */
static int install_socket_filter(enum sockets sockets) {
    bool tcp = sockets == SOCKETS_UNIX_TCP;
    struct sock_filter filter[] = {
        NATIVE_SYSCALL_NUMBER,
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
    return install_filter(filter, COUNT(filter), "socket");
}

#else
static int install_tty_filter(void) {
    return fail("guard the terminal on this architecture: the filter knows x86_64 and "
                "aarch64 only");
}

static int install_setid_filter(void) {
    return fail("refuse set-id bits on this architecture: the filter knows x86_64 and "
                "aarch64 only");
}
static int install_socket_filter(enum sockets sockets) {
    (void)sockets; /* check_header has refused such a header already */
    return fail("restrict sockets on this architecture");
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

int main(int argc, char **argv) {
    struct header h;
    struct enforcement e;
    const struct policy_sink rules = {.ctx = &e, .on_port = grant_port, .on_path = grant_path};
    const struct policy_sink protect = {.on_protect = protect_path};
    int dashdash = 2;
    int ruleset_fd;
    int command;
    int err;
    int report_fd = take_report_fd();

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
    if (dashdash + 1 == argc) {
        fail("find the command: nothing follows \"--\"");
        goto out;
    }
    if (check_kernel(h.abi) != 0)
        goto out;
    ruleset_fd = create_ruleset(&h);
    if (ruleset_fd < 0)
        goto out;
    if (h.readonly_world && enter_readonly_world() != 0)
        goto close_ruleset;
    e.ruleset_fd = ruleset_fd;
    e.readonly_world = h.readonly_world;
    if (read_policy(argv, argc, dashdash, &h, &rules) != 0)
        goto close_ruleset;
    /* Protected paths go on top of the writable tree, so last; then the
     * working directory is entered again, by name, to stand on the new
     * mounts rather than on the read-only one it was opened on. This pass
     * only mounts: the port rules are in the ruleset already. */
    if (h.protected_paths > 0 && read_header(argv[1], &h, &protect) != 0)
        goto close_ruleset;
    if (h.readonly_world && reenter_cwd() != 0)
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
    if (die_with_parent() != 0)
        goto out;
    /* Last, so that nothing above runs under them, and right before exec,
     * which they let through: the command starts with every rule in force. */
    if ((h.dropped & DROPPED_TERMINAL) == 0 &&
        (install_tty_filter() != 0 || install_setid_filter() != 0))
        goto out;
    if (h.sockets != SOCKETS_ANY && install_socket_filter(h.sockets) != 0)
        goto out;

    command = env_hop(argv, dashdash + 1);
    if (command < 0)
        goto out;
    execvp(argv[command], &argv[command]);
    err = errno;
    fail("execute %s: %s", show(argv[command]), strerror(err));
    return err == ENOENT || err == ENOTDIR ? 127 : 126;

close_ruleset:
    close(ruleset_fd);
out:
    if (report_fd >= 0)
        (void)!write(report_fd, "F", 1);
    return EXIT_SETUP;
}
