/* A world made before its command is known (handover.c). */
#ifndef LCSB_SHIM_HANDOVER_H
#define LCSB_SHIM_HANDOVER_H

#include <stdbool.h>

/* The world's mount table, read as soon as the world is made, while the
 * init can open /proc/self/mountinfo: what take_command compares with.
 * Only for a world made ahead (COMMAND_FD, its socket, not -1). */
void world_made(int command_fd);

/* Waits on FD (-1: a world made at the call, whose command is on the argv:
 * 0 at once) for the command lcsb hands over: the descriptors it starts
 * with put in place, *OUT the ARGC words of ARGV followed by the command's,
 * and *ENV its environment (each allocated, never freed: the process execs
 * or ends); *FOR_IT whether the world was made for this command ('N'), not
 * for a later one ('C'). 0 when it came; 1 when lcsb let the world go without one (the
 * stream ended empty); 2 when the world's mount table changed since
 * world_made read it, or could not be read then or now, or a cover is gone
 * (world_covers_changed); -1, said, when what came is not a handover. */
int take_command(int fd, char **argv, int argc, char ***out, char ***env, bool *for_it);

#endif
