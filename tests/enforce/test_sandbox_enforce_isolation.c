/* A world of its own: nothing the command starts outlives lcsb, SysV IPC,
 * POSIX message queues, the keyrings and /proc are the sandbox's own, unix
 * sockets outside the policy do not exist; and the everyday work that must
 * still run, runs. The policy's limits and the SIGTERM grace period are
 * test_sandbox_enforce_limits.c. The rules of the enforcement suites are in
 * enforce_fixture.h; what these two share, in isolation_fixture.h.
 *
 * The attacks are isolation_probe's verbs (LCSB_PROBE_PATH), which the
 * policies name in their exec list. Each case runs its unsandboxed twin
 * first: that the attack works when nothing stops it is known before the
 * sandbox is asked to stop it. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h> /* after the four above, which it needs */

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <linux/keyctl.h>
#include <mqueue.h>
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/msg.h>
#include <sys/prctl.h>
#include <sys/shm.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "isolation_fixture.h"

#define GREETING "hello-from-outside"

/* ---- nothing outlives lcsb ---- */

/* A "re-growing chain": three setsid'd, double-forked daemons that each
 * re-spawn whichever of the others is killed, and append to PROJECT/heartbeat
 * every 50 ms; the command starts them and exits 0. Started by a plain
 * parent, they outlive it and grow back what is killed (the twin: not lcsb
 * under none, whose CLI ends what its command leaves behind as a subreaper
 * would, but the same command run directly). Under the sandbox they are gone
 * when lcsb returns: the heartbeat stops and no member holds its lock. */
static void test_regrowing_chain_ends_with_the_command(void **state) {
    NEED_MECHANISM();
    fx *f = *state;
    char beat[PATH_MAX], stop[PATH_MAX], pid0[PATH_MAX], lock[PATH_MAX];
    path_in(beat, f->project, "heartbeat");
    path_in(stop, f->project, "stop");
    path_in(pid0, f->project, "pid.0");
    left.background = true;
    probe_policy(f);
    const char *const *cmd = CMD(PROBE, "chain", f->project);

    run_child(f->project, cmd, NULL, &P);
    if (P.status != 0 || !strstr(P.out, "chain started"))
        FAIL_RUN("the chain, run directly", cmd, "the chain did not start");
    if (!growing(beat))
        fail_msg("run directly, the chain died with its parent: the case proves nothing");
    char was[32], now_[32];
    read_file(pid0, was, sizeof was);
    assert_int_equal(kill((pid_t)atol(was), SIGKILL), 0);
    bool regrown = false;
    for (int k = 0; k < 200 && !regrown; k++) {
        sleep_ms(10);
        read_file(pid0, now_, sizeof now_);
        regrown =
            now_[0] && strcmp(now_, was) != 0 && !lock_free(path_in(lock, f->project, "lock.0"));
    }
    if (!regrown) fail_msg("run directly, member 0 (pid %s) was killed and not re-spawned", was);
    write_file(stop, "");
    if (growing(beat)) fail_msg("the chain run directly does not stop when told to");
    unlink(stop);
    unlink(beat);

    lcsb(f, mech, cmd, &P);
    if (P.status != 0 || !strstr(P.out, "chain started"))
        FAIL_RUN(mech, cmd, "the chain did not start under %s", mech);
    if (growing(beat))
        fail_msg("processes the command started outlived lcsb under %s: %s still grows after "
                 "lcsb returned",
                 mech, beat);
    for (int i = 0; i < 3; i++) {
        char leaf[16];
        FMT(leaf, "lock.%d", i);
        if (!lock_free(path_in(lock, f->project, leaf)))
            fail_msg("chain member %d outlived lcsb under %s (it holds %s)", i, mech, lock);
    }
}

/* The same chain, with the command still running when lcsb is killed by
 * SIGKILL: lcsb can do nothing then, only the kernel can end them. Under
 * none they outlive lcsb; under the sandbox, nothing does. */
static void test_regrowing_chain_dies_with_lcsb_killed(void **state) {
    NEED_MECHANISM();
    fx *f = *state;
    char beat[PATH_MAX], stop[PATH_MAX];
    path_in(beat, f->project, "heartbeat");
    path_in(stop, f->project, "stop");
    left.background = true;
    probe_policy(f);
    const char *const *cmd = CMD(PROBE, "chain", f->project, "wait");
    const char *const backends[] = {"none", mech};
    for (size_t i = 0; i < 2; i++) {
        int out;
        pid_t pid = start_lcsb(f, backends[i], cmd, &out);
        char line[128];
        bool started = false;
        for (int k = 0; k < 2 && !started && read_line(out, line, sizeof line); k++)
            started = strcmp(line, "chain started") == 0; /* after "probe: chain" */
        close(out);
        if (!started) {
            char *err = lcsb_err(f);
            fail_msg("%s: the chain did not start; lcsb said:\n%s", backends[i], err);
        }
        assert_int_equal(kill(pid, SIGKILL), 0);
        assert_int_equal(waitpid(pid, NULL, 0), pid);
        bool alive = growing(beat);
        if (i == 0) {
            if (!alive) fail_msg("none: the chain died with lcsb; the case proves nothing");
            write_file(stop, "");
            if (growing(beat)) fail_msg("none: the chain does not stop when told to");
            unlink(stop);
            unlink(beat);
        } else if (alive) {
            fail_msg("%s: processes the command started outlived lcsb killed by SIGKILL: %s "
                     "still grows",
                     mech, beat);
        }
    }
}

/* ---- SysV IPC and POSIX message queues ---- */

/* The test makes a SysV shared memory segment, a SysV message queue and a
 * POSIX message queue, each holding SECRET, under keys and a name the
 * command is told. Unsandboxed, the command reads all three; sandboxed, none
 * of them exists (its own IPC namespace). */
static void test_ipc_is_private(void **state) {
    NEED_MECHANISM();
    fx *f = *state;
    key_t shm_key = 0, msg_key = 0;
    key_t base = (key_t)(0x1c500000 + (getpid() & 0xffff) * 16);
    for (key_t k = base; left.shm < 0 && k < base + 1000; k++) {
        left.shm = shmget(k, 4096, IPC_CREAT | IPC_EXCL | 0600);
        if (left.shm >= 0)
            shm_key = k;
        else if (errno != EEXIST)
            fail_msg("shmget: %s", strerror(errno));
    }
    if (left.shm < 0) fail_msg("no free SysV key from %#x on", (unsigned)base);
    for (key_t k = shm_key; left.msg < 0; k++) {
        left.msg = msgget(k, IPC_CREAT | IPC_EXCL | 0600);
        if (left.msg >= 0)
            msg_key = k;
        else if (errno != EEXIST)
            fail_msg("msgget: %s", strerror(errno));
    }
    char *seg = shmat(left.shm, NULL, 0);
    assert_true(seg != (void *)-1);
    strcpy(seg, SECRET);
    assert_int_equal(shmdt(seg), 0);
    struct {
        long type;
        char text[64];
    } m = {.type = 1};
    strcpy(m.text, SECRET);
    assert_int_equal(msgsnd(left.msg, &m, strlen(SECRET), 0), 0);
    FMT(left.mq, "/lcsb-iso-%d", (int)getpid());
    struct mq_attr attr = {.mq_maxmsg = 4, .mq_msgsize = 128};
    mqd_t q = mq_open(left.mq, O_CREAT | O_EXCL | O_RDWR, 0600, &attr);
    if (q == (mqd_t)-1) fail_msg("mq_open %s: %s", left.mq, strerror(errno));
    assert_int_equal(mq_send(q, SECRET, strlen(SECRET), 0), 0);
    mq_close(q);

    char shm_arg[32], msg_arg[32];
    FMT(shm_arg, "%#x", (unsigned)shm_key);
    FMT(msg_arg, "%#x", (unsigned)msg_key);
    probe_policy(f);
    const char *const *cmd = CMD(PROBE, "ipc", shm_arg, msg_arg, left.mq);
    expect_unsandboxed_ok(f, cmd, &P);
    assert_contains(P.out, "shm: read " SECRET, "stdout");
    assert_contains(P.out, "msg: read " SECRET, "stdout");
    assert_contains(P.out, "mq: read " SECRET, "stdout");

    lcsb(f, mech, cmd, &P);
    static const struct {
        const char *read, *absent, *what;
    } kinds[] = {
        {"shm: read", "shm: shmget: ENOENT", "SysV shared memory segment"},
        {"msg: read", "msg: msgget: ENOENT", "SysV message queue"},
        {"mq: read", "mq: mq_open: ENOENT", "POSIX message queue"},
    };
    for (size_t i = 0; i < 3; i++) {
        if (strstr(P.out, kinds[i].read))
            FAIL_RUN(mech, cmd, "the sandboxed command read the caller's %s", kinds[i].what);
        if (!strstr(P.out, kinds[i].absent))
            FAIL_RUN(mech, cmd, "the caller's %s is not absent (ENOENT) in the sandbox",
                     kinds[i].what);
    }
}

/* ---- no memfd is executable ---- */

static void copy_file(const char *from, const char *to, mode_t mode) {
    int in = open(from, O_RDONLY | O_CLOEXEC);
    if (in < 0) fail_msg("%s: %s", from, strerror(errno));
    int out = open(to, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);
    if (out < 0) fail_msg("%s: %s", to, strerror(errno));
    char buf[65536];
    ssize_t n;
    while ((n = read(in, buf, sizeof buf)) > 0) assert_int_equal(write(out, buf, (size_t)n), n);
    assert_int_equal(n, 0);
    close(in);
    assert_int_equal(close(out), 0);
}

/* A static payload in no exec list, copied into a memfd made without flags
 * and run from there with execveat(AT_EMPTY_PATH) and through
 * /proc/self/fd/N. Unsandboxed it runs both ways; sandboxed, never (the exec
 * or the memfd_create is refused), as it cannot be run from the project
 * directly either. */
static void test_memfd_not_executable(void **state) {
    NEED_MECHANISM();
    fx *f = *state;
    char payload[PATH_MAX];
    copy_file(LCSB_PAYLOAD_PATH, path_in(payload, f->project, "payload"), 0755);
    probe_policy(f);
    const char *const *from_memfd = CMD(PROBE, "memfd", payload);
    const char *const *direct = CMD(PROBE, "exec", payload);
    expect_unsandboxed_ok(f, from_memfd, &P);
    assert_contains(P.out, "payload ran via execveat", "stdout");
    assert_contains(P.out, "payload ran via /proc/self/fd", "stdout");
    expect_unsandboxed_ok(f, direct, &P);
    assert_contains(P.out, "payload ran via direct", "stdout");

    lcsb(f, mech, direct, &P);
    ASSERT_PROBE_RAN(mech, direct);
    if (strstr(P.out, "payload ran"))
        FAIL_RUN(mech, direct, "a program outside the exec list ran from the project");
    lcsb(f, mech, from_memfd, &P);
    ASSERT_PROBE_RAN(mech, from_memfd);
    if (strstr(P.out, "payload ran"))
        FAIL_RUN(mech, from_memfd, "a program outside the exec list ran from a memfd under %s",
                 mech);
    if (P.status == 0) FAIL_RUN(mech, from_memfd, "the memfd attack reported success");
}

/* ---- the caller's keyrings ---- */

/* A session keyring of this test's own, which lcsb and the command inherit:
 * the caller's keys are in it, and the user's real session is left alone. */
static void own_session_keyring(void) {
    if (syscall(SYS_keyctl, KEYCTL_JOIN_SESSION_KEYRING, NULL) < 0) {
        if (errno == ENOSYS && !tests_required()) skip();
        fail_msg("keyctl(JOIN_SESSION_KEYRING): %s", strerror(errno));
    }
}

/* The serial of user key DESC in keyring RING, or -1. */
static long find_key(long ring, const char *desc) {
    return syscall(SYS_keyctl, KEYCTL_SEARCH, ring, "user", desc, 0);
}

/* The test adds a user key holding SECRET to its session keyring. Unsandboxed,
 * the command finds it from @s and reads it by its serial; sandboxed, it can
 * do neither. */
static void test_keyring_out_of_reach(void **state) {
    NEED_MECHANISM();
    fx *f = *state;
    own_session_keyring();
    char desc[64], serial_arg[32];
    FMT(desc, "lcsb-iso-secret-%d", (int)getpid());
    long serial =
        syscall(SYS_add_key, "user", desc, SECRET, strlen(SECRET), KEY_SPEC_SESSION_KEYRING);
    if (serial < 0) fail_msg("add_key: %s", strerror(errno));
    leave_key(serial);
    FMT(serial_arg, "%ld", serial);
    probe_policy(f);
    const char *const *cmd = CMD(PROBE, "key-read", desc, serial_arg);
    expect_unsandboxed_ok(f, cmd, &P);
    assert_contains(P.out, "search @s: found", "stdout");
    assert_contains(P.out, SECRET, "stdout");

    lcsb(f, mech, cmd, &P);
    ASSERT_PROBE_RAN(mech, cmd);
    if (strstr(P.out, SECRET))
        FAIL_RUN(mech, cmd, "the sandboxed command read the caller's key %ld", serial);
    if (strstr(P.out, "search @s: found"))
        FAIL_RUN(mech, cmd, "the sandboxed command found the caller's key %s in @s", desc);
}

/* The command adds a user key to its session keyring (@s) and one to its
 * user keyring (@u, which outlives every session: root's especially).
 * Unsandboxed, both are there after the run; sandboxed, neither. */
static void test_keyring_plants_vanish(void **state) {
    NEED_MECHANISM();
    fx *f = *state;
    own_session_keyring();
    char desc[64], in_s[80], in_u[80];
    FMT(desc, "lcsb-iso-planted-%d", (int)getpid());
    FMT(in_s, "%s.s", desc);
    FMT(in_u, "%s.u", desc);
    probe_policy(f);
    const char *const *cmd = CMD(PROBE, "key-add", desc);
    expect_unsandboxed_ok(f, cmd, &P);
    long s = find_key(KEY_SPEC_SESSION_KEYRING, in_s), u = find_key(KEY_SPEC_USER_KEYRING, in_u);
    if (s >= 0) leave_key(s);
    if (u >= 0) leave_key(u);
    if (s < 0 || u < 0)
        FAIL_RUN("unsandboxed run", cmd, "none: the planted keys are not there (@s %ld, @u %ld)", s,
                 u);
    drop_key(s);
    drop_key(u);
    if (find_key(KEY_SPEC_SESSION_KEYRING, in_s) >= 0 || find_key(KEY_SPEC_USER_KEYRING, in_u) >= 0)
        fail_msg("the keys planted unsandboxed cannot be removed: the case would see them again");

    lcsb(f, mech, cmd, &P);
    ASSERT_PROBE_RAN(mech, cmd);
    s = find_key(KEY_SPEC_SESSION_KEYRING, in_s);
    u = find_key(KEY_SPEC_USER_KEYRING, in_u);
    if (s >= 0) leave_key(s);
    if (u >= 0) leave_key(u);
    if (u >= 0) FAIL_RUN(mech, cmd, "a key the command added to @u (%s) outlived the run", in_u);
    if (s >= 0)
        FAIL_RUN(mech, cmd, "a key the command added to @s (%s) is in the caller's session", in_s);
}

/* ---- /proc ---- */

/* An outside process holds a token in its command line. Unsandboxed, a walk
 * over /proc finds it, lists its pid, and /proc/1 is the host's init; sandboxed,
 * the walk finds no such process and lists no such pid, but finds itself, and
 * /proc/1 is another process than the host's (the sandbox's own init), told
 * apart by its start time, which the two cannot share. */
static void test_proc_shows_only_the_sandbox(void **state) {
    NEED_MECHANISM();
    fx *f = *state;
    char token[64], nekot[64], script[128];
    FMT(token, "lcsb-token-%d-%ld", (int)getpid(), (long)time(NULL));
    size_t len = strlen(token);
    for (size_t i = 0; i < len; i++) nekot[i] = token[len - 1 - i];
    nekot[len] = '\0';
    FMT(script, "sleep 100; : %s", token);
    pid_t holder = fork();
    assert_true(holder >= 0);
    if (holder == 0) {
        setpgid(0, 0);
        execl("/bin/sh", "sh", "-c", script, (char *)NULL);
        _exit(127);
    }
    setpgid(holder, holder);
    leave_group(holder);
    char path[64], cmdline[512], holder_pid[32], listed[64];
    FMT(path, "/proc/%d/cmdline", (int)holder);
    bool holding = false;
    for (int k = 0; k < 200 && !holding; k++) {
        memset(cmdline, 0, sizeof cmdline); /* NULs between its words */
        read_file(path, cmdline, sizeof cmdline);
        holding = memmem(cmdline, sizeof cmdline, token, len) != NULL;
        if (!holding) sleep_ms(10);
    }
    assert_true(holding);
    FMT(holder_pid, "%d", (int)holder);
    FMT(listed, "pid %s listed: yes", holder_pid);
    unsigned long long host_init = start_time("1");
    assert_true(host_init > 0);
    probe_policy(f);
    const char *const *cmd = CMD(PROBE, "proc", nekot, holder_pid);

    expect_unsandboxed_ok(f, cmd, &P);
    assert_contains(P.out, "token in pid", "stdout");
    assert_contains(P.out, listed, "stdout");
    long long init = number_after(P.out, "init-start: ");
    if (init <= 0 || (unsigned long long)init != host_init)
        FAIL_RUN("unsandboxed run", cmd,
                 "none: /proc/1 is not the host's init (start %lld, the host's %llu)", init,
                 host_init);

    lcsb(f, mech, cmd, &P);
    if (strstr(P.out, "token in pid"))
        FAIL_RUN(mech, cmd, "the sandbox's /proc shows a process outside it (%s)", token);
    if (strstr(P.out, listed))
        FAIL_RUN(mech, cmd, "the sandbox's /proc lists pid %s, a process outside it", holder_pid);
    if (!strstr(P.out, "self listed: yes"))
        FAIL_RUN(mech, cmd, "the sandbox's /proc does not list the command itself");
    init = number_after(P.out, "init-start: ");
    if (init <= 0) FAIL_RUN(mech, cmd, "the sandbox's /proc has no /proc/1");
    if ((unsigned long long)init == host_init)
        FAIL_RUN(mech, cmd, "/proc/1 in the sandbox is the host's init, not the sandbox's");
}

/* The init that ends the run (parent-death signal, time limit, grace kill)
 * cannot be traced by the command, nor its descriptors or root followed
 * (the host's root is detached, but the descriptors are the shim's): through ptrace
 * it could have taken all three away. The twin: unsandboxed, the probe
 * traces its parent (lcsb) and lists its descriptors. */
static void test_init_out_of_reach(void **state) {
    NEED_MECHANISM();
    fx *f = *state;
    probe_policy(f);
    const char *const *cmd = CMD(PROBE, "trace-parent");
    expect_unsandboxed_ok(f, cmd, &P);
    assert_contains(P.out, "seize parent: ok", "stdout");
    assert_contains(P.out, "parent fd/0: ok", "stdout");
    assert_contains(P.out, "parent root: ok", "stdout");
    lcsb(f, mech, cmd, &P);
    if (!strstr(P.out, "seize parent: EPERM"))
        FAIL_RUN(mech, cmd, "the command could trace the sandbox's init");
    if (!strstr(P.out, "parent fd/0: EACCES") || !strstr(P.out, "parent root: EACCES"))
        FAIL_RUN(mech, cmd, "the command could follow the init's descriptors or root");
}

/* Nor can it starve the init, so that it would never reap and what the
 * command left would run on: the scheduler calls and prlimit are refused on
 * pid 1. The twin: unsandboxed, the same calls on the parent (lcsb) work. */
static void test_init_not_starved(void **state) {
    NEED_MECHANISM();
    fx *f = *state;
    probe_policy(f);
    const char *const *cmd = CMD(PROBE, "sched-parent");
    static const char *const calls[] = {"setscheduler", "setpriority", "setaffinity", "prlimit"};
    expect_unsandboxed_ok(f, cmd, &P);
    for (size_t i = 0; i < 4; i++) {
        char ok[64];
        FMT(ok, "%s: ok", calls[i]);
        assert_contains(P.out, ok, "stdout");
    }
    lcsb(f, mech, cmd, &P);
    for (size_t i = 0; i < 4; i++) {
        char refused[64];
        FMT(refused, "%s: EPERM", calls[i]);
        if (!strstr(P.out, refused)) FAIL_RUN(mech, cmd, "the command reached its init: %s", calls[i]);
    }
}

/* No extended attribute is written (a file capability would outlive the
 * run), by setxattrat(2) either, which takes its value in a struct. The
 * twin: unsandboxed, the same user xattr is set. */
static void test_setxattrat_refused(void **state) {
    NEED_MECHANISM();
    fx *f = *state;
    char file[PATH_MAX];
    write_file(path_in(file, f->project, "xattr-target"), "x\n");
    probe_policy(f);
    const char *const *cmd = CMD(PROBE, "setxattrat", file);
    expect_unsandboxed_ok(f, cmd, &P);
    assert_contains(P.out, "setxattrat: ok", "stdout");
    lcsb(f, mech, cmd, &P);
    if (!strstr(P.out, "setxattrat: EOPNOTSUPP"))
        FAIL_RUN(mech, cmd, "setxattrat wrote an extended attribute");
}

/* ---- unix sockets ---- */

/* Serve GREETING to every connection on a pathname socket at PATH, from a
 * child the teardown kills. */
static void serve(const char *path) {
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    assert_true(fd >= 0);
    struct sockaddr_un a = {.sun_family = AF_UNIX};
    assert_true(strlen(path) < sizeof a.sun_path);
    strcpy(a.sun_path, path);
    if (bind(fd, (struct sockaddr *)&a, sizeof a) != 0)
        fail_msg("bind %s: %s", path, strerror(errno));
    assert_int_equal(listen(fd, 16), 0);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        for (;;) {
            int c = accept(fd, NULL, NULL);
            if (c < 0) continue;
            if (write(c, GREETING, strlen(GREETING)) < 0) {
            }
            close(c);
        }
    }
    close(fd);
    setpgid(pid, pid);
    leave_group(pid);
}

/* /run/lcsb-test-XXXXXX/sock, served, in SOCK; false when this user cannot
 * make a directory in /run (only root can). */
static bool serve_in_run(char *sock) {
    char dir[PATH_MAX] = "/run/lcsb-test-XXXXXX";
    if (!mkdtemp(dir)) {
        if (errno == EACCES || errno == EPERM || errno == EROFS) return false;
        fail_msg("mkdtemp %s: %s", dir, strerror(errno));
    }
    strcpy(left.dirs[left.n_dirs++], dir);
    serve(path_in(sock, dir, "sock"));
    return true;
}

/* A socket served from outside in /tmp (OUTSIDE/sock) and, for root, one in
 * /run. Unsandboxed, the command connects to each and reads the greeting,
 * and sees their directories; sandboxed, neither path exists (ENOENT), the
 * directories included. */
static void test_unix_sockets_outside_absent(void **state) {
    NEED_MECHANISM();
    fx *f = *state;
    char socks[2][PATH_MAX];
    size_t n = 0;
    serve(path_in(socks[n++], f->outside, "sock"));
    if (serve_in_run(socks[n])) n++;
    probe_policy(f);
    for (size_t i = 0; i < n; i++) {
        char dir[PATH_MAX], expect[PATH_MAX + 64];
        FMT(dir, "%s", socks[i]);
        dirname(dir);
        const char *const *conn = CMD(PROBE, "connect", socks[i]);
        const char *const *look = CMD(PROBE, "stat", dir);
        expect_unsandboxed_ok(f, conn, &P);
        assert_contains(P.out, GREETING, "stdout");
        expect_unsandboxed_ok(f, look, &P);

        lcsb(f, mech, conn, &P);
        if (strstr(P.out, GREETING))
            FAIL_RUN(mech, conn, "the sandboxed command reached %s, outside the policy", socks[i]);
        FMT(expect, "connect %s: ENOENT", socks[i]);
        if (!strstr(P.out, expect))
            FAIL_RUN(mech, conn, "%s exists in the sandbox (expected ENOENT)", socks[i]);
        lcsb(f, mech, look, &P);
        FMT(expect, "stat %s: ENOENT", dir);
        if (!strstr(P.out, expect))
            FAIL_RUN(mech, look, "the directory %s exists in the sandbox (expected ENOENT)", dir);
    }
}

/* `sockets = { PATH }` opts one socket in: the /run one for root, else the
 * /tmp one. Sandboxed, the command connects to it and reads the greeting; the
 * other (for root) still does not exist. */
static void test_unix_socket_opted_in(void **state) {
    NEED_MECHANISM();
    fx *f = *state;
    char tmp_sock[PATH_MAX], run_sock[PATH_MAX];
    serve(path_in(tmp_sock, f->outside, "sock"));
    bool root = serve_in_run(run_sock);
    const char *opted = root ? run_sock : tmp_sock;
    policy(f, "exec = { \"%s\" }, sockets = { \"%s\" }", PROBE, opted);
    const char *const *conn = CMD(PROBE, "connect", opted);
    expect_allowed(f, conn, &P);
    assert_contains(P.out, GREETING, "stdout");
    if (root) {
        const char *const *other = CMD(PROBE, "connect", tmp_sock);
        lcsb(f, mech, other, &P);
        if (strstr(P.out, GREETING))
            FAIL_RUN(mech, other, "a socket the policy did not opt in (%s) was reached", tmp_sock);
    }
}

/* A directory that holds a unix socket is never bound whole, however many
 * of its files the policy names (two here, where a directory without one
 * would be): before Landlock ABI 9 nothing would stop the command from
 * connecting to the socket there. The named files read; the socket is not
 * there. */
static void test_socket_keeps_its_directory_apart(void **state) {
    NEED_LANDLOCK();
    fx *f = *state;
    char dir[PATH_MAX], sock[PATH_MAX], a[PATH_MAX], b[PATH_MAX], expect[PATH_MAX + 64];
    assert_int_equal(mkdir(path_in(dir, f->outside, "tool"), 0755), 0);
    write_file(path_in(a, dir, "a"), "a\n");
    write_file(path_in(b, dir, "b"), "b\n");
    serve(path_in(sock, dir, "sock"));
    policy(f, "exec = { \"%s\", \"cat\" }, read = { \"%s\", \"%s\" }", PROBE, a, b);
    const char *const *conn = CMD(PROBE, "connect", sock);
    expect_unsandboxed_ok(f, conn, &P);
    assert_contains(P.out, GREETING, "stdout");

    expect_allowed(f, CMD("cat", a, b), &P);
    assert_string_equal(P.out, "a\nb\n");
    lcsb(f, mech, conn, &P);
    if (strstr(P.out, GREETING))
        FAIL_RUN(mech, conn, "the sandboxed command reached %s, beside the policy's files", sock);
    FMT(expect, "connect %s: ENOENT", sock);
    if (!strstr(P.out, expect))
        FAIL_RUN(mech, conn, "%s exists in the sandbox (expected ENOENT)", sock);
}

/* ---- what must keep working ---- */

/* git init and commit, in a repository inside the project. */
static void test_still_git(void **state) {
    NEED_MECHANISM();
    fx *f = *state;
    policy(f, "exec = { \"sh\", \"git\", \"mkdir\" }");
    expect_allowed(f,
                   CMD("sh", "-c",
                       "mkdir repo && cd repo && git init -q . && echo a > a.txt && "
                       "git add a.txt && git -c user.email=t@example.com -c user.name=t "
                       "commit -qm sandboxed && git log --format=%s"),
                   &P);
    assert_contains(P.out, "sandboxed", "git log");
}

/* make of a tiny C file, and the program it built. */
static void test_still_make(void **state) {
    NEED_MECHANISM();
    fx *f = *state;
    run_child(f->project, CMD("/usr/bin/gcc", "-print-prog-name=cc1"), NULL, &P);
    assert_int_equal(P.status, 0);
    char libexec[PATH_MAX], build[PATH_MAX], file[PATH_MAX];
    FMT(libexec, "%.*s", (int)strcspn(P.out, "\n"), P.out);
    dirname(libexec);
    assert_int_equal(mkdir(path_in(build, f->project, "build"), 0755), 0);
    write_file(path_in(file, f->project, "hello.c"),
               "#include <stdio.h>\nint main(void) { puts(\"hello from make\"); return 0; }\n");
    write_file(path_in(file, f->project, "Makefile"),
               "build/hello: hello.c\n\tcc -o build/hello hello.c\n");
    policy(f, "exec = { \"sh\", \"make\", \"cc\", \"as\", \"ld\", \"%s\", \"%s\" }", libexec,
           build);
    expect_allowed(f, CMD("sh", "-c", "make -s && ./build/hello"), &P);
    assert_contains(P.out, "hello from make", "stdout");
}

/* A unix socket server and client in $TMPDIR, from Python. */
static void test_still_python_unix_socket(void **state) {
    NEED_MECHANISM();
    fx *f = *state;
    policy(f, "exec = { \"python3\" }");
    expect_allowed(f,
                   CMD("python3", "-c",
                       "import os, socket, tempfile\n"
                       "p = os.path.join(tempfile.gettempdir(), 's')\n"
                       "s = socket.socket(socket.AF_UNIX); s.bind(p); s.listen(1)\n"
                       "c = socket.socket(socket.AF_UNIX); c.connect(p)\n"
                       "a, _ = s.accept(); c.sendall(b'ping'); print(a.recv(4).decode())\n"),
                   &P);
    assert_contains(P.out, "ping", "stdout");
}

/* node -e, where node is installed (scripts/deps.sh installs it). */
static void test_still_node(void **state) {
    NEED_MECHANISM();
    fx *f = *state;
    if (access("/usr/bin/node", X_OK) != 0) {
        if (tests_required()) fail_msg("no /usr/bin/node (scripts/deps.sh installs nodejs)");
        skip();
    }
    policy(f, "exec = { \"node\" }");
    expect_allowed(f,
                   CMD("node", "-e",
                       "const fs = require('fs'); fs.writeFileSync('n.txt', String(6 * 7)); "
                       "console.log('node ' + fs.readFileSync('n.txt', 'utf8'))"),
                   &P);
    assert_contains(P.out, "node 42", "stdout");
}

/* What a test runner does: start cases in parallel and wait for them, end
 * one with SIGTERM and see it die of it, run subprocesses from Python. */
static void test_still_test_runner(void **state) {
    NEED_MECHANISM();
    fx *f = *state;
    policy(f, "exec = { \"sh\", \"sleep\", \"cat\", \"wc\", \"python3\" }");
    expect_allowed(
        f,
        CMD("sh", "-c",
            "for i in 1 2 3 4 5 6 7 8; do (sleep 0.2; echo ok > \"case.$i\") & done; wait; "
            "echo \"cases: $(cat case.* | wc -l)\"; "
            "sleep 5 & k=$!; kill $k; wait $k; echo \"killed: $?\"; "
            "python3 -c 'import subprocess, sys; "
            "sys.exit(sum(subprocess.run([\"sh\", \"-c\", \"exit 0\"]).returncode "
            "for _ in range(4)))' && echo runner-ok"),
        &P);
    assert_contains(P.out, "cases: 8", "stdout");
    assert_contains(P.out, "killed: 143", "stdout");
    assert_contains(P.out, "runner-ok", "stdout");
}

int main(void) {
    const struct CMUnitTest tests[] = {
        /* nothing outlives lcsb */
        TI(test_regrowing_chain_ends_with_the_command),
        TI(test_regrowing_chain_dies_with_lcsb_killed),
        /* the caller's IPC, code from memory, keyrings, processes, sockets */
        TI(test_ipc_is_private),
        TI(test_memfd_not_executable),
        TI(test_keyring_out_of_reach),
        TI(test_keyring_plants_vanish),
        TI(test_proc_shows_only_the_sandbox),
        TI(test_init_out_of_reach),
        TI(test_init_not_starved),
        TI(test_setxattrat_refused),
        TI(test_unix_sockets_outside_absent),
        TI(test_unix_socket_opted_in),
        TI(test_socket_keeps_its_directory_apart),
        /* what must keep working */
        TI(test_still_git),
        TI(test_still_make),
        TI(test_still_python_unix_socket),
        TI(test_still_node),
        TI(test_still_test_runner),
    };
    return cmocka_run_group_tests_name("sandbox_enforce_isolation", tests, enforce_group_setup,
                                       NULL);
}
