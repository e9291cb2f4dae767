/* lcsb-exec's seccomp filter: what Landlock does not hold (the terminal,
 * set-id bits, memfd execution, other keyrings, the process that waits for
 * the command, and every socket family but the policy's), refused in one
 * BPF program. */
#ifndef LCSB_SHIM_FILTERS_H
#define LCSB_SHIM_FILTERS_H

#include "wire.h"

/* Builds the program for H and installs it: the last step before exec, with
 * no_new_privs already set, as an unprivileged filter requires. Nothing to
 * install when seccomp is dropped and sockets are not restricted. On an
 * architecture the filter does not know, refuses unless the terminal is
 * dropped. */
int install_filters(const struct header *h);

#endif
