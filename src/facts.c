/* The file system asked once per composition: a table of entries by path,
 * each holding what was learnt of it (its lstat, its link, its listing, its
 * head), and, while recording, the order in which things were marked. */
#include "facts.h"

#include "sys.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* How many symlinks one resolution may pass, as the kernel allows (40). */
#define HOPS_MAX 40

typedef struct entry {
    char *path;
    uint64_t hash;   /* of path: most lookups are told apart by it alone */
    unsigned marked; /* 1 << lcsb__seen_kind, for each kind marked */
    bool looked, linked, listed, headed;
    bool realed, real_marked; /* realpath asked; and while recording */
    int real_err;
    char *real;
    int xok; /* access(X_OK): -1 not asked yet */
    int lerr;
    struct stat st;
    int link_err;
    char *link;
    int list_err;
    lcsb__strv names;
    char *kinds;
    int head_err;
    char *head;
    size_t head_len, head_cap; /* read, and asked for */
    mode_t head_mode;
} entry;

typedef struct mark {
    entry *e;
    lcsb__seen_kind kind;
} mark;

struct lcsb__facts {
    entry **slots; /* open addressing; a power of two long */
    size_t cap, n;
    bool recording, unfit;
    char unfit_path[256]; /* the first path asked that spoilt the record */
    struct timespec since;
    mark *marks;
    size_t marks_n, marks_cap;
};

lcsb__facts *lcsb__facts_new(void) {
    lcsb__facts *f = calloc(1, sizeof *f);
    if (f && !(f->slots = calloc(f->cap = 256, sizeof *f->slots))) {
        free(f);
        f = NULL;
    }
    return f;
}

static void entry_free(entry *e) {
    free(e->path);
    free(e->real);
    free(e->link);
    lcsb__strv_clear(&e->names);
    free(e->kinds);
    free(e->head);
    free(e);
}

void lcsb__facts_free(lcsb__facts *f) {
    if (!f) return;
    for (size_t i = 0; i < f->cap; i++)
        if (f->slots[i]) entry_free(f->slots[i]);
    free(f->slots);
    free(f->marks);
    free(f);
}

void lcsb__facts_record(lcsb__facts *f, bool on) {
    if (!f) return;
    if (on) {
        /* A composition starts from nothing: what an earlier one learnt may
         * have changed since (its run made directories). */
        for (size_t i = 0; i < f->cap; i++) {
            if (f->slots[i]) entry_free(f->slots[i]);
            f->slots[i] = NULL;
        }
        f->n = f->marks_n = 0;
        f->unfit = false;
        f->since = lcsb__fs_now();
    }
    f->recording = on;
}

struct timespec lcsb__facts_since(const lcsb__facts *f) {
    return f ? f->since : (struct timespec){0};
}

const char *lcsb__facts_unfit(const lcsb__facts *f) { return f && f->unfit ? f->unfit_path : NULL; }

/* Eight bytes a step (a byte a step was 5.7% of a cold composition's
 * instructions: thousands of questions, about paths forty bytes long), each
 * multiplied in and folded down, and the last mixed so that the low bits
 * the slots are taken by depend on every byte. */
static uint64_t hash(const char *s) {
    size_t len = strlen(s);
    uint64_t h = 0x9e3779b97f4a7c15ULL ^ len;
    uint64_t w;
    for (; len >= 8; s += 8, len -= 8) {
        memcpy(&w, s, 8);
        h = (h ^ w) * 0xff51afd7ed558ccdULL;
        h ^= h >> 32;
    }
    w = 0;
    memcpy(&w, s, len);
    h = (h ^ w) * 0xff51afd7ed558ccdULL;
    h ^= h >> 33;
    h *= 0xc4ceb9fe1a85ec53ULL;
    return h ^ (h >> 33);
}

static bool grow(lcsb__facts *f) {
    size_t cap = f->cap * 2;
    entry **slots = calloc(cap, sizeof *slots);
    if (!slots) return false;
    for (size_t i = 0; i < f->cap; i++) {
        entry *e = f->slots[i];
        if (!e) continue;
        size_t at = e->hash & (cap - 1);
        while (slots[at]) at = (at + 1) & (cap - 1);
        slots[at] = e;
    }
    free(f->slots);
    f->slots = slots;
    f->cap = cap;
    return true;
}

/* Is PATH one the table keeps: absolute, with no empty, "." or ".."
 * component? Anything else is asked directly, and, while recording, spoils
 * the record. */
static bool keyable(lcsb__facts *f, const char *path) {
    bool ok = path[0] == '/' && strlen(path) < PATH_MAX;
    for (const char *part = path + 1; ok && *part;) {
        size_t len = strcspn(part, "/");
        ok = len > 0 && !(len == 1 && part[0] == '.') &&
             !(len == 2 && part[0] == '.' && part[1] == '.');
        part += len + (part[len] == '/');
    }
    if (!ok) lcsb__facts_spoil(f, path);
    return ok;
}

/* PATH's entry, made when new; NULL when the path is not keyable or memory
 * ran out (then the caller asks the host directly). A path found is one
 * that was keyable when its entry was made: only a new one is looked at. */
static entry *entry_of(lcsb__facts *f, const char *path) {
    if (!f) return NULL;
    uint64_t h = hash(path);
    size_t at = h & (f->cap - 1);
    for (; f->slots[at]; at = (at + 1) & (f->cap - 1))
        if (f->slots[at]->hash == h && strcmp(f->slots[at]->path, path) == 0) return f->slots[at];
    if (!keyable(f, path)) return NULL;
    if ((f->n + 1) * 2 > f->cap) {
        if (!grow(f)) return NULL;
        return entry_of(f, path);
    }
    entry *e = calloc(1, sizeof *e);
    if (e) e->xok = -1;
    if (!e || !(e->path = strdup(path))) {
        free(e);
        if (f->recording) f->unfit = true;
        return NULL;
    }
    e->hash = h;
    f->slots[at] = e;
    f->n++;
    return e;
}

static void mark_as(lcsb__facts *f, entry *e, lcsb__seen_kind kind) {
    if (!f->recording || (e->marked & (1u << kind))) return;
    if (f->marks_n == f->marks_cap) {
        size_t cap = f->marks_cap ? f->marks_cap * 2 : 64;
        mark *grown = realloc(f->marks, cap * sizeof *grown);
        if (!grown) {
            f->unfit = true;
            return;
        }
        f->marks = grown;
        f->marks_cap = cap;
    }
    e->marked |= 1u << kind;
    f->marks[f->marks_n++] = (mark){e, kind};
}

/* PATH's entry with its lstat taken (and marked); NULL as entry_of. */
static entry *looked_up(lcsb__facts *f, const char *path) {
    entry *e = entry_of(f, path);
    if (!e) return NULL;
    if (!e->looked) {
        e->lerr = lstat(path, &e->st) == 0 ? 0 : errno;
        e->looked = true;
    }
    mark_as(f, e, LCSB__SEEN_ENTRY);
    return e;
}

int lcsb__facts_lstat(lcsb__facts *f, const char *path, struct stat *st) {
    entry *e = looked_up(f, path);
    if (!e) return lstat(path, st);
    if (e->lerr) {
        errno = e->lerr;
        return -1;
    }
    *st = e->st;
    return 0;
}

ssize_t lcsb__facts_readlink(lcsb__facts *f, const char *path, char *out) {
    entry *e = looked_up(f, path);
    if (!e) {
        ssize_t n = readlink(path, out, PATH_MAX - 1);
        if (n >= 0) out[n] = '\0';
        return n;
    }
    /* A symlink's target is part of the symlink: its lstat tells a new one. */
    if (!e->linked) {
        char buf[PATH_MAX];
        ssize_t n = e->lerr ? -1 : readlink(path, buf, sizeof buf - 1);
        e->link_err = n < 0 ? (e->lerr ? e->lerr : errno) : 0;
        if (n >= 0 && !(e->link = strndup(buf, (size_t)n))) e->link_err = ENOMEM;
        e->linked = true;
    }
    if (e->link_err) {
        errno = e->link_err;
        return -1;
    }
    size_t len = strlen(e->link);
    memcpy(out, e->link, len + 1);
    return (ssize_t)len;
}

int lcsb__facts_walk(lcsb__facts *f, const char *path, bool strict, char *at, size_t size,
                     bool (*stop)(void *ctx, const char *at, size_t len), void *ctx) {
    char rest[LCSB__WALK_MAX], link[PATH_MAX];
    size_t at_len = 0, rest_len = strlen(path), pos = 0;
    int hops = 0;
    if (size > sizeof rest || rest_len >= size) {
        errno = ENAMETOOLONG;
        return -1;
    }
    memcpy(rest, path, rest_len + 1);
    at[0] = '\0';
    while (rest[pos]) {
        while (rest[pos] == '/') pos++;
        if (!rest[pos]) break;
        size_t len = strcspn(rest + pos, "/");
        const char *part = rest + pos;
        pos += len;
        if (len == 1 && part[0] == '.') continue;
        if (len == 2 && part[0] == '.' && part[1] == '.') {
            while (at_len > 0 && at[at_len - 1] != '/') at_len--;
            if (at_len > 0) at_len--;
            at[at_len] = '\0';
            continue;
        }
        if (at_len + 1 + len >= size) {
            errno = ENAMETOOLONG;
            return -1;
        }
        at[at_len] = '/';
        memcpy(at + at_len + 1, part, len);
        size_t next_len = at_len + 1 + len;
        at[next_len] = '\0';
        /* Every directory above was asked at an earlier step (or is "/"):
         * only this one is new. */
        if (stop && stop(ctx, at, next_len)) return 1;
        struct stat st;
        bool there = lcsb__facts_lstat(f, at, &st) == 0;
        if (!there && strict) return -1;
        if (there && S_ISLNK(st.st_mode)) {
            if (++hops > HOPS_MAX) {
                errno = ELOOP;
                return -1;
            }
            ssize_t n = lcsb__facts_readlink(f, at, link);
            if (n < 0 && strict) return -1;
            size_t left = rest_len - pos;
            if (n >= 0 && (size_t)n + left >= size) {
                errno = ENAMETOOLONG;
                return -1;
            }
            if (n >= 0) {
                /* The target, then what was left of the path, from the
                 * link's directory or from "/". */
                memmove(rest + n, rest + pos, left + 1);
                memcpy(rest, link, (size_t)n);
                rest_len = (size_t)n + left;
                pos = 0;
                if (link[0] == '/') at_len = 0;
                at[at_len] = '\0';
                continue;
            }
        } else if (there && strict && rest[pos] && !S_ISDIR(st.st_mode)) {
            errno = ENOTDIR;
            return -1;
        }
        at_len = next_len;
    }
    return 0;
}

/* realpath(3) of PATH into OUT walked component by component, as the
 * kernel walks: each entry looked up (and so marked), each symlink read and
 * followed. */
static char *walk(lcsb__facts *f, const char *path, char *out) {
    char at[PATH_MAX];
    if (lcsb__facts_walk(f, path, true, at, sizeof at, NULL, NULL) != 0) return NULL;
    if (!at[0]) memcpy(at, "/", 2);
    memcpy(out, at, strlen(at) + 1);
    return out;
}

char *lcsb__facts_realpath(lcsb__facts *f, const char *path, char *out) {
    entry *e = entry_of(f, path);
    if (!e) return realpath(path, out);
    /* Asked once; walked again while recording, to mark what it rests on. */
    if (!e->realed || (f->recording && !e->real_marked)) {
        char real[PATH_MAX];
        free(e->real);
        e->real = NULL;
        e->real_err = walk(f, path, real) ? 0 : errno;
        if (!e->real_err && !(e->real = strdup(real))) e->real_err = ENOMEM;
        e->realed = true;
        e->real_marked = f->recording;
    }
    if (e->real_err) {
        errno = e->real_err;
        return NULL;
    }
    memcpy(out, e->real, strlen(e->real) + 1);
    return out;
}

char *lcsb__facts_realpath_where(lcsb__facts *f, const char *path, char *out) {
    if (!entry_of(f, path)) return lcsb__realpath_where(path, out);
    if (lcsb__facts_realpath(f, path, out)) return out;
    if (errno != ENOENT && errno != ENOTDIR) return NULL;
    const char *slash = strrchr(path, '/');
    if (!slash || slash == path) {
        /* Below "/" itself: it lies where it is written. */
        if (strlen(path) >= PATH_MAX) return NULL;
        return strcpy(out, path);
    }
    char parent[PATH_MAX];
    size_t len = (size_t)(slash - path);
    memcpy(parent, path, len);
    parent[len] = '\0';
    if (!lcsb__facts_realpath_where(f, parent, out)) return NULL;
    size_t have = strlen(out);
    bool root = have == 1;
    if (have + strlen(slash) + 1 > PATH_MAX) return NULL;
    strcpy(out + have - (root ? 1 : 0), slash);
    return out;
}

int lcsb__facts_stat(lcsb__facts *f, const char *path, struct stat *st) {
    char real[PATH_MAX];
    if (!entry_of(f, path)) return stat(path, st);
    if (!lcsb__facts_realpath(f, path, real)) return -1;
    return lcsb__facts_lstat(f, real, st);
}

bool lcsb__facts_executable(lcsb__facts *f, const char *path) {
    char real[PATH_MAX];
    if (!entry_of(f, path)) return access(path, X_OK) == 0;
    /* Asked of the file the path leads to, once; a change of its mode is a
     * change of its entry, which a plan checks. */
    entry *e = lcsb__facts_realpath(f, path, real) ? looked_up(f, real) : NULL;
    if (!e) return access(path, X_OK) == 0;
    if (e->xok < 0) e->xok = access(real, X_OK) == 0;
    return e->xok == 1;
}

static int not_dots(const struct dirent *d) {
    return strcmp(d->d_name, ".") != 0 && strcmp(d->d_name, "..") != 0;
}

static int by_name(const struct dirent **a, const struct dirent **b) {
    return strcmp((*a)->d_name, (*b)->d_name);
}

static char kind_of(unsigned char type) {
    return type == DT_REG       ? 'f'
           : type == DT_DIR     ? 'd'
           : type == DT_LNK     ? 'l'
           : type == DT_UNKNOWN ? '?'
                                : 'o';
}

/* PATH's listing into NAMES and KINDS, from the host. */
static int list_host(const char *path, lcsb__strv *names, char **kinds) {
    struct dirent **list;
    int n = scandir(path, &list, not_dots, by_name);
    if (n < 0) return -1;
    char *k = malloc((size_t)n + 1);
    int rc = k ? 0 : -1;
    for (int i = 0; i < n; i++) {
        if (!rc && lcsb__strv_push(names, list[i]->d_name)) rc = -1;
        if (k) k[i] = kind_of(list[i]->d_type);
        free(list[i]);
    }
    free(list);
    if (rc) {
        free(k);
        lcsb__strv_clear(names);
        errno = ENOMEM;
        return -1;
    }
    k[n] = '\0';
    *kinds = k;
    return 0;
}

int lcsb__facts_listdir(lcsb__facts *f, const char *path, lcsb__strv *names, char **kinds) {
    memset(names, 0, sizeof *names);
    *kinds = NULL;
    entry *e = looked_up(f, path);
    if (!e) return list_host(path, names, kinds);
    if (!e->listed) {
        e->list_err = list_host(path, &e->names, &e->kinds) == 0 ? 0 : errno;
        e->listed = true;
    }
    mark_as(f, e, LCSB__SEEN_LISTING);
    if (e->list_err) {
        errno = e->list_err;
        return -1;
    }
    for (size_t i = 0; i < e->names.n; i++)
        if (lcsb__strv_push(names, e->names.v[i])) {
            lcsb__strv_clear(names);
            errno = ENOMEM;
            return -1;
        }
    if (!(*kinds = strdup(e->kinds))) {
        lcsb__strv_clear(names);
        errno = ENOMEM;
        return -1;
    }
    return 0;
}

/* The largest directory listed to answer whether it holds a name: a
 * small one (~/.cargo/bin, a pyenv's shims, /usr/local/bin: the PATH
 * entries a program is looked for in before the system's) is listed once
 * instead of asked for each of a preset's hundred names; /usr/bin, where
 * most of them are found, is asked name by name, as a hit needs its own
 * lstat anyway. */
#define LISTED_DIR_MAX (16 * 1024)

static int by_string(const void *a, const void *b) {
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

int lcsb__facts_dir_has(lcsb__facts *f, const char *dir, const char *name) {
    char real[PATH_MAX];
    if (!entry_of(f, dir) || !lcsb__facts_realpath(f, dir, real)) return -1;
    entry *e = looked_up(f, real);
    if (!e || e->lerr || !S_ISDIR(e->st.st_mode) || e->st.st_size > LISTED_DIR_MAX) return -1;
    if (!e->listed) {
        e->list_err = list_host(real, &e->names, &e->kinds) == 0 ? 0 : errno;
        e->listed = true;
    }
    if (e->list_err) return -1;
    mark_as(f, e, LCSB__SEEN_LISTING);
    /* Sorted bytewise (list_host), as strcmp orders; an empty one has no
     * array at all. */
    return e->names.n > 0 &&
           bsearch(&name, e->names.v, e->names.n, sizeof *e->names.v, by_string) != NULL;
}

/* PATH's first SIZE bytes from the host: open, check, read; its mode too. */
static int head_host(const char *path, char *buf, size_t size, size_t *got, mode_t *mode) {
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
    if (fd < 0) return -1;
    struct stat st;
    int error = fstat(fd, &st) != 0 ? errno : !S_ISREG(st.st_mode) ? EINVAL : 0;
    ssize_t n = error ? -1 : pread(fd, buf, size, 0);
    if (!error && n < 0) error = errno;
    close(fd);
    if (error) {
        errno = error;
        return -1;
    }
    *got = (size_t)n;
    *mode = st.st_mode;
    return 0;
}

int lcsb__facts_head(lcsb__facts *f, const char *path, char *buf, size_t size, size_t *got,
                     mode_t *mode) {
    entry *e = looked_up(f, path);
    if (!e) return head_host(path, buf, size, got, mode);
    if (!e->headed || (e->head_len < size && !e->head_err && e->head_len == e->head_cap)) {
        free(e->head);
        e->head = malloc(size ? size : 1);
        e->head_cap = size;
        e->head_err = !e->head                                                           ? ENOMEM
                      : head_host(path, e->head, size, &e->head_len, &e->head_mode) == 0 ? 0
                                                                                         : errno;
        e->headed = true;
    }
    mark_as(f, e, LCSB__SEEN_CONTENT);
    if (e->head_err) {
        errno = e->head_err;
        return -1;
    }
    *got = e->head_len < size ? e->head_len : size;
    memcpy(buf, e->head, *got);
    *mode = e->head_mode;
    return 0;
}

void lcsb__facts_mark_read(lcsb__facts *f, const char *path, const struct stat *st) {
    if (!f || !f->recording) return;
    entry *e = entry_of(f, path);
    if (!e) return;
    /* The descriptor's view: the very file those bytes came from. */
    if (!e->looked) {
        e->st = *st;
        e->lerr = 0;
        e->looked = true;
    }
    mark_as(f, e, LCSB__SEEN_READ);
}

void lcsb__facts_spoil(lcsb__facts *f, const char *path) {
    if (!f || !f->recording || f->unfit) return;
    f->unfit = true;
    snprintf(f->unfit_path, sizeof f->unfit_path, "%s", path);
}

void lcsb__facts_mark_path(lcsb__facts *f, const char *path) {
    if (!f || !f->recording) return;
    char real[PATH_MAX];
    struct stat st;
    /* The walk marks each entry it looks at, up to one that is missing;
     * the last entry itself, a symlink or not, is marked too. */
    (void)lcsb__facts_lstat(f, path, &st);
    /* What it leads to, when there, as read: by its own times (a mode
     * changed, which its directory's do not show), not by its directory's,
     * which stand only for which names it holds. */
    if (lcsb__facts_realpath(f, path, real) && lcsb__facts_lstat(f, real, &st) == 0)
        lcsb__facts_mark_read(f, real, &st);
}

int lcsb__facts_each_seen(const lcsb__facts *f, int (*fn)(const lcsb__seen *, void *), void *ctx) {
    for (size_t i = 0; f && i < f->marks_n; i++) {
        const entry *e = f->marks[i].e;
        lcsb__seen seen = {
            .kind = f->marks[i].kind, .path = e->path, .error = e->lerr, .st = e->st};
        int rc = fn(&seen, ctx);
        if (rc) return rc;
    }
    return 0;
}
