/* A world made before its command is known (handover.c). */
#ifndef LCSB_SHIM_HANDOVER_H
#define LCSB_SHIM_HANDOVER_H

/* Waits on FD for the command lcsb hands over: the descriptors it starts
 * with put in place, and *OUT the ARGC words of ARGV followed by the
 * command's (allocated, never freed: the process execs or ends). 0 when it
 * came; 1 when lcsb let the world go without one (the stream ended empty);
 * -1, said, when what came is not a handover. */
int take_command(int fd, char **argv, int argc, char ***out);

#endif
