/* Part of <lcsb.h>: the Policy, what a command may read, write, execute and
 * reach, in terms no mechanism owns; its setters, which only record, and its
 * getters. Apart because describing a policy is pure and needs nothing else:
 * no host, no backend, no kernel.
 *
 * A policy is a handle the caller owns (lcsb_policy_new, lcsb_policy_free).
 * Setters copy what they are given; getters return memory the policy owns,
 * valid until the policy is changed or freed. There is no lock inside: any
 * number of threads may read one policy at once, none while another changes
 * it. */
#ifndef LCSB_PUBLIC_POLICY_H
#define LCSB_PUBLIC_POLICY_H
#ifndef LCSB_H
#error "include <lcsb.h>: lcsb/policy.h is one part of it"
#endif

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

/* Returns a new policy, which the caller frees with lcsb_policy_free(). It
 * denies everything: no paths, no exec, no network. NULL on ENOMEM. */
LCSB_API lcsb_policy *lcsb_policy_new(void);
/* Frees POLICY and everything it holds; NULL-safe. Strings it returned go
 * with it. */
LCSB_API void lcsb_policy_free(lcsb_policy *policy);
/* Returns a deep copy of POLICY, which the caller frees with
 * lcsb_policy_free(); POLICY is only read. NULL on ENOMEM. */
LCSB_API lcsb_policy *lcsb_policy_copy(const lcsb_policy *policy);

/* A policy holds at most this many bytes of paths and environment: far more
 * than execve could carry, far less than would exhaust memory. Past it, the
 * adders below fail with LCSB_ETOOBIG. */
#define LCSB_POLICY_BYTES_MAX ((size_t)64 << 20)

/* Paths must be absolute; they are normalized lexically ("//", "/./", a trailing
 * "/") and refused when empty, relative, longer than PATH_MAX or holding "..".
 * Adding a path twice is harmless. Nothing is looked up on disk until
 * validation. */

/* Copies PATH, normalized, into POLICY's read tier. */
LCSB_API LCSB_NODISCARD int lcsb_policy_add_read(lcsb_policy *policy, const char *path,
                                                 lcsb_error *err);
/* Copies PATH, normalized, into POLICY's write tier. */
LCSB_API LCSB_NODISCARD int lcsb_policy_add_write(lcsb_policy *policy, const char *path,
                                                  lcsb_error *err);
/* Copies PATH, normalized, into POLICY's exec allowlist. A regular file, or
 * a directory whose files become executable (refused by validation when it
 * is or contains a system prefix, or is reached through a symlink). */
LCSB_API LCSB_NODISCARD int lcsb_policy_add_exec(lcsb_policy *policy, const char *path,
                                                 lcsb_error *err);
/* Copies PATH, normalized, into POLICY's protect tier: a path inside the
 * write tier that stays read-only (a repository's .git/hooks): it must exist
 * and is not reached through a symlink. */
LCSB_API LCSB_NODISCARD int lcsb_policy_add_protect(lcsb_policy *policy, const char *path,
                                                    lcsb_error *err);
/* Copies PATH, normalized, into POLICY's hide tier: a path inside a readable
 * tree that must not exist for the command (a secret under /etc): covered
 * with something empty in the command's world. Needs the "world" part; a
 * path that does not exist is hidden already. */
LCSB_API LCSB_NODISCARD int lcsb_policy_add_hide(lcsb_policy *policy, const char *path,
                                                 lcsb_error *err);
/* Turns POLICY's exec allowlist off (OPEN true) or back on: anything
 * readable may run. */
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
/* Names LIMIT: "time", "memory", "pids", "files", "tmp", a static string;
 * NULL for anything else. */
LCSB_API const char *lcsb_limit_name(lcsb_limit limit);
/* Records VALUE as POLICY's LIMIT; VALUE 0 removes the limit. LCSB_EINVAL
 * past what the shim can hold. */
LCSB_API LCSB_NODISCARD int lcsb_policy_set_limit(lcsb_policy *policy, lcsb_limit limit,
                                                  unsigned long long value, lcsb_error *err);
/* Returns POLICY's LIMIT, 0 when none is set (or LIMIT is none of them). */
LCSB_API unsigned long long lcsb_policy_limit(const lcsb_policy *policy, lcsb_limit limit);

/* The command's environment is allow-listed: of the caller's variables it
 * gets the base set (PATH, LANG, LANGUAGE, the LC_ categories, TERM, COLORTERM, NO_COLOR,
 * TZ, USER, LOGNAME, SHELL, COLUMNS, LINES) and those passed below, then the
 * overlay lcsb_policy_set_env records. Sensitive names (lcsb_env_sensitive)
 * pass only when a pass entry names them exactly. docs/policy.md lists it all. */

/* Copies NAME and VALUE into POLICY's overlay: NAME set to VALUE in the
 * command's environment, or unset when VALUE is NULL. The last call for a
 * name wins (and frees the value the policy held for it). The values ride on
 * the command's argv (lcsb_env_argv): policy content, never the caller's. */
LCSB_API LCSB_NODISCARD int lcsb_policy_set_env(lcsb_policy *policy, const char *name,
                                                const char *value, lcsb_error *err);
/* Returns how many names POLICY's overlay sets or unsets. */
LCSB_API size_t lcsb_policy_env_count(const lcsb_policy *policy);
/* Returns the Ith name of the overlay, in the order first set (NULL past the
 * last), and in *VALUE (VALUE may be NULL) its value, or NULL where the
 * policy unsets it. Both strings belong to POLICY. */
LCSB_API const char *lcsb_policy_env(const lcsb_policy *policy, size_t i, const char **value);
/* Copies NAME into POLICY's pass entries: the caller's variable NAME reaches
 * the command, or every variable a pattern matches ('*' stands for any run of
 * characters: "NPM_CONFIG_*", "*") but the sensitive ones. Refused when
 * empty or holding '='. */
LCSB_API LCSB_NODISCARD int lcsb_policy_pass_env(lcsb_policy *policy, const char *name,
                                                 lcsb_error *err);
/* Records whether the command gets the caller's whole environment,
 * sensitive names included, as lcsb did before the allowlist (off by
 * default). The overlay still applies. */
LCSB_API void lcsb_policy_set_env_inherit(lcsb_policy *policy, bool inherit);
/* Returns whether POLICY passes the caller's whole environment. */
LCSB_API bool lcsb_policy_env_inherit(const lcsb_policy *policy);
/* Says whether NAME looks like it holds a secret (*TOKEN*, *SECRET*, *PASSW*,
 * a word ending in KEY or PASS, AWS_*, SSH_*, ...) or grants access to
 * something outside (DISPLAY, DBUS_SESSION_BUS_ADDRESS, XDG_RUNTIME_DIR, ...),
 * compared without regard to case: then no pattern passes it. NAME is only
 * read. */
LCSB_API bool lcsb_env_sensitive(const char *name);

/* Records POLICY's network: LCSB_NET_DENY (the default), LCSB_NET_OPEN, or
 * LCSB_NET_PORTS with ports added below (adding a port switches a denying
 * policy to LCSB_NET_PORTS). */
LCSB_API void lcsb_policy_set_net(lcsb_policy *policy, lcsb_net net);
/* Adds TCP PORT (1..65535) of KIND to POLICY; a denying policy becomes
 * LCSB_NET_PORTS. */
LCSB_API LCSB_NODISCARD int lcsb_policy_add_port(lcsb_policy *policy, lcsb_port_kind kind,
                                                 long port, lcsb_error *err);
/* Copies ENTRY, normalized, into POLICY's net.domains (once: an entry there
 * already, in its normal form, is not added again): a name the command may
 * reach through lcsb's proxy: "registry.npmjs.org",
 * "*.example.com" (any name below example.com, not itself), an IPv4 or a
 * bracketed IPv6 literal, each with ":PORT" for a port other than 443 and
 * 80; "!" in front denies it (on every port, unless it names one),
 * before every allowing entry. An allowing entry may end, after a space:
 * " once" allows the first connection of a run only (given back when none
 * comes of it), " until=YYYY-MM-DDTHH:MM:SSZ" (UTC) while the clock is
 * before that; both, in that order. Adding one
 * switches the policy to LCSB_NET_DOMAINS; its ports (LCSB_NET_PORTS) are
 * then the command's own loopback ports. */
LCSB_API LCSB_NODISCARD int lcsb_policy_add_domain(lcsb_policy *policy, const char *entry,
                                                   lcsb_error *err);
/* Copies RANGE, normalized, into POLICY's net.lan: an address or range
 * ("10.0.0.0/8", "127.0.0.1", "fd00::/8") that a listed name may lead to
 * although it is loopback, private or link-local, which the proxy otherwise
 * refuses (no rebinding a public name into the LAN). */
LCSB_API LCSB_NODISCARD int lcsb_policy_add_lan(lcsb_policy *policy, const char *range,
                                                lcsb_error *err);
/* Copies a secret into POLICY: the caller's variable NAME (a shell
 * variable's name), whose value lcsb's proxy puts into requests to HOSTS
 * alone ("api.github.com,github.com": net.domains entries that allow, with
 * no end and no rule, comma-separated), over TLS, in Authorization and, after
 * the hosts, the headers " headers=Private-Token,X-Api-Key" names. The
 * command gets a placeholder under NAME, never the value; lcsb_run reads
 * the value from its own environment, from the file " from=/PATH" names,
 * or from what the command " command=[\"gh\",\"auth\",\"token\"]" prints
 * (after the headers), and refuses to run when there is none. A host a
 * secret goes to has its requests read (interception), as a rule's does. */
LCSB_API LCSB_NODISCARD int lcsb_policy_add_secret(lcsb_policy *policy, const char *name,
                                                   const char *hosts, lcsb_error *err);
/* Returns how many secrets POLICY holds. */
LCSB_API size_t lcsb_policy_secret_count(const lcsb_policy *policy);
/* Returns the Ith secret as "NAME host,host", normalized, in the order
 * added (NULL past the last); the string belongs to POLICY. */
LCSB_API const char *lcsb_policy_secret(const lcsb_policy *policy, size_t i);
/* Returns how many net.domains entries POLICY holds. */
LCSB_API size_t lcsb_policy_domain_count(const lcsb_policy *policy);
/* Returns the Ith net.domains entry, normalized, in the order added (NULL
 * past the last); the string belongs to POLICY. */
LCSB_API const char *lcsb_policy_domain(const lcsb_policy *policy, size_t i);
/* Returns how many net.lan ranges POLICY holds. */
LCSB_API size_t lcsb_policy_lan_count(const lcsb_policy *policy);
/* Returns the Ith net.lan range, normalized, in the order added (NULL past
 * the last); the string belongs to POLICY. */
LCSB_API const char *lcsb_policy_lan(const lcsb_policy *policy, size_t i);
/* Returns how many TCP ports of KIND POLICY holds, each once (however often
 * added). */
LCSB_API size_t lcsb_policy_port_count(const lcsb_policy *policy, lcsb_port_kind kind);
/* Returns the Ith TCP port of KIND, ascending, 0 past the last. */
LCSB_API unsigned lcsb_policy_port(const lcsb_policy *policy, lcsb_port_kind kind, size_t i);
/* Copies PATH, normalized, as the command's working directory (absolute);
 * NULL keeps the caller's. */
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

/* Names one PART: "net", "scope", "truncate", "ioctl", "terminal",
 * "metadata", "world", "limits", "memory", a static string; NULL for anything
 * else. */
LCSB_API const char *lcsb_part_name(unsigned part);
/* Returns the part named NAME, or 0; NAME is only read. */
LCSB_API unsigned lcsb_part_from_name(const char *name);
/* Records that PARTS (lcsb_part bits; 0, the default, allows none) may be
 * dropped where the host cannot enforce them. */
LCSB_API void lcsb_policy_set_degradable(lcsb_policy *policy, unsigned parts);
/* Returns the parts POLICY allows to be dropped. */
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
/* Names TIER: "read", "write", "exec", "protect", "hide", a static string;
 * NULL for anything else. */
LCSB_API const char *lcsb_tier_name(lcsb_tier tier);

/* Returns how many paths POLICY holds in TIER. */
LCSB_API size_t lcsb_policy_count(const lcsb_policy *policy, lcsb_tier tier);
/* Returns the Ith path of TIER, normalized, in the order added (NULL past
 * the last); the string belongs to POLICY and lives until it changes or is
 * freed. */
LCSB_API const char *lcsb_policy_path(const lcsb_policy *policy, lcsb_tier tier, size_t i);
/* Returns whether POLICY's exec allowlist is off. */
LCSB_API bool lcsb_policy_exec_open(const lcsb_policy *policy);
/* Returns POLICY's network. */
LCSB_API lcsb_net lcsb_policy_net(const lcsb_policy *policy);
/* Returns POLICY's working directory, or NULL for the caller's; the string
 * belongs to POLICY and lives until it changes or is freed. */
LCSB_API const char *lcsb_policy_cwd(const lcsb_policy *policy);

/* Resolves program NAME (a path, or a name looked up on PATH) into *OUT, an
 * lcsb argv the caller frees with lcsb_argv_free(): the regular files that
 * running it executes, the program itself (symlinks resolved), then
 * its ELF interpreter and its `#!` interpreters, transitively (for
 * `#!/usr/bin/env python3`, env and python3 both), each a path to add with
 * lcsb_policy_add_exec. Reads the files; a name not found or not a regular
 * file is an error. */
LCSB_API LCSB_NODISCARD int lcsb_resolve_program(const char *name, char ***out, lcsb_error *err);

#endif
