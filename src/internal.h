/* Declarations shared inside liblcsb; nothing here is exported. */
#ifndef LCSB_INTERNAL_H
#define LCSB_INTERNAL_H

#include "lcsb.h"

#include <limits.h>
#include <signal.h>
#include <stdint.h>
#include <sys/types.h>

#if defined(__GNUC__)
#define LCSB_PRINTF(fmt, args) __attribute__((format(printf, fmt, args)))
#else
#define LCSB_PRINTF(fmt, args)
#endif

/* Fill ERR (when non-NULL) and return CODE. */
int lcsb__fail(lcsb_error *err, int code, const char *fmt, ...) LCSB_PRINTF(3, 4);

/* ---- A growable array of owned strings, kept NULL-terminated. ---- */

typedef struct lcsb__strv {
    char **v;
    size_t n;
    size_t cap;
} lcsb__strv;

int lcsb__strv_push(lcsb__strv *sv, const char *s);              /* copies S */
int lcsb__strv_push_n(lcsb__strv *sv, const char *s, size_t len); /* copies LEN bytes */
int lcsb__strv_push_all(lcsb__strv *sv, const char *const *argv); /* NULL-safe */
void lcsb__strv_clear(lcsb__strv *sv);
/* Hand the array over as a NULL-terminated argv (an empty one when SV is empty). */
char **lcsb__strv_take(lcsb__strv *sv);
size_t lcsb__argv_len(const char *const *argv);
/* Sorted, duplicate-free view of SV's strings (pointers into SV); caller frees the array. */
const char **lcsb__strv_sorted_unique(const lcsb__strv *sv, size_t *count);

/* ---- A growable byte buffer, always NUL-terminated. ---- */

typedef struct lcsb__buf {
    char *p;
    size_t len;
    size_t cap;
    bool oom; /* sticky: one check at the end instead of one per append */
} lcsb__buf;

void lcsb__buf_add(lcsb__buf *b, const char *s, size_t len);
void lcsb__buf_adds(lcsb__buf *b, const char *s);
void lcsb__buf_addf(lcsb__buf *b, const char *fmt, ...) LCSB_PRINTF(2, 3);
/* A JSON string literal, quotes included; bytes >= 0x80 pass through. */
void lcsb__buf_add_json_string(lcsb__buf *b, const char *s);
void lcsb__buf_free(lcsb__buf *b);
/* The names of PARTS (lcsb_part bits), each between QUOTE and QUOTE, SEP between. */
void lcsb__add_part_names(lcsb__buf *b, unsigned parts, const char *quote, const char *sep);

/* ---- Policy internals. ---- */

typedef struct lcsb__env {
    char *name;
    char *value; /* NULL: unset NAME */
} lcsb__env;

typedef struct lcsb__ports {
    uint16_t *v;
    size_t n;
} lcsb__ports;

struct lcsb_policy {
    lcsb__strv read;
    lcsb__strv write;
    lcsb__strv exec;
    lcsb__strv protect;
    lcsb__env *env; /* in order of first setting; a later setting replaces the value */
    size_t env_n;
    bool exec_open;
    lcsb_net net;
    lcsb__ports connect; /* in insertion order, may repeat */
    lcsb__ports bind;
    char *cwd;
    unsigned degradable; /* lcsb_part bits */
    size_t bytes;        /* of paths and environment held, against LCSB_POLICY_BYTES_MAX */
};

/* Normalize an absolute path lexically into OUT (PATH_MAX bytes); 0 or LCSB_EINVAL. */
int lcsb__path_normalize(const char *what, const char *path, char *out, lcsb_error *err);

/* ---- System prefixes (rule 3). ---- */

/* The first system prefix DIR equals or contains, for messages; NULL when none. */
const char *lcsb__system_prefix_within(const char *dir);
/* The system's own tree PATH lies in (/usr but not /usr/local, /etc, /bin,
 * /sbin, /lib*, /boot), or NULL. */
const char *lcsb__system_tree_of(const char *path);
/* NAME on PATH (an executable file) into OUT; false when there is none. */
bool lcsb__find_on_path(const char *name, char *out, size_t size);

/* ---- Backends. ---- */

typedef struct lcsb__backend_ops {
    const char *name;
    bool contains_prefix;
    int (*validate)(const lcsb_backend *b, const lcsb_policy *policy, lcsb_error *err);
    int (*wrap)(const lcsb_backend *b, const lcsb_policy *policy, const char *const *argv,
                lcsb__strv *out, lcsb_error *err);
} lcsb__backend_ops;

struct lcsb_backend {
    const lcsb__backend_ops *ops;
    int landlock_abi;
    char *shim;
    /* The shim can install its socket filter (seccomp), which a restricted
     * network needs beyond Landlock's TCP rules. */
    bool seccomp;
    /* The shim can enter a mount namespace (as root, or in a user namespace)
     * to make the file system read-only outside the write tier. */
    bool namespaces;
    /* OCI: the engine (a path, or its bare name when none was found), its
     * kind, the world and the caller's ids the container runs as. */
    char *engine;
    bool engine_found;
    bool podman;
    char *image;
    char *rootfs;
    lcsb__strv engine_args;
    unsigned uid, gid;
    /* The host's top-level symlinks into its system (/lib64 -> /usr/lib64 on
     * a merged /usr), read when the world is a rootfs: a root made of bare
     * mounts has no /lib64 for the ELF interpreter path unless one is made. */
    lcsb__strv link_paths, link_targets;
    /* Seatbelt: /usr/bin/sandbox-exec was found (or the caller vouched for
     * it). Without it the backend still wraps, for other hosts, but refuses
     * to run. */
    bool mechanism_present;
};

extern const lcsb__backend_ops lcsb__landlock_ops;
extern const lcsb__backend_ops lcsb__unavailable_ops;
extern const lcsb__backend_ops lcsb__oci_ops;

/* The OCI mount table (src/oci.c), pure: each path of the policy the
 * container sees, read-only or read-write, parents before children; paths
 * point into POLICY. IMAGE_WORLD leaves the system's trees to the image. */
typedef struct lcsb__oci_mount {
    const char *path;
    bool rw;
} lcsb__oci_mount;
int lcsb__oci_mounts(const lcsb_policy *policy, bool image_world, lcsb__oci_mount **out,
                     size_t *count);
/* Is ARGV an engine's `run` (podman or docker)? Then lcsb__oci_attest reads
 * it, with PREFIX (may be NULL) expected right after the world. */
bool lcsb__oci_is_run(const char *const *argv);
int lcsb__oci_attest(const char *const *argv, const char *const *prefix, lcsb_attestation *out,
                     lcsb_error *err);
extern const lcsb__backend_ops lcsb__seatbelt_ops;

/* FINAL fits execve's limits (with this process's environment); impure. */
int lcsb__check_exec_size(const char *const *final, lcsb_error *err);

/* Checks every backend shares: paths exist, exec entries are safe. Impure (stat).
 * PRIVATE_ALIASES: a path may also resolve to its Seatbelt canonical form. */
int lcsb__validate_paths(const lcsb_policy *policy, bool check_exec, bool private_aliases,
                         lcsb_error *err);
/* When the env overlay is in use and exec is allowlisted, the allowlist names
 * the env program that carries it. */
int lcsb__check_env_listed(const lcsb_policy *policy, lcsb_error *err);

/* The ports in PORTS above LAST in ascending order, one per call (sorted and
 * without repeats, so the same policy gives the same bytes); 65536 after the last. */
int lcsb__port_after(const lcsb__ports *ports, int last);

/* The Landlock header's argv marker and the shim's name, used by wrap and attest. */
#define LCSB__SHIM_NAME "lcsb-exec"
#define LCSB__WIRE_KEY "{\"lcsb-exec\":"
#define LCSB__WIRE_VERSION 2
#define LCSB__LANDLOCK_ABI_MAX 7
/* Each argv string holds at most this many bytes; the kernel's limit is 128 KiB. */
#define LCSB__WIRE_PART_MAX (120u * 1024u)

/* ---- Seatbelt (seatbelt.c): sandbox-exec and the profile it is given. ---- */

#define LCSB__SANDBOX_EXEC "/usr/bin/sandbox-exec"
/* How every profile lcsb writes begins; attest recognises it. */
#define LCSB__SEATBELT_HEAD "(version 1)\n;; lcsb seatbelt profile\n(deny default)\n"
/* The compiled-in profiles/base.sb (cmake/embed.cmake). */
extern const char lcsb__seatbelt_base[];
/* A canonical path: PATH_MAX plus the longest "/private" prefix added. */
#define LCSB__SEATBELT_PATH_MAX (PATH_MAX + 16)
/* PATH with /tmp, /var, /etc replaced by their /private forms, into OUT
 * (LCSB__SEATBELT_PATH_MAX bytes); lexical. 0, or -1 when it does not fit. */
int lcsb__seatbelt_canonical(const char *path, char *out);

/* The profile's layers; rule 4 fixes their order in lcsb__seatbelt_order. */
typedef enum lcsb__seatbelt_layer {
    LCSB__SB_BASE,
    LCSB__SB_READ,
    LCSB__SB_EXEC,
    LCSB__SB_GUARD,
    LCSB__SB_WRITE,
    LCSB__SB_PROTECT,
    LCSB__SB_NET,
} lcsb__seatbelt_layer;
#define LCSB__SB_LAYERS 7
extern const lcsb__seatbelt_layer lcsb__seatbelt_order[LCSB__SB_LAYERS];
/* Seatbelt's wrap with the layers in ORDER (LCSB__SB_LAYERS of them): the
 * backend passes lcsb__seatbelt_order; the mutation test passes another. */
int lcsb__seatbelt_wrap_layers(const lcsb_policy *policy, const lcsb__seatbelt_layer *order,
                               const char *const *argv, lcsb__strv *out, lcsb_error *err);

/* REST (`sandbox-exec -p PROFILE ...`, past any prefix) read back: only a
 * profile lcsb itself writes is attested; anything else is LCSB_EINVAL. */
int lcsb__seatbelt_attest(const char *const *rest, lcsb_attestation *out, lcsb_error *err);

/* The env hop the seam puts in front of the command when the overlay is not empty. */
#define LCSB__ENV_PROGRAM "/usr/bin/env"
bool lcsb__policy_has_env(const lcsb_policy *policy);

/* The environment variable naming the descriptor on which the shim reports a
 * setup failure, and the trailer that takes that report into account. */
#define LCSB__REPORT_ENV "LCSB_EXEC_REPORT_FD"
void lcsb__trailer(const char *command, int status, bool setup_failed,
                   const lcsb_attestation *att, char *buf, size_t size);

/* ---- A minimal JSON reader for what lcsb itself wrote (attest). ---- */

/* Find KEY at the top level of the JSON object TEXT. Returns a pointer to its
 * value's first byte, or NULL. */
const char *lcsb__json_find(const char *text, const char *key);
/* Parse a non-negative integer value at P; -1 on failure. */
long lcsb__json_int(const char *p);
/* Count the elements of the array at P (-1 when P is not an array); when NAME is
 * non-NULL, set *found when one element is the string NAME. */
int lcsb__json_array(const char *p, const char *name, bool *found);

/* realpath(3), faster where the host can tell at once that a normalized path
 * holds no symlink. OUT has PATH_MAX bytes. */
char *lcsb__realpath(const char *path, char *out);

/* The mount that the file open as FD lives on, as an identity to compare (a
 * platform's own notion: Linux's mount ID, else the device). 0 or -1. */
int lcsb__mount_of(int fd, uint64_t *out);

/* ---- Scope: owner of a run's private directories (impure). ---- */

typedef struct lcsb__scope lcsb__scope;
lcsb__scope *lcsb__scope_new(void);
/* Create a fresh directory (mode 0700) owned by the scope; its path into OUT (PATH_MAX). */
int lcsb__scope_mkdtemp(lcsb__scope *scope, const char *label, char *out, lcsb_error *err);
/* Remove everything the scope owns, never following a symlink or crossing a
 * mount. Idempotent. 0, or LCSB_ESYS naming what was left behind. */
int lcsb__scope_close(lcsb__scope *scope, lcsb_error *err);
void lcsb__scope_free(lcsb__scope *scope); /* closes first; NULL-safe */

/* ---- The command's stderr, relayed and remembered (capture.c). ---- */

typedef struct lcsb__capture {
    int out[2];  /* the command's stderr */
    int note[2]; /* SIGCHLD's self-pipe */
    struct sigaction old_chld, old_pipe;
    bool installed, relaying;
} lcsb__capture;

/* Make the pipes and hear SIGCHLD (and ignore SIGPIPE) until close. */
int lcsb__capture_open(lcsb__capture *c, lcsb_error *err);
/* After spawning a child whose stderr is c->out[1]. */
void lcsb__capture_spawned(lcsb__capture *c);
/* Relay to RELAY_FD (-1: keep the tail only) until PID exits; its wait
 * status into *WSTATUS. 0, or -1 with errno. */
int lcsb__capture_wait(lcsb__capture *c, pid_t pid, int relay_fd, int *wstatus,
                       lcsb_run_result *result);
void lcsb__capture_close(lcsb__capture *c);

/* ---- The Lua binding, shared with the script runner. ---- */

struct lua_State;
#define LCSB__REG_SHIM "lcsb.shim"
#define LCSB__REG_RUN_SCOPE "lcsb.run_scope"
#define LCSB__REG_RUN "lcsb.run"
LCSB_API int luaopen_lcsb(struct lua_State *L);
LCSB_API int luaopen_lcsb_core(struct lua_State *L);
lcsb_policy *lcsb__lua_checkpolicy(struct lua_State *L, int idx);
lcsb__scope *lcsb__lua_checkscope(struct lua_State *L, int idx);
/* Close the scope at IDX if it is an open one (never raises); as lcsb__scope_close. */
int lcsb__lua_close_scope(struct lua_State *L, int idx, lcsb_error *err);
void lcsb__lua_push_attestation(struct lua_State *L, const lcsb_attestation *a);

#endif
