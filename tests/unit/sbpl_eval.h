/* A small, independent reading of SBPL (Seatbelt's profile language) for the
 * tests: it parses a `sandbox-exec -p PROFILE -D KEY=VALUE ... -- CMD` argv
 * and answers "is OPERATION on PATH allowed?" the way the kernel decides,
 * last match wins. It shares no code with src/seatbelt.c, so a generator bug
 * is not mirrored here.
 *
 * Understood: (version 1), (allow|deny OPERATION... FILTER...), operation
 * wildcards (`file-read*`, `default`), the filters literal, subpath,
 * require-any and require-all, with
 * (param "KEY") resolved from the -D arguments. Several filters in one rule
 * mean any of them; a rule without a filter matches everything. A rule that
 * could match the asked operation but holds a filter this reader does not
 * know is an error, never a guess. */
#ifndef LCSB_TEST_SBPL_EVAL_H
#define LCSB_TEST_SBPL_EVAL_H

#include <stddef.h>

typedef struct sbpl_profile sbpl_profile;

/* Read ARGV (sandbox-exec first). NULL on a malformed argv or profile, with
 * the reason in ERR. */
sbpl_profile *sbpl_load(const char *const *argv, char *err, size_t err_size);
void sbpl_free(sbpl_profile *profile);

/* 1 allowed, 0 denied, -1 when the profile cannot be judged for this
 * question (an unknown filter, an undefined param, no rule at all). PATH is
 * the path a process names; it is resolved as macOS does first (/tmp, /var
 * and /etc lead into /private). */
int sbpl_allowed(const sbpl_profile *profile, const char *operation, const char *path);

/* The command sandbox-exec runs (argv after "--"); owned by the profile. */
const char *const *sbpl_command(const sbpl_profile *profile);

#endif
