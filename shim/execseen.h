/* The init's view of every exec in the world (execseen.c): evidence for
 * lcsb's hints that does not depend on the recorder being loaded, so that a
 * static program's refused exec is seen too. */
#ifndef LCSB_SHIM_EXECSEEN_H
#define LCSB_SHIM_EXECSEEN_H

#include <stdint.h>

#define SEEN_SLOTS 256

struct exec_watch {
    int listener;  /* the seccomp listener, or -1: nothing is watched */
    int record_fd; /* the recorder's pipe, where each path seen goes */
    uint64_t seen[SEEN_SLOTS];
};

/* In the init, after the other filters: a filter that hands every execve
 * and execveat of the init's descendants to the listener it returns
 * (close-on-exec), or -1 when the kernel cannot, which is no fault: what
 * it gives is evidence, not enforcement. An execve whose path is FIRST (the
 * address, not the string) is let through unseen: the command's own. */
int watch_execs(const char *first);

/* Takes one notification from W's listener, writes the path it names to
 * the record pipe unless written already, and lets the call go on to the
 * kernel, which decides it as if nobody had looked. */
void see_exec(struct exec_watch *w);

#endif
