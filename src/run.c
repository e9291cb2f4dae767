/* Running a prepared argv: spawn, relay signals, wait, map the status, write
 * the trailer. The impure half of the seam. */
#include "backend.h"
#include "capture.h"
#include "escape.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* The environment variable naming the descriptor on which the shim reports a
 * setup failure (docs/wire-format.md). */
#define LCSB__REPORT_ENV "LCSB_EXEC_REPORT_FD"

static const int relayed_signals[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};
#define RELAYED (sizeof relayed_signals / sizeof relayed_signals[0])

const int *lcsb_relayed_signals(size_t *count) {
    *count = RELAYED;
    return relayed_signals;
}

/* The child being waited for; read by the signal handler. One run at a time
 * per process: signal dispositions are process-wide anyway. */
static volatile sig_atomic_t running_child;

static void relay(int sig, siginfo_t *info, void *context) {
    (void)context;
    /* A terminal's ^C already reached the whole foreground process group,
     * the command included; only relay what was sent to lcsb alone. */
    if (info && info->si_code == SI_KERNEL) return;
    if (running_child > 0) kill((pid_t)running_child, sig);
}

void lcsb_run_options_init(lcsb_run_options *opts) {
    memset(opts, 0, sizeof *opts);
    opts->size = sizeof *opts;
    opts->trailer_fd = STDERR_FILENO;
    opts->relay_fd = STDERR_FILENO;
}

static void write_all(int fd, const char *s) {
    size_t len = strlen(s);
    while (len > 0) {
        ssize_t n = write(fd, s, len);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return;
        s += n;
        len -= (size_t)n;
    }
}

/* The descriptors the child keeps above 2: the caller's, and lcsb's own
 * report pipe (EXTRA, or -1). */
static bool kept(const lcsb_run_options *opts, int extra, int fd) {
    for (size_t i = 0; i < opts->keep_fds_count; i++)
        if (opts->keep_fds[i] == fd) return true;
    return fd == extra;
}

/* Nothing lcsb or its host holds open (a policy script's files, a harness's
 * pipes) reaches the command but stdin, stdout, stderr and what the caller
 * passes on purpose. Closing a descriptor that is not open is no error. */
static int add_fd_actions(posix_spawn_file_actions_t *actions, const lcsb_run_options *opts,
                          int extra) {
    int highest = extra > 2 ? extra : 2;
    for (size_t i = 0; i < opts->keep_fds_count; i++)
        if (opts->keep_fds[i] > highest) highest = opts->keep_fds[i];
    for (int fd = 3; fd < highest; fd++)
        if (!kept(opts, extra, fd) && posix_spawn_file_actions_addclose(actions, fd)) return -1;
    /* A dup2 onto itself clears close-on-exec. */
    for (size_t i = 0; i < opts->keep_fds_count; i++)
        if (posix_spawn_file_actions_adddup2(actions, opts->keep_fds[i], opts->keep_fds[i]))
            return -1;
    if (extra > 2 && posix_spawn_file_actions_adddup2(actions, extra, extra)) return -1;
    return posix_spawn_file_actions_addclosefrom_np(actions, highest + 1);
}

/* The environment the child is spawned with: the seam's (lcsb_env_block:
 * the allowlist under a host mechanism, the caller's whole under a
 * container's engine), with no LCSB_EXEC_REPORT_FD of the caller's; for a
 * child that is the mechanism, ENTRY (which must outlive the spawn) naming
 * the descriptor FD on which the shim reports a failed setup. */
static int child_environ(const lcsb_backend *b, const lcsb_policy *policy, int fd, char *entry,
                         size_t size, char ***out, lcsb_error *err) {
    char **block = NULL;
    int rc = lcsb_env_block(b, policy, NULL, &block, err);
    if (rc) return rc;
    size_t n = 0, k = 0, name = strlen(LCSB__REPORT_ENV);
    while (block[n]) n++;
    char **env = calloc(n + 2, sizeof *env);
    if (!env) {
        lcsb_argv_free(block);
        return lcsb__fail(err, LCSB_ENOMEM, "out of memory");
    }
    for (size_t i = 0; i < n; i++)
        if (strncmp(block[i], LCSB__REPORT_ENV, name) == 0 && block[i][name] == '=')
            free(block[i]);
        else
            env[k++] = block[i];
    free(block);
    if (fd >= 0) {
        snprintf(entry, size, "%s=%d", LCSB__REPORT_ENV, fd);
        env[k++] = entry;
    }
    env[k] = NULL;
    *out = env;
    return 0;
}

/* Frees what child_environ made, but ENTRY, which the caller owns. */
static void free_environ(char **env, const char *entry) {
    for (size_t i = 0; env && env[i]; i++)
        if (env[i] != entry) free(env[i]);
    free(env);
}

static int check_keep_fds(const lcsb_run_options *opts, lcsb_error *err) {
    if (opts->keep_fds_count && !opts->keep_fds)
        return lcsb__fail(err, LCSB_EINVAL, "run: keep_fds is NULL");
    for (size_t i = 0; i < opts->keep_fds_count; i++) {
        int fd = opts->keep_fds[i];
        if (fd < 3 || fd >= LCSB_KEEP_FD_MAX)
            return lcsb__fail(err, LCSB_EINVAL,
                              "keep fd %d: only descriptors from 3 to %d can be kept (0, 1 and 2 "
                              "always are)",
                              fd, LCSB_KEEP_FD_MAX - 1);
        if (fcntl(fd, F_GETFD) < 0)
            return lcsb__fail(err, LCSB_EINVAL, "keep fd %d: not open in lcsb", fd);
    }
    return 0;
}

/* What the shim said on its report pipe (docs/wire-format.md): a failed
 * setup, or why its init ended every process of the command. */
static void reported(const char *said, size_t n, lcsb_run_result *result) {
    for (size_t i = 0; i < n; i++) {
        const char *why = NULL;
        char grace[128];
        if (said[i] == 'F' && result->status == LCSB_EXIT_SETUP) result->setup_failed = true;
        if (said[i] == 'T')
            why = "the time limit (limits.time) was reached: every process of the command was "
                  "killed";
        if (said[i] == 'G') {
            snprintf(grace, sizeof grace,
                     "the command did not stop within %d s of being asked to: every process of "
                     "it was killed",
                     LCSB_GRACE_SECONDS);
            why = grace;
        }
        if (said[i] == 'S') why = "TMPDIR was full when the command ended (limits.tmp)";
        size_t used = strlen(result->note);
        if (why)
            snprintf(result->note + used, sizeof result->note - used, "%s%s", used ? "; " : "",
                     why);
    }
}

/* REPORT is the shim's report pipe (-1s when the child is no mechanism),
 * ENV the environment that names its write end, CAPTURE the stderr relay
 * (NULL: the command writes to the caller's stderr itself). */
static int spawn_and_wait_with(const char *const *final, const char *cwd, bool is_mechanism,
                               const lcsb_run_options *opts, int report[2], char **env,
                               lcsb__capture *capture, lcsb_run_result *result, lcsb_error *err) {
    posix_spawnattr_t attr;
    posix_spawn_file_actions_t actions;
    sigset_t relayed, old_mask, none;
    struct sigaction old[RELAYED];
    int rc = 0;

    sigemptyset(&relayed);
    sigemptyset(&none);
    for (size_t i = 0; i < RELAYED; i++) sigaddset(&relayed, relayed_signals[i]);
    /* The command starts with these at their defaults, SIGPIPE included,
     * which lcsb may be ignoring while it relays stderr. */
    sigset_t defaults = relayed;
    sigaddset(&defaults, SIGPIPE);
    if (posix_spawnattr_init(&attr)) return lcsb__fail(err, LCSB_ENOMEM, "out of memory");
    if (posix_spawn_file_actions_init(&actions)) {
        posix_spawnattr_destroy(&attr);
        return lcsb__fail(err, LCSB_ENOMEM, "out of memory");
    }
    posix_spawnattr_setsigdefault(&attr, &defaults);
    posix_spawnattr_setsigmask(&attr, &none);
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK);
    /* stderr onto the pipe before everything else above 2 is closed. */
    if ((capture && posix_spawn_file_actions_adddup2(&actions, capture->out[1], STDERR_FILENO)) ||
        (cwd && posix_spawn_file_actions_addchdir_np(&actions, cwd)) ||
        add_fd_actions(&actions, opts, report[1])) {
        posix_spawn_file_actions_destroy(&actions);
        posix_spawnattr_destroy(&attr);
        return lcsb__fail(err, LCSB_ENOMEM, "out of memory");
    }

    /* Hold the relayed signals until the child's pid is known, so none is lost. */
    sigprocmask(SIG_BLOCK, &relayed, &old_mask);
    for (size_t i = 0; i < RELAYED; i++) {
        struct sigaction sa = {.sa_sigaction = relay, .sa_flags = SA_SIGINFO | SA_RESTART};
        sigemptyset(&sa.sa_mask);
        sigaction(relayed_signals[i], &sa, &old[i]);
    }
    pid_t pid;
    int spawn_errno = posix_spawnp(&pid, final[0], &actions, &attr, (char *const *) final, env);
    if (report[1] >= 0) close(report[1]);
    report[1] = -1;
    if (spawn_errno == 0) running_child = pid;
    /* Unblock the relayed signals even if the caller held them: one that
     * arrived before the spawn is delivered now, and relayed. */
    sigset_t unblocked = old_mask;
    for (size_t i = 0; i < RELAYED; i++) sigdelset(&unblocked, relayed_signals[i]);
    sigprocmask(SIG_SETMASK, &unblocked, NULL);

    if (spawn_errno != 0) {
        /* Behind a mechanism, failing to start it is a setup failure: nothing ran. */
        result->status = is_mechanism                                        ? LCSB_EXIT_SETUP
                         : (spawn_errno == ENOENT || spawn_errno == ENOTDIR) ? LCSB_EXIT_NOTFOUND
                                                                             : LCSB_EXIT_NOEXEC;
        result->setup_failed = is_mechanism;
        snprintf(result->note, sizeof result->note, "cannot execute %s: %s", final[0],
                 strerror(spawn_errno));
        goto restore;
    }
    int wstatus;
    pid_t waited = pid;
    if (capture) {
        lcsb__capture_spawned(capture);
        if (lcsb__capture_wait(capture, pid, opts->relay_fd, &wstatus, result) != 0) waited = -1;
    } else {
        while ((waited = waitpid(pid, &wstatus, 0)) < 0 && errno == EINTR) {
        }
    }
    if (waited < 0) {
        rc = lcsb__fail(err, LCSB_ESYS, "cannot wait for %s: %s", final[0], strerror(errno));
        goto restore;
    }
    result->status = WIFEXITED(wstatus) ? WEXITSTATUS(wstatus) : 128 + WTERMSIG(wstatus);
    /* The pipe's write ends are gone with the shim and its init (the command
     * never had one): what they said is all there. */
    char said[8];
    ssize_t n = report[0] >= 0 ? read(report[0], said, sizeof said) : -1;
    if (n > 0) reported(said, (size_t)n, result);
restore:
    sigprocmask(SIG_BLOCK, &relayed, NULL);
    running_child = 0;
    sigprocmask(SIG_SETMASK, &old_mask, NULL);
    for (size_t i = 0; i < RELAYED; i++) sigaction(relayed_signals[i], &old[i], NULL);
    posix_spawn_file_actions_destroy(&actions);
    posix_spawnattr_destroy(&attr);
    return rc;
}

/* The resources one spawn needs, made and released here: the shim says
 * "setup failed" on a pipe of its own, so that an exit status of 97, which
 * the command can give too, is never taken for that alone; the stderr relay
 * when it is asked for. */
static int spawn_and_wait(const lcsb_backend *b, const lcsb_policy *policy,
                          const char *const *final, bool is_mechanism, const lcsb_run_options *opts,
                          lcsb_run_result *result, lcsb_error *err) {
    int report[2] = {-1, -1};
    char **env = NULL, entry[64];
    if (is_mechanism && pipe2(report, O_CLOEXEC) != 0)
        return lcsb__fail(err, LCSB_ESYS, "cannot make the shim's report pipe: %s",
                          strerror(errno));
    int rc = child_environ(b, policy, report[1], entry, sizeof entry, &env, err);
    lcsb__capture capture;
    bool captured = !rc && opts->capture_stderr;
    if (captured) rc = lcsb__capture_open(&capture, err);
    if (!rc)
        rc = spawn_and_wait_with(final, policy->cwd, is_mechanism, opts, report, env,
                                 captured ? &capture : NULL, result, err);
    if (captured) lcsb__capture_close(&capture);
    for (int i = 0; i < 2; i++)
        if (report[i] >= 0) close(report[i]);
    free_environ(env, entry);
    return rc;
}

/* Does the final argv start with the mechanism itself? Then failing to start
 * it is a setup failure (97); a launcher in front is a program like any other. */
static bool starts_with_mechanism(const lcsb_backend *b, const char *const *prefix) {
    bool launcher_first = prefix && prefix[0] && !b->ops->contains_prefix;
    return b->ops->is_mechanism && !launcher_first;
}

/* The command's name is the caller's to choose, control bytes and all: it
 * reaches the terminal escaped. */
static void trailer(const char *command, int status, bool setup_failed, const lcsb_attestation *att,
                    char *buf, size_t size) {
    char summary[256], shown[1024];
    char how[64] = "";
    if (!command) command = "command";
    lcsb_escape(shown, sizeof shown, command, strlen(command));
    lcsb_attestation_summary(att, summary, sizeof summary);
    if (status > 128 && status < 128 + 65) {
        const char *name = sigabbrev_np(status - 128);
        snprintf(how, sizeof how, " (signal %s%s)", name ? "SIG" : "", name ? name : "?");
    } else if (setup_failed) {
        snprintf(how, sizeof how, " (sandbox setup failed; the command did not run)");
    } else if (status == LCSB_EXIT_NOEXEC) {
        snprintf(how, sizeof how, " (could not be executed)");
    } else if (status == LCSB_EXIT_NOTFOUND) {
        snprintf(how, sizeof how, " (not found)");
    }
    snprintf(buf, size, "lcsb: %s exited %d%s under %s (%s)\n", shown, status, how,
             lcsb_attestation_value(att, "backend"), summary);
}

void lcsb_trailer(const char *command, int status, const lcsb_attestation *att, char *buf,
                  size_t size) {
    trailer(command, status, status == LCSB_EXIT_SETUP, att, buf, size);
}

int lcsb_run(const lcsb_backend *b, const lcsb_policy *policy, const char *const *argv,
             const lcsb_run_options *opts, lcsb_run_result *result, lcsb_error *err) {
    /* A caller built against an older, shorter struct gets defaults for the rest. */
    lcsb_run_options given;
    lcsb_run_options_init(&given);
    if (opts && (opts->size < sizeof(size_t) || opts->size > sizeof *opts))
        return lcsb__fail(err, LCSB_EINVAL, "run: options of unknown size %zu", opts->size);
    if (opts) memcpy(&given, opts, opts->size);
    opts = &given;
    memset(result, 0, sizeof *result);

    int rc = check_keep_fds(opts, err);
    /* A container's command gets the engine's descriptors, not lcsb's. */
    if (!rc && opts->keep_fds_count && b->ops->contains_prefix)
        rc = lcsb__fail(err, LCSB_EINVAL,
                        "%s: a descriptor cannot be passed into a container "
                        "(--keep-fd)",
                        b->ops->name);
    if (rc) return rc;
    /* A command is needed here: lcsb_prepare would run a probe in its place. */
    if (!argv || !argv[0]) return lcsb__fail(err, LCSB_EINVAL, "no command given");
    char **final = NULL;
    rc = lcsb_prepare(b, policy, opts->prefix, argv, &final, &result->attestation, err);
    if (!rc)
        rc = spawn_and_wait(b, policy, (const char *const *) final,
                            starts_with_mechanism(b, opts->prefix), opts, result, err);
    lcsb_argv_free(final);
    if (rc) return rc;

    if (result->status != 0 && opts->trailer_fd >= 0) {
        char line[2048], note[sizeof line - 8];
        if (result->note[0]) {
            lcsb_escape(note, sizeof note, result->note, strlen(result->note));
            snprintf(line, sizeof line, "lcsb: %s\n", note);
            write_all(opts->trailer_fd, line);
        }
        trailer(argv[0], result->status, result->setup_failed, &result->attestation, line,
                sizeof line);
        write_all(opts->trailer_fd, line);
    }
    return 0;
}
