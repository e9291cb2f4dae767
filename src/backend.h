/* Layer 3: the Backend object every mechanism builds on. A backend is a
 * small vtable and, behind it, its own state: each mechanism's file defines a
 * struct whose first member is `lcsb_backend` and constructs it; its ops
 * release what the state holds. Nothing here knows a mechanism by name. */
#ifndef LCSB_BACKEND_H
#define LCSB_BACKEND_H

#include "policy.h"

/* What an attest op returns for an argv that is not its mechanism's. */
#define LCSB__NOT_MINE 1

typedef struct lcsb__backend_ops {
    const char *name;
    /* A launcher prefix rides inside the mechanism (a container is a world);
     * outside, a host mechanism trusts host plumbing. */
    bool contains_prefix;
    /* The final argv starts with the mechanism itself, so that failing to
     * start it is a setup failure (false for none). */
    bool is_mechanism;
    /* The policy against this backend and the host, before anything runs. */
    int (*validate)(const lcsb_backend *b, const lcsb_policy *policy, lcsb_error *err);
    /* The pure rewrite of ARGV (rule 1): no syscall, no state. ENV names the
     * caller's variables the seam passes (lcsb_env_passed; NULL: none): a
     * mechanism that contains the prefix carries them into its world; a host
     * mechanism's command gets them from the environment it is spawned with. */
    int (*wrap)(const lcsb_backend *b, const lcsb_policy *policy, const char *const *argv,
                const char *const *env, lcsb__strv *out, lcsb_error *err);
    /* Read ARGV back as this mechanism's: 0 with OUT filled, LCSB__NOT_MINE,
     * or an error when it is this mechanism's but not as lcsb writes it. A
     * mechanism that contains the prefix gets the whole argv and PREFIX;
     * another gets what follows the prefix, and PREFIX NULL. NULL: nothing
     * to read (none). */
    int (*attest)(const char *const *argv, const char *const *prefix, lcsb_attestation *out,
                  lcsb_error *err);
    /* Does the mechanism make POLICY's private directories itself (in a
     * world of the command's own, where nothing of them touches the host)?
     * When not (NULL: never), the run makes them on the host (private.h). */
    bool (*makes_private)(const lcsb_backend *b, const lcsb_policy *policy);
    /* Release what the backend's state holds (NULL: nothing); the backend
     * itself is freed after. */
    void (*release)(lcsb_backend *b);
} lcsb__backend_ops;

struct lcsb_backend {
    const lcsb__backend_ops *ops;
};

/* The backend's wrap of ARGV, with ENV passed (NULL: none), into *OUT. */
int lcsb__backend_wrap_env(const lcsb_backend *b, const lcsb_policy *policy,
                           const char *const *argv, const char *const *env, char ***out,
                           lcsb_error *err);

/* A zeroed backend of SIZE bytes (a mechanism's struct) with OPS, into *OUT. */
int lcsb__backend_new(const lcsb__backend_ops *ops, size_t size, lcsb_backend **out,
                      lcsb_error *err);

#endif
