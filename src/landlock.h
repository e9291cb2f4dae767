/* Layer 4: the Landlock backend (landlock.c), its wire format's markers
 * (docs/wire-format.md) and its constructor for a detected host. */
#ifndef LCSB_LANDLOCK_H
#define LCSB_LANDLOCK_H

#include "backend.h"

/* The shim's name, and the header's argv marker, which attest recognises. */
#define LCSB__SHIM_NAME "lcsb-exec"
#define LCSB__WIRE_KEY "{\"lcsb-exec\":"
#define LCSB__WIRE_VERSION 5
#define LCSB__LANDLOCK_ABI_MAX 9
/* Each argv string holds at most this many bytes; the kernel's limit is 128 KiB. */
#define LCSB__WIRE_PART_MAX (120u * 1024u)

extern const lcsb__backend_ops lcsb__landlock_ops;

/* The Landlock backend for ABI (1..LCSB__LANDLOCK_ABI_MAX) and SHIM
 * (absolute), on a host with or without seccomp filters and mount namespaces,
 * and with the memory cgroup MEMORY_CGROUP (lcsb_capability's). */
int lcsb__landlock_new(int abi, const char *shim, bool seccomp, bool namespaces, int memory_cgroup,
                       lcsb_backend **out, lcsb_error *err);

#endif
