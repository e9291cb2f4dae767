/* The Seatbelt suites' shared helpers; see seatbelt_fixture.h. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h> /* after the four above, which it needs */

#include <string.h>

#include "seatbelt_fixture.h"

lcsb_backend *seatbelt(void) {
    lcsb_backend *b = NULL;
    lcsb_error err = {0};
    if (lcsb_backend_seatbelt(&b, &err)) fail_msg("seatbelt: %s", err.message);
    return b;
}

/* Wrap with the layers in ORDER; *RC gets the result, the argv or NULL. */
char **wrap_ordered(const lcsb_policy *p, const lcsb__seatbelt_layer *order,
                    const char *const *argv, int *rc, lcsb_error *err) {
    lcsb__strv sv = {0};
    *rc = lcsb__seatbelt_wrap_layers(p, order, argv, &sv, err);
    if (*rc) {
        lcsb__strv_clear(&sv);
        return NULL;
    }
    return lcsb__strv_take(&sv);
}

char **wrap(const lcsb_policy *p, const char *const *argv) {
    lcsb_backend *b = seatbelt();
    char **out = NULL;
    lcsb_error err = {0};
    int rc = lcsb_backend_wrap(b, p, argv, &out, &err);
    lcsb_backend_free(b);
    if (rc) fail_msg("wrap: %d %s", rc, err.message);
    return out;
}

sbpl_profile *load(char **argv) {
    char err[256] = "";
    sbpl_profile *pr = sbpl_load((const char *const *)argv, err, sizeof err);
    if (!pr) fail_msg("the evaluator cannot read the profile: %s", err);
    return pr;
}

/* OP on PATH must be WANT (1 allowed, 0 denied). */
void expect(const sbpl_profile *pr, const char *op, const char *path, int want) {
    int got = sbpl_allowed(pr, op, path);
    if (got != want)
        fail_msg("%s on %s: got %d, want %d (1 allowed, 0 denied, -1 cannot judge)", op, path, got,
                 want);
}
