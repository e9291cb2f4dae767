/* Layer 6: program resolution for the exec allowlist (resolve.c), asked of
 * the file system through a composition's facts. */
#ifndef LCSB_RESOLVE_H
#define LCSB_RESOLVE_H

#include "facts.h"
#include "lcsb.h"

/* lcsb_resolve_program, each question asked through FACTS (NULL: the host
 * directly). */
int lcsb__resolve_program(lcsb__facts *facts, const char *name, char ***out, lcsb_error *err);

#endif
