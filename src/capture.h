/* Layer 6, impure: the command's stderr, relayed live and remembered for
 * explain, and the recorder's pipe read as the command runs (capture.c). */
#ifndef LCSB_CAPTURE_H
#define LCSB_CAPTURE_H

#include "refusals.h"
#include "util.h"

#include <signal.h>
#include <sys/types.h>

typedef struct lcsb__capture {
    int out[2];  /* the command's stderr; -1s when it is left alone */
    int note[2]; /* SIGCHLD's self-pipe */
    int record;  /* the recorder's pipe (read end, not owned), or -1 */
    lcsb__refusals *refusals;
    struct sigaction old_chld, old_pipe;
    bool installed, relaying;
} lcsb__capture;

/* Make the pipes (stderr's only WITH_STDERR) and hear SIGCHLD (and ignore
 * SIGPIPE) until close. */
int lcsb__capture_open(lcsb__capture *c, bool with_stderr, lcsb_error *err);
/* The two halves of open: the pipes made, then SIGCHLD heard (one capture
 * listens at a time: the one waited for). */
int lcsb__capture_make(lcsb__capture *c, bool with_stderr, lcsb_error *err);
void lcsb__capture_listen(lcsb__capture *c);
/* Does SA ignore its signal? The kernel reads SIG_IGN whatever the flags
 * say (SA_SIGINFO with sa_sigaction SIG_IGN ignores too). */
static inline bool lcsb__ignores(const struct sigaction *sa) { return sa->sa_handler == SIG_IGN; }
/* Whether lcsb's caller ignores SIGPIPE, which lcsb ignores for itself
 * while a capture listens. */
bool lcsb__capture_caller_ignores_pipe(void);
/* Whether lcsb ignores SIGPIPE now where its caller does not. */
bool lcsb__capture_ignores_pipe_itself(void);
/* Read RECORD, the recorder's pipe, into REFUSALS too while the command runs. */
void lcsb__capture_watch(lcsb__capture *c, int record, lcsb__refusals *refusals);
/* After spawning a child whose stderr is c->out[1]. */
void lcsb__capture_spawned(lcsb__capture *c);
/* Relay to RELAY_FD (-1: keep the tail only) until PID exits; its wait
 * status into *WSTATUS. 0, or -1 with errno. */
int lcsb__capture_wait(lcsb__capture *c, pid_t pid, int relay_fd, int *wstatus,
                       lcsb_run_result *result);
void lcsb__capture_close(lcsb__capture *c);

#endif
