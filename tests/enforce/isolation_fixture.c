/* What the isolation and limits suites share: isolation_fixture.h says what. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h> /* after the four above, which it needs */

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/keyctl.h>
#include <mqueue.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/msg.h>
#include <sys/shm.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "isolation_fixture.h"

/* ---- what a case leaves running or created, ended by the teardown ---- */

struct iso_left left;

void leave_group(pid_t pid) {
    assert_true(left.n_groups < sizeof left.groups / sizeof left.groups[0]);
    left.groups[left.n_groups++] = pid;
}

void leave_key(long serial) {
    if (left.n_keys < sizeof left.keys / sizeof left.keys[0]) left.keys[left.n_keys++] = serial;
}

/* Out of both keyrings a case uses. A key in @u is not this test's to
 * invalidate (it is not possessed: @u hangs from no keyring of the test's
 * session), but @u's owner may unlink it, and a key no keyring holds goes. */
void drop_key(long serial) {
    syscall(SYS_keyctl, KEYCTL_UNLINK, serial, KEY_SPEC_USER_KEYRING);
    syscall(SYS_keyctl, KEYCTL_UNLINK, serial, KEY_SPEC_SESSION_KEYRING);
    syscall(SYS_keyctl, KEYCTL_INVALIDATE, serial);
}

int iso_setup(void **state) {
    memset(&left, 0, sizeof left);
    left.shm = left.msg = -1;
    return fx_setup(state);
}

int iso_teardown(void **state) {
    fx *f = *state;
    if (f && left.background) {
        char stop[PATH_MAX];
        FMT(stop, "%s/stop", f->project);
        FILE *s = fopen(stop, "we");
        if (s) fclose(s);
        usleep(300 * 1000); /* they look every 50 ms (the shell loops every second) */
    }
    for (size_t i = 0; i < left.n_groups; i++) {
        kill(-left.groups[i], SIGKILL);
        kill(left.groups[i], SIGKILL);
        waitpid(left.groups[i], NULL, 0);
    }
    if (left.shm >= 0) shmctl(left.shm, IPC_RMID, NULL);
    if (left.msg >= 0) msgctl(left.msg, IPC_RMID, NULL);
    if (left.mq[0]) mq_unlink(left.mq);
    for (size_t i = 0; i < left.n_keys; i++) drop_key(left.keys[i]);
    for (size_t i = 0; i < left.n_dirs; i++) rm_rf(left.dirs[i]);
    return fx_teardown(state);
}

/* ---- small things the cases share ---- */

void sleep_ms(long ms) { usleep((useconds_t)ms * 1000); }

void probe_policy(fx *f) { policy(f, "exec = { \"%s\" }", PROBE); }

static off_t size_of(const char *path) {
    struct stat st;
    return stat(path, &st) == 0 ? st.st_size : 0;
}

/* Does PATH still grow? Looked at over 300 ms, after 100 ms for a write in
 * flight to land. */
bool growing(const char *path) {
    sleep_ms(100);
    off_t before = size_of(path);
    sleep_ms(300);
    return size_of(path) > before;
}

/* Is the lock on PATH free: does no process hold it? */
bool lock_free(const char *path) {
    int fd = open(path, O_RDWR | O_CLOEXEC);
    if (fd < 0) return true;
    bool free_ = flock(fd, LOCK_EX | LOCK_NB) == 0;
    close(fd);
    return free_;
}

/* The start time of /proc/PID (its stat's field 22, in clock ticks since
 * boot), or 0. */
unsigned long long start_time(const char *pid) {
    char path[64], stat[4096];
    FMT(path, "/proc/%s/stat", pid);
    read_file(path, stat, sizeof stat);
    const char *p = strrchr(stat, ')');
    for (int field = 2; p && field < 22; field++) p = strchr(p + 1, ' ');
    return p ? strtoull(p + 1, NULL, 10) : 0;
}

/* The number after "KEY" in TEXT, or -1. */
long long number_after(const char *text, const char *key) {
    const char *at = strstr(text, key);
    return at ? strtoll(at + strlen(key), NULL, 10) : -1;
}

/* Start `lcsb --backend BACKEND p.lua -- CMD` in the background, in a process
 * group of its own (which the teardown kills), stdout on a pipe whose read end
 * is *OUT, stderr into OUTSIDE/lcsb.err (this run's alone), and its own TMPDIR in OUTSIDE (lcsb
 * killed by SIGKILL cannot remove what it made there). */
pid_t start_lcsb(fx *f, const char *backend, const char *const *cmd, int *out) {
    const char *argv[MAX_ARGV];
    size_t n = 0;
    argv[n++] = LCSB_CLI_PATH;
    argv[n++] = "--no-trust-check"; /* the suite's policies are its own */
    argv[n++] = "--backend";
    argv[n++] = backend;
    argv[n++] = f->policy;
    argv[n++] = "--";
    for (size_t i = 0; cmd[i] && n < MAX_ARGV - 1; i++) argv[n++] = cmd[i];
    argv[n] = NULL;
    char tmp[PATH_MAX], err[PATH_MAX];
    path_in(tmp, f->outside, "tmp");
    if (mkdir(tmp, 0700) != 0) assert_int_equal(errno, EEXIST);
    path_in(err, f->outside, "lcsb.err");
    int pipe_fds[2];
    assert_int_equal(pipe2(pipe_fds, O_CLOEXEC), 0);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        setpgid(0, 0);
        int null = open("/dev/null", O_RDONLY);
        int errfd = open(err, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (null < 0 || errfd < 0 || dup2(null, STDIN_FILENO) < 0 ||
            dup2(pipe_fds[1], STDOUT_FILENO) < 0 || dup2(errfd, STDERR_FILENO) < 0 ||
            chdir(f->project) != 0)
            _exit(120);
        setenv("PATH", "/usr/bin:/bin", 1);
        setenv("TMPDIR", tmp, 1);
        execv(argv[0], (char *const *)argv);
        _exit(122);
    }
    setpgid(pid, pid);
    leave_group(pid);
    close(pipe_fds[1]);
    *out = pipe_fds[0];
    return pid;
}

/* What lcsb started by start_lcsb wrote on stderr. Caller frees. */
char *lcsb_err(fx *f) {
    char err[PATH_MAX];
    char *text = slurp(path_in(err, f->outside, "lcsb.err"));
    return text ? text : strdup("");
}
