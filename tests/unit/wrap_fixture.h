/* What the wrap suites (test_sandbox_wrap_*.c) share: the backends and the
 * small policy their golden argvs are made of, and wrap and attest failing the
 * test on an error. All of it pure: wrap never looks at the shim. */
#ifndef LCSB_TESTS_WRAP_FIXTURE_H
#define LCSB_TESTS_WRAP_FIXTURE_H

#include "helpers.h"

#define SHIM "/opt/lcsb/libexec/lcsb-exec" /* wrap never looks at it */

lcsb_backend *landlock(int abi);
lcsb_backend *none(void);
/* A host with Landlock ABI 7, seccomp and the shim, but no user namespaces:
 * what lcsb_backend_select finds where no world of its own can be made. */
lcsb_capability host_without_userns(void);
/* read /usr, /etc (given out of order and once twice); exec /usr/bin/true; write /srv/w.
 * Every part may degrade, so that older ABIs wrap too. */
lcsb_policy *small_policy(lcsb_net net);
char **wrap(const lcsb_backend *b, const lcsb_policy *p, const char *const *argv);
lcsb_attestation attest(char **argv);
/* Replace the first FROM in *S by TO (reallocating); FROM must be there. */
void replace(char **s, const char *from, const char *to);

#endif
