/* Running a composed argv: spawn, relay signals, wait, map the status, write
 * the trailer. The impure half of the seam. */
#include "internal.h"

#include <errno.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

static const int relayed_signals[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};
#define RELAYED (sizeof relayed_signals / sizeof relayed_signals[0])

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

static int spawn_and_wait(const char *const *final, const char *cwd, bool is_mechanism,
                          lcsb_run_result *result, lcsb_error *err) {
    posix_spawnattr_t attr;
    posix_spawn_file_actions_t actions;
    sigset_t relayed, old_mask, none;
    struct sigaction old[RELAYED];
    int rc = 0;

    sigemptyset(&relayed);
    sigemptyset(&none);
    for (size_t i = 0; i < RELAYED; i++) sigaddset(&relayed, relayed_signals[i]);
    if (posix_spawnattr_init(&attr)) return lcsb__fail(err, LCSB_ENOMEM, "out of memory");
    if (posix_spawn_file_actions_init(&actions)) {
        posix_spawnattr_destroy(&attr);
        return lcsb__fail(err, LCSB_ENOMEM, "out of memory");
    }
    posix_spawnattr_setsigdefault(&attr, &relayed);
    posix_spawnattr_setsigmask(&attr, &none);
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK);
    if (cwd) posix_spawn_file_actions_addchdir_np(&actions, cwd);
    /* Nothing lcsb or its host holds open (a policy script's files, a
     * harness's pipes) reaches the command: only stdin, stdout and stderr. */
    posix_spawn_file_actions_addclosefrom_np(&actions, 3);

    /* Hold the relayed signals until the child's pid is known, so none is lost. */
    sigprocmask(SIG_BLOCK, &relayed, &old_mask);
    for (size_t i = 0; i < RELAYED; i++) {
        struct sigaction sa = {.sa_sigaction = relay, .sa_flags = SA_SIGINFO | SA_RESTART};
        sigemptyset(&sa.sa_mask);
        sigaction(relayed_signals[i], &sa, &old[i]);
    }
    pid_t pid;
    int spawn_errno = posix_spawnp(&pid, final[0], &actions, &attr, (char *const *)final, environ);
    if (spawn_errno == 0) running_child = pid;
    /* Unblock the relayed signals even if the caller held them: one that
     * arrived before the spawn is delivered now, and relayed. */
    sigset_t unblocked = old_mask;
    for (size_t i = 0; i < RELAYED; i++) sigdelset(&unblocked, relayed_signals[i]);
    sigprocmask(SIG_SETMASK, &unblocked, NULL);

    if (spawn_errno != 0) {
        /* Behind a mechanism, failing to start it is a setup failure: nothing ran. */
        result->status = is_mechanism ? LCSB_EXIT_SETUP
                         : (spawn_errno == ENOENT || spawn_errno == ENOTDIR) ? LCSB_EXIT_NOTFOUND
                                                                              : LCSB_EXIT_NOEXEC;
        snprintf(result->note, sizeof result->note, "cannot execute %s: %s", final[0],
                 strerror(spawn_errno));
        goto restore;
    }
    int wstatus;
    pid_t waited;
    while ((waited = waitpid(pid, &wstatus, 0)) < 0 && errno == EINTR) {}
    if (waited < 0) {
        rc = lcsb__fail(err, LCSB_ESYS, "cannot wait for %s: %s", final[0], strerror(errno));
        goto restore;
    }
    result->status = WIFEXITED(wstatus) ? WEXITSTATUS(wstatus) : 128 + WTERMSIG(wstatus);
restore:
    sigprocmask(SIG_BLOCK, &relayed, NULL);
    running_child = 0;
    sigprocmask(SIG_SETMASK, &old_mask, NULL);
    for (size_t i = 0; i < RELAYED; i++) sigaction(relayed_signals[i], &old[i], NULL);
    posix_spawn_file_actions_destroy(&actions);
    posix_spawnattr_destroy(&attr);
    return rc;
}

/* Does the final argv start with the mechanism itself? Then failing to start
 * it is a setup failure (97); a launcher in front is a program like any other. */
static bool starts_with_mechanism(const lcsb_backend *b, const char *const *prefix) {
    bool launcher_first = prefix && prefix[0] && !lcsb_backend_contains_prefix(b);
    return b->ops != &lcsb__unavailable_ops && !launcher_first;
}

int lcsb_run(const lcsb_backend *b, const lcsb_policy *policy, const char *const *argv,
             const lcsb_run_options *opts, lcsb_run_result *result, lcsb_error *err) {
    lcsb_run_options defaults;
    lcsb_run_options_init(&defaults);
    if (!opts) opts = &defaults;
    if (opts->size < sizeof(size_t) || opts->size > sizeof *opts)
        return lcsb__fail(err, LCSB_EINVAL, "run: options of unknown size %zu", opts->size);
    memset(result, 0, sizeof *result);

    int rc = lcsb_backend_validate(b, policy, err);
    if (rc) return rc;
    char **final = NULL;
    rc = lcsb_compose(b, policy, opts->prefix, argv, &final, err);
    if (rc) return rc;
    rc = lcsb_attest((const char *const *)final, opts->prefix, &result->attestation, err);
    if (!rc)
        rc = spawn_and_wait((const char *const *)final, policy->cwd,
                            starts_with_mechanism(b, opts->prefix), result, err);
    lcsb_argv_free(final);
    if (rc) return rc;

    if (result->status != 0 && opts->trailer_fd >= 0) {
        char line[1024];
        if (result->note[0]) {
            snprintf(line, sizeof line, "lcsb: %s\n", result->note);
            write_all(opts->trailer_fd, line);
        }
        lcsb_trailer(argv[0], result->status, &result->attestation, line, sizeof line);
        write_all(opts->trailer_fd, line);
    }
    return 0;
}
