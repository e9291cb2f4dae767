/* Layer 6: a run's interception, lcsb_run's side of it. Where a rule
 * (net.domains' methods= and paths=) or a secret has lcsb's proxy read a
 * host's requests: the run's authority and the bundle of certificates the
 * command trusts, in a directory of lcsb's own (proxy_tls.h); the policy's
 * secrets, each with its value from lcsb's own environment and a
 * placeholder the command holds instead (secrets.h); and the values of
 * lcsb's variables the command was not given, which no request the proxy
 * reads may carry. */
#ifndef LCSB_INTERCEPT_H
#define LCSB_INTERCEPT_H

#include "policy.h"
#include "proxy_tls.h"
#include "secrets.h"

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>

typedef struct lcsb__interception {
    lcsb__tls *tls; /* NULL: no interception in this run */
    char bundle_dir[PATH_MAX - 32];
    int bundle_fd; /* bundle_dir open (and locked), plus one: 0 for none */
    char bundle[PATH_MAX];
    char truststore[PATH_MAX]; /* the bundle for Java */
    /* The policy's secrets, then the values withheld (hosts_n 0). */
    lcsb__secret *secrets;
    size_t secrets_n, secrets_cap;
    /* Whether the process was dumpable before the run, plus one (0: not
     * changed): it holds the values and the authority's key meanwhile. */
    int dumpable;
} lcsb__interception;

/* Does POLICY have the proxy read requests: a rule, or a secret? */
bool lcsb__interception_needed(const lcsb_policy *policy);
/* IC (zeroed) opened for POLICY's run, the process made not dumpable
 * until it closes (no core file, no /proc/PID/mem for the user's other
 * processes, while it holds the values and the key): the authority, the bundle and its
 * Java truststore, the secrets; TOLD, the policy the command runs under,
 * then reads both, names them to the command's clients and gives the command each secret's
 * placeholder under the secret's name. 0, or why not (a secret's variable
 * not set among them); IC is closed either way by lcsb__interception_close. */
int lcsb__interception_open(lcsb__interception *ic, const lcsb_policy *policy, lcsb_policy *told,
                            lcsb_error *err);
/* Is ENTRY ("NAME=value", of an environment) one of IC's secrets? The
 * mechanism is not handed the value either, in its own environment, which
 * a process in the sandbox might read. */
bool lcsb__interception_names_secret(const lcsb__interception *ic, const char *entry);
/* The values of lcsb's variables that look sensitive and that BLOCK (the
 * environment the command is spawned with) does not hold, noted in IC;
 * refused (LCSB_EINVAL) when BLOCK holds a secret's value itself (a
 * variable env.pass names that holds it too). 0, or an error. */
int lcsb__interception_note_withheld(lcsb__interception *ic, char *const *block, lcsb_error *err);
/* Refused (LCSB_EINVAL) when ARGV (the command's) or FINAL (the argv that
 * runs it, the variables the policy sets among its words) holds the value
 * of one of IC's secrets, which the command must never have: 0, or the
 * error. */
int lcsb__interception_check_given(const lcsb__interception *ic, const char *const *argv,
                                   char *const *final, lcsb_error *err);
/* Everything of IC's let go: the values wiped, the bundle and the
 * truststore removed. */
void lcsb__interception_close(lcsb__interception *ic);

#endif
