/* The new mount API's pieces (mounts.h). */
#define _GNU_SOURCE
#include "mounts.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "kernel_uapi.h"
#include "say.h"

int open_path(int dirfd, const char *path) {
    struct open_how how = {.flags = O_PATH | O_CLOEXEC, .resolve = RESOLVE_NO_SYMLINKS};

    return (int)syscall(SYS_openat2, dirfd, path, &how, sizeof how);
}

const char *open_error(int err) {
    return err == ELOOP ? "the path passes through a symlink" : strerror(err);
}

int set_mount_attr(int dirfd, const char *path, unsigned flags, bool readonly) {
    struct mount_attr_v0 attr = {0};

    if (readonly)
        attr.attr_set = MOUNT_ATTR_RDONLY_;
    else
        attr.attr_clr = MOUNT_ATTR_RDONLY_;
    return (int)syscall(SYS_mount_setattr, dirfd, path, flags, &attr, sizeof attr);
}

int try_mount_copy(int from, const char *to, bool writable) {
    int tree = (int)syscall(SYS_open_tree, from, "",
                            OPEN_TREE_CLONE_ | O_CLOEXEC | AT_EMPTY_PATH | AT_RECURSIVE_);
    int at = -1, err = 0;

    if (tree < 0 || set_mount_attr(tree, "", AT_EMPTY_PATH | AT_RECURSIVE_, true) != 0 ||
        (writable && set_mount_attr(tree, "", AT_EMPTY_PATH, false) != 0) ||
        (at = open_path(AT_FDCWD, to)) < 0 ||
        syscall(SYS_move_mount, tree, "", at, "",
                MOVE_MOUNT_F_EMPTY_PATH_ | MOVE_MOUNT_T_EMPTY_PATH_) != 0)
        err = errno;
    if (at >= 0)
        close(at);
    if (tree >= 0)
        close(tree);
    return err;
}

int mount_copy(int from, const char *to, bool writable, const char *name) {
    int err = try_mount_copy(from, to, writable);

    return err == 0 ? 0
                    : fail("mount %s %s: %s", show(name), writable ? "writable" : "read-only",
                           strerror(err));
}
