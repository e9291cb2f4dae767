/* lcsb-exec: the Landlock exec shim.
 *
 *     lcsb-exec HEADER PART_1 ... PART_N -- COMMAND [ARG...]
 *     LCSB_EXEC_COMMAND_FD=N lcsb-exec HEADER PART_1 ... PART_N -- [WORD...]
 *
 * In the second form the world is made before the command is known, and the
 * init waits for it on socket N (handover.c).
 *
 * The policy arrives as JSON on argv (docs/wire-format.md) because the library's
 * `wrap` is pure and cannot hand over a ruleset descriptor. The shim reads it
 * with its own parser (wire.c), builds the ruleset, restricts itself and execs
 * COMMAND. This file is the enforcement, in the order the kernel sees it: the
 * ruleset, the world (namespaces.c: namespaces of its own, with "proxy" a
 * network whose one way out is lcsb's proxy; world.c: a root built from the
 * policy; under an init, init.c, in a memory cgroup of its own, cgroup.c),
 * the rules, no_new_privs and restrict_self, the capabilities and rlimits,
 * the seccomp filters (filters.c), the exec.
 *
 * Landlock's network rules cover TCP only, so when the header's "sockets" asks
 * for it, a seccomp filter (filters.c) closes every other socket family
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
 * One program (this file, wire.c, filters.c, world.c, covers.c, mounts.c,
 * namespaces.c, init.c, execseen.c, handover.c, cgroup.c, say.c and their
 * headers, kernel_uapi.h), libc and kernel headers only; nothing from the
 * library (docs/architecture.md, rule 2). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <linux/capability.h>
#include <linux/openat2.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "cgroup.h"
#include "execseen.h"
#include "filters.h"
#include "handover.h"
#include "init.h"
#include "kernel_uapi.h"
#include "namespaces.h"
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
        /* Dropping one not in the set does nothing: no read first, one
         * call a capability instead of two. */
        for (unsigned long cap = 0; cap < 64; cap++) {
            if (prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) == 0)
                continue;
            if (errno == EINVAL)
                break; /* past the kernel's last capability */
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
                     const struct policy_sink *rules, int report_fd, int proxy_fd,
                     const struct recorder *rec, struct cgroup *cg) {
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
    if (die_with_parent() != 0 || start_init(h->limits.time, report_fd, cg) != 0 ||
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
    const sigset_t *entry; /* the signal mask the shim came with */
};

/* The command's path as its process passes it to exec: at an address the
 * init knows before the fork, so that its watch lets this one exec through
 * without a word (execseen.c). */
static char first_exec[PATH_MAX];

/* execvp of NAME with ARGV, each path it tries written into first_exec:
 * the command's own first exec, however many of PATH's directories it
 * takes, waits for no init. As musl's execvp: a name with a slash as it
 * is, an empty entry of PATH the working directory, a directory that
 * refuses it passed over but remembered (EACCES), a missing one passed
 * over, any other error the end. Whatever else (no PATH, a name or a path
 * too long, a file the kernel cannot execute, which glibc hands to sh)
 * execvp itself does, seen. Returns only when nothing was executed, errno
 * set as execvp sets it. */
static void exec_first(const char *name, char **argv) {
    const char *path = getenv("PATH"), *dir, *end;
    size_t len = strlen(name);
    bool denied = false;

    if (strchr(name, '/') != NULL) {
        if (len < sizeof first_exec) {
            execv(strcpy(first_exec, name), argv);
            if (errno != ENOEXEC)
                return;
        }
    } else if (path != NULL && len > 0 && len <= NAME_MAX) {
        for (dir = path;; dir = end + 1) {
            end = strchrnul(dir, ':');
            size_t n = (size_t)(end - dir);
            if (n + len + 2 > sizeof first_exec)
                break;
            memcpy(first_exec, dir, n);
            first_exec[n] = '/';
            memcpy(first_exec + n + (n > 0), name, len + 1);
            execv(first_exec, argv);
            if (errno == EACCES)
                denied = true;
            else if (errno == ENOEXEC)
                break;
            else if (errno != ENOENT && errno != ENOTDIR)
                return;
            if (*end == '\0') {
                if (denied)
                    errno = EACCES;
                return;
            }
        }
    }
    execvp(name, argv);
}

/* In a world of its own the command first enters a Landlock domain of its
 * own below the init's. The rlimits last: what runs under them is the exec
 * alone (arming the recorder allocates, which a memory limit may not leave
 * room for). Returns only when the command could not be executed: the exit
 * status to end with. */
static int exec_command(void *ctx) {
    const struct launch *l = ctx;
    char **argv = l->argv;
    int command, err;

    /* In a world of the host's, this process is the command: its signals as
     * they came (in the init's, the command's process has them so). */
    if (l->h->world == WORLD_OPEN)
        release_signals(l->entry, l->report_fd);
    if (l->h->world == WORLD_POLICY && enter_child_domain(l->h) != 0)
        goto out;
    command = env_hop(argv, l->dashdash + 1);
    if (command < 0)
        goto out;
    arm_recorder(l->rec, l->h->world != WORLD_OPEN);
    if (set_rlimits(&l->h->limits) != 0)
        goto out;
    exec_first(argv[command], &argv[command]);
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

/* In a world of its own, with the recorder's pipe to write to, the init
 * sees every exec of the command's (execseen.c) and says so on the report
 * pipe. NULL when it does not: a kernel without user notification loses
 * evidence for the hints, not enforcement. */
static struct exec_watch *watch_for(const struct recorder *rec, int report_fd) {
    static struct exec_watch w;

    if (rec->fd < 0 || (w.listener = watch_execs(first_exec)) < 0)
        return NULL;
    w.record_fd = rec->fd;
    if (report_fd >= 0)
        (void)!write(report_fd, (char[]){REPORT_EXECS_SEEN}, 1);
    return &w;
}

/* A setup that failed ends the shim, saying so out of band. CG, when made
 * and no init forked to join it, goes (in the init, a no-op). */
static int setup_failed(int report_fd, struct cgroup *cg) {
    cgroup_remove(cg);
    if (report_fd >= 0)
        (void)!write(report_fd, "F", 1);
    return EXIT_SETUP;
}

/* A world that changed while it waited ends unused, and says so: lcsb makes
 * another for the command. */
static int report_stale(int report_fd) {
    if (report_fd >= 0)
        (void)!write(report_fd, (char[]){REPORT_STALE}, 1);
    return EXIT_SETUP;
}

/* The command follows "--", or comes later on COMMAND_FD (handover.c): a
 * world made ahead waits for it in the init, where a time limit would
 * count the wait. */
static int command_given(int argc, int dashdash, int command_fd, const struct header *h) {
    if (command_fd < 0)
        return dashdash + 1 < argc ? 0 : fail("find the command: nothing follows \"--\"");
    if (h->world == WORLD_OPEN || h->limits.time != 0)
        return fail("wait for the command: only a world of its own without a time limit waits for it");
    return 0;
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
    int command_fd = take_fd("LCSB_EXEC_COMMAND_FD");
    struct recorder rec = take_recorder();
    struct cgroup cg = CGROUP_INIT;
    sigset_t entry_mask;

    hold_signals(&entry_mask);
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
    if (command_given(argc, dashdash, command_fd, &h) != 0 || check_kernel(h.abi) != 0)
        goto out;
    ruleset_fd = create_ruleset(&h);
    if (ruleset_fd < 0)
        goto out;
    if (add_rules(argv, argc, dashdash, &h, &rules, report_fd, proxy_fd, &rec, &cg) != 0)
        goto close_ruleset;
    /* A world made ahead: its mounts as made, looked at again when used. */
    world_made(command_fd);
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
                             .report_fd = report_fd, .entry = &entry_mask};
    if (h.world == WORLD_OPEN)
        return exec_command(&launch);
    /* Before a world made ahead waits: its command then starts at once. */
    struct exec_watch *watch = watch_for(&rec, report_fd);
    bool for_it;
    int taken = take_command(command_fd, argv, argc, &launch.argv, &environ, &for_it);
    if (taken != 0)
        return taken == 1   ? EXIT_SUCCESS
               : taken == 2 ? report_stale(report_fd)
                            : setup_failed(report_fd, &cg);
    run_command(&entry_mask, &h.limits, report_fd, watch, for_it, exec_command, &launch);
    goto out;

close_ruleset:
    close(ruleset_fd);
out:
    return setup_failed(report_fd, &cg);
}
