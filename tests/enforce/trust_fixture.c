/* What the trust suites share: trust_fixture.h says what. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h> /* after the four above, which it needs */

#include <limits.h>
#include <stdbool.h>
#include <stdio.h>

#include "trust_fixture.h"

/* XDG_STATE_HOME=OUTSIDE/state, and XDG_CONFIG_HOME in OUTSIDE too. */
static char state_env[PATH_MAX + 32], config_env[PATH_MAX + 32];

const char *const *trust_env(const fx *f) {
    snprintf(state_env, sizeof state_env, "XDG_STATE_HOME=%s/state", f->outside);
    snprintf(config_env, sizeof config_env, "XDG_CONFIG_HOME=%s/config", f->outside);
    static const char *env[3];
    env[0] = state_env;
    env[1] = config_env;
    env[2] = NULL;
    return env;
}

/* `lcsb [--backend BACKEND] [--attest -] POLICY -- CMD...` from the project,
 * checking trust, into P. */
void run_checked(fx *f, const char *backend, const char *policy_path, const char *const *cmd,
                 bool attest) {
    const char *argv[MAX_ARGV];
    size_t n = 0;
    argv[n++] = LCSB_CLI_PATH;
    argv[n++] = "--backend";
    argv[n++] = backend;
    if (attest) {
        argv[n++] = "--attest";
        argv[n++] = "-";
    }
    argv[n++] = policy_path;
    argv[n++] = "--";
    for (size_t i = 0; cmd[i]; i++) argv[n++] = cmd[i];
    argv[n] = NULL;
    run_child(f->project, argv, trust_env(f), &P);
}

void trust(fx *f, const char *policy_path) {
    run_child(f->project, CMD(LCSB_CLI_PATH, "trust", policy_path), trust_env(f), &P);
    if (P.status != 0) describe("lcsb trust", CMD("trust", policy_path), &P);
    assert_int_equal(P.status, 0);
    assert_contains(P.err, "trusted", "lcsb trust's stderr");
}
