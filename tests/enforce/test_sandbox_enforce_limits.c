/* The policy's limits hold (processes, time, tmp, open files, memory), and a
 * command that ignores SIGTERM is killed after a grace period. Cut from the
 * isolation suite, whose fixture it shares (isolation_fixture.h); the rules
 * of the enforcement suites are in enforce_fixture.h. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h> /* after the four above, which it needs */

#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "isolation_fixture.h"

/* What the grace period promises: killed 10 s after SIGTERM, give or take 2. */
#define GRACE_SECONDS 10

/* ---- limits ---- */

/* `limits = { pids = 300 }` (the fewest a pid namespace holds for root).
 * Unsandboxed, the probe starts 400 processes at once; sandboxed it cannot,
 * and a fork bomb (which stops itself at 600, for a host without the limit)
 * is refused forks, fails, and leaves nothing running: no process holds the
 * lock every one of them took. The bomb itself never runs unsandboxed. */
static void test_limit_pids_bounds_a_fork_bomb(void **state) {
    NEED_MECHANISM();
    fx *f = *state;
    char lock[PATH_MAX];
    path_in(lock, f->project, "bomb.lock");
    left.background = true;
    const char *const *spawn = CMD(PROBE, "spawn", "400");
    const char *const *bomb = CMD(PROBE, "bomb", lock, "1500", "600");
    probe_policy(f);
    expect_unsandboxed_ok(f, spawn, &P);
    assert_contains(P.out, "spawned 400", "stdout");

    policy(f, "exec = { \"%s\" }, limits = { pids = 300 }", PROBE);
    expect_denied(f, spawn, -1, &P);
    assert_contains(P.out, "EAGAIN", "stdout");
    double t0 = now_seconds();
    lcsb(f, mech, bomb, &P);
    double took = now_seconds() - t0;
    long long forks = number_after(P.out, "forks="), refused = number_after(P.out, "refused=");
    if (P.status == 0 || P.status == 97 || P.status == 125)
        FAIL_RUN(mech, bomb, "the fork bomb under limits.pids = 300 did not fail (%d)", P.status);
    ASSERT_PROBE_RAN(mech, bomb);
    if (forks < 0 || refused <= 0)
        FAIL_RUN(mech, bomb, "the fork bomb was not refused a fork under limits.pids = 300");
    if (forks >= 400)
        FAIL_RUN(mech, bomb, "the fork bomb made %lld processes under limits.pids = 300", forks);
    if (took > 10) FAIL_RUN(mech, bomb, "the fork bomb took %.1f s to end", took);
    if (!lock_free(lock)) FAIL_RUN(mech, bomb, "processes of the fork bomb outlived lcsb");
}

/* `limits = { time = 2 }` on `sleep 30`: lcsb returns within about 3 s, the
 * command failed, and lcsb's trailer names the time limit. Unsandboxed,
 * `sleep 3` sleeps its 3 s and exits 0. */
static void test_limit_time(void **state) {
    NEED_MECHANISM();
    fx *f = *state;
    policy(f, "exec = { \"sleep\" }");
    double t0 = now_seconds();
    expect_unsandboxed_ok(f, CMD("sleep", "3"), &P);
    if (now_seconds() - t0 < 2.9) fail_msg("none: sleep 3 ended early: the case proves nothing");

    policy(f, "exec = { \"sleep\" }, limits = { time = 2 }");
    const char *const *cmd = CMD("sleep", "30");
    t0 = now_seconds();
    lcsb(f, mech, cmd, &P);
    double took = now_seconds() - t0;
    if (P.status == 0 || P.status == 97 || P.status == 125)
        FAIL_RUN(mech, cmd, "expected sleep 30 ended by limits.time = 2, got status %d", P.status);
    if (took > 4) FAIL_RUN(mech, cmd, "lcsb took %.1f s under limits.time = 2", took);
    if (!has_line(P.err, "lcsb: ", CMD("time", "limit")))
        FAIL_RUN(mech, cmd, "no lcsb: line names the time limit");
}

/* `limits = { tmp = 1048576 }`: 4 MiB written into $TMPDIR fails with
 * ENOSPC; unsandboxed it is written. */
static void test_limit_tmp(void **state) {
    NEED_MECHANISM();
    fx *f = *state;
    const char *const *cmd =
        CMD("sh", "-c", "head -c 4194304 /dev/zero > \"$TMPDIR/big\" && ls -l \"$TMPDIR/big\"");
    policy(f, "exec = { \"sh\", \"head\", \"ls\" }");
    expect_unsandboxed_ok(f, cmd, &P);
    assert_contains(P.out, "4194304", "stdout");
    policy(f, "exec = { \"sh\", \"head\", \"ls\" }, limits = { tmp = 1048576 }");
    expect_denied(f, cmd, -1, &P);
    assert_contains(P.err, "No space left on device", "stderr");
    /* The trailer names the limit the run hit. */
    if (!has_line(P.err, "lcsb: ", CMD("TMPDIR was full", "limits.tmp")))
        FAIL_RUN(mech, cmd, "no lcsb: line names the tmp limit");
}

/* `limits = { files = 16 }`: 64 files open at once fail with EMFILE;
 * unsandboxed they open. */
static void test_limit_files(void **state) {
    NEED_MECHANISM();
    fx *f = *state;
    const char *const *cmd = CMD(PROBE, "open", "64");
    probe_policy(f);
    expect_unsandboxed_ok(f, cmd, &P);
    assert_contains(P.out, "opened 64", "stdout");
    policy(f, "exec = { \"%s\" }, limits = { files = 16 }", PROBE);
    expect_denied(f, cmd, -1, &P);
    assert_contains(P.out, "EMFILE", "stdout");
}

/* `limits = { memory = 64 MiB }`: 256 MiB cannot be allocated and touched
 * by one process (malloc fails under RLIMIT_AS, or the kernel kills the
 * command); unsandboxed it can. A host without a memory cgroup lets the
 * memory part go, RLIMIT_AS still holding: what the cgroup holds besides
 * is test_sandbox_enforce_memory's. */
static void test_limit_memory(void **state) {
    NEED_MECHANISM();
    fx *f = *state;
    const char *const *cmd = CMD(PROBE, "alloc", "268435456");
    probe_policy(f);
    expect_unsandboxed_ok(f, cmd, &P);
    assert_contains(P.out, "touched 268435456", "stdout");
    policy(f, "exec = { \"%s\" }, degrade = { \"memory\" }, limits = { memory = 67108864 }", PROBE);
    expect_denied(f, cmd, -1, &P);
    ASSERT_PROBE_RAN(mech, cmd);
    assert_lacks(P.out, "touched", "stdout");
}

/* ---- a command that ignores SIGTERM ---- */

/* The command ignores TERM, INT, HUP and QUIT, and so does a child it leaves
 * looping. SIGTERM to lcsb: lcsb and every process of the command are gone
 * within the grace period and 2 s (no process holds lcsb's stdout any more).
 * The twin: under none, the command does ignore SIGTERM (alive 1 s after
 * one sent to it). */
static void test_term_ignored_killed_after_grace(void **state) {
    NEED_MECHANISM();
    fx *f = *state;
    char script[4 * PATH_MAX], stop[PATH_MAX];
    path_in(stop, f->project, "stop");
    FMT(script,
        "trap '' TERM INT HUP QUIT; "
        "sh -c 'trap \"\" TERM INT HUP QUIT; "
        "while [ -d \"$0\" ] && [ ! -e \"$0/stop\" ]; do sleep 1; done' '%s' & "
        "echo $$; while [ -d '%s' ] && [ ! -e '%s' ]; do sleep 1; done",
        f->project, f->project, stop);
    const char *const *cmd = CMD("sh", "-c", script);
    policy(f, "exec = { \"sh\", \"sleep\" }");
    left.background = true;

    int out;
    pid_t pid = start_lcsb(f, "none", cmd, &out);
    char line[64];
    if (!read_line(out, line, sizeof line)) fail_msg("none: the command did not start");
    pid_t command = (pid_t)atol(line);
    assert_true(command > 0);
    assert_int_equal(kill(command, SIGTERM), 0);
    sleep_ms(1000);
    if (kill(command, 0) != 0)
        fail_msg("none: the command died of SIGTERM: it does not ignore it; the case proves "
                 "nothing");
    write_file(stop, "");
    kill(command, SIGKILL);
    int wstatus;
    assert_int_equal(waitpid(pid, &wstatus, 0), pid);
    close(out);
    sleep_ms(1200); /* the child's loop sees the stop file */
    unlink(stop);

    pid = start_lcsb(f, mech, cmd, &out);
    if (!read_line(out, line, sizeof line)) {
        char *err = lcsb_err(f);
        fail_msg("%s: the command did not start; lcsb said:\n%s", mech, err);
    }
    sleep_ms(200); /* the child is running too */
    double sent = now_seconds();
    assert_int_equal(kill(pid, SIGTERM), 0);
    bool exited = false, closed = false;
    while (!(exited && closed) && now_seconds() - sent < GRACE_SECONDS + 2) {
        if (!exited && waitpid(pid, &wstatus, WNOHANG) == pid) exited = true;
        struct pollfd p = {.fd = out, .events = POLLIN};
        if (!closed && poll(&p, 1, 50) == 1) {
            char buf[256];
            closed = read(out, buf, sizeof buf) == 0;
        } else if (closed) {
            sleep_ms(50);
        }
    }
    double took = now_seconds() - sent;
    close(out);
    char *err = lcsb_err(f);
    if (!exited)
        fail_msg("%s: lcsb still running %.1f s after SIGTERM, its command ignoring it (the grace "
                 "is %d s); stderr:\n%s",
                 mech, took, GRACE_SECONDS, err);
    if (!closed)
        fail_msg("%s: lcsb exited, but processes of the command still run %.1f s after SIGTERM; "
                 "stderr:\n%s",
                 mech, took, err);
    if (WIFEXITED(wstatus) && WEXITSTATUS(wstatus) == 0)
        fail_msg("%s: lcsb exited 0 after SIGTERM; stderr:\n%s", mech, err);
    free(err);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        /* limits */
        TI(test_limit_pids_bounds_a_fork_bomb),
        TI(test_limit_time),
        TI(test_limit_tmp),
        TI(test_limit_files),
        TI(test_limit_memory),
        /* a command that ignores SIGTERM */
        TI(test_term_ignored_killed_after_grace),
    };
    return cmocka_run_group_tests_name("sandbox_enforce_limits", tests, enforce_group_setup, NULL);
}
