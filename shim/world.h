/* The command's world (wire format "world": "policy"): a root that holds
 * only what the policy names, built in the namespaces of namespaces.h. */
#ifndef LCSB_SHIM_WORLD_H
#define LCSB_SHIM_WORLD_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "wire.h"

/* A rule on a path build_world has open already: FD (O_PATH, reached in the
 * new root without a symlink), of mode MODE; CTX is the sink's. */
typedef int (*rule_on_fd)(void *ctx, int fd, mode_t mode, const char *path, uint64_t access);

/* In the new pid namespace's init: enters a mount namespace of its own,
 * builds the root from the policy on argv
 * (read again here, sorted, so that a directory is mounted before what lies
 * in it), hands every path to RULES->on_path once it exists in the new root
 * (to ON_FD when it holds it open already) and every port to
 * RULES->on_port, hides and protects what the header says, mounts a fresh
 * /proc, and enters the working directory again. EXTRA (NULL: none) is one
 * more file placed so, with rights EXTRA_ACCESS: lcsb's recorder. */
int build_world(char **argv, int argc, int dashdash, const struct header *h,
                const struct policy_sink *rules, rule_on_fd on_fd, const char *extra,
                uint64_t extra_access);

#endif
