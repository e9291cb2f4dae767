/* Layer 6, impure: the owner of a run's private directories (scope.c). */
#ifndef LCSB_SCOPE_H
#define LCSB_SCOPE_H

#include "util.h"

#include <stdint.h>

typedef struct lcsb__scope lcsb__scope;
lcsb__scope *lcsb__scope_new(void);
/* Create a fresh directory (mode 0700) owned by the scope; its path into OUT (PATH_MAX). */
int lcsb__scope_mkdtemp(lcsb__scope *scope, const char *label, char *out, lcsb_error *err);
/* A fresh name for a directory the scope will own, made by nobody yet:
 * the run makes it on the host (private.h), or the shim in the command's
 * world, where the host never sees it. Its path into OUT (PATH_MAX): beside
 * where mkdtemp would make it, its name unguessable and unused now. The
 * scope removes it at close when it is there, as one it made. */
int lcsb__scope_reserve(lcsb__scope *scope, const char *label, char *out, lcsb_error *err);
/* As lcsb__scope_reserve, taking instead the first of WANTED (a name a run
 * reserved before: NULL-terminated, may be NULL) that has the form such a
 * name of LABEL's has, where nothing is now. */
int lcsb__scope_reserve_as(lcsb__scope *scope, const char *label, const char *const *wanted,
                           char *out, lcsb_error *err);
/* Remove everything the scope owns, never following a symlink or crossing a
 * mount. Idempotent. 0, or LCSB_ESYS naming what was left behind. */
int lcsb__scope_close(lcsb__scope *scope, lcsb_error *err);
void lcsb__scope_free(lcsb__scope *scope); /* closes first; NULL-safe */

/* Remove the tree at PATH as a scope removes its directories: never
 * following a symlink, never leaving MOUNT (the mount PATH is on, from
 * lcsb__mount_of). A per-project cache is removed this way too. 0, or -1
 * when something was left. */
int lcsb__remove_tree(const char *path, uint64_t mount);

#endif
