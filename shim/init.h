/* The processes a world of its own needs (world.h): the shim that stays
 * outside the new pid namespace, and its init inside. */
#ifndef LCSB_SHIM_INIT_H
#define LCSB_SHIM_INIT_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

#include "cgroup.h"
#include "execseen.h"
#include "wire.h"

/* After TERM, INT, HUP or QUIT sent to lcsb, how long the command has to
 * stop before every process of it is killed. */
#define GRACE_SECONDS 10

/* What the init tells lcsb on the report pipe when it ended the command. */
#define REPORT_SETUP_FAILED 'F'
#define REPORT_TIME_LIMIT 'T'
#define REPORT_GRACE_OVER 'G'
#define REPORT_TMP_FULL 'S'
#define REPORT_OUT_OF_MEMORY 'M'
/* And that it sees every exec of the command's (execseen.h). */
#define REPORT_EXECS_SEEN 'X'
/* And that a world made ahead changed while it waited: not used (handover.c). */
#define REPORT_STALE 'R'
/* And that it was asked to stop before the command started: none was. */
#define REPORT_INTERRUPTED 'I'

/* The value a terminal's stop carries (sigqueue) when lcsb, or the shim
 * outside, passes on one it held from before the processes below it could
 * get their own: the init counts it before its command starts and never
 * passes it to a command that runs, which has its own (wire-format.md). */
#define TERMINAL_STOP 0x6c637362

/* The shim's first step: the signals its processes wait for held from
 * here on, so that one that comes while the world is made is passed on to
 * the init as a later one is (and, held there before the command starts,
 * said: REPORT_INTERRUPTED), not taken by its default action, which would
 * end the shim with no word that the command never ran. ENTRY gets the
 * mask the shim came with: the command's. */
void hold_signals(sigset_t *entry);

/* Where the shim becomes the command (a world of the host's): ENTRY put
 * back before its exec. A stop held until then is said on REPORT_FD
 * (REPORT_INTERRUPTED) and ends the shim as it would have. */
void release_signals(const sigset_t *entry, int report_fd);

/* Forks the new pid namespace's init. Returns 0 in the init, which has
 * joined CG first; in the shim outside (which must already die with lcsb),
 * waits for it, passes signals on, ends everything at TIME_LIMIT seconds
 * (0: none) or after the grace period (saying which on REPORT_FD), says
 * when the kernel killed a process of CG for want of memory, removes CG,
 * and exits as the command did: it never returns there. Signals are held
 * from hold_signals on. */
int start_init(uint64_t time_limit, int report_fd, struct cgroup *cg);

/* In the init, with the command's setup done: starts the command, which
 * calls IN_COMMAND(CTX) with OLD_MASK restored, to exec, and exits with what
 * it returns when that fails (it shares the init's memory until then: a
 * vfork, unless WATCH or FOR_IT); the init waits, passes signals on, sees every exec
 * WATCH (NULL: none) is told of, says when the command left its private tmp
 * full (LIMITS), and exits with it. FOR_IT: the world was made for this
 * command, so a stop asked of the init before it starts is the command's,
 * and none is started. It returns only when the command could not be
 * started. */
int run_command(const sigset_t *old_mask, const struct limits *limits, int report_fd,
                struct exec_watch *watch, bool for_it, int (*in_command)(void *ctx), void *ctx);

#endif
