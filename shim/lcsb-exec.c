/* lcsb-exec: the Landlock exec shim.
 *
 *     lcsb-exec HEADER PART_1 ... PART_N -- COMMAND [ARG...]
 *
 * The policy arrives as JSON on argv (docs/wire-format.md) because the library's
 * `wrap` is pure and cannot hand over a ruleset descriptor. This file reads it
 * with its own parser, builds the ruleset, restricts itself and execs COMMAND.
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
 * Nothing is stored between parsing and acting: the policy is read twice from
 * the same argv strings, once to check all of it and once, after the ruleset
 * exists, to add its rules. Both passes run the same code, so what is checked
 * and what is enforced cannot drift apart, and a 20,000-path policy needs no
 * allocation at all.
 *
 * libc and kernel headers only; nothing from the library (DESIGN.md rule 2). */
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
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "kernel_uapi.h"
#include "say.h"

/* The wire format version this shim speaks, and the newest Landlock ABI it
 * knows. A header asking for anything newer is refused, never guessed at. */
#define WIRE_VERSION 2
#define ABI_NEWEST 7
#define EXIT_SETUP 97

#define FS_ALL (LANDLOCK_ACCESS_FS_EXECUTE | LANDLOCK_ACCESS_FS_WRITE_FILE | \
    LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_READ_DIR | \
    LANDLOCK_ACCESS_FS_REMOVE_DIR | LANDLOCK_ACCESS_FS_REMOVE_FILE | \
    LANDLOCK_ACCESS_FS_MAKE_CHAR | LANDLOCK_ACCESS_FS_MAKE_DIR | \
    LANDLOCK_ACCESS_FS_MAKE_REG | LANDLOCK_ACCESS_FS_MAKE_SOCK | \
    LANDLOCK_ACCESS_FS_MAKE_FIFO | LANDLOCK_ACCESS_FS_MAKE_BLOCK | \
    LANDLOCK_ACCESS_FS_MAKE_SYM | LANDLOCK_ACCESS_FS_REFER | \
    LANDLOCK_ACCESS_FS_TRUNCATE | LANDLOCK_ACCESS_FS_IOCTL_DEV)

/* The rights the kernel accepts on a rule for a non-directory; it refuses a
 * rule on a file that names any other (EINVAL). */
#define FS_FILE (LANDLOCK_ACCESS_FS_EXECUTE | LANDLOCK_ACCESS_FS_WRITE_FILE | \
    LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_TRUNCATE | \
    LANDLOCK_ACCESS_FS_IOCTL_DEV)

/* Rights that make a rule's path part of the write tier. */
#define WRITES (LANDLOCK_ACCESS_FS_WRITE_FILE | LANDLOCK_ACCESS_FS_MAKE_REG | \
    LANDLOCK_ACCESS_FS_MAKE_DIR | LANDLOCK_ACCESS_FS_REMOVE_FILE | LANDLOCK_ACCESS_FS_REMOVE_DIR)

#define NET_ALL (LANDLOCK_ACCESS_NET_BIND_TCP | LANDLOCK_ACCESS_NET_CONNECT_TCP)
#define SCOPE_ALL (LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET | LANDLOCK_SCOPE_SIGNAL)

#define FALLTHROUGH __attribute__((fallthrough))

struct right {
    const char *name;
    uint64_t bit;
};

static const struct right fs_rights[] = {
    {"execute", LANDLOCK_ACCESS_FS_EXECUTE},       {"write_file", LANDLOCK_ACCESS_FS_WRITE_FILE},
    {"read_file", LANDLOCK_ACCESS_FS_READ_FILE},   {"read_dir", LANDLOCK_ACCESS_FS_READ_DIR},
    {"remove_dir", LANDLOCK_ACCESS_FS_REMOVE_DIR}, {"remove_file", LANDLOCK_ACCESS_FS_REMOVE_FILE},
    {"make_char", LANDLOCK_ACCESS_FS_MAKE_CHAR},   {"make_dir", LANDLOCK_ACCESS_FS_MAKE_DIR},
    {"make_reg", LANDLOCK_ACCESS_FS_MAKE_REG},     {"make_sock", LANDLOCK_ACCESS_FS_MAKE_SOCK},
    {"make_fifo", LANDLOCK_ACCESS_FS_MAKE_FIFO},   {"make_block", LANDLOCK_ACCESS_FS_MAKE_BLOCK},
    {"make_sym", LANDLOCK_ACCESS_FS_MAKE_SYM},     {"refer", LANDLOCK_ACCESS_FS_REFER},
    {"truncate", LANDLOCK_ACCESS_FS_TRUNCATE},     {"ioctl_dev", LANDLOCK_ACCESS_FS_IOCTL_DEV},
};

static const struct right net_rights[] = {
    {"bind_tcp", LANDLOCK_ACCESS_NET_BIND_TCP},
    {"connect_tcp", LANDLOCK_ACCESS_NET_CONNECT_TCP},
};

static const struct right scope_rights[] = {
    {"abstract_unix_socket", LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET},
    {"signal", LANDLOCK_SCOPE_SIGNAL},
};

/* "dropped": the parts of the policy this host cannot enforce and the policy
 * let go; the attestation reports them. Only "terminal" changes what the shim
 * does: without seccomp there is no terminal filter to install. */
#define DROPPED_TERMINAL (1U << 4)
static const struct right dropped_parts[] = {
    {"net", 1U << 0},   {"scope", 1U << 1},          {"truncate", 1U << 2},
    {"ioctl", 1U << 3}, {"terminal", DROPPED_TERMINAL}, {"metadata", 1U << 5},
};

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

struct rights {
    uint64_t fs, net, scope;
};

/* What a policy written for ABI may name. Ascending, so each case strips what
 * the next ABI added; ABI must already be within 1..ABI_NEWEST, and a new ABI
 * gets its own case before ABI_NEWEST moves. */
static struct rights rights_of_abi(unsigned abi) {
    struct rights r = {FS_ALL, NET_ALL, SCOPE_ALL};

    switch (abi) {
    case 1:
        r.fs &= ~LANDLOCK_ACCESS_FS_REFER;
        FALLTHROUGH;
    case 2:
        r.fs &= ~LANDLOCK_ACCESS_FS_TRUNCATE;
        FALLTHROUGH;
    case 3:
        r.net = 0;
        FALLTHROUGH;
    case 4:
        r.fs &= ~LANDLOCK_ACCESS_FS_IOCTL_DEV;
        FALLTHROUGH;
    case 5:
        r.scope = 0;
        FALLTHROUGH;
    case 6: /* ABI 7 added audit logging flags, not rights. */
    case ABI_NEWEST:
        break;
    }
    return r;
}

/* What "sockets" allows the command to create: "any" (no filter), "unix"
 * (AF_UNIX only) or "unix+tcp" (that, plus TCP over IPv4 and IPv6). */
enum sockets { SOCKETS_ANY, SOCKETS_UNIX, SOCKETS_UNIX_TCP };

static const char *const sockets_names[] = {"any", "unix", "unix+tcp"};

/* The header, once checked. Port rules are not kept: the second pass re-reads
 * them from argv. */
struct header {
    unsigned abi;
    uint64_t parts;
    struct rights handled;
    uint64_t port_rights; /* every right a port rule grants, to check against net */
    enum sockets sockets;
    uint64_t dropped;
    bool readonly_world; /* "world": "readonly" */
    unsigned protected_paths;
};

/* One JSON argument being read. WHAT names it in messages ("header",
 * "part 3"); argv strings end in NUL, which is also the parser's end of input,
 * so no read goes past the terminating byte. */
struct cursor {
    const char *start;
    const char *p;
    char what[32];
};

/* A parse error, located so that the writer's bug can be found. */
__attribute__((format(printf, 2, 3))) static int bad(const struct cursor *c, const char *fmt,
                                                     ...) {
    char lead[96];
    va_list ap;

    snprintf(lead, sizeof lead, "lcsb-exec: cannot parse %s: byte %td: ", c->what,
             c->p - c->start);
    va_start(ap, fmt);
    say(lead, fmt, ap);
    va_end(ap);
    return -1;
}

/* The byte under the cursor, for "expected X, found Y". */
static const char *found(const struct cursor *c) {
    static char buf[16];
    unsigned char ch = (unsigned char)*c->p;

    if (ch == '\0')
        return "the end of the argument";
    if (ch > 0x20 && ch < 0x7f)
        snprintf(buf, sizeof buf, "'%c'", ch);
    else
        snprintf(buf, sizeof buf, "byte 0x%02x", ch);
    return buf;
}

static bool is_digit(char ch) {
    return ch >= '0' && ch <= '9';
}

static int hex_value(char ch) {
    if (is_digit(ch))
        return ch - '0';
    if (ch >= 'a' && ch <= 'f')
        return ch - 'a' + 10;
    if (ch >= 'A' && ch <= 'F')
        return ch - 'A' + 10;
    return -1;
}

static void skip_space(struct cursor *c) {
    while (*c->p == ' ' || *c->p == '\t' || *c->p == '\n' || *c->p == '\r')
        c->p++;
}

static int expect(struct cursor *c, char ch) {
    skip_space(c);
    if (*c->p != ch)
        return bad(c, "expected '%c', found %s", ch, found(c));
    c->p++;
    return 0;
}

/* Opens an object or array; *MORE says whether an element follows. */
static int list_open(struct cursor *c, char open, char close, bool *more) {
    if (expect(c, open) != 0)
        return -1;
    skip_space(c);
    *more = *c->p != close;
    if (!*more)
        c->p++;
    return 0;
}

/* After an element: a comma means another follows, CLOSE ends the list. */
static int list_next(struct cursor *c, char close, bool *more) {
    skip_space(c);
    if (*c->p != ',' && *c->p != close)
        return bad(c, "expected ',' or '%c', found %s", close, found(c));
    *more = *c->p == ',';
    c->p++;
    return 0;
}

/* The one end of an argument: its top-level object is all it may hold. */
static int expect_end(struct cursor *c) {
    skip_space(c);
    if (*c->p != '\0')
        return bad(c, "trailing bytes after the object, starting with %s", found(c));
    return 0;
}

/* Decodes a string into BUF (CAP bytes, NUL included). Only the escapes the
 * writer can produce are accepted; \u0000 is refused so that a decoded string
 * never hides a NUL that would cut a path short. */
static int parse_string(struct cursor *c, char *buf, size_t cap, const char *what) {
    size_t n = 0;

    skip_space(c);
    if (*c->p != '"')
        return bad(c, "expected %s as a string, found %s", what, found(c));
    c->p++;
    for (;;) {
        unsigned char ch = (unsigned char)*c->p;
        if (ch == '\0')
            return bad(c, "unterminated string");
        if (ch == '"')
            break;
        if (ch < 0x20)
            return bad(c, "control byte 0x%02x in a string", ch);
        if (ch == '\\') {
            c->p++;
            switch (*c->p) {
            case '"': ch = '"'; break;
            case '\\': ch = '\\'; break;
            case '/': ch = '/'; break;
            case 'b': ch = '\b'; break;
            case 'f': ch = '\f'; break;
            case 'n': ch = '\n'; break;
            case 'r': ch = '\r'; break;
            case 't': ch = '\t'; break;
            case 'u': {
                /* Short-circuit order keeps every read at or before the NUL. */
                int hi, lo;
                if (c->p[1] != '0' || c->p[2] != '0' || (hi = hex_value(c->p[3])) < 0 ||
                    (lo = hex_value(c->p[4])) < 0 || hi > 7 || (hi == 0 && lo == 0))
                    return bad(c, "only \\u0001 to \\u007f are accepted");
                ch = (unsigned char)(hi * 16 + lo);
                c->p += 4;
                break;
            }
            default:
                return bad(c, "unknown escape: found %s after '\\'", found(c));
            }
        }
        if (n + 1 >= cap)
            return bad(c, "%s longer than %zu bytes", what, cap - 1);
        buf[n++] = (char)ch;
        c->p++;
    }
    c->p++;
    buf[n] = '\0';
    return 0;
}

static int parse_key(struct cursor *c, char *buf, size_t cap) {
    if (parse_string(c, buf, cap, "a key") != 0)
        return -1;
    return expect(c, ':');
}

/* Reads the next key of an object whose keys come in a fixed order. */
static int fixed_key(struct cursor *c, bool first, const char *want) {
    char key[32];
    bool more = false; /* set on success; gcc -O3 cannot see that */

    if ((first ? list_open(c, '{', '}', &more) : list_next(c, '}', &more)) != 0)
        return -1;
    if (!more)
        return bad(c, "missing key \"%s\"", want);
    if (parse_key(c, key, sizeof key) != 0)
        return -1;
    if (strcmp(key, want) != 0)
        return bad(c, "expected key \"%s\", found \"%s\"", want, show(key));
    return 0;
}

/* Closes an object whose last key was LAST: anything more is unknown or repeated. */
static int fixed_end(struct cursor *c, const char *last) {
    bool more = false;

    if (list_next(c, '}', &more) != 0)
        return -1;
    if (more)
        return bad(c, "no key may follow \"%s\"", last);
    return 0;
}

static int parse_uint(struct cursor *c, const char *what, uint64_t max, uint64_t *out) {
    uint64_t v = 0;

    skip_space(c);
    if (!is_digit(*c->p))
        return bad(c, "%s must be a non-negative integer, found %s", what, found(c));
    if (c->p[0] == '0' && is_digit(c->p[1]))
        return bad(c, "%s has a leading zero", what);
    for (; is_digit(*c->p); c->p++) {
        uint64_t d = (uint64_t)(*c->p - '0');
        if (d > max || v > (max - d) / 10)
            return bad(c, "%s is out of range (at most %" PRIu64 ")", what, max);
        v = v * 10 + d;
    }
    if (*c->p == '.' || *c->p == 'e' || *c->p == 'E')
        return bad(c, "%s must be an integer, without fraction or exponent", what);
    *out = v;
    return 0;
}

/* An array of right names from TABLE, as a mask; a name twice is a writer bug. */
static int parse_rights(struct cursor *c, const struct right *table, size_t n, const char *kind,
                        uint64_t *mask) {
    char name[32];
    bool more;

    *mask = 0;
    if (list_open(c, '[', ']', &more) != 0)
        return -1;
    while (more) {
        size_t i;
        if (parse_string(c, name, sizeof name, "a right name") != 0)
            return -1;
        for (i = 0; i < n && strcmp(table[i].name, name) != 0; i++)
            continue;
        if (i == n)
            return bad(c, "unknown %s name \"%s\"", kind, show(name));
        if ((*mask & table[i].bit) != 0)
            return bad(c, "%s name \"%s\" given twice", kind, name);
        *mask |= table[i].bit;
        if (list_next(c, ']', &more) != 0)
            return -1;
    }
    return 0;
}

/* The first name in TABLE among BITS, for a message. */
static const char *name_of(const struct right *table, size_t n, uint64_t bits) {
    for (size_t i = 0; i < n; i++)
        if ((bits & table[i].bit) != 0)
            return table[i].name;
    return "?";
}

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

/* `ports`: [{"access": [net names], "ports": [0-65535, ...]}, ...]. With a
 * ruleset (RULESET_FD >= 0) each port becomes a rule; without, this only
 * checks and collects the rights granted, which the header checks against
 * `net` once it has read all of itself. */
static int parse_port_rules(struct cursor *c, struct header *h, int ruleset_fd) {
    bool more;

    if (list_open(c, '[', ']', &more) != 0)
        return -1;
    while (more) {
        uint64_t access;
        bool more_ports;
        if (fixed_key(c, true, "access") != 0 ||
            parse_rights(c, net_rights, COUNT(net_rights), "net right", &access) != 0)
            return -1;
        if (access == 0)
            return bad(c, "a port rule grants no right");
        h->port_rights |= access;
        if (fixed_key(c, false, "ports") != 0 || list_open(c, '[', ']', &more_ports) != 0)
            return -1;
        while (more_ports) {
            uint64_t port;
            if (parse_uint(c, "a port", 65535, &port) != 0)
                return -1;
            if (ruleset_fd >= 0 && add_port_rule(ruleset_fd, port, access) != 0)
                return -1;
            if (list_next(c, ']', &more_ports) != 0)
                return -1;
        }
        if (fixed_end(c, "ports") != 0 || list_next(c, ']', &more) != 0)
            return -1;
    }
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

static int reenter_cwd(void) {
    char cwd[PATH_MAX];

    if (getcwd(cwd, sizeof cwd) == NULL || chdir(cwd) != 0)
        return fail("enter the working directory again: %s", strerror(errno));
    return 0;
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

/* "sockets": one of sockets_names, as a string. */
static int parse_sockets(struct cursor *c, enum sockets *out) {
    char name[16];

    if (parse_string(c, name, sizeof name, "sockets") != 0)
        return -1;
    for (size_t i = 0; i < COUNT(sockets_names); i++) {
        if (strcmp(sockets_names[i], name) == 0) {
            *out = (enum sockets)i;
            return 0;
        }
    }
    return bad(c, "unknown sockets value \"%s\" (expected \"any\", \"unix\" or \"unix+tcp\")",
               show(name));
}

/* "world": "readonly" (the namespace above) or "open". */
static int parse_world(struct cursor *c, bool *readonly) {
    char name[16];

    if (parse_string(c, name, sizeof name, "world") != 0)
        return -1;
    if (strcmp(name, "readonly") != 0 && strcmp(name, "open") != 0)
        return bad(c, "unknown world value \"%s\" (expected \"readonly\" or \"open\")",
                   show(name));
    *readonly = strcmp(name, "readonly") == 0;
    return 0;
}

/* "protect": paths mounted read-only on top of the write tier, once it is
 * writable (NOW); otherwise only checked and counted. */
static int parse_protect(struct cursor *c, bool now, unsigned *count) {
    char path[PATH_MAX];
    bool more;

    *count = 0;
    if (list_open(c, '[', ']', &more) != 0)
        return -1;
    while (more) {
        if (parse_string(c, path, sizeof path, "a path") != 0)
            return -1;
        if (path[0] != '/')
            return bad(c, "protected path \"%s\" is not absolute", show(path));
        if (now && remount_over(path, true) != 0)
            return -1;
        ++*count;
        if (list_next(c, ']', &more) != 0)
            return -1;
    }
    return 0;
}

enum { K_ABI, K_PARTS, K_FS, K_NET, K_PORTS, K_SCOPE, K_SOCKETS, K_DROPPED, K_WORLD, K_PROTECT,
       K_COUNT };
static const char *const header_keys[K_COUNT] = {
    "abi", "parts", "fs", "net", "ports", "scope", "sockets", "dropped", "world", "protect"};

/* What cannot be checked until the whole header is read: its keys may come in
 * any order after "lcsb-exec", and a right's age depends on "abi". */
static int check_header(unsigned seen, const struct header *h) {
    struct rights known = rights_of_abi(h->abi);
    uint64_t extra;

    for (unsigned k = 0; k < K_COUNT; k++)
        if ((seen & (1U << k)) == 0)
            return fail("parse header: missing key \"%s\"", header_keys[k]);
    if ((extra = h->handled.fs & ~known.fs) != 0)
        return fail("parse header: fs right \"%s\" is newer than abi %u",
                    name_of(fs_rights, COUNT(fs_rights), extra), h->abi);
    if ((extra = h->handled.net & ~known.net) != 0)
        return fail("parse header: net right \"%s\" is newer than abi %u",
                    name_of(net_rights, COUNT(net_rights), extra), h->abi);
    if ((extra = h->handled.scope & ~known.scope) != 0)
        return fail("parse header: scope \"%s\" is newer than abi %u",
                    name_of(scope_rights, COUNT(scope_rights), extra), h->abi);
    if ((extra = h->port_rights & ~h->handled.net) != 0)
        return fail("parse header: a port rule grants \"%s\", which \"net\" does not handle",
                    name_of(net_rights, COUNT(net_rights), extra));
    if (h->protected_paths > 0 && !h->readonly_world)
        return fail("parse header: protected paths need \"world\": \"readonly\"");
    /* Both filters are seccomp: a host without one has neither. */
    if ((h->dropped & DROPPED_TERMINAL) != 0 && h->sockets != SOCKETS_ANY)
        return fail("parse header: \"terminal\" is dropped, yet \"sockets\" asks for a filter");
    /* The kernel would refuse an empty ruleset (ENOMSG); say why instead. */
    if ((h->handled.fs | h->handled.net | h->handled.scope) == 0)
        return fail("parse header: the policy handles no right at all");
#ifndef FILTER_ARCH
    if (h->sockets != SOCKETS_ANY)
        return fail("restrict sockets on this architecture: the socket filter knows x86_64 "
                    "and aarch64 only (\"sockets\":\"%s\")", sockets_names[h->sockets]);
#endif
    return 0;
}

static int parse_header(struct cursor *c, struct header *h, int ruleset_fd, bool protect_now) {
    char key[32];
    unsigned seen = 0;
    uint64_t v;
    bool more;

    memset(h, 0, sizeof *h);
    /* The version comes first so that a newer format is named as such rather
     * than reported as an unknown key. */
    if (fixed_key(c, true, "lcsb-exec") != 0 || parse_uint(c, "lcsb-exec", UINT32_MAX, &v) != 0)
        return -1;
    if (v != WIRE_VERSION)
        return bad(c, "wire format version %" PRIu64 " is not %d, the one this shim speaks", v,
                   WIRE_VERSION);
    for (;;) {
        unsigned k;
        int rc = -1;
        if (list_next(c, '}', &more) != 0)
            return -1;
        if (!more)
            break;
        if (parse_key(c, key, sizeof key) != 0)
            return -1;
        for (k = 0; k < K_COUNT && strcmp(header_keys[k], key) != 0; k++)
            continue;
        if (k == K_COUNT && strcmp(key, "lcsb-exec") == 0)
            return bad(c, "key \"lcsb-exec\" given twice");
        if (k == K_COUNT)
            return bad(c, "unknown key \"%s\"", show(key));
        if ((seen & (1U << k)) != 0)
            return bad(c, "key \"%s\" given twice", key);
        seen |= 1U << k;
        switch (k) {
        case K_ABI:
            rc = parse_uint(c, "abi", UINT32_MAX, &v);
            if (rc == 0 && (v < 1 || v > ABI_NEWEST))
                rc = bad(c, "abi %" PRIu64 " is not one this shim knows (1 to %d)", v,
                         ABI_NEWEST);
            h->abi = (unsigned)v;
            break;
        case K_PARTS:
            rc = parse_uint(c, "parts", INT_MAX, &h->parts);
            break;
        case K_FS:
            rc = parse_rights(c, fs_rights, COUNT(fs_rights), "fs right", &h->handled.fs);
            break;
        case K_NET:
            rc = parse_rights(c, net_rights, COUNT(net_rights), "net right", &h->handled.net);
            break;
        case K_PORTS:
            rc = parse_port_rules(c, h, ruleset_fd);
            break;
        case K_SCOPE:
            rc = parse_rights(c, scope_rights, COUNT(scope_rights), "scope", &h->handled.scope);
            break;
        case K_SOCKETS:
            rc = parse_sockets(c, &h->sockets);
            break;
        case K_DROPPED:
            rc = parse_rights(c, dropped_parts, COUNT(dropped_parts), "dropped part",
                              &h->dropped);
            break;
        case K_WORLD:
            rc = parse_world(c, &h->readonly_world);
            break;
        case K_PROTECT:
            rc = parse_protect(c, protect_now, &h->protected_paths);
            break;
        }
        if (rc != 0)
            return -1;
    }
    if (expect_end(c) != 0)
        return -1;
    return check_header(seen, h);
}

/* A rule: {"access": [fs names], "paths": [absolute paths]}. */
static int parse_rule(struct cursor *c, const struct header *h, int ruleset_fd) {
    char path[PATH_MAX];
    uint64_t access;
    bool more;

    if (fixed_key(c, true, "access") != 0 ||
        parse_rights(c, fs_rights, COUNT(fs_rights), "fs right", &access) != 0)
        return -1;
    if (access == 0)
        return bad(c, "a rule grants no right");
    if ((access & ~h->handled.fs) != 0)
        return bad(c, "a rule grants \"%s\", which the header's \"fs\" does not handle",
                   name_of(fs_rights, COUNT(fs_rights), access & ~h->handled.fs));
    if (fixed_key(c, false, "paths") != 0 || list_open(c, '[', ']', &more) != 0)
        return -1;
    while (more) {
        if (parse_string(c, path, sizeof path, "a path") != 0)
            return -1;
        if (path[0] != '/')
            return bad(c, "path \"%s\" is not absolute", show(path));
        if (ruleset_fd >= 0 && h->readonly_world && (access & WRITES) != 0 &&
            remount_over(path, false) != 0)
            return -1;
        if (ruleset_fd >= 0 && add_path_rule(ruleset_fd, path, access) != 0)
            return -1;
        if (list_next(c, ']', &more) != 0)
            return -1;
    }
    return fixed_end(c, "paths");
}

/* A part: {"part": INDEX, "rules": [rule, ...]}, keys in that order. */
static int parse_part(struct cursor *c, uint64_t index, const struct header *h, int ruleset_fd) {
    uint64_t v;
    bool more;

    if (fixed_key(c, true, "part") != 0 || parse_uint(c, "part", INT_MAX, &v) != 0)
        return -1;
    if (v != index)
        return bad(c, "this is part %" PRIu64 " but says it is part %" PRIu64, index, v);
    if (fixed_key(c, false, "rules") != 0 || list_open(c, '[', ']', &more) != 0)
        return -1;
    while (more) {
        if (parse_rule(c, h, ruleset_fd) != 0 || list_next(c, ']', &more) != 0)
            return -1;
    }
    if (fixed_end(c, "rules") != 0)
        return -1;
    return expect_end(c);
}

static void cursor_init(struct cursor *c, const char *arg, int part) {
    c->start = arg;
    c->p = arg;
    if (part == 0)
        snprintf(c->what, sizeof c->what, "header");
    else
        snprintf(c->what, sizeof c->what, "part %d", part);
}

/* Reads the whole policy, argv[1] up to the first "--" at argv[DASHDASH]
 * (ARGC when there is none). Called once to check (RULESET_FD < 0) and once
 * more to add the rules. */
static int read_policy(char **argv, int argc, int dashdash, struct header *h, int ruleset_fd) {
    struct cursor c;

    cursor_init(&c, argv[1], 0);
    if (parse_header(&c, h, ruleset_fd, false) != 0)
        return -1;
    if (dashdash == argc)
        return fail("find the command: no \"--\" after the policy");
    if (h->parts != (uint64_t)(dashdash - 2))
        return fail("parse header: it announces %" PRIu64 " parts and argv holds %d", h->parts,
                    dashdash - 2);
    for (int i = 1; i <= dashdash - 2; i++) {
        cursor_init(&c, argv[1 + i], i);
        if (parse_part(&c, (uint64_t)i, h, ruleset_fd) != 0)
            return -1;
    }
    return 0;
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

#ifdef FILTER_ARCH
/* The low 32 bits of syscall argument I: the socket calls take ints, and the
 * kernel ignores the upper half too. */
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define ARG_LO(i) (offsetof(struct seccomp_data, args) + 8 * (i))
#else
#define ARG_LO(i) (offsetof(struct seccomp_data, args) + 8 * (i) + 4)
#endif
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

/* Landlock's network rules cover TCP only. This lets the command create
 * AF_UNIX sockets and, with "unix+tcp", TCP sockets over IPv4 and IPv6 (which
 * Landlock then holds to the policy's ports), and refuses every other socket
 * with EACCES, the errno Landlock gives, so that the command and lcsb's
 * explanations both see "Permission denied". io_uring is refused whole
 * (EPERM): IORING_OP_SOCKET creates sockets without socket(). A jump's
 * numbers count the instructions it skips when the test holds, and when not. */
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
#else
static int install_socket_filter(enum sockets sockets) {
    (void)sockets; /* check_header has refused such a header already */
    return fail("restrict sockets on this architecture");
}

static int install_tty_filter(void) {
    return fail("guard the terminal on this architecture: the filter knows x86_64 and "
                "aarch64 only");
}

static int install_setid_filter(void) {
    return fail("refuse set-id bits on this architecture: the filter knows x86_64 and "
                "aarch64 only");
}
#endif

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

static void usage(void) {
    fputs("lcsb-exec: usage: lcsb-exec HEADER [PART...] -- COMMAND [ARG...]\n"
          "lcsb-exec: the policy format is docs/wire-format.md, version 2\n",
          stderr);
}

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

int main(int argc, char **argv) {
    struct header h;
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
    if (read_policy(argv, argc, dashdash, &h, -1) != 0)
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
    if (read_policy(argv, argc, dashdash, &h, ruleset_fd) != 0)
        goto close_ruleset;
    /* Protected paths go on top of the writable tree, so last; then the
     * working directory is entered again, by name, to stand on the new
     * mounts rather than on the read-only one it was opened on. This pass
     * only mounts: the port rules are in the ruleset already. */
    if (h.protected_paths > 0) {
        struct cursor c;
        cursor_init(&c, argv[1], 0);
        if (parse_header(&c, &h, -1, true) != 0)
            goto close_ruleset;
    }
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
