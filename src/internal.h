/* Everything inside liblcsb, for the test suites that look at its insides.
 * The library's own files include only the headers they use. */
#ifndef LCSB_INTERNAL_H
#define LCSB_INTERNAL_H
#include "backend.h"
#include "capture.h"
#include "changed.h"
#include "json.h"
#include "landlock.h"
#include "oci.h"
#include "path.h"
#include "policy.h"
#include "scope.h"
#include "seatbelt.h"
#include "sys.h"
#include "sysprefix.h"
#include "validate.h"
#endif
