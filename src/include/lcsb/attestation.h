/* Part of <lcsb.h>: the attestation, what a final argv enforces, read back
 * from the argv itself (never from what was asked), each mechanism reading
 * its own; and after a run, what the sandbox and the proxy refused. Apart
 * because it is the answer every other part gives to "what held?": the
 * JSON, the Lua table, the trailer and the hints are all read from it.
 *
 * An attestation is plain data the caller allocates (it is large: keep it
 * off small stacks): no pointers, copied by assignment, its text fields raw
 * bytes where they say so. */
#ifndef LCSB_PUBLIC_ATTESTATION_H
#define LCSB_PUBLIC_ATTESTATION_H
#ifndef LCSB_H
#error "include <lcsb.h>: lcsb/attestation.h is one part of it"
#endif

/* Each field's values, named in JSON and Lua as the comment says. */
typedef enum lcsb_mechanism {
    LCSB_MECHANISM_NONE,     /* "none" */
    LCSB_MECHANISM_LANDLOCK, /* "landlock" */
    LCSB_MECHANISM_SEATBELT, /* "seatbelt" */
    LCSB_MECHANISM_OCI,      /* "oci" */
} lcsb_mechanism;
typedef enum lcsb_fs_held { LCSB_FS_OPEN, LCSB_FS_ENFORCED } lcsb_fs_held; /* "open", "enforced" */
typedef enum lcsb_exec_held {
    LCSB_EXEC_OPEN,      /* "open" */
    LCSB_EXEC_ALLOWLIST, /* "allowlist" */
} lcsb_exec_held;
typedef enum lcsb_net_covers {
    LCSB_NET_COVERS_NOTHING, /* not said */
    LCSB_NET_COVERS_TCP,     /* "tcp" */
    LCSB_NET_COVERS_ALL,     /* "all" */
} lcsb_net_covers;
typedef enum lcsb_net_by {
    LCSB_NET_BY_NOTHING,          /* not said */
    LCSB_NET_BY_LANDLOCK,         /* "landlock": TCP rules alone */
    LCSB_NET_BY_SECCOMP,          /* "seccomp": the socket filter alone */
    LCSB_NET_BY_LANDLOCK_SECCOMP, /* "landlock+seccomp": both */
    LCSB_NET_BY_SEATBELT,         /* "seatbelt" */
    LCSB_NET_BY_NAMESPACE,        /* "namespace": a network namespace of its own */
} lcsb_net_by;
/* What holds limits.memory. */
typedef enum lcsb_memory_by {
    LCSB_MEMORY_BY_NOTHING, /* no memory limit is in force */
    LCSB_MEMORY_BY_RLIMIT,  /* "rlimit": per process (RLIMIT_AS), SysV IPC by the IPC
                             * namespace's limits; no cgroup (the memory part dropped) */
    LCSB_MEMORY_BY_CGROUP1, /* "cgroup1": a cgroup v1 memory cgroup, and the above */
    LCSB_MEMORY_BY_CGROUP2, /* "cgroup2": a cgroup v2 memory cgroup, and the above */
} lcsb_memory_by;
typedef enum lcsb_held {
    LCSB_HELD_OPEN,     /* "open": not enforced here */
    LCSB_HELD_READONLY, /* "readonly" */
    LCSB_HELD_NONE,     /* "none": nothing to hold (no protected paths) */
    LCSB_HELD_OWN,      /* "own": a world of its own */
} lcsb_held;

/* A connection lcsb's proxy refused (LCSB_NET_DOMAINS), or allowed and could
 * not make (WHY starts "cannot resolve" or "cannot connect"), one per host
 * and port however often it was tried; where the proxy read the requests,
 * one per reason a rule refused them for ("rule: POST /x: its method is
 * not among the rule's", one per method there), and one for a withheld
 * value. */
typedef struct lcsb_net_refusal {
    char host[256]; /* as the command named it, lowercase; raw bytes: escape to print */
    unsigned port;
    unsigned attempts;
    char why[160]; /* "not in net.domains", "denied by !evil.example.com", ... */
} lcsb_net_refusal;
#define LCSB_NET_REFUSALS_MAX 16

/* Something the sandbox refused a process of the command, as that process
 * saw it: lcsb's recorder, a library preloaded into each dynamically linked
 * program of the command's tree, notes every call the kernel refuses, and
 * lcsb keeps those its policy accounts for (not a file's own permissions).
 * The command can write to the recorder too: this is evidence to word hints
 * with, never a reason to grant anything. One per operation and target,
 * however often it happened. */
typedef struct lcsb_refusal {
    char op[8]; /* "exec", "read", "write", "connect", "bind", "socket" */
    /* The policy key that covers it: "exec", "read", "write", "net", or
     * "protect" (a protected path: read-only whatever the policy grants),
     * "hide" (hidden by the policy), "sockets" (a unix socket outside it),
     * "owner" (inside the policy, another user's file a root command may
     * not touch: lcsb drops root's capabilities). */
    char key[8];
    /* An absolute path (resolved against the process's working directory),
     * "ADDR:PORT", or a socket's kind ("inet/dgram"); raw bytes: escape to print. */
    char target[1024];
    char program[64]; /* the process refused, as it named itself; raw bytes */
    int error;        /* the errno it got */
    unsigned count;   /* how often */
    bool home;        /* the target lies in the command's private HOME */
} lcsb_refusal;
#define LCSB_REFUSALS_MAX 32

/* What a final argv enforces, and after a run what was refused: the
 * caller's memory, filled by lcsb_attest, lcsb_prepare or lcsb_run. */
typedef struct lcsb_attestation {
    lcsb_mechanism backend;
    lcsb_fs_held fs;
    lcsb_exec_held exec;
    lcsb_net net; /* "denied", "ports", "open", "domains" */
    /* What is held: all (Landlock holds TCP to the policy, or the shim's
     * socket filter refuses TCP too, and the filter refuses every other
     * socket but unix ones), tcp (Landlock alone: net is then open, since
     * UDP, raw and other sockets get out), or nothing. */
    lcsb_net_covers net_covers;
    /* Which kernel mechanisms hold the network, when net_covers says any. */
    lcsb_net_by net_by;
    int abi;     /* Landlock ABI, 0 otherwise */
    bool scoped; /* signals and abstract unix sockets scoped to the sandbox */
    /* The parts (lcsb_part bits) this run does not enforce because the host
     * cannot and the policy allowed it; 0 when none. */
    unsigned dropped;
    /* Outside the write tier: readonly (chmod, chown, utimes refused too),
     * or open (Landlock alone, which has no right for metadata). */
    lcsb_held metadata;
    /* Protected paths: readonly, open (not enforced here), or none. */
    lcsb_held protected_paths; /* "protected" in JSON and Lua */
    /* own (pid, IPC and user namespaces, a root of the policy's paths only,
     * nothing outliving the run) or open (the host's processes, IPC, sockets). */
    lcsb_held world;
    /* The limits in force, "time=5 pids=300", "" for none. */
    char limits[160];
    /* What holds the memory limit, when one is in force. */
    lcsb_memory_by memory_by;
    /* Under net "domains": the policy's net.domains entries the proxy holds
     * to, one per line (as many as fit; a last line "..." when cut). */
    char domains[2048];
    /* After a run under net "domains" (lcsb_run): what the proxy refused,
     * the first LCSB_NET_REFUSALS_MAX distinct refusals (lcsb_net_refusal:
     * a host:port, and a rule's reason), and how many there were in all
     * (which may be more). */
    lcsb_net_refusal net_refused[LCSB_NET_REFUSALS_MAX];
    size_t net_refused_count;
    /* After a run (lcsb_run) under a mechanism with the recorder (Landlock):
     * whether it ran, and what the sandbox refused, the first
     * LCSB_REFUSALS_MAX distinct refusals in the order they came and how
     * many there were in all. A static program, or one that drops
     * LD_PRELOAD, reports nothing itself; in a world of its own, where
     * execs_seen says the shim's init saw every exec (seccomp user
     * notification), an exec outside the exec tier in a run that failed is
     * one of the refusals whatever the program. */
    bool recorded;
    lcsb_refusal refused[LCSB_REFUSALS_MAX];
    size_t refused_count;
    bool execs_seen;
    /* Under net "domains": the policy's secrets, "NAME host,host" one per
     * line (as many as fit; a last line "..." when cut): the names and
     * where each goes, never a value. */
    char secrets[1024];
} lcsb_attestation;

/* Reads what FINAL_ARGV enforces into the caller's OUT (every field set);
 * FINAL_ARGV and PREFIX are only read. PREFIX is the launcher composed in
 * front of a host mechanism (NULL: none):
 * FINAL_ARGV must start with it, and only what follows it is read, so a
 * command's own arguments can never pass for a mechanism. */
LCSB_API LCSB_NODISCARD int lcsb_attest(const char *const *final_argv, const char *const *prefix,
                                        lcsb_attestation *out, lcsb_error *err);
/* Returns ATT as a JSON object, which the caller frees with free(). NULL on
 * ENOMEM. Fields that do not
 * apply are left out: net_covers and net_by when nothing is covered, and
 * everything past net under the none backend. */
LCSB_API char *lcsb_attestation_json(const lcsb_attestation *att);
/* Names the value of ATT's field KEY as JSON does ("fs" gives "enforced"), a
 * static string, for the fields
 * named by a word: backend, fs, exec, net, net_covers, net_by, metadata,
 * protected, world, memory_by. "" for a value not said; NULL for any other KEY. */
LCSB_API const char *lcsb_attestation_value(const lcsb_attestation *att, const char *key);
/* Writes "fs: enforced, exec: allowlist, net: denied, abi 7" (plus what was
 * not enforced) into the caller's BUF (SIZE bytes, cut to fit, as snprintf). */
LCSB_API void lcsb_attestation_summary(const lcsb_attestation *att, char *buf, size_t size);

#endif
