/* The shim's wire reader (wire.h): a parser for exactly the JSON the C core
 * writes (docs/wire-format.md), that trusts none of it. Everything it finds
 * for the kernel goes to the caller's sink; it opens, adds and mounts nothing
 * itself. libc and kernel headers only. */
#define _GNU_SOURCE
#include "wire.h"

#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "kernel_uapi.h"
#include "say.h"

/* The newest Landlock ABI this shim knows. A header asking for anything
 * newer is refused, never guessed at. */
#define ABI_NEWEST 9

#define FS_ALL (LANDLOCK_ACCESS_FS_EXECUTE | LANDLOCK_ACCESS_FS_WRITE_FILE | \
    LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_READ_DIR | \
    LANDLOCK_ACCESS_FS_REMOVE_DIR | LANDLOCK_ACCESS_FS_REMOVE_FILE | \
    LANDLOCK_ACCESS_FS_MAKE_CHAR | LANDLOCK_ACCESS_FS_MAKE_DIR | \
    LANDLOCK_ACCESS_FS_MAKE_REG | LANDLOCK_ACCESS_FS_MAKE_SOCK | \
    LANDLOCK_ACCESS_FS_MAKE_FIFO | LANDLOCK_ACCESS_FS_MAKE_BLOCK | \
    LANDLOCK_ACCESS_FS_MAKE_SYM | LANDLOCK_ACCESS_FS_REFER | \
    LANDLOCK_ACCESS_FS_TRUNCATE | LANDLOCK_ACCESS_FS_IOCTL_DEV | \
    LANDLOCK_ACCESS_FS_RESOLVE_UNIX)

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
    {"resolve_unix", LANDLOCK_ACCESS_FS_RESOLVE_UNIX},
};

static const struct right net_rights[] = {
    {"bind_tcp", LANDLOCK_ACCESS_NET_BIND_TCP},
    {"connect_tcp", LANDLOCK_ACCESS_NET_CONNECT_TCP},
};

static const struct right scope_rights[] = {
    {"abstract_unix_socket", LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET},
    {"signal", LANDLOCK_SCOPE_SIGNAL},
};

/* "dropped" part names; wire.h says which one the shim acts on. */
static const struct right dropped_parts[] = {
    {"net", 1U << 0},   {"scope", 1U << 1},          {"truncate", 1U << 2},
    {"ioctl", 1U << 3}, {"terminal", DROPPED_TERMINAL}, {"metadata", 1U << 5},
    {"world", DROPPED_WORLD},     {"limits", 1U << 7},          {"memory", DROPPED_MEMORY},
};

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

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
    case 6: /* ABI 7 added audit logging flags, ABI 8 a thread-sync flag: no rights. */
    case 7:
    case 8:
        r.fs &= ~LANDLOCK_ACCESS_FS_RESOLVE_UNIX;
        FALLTHROUGH;
    case ABI_NEWEST:
        break;
    }
    return r;
}

/* "sockets" values, by enum sockets, and "world" values, by enum world (wire.h). */
static const char *const sockets_names[] = {"any", "unix", "unix+tcp"};
static const char *const world_names[] = {"open", "policy"};

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

/* `ports`: [{"access": [net names], "ports": [0-65535, ...]}, ...]. Each port
 * goes to the sink as it is read; the rights granted are collected, for the
 * header to check against `net` once it has read all of itself. */
static int parse_port_rules(struct cursor *c, struct header *h, const struct policy_sink *sink) {
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
            if (sink->on_port != NULL && sink->on_port(sink->ctx, port, access) != 0)
                return -1;
            if (list_next(c, ']', &more_ports) != 0)
                return -1;
        }
        if (fixed_end(c, "ports") != 0 || list_next(c, ']', &more) != 0)
            return -1;
    }
    return 0;
}

/* A string among NAMES (N of them: "sockets" by enum sockets, "world" by
 * enum world) into *OUT as its index; EXPECTED lists them for a refusal. */
static int parse_choice(struct cursor *c, const char *what, const char *const *names, size_t n,
                        const char *expected, unsigned *out) {
    char name[16];

    if (parse_string(c, name, sizeof name, what) != 0)
        return -1;
    for (*out = 0; *out < n; ++*out)
        if (strcmp(names[*out], name) == 0)
            return 0;
    return bad(c, "unknown %s value \"%s\" (expected %s)", what, show(name), expected);
}

/* "limits": {"time": S, "memory": B, "pids": N, "files": N, "tmp": B,
 * "tmpdir": PATH, "cgroup": "v1" or "v2"}, each optional, none zero. */
static const char *const limit_keys[] = {"time", "memory", "pids", "files", "tmp"};

/* "cgroup": which hierarchy holds the command's memory cgroup. No value
 * says "none": a memory limit without a cgroup leaves "cgroup" out. */
static int parse_cgroup(struct cursor *c, enum cgroup_kind *kind) {
    char name[8];

    if (*kind != CGROUP_NONE)
        return bad(c, "limit \"cgroup\" given twice");
    if (parse_string(c, name, sizeof name, "cgroup") != 0)
        return -1;
    if (strcmp(name, "v1") == 0)
        *kind = CGROUP_V1;
    else if (strcmp(name, "v2") == 0)
        *kind = CGROUP_V2;
    else
        return bad(c, "unknown cgroup value \"%s\" (expected \"v1\" or \"v2\")", show(name));
    return 0;
}

static int parse_limits(struct cursor *c, struct limits *l) {
    static const uint64_t highest[] = {UINT32_MAX, UINT64_MAX / 2, PIDS_MAX, FILES_MAX,
                                       UINT64_MAX / 2};
    uint64_t *values[] = {&l->time, &l->memory, &l->pids, &l->files, &l->tmp};
    char key[16];
    bool more;

    if (list_open(c, '{', '}', &more) != 0)
        return -1;
    while (more) {
        size_t k;
        if (parse_key(c, key, sizeof key) != 0)
            return -1;
        for (k = 0; k < COUNT(limit_keys) && strcmp(limit_keys[k], key) != 0; k++)
            continue;
        if (k < COUNT(limit_keys)) {
            if (*values[k] != 0)
                return bad(c, "limit \"%s\" given twice", key);
            if (parse_uint(c, key, highest[k], values[k]) != 0)
                return -1;
            if (*values[k] == 0)
                return bad(c, "limit \"%s\" is 0", key);
        } else if (strcmp(key, "tmpdir") == 0) {
            if (l->tmpdir[0] != '\0')
                return bad(c, "limit \"tmpdir\" given twice");
            if (parse_string(c, l->tmpdir, sizeof l->tmpdir, "a path") != 0)
                return -1;
            if (l->tmpdir[0] != '/')
                return bad(c, "tmpdir \"%s\" is not absolute", show(l->tmpdir));
        } else if (strcmp(key, "cgroup") == 0) {
            if (parse_cgroup(c, &l->cgroup) != 0)
                return -1;
        } else {
            return bad(c, "unknown limit \"%s\"", show(key));
        }
        if (list_next(c, '}', &more) != 0)
            return -1;
    }
    if ((l->tmp != 0) != (l->tmpdir[0] != '\0'))
        return bad(c, "limits \"tmp\" and \"tmpdir\" come together");
    if (l->cgroup != CGROUP_NONE && l->memory == 0)
        return bad(c, "limit \"cgroup\" without \"memory\"");
    return 0;
}

/* "protect" (paths mounted read-only on top of the write tier) or "hide"
 * (paths inside the world that must not be seen): each goes to ON, and they
 * are counted. */
static int parse_paths(struct cursor *c, const char *what, const struct policy_sink *sink,
                       int (*on)(void *ctx, const char *path), unsigned *count) {
    char path[PATH_MAX];
    bool more;

    *count = 0;
    if (list_open(c, '[', ']', &more) != 0)
        return -1;
    while (more) {
        if (parse_string(c, path, sizeof path, "a path") != 0)
            return -1;
        if (path[0] != '/')
            return bad(c, "%s path \"%s\" is not absolute", what, show(path));
        if (on != NULL && on(sink->ctx, path) != 0)
            return -1;
        ++*count;
        if (list_next(c, ']', &more) != 0)
            return -1;
    }
    return 0;
}

/* S, relative, names something below where it starts: no empty, "." or
 * ".." component, no trailing "/". */
static bool stays_below(const char *s) {
    for (const char *p = s, *end;; p = end + 1) {
        size_t n = (size_t)((end = strchrnul(p, '/')) - p);
        if (n == 0 || (n <= 2 && strncmp(p, "..", n) == 0))
            return false;
        if (*end == '\0')
            return true;
    }
}

/* "private": [{"path": PATH, "links": [[REL, TARGET], ...]}, ...]: each
 * directory goes to on_private, then each of its links to on_link. */
static int parse_private(struct cursor *c, const struct policy_sink *sink, unsigned *count) {
    char path[PATH_MAX], rel[PATH_MAX], target[PATH_MAX];
    bool more, more_links;

    if (list_open(c, '[', ']', &more) != 0)
        return -1;
    for (*count = 0; more; ++*count) {
        if (fixed_key(c, true, "path") != 0 || parse_string(c, path, sizeof path, "a path") != 0)
            return -1;
        if (path[0] != '/' || !stays_below(path + 1))
            return bad(c, "private path \"%s\" is not absolute and normal", show(path));
        if (sink->on_private != NULL && sink->on_private(sink->ctx, path) != 0)
            return -1;
        if (fixed_key(c, false, "links") != 0 || list_open(c, '[', ']', &more_links) != 0)
            return -1;
        while (more_links) {
            if (expect(c, '[') != 0 || parse_string(c, rel, sizeof rel, "a link") != 0 ||
                expect(c, ',') != 0 || parse_string(c, target, sizeof target, "a path") != 0 ||
                expect(c, ']') != 0)
                return -1;
            if (!stays_below(rel))
                return bad(c, "link \"%s\" does not stay inside %s", show(rel), show(path));
            if (target[0] != '/')
                return bad(c, "link target \"%s\" is not absolute", show(target));
            if (sink->on_link != NULL && sink->on_link(sink->ctx, path, rel, target) != 0)
                return -1;
            if (list_next(c, ']', &more_links) != 0)
                return -1;
        }
        if (fixed_end(c, "links") != 0 || list_next(c, ']', &more) != 0)
            return -1;
    }
    return 0;
}

/* Every key is required but "private", which a world may have. */
enum { K_ABI, K_PARTS, K_FS, K_NET, K_PORTS, K_SCOPE, K_SOCKETS, K_DROPPED, K_WORLD, K_PROTECT,
       K_HIDE, K_LIMITS, K_PROXY, K_PRIVATE, K_COUNT };
static const char *const header_keys[K_COUNT] = {
    "abi",     "parts", "fs",      "net",  "ports",  "scope", "sockets",
    "dropped", "world", "protect", "hide", "limits", "proxy", "private"};

/* What cannot be checked until the whole header is read: its keys may come in
 * any order after "lcsb-exec", and a right's age depends on "abi". */
static int check_header(unsigned seen, const struct header *h) {
    struct rights known = rights_of_abi(h->abi);
    uint64_t extra;

    for (unsigned k = 0; k < K_PRIVATE; k++)
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
    if (h->world != WORLD_POLICY &&
        (h->protected_paths > 0 || h->hidden_paths > 0 || h->private_dirs > 0 ||
         limits_set(&h->limits)))
        return fail("parse header: \"protect\", \"hide\", \"private\" and \"limits\" need "
                    "\"world\": \"policy\"");
    if (h->proxy != 0 && h->world != WORLD_POLICY)
        return fail("parse header: \"proxy\" needs \"world\": \"policy\" (a network of "
                    "its own)");
    if ((h->dropped & DROPPED_WORLD) != 0 && h->world == WORLD_POLICY)
        return fail("parse header: \"world\" is dropped, yet \"world\" is \"policy\"");
    /* A memory limit is held by a cgroup, or said to be held without one. */
    if (h->limits.memory != 0 && h->limits.cgroup == CGROUP_NONE &&
        (h->dropped & DROPPED_MEMORY) == 0)
        return fail("parse header: limit \"memory\" without a \"cgroup\" needs \"memory\" in "
                    "\"dropped\"");
    if ((h->dropped & DROPPED_MEMORY) != 0 && h->limits.cgroup != CGROUP_NONE)
        return fail("parse header: \"memory\" is dropped, yet \"limits\" names a cgroup");
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

/* The version comes first so that a newer format is named as such rather
 * than reported as an unknown key. */
static int parse_version(struct cursor *c) {
    uint64_t v;

    if (fixed_key(c, true, "lcsb-exec") != 0 || parse_uint(c, "lcsb-exec", UINT32_MAX, &v) != 0)
        return -1;
    if (v != WIRE_VERSION)
        return bad(c, "wire format version %" PRIu64 " is not %d, the one this shim speaks", v,
                   WIRE_VERSION);
    return 0;
}

/* The value of header key K (header_keys) into H; the ports and the
 * protected and hidden paths go to SINK as they are read. */
static int parse_header_value(struct cursor *c, unsigned k, struct header *h,
                              const struct policy_sink *sink) {
    uint64_t v = 0;
    unsigned choice = 0;
    int rc = -1;

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
        rc = parse_port_rules(c, h, sink);
        break;
    case K_SCOPE:
        rc = parse_rights(c, scope_rights, COUNT(scope_rights), "scope", &h->handled.scope);
        break;
    case K_SOCKETS:
        rc = parse_choice(c, "sockets", sockets_names, COUNT(sockets_names),
                          "\"any\", \"unix\" or \"unix+tcp\"", &choice);
        h->sockets = (enum sockets)choice;
        break;
    case K_DROPPED:
        rc = parse_rights(c, dropped_parts, COUNT(dropped_parts), "dropped part",
                          &h->dropped);
        break;
    case K_WORLD:
        rc = parse_choice(c, "world", world_names, COUNT(world_names),
                          "\"policy\" or \"open\"", &choice);
        h->world = (enum world)choice;
        break;
    case K_PROTECT:
        rc = parse_paths(c, "protected", sink, sink->on_protect, &h->protected_paths);
        break;
    case K_HIDE:
        rc = parse_paths(c, "hidden", sink, sink->on_hide, &h->hidden_paths);
        break;
    case K_LIMITS:
        rc = parse_limits(c, &h->limits);
        break;
    case K_PROXY:
        rc = parse_uint(c, "proxy", UINT16_MAX, &v);
        h->proxy = (uint16_t)v;
        break;
    case K_PRIVATE:
        rc = parse_private(c, sink, &h->private_dirs);
        break;
    }
    return rc;
}

static int parse_header(struct cursor *c, struct header *h, const struct policy_sink *sink) {
    char key[32];
    unsigned seen = 0;
    bool more;

    memset(h, 0, sizeof *h);
    if (parse_version(c) != 0)
        return -1;
    for (;;) {
        unsigned k;
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
        if (parse_header_value(c, k, h, sink) != 0)
            return -1;
    }
    if (expect_end(c) != 0)
        return -1;
    return check_header(seen, h);
}

/* A rule: {"access": [fs names], "paths": [absolute paths]}. */
static int parse_rule(struct cursor *c, const struct header *h, const struct policy_sink *sink) {
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
        if (sink->on_path != NULL && sink->on_path(sink->ctx, path, access) != 0)
            return -1;
        if (list_next(c, ']', &more) != 0)
            return -1;
    }
    return fixed_end(c, "paths");
}

/* A part: {"part": INDEX, "rules": [rule, ...]}, keys in that order. */
static int parse_part(struct cursor *c, uint64_t index, const struct header *h,
                      const struct policy_sink *sink) {
    uint64_t v;
    bool more;

    if (fixed_key(c, true, "part") != 0 || parse_uint(c, "part", INT_MAX, &v) != 0)
        return -1;
    if (v != index)
        return bad(c, "this is part %" PRIu64 " but says it is part %" PRIu64, index, v);
    if (fixed_key(c, false, "rules") != 0 || list_open(c, '[', ']', &more) != 0)
        return -1;
    while (more) {
        if (parse_rule(c, h, sink) != 0 || list_next(c, ']', &more) != 0)
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

/* Takes nothing: the pass that only checks. */
static const struct policy_sink check_only;

int read_header(const char *arg, struct header *h, const struct policy_sink *sink) {
    struct cursor c;

    cursor_init(&c, arg, 0);
    return parse_header(&c, h, sink != NULL ? sink : &check_only);
}

int read_policy(char **argv, int argc, int dashdash, struct header *h,
                const struct policy_sink *sink) {
    struct cursor c;

    if (sink == NULL)
        sink = &check_only;
    if (read_header(argv[1], h, sink) != 0)
        return -1;
    if (dashdash == argc)
        return fail("find the command: no \"--\" after the policy");
    if (h->parts != (uint64_t)(dashdash - 2))
        return fail("parse header: it announces %" PRIu64 " parts and argv holds %d", h->parts,
                    dashdash - 2);
    for (int i = 1; i <= dashdash - 2; i++) {
        cursor_init(&c, argv[1 + i], i);
        if (parse_part(&c, (uint64_t)i, h, sink) != 0)
            return -1;
    }
    return 0;
}
