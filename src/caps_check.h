/* Layer 6: the caps' insides and the check (caps_check.c): what the caps
 * files say, merged, and a policy held to them by path and by real path.
 * The files are read as Lua data a layer up (caps.c, caps.h); the check
 * needs none of Lua, only the merged data and the file system, so it sits
 * below them. */
#ifndef LCSB_CAPS_CHECK_H
#define LCSB_CAPS_CHECK_H

#include "sha256.h"
#include "util.h"

#include <limits.h>
#include <stdbool.h>

/* Whose file a cap comes from, in the order they are merged; lcsb's own
 * files and directories are capped by lcsb itself. */
typedef enum lcsb__caps_role {
    LCSB__CAPS_DEFAULTS,
    LCSB__CAPS_SYSTEM,
    LCSB__CAPS_USER,
    LCSB__CAPS_ROLES,
    LCSB__CAPS_OWN = LCSB__CAPS_ROLES
} lcsb__caps_role;

/* A list of paths: as the file wrote them, and as absolute normal paths
 * ("" for a "~" entry when HOME is unknown). */
typedef struct lcsb__caps_path_list {
    lcsb__strv written, path;
} lcsb__caps_path_list;

/* What one file says. */
typedef struct lcsb__caps_layer {
    bool present;
    char path[PATH_MAX]; /* where it is, or would be; "" for none */
    char sha256[LCSB__SHA256_HEX];
    lcsb__caps_path_list deny, deny_write, allow;
    int net;      /* an lcsb__caps_net rank, or -1 when not said */
    int exec_any; /* 0, 1, or -1 when not said */
    bool degrade_said;
    unsigned degrade; /* the parts a policy may let degrade */
} lcsb__caps_layer;

typedef enum lcsb__cap_kind { LCSB__CAP_DENY, LCSB__CAP_DENY_WRITE } lcsb__cap_kind;

/* One path the caps keep from projects. */
typedef struct lcsb__cap_path {
    const char *path;    /* absolute and normal */
    const char *written; /* as its file wrote it */
    lcsb__cap_kind kind;
    lcsb__caps_role from;
} lcsb__cap_path;

/* The caps in force: each file's layer, and every capped path, merged. */
typedef struct lcsb__caps {
    lcsb__caps_layer layers[LCSB__CAPS_ROLES];
    lcsb__cap_path *paths;
    size_t n;
    lcsb__strv own; /* lcsb's own configuration and state */
} lcsb__caps;

/* How much of the network a policy reaches, for the cap: named hosts
 * through lcsb's proxy are less than TCP ports to any host. */
enum lcsb__caps_net {
    LCSB__CAPS_NET_NONE,
    LCSB__CAPS_NET_DOMAINS,
    LCSB__CAPS_NET_PORTS,
    LCSB__CAPS_NET_OPEN
};
/* The ranks as a caps file writes them. */
extern const char *const lcsb__caps_net_names[];

/* POLICY within CAPS: 0, or LCSB_EINVAL naming (after NAME, the policy's
 * file) the cap, what the policy asked for, the file that sets the cap and
 * what to change. Reads the file system (real paths). */
int lcsb__caps_check(const lcsb__caps *caps, const lcsb_policy *policy, const char *name,
                     lcsb_error *err) __attribute__((warn_unused_result));

#endif
