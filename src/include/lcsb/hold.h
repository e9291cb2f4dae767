/* Part of <lcsb.h>: the placeholder runs share, the empty .git that keeps a
 * command from making a repository where there is none. Apart because it is
 * a thing on disk held across runs, by a lock, which a host that builds its
 * policy in C makes itself (exec_policy makes it for a policy script). */
#ifndef LCSB_PUBLIC_HOLD_H
#define LCSB_PUBLIC_HOLD_H
#ifndef LCSB_H
#error "include <lcsb.h>: lcsb/hold.h is one part of it"
#endif

typedef struct lcsb_hold lcsb_hold;

/* Holds the directory PATH (absolute; copied) for this run into *OUT (NULL
 * on failure), which the caller lets go of with lcsb_hold_release(); the hold
 * keeps a descriptor of PATH open (close-on-exec) and locked until then.
 * Makes PATH, or takes it as it is when it is an empty
 * directory: runs that share it hold it together,
 * and the last to release it removes it. Mount it read-only in the run
 * (lcsb_policy_add_protect) and git passes over it as no repository.
 * *UNWRITABLE (may be NULL) is set when the caller may not make PATH: then
 * neither may a command it runs, and there is nothing to hold. */
LCSB_API LCSB_NODISCARD int lcsb_hold_acquire(const char *path, lcsb_hold **out, bool *unwritable,
                                              lcsb_error *err);
/* Lets go of HOLD and frees it, whatever it returns (NULL-safe). PATH is
 * removed when no other run holds it; LCSB_ESYS when that removal fails
 * (something was made in it). */
LCSB_API int lcsb_hold_release(lcsb_hold *hold, lcsb_error *err);

#endif
