/* The command's memory cgroup (wire format "limits" "cgroup"): what holds
 * "memory" for every process of the command together, and for what none of
 * them holds (shared memory, memfds, tmpfs pages), which the kernel charges
 * to the cgroup of the process that faulted them in. */
#ifndef LCSB_SHIM_CGROUP_H
#define LCSB_SHIM_CGROUP_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "wire.h"

struct cgroup {
    enum cgroup_kind kind; /* CGROUP_NONE: there is none */
    pid_t owner;           /* the process that made it, which alone removes it */
    int parent;            /* the shim's own cgroup, a directory */
    int dir;               /* the command's, "lcsb-PID" below it */
    int procs;             /* its cgroup.procs, open for writing */
    char name[32];
};

#define CGROUP_INIT {.kind = CGROUP_NONE, .parent = -1, .dir = -1, .procs = -1}

/* Makes the command's cgroup on KIND's hierarchy, a child of the one the
 * shim runs in, holding BYTES of memory (and no swap beyond them), and
 * opens its cgroup.procs: before any namespace, while the shim's
 * credentials are the caller's, which the kernel checks a move against.
 * Removes what earlier runs killed before their end left behind. */
int cgroup_make(enum cgroup_kind kind, uint64_t bytes, struct cgroup *cg);

/* In the init, before anything else: the init, and so every process the
 * command starts, joins the cgroup. */
int cgroup_join(struct cgroup *cg);

/* Did the kernel kill a process of the cgroup for want of memory? */
bool cgroup_out_of_memory(const struct cgroup *cg);

/* Removes the cgroup once no process is left in it; in its owner only (a
 * no-op elsewhere, and when there is none). A cgroup that cannot be removed
 * is said, and left for the next run to remove. */
void cgroup_remove(struct cgroup *cg);

#endif
