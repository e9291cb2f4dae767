/* Layer 5: the attestation's field table (attest.c), which the Lua binding
 * pushes as it is, and its keys for a writer that adds its own. */
#ifndef LCSB_ATTEST_H
#define LCSB_ATTEST_H

#include "fields.h"

extern const lcsb__field lcsb__attestation_fields[];

/* ATT's keys as lcsb_attestation_json writes them, into B without braces:
 * the field table's, then the lists it does not describe. A writer adds
 * its own keys after them (the script's attestation, script_attest.c). */
void lcsb__attestation_add_keys(lcsb__buf *b, const lcsb_attestation *att);

#endif
