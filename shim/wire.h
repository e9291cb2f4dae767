/* The shim's wire reader: the policy as JSON on argv (docs/wire-format.md),
 * every byte of it checked. It never acts on what it reads: whatever the
 * kernel must be told (a port rule, a rule's path, a protected path) it
 * hands to a sink, and the caller decides what that does. So the pass that
 * only checks and the passes that enforce run the same code, from the same
 * argv strings, and nothing is stored or allocated in between.
 *
 * Every refusal is a `lcsb-exec: cannot parse ...` line (say.h) and -1. */
#ifndef LCSB_SHIM_WIRE_H
#define LCSB_SHIM_WIRE_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>

/* The wire format version this shim speaks. */
#define WIRE_VERSION 5

struct rights {
    uint64_t fs, net, scope;
};

/* What "sockets" allows the command to create: "any" (no filter), "unix"
 * (AF_UNIX only) or "unix+tcp" (that, plus TCP over IPv4 and IPv6). */
enum sockets { SOCKETS_ANY, SOCKETS_UNIX, SOCKETS_UNIX_TCP };

/* "dropped": the parts of the policy this host cannot enforce and the policy
 * let go; the attestation reports them. Only "terminal" changes what the shim
 * does: without seccomp there is no terminal filter to install. */
#define DROPPED_TERMINAL (1U << 4)
/* "world": no namespaces of its own; "world" must then be "open". */
#define DROPPED_WORLD (1U << 6)
/* "memory": no memory cgroup here; a "memory" limit then comes without
 * "cgroup", held per process (RLIMIT_AS) and by the IPC namespace's limits. */
#define DROPPED_MEMORY (1U << 8)

/* "world": "policy" builds the command's root from the policy, in user,
 * mount, pid and IPC namespaces of its own; "open" leaves the host's. */
enum world { WORLD_OPEN, WORLD_POLICY };

/* The largest "pids" and "files" the kernel could hold (PID_MAX_LIMIT, and
 * nr_open's ceiling). */
#define PIDS_MAX 4194304
#define FILES_MAX 1073741816

/* "limits" "cgroup": the memory cgroup the command runs in, made by the
 * shim below its own cgroup on that hierarchy (cgroup.h); none without it. */
enum cgroup_kind { CGROUP_NONE, CGROUP_V1, CGROUP_V2 };

/* "limits": 0 for a limit not set. The private tmp is TMPDIR's path. */
struct limits {
    uint64_t time, memory, pids, files, tmp;
    enum cgroup_kind cgroup;
    char tmpdir[PATH_MAX];
};

static inline bool limits_set(const struct limits *l) {
    return (l->time | l->memory | l->pids | l->files | l->tmp) != 0;
}

/* The header, once checked. Port rules are not kept: a pass that enforces
 * re-reads them from argv. */
struct header {
    unsigned abi;
    uint64_t parts;
    struct rights handled;
    uint64_t port_rights; /* every right a port rule grants, to check against net */
    enum sockets sockets;
    uint64_t dropped;
    enum world world;
    unsigned protected_paths;
    unsigned hidden_paths;
    /* "private": directories made fresh in the world, a tmpfs each. */
    unsigned private_dirs;
    struct limits limits;
    /* "proxy": the loopback port on which lcsb's proxy is reached, in a
     * network of the command's own; 0: the host's network. */
    uint16_t proxy;
};

/* Where the reader hands what the kernel must enforce, as it reads it: after
 * the item's own checks, before the next byte. A NULL sink, or a NULL member,
 * takes nothing: that pass only checks. A member returns 0, or -1 once it
 * has said why; the reader then stops and returns -1. */
struct policy_sink {
    void *ctx;
    /* A TCP port of a "ports" rule, with the rule's net rights. */
    int (*on_port)(void *ctx, uint64_t port, uint64_t access);
    /* An absolute path of a part's rule, with the rule's fs rights. */
    int (*on_path)(void *ctx, const char *path, uint64_t access);
    /* An absolute path of the header's "protect". */
    int (*on_protect)(void *ctx, const char *path);
    /* An absolute path of the header's "hide". */
    int (*on_hide)(void *ctx, const char *path);
    /* A private directory of the header's "private" (absolute, normal). */
    int (*on_private)(void *ctx, const char *path);
    /* One of its links: REL (below DIR, no "." or ".." in it) to TARGET. */
    int (*on_link)(void *ctx, const char *dir, const char *rel, const char *target);
};

/* Reads the header, ARG, into H. */
int read_header(const char *arg, struct header *h, const struct policy_sink *sink);

/* Reads the whole policy, argv[1] up to the first "--" at argv[DASHDASH]
 * (ARGC when there is none): the header into H, then every part. The sink
 * sees the header's items too, so a caller that acts on "protect" only after
 * the parts leaves on_protect out here and reads the header once more. */
int read_policy(char **argv, int argc, int dashdash, struct header *h,
                const struct policy_sink *sink);

#endif
