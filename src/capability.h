/* Layer 3: the Capability's field table (capability.c), which the Lua
 * binding pushes as it is. */
#ifndef LCSB_CAPABILITY_H
#define LCSB_CAPABILITY_H

#include "fields.h"

extern const lcsb__field lcsb__capability_fields[];

#endif
