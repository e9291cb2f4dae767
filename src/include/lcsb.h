/*
 * lcsb — run a command inside a kernel-enforced sandbox.
 *
 * Lifecycle: lcsb_policy_new() → describe it with the lcsb_policy_* setters
 * (they only record; nothing touches the kernel) → lcsb_detect() what the host
 * can do → lcsb_backend_select() one mechanism from that → lcsb_backend_validate()
 * the policy against it → lcsb_compose() the final argv (pure) or lcsb_run() it
 * (spawn, relay signals, wait, trailer) → free everything with its _free().
 * A host that writes policies in Lua uses lcsb_script_open() instead of the
 * setters: it runs the script and owns the policy and the run's private HOME.
 *
 * Errors: functions that can fail return 0 or a negative LCSB_E* code and,
 * when given a non-NULL `lcsb_error *`, fill it with a message naming the
 * offending thing. The library never exits, aborts or writes to stdout.
 *
 * Ownership: strings and arrays passed in are copied, or read only during the
 * call; the library keeps no pointer of the caller's past the call unless a
 * declaration says so. What it hands back is one of: an lcsb argv (freed with
 * lcsb_argv_free), a char * (freed with free), a handle (freed with its own
 * _free or _close), a static string, or memory owned by the object it came
 * from. Each declaration's first line says which.
 *
 * This is the one header a user includes. It is read in parts, each a header
 * of its own under lcsb/, in the order of the lifecycle; none of them is
 * meant to be included alone.
 */
#ifndef LCSB_H
#define LCSB_H

#include <stdbool.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(LCSB_BUILDING) && defined(__GNUC__)
#define LCSB_API __attribute__((visibility("default")))
#else
#define LCSB_API
#endif

#if defined(__GNUC__)
#define LCSB_NODISCARD __attribute__((warn_unused_result))
#else
#define LCSB_NODISCARD
#endif

#define LCSB_VERSION "0.1.0"

/* The closed set of error codes, lcsb_error, the CLI's exit statuses. */
#include "lcsb/errors.h"

/* What lcsb hands back as text: lcsb argvs, and text made safe for a terminal. */
#include "lcsb/text.h"

/* The Policy: what to enforce, in mechanism-free terms. */
#include "lcsb/policy.h"

/* The Capability: what this host can enforce. */
#include "lcsb/capability.h"

/* Backends: one mechanism each, configured once from a Capability. */
#include "lcsb/backend.h"

/* The seam: the argv and environment a run executes with. */
#include "lcsb/compose.h"

/* The attestation: what a final argv enforces, read back from it. */
#include "lcsb/attestation.h"

/* Preparing and running a command. */
#include "lcsb/run.h"

/* The placeholder runs share: an empty .git where there is no repository. */
#include "lcsb/hold.h"

/* What lcsb keeps between runs: caches per project, and plans. */
#include "lcsb/cache.h"

/* Policy scripts (Lua 5.4) and the trust they run under. */
#include "lcsb/script.h"

#ifdef __cplusplus
}
#endif
#endif
