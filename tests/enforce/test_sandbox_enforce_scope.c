/* Beyond the file system: Landlock scopes, many runs, cleanup, devices and
 * terminals.
 *
 * The cases here reach past paths: what the command may do to processes and
 * sockets outside its domain, what lcsb leaves behind when many runs share a
 * TMPDIR or when the command makes its private directories hard to remove,
 * and what becomes of what the command leaves running, of device nodes and of
 * other terminals. What the CLI does when the kernel refuses the calls the
 * sandbox needs is in test_sandbox_enforce_faults.c. They keep to the rule of
 * the enforcement suites: every refusal has a twin that succeeds. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h> /* after the four above, which it needs */

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/capability.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "enforce_fixture.h"

/* python3 is one of lcsb's declared dependencies (scripts/deps.sh): without it
 * the host is not set up to run this suite, which is a failure, not a skip. */
static void need_python(void) {
    if (access(PYTHON, X_OK) != 0) fail_msg("%s is missing: %s", PYTHON, strerror(errno));
}

/* 16 random hex digits. */
static void random_hex(char buf[17]) {
    unsigned char bytes[8];
    assert_int_equal(getrandom(bytes, sizeof bytes, 0), (ssize_t)sizeof bytes);
    for (size_t i = 0; i < sizeof bytes; i++) snprintf(buf + 2 * i, 3, "%02x", bytes[i]);
}

/* ---- processes and sockets outside the sandbox ---- */

/* A process outside the sandbox: a child of the test, which neither lcsb nor
 * its command descends from. teardown_outside kills it; should the test
 * process die first, the kernel does (PR_SET_PDEATHSIG). */
static pid_t outside_pid;
/* Written by the outside process alone, after the fork: in the test process
 * it stays empty, so reading it from the outside process's memory can only
 * have read that process. */
static char outside_token[64];

static pid_t start_outside_process(void) {
    int ready[2];
    assert_int_equal(pipe2(ready, O_CLOEXEC), 0);
    pid_t parent = getpid();
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        sigset_t none;
        sigemptyset(&none);
        sigprocmask(SIG_SETMASK, &none, NULL);
        signal(SIGTERM, SIG_DFL);
        if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) != 0 || getppid() != parent) _exit(1);
        /* Under Yama's ptrace_scope 1 only an ancestor may attach; this lets
         * any process of the same user, as the unsandboxed twin needs. Without
         * Yama the call fails (EINVAL) and nothing stood in the way anyway. */
        prctl(PR_SET_PTRACER, PR_SET_PTRACER_ANY, 0, 0, 0);
        snprintf(outside_token, sizeof outside_token, "token-of-%d", (int)getpid());
        /* A tracer must hold every capability its target holds, and the shim
         * leaves root none: with this process's dropped too, as root as for
         * anyone else the one thing left to refuse the landlock run is
         * Landlock. */
        if (geteuid() == 0) {
            struct __user_cap_header_struct hdr = {.version = _LINUX_CAPABILITY_VERSION_3};
            struct __user_cap_data_struct caps[2];
            memset(caps, 0, sizeof caps);
            if (syscall(SYS_capset, &hdr, caps) != 0) _exit(1);
        }
        close(ready[0]);
        if (write(ready[1], "r", 1) != 1) _exit(1);
        close(ready[1]);
        for (;;) pause();
    }
    outside_pid = pid;
    close(ready[1]);
    char c;
    ssize_t got;
    while ((got = read(ready[0], &c, 1)) < 0 && errno == EINTR) continue;
    close(ready[0]);
    if (got != 1) fail_msg("the outside process did not start");
    return pid;
}

/* Still running a moment later: neither exited nor killed (a zombie counts
 * as dead). The moment lets a signal that did get through take effect. */
static bool outside_alive(pid_t pid) {
    int wstatus;
    usleep(50000);
    pid_t r = waitpid(pid, &wstatus, WNOHANG);
    if (r == pid) outside_pid = 0;
    return r == 0;
}

/* Wait up to TIMEOUT_SECONDS for the outside process to end; its wait status. */
static int outside_wait(pid_t pid) {
    int wstatus;
    double deadline = now_seconds() + TIMEOUT_SECONDS;
    pid_t r;
    while ((r = waitpid(pid, &wstatus, WNOHANG)) == 0 && now_seconds() < deadline) usleep(10000);
    if (r != pid) fail_msg("the outside process %d is still running", (int)pid);
    outside_pid = 0;
    return wstatus;
}

static int teardown_outside(void **state) {
    if (outside_pid > 0) {
        kill(outside_pid, SIGKILL);
        waitpid(outside_pid, NULL, 0);
        outside_pid = 0;
    }
    return fx_teardown(state);
}

static const char unix_connect_py[] = "import socket, sys\n"
                                      "s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)\n"
                                      "s.connect(b'\\0' + sys.argv[1].encode())\n"
                                      "s.sendall(sys.argv[2].encode())\n"
                                      "print('sent')\n";

/* A listening stream socket, non-blocking, at abstract address NAME. */
static int abstract_listener(const char *name) {
    struct sockaddr_un a = {.sun_family = AF_UNIX};
    size_t n = strlen(name);
    assert_true(n + 1 < sizeof a.sun_path);
    memcpy(a.sun_path + 1, name, n); /* sun_path[0] stays '\0': abstract */
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    assert_true(fd >= 0);
    socklen_t len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + n);
    if (bind(fd, (struct sockaddr *)&a, len) != 0) fail_msg("bind @%s: %s", name, strerror(errno));
    assert_int_equal(listen(fd, 4), 0);
    return fd;
}

/* What the one connection queued on listening socket FD sent before it
 * closed, or "" when no connection is queued. */
static void take_message(int fd, char *buf, size_t size) {
    buf[0] = '\0';
    int c = accept4(fd, NULL, NULL, SOCK_CLOEXEC); /* blocking, unlike FD */
    if (c < 0) {
        assert_int_equal(errno, EAGAIN);
        return;
    }
    size_t n = 0;
    ssize_t got;
    while (n + 1 < size && (got = read(c, buf + n, size - 1 - n)) != 0) {
        if (got < 0 && errno == EINTR) continue;
        assert_true(got > 0);
        n += (size_t)got;
    }
    buf[n] = '\0';
    close(c);
}

/* LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET (ABI 6): an abstract socket is no path,
 * so no file rule covers it; the scope refuses a connection to one made
 * outside the domain. The shim's socket filter lets AF_UNIX sockets be
 * created, so the refusal is the connect's, EPERM. */
static void test_abstract_unix_socket_outside(void **state) {
    NEED_LANDLOCK();
    need_python();
    fx *f = *state;
    char hex[17], name[64], token[64], got[256];
    random_hex(hex);
    FMT(name, "lcsb-enf-%s", hex);
    random_hex(hex);
    FMT(token, "token-%s", hex);
    int rx = abstract_listener(name);
    policy(f, "exec = { \"%s\" }", PYTHON);
    const char *const *cmd = CMD(PYTHON, "-c", unix_connect_py, name, token);

    expect_denied(f, cmd, 1, &P);
    assert_contains(P.err, "PermissionError: [Errno 1] Operation not permitted", "stderr");
    assert_lacks(P.out, "sent", "stdout");
    take_message(rx, got, sizeof got);
    if (got[0]) fail_msg("the listener outside received \"%s\" from the landlock run", got);

    expect_unsandboxed_ok(f, cmd, &P);
    assert_contains(P.out, "sent", "stdout");
    take_message(rx, got, sizeof got);
    assert_string_equal(got, token);
    close(rx);
}

/* No signal to a process outside the sandbox, even one of the same user: in
 * a pid namespace of its own the command cannot name it (and
 * LANDLOCK_SCOPE_SIGNAL would refuse it if it could). Inside, signals work. */
static void test_signal_outside(void **state) {
    NEED_LANDLOCK();
    fx *f = *state;
    pid_t target = start_outside_process();
    char script[64];
    FMT(script, "kill -TERM %d", (int)target);
    policy(f, "exec = { \"sh\", \"sleep\" }");
    const char *const *cmd = CMD("sh", "-c", script);

    expect_denied(f, cmd, 1, &P);
    assert_contains(P.err, "kill: No such process", "stderr");
    if (!outside_alive(target)) fail_msg("the outside process died of the landlock run's kill");

    expect_unsandboxed_ok(f, cmd, &P);
    int wstatus = outside_wait(target);
    if (!WIFSIGNALED(wstatus) || WTERMSIG(wstatus) != SIGTERM)
        fail_msg("the outside process ended with wait status %#x, not by SIGTERM", wstatus);

    /* Within the domain: the command's own child. */
    expect_allowed(f, CMD("sh", "-c", "sleep 30 & kill -TERM $!; wait $!; echo $?"), &P);
    assert_string_equal(P.out, "143\n");
}

/* Seize the process ARGV[1] and read ARGV[3] bytes at ARGV[2] (hex) from its
 * memory; print how each went; exit 0 when both did. */
static const char ptrace_py[] =
    "import ctypes, os, sys\n"
    "libc = ctypes.CDLL(None, use_errno=True)\n"
    "pid, addr, n = int(sys.argv[1]), int(sys.argv[2], 16), int(sys.argv[3])\n"
    "class iovec(ctypes.Structure):\n"
    "    _fields_ = [('base', ctypes.c_void_p), ('len', ctypes.c_size_t)]\n"
    "libc.ptrace.restype = ctypes.c_long\n"
    "libc.ptrace.argtypes = [ctypes.c_long, ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p]\n"
    "libc.process_vm_readv.restype = ctypes.c_ssize_t\n"
    "PTRACE_SEIZE = 0x4206\n"
    "seized = libc.ptrace(PTRACE_SEIZE, pid, None, None) == 0\n"
    "print('seize:', 'OK' if seized else os.strerror(ctypes.get_errno()))\n"
    "buf = ctypes.create_string_buffer(n)\n"
    "local, remote = iovec(ctypes.addressof(buf), n), iovec(addr, n)\n"
    "got = libc.process_vm_readv(pid, ctypes.byref(local), 1, ctypes.byref(remote), 1, 0)\n"
    "print('read:', buf.raw.decode() if got == n else os.strerror(ctypes.get_errno()))\n"
    "sys.exit(0 if seized and got == n else 1)\n";

/* Landlock refuses ptrace of any process outside the domain, whatever the
 * mode: PTRACE_SEIZE, and process_vm_readv's read of the memory. Unsandboxed
 * both work: the target allows any tracer (Yama) and, as root, holds no
 * capability the tracer lacks. When the tracer exits the kernel detaches it,
 * so the target runs on either way. */
static void test_ptrace_outside(void **state) {
    NEED_LANDLOCK();
    need_python();
    fx *f = *state;
    pid_t target = start_outside_process();
    char pid_s[16], addr_s[32], len_s[16], token[64], line[80];
    FMT(token, "token-of-%d", (int)target);
    FMT(pid_s, "%d", (int)target);
    FMT(addr_s, "%lx", (unsigned long)(uintptr_t)outside_token);
    FMT(len_s, "%zu", strlen(token));
    FMT(line, "read: %s\n", token);
    policy(f, "exec = { \"%s\" }", PYTHON);
    const char *const *cmd = CMD(PYTHON, "-c", ptrace_py, pid_s, addr_s, len_s);

    expect_denied(f, cmd, 1, &P);
    /* Outside its pid namespace, the target does not exist for it. */
    assert_contains(P.out, "seize: No such process\n", "stdout");
    assert_contains(P.out, "read: No such process\n", "stdout");
    assert_lacks(P.out, token, "stdout");
    if (!outside_alive(target)) fail_msg("the outside process died of the landlock run");

    expect_unsandboxed_ok(f, cmd, &P);
    assert_contains(P.out, "seize: OK\n", "stdout");
    assert_contains(P.out, line, "stdout");
    if (!outside_alive(target)) fail_msg("the outside process died of the unsandboxed run");
}

/* Things outside that no run may touch, and their check. */
static void plant_sentinels(fx *f) {
    char path[PATH_MAX];
    write_file(path_in(path, f->outside, "keep"), "keep\n");
    assert_int_equal(chmod(path, 0644), 0);
    assert_int_equal(mkdir(path_in(path, f->outside, "keep-dir"), 0755), 0);
    write_file(path_in(path, f->outside, "keep-dir/f"), "keep\n");
}

static void assert_sentinels(fx *f) {
    char path[PATH_MAX];
    struct stat st;
    assert_content(path_in(path, f->outside, "keep"), "keep\n");
    assert_int_equal(lstat(path, &st), 0);
    assert_int_equal(st.st_mode & 07777, 0644);
    assert_content(path_in(path, f->outside, "keep-dir/f"), "keep\n");
    assert_int_equal(lstat(path_in(path, f->outside, "keep-dir"), &st), 0);
    assert_int_equal(st.st_mode & 07777, 0755);
}

#define CONCURRENT_RUNS 200

static int compare_strings(const void *a, const void *b) {
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* CONCURRENT_RUNS runs of lcsb from the project with TMPDIR, forked into
 * PIDS and let go at once, each one's stdout and stderr in RUNS/N.out and
 * RUNS/N.err. */
static void start_at_once(fx *f, const char *tmpdir, const char *runs, pid_t pids[]) {
    const char *argv[] = {
        LCSB_CLI_PATH,
        "--no-trust-check",
        "--backend",
        "landlock",
        f->policy,
        "--",
        "sh",
        "-c",
        "echo \"$HOME\"; echo \"$TMPDIR\"; test ! -e \"$HOME/x\" && test ! -e \"$TMPDIR/y\" && "
        "touch \"$HOME/x\" \"$TMPDIR/y\"",
        NULL};
    /* Every child waits at the gate until the last one is forked. */
    int gate[2];
    assert_int_equal(pipe2(gate, O_CLOEXEC), 0);
    for (int i = 0; i < CONCURRENT_RUNS; i++) {
        char out[PATH_MAX + 16], err[PATH_MAX + 16];
        FMT(out, "%s/%d.out", runs, i);
        FMT(err, "%s/%d.err", runs, i);
        pids[i] = fork();
        if (pids[i] < 0) {
            for (int k = 0; k < i; k++) kill(-pids[k], SIGKILL);
            fail_msg("fork: %s", strerror(errno));
        }
        if (pids[i] == 0) {
            setpgid(0, 0);
            close(gate[1]);
            char c;
            while (read(gate[0], &c, 1) < 0 && errno == EINTR) continue; /* EOF: go */
            int in = open("/dev/null", O_RDONLY);
            int o = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0600);
            int e = open(err, O_WRONLY | O_CREAT | O_TRUNC, 0600);
            if (in < 0 || o < 0 || e < 0 || dup2(in, 0) < 0 || dup2(o, 1) < 0 || dup2(e, 2) < 0 ||
                chdir(f->project) != 0)
                _exit(120);
            setenv("PATH", "/usr/bin:/bin", 1);
            setenv("TMPDIR", tmpdir, 1);
            execv(argv[0], (char *const *)argv);
            _exit(122);
        }
        setpgid(pids[i], pids[i]);
    }
    close(gate[0]);
    close(gate[1]);
}

/* Each of PIDS reaped, its exit in STATUS, within 3 * TIMEOUT_SECONDS. */
static void wait_all(const pid_t pids[], int status[]) {
    bool done[CONCURRENT_RUNS] = {false};
    int left = CONCURRENT_RUNS;
    double deadline = now_seconds() + 3 * TIMEOUT_SECONDS;
    while (left > 0 && now_seconds() < deadline) {
        for (int i = 0; i < CONCURRENT_RUNS; i++) {
            int wstatus;
            if (done[i] || waitpid(pids[i], &wstatus, WNOHANG) != pids[i]) continue;
            done[i] = true;
            left--;
            kill(-pids[i], SIGKILL); /* whatever it left in its group */
            status[i] = WIFEXITED(wstatus) ? WEXITSTATUS(wstatus) : 128 + WTERMSIG(wstatus);
        }
        if (left > 0) usleep(5000);
    }
    if (left > 0) {
        for (int i = 0; i < CONCURRENT_RUNS; i++) {
            if (done[i]) continue;
            kill(-pids[i], SIGKILL);
            waitpid(pids[i], NULL, 0);
        }
        fail_msg("%d of %d runs still running after %d s", left, CONCURRENT_RUNS,
                 3 * TIMEOUT_SECONDS);
    }
}

/* Every run succeeded, with a HOME and a TMPDIR in REAL_TMP that no other run
 * wrote in (each found them empty). In a world of its own they are made
 * inside it, and a run may be given the names a run before had (a guess,
 * lcsb_runner_start) while no other run holds them: names repeat there
 * only when IN_WORLD. */
static void assert_dirs_their_own(const char *runs, const char *real_tmp, const int status[],
                                  bool in_world) {
    char *dirs[2 * CONCURRENT_RUNS];
    char home_prefix[PATH_MAX + 16], tmp_prefix[PATH_MAX + 16];
    FMT(home_prefix, "%s/lcsb-home.", real_tmp);
    FMT(tmp_prefix, "%s/lcsb-tmp.", real_tmp);
    for (int i = 0; i < CONCURRENT_RUNS; i++) {
        char path[PATH_MAX + 16];
        FMT(path, "%s/%d.out", runs, i);
        char *out = slurp(path);
        FMT(path, "%s/%d.err", runs, i);
        char *err = slurp(path);
        assert_non_null(out);
        assert_non_null(err);
        if (status[i] != 0) fail_msg("run %d exited %d; stderr:\n%s", i, status[i], err);
        char *nl = strchr(out, '\n');
        if (!nl || strchr(nl + 1, '\n') == NULL || strchr(nl + 1, '\n')[1] != '\0')
            fail_msg("run %d printed not two lines:\n%s", i, out);
        *nl = '\0';
        *strchr(nl + 1, '\n') = '\0';
        if (strncmp(out, home_prefix, strlen(home_prefix)) != 0)
            fail_msg("run %d: HOME %s is not in %s", i, out, real_tmp);
        if (strncmp(nl + 1, tmp_prefix, strlen(tmp_prefix)) != 0)
            fail_msg("run %d: TMPDIR %s is not in %s", i, nl + 1, real_tmp);
        dirs[2 * i] = strdup(out);
        dirs[2 * i + 1] = strdup(nl + 1);
        assert_non_null(dirs[2 * i]);
        assert_non_null(dirs[2 * i + 1]);
        free(out);
        free(err);
    }
    qsort(dirs, 2 * CONCURRENT_RUNS, sizeof dirs[0], compare_strings);
    for (int i = 1; !in_world && i < 2 * CONCURRENT_RUNS; i++)
        if (strcmp(dirs[i - 1], dirs[i]) == 0) fail_msg("two runs were both given %s", dirs[i]);
    for (int i = 0; i < 2 * CONCURRENT_RUNS; i++) free(dirs[i]);
}

/* Two hundred runs started at the same instant, all with one TMPDIR and one
 * project that is no repository: each gets its own HOME and TMPDIR, all
 * succeed, and nothing is left afterwards, the .git they all held included. */
static void test_concurrent_runs(void **state) {
    NEED_LANDLOCK();
    fx *f = *state;
    run_tmp t;
    make_run_tmp(f, &t);
    char real_tmp[PATH_MAX], runs[PATH_MAX];
    assert_non_null(realpath(t.dir, real_tmp));
    assert_int_equal(mkdir(path_in(runs, f->outside, "runs"), 0700), 0);
    fs_policy(f);
    pid_t pids[CONCURRENT_RUNS];
    start_at_once(f, t.dir, runs, pids);
    int status[CONCURRENT_RUNS];
    wait_all(pids, status);
    assert_dirs_their_own(runs, real_tmp, status, true);
    assert_left_nothing(t.dir, "after the concurrent runs");
    /* They shared the project's placeholder .git; the last one removed it. */
    char git[PATH_MAX];
    assert_exists(path_in(git, f->project, ".git"), false);
}

/* The command leaves its HOME hard to remove: a tree of directories with
 * files in them, every directory mode 000, HOME itself and its TMPDIR
 * included. lcsb removes all of it, and nothing else. */
static void test_cleanup_mode_000(void **state) {
    NEED_LANDLOCK();
    fx *f = *state;
    run_tmp t;
    make_run_tmp(f, &t);
    plant_sentinels(f);
    policy(f, "exec = { \"sh\", \"mkdir\", \"chmod\", \"stat\" }");
    /* Inner directories first: once a directory is 000 an ordinary user
     * cannot reach into it. stat shows the modes the cleanup faces. */
    const char *const *cmd =
        CMD("sh", "-c",
            "echo \"$HOME\"; cd \"$HOME\" && mkdir -p a/b/c d && echo x > a/b/c/f && "
            "echo y > a/b/f && echo z > a/f && echo w > d/f && chmod 000 a/b/c a/b a d && "
            "stat -c %a a d && echo v > \"$TMPDIR/f\" && chmod 000 \"$HOME\" \"$TMPDIR\" && "
            "stat -c %a \"$HOME\" \"$TMPDIR\"");
    const char *const backends[] = {mech, "none"};
    for (size_t i = 0; i < 2; i++) {
        lcsb_env(f, backends[i], cmd, ENV(t.env), &P);
        if (P.status != 0) {
            describe(backends[i], cmd, &P);
            fail_msg("the mode-000 run failed under %s", backends[i]);
        }
        char home[PATH_MAX];
        first_line(P.out, home, sizeof home);
        assert_true(home[0] == '/');
        assert_contains(P.out, "\n0\n0\n0\n0\n", "stdout (the modes)");
        assert_exists(home, false);
        assert_left_nothing(t.dir, backends[i]);
        assert_sentinels(f);
    }
}

#define DEEP_TREE 300

/* 300 nested directories in the private TMPDIR, a file at the bottom: all of
 * it goes, and nothing else. */
static void test_cleanup_deep_tree(void **state) {
    NEED_LANDLOCK();
    fx *f = *state;
    run_tmp t;
    make_run_tmp(f, &t);
    plant_sentinels(f);
    policy(f, "exec = { \"sh\", \"mkdir\" }");
    char script[512];
    FMT(script,
        "echo \"$HOME\"; cd \"$TMPDIR\" && i=0 && while [ $i -lt %d ]; do "
        "mkdir d && cd d || exit 1; i=$((i+1)); done && echo deep > f && echo made",
        DEEP_TREE);
    const char *const *cmd = CMD("sh", "-c", script);
    const char *const backends[] = {mech, "none"};
    for (size_t i = 0; i < 2; i++) {
        lcsb_env(f, backends[i], cmd, ENV(t.env), &P);
        if (P.status != 0) {
            describe(backends[i], cmd, &P);
            fail_msg("the deep-tree run failed under %s", backends[i]);
        }
        assert_contains(P.out, "\nmade\n", "stdout");
        char home[PATH_MAX];
        first_line(P.out, home, sizeof home);
        assert_true(home[0] == '/');
        assert_exists(home, false);
        assert_left_nothing(t.dir, backends[i]);
        assert_sentinels(f);
    }
}

/* ---- devices and terminals ---- */

/* Whatever the command leaves running (in the background, in a new session)
 * is ended when the command exits: its init is pid 1 of a pid namespace of
 * its own, and the kernel ends the namespace with it. The twin: the same
 * command run directly leaves its processes alive. The leftovers' own pids
 * are their namespace's, so they are found by what they run: sleep with an
 * argument no other process has. */
static bool alive(pid_t pid) {
    char path[64], state[512];
    FMT(path, "/proc/%d/stat", (int)pid);
    FILE *f = fopen(path, "re");
    if (!f) return false;
    bool running = fgets(state, sizeof state, f) && !strstr(state, ") Z ");
    fclose(f);
    return running;
}

static pid_t sleeping(const char *seconds) {
    DIR *dir = opendir("/proc");
    struct dirent *d;
    pid_t found = 0;
    while (dir && !found && (d = readdir(dir)) != NULL) {
        char path[64], cmdline[64];
        pid_t pid = (pid_t)atoi(d->d_name);
        if (pid <= 0) continue;
        FMT(path, "/proc/%d/cmdline", (int)pid);
        FILE *f = fopen(path, "re");
        if (!f) continue;
        size_t n = fread(cmdline, 1, sizeof cmdline - 1, f);
        fclose(f);
        cmdline[n] = '\0';
        if (strcmp(cmdline, "sleep") == 0 && n > 6 && strcmp(cmdline + 6, seconds) == 0)
            found = pid;
    }
    if (dir) closedir(dir);
    return found;
}

static void test_leftovers_ended(void **state) {
    NEED_LANDLOCK();
    fx *f = *state;
    policy(f, "exec = { \"sh\", \"sleep\", \"setsid\", \"wc\" }");
    /* Each in a session of its own, out of reach of the test's group kill:
     * a child, a grandchild, and one whose parent is gone. Each notes that
     * it has left the session, and the command waits for all three. */
    char leftover[PATH_MAX], pids_file[PATH_MAX], script[512], seconds[3][32];
    write_file(path_in(leftover, f->project, "leftover.sh"),
               "echo $$ >> pids; exec sleep \"$1\" </dev/null >/dev/null 2>&1\n");
    path_in(pids_file, f->project, "pids");
    for (int k = 0; k < 3; k++) FMT(seconds[k], "%d.%d", 30 + k, (int)getpid());
    FMT(script,
        "setsid sh leftover.sh %s & "
        "sh -c 'setsid sh leftover.sh %s &'; "
        "(setsid sh leftover.sh %s &); "
        "while [ \"$(wc -l < pids 2>/dev/null)\" != 3 ]; do sleep 0.01; done",
        seconds[0], seconds[1], seconds[2]);
    static const char *const backends[] = {"landlock", "none", NULL};
    for (size_t i = 0; i < 3; i++) {
        unlink(pids_file);
        if (backends[i])
            lcsb(f, backends[i], CMD("sh", "-c", script), &P);
        else
            run_child(f->project, CMD("/bin/sh", "-c", script), NULL, &P);
        assert_int_equal(P.status, 0);
        for (int k = 0; k < 3; k++) {
            pid_t pid = sleeping(seconds[k]);
            /* A killed one may linger a moment before the kernel reaps it. */
            for (int wait = 0; backends[i] && pid && wait < 100; wait++) {
                usleep(10000);
                pid = sleeping(seconds[k]);
            }
            if (!backends[i] && pid) kill(pid, SIGKILL);
            if (backends[i] && pid) fail_msg("%s: leftover %d outlived lcsb", backends[i], pid);
            if (!backends[i] && !pid) fail_msg("leftover %s died unsandboxed too", seconds[k]);
        }
    }
    /* Children lcsb already had when its caller exec'd it are not the
     * command's: they live on. */
    char caller[3 * PATH_MAX];
    FMT(caller,
        "setsid sleep 33 </dev/null >/dev/null 2>&1 & echo $! > caller-child; "
        "exec '%s' --no-trust-check --backend landlock '%s' -- sh -c 'setsid sleep 34 "
        ">/dev/null 2>&1 &'",
        LCSB_CLI_PATH, f->policy);
    run_child(f->project, CMD("/bin/sh", "-c", caller), NULL, &P);
    assert_int_equal(P.status, 0);
    char spared_file[PATH_MAX];
    FILE *c = fopen(path_in(spared_file, f->project, "caller-child"), "re");
    assert_non_null(c);
    int spared = 0;
    assert_int_equal(fscanf(c, "%d", &spared), 1);
    fclose(c);
    bool lives = alive(spared);
    kill(spared, SIGKILL);
    if (!lives) fail_msg("lcsb killed its caller's child %d", spared);
}

/* The write tier grants no make_char or make_block: as root a command could
 * otherwise mknod the host's kmsg or a disk inside the project and use it.
 * Landlock refuses with EACCES before the kernel's CAP_MKNOD check (EPERM). As
 * root the same mknod works unsandboxed. As an ordinary user it cannot work
 * unsandboxed at all (EPERM), so there is no succeeding twin: the twin shows
 * the different errno instead, which proves the EACCES was Landlock's. */
static void test_mknod_refused(void **state) {
    NEED_LANDLOCK();
    fx *f = *state;
    bool root = geteuid() == 0;
    char node[PATH_MAX], fifo[PATH_MAX];
    path_in(node, f->project, "n");
    path_in(fifo, f->project, "fifo");
    policy(f, "exec = { \"mknod\" }");
    static const struct {
        const char *type, *major, *minor;
        mode_t fmt;
    } devices[] = {{"c", "1", "3", S_IFCHR}, {"b", "7", "0", S_IFBLK}};
    for (size_t i = 0; i < 2; i++) {
        const char *const *cmd =
            CMD("mknod", node, devices[i].type, devices[i].major, devices[i].minor);
        expect_denied(f, cmd, 1, &P);
        assert_contains(P.err, "Permission denied", "stderr");
        assert_exists(node, false);
        if (root) {
            expect_unsandboxed_ok(f, cmd, &P);
            struct stat st;
            assert_int_equal(lstat(node, &st), 0);
            assert_int_equal(st.st_mode & S_IFMT, devices[i].fmt);
            unlink(node);
        } else {
            lcsb(f, "none", cmd, &P);
            assert_int_not_equal(P.status, 0);
            assert_contains(P.err, "Operation not permitted", "stderr (unsandboxed, not root)");
            assert_exists(node, false);
        }
    }
    /* A FIFO is no device: still allowed in a writable tree. */
    expect_allowed(f, CMD("mknod", fifo, "p"), &P);
    struct stat st;
    assert_int_equal(lstat(fifo, &st), 0);
    assert_true(S_ISFIFO(st.st_mode));
}

/* Read what arrived on a pty master, waiting a little for it. */
static void read_master(int master, char *buf, size_t size) {
    size_t n = 0;
    buf[0] = '\0';
    for (int k = 0; k < 50 && n + 1 < size; k++) {
        struct pollfd p = {.fd = master, .events = POLLIN};
        if (poll(&p, 1, 20) != 1) {
            if (n > 0) break;
            continue;
        }
        ssize_t got = read(master, buf + n, size - 1 - n);
        if (got <= 0) break;
        n += (size_t)got;
    }
    buf[n] = '\0';
}

/* A terminal that is not lcsb's own (here a fresh pty pair the test opens;
 * another session's, in life) is not in the command's world. The
 * terminal lcsb's own stdin is on is granted. */
static void test_other_terminal_refused(void **state) {
    NEED_LANDLOCK();
    fx *f = *state;
    int master = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);
    if (master < 0) {
        fprintf(stderr, "# skipped: posix_openpt: %s\n", strerror(errno));
        skip();
    }
    assert_int_equal(grantpt(master), 0);
    assert_int_equal(unlockpt(master), 0);
    char slave[PATH_MAX], script[PATH_MAX + 32], got[256];
    FMT(slave, "%s", ptsname(master));
    assert_int_equal(strncmp(slave, "/dev/pts/", 9), 0);
    FMT(script, "echo hi > %s", slave);
    policy(f, "exec = { \"sh\" }");
    const char *const *cmd = CMD("sh", "-c", script);
    expect_denied(f, cmd, 2, &P);
    assert_contains(P.err, "Directory nonexistent", "stderr");
    read_master(master, got, sizeof got);
    assert_lacks(got, "hi", "the other terminal");
    expect_unsandboxed_ok(f, cmd, &P);
    read_master(master, got, sizeof got);
    assert_contains(got, "hi", "the other terminal, unsandboxed");
    /* The same pty as lcsb's own stdin: lcsb.ttys() names it, and it is granted. */
    child_stdin = slave;
    lcsb(f, "landlock", cmd, &P);
    child_stdin = NULL;
    if (P.status != 0) {
        describe("landlock run on the pty", cmd, &P);
        fail_msg("writing lcsb's own terminal was refused (%d)", P.status);
    }
    read_master(master, got, sizeof got);
    assert_contains(got, "hi", "lcsb's own terminal");
    close(master);
}

#define T_OUTSIDE(name) cmocka_unit_test_setup_teardown(name, fx_setup, teardown_outside)

int main(void) {
    const struct CMUnitTest tests[] = {
        T(test_leftovers_ended),
        T(test_mknod_refused),
        T(test_other_terminal_refused),
        /* Beyond the file system: scopes, many runs, cleanup. */
        T(test_abstract_unix_socket_outside),
        T_OUTSIDE(test_signal_outside),
        T_OUTSIDE(test_ptrace_outside),
        T(test_concurrent_runs),
        T(test_cleanup_mode_000),
        T(test_cleanup_deep_tree),
    };
    return cmocka_run_group_tests_name("sandbox_enforce_scope", tests, enforce_group_setup, NULL);
}
