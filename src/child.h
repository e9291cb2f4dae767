/* Layer 6, impure: a run's child started and waited for (child.c), with
 * what lcsb hands the shim beside the argv (docs/wire-format.md): the pipe
 * on which it reports a failed setup, the recorder's pipe and library, the
 * stderr relay, and, for a world made ahead of its command (runner.c), the
 * socket the command comes on. lcsb_run (run.c) spawns and waits in one
 * go; a runner spawns the next shim while the current command runs and
 * hands it its command later. */
#ifndef LCSB_CHILD_H
#define LCSB_CHILD_H

#include "capture.h"
#include "refusals.h"
#include "util.h"

#include <limits.h>
#include <sys/types.h>

typedef struct lcsb__spawned {
    bool open; /* anything here to let go of */
    pid_t pid; /* 0 until spawned */
    int report[2];
    int record[2];
    char recorder[PATH_MAX];
    lcsb__refusals *refusals; /* NULL: nothing recorded */
    lcsb__capture capture;
    bool captured;
    int command[2];  /* ahead: the command's socket (ours, the shim's); else -1s */
    char **env;      /* the environment spawned with */
    int pidfd;       /* the child, by a descriptor no other process can take: -1 none */
    lcsb__buf host;  /* ahead: what the caller's process was when it spawned */
    bool stale;      /* ahead: the world changed while it waited, and was not used */
    bool waiting;    /* ahead, and handed no command yet */
    bool whole_host; /* ahead: all of the caller's process compared, not its status alone */
    bool for_it;     /* ahead: made for the command it is handed ('N'), not a later one */
    bool holds_chld; /* spawned: SIGCHLD kept waitable until it is let go of */
} lcsb__spawned;

/* The proxy's part of a run (run.c): the channel's end the shim gets
 * (CHANNEL, -1: none), the variables the command must not see (WITHHOLD,
 * NULL: none), and what to do once the child runs (SERVE, NULL: nothing;
 * nonzero stops the command). */
typedef struct lcsb__spawn_net {
    int channel;
    bool (*withhold)(void *ctx, const char *entry);
    int (*note_withheld)(void *ctx, char **env, lcsb_error *err);
    int (*serve)(void *ctx, lcsb_error *err);
    void *ctx;
} lcsb__spawn_net;

/* Makes what S needs to spawn POLICY's child under B (SHIM: the recording
 * shim, NULL: none; IS_MECHANISM: a report pipe), SIGCHLD heard. */
int lcsb__spawn_open(lcsb__spawned *s, const lcsb_backend *b, const lcsb_policy *policy,
                     bool is_mechanism, const char *shim, const lcsb_run_options *opts,
                     const lcsb__spawn_net *net, lcsb_error *err);
/* Makes what S needs to spawn SHIM ahead of its command, before any policy
 * is known: the shim's stdin and stdout the null device, its stderr lcsb's
 * relay, its environment lcsb's alone; the recorder's pipe when OPTS
 * records. SIGCHLD is heard only once the command is handed over. */
int lcsb__ahead_open(lcsb__spawned *s, const char *shim, const lcsb_run_options *opts,
                     bool whole_host, lcsb_error *err);
/* Spawns FINAL (an argv) in CWD. 0, or the spawn's errno. */
int lcsb__spawn_start(lcsb__spawned *s, const char *const *final, const char *cwd,
                      const lcsb_run_options *opts, const lcsb__spawn_net *net);
/* Is S's shim made ahead still waiting, spawned by a process that was what
 * the caller's is now (its credentials, umask, capabilities, confinement,
 * ignored signals; and, where the world was made for a later command
 * (WHOLE_HOST at the open), its limits, namespaces, cgroup, label: what a
 * child inherits)? */
bool lcsb__ahead_fits(lcsb__spawned *s);
/* Hands ARGV to S's shim made ahead, with the environment a run of POLICY
 * under B gives its command and the caller's stdin and stdout, and hears
 * SIGCHLD for it: the refusals judged as OPTS says. 0; 1 when the shim
 * took none of it (it had ended); or out of memory. */
int lcsb__ahead_take(lcsb__spawned *s, const lcsb_backend *b, const lcsb_policy *policy,
                     const lcsb_run_options *opts, const char *const *argv, lcsb_error *err);
/* The relayed signals passed on to S's child from here to relay_end. */
typedef struct lcsb__relay {
    sigset_t old_mask;
    struct sigaction old[4];
    int relayed; /* after lcsb__relay_end: the last signal relayed, or 0 */
} lcsb__relay;
void lcsb__relay_begin(lcsb__relay *r);
/* Between relay_begin and relay_to: a relayed signal that came while they
 * were held, taken (it is delivered to no one later), or 0. One sent by a
 * terminal to its foreground group reached no command, since none was
 * started yet: the run must not start one without it. relay_to passes on
 * one that comes after this look, a terminal's marked so that the init
 * counts it only before its command starts (init.c in the shim). */
int lcsb__relay_pending(void);
/* The note of a run that signal %d stopped before its command started. */
#define LCSB__NOT_STARTED_NOTE "signal %d came before the command started: it did not run"
void lcsb__relay_to(const lcsb__spawned *s, lcsb__relay *r);
void lcsb__relay_end(lcsb__relay *r);
/* Waits for S's child (PROGRAM), serving NET meanwhile: RESULT's status
 * and what the shim reported. */
int lcsb__spawn_wait(lcsb__spawned *s, const char *program, const lcsb_run_options *opts,
                     const lcsb__spawn_net *net, lcsb_run_result *result, lcsb_error *err);
/* The refusals S recorded into RESULT's attestation, judged as OPTS says;
 * WAITED: the child was waited for (RESULT's status is its). */
void lcsb__spawn_refusals(const lcsb__spawned *s, const lcsb_run_options *opts, bool waited,
                          lcsb_run_result *result);
/* PROGRAM could not be spawned (SPAWN_ERRNO): RESULT says so. */
void lcsb__spawn_failed(lcsb_run_result *result, const char *program, int spawn_errno,
                        bool is_mechanism);
/* Everything S holds let go of; a child not waited for is killed and reaped. */
void lcsb__spawn_close(lcsb__spawned *s);

#endif
