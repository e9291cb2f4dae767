/* Layer 6: program resolution for the exec allowlist (resolve.c), asked of
 * the file system through a composition's facts. */
#ifndef LCSB_RESOLVE_H
#define LCSB_RESOLVE_H

#include "facts.h"
#include "lcsb.h"

/* lcsb_resolve_program, each question asked through FACTS (NULL: the host
 * directly). */
int lcsb__resolve_program(lcsb__facts *facts, const char *name, char ***out, lcsb_error *err);
/* The same, and where NAME itself was found: the path as named, or the
 * first PATH entry's that holds it, its last part not resolved (LOCATED:
 * PATH_MAX bytes, or NULL; what it holds after a failure is unspecified). */
int lcsb__resolve_program_at(lcsb__facts *facts, const char *name, char ***out, char *located,
                             lcsb_error *err);

#endif
