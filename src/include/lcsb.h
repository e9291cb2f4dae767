/*
 * lcsb — run a command inside a kernel-enforced sandbox.
 *
 * Lifecycle: lcsb_policy_new() → describe it with the lcsb_policy_* setters
 * (they only record; nothing touches the kernel) → lcsb_detect() what the host
 * can do → lcsb_backend_select() one mechanism from that → lcsb_backend_validate()
 * the policy against it → lcsb_compose() the final argv (pure) or lcsb_run() it
 * (spawn, relay signals, wait, trailer) → free everything with its _free().
 * A host that writes policies in Lua uses lcsb_script_open() instead of the
 * setters: it runs the script and owns the policy and the run's private HOME.
 *
 * Errors: functions that can fail return 0 or a negative LCSB_E* code and,
 * when given a non-NULL `lcsb_error *`, fill it with a message naming the
 * offending thing. The library never exits, aborts or writes to stdout.
 * Strings passed in are copied unless a declaration says otherwise.
 */
#ifndef LCSB_H
#define LCSB_H

#include <stdbool.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(LCSB_BUILDING) && defined(__GNUC__)
#define LCSB_API __attribute__((visibility("default")))
#else
#define LCSB_API
#endif

#if defined(__GNUC__)
#define LCSB_NODISCARD __attribute__((warn_unused_result))
#else
#define LCSB_NODISCARD
#endif

#define LCSB_VERSION "0.1.0"

/* The closed set of error codes, X(NAME, VALUE, TEXT): each is LCSB_NAME,
 * lcsb_strerror gives its TEXT and lcsb_error_name "LCSB_NAME". */
#define LCSB_ERRORS(X)                                                                             \
    X(OK, 0, "success")                                                                            \
    X(EINVAL, -1, "invalid argument or policy")                                                    \
    X(ENOMEM, -2, "out of memory")                                                                 \
    X(EUNAVAIL, -3, "mechanism not available on this host")                                        \
    X(ESYS, -4, "system call failed")                                                              \
    X(ETOOBIG, -5, "policy too large for the kernel's limits")                                     \
    X(ESCRIPT, -6, "policy script failed")                                                         \
    X(EINTR, -7, "policy script interrupted by a signal")                                          \
    X(ETIMEDOUT, -8, "policy script ran past its time budget")                                     \
    X(EUNTRUSTED, -9, "policy script not trusted as it is now")

#define LCSB_ERROR_ENUM_(name, value, text) LCSB_##name = value,
enum { LCSB_ERRORS(LCSB_ERROR_ENUM_) };
#undef LCSB_ERROR_ENUM_

/* Exit statuses of the CLI and the shim (docs/policy.md, lcsb(1)). */
enum {
    LCSB_EXIT_SETUP = 97,     /* the sandbox could not be set up; nothing ran */
    LCSB_EXIT_USAGE = 125,    /* lcsb failed before running anything */
    LCSB_EXIT_NOEXEC = 126,   /* found but not executable */
    LCSB_EXIT_NOTFOUND = 127, /* not found */
};

/* Caller-allocated; filled on failure. */
typedef struct lcsb_error {
    int code;
    char message[1024];
} lcsb_error;

/* The TEXT of CODE, or "unknown error". */
LCSB_API const char *lcsb_strerror(int code);
/* "LCSB_EINVAL" for LCSB_EINVAL, ...; NULL for a code outside the set. */
LCSB_API const char *lcsb_error_name(int code);

/* ---- Text for a terminal. ---- */

/* LEN bytes of TEXT as they may be shown on a terminal: each control
 * character (C0 but tab, DEL, the C1 controls) and each byte that is not
 * valid UTF-8 as \xHH, CR and LF as \r and \n, the characters that show
 * as nothing (bidi controls, zero-width and format characters, fillers,
 * variation selectors, tags) as \u{HHHH}, the rest as it is (a backslash
 * too: escaping twice changes nothing). Written to OUT (SIZE bytes,
 * NUL-terminated when SIZE > 0, cut between whole characters only); returns
 * the length of the whole result, as snprintf does. Every line lcsb writes
 * goes through it; a host that prints text of lcsb's own (a hint, a
 * trailer) gets it escaped already. */
LCSB_API size_t lcsb_escape(char *out, size_t size, const char *text, size_t len);

/* ---- Policy: what to enforce, in mechanism-free terms. ---- */

typedef struct lcsb_policy lcsb_policy;

/* DOMAINS: a network of the command's own with only loopback, where lcsb's
 * proxy is the way out, to the names the policy lists (docs/policy.md). */
typedef enum lcsb_net {
    LCSB_NET_DENY = 0,
    LCSB_NET_PORTS = 1,
    LCSB_NET_OPEN = 2,
    LCSB_NET_DOMAINS = 3,
} lcsb_net;
typedef enum lcsb_port_kind { LCSB_PORT_CONNECT = 0, LCSB_PORT_BIND = 1 } lcsb_port_kind;

/* A new policy denies everything: no paths, no exec, no network. NULL on ENOMEM. */
LCSB_API lcsb_policy *lcsb_policy_new(void);
/* NULL-safe. */
LCSB_API void lcsb_policy_free(lcsb_policy *policy);
/* A deep copy; NULL on ENOMEM. */
LCSB_API lcsb_policy *lcsb_policy_copy(const lcsb_policy *policy);

/* A policy holds at most this many bytes of paths and environment: far more
 * than execve could carry, far less than would exhaust memory. Past it, the
 * adders below fail with LCSB_ETOOBIG. */
#define LCSB_POLICY_BYTES_MAX ((size_t)64 << 20)

/* Paths must be absolute; they are normalized lexically ("//", "/./", a trailing
 * "/") and refused when empty, relative, longer than PATH_MAX or holding "..".
 * Each copies PATH. Adding a path twice is harmless. */
LCSB_API LCSB_NODISCARD int lcsb_policy_add_read(lcsb_policy *policy, const char *path,
                                                 lcsb_error *err);
LCSB_API LCSB_NODISCARD int lcsb_policy_add_write(lcsb_policy *policy, const char *path,
                                                  lcsb_error *err);
/* A regular file, or a directory whose files become executable (refused by
 * validation when it is or contains a system prefix, or is reached through a
 * symlink). */
LCSB_API LCSB_NODISCARD int lcsb_policy_add_exec(lcsb_policy *policy, const char *path,
                                                 lcsb_error *err);
/* A path inside the write tier that stays read-only (a repository's
 * .git/hooks): it must exist and is not reached through a symlink. */
LCSB_API LCSB_NODISCARD int lcsb_policy_add_protect(lcsb_policy *policy, const char *path,
                                                    lcsb_error *err);
/* Turn the exec allowlist off: anything readable may run. */
/* A path inside a readable tree that must not exist for the command (a
 * secret under /etc): covered with something empty in the command's world.
 * Needs the "world" part; a path that does not exist is hidden already. */
LCSB_API LCSB_NODISCARD int lcsb_policy_add_hide(lcsb_policy *policy, const char *path,
                                                 lcsb_error *err);
LCSB_API void lcsb_policy_set_exec_open(lcsb_policy *policy, bool open);

/* After TERM, INT, HUP or QUIT reaches lcsb, how long the command has to
 * stop before the Landlock backend's init kills every process of it. */
#define LCSB_GRACE_SECONDS 10

/* What the command may use up; each needs the "world" part. */
typedef enum lcsb_limit {
    LCSB_LIMIT_TIME,   /* "time": seconds of wall time, then every process is killed */
    LCSB_LIMIT_MEMORY, /* "memory": bytes of memory, all the command's processes and what
                        * they share together (a memory cgroup), and of address space per
                        * process (RLIMIT_AS) */
    LCSB_LIMIT_PIDS,   /* "pids": processes at once */
    LCSB_LIMIT_FILES,  /* "files": open descriptors per process (RLIMIT_NOFILE) */
    LCSB_LIMIT_TMP,    /* "tmp": bytes in TMPDIR, a private tmpfs of that size */
} lcsb_limit;
#define LCSB_LIMITS 5
/* "time", "memory", "pids", "files", "tmp"; NULL for anything else. */
LCSB_API const char *lcsb_limit_name(lcsb_limit limit);
/* VALUE 0 removes the limit. */
LCSB_API LCSB_NODISCARD int lcsb_policy_set_limit(lcsb_policy *policy, lcsb_limit limit,
                                                  unsigned long long value, lcsb_error *err);
LCSB_API unsigned long long lcsb_policy_limit(const lcsb_policy *policy, lcsb_limit limit);
/* The command's environment is allow-listed: of the caller's variables it
 * gets the base set (PATH, LANG, LANGUAGE, the LC_ categories, TERM, COLORTERM, NO_COLOR,
 * TZ, USER, LOGNAME, SHELL, COLUMNS, LINES) and those passed below, then the
 * overlay lcsb_policy_set_env records. Sensitive names (lcsb_env_sensitive)
 * pass only when a pass entry names them exactly. docs/policy.md lists it all. */

/* Set NAME to VALUE in the command's environment, or unset it when VALUE is
 * NULL. The last call for a name wins. Copies both. The values ride on the
 * command's argv (lcsb_env_argv): policy content, never the caller's. */
LCSB_API LCSB_NODISCARD int lcsb_policy_set_env(lcsb_policy *policy, const char *name,
                                                const char *value, lcsb_error *err);
/* The overlay, one entry per name in the order first set: how many, and
 * the Ith's name (NULL past the last) with, in *VALUE (may be NULL), its
 * value, or NULL where the policy unsets it. Strings owned by the policy. */
LCSB_API size_t lcsb_policy_env_count(const lcsb_policy *policy);
LCSB_API const char *lcsb_policy_env(const lcsb_policy *policy, size_t i, const char **value);
/* Pass the caller's variable NAME to the command, or every variable a
 * pattern matches ('*' stands for any run of characters: "NPM_CONFIG_*",
 * "*") but the sensitive ones. Refused when empty or holding '='. Copies NAME. */
LCSB_API LCSB_NODISCARD int lcsb_policy_pass_env(lcsb_policy *policy, const char *name,
                                                 lcsb_error *err);
/* Pass the caller's whole environment, sensitive names included, as lcsb did
 * before the allowlist (off by default). The overlay still applies. */
LCSB_API void lcsb_policy_set_env_inherit(lcsb_policy *policy, bool inherit);
LCSB_API bool lcsb_policy_env_inherit(const lcsb_policy *policy);
/* NAME looks like it holds a secret (*TOKEN*, *SECRET*, *PASSW*, a word
 * ending in KEY or PASS, AWS_*, SSH_*, ...) or grants access to something outside
 * (DISPLAY, DBUS_SESSION_BUS_ADDRESS, XDG_RUNTIME_DIR, ...), compared without
 * regard to case: then no pattern passes it. */
LCSB_API bool lcsb_env_sensitive(const char *name);
/* LCSB_NET_DENY (the default), LCSB_NET_OPEN, or LCSB_NET_PORTS with ports
 * added below (adding a port switches a denying policy to LCSB_NET_PORTS). */
LCSB_API void lcsb_policy_set_net(lcsb_policy *policy, lcsb_net net);
LCSB_API LCSB_NODISCARD int lcsb_policy_add_port(lcsb_policy *policy, lcsb_port_kind kind,
                                                 long port, lcsb_error *err);
/* A name the command may reach through lcsb's proxy: "registry.npmjs.org",
 * "*.example.com" (any name below example.com, not itself), an IPv4 or a
 * bracketed IPv6 literal, each with ":PORT" for a port other than 443 and
 * 80; "!" in front denies it (on every port, unless it names one),
 * before every allowing entry. Adding one
 * switches the policy to LCSB_NET_DOMAINS; its ports (LCSB_NET_PORTS) are
 * then the command's own loopback ports. */
LCSB_API LCSB_NODISCARD int lcsb_policy_add_domain(lcsb_policy *policy, const char *entry,
                                                   lcsb_error *err);
/* An address or range ("10.0.0.0/8", "127.0.0.1", "fd00::/8") that a listed
 * name may lead to although it is loopback, private or link-local, which the
 * proxy otherwise refuses (no rebinding a public name into the LAN). */
LCSB_API LCSB_NODISCARD int lcsb_policy_add_lan(lcsb_policy *policy, const char *range,
                                                lcsb_error *err);
/* The domain entries and LAN ranges, normalized, in the order added;
 * strings owned by the policy. */
LCSB_API size_t lcsb_policy_domain_count(const lcsb_policy *policy);
LCSB_API const char *lcsb_policy_domain(const lcsb_policy *policy, size_t i);
LCSB_API size_t lcsb_policy_lan_count(const lcsb_policy *policy);
LCSB_API const char *lcsb_policy_lan(const lcsb_policy *policy, size_t i);
/* The TCP ports of KIND, ascending and each once (however often added):
 * how many, and the Ith, 0 past the last. */
LCSB_API size_t lcsb_policy_port_count(const lcsb_policy *policy, lcsb_port_kind kind);
LCSB_API unsigned lcsb_policy_port(const lcsb_policy *policy, lcsb_port_kind kind, size_t i);
/* The command's working directory (absolute); NULL keeps the caller's. Copies. */
LCSB_API LCSB_NODISCARD int lcsb_policy_set_cwd(lcsb_policy *policy, const char *path,
                                                lcsb_error *err);

/* Parts of a policy that a host may be unable to enforce. A backend refuses a
 * policy it cannot enforce in full, naming the missing part, unless the policy
 * allows that part to degrade; then the run goes ahead without it and the
 * attestation lists it under "dropped". */
typedef enum lcsb_part {
    LCSB_PART_NET = 1u << 0,      /* a restricted network: TCP rules, the socket filter */
    LCSB_PART_SCOPE = 1u << 1,    /* signals, abstract unix sockets kept inside the sandbox */
    LCSB_PART_TRUNCATE = 1u << 2, /* truncating files outside the write tier refused */
    LCSB_PART_IOCTL = 1u << 3,    /* device ioctls outside the write tier refused */
    LCSB_PART_TERMINAL = 1u << 4, /* input injection into the terminal refused (TIOCSTI) */
    LCSB_PART_LIMITS = 1u << 7,   /* the policy's limits: all need the world; for root,
                                   * pids below 299 cannot be held */
    LCSB_PART_WORLD = 1u << 6,    /* a world of its own: pid, IPC and user namespaces, a
                                   * root holding only the policy's paths, limits */
    LCSB_PART_METADATA = 1u << 5, /* the file system read-only outside the write tier
                                     (chmod, chown, utimes), protected paths inside it */
    LCSB_PART_MEMORY = 1u << 8,   /* limits.memory for all the command's processes together
                                   * and what none of them maps (shared memory, memfds,
                                   * tmpfs): a memory cgroup of its own */
} lcsb_part;
#define LCSB_PARTS_ALL 0x1ffu

/* "net", "scope", "truncate", "ioctl", "terminal", "metadata", "world", "limits", "memory" for
 * one part; NULL for anything else. */
LCSB_API const char *lcsb_part_name(unsigned part);
/* The part named NAME, or 0. */
LCSB_API unsigned lcsb_part_from_name(const char *name);
/* PARTS (lcsb_part bits; 0, the default, allows none) may be dropped where the
 * host cannot enforce them. */
LCSB_API void lcsb_policy_set_degradable(lcsb_policy *policy, unsigned parts);
LCSB_API unsigned lcsb_policy_degradable(const lcsb_policy *policy);

/* The policy's path sets. */
typedef enum lcsb_tier {
    LCSB_TIER_READ,    /* "read" */
    LCSB_TIER_WRITE,   /* "write" */
    LCSB_TIER_EXEC,    /* "exec" */
    LCSB_TIER_PROTECT, /* "protect" */
    LCSB_TIER_HIDE,    /* "hide" */
} lcsb_tier;
#define LCSB_TIERS 5
/* "read", "write", "exec", "protect", "hide"; NULL for anything else. */
LCSB_API const char *lcsb_tier_name(lcsb_tier tier);

/* Read access. The returned strings belong to the policy and live until it
 * changes or is freed. */
LCSB_API size_t lcsb_policy_count(const lcsb_policy *policy, lcsb_tier tier);
LCSB_API const char *lcsb_policy_path(const lcsb_policy *policy, lcsb_tier tier, size_t i);
LCSB_API bool lcsb_policy_exec_open(const lcsb_policy *policy);
LCSB_API lcsb_net lcsb_policy_net(const lcsb_policy *policy);
LCSB_API const char *lcsb_policy_cwd(const lcsb_policy *policy);

/* Resolve program NAME (a path, or a name looked up on PATH) to the regular
 * files that running it executes: the program itself (symlinks resolved), then
 * its ELF interpreter and its `#!` interpreters, transitively (for
 * `#!/usr/bin/env python3`, env and python3 both). Reads the files; a name not
 * found or not a regular file is an error. *OUT is an lcsb argv. */
LCSB_API LCSB_NODISCARD int lcsb_resolve_program(const char *name, char ***out, lcsb_error *err);

/* ---- Capability: what this host can enforce. ---- */

typedef struct lcsb_capability {
    int landlock_abi;         /* 0: no Landlock */
    int landlock_abi_kernel;  /* the kernel's own, before LCSB_LANDLOCK_ABI_MAX lowered it */
    bool seccomp;             /* seccomp filters can be installed */
    bool user_namespaces;     /* unprivileged user namespaces can be created */
    bool mount_namespaces;    /* the shim can enter one: as root, or in a user namespace */
    bool sandbox_exec;        /* macOS sandbox-exec is present */
    char shim[4096];          /* the lcsb-exec the Landlock backend uses; "" when none found */
    bool shim_found;          /* shim names an executable file */
    char shim_searched[4096]; /* every place looked at, in order: "PATH (why); ..." */
    char oci_engine[4096];    /* podman or docker on PATH, or "" */
    /* The memory cgroup the shim can make below the one it runs in, for
     * limits.memory: 2 (cgroup v2, memory delegated to its children), 1
     * (cgroup v1's memory hierarchy, writable), 0: none. */
    int memory_cgroup;
} lcsb_capability;

/* Ask the host. SHIM is the lcsb-exec to use, or NULL for the installed one:
 * $LCSB_SHIM when set, else the one in the install the library sits in
 * (PREFIX/libexec/lcsb/lcsb-exec, found from the library's own file, so a
 * moved install finds its own), else the install path built in. A shim not
 * found is no failure here; selecting Landlock then fails naming every
 * place looked at (shim_searched). */
LCSB_API LCSB_NODISCARD int lcsb_detect(lcsb_capability *cap, const char *shim, lcsb_error *err);
/* lcsb_detect, asking only what running POLICY under BACKEND (a name as
 * lcsb_backend_select takes it; NULL: "auto") needs: the memory cgroup only
 * when POLICY sets limits.memory, the container engine only for "oci".
 * What is not asked is zero. For a host that detects before each run: the
 * cgroup's answer alone reads /proc/self/mountinfo twice. */
LCSB_API LCSB_NODISCARD int lcsb_detect_for(lcsb_capability *cap, const char *shim,
                                            const lcsb_policy *policy, const char *backend,
                                            lcsb_error *err);
/* CAP as a JSON object of its fields, named as above; caller frees with
 * free(). NULL on ENOMEM. */
LCSB_API char *lcsb_capability_json(const lcsb_capability *cap);

/* ---- Backend: one mechanism, configured once from a Capability. ---- */

typedef struct lcsb_backend lcsb_backend;

/* NAME: "auto", "landlock", "seatbelt", "oci" or "none". "auto" picks the
 * strongest mechanism present and never "none": with nothing present it fails
 * with LCSB_EUNAVAIL naming what it detected. *OUT: free with lcsb_backend_free. */
LCSB_API LCSB_NODISCARD int lcsb_backend_select(const lcsb_capability *cap, const char *name,
                                                lcsb_backend **out, lcsb_error *err);
/* A backend for the given Landlock ABI and shim, whatever this host has:
 * what tests and `lcsb wrap` use to produce argvs for other hosts. */
LCSB_API LCSB_NODISCARD int lcsb_backend_landlock(int abi, const char *shim, lcsb_backend **out,
                                                  lcsb_error *err);
/* A Seatbelt backend (macOS sandbox-exec), whatever this host has: the caller
 * vouches that /usr/bin/sandbox-exec exists where the argv will run. */
LCSB_API LCSB_NODISCARD int lcsb_backend_seatbelt(lcsb_backend **out, lcsb_error *err);
LCSB_API LCSB_NODISCARD int lcsb_backend_none(lcsb_backend **out, lcsb_error *err);
/* A container's world, for the OCI backend: what the container starts from
 * (exactly one of IMAGE and ROOTFS) and the engine that runs it. */
typedef struct lcsb_oci_world {
    /* podman or docker: an absolute path, a name looked up on PATH, or NULL
     * for the one lcsb_detect found. */
    const char *engine;
    /* An image name: the container's system is the image's own, so the
     * policy's read paths inside the system's trees (/usr, /etc, /lib, ...)
     * are not mounted from the host. */
    const char *image;
    /* An absolute directory used as the root (podman only). Every read path
     * is mounted into it, the system's read baseline included, so an empty
     * directory is a root. The engine creates mount points in it. */
    const char *rootfs;
    /* More `run` options (NULL-terminated, or NULL), each one word in the
     * --name=value form, from the few lcsb can vouch for (docs/policy.md):
     * --cpus, --memory, --pids-limit, --env, ...; nothing that mounts,
     * networks or privileges. */
    const char *const *engine_args;
} lcsb_oci_world;

/* The OCI backend for WORLD, run by the caller's uid and gid (read here).
 * The engine must be podman or docker; a missing one is only refused by
 * validation (LCSB_EUNAVAIL), so argvs can be composed on any host.
 * lcsb_backend_select(cap, "oci") refuses: a container needs a world. */
LCSB_API LCSB_NODISCARD int lcsb_backend_oci(const lcsb_capability *cap,
                                             const lcsb_oci_world *world, lcsb_backend **out,
                                             lcsb_error *err);
/* NULL-safe. */
LCSB_API void lcsb_backend_free(lcsb_backend *backend);
/* "landlock", "none", ...: a static string. */
LCSB_API const char *lcsb_backend_name(const lcsb_backend *backend);
/* True when a launcher prefix rides inside the mechanism (containers). */
LCSB_API bool lcsb_backend_contains_prefix(const lcsb_backend *backend);
/* Check POLICY against the backend and the host, before anything runs:
 * paths exist, exec rules are safe, the shim is executable, every part of the
 * policy is enforceable here or allowed to degrade (else LCSB_EUNAVAIL naming
 * it), the policy fits the kernel's argv limits. lcsb_prepare with a probe
 * command. */
LCSB_API LCSB_NODISCARD int lcsb_backend_validate(const lcsb_backend *backend,
                                                  const lcsb_policy *policy, lcsb_error *err);

/* ---- argv: NULL-terminated arrays allocated by lcsb; free with lcsb_argv_free. ---- */

LCSB_API void lcsb_argv_free(char **argv);
/* ARGV as a JSON array of strings; caller frees with free(). NULL on ENOMEM. */
LCSB_API char *lcsb_argv_json(const char *const *argv);

/* The seam: the env overlay as a prefix on ARGV (`/usr/bin/env -u K -- K=V ARGV`).
 * *OUT, here and below: an lcsb argv, freed with lcsb_argv_free. */
LCSB_API LCSB_NODISCARD int lcsb_env_argv(const lcsb_policy *policy, const char *const *argv,
                                          char ***out, lcsb_error *err);
/* The names of CALLER_ENV's variables ("NAME=VALUE" strings; NULL: this
 * process's environment) that reach the command under BACKEND, sorted, each
 * once: the base set and the policy's pass entries (or everything, with
 * inherit), less the names it unsets. In a container the caller's PATH
 * passes only when a pass entry names it exactly: the world has its own.
 * Pure but for reading the environment when CALLER_ENV is NULL. */
LCSB_API LCSB_NODISCARD int lcsb_env_passed(const lcsb_backend *backend, const lcsb_policy *policy,
                                            const char *const *caller_env, char ***names,
                                            lcsb_error *err);
/* The environment to execute lcsb_compose's argv with, as "NAME=VALUE"
 * strings (an lcsb argv) from CALLER_ENV (NULL: this process's): under a
 * host mechanism (and none) the variables lcsb_env_passed names, first
 * occurrence of each; under a container's, all of CALLER_ENV, which the
 * engine needs (the container gets only the names passed, by --env=NAME).
 * The overlay (set, unset) is not in it: it rides on the argv. lcsb_run
 * spawns with this; a host that spawns the argv itself must too. */
LCSB_API LCSB_NODISCARD int lcsb_env_block(const lcsb_backend *backend, const lcsb_policy *policy,
                                           const char *const *caller_env, char ***envp,
                                           lcsb_error *err);
/* The backend's pure rewrite of ARGV. Passes no variable into a container:
 * lcsb_compose does. */
LCSB_API LCSB_NODISCARD int lcsb_backend_wrap(const lcsb_backend *backend,
                                              const lcsb_policy *policy, const char *const *argv,
                                              char ***out, lcsb_error *err);
/* env_argv, then PREFIX (may be NULL) placed per contains_prefix, then wrap:
 * the argv that lcsb_run executes, with lcsb_env_block's environment. Pure,
 * but for a container's backend, whose argv names the variables passed
 * (--env=NAME, read from this process's environment: lcsb_env_passed). */
LCSB_API LCSB_NODISCARD int lcsb_compose(const lcsb_backend *backend, const lcsb_policy *policy,
                                         const char *const *prefix, const char *const *argv,
                                         char ***out, lcsb_error *err);

/* ---- Attestation: what the final argv enforces, read back from its flags. ---- */

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
 * and port however often it was tried. */
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
     * "hide" (hidden by the policy), "sockets" (a unix socket outside it). */
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
     * the first LCSB_NET_REFUSALS_MAX distinct host:port pairs, and how
     * many there were in all (which may be more). */
    lcsb_net_refusal net_refused[LCSB_NET_REFUSALS_MAX];
    size_t net_refused_count;
    /* After a run (lcsb_run) under a mechanism with the recorder (Landlock):
     * whether it ran, and what the sandbox refused, the first
     * LCSB_REFUSALS_MAX distinct refusals in the order they came and how
     * many there were in all. A static program, or one that drops
     * LD_PRELOAD, reports nothing. */
    bool recorded;
    lcsb_refusal refused[LCSB_REFUSALS_MAX];
    size_t refused_count;
} lcsb_attestation;

/* PREFIX is the launcher composed in front of a host mechanism (NULL: none):
 * FINAL_ARGV must start with it, and only what follows it is read, so a
 * command's own arguments can never pass for a mechanism. */
LCSB_API LCSB_NODISCARD int lcsb_attest(const char *const *final_argv, const char *const *prefix,
                                        lcsb_attestation *out, lcsb_error *err);
/* JSON object; caller frees with free(). NULL on ENOMEM. Fields that do not
 * apply are left out: net_covers and net_by when nothing is covered, and
 * everything past net under the none backend. */
LCSB_API char *lcsb_attestation_json(const lcsb_attestation *att);
/* The JSON name of field KEY's value ("fs" gives "enforced"), for the fields
 * named by a word: backend, fs, exec, net, net_covers, net_by, metadata,
 * protected, world, memory_by. "" for a value not said; NULL for any other KEY. */
LCSB_API const char *lcsb_attestation_value(const lcsb_attestation *att, const char *key);
/* "fs: enforced, exec: allowlist, net: denied, abi 7" (plus what was not enforced) into BUF. */
LCSB_API void lcsb_attestation_summary(const lcsb_attestation *att, char *buf, size_t size);

/* ---- Preparing and running. ---- */

/* Everything lcsb_run does before it spawns, in its order, and nothing after:
 * validate POLICY against the backend and the host, compose the final argv
 * for ARGV (NULL: a probe command) behind PREFIX (may be NULL), check that it
 * fits execve's limits (with this process's environment), and attest it. On
 * success *FINAL (when FINAL is non-NULL; an lcsb argv) and *ATT (when ATT is
 * non-NULL) hold the results. Runs nothing. */
LCSB_API LCSB_NODISCARD int lcsb_prepare(const lcsb_backend *backend, const lcsb_policy *policy,
                                         const char *const *prefix, const char *const *argv,
                                         char ***final, lcsb_attestation *att, lcsb_error *err);

typedef struct lcsb_run_options {
    size_t size;               /* sizeof(lcsb_run_options), so the struct can grow */
    const char *const *prefix; /* launcher argv in front of the command, or NULL */
    int trailer_fd;            /* where the trailer goes on a nonzero exit; -1: nowhere */
    /* The command inherits stdin, stdout and stderr and nothing else, unless
     * listed here: descriptors above 2 passed on as they are (close-on-exec
     * cleared), each open in the caller and below LCSB_KEEP_FD_MAX. */
    const int *keep_fds;
    size_t keep_fds_count;
    /* The command's stderr goes through lcsb: relayed live, in order and byte
     * for byte to relay_fd (-1: nowhere), its tail kept in the result for
     * explain. The command then sees a pipe, not a terminal, on stderr. Off:
     * the command writes to the caller's stderr itself. */
    bool capture_stderr;
    int relay_fd; /* STDERR_FILENO unless set */
    /* Record what the sandbox refuses (the attestation's refused): the
     * command's dynamically linked programs get lcsb's recorder in
     * LD_PRELOAD and a pipe's descriptor in LCSB_RECORD_FD, both visible
     * to them. True unless set; under a mechanism without one, nothing. */
    bool record_refusals;
} lcsb_run_options;
#define LCSB_KEEP_FD_MAX 65536
#define LCSB_STDERR_TAIL_MAX 65536

typedef struct lcsb_run_result {
    int status; /* exit status as a shell reports it (128+N for signal N) */
    lcsb_attestation attestation;
    char note[512]; /* why lcsb itself ended the run (exec failure), or "" */
    /* The sandbox could not be set up and nothing ran: said by the mechanism
     * out of band (the shim's report pipe) or by lcsb failing to start it,
     * never read from the exit status alone, which the command can fake. */
    bool setup_failed;
    /* The mechanism could not execute the command itself (its 126 or 127,
     * said out of band as setup_failed is): a 126 without it is the
     * command's own, one of its programs refused, say. */
    bool not_executed;
    /* The last bytes the command wrote to stderr, when captured (any bytes,
     * NULs included: use the length). */
    char stderr_tail[LCSB_STDERR_TAIL_MAX];
    size_t stderr_tail_len;
} lcsb_run_result;

LCSB_API void lcsb_run_options_init(lcsb_run_options *opts);
/* Compose, validate, spawn, relay SIGINT/SIGTERM/SIGHUP/SIGQUIT, wait; on a
 * nonzero exit write the trailer to opts->trailer_fd. Returns 0 when the
 * command was started (its status is in RESULT, whatever it is), a negative
 * code when nothing ran. */
LCSB_API LCSB_NODISCARD int lcsb_run(const lcsb_backend *backend, const lcsb_policy *policy,
                                     const char *const *argv, const lcsb_run_options *opts,
                                     lcsb_run_result *result, lcsb_error *err);
/* The signals lcsb_run relays to the command (SIGINT, SIGTERM, SIGHUP,
 * SIGQUIT), *COUNT of them: a host that must not die of one before the
 * command starts holds these. A static array. */
LCSB_API const int *lcsb_relayed_signals(size_t *count);
/* "lcsb: CMD exited STATUS under BACKEND (summary)\n" into BUF, CMD escaped
 * (lcsb_escape). */
LCSB_API void lcsb_trailer(const char *command, int status, const lcsb_attestation *att, char *buf,
                           size_t size);

/* ---- Holding a placeholder: the empty .git that keeps a command from making a
 * repository where there is none. ---- */

typedef struct lcsb_hold lcsb_hold;

/* Make the directory PATH (absolute), or take it as it is when it is an empty
 * directory, and hold it for this run: runs that share it hold it together,
 * and the last to release it removes it. Mount it read-only in the run
 * (lcsb_policy_add_protect) and git passes over it as no repository.
 * *UNWRITABLE (may be NULL) is set when the caller may not make PATH: then
 * neither may a command it runs, and there is nothing to hold. */
LCSB_API LCSB_NODISCARD int lcsb_hold_acquire(const char *path, lcsb_hold **out, bool *unwritable,
                                              lcsb_error *err);
/* Let go of HOLD and free it (NULL-safe). PATH is removed when no other run
 * holds it; LCSB_ESYS when that removal fails (something was made in it). */
LCSB_API int lcsb_hold_release(lcsb_hold *hold, lcsb_error *err);

/* ---- Caches kept per project: exec_policy's cache = { "~/.npm" }. ---- */

/* Each entry of a policy's cache list is a directory of the project's own,
 * in place of the user's (~/.npm, ~/.cache/pip), kept between runs of that
 * project and never shared with another: under $XDG_CACHE_HOME/lcsb/projects
 * (else ~/.cache/lcsb/projects), in a directory named after the project
 * and a hash of its real path. lcsb makes them as a run needs them; these
 * calls say where they are, list them and remove them. A cache directory
 * that is a symlink (lcsb, projects, or a project's) is refused. */

/* The directory holding PROJECT's caches (PROJECT taken by its real path;
 * NULL: the one holding every project's), into OUT (SIZE bytes). It need
 * not exist. */
LCSB_API LCSB_NODISCARD int lcsb_cache_dir(const char *project, char *out, size_t size,
                                           lcsb_error *err);

typedef struct lcsb_cache_entry {
    char *name; /* "~/.npm", where the command sees it; for every project's: the project */
    char *path; /* where it is kept */
    unsigned long long bytes; /* the disk it takes, symlinks not followed */
    bool partial;             /* some of it could not be measured */
} lcsb_cache_entry;

/* PROJECT's caches, sorted by where they are kept (PROJECT NULL: each
 * project's directory): *OUT (freed with lcsb_cache_list_free) and *N of
 * them; none when lcsb made none. */
LCSB_API LCSB_NODISCARD int lcsb_cache_list(const char *project, lcsb_cache_entry **out, size_t *n,
                                            lcsb_error *err);
LCSB_API void lcsb_cache_list_free(lcsb_cache_entry *entries, size_t n);
/* Remove PROJECT's caches (NULL: every project's). A command may have
 * planted symlinks in its cache: removal never follows one, nor leaves the
 * cache's mount. 0 when there was nothing to remove; LCSB_ESYS naming what
 * is left. */
LCSB_API LCSB_NODISCARD int lcsb_cache_clear(const char *project, lcsb_error *err);

/* Plans: each policy exec_policy composed, kept per user in
 * $XDG_STATE_HOME/lcsb/plans and used by later runs while what it rests on
 * holds (docs/performance.md). How many are kept, and the bytes they take,
 * into *COUNT and *BYTES (none kept: 0 and 0), and the store into STORE
 * (STORE_SIZE bytes). */
LCSB_API LCSB_NODISCARD int lcsb_plans_list(size_t *count, unsigned long long *bytes, char *store,
                                            size_t store_size, lcsb_error *err);
/* Removes every plan kept (the next run of each policy composes it again);
 * how many into *REMOVED. */
LCSB_API LCSB_NODISCARD int lcsb_plans_clear(size_t *removed, lcsb_error *err);

/* ---- Policy scripts (Lua 5.4). ---- */

typedef struct lcsb_script lcsb_script;

/* The wall time a policy script may take by default, and at most, in seconds. */
#define LCSB_SCRIPT_BUDGET 10.0
#define LCSB_SCRIPT_BUDGET_MAX 1e6

/* A policy script in a project can be rewritten by the commands it
 * confines, and it runs unsandboxed, as the user. So lcsb runs one only as
 * the user approved it: lcsb_trust records the content (SHA-256) of the
 * script and of every file it reads through Lua (require, dofile,
 * loadfile, io.open, io.lines, io.input) in the user's state directory
 * ($XDG_STATE_HOME/lcsb/trust, else ~/.local/state/lcsb/trust).
 * Under CHECK, a script that is not in that record, or differs from it, is
 * refused before any of it runs (LCSB_EUNTRUSTED: the message names the
 * file, sums up the change and shows `lcsb trust`); a file it reads that is
 * not in the record as it is now is refused before the script gets a byte
 * of it; io.open to read and write at once ("r+", "a+", "w+") raises, for
 * the script would read what is on disk then, not what was checked. Files
 * in lcsb's configuration directories ($XDG_CONFIG_HOME/lcsb,
 * else ~/.config/lcsb, and the system's, /etc/lcsb) are trusted by where
 * they are: no project policy may write there. Whatever the mode, every
 * file the script read that lies in the policy's write tier is protected
 * for the run, and a script loads C modules only from the system's Lua
 * directories. */
typedef enum lcsb_trust_mode {
    LCSB_TRUST_CHECK = 0, /* run only what the user trusted */
    LCSB_TRUST_SKIP = 1,  /* the host wrote the script itself: no record needed */
} lcsb_trust_mode;

typedef struct lcsb_script_options {
    size_t size; /* sizeof(lcsb_script_options), so the struct can grow */
    /* lcsb's Lua files; NULL: $LCSB_LUA_DIR when set, else the install's,
     * found as lcsb_detect finds the shim (PREFIX/share/lua/5.4). */
    const char *lua_dir;
    /* The lcsb-exec the script's lcsb.detect() reports; NULL: the installed one. */
    const char *shim;
    /* Seconds of wall time the script may take, from 0 (no budget) to
     * LCSB_SCRIPT_BUDGET_MAX; LCSB_SCRIPT_BUDGET unless set. */
    double time_budget;
    /* Whether the script must be one the user trusted (lcsb_trust): CHECK
     * unless set. */
    lcsb_trust_mode trust;
    /* The caps files (what no project policy may grant; docs/policy.md):
     * the administrator's and the user's. NULL: the usual ones,
     * LCSB_SYSCONFDIR/caps.lua (/etc/lcsb/caps.lua) and
     * $XDG_CONFIG_HOME/lcsb/user.lua (~/.config/lcsb/user.lua); "": none.
     * lcsb's defaults (LUA_DIR/lcsb/caps.lua) always apply. The caller
     * keeps ownership. */
    const char *caps_system;
    const char *caps_user;
    /* For lcsb_trust over an earlier record of the script: the files, each
     * "PATH=SHA256" as the refusal names them, it may run (dofile,
     * loadfile, require, or load of a file's bytes) though that record does
     * not cover them as they are. NULL-terminated; NULL: none. The caller
     * keeps ownership. */
    const char *const *accept;
} lcsb_script_options;

LCSB_API void lcsb_script_options_init(lcsb_script_options *opts);
/* Run the policy script at PATH for the command ARGV (NULL-terminated), in a
 * Lua state the script object owns with the run's scope (the private HOME and
 * TMPDIR live until lcsb_script_close). OPTS may be NULL: the defaults.
 * Script errors are LCSB_ESCRIPT naming the file and line.
 *
 * The script is stopped when it runs past its time budget (LCSB_ETIMEDOUT)
 * or when SIGINT, SIGTERM, SIGHUP or SIGQUIT arrives (LCSB_EINTR; one the
 * caller ignores stays ignored): Lua code within 10,000 instructions, a
 * blocked system call by EINTR, and a command it runs (os.execute, io.popen)
 * gets the signal too (SIGTERM when the budget ran out, SIGKILL 2 s later).
 * Then its private directories are removed, the caller's handlers and timer
 * are back (lcsb takes SIGALRM only when no ITIMER_REAL timer is running),
 * and the signal is raised again for the caller: with the default action it
 * ends the process as it would have, with nothing left behind. One script at
 * a time per process: signal dispositions are process-wide.
 *
 * The caps files are loaded first, each in a Lua state of its own, and the
 * policy the script returns is checked against them before this returns: a
 * policy beyond them (a denied path, a tree holding one unhidden, net,
 * exec = "any" or degrade where a file closes them) is LCSB_EINVAL naming
 * the cap, what the policy asked for, the file that sets the cap and what
 * to change; a broken caps file is LCSB_EINVAL naming it and its line. */
LCSB_API LCSB_NODISCARD int lcsb_script_open(const char *path, const char *const *argv,
                                             const lcsb_script_options *opts, lcsb_script **out,
                                             lcsb_error *err);
/* Trust the policy script at PATH as it is now: run it for the command ARGV
 * (NULL-terminated; it may read other files for another command, and those
 * are then refused until trusted for it too) with OPTS (NULL: defaults;
 * OPTS->trust is not looked at), and record it and what it read. *TRUSTED
 * (may be NULL): each file recorded, "SHA256  PATH", the script first, as
 * an lcsb argv; over an earlier record, one it did not cover as it is says
 * so (" (new)", " (changed)"). Nothing of the run is kept: its private
 * directories go.
 *
 * Over an earlier record, the script runs as before up to code that the
 * record does not cover as it is now (a module, a dofile, a data file's
 * bytes given to load) and that OPTS->accept does not name: it stops there
 * with LCSB_EUNTRUSTED, before any of that code runs, naming the file, what
 * changed or that it is new, when it last changed, where lcsb keeps a copy
 * of the bytes it found, and the `lcsb trust --accept FILE=SHA256` that
 * runs them; nothing is recorded. A command the policy confined may have
 * written such a file, and it would run as the user, unsandboxed. The
 * script itself is what the caller names, and the first record of a script
 * is made as it runs. */
LCSB_API LCSB_NODISCARD int lcsb_trust(const char *path, const char *const *argv,
                                       const lcsb_script_options *opts, char ***trusted,
                                       lcsb_error *err);
/* How SCRIPT came to run: "recorded" (as the user trusted it), "location"
 * (in lcsb's config directory), "skipped" (LCSB_TRUST_SKIP). */
LCSB_API const char *lcsb_script_trusted(const lcsb_script *script);
/* The script's policy; owned by the script (the Lua state holds it). */
LCSB_API const lcsb_policy *lcsb_script_policy(const lcsb_script *script);
/* Best-guess remedies for a failed run, as "hint" lines without prefix,
 * escaped (lcsb_escape: they may quote the command's stderr): an lcsb argv,
 * freed with lcsb_argv_free; NULL when there are none. */
LCSB_API char **lcsb_script_explain(lcsb_script *script, const char *const *argv,
                                    const lcsb_run_result *result);
/* The hints for a run from its attestation as lcsb_script_attestation_json
 * wrote it (`lcsb --attest FILE`): JSON, LEN bytes. What the recorder and
 * the proxy saw is in it; the stderr tail is not, so only evidence is
 * explained. For a host that runs commands in the background and reads
 * their outcome later. LUA_DIR as lcsb_script_options has it (NULL: the
 * installed one). *HINTS as lcsb_script_explain gives them, NULL when
 * there are none; LCSB_EINVAL when JSON is no attestation. */
LCSB_API LCSB_NODISCARD int lcsb_explain_attestation(const char *json, size_t len,
                                                     const char *lua_dir, char ***hints,
                                                     lcsb_error *err);
/* After lcsb_run: let go of what the policy held for the run (the empty .git
 * of a project that is no repository), and say what it could not hold and
 * the run made anyway (a repository, with hooks nobody protected) and which
 * files the command created or changed that tools run later, unsandboxed
 * (an .envrc, a Makefile, a nested .git: lua/lcsb/run_later.lua), as
 * warning lines, escaped: an lcsb argv, freed with lcsb_argv_free; NULL when
 * there is nothing to say. lcsb_script_close lets go too, if no one did,
 * but looks for nothing: no command ran. */
LCSB_API char **lcsb_script_after_run(lcsb_script *script);
/* The attestation ATT as JSON (lcsb_attestation_json), with the keys
 * SCRIPT adds (NULL-safe): "policy": {"script": its path, "trust":
 * "recorded" | "location" | "skipped", "files": [{"path", "real" (when a
 * symlink led elsewhere), "sha256", "protected"}]}, every file the script
 * read and whether the run protects it; "caps": the caps files the policy
 * was checked against, [{"file": PATH, "sha256": HEX}, ...], lcsb's
 * defaults first; and "run_later", once lcsb_script_after_run looked for
 * the files a command created or changed that tools run later ([{ "path",
 * "why", "inside" (what changed in a directory), "unseen" (true where lcsb
 * could not look) }]); for exec_policy's policy, "home" and "cache": what
 * the private HOME showed of the real one ([{"name": "~/.gitconfig",
 * "path": where it led}]). Caller frees with free(); NULL on ENOMEM. */
LCSB_API char *lcsb_script_attestation_json(lcsb_script *script, const lcsb_attestation *att);
/* The container world the script's exec_policy named (oci = {...}), for
 * lcsb_backend_oci; its strings belong to the script. False when it named
 * none. */
LCSB_API bool lcsb_script_oci_world(const lcsb_script *script, lcsb_oci_world *out);
/* What the script asked for and exec_policy left out: a path that does not
 * exist, a protected path that is not writable anyway. */
typedef struct lcsb_left_out {
    lcsb_tier tier;
    const char *path;
    const char *why; /* "does not exist", ... */
} lcsb_left_out;
/* How many entries, and *OUT (may be NULL) pointing at them; they belong to
 * the script. */
LCSB_API size_t lcsb_script_left_out(const lcsb_script *script, const lcsb_left_out **out);
/* What the private HOME shows of the caller's real one (exec_policy's home
 * and cache keys), each entry at the same place there. */
typedef struct lcsb_home_entry {
    const char *name; /* "~/.gitconfig": where the command sees it */
    const char *path; /* where it leads: the real file, or the project's cache */
    bool cache;       /* a cache kept per project, writable; else read-only */
} lcsb_home_entry;
/* How many entries, home's then cache's, and *OUT (may be NULL) pointing at
 * them; they belong to the script. */
LCSB_API size_t lcsb_script_home(const lcsb_script *script, const lcsb_home_entry **out);
/* The caps the policy was checked against, as lines for a person (what is
 * denied, net, exec any, degrade; the files): an lcsb argv, freed with
 * lcsb_argv_free; NULL on ENOMEM. */
LCSB_API char **lcsb_script_caps(const lcsb_script *script);
/* Where the exec allowlist came from, as lines for a person: each preset
 * (lcsb.tools.*) and closure (what a program runs on its own: gcc's cc1,
 * git's helpers, a version manager's interpreter) and what it added. An
 * lcsb argv, freed with lcsb_argv_free; NULL when there is none. */
LCSB_API char **lcsb_script_tools(const lcsb_script *script);
/* What building the policy allowed that the user must hear of before the
 * run (a program named in exec that is not built yet, allowed by its
 * directory in the project): lines, as lcsb_script_tools. */
LCSB_API char **lcsb_script_warnings(const lcsb_script *script);
/* What became of each of exec_policy's default protections (the repository's
 * .git, hooks and config, the coding agents' configuration): read-only, held
 * empty for the run, not there, let go by a "!" entry, ... with why it is
 * protected: lines, as lcsb_script_tools; NULL when the script's result has
 * none (a bare lcsb.policy). */
LCSB_API char **lcsb_script_defaults(const lcsb_script *script);
/* How exec_policy came by the policy: from the plan an earlier run kept
 * (composed once, used while what it rests on holds), or composed, with
 * why no plan was used and whether this one was kept: lines, as
 * lcsb_script_tools; NULL when the script's result has none. */
LCSB_API char **lcsb_script_plan(const lcsb_script *script);
/* Remove the run's private directories and free SCRIPT (NULL-safe). It is
 * freed either way; LCSB_ESYS names what could not be removed (a mount point
 * inside, say: removal never crosses one). */
LCSB_API int lcsb_script_close(lcsb_script *script, lcsb_error *err);

#ifdef __cplusplus
}
#endif
#endif
