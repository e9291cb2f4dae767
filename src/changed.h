/* Layer 6, impure: what in a tree was created or changed since a moment, by
 * name (changed.c). lcsb walks the project after a run with it to find the
 * files that tools run later (lua/lcsb/run_later.lua says which). */
#ifndef LCSB_CHANGED_H
#define LCSB_CHANGED_H

#include "util.h"

#include <sys/types.h>
#include <time.h>

/* How a watched entry is looked at. */
typedef enum lcsb__watch_how {
    LCSB__WATCH_SELF,   /* the entry itself */
    LCSB__WATCH_TREE,   /* the entry and everything below it */
    LCSB__WATCH_INSIDE, /* the entry's INSIDE list */
} lcsb__watch_how;

/* What an entry must be for a watch to match it. */
typedef enum lcsb__watch_kind {
    LCSB__KIND_ANY,
    LCSB__KIND_LINK, /* a symlink */
    /* A directory git takes for a repository (HEAD, and objects, refs or
     * commondir beside it): matched as the walk is about to enter it, which
     * it then does not, but for its modules directory (submodules' own). */
    LCSB__KIND_GITDIR,
} lcsb__watch_kind;

typedef struct lcsb__watch {
    /* A file name, matched at any depth; or "/REL", the one path REL from
     * the root, which a name match for the same entry gives way to. Either
     * may be a pattern (fnmatch: *, ?, [...]; "/" only where a "/" is),
     * which an exact name gives way to. */
    const char *name;
    lcsb__watch_how how;
    /* LCSB__WATCH_INSIDE, NULL-terminated: "." the entry itself, "NAME" an
     * entry in it, "*" each entry in it, and NAME with "/" and "*" after it
     * each entry in NAME. An entry that is no directory (a symlink put
     * where one was) is looked at as itself. */
    const char *const *inside;
    /* NULL, or the names (NULL-terminated) of the directory the entry must
     * be directly in. */
    const char *const *parents;
    lcsb__watch_kind kind;
} lcsb__watch;

typedef struct lcsb__walk_opts {
    struct timespec since;
    const lcsb__watch *watch;
    size_t watch_n;
    const char *const *skip; /* directories never entered, NULL-terminated (or NULL) */
    /* Names of directories a package manager installs into, below which
     * only each package's root is listed (LCSB__WALK_SHALLOW levels, a
     * scope like @types not counted), NULL-terminated (or NULL). */
    const char *const *shallow;
    size_t entries_max; /* 0: LCSB__WALK_ENTRIES */
    unsigned depth_max; /* 0: LCSB__WALK_DEPTH */
} lcsb__walk_opts;

#define LCSB__WALK_ENTRIES 1000000
#define LCSB__WALK_DEPTH 100
#define LCSB__WALK_SHALLOW 1
/* At most this many changed paths are named per entry; the rest are counted. */
#define LCSB__WALK_PARTS 16
/* At most this many entries are found: then the walk stops (full). */
#define LCSB__WALK_FOUND 10000

typedef struct lcsb__changed_entry {
    char *path;       /* from the root */
    const char *kind; /* "file", "dir", "link" or "other" */
    size_t watch;     /* which watch found it */
    dev_t dev;        /* which file it is (0 and 0 for a TREE watch's) */
    ino_t ino;
    /* TREE and INSIDE: what changed in it, from it ("." for itself), the
     * first LCSB__WALK_PARTS of PARTS_N. */
    lcsb__strv parts;
    size_t parts_n;
} lcsb__changed_entry;

/* Where the walk could not look: the first such directory and how many. */
typedef struct lcsb__unseen {
    char *first;
    size_t n;
    int error; /* errno for the first, for unreadable ones */
} lcsb__unseen;

typedef struct lcsb__changed {
    lcsb__changed_entry *v;
    size_t n;
    size_t visited;          /* entries looked at */
    bool cut;                /* stopped at entries_max: the rest went unseen */
    bool full;               /* stopped at LCSB__WALK_FOUND entries found */
    lcsb__unseen deep;       /* directories past depth_max (or PATH_MAX) */
    lcsb__unseen unreadable; /* that could not be opened, changed or searchable */
} lcsb__changed;

/* Walk ROOT, never following a symlink, entering a directory named .git or
 * leaving ROOT's mount, and put in OUT each watched entry that changed
 * (its ctime no earlier than SINCE) and what the walk could not see. OUT is
 * the caller's to free with lcsb__changed_free (on failure too). 0,
 * LCSB_ESYS (ROOT cannot be opened) or LCSB_ENOMEM. */
int lcsb__changed_walk(const char *root, const lcsb__walk_opts *opts, lcsb__changed *out,
                       lcsb_error *err);
void lcsb__changed_free(lcsb__changed *c);

/* Is CTIME no earlier than SINCE? A ctime whose nanoseconds end in zeros
 * may have been cut to the coarser clock of its file system; SINCE is cut
 * the same way, which errs towards "changed". */
bool lcsb__changed_since(struct timespec ctime, struct timespec since);

#endif
