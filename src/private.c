/* The private directories on the host (private.h): the run's HOME and
 * TMPDIR where the mechanism gives the command no world of its own to make
 * them in (--backend none, seatbelt, a container, Landlock without user
 * namespaces). Made just before the command starts rather than while the
 * policy is composed, so that a run in a world of its own makes nothing
 * here at all. */
#include "private.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
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

/* PATH, there already: an earlier run's directory (one policy serves many
 * runs of an embedded host), not something put in its way. */
static bool ours(const char *path) {
    struct stat st;
    return lstat(path, &st) == 0 && S_ISDIR(st.st_mode) && st.st_uid == geteuid();
}

int lcsb__private_make(const lcsb_policy *policy, lcsb_error *err) {
    for (size_t i = 0; i < policy->priv_n; i++) {
        const lcsb__private *d = &policy->priv[i];
        if (mkdir(d->path, 0700) != 0) {
            if (errno == EEXIST && ours(d->path)) continue;
            return lcsb__fail(err, LCSB_ESYS, "cannot make the private directory %s: %s", d->path,
                              errno == EEXIST ? "something else is there" : strerror(errno));
        }
        int dir = open(d->path, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        for (size_t j = 0; dir >= 0 && j + 1 < d->links.n; j += 2) {
            if (make_link(dir, d->links.v[j], d->links.v[j + 1]) != 0) {
                int saved = errno;
                close(dir);
                return lcsb__fail(err, LCSB_ESYS, "cannot show %s in %s: %s", d->links.v[j + 1],
                                  d->path, strerror(saved));
            }
        }
        if (dir < 0)
            return lcsb__fail(err, LCSB_ESYS, "cannot open %s: %s", d->path, strerror(errno));
        close(dir);
    }
    return 0;
}
