/* A policy script that never returns, stopped: by SIGINT, SIGTERM or SIGHUP
 * sent to lcsb (exit 128+N, a line naming the signal), or by its time budget
 * (LCSB_POLICY_TIMEOUT; exit 125, a line naming the budget and the
 * variable), whether it loops in Lua or waits for a command (os.execute,
 * io.popen). Either way the run leaves nothing behind: no private HOME or
 * TMPDIR (exec_policy names them; a script stopped before the command made
 * none), not the placeholder .git, not the command the script started.
 * The budget's twin: the same slow script with no budget (0) runs. The
 * script runs before any mechanism, so these need none: they run under
 * --backend none. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h> /* after the four above, which it needs */

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#include "enforce_fixture.h"

/* What the scripts print first: the private HOME and TMPDIR, and whether the
 * placeholder .git is there, each on a line of stdout. */
#define PRELUDE                                                                                    \
    "local lcsb = require \"lcsb\"\n"                                                              \
    "local result = lcsb.exec_policy { exec = { \"sh\" } }\n"                                      \
    "io.stdout:write(result.env.set.HOME, \"\\n\", result.env.set.TMPDIR, \"\\n\",\n"              \
    "  tostring(lcsb.kind(\".git\")), \"\\n\")\n"                                                  \
    "io.stdout:flush()\n"

/* How each script never returns; those that wait for a command print the
 * pid of the sleep it started first. */
static const struct endless {
    const char *what;
    const char *body;
    bool prints_pid;
} endless[] = {
    {"a Lua loop", "while true do end\n", false},
    {"a loop that swallows errors", "while true do pcall(function() while true do end end) end\n",
     false},
    /* A handler's hook reaches the main thread only: a coroutine gets its own. */
    {"a loop in a coroutine", "coroutine.wrap(function() while true do end end)()\n", false},
    {"os.execute", "os.execute(\"sleep 100 & echo $!; wait\")\nwhile true do end\n", true},
    {"io.popen",
     "local f = io.popen(\"sleep 100 & echo $!; wait\")\n"
     "io.stdout:write(f:read(\"l\"), \"\\n\")\n"
     "io.stdout:flush()\n"
     "f:read(\"a\")\n",
     true},
};
#define ENDLESS (sizeof endless / sizeof endless[0])

static void write_script(fx *f, const struct endless *e) {
    char text[2048];
    FMT(text, "%s%s", PRELUDE, e->body);
    raw_policy(f, text);
}

/* A run of lcsb in its own process group, stdout and stderr on pipes. */
typedef struct started {
    pid_t pid;
    int out, err;
    char home[PATH_MAX], tmp[PATH_MAX], git[32];
    pid_t sleep; /* the script's command, or 0 */
} started;

/* A signal lcsb is started ignoring, or 0. */
static int ignored_signal;
/* lcsb started with SIGALRM blocked, or with a timer of its caller's
 * running (ITIMER_REAL outlives execve): either way no SIGALRM of its own
 * tells it the budget ran out. */
static bool alarm_blocked, timer_running;

/* Start `lcsb --backend none p.lua -- true` in PROJECT with TMPDIR=T and
 * ENV (NAME=VALUE, may be NULL) on top, and read what the script prints
 * before it never returns. */
static void start(fx *f, const run_tmp *t, const char *env, const struct endless *e, started *s) {
    memset(s, 0, sizeof *s);
    const char *argv[] = {
        LCSB_CLI_PATH, "--no-trust-check", "--backend", "none", f->policy, "--", "true", NULL};
    int out[2], err[2];
    assert_int_equal(pipe2(out, O_CLOEXEC), 0);
    assert_int_equal(pipe2(err, O_CLOEXEC), 0);
    s->pid = fork();
    assert_true(s->pid >= 0);
    if (s->pid == 0) {
        setpgid(0, 0);
        int devnull = open("/dev/null", O_RDONLY);
        if (devnull < 0 || dup2(devnull, STDIN_FILENO) < 0 || dup2(out[1], STDOUT_FILENO) < 0 ||
            dup2(err[1], STDERR_FILENO) < 0 || chdir(f->project) != 0)
            _exit(120);
        setenv("PATH", "/usr/bin:/bin", 1);
        setenv("TMPDIR", t->dir, 1);
        unsetenv("LCSB_POLICY_TIMEOUT");
        if (env) putenv((char *)env);
        /* As a terminal starts it, whatever started the suite ignores (a
         * shell's background job ignores SIGINT and SIGQUIT); then the one
         * a case ignores on purpose. */
        const int stopping[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};
        for (size_t i = 0; i < sizeof stopping / sizeof stopping[0]; i++)
            signal(stopping[i], SIG_DFL);
        if (ignored_signal) signal(ignored_signal, SIG_IGN);
        sigset_t alarm;
        sigemptyset(&alarm);
        sigaddset(&alarm, SIGALRM);
        if (alarm_blocked) sigprocmask(SIG_BLOCK, &alarm, NULL);
        struct itimerval later = {{0, 0}, {60, 0}};
        if (timer_running) setitimer(ITIMER_REAL, &later, NULL);
        execv(argv[0], (char *const *)argv);
        _exit(122);
    }
    setpgid(s->pid, s->pid);
    close(out[1]);
    close(err[1]);
    s->out = out[0];
    s->err = err[0];
    char pid[32] = "";
    bool ready = read_line(s->out, s->home, sizeof s->home) &&
                 read_line(s->out, s->tmp, sizeof s->tmp) &&
                 read_line(s->out, s->git, sizeof s->git) &&
                 (!e->prints_pid || read_line(s->out, pid, sizeof pid));
    if (!ready) {
        kill(-s->pid, SIGKILL);
        waitpid(s->pid, NULL, 0);
        char said[4096];
        ssize_t n = read(s->err, said, sizeof said - 1);
        said[n > 0 ? n : 0] = '\0';
        fail_msg("%s: the script did not start; stderr:\n%s", e->what, said);
    }
    s->sleep = (pid_t)atol(pid);
    assert_true(s->home[0] == '/' && s->tmp[0] == '/');
    /* Named, not made: the run makes them only when the command starts
     * (on the host, or in the command's world). */
    assert_exists(s->home, false);
    assert_exists(s->tmp, false);
    if (e->prints_pid) assert_true(s->sleep > 0 && kill(s->sleep, 0) == 0);
}

/* Wait up to LIMIT seconds for S to end: its status as a shell reports it,
 * its stderr in ERRBUF; how long it took in *TOOK. Fails when it does not
 * end, or is killed instead of exiting. */
static int finish(started *s, double since, double limit, char *errbuf, size_t size, double *took,
                  const char *what) {
    int wstatus = 0;
    pid_t waited;
    while ((waited = waitpid(s->pid, &wstatus, WNOHANG)) == 0 && now_seconds() - since < limit)
        usleep(10000);
    *took = now_seconds() - since;
    size_t n = 0;
    if (waited == s->pid) {
        ssize_t got;
        while (n + 1 < size && (got = read(s->err, errbuf + n, size - 1 - n)) > 0) n += (size_t)got;
    }
    errbuf[n] = '\0';
    close(s->out);
    close(s->err);
    if (waited != s->pid) {
        kill(-s->pid, SIGKILL);
        waitpid(s->pid, NULL, 0);
        fail_msg("%s: lcsb still running %.1f s later", what, *took);
    }
    if (!WIFEXITED(wstatus))
        fail_msg("%s: lcsb was killed by signal %d instead of exiting; stderr:\n%s", what,
                 WTERMSIG(wstatus), errbuf);
    return WEXITSTATUS(wstatus);
}

/* What the run made is gone: the private directories, the placeholder .git
 * (when the script saw one), the script's command. */
static void assert_nothing_left(fx *f, const run_tmp *t, const started *s, const char *what) {
    assert_exists(s->home, false);
    assert_exists(s->tmp, false);
    assert_left_nothing(t->dir, what);
    char git[PATH_MAX];
    if (strcmp(s->git, "dir") == 0 && exists(path_in(git, f->project, ".git")))
        fail_msg("%s: the placeholder %s is still there", what, git);
    bool gone = true;
    if (s->sleep > 0) {
        gone = false;
        for (int k = 0; k < 200 && !gone; k++) {
            gone = kill(s->sleep, 0) != 0 && errno == ESRCH;
            if (!gone) usleep(10000);
        }
        if (!gone) kill(s->sleep, SIGKILL);
    }
    kill(-s->pid, SIGKILL); /* anything else of the group, after the checks */
    if (!gone) fail_msg("%s: the script's command (pid %d) outlived lcsb", what, (int)s->sleep);
}

static const struct {
    int sig;
    const char *name;
} stops[] = {{SIGINT, "SIGINT"}, {SIGTERM, "SIGTERM"}, {SIGHUP, "SIGHUP"}};

/* Each signal sent to lcsb alone, to each script; then SIGINT to the whole
 * process group, as a terminal's ^C would. */
static void test_signal_stops_the_script(void **state) {
    fx *f = *state;
    run_tmp t;
    make_run_tmp(f, &t);
    size_t runs = ENDLESS * (sizeof stops / sizeof stops[0]);
    for (size_t run = 0; run < runs + ENDLESS; run++) {
        const struct endless *e = &endless[run % ENDLESS];
        bool group = run >= runs;
        int sig = group ? SIGINT : stops[run / ENDLESS].sig;
        const char *name = group ? "SIGINT" : stops[run / ENDLESS].name;
        char what[128], errbuf[8192], said[64];
        FMT(what, "%s, %s to %s", e->what, name, group ? "the process group" : "lcsb");
        write_script(f, e);
        started s;
        start(f, &t, NULL, e, &s);
        double sent = now_seconds();
        assert_int_equal(kill(group ? -s.pid : s.pid, sig), 0);
        double took;
        int status = finish(&s, sent, 10, errbuf, sizeof errbuf, &took, what);
        if (status != 128 + sig)
            fail_msg("%s: exit %d, expected %d; stderr:\n%s", what, status, 128 + sig, errbuf);
        if (took > 5) fail_msg("%s: lcsb took %.1f s to stop", what, took);
        FMT(said, "the policy script was interrupted (%s)", name);
        if (!has_line(errbuf, "lcsb: ", CMD("p.lua", said)))
            fail_msg("%s: no line saying so:\n%s", what, errbuf);
        assert_nothing_left(f, &t, &s, what);
    }
}

/* Started ignoring SIGHUP (nohup), lcsb goes on ignoring it: the script
 * waits out its command and the run succeeds. */
static void test_ignored_signal_stays_ignored(void **state) {
    fx *f = *state;
    run_tmp t;
    make_run_tmp(f, &t);
    static const struct endless slow = {"a script under nohup",
                                        "os.execute(\"sleep 1\")\nreturn result\n", false};
    write_script(f, &slow);
    ignored_signal = SIGHUP;
    started s;
    start(f, &t, NULL, &slow, &s);
    ignored_signal = 0;
    double sent = now_seconds();
    assert_int_equal(kill(s.pid, SIGHUP), 0);
    char errbuf[8192];
    double took;
    int status = finish(&s, sent, 10, errbuf, sizeof errbuf, &took, slow.what);
    kill(-s.pid, SIGKILL);
    if (status != 0) fail_msg("%s: exit %d after SIGHUP; stderr:\n%s", slow.what, status, errbuf);
    assert_lacks(errbuf, "interrupted", "stderr");
    assert_left_nothing(t.dir, slow.what);
}

/* LCSB_POLICY_TIMEOUT=1: each script is stopped a second in, 125. */
static void test_time_budget_stops_the_script(void **state) {
    fx *f = *state;
    run_tmp t;
    make_run_tmp(f, &t);
    for (size_t i = 0; i < ENDLESS; i++) {
        const struct endless *e = &endless[i];
        char errbuf[8192];
        write_script(f, e);
        double begun = now_seconds();
        started s;
        start(f, &t, "LCSB_POLICY_TIMEOUT=1", e, &s);
        double took;
        int status = finish(&s, begun, 10, errbuf, sizeof errbuf, &took, e->what);
        if (status != 125)
            fail_msg("%s: exit %d, expected 125; stderr:\n%s", e->what, status, errbuf);
        if (took < 0.9 || took > 5)
            fail_msg("%s: stopped after %.1f s, with a budget of 1 s", e->what, took);
        if (!has_line(errbuf,
                      "lcsb: ", CMD("p.lua", "time budget of 1 s", "LCSB_POLICY_TIMEOUT=SECONDS")))
            fail_msg("%s: no line naming the budget and how to raise it:\n%s", e->what, errbuf);
        assert_nothing_left(f, &t, &s, e->what);
    }
}

/* Without a SIGALRM of lcsb's own (blocked, or a timer of the caller's
 * running), a script looping in Lua is still stopped a second in: the
 * hook asks the clock. Its twin is the test above, with the timer lcsb's. */
static void test_time_budget_without_the_timer(void **state) {
    fx *f = *state;
    run_tmp t;
    make_run_tmp(f, &t);
    for (size_t i = 0; i < 6; i++) {
        const struct endless *e = &endless[i % 3]; /* the Lua loops */
        alarm_blocked = i < 3;
        timer_running = i >= 3;
        char what[128], errbuf[8192];
        FMT(what, "%s, %s", e->what, alarm_blocked ? "SIGALRM blocked" : "a timer running");
        write_script(f, e);
        double begun = now_seconds();
        started s;
        start(f, &t, "LCSB_POLICY_TIMEOUT=1", e, &s);
        alarm_blocked = timer_running = false;
        double took;
        int status = finish(&s, begun, 10, errbuf, sizeof errbuf, &took, what);
        if (status != 125) fail_msg("%s: exit %d, expected 125; stderr:\n%s", what, status, errbuf);
        if (took < 0.9 || took > 5)
            fail_msg("%s: stopped after %.1f s, with a budget of 1 s", what, took);
        assert_nothing_left(f, &t, &s, what);
    }
}

/* A script that takes 1.5 s: past a budget of 1 s, within the default one,
 * and run to the end without a budget (0). A value that is no number of
 * seconds is refused before the script runs. */
static void test_time_budget_is_the_variable(void **state) {
    fx *f = *state;
    raw_policy(f, "local lcsb = require \"lcsb\"\n"
                  "os.execute(\"sleep 1.5\")\n"
                  "return lcsb.exec_policy { exec = { \"sh\" } }\n");
    static const struct {
        const char *env;
        int want;
    } cases[] = {{"LCSB_POLICY_TIMEOUT=1", 125},
                 {"LCSB_POLICY_TIMEOUT=", 0},
                 {"LCSB_POLICY_TIMEOUT=0", 0},
                 {"LCSB_POLICY_TIMEOUT=2.5", 0},
                 {"LCSB_POLICY_TIMEOUT=soon", 125}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        lcsb_env(f, "none", CMD("true"), ENV(cases[i].env), &P);
        if (P.status != cases[i].want)
            fail_msg("%s: exit %d, expected %d; stderr:\n%s", cases[i].env, P.status, cases[i].want,
                     P.err);
    }
    assert_contains(P.err, "LCSB_POLICY_TIMEOUT='soon'", "stderr");
}

int main(void) {
    const struct CMUnitTest tests[] = {
        T(test_signal_stops_the_script),      T(test_ignored_signal_stays_ignored),
        T(test_time_budget_stops_the_script), T(test_time_budget_without_the_timer),
        T(test_time_budget_is_the_variable),
    };
    return cmocka_run_group_tests_name("sandbox_enforce_stop", tests, enforce_group_setup, NULL);
}
