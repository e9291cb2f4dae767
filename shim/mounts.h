/* The new mount API's pieces the world (world.c) and its covers (covers.c)
 * are made with. libc and kernel headers only, like the rest of the shim. */
#ifndef LCSB_SHIM_MOUNTS_H
#define LCSB_SHIM_MOUNTS_H

#include <stdbool.h>

/* PATH opened O_PATH from DIRFD, through no symlink. */
int open_path(int dirfd, const char *path);

/* What an open_path that failed with ERR says. */
const char *open_error(int err);

/* The mount at PATH from DIRFD (FLAGS: AT_EMPTY_PATH, AT_RECURSIVE)
 * made read-only, or writable again. */
int set_mount_attr(int dirfd, const char *path, unsigned flags, bool readonly);

/* A copy of the mount tree at FROM (a descriptor), read-only throughout, or
 * with its top mount writable: a mount below a write-tier path that was
 * read-only before lcsb came stays so. Mounted on the path TO in the new
 * root. 0, or the error (nothing said). */
int try_mount_copy(int from, const char *to, bool writable);

/* As try_mount_copy, and an error said, naming the path NAME: 0 or -1. */
int mount_copy(int from, const char *to, bool writable, const char *name);

#endif
