/* Layer 3: the Capability's field table (capability.c), which the Lua
 * binding pushes as it is. */
#ifndef LCSB_CAPABILITY_H
#define LCSB_CAPABILITY_H

#include "fields.h"

#include <stdbool.h>
#include <stddef.h>

extern const lcsb__field lcsb__capability_fields[];

/* The directory of this process's cgroup on cgroup v2 (VERSION 2) or on
 * cgroup v1's memory hierarchy (1), where the shim makes the command's
 * memory cgroup; false where there is none (and off Linux). */
bool lcsb__own_cgroup_dir(int version, char *dir, size_t size);

#endif
