/* Layer 3, impure: the checks every backend shares before anything runs
 * (rule 8), against the disk as it is now. */
#ifndef LCSB_VALIDATE_H
#define LCSB_VALIDATE_H

#include "policy.h"

/* A mechanism's other name for a path it will match (Seatbelt's /private
 * forms): into OUT (PATH_MAX + 16 bytes), 0, or -1 when there is none. */
typedef int (*lcsb__path_alias)(const char *path, char *out);

/* Every path exists and is named as it resolves (no symlink on the way, but
 * that ALIAS, when given, may name it); write paths stay out of the system;
 * with CHECK_EXEC, exec entries are files or directories that hold no system
 * prefix and are no symlink; the working directory exists. */
int lcsb__validate_paths(const lcsb_policy *policy, bool check_exec, lcsb__path_alias alias,
                         lcsb_error *err);
/* When the env overlay is in use and exec is allowlisted, the allowlist names
 * the env program that carries it. */
int lcsb__check_env_listed(const lcsb_policy *policy, lcsb_error *err);
/* FINAL fits execve's limits, with this process's environment. */
int lcsb__check_exec_size(const char *const *final, lcsb_error *err);

#endif
