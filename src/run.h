/* Layer 6, impure: what lcsb_run (run.c) shares with the runner
 * (runner.c), the parts of a run both make, the same for a world made at
 * the call and one made ahead. */
#ifndef LCSB_RUN_H
#define LCSB_RUN_H

#include "backend.h"

/* lcsb's proxy for a run under net.domains (run.c's). */
typedef struct net_serve net_serve;

/* RESULT of a run that a relayed signal stopped before its command
 * started (lcsb__relay_pending): nothing ran, and nothing will. */
void lcsb__run_signalled_before(lcsb_run_result *result, int sig);
/* FINAL spawned and waited for, its signals relayed meanwhile; NET the
 * proxy to serve while the command runs (NULL: none). */
int lcsb__run_spawn_and_wait(const lcsb_backend *b, const lcsb_policy *policy,
                             const char *const *final, bool is_mechanism, const char *shim,
                             const lcsb_run_options *opts, net_serve *net, lcsb_run_result *result,
                             lcsb_error *err);
/* The shim in FINAL when the run records refusals: Landlock's, which
 * follows the launcher prefix. NULL otherwise. */
const char *lcsb__run_recording_shim(const lcsb_run_options *opts, const lcsb_attestation *att,
                                     char *const *final);
/* OPTS (NULL: the defaults) into GIVEN, checked for B. */
int lcsb__run_take_options(const lcsb_backend *b, const lcsb_run_options *opts,
                           lcsb_run_options *given, lcsb_error *err);
/* On a nonzero exit, what lcsb says after the command's stderr: its note
 * and the trailer. */
void lcsb__run_after(const char *command, const lcsb_run_options *opts,
                     const lcsb_run_result *result);

#endif
