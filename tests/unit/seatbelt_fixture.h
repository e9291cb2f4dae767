/* What the Seatbelt suites (test_sandbox_seatbelt_*.c) share: the backend,
 * wrap failing the test on an error, and the tests' own last-match-wins
 * reading of SBPL (sbpl_eval.c) to judge what a profile allows. Nothing here
 * needs macOS. */
#ifndef LCSB_TESTS_SEATBELT_FIXTURE_H
#define LCSB_TESTS_SEATBELT_FIXTURE_H

#include "helpers.h"
#include "internal.h"
#include "sbpl_eval.h"

lcsb_backend *seatbelt(void);
/* Wrap with the layers in ORDER; *RC gets the result, the argv or NULL. */
char **wrap_ordered(const lcsb_policy *p, const lcsb__seatbelt_layer *order,
                    const char *const *argv, int *rc, lcsb_error *err);
char **wrap(const lcsb_policy *p, const char *const *argv);
sbpl_profile *load(char **argv);
/* OP on PATH must be WANT (1 allowed, 0 denied). */
void expect(const sbpl_profile *pr, const char *op, const char *path, int want);

#define READ "file-read-data"
#define WRITE "file-write-data"
#define EXEC "process-exec"

#endif
