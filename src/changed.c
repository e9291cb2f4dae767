/* What in a tree was created or changed since a moment, for the entries a
 * caller watches by name. After a run the tree is the project, the command
 * may have left anything in it (symlink loops, directories without end,
 * unreadable ones), and the walk trusts none of it: it works on descriptors,
 * never follows a symlink, never enters a .git directory or another mount,
 * and stops at a depth and a number of entries, saying where it could not
 * look. A change is a ctime no earlier than the start: the kernel sets ctime
 * on every write, rename, link and chmod, and to now on utimes, so the
 * command can neither avoid nor backdate it. */
#include "changed.h"

#include "sys.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <limits.h>
#include <linux/openat2.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

/* A directory read by getdents64 on a descriptor of the walk's own:
 * readdir's fdopendir asks fcntl twice for each of a project's thousand
 * directories, for nothing the walk needs. */
#define LISTING_BYTES 32768
typedef struct listing {
    int fd;
    size_t pos, len;
    char *buf;
} listing;

struct linux_dirent64 {
    uint64_t d_ino;
    int64_t d_off;
    unsigned short d_reclen;
    unsigned char d_type;
    char d_name[];
};

/* FD as a listing (which closes it); false, FD closed, without memory. */
static bool listing_open(listing *l, int fd) {
    *l = (listing){.fd = fd, .buf = malloc(LISTING_BYTES)};
    if (!l->buf) close(fd);
    return l->buf != NULL;
}

static void listing_close(listing *l) {
    free(l->buf);
    close(l->fd);
}

/* The next entry, or NULL at the end (errno 0) or on an error (errno set). */
static struct linux_dirent64 *listing_next(listing *l) {
    if (l->pos >= l->len) {
        long n = syscall(SYS_getdents64, l->fd, l->buf, LISTING_BYTES);
        if (n <= 0) {
            errno = n < 0 ? errno : 0;
            return NULL;
        }
        l->len = (size_t)n;
        l->pos = 0;
    }
    struct linux_dirent64 *e = (struct linux_dirent64 *)(void *)(l->buf + l->pos);
    l->pos += e->d_reclen;
    return e;
}

typedef struct dir_id {
    dev_t dev;
    ino_t ino;
} dir_id;

/* How a watch's name is matched: exactly, by a suffix ("*.pth"), or by
 * fnmatch; for "/REL", how many "/" REL holds (its depth). */
typedef enum { MATCH_EXACT, MATCH_SUFFIX, MATCH_PATTERN } match_how;
typedef struct watch_at {
    match_how how;
    size_t suffix_len;
    unsigned slashes;
} watch_at;

typedef struct walk {
    const lcsb__walk_opts *o;
    watch_at *at;     /* per watch */
    long gitdir;      /* the LCSB__KIND_GITDIR watch, or -1 */
    const char *root; /* its name: the directory its own entries are in */
    lcsb__changed *out;
    size_t cap; /* of out->v */
    uint64_t mount;
    dir_id *skip;
    size_t skip_n;
    size_t entries_max;
    unsigned depth_max;
    bool oom, stop;
    bool openat2;        /* the kernel has it: it tells a mount point as it opens */
    char path[PATH_MAX]; /* the entry at hand, from the root */
} walk;

/* A TREE watch's entry, which the changes below it are parts of. */
typedef struct tree {
    size_t watch;
    size_t root_len; /* its path's length in walk.path */
    long entry;      /* its index in out->v, once something changed; else -1 */
} tree;

bool lcsb__changed_since(struct timespec ctime, struct timespec since) {
    long grain = 1;
    while (grain < 1000000000L && ctime.tv_nsec % (grain * 10) == 0) grain *= 10;
    long cut = since.tv_nsec - since.tv_nsec % grain;
    return ctime.tv_sec > since.tv_sec || (ctime.tv_sec == since.tv_sec && ctime.tv_nsec >= cut);
}

static bool changed(const walk *w, const struct stat *st) {
    return lcsb__changed_since(lcsb__ctime(st), w->o->since);
}

static bool stat_at(int dirfd, const char *name, struct stat *st) {
    return fstatat(dirfd, name, st, AT_SYMLINK_NOFOLLOW) == 0;
}

static bool is_dots(const char *name) {
    return name[0] == '.' && (name[1] == '\0' || (name[1] == '.' && name[2] == '\0'));
}

static const char *kind_of(mode_t mode) {
    return S_ISREG(mode) ? "file" : S_ISDIR(mode) ? "dir" : S_ISLNK(mode) ? "link" : "other";
}

/* One more entry looked at; false (and the walk stops) past the bound. */
static bool count_one(walk *w) {
    if (++w->out->visited <= w->entries_max) return true;
    w->out->cut = w->stop = true;
    return false;
}

/* A new entry in OUT for the first LEN bytes of the path at hand (ST, or
 * NULL when not at hand); its index, or -1 on ENOMEM. */
static long add_entry(walk *w, size_t len, const char *kind, size_t watch, const struct stat *st) {
    lcsb__changed *out = w->out;
    if (out->n == LCSB__WALK_FOUND) {
        out->full = w->stop = true;
        return -1;
    }
    if (out->n == w->cap) {
        size_t cap = w->cap ? 2 * w->cap : 16;
        lcsb__changed_entry *v = realloc(out->v, cap * sizeof *v);
        if (!v) return w->oom = true, -1;
        out->v = v;
        w->cap = cap;
    }
    lcsb__changed_entry *e = &out->v[out->n];
    memset(e, 0, sizeof *e);
    if (!(e->path = strndup(w->path, len))) return w->oom = true, -1;
    e->kind = kind;
    e->watch = watch;
    if (st) {
        e->dev = st->st_dev;
        e->ino = st->st_ino;
    }
    return (long)out->n++;
}

/* PART changed in the entry at *ENTRY, made first (for the first LEN bytes
 * of the path at hand, ST) when there is none yet. */
static void add_part(walk *w, long *entry, size_t len, const char *kind, size_t watch,
                     const char *part, const struct stat *st) {
    if (*entry < 0 && (*entry = add_entry(w, len, kind, watch, st)) < 0) return;
    lcsb__changed_entry *e = &w->out->v[*entry];
    if (e->parts_n++ < LCSB__WALK_PARTS && lcsb__strv_push(&e->parts, part)) w->oom = true;
}

/* The first LEN bytes of the path at hand could not be looked into. */
static void unseen(walk *w, lcsb__unseen *u, size_t len, int error) {
    if (u->n++ > 0) return;
    u->error = error;
    if (!(u->first = strndup(w->path, len))) w->oom = true;
}

/* Directory NAME in FD could not be opened (ERROR): worth saying when the
 * command could have put something in it, that is when it changed during
 * the run or can still be searched. A directory this user may not enter,
 * the command could not enter either. */
static bool worth_noting(const walk *w, int fd, const char *name, int error) {
    struct stat st;
    if (error == ENOENT || error == ENOTDIR || error == ELOOP) return false; /* gone, or no dir */
    if (error != EACCES) return true;
    return (stat_at(fd, name, &st) && changed(w, &st)) || faccessat(fd, name, X_OK, 0) == 0;
}

/* Each entry of directory SUB in FD that changed, as a part of *ENTRY (ST)
 * named PREFIX/NAME (NAME when SUB is "."). */
static void each_inside(walk *w, int fd, const char *sub, const char *prefix, long *entry,
                        size_t len, const char *kind, size_t wi, const struct stat *est) {
    int dfd = openat(fd, sub, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    listing d;
    if (dfd < 0) return;
    if (!listing_open(&d, dfd)) {
        w->oom = true;
        return;
    }
    struct linux_dirent64 *e;
    while (!w->stop && !w->oom && (e = listing_next(&d))) {
        struct stat st;
        if (is_dots(e->d_name) || !count_one(w)) continue;
        if (!stat_at(d.fd, e->d_name, &st) || !changed(w, &st)) continue;
        char part[2 * NAME_MAX + 2];
        snprintf(part, sizeof part, "%s%s%s", prefix, prefix[0] ? "/" : "", e->d_name);
        add_part(w, entry, len, kind, wi, part, est);
    }
    listing_close(&d);
}

/* An INSIDE watch's entry (ST), at the first LEN bytes of the path at
 * hand, open at EFD when it is a directory (else -1): each of its paths
 * that changed is a part of it. One that is no directory, a symlink put
 * where a repository or .vscode was, is looked at as itself: what reads it
 * follows it to what the walk does not look at. */
static void inside_parts(walk *w, int efd, size_t len, size_t wi, const struct stat *st) {
    const char *const *inside = w->o->watch[wi].inside;
    const char *kind = kind_of(st->st_mode);
    long entry = -1;
    bool itself = !S_ISDIR(st->st_mode) && changed(w, st);
    if (itself) add_part(w, &entry, len, kind, wi, ".", st);
    for (size_t i = 0; inside && inside[i] && !w->stop && !w->oom; i++) {
        const char *part = inside[i];
        size_t plen = strlen(part);
        struct stat pst;
        if (strcmp(part, ".") == 0) {
            if (!itself && changed(w, st)) add_part(w, &entry, len, kind, wi, ".", st);
        } else if (efd < 0) {
            continue;
        } else if (strcmp(part, "*") == 0) {
            each_inside(w, efd, ".", "", &entry, len, kind, wi, st);
        } else if (plen > 2 && strcmp(part + plen - 2, "/*") == 0 && plen - 2 <= NAME_MAX) {
            char sub[NAME_MAX + 1];
            memcpy(sub, part, plen - 2);
            sub[plen - 2] = '\0';
            each_inside(w, efd, sub, sub, &entry, len, kind, wi, st);
        } else if (stat_at(efd, part, &pst) && changed(w, &pst)) {
            add_part(w, &entry, len, kind, wi, part, st);
        }
    }
}

/* An INSIDE watch's entry NAME in FD (ST), at the first LEN bytes of the
 * path at hand. */
static void look_inside(walk *w, int fd, const char *name, size_t len, size_t wi,
                        const struct stat *st) {
    int efd = -1;
    if (S_ISDIR(st->st_mode) &&
        (efd = openat(fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0) {
        int error = errno;
        if (worth_noting(w, fd, name, error)) unseen(w, &w->out->unreadable, len, error);
    }
    inside_parts(w, efd, len, wi, st);
    if (efd >= 0) close(efd);
}

/* Does S match PATTERN, watch I's name (past the "/" of a "/REL" one)? */
static bool name_matches(const walk *w, size_t i, const char *pattern, const char *s, size_t slen) {
    const watch_at *at = &w->at[i];
    switch (at->how) {
    case MATCH_EXACT: return strcmp(pattern, s) == 0;
    case MATCH_SUFFIX:
        return slen >= at->suffix_len &&
               memcmp(s + slen - at->suffix_len, pattern + 1, at->suffix_len) == 0;
    case MATCH_PATTERN: return fnmatch(pattern, s, FNM_PATHNAME) == 0;
    }
    return false;
}

/* Is an entry of TYPE in the directory PARENT (PLEN bytes) one watch WA
 * may match? A GITDIR one matches none here. */
static bool fits(const lcsb__watch *wa, unsigned char type, const char *parent, size_t plen) {
    if (wa->kind == LCSB__KIND_GITDIR || (wa->kind == LCSB__KIND_LINK && type != DT_LNK))
        return false;
    if (!wa->parents) return true;
    for (size_t i = 0; wa->parents[i]; i++)
        if (strncmp(wa->parents[i], parent, plen) == 0 && wa->parents[i][plen] == '\0') return true;
    return false;
}

/* The watch for the entry NAME (NLEN bytes, of TYPE) at hand, DEPTH "/" in
 * its path, in PARENT (PLEN bytes): a "/REL" one for its very path, else
 * one for its name, else a pattern for its name; -1 when none. */
static long match(const walk *w, const char *name, size_t nlen, unsigned char type,
                  const char *parent, size_t plen, unsigned depth) {
    long by_name = -1, by_pattern = -1;
    for (size_t i = 0; i < w->o->watch_n; i++) {
        const lcsb__watch *wa = &w->o->watch[i];
        bool pattern = w->at[i].how != MATCH_EXACT;
        if (wa->name[0] == '/') {
            if (w->at[i].slashes == depth &&
                name_matches(w, i, wa->name + 1, w->path, strlen(w->path)) &&
                fits(wa, type, parent, plen))
                return (long)i;
        } else if (!pattern && (by_name >= 0 || wa->name[0] != name[0])) {
            continue; /* most names differ in their first byte */
        } else if ((pattern ? by_pattern : by_name) < 0 &&
                   name_matches(w, i, wa->name, name, nlen) && fits(wa, type, parent, plen)) {
            *(pattern ? &by_pattern : &by_name) = (long)i;
        }
    }
    return by_name >= 0 ? by_name : by_pattern;
}

/* Is the directory DEV and INO one not to enter? */
static bool skipped(const walk *w, dev_t dev, ino_t ino) {
    for (size_t i = 0; i < w->skip_n; i++)
        if (w->skip[i].dev == dev && w->skip[i].ino == ino) return true;
    return false;
}

static void walk_dir(walk *w, listing *d, size_t len, unsigned depth, tree *t, unsigned listed);
static void descend(walk *w, int fd, const char *name, size_t len, unsigned depth, tree *t,
                    unsigned listed);

/* Would git take the directory at FD for a repository? It looks for HEAD,
 * and objects and refs beside it, or a commondir naming where they are. */
static bool gitdir_like(int fd) {
    struct stat st;
    if (!stat_at(fd, "HEAD", &st) || S_ISDIR(st.st_mode)) return false;
    return (stat_at(fd, "objects", &st) && S_ISDIR(st.st_mode)) ||
           (stat_at(fd, "refs", &st) && S_ISDIR(st.st_mode)) || stat_at(fd, "commondir", &st);
}

/* Is NAME one that git looks for in a repository? Only a directory listing
 * one is asked whether it is one, which costs a walk nothing elsewhere. */
static bool git_names(const char *name) {
    return strcmp(name, "HEAD") == 0 || strcmp(name, "objects") == 0 || strcmp(name, "refs") == 0 ||
           strcmp(name, "commondir") == 0;
}

/* The directory at hand (LEN bytes of path, open at FD) is a repository:
 * the GITDIR watch's entry. */
static void report_gitdir(walk *w, int fd, size_t len) {
    size_t wi = (size_t)w->gitdir;
    struct stat st;
    if (fstat(fd, &st) != 0) return;
    if (w->o->watch[wi].how == LCSB__WATCH_INSIDE)
        inside_parts(w, fd, len, wi, &st);
    else if (changed(w, &st))
        add_entry(w, len, "dir", wi, &st);
}

/* The directory at hand (LEN bytes of path, open at FD), at DEPTH, is a
 * repository, found without listing it: reported, and its modules
 * directory, which holds its submodules' repositories, walked. */
static void found_gitdir(walk *w, int fd, size_t len, unsigned depth, tree *t, unsigned listed) {
    struct stat st;
    report_gitdir(w, fd, len);
    static const char modules[] = "/modules";
    if (w->stop || w->oom || len + sizeof modules > sizeof w->path ||
        !stat_at(fd, modules + 1, &st) || !S_ISDIR(st.st_mode))
        return;
    memcpy(w->path + len, modules, sizeof modules);
    descend(w, fd, modules + 1, len + sizeof modules - 1, depth + 1, t, listed);
}

/* Is NAME one of the directories below which the walk only skims? */
static bool shallow(const walk *w, const char *name) {
    for (size_t i = 0; w->o->shallow && w->o->shallow[i]; i++)
        if (strcmp(w->o->shallow[i], name) == 0) return true;
    return false;
}

/* Directory NAME in FD, the path at hand (LEN bytes), at DEPTH, opened to
 * look into; -1 when it is past the depth or cannot be opened (both noted),
 * or is on another mount or skipped. */
static int enter(walk *w, int fd, const char *name, size_t len, unsigned depth) {
    if (depth > w->depth_max) {
        unseen(w, &w->out->deep, len, 0);
        return -1;
    }
    /* Another mount (a bind mount of the same file system too) is not
     * entered: openat2 says so as it opens, where asking each directory
     * for its mount took a statx more. */
    struct open_how how = {.flags = O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC,
                           .resolve = RESOLVE_NO_XDEV | RESOLVE_NO_SYMLINKS};
    int cfd = w->openat2 ? (int)syscall(SYS_openat2, fd, name, &how, sizeof how) : -1;
    if (cfd < 0 && w->openat2 && errno == ENOSYS) w->openat2 = false;
    if (!w->openat2) cfd = openat(fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (cfd < 0) {
        int error = errno;
        if (error != EXDEV && worth_noting(w, fd, name, error))
            unseen(w, &w->out->unreadable, len, error);
        return -1;
    }
    uint64_t mount = w->mount;
    struct stat st;
    if ((!w->openat2 && lcsb__mount_of(cfd, &mount, NULL, NULL) != 0) || mount != w->mount ||
        (w->skip_n && (fstat(cfd, &st) != 0 || skipped(w, st.st_dev, st.st_ino)))) {
        close(cfd);
        return -1;
    }
    return cfd;
}

/* Into directory NAME in FD, the path at hand (LEN bytes), at DEPTH; within
 * a shallow directory, LISTED more levels below it are listed (UINT_MAX:
 * not within one). */
static void descend(walk *w, int fd, const char *name, size_t len, unsigned depth, tree *t,
                    unsigned listed) {
    int cfd = enter(w, fd, name, len, depth);
    listing d;
    if (cfd < 0) return;
    if (!listing_open(&d, cfd)) {
        w->oom = true;
        return;
    }
    walk_dir(w, &d, len, depth, t, listed);
    listing_close(&d);
}

static void visit(walk *w, int fd, const char *name, unsigned char type, size_t here,
                  unsigned depth, const char *parent, size_t plen, tree *t, unsigned listed);

/* A package's root, NAME in FD (the path at hand, LEN bytes) at DEPTH, in a
 * shallow directory. Its files are the package's own, which no entry
 * reports; what git takes for a repository is, so only that is looked
 * for: it, or a .git in it. Listing every package's root instead cost a
 * virtualenv of 300 packages 10 ms a run. */
static void probe(walk *w, int fd, const char *name, size_t len, unsigned depth, tree *t) {
    static const char git[] = "/.git";
    /* Most packages hold neither: two lookups say so without entering one. */
    char rel[NAME_MAX + sizeof "/HEAD"];
    snprintf(rel, sizeof rel, "%s/.git", name);
    int there = lcsb__present_beneath(fd, rel);
    if (there == 0 && w->gitdir >= 0) {
        snprintf(rel, sizeof rel, "%s/HEAD", name);
        there = lcsb__present_beneath(fd, rel);
    }
    if (there == 0) return;
    int cfd = enter(w, fd, name, len, depth);
    if (cfd < 0) return;
    struct stat st;
    if (w->gitdir >= 0 && gitdir_like(cfd)) {
        found_gitdir(w, cfd, len, depth, t, 0);
    } else if (len + sizeof git <= sizeof w->path && stat_at(cfd, git + 1, &st) && count_one(w)) {
        memcpy(w->path + len, git, sizeof git);
        visit(w, cfd, git + 1, IFTODT(st.st_mode), len + sizeof git - 1, depth + 1, name,
              strlen(name), t, 0);
    }
    close(cfd);
}

/* The entry NAME (of TYPE, as the directory says) in FD, the path at hand
 * (HERE bytes), in the directory PARENT (PLEN bytes) at DEPTH, below the
 * tree T (or NULL), LISTED more levels to enter (UINT_MAX: all): looked at,
 * and entered when it is a directory. */
static void visit(walk *w, int fd, const char *name, unsigned char type, size_t here,
                  unsigned depth, const char *parent, size_t plen, tree *t, unsigned listed) {
    struct stat st;
    bool have = false;
    if (type == DT_UNKNOWN) {
        if (!stat_at(fd, name, &st)) return; /* gone */
        have = true;
        type = IFTODT(st.st_mode);
    }
    long wi = match(w, name, strlen(name), type, parent, plen, depth - 1);
    long made = -1;
    if ((wi >= 0 || t) && !have) {
        if (!stat_at(fd, name, &st)) return;
        have = true;
    }
    if (wi >= 0 && w->o->watch[wi].how == LCSB__WATCH_INSIDE) {
        look_inside(w, fd, name, here, (size_t)wi, &st);
    } else if (wi >= 0) {
        if (changed(w, &st)) {
            made = add_entry(w, here, kind_of(st.st_mode), (size_t)wi, &st);
            if (made >= 0 && w->o->watch[wi].how == LCSB__WATCH_TREE) {
                w->out->v[made].parts_n = 1;
                if (lcsb__strv_push(&w->out->v[made].parts, ".")) w->oom = true;
            }
        }
    } else if (t && changed(w, &st)) {
        add_part(w, &t->entry, t->root_len, "dir", t->watch, w->path + t->root_len + 1, NULL);
    }
    /* A repository's own files are not the project's: .git/modules holds
     * other repositories' directories. */
    if (type != DT_DIR || strcmp(name, ".git") == 0) return;
    tree sub = {0}, *below = t;
    if (wi >= 0 && w->o->watch[wi].how == LCSB__WATCH_TREE) {
        sub = (tree){.watch = (size_t)wi, .root_len = here, .entry = made};
        below = &sub;
    }
    /* What a package manager installed is skimmed: what is directly in it
     * is listed (a .pth in site-packages), and each package's root probed
     * (a scope, node_modules/@scope, is gone through), for a repository
     * there, and nothing deeper; every other name there is the package's
     * own, and a full walk of node_modules cost a project of 80,000
     * entries 90 ms a run. */
    if (listed == 0) return;
    unsigned next = listed == UINT_MAX ? (shallow(w, name) ? LCSB__WALK_SHALLOW : UINT_MAX)
                    : name[0] == '@'   ? listed
                                       : listed - 1;
    if (next == 0)
        probe(w, fd, name, here, depth, below);
    else
        descend(w, fd, name, here, depth, below, next);
}

/* The entries of D, the directory at hand (LEN bytes of path, at DEPTH),
 * below the tree T (or NULL), LISTED more levels entered (UINT_MAX: all). */
static void walk_dir(walk *w, listing *d, size_t len, unsigned depth, tree *t, unsigned listed) {
    int fd = d->fd;
    /* Its own name, which its entries are in. */
    const char *parent = w->root;
    size_t plen = strlen(parent);
    if (len) {
        size_t start = len;
        while (start > 0 && w->path[start - 1] != '/') start--;
        parent = w->path + start;
        plen = len - start;
    }
    /* Whether it is a repository: 0 not known yet (nor asked, until it
     * lists a name git looks for), 1 it is, -1 it is not. Once it is, its
     * files are git's, not the project's, and only its modules directory
     * (its submodules' repositories) is walked on. */
    int gitdir = len && w->gitdir >= 0 ? 0 : -1;
    for (;;) {
        errno = 0;
        struct linux_dirent64 *e = listing_next(d);
        if (!e) {
            if (errno) unseen(w, &w->out->unreadable, len, errno);
            break;
        }
        const char *name = e->d_name;
        if (is_dots(name)) continue;
        if (w->stop || w->oom || !count_one(w)) break;
        size_t nlen = strlen(name), at = len ? len + 1 : 0;
        if (at + nlen >= sizeof w->path) {
            unseen(w, &w->out->deep, len, ENAMETOOLONG);
            continue;
        }
        if (gitdir == 0 && git_names(name)) {
            gitdir = gitdir_like(fd) ? 1 : -1;
            if (gitdir > 0) report_gitdir(w, fd, len);
        }
        if (gitdir > 0 && strcmp(name, "modules") != 0) continue;
        if (len) w->path[len] = '/';
        memcpy(w->path + at, name, nlen + 1);
        visit(w, fd, name, e->d_type, at + nlen, depth + 1, parent, plen, t, listed);
        if (w->stop || w->oom) break;
    }
}

int lcsb__changed_walk(const char *root, const lcsb__walk_opts *opts, lcsb__changed *out,
                       lcsb_error *err) {
    memset(out, 0, sizeof *out);
    walk *w = calloc(1, sizeof *w);
    if (!w) return lcsb__fail(err, LCSB_ENOMEM, "out of memory");
    w->o = opts;
    w->out = out;
    w->entries_max = opts->entries_max ? opts->entries_max : LCSB__WALK_ENTRIES;
    w->depth_max = opts->depth_max ? opts->depth_max : LCSB__WALK_DEPTH;
    w->gitdir = -1;
    const char *slash = strrchr(root, '/');
    w->root = slash ? slash + 1 : root;
    int rc = 0;
    if (opts->watch_n && !(w->at = calloc(opts->watch_n, sizeof *w->at))) {
        rc = lcsb__fail(err, LCSB_ENOMEM, "out of memory");
        goto free_walk;
    }
    for (size_t i = 0; i < opts->watch_n; i++) {
        const lcsb__watch *wa = &opts->watch[i];
        const char *name = wa->name + (wa->name[0] == '/');
        watch_at *at = &w->at[i];
        if (name[0] == '*' && !strpbrk(name + 1, "*?[\\/")) {
            at->how = MATCH_SUFFIX;
            at->suffix_len = strlen(name + 1);
        } else if (strpbrk(name, "*?[")) {
            at->how = MATCH_PATTERN;
        }
        for (const char *c = name; *c; c++) at->slashes += *c == '/';
        if (wa->kind == LCSB__KIND_GITDIR && w->gitdir < 0) w->gitdir = (long)i;
    }
    size_t skip_n = 0;
    while (opts->skip && opts->skip[skip_n]) skip_n++;
    if (skip_n && !(w->skip = calloc(skip_n, sizeof *w->skip))) {
        rc = lcsb__fail(err, LCSB_ENOMEM, "out of memory");
        goto free_walk;
    }
    for (size_t i = 0; i < skip_n; i++) {
        struct stat st;
        if (lstat(opts->skip[i], &st) == 0 && S_ISDIR(st.st_mode))
            w->skip[w->skip_n++] = (dir_id){st.st_dev, st.st_ino};
    }
    int fd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0 || lcsb__mount_of(fd, &w->mount, NULL, NULL) != 0) {
        rc = lcsb__fail(err, LCSB_ESYS, "cannot look into %s: %s", root, strerror(errno));
        if (fd >= 0) close(fd);
        goto free_walk;
    }
    listing d;
    if (!listing_open(&d, fd)) {
        rc = lcsb__fail(err, LCSB_ENOMEM, "out of memory");
        goto free_walk;
    }
    w->openat2 = true;
    walk_dir(w, &d, 0, 0, NULL, UINT_MAX);
    listing_close(&d);
    if (w->oom) rc = lcsb__fail(err, LCSB_ENOMEM, "out of memory");
free_walk:
    free(w->skip);
    free(w->at);
    free(w);
    return rc;
}

void lcsb__changed_free(lcsb__changed *c) {
    if (!c) return;
    for (size_t i = 0; i < c->n; i++) {
        free(c->v[i].path);
        lcsb__strv_clear(&c->v[i].parts);
    }
    free(c->v);
    free(c->deep.first);
    free(c->unreadable.first);
    memset(c, 0, sizeof *c);
}
