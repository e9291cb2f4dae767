/* The wrap suites' shared backends and builders; see wrap_fixture.h. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h> /* after the four above, which it needs */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wrap_fixture.h"

lcsb_backend *landlock(int abi) { return landlock_backend(abi, SHIM); }

lcsb_capability host_without_userns(void) {
    lcsb_capability cap;
    memset(&cap, 0, sizeof cap);
    cap.landlock_abi = 7;
    cap.seccomp = true;
    cap.shim_found = true;
    snprintf(cap.shim, sizeof cap.shim, "%s", SHIM);
    return cap;
}

lcsb_backend *none(void) {
    lcsb_backend *b = NULL;
    lcsb_error err = {0};
    if (lcsb_backend_none(&b, &err)) fail_msg("none: %s", err.message);
    return b;
}

/* read /usr, /etc (given out of order and once twice); exec /usr/bin/true; write /srv/w.
 * Every part may degrade, so that older ABIs wrap too; what each drops is
 * checked by the golden cases. */
lcsb_policy *small_policy(lcsb_net net) {
    lcsb_policy *p = new_policy();
    add(p, LCSB_TIER_READ, "/usr");
    add(p, LCSB_TIER_READ, "/etc/");
    add(p, LCSB_TIER_READ, "//usr");
    add(p, LCSB_TIER_EXEC, "/usr/bin/true");
    add(p, LCSB_TIER_WRITE, "/srv/w");
    lcsb_policy_set_net(p, net);
    lcsb_policy_set_degradable(p, LCSB_PARTS_ALL);
    return p;
}

char **wrap(const lcsb_backend *b, const lcsb_policy *p, const char *const *argv) {
    char **out = NULL;
    lcsb_error err = {0};
    int rc = lcsb_backend_wrap(b, p, argv, &out, &err);
    if (rc) fail_msg("wrap: %d %s", rc, err.message);
    return out;
}

lcsb_attestation attest(char **argv) {
    lcsb_attestation a;
    lcsb_error err = {0};
    int rc = lcsb_attest((const char *const *)argv, NULL, &a, &err);
    if (rc) fail_msg("attest: %d %s", rc, err.message);
    return a;
}

void replace(char **s, const char *from, const char *to) {
    char *n = replaced(*s, from, to);
    free(*s);
    *s = n;
}
