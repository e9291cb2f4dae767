/* The caches lcsb keeps per project. A policy's cache = { "~/.npm" } gives
 * the command a directory of the project's own where the user's ~/.npm
 * would be: what a run writes there, a later run of the same project reads,
 * so it must never be the user's own cache, nor another project's. Each
 * project's caches live in one directory under $XDG_CACHE_HOME/lcsb/projects
 * (else ~/.cache/lcsb/projects), named after the project and a hash of its
 * real path.
 *
 * The command writes inside its caches and nowhere above them. Every
 * directory lcsb owns on the way down is opened without following a
 * symlink and must be the user's; removal goes by descriptor, as a scope's
 * does, so a symlink the command planted in its cache is removed, never
 * followed. */
#include "cache.h"

#include "path.h"
#include "scope.h"
#include "sha256.h"
#include "sys.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fts.h>
#include <pthread.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#ifndef LCSB_SYSCONFDIR
#define LCSB_SYSCONFDIR "/etc/lcsb"
#endif

/* In each project's directory, beside its caches: the project's real path,
 * for a list of every project's caches to name it (the hash cannot). */
#define MARKER "project"
/* Enough of the digest that no two projects meet; the name's tail is for people. */
#define KEY_HEX 16
#define TAIL_MAX 40

/* ---- where ---- */

static const char *home_dir(void) {
    const char *home = getenv("HOME");
    if (home && home[0] == '/') return home;
    struct passwd *pw = getpwuid(getuid());
    return pw && pw->pw_dir && pw->pw_dir[0] == '/' ? pw->pw_dir : NULL;
}

/* $VAR/TAIL when VAR (may be NULL) is absolute, else ~/FALLBACK/TAIL,
 * normalized, into OUT (PATH_MAX bytes); "" when there is no such place. */
static void xdg_dir(char *out, const char *var, const char *fallback, const char *tail) {
    char joined[PATH_MAX];
    const char *base = var ? getenv(var) : NULL, *home = home_dir();
    int n = base && base[0] == '/' ? snprintf(joined, sizeof joined, "%s/%s", base, tail)
            : home ? snprintf(joined, sizeof joined, "%s/%s/%s", home, fallback, tail)
                   : -1;
    if (n < 0 || n >= PATH_MAX || lcsb__path_normalize("dir", joined, out, NULL)) out[0] = '\0';
}

/* lcsb's own directories (its configuration, its trust store, the
 * system's), each as named and where it really is ("" when it resolves
 * nowhere). No project may write there, so no cache may be there either. */
typedef struct own_dirs {
    char named[5][PATH_MAX], real[5][PATH_MAX];
} own_dirs;

static void find_own_dirs(own_dirs *o) {
    xdg_dir(o->named[0], "XDG_CONFIG_HOME", ".config", "lcsb");
    xdg_dir(o->named[1], NULL, ".config", "lcsb");
    xdg_dir(o->named[2], "XDG_STATE_HOME", ".local/state", "lcsb");
    xdg_dir(o->named[3], NULL, ".local/state", "lcsb");
    snprintf(o->named[4], PATH_MAX, "%s", LCSB_SYSCONFDIR);
    for (size_t i = 0; i < 5; i++) {
        /* Without XDG_CONFIG_HOME (or XDG_STATE_HOME) two names are one
         * place: asked of the file system once. */
        size_t same = 0;
        while (same < i && strcmp(o->named[same], o->named[i]) != 0) same++;
        if (same < i)
            memcpy(o->real[i], o->real[same], sizeof o->real[i]);
        else if (!o->named[i][0] || !lcsb__realpath_where(o->named[i], o->real[i]))
            o->real[i][0] = '\0';
    }
}

/* Is DIR, or where it really is, in one of O's directories? That one into OWN. */
static bool in_own_dir(const own_dirs *o, const char *dir, char *own) {
    char real[PATH_MAX];
    bool resolved = lcsb__realpath_where(dir, real) != NULL;
    for (size_t i = 0; i < 5; i++) {
        if (!o->named[i][0]) continue;
        bool within = lcsb__path_within(dir, o->named[i]) ||
                      (resolved && o->real[i][0] && lcsb__path_within(real, o->real[i]));
        if (within) return strcpy(own, o->named[i]), true;
    }
    return false;
}

/* The user's cache directory: $XDG_CACHE_HOME, else ~/.cache; into OUT
 * (PATH_MAX bytes), normalized. Asked of the file system once for the same
 * variables: a run asks it for every cache a policy keeps. */
static int cache_home(char *out, lcsb_error *err) {
    static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
    static char asked[4 * PATH_MAX + 8], answer[PATH_MAX], refusal[sizeof err->message];
    static bool known;
    char inputs[sizeof asked];
    const char *names[] = {"XDG_CACHE_HOME", "XDG_CONFIG_HOME", "XDG_STATE_HOME", "HOME"};
    size_t at = 0;
    for (size_t i = 0; i < 4; i++) {
        const char *v = getenv(names[i]);
        int n = snprintf(inputs + at, sizeof inputs - at, "%s%c", v ? v : "\x01", '\0');
        if (n < 0 || (size_t)n >= sizeof inputs - at) break;
        at += (size_t)n;
    }
    pthread_mutex_lock(&lock);
    if (known && memcmp(asked, inputs, at) == 0) {
        snprintf(out, PATH_MAX, "%s", answer);
        int rc = answer[0] ? 0 : lcsb__fail(err, LCSB_EINVAL, "%s", refusal);
        pthread_mutex_unlock(&lock);
        return rc;
    }
    pthread_mutex_unlock(&lock);
    xdg_dir(out, "XDG_CACHE_HOME", ".cache", "");
    char own[PATH_MAX], root[PATH_MAX];
    int rc = 0;
    if (!out[0]) {
        rc = lcsb__fail(err, LCSB_EINVAL,
                        "no place for caches: neither XDG_CACHE_HOME nor HOME names an absolute "
                        "directory");
    } else {
        /* The caches go in OUT/lcsb: that is what must lie outside lcsb's
         * own (XDG_CACHE_HOME=~/.config would put them in ~/.config/lcsb). */
        own_dirs o;
        find_own_dirs(&o);
        xdg_dir(root, "XDG_CACHE_HOME", ".cache", "lcsb");
        if (in_own_dir(&o, out, own) || (root[0] && in_own_dir(&o, root, own)))
            rc = lcsb__fail(err, LCSB_EINVAL,
                            "the cache directory %s lies in lcsb's own directory %s, which no "
                            "project may write; set XDG_CACHE_HOME elsewhere",
                            out, own);
    }
    pthread_mutex_lock(&lock);
    memcpy(asked, inputs, at);
    snprintf(answer, sizeof answer, "%s", rc ? "" : out);
    snprintf(refusal, sizeof refusal, "%s", rc ? err->message : "");
    known = true;
    pthread_mutex_unlock(&lock);
    return rc;
}

/* PROJECT's directory name: a readable tail of its real path REAL, and the
 * start of REAL's digest. */
static void project_key(const char *real, char *key, size_t size) {
    char hex[LCSB__SHA256_HEX], tail[TAIL_MAX + 1];
    lcsb__sha256_of(real, strlen(real), hex);
    const char *base = strrchr(real, '/');
    base = base && base[1] ? base + 1 : "root";
    size_t n = 0;
    for (; base[n] && n < TAIL_MAX; n++) {
        char c = base[n];
        bool plain = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                     c == '-' || c == '_' || (c == '.' && n > 0);
        tail[n] = plain ? c : '_';
    }
    tail[n] = '\0';
    snprintf(key, size, "%s-%.*s", tail, KEY_HEX, hex);
}

/* ---- names ---- */

bool lcsb__cache_encode(const char *rel, char *out, size_t size) {
    size_t n = 0, max = size < NAME_MAX + 1 ? size : NAME_MAX + 1;
    for (const char *c = rel; *c; c++) {
        const char *put = *c == '/' ? "%2F" : *c == '%' ? "%25" : NULL;
        size_t len = put ? 3 : 1;
        if (n + len >= max) return false;
        if (put)
            memcpy(out + n, put, 3);
        else
            out[n] = *c;
        n += len;
    }
    out[n] = '\0';
    return n > 0;
}

bool lcsb__cache_decode(const char *name, char *out, size_t size) {
    size_t n = 0;
    for (const char *c = name; *c; n++) {
        if (n + 1 >= size) return false;
        if (strncmp(c, "%2F", 3) == 0 || strncmp(c, "%25", 3) == 0) {
            out[n] = c[2] == 'F' ? '/' : '%';
            c += 3;
        } else {
            out[n] = *c++;
        }
    }
    out[n] = '\0';
    return true;
}

/* REL names a place in HOME by components, none empty, "." or "..". */
static bool rel_is_plain(const char *rel) {
    if (!rel[0] || rel[0] == '/') return false;
    for (const char *part = rel; part;) {
        const char *end = strchr(part, '/');
        size_t len = end ? (size_t)(end - part) : strlen(part);
        if (len == 0 || (len == 1 && part[0] == '.') || (len == 2 && strncmp(part, "..", 2) == 0))
            return false;
        part = end ? end + 1 : NULL;
    }
    return true;
}

/* ---- the directories, by descriptor ---- */

/* NAME in DIRFD as a directory of this user's, opened without following a
 * symlink; made first (0700) when MAKE. -1 with errno: ELOOP a symlink,
 * ENOTDIR something else, EPERM another's. */
static int open_step(int dirfd, const char *name, bool make) {
    if (make && mkdirat(dirfd, name, 0700) != 0 && errno != EEXIST) return -1;
    int fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    struct stat st;
    if (fd < 0) {
        /* O_NOFOLLOW on a symlink says ENOTDIR with O_DIRECTORY on some systems. */
        if (errno == ENOTDIR && fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
            S_ISLNK(st.st_mode))
            errno = ELOOP;
        return -1;
    }
    if (fstat(fd, &st) != 0 || st.st_uid != geteuid()) {
        close(fd);
        errno = EPERM;
        return -1;
    }
    return fd;
}

/* Why PATH could not be opened as a cache directory, from errno. */
static int step_failure(const char *path, lcsb_error *err) {
    if (errno == ELOOP)
        return lcsb__fail(err, LCSB_EINVAL,
                          "the cache directory %s is a symlink; lcsb keeps caches only in a "
                          "directory of its own (remove the symlink)",
                          path);
    if (errno == EPERM)
        return lcsb__fail(err, LCSB_EINVAL, "the cache directory %s is not yours", path);
    return lcsb__fail(err, LCSB_ESYS, "cannot open the cache directory %s: %s", path,
                      strerror(errno));
}

/* The directory holding PROJECT's caches (NULL: every project's), opened
 * into *FD and named in PATH (PATH_MAX bytes) by its real path. Made when
 * MAKE; otherwise *FD is -1 when there is none yet. */
static int open_cache(const char *project, bool make, char *path, int *fd, lcsb_error *err) {
    char home[PATH_MAX], real_project[PATH_MAX], key[TAIL_MAX + KEY_HEX + 2];
    *fd = -1;
    int rc = cache_home(home, err);
    if (rc) return rc;
    if (project && !lcsb__realpath(project, real_project))
        return lcsb__fail(err, LCSB_EINVAL, "project %s: %s", project, strerror(errno));
    if (project) project_key(real_project, key, sizeof key);
    /* The user's own cache directory may be a symlink (to a larger disk);
     * what lcsb makes in it may not. */
    if (make && mkdir(home, 0700) != 0 && errno != EEXIST)
        return lcsb__fail(err, LCSB_ESYS, "cannot make the cache directory %s: %s", home,
                          strerror(errno));
    if (!lcsb__realpath(home, path)) {
        if (!make && errno == ENOENT) return 0;
        return lcsb__fail(err, LCSB_ESYS, "cannot resolve %s: %s", home, strerror(errno));
    }
    int dir = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dir < 0) return lcsb__fail(err, LCSB_ESYS, "cannot open %s: %s", path, strerror(errno));
    const char *steps[] = {"lcsb", "projects", project ? key : NULL};
    for (size_t i = 0; i < 3 && steps[i]; i++) {
        size_t len = strlen(path);
        if (len + 1 + strlen(steps[i]) >= PATH_MAX) {
            close(dir);
            return lcsb__fail(err, LCSB_EINVAL, "cache directory path too long");
        }
        snprintf(path + len, PATH_MAX - len, "%s%s", len == 1 ? "" : "/", steps[i]);
        int next = open_step(dir, steps[i], make);
        int saved = errno;
        close(dir);
        if (next < 0) {
            if (!make && saved == ENOENT) return 0;
            errno = saved;
            return step_failure(path, err);
        }
        dir = next;
    }
    if (project && make) {
        /* Written once, by lcsb, where the command cannot write. */
        int m = openat(dir, MARKER, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
        if (m >= 0) {
            size_t len = strlen(real_project);
            real_project[len] = '\n';
            bool whole = write(m, real_project, len + 1) == (ssize_t)(len + 1);
            real_project[len] = '\0';
            if (close(m) != 0 || !whole) unlinkat(dir, MARKER, 0);
        }
    }
    *fd = dir;
    return 0;
}

int lcsb__cache_make(const char *project, const char *rel, char out[PATH_MAX], lcsb_error *err) {
    char name[NAME_MAX + 1];
    if (!rel_is_plain(rel))
        return lcsb__fail(err, LCSB_EINVAL,
                          "cache: %s is no path in HOME (no \"..\", \".\" or empty component)",
                          rel);
    if (!lcsb__cache_encode(rel, name, sizeof name))
        return lcsb__fail(err, LCSB_EINVAL, "cache: %s is too long a name", rel);
    int dir, rc = open_cache(project, true, out, &dir, err);
    if (rc) return rc;
    size_t len = strlen(out);
    if (len + 1 + strlen(name) >= PATH_MAX) {
        close(dir);
        return lcsb__fail(err, LCSB_EINVAL, "cache directory path too long");
    }
    snprintf(out + len, PATH_MAX - len, "/%s", name);
    int fd = open_step(dir, name, true);
    int saved = errno;
    close(dir);
    if (fd < 0) {
        errno = saved;
        return step_failure(out, err);
    }
    close(fd);
    return 0;
}

/* ---- the public half: where, what, and removal ---- */

int lcsb_cache_dir(const char *project, char *out, size_t size, lcsb_error *err) {
    char home[PATH_MAX], where[PATH_MAX], real_project[PATH_MAX], key[TAIL_MAX + KEY_HEX + 2];
    int rc = cache_home(home, err);
    if (rc) return rc;
    if (project && !lcsb__realpath(project, real_project))
        return lcsb__fail(err, LCSB_EINVAL, "project %s: %s", project, strerror(errno));
    if (project) project_key(real_project, key, sizeof key);
    if (!lcsb__realpath_where(home, where)) snprintf(where, sizeof where, "%s", home);
    int n = snprintf(out, size, "%s%slcsb/projects%s%s", where, strcmp(where, "/") ? "/" : "",
                     project ? "/" : "", project ? key : "");
    if (n < 0 || (size_t)n >= size)
        return lcsb__fail(err, LCSB_EINVAL, "cache directory path too long");
    return 0;
}

/* The disk the tree at PATH takes, symlinks not followed and its mount
 * not left; *PARTIAL when some of it could not be measured. */
static unsigned long long tree_bytes(const char *path, bool *partial) {
    char *paths[] = {(char *)path, NULL};
    FTS *fts = fts_open(paths, FTS_PHYSICAL | FTS_XDEV | FTS_NOCHDIR, NULL);
    unsigned long long bytes = 0;
    if (!fts) return *partial = true, 0;
    errno = 0;
    for (FTSENT *e; (e = fts_read(fts));) {
        if (e->fts_info == FTS_DNR || e->fts_info == FTS_ERR || e->fts_info == FTS_NS)
            *partial = true;
        else if (e->fts_info != FTS_DP && e->fts_statp)
            bytes += (unsigned long long)e->fts_statp->st_blocks * 512;
    }
    if (errno) *partial = true;
    fts_close(fts);
    return bytes;
}

/* The first line of MARKER in DIR, the project it names, as a copy. */
static char *marker_of(int dir, const char *name) {
    char buf[PATH_MAX + 1];
    int sub = openat(dir, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    int fd = sub >= 0 ? openat(sub, MARKER, O_RDONLY | O_NOFOLLOW | O_CLOEXEC) : -1;
    ssize_t n = fd >= 0 ? read(fd, buf, sizeof buf - 1) : -1;
    if (fd >= 0) close(fd);
    if (sub >= 0) close(sub);
    if (n <= 0) return strdup("(a project lcsb cannot name)");
    buf[n] = '\0';
    buf[strcspn(buf, "\n")] = '\0';
    return strdup(buf);
}

static int by_path(const void *a, const void *b) {
    return strcmp(((const lcsb_cache_entry *)a)->path, ((const lcsb_cache_entry *)b)->path);
}

void lcsb_cache_list_free(lcsb_cache_entry *entries, size_t n) {
    for (size_t i = 0; entries && i < n; i++) {
        free(entries[i].name);
        free(entries[i].path);
    }
    free(entries);
}

int lcsb_cache_list(const char *project, lcsb_cache_entry **out, size_t *n, lcsb_error *err) {
    char path[PATH_MAX];
    int dir, rc = open_cache(project, false, path, &dir, err);
    *out = NULL;
    *n = 0;
    if (rc || dir < 0) return rc;
    int copy = dup(dir);
    DIR *d = copy >= 0 ? fdopendir(copy) : NULL;
    if (!d) {
        if (copy >= 0) close(copy);
        close(dir);
        return lcsb__fail(err, LCSB_ESYS, "cannot list %s: %s", path, strerror(errno));
    }
    lcsb_cache_entry *v = NULL;
    size_t count = 0;
    struct dirent *e;
    while (!rc && (e = readdir(d))) {
        struct stat st;
        char name[PATH_MAX], where[PATH_MAX];
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0 ||
            fstatat(dir, e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISDIR(st.st_mode))
            continue;
        int len = snprintf(where, sizeof where, "%s/%s", path, e->d_name);
        if (len < 0 || len >= (int)sizeof where ||
            (project && !lcsb__cache_decode(e->d_name, name + 2, sizeof name - 2)))
            continue;
        lcsb_cache_entry *grown = realloc(v, (count + 1) * sizeof *v);
        if (!grown) {
            rc = lcsb__fail(err, LCSB_ENOMEM, "out of memory");
            break;
        }
        v = grown;
        lcsb_cache_entry *entry = &v[count++];
        memset(entry, 0, sizeof *entry);
        if (project) memcpy(name, "~/", 2);
        entry->name = project ? strdup(name) : marker_of(dir, e->d_name);
        entry->path = strdup(where);
        if (!entry->name || !entry->path)
            rc = lcsb__fail(err, LCSB_ENOMEM, "out of memory");
        else
            entry->bytes = tree_bytes(where, &entry->partial);
    }
    closedir(d);
    close(dir);
    if (rc) {
        lcsb_cache_list_free(v, count);
        return rc;
    }
    if (count) qsort(v, count, sizeof *v, by_path);
    *out = v;
    *n = count;
    return 0;
}

int lcsb_cache_clear(const char *project, lcsb_error *err) {
    char path[PATH_MAX];
    int dir, rc = open_cache(project, false, path, &dir, err);
    if (rc || dir < 0) return rc;
    uint64_t mount;
    int known = lcsb__mount_of(dir, &mount, NULL, NULL);
    int saved = errno;
    close(dir);
    if (known != 0)
        return lcsb__fail(err, LCSB_ESYS, "cannot tell which mount %s is on: %s", path,
                          strerror(saved));
    if (lcsb__remove_tree(path, mount) != 0)
        return lcsb__fail(err, LCSB_ESYS,
                          "could not remove all of %s (a mount point inside, or a file lcsb may "
                          "not remove, is left where it is)",
                          path);
    return 0;
}
