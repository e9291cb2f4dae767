/* The covers of the command's world (covers.h).
 *
 * libc and kernel headers only, like the rest of the shim. */
#define _GNU_SOURCE
#include "covers.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "mounts.h"
#include "say.h"

/* The hidden and protected paths that were missing as the world was
 * built: a policy script may make one afterwards (the empty .git a
 * project's run holds), which a world made ahead of it would leave bare. */
struct noted {
    struct noted_path {
        char *path;
        bool hidden; /* hidden, or else protected */
    } *v;
    size_t n;
};
/* And those it covered: each a mount root of the world's, until the host
 * replaces the file under it (the kernel then detaches the cover); and the
 * directories bound onto themselves that hold them in place. */
static struct noted absent, covered, held;

/* PATH noted in LIST: 0, or -1 said. */
static int note(struct noted *list, const char *path, bool hidden) {
    struct noted_path *more = realloc(list->v, (list->n + 1) * sizeof *list->v);

    if (more == NULL || (more[list->n].path = strdup(path)) == NULL) {
        if (more != NULL)
            list->v = more;
        return fail("hold the policy's paths: out of memory");
    }
    more[list->n].hidden = hidden;
    list->v = more;
    list->n++;
    return 0;
}

/* The kernel's struct statx as far as it is read here (linux/stat.h): the
 * C libraries' own clash with the kernel's header, or (musl before 1.2.5)
 * have none. */
struct statx_head {
    uint32_t mask, blksize;
    uint64_t attributes;
    uint32_t nlink, uid, gid;
    uint16_t mode, spare;
    uint64_t ino, size, blocks, attributes_mask;
    uint8_t rest[256 - 64];
};
#define STATX_TYPE_ONLY 0x1
#define ATTR_MOUNT_ROOT 0x2000

static bool is_mount_root(int dirfd, const char *path, int flags) {
    struct statx_head stx;

    return syscall(SYS_statx, dirfd, path, flags | AT_SYMLINK_NOFOLLOW | AT_NO_AUTOMOUNT,
                   STATX_TYPE_ONLY, &stx) == 0 &&
           (stx.attributes_mask & ATTR_MOUNT_ROOT) && (stx.attributes & ATTR_MOUNT_ROOT);
}

/* Is PATH the root of a mount, as a cover put on it is? Reached through no
 * symlink: one the host put in place of a directory above it would lead
 * to the old cover. (At the handover the mount table, whose paths change
 * then, tells that; this is the look while the world is made.) */
static bool mount_root(const char *path) {
    int fd = open_path(AT_FDCWD, path);
    bool root = fd >= 0 && is_mount_root(fd, "", AT_EMPTY_PATH);

    if (fd >= 0)
        close(fd);
    return root;
}

static bool appeared(const char *path) {
    struct stat st;

    return fstatat(AT_FDCWD, path, &st, AT_SYMLINK_NOFOLLOW) == 0 || errno != ENOENT;
}

bool world_covers_changed(void) {
    for (size_t i = 0; i < absent.n; i++)
        if (appeared(absent.v[i].path))
            return true;
    for (size_t i = 0; i < covered.n; i++)
        if (!is_mount_root(AT_FDCWD, covered.v[i].path, 0))
            return true;
    return false;
}

int cover_hold(const char *path) {
    return note(&held, path, false);
}

/* How often a cover is put again on a file the host replaced while it was
 * put (git writes its config anew and renames it over the old): the mount
 * then finds its point unlinked (ENOENT), or the cover goes with the file. */
#define COVER_TRIES 8

enum { COVERED, ABSENT };

/* PATH covered read-only: what "hide" names with an empty directory or file,
 * what "protect" names with a copy of itself. A path that is not in the
 * world (ABSENT) is hidden already, and protected as long as it stays away. */
static int cover(const char *path, bool hidden) {
    struct stat st;
    int err = ENOENT;

    for (int tries = 0; err == ENOENT && tries < COVER_TRIES; tries++) {
        int at = open_path(AT_FDCWD, path), from = at;

        if (at < 0)
            return errno == ENOENT ? ABSENT
                                   : fail("open %s: %s", show(path), open_error(errno));
        if (hidden)
            from = fstat(at, &st) != 0
                       ? -1
                       : open_path(AT_FDCWD, S_ISDIR(st.st_mode) ? EMPTY_DIR : EMPTY);
        err = from < 0 ? errno : try_mount_copy(from, path, false);
        if (from != at && from >= 0)
            close(from);
        close(at);
    }
    return err != 0 ? fail("mount %s read-only: %s", show(path), strerror(err)) : COVERED;
}

static int cover_noted(const char *path, bool hidden) {
    int rc = cover(path, hidden);

    return rc < 0 ? rc : note(rc == COVERED ? &covered : &absent, path, hidden);
}

int cover_hide(void *ctx, const char *path) {
    (void)ctx;
    return cover_noted(path, true);
}

int cover_protect(void *ctx, const char *path) {
    (void)ctx;
    return cover_noted(path, false);
}

/* The I-th path of FROM noted in TO instead. */
static int move_noted(struct noted *from, size_t i, struct noted *to) {
    struct noted_path moved = from->v[i];
    int rc = note(to, moved.path, moved.hidden);

    free(moved.path);
    from->v[i] = from->v[--from->n];
    return rc;
}

/* Is PATH inside a directory hidden whole? It is out of the world for as
 * long as that cover holds, which is looked at itself; and beneath it, the
 * command's (and its init's) look at PATH finds no right to search. */
static bool inside_hidden(const char *path) {
    for (size_t i = 0; i < covered.n; i++) {
        size_t len = strlen(covered.v[i].path);

        if (covered.v[i].hidden && strncmp(path, covered.v[i].path, len) == 0 &&
            path[len] == '/')
            return true;
    }
    return false;
}

static void forget_inside_hidden(struct noted *list) {
    for (size_t i = 0; i < list->n; i++)
        if (inside_hidden(list->v[i].path)) {
            free(list->v[i].path);
            list->v[i--] = list->v[--list->n];
        }
}

/* Each cover put again where the host replaced its file while the world
 * was made, and each path that came meanwhile covered, until none changed:
 * the command starts with every one in place. (After, only a world made
 * ahead, waiting, can tell; handover.c.) */
int keep_covers(void) {
    for (int pass = 0; pass < COVER_TRIES; pass++) {
        bool changed = false;
        int rc = 0;

        forget_inside_hidden(&covered);
        forget_inside_hidden(&absent);
        forget_inside_hidden(&held);
        /* Bound again, it would need the host's root, gone by now. */
        for (size_t i = 0; i < held.n; i++)
            if (!mount_root(held.v[i].path))
                return fail("keep %s in place: the host moved or replaced it while the world "
                            "was made; run the command again",
                            show(held.v[i].path));

        for (size_t i = 0; i < covered.n && rc >= 0; i++) {
            if (mount_root(covered.v[i].path))
                continue;
            changed = true;
            /* Gone since (the host removed it): hidden, and protected while
             * away, as one found missing. */
            if ((rc = cover(covered.v[i].path, covered.v[i].hidden)) == ABSENT)
                rc = move_noted(&covered, i--, &absent);
        }
        for (size_t i = 0; i < absent.n && rc >= 0; i++) {
            if (!appeared(absent.v[i].path))
                continue;
            changed = true;
            if ((rc = cover(absent.v[i].path, absent.v[i].hidden)) == COVERED)
                rc = move_noted(&absent, i--, &covered);
        }
        if (rc < 0)
            return rc;
        if (!changed)
            return 0;
    }
    return fail("cover what the policy hides and protects: the host replaced it again each "
                "of %d times the world looked",
                COVER_TRIES);
}
