/* The CLI around a sandboxed run: exit statuses and messages, broken and
 * hostile policy scripts, what the command inherits, --attest, signals sent
 * to lcsb, where lcsb runs from, and the hints that name the policy key a
 * refusal calls for. The rules of the enforcement suites are in
 * enforce_fixture.h. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h> /* after the four above, which it needs */

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "enforce_fixture.h"

/* ---- exit statuses and messages ---- */

static void test_exit_statuses(void **state) {
    NEED_LANDLOCK();
    fx *f = *state;
    fs_policy(f);
    /* The command's own status, with the trailer. */
    expect_denied(f, CMD("sh", "-c", "exit 3"), 3, &P);
    /* Success: 0, and not a word from lcsb. */
    expect_allowed(f, CMD("sh", "-c", "echo fine"), &P);
    assert_string_equal(P.out, "fine\n");
    if (P.err_n != 0) fail_msg("lcsb wrote on a success:\n%s", P.err);
    /* Not found. */
    expect_denied(f, CMD("lcsb-no-such-command"), 127, &P);
    lcsb(f, "none", CMD("lcsb-no-such-command"), &P);
    assert_int_equal(P.status, 127);
    assert_trailer(&P, "none");
}

static void test_policy_syntax_error(void **state) {
    NEED_LANDLOCK();
    fx *f = *state;
    char marker[PATH_MAX];
    path_in(marker, f->project, "marker");
    const char *const *cmd = CMD("touch", marker);
    /* The same command under a valid policy does run. */
    policy(f, "exec = { \"sh\" }");
    expect_allowed(f, cmd, &P);
    assert_exists(marker, true);
    unlink(marker);

    raw_policy(f, "local lcsb = require \"lcsb\"\n"
                  "return lcsb.exec_policy{ exec = { \"sh\" ) }\n");
    const char *const backends[] = {mech, "none"};
    for (size_t i = 0; i < 2; i++) {
        lcsb(f, backends[i], cmd, &P);
        assert_int_equal(P.status, 125);
        if (!has_line(P.err, "lcsb: ", CMD("p.lua:2:")))
            fail_msg("no message naming p.lua:2:\n%s", P.err);
        assert_exists(marker, false);
    }
}

/* Hostile or broken scripts: each is refused with 125 and a line naming the
 * problem, never a crash, and the command never runs. The first case is
 * the same script made valid, which does run it. */
static const struct hostile_script {
    const char *what;
    const char *body; /* after `local lcsb = require "lcsb"` */
    const char *needle;
} hostile_scripts[] = {
    {"valid", "return lcsb.exec_policy { exec = { \"touch\" } }", NULL},
    {"100 MB path", "return lcsb.exec_policy { read = { \"/\" .. string.rep(\"a\", 100 << 20) } }",
     "path longer than"},
    {"1 MB env value",
     "return lcsb.exec_policy { exec = { \"touch\" }, env = { X = string.rep(\"a\", 1 << 20) } }",
     "more than the kernel's limit of 128 KiB"},
    {"100 MB env value",
     "return lcsb.exec_policy { exec = { \"touch\" }, env = { X = string.rep(\"a\", 100 << 20) } }",
     "more than 64 MiB"},
    {"a million 4 KB paths",
     "local s = \"/\" .. string.rep(\"a\", 4000) local t = {} for i = 1, 1e6 do t[i] = s end "
     "return lcsb.policy { read = t }",
     "more than 64 MiB"},
    {"endless allocation", "local t = {} while true do t[#t + 1] = string.rep(\"x\", 1 << 20) end",
     "ran out of memory"},
    {"deep recursion", "local function f(n) return 1 + f(n + 1) end return f(1)", "stack overflow"},
    {"deeply nested table",
     "local t = {} local c = t for i = 1, 1e6 do c[1] = {} c = c[1] end "
     "return lcsb.exec_policy { read = t }",
     "entries must be strings"},
    {"NUL byte in a path", "return lcsb.exec_policy { read = { \"/usr\\0/etc\" } }", "NUL"},
    {"empty path", "return lcsb.exec_policy { write = { \"\" } }", "empty path"},
    {"relative path", "return lcsb.exec_policy { read = { \"src\" } }", "not an absolute path"},
    {"wrong type", "return lcsb.exec_policy { net = \"yes\" }", "key 'net' must be"},
    {"unknown key", "return lcsb.exec_policy { networking = false }", "unknown key 'networking'"},
    {"unknown degrade part", "return lcsb.exec_policy { degrade = { \"everything\" } }",
     "not a part"},
    {"returns a number", "return 42", "returned a number"},
    {"error with a table", "error({})", "its error is not a string"},
    {"error from __tostring", "error(setmetatable({}, { __tostring = function() error(1) end }))",
     "its error is not a string"},
};

/* A 20,000-path policy, through the CLI: every listed file is readable (the
 * last one read), and the one file next to them that is not listed is not.
 * The twin: unsandboxed, that file reads. The policy names nearly every
 * entry of the directory, so the shim binds it whole (one mount, not
 * 20,000): the unlisted file is there, and Landlock refuses it. */
#define MANY_PATHS 20000

static void test_many_paths_policy(void **state) {
    NEED_LANDLOCK();
    fx *f = *state;
    char dir[PATH_MAX], file[PATH_MAX + 16], text[2 * PATH_MAX];
    assert_int_equal(mkdir(path_in(dir, f->outside, "many"), 0755), 0);
    for (int i = 0; i <= MANY_PATHS; i++) {
        FMT(file, "%s/f%05d", dir, i);
        write_file(file, "x\n");
    }
    FMT(text,
        "local lcsb = require \"lcsb\"\n"
        "local read = {}\n"
        "for i = 0, %d do read[#read + 1] = (\"%s/f%%05d\"):format(i) end\n"
        "return lcsb.exec_policy { exec = { \"cat\" }, read = read }\n",
        MANY_PATHS - 1, dir);
    raw_policy(f, text);
    char last[PATH_MAX + 16], unlisted[PATH_MAX + 16];
    FMT(last, "%s/f%05d", dir, MANY_PATHS - 1);
    FMT(unlisted, "%s/f%05d", dir, MANY_PATHS);
    expect_allowed(f, CMD("cat", last), &P);
    assert_string_equal(P.out, "x\n");
    expect_denied(f, CMD("cat", unlisted), 1, &P);
    assert_contains(P.err, "Permission denied", "stderr");
    expect_unsandboxed_ok(f, CMD("cat", unlisted), &P);
    assert_string_equal(P.out, "x\n");
}

static void test_policy_hostile_scripts(void **state) {
    NEED_LANDLOCK();
    fx *f = *state;
    char marker[PATH_MAX], text[1024];
    path_in(marker, f->project, "marker");
    const char *const *cmd = CMD("touch", marker);
    for (size_t i = 0; i < sizeof hostile_scripts / sizeof hostile_scripts[0]; i++) {
        const struct hostile_script *h = &hostile_scripts[i];
        FMT(text, "local lcsb = require \"lcsb\"\n%s\n", h->body);
        raw_policy(f, text);
        /* Each is about a limit of its own, not the time budget
         * (test_sandbox_enforce_stop.c): a sanitizer build, two suites at
         * once, takes more than its 10 s to allocate 1 GiB. */
        lcsb_env(f, "landlock", cmd, ENV("LCSB_POLICY_TIMEOUT=0"), &P);
        if (!h->needle) {
            if (P.status != 0) describe(h->what, cmd, &P);
            assert_int_equal(P.status, 0);
            assert_exists(marker, true);
            unlink(marker);
            continue;
        }
        if (P.status != 125 || !has_line(P.err, "lcsb: ", CMD(h->needle))) {
            describe(h->what, cmd, &P);
            fail_msg("%s: expected 125 and a line with \"%s\", got %d", h->what, h->needle,
                     P.status);
        }
        assert_exists(marker, false);
    }
}

static void test_policy_unknown_key(void **state) {
    NEED_LANDLOCK();
    fx *f = *state;
    char marker[PATH_MAX];
    path_in(marker, f->project, "marker");
    policy(f, "exec = { \"sh\" }, exce = { \"touch\" }");
    lcsb(f, "landlock", CMD("touch", marker), &P);
    assert_int_equal(P.status, 125);
    if (!has_line(P.err, "lcsb: ", CMD("exce")))
        fail_msg("no message naming the key exce:\n%s", P.err);
    if (!has_line(P.err, "lcsb: ", CMD("p.lua:2:")))
        fail_msg("no message naming the script line p.lua:2:\n%s", P.err);
    assert_exists(marker, false);
}

static void test_policy_relative_read(void **state) {
    NEED_LANDLOCK();
    fx *f = *state;
    char marker[PATH_MAX];
    path_in(marker, f->project, "marker");
    policy(f, "read = { \"relative/dir\" }");
    lcsb(f, "landlock", CMD("touch", marker), &P);
    assert_int_equal(P.status, 125);
    if (!has_line(P.err, "lcsb: ", CMD("relative/dir")))
        fail_msg("no message naming relative/dir:\n%s", P.err);
    assert_exists(marker, false);
}

static void test_backend_none_warns(void **state) {
    NEED_LANDLOCK();
    fx *f = *state;
    fs_policy(f);
    lcsb(f, "none", CMD("true"), &P);
    assert_int_equal(P.status, 0);
    if (!has_line(P.err, "lcsb: ", CMD("unsandboxed")))
        fail_msg("--backend none did not say it runs unsandboxed:\n%s", P.err);
    /* and landlock says nothing on the same success */
    expect_allowed(f, CMD("true"), &P);
    assert_int_equal(P.err_n, 0);
}

/* ---- what the command inherits ---- */

/* A descriptor lcsb's caller leaks (not O_CLOEXEC) must not reach the
 * command: Landlock checks opens, not descriptors already open, so a leaked
 * one would read what the policy refuses. The seam closes everything but
 * 0-2 for every backend, so `none` fails too; run directly, without lcsb, the
 * same command reads the secret: the twin that proves the test can fail. */
static void test_leaked_fd_closed(void **state) {
    NEED_LANDLOCK();
    fx *f = *state;
    char secret[PATH_MAX];
    write_file(path_in(secret, f->outside, "secret"), SECRET "\n");
    policy(f, "exec = { \"sh\", \"cat\" }");
    const char *const *cmd = CMD("sh", "-c", "cat <&7");
    child_fd7 = secret;
    const char *const backends[] = {mech, "none"};
    for (size_t i = 0; i < 2; i++) {
        lcsb(f, backends[i], cmd, &P);
        if (P.status == 0 || strstr(P.out, SECRET)) {
            child_fd7 = NULL;
            describe(backends[i], cmd, &P);
            fail_msg("fd 7 reached the command under %s", backends[i]);
        }
        assert_contains(P.err, "Bad file descriptor", "stderr");
        assert_trailer(&P, backends[i]);
    }
    run_child(f->project, CMD("/bin/sh", "-c", "cat <&7"), NULL, &P);
    if (P.status != 0) {
        child_fd7 = NULL;
        describe("direct run", cmd, &P);
        fail_msg("cat <&7 failed without lcsb too (%d): the test proves nothing", P.status);
    }
    assert_contains(P.out, SECRET, "stdout of the direct run");
    /* Passed on on purpose, it reaches the command, sandboxed or not: a
     * descriptor opened before the sandbox is not the sandbox's to refuse. */
    for (size_t i = 0; i < 2; i++) {
        lcsb_opts(f, backends[i], CMD("--keep-fd", "7"), cmd, NULL, &P);
        if (P.status != 0 || !strstr(P.out, SECRET)) {
            child_fd7 = NULL;
            describe(backends[i], cmd, &P);
            fail_msg("--keep-fd 7 did not pass fd 7 on under %s", backends[i]);
        }
    }
    /* Only that one: fd 8, open too, is still closed. */
    lcsb_opts(f, "landlock", CMD("--keep-fd", "7"), CMD("sh", "-c", "cat <&8"), NULL, &P);
    child_fd7 = NULL;
    assert_int_not_equal(P.status, 0);
    assert_contains(P.err, "Bad file descriptor", "stderr");
}

/* ---- the CLI around the run ---- */

/* --attest FILE is opened before the command runs: a path that cannot be
 * written is refused (125) and nothing runs. */
static void test_attest_unwritable(void **state) {
    NEED_LANDLOCK();
    fx *f = *state;
    char marker[PATH_MAX], attest[PATH_MAX];
    path_in(marker, f->project, "marker");
    path_in(attest, f->project, "a.json");
    policy(f, "exec = { \"touch\" }");
    const char *const backends[] = {mech, "none"};
    for (size_t i = 0; i < 2; i++) {
        const char *bad[] = {LCSB_CLI_PATH, "--no-trust-check",
                             "--backend",   backends[i],
                             "--attest",    "/nonexistent/dir/a.json",
                             f->policy,     "--",
                             "touch",       marker,
                             NULL};
        run_child(f->project, bad, NULL, &P);
        if (P.status != 125) {
            describe(backends[i], CMD("touch", marker), &P);
            fail_msg("--attest /nonexistent/dir/a.json under %s: expected 125, got %d", backends[i],
                     P.status);
        }
        if (!has_line(P.err, "lcsb: ", CMD("/nonexistent/dir/a.json")))
            fail_msg("no message naming the attestation file:\n%s", P.err);
        assert_exists(marker, false);
        /* A writable FILE: the same command runs, and the file says how. */
        const char *good[] = {
            LCSB_CLI_PATH, "--no-trust-check", "--backend", backends[i], "--attest",
            attest,        f->policy,          "--",        "touch",     marker,
            NULL};
        run_child(f->project, good, NULL, &P);
        if (P.status != 0) {
            describe(backends[i], CMD("touch", marker), &P);
            fail_msg("--attest %s under %s: expected 0, got %d", attest, backends[i], P.status);
        }
        assert_exists(marker, true);
        char want[64];
        FMT(want, "\"backend\":\"%s\"", backends[i]);
        char *json = slurp(attest);
        assert_non_null(json);
        assert_contains(json, want, attest);
        free(json);
        unlink(marker);
        unlink(attest);
    }
}

/* SIGKILL to lcsb, which can relay nothing: under Landlock the shim asked the
 * kernel to kill the command with its parent; under none nothing does, and
 * the command outlives lcsb (the twin that proves the check can fail). */
static void test_command_dies_with_lcsb(void **state) {
    NEED_LANDLOCK();
    fx *f = *state;
    policy(f, "exec = { \"sh\", \"sleep\" }");
    /* lcsb killed by SIGKILL cannot remove its private HOME: keep it out of /tmp. */
    run_tmp t;
    make_run_tmp(f, &t);
    const char *const backends[] = {mech, "none"};
    for (size_t i = 0; i < 2; i++) {
        const char *argv[] = {LCSB_CLI_PATH,
                              "--no-trust-check",
                              "--backend",
                              backends[i],
                              f->policy,
                              "--",
                              "sh",
                              "-c",
                              "echo $$; exec sleep 30",
                              NULL};
        int out[2];
        assert_int_equal(pipe2(out, O_CLOEXEC), 0);
        pid_t pid = fork();
        assert_true(pid >= 0);
        if (pid == 0) {
            int devnull = open("/dev/null", O_RDWR);
            if (devnull < 0 || dup2(devnull, STDIN_FILENO) < 0 || dup2(out[1], STDOUT_FILENO) < 0 ||
                dup2(devnull, STDERR_FILENO) < 0 || chdir(f->project) != 0)
                _exit(120);
            setenv("PATH", "/usr/bin:/bin", 1);
            setenv("TMPDIR", t.dir, 1);
            execv(argv[0], (char *const *)argv);
            _exit(122);
        }
        close(out[1]);
        char cmd_pid[32];
        bool started = read_line(out[0], cmd_pid, sizeof cmd_pid);
        close(out[0]);
        if (!started) {
            kill(pid, SIGKILL);
            waitpid(pid, NULL, 0);
            fail_msg("%s: the command did not start", backends[i]);
        }
        (void)cmd_pid; /* the command's own pid is its namespace's */
        pid_t command = descendant_named(pid, "sleep");
        assert_true(command > 0 && command != pid);
        assert_int_equal(kill(pid, SIGKILL), 0);
        assert_int_equal(waitpid(pid, NULL, 0), pid);
        /* Orphans are reaped by init; a dead one stops answering kill(0). */
        bool gone = false;
        for (int k = 0; k < 200 && !gone; k++) {
            gone = kill(command, 0) != 0 && errno == ESRCH;
            if (!gone) usleep(10000);
        }
        if (!gone) kill(command, SIGKILL);
        if (i == 0 && !gone) fail_msg("landlock: the command outlived lcsb killed by SIGKILL");
        if (i == 1 && gone) fail_msg("none: the command died with lcsb; the twin proves nothing");
    }
}

/* lcsb --backend BACKEND running `sh -c 'echo $HOME; echo $$; exec sleep
 * 30'` from the project, in a process group of its own, its stdout and
 * stderr on the pipes OUT and ERR (their write ends closed here). */
static pid_t start_sleeping(fx *f, const char *backend, int out[2], int err[2]) {
    const char *argv[] = {LCSB_CLI_PATH,
                          "--no-trust-check",
                          "--backend",
                          backend,
                          f->policy,
                          "--",
                          "sh",
                          "-c",
                          "echo \"$HOME\"; echo $$; exec sleep 30",
                          NULL};
    assert_int_equal(pipe2(out, O_CLOEXEC), 0);
    assert_int_equal(pipe2(err, O_CLOEXEC), 0);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        setpgid(0, 0);
        int devnull = open("/dev/null", O_RDONLY);
        if (devnull < 0 || dup2(devnull, STDIN_FILENO) < 0 || dup2(out[1], STDOUT_FILENO) < 0 ||
            dup2(err[1], STDERR_FILENO) < 0 || chdir(f->project) != 0)
            _exit(120);
        setenv("PATH", "/usr/bin:/bin", 1);
        execv(argv[0], (char *const *)argv);
        _exit(122);
    }
    setpgid(pid, pid);
    close(out[1]);
    close(err[1]);
    return pid;
}

/* SIG (NAME) sent to lcsb under BACKEND alone, and what must follow. */
static void signal_one_run(fx *f, const char *backend, int sig, const char *name) {
    int out[2], err[2];
    pid_t pid = start_sleeping(f, backend, out, err);
    char home[PATH_MAX], cmd_pid[32];
    bool started =
        read_line(out[0], home, sizeof home) && read_line(out[0], cmd_pid, sizeof cmd_pid);
    if (!started) {
        kill(-pid, SIGKILL);
        waitpid(pid, NULL, 0);
        close(out[0]);
        close(err[0]);
        fail_msg("%s: the command did not start", backend);
    }
    assert_true(home[0] == '/');
    /* In the command's world its HOME is a tmpfs there, never the host's. */
    assert_exists(home, strcmp(backend, "none") == 0);
    pid_t command = descendant_named(pid, "sleep");
    assert_true(command > 0 && command != pid);
    assert_int_equal(kill(command, 0), 0); /* sleeping, under lcsb */

    double sent = now_seconds();
    assert_int_equal(kill(pid, sig), 0);
    int wstatus = 0;
    pid_t waited;
    while ((waited = waitpid(pid, &wstatus, WNOHANG)) == 0 && now_seconds() - sent < 10)
        usleep(10000);
    double took = now_seconds() - sent;
    if (waited != pid) {
        kill(-pid, SIGKILL);
        waitpid(pid, NULL, 0);
        close(out[0]);
        close(err[0]);
        fail_msg("%s: lcsb still running %.1f s after %s", backend, took, name);
    }
    char errbuf[8192];
    ssize_t n = read(err[0], errbuf, sizeof errbuf - 1);
    errbuf[n > 0 ? n : 0] = '\0';
    close(out[0]);
    close(err[0]);
    int status = WIFEXITED(wstatus) ? WEXITSTATUS(wstatus) : 128 + WTERMSIG(wstatus);
    /* Anything left in the group goes, but only after what we check. */
    bool command_gone = false;
    for (int k = 0; k < 100 && !command_gone; k++) {
        command_gone = kill(command, 0) != 0 && errno == ESRCH;
        if (!command_gone) usleep(10000);
    }
    kill(-pid, SIGKILL);
    if (status != 128 + sig || !WIFEXITED(wstatus))
        fail_msg("%s: lcsb ended with %d (%s) after %s, expected exit %d; stderr:\n%s", backend,
                 status, WIFEXITED(wstatus) ? "exited" : "killed", name, 128 + sig, errbuf);
    if (took > 5) fail_msg("%s: lcsb took %.1f s to exit after %s", backend, took, name);
    if (!command_gone) fail_msg("%s: the command (pid %d) outlived lcsb", backend, command);
    assert_exists(home, false);
    char under[64];
    FMT(under, "under %s", backend);
    char exited[32];
    FMT(exited, "sh exited %d", 128 + sig);
    if (!has_line(errbuf, "lcsb: ", CMD(exited, name, under)))
        fail_msg("%s: no trailer for the %s:\n%s", backend, name, errbuf);
}

/* SIGTERM, SIGINT, SIGHUP or SIGQUIT sent to lcsb alone (not its process
 * group) while the command runs: lcsb relays it, the command dies of it,
 * lcsb removes the private HOME and exits 128+N, all at once, not after the
 * command's 30 seconds. */
static void test_signals_while_running(void **state) {
    NEED_LANDLOCK();
    fx *f = *state;
    policy(f, "exec = { \"sh\", \"sleep\" }");
    const char *const backends[] = {mech, "none"};
    static const struct {
        int sig;
        const char *name;
    } sigs[] = {{SIGTERM, "SIGTERM"}, {SIGINT, "SIGINT"}, {SIGHUP, "SIGHUP"}, {SIGQUIT, "SIGQUIT"}};
    for (size_t run = 0; run < 2 * 4; run++)
        signal_one_run(f, backends[run % 2], sigs[run / 2].sig, sigs[run / 2].name);
}

/* ---- where lcsb runs from ---- */

/* From "/", the default project would be "/": a write rule on the whole
 * system. Refused before anything runs, under every backend: the caps see
 * lcsb's own files beneath it (validation would refuse "/" as a system
 * prefix next, under landlock). From the project, the same run works: the
 * refusal was the policy's, and the command would have run. */
static void test_run_from_root_refused(void **state) {
    NEED_LANDLOCK();
    fx *f = *state;
    char marker[PATH_MAX];
    path_in(marker, f->project, "marker");
    policy(f, "exec = { \"touch\" }");
    const char *const backends[] = {"landlock", "none"};
    /* Nothing is made in "/" on the way to the refusal (a placeholder .git
     * once was, and removed: other runs saw "/" change under them). */
    struct stat root_before, root_after;
    assert_int_equal(stat("/", &root_before), 0);
    for (size_t i = 0; i < 2; i++) {
        const char *const argv[] = {LCSB_CLI_PATH, "--no-trust-check",
                                    "--backend",   backends[i],
                                    f->policy,     "--",
                                    "touch",       marker,
                                    NULL};
        run_child("/", argv, NULL, &P);
        if (P.status != 125) {
            describe(backends[i], CMD("touch", marker), &P);
            fail_msg("expected 125 from / under %s, got %d", backends[i], P.status);
        }
        if (!has_line(P.err, "lcsb: ", CMD("write path / holds", "deny_write")))
            fail_msg("no message naming \"/\" under %s:\n%s", backends[i], P.err);
        assert_exists(marker, false);
    }
    assert_int_equal(stat("/", &root_after), 0);
    assert_true(root_after.st_mtim.tv_sec == root_before.st_mtim.tv_sec &&
                root_after.st_mtim.tv_nsec == root_before.st_mtim.tv_nsec);
    expect_unsandboxed_ok(f, CMD("touch", marker), &P);
    assert_exists(marker, true);
}

/* From a directory that is the caller's whole HOME, the default project would
 * be all of HOME: refused (125) naming HOME under every backend, since
 * exec_policy refuses it. Said on purpose (project = "~"), lcsb's caps refuse
 * it under every backend: HOME could be made to hold lcsb's own configuration
 * and the credentials the caps deny. */
static void test_run_from_home_refused(void **state) {
    NEED_LANDLOCK();
    fx *f = *state;
    char marker[PATH_MAX], home_env[PATH_MAX + 8];
    path_in(marker, f->project, "marker");
    FMT(home_env, "HOME=%s", f->project);
    const char *const *env = ENV(home_env);
    const char *const *cmd = CMD("touch", marker);
    policy(f, "exec = { \"touch\" }");
    const char *const backends[] = {mech, "none"};
    for (size_t i = 0; i < 2; i++) {
        lcsb_env(f, backends[i], cmd, env, &P);
        if (P.status != 125) {
            describe(backends[i], cmd, &P);
            fail_msg("run from HOME under %s: expected 125, got %d", backends[i], P.status);
        }
        if (!has_line(P.err, "lcsb: ", CMD("whole HOME", f->project)))
            fail_msg("no message naming HOME (%s):\n%s", f->project, P.err);
        assert_exists(marker, false);
    }
    policy(f, "exec = { \"touch\" }, project = \"~\"");
    char own[PATH_MAX];
    FMT(own, "%s/.config/lcsb", f->project);
    for (size_t i = 0; i < 2; i++) {
        lcsb_env(f, backends[i], cmd, env, &P);
        if (P.status != 125) {
            describe(backends[i], cmd, &P);
            fail_msg("project = \"~\" under %s: expected 125, got %d", backends[i], P.status);
        }
        if (!has_line(
                P.err, "lcsb: ",
                CMD("write path", "holds what no project policy may have", own, "deny_write")))
            fail_msg("no message naming the cap on %s:\n%s", own, P.err);
        assert_exists(marker, false);
    }
}

/* ---- denials users understand ---- */

/* Real refusals from the real kernel, each ending in the trailer and a hint
 * naming the policy key that would allow it; the twins run unsandboxed. */
static void expect_hints(fx *f, const char *const *cmd, const char *const *needles) {
    expect_denied(f, cmd, -1, &P);
    if (!has_line(P.err, "lcsb: hint: ", needles)) {
        describe("landlock run", cmd, &P);
        fail_msg("no hint naming %s", needles[0]);
    }
    expect_unsandboxed_ok(f, cmd, &P);
}

static void expect_hint(fx *f, const char *const *cmd, const char *hint) {
    expect_hints(f, cmd, CMD(hint));
}

static void test_hints_name_the_key(void **state) {
    NEED_LANDLOCK();
    fx *f = *state;
    char secret[PATH_MAX], created[PATH_MAX], write_hint[PATH_MAX + 32], read_hint[PATH_MAX + 32];
    write_file(path_in(secret, f->outside, "secret"), SECRET "\n");
    path_in(created, f->outside, "created");
    policy(f, "exec = { \"sh\", \"cat\", \"touch\", \"python3\" }");
    FMT(write_hint, "write = { \"%s\" }", f->outside);
    expect_hint(f, CMD("touch", created), write_hint);
    unlink(created);
    FMT(read_hint, "read = { \"%s\" }", secret);
    expect_hint(f, CMD("cat", secret), read_hint);
    /* By its path, as lcsb's PATH finds it. */
    expect_hints(f, CMD("sh", "-c", "ls / >/dev/null"), CMD("exec = { \"/", "/ls\" }"));
    int port;
    int l = listener(SOCK_STREAM, &port);
    char url[64], net_hint[64];
    FMT(url, "http://127.0.0.1:%d/", port);
    FMT(net_hint, "net = { connect = { %d } }", port);
    /* An HTTP request. Nothing answers it (the listener only accepts), so a
     * request that got out times out, which counts as success here; one the
     * sandbox refused fails with the refusal. */
    const char *const *fetch = CMD("python3", "-c",
                                   "import sys, urllib.request, urllib.error\n"
                                   "try:\n"
                                   "    urllib.request.urlopen(sys.argv[1], timeout=0.5)\n"
                                   "except TimeoutError:\n"
                                   "    pass\n"
                                   "except urllib.error.URLError as e:\n"
                                   "    if not isinstance(e.reason, TimeoutError): raise\n",
                                   url);
    expect_hint(f, fetch, net_hint);
    assert_true(accepted(l));
    close(l);
}

/* The command's stderr goes through lcsb byte for byte (NUL bytes, no final
 * newline, 200 KiB of it) and before the trailer; with --no-capture, the
 * same bytes, and the read hint from the recorder alone; with --no-record
 * too, no hint that needs the tail. */
static void test_stderr_relayed_exactly(void **state) {
    NEED_LANDLOCK();
    fx *f = *state;
    char secret[PATH_MAX], script[2 * PATH_MAX];
    write_file(path_in(secret, f->outside, "secret"), SECRET "\n");
    FMT(script,
        "printf 'a\\000b\\nc' >&2; head -c 204800 /dev/zero | tr '\\0' x >&2; "
        "printf 'end' >&2; cat '%s'; exit 3",
        secret);
    const char *const *cmd = CMD("sh", "-c", script);
    policy(f, "exec = { \"sh\", \"head\", \"tr\", \"cat\" }");
    static const char *const options[][3] = {
        {NULL, NULL, NULL}, {"--no-capture", NULL, NULL}, {"--no-capture", "--no-record", NULL}};
    for (size_t i = 0; i < 3; i++) {
        lcsb_opts(f, "landlock", options[i], cmd, NULL, &P);
        assert_int_equal(P.status, 3);
        assert_true(P.err_n > 5 + 204800 + 3);
        assert_memory_equal(P.err, "a\0b\nc", 5);
        for (size_t k = 5; k < 5 + 204800; k++)
            if (P.err[k] != 'x') fail_msg("byte %zu is %#x, not 'x'", k, (unsigned char)P.err[k]);
        assert_memory_equal(P.err + 5 + 204800, "end", 3);
        /* After the NUL byte, so read past it: the trailer comes last. */
        const char *trailer = strstr(P.err + 5 + 204800, "lcsb: sh exited 3 under landlock");
        if (!trailer) fail_msg("no trailer after the command's stderr:\n%s", P.err + 5 + 204800);
        /* The recorder or the tail feeds the read hint; without both there
         * is nothing to read. */
        bool hinted = strstr(trailer, "read = {") != NULL;
        if (hinted != (options[i][1] == NULL))
            fail_msg("%s %s: read hint %s", options[i][0] ? options[i][0] : "captured",
                     options[i][1] ? options[i][1] : "", hinted ? "present" : "missing");
    }
}

/* Every line of ERR (N bytes) that lcsb wrote ("lcsb: ...") holds no
 * control byte but a tab; WHAT names the run in the failure. */
static void assert_lcsb_lines_clean(const char *err, size_t n, const char *what) {
    for (size_t at = 0; at < n;) {
        size_t end = at;
        while (end < n && err[end] != '\n') end++;
        if (end - at >= 6 && memcmp(err + at, "lcsb: ", 6) == 0)
            for (size_t k = at; k < end; k++) {
                unsigned char c = (unsigned char)err[k];
                if ((c < 0x20 && c != '\t') || c == 0x7f)
                    fail_msg("%s: a raw control byte %#x in an lcsb: line:\n%.*s", what, c,
                             (int)(end - at), err + at);
            }
        at = end + 1;
    }
}

/* A command named with control bytes, and one whose stderr carries them into
 * a hint: every lcsb: line shows them escaped, and the command's own stderr
 * still passes through byte for byte. */
static void test_control_bytes_escaped(void **state) {
    NEED_LANDLOCK();
    fx *f = *state;
    char evil[PATH_MAX], want[PATH_MAX + 64];
    path_in(evil, f->project, "evil\x1b[2J\rname");
    write_file(evil, "#!/bin/sh\nexit 1\n");
    assert_int_equal(chmod(evil, 0755), 0);
    policy(f, "exec = { \"sh\" }");
    const char *const backends[] = {mech, "none"};
    for (size_t i = 0; i < 2; i++) {
        lcsb(f, backends[i], CMD(evil), &P);
        assert_int_equal(P.status, 1);
        FMT(want, "%s/evil\\x1b[2J\\rname exited 1 under %s", f->project, backends[i]);
        if (!has_line(P.err, "lcsb: ", CMD(want)))
            fail_msg("%s: no trailer naming the command escaped:\n%s", backends[i], P.err);
        assert_lcsb_lines_clean(P.err, P.err_n, backends[i]);
    }

    /* A refusal the command reports, quoting a path with ESC, CR, DEL. */
    static const char said[] = "cat: '/srv/\x1b[2J\rx\x7fy': Permission denied\n";
    const char *const *cmd = CMD(
        "sh", "-c", "printf \"cat: '/srv/\\033[2J\\rx\\177y': Permission denied\\n\" >&2; exit 1");
    lcsb(f, mech, cmd, &P);
    assert_int_equal(P.status, 1);
    if (P.err_n < sizeof said - 1 || memcmp(P.err, said, sizeof said - 1) != 0)
        fail_msg("the command's stderr did not pass through byte for byte:\n%s", P.err);
    if (!has_line(P.err, "lcsb: hint: ", CMD("read = { \"/srv/\\x1b[2J\\rx\\x7fy\" }")))
        fail_msg("no hint quoting the path escaped:\n%s", P.err);
    assert_lcsb_lines_clean(P.err, P.err_n, "hint");

    /* A policy script's own error, quoted in lcsb's message. */
    raw_policy(f, "error(\"bad \\27[2J\\rpolicy\")\n");
    lcsb(f, mech, CMD("true"), &P);
    assert_int_equal(P.status, 125);
    if (!has_line(P.err, "lcsb: ", CMD("bad \\x1b[2J\\rpolicy")))
        fail_msg("no message quoting the script's error escaped:\n%s", P.err);
    assert_lcsb_lines_clean(P.err, P.err_n, "script error");
}

int main(void) {
    const struct CMUnitTest tests[] = {
        /* exit statuses and messages */
        T(test_exit_statuses),
        T(test_policy_syntax_error),
        T(test_policy_hostile_scripts),
        T(test_many_paths_policy),
        T(test_policy_unknown_key),
        T(test_policy_relative_read),
        T(test_backend_none_warns),
        /* what the command inherits */
        T(test_leaked_fd_closed),
        /* the CLI around the run */
        T(test_attest_unwritable),
        T(test_signals_while_running),
        T(test_command_dies_with_lcsb),
        /* where lcsb runs from */
        T(test_run_from_root_refused),
        T(test_run_from_home_refused),
        /* denials users understand */
        T(test_hints_name_the_key),
        T(test_stderr_relayed_exactly),
        T(test_control_bytes_escaped),
    };
    return cmocka_run_group_tests_name("sandbox_enforce_cli", tests, enforce_group_setup, NULL);
}
