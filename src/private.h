/* Layer 6, impure: a policy's private directories made on the host, where
 * no world of the command's own makes them (private.c). */
#ifndef LCSB_PRIVATE_H
#define LCSB_PRIVATE_H

#include "policy.h"

/* Makes each of POLICY's private directories (mode 0700) with its links,
 * by descriptor, never through a symlink. One that is there already, a
 * directory of this user's, is an earlier run's of the same policy and is
 * left as that run left it. Removing them is the scope's that named them
 * (scope.h). 0, or LCSB_ESYS naming what could not be made. */
int lcsb__private_make(const lcsb_policy *policy, lcsb_error *err);

#endif
