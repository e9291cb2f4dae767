/* The plan store: a plan's file is its record of what the composition rested
 * on, then its data, then a digest of both; a run reads it through a
 * descriptor whose owner and mode it checks, checks the digest, then every
 * line of the record against the file system as it is now. */
#include "plan.h"

#include "path.h"
#include "sha256.h"
#include "sys.h"
#include "trust.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <linux/fs.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

#define MAGIC "lcsb-plan 1\n"
/* What changed less than this before a composition may have changed again
 * in the same tick of the file system's clock, unseen. */
#define RECENT_NS 1000000000LL

static int say(char *why, size_t size, const char *fmt, ...) LCSB_PRINTF(3, 4);
static int say(char *why, size_t size, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, size, fmt, ap);
    va_end(ap);
    return 1;
}

int lcsb__plan_store(char *out, size_t size, lcsb_error *err) {
    char trust[PATH_MAX];
    int rc = lcsb__trust_store(trust, sizeof trust, err);
    if (rc) return rc;
    /* Beside the trust store: $XDG_STATE_HOME/lcsb/plans. */
    char *slash = strrchr(trust, '/');
    *slash = '\0';
    if ((size_t)snprintf(out, size, "%s/plans", trust) >= size)
        return lcsb__fail(err, LCSB_EINVAL, "the plan store's path is too long: %s", trust);
    return 0;
}

/* Is ST (a store's or a plan's descriptor) the user's own, written by no one
 * else? A plan others may write would let them choose what a run enforces. */
static bool owned(const struct stat *st) { return st->st_uid == geteuid() && !(st->st_mode & 022); }

static const char *not_owned(const struct stat *st) {
    return st->st_uid != geteuid() ? "not yours" : "writable by others";
}

/* The store's directory, opened without following a symlink and checked:
 * its descriptor, or -1 with why (ENOENT: there is none). */
static int open_store(const char *store, char *why, size_t size) {
    int dir = open(store, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    struct stat st;
    if (dir < 0) {
        int saved = errno;
        if (saved == ENOENT)
            say(why, size, "no plan kept yet");
        else
            say(why, size, "the plan store %s %s: refused", store,
                saved == ELOOP || saved == ENOTDIR ? "is a symlink" : strerror(saved));
        errno = saved;
        return -1;
    }
    if (fstat(dir, &st) != 0 || !owned(&st)) {
        say(why, size, "the plan store %s is %s: lcsb neither takes nor keeps plans there", store,
            not_owned(&st));
        close(dir);
        errno = EPERM;
        return -1;
    }
    return dir;
}

static void name_of(const char *key, size_t len, char name[LCSB__SHA256_HEX]) {
    lcsb__sha256_of(key, len, name);
}

/* ---- checking a record ---- */

static bool same_times(const struct stat *st, long long ms, long long mns, long long cs,
                       long long cns) {
    return st->st_mtim.tv_sec == ms && st->st_mtim.tv_nsec == mns && st->st_ctim.tv_sec == cs &&
           st->st_ctim.tv_nsec == cns;
}

/* HOME as a record's lines tell of it: MOVED when its 'D' line (its times,
 * standing for the 'h' lines after it: entries not there) did not hold, or
 * HOME changed too lately for one and it has an 'H' line (its path alone),
 * and then each 'h' line is asked; PATH, from either line. */
typedef struct home_state {
    bool moved;
    int names_exact; /* listing_tells's answer, -1 until asked */
    char path[PATH_MAX];
} home_state;

/* File systems whose names are matched byte for byte unless a directory
 * says it is case-insensitive (casefold): not XFS (whose ascii-ci holds for
 * the whole file system, and no directory says so), ntfs3, FUSE or one
 * over the network, which may match names however they like. */
static bool names_exact_unless_flagged(const struct statfs *fs) {
    switch ((unsigned long)fs->f_type) {
    case 0xEF53UL:     /* ext2, ext3, ext4 */
    case 0x01021994UL: /* tmpfs */
    case 0x9123683EUL: /* btrfs */
    case 0xF2F52010UL: /* f2fs */ return true;
    default: return false;
    }
}

/* Does the listing of the directory PATH tell that a name is not there?
 * Not in a case-insensitive directory, where lstat finds ".SSH" for
 * ".ssh", nor where the file system cannot say whether it is one. */
static bool listing_tells(const char *path) {
    int fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC), flags = 0;
    if (fd < 0) return false;
    struct statfs fs;
    bool exact = fstatfs(fd, &fs) == 0 && names_exact_unless_flagged(&fs) &&
                 ioctl(fd, FS_IOC_GETFLAGS, &flags) == 0 && !(flags & FS_CASEFOLD_FL);
    close(fd);
    return exact;
}

/* The error lstat of PATH, an 'h' line's, would give, answered without
 * asking it where HOME's listing (one, for all of them) shows its first
 * component is not there: a run after anything was made or removed in
 * HOME asks some hundred capped paths under it, most of them missing. */
static int home_entry_error(lcsb__facts *asked, home_state *home, const char *path) {
    size_t n = strlen(home->path);
    if (n && home->names_exact < 0) home->names_exact = listing_tells(home->path);
    if (n && home->names_exact && strncmp(path, home->path, n) == 0 && path[n] == '/') {
        char first[NAME_MAX + 1];
        size_t len = strcspn(path + n + 1, "/");
        if (len > 0 && len <= NAME_MAX) {
            memcpy(first, path + n + 1, len);
            first[len] = '\0';
            if (lcsb__facts_dir_has(asked, home->path, first) == 0) return ENOENT;
        }
    }
    struct stat st;
    return lcsb__facts_lstat(asked, path, &st) == 0 ? 0 : errno;
}

/* Does the record's line LINE (without its newline) hold now? A path on
 * two lines is asked once, through ASKED; HOME is what the lines so far
 * told of it. */
static bool line_holds(lcsb__facts *asked, const char *line, size_t len, home_state *home,
                       char *why, size_t size) {
    char path[PATH_MAX];
    const char *space = NULL;
    unsigned long long dev, ino, mode, fsize;
    long long ms, mns, cs, cns;
    int error, used = 0;
    struct stat st;
    /* The path is the last word. */
    for (size_t i = len; i > 0; i--)
        if (line[i - 1] == ' ') {
            space = line + i - 1;
            break;
        }
    if (!space ||
        !lcsb__word_decode(space + 1, len - (size_t)(space + 1 - line), path, sizeof path))
        return say(why, size, "a damaged plan"), false;
    if (line[0] == 'h') {
        if (sscanf(line, "h %d %n", &error, &used) != 1 || line + used != space + 1)
            return say(why, size, "a damaged plan"), false;
        if (!home->moved) return true; /* HOME's times held: nothing came there */
        if (home_entry_error(asked, home, path) == error) return true;
        return say(why, size, "%s changed", path), false;
    }
    if (line[0] == 'H') {
        if (space != line + 1) return say(why, size, "a damaged plan"), false;
        home->moved = true;
        snprintf(home->path, sizeof home->path, "%s", path);
        return true;
    }
    int got = lcsb__facts_lstat(asked, path, &st) == 0 ? 0 : errno;
    switch (line[0]) {
    case 'd':
    case 'D':
        if (sscanf(line + 1, " %llu %llu %lld %lld %lld %lld %n", &dev, &ino, &ms, &mns, &cs, &cns,
                   &used) != 6 ||
            line + 1 + used != space + 1)
            break;
        if (!got && S_ISDIR(st.st_mode) && st.st_dev == dev && st.st_ino == ino &&
            same_times(&st, ms, mns, cs, cns))
            home->moved = line[0] == 'D' ? false : home->moved;
        else if (line[0] == 'd')
            return say(why, size, "%s changed", path), false;
        else
            home->moved = true; /* its 'h' lines tell */
        if (line[0] == 'D') snprintf(home->path, sizeof home->path, "%s", path);
        return true;
    case 'e':
        if (sscanf(line, "e %llu %llu %llo %llu %lld %lld %lld %lld %n", &dev, &ino, &mode, &fsize,
                   &ms, &mns, &cs, &cns, &used) != 8 ||
            line + used != space + 1)
            break;
        /* A directory passed through is the same one; its entries are
         * lines of their own. */
        if (!got && st.st_dev == dev && st.st_ino == ino && st.st_mode == mode &&
            (S_ISDIR(st.st_mode) ||
             ((unsigned long long)st.st_size == fsize && same_times(&st, ms, mns, cs, cns))))
            return true;
        return say(why, size, "%s changed", path), false;
    case 'a':
        if (sscanf(line + 1, " %d %n", &error, &used) != 1 || line + 1 + used != space + 1) break;
        if (got == error) return true;
        return say(why, size, "%s changed", path), false;
    }
    return say(why, size, "a damaged plan"), false;
}

int lcsb__plan_find(const char *key, size_t key_len, char **data, size_t *data_len, char *why,
                    size_t why_size) {
    char store[PATH_MAX], name[LCSB__SHA256_HEX], sum[LCSB__SHA256_HEX];
    lcsb_error err;
    *data = NULL;
    *data_len = 0;
    if (lcsb__plan_store(store, sizeof store, &err)) return say(why, why_size, "%s", err.message);
    int dir = open_store(store, why, why_size);
    if (dir < 0) return 1;
    name_of(key, key_len, name);
    char *text;
    size_t len;
    lcsb__file_seen seen;
    lcsb__facts *asked = NULL;
    int rc = lcsb__read_regular_at(dir, name, LCSB__PLAN_MAX, true, &text, &len, NULL, &seen);
    int saved = errno;
    close(dir);
    if (rc != 0)
        return saved == ENOENT ? say(why, why_size, "no plan kept yet")
                               : say(why, why_size, "the plan %s/%s: %s: refused", store, name,
                                     saved == ELOOP ? "a symlink" : strerror(saved));
    if (!owned(&seen.st)) {
        free(text);
        return say(why, why_size, "the plan %s/%s is %s: refused", store, name,
                   not_owned(&seen.st));
    }
    /* MAGIC, the record, "data N", N bytes, "\nsum HEX\n": the digest of
     * everything before the sum's line. */
    const size_t tail = strlen("\nsum \n") + LCSB__SHA256_HEX - 1;
    rc = 1;
    if (len < strlen(MAGIC) + tail || memcmp(text, MAGIC, strlen(MAGIC)) != 0 ||
        memcmp(text + len - tail, "\nsum ", 5) != 0 || text[len - 1] != '\n') {
        say(why, why_size, "the plan %s/%s is damaged", store, name);
        goto out;
    }
    lcsb__sha256_of(text, len - tail + 1, sum);
    if (memcmp(sum, text + len - tail + 5, LCSB__SHA256_HEX - 1) != 0) {
        say(why, why_size, "the plan %s/%s is damaged (its digest differs)", store, name);
        goto out;
    }
    const char *end = text + len - tail + 1, *line = text + strlen(MAGIC);
    char want[LCSB__SHA256_HEX + 8];
    snprintf(want, sizeof want, "key %s\n", name);
    if ((size_t)(end - line) < strlen(want) || memcmp(line, want, strlen(want)) != 0) {
        say(why, why_size, "the plan %s/%s is not the one for this key", store, name);
        goto out;
    }
    line += strlen(want);
    asked = lcsb__facts_new();
    home_state home = {.moved = true, .names_exact = -1};
    while (line < end) {
        const char *nl = memchr(line, '\n', (size_t)(end - line));
        if (!nl) break;
        size_t n;
        if (strncmp(line, "data ", 5) == 0) {
            char *after;
            n = strtoull(line + 5, &after, 10);
            if (after != nl || n > (size_t)(end - nl - 1) || nl + 1 + n != end - 1) break;
            if (!(*data = malloc(n ? n : 1))) {
                say(why, why_size, "out of memory");
                goto out;
            }
            memcpy(*data, nl + 1, n);
            *data_len = n;
            rc = 0;
            goto out;
        }
        if (!line_holds(asked, line, (size_t)(nl - line), &home, why, why_size)) goto out;
        line = nl + 1;
    }
    say(why, why_size, "the plan %s/%s is damaged", store, name);
out:
    lcsb__facts_free(asked);
    free(text);
    return rc;
}

/* ---- writing one ---- */

typedef struct record {
    lcsb__facts *facts;
    const char *const *areas;
    size_t n;
    char home[PATH_MAX];
    long long made_ns;
    lcsb__buf lines;
    lcsb__strv dirs; /* directories written as 'd' lines, each once */
    bool home_line;  /* HOME's 'D' line written, or found too recent to write */
    char *why;
    size_t why_size;
} record;

static bool within_areas(const record *r, const char *path) {
    for (size_t i = 0; i < r->n; i++)
        if (lcsb__path_within(path, r->areas[i])) return true;
    return false;
}

static long long ns_of(struct timespec t) { return (long long)t.tv_sec * 1000000000LL + t.tv_nsec; }

/* Changed so close to the composition that a change after it may not show? */
static bool changed_lately(const record *r, const struct stat *st) {
    long long latest =
        ns_of(st->st_mtim) > ns_of(st->st_ctim) ? ns_of(st->st_mtim) : ns_of(st->st_ctim);
    return latest >= r->made_ns - RECENT_NS;
}

static int too_recent(record *r, const char *path, const struct stat *st) {
    if (!changed_lately(r, st)) return 0;
    return say(r->why, r->why_size, "%s changed within a second of the composition", path);
}

/* A directory's line, TAG 'd' or 'D': its identity and its times. */
static void dir_line(record *r, char tag, const char *dir, const struct stat *st) {
    lcsb__buf_addf(&r->lines, "%c %llu %llu %lld %ld %lld %ld ", tag,
                   (unsigned long long)st->st_dev, (unsigned long long)st->st_ino,
                   (long long)st->st_mtim.tv_sec, st->st_mtim.tv_nsec,
                   (long long)st->st_ctim.tv_sec, st->st_ctim.tv_nsec);
    lcsb__buf_add_word(&r->lines, dir);
    lcsb__buf_adds(&r->lines, "\n");
}

static int add_dir(record *r, const char *dir, const struct stat *st) {
    for (size_t i = 0; i < r->dirs.n; i++)
        if (strcmp(r->dirs.v[i], dir) == 0) return 0;
    if (too_recent(r, dir, st)) return 1;
    if (lcsb__strv_push(&r->dirs, dir)) return say(r->why, r->why_size, "out of memory");
    dir_line(r, 'd', dir, st);
    return 0;
}

/* S, not there, in HOME (DIR, its lstat ST): an 'h' line, after HOME's 'D'
 * line (its times) the first time. HOME changed too recently to stand for
 * its entries has an 'H' line instead, its path alone: its 'h' lines are
 * asked each run, where HOME's listing answers most of them. */
static int add_home_absent(record *r, const char *dir, const struct stat *st, const lcsb__seen *s) {
    if (!r->home_line) {
        r->home_line = true;
        if (!changed_lately(r, st)) {
            dir_line(r, 'D', dir, st);
        } else {
            lcsb__buf_adds(&r->lines, "H ");
            lcsb__buf_add_word(&r->lines, dir);
            lcsb__buf_adds(&r->lines, "\n");
        }
    }
    lcsb__buf_addf(&r->lines, "h %d ", s->error);
    lcsb__buf_add_word(&r->lines, s->path);
    lcsb__buf_adds(&r->lines, "\n");
    return 0;
}

static int add_entry(record *r, const char *path, int error, const struct stat *st) {
    if (error) {
        lcsb__buf_addf(&r->lines, "a %d ", error);
    } else {
        if (!S_ISDIR(st->st_mode) && too_recent(r, path, st)) return 1;
        lcsb__buf_addf(&r->lines, "e %llu %llu %llo %llu %lld %ld %lld %ld ",
                       (unsigned long long)st->st_dev, (unsigned long long)st->st_ino,
                       (unsigned long long)st->st_mode, (unsigned long long)st->st_size,
                       (long long)st->st_mtim.tv_sec, st->st_mtim.tv_nsec,
                       (long long)st->st_ctim.tv_sec, st->st_ctim.tv_nsec);
    }
    lcsb__buf_add_word(&r->lines, path);
    lcsb__buf_adds(&r->lines, "\n");
    return 0;
}

/* Is DIR (its lstat ST) a quiet one: root's or the user's, written by no
 * one else, neither the user's HOME itself (where programs come and go all
 * the time) nor where the command writes? Its times then stand for every
 * entry in it: one made, removed, renamed or replaced (how package managers,
 * git and editors that rename write) changes them. A file rewritten in place
 * does not; docs/performance.md says what that leaves. */
static bool quiet_dir(const record *r, const char *dir, const struct stat *st) {
    return S_ISDIR(st->st_mode) && (st->st_uid == 0 || st->st_uid == geteuid()) &&
           !(st->st_mode & 022) && strcmp(dir, r->home) != 0 && !within_areas(r, dir);
}

/* May the entry (lstat ST, or ERROR) be written in place by someone but
 * root and the user outside any sandbox: another user owns it, anyone may
 * write it, or the user's own (not root's: the system's programs have
 * names in each other's directories) has another name, perhaps where a
 * command writes? A quiet directory's times do not tell that; its own do. */
static bool rewritable_by_others(const struct stat *st, int error) {
    /* A symlink's own mode means nothing, and it is replaced, never
     * rewritten: its directory's times tell. */
    if (error || S_ISLNK(st->st_mode)) return false;
    if (st->st_mode & 022) return true;
    if (st->st_uid == 0) return false;
    return st->st_uid != geteuid() || (!S_ISDIR(st->st_mode) && st->st_nlink > 1);
}

/* The parent directory of PATH into OUT; false for "/". */
static bool parent_of(const char *path, char out[PATH_MAX]) {
    const char *slash = strrchr(path, '/');
    if (!slash || slash[1] == '\0' || strcmp(path, "/") == 0) return false;
    size_t n = slash == path ? 1 : (size_t)(slash - path);
    memmove(out, path, n);
    out[n] = '\0';
    return true;
}

static int record_one(const lcsb__seen *s, void *ctx) {
    record *r = ctx;
    char dir[PATH_MAX];
    struct stat dst;
    bool parent = parent_of(s->path, dir);
    /* What is not there may lie under what is not there either: its
     * nearest existing ancestor is what would change. */
    while (parent && lcsb__facts_lstat(r->facts, dir, &dst) != 0)
        parent = s->error && parent_of(dir, dir);
    if (s->kind == LCSB__SEEN_LISTING)
        return s->error ? add_entry(r, s->path, s->error, &s->st) : add_dir(r, s->path, &s->st);
    /* What the script's Lua read (a version file a tool rewrites in place)
     * by its own identity and times, wherever it is. */
    if (s->kind == LCSB__SEEN_READ || within_areas(r, s->path) || !parent ||
        rewritable_by_others(&s->st, s->error))
        return add_entry(r, s->path, s->error, &s->st);
    if (quiet_dir(r, dir, &dst)) return add_dir(r, dir, &dst);
    /* Not there, in HOME itself: HOME's times tell that nothing came (a
     * ~/.aws made) in one lstat; when they changed (a shell's history, an
     * editor's file: HOME changes all the time), each such entry is asked
     * again rather than the policy composed again. */
    if (s->error && strcmp(dir, r->home) == 0) return add_home_absent(r, dir, &dst, s);
    /* Elsewhere, the directory's times, unless anyone may write it (/tmp):
     * then each is asked again. Beneath a file (a glob's pattern tried
     * through a file of the directory: ENOTDIR), no directory's times
     * tell: the entry itself is asked again. */
    if (s->error && S_ISDIR(dst.st_mode) && !(dst.st_mode & 002)) return add_dir(r, dir, &dst);
    return add_entry(r, s->path, s->error, &s->st);
}

/* LEN bytes of DATA as the file NAME in the directory DIR, whole or not at
 * all: written beside it, then renamed over it. */
static int write_whole_at(int dir, const char *name, const char *data, size_t len) {
    char tmp[LCSB__SHA256_HEX + 32];
    snprintf(tmp, sizeof tmp, ".%s.%ld", name, (long)getpid());
    /* Made new: whatever a process of this pid left there goes first, and
     * nothing already there (a FIFO would hold the open for ever) is
     * opened. */
    unlinkat(dir, tmp, 0);
    int fd = openat(dir, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0) return -1;
    bool written = lcsb__write_all(fd, data, len);
    int saved = errno;
    /* No fsync: a plan torn by a crash fails its digest and is made again. */
    bool ok = close(fd) == 0 && written;
    if (!ok || renameat(dir, tmp, dir, name) != 0) {
        if (ok) saved = errno;
        unlinkat(dir, tmp, 0);
        errno = saved;
        return -1;
    }
    return 0;
}

/* mkdir -p DIR, mode 0700 for what it makes. */
static int make_dirs(const char *dir) {
    char path[PATH_MAX];
    if (strlen(dir) >= sizeof path) {
        errno = ENAMETOOLONG;
        return -1;
    }
    memcpy(path, dir, strlen(dir) + 1);
    for (char *slash = path + 1;; slash++) {
        bool last = *slash == '\0';
        if (*slash != '/' && !last) continue;
        *slash = '\0';
        if (mkdir(path, 0700) != 0 && errno != EEXIST) return -1;
        if (last) return 0;
        *slash = '/';
    }
}

/* The store's plans: each regular file whose name is a digest. FN(CTX,
 * DIR, NAME, ST) for each; a nonzero return stops it. */
static int each_plan(int dir, int (*fn)(void *, int, const char *, const struct stat *),
                     void *ctx) {
    int fd = dup(dir);
    DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
    if (!d) {
        if (fd >= 0) close(fd);
        return -1;
    }
    struct dirent *e;
    int rc = 0;
    while (!rc && (e = readdir(d))) {
        struct stat st;
        if (strlen(e->d_name) != LCSB__SHA256_HEX - 1 ||
            strspn(e->d_name, "0123456789abcdef") != LCSB__SHA256_HEX - 1 ||
            fstatat(dir, e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISREG(st.st_mode))
            continue;
        rc = fn(ctx, dir, e->d_name, &st);
    }
    closedir(d);
    return rc;
}

/* The most plans a store keeps: past it, the least recently written go. */
#define PLANS_MAX 256

typedef struct tally {
    size_t n;
    unsigned long long bytes;
} tally;

static int count_one(void *ctx, int dir, const char *name, const struct stat *st) {
    (void)dir;
    (void)name;
    tally *t = ctx;
    t->n++;
    t->bytes += (unsigned long long)st->st_size;
    return 0;
}

static int remove_one(void *ctx, int dir, const char *name, const struct stat *st) {
    (void)st;
    if (unlinkat(dir, name, 0) == 0) ++*(size_t *)ctx;
    return 0;
}

typedef struct aged {
    long long written_ns;
    char name[LCSB__SHA256_HEX];
} aged;

typedef struct ages {
    aged *v;
    size_t n, cap;
} ages;

static int note_age(void *ctx, int dir, const char *name, const struct stat *st) {
    (void)dir;
    ages *a = ctx;
    if (a->n == a->cap) {
        size_t cap = a->cap ? a->cap * 2 : PLANS_MAX + 16;
        aged *v = realloc(a->v, cap * sizeof *v);
        if (!v) return -1;
        a->v = v;
        a->cap = cap;
    }
    a->v[a->n].written_ns = ns_of(st->st_mtim);
    snprintf(a->v[a->n].name, sizeof a->v[a->n].name, "%s", name);
    a->n++;
    return 0;
}

static int older_first(const void *a, const void *b) {
    long long x = ((const aged *)a)->written_ns, y = ((const aged *)b)->written_ns;
    return (x > y) - (x < y);
}

/* Past PLANS_MAX, the least recently written plans go until PLANS_MAX are
 * left: a store stays bounded however it grew. Only after a plan is saved,
 * so a run that uses a kept plan pays nothing for it. */
static void prune(int dir) {
    ages a = {0};
    if (each_plan(dir, note_age, &a) == 0 && a.n > PLANS_MAX) {
        qsort(a.v, a.n, sizeof *a.v, older_first);
        for (size_t i = 0; i < a.n - PLANS_MAX; i++) unlinkat(dir, a.v[i].name, 0);
    }
    free(a.v);
}

int lcsb_plans_list(size_t *count, unsigned long long *bytes, char *store, size_t store_size,
                    lcsb_error *err) {
    char why[PATH_MAX + 128];
    tally t = {0};
    *count = 0;
    *bytes = 0;
    int rc = lcsb__plan_store(store, store_size, err);
    if (rc) return rc;
    int dir = open_store(store, why, sizeof why);
    if (dir < 0) return errno == ENOENT ? 0 : lcsb__fail(err, LCSB_EUNTRUSTED, "%s", why);
    rc = each_plan(dir, count_one, &t);
    close(dir);
    if (rc) return lcsb__fail(err, LCSB_ESYS, "cannot list %s: %s", store, strerror(errno));
    *count = t.n;
    *bytes = t.bytes;
    return 0;
}

int lcsb_plans_clear(size_t *removed, lcsb_error *err) {
    char store[PATH_MAX], why[PATH_MAX + 128];
    *removed = 0;
    int rc = lcsb__plan_store(store, sizeof store, err);
    if (rc) return rc;
    int dir = open_store(store, why, sizeof why);
    if (dir < 0) return errno == ENOENT ? 0 : lcsb__fail(err, LCSB_EUNTRUSTED, "%s", why);
    rc = each_plan(dir, remove_one, removed);
    close(dir);
    if (rc) return lcsb__fail(err, LCSB_ESYS, "cannot clear %s: %s", store, strerror(errno));
    return 0;
}

int lcsb__plan_save(const char *key, size_t key_len, const lcsb__facts *facts, struct timespec made,
                    const char *const *areas, size_t n, const char *data, size_t len, char *why,
                    size_t why_size) {
    if (lcsb__facts_unfit(facts))
        return say(why, why_size, "the composition asked of %s, which a plan cannot record",
                   lcsb__facts_unfit(facts));
    record r = {.facts = (lcsb__facts *)facts,
                .areas = areas,
                .n = n,
                .why = why,
                .why_size = why_size,
                .made_ns = ns_of(made)};
    const char *home = getenv("HOME");
    if (!home || home[0] != '/' || !lcsb__realpath(home, r.home)) r.home[0] = '\0';
    char name[LCSB__SHA256_HEX], store[PATH_MAX], sum[LCSB__SHA256_HEX];
    lcsb_error err;
    name_of(key, key_len, name);
    lcsb__buf_adds(&r.lines, MAGIC);
    lcsb__buf_addf(&r.lines, "key %s\n", name);
    int rc = lcsb__facts_each_seen(facts, record_one, &r);
    lcsb__strv_clear(&r.dirs);
    if (!rc) {
        lcsb__buf_addf(&r.lines, "data %zu\n", len);
        lcsb__buf_add(&r.lines, data, len);
        lcsb__buf_adds(&r.lines, "\n");
        if (!r.lines.oom) lcsb__sha256_of(r.lines.p, r.lines.len, sum);
        lcsb__buf_addf(&r.lines, "sum %s\n", sum);
        if (r.lines.oom)
            rc = say(why, why_size, "out of memory");
        else if (r.lines.len > LCSB__PLAN_MAX)
            rc = say(why, why_size, "the plan would be larger than %zu MiB", LCSB__PLAN_MAX >> 20);
    }
    int dir = -1;
    if (!rc && lcsb__plan_store(store, sizeof store, &err))
        rc = say(why, why_size, "%s", err.message);
    if (!rc && make_dirs(store) != 0)
        rc = say(why, why_size, "cannot make the plan store %s: %s", store, strerror(errno));
    if (!rc && (dir = open_store(store, why, why_size)) < 0) rc = 1;
    if (!rc && write_whole_at(dir, name, r.lines.p, r.lines.len) != 0)
        rc = say(why, why_size, "cannot keep the plan in %s: %s", store, strerror(errno));
    if (!rc) prune(dir);
    if (dir >= 0) close(dir);
    lcsb__buf_free(&r.lines);
    return rc;
}

/* ---- guesses: the argv a run gave its shim, for the next to start early ---- */

#define GUESS_MAX ((size_t)1 << 20)

/* Where the guess for KEY is kept: named apart from any plan's key. */
static void guess_name(const char *key, size_t len, char name[LCSB__SHA256_HEX]) {
    lcsb__buf b = {0};
    lcsb__buf_adds(&b, "guess\n");
    lcsb__buf_add(&b, key, len);
    name_of(b.oom ? "" : b.p, b.oom ? 0 : b.len, name);
    lcsb__buf_free(&b);
}

/* The store, opened (made first when MAKE), and the name of KEY's guess:
 * -1 when there is none. */
static int guess_store(const char *key, size_t len, bool make, char name[LCSB__SHA256_HEX]) {
    char store[PATH_MAX], why[PATH_MAX + 128];
    lcsb_error err;
    if (lcsb__plan_store(store, sizeof store, &err) || (make && make_dirs(store) != 0)) return -1;
    guess_name(key, len, name);
    return open_store(store, why, sizeof why);
}

int lcsb__plan_guess_take(const char *key, size_t len, char **data, size_t *data_len, int *held) {
    char name[LCSB__SHA256_HEX];
    lcsb__file_seen seen;
    struct stat there;
    *data = NULL;
    *held = -1;
    int dir = guess_store(key, len, false, name);
    if (dir < 0) return 1;
    int fd = openat(dir, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    /* Locked while the run lasts: a run at the same time finds it locked,
     * takes none, and draws names of its own for its private directories.
     * A guess is replaced by a rename, so the lock counts only on the file
     * still there under the name: one replaced between the open and the
     * lock is another run's to lock, which may hand on the same names. */
    int rc = fd < 0 || flock(fd, LOCK_EX | LOCK_NB) != 0 ||
             lcsb__read_regular_fd(fd, GUESS_MAX, data, data_len, &seen) != 0 || !owned(&seen.st) ||
             fstatat(dir, name, &there, AT_SYMLINK_NOFOLLOW) != 0 ||
             there.st_dev != seen.st.st_dev || there.st_ino != seen.st.st_ino;
    close(dir);
    if (!rc) {
        *held = fd;
        return 0;
    }
    if (fd >= 0) close(fd);
    free(*data);
    *data = NULL;
    return 1;
}

int lcsb__plan_guess_keep(const char *key, size_t len, const char *data, size_t data_len) {
    char name[LCSB__SHA256_HEX];
    if (data_len > GUESS_MAX) return 1;
    int dir = guess_store(key, len, true, name);
    if (dir < 0) return 1;
    int rc = write_whole_at(dir, name, data, data_len) != 0;
    close(dir);
    return rc;
}
