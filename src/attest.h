/* Layer 5: the attestation's field table (attest.c), which the Lua binding
 * pushes as it is. */
#ifndef LCSB_ATTEST_H
#define LCSB_ATTEST_H

#include "fields.h"

extern const lcsb__field lcsb__attestation_fields[];

#endif
