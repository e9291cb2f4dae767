/* Part of <lcsb.h>: the seam, what a run executes: the argv a backend makes
 * of a policy and a command (the env overlay, the launcher prefix, the
 * mechanism's wrap) and the environment it is executed with. Apart because
 * this is what a host that spawns the command itself needs, and all of it
 * is pure: no file, descriptor or clock, but where a declaration says it
 * reads this process's environment.
 *
 * Each call only reads the backend, policy and arrays it is given, and
 * returns a new lcsb argv in *OUT (or *NAMES, *ENVP), which the caller frees
 * with lcsb_argv_free(); the argv holds copies, never the caller's
 * strings. */
#ifndef LCSB_PUBLIC_COMPOSE_H
#define LCSB_PUBLIC_COMPOSE_H
#ifndef LCSB_H
#error "include <lcsb.h>: lcsb/compose.h is one part of it"
#endif

/* Returns in *OUT a new lcsb argv, the env overlay as a prefix on ARGV
 * (`/usr/bin/env -u K -- K=V ARGV`); the caller frees it with
 * lcsb_argv_free(). */
LCSB_API LCSB_NODISCARD int lcsb_env_argv(const lcsb_policy *policy, const char *const *argv,
                                          char ***out, lcsb_error *err);
/* Returns in *NAMES a new lcsb argv, which the caller frees with
 * lcsb_argv_free(): the names of CALLER_ENV's variables ("NAME=VALUE"
 * strings; NULL: this process's environment) that reach the command under
 * BACKEND, sorted, each
 * once: the base set and the policy's pass entries (or everything, with
 * inherit), less the names it unsets. In a container the caller's PATH
 * passes only when a pass entry names it exactly: the world has its own.
 * Pure but for reading the environment when CALLER_ENV is NULL. */
LCSB_API LCSB_NODISCARD int lcsb_env_passed(const lcsb_backend *backend, const lcsb_policy *policy,
                                            const char *const *caller_env, char ***names,
                                            lcsb_error *err);
/* Returns in *ENVP a new lcsb argv, which the caller frees with
 * lcsb_argv_free(): the environment to execute lcsb_compose's argv with, as
 * "NAME=VALUE" strings copied from CALLER_ENV (NULL: this process's). Under a
 * host mechanism (and none) the variables lcsb_env_passed names, first
 * occurrence of each; under a container's, all of CALLER_ENV, which the
 * engine needs (the container gets only the names passed, by --env=NAME).
 * The overlay (set, unset) is not in it: it rides on the argv. lcsb_run
 * spawns with this; a host that spawns the argv itself must too. */
LCSB_API LCSB_NODISCARD int lcsb_env_block(const lcsb_backend *backend, const lcsb_policy *policy,
                                           const char *const *caller_env, char ***envp,
                                           lcsb_error *err);
/* Returns in *OUT a new lcsb argv, which the caller frees with
 * lcsb_argv_free(): the backend's pure rewrite of ARGV. Passes no variable
 * into a container: lcsb_compose does. */
LCSB_API LCSB_NODISCARD int lcsb_backend_wrap(const lcsb_backend *backend,
                                              const lcsb_policy *policy, const char *const *argv,
                                              char ***out, lcsb_error *err);
/* Returns in *OUT a new lcsb argv, which the caller frees with
 * lcsb_argv_free(): env_argv, then PREFIX (may be NULL) placed per
 * contains_prefix, then wrap: the argv that lcsb_run executes, with
 * lcsb_env_block's environment. Pure,
 * but for a container's backend, whose argv names the variables passed
 * (--env=NAME, read from this process's environment: lcsb_env_passed). */
LCSB_API LCSB_NODISCARD int lcsb_compose(const lcsb_backend *backend, const lcsb_policy *policy,
                                         const char *const *prefix, const char *const *argv,
                                         char ***out, lcsb_error *err);

#endif
