/* Layer 2, impure: what lcsb asked the file system while it composed a
 * policy, asked once. A policy with presets asks the same things hundreds of
 * times (every program's path, the ELF interpreter they share, the
 * directories above them); here each entry is looked up once (lstat), each
 * symlink read once, each directory listed once, each program's head read
 * once, and later questions are answered from what was seen. While
 * recording, every entry, listing and read is marked, for a plan to be
 * checked against later (plan.c).
 *
 * Every function takes NULL for FACTS: then it asks the host directly,
 * remembering nothing. Paths are absolute and lexically normal (no "." or
 * ".." components); any other is asked of the host directly, and, while
 * recording, makes what is recorded unfit for a plan. */
#ifndef LCSB_FACTS_H
#define LCSB_FACTS_H

#include "util.h"

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <time.h>

typedef struct lcsb__facts lcsb__facts;

lcsb__facts *lcsb__facts_new(void);
void lcsb__facts_free(lcsb__facts *facts);

/* Marks what is asked from now on (true), or stops marking (false). */
void lcsb__facts_record(lcsb__facts *facts, bool on);
/* When recording last began, by the file system's clock (lcsb__fs_now):
 * what changed after it may not be in what was asked. */
struct timespec lcsb__facts_since(const lcsb__facts *facts);
/* What asked while recording escaped the record (a relative path, one
 * with ".."), the first such path; NULL when nothing did. A plan may not
 * rest on a record that misses something. */
const char *lcsb__facts_unfit(const lcsb__facts *facts);

/* lstat(2) of PATH: 0 and *ST, or -1 and errno. */
int lcsb__facts_lstat(lcsb__facts *facts, const char *path, struct stat *st);
/* stat(2): symlinks followed. */
int lcsb__facts_stat(lcsb__facts *facts, const char *path, struct stat *st);
/* readlink(2) of PATH into OUT (PATH_MAX bytes, NUL-terminated): its length,
 * or -1 and errno. */
ssize_t lcsb__facts_readlink(lcsb__facts *facts, const char *path, char *out);
/* The longest way lcsb__facts_walk takes. */
#define LCSB__WALK_MAX (2 * PATH_MAX)
/* Walk PATH as the kernel resolves it, the way so far in AT (SIZE bytes, at
 * most LCSB__WALK_MAX): each component added ("." none, ".." taking the
 * last back), looked up, and a symlink's target put in front of what is
 * left, from the link's directory or from "/". STOP, when given, is asked
 * of each new AT (LEN bytes) before it is looked up, and true ends the walk
 * with 1. STRICT as realpath: a component missing, a link unread or a
 * non-directory with more to come ends it with -1 and errno; else the walk
 * goes on beneath it. More than 40 links (ELOOP) or a way longer than SIZE
 * (ENAMETOOLONG) is -1 either way. 0 at the end, AT the path walked ("" for
 * "/"). */
int lcsb__facts_walk(lcsb__facts *facts, const char *path, bool strict, char *at, size_t size,
                     bool (*stop)(void *ctx, const char *at, size_t len), void *ctx);
/* realpath(3) of PATH into OUT (PATH_MAX bytes): OUT, or NULL and errno. */
char *lcsb__facts_realpath(lcsb__facts *facts, const char *path, char *out);
/* Where PATH is, or would be once made (lcsb__realpath_where): its real
 * path, else its nearest existing ancestor's with the rest as written. */
char *lcsb__facts_realpath_where(lcsb__facts *facts, const char *path, char *out);
/* access(PATH, X_OK) == 0. */
bool lcsb__facts_executable(lcsb__facts *facts, const char *path);
/* The entries of directory PATH, sorted bytewise, without . and ..: names
 * into *NAMES (caller clears) and their d_type kinds ('f' file, 'd'
 * directory, 'l' symlink, 'o' other, '?' unknown) into *KINDS (caller
 * frees, NUL-terminated). 0, or -1 and errno. */
int lcsb__facts_listdir(lcsb__facts *facts, const char *path, lcsb__strv *names, char **kinds);
/* Does the directory DIR hold an entry NAME, by DIR's listing (made once,
 * and what a plan then rests on, as lcsb__facts_listdir's)? 1 it does, 0 it
 * does not, -1 cannot tell (no facts, DIR not there, not listable, or a
 * directory too large to list for one name): ask the entry itself. */
int lcsb__facts_dir_has(lcsb__facts *facts, const char *dir, const char *name);
/* Up to SIZE leading bytes of the regular file PATH (a program's head: ELF
 * headers or a #! line) into BUF, *GOT of them, and its mode in *MODE. 0,
 * or -1 and errno (EINVAL: not a regular file). */
int lcsb__facts_head(lcsb__facts *facts, const char *path, char *buf, size_t size, size_t *got,
                     mode_t *mode);

/* What was marked while recording, each once, in the order first marked. */
typedef enum lcsb__seen_kind {
    LCSB__SEEN_ENTRY,   /* looked up: its lstat (or that there is none) */
    LCSB__SEEN_LISTING, /* listed: which entries the directory holds */
    LCSB__SEEN_CONTENT, /* a program's head read (its ELF interpreter, its #! line) */
    LCSB__SEEN_READ,    /* a file the script's Lua read whole (a .python-version) */
} lcsb__seen_kind;

/* While recording, marks that the file at PATH (its real path), whose
 * descriptor showed ST, was read whole by the composition's Lua. */
void lcsb__facts_mark_read(lcsb__facts *facts, const char *path, const struct stat *st);

/* While recording, marks that what was asked of PATH escaped the record
 * (a file the kernel makes up as it is read: its times say nothing of what
 * it holds), so that no plan rests on it. */
void lcsb__facts_spoil(lcsb__facts *facts, const char *path);

/* While recording, marks what looking PATH up rests on: each entry on
 * the way, every symlink followed and its target, and the last one, or
 * that there is none; and what it leads to as a file read (its own times,
 * a mode changed among them). A file the composition's Lua could not read,
 * or read through links, is asked again when its plan is used. */
void lcsb__facts_mark_path(lcsb__facts *facts, const char *path);

typedef struct lcsb__seen {
    lcsb__seen_kind kind;
    const char *path; /* owned by the facts */
    int error;        /* the lstat's errno, 0 when it is there */
    struct stat st;   /* its lstat, when it is there */
} lcsb__seen;

/* Calls FN for each thing marked; stops at the first nonzero FN returns,
 * and returns that. */
int lcsb__facts_each_seen(const lcsb__facts *facts, int (*fn)(const lcsb__seen *, void *),
                          void *ctx);

#endif
