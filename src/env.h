/* Layer 5: the seam's environment (env.c): which of the caller's variables
 * pass (lcsb_env_passed, lcsb_env_block, in lcsb.h) and the env hop, which
 * prepare.c puts where the backend says the launcher rides. */
#ifndef LCSB_ENV_H
#define LCSB_ENV_H

#include "backend.h"
#include "policy.h"

#include <stdbool.h>

/* The variable every JVM reads its options from, where lcsb names the
 * proxy and the truststore to Java. */
#define LCSB__JAVA_OPTIONS "JAVA_TOOL_OPTIONS"

/* ARGV behind the env hop (`/usr/bin/env -u NAME -- NAME=VALUE ARGV`) when
 * POLICY has an overlay or PROXIED (a mechanism serves net.domains: the
 * proxy's variables too), else ARGV as it is; into *OUT, an lcsb argv.
 * LCSB_EINVAL for no command, or a command name the hop cannot carry. */
int lcsb__env_argv(const lcsb_policy *policy, bool proxied, const char *const *argv, char ***out,
                   lcsb_error *err) __attribute__((warn_unused_result));

#endif
