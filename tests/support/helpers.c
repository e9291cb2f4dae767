/* The helpers every suite shares; see helpers.h. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h> /* after the four above, which it needs */

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "helpers.h"

bool tests_required(void) {
    const char *v = getenv("LCSB_SANDBOX_TESTS_REQUIRED");
    return v && strcmp(v, "1") == 0;
}

/* ---- files ---- */

bool exists(const char *path) {
    struct stat st;
    return lstat(path, &st) == 0;
}

char *path_in(char *buf, const char *dir, const char *leaf) {
    int n = snprintf(buf, PATH_MAX, "%s/%s", dir, leaf);
    assert_true(n > 0 && n < PATH_MAX);
    return buf;
}

void write_file(const char *path, const char *content) {
    FILE *f = fopen(path, "we");
    if (!f) fail_msg("cannot create %s: %s", path, strerror(errno));
    assert_int_equal(fputs(content, f) >= 0, 1);
    assert_int_equal(fclose(f), 0);
}

/* Up to CAP - 1 bytes of F into BUF, NUL-terminated; F is closed. */
static void read_stream(FILE *f, char *buf, size_t cap) {
    size_t n = fread(buf, 1, cap - 1, f);
    buf[n] = '\0';
    fclose(f);
}

void read_file(const char *path, char *buf, size_t cap) {
    FILE *f = fopen(path, "re");
    if (f)
        read_stream(f, buf, cap);
    else
        buf[0] = '\0';
}

char *slurp(const char *path) {
    FILE *f = fopen(path, "re");
    if (!f) return NULL;
    char *buf = calloc(1, OUTPUT_MAX);
    assert_non_null(buf);
    read_stream(f, buf, OUTPUT_MAX);
    return buf;
}

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw) {
    (void)st;
    (void)flag;
    (void)ftw;
    remove(path);
    return 0;
}

void rm_rf(const char *path) {
    if (path[0]) nftw(path, rm_entry, 16, FTW_DEPTH | FTW_PHYS | FTW_MOUNT);
}

/* ---- running a child ---- */

const char *child_stdin;
const char *child_fd7;

static bool env_named(const char *entry, const char *const *names) {
    for (size_t i = 0; names && names[i]; i++) {
        size_t n = strcspn(names[i], "=");
        if (strncmp(entry, names[i], n) == 0 && entry[n] == '=') return true;
    }
    return false;
}

/* The child's environment: ours, with PATH=/usr/bin:/bin, each variable ENV
 * names replaced by ENV's. Caller frees the array (not its strings). */
static const char **child_env(const char *const *env) {
    extern char **environ;
    size_t n = 0;
    while (environ[n]) n++;
    const char **envp = calloc(n + 32, sizeof *envp);
    assert_non_null(envp);
    size_t k = 0;
    static const char *const path[] = {"PATH=/usr/bin:/bin", NULL};
    for (size_t i = 0; i < n; i++)
        if (!env_named(environ[i], path) && !env_named(environ[i], env)) envp[k++] = environ[i];
    if (!env_named(path[0], env)) envp[k++] = path[0];
    for (size_t i = 0; env && env[i] && k < n + 31; i++) envp[k++] = env[i];
    envp[k] = NULL;
    return envp;
}

/* In the child: its stdout and stderr to the pipes OUT_W and ERR_W, its
 * stdin (and fds 7 and 8) as the suite set them, then ARGV executed. */
__attribute__((noreturn)) static void child_exec(const char *cwd, const char *const *argv,
                                                 const char **envp, int out_w, int err_w) {
    setpgid(0, 0);
    if (dup2(out_w, STDOUT_FILENO) < 0 || dup2(err_w, STDERR_FILENO) < 0) _exit(120);
    int in = open(child_stdin ? child_stdin : "/dev/null", O_RDWR | O_NOCTTY);
    if (in < 0 || dup2(in, STDIN_FILENO) < 0) _exit(123);
    if (child_fd7) {
        /* Open as fds 7 and 8, without O_CLOEXEC: they are meant to leak. */
        int fd = open(child_fd7, O_RDONLY);
        if (fd < 0 || (fd != 7 && dup2(fd, 7) != 7) || dup2(7, 8) != 8) _exit(124);
    }
    if (cwd && chdir(cwd) != 0) _exit(121);
    execve(argv[0], (char *const *)argv, (char *const *)envp);
    dprintf(STDERR_FILENO, "test: cannot execute %s: %s\n", argv[0], strerror(errno));
    _exit(122);
}

/* The child's stdout and stderr read from OUT and ERR into P until both end
 * or TIMEOUT_SECONDS pass; true when they passed (its group then killed). */
static bool collect_output(int out, int err, pid_t pid, proc *p) {
    struct pollfd fds[2] = {{.fd = out, .events = POLLIN}, {.fd = err, .events = POLLIN}};
    char *bufs[2] = {p->out, p->err};
    size_t *lens[2] = {&p->out_n, &p->err_n};
    time_t deadline = time(NULL) + TIMEOUT_SECONDS;
    bool timed_out = false;
    int open_fds = 2;
    while (open_fds > 0) {
        int left = (int)(deadline - time(NULL));
        if (left <= 0) {
            timed_out = true;
            kill(-pid, SIGKILL);
            kill(pid, SIGKILL);
            break;
        }
        int r = poll(fds, 2, left * 1000);
        if (r < 0 && errno == EINTR) continue;
        assert_true(r >= 0);
        for (int i = 0; i < 2; i++) {
            if (fds[i].fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
            char chunk[4096];
            ssize_t got = read(fds[i].fd, chunk, sizeof chunk);
            if (got < 0 && errno == EINTR) continue;
            if (got <= 0) {
                close(fds[i].fd);
                fds[i].fd = -1;
                open_fds--;
                continue;
            }
            size_t room = OUTPUT_MAX - 1 - *lens[i];
            size_t take = (size_t)got < room ? (size_t)got : room;
            memcpy(bufs[i] + *lens[i], chunk, take);
            *lens[i] += take;
        }
    }
    for (int i = 0; i < 2; i++)
        if (fds[i].fd >= 0) close(fds[i].fd);
    return timed_out;
}

void run_child(const char *cwd, const char *const *argv, const char *const *env, proc *p) {
    int out[2], err[2];
    memset(p, 0, sizeof *p);
    assert_int_equal(pipe2(out, O_CLOEXEC), 0);
    assert_int_equal(pipe2(err, O_CLOEXEC), 0);
    const char **envp = child_env(env);

    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) child_exec(cwd, argv, envp, out[1], err[1]);
    free(envp);
    close(out[1]);
    close(err[1]);

    bool timed_out = collect_output(out[0], err[0], pid, p);
    p->out[p->out_n] = '\0';
    p->err[p->err_n] = '\0';
    int wstatus;
    while (waitpid(pid, &wstatus, 0) < 0) assert_int_equal(errno, EINTR);
    /* Whatever it left behind in its group goes too. */
    kill(-pid, SIGKILL);
    p->status = WIFEXITED(wstatus) ? WEXITSTATUS(wstatus) : 128 + WTERMSIG(wstatus);
    if (timed_out)
        fail_msg("%s timed out after %d s; stderr:\n%s", argv[0], TIMEOUT_SECONDS, p->err);
}

/* Byte by byte: the rest stays in the pipe. */
bool read_line(int fd, char *buf, size_t size) {
    size_t n = 0;
    time_t deadline = time(NULL) + TIMEOUT_SECONDS;
    while (n + 1 < size) {
        struct pollfd p = {.fd = fd, .events = POLLIN};
        int left = (int)(deadline - time(NULL));
        if (left <= 0 || poll(&p, 1, left * 1000) <= 0) return false;
        char c;
        ssize_t got = read(fd, &c, 1);
        if (got < 0 && errno == EINTR) continue;
        if (got <= 0) return false;
        if (c == '\n') break;
        buf[n++] = c;
    }
    buf[n] = '\0';
    return true;
}

double now_seconds(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* ---- text and argv ---- */

void helpers_text(const char *text, const char *needle, const char *what, bool want,
                  const char *file, int line) {
    if ((strstr(text, needle) != NULL) == want) return;
    if (what)
        print_error("ERROR: %s %s \"%s\":\n%s\n", what, want ? "lacks" : "holds", needle, text);
    else
        print_error("ERROR: expected \"%s\" %sin \"%s\"\n", needle, want ? "" : "not ", text);
    _fail(file, line);
}

char *replaced(const char *s, const char *from, const char *to) {
    const char *at = strstr(s, from);
    if (!at) fail_msg("\"%s\" not in \"%s\"", from, s);
    size_t pre = (size_t)(at - s), flen = strlen(from), tlen = strlen(to);
    size_t rest = strlen(at + flen);
    char *n = malloc(pre + tlen + rest + 1);
    assert_non_null(n);
    memcpy(n, s, pre);
    memcpy(n + pre, to, tlen);
    memcpy(n + pre + tlen, at + flen, rest + 1);
    return n;
}

size_t argc_of(char **argv) {
    size_t n = 0;
    while (argv[n]) n++;
    return n;
}

void assert_argv_equal(char **got, const char *const *want) {
    assert_non_null(got);
    size_t i = 0;
    for (; want[i]; i++) {
        if (!got[i]) fail_msg("argv too short: missing [%zu] \"%s\"", i, want[i]);
        if (strcmp(got[i], want[i]) != 0)
            fail_msg("argv[%zu]: got \"%s\", want \"%s\"", i, got[i], want[i]);
    }
    if (got[i]) fail_msg("argv too long: extra [%zu] \"%s\"", i, got[i]);
}

/* ---- policies and backends ---- */

lcsb_policy *new_policy(void) {
    lcsb_policy *p = lcsb_policy_new();
    assert_non_null(p);
    return p;
}

int policy_add(lcsb_policy *p, lcsb_tier tier, const char *path, lcsb_error *err) {
    switch (tier) {
    case LCSB_TIER_READ: return lcsb_policy_add_read(p, path, err);
    case LCSB_TIER_WRITE: return lcsb_policy_add_write(p, path, err);
    case LCSB_TIER_EXEC: return lcsb_policy_add_exec(p, path, err);
    case LCSB_TIER_PROTECT: return lcsb_policy_add_protect(p, path, err);
    case LCSB_TIER_HIDE: return lcsb_policy_add_hide(p, path, err);
    }
    fail_msg("no tier %d", (int)tier);
    return LCSB_EINVAL;
}

void add(lcsb_policy *p, lcsb_tier tier, const char *path) {
    lcsb_error err = {0};
    if (policy_add(p, tier, path, &err))
        fail_msg("%s %s refused: %s", lcsb_tier_name(tier), path, err.message);
}

const char *added(lcsb_policy *p, lcsb_tier tier, const char *path) {
    add(p, tier, path);
    size_t n = lcsb_policy_count(p, tier);
    assert_true(n > 0);
    return lcsb_policy_path(p, tier, n - 1);
}

void add_port(lcsb_policy *p, lcsb_port_kind kind, long port) {
    lcsb_error err = {0};
    if (lcsb_policy_add_port(p, kind, port, &err)) fail_msg("port %ld: %s", port, err.message);
}

void set_env(lcsb_policy *p, const char *name, const char *value) {
    lcsb_error err = {0};
    if (lcsb_policy_set_env(p, name, value, &err)) fail_msg("env %s: %s", name, err.message);
}

lcsb_backend *landlock_backend(int abi, const char *shim) {
    lcsb_backend *b = NULL;
    lcsb_error err = {0};
    if (lcsb_backend_landlock(abi, shim, &b, &err)) fail_msg("landlock backend: %s", err.message);
    return b;
}

static pid_t parent_of(pid_t pid) {
    char path[64], stat[512];
    FILE *f;
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    if (!(f = fopen(path, "r"))) return 0;
    size_t n = fread(stat, 1, sizeof stat - 1, f);
    fclose(f);
    stat[n] = '\0';
    /* pid (comm) state ppid: comm may hold spaces and parentheses. */
    char *close = strrchr(stat, ')');
    int ppid = 0;
    if (!close || sscanf(close + 1, " %*c %d", &ppid) != 1) return 0;
    return (pid_t)ppid;
}

static bool named(pid_t pid, const char *comm) {
    char path[64], buf[64] = "";
    snprintf(path, sizeof path, "/proc/%d/comm", (int)pid);
    FILE *f = fopen(path, "r");
    if (!f) return false;
    bool ok = fgets(buf, sizeof buf, f) != NULL;
    fclose(f);
    buf[strcspn(buf, "\n")] = '\0';
    return ok && strcmp(buf, comm) == 0;
}

pid_t descendant_named(pid_t root, const char *comm) {
    for (double start = now_seconds(); now_seconds() - start < 2; usleep(10000)) {
        DIR *dir = opendir("/proc");
        struct dirent *d;
        while (dir && (d = readdir(dir)) != NULL) {
            pid_t pid = (pid_t)atoi(d->d_name);
            if (pid <= 0 || !named(pid, comm)) continue;
            for (pid_t up = parent_of(pid); up > 1; up = parent_of(up))
                if (up == root) {
                    closedir(dir);
                    return pid;
                }
        }
        if (dir) closedir(dir);
    }
    return 0;
}
