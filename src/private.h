/* Layer 6, impure: a policy's private directories made on the host, where
 * no world of the command's own makes them (private.c). */
#ifndef LCSB_PRIVATE_H
#define LCSB_PRIVATE_H

#include "policy.h"

/* Makes each of POLICY's private directories (mode 0700) with its links,
 * by descriptor, never through a symlink. One that is there already is
 * taken only where this process made it (lcsb__private_made): an earlier
 * run's of the same policy, or a scope's, left as it was left; any other
 * is the host's, not a fresh directory, and is refused. Removing them is
 * the scope's that named them (scope.h). 0, or LCSB_ESYS naming what could
 * not be made. */
int lcsb__private_make(const lcsb_policy *policy, lcsb_error *err);

/* PATH, a directory lcsb just made to be private, remembered as this
 * process's own (held open: the same inode, never another's given its
 * number); lcsb__private_gone forgets it, before it is removed. 0; or
 * LCSB_ESYS when what is at PATH is not an empty directory of this user's
 * (the host put one of its own in its place); or LCSB_ENOMEM. */
int lcsb__private_made(const char *path, lcsb_error *err);
void lcsb__private_gone(const char *path);

#endif
