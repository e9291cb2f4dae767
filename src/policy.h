/* Layer 2, pure: the Policy's insides, for the files that turn it into a
 * mechanism. Everything here is mechanism-free: paths, the env overlay, the
 * network, the parts that may degrade. */
#ifndef LCSB_POLICY_H
#define LCSB_POLICY_H

#include "util.h"

#include <stdint.h>

typedef struct lcsb__env {
    char *name;
    char *value; /* NULL: unset NAME */
} lcsb__env;

/* A private directory (the run's HOME, its TMPDIR): made fresh for the run
 * and empty but for LINKS, symlinks at paths relative to it (rel, target,
 * rel, target, ...). Where the command gets a world of its own the shim
 * makes it there, a tmpfs that never touches the host; elsewhere the run
 * makes it on the host (private.h) just before the command starts. */
typedef struct lcsb__private {
    char *path;
    lcsb__strv links;
} lcsb__private;

typedef struct lcsb__ports {
    uint16_t *v;
    size_t n;
} lcsb__ports;

struct lcsb_policy {
    lcsb__strv read;
    lcsb__strv write;
    lcsb__strv exec;
    lcsb__strv protect;
    lcsb__strv hide;
    lcsb__private *priv; /* in the order added */
    size_t priv_n;
    unsigned long long limits[LCSB_LIMITS];
    lcsb__env *env; /* in order of first setting; a later setting replaces the value */
    size_t env_n;
    lcsb__strv env_pass; /* names and '*' patterns of the caller's variables, as added */
    bool env_inherit;    /* the caller's whole environment, sensitive names included */
    bool exec_open;
    lcsb_net net;
    lcsb__ports connect; /* in insertion order, may repeat */
    lcsb__ports bind;
    lcsb__strv domains; /* net.domains entries, normalized (netname.h) */
    lcsb__strv lan;     /* net.lan ranges, normalized */
    lcsb__strv secrets; /* "NAME host,host" each (secrets.h), one per name */
    /* Where the command reaches lcsb's proxy when it has no network of its
     * own (lcsb_run sets it: a port on the host's loopback); 0 in a
     * network of its own, where it is LCSB__PROXY_PORT. */
    uint16_t proxy_port;
    /* The network namespace a container joins under domains (lcsb_run
     * sets it: netns.h); NULL: none made, and the engine is told a path
     * that cannot exist, so a wrapped argv run by hand does not start. */
    char *netns;
    /* The certificates the command's TLS clients trust when the proxy
     * intercepts (lcsb_run sets it: the system's and the run's authority,
     * proxy_tls.h); NULL: none, and the variables that name it are not set. */
    char *ca_bundle;
    /* The same certificates as a Java truststore (lcsb_run sets it beside
     * ca_bundle); NULL: none, and Java is not told of one. */
    char *java_truststore;
    char *cwd;
    unsigned degradable; /* lcsb_part bits */
    size_t bytes;        /* of paths and environment held, against LCSB_POLICY_BYTES_MAX */
    /* Paths a composition found real (no symlink on the way) and there, by
     * a record that still holds (plan.h), sorted; borrowed from the script
     * that made the policy, never copied: validation and the caps take them
     * as they are, without asking the disk each again. NULL: none. */
    const char *const *verified;
    size_t verified_n;
};

/* The directories that must each be a mount of their own for POLICY's
 * protected and hidden paths to stay where they are, appended to OUT:
 * every ancestor of one that lies inside a write path without being one.
 * A protect or hide is a mount on the path alone; its parent, writable,
 * could be renamed away and made again around a path nobody holds (the
 * trust store under a writable ~/.local, .vscode around its settings). A
 * mount point cannot be renamed or removed (EBUSY). */
int lcsb__policy_pins(const lcsb_policy *policy, lcsb__strv *out);

/* Adds a private directory at PATH (absolute) holding LINKS (rel, target
 * pairs, NULL-terminated: REL relative and without "..", TARGET absolute),
 * all copied. */
int lcsb__policy_add_private(lcsb_policy *policy, const char *path, const char *const *links,
                             lcsb_error *err);

/* Is PATH one of POLICY's private directories, or inside one? Nothing of
 * it is on the disk before the run makes it. */
bool lcsb__policy_private_at(const lcsb_policy *policy, const char *path);
/* Is PATH itself one of POLICY's paths (read, write or exec)? The world
 * makes a private directory fresh only where it is. */
bool lcsb__policy_lists(const lcsb_policy *policy, const char *path);

/* Is PATH among POLICY's verified paths? */
bool lcsb__policy_verified(const lcsb_policy *policy, const char *path);

/* The ports in PORTS above LAST in ascending order, one per call (sorted and
 * without repeats, so the same policy gives the same bytes); 65536 after the last. */
int lcsb__port_after(const lcsb__ports *ports, int last);

/* The parts' names: bit I of an lcsb_part set is lcsb__part_names[I]. NULL-terminated. */
extern const char *const lcsb__part_names[];
/* The names of PARTS (lcsb_part bits), each between QUOTE and QUOTE, SEP between. */
void lcsb__add_part_names(lcsb__buf *b, unsigned parts, const char *quote, const char *sep);

/* The port lcsb's proxy listens on in a network of the command's own,
 * where nothing else can hold it. */
#define LCSB__PROXY_PORT 3128
/* The port the command reaches lcsb's proxy on under POLICY. */
uint16_t lcsb__proxy_port(const lcsb_policy *policy);

/* The program that carries the env overlay (the seam's hop in front of the
 * command), which an exec allowlist must name when the overlay is in use. */
#define LCSB__ENV_PROGRAM "/usr/bin/env"
bool lcsb__policy_has_env(const lcsb_policy *policy);

/* The name of the first limit POLICY sets, or NULL when it sets none. */
const char *lcsb__policy_first_limit(const lcsb_policy *policy);

#endif
