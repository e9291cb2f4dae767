/* Part of <lcsb.h>: preparing and running a command. lcsb_prepare is every
 * step before the spawn (validate, compose, fit execve's limits, attest);
 * lcsb_run is that, then spawn, signal relay, wait and the trailer. Apart
 * because running is where lcsb acts on the process: it spawns, owns signals
 * for a while, and serves a proxy.
 *
 * One run at a time per process: while lcsb_run lasts it owns SIGINT,
 * SIGTERM, SIGHUP, SIGQUIT, SIGCHLD and SIGPIPE, which are process-wide. The
 * options and the result are the caller's memory; lcsb_run keeps nothing of
 * them, nor of the backend, policy or argv, once it returns. */
#ifndef LCSB_PUBLIC_RUN_H
#define LCSB_PUBLIC_RUN_H
#ifndef LCSB_H
#error "include <lcsb.h>: lcsb/run.h is one part of it"
#endif

/* Prepares a run without running it: returns in *FINAL a new lcsb argv,
 * which the caller frees with lcsb_argv_free(), and fills the caller's *ATT;
 * the rest is only read. Everything lcsb_run does before it spawns, in its
 * order, and nothing after:
 * validate POLICY against the backend and the host, compose the final argv
 * for ARGV (NULL: a probe command) behind PREFIX (may be NULL), check that it
 * fits execve's limits (with this process's environment), and attest it. On
 * success *FINAL (when FINAL is non-NULL; an lcsb argv) and *ATT (when ATT is
 * non-NULL) hold the results. Runs nothing. */
LCSB_API LCSB_NODISCARD int lcsb_prepare(const lcsb_backend *backend, const lcsb_policy *policy,
                                         const char *const *prefix, const char *const *argv,
                                         char ***final, lcsb_attestation *att, lcsb_error *err);

/* How lcsb_run runs: the caller's memory, initialised with
 * lcsb_run_options_init; the arrays it points at are the caller's and need
 * only last the call. */
typedef struct lcsb_run_options {
    size_t size;               /* sizeof(lcsb_run_options), so the struct can grow */
    const char *const *prefix; /* launcher argv in front of the command, or NULL */
    int trailer_fd;            /* where the trailer goes on a nonzero exit; -1: nowhere */
    /* The command inherits stdin, stdout and stderr and nothing else, unless
     * listed here: descriptors above 2 passed on as they are (close-on-exec
     * cleared), each open in the caller and below LCSB_KEEP_FD_MAX. */
    const int *keep_fds;
    size_t keep_fds_count;
    /* The command's stderr goes through lcsb: relayed live, in order and byte
     * for byte to relay_fd (-1: nowhere), its tail kept in the result for
     * explain. The command then sees a pipe, not a terminal, on stderr. Off:
     * the command writes to the caller's stderr itself. */
    bool capture_stderr;
    int relay_fd; /* STDERR_FILENO unless set */
    /* Record what the sandbox refuses (the attestation's refused): the
     * command's dynamically linked programs get lcsb's recorder in
     * LD_PRELOAD and a pipe's descriptor in LCSB_RECORD_FD, both visible
     * to them. True unless set; under a mechanism without one, nothing. */
    bool record_refusals;
    /* What the refusals are judged against, when not the policy the command
     * runs under (NULL): lcsb learn runs it under a wider one (every program
     * may run) and records what this one would refuse, every exec the
     * shim's init saw outside its exec tier among them, whatever the
     * command's status. The caller keeps ownership; read during the call. */
    const lcsb_policy *judge;
} lcsb_run_options;
#define LCSB_KEEP_FD_MAX 65536
#define LCSB_STDERR_TAIL_MAX 65536

/* What became of a run: the caller's memory, filled by lcsb_run (large,
 * over 100 KiB with its attestation: keep it off small stacks). */
typedef struct lcsb_run_result {
    int status; /* exit status as a shell reports it (128+N for signal N) */
    lcsb_attestation attestation;
    char note[512]; /* why lcsb itself ended the run (exec failure), or "" */
    /* The sandbox could not be set up and nothing ran: said by the mechanism
     * out of band (the shim's report pipe) or by lcsb failing to start it,
     * never read from the exit status alone, which the command can fake. */
    bool setup_failed;
    /* The mechanism could not execute the command itself (its 126 or 127,
     * said out of band as setup_failed is): a 126 without it is the
     * command's own, one of its programs refused, say. With 128+N: signal
     * N came before the command started, and none was. */
    bool not_executed;
    /* The last bytes the command wrote to stderr, when captured (any bytes,
     * NULs included: use the length). */
    char stderr_tail[LCSB_STDERR_TAIL_MAX];
    size_t stderr_tail_len;
} lcsb_run_result;

/* Fills the caller's OPTS with the defaults, its size included: the
 * trailer to stderr, the recorder on, stderr not captured (relay_fd set to
 * stderr for when capture_stderr is), nothing else kept. A runner makes
 * worlds ahead only with capture_stderr set (lcsb_runner_ahead). */
LCSB_API void lcsb_run_options_init(lcsb_run_options *opts);
/* Runs ARGV under BACKEND and POLICY, filling the caller's RESULT; OPTS (NULL:
 * the defaults) and the rest are only read during the call. Compose,
 * validate, spawn, relay SIGINT/SIGTERM/SIGHUP/SIGQUIT, wait; on a
 * nonzero exit write the trailer to opts->trailer_fd. Returns 0 when the
 * command was started (its status is in RESULT, whatever it is), a negative
 * code when nothing ran. */
LCSB_API LCSB_NODISCARD int lcsb_run(const lcsb_backend *backend, const lcsb_policy *policy,
                                     const char *const *argv, const lcsb_run_options *opts,
                                     lcsb_run_result *result, lcsb_error *err);
/* A runner runs commands one after another under one policy, each in a
 * world lcsb started making while the command before it ran: a host that
 * runs many commands pays, per command, little more than the command
 * itself. Between commands it keeps one process of lcsb's (the next
 * command's shim) waiting, a child of the caller's: a caller that reaps
 * every child (waitpid(-1)) takes it away, and the next run only makes the
 * world again. The world is made as a run's would be, from the policy and
 * the file system at the time it is made: a path the policy names that
 * comes or goes in between is seen by the command after the next.
 *
 * A world is made ahead only where the Landlock shim makes one of its own
 * and OPTS relays stderr (capture_stderr), with no launcher prefix, no
 * kept descriptor, no proxy (net.domains) and no time limit; otherwise
 * each run is lcsb_run's, alike in all it does. Each command gets the
 * caller's stdin and stdout as they are when it is run, as with lcsb_run.
 *
 * lcsb_runner_new copies POLICY and OPTS (the arrays OPTS points at, and
 * BACKEND, must outlive the runner); lcsb_runner_run is lcsb_run for ARGV
 * (the same result, trailer and signal relay, one run at a time);
 * lcsb_runner_free lets the waiting shim go (it ends, and is reaped). */
typedef struct lcsb_runner lcsb_runner;
LCSB_API LCSB_NODISCARD int lcsb_runner_new(const lcsb_backend *backend,
                                            const lcsb_policy *policy,
                                            const lcsb_run_options *opts, lcsb_runner **out,
                                            lcsb_error *err);
LCSB_API LCSB_NODISCARD int lcsb_runner_run(lcsb_runner *runner, const char *const *argv,
                                            lcsb_run_result *result, lcsb_error *err);
LCSB_API void lcsb_runner_free(lcsb_runner *runner);
/* Does RUNNER make each command's world ahead, as far as its options and
 * policy tell? When not, *WHY (when WHY is not NULL) says what keeps it
 * from it (a static string: stderr not captured, a launcher prefix, ...);
 * its runs are then lcsb_run's, at lcsb_run's cost. A runner whose policy
 * is not bound yet (lcsb_runner_start) says what its options tell. */
LCSB_API bool lcsb_runner_ahead(const lcsb_runner *runner, const char **why);

/* A runner for one command whose policy is not known yet, for a host that
 * composes it first (lcsb's CLI, whose policy script takes milliseconds):
 * KEY (KEY_LEN bytes) names the run (the CLI's: the script, the directory,
 * the command's name, the backend asked for). The world the last run under
 * KEY gave its command is started at once, from the guess lcsb kept of it
 * (beside the plans, the user's own), and made while the host composes;
 * lcsb_runner_bind then gives the runner its policy, and lcsb_runner_run
 * takes that world only if the policy gives the shim the very same argv in
 * the same directory. Otherwise it is let go of, and the run is
 * lcsb_runner_run's as for any runner. Nothing is enforced from the guess:
 * it can only be used or wasted. Each run keeps its own for the next, when
 * the runner is freed: free it after the script that named the run's
 * private directories is closed (lcsb_script_close), so that no run is
 * given their names while they may still be on the host. */
LCSB_API LCSB_NODISCARD int lcsb_runner_start(const void *key, size_t key_len,
                                              const lcsb_run_options *opts, lcsb_runner **out,
                                              lcsb_error *err);
/* The names the private HOME and TMPDIR had in the run RUNNER's guess
 * comes from (NULL-terminated; NULL: none), for lcsb_script_options's
 * private_names: a script whose private directories are named as before
 * can compose the very argv the guess started. RUNNER keeps ownership. */
LCSB_API const char *const *lcsb_runner_private_names(const lcsb_runner *runner);
/* RUNNER runs POLICY (copied) under BACKEND from now on. */
LCSB_API LCSB_NODISCARD int lcsb_runner_bind(lcsb_runner *runner, const lcsb_backend *backend,
                                             const lcsb_policy *policy, lcsb_error *err);

/* Returns the signals lcsb_run relays to the command (SIGINT, SIGTERM,
 * SIGHUP, SIGQUIT), a static array, and in *COUNT how many: a host that must
 * not die of one before the command starts holds these. */
LCSB_API const int *lcsb_relayed_signals(size_t *count);
/* Writes the trailer, "lcsb: CMD exited STATUS under BACKEND (summary)\n",
 * into the caller's BUF (SIZE bytes, cut to fit), COMMAND escaped
 * (lcsb_escape); COMMAND (NULL: "command") and ATT are only read. */
LCSB_API void lcsb_trailer(const char *command, int status, const lcsb_attestation *att, char *buf,
                           size_t size);

#endif
