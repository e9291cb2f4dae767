/* A runner (lcsb_runner_new): commands one after another under one policy,
 * each in a world made while the one before ran. Each command gets a world
 * of its own as lcsb_run's would (a fresh private HOME, the policy
 * enforced by the kernel, the caller's stdin and stdout as they are when it
 * runs, the caller's environment as it is then), the shim made ahead holds
 * none of the caller's descriptors, and nothing of lcsb's is left once the
 * runner is freed. Through the public API, as an embedded host uses it. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h> /* after the four above, which it needs */

#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "helpers.h"

#define VARIABLE "LCSB_RUNNER_WORD"

typedef struct fx {
    char dir[PATH_MAX];     /* the project, and the policy script in it */
    char outside[PATH_MAX]; /* a directory the policy does not name */
    char secret[PATH_MAX];  /* a file in it */
    char cwd[PATH_MAX];
    lcsb_script *script;
    lcsb_backend *backend;
    lcsb_runner *runner;
} fx;

static fx F;

/* The runner's policy: the project, sh and cat, and VARIABLE passed on. */
static const char POLICY[] =
    "local lcsb = require 'lcsb'\n"
    "return function(run) return lcsb.exec_policy { project = run.cwd,\n"
    "  exec = { 'sh', 'cat' }, env = { pass = { '" VARIABLE "' } } } end\n";

static int setup(void **state) {
    char policy[PATH_MAX];
    assert_non_null(getcwd(F.cwd, sizeof F.cwd));
    FMT(F.dir, "/tmp/lcsb-runner-XXXXXX");
    FMT(F.outside, "/tmp/lcsb-runner-out-XXXXXX");
    assert_non_null(mkdtemp(F.dir));
    assert_non_null(mkdtemp(F.outside));
    /* Others may read it: the test user's run of the suite too. */
    assert_int_equal(chmod(F.outside, 0755), 0);
    write_file(path_in(F.secret, F.outside, "secret"), "not for the command\n");
    write_file(path_in(policy, F.dir, "policy.lua"), POLICY);
    assert_int_equal(chdir(F.dir), 0);
    *state = &F;
    return 0;
}

static int teardown(void **state) {
    (void)state;
    lcsb_runner_free(F.runner);
    lcsb_backend_free(F.backend);
    lcsb_error err = {0};
    if (F.script) (void)lcsb_script_close(F.script, &err);
    F.runner = NULL;
    F.backend = NULL;
    F.script = NULL;
    assert_int_equal(chdir(F.cwd), 0);
    rm_rf(F.dir);
    rm_rf(F.outside);
    return 0;
}

/* The policy opened and a runner made for it under BACKEND ("auto",
 * "none"), HIDDEN (when not NULL) hidden besides; false when a Landlock
 * world of its own cannot be made here (a skip, or a failure where the
 * tests are required). */
static bool open_runner(fx *f, const char *backend, const char *hidden) {
    lcsb_script_options so;
    lcsb_script_options_init(&so);
    so.lua_dir = LCSB_LUA_DIR;
    so.shim = LCSB_SHIM_PATH;
    so.trust = LCSB_TRUST_SKIP;
    so.caps_system = "";
    so.caps_user = "";
    lcsb_error err = {0};
    lcsb_capability cap;
    static const char *const probe[] = {"sh", NULL};
    char policy[PATH_MAX];
    if (lcsb_script_open(path_in(policy, f->dir, "policy.lua"), probe, &so, &f->script, &err))
        fail_msg("lcsb_script_open: %s", err.message);
    if (lcsb_detect(&cap, LCSB_SHIM_PATH, &err)) fail_msg("lcsb_detect: %s", err.message);
    /* A world is made ahead only where the command gets one of its own. */
    if (strcmp(backend, "auto") == 0 && !(cap.landlock_abi > 0 && cap.mount_namespaces)) {
        if (tests_required())
            fail_msg("no Landlock world of its own here and LCSB_SANDBOX_TESTS_REQUIRED=1");
        return false;
    }
    if (lcsb_backend_select(&cap, backend, &f->backend, &err))
        fail_msg("lcsb_backend_select: %s", err.message);
    lcsb_run_options opts;
    lcsb_run_options_init(&opts);
    opts.capture_stderr = true;
    opts.relay_fd = -1;
    opts.trailer_fd = -1;
    lcsb_policy *copy = lcsb_policy_copy(lcsb_script_policy(f->script));
    assert_non_null(copy);
    if (hidden && lcsb_policy_add_hide(copy, hidden, &err))
        fail_msg("lcsb_policy_add_hide: %s", err.message);
    if (lcsb_runner_new(f->backend, copy, &opts, &f->runner, &err))
        fail_msg("lcsb_runner_new: %s", err.message);
    lcsb_policy_free(copy);
    return true;
}

#define NEED_RUNNER(f, backend)                                                                    \
    do {                                                                                           \
        if (!open_runner(f, backend, NULL)) skip();                                                \
    } while (0)

/* SCRIPT run by sh through the runner, its stdout a pipe of its own, read
 * to its end (which a shim holding it open would never let come) into
 * OUT; returns the command's status. */
static int run_sh(fx *f, const char *script, char *out, size_t size) {
    int pipe_fds[2], saved = dup(STDOUT_FILENO);
    assert_true(saved >= 0);
    assert_int_equal(pipe2(pipe_fds, O_CLOEXEC), 0);
    assert_true(dup2(pipe_fds[1], STDOUT_FILENO) >= 0);
    close(pipe_fds[1]);
    const char *const argv[] = {"sh", "-c", script, NULL};
    lcsb_run_result *result = calloc(1, sizeof *result);
    lcsb_error err = {0};
    assert_non_null(result);
    int rc = lcsb_runner_run(f->runner, argv, result, &err);
    assert_true(dup2(saved, STDOUT_FILENO) >= 0);
    close(saved);
    if (rc) fail_msg("lcsb_runner_run: %s", err.message);
    size_t n = 0;
    ssize_t got;
    while (n + 1 < size && (got = read(pipe_fds[0], out + n, size - 1 - n)) > 0) n += (size_t)got;
    out[n] = '\0';
    close(pipe_fds[0]);
    int status = result->status;
    /* The shim says why on its stderr, which the runner captures. */
    if (result->setup_failed)
        fail_msg("the sandbox was not set up: %s; its stderr: %.*s", result->note,
                 (int)result->stderr_tail_len, result->stderr_tail);
    free(result);
    return status;
}

/* The processes this one has as children now. */
static int children(void) {
    char path[64], text[4096] = "";
    int n = 0;
    FMT(path, "/proc/self/task/%d/children", (int)getpid());
    read_file(path, text, sizeof text);
    for (char *p = strtok(text, " \n"); p; p = strtok(NULL, " \n")) n++;
    return n;
}

/* Three commands in a row: each sees its own stdout, a fresh private HOME
 * (what the one before wrote in its HOME is not there) and the caller's
 * variable as it is when it runs. Between them one shim waits, and none
 * once the runner is freed. */
static void test_each_command_in_a_world_of_its_own(void **state) {
    fx *f = *state;
    NEED_RUNNER(f, "auto");
    char out[4096];
    setenv(VARIABLE, "first", 1);
    assert_int_equal(
        run_sh(f, "echo \"$" VARIABLE "\" > \"$HOME/mark\"; cat \"$HOME/mark\"", out, sizeof out),
        0);
    assert_string_equal(out, "first\n");
    assert_int_equal(children(), 1);
    const char *why = "unset";
    assert_true(lcsb_runner_ahead(f->runner, &why));
    assert_null(why);
    setenv(VARIABLE, "second", 1);
    assert_int_equal(run_sh(f, "cat \"$HOME/mark\" 2>/dev/null || echo \"fresh $" VARIABLE "\"",
                            out, sizeof out),
                     0);
    assert_string_equal(out, "fresh second\n");
    /* What it writes in the project stays, as any run's would. */
    assert_int_equal(run_sh(f, "echo kept > made && cat made", out, sizeof out), 0);
    assert_string_equal(out, "kept\n");
    char made[PATH_MAX];
    assert_true(exists(path_in(made, f->dir, "made")));
    lcsb_runner_free(f->runner);
    f->runner = NULL;
    assert_int_equal(children(), 0);
    unsetenv(VARIABLE);
}

/* A runner whose options keep it from making worlds ahead says so, and
 * why: stderr not captured. Its command runs as lcsb_run's, and no shim
 * waits after it (the twin: the test above, where one does). */
static void test_a_runner_says_when_it_makes_nothing_ahead(void **state) {
    fx *f = *state;
    NEED_RUNNER(f, "auto");
    lcsb_runner_free(f->runner);
    f->runner = NULL;
    lcsb_run_options opts;
    lcsb_run_options_init(&opts);
    opts.relay_fd = -1;
    opts.trailer_fd = -1;
    lcsb_error err = {0};
    if (lcsb_runner_new(f->backend, lcsb_script_policy(f->script), &opts, &f->runner, &err))
        fail_msg("lcsb_runner_new: %s", err.message);
    const char *why = NULL;
    assert_false(lcsb_runner_ahead(f->runner, &why));
    assert_non_null(why);
    assert_contains(why, "capture_stderr", "why");
    char out[256];
    assert_int_equal(run_sh(f, "echo ran", out, sizeof out), 0);
    assert_string_equal(out, "ran\n");
    assert_int_equal(children(), 0);
}

/* A file outside the policy does not exist for a command run ahead, as
 * for any run; its twin, the same runner under the none backend (which
 * makes nothing ahead and runs each command as lcsb_run does), reads it. */
static void test_the_policy_holds(void **state) {
    fx *f = *state;
    NEED_RUNNER(f, "auto");
    char out[4096], script[PATH_MAX + 64];
    FMT(script, "cat '%s'", f->secret);
    /* Twice: the first world made at the call, the second made ahead. */
    for (int i = 0; i < 2; i++) {
        assert_int_not_equal(run_sh(f, script, out, sizeof out), 0);
        assert_string_equal(out, "");
    }
    teardown(state);
    setup(state);
    FMT(script, "cat '%s'", f->secret);
    NEED_RUNNER(f, "none");
    for (int i = 0; i < 2; i++) {
        assert_int_equal(run_sh(f, script, out, sizeof out), 0);
        assert_string_equal(out, "not for the command\n");
    }
}

/* A shim the caller reaped while it waited (a host that reaps every
 * child) is made again: the command still runs. */
static void test_a_reaped_shim_is_made_again(void **state) {
    fx *f = *state;
    NEED_RUNNER(f, "auto");
    char out[4096];
    assert_int_equal(run_sh(f, "echo one", out, sizeof out), 0);
    assert_int_equal(children(), 1);
    /* What a host's SIGCHLD handler would do to it, short of a kill: it
     * dies and is reaped before the runner sees it. */
    char path[64], text[64] = "";
    FMT(path, "/proc/self/task/%d/children", (int)getpid());
    read_file(path, text, sizeof text);
    pid_t waiting = (pid_t)atoi(text);
    assert_true(waiting > 0);
    assert_int_equal(kill(waiting, SIGKILL), 0);
    assert_int_equal(waitpid(waiting, NULL, 0), waiting);
    assert_int_equal(run_sh(f, "echo two", out, sizeof out), 0);
    assert_string_equal(out, "two\n");
}

/* A case's pass TWIN (0: under the mechanism; 1: under none, from a fresh
 * setup) over a project whose .git (GIT) holds a config (CONFIG) of
 * "[core]", .git hidden besides when HIDE_GIT; false to skip. */
static bool open_with_git(void **state, int twin, char *git, char *config, bool hide_git) {
    fx *f = *state;
    if (twin) {
        teardown(state);
        setup(state);
    }
    assert_int_equal(mkdir(path_in(git, f->dir, ".git"), 0755), 0);
    write_file(path_in(config, git, "config"), "[core]\n");
    return open_runner(f, twin ? "none" : "auto", hide_git ? git : NULL);
}

/* A file the world protects, replaced by the host while the next world
 * waits (as git config writes its config: a new file renamed over the old
 * one), is still protected for the next command: the world that covered
 * the old file is not used. Its twin, under the none backend, appends. */
static void test_a_file_replaced_while_waiting_stays_protected(void **state) {
    fx *f = *state;
    char git[PATH_MAX], config[PATH_MAX], fresh[PATH_MAX], out[4096], text[4096];
    const char *append = "echo '[core] fsmonitor = planted' >> .git/config";
    for (int twin = 0; twin < 2; twin++) {
        if (!open_with_git(state, twin, git, config, false)) skip();
        assert_int_equal(run_sh(f, "true", out, sizeof out), 0);
        /* The host writes its config while the next world waits. */
        write_file(path_in(fresh, git, "config.lock"), "[user]\n\tname = host\n");
        assert_int_equal(rename(fresh, config), 0);
        int status = run_sh(f, append, out, sizeof out);
        read_file(config, text, sizeof text);
        if (twin) {
            assert_int_equal(status, 0);
            assert_non_null(strstr(text, "planted"));
        } else {
            assert_int_not_equal(status, 0);
            assert_string_equal(text, "[user]\n\tname = host\n");
        }
    }
}

/* STATUS and OUT of a command that reads WANT: under none (TWIN) it read
 * it; under the mechanism it was refused and read none of it. */
static void expect_read_open_only(int twin, int status, const char *out, const char *want) {
    if (twin) {
        assert_int_equal(status, 0);
        assert_string_equal(out, want);
    } else {
        assert_int_not_equal(status, 0);
        assert_null(strstr(out, want));
    }
}

/* A hidden path that is not there when the next world is made (hide
 * leaves it out then: hidden already) and that the host makes before that
 * world's command comes: the world has no cover for it, so it is not used,
 * and the command runs in one made at once, where the path is hidden. */
static void test_a_hidden_path_made_while_waiting_stays_hidden(void **state) {
    fx *f = *state;
    char planted[PATH_MAX], out[4096];
    /* Long enough for the next world to be made while it runs. */
    const char *busy = "i=0; while [ $i -lt 100000 ]; do i=$((i + 1)); done";
    for (int twin = 0; twin < 2; twin++) {
        if (twin) {
            teardown(state);
            setup(state);
        }
        path_in(planted, f->dir, "planted");
        if (!open_runner(f, twin ? "none" : "auto", planted)) skip();
        assert_int_equal(run_sh(f, busy, out, sizeof out), 0);
        write_file(planted, "not for the command\n");
        int status = run_sh(f, "cat planted", out, sizeof out);
        expect_read_open_only(twin, status, out, "not for the command\n");
    }
}

/* A directory hidden whole that holds a protected path (.git, and its
 * config protected by default): its worlds, made ahead, are used (the
 * protected path beneath the cover is out of them, not a cover lost), and
 * the directory is out of the command's reach. Its twin, under the none
 * backend, lists it. */
static void test_a_hidden_directory_holding_a_protected_path(void **state) {
    fx *f = *state;
    char git[PATH_MAX], config[PATH_MAX], out[4096];
    for (int twin = 0; twin < 2; twin++) {
        if (!open_with_git(state, twin, git, config, true)) skip();
        for (int i = 0; i < 2; i++) {
            int status = run_sh(f, "cat .git/config", out, sizeof out);
            expect_read_open_only(twin, status, out, "[core]\n");
        }
    }
}

/* A directory above a protected path that no one may search (the command
 * may chmod the .git it owns): the world made ahead, whose init has no
 * capability left to look through it at the handover, is not used, and the
 * command runs in a world made at the call instead of failing. */
static void test_an_unsearchable_directory_above_a_cover(void **state) {
    fx *f = *state;
    char git[PATH_MAX], config[PATH_MAX], out[4096];
    /* A caller without CAP_DAC_OVERRIDE cannot look into it either: its
     * policy is refused before any world (protect names what it cannot
     * reach). */
    if (geteuid() != 0 || !open_with_git(state, 0, git, config, false)) skip();
    assert_int_equal(run_sh(f, "true", out, sizeof out), 0);
    assert_int_equal(chmod(git, 0), 0);
    int status = run_sh(f, "echo ran", out, sizeof out);
    assert_int_equal(chmod(git, 0755), 0);
    assert_int_equal(status, 0);
    assert_string_equal(out, "ran\n");
}

/* A host that narrows itself between two commands (here its umask) gets
 * the second command run as it is now, as lcsb_run would: the world made
 * before the change is not used. */
static void test_the_callers_process_as_it_is_now(void **state) {
    fx *f = *state;
    NEED_RUNNER(f, "auto");
    char out[4096], made[PATH_MAX];
    mode_t was = umask(022);
    assert_int_equal(run_sh(f, "echo > first", out, sizeof out), 0);
    umask(077);
    assert_int_equal(run_sh(f, "echo > second", out, sizeof out), 0);
    umask(was);
    struct stat st;
    assert_int_equal(stat(path_in(made, f->dir, "first"), &st), 0);
    assert_int_equal(st.st_mode & 0777, 0644);
    assert_int_equal(stat(path_in(made, f->dir, "second"), &st), 0);
    assert_int_equal(st.st_mode & 0777, 0600);
}

/* SIG's action set to HANDLER with FLAGS, the one before into *WAS (NULL:
 * not wanted). */
static void set_action(int sig, void (*handler)(int), int flags, struct sigaction *was) {
    struct sigaction sa = {.sa_handler = handler, .sa_flags = flags};
    sigemptyset(&sa.sa_mask);
    assert_int_equal(sigaction(sig, &sa, was), 0);
}

/* The signals the command starts ignoring, as its /proc/self/status says
 * (SigIgn: signal N at bit N-1). */
static unsigned long long ignored_by_command(fx *f) {
    char out[4096];
    assert_int_equal(run_sh(f,
                            "while read -r k v; do case $k in SigIgn:) echo \"$v\";; esac; done "
                            "</proc/self/status",
                            out, sizeof out),
                     0);
    return strtoull(out, NULL, 16);
}

#define BIT(sig) (1ULL << ((sig)-1))

/* A signal the host ignores, the command starts ignoring, as an exec keeps
 * it; SIGPIPE, which lcsb ignores while a command before runs (as it
 * relays its stderr, when the next world is made), the command gets as the
 * host has it. A host that ignores SIGHUP only from the third command on
 * gets a world made with it ignored, not the one made ahead without. */
static void test_the_callers_ignored_signals(void **state) {
    fx *f = *state;
    NEED_RUNNER(f, "auto");
    struct sigaction was_hup, was_pipe;
    set_action(SIGHUP, SIG_DFL, 0, &was_hup);
    set_action(SIGPIPE, SIG_DFL, 0, &was_pipe);
    for (int i = 0; i < 2; i++) {
        unsigned long long mask = ignored_by_command(f);
        if (mask & (BIT(SIGHUP) | BIT(SIGPIPE)))
            fail_msg("command %d starts ignoring what the host does not: %llx", i + 1, mask);
    }
    set_action(SIGHUP, SIG_IGN, 0, NULL);
    unsigned long long ignoring_hup = ignored_by_command(f);
    set_action(SIGPIPE, SIG_IGN, 0, NULL);
    unsigned long long ignoring_both = ignored_by_command(f);
    /* SIG_IGN as an SA_SIGINFO action (sa_sigaction shares sa_handler's
     * place): the kernel ignores it all the same. After a command with
     * SIGHUP at its default, whose next world was made so. */
    set_action(SIGHUP, SIG_DFL, 0, NULL);
    (void)ignored_by_command(f);
    set_action(SIGHUP, SIG_IGN, SA_SIGINFO, NULL);
    unsigned long long ignoring_as_info = ignored_by_command(f);
    assert_int_equal(sigaction(SIGHUP, &was_hup, NULL), 0);
    assert_int_equal(sigaction(SIGPIPE, &was_pipe, NULL), 0);
    if ((ignoring_hup & (BIT(SIGHUP) | BIT(SIGPIPE))) != BIT(SIGHUP))
        fail_msg("the host ignores SIGHUP, the command: %llx", ignoring_hup);
    if ((ignoring_both & (BIT(SIGHUP) | BIT(SIGPIPE))) != (BIT(SIGHUP) | BIT(SIGPIPE)))
        fail_msg("the host ignores SIGHUP and SIGPIPE, the command: %llx", ignoring_both);
    if (!(ignoring_as_info & BIT(SIGHUP)))
        fail_msg("the host ignores SIGHUP (SA_SIGINFO), the command: %llx", ignoring_as_info);
}

/* A host that ignores SIGCHLD: the kernel would reap what lcsb and the
 * shim wait for, and no run would end. Each command's status comes back,
 * and the host's SIGCHLD is as it was once the runner, which keeps a shim
 * waiting for the next command, is freed. */
/* lcsb_run of "sh -c SCRIPT" under F's policy, stderr not captured and
 * nothing recorded, so that lcsb has no SIGCHLD handler of its own, and
 * no trailer; its status. A run that never ends is cut short by the
 * alarm, which fails the suite. */
static int run_plain(fx *f, const char *script) {
    lcsb_run_options opts;
    lcsb_run_options_init(&opts);
    opts.capture_stderr = false;
    opts.record_refusals = false;
    opts.trailer_fd = -1;
    lcsb_run_result *result = calloc(1, sizeof *result);
    assert_non_null(result);
    lcsb_error err = {0};
    const char *const argv[] = {"sh", "-c", script, NULL};
    alarm(60);
    int rc = lcsb_run(f->backend, lcsb_script_policy(f->script), argv, &opts, result, &err);
    alarm(0);
    if (rc) fail_msg("lcsb_run: %s", err.message);
    int status = result->status;
    free(result);
    return status;
}

/* A host that ignores SIGCHLD: the kernel would reap what lcsb and the
 * shim wait for, and no run would end. It may start ignoring it while a
 * runner keeps a shim waiting for the next command. Each command's status
 * comes back, and the host's SIGCHLD is as it last set it once the runner
 * is freed. */
static void test_a_host_that_ignores_sigchld(void **state) {
    fx *f = *state;
    NEED_RUNNER(f, "auto");
    struct sigaction was, now;
    set_action(SIGCHLD, SIG_DFL, 0, &was);
    char out[4096];
    int first = run_sh(f, "echo one; exit 3", out, sizeof out);
    set_action(SIGCHLD, SIG_IGN, 0, NULL);
    int second = run_sh(f, "echo two; exit 4", out, sizeof out);
    int plain = run_plain(f, "exit 5");
    lcsb_runner_free(f->runner);
    f->runner = NULL;
    assert_int_equal(sigaction(SIGCHLD, &was, &now), 0);
    assert_int_equal(first, 3);
    assert_int_equal(second, 4);
    assert_string_equal(out, "two\n");
    assert_int_equal(plain, 5);
    assert_true(now.sa_handler == SIG_IGN);
    /* And with no runner at all. */
    set_action(SIGCHLD, SIG_IGN, 0, NULL);
    plain = run_plain(f, "exit 6");
    assert_int_equal(sigaction(SIGCHLD, &was, &now), 0);
    assert_int_equal(plain, 6);
    assert_true(now.sa_handler == SIG_IGN);
}

static volatile sig_atomic_t chld_seen;
static void note_chld(int sig) { chld_seen = sig; }

/* A host that sets a SIGCHLD handler of its own while a runner holds a
 * shim, after lcsb put its ignored SIGCHLD to the default: the handler is
 * what it has once the runner is freed, not the SIG_IGN from before. */
static void test_a_host_that_sets_sigchld_meanwhile(void **state) {
    fx *f = *state;
    NEED_RUNNER(f, "auto");
    struct sigaction was, now;
    set_action(SIGCHLD, SIG_IGN, 0, &was);
    char out[4096];
    assert_int_equal(run_sh(f, "exit 3", out, sizeof out), 3);
    set_action(SIGCHLD, note_chld, 0, NULL);
    lcsb_runner_free(f->runner);
    f->runner = NULL;
    assert_int_equal(sigaction(SIGCHLD, &was, &now), 0);
    assert_true(now.sa_handler == note_chld);
}

/* A policy that names no directory for its commands (lcsb.policy): each
 * runs where the host is when it calls, whatever the world made ahead was
 * made in. */
static void test_no_directory_of_its_own(void **state) {
    fx *f = *state;
    char policy[PATH_MAX], sub[2][PATH_MAX], here[PATH_MAX], out[4096];
    write_file(path_in(policy, f->dir, "policy.lua"),
               "local lcsb = require 'lcsb'\n"
               "return function(run) return lcsb.policy { read = { '/usr', run.cwd },\n"
               "  exec = lcsb.which('/bin/sh') } end\n");
    NEED_RUNNER(f, "auto");
    for (int i = 0; i < 2; i++) {
        assert_int_equal(mkdir(path_in(sub[i], f->dir, i ? "two" : "one"), 0755), 0);
        assert_non_null(realpath(sub[i], here));
        snprintf(sub[i], sizeof sub[i], "%s", here);
    }
    for (int round = 0; round < 4; round++) {
        const char *want = round == 0 ? NULL : sub[round % 2];
        if (want) assert_int_equal(chdir(want), 0);
        assert_non_null(getcwd(here, sizeof here));
        assert_int_equal(run_sh(f, "pwd", out, sizeof out), 0);
        out[strcspn(out, "\n")] = '\0';
        if (strcmp(out, here) != 0)
            fail_msg("round %d: ran in %s, the host in %s", round, out, here);
    }
}

/* A host whose stderr is a pipe no one reads, SIGPIPE at its default: lcsb's
 * trailer there must not kill it. In a child, which would die. */
static void test_a_host_whose_stderr_is_gone(void **state) {
    fx *f = *state;
    NEED_RUNNER(f, "auto");
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        int p[2];
        signal(SIGPIPE, SIG_DFL);
        if (pipe(p) != 0 || close(p[0]) != 0 || dup2(p[1], STDERR_FILENO) < 0) _exit(120);
        lcsb_run_options opts;
        lcsb_run_options_init(&opts);
        lcsb_run_result *result = calloc(1, sizeof *result);
        lcsb_error err = {0};
        static const char *const argv[] = {"sh", "-c", "exit 3", NULL};
        if (!result ||
            lcsb_run(f->backend, lcsb_script_policy(f->script), argv, &opts, result, &err))
            _exit(121);
        _exit(result->status);
    }
    int ws;
    assert_int_equal(waitpid(pid, &ws, 0), pid);
    if (!WIFEXITED(ws)) fail_msg("the host was killed by signal %d", WTERMSIG(ws));
    assert_int_equal(WEXITSTATUS(ws), 3);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_each_command_in_a_world_of_its_own, setup, teardown),
        cmocka_unit_test_setup_teardown(test_a_runner_says_when_it_makes_nothing_ahead, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_the_policy_holds, setup, teardown),
        cmocka_unit_test_setup_teardown(test_a_reaped_shim_is_made_again, setup, teardown),
        cmocka_unit_test_setup_teardown(test_a_file_replaced_while_waiting_stays_protected, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_the_callers_process_as_it_is_now, setup, teardown),
        cmocka_unit_test_setup_teardown(test_the_callers_ignored_signals, setup, teardown),
        cmocka_unit_test_setup_teardown(test_a_host_that_ignores_sigchld, setup, teardown),
        cmocka_unit_test_setup_teardown(test_a_host_whose_stderr_is_gone, setup, teardown),
        cmocka_unit_test_setup_teardown(test_a_host_that_sets_sigchld_meanwhile, setup, teardown),
        cmocka_unit_test_setup_teardown(test_no_directory_of_its_own, setup, teardown),
        cmocka_unit_test_setup_teardown(test_an_unsearchable_directory_above_a_cover, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_a_hidden_directory_holding_a_protected_path, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_a_hidden_path_made_while_waiting_stays_hidden, setup,
                                        teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
