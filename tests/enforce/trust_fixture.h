/* What the trust suites share (test_sandbox_enforce_trust.c,
 * test_sandbox_enforce_trust_accept.c), beside enforce_fixture.h: each case
 * keeps its trust store and its config in OUTSIDE, and runs lcsb checking
 * trust, as a user would. */
#ifndef LCSB_TESTS_TRUST_FIXTURE_H
#define LCSB_TESTS_TRUST_FIXTURE_H

#include <stdbool.h>

#include "enforce_fixture.h"

/* XDG_STATE_HOME=OUTSIDE/state, and XDG_CONFIG_HOME in OUTSIDE too. */
const char *const *trust_env(const fx *f);
/* `lcsb [--backend BACKEND] [--attest -] POLICY -- CMD...` from the project,
 * checking trust, into P. */
void run_checked(fx *f, const char *backend, const char *policy_path, const char *const *cmd,
                 bool attest);
/* `lcsb trust POLICY_PATH` from the project, which must succeed. */
void trust(fx *f, const char *policy_path);

#endif
