/* Part of <lcsb.h>: what lcsb keeps between runs, which a host may list and
 * clear (the CLI's `lcsb cache`, and `lcsb cache --plans`): the caches kept
 * per project for exec_policy's cache = { "~/.npm" }, and the plans, each
 * policy exec_policy composed once. Apart because these are stores on the
 * user's disk, outside any one run. */
#ifndef LCSB_PUBLIC_CACHE_H
#define LCSB_PUBLIC_CACHE_H
#ifndef LCSB_H
#error "include <lcsb.h>: lcsb/cache.h is one part of it"
#endif

/* Each entry of a policy's cache list is a directory of the project's own,
 * in place of the user's (~/.npm, ~/.cache/pip), kept between runs of that
 * project and never shared with another: under $XDG_CACHE_HOME/lcsb/projects
 * (else ~/.cache/lcsb/projects), in a directory named after the project
 * and a hash of its real path. lcsb makes them as a run needs them; these
 * calls say where they are, list them and remove them. A cache directory
 * that is a symlink (lcsb, projects, or a project's) is refused. */

/* Writes the directory holding PROJECT's caches into the caller's OUT (SIZE
 * bytes; too small is LCSB_EINVAL); PROJECT is only read, taken by its real
 * path (NULL: the directory holding every project's). It need not exist. */
LCSB_API LCSB_NODISCARD int lcsb_cache_dir(const char *project, char *out, size_t size,
                                           lcsb_error *err);

/* One cache, as lcsb_cache_list gives it: NAME and PATH are allocated by
 * lcsb and freed with the list (lcsb_cache_list_free). */
typedef struct lcsb_cache_entry {
    char *name; /* "~/.npm", where the command sees it; for every project's: the project */
    char *path; /* where it is kept */
    unsigned long long bytes; /* the disk it takes, symlinks not followed */
    bool partial;             /* some of it could not be measured */
} lcsb_cache_entry;

/* Returns in *OUT a new array of PROJECT's caches, *N of them, which the
 * caller frees with lcsb_cache_list_free(); PROJECT is only read. Sorted by
 * where they are kept (PROJECT NULL: each project's directory); none (NULL
 * and 0) when lcsb made none. */
LCSB_API LCSB_NODISCARD int lcsb_cache_list(const char *project, lcsb_cache_entry **out, size_t *n,
                                            lcsb_error *err);
/* Frees ENTRIES, N of them as lcsb_cache_list gave them, strings included;
 * NULL-safe. */
LCSB_API void lcsb_cache_list_free(lcsb_cache_entry *entries, size_t n);
/* Removes PROJECT's caches (NULL: every project's) from the disk; PROJECT is
 * only read. A command may have
 * planted symlinks in its cache: removal never follows one, nor leaves the
 * cache's mount. 0 when there was nothing to remove; LCSB_ESYS naming what
 * is left. */
LCSB_API LCSB_NODISCARD int lcsb_cache_clear(const char *project, lcsb_error *err);

/* Plans: each policy exec_policy composed, kept per user in
 * $XDG_STATE_HOME/lcsb/plans and used by later runs while what it rests on
 * holds (docs/performance.md). A store that is not the user's own (another
 * owner, writable by others, a symlink) is refused: LCSB_EUNTRUSTED. */

/* Counts the plans kept into the caller's *COUNT, and the bytes they take
 * into *BYTES (none kept: 0 and 0), and writes the store's path into the
 * caller's STORE (STORE_SIZE bytes). */
LCSB_API LCSB_NODISCARD int lcsb_plans_list(size_t *count, unsigned long long *bytes, char *store,
                                            size_t store_size, lcsb_error *err);
/* Removes every plan kept (the next run of each policy composes it again);
 * how many into the caller's *REMOVED. */
LCSB_API LCSB_NODISCARD int lcsb_plans_clear(size_t *removed, lcsb_error *err);

#endif
