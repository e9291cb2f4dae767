/* A world made before its command is known (handover.c). */
#ifndef LCSB_SHIM_HANDOVER_H
#define LCSB_SHIM_HANDOVER_H

/* Waits on FD for the command lcsb hands over: the descriptors it starts
 * with put in place, *OUT the ARGC words of ARGV followed by the command's,
 * and *ENV its environment (each allocated, never freed: the process execs
 * or ends). 0 when it came; 1 when lcsb let the world go without one (the
 * stream ended empty); 2 when the world's mount table (MOUNTS, the init's
 * /proc/self/mountinfo, opened while it could be) changed while it waited;
 * -1, said, when what came is not a handover. */
int take_command(int fd, int mounts, char **argv, int argc, char ***out, char ***env);

#endif
