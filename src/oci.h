/* Layer 4: the OCI backend (oci.c): a policy as a container's world. */
#ifndef LCSB_OCI_H
#define LCSB_OCI_H

#include "backend.h"

/* Its state, visible to the tests that hold the host's facts still. */
typedef struct lcsb__oci_backend {
    lcsb_backend base;
    /* The engine (a path, or its bare name when none was found), its kind,
     * the world and the caller's ids the container runs as. */
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
} lcsb__oci_backend;

extern const lcsb__backend_ops lcsb__oci_ops;

/* The mount table, pure: each path of the policy the container sees, and
 * each directory that holds a protected or hidden path in place
 * (lcsb__policy_pins), read-only or read-write, parents before children.
 * IMAGE_WORLD leaves the system's trees to the image. The caller frees the
 * table with lcsb__oci_mounts_free. */
typedef struct lcsb__oci_mount {
    char *path;
    bool rw;
} lcsb__oci_mount;
int lcsb__oci_mounts(const lcsb_policy *policy, bool image_world, lcsb__oci_mount **out,
                     size_t *count);
void lcsb__oci_mounts_free(lcsb__oci_mount *mounts, size_t count);

#endif
