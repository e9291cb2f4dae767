/* Layer 3: detection (detect.c): the host asked what it can enforce, in
 * parts, and the Capability's field table, which the Lua binding pushes as
 * it is. */
#ifndef LCSB_DETECT_H
#define LCSB_DETECT_H

#include "fields.h"
#include "lcsb.h"

#include <stdbool.h>
#include <stddef.h>

extern const lcsb__field lcsb__capability_fields[];

/* What lcsb_detect asks the host, in parts: a run asks only for what its
 * policy needs (each costs system calls, the cgroup's reads of
 * /proc/self/mountinfo most). The kernel's part is always asked (the
 * Landlock ABI, seccomp, namespaces). */
enum {
    LCSB__DETECT_SHIM = 1u << 0,          /* where lcsb-exec is */
    LCSB__DETECT_MEMORY_CGROUP = 1u << 1, /* for limits.memory */
    LCSB__DETECT_OCI_ENGINE = 1u << 2,    /* podman or docker on PATH */
    LCSB__DETECT_ALL = (1u << 3) - 1,
};
/* lcsb_detect, with only the parts WANT names filled in (the rest zero). */
int lcsb__detect(lcsb_capability *cap, const char *shim, unsigned want, lcsb_error *err);

/* The directory of this process's cgroup on cgroup v2 (VERSION 2) or on
 * cgroup v1's memory hierarchy (1), where the shim makes the command's
 * memory cgroup; false where there is none (and off Linux). */
bool lcsb__own_cgroup_dir(int version, char *dir, size_t size);

#endif
