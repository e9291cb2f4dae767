/* The covers of the command's world: what the header hides, covered with
 * something empty that no one may read, and what it protects, mounted
 * read-only on top of the write tier; and each kept in place while the
 * world is made and while it waits. A cover is a mount, and a mount goes
 * with its mount point: a file the host replaces by a rename over it (as
 * git writes its config) loses its cover. */
#ifndef LCSB_SHIM_COVERS_H
#define LCSB_SHIM_COVERS_H

#include <stdbool.h>

/* What hidden paths are covered with, in the new root while it is made
 * (world.c makes and removes them): an empty file, and an empty directory
 * of mode 0. */
#define EMPTY "/.lcsb-empty"
#define EMPTY_DIR "/.lcsb-empty-dir"

/* PATH (in the new root) hidden, or protected; one that is not there is
 * noted as missing (hidden already, protected while it stays away). 0, or
 * -1 said. CTX is unused (a policy sink's). */
int cover_hide(void *ctx, const char *path);
int cover_protect(void *ctx, const char *path);

/* PATH, a directory of the host's bound writable onto itself inside a tree
 * bound already (what holds a protected or hidden path in place: the
 * command cannot rename a mount point), is looked at with the covers: the
 * host can rename it, and its mount goes with it. 0, or -1 said. */
int cover_hold(const char *path);

/* Each cover put again where the host took it away since, and each path
 * found missing that came since covered, until a look finds nothing
 * changed: once every other mount of the world is made. 0, or -1 said. */
int keep_covers(void);

/* Has a path the header hides or protects lost its cover since keep_covers
 * looked (the host replaced the file under it, and the kernel detached the
 * cover), or, found missing then, come to be? A world made ahead of its
 * command (handover.c) is then not used: what the policy covers would be
 * bare. */
bool world_covers_changed(void);

#endif
