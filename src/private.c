/* The private directories on the host (private.h): the run's HOME and
 * TMPDIR where the mechanism gives the command no world of its own to make
 * them in (--backend none, seatbelt, a container, Landlock without user
 * namespaces). Made just before the command starts rather than while the
 * policy is composed, so that a run in a world of its own makes nothing
 * here at all. */
#include "private.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* LINK (relative, normal: policy.c checked it) made in DIR as a symlink to
 * TARGET, the directories on the way made 0700 as they are in a private
 * HOME today. Every step is a descriptor below DIR, none follows a symlink. */
static int make_link(int dir, const char *link, const char *target) {
    char rel[PATH_MAX];
    int at = dup(dir), rc = 0;
    char *part = rel, *slash;

    snprintf(rel, sizeof rel, "%s", link);
    while (at >= 0 && (slash = strchr(part, '/')) != NULL) {
        *slash = '\0';
        if (mkdirat(at, part, 0700) != 0 && errno != EEXIST) rc = -1;
        int next = rc ? -1 : openat(at, part, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        close(at);
        at = next;
        part = slash + 1;
    }
    if (at < 0 || symlinkat(target, at, part) != 0) rc = -1;
    if (at >= 0) close(at);
    return rc;
}

/* The private directories this process made and has not removed: a name
 * and the directory it was made as, held open so that its inode cannot be
 * freed and given to another directory at that name. */
struct made {
    char *path;
    int fd;
};
static struct made *made;
static size_t made_n;
static pthread_mutex_t made_lock = PTHREAD_MUTEX_INITIALIZER;

/* Is the directory open as FD empty? 1 or 0; -1, errno set, when it
 * cannot be read. */
static int empty(int fd) {
    int dup_fd = openat(fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    DIR *d = dup_fd >= 0 ? fdopendir(dup_fd) : NULL;
    struct dirent *e;
    int none = d != NULL ? 1 : -1;
    while (none == 1 && (e = readdir(d)) != NULL)
        none = strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0;
    if (d)
        closedir(d);
    else if (dup_fd >= 0)
        close(dup_fd);
    return none;
}

/* Forgets PATH's entry, if any; with MADE_LOCK held. */
static void forget(const char *path) {
    for (size_t i = made_n; i-- > 0;)
        if (strcmp(made[i].path, path) == 0) {
            free(made[i].path);
            close(made[i].fd);
            made[i] = made[--made_n];
        }
    if (made_n == 0) {
        free(made);
        made = NULL;
    }
}

/* lcsb__private_made, the descriptor it holds into *HELD (the registry's:
 * not the caller's to close). */
static int remember(const char *path, int *held, lcsb_error *err) {
    struct stat st;
    int fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) return lcsb__fail(err, LCSB_ESYS, "cannot open %s: %s", path, strerror(errno));
    /* What is there now may not be what mkdir made (the host renamed a
     * directory of its own over it): only an empty one of this user's is
     * taken as made. */
    int none = fstat(fd, &st) != 0 ? -1 : st.st_uid != geteuid() ? 0 : empty(fd);
    if (none != 1) {
        int saved = errno;
        close(fd);
        return lcsb__fail(err, LCSB_ESYS, "cannot make the private directory %s: %s", path,
                          none < 0 ? strerror(saved)
                                   : "what is there is not the empty directory lcsb made");
    }
    pthread_mutex_lock(&made_lock);
    /* Made again (the one before was removed between two runs): this one
     * stands in its entry. */
    forget(path);
    struct made *more = realloc(made, (made_n + 1) * sizeof *more);
    char *copy = more ? strdup(path) : NULL;
    if (more) made = more;
    if (copy) made[made_n++] = (struct made){copy, fd};
    pthread_mutex_unlock(&made_lock);
    if (!copy) close(fd);
    *held = copy ? fd : -1;
    return copy ? 0 : lcsb__fail(err, LCSB_ENOMEM, "out of memory");
}

int lcsb__private_made(const char *path, lcsb_error *err) {
    int held;
    return remember(path, &held, err);
}

void lcsb__private_gone(const char *path) {
    pthread_mutex_lock(&made_lock);
    forget(path);
    pthread_mutex_unlock(&made_lock);
}

/* PATH, there already: the very directory this process made (an earlier
 * run's of the same policy, one policy serving many runs of an embedded
 * host; a scope's), not one of the host's or something put in its way. */
static bool ours(const char *path) {
    struct stat st, held;
    bool found = false;
    if (lstat(path, &st) != 0 || !S_ISDIR(st.st_mode) || st.st_uid != geteuid()) return false;
    pthread_mutex_lock(&made_lock);
    for (size_t i = 0; !found && i < made_n; i++)
        found = strcmp(made[i].path, path) == 0 && fstat(made[i].fd, &held) == 0 &&
                held.st_dev == st.st_dev && held.st_ino == st.st_ino;
    pthread_mutex_unlock(&made_lock);
    return found;
}

int lcsb__private_make(const lcsb_policy *policy, lcsb_error *err) {
    for (size_t i = 0; i < policy->priv_n; i++) {
        const lcsb__private *d = &policy->priv[i];
        if (mkdir(d->path, 0700) != 0) {
            if (errno == EEXIST && ours(d->path)) continue;
            return lcsb__fail(err, LCSB_ESYS, "cannot make the private directory %s: %s", d->path,
                              errno == EEXIST ? "something is there already that lcsb did not "
                                                "make (a private directory starts empty)"
                                              : strerror(errno));
        }
        /* The links go in the very directory taken as made, by the
         * descriptor that holds it. */
        int dir, rc = remember(d->path, &dir, err);
        if (rc) return rc;
        for (size_t j = 0; j + 1 < d->links.n; j += 2)
            if (make_link(dir, d->links.v[j], d->links.v[j + 1]) != 0)
                return lcsb__fail(err, LCSB_ESYS, "cannot show %s in %s: %s", d->links.v[j + 1],
                                  d->path, strerror(errno));
    }
    return 0;
}
