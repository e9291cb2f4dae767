/* The kernel's answer: the real CLI, the real exec_policy, the real Landlock.
 *
 * Every denial case runs twice. Under `--backend landlock` the command must be
 * refused (its own nonzero status, the target untouched, the trailer on
 * stderr); under `--backend none` the very same command in the very same
 * state must succeed with its effect visible. A denial test whose command
 * would fail unsandboxed too is testing nothing; the second run proves it
 * can fail.
 *
 * Each test gets fresh directories: PROJECT (the policy's read+write root and
 * the command's cwd, holding p.lua), OUTSIDE (not granted at all) and RO
 * (granted as `read = { RO }`). Commands run with PATH=/usr/bin:/bin so a
 * caller's shims (pyenv, ...) do not decide what runs.
 *
 * Without Landlock every test skips, unless LCSB_SANDBOX_TESTS_REQUIRED=1
 * makes that a failure. The file-system and exec cases are the mechanism's
 * answer, whatever the mechanism: where Landlock is missing and
 * /usr/bin/sandbox-exec exists (macOS), they run under `--backend seatbelt`,
 * required there and never on Linux, where Seatbelt cannot be. The suite passes as root and as an
 * unprivileged user; cases that need root (mount) skip otherwise, and "the caller's real HOME" is
 * /root for root and the passwd HOME for anyone else. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h> /* after the four above, which it needs */

#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <linux/capability.h>
#include <netinet/in.h>
#include <poll.h>
#include <pwd.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <utime.h>

#ifndef LCSB_CLI_PATH
#error "build with -DLCSB_CLI_PATH='\"/path/to/lcsb\"'"
#endif
#ifndef LCSB_FAULT_LAUNCHER_PATH
#error "build with -DLCSB_FAULT_LAUNCHER_PATH='\"/path/to/fault_launcher\"'"
#endif

#ifndef SYS_landlock_create_ruleset
#define SYS_landlock_create_ruleset 444
#endif
#define LANDLOCK_VERSION_FLAG 1u /* LANDLOCK_CREATE_RULESET_VERSION */

/* snprintf that must not truncate */
#define FMT(buf, ...)                                                                              \
    do {                                                                                           \
        int fmt_n_ = snprintf(buf, sizeof buf, __VA_ARGS__);                                       \
        assert_true(fmt_n_ >= 0 && (size_t)fmt_n_ < sizeof buf);                                   \
    } while (0)

/* A sanitizer build runs the policy scripts that allocate up to lcsb's
 * 1 GiB cap several times slower, and CI runs two suites at once. */
#ifdef LCSB_SANITIZED
#define TIMEOUT_SECONDS 90
#else
#define TIMEOUT_SECONDS 20
#endif
#define OUTPUT_MAX (256 * 1024)
#define SECRET "s3cr3t-contents"
#define PYTHON "/usr/bin/python3"

/* The tools the file-system cases use; the command itself is always allowed. */
#define TOOLS                                                                                      \
    "\"sh\", \"cat\", \"ls\", \"rm\", \"ln\", \"mv\", \"truncate\", \"cp\", \"touch\", "           \
    "\"stat\""

static int landlock_abi;
/* The mechanism the file-system and exec cases run under: "landlock",
 * "seatbelt" where only sandbox-exec is present, or NULL; then, in a second
 * group, "oci", through podman, with an empty directory as the container's
 * root. */
static const char *mech;
static bool oci_ready;
static char oci_rootfs[PATH_MAX];
static char oci_conf[PATH_MAX];

/* ---- running a child ---- */

typedef struct proc {
    int status; /* exit status, or 128+N when killed by signal N */
    char out[OUTPUT_MAX];
    char err[OUTPUT_MAX];
    size_t out_n, err_n;
} proc;

/* What the next run_child's child holds besides stdout and stderr: stdin is
 * /dev/null unless CHILD_STDIN names a file to open; CHILD_FD7, when set, is
 * opened on fds 7 and 8 without O_CLOEXEC (a descriptor lcsb's caller leaks). Both
 * are cleared by the test that sets them. */
static const char *child_stdin;
static const char *child_fd7;

static bool env_named(const char *entry, const char *const *names) {
    for (size_t i = 0; names && names[i]; i++) {
        size_t n = strcspn(names[i], "=");
        if (strncmp(entry, names[i], n) == 0 && entry[n] == '=') return true;
    }
    return false;
}

/* Run ARGV in CWD with the caller's environment, PATH=/usr/bin:/bin, and the
 * NAME=VALUE entries of ENV on top; capture stdout and stderr. Killed (with
 * its process group) after TIMEOUT_SECONDS. */
static void run_child(const char *cwd, const char *const *argv, const char *const *env, proc *p) {
    extern char **environ;
    int out[2], err[2];
    memset(p, 0, sizeof *p);
    assert_int_equal(pipe2(out, O_CLOEXEC), 0);
    assert_int_equal(pipe2(err, O_CLOEXEC), 0);

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

    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        setpgid(0, 0);
        if (dup2(out[1], STDOUT_FILENO) < 0 || dup2(err[1], STDERR_FILENO) < 0) _exit(120);
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
    free(envp);
    close(out[1]);
    close(err[1]);

    struct pollfd fds[2] = {{.fd = out[0], .events = POLLIN}, {.fd = err[0], .events = POLLIN}};
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

/* ---- fixtures ---- */

typedef struct fx {
    char project[PATH_MAX];
    char outside[PATH_MAX];
    char ro[PATH_MAX];
    char policy[PATH_MAX];
    char home_file[PATH_MAX]; /* a file the test put in the caller's real HOME */
    char mounted[PATH_MAX];   /* a mount point to undo at teardown */
} fx;

static char *path_in(char *buf, const char *dir, const char *leaf) {
    int n = snprintf(buf, PATH_MAX, "%s/%s", dir, leaf);
    assert_true(n > 0 && n < PATH_MAX);
    return buf;
}

static void write_file(const char *path, const char *content) {
    FILE *f = fopen(path, "we");
    if (!f) fail_msg("cannot create %s: %s", path, strerror(errno));
    assert_int_equal(fputs(content, f) >= 0, 1);
    assert_int_equal(fclose(f), 0);
}

/* The whole file, or NULL when it cannot be read. Caller frees. */
static char *slurp(const char *path) {
    FILE *f = fopen(path, "re");
    if (!f) return NULL;
    char *buf = calloc(1, OUTPUT_MAX);
    assert_non_null(buf);
    size_t n = fread(buf, 1, OUTPUT_MAX - 1, f);
    buf[n] = '\0';
    fclose(f);
    return buf;
}

static bool exists(const char *path) {
    struct stat st;
    return lstat(path, &st) == 0;
}

static void assert_content(const char *path, const char *want) {
    char *got = slurp(path);
    if (!got) fail_msg("%s: %s", path, strerror(errno));
    if (strcmp(got, want) != 0) fail_msg("%s holds \"%s\", expected \"%s\"", path, got, want);
    free(got);
}

static void assert_exists(const char *path, bool want) {
    if (exists(path) != want) fail_msg("%s %s", path, want ? "is missing" : "exists");
}

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw) {
    (void)st;
    (void)ftw;
    if (flag == FTW_DP)
        rmdir(path);
    else
        unlink(path);
    return 0;
}

static void rm_rf(const char *path) {
    if (path[0]) nftw(path, rm_entry, 16, FTW_DEPTH | FTW_PHYS | FTW_MOUNT);
}

/* Write PROJECT/p.lua returning exec_policy{ BODY }. */
static void policy(fx *f, const char *body_fmt, ...) __attribute__((format(printf, 2, 3)));
static void policy(fx *f, const char *body_fmt, ...) {
    char body[8192], text[9000];
    va_list ap;
    va_start(ap, body_fmt);
    vsnprintf(body, sizeof body, body_fmt, ap);
    va_end(ap);
    if (strcmp(mech, "oci") == 0)
        FMT(text,
            "local lcsb = require \"lcsb\"\nreturn lcsb.exec_policy{ %s, oci = { rootfs = \"%s\" } "
            "}\n",
            body, oci_rootfs);
    else
        FMT(text, "local lcsb = require \"lcsb\"\nreturn lcsb.exec_policy{ %s }\n", body);
    write_file(f->policy, text);
}

static void raw_policy(fx *f, const char *text) { write_file(f->policy, text); }

static bool landlock_required(void) {
    const char *v = getenv("LCSB_SANDBOX_TESTS_REQUIRED");
    return v && strcmp(v, "1") == 0;
}

static int group_setup(void **state) {
    (void)state;
    long abi = syscall(SYS_landlock_create_ruleset, NULL, 0, LANDLOCK_VERSION_FLAG);
    landlock_abi = abi > 0 ? (int)abi : 0;
    mech = landlock_abi                                 ? "landlock"
           : access("/usr/bin/sandbox-exec", X_OK) == 0 ? "seatbelt"
                                                        : NULL;
    if (!landlock_abi)
        fprintf(stderr, "# no Landlock on this host (%s)%s\n", strerror(errno),
                landlock_required() ? "; LCSB_SANDBOX_TESTS_REQUIRED=1: failing" : "; skipping");
    return 0;
}

static int setup(void **state) {
    fx *f = calloc(1, sizeof *f);
    if (!f) return -1;
    FMT(f->project, "/tmp/lcsb-enf-project.XXXXXX");
    FMT(f->outside, "/tmp/lcsb-enf-outside.XXXXXX");
    FMT(f->ro, "/tmp/lcsb-enf-ro.XXXXXX");
    if (!mkdtemp(f->project) || !mkdtemp(f->outside) || !mkdtemp(f->ro)) {
        fprintf(stderr, "# mkdtemp: %s\n", strerror(errno));
        return -1;
    }
    FMT(f->policy, "%s/p.lua", f->project);
    *state = f;
    return 0;
}

static int teardown(void **state) {
    fx *f = *state;
    if (!f) return 0;
    if (f->mounted[0]) umount2(f->mounted, MNT_DETACH);
    if (f->home_file[0]) unlink(f->home_file);
    rm_rf(f->project);
    rm_rf(f->outside);
    rm_rf(f->ro);
    free(f);
    return 0;
}

/* At the top of the cases any mechanism answers: none here means skip, or
 * fail when required and this OS has one to require (Landlock on Linux,
 * Seatbelt on macOS; podman for the OCI group). */
#ifdef __APPLE__
#define OS_MECHANISM "seatbelt"
#else
#define OS_MECHANISM "landlock"
#endif
static bool oci_group(void) { return mech && strcmp(mech, "oci") == 0; }

#define NEED_MECHANISM()                                                                           \
    do {                                                                                           \
        if (oci_group() ? !oci_ready : !mech) {                                                    \
            if (landlock_required())                                                               \
                fail_msg("no %s here and LCSB_SANDBOX_TESTS_REQUIRED=1",                           \
                         oci_group() ? "container engine (podman)" : OS_MECHANISM);                \
            skip();                                                                                \
        }                                                                                          \
    } while (0)

/* At the top of the cases only Landlock answers (the OCI group lists those a
 * container answers too, and runs them under its own mechanism). */
#define NEED_LANDLOCK()                                                                            \
    do {                                                                                           \
        if (oci_group()) {                                                                         \
            NEED_MECHANISM();                                                                      \
        } else if (!landlock_abi) {                                                                \
            if (landlock_required())                                                               \
                fail_msg("Landlock is unavailable and LCSB_SANDBOX_TESTS_REQUIRED=1");             \
            skip();                                                                                \
        }                                                                                          \
    } while (0)

/* ---- running lcsb ---- */

#define MAX_ARGV 64
#define CMD(...) ((const char *const[]){__VA_ARGS__, NULL})
#define ENV(...) ((const char *const[]){__VA_ARGS__, NULL})

/* Run `LAUNCHER... lcsb --backend BACKEND OPTIONS... p.lua -- CMD...` (the
 * launcher may be NULL), with ENV on top. */
static void lcsb_launched(fx *f, const char *const *launcher, const char *backend,
                          const char *const *options, const char *const *cmd,
                          const char *const *env, proc *p) {
    const char *argv[MAX_ARGV];
    size_t n = 0;
    for (size_t i = 0; launcher && launcher[i]; i++) argv[n++] = launcher[i];
    argv[n++] = LCSB_CLI_PATH;
    argv[n++] = "--backend";
    argv[n++] = backend;
    for (size_t i = 0; options && options[i]; i++) argv[n++] = options[i];
    argv[n++] = f->policy;
    argv[n++] = "--";
    for (size_t i = 0; cmd[i]; i++) {
        assert_true(n < MAX_ARGV - 1);
        argv[n++] = cmd[i];
    }
    argv[n] = NULL;
    run_child(f->project, argv, env, p);
}

static void lcsb_opts(fx *f, const char *backend, const char *const *options,
                      const char *const *cmd, const char *const *env, proc *p) {
    lcsb_launched(f, NULL, backend, options, cmd, env, p);
}

static void lcsb_env(fx *f, const char *backend, const char *const *cmd, const char *const *env,
                     proc *p) {
    lcsb_opts(f, backend, NULL, cmd, env, p);
}

static void lcsb(fx *f, const char *backend, const char *const *cmd, proc *p) {
    lcsb_env(f, backend, cmd, NULL, p);
}

/* A line of stderr that starts with PREFIX and holds every one of the NULL-
 * terminated NEEDLES. */
static bool has_line(const char *text, const char *prefix, const char *const *needles) {
    for (const char *line = text; line && *line;) {
        const char *end = strchr(line, '\n');
        size_t len = end ? (size_t)(end - line) : strlen(line);
        char buf[4096];
        FMT(buf, "%.*s", (int)len, line);
        bool ok = strncmp(buf, prefix, strlen(prefix)) == 0;
        for (size_t i = 0; ok && needles[i]; i++) ok = strstr(buf, needles[i]) != NULL;
        if (ok) return true;
        line = end ? end + 1 : NULL;
    }
    return false;
}

static void assert_trailer(const proc *p, const char *backend) {
    char under[64];
    FMT(under, "under %s", backend);
    if (!has_line(p->err, "lcsb: ", CMD(" exited ", under)))
        fail_msg("no trailer \"lcsb: ... exited ... %s\" on stderr:\n%s", under, p->err);
}

static void describe(const char *what, const char *const *cmd, const proc *p) {
    fprintf(stderr, "# %s:", what);
    for (size_t i = 0; cmd[i]; i++) fprintf(stderr, " '%s'", cmd[i]);
    fprintf(stderr, "\n# -> status %d\n# stdout: %s\n# stderr: %s\n", p->status, p->out, p->err);
}

/* Under the mechanism CMD must fail with WANT (or any status but 0, 97 and
 * 125 when WANT is -1), with the trailer. WANT is what the GNU tools and
 * Linux's execve say; macOS's BSD tools and sandbox-exec say otherwise, so
 * there any refusal of the command's own counts. The result is left in P. */
static void expect_denied(fx *f, const char *const *cmd, int want, proc *p) {
    lcsb(f, mech, cmd, p);
    if (strcmp(mech, "seatbelt") == 0) want = -1;
    bool ok =
        want >= 0 ? p->status == want : (p->status != 0 && p->status != 97 && p->status != 125);
    if (!ok) {
        describe(mech, cmd, p);
        if (want >= 0) fail_msg("expected status %d under %s, got %d", want, mech, p->status);
        fail_msg("expected the command's own refusal under %s, got %d", mech, p->status);
    }
    assert_trailer(p, mech);
}

/* Under none the same CMD must succeed: the denial above was the sandbox's. */
static void expect_unsandboxed_ok(fx *f, const char *const *cmd, proc *p) {
    lcsb(f, "none", cmd, p);
    if (p->status != 0) {
        describe("unsandboxed run", cmd, p);
        fail_msg("the same command failed unsandboxed (%d): the denial test proves nothing",
                 p->status);
    }
}

/* Under the mechanism CMD must succeed. */
static void expect_allowed(fx *f, const char *const *cmd, proc *p) {
    lcsb(f, mech, cmd, p);
    if (p->status != 0) {
        describe(mech, cmd, p);
        fail_msg("expected success under %s, got %d", mech, p->status);
    }
}

static void assert_contains(const char *text, const char *needle, const char *what) {
    if (!strstr(text, needle)) fail_msg("%s lacks \"%s\":\n%s", what, needle, text);
}

static void assert_lacks(const char *text, const char *needle, const char *what) {
    if (strstr(text, needle)) fail_msg("%s holds \"%s\":\n%s", what, needle, text);
}

/* The default policy of the file-system cases: the tools, RO readable. */
/* ---- where lcsb keeps the private HOME and TMPDIR ---- */

/* The TMPDIR lcsb itself runs with, where it makes each run's private HOME
 * and TMPDIR: OUTSIDE/tmp, fresh and empty, and empty again after every run. */
typedef struct run_tmp {
    char dir[PATH_MAX];
    char env[PATH_MAX + 8]; /* TMPDIR=dir */
} run_tmp;

static void make_run_tmp(fx *f, run_tmp *t) {
    assert_int_equal(mkdir(path_in(t->dir, f->outside, "tmp"), 0700), 0);
    FMT(t->env, "TMPDIR=%s", t->dir);
}

/* DIR holds nothing: whatever is left in it is named in the failure. */
static void assert_left_nothing(const char *dir, const char *when) {
    DIR *d = opendir(dir);
    if (!d) fail_msg("cannot list %s: %s", dir, strerror(errno));
    char left[1024] = "";
    size_t n = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
        if (n++ < 8 && strlen(left) + strlen(e->d_name) + 2 < sizeof left) {
            strcat(left, " ");
            strcat(left, e->d_name);
        }
    }
    closedir(d);
    if (n) fail_msg("%s: lcsb left %zu entries behind in its TMPDIR %s:%s", when, n, dir, left);
}

static void fs_policy(fx *f) { policy(f, "exec = { " TOOLS " }, read = { \"%s\" }", f->ro); }

static proc P; /* one result buffer: the tests run one at a time */

/* ---- reading ---- */

static void test_read_outside_file(void **state) {
    NEED_MECHANISM();
    fx *f = *state;
    char secret[PATH_MAX];
    write_file(path_in(secret, f->outside, "secret"), SECRET "\n");
    fs_policy(f);
    expect_denied(f, CMD("cat", secret), 1, &P);
    assert_lacks(P.out, SECRET, "stdout");
    expect_unsandboxed_ok(f, CMD("cat", secret), &P);
    assert_contains(P.out, SECRET, "stdout");
}

/* The caller's real HOME: /root for root, the passwd HOME otherwise. */
static void test_read_real_home(void **state) {
    NEED_LANDLOCK();
    fx *f = *state;
    const char *home = "/root";
    if (geteuid() != 0) {
        struct passwd *pw = getpwuid(geteuid());
        if (!pw || !pw->pw_dir || access(pw->pw_dir, R_OK | W_OK | X_OK) != 0) {
            fprintf(stderr, "# skipped: no writable passwd HOME for uid %u\n", geteuid());
            skip();
        }
        home = pw->pw_dir;
    }
    FMT(f->home_file, "%s/.lcsb-enf-secret.XXXXXX", home);
    int fd = mkstemp(f->home_file);
    if (fd < 0) {
        f->home_file[0] = '\0';
        fail_msg("cannot create a file in %s: %s", home, strerror(errno));
    }
    assert_true(write(fd, SECRET "\n", sizeof SECRET) == (ssize_t)sizeof SECRET);
    close(fd);
    const char *leaf = strrchr(f->home_file, '/') + 1;
    fs_policy(f);

    expect_denied(f, CMD("cat", f->home_file), 1, &P);
    assert_lacks(P.out, SECRET, "stdout");
    expect_unsandboxed_ok(f, CMD("cat", f->home_file), &P);
    assert_contains(P.out, SECRET, "stdout");

    expect_denied(f, CMD("ls", "-a", home), 2, &P);
    assert_lacks(P.out, leaf, "stdout");
    expect_unsandboxed_ok(f, CMD("ls", "-a", home), &P);
    assert_contains(P.out, leaf, "stdout");
}

static void test_list_outside_dir(void **state) {
    NEED_MECHANISM();
    fx *f = *state;
    char file[PATH_MAX];
    write_file(path_in(file, f->outside, "listed-name"), "x");
    fs_policy(f);
    expect_denied(f, CMD("ls", f->outside), 2, &P);
    assert_lacks(P.out, "listed-name", "stdout");
    expect_unsandboxed_ok(f, CMD("ls", f->outside), &P);
    assert_contains(P.out, "listed-name", "stdout");
}

static void test_symlink_to_outside(void **state) {
    NEED_MECHANISM();
    fx *f = *state;
    char secret[PATH_MAX], link[PATH_MAX], script[3 * PATH_MAX];
    write_file(path_in(secret, f->outside, "secret"), SECRET "\n");
    assert_int_equal(symlink(secret, path_in(link, f->project, "link")), 0);
    fs_policy(f);
    /* A link the caller planted in the project. */
    expect_denied(f, CMD("cat", "link"), 1, &P);
    assert_lacks(P.out, SECRET, "stdout");
    expect_unsandboxed_ok(f, CMD("cat", "link"), &P);
    assert_contains(P.out, SECRET, "stdout");
    /* A link the command makes itself. */
    FMT(script, "ln -s '%s' made && cat made", secret);
    const char *const *cmd = CMD("sh", "-c", script);
    expect_denied(f, cmd, 1, &P);
    assert_lacks(P.out, SECRET, "stdout");
    unlink(path_in(link, f->project, "made"));
    expect_unsandboxed_ok(f, cmd, &P);
    assert_contains(P.out, SECRET, "stdout");
}

static void test_proc_self_root(void **state) {
    NEED_LANDLOCK();
    fx *f = *state;
    char secret[PATH_MAX], via[2 * PATH_MAX];
    write_file(path_in(secret, f->outside, "secret"), SECRET "\n");
    FMT(via, "/proc/self/root%s", secret);
    fs_policy(f);
    expect_denied(f, CMD("cat", via), 1, &P);
    assert_lacks(P.out, SECRET, "stdout");
    expect_unsandboxed_ok(f, CMD("cat", via), &P);
    assert_contains(P.out, SECRET, "stdout");
}

/* /etc is granted entry by entry, minus lcsb.etc_secrets (lua/lcsb/init.lua):
 * /etc/shadow is refused. As root the same cat works unsandboxed, which proves
 * the refusal was Landlock's. As an ordinary user /etc/shadow is unreadable
 * anyway, so there is no succeeding twin; the twin for everyone is that the
 * rest of /etc still reads. Listing /etc itself is the accepted cost. */
static void test_read_etc_secrets(void **state) {
    NEED_LANDLOCK();
    fx *f = *state;
    if (access("/etc/shadow", F_OK) != 0) {
        fprintf(stderr, "# skipped: no /etc/shadow on this host\n");
        skip();
    }
    fs_policy(f);
    expect_denied(f, CMD("cat", "/etc/shadow"), 1, &P);
    assert_lacks(P.out, "root:", "stdout");
    assert_contains(P.err, "Permission denied", "stderr");
    if (geteuid() == 0) {
        expect_unsandboxed_ok(f, CMD("cat", "/etc/shadow"), &P);
        assert_contains(P.out, "root:", "stdout");
    }
    expect_allowed(f, CMD("cat", "/etc/passwd"), &P);
    assert_contains(P.out, "root:", "stdout");
    if (access("/etc/hostname", R_OK) == 0) expect_allowed(f, CMD("cat", "/etc/hostname"), &P);
}

/* ---- writing ---- */

static void test_create_outside(void **state) {
    NEED_MECHANISM();
    fx *f = *state;
    char target[PATH_MAX], script[2 * PATH_MAX];
    path_in(target, f->outside, "created");
    FMT(script, "echo new > '%s'", target);
    fs_policy(f);
    expect_denied(f, CMD("sh", "-c", script), 2, &P);
    assert_exists(target, false);
    expect_denied(f, CMD("touch", target), 1, &P);
    assert_exists(target, false);
    expect_unsandboxed_ok(f, CMD("sh", "-c", script), &P);
    assert_content(target, "new\n");
}

static void test_write_outside(void **state) {
    NEED_MECHANISM();
    fx *f = *state;
    char target[PATH_MAX], script[2 * PATH_MAX];
    write_file(path_in(target, f->outside, "existing"), "old\n");
    FMT(script, "echo more >> '%s'", target);
    fs_policy(f);
    expect_denied(f, CMD("sh", "-c", script), 2, &P);
    assert_content(target, "old\n");
    expect_unsandboxed_ok(f, CMD("sh", "-c", script), &P);
    assert_content(target, "old\nmore\n");
}

static void test_delete_outside(void **state) {
    NEED_MECHANISM();
    fx *f = *state;
    char target[PATH_MAX], dir[PATH_MAX];
    write_file(path_in(target, f->outside, "victim"), "x");
    assert_int_equal(mkdir(path_in(dir, f->outside, "victim-dir"), 0755), 0);
    fs_policy(f);
    expect_denied(f, CMD("rm", "-f", target), 1, &P);
    assert_exists(target, true);
    expect_denied(f, CMD("rm", "-r", dir), 1, &P);
    assert_exists(dir, true);
    expect_unsandboxed_ok(f, CMD("rm", "-f", target), &P);
    assert_exists(target, false);
    expect_unsandboxed_ok(f, CMD("rm", "-r", dir), &P);
    assert_exists(dir, false);
}

static void test_truncate_read_only(void **state) {
    NEED_MECHANISM();
    fx *f = *state;
    char target[PATH_MAX], script[2 * PATH_MAX];
    write_file(path_in(target, f->ro, "file"), "keep\n");
    fs_policy(f);
    /* Readable, so the denial is about truncation, not about reaching it. */
    expect_allowed(f, CMD("cat", target), &P);
    assert_contains(P.out, "keep", "stdout");

    expect_denied(f, CMD("truncate", "-s0", target), 1, &P);
    assert_content(target, "keep\n");
    expect_unsandboxed_ok(f, CMD("truncate", "-s0", target), &P);
    assert_content(target, "");

    write_file(target, "keep\n");
    FMT(script, ": > '%s'", target); /* open(O_TRUNC) */
    expect_denied(f, CMD("sh", "-c", script), 2, &P);
    assert_content(target, "keep\n");
    expect_unsandboxed_ok(f, CMD("sh", "-c", script), &P);
    assert_content(target, "");
}

static void test_overwrite_read_only(void **state) {
    NEED_MECHANISM();
    fx *f = *state;
    char target[PATH_MAX], source[PATH_MAX], script[2 * PATH_MAX];
    write_file(path_in(target, f->ro, "file"), "keep\n");
    write_file(path_in(source, f->project, "source"), "evil\n");
    fs_policy(f);
    /* open(O_RDWR) without truncation, then a write in place */
    FMT(script, "printf EVIL 1<> '%s'", target);
    expect_denied(f, CMD("sh", "-c", script), 2, &P);
    assert_content(target, "keep\n");
    expect_unsandboxed_ok(f, CMD("sh", "-c", script), &P);
    assert_content(target, "EVIL\n");

    write_file(target, "keep\n");
    expect_denied(f, CMD("cp", source, target), 1, &P);
    assert_content(target, "keep\n");
    expect_unsandboxed_ok(f, CMD("cp", source, target), &P);
    assert_content(target, "evil\n");
}

static void test_hard_link(void **state) {
    NEED_MECHANISM();
    fx *f = *state;
    char outside_file[PATH_MAX], project_link[PATH_MAX], project_file[PATH_MAX],
        outside_link[PATH_MAX];
    write_file(path_in(outside_file, f->outside, "f"), SECRET "\n");
    write_file(path_in(project_file, f->project, "f"), "mine\n");
    path_in(project_link, f->project, "l");
    path_in(outside_link, f->outside, "l");
    fs_policy(f);
    /* From the project to a file outside: a second name inside for it. */
    expect_denied(f, CMD("ln", outside_file, project_link), 1, &P);
    assert_exists(project_link, false);
    expect_unsandboxed_ok(f, CMD("ln", outside_file, project_link), &P);
    assert_content(project_link, SECRET "\n");
    /* The reverse: a name outside for a project file. */
    expect_denied(f, CMD("ln", project_file, outside_link), 1, &P);
    assert_exists(outside_link, false);
    expect_unsandboxed_ok(f, CMD("ln", project_file, outside_link), &P);
    assert_content(outside_link, "mine\n");
}

static void test_rename(void **state) {
    NEED_MECHANISM();
    fx *f = *state;
    char in[PATH_MAX], out_dest[PATH_MAX], out[PATH_MAX], in_dest[PATH_MAX];
    write_file(path_in(in, f->project, "inside"), "inside\n");
    write_file(path_in(out, f->outside, "outside"), "outside\n");
    path_in(out_dest, f->outside, "moved-out");
    path_in(in_dest, f->project, "moved-in");
    fs_policy(f);
    /* Out of the project. */
    expect_denied(f, CMD("mv", in, out_dest), 1, &P);
    assert_exists(in, true);
    assert_exists(out_dest, false);
    expect_unsandboxed_ok(f, CMD("mv", in, out_dest), &P);
    assert_exists(in, false);
    assert_content(out_dest, "inside\n");
    /* Into the project. */
    expect_denied(f, CMD("mv", out, in_dest), 1, &P);
    assert_exists(out, true);
    assert_exists(in_dest, false);
    expect_unsandboxed_ok(f, CMD("mv", out, in_dest), &P);
    assert_exists(out, false);
    assert_content(in_dest, "outside\n");
}

/* ---- executing ---- */

static void test_exec_unlisted(void **state) {
    NEED_MECHANISM();
    fx *f = *state;
    policy(f, "exec = { \"sh\" }");
    const char *const *cmd = CMD("sh", "-c", "/usr/bin/id");
    expect_denied(f, cmd, 126, &P);
    assert_lacks(P.out, "uid=", "stdout");
    expect_unsandboxed_ok(f, cmd, &P);
    assert_contains(P.out, "uid=", "stdout");
}

/* Copy FROM to TO with mode 0755. */
static void copy_file(const char *from, const char *to) {
    int in = open(from, O_RDONLY | O_CLOEXEC);
    int out = open(to, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0755);
    if (in < 0 || out < 0) fail_msg("cannot copy %s to %s: %s", from, to, strerror(errno));
    char buf[65536];
    ssize_t n;
    while ((n = read(in, buf, sizeof buf)) > 0) assert_true(write(out, buf, (size_t)n) == n);
    assert_int_equal(n, 0);
    close(in);
    assert_int_equal(close(out), 0);
}

static void test_exec_fresh_binary(void **state) {
    NEED_MECHANISM();
    fx *f = *state;
    char copy[PATH_MAX];
    /* Copied in by the caller: the project is writable, not executable. */
    copy_file("/usr/bin/true", path_in(copy, f->project, "mytrue"));
    policy(f, "exec = { \"sh\", \"cp\", \"chmod\" }");
    expect_denied(f, CMD("sh", "-c", "./mytrue"), 126, &P);
    expect_unsandboxed_ok(f, CMD("sh", "-c", "./mytrue"), &P);
    /* Written by the command itself. */
    const char *const *cmd = CMD("sh", "-c", "cp /usr/bin/true ./t2 && chmod 755 t2 && ./t2");
    expect_denied(f, cmd, 126, &P);
    char t2[PATH_MAX];
    assert_exists(path_in(t2, f->project, "t2"), true); /* it was written, not run */
    unlink(t2);
    expect_unsandboxed_ok(f, cmd, &P);
}

/* Rule 3. An exec directory reached through a symlink, or one that is or holds
 * a system prefix, is refused before anything runs (125). */
static void test_exec_dir_refused(void **state) {
    NEED_LANDLOCK();
    fx *f = *state;
    char marker[PATH_MAX], venv[PATH_MAX], bin[PATH_MAX], link[PATH_MAX], target[PATH_MAX];
    path_in(marker, f->project, "marker");
    const char *const *cmd = CMD("touch", marker);
    const char *system_python = access(PYTHON, X_OK) == 0 ? PYTHON : "/usr/bin/true";

    /* A venv-like tree: venv/bin/python3 -> the system python. */
    assert_int_equal(mkdir(path_in(venv, f->project, "venv"), 0755), 0);
    assert_int_equal(mkdir(path_in(bin, venv, "bin"), 0755), 0);
    assert_int_equal(symlink(system_python, path_in(link, bin, "python3")), 0);
    /* ... reached through a symlink: venv-link -> venv */
    assert_int_equal(symlink(venv, path_in(link, f->project, "venv-link")), 0);
    /* ... and a bin that is itself a link to the system's: sysvenv/bin -> /usr/bin */
    assert_int_equal(mkdir(path_in(target, f->project, "sysvenv"), 0755), 0);
    assert_int_equal(symlink("/usr/bin", path_in(link, target, "bin")), 0);

    static const struct {
        bool in_project;
        const char *path;
    } refused[] = {
        {false, "/usr/bin"},      {false, "/usr"},        {false, "/"},
        {true, "/venv-link/bin"}, {true, "/sysvenv/bin"},
    };
    for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
        char entry[PATH_MAX + 64];
        FMT(entry, "\"%s%s\"", refused[i].in_project ? f->project : "", refused[i].path);
        policy(f, "exec = { %s }", entry);
        lcsb(f, "landlock", cmd, &P);
        if (P.status != 125) {
            describe("landlock run", cmd, &P);
            fail_msg("exec = { %s }: expected 125, got %d", entry, P.status);
        }
        if (!has_line(P.err, "lcsb: ", CMD("exec")))
            fail_msg("exec = { %s }: no message naming exec:\n%s", entry, P.err);
        assert_exists(marker, false);
        expect_unsandboxed_ok(f, cmd, &P);
        assert_exists(marker, true);
        unlink(marker);
    }
}

/* The venv itself, named as a real directory: its python3 is a symlink to the
 * system python, and EXECUTE on venv/bin must not reach through that link. */
static void test_exec_dir_symlinked_python(void **state) {
    NEED_LANDLOCK();
    fx *f = *state;
    char venv[PATH_MAX], bin[PATH_MAX], link[PATH_MAX];
    const char *system_python = access(PYTHON, X_OK) == 0 ? PYTHON : "/usr/bin/true";
    assert_int_equal(mkdir(path_in(venv, f->project, "venv"), 0755), 0);
    assert_int_equal(mkdir(path_in(bin, venv, "bin"), 0755), 0);
    assert_int_equal(symlink(system_python, path_in(link, bin, "python3")), 0);
    copy_file("/usr/bin/true", path_in(link, bin, "own-tool"));
    policy(f, "exec = { \"sh\", \"%s\" }", bin);
    lcsb(f, "landlock", CMD("true"), &P);
    if (P.status == 125) return; /* refused outright: also keeps rule 3 */
    /* The directory rule is in force for the files really in it ... */
    expect_allowed(f, CMD("sh", "-c", "venv/bin/own-tool"), &P);
    /* ... and stops at the link: the system python gets no EXECUTE from it. */
    const char *const *cmd = CMD("sh", "-c", "venv/bin/python3 -c '' </dev/null");
    expect_denied(f, cmd, 126, &P);
    expect_unsandboxed_ok(f, cmd, &P);
}

/* ---- network ---- */

static int listener(int type, int *port) {
    int fd = socket(AF_INET, type | SOCK_CLOEXEC, 0);
    assert_true(fd >= 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    assert_int_equal(bind(fd, (struct sockaddr *)&a, sizeof a), 0);
    if (type == SOCK_STREAM) assert_int_equal(listen(fd, 16), 0);
    socklen_t len = sizeof a;
    assert_int_equal(getsockname(fd, (struct sockaddr *)&a, &len), 0);
    *port = ntohs(a.sin_port);
    return fd;
}

/* A port nothing listens on now (the kernel's pick, released). */
static int free_port(void) {
    int port;
    close(listener(SOCK_STREAM, &port));
    return port;
}

/* Did a connection arrive on listening socket FD? Drains one. */
static bool accepted(int fd) {
    struct pollfd p = {.fd = fd, .events = POLLIN};
    if (poll(&p, 1, 0) != 1) return false;
    int c = accept4(fd, NULL, NULL, SOCK_CLOEXEC);
    if (c < 0) return false;
    close(c);
    return true;
}

static void test_tcp_connect(void **state) {
    NEED_LANDLOCK();
    fx *f = *state;
    int a_port, b_port;
    int a = listener(SOCK_STREAM, &a_port), b = listener(SOCK_STREAM, &b_port);
    char to_a[128], to_b[128];
    FMT(to_a, "exec 3<>/dev/tcp/127.0.0.1/%d", a_port);
    FMT(to_b, "exec 3<>/dev/tcp/127.0.0.1/%d", b_port);

    /* net = false (the default) */
    policy(f, "exec = { \"bash\" }");
    expect_denied(f, CMD("bash", "-c", to_a), 1, &P);
    assert_false(accepted(a));
    expect_unsandboxed_ok(f, CMD("bash", "-c", to_a), &P);
    assert_true(accepted(a));

    /* exactly the listed port */
    policy(f, "exec = { \"bash\" }, net = { connect = { %d } }", a_port);
    expect_allowed(f, CMD("bash", "-c", to_a), &P);
    assert_true(accepted(a));
    expect_denied(f, CMD("bash", "-c", to_b), 1, &P);
    assert_false(accepted(b));
    expect_unsandboxed_ok(f, CMD("bash", "-c", to_b), &P);
    assert_true(accepted(b));
    close(a);
    close(b);
}

static const char bind_py[] = "import socket, sys\n"
                              "s = socket.socket()\n"
                              "s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)\n"
                              "s.bind(('127.0.0.1', int(sys.argv[1])))\n"
                              "s.listen()\n"
                              "print('bound', sys.argv[1])\n";

static void test_tcp_bind(void **state) {
    NEED_LANDLOCK();
    fx *f = *state;
    if (access(PYTHON, X_OK) != 0) {
        fprintf(stderr, "# skipped: %s is missing; nothing here can bind a TCP port\n", PYTHON);
        skip();
    }
    char p1[16], p2[16];
    int port1 = free_port(), port2;
    do port2 = free_port();
    while (port2 == port1);
    FMT(p1, "%d", port1);
    FMT(p2, "%d", port2);

    policy(f, "exec = { \"%s\" }", PYTHON);
    expect_denied(f, CMD(PYTHON, "-c", bind_py, p1), 1, &P);
    assert_lacks(P.out, "bound", "stdout");
    expect_unsandboxed_ok(f, CMD(PYTHON, "-c", bind_py, p1), &P);
    assert_contains(P.out, "bound", "stdout");

    policy(f, "exec = { \"%s\" }, net = { bind = { %d } }", PYTHON, port1);
    expect_allowed(f, CMD(PYTHON, "-c", bind_py, p1), &P);
    assert_contains(P.out, "bound", "stdout");
    expect_denied(f, CMD(PYTHON, "-c", bind_py, p2), 1, &P);
    assert_lacks(P.out, "bound", "stdout");
    expect_unsandboxed_ok(f, CMD(PYTHON, "-c", bind_py, p2), &P);
    assert_contains(P.out, "bound", "stdout");
}

static const char udp_py[] = "import socket, sys\n"
                             "s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)\n"
                             "s.sendto(b'lcsb', ('127.0.0.1', int(sys.argv[1])))\n";

/* Run CMD under landlock with `--attest -`: the attestation goes to stderr. */
static void lcsb_attested(fx *f, const char *const *cmd, proc *p) {
    lcsb_opts(f, "landlock", CMD("--attest", "-"), cmd, NULL, p);
}

/* Did a datagram arrive on FD? Drains one. */
static bool received(int fd) {
    char buf[16];
    return recv(fd, buf, sizeof buf, MSG_DONTWAIT) > 0;
}

/* net = false means no network, not no TCP. Landlock covers TCP only; the
 * shim's socket filter refuses every other socket, so the datagram must not
 * arrive under landlock (Python's socket() gets EACCES), must arrive under
 * none, and the attestation says that all of the network is covered. With
 * ports, UDP stays refused, even to a port the policy lets TCP reach. */
static void test_udp_denied(void **state) {
    NEED_LANDLOCK();
    fx *f = *state;
    if (access(PYTHON, X_OK) != 0) {
        fprintf(stderr, "# skipped: %s is missing\n", PYTHON);
        skip();
    }
    int port;
    int rx = listener(SOCK_DGRAM, &port);
    char ps[16];
    FMT(ps, "%d", port);
    const char *const *cmd = CMD(PYTHON, "-c", udp_py, ps);
    char policies[2][256];
    FMT(policies[0], "exec = { \"%s\" }", PYTHON);
    FMT(policies[1], "exec = { \"%s\" }, net = { connect = { %d } }", PYTHON, port);
    static const char *const attested[] = {"\"net\":\"denied\",\"net_covers\":\"all\"",
                                           "\"net\":\"ports\",\"net_covers\":\"all\""};
    for (size_t i = 0; i < 2; i++) {
        policy(f, "%s", policies[i]);
        lcsb_attested(f, cmd, &P);
        if (received(rx)) {
            describe("landlock run", cmd, &P);
            fail_msg("UDP got out under \"%s\"", policies[i]);
        }
        if (P.status != 1) {
            describe("landlock run", cmd, &P);
            fail_msg("expected Python's refusal (1) under landlock, got %d", P.status);
        }
        assert_contains(P.err, "PermissionError: [Errno 13] Permission denied", "stderr");
        assert_contains(P.err, attested[i], "the attestation");
        assert_lacks(P.err, "tcp only", "stderr");
        assert_trailer(&P, "landlock");
        expect_unsandboxed_ok(f, cmd, &P);
        if (!received(rx)) fail_msg("the datagram did not arrive unsandboxed either");
    }
    close(rx);
}

/* ---- mount ---- */

/* Is DIR in this process's mount table? */
static bool is_mount_point(const char *dir) {
    char *mounts = slurp("/proc/self/mounts");
    assert_non_null(mounts);
    char needle[PATH_MAX + 2];
    FMT(needle, " %s ", dir);
    bool found = strstr(mounts, needle) != NULL;
    free(mounts);
    return found;
}

/* As root, mount directly; otherwise from inside a new user namespace, which
 * an unprivileged user may create (where the host allows it) and mount in.
 * Either way the sandboxed command must not get a mount. */
static void test_mount(void **state) {
    NEED_LANDLOCK();
    fx *f = *state;
    bool root = geteuid() == 0;
    if (!root && strcmp(mech, "oci") == 0) {
        /* A rootless container may make a user namespace of its own, and
         * mount in it: inside the container's world, never the host's. */
        fprintf(stderr, "# skipped: rootless, a container's mounts are its own\n");
        skip();
    }
    char point[PATH_MAX], probe[PATH_MAX], script[2 * PATH_MAX];
    assert_int_equal(mkdir(path_in(point, f->project, "m"), 0755), 0);
    FMT(script, "mount -t tmpfs none '%s' && echo mounted", point);
    const char *const *cmd =
        root ? CMD("sh", "-c", script)
             : CMD("unshare", "--user", "--map-root-user", "--mount", "sh", "-c", script);
    policy(f, "exec = { \"sh\", \"mount\", \"unshare\" }");
    if (root) FMT(f->mounted, "%s", point); /* teardown undoes a mount that got through */
    expect_denied(f, cmd, -1, &P);
    assert_lacks(P.out, "mounted", "stdout");
    assert_false(is_mount_point(point));
    write_file(path_in(probe, point, "under"), "x"); /* still the project's directory */
    unlink(probe);
    lcsb(f, "none", cmd, &P);
    if (P.status != 0) {
        /* Root without CAP_SYS_ADMIN, or no unprivileged user namespaces. */
        fprintf(stderr, "# skipped: mount fails unsandboxed too (%d): %s\n", P.status, P.err);
        skip();
    }
    assert_contains(P.out, "mounted", "stdout");
    if (!root) return; /* the namespace and its mount are gone */
    assert_true(is_mount_point(point));
    assert_int_equal(umount2(point, 0), 0);
    f->mounted[0] = '\0';
}

/* ---- the private HOME ---- */

/* The first line of OUT, which the command printed as its $HOME. */
static void first_line(const char *out, char *buf, size_t size) {
    snprintf(buf, size, "%.*s", (int)strcspn(out, "\n"), out);
}

static void test_private_home(void **state) {
    NEED_LANDLOCK();
    fx *f = *state;
    fs_policy(f);
    const char *caller_home = getenv("HOME");
    const char *const *cmd = CMD("sh", "-c",
                                 "echo \"$HOME\"; echo \"$TMPDIR\"; stat -c %a \"$HOME\"; "
                                 "echo w > \"$HOME/written\" && cat \"$HOME/written\"");
    const char *const backends[] = {mech, "none"};
    for (size_t i = 0; i < 2; i++) {
        lcsb(f, backends[i], cmd, &P);
        if (P.status != 0) {
            describe(backends[i], cmd, &P);
            fail_msg("the private HOME test failed under %s", backends[i]);
        }
        char home[PATH_MAX], tmp[PATH_MAX], mode[16];
        first_line(P.out, home, sizeof home);
        const char *rest = strchr(P.out, '\n') + 1;
        first_line(rest, tmp, sizeof tmp);
        rest = strchr(rest, '\n') + 1;
        first_line(rest, mode, sizeof mode);
        assert_true(home[0] == '/');
        if (caller_home) assert_string_not_equal(home, caller_home);
        assert_string_equal(mode, "700");
        assert_contains(rest, "\nw", "stdout");
        assert_exists(home, false);
        assert_true(tmp[0] == '/');
        assert_exists(tmp, false);
    }
}

static void test_home_removed_after_signal(void **state) {
    NEED_LANDLOCK();
    fx *f = *state;
    fs_policy(f);
    const char *const *cmd = CMD("sh", "-c", "echo \"$HOME\"; touch \"$HOME/x\"; kill -9 $$");
    expect_denied(f, cmd, 137, &P);
    char home[PATH_MAX];
    first_line(P.out, home, sizeof home);
    assert_true(home[0] == '/');
    assert_exists(home, false);
    assert_contains(P.err, "SIGKILL", "stderr");
}

/* Links the command plants in HOME are removed, never followed. */
static void test_home_cleanup_follows_no_link(void **state) {
    NEED_LANDLOCK();
    fx *f = *state;
    char keep[PATH_MAX], script[3 * PATH_MAX];
    write_file(path_in(keep, f->outside, "keep"), "keep\n");
    fs_policy(f);
    FMT(script,
        "echo \"$HOME\"; ln -s '%s' \"$HOME/dir-link\"; ln -s '%s' \"$HOME/file-link\"; "
        "ln -s '%s' \"$TMPDIR/dir-link\"",
        f->outside, keep, f->outside);
    const char *const backends[] = {mech, "none"};
    for (size_t i = 0; i < 2; i++) {
        lcsb(f, backends[i], CMD("sh", "-c", script), &P);
        assert_int_equal(P.status, 0);
        char home[PATH_MAX];
        first_line(P.out, home, sizeof home);
        assert_exists(home, false);
        assert_content(keep, "keep\n");
    }
}

/* ---- environment ---- */

static void test_env_overlay(void **state) {
    NEED_LANDLOCK();
    fx *f = *state;
    const char *const *env = ENV("SECRET=hunter2", "FOO=caller");
    const char *const *cmd =
        CMD("sh", "-c", "echo \"FOO=$FOO\"; echo \"SECRET=${SECRET-<unset>}\"");
    const char *const backends[] = {mech, "none"};
    for (size_t i = 0; i < 2; i++) {
        /* Without an overlay the caller's SECRET would get through... */
        policy(f, "exec = { \"sh\" }");
        lcsb_env(f, backends[i], cmd, env, &P);
        assert_int_equal(P.status, 0);
        assert_contains(P.out, "SECRET=hunter2", "stdout");
        /* ... the overlay sets FOO and removes it. */
        policy(f, "exec = { \"sh\" }, env = { FOO = \"bar\", SECRET = false }");
        lcsb_env(f, backends[i], cmd, env, &P);
        assert_int_equal(P.status, 0);
        assert_contains(P.out, "FOO=bar\n", "stdout");
        assert_contains(P.out, "SECRET=<unset>\n", "stdout");
        assert_lacks(P.out, "hunter2", "stdout");
    }
}

static void test_no_new_privs(void **state) {
    NEED_LANDLOCK();
    fx *f = *state;
    fs_policy(f);
    expect_allowed(f, CMD("cat", "/proc/self/status"), &P);
    assert_contains(P.out, "NoNewPrivs:\t1\n", "/proc/self/status");
    char *mine = slurp("/proc/self/status");
    assert_non_null(mine);
    bool caller_has_nnp = strstr(mine, "NoNewPrivs:\t1\n") != NULL;
    free(mine);
    if (!caller_has_nnp) {
        expect_unsandboxed_ok(f, CMD("cat", "/proc/self/status"), &P);
        assert_contains(P.out, "NoNewPrivs:\t0\n", "/proc/self/status");
    }
}

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
 * The twin: unsandboxed, that file reads. */
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
        lcsb(f, "landlock", cmd, &P);
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
        const char *bad[] = {
            LCSB_CLI_PATH, "--backend", backends[i], "--attest", "/nonexistent/dir/a.json",
            f->policy,     "--",        "touch",     marker,     NULL};
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
        const char *good[] = {LCSB_CLI_PATH, "--backend", backends[i], "--attest", attest,
                              f->policy,     "--",        "touch",     marker,     NULL};
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

/* Read one line from FD into BUF within TIMEOUT_SECONDS (NUL-terminated, no
 * newline); false at EOF or on timeout. Byte by byte: the rest stays in the
 * pipe. */
static bool read_line(int fd, char *buf, size_t size) {
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

static double now_seconds(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
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
        const char *argv[] = {LCSB_CLI_PATH, "--backend", backends[i], f->policy,
                              "--",          "sh",        "-c",        "echo $$; exec sleep 30",
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
        pid_t command = (pid_t)atol(cmd_pid);
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
    for (size_t run = 0; run < 2 * 4; run++) {
        size_t i = run % 2;
        int sig = sigs[run / 2].sig;
        const char *name = sigs[run / 2].name;
        const char *argv[] = {
            LCSB_CLI_PATH, "--backend", backends[i], f->policy,
            "--",          "sh",        "-c",        "echo \"$HOME\"; echo $$; exec sleep 30",
            NULL};
        int out[2], err[2];
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
        char home[PATH_MAX], cmd_pid[32];
        bool started =
            read_line(out[0], home, sizeof home) && read_line(out[0], cmd_pid, sizeof cmd_pid);
        if (!started) {
            kill(-pid, SIGKILL);
            waitpid(pid, NULL, 0);
            close(out[0]);
            close(err[0]);
            fail_msg("%s: the command did not start", backends[i]);
        }
        assert_true(home[0] == '/');
        assert_exists(home, true);
        pid_t command = (pid_t)atol(cmd_pid);
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
            fail_msg("%s: lcsb still running %.1f s after %s", backends[i], took, name);
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
            fail_msg("%s: lcsb ended with %d (%s) after %s, expected exit %d; stderr:\n%s",
                     backends[i], status, WIFEXITED(wstatus) ? "exited" : "killed", name, 128 + sig,
                     errbuf);
        if (took > 5) fail_msg("%s: lcsb took %.1f s to exit after %s", backends[i], took, name);
        if (!command_gone) fail_msg("%s: the command (pid %d) outlived lcsb", backends[i], command);
        assert_exists(home, false);
        char under[64];
        FMT(under, "under %s", backends[i]);
        char exited[32];
        FMT(exited, "sh exited %d", 128 + sig);
        if (!has_line(errbuf, "lcsb: ", CMD(exited, name, under)))
            fail_msg("%s: no trailer for the %s:\n%s", backends[i], name, errbuf);
    }
}

/* ---- devices and terminals ---- */

/* Whatever the command leaves running (in the background, in a new session)
 * is ended when the command exits: lcsb is its subreaper, so nothing can
 * double-fork away from it. The twin: the same command run directly leaves
 * its processes alive. */
static bool alive(pid_t pid) {
    char path[64], state[512];
    FMT(path, "/proc/%d/stat", (int)pid);
    FILE *f = fopen(path, "re");
    if (!f) return false;
    bool running = fgets(state, sizeof state, f) && !strstr(state, ") Z ");
    fclose(f);
    return running;
}

static void test_leftovers_ended(void **state) {
    NEED_LANDLOCK();
    fx *f = *state;
    policy(f, "exec = { \"sh\", \"sleep\", \"setsid\", \"wc\" }");
    /* Each in a session of its own, out of reach of the test's group kill:
     * a child, a grandchild, and one whose parent is gone. Each notes its pid
     * once it has left the session, and the command waits for all three. */
    char leftover[PATH_MAX], pids_file[PATH_MAX];
    write_file(path_in(leftover, f->project, "leftover.sh"),
               "echo $$ >> pids; exec sleep \"$1\" </dev/null >/dev/null 2>&1\n");
    path_in(pids_file, f->project, "pids");
    const char *script = "setsid sh leftover.sh 30 & "
                         "sh -c 'setsid sh leftover.sh 31 &'; "
                         "(setsid sh leftover.sh 32 &); "
                         "while [ \"$(wc -l < pids 2>/dev/null)\" != 3 ]; do sleep 0.01; done";
    static const char *const backends[] = {"landlock", "none", NULL};
    for (size_t i = 0; i < 3; i++) {
        unlink(pids_file);
        if (backends[i])
            lcsb(f, backends[i], CMD("sh", "-c", script), &P);
        else
            run_child(f->project, CMD("/bin/sh", "-c", script), NULL, &P);
        assert_int_equal(P.status, 0);
        FILE *list = fopen(pids_file, "re");
        assert_non_null(list);
        int pids[3];
        for (int k = 0; k < 3; k++) assert_int_equal(fscanf(list, "%d", &pids[k]), 1);
        fclose(list);
        for (int k = 0; k < 3; k++) {
            bool up = alive(pids[k]);
            if (!backends[i]) kill(pids[k], SIGKILL);
            if (backends[i] && up) fail_msg("%s: leftover %d outlived lcsb", backends[i], pids[k]);
            if (!backends[i] && !up) fail_msg("leftover %d died unsandboxed too", pids[k]);
        }
    }
    /* Children lcsb already had when its caller exec'd it are not the
     * command's: they live on. */
    char caller[3 * PATH_MAX];
    FMT(caller,
        "setsid sleep 33 </dev/null >/dev/null 2>&1 & echo $! > caller-child; "
        "exec '%s' --backend landlock '%s' -- sh -c 'setsid sleep 34 >/dev/null 2>&1 &'",
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

/* /dev/pts is not writable: a terminal that is not lcsb's own (here a fresh
 * pty pair the test opens; another session's, in life) is refused. The
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
    assert_contains(P.err, "Permission denied", "stderr");
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

/* ---- where lcsb runs from ---- */

/* From "/", the default project would be "/": a write rule on the whole
 * system. Refused before anything runs, naming "/". `none` enforces nothing
 * and validates no paths: from "/" it runs, which shows the refusal is the
 * sandbox's validation and that the command would have run. */
static void test_run_from_root_refused(void **state) {
    NEED_LANDLOCK();
    fx *f = *state;
    char marker[PATH_MAX];
    path_in(marker, f->project, "marker");
    policy(f, "exec = { \"touch\" }");
    const char *const argv[] = {LCSB_CLI_PATH, "--backend", "landlock", f->policy,
                                "--",          "touch",     marker,     NULL};
    run_child("/", argv, NULL, &P);
    if (P.status != 125) {
        describe("landlock run from /", CMD("touch", marker), &P);
        fail_msg("expected 125 from /, got %d", P.status);
    }
    if (!has_line(P.err, "lcsb: ", CMD("write: /: ", "system prefix")))
        fail_msg("no message naming \"/\":\n%s", P.err);
    assert_exists(marker, false);
    const char *const none[] = {LCSB_CLI_PATH, "--backend", "none", f->policy,
                                "--",          "touch",     marker, NULL};
    run_child("/", none, NULL, &P);
    if (P.status != 0) {
        describe("unsandboxed run from /", CMD("touch", marker), &P);
        fail_msg("the same run from / failed unsandboxed (%d)", P.status);
    }
    assert_exists(marker, true);
}

/* From a directory that is the caller's whole HOME, the default project would
 * be all of HOME: refused (125) naming HOME under every backend, since
 * exec_policy refuses it. Said on purpose (project = "~"), the same run works. */
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
    for (size_t i = 0; i < 2; i++) {
        lcsb_env(f, backends[i], cmd, env, &P);
        if (P.status != 0) {
            describe(backends[i], cmd, &P);
            fail_msg("project = \"~\" under %s: expected 0, got %d", backends[i], P.status);
        }
        assert_exists(marker, true);
        unlink(marker);
    }
}

/* ==== Beyond the file system: Landlock scopes, many runs, cleanup, kernel faults ====
 *
 * The cases below reach past paths: what the command may do to processes and
 * sockets outside its domain, what lcsb leaves behind when many runs share a
 * TMPDIR or when the command makes its private directories hard to remove,
 * and what the CLI does when the kernel refuses the calls the sandbox needs.
 * They keep to the rule of the file: every refusal has a twin that succeeds. */

#ifndef SYS_landlock_restrict_self
#define SYS_landlock_restrict_self 446
#endif

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
    return teardown(state);
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

/* LANDLOCK_SCOPE_SIGNAL (ABI 6): no signal to a process outside the domain,
 * even one of the same user. Inside it signals still work. */
static void test_signal_outside(void **state) {
    NEED_LANDLOCK();
    fx *f = *state;
    pid_t target = start_outside_process();
    char script[64];
    FMT(script, "kill -TERM %d", (int)target);
    policy(f, "exec = { \"sh\", \"sleep\" }");
    const char *const *cmd = CMD("sh", "-c", script);

    expect_denied(f, cmd, 1, &P);
    assert_contains(P.err, "kill: Operation not permitted", "stderr");
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
    assert_contains(P.out, "seize: Operation not permitted\n", "stdout");
    assert_contains(P.out, "read: Operation not permitted\n", "stdout");
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
    const char *argv[] = {
        LCSB_CLI_PATH, "--backend",
        "landlock",    f->policy,
        "--",          "sh",
        "-c",          "echo \"$HOME\"; echo \"$TMPDIR\"; touch \"$HOME/x\" \"$TMPDIR/y\"",
        NULL};
    /* Every child waits at the gate until the last one is forked. */
    int gate[2];
    assert_int_equal(pipe2(gate, O_CLOEXEC), 0);
    pid_t pids[CONCURRENT_RUNS];
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
            setenv("TMPDIR", t.dir, 1);
            execv(argv[0], (char *const *)argv);
            _exit(122);
        }
        setpgid(pids[i], pids[i]);
    }
    close(gate[0]);
    close(gate[1]);

    int status[CONCURRENT_RUNS];
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
    for (int i = 1; i < 2 * CONCURRENT_RUNS; i++)
        if (strcmp(dirs[i - 1], dirs[i]) == 0) fail_msg("two runs were both given %s", dirs[i]);
    for (int i = 0; i < 2 * CONCURRENT_RUNS; i++) free(dirs[i]);
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

/* ---- the kernel says no: the CLI under a seccomp fault ---- */

/* System call NR fails with ERR; with ARG0 >= 0 only when its first argument
 * is ARG0. */
struct fault {
    long nr;
    int err;
    long arg0;
};

/* Run CMD under `lcsb --backend landlock` inside fault_launcher, one launcher
 * per fault, the first outermost. */
static void lcsb_faulted(fx *f, const struct fault *faults, size_t n, const char *const *cmd,
                         const char *const *env, proc *p) {
    const char *argv[MAX_ARGV];
    char nums[4][3][24];
    size_t k = 0;
    assert_true(n <= 4);
    for (size_t i = 0; i < n; i++) {
        FMT(nums[i][0], "%ld", faults[i].nr);
        FMT(nums[i][1], "%d", faults[i].err);
        FMT(nums[i][2], "%ld", faults[i].arg0);
        argv[k++] = LCSB_FAULT_LAUNCHER_PATH;
        argv[k++] = nums[i][0];
        argv[k++] = nums[i][1];
        if (faults[i].arg0 >= 0) argv[k++] = nums[i][2];
        argv[k++] = "--";
    }
    argv[k] = NULL;
    lcsb_launched(f, argv, "landlock", NULL, cmd, env, p);
    if (p->status == 98) fail_msg("fault_launcher itself failed:\n%s", p->err);
}

static const struct fault_case {
    const char *what;
    struct fault faults[2];
    size_t n;
    int status;         /* lcsb's: 125 refused before running, 97 the shim's */
    const char *prefix; /* of the line that names the problem */
    const char *needles[4];
} fault_cases[] = {
    {"landlock_create_ruleset: ENOSYS",
     {{SYS_landlock_create_ruleset, ENOSYS, -1}},
     1,
     125,
     "lcsb: ",
     {"landlock", "no Landlock", NULL}},
    {"landlock_restrict_self: EPERM",
     {{SYS_landlock_restrict_self, EPERM, -1}},
     1,
     97,
     "lcsb-exec: ",
     {"cannot enforce the Landlock ruleset", "Operation not permitted", NULL}},
    /* Every prctl: lcsb cannot become the reaper of what the command leaves
     * running, and refuses to run it at all. */
    {"prctl: EPERM",
     {{SYS_prctl, EPERM, -1}},
     1,
     125,
     "lcsb: ",
     {"cannot become the reaper", "Operation not permitted", NULL}},
    /* Only lcsb's probe: it finds no seccomp, and the policy's net and
     * terminal guards need it: refused, naming what is missing. */
    {"prctl(PR_GET_SECCOMP): EPERM",
     {{SYS_prctl, EPERM, PR_GET_SECCOMP}},
     1,
     125,
     "lcsb: ",
     {"this host cannot enforce", "seccomp", "degrade = {", NULL}},
    {"prctl(PR_SET_NO_NEW_PRIVS): EPERM",
     {{SYS_prctl, EPERM, PR_SET_NO_NEW_PRIVS}},
     1,
     97,
     "lcsb-exec: ",
     {"cannot set no_new_privs", "Operation not permitted", NULL}},
    /* No seccomp filter can be installed, by either door: seccomp(2) and
     * prctl(PR_SET_SECCOMP). The inner launcher installs its filter with
     * seccomp(2), so the outer one refuses prctl. */
    {"seccomp and prctl(PR_SET_SECCOMP): EPERM",
     {{SYS_prctl, EPERM, PR_SET_SECCOMP}, {SYS_seccomp, EPERM, -1}},
     2,
     97,
     "lcsb-exec: ",
     {"cannot install the", "filter", "Operation not permitted", NULL}},
};

/* Each refusal stops the run before the command: lcsb's status (not the
 * command's 3), no marker, a line naming the problem, and no private HOME or
 * TMPDIR left behind. The twin: launchers refusing a call nobody makes (acct)
 * let the same command run. */
static void test_kernel_refuses(void **state) {
    NEED_LANDLOCK();
    fx *f = *state;
    run_tmp t;
    make_run_tmp(f, &t);
    char marker[PATH_MAX], script[PATH_MAX + 32];
    path_in(marker, f->project, "marker");
    FMT(script, "touch '%s'; exit 3", marker);
    const char *const *cmd = CMD("sh", "-c", script);
    policy(f, "exec = { \"sh\", \"touch\" }");

    for (size_t i = 0; i < sizeof fault_cases / sizeof fault_cases[0]; i++) {
        const struct fault_case *c = &fault_cases[i];
        lcsb_faulted(f, c->faults, c->n, cmd, ENV(t.env), &P);
        if (P.status != c->status) {
            describe(c->what, cmd, &P);
            fail_msg("%s: expected %d, got %d", c->what, c->status, P.status);
        }
        if (exists(marker)) fail_msg("%s: the command ran (the marker exists)", c->what);
        if (!has_line(P.err, c->prefix, c->needles))
            fail_msg("%s: no \"%s\" line naming the problem (%s):\n%s", c->what, c->prefix,
                     c->needles[0], P.err);
        if (c->status == 97 && !has_line(P.err, "lcsb: ", CMD("exited 97", "did not run")))
            fail_msg("%s: no trailer saying the command did not run:\n%s", c->what, P.err);
        assert_left_nothing(t.dir, c->what);
    }

    static const struct fault harmless[] = {{SYS_acct, EPERM, -1}, {SYS_acct, ENOSYS, -1}};
    for (size_t n = 1; n <= 2; n++) {
        lcsb_faulted(f, harmless, n, cmd, ENV(t.env), &P);
        if (P.status != 3) {
            describe("under a harmless fault", cmd, &P);
            fail_msg("%zu launcher(s) refusing acct: expected the command's 3, got %d", n,
                     P.status);
        }
        assert_exists(marker, true);
        unlink(marker);
        assert_left_nothing(t.dir, "under a harmless fault");
    }
}

/* ---- denials users understand ---- */

/* Real refusals from the real kernel, each ending in the trailer and a hint
 * naming the policy key that would allow it; the twins run unsandboxed. */
static void expect_hint(fx *f, const char *const *cmd, const char *hint) {
    expect_denied(f, cmd, -1, &P);
    if (!has_line(P.err, "lcsb: hint: ", CMD(hint))) {
        describe("landlock run", cmd, &P);
        fail_msg("no hint naming %s", hint);
    }
    expect_unsandboxed_ok(f, cmd, &P);
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
    expect_hint(f, CMD("sh", "-c", "ls / >/dev/null"), "exec = { \"ls\" }");
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
 * same bytes, and no hint that needs the tail. */
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
    static const char *const options[][2] = {{NULL, NULL}, {"--no-capture", NULL}};
    for (size_t i = 0; i < 2; i++) {
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
        /* The tail feeds the read hint; without it there is nothing to read. */
        bool hinted = strstr(trailer, "read = {") != NULL;
        if (hinted != (options[i][0] == NULL))
            fail_msg("%s: read hint %s", options[i][0] ? options[i][0] : "captured",
                     hinted ? "present" : "missing");
    }
}

/* ---- metadata and protected paths (a read-only world) ---- */

/* chmod, chown and touch -d on a file outside the policy: Landlock has no
 * right for them, the read-only mount namespace refuses them (EROFS). */
static void test_metadata_outside_refused(void **state) {
    NEED_MECHANISM();
    fx *f = *state;
    char file[PATH_MAX], chown_script[2 * PATH_MAX];
    /* Outside the policy; in a container, where nothing outside exists,
     * a file it may read. */
    write_file(path_in(file, strcmp(mech, "oci") == 0 ? f->ro : f->outside, "owned"), "x\n");
    assert_int_equal(chmod(file, 0644), 0);
    policy(f, "exec = { \"sh\", \"chmod\", \"chown\", \"touch\", \"id\" }, read = { \"%s\" }",
           f->ro);
    FMT(chown_script, "chown \"$(id -u):$(id -g)\" '%s'", file);
    const char *const *cmds[] = {CMD("chmod", "600", file), CMD("touch", "-d", "2001-02-03", file),
                                 CMD("sh", "-c", chown_script)};
    for (size_t i = 0; i < 3; i++) {
        expect_denied(f, cmds[i], -1, &P);
        assert_contains(P.err, "Read-only file system", "stderr");
        struct stat st;
        assert_int_equal(stat(file, &st), 0);
        assert_int_equal(st.st_mode & 07777, 0644);
        assert_true(st.st_mtime > 981158400 + 86400); /* not set back to 2001 */
        expect_unsandboxed_ok(f, cmds[i], &P);
        assert_int_equal(chmod(file, 0644), 0);
        assert_int_equal(utime(file, NULL), 0);
    }
}

/* In a repository inside the project, hooks and config stay read-only, also
 * through a symlink the command makes; the rest of the project, and git
 * commit, still work. */
static void test_git_hooks_protected(void **state) {
    NEED_MECHANISM();
    fx *f = *state;
    char hook[PATH_MAX], script[4 * PATH_MAX];
    FMT(script,
        "cd '%s' && git init -q . && git config user.email t@example.com && "
        "git config user.name t && git config maintenance.auto false && git config gc.auto 0",
        f->project);
    run_child(f->project, CMD("/bin/sh", "-c", script), NULL, &P);
    assert_int_equal(P.status, 0);
    path_in(hook, f->project, ".git/hooks/pre-commit");
    policy(f, "exec = { \"sh\", \"git\", \"ln\", \"mv\" }");
    FMT(script, "printf '#!/bin/sh\\ntouch planted\\n' > '%s' && chmod +x '%s'", hook, hook);
    const char *const *plant = CMD("sh", "-c", script);
    expect_denied(f, plant, -1, &P);
    assert_contains(P.err, "Read-only file system", "stderr");
    assert_exists(hook, false);
    const char *const *via_link =
        CMD("sh", "-c", "ln -s .git/hooks hooks-link && echo x > hooks-link/post-commit");
    expect_denied(f, via_link, -1, &P);
    char linked[PATH_MAX];
    assert_exists(path_in(linked, f->project, ".git/hooks/post-commit"), false);
    unlink(path_in(linked, f->project, "hooks-link"));
    const char *const *hooks_path = CMD("sh", "-c", "git config core.hooksPath /tmp");
    expect_denied(f, hooks_path, -1, &P);
    /* .git/commondir cannot be held before it exists; lcsb says it appeared. */
    expect_allowed(f, CMD("sh", "-c", "echo ../elsewhere > .git/commondir"), &P);
    if (!has_line(P.err, "lcsb: warning: ", CMD(".git/commondir", "remove it")))
        fail_msg("no warning about .git/commondir:\n%s", P.err);
    char commondir[PATH_MAX];
    unlink(path_in(commondir, f->project, ".git/commondir"));
    /* Nor can .git be renamed away and replaced by a copy nobody holds. */
    expect_denied(f, CMD("sh", "-c", "mv .git .git2"), -1, &P);
    assert_contains(P.err, "busy", "stderr");
    const char *const *commit =
        CMD("sh", "-c",
            "echo a > a.txt && git add a.txt && git commit -qm sandboxed && "
            "git log --format=%s");
    expect_allowed(f, commit, &P);
    assert_contains(P.out, "sandboxed", "git log");
    /* The twins: unsandboxed, the hook is planted (and removed again). */
    expect_unsandboxed_ok(f, plant, &P);
    assert_exists(hook, true);
    unlink(hook);
    expect_unsandboxed_ok(f, via_link, &P);
    expect_unsandboxed_ok(f, CMD("sh", "-c", "mv .git .git2 && mv .git2 .git"), &P);
    expect_unsandboxed_ok(f, hooks_path, &P);
}

/* Files outlive the sandbox: no set-id bit (chmod, or a mode given at
 * creation) and no extended attribute (file capabilities are one) can be
 * set, or a command run as root could leave a set-uid root shell behind. */
static void test_setid_refused(void **state) {
    NEED_LANDLOCK();
    fx *f = *state;
    policy(f, "exec = { \"sh\", \"cp\", \"chmod\", \"python3\" }");
    const char *const *cases[] = {
        CMD("sh", "-c", "cp /bin/true t && chmod 4755 t"),
        CMD("python3", "-c",
            "import os; os.close(os.open('t2', os.O_CREAT | os.O_WRONLY, 0o2755))"),
        CMD("python3", "-c",
            "open('t3', 'w').close(); import os; os.setxattr('t3', 'user.t', b'1')"),
    };
    char file[PATH_MAX];
    for (size_t i = 0; i < 3; i++) {
        expect_denied(f, cases[i], -1, &P);
        struct stat st;
        if (i < 2 && stat(path_in(file, f->project, i == 0 ? "t" : "t2"), &st) == 0)
            assert_int_equal(st.st_mode & (S_ISUID | S_ISGID), 0);
        expect_unsandboxed_ok(f, cases[i], &P);
    }
    struct stat st;
    assert_int_equal(stat(path_in(file, f->project, "t"), &st), 0);
    assert_true(st.st_mode & S_ISUID); /* the twin did set it */
}

/* A command that exits 97 and prints what the shim would is still the
 * command: only the shim's report pipe makes lcsb say nothing ran. */
static void test_fake_setup_failure(void **state) {
    NEED_LANDLOCK();
    fx *f = *state;
    char ran[PATH_MAX], script[2 * PATH_MAX];
    path_in(ran, f->project, "ran");
    FMT(script, "echo 'lcsb-exec: cannot reach the kernel: fake' >&2; touch '%s'; exit 97", ran);
    policy(f, "exec = { \"sh\", \"touch\" }");
    lcsb(f, "landlock", CMD("sh", "-c", script), &P);
    assert_int_equal(P.status, 97);
    assert_exists(ran, true);
    assert_contains(P.err, "lcsb: sh exited 97 under landlock", "trailer");
    assert_lacks(P.err, "did not run", "trailer");
    assert_lacks(P.err, "the shim could not", "hints");
}

/* Where there is nothing to hold yet: a repository without a hooks
 * directory gets an empty one, held like any other; in a project that is
 * not a repository, .git itself is held (an empty directory git passes
 * over), so the command cannot make one with hooks of its own, and it is
 * gone again after the run. */
static void test_git_hooks_before_they_exist(void **state) {
    NEED_LANDLOCK();
    fx *f = *state;
    char git[PATH_MAX], hooks[PATH_MAX], hook[PATH_MAX + 16];
    path_in(git, f->project, ".git");
    policy(f, "exec = { \"sh\", \"git\", \"mkdir\" }");
    const char *const *init = CMD("sh", "-c", "git init -q . && echo made > .git/hooks/pre-commit");
    expect_denied(f, init, -1, &P);
    assert_contains(P.err, "Read-only file system", "stderr");
    assert_exists(git, false);
    expect_unsandboxed_ok(f, init, &P);
    assert_exists(git, true);
    /* Now a repository, but without hooks: lcsb makes the directory and holds it. */
    char script[2 * PATH_MAX];
    FMT(script, "rm -rf '%s'", path_in(hooks, f->project, ".git/hooks"));
    run_child(f->project, CMD("/bin/sh", "-c", script), NULL, &P);
    assert_exists(hooks, false);
    const char *const *plant =
        CMD("sh", "-c", "mkdir -p .git/hooks; echo x > .git/hooks/pre-commit");
    expect_denied(f, plant, -1, &P);
    assert_exists(hooks, true);
    FMT(hook, "%s/pre-commit", hooks);
    assert_exists(hook, false);
    expect_unsandboxed_ok(f, plant, &P);
    assert_exists(hook, true);
}

/* A run killed with SIGKILL leaves its placeholder, an empty .git, behind.
 * The next run must not take it for a repository (one whose .git is
 * writable and whose config, not there yet, is not held): git init there is
 * refused, no config is written, and the empty .git is gone afterwards. The
 * twin: unsandboxed, git init makes the repository in it, and lcsb says so. */
static void test_git_placeholder_left_behind(void **state) {
    NEED_LANDLOCK();
    fx *f = *state;
    char git[PATH_MAX], config[PATH_MAX + 16];
    path_in(git, f->project, ".git");
    FMT(config, "%s/config", git);
    policy(f, "exec = { \"sh\", \"git\" }");
    const char *const *init = CMD("sh", "-c", "git init -q .");
    assert_int_equal(mkdir(git, 0755), 0);
    expect_denied(f, init, -1, &P);
    assert_contains(P.err, "Read-only file system", "stderr");
    assert_exists(config, false);
    assert_exists(git, false);
    assert_int_equal(mkdir(git, 0755), 0);
    expect_unsandboxed_ok(f, init, &P);
    assert_exists(config, true);
    assert_contains(P.err, "became a repository during the run", "the warning");
}

/* A worktree's or a submodule's .git is a file naming the directory git
 * uses. Rewritten, it would send the user's next git to hooks and a config
 * the command wrote: it is held read-only, and cannot be moved or removed
 * either. The twin: unsandboxed, it can be replaced. */
static void test_git_file_protected(void **state) {
    NEED_LANDLOCK();
    fx *f = *state;
    char git[PATH_MAX];
    write_file(path_in(git, f->project, ".git"), "gitdir: /nonexistent/worktree\n");
    policy(f, "exec = { \"sh\", \"mv\", \"rm\" }");
    const char *const *rewrite =
        CMD("sh", "-c", "mv .git moved || rm -f .git; echo 'gitdir: evil' > .git");
    expect_denied(f, rewrite, -1, &P);
    assert_content(git, "gitdir: /nonexistent/worktree\n");
    expect_unsandboxed_ok(f, rewrite, &P);
    assert_content(git, "gitdir: evil\n");
}

/* ---- older kernels: refuse what cannot be enforced, unless told ---- */

/* LCSB_LANDLOCK_ABI_MAX=3 makes this kernel look like one without TCP
 * rules, scoping or device-ioctl rules. A policy that does not say what may
 * degrade is refused before anything runs, naming the parts; one that does
 * runs, attests what was dropped, and still has no network: the socket
 * filter refuses TCP sockets on its own. The twin: the same connect under
 * none reaches the listener. */
static void test_older_abi_refused_unless_degraded(void **state) {
    NEED_LANDLOCK();
    fx *f = *state;
    int port;
    int l = listener(SOCK_STREAM, &port);
    char marker[PATH_MAX], script[PATH_MAX + 64];
    path_in(marker, f->project, "marker");
    FMT(script, "touch '%s'; exec 3<>/dev/tcp/127.0.0.1/%d", marker, port);
    const char *const *cmd = CMD("bash", "-c", script);
    const char *const *abi3 = ENV("LCSB_LANDLOCK_ABI_MAX=3");

    policy(f, "exec = { \"bash\", \"touch\" }");
    lcsb_env(f, "landlock", cmd, abi3, &P);
    if (P.status != 125) {
        describe("ABI 3 without degrade", cmd, &P);
        fail_msg("expected 125 on an ABI 3 host without degrade, got %d", P.status);
    }
    assert_contains(P.err, "cannot enforce scope", "stderr");
    assert_contains(P.err, "degrade = { \"scope\", \"ioctl\" }", "stderr");
    assert_lacks(P.err, "\"net\"", "stderr"); /* a denied network holds on ABI 3 */
    assert_exists(marker, false);

    policy(f, "exec = { \"bash\", \"touch\" }, degrade = { \"scope\", \"ioctl\" }");
    lcsb_opts(f, "landlock", CMD("--attest", "-"), cmd, abi3, &P);
    if (P.status != 1) {
        describe("ABI 3, scope and ioctl degraded", cmd, &P);
        fail_msg("expected the connect to fail (1), got %d", P.status);
    }
    assert_exists(marker, true);
    assert_false(accepted(l));
    assert_contains(P.err, "\"net\":\"denied\",\"net_covers\":\"all\",\"net_by\":\"seccomp\",",
                    "attestation");
    assert_contains(P.err, "\"abi\":3,", "attestation");
    assert_contains(P.err, "\"scoped\":false,\"dropped\":[\"scope\",\"ioctl\"]", "attestation");
    assert_contains(P.err, "not enforced here: scope ioctl", "trailer");
    unlink(marker);

    /* Ports need TCP rules: refused even with scope and ioctl let go. */
    policy(f,
           "exec = { \"bash\", \"touch\" }, net = { connect = { %d } }, "
           "degrade = { \"scope\", \"ioctl\" }",
           port);
    lcsb_env(f, "landlock", cmd, abi3, &P);
    assert_int_equal(P.status, 125);
    assert_contains(P.err, "net (Landlock ABI 3 has no TCP port rules", "stderr");
    assert_exists(marker, false);

    expect_unsandboxed_ok(f, cmd, &P);
    assert_true(accepted(l));
    close(l);
}

/* The cap only lowers, and a bad value is refused, not ignored. */
static void test_abi_cap_only_lowers(void **state) {
    NEED_LANDLOCK();
    fx *f = *state;
    policy(f, "exec = { \"sh\" }");
    const char *const *cmd = CMD("sh", "-c", "exit 0");
    lcsb_opts(f, "landlock", CMD("--attest", "-"), cmd, ENV("LCSB_LANDLOCK_ABI_MAX=99"), &P);
    assert_int_equal(P.status, 0);
    char abi[32];
    FMT(abi, "\"abi\":%d", landlock_abi > 7 ? 7 : landlock_abi);
    assert_contains(P.err, abi, "attestation");
    lcsb_env(f, "landlock", cmd, ENV("LCSB_LANDLOCK_ABI_MAX=0"), &P);
    assert_int_equal(P.status, 125);
    assert_contains(P.err, "no Landlock", "stderr");
    lcsb_env(f, "landlock", cmd, ENV("LCSB_LANDLOCK_ABI_MAX=seven"), &P);
    assert_int_equal(P.status, 125);
    assert_contains(P.err, "LCSB_LANDLOCK_ABI_MAX=\"seven\"", "stderr");
}

/* A mount inside the private HOME (only root can make one, and only
 * unsandboxed) is never crossed, a bind mount of this very file system
 * included: what is mounted survives with its modes, and lcsb says that HOME
 * could not be removed instead of keeping quiet. */
static void test_cleanup_reports_what_stays(void **state) {
    NEED_LANDLOCK();
    fx *f = *state;
    if (geteuid() != 0) skip();
    run_tmp t;
    make_run_tmp(f, &t);
    char victim[PATH_MAX], file[PATH_MAX], script[2 * PATH_MAX];
    assert_int_equal(mkdir(path_in(victim, f->outside, "victim"), 0755), 0);
    assert_int_equal(mkdir(path_in(file, victim, "sub"), 0750), 0);
    write_file(path_in(file, victim, "keep"), "keep\n");
    policy(f, "exec = { \"sh\", \"mount\", \"mkdir\" }");
    FMT(script,
        "echo \"$HOME\"; mkdir \"$HOME/b\" \"$HOME/t\" && mount --bind '%s' \"$HOME/b\" && "
        "mount -t tmpfs none \"$HOME/t\" && echo kept > \"$HOME/t/f\"",
        victim);
    lcsb_env(f, "none", CMD("sh", "-c", script), ENV(t.env), &P);
    char home[PATH_MAX], bound[PATH_MAX + 4], tmpfs[PATH_MAX + 4];
    first_line(P.out, home, sizeof home);
    FMT(bound, "%s/b", home);
    FMT(tmpfs, "%s/t", home);
    bool bind_made = is_mount_point(bound), tmpfs_made = is_mount_point(tmpfs);
    if (bind_made) FMT(f->mounted, "%s", bound); /* teardown unmounts on failure */
    if (P.status != 0 || !bind_made || !tmpfs_made) describe("mounting in HOME", CMD(script), &P);
    assert_int_equal(P.status, 0);
    assert_true(bind_made && tmpfs_made);
    assert_content(path_in(file, tmpfs, "f"), "kept\n");
    assert_int_equal(umount2(tmpfs, MNT_DETACH), 0);
    assert_content(path_in(file, victim, "keep"), "keep\n");
    struct stat st;
    assert_int_equal(stat(path_in(file, victim, "sub"), &st), 0);
    assert_int_equal(st.st_mode & 07777, 0750);
    if (!has_line(P.err, "lcsb: warning: ", CMD("could not remove all of", home)))
        fail_msg("no warning naming %s:\n%s", home, P.err);
}

#define T(name) cmocka_unit_test_setup_teardown(name, setup, teardown)
#define T_OUTSIDE(name) cmocka_unit_test_setup_teardown(name, setup, teardown_outside)

/* ---- the OCI backend: the same policy as a container's world ---- */

/* What podman needs on this kind of host (Debian's podman, runc, hybrid
 * cgroups): cgroupfs, runc, and explicit limits a rootless container may set. */
static const char containers_conf[] =
    "[containers]\n"
    "default_ulimits = [\"nofile=1024:1024\", \"nproc=4096:4096\"]\n"
    "[engine]\n"
    "cgroup_manager = \"cgroupfs\"\n"
    "runtime = \"runc\"\n"
    "events_logger = \"file\"\n";

static int oci_group_setup(void **state) {
    (void)state;
    mech = "oci";
    oci_ready = access("/usr/bin/podman", X_OK) == 0;
    if (!oci_ready) {
        fprintf(stderr, "# no podman on this host%s\n",
                landlock_required() ? "; LCSB_SANDBOX_TESTS_REQUIRED=1: failing" : "; skipping");
        return 0;
    }
    /* The container's root: an empty directory the read baseline is mounted into. */
    FMT(oci_rootfs, "/tmp/lcsb-enf-rootfs.XXXXXX");
    if (!mkdtemp(oci_rootfs)) return -1;
    if (!getenv("CONTAINERS_CONF")) {
        FMT(oci_conf, "/tmp/lcsb-enf-containers.XXXXXX");
        int fd = mkstemp(oci_conf);
        if (fd < 0) return -1;
        bool written =
            write(fd, containers_conf, strlen(containers_conf)) == (ssize_t)strlen(containers_conf);
        close(fd);
        if (!written) return -1;
        setenv("CONTAINERS_CONF", oci_conf, 1);
    }
    return 0;
}

static int oci_group_teardown(void **state) {
    (void)state;
    rm_rf(oci_rootfs);
    if (oci_conf[0]) {
        unlink(oci_conf);
        unsetenv("CONTAINERS_CONF");
    }
    mech = NULL;
    return 0;
}

/* The issue's "done when", as a new user would try it: the command writes in
 * the project (as the caller), cannot read or write outside, and sees only
 * the loopback interface: TCP and UDP to the host's own loopback do not
 * arrive. Each refusal works under none. */
static void test_oci_world(void **state) {
    NEED_MECHANISM();
    fx *f = *state;
    char secret[PATH_MAX], made[PATH_MAX], outside_new[PATH_MAX], script[4 * PATH_MAX];
    write_file(path_in(secret, f->outside, "secret"), SECRET "\n");
    path_in(made, f->project, "made");
    path_in(outside_new, f->outside, "new");
    fs_policy(f);

    expect_allowed(f, CMD("sh", "-c", "echo built > made && cat made"), &P);
    assert_content(made, "built\n");
    struct stat st;
    assert_int_equal(stat(made, &st), 0);
    assert_int_equal(st.st_uid, geteuid());
    assert_int_equal(st.st_gid, getegid());

    expect_denied(f, CMD("cat", secret), 1, &P);
    assert_lacks(P.out, SECRET, "stdout");
    FMT(script, "echo x > '%s'", outside_new);
    expect_denied(f, CMD("sh", "-c", script), 2, &P);
    assert_exists(outside_new, false);

    /* Only lo: the interface table's lines past its two headers. */
    const char *const *ifaces =
        CMD("sh", "-c", "tail -n +3 /proc/net/dev | cut -d: -f1 | tr -d ' '");
    expect_allowed(f, ifaces, &P);
    assert_string_equal(P.out, "lo\n");

    int tcp_port, udp_port;
    int tcp = listener(SOCK_STREAM, &tcp_port), udp = listener(SOCK_DGRAM, &udp_port);
    FMT(script, "exec 3<>/dev/tcp/127.0.0.1/%d", tcp_port);
    policy(f, "exec = { \"bash\" }");
    expect_denied(f, CMD("bash", "-c", script), 1, &P);
    assert_false(accepted(tcp));
    char port[16];
    FMT(port, "%d", udp_port);
    lcsb(f, mech, CMD(PYTHON, "-c", udp_py, port), &P);
    if (received(udp)) fail_msg("a datagram from the container reached the host's loopback");

    /* The twins. */
    expect_unsandboxed_ok(f, CMD("cat", secret), &P);
    assert_contains(P.out, SECRET, "stdout");
    expect_unsandboxed_ok(f, CMD("bash", "-c", script), &P);
    assert_true(accepted(tcp));
    expect_unsandboxed_ok(f, CMD(PYTHON, "-c", udp_py, port), &P);
    assert_true(received(udp));
    close(tcp);
    close(udp);
}

/* The attestation says what a container holds, and that it runs any
 * program it finds: exec is open. */
static void test_oci_attestation(void **state) {
    NEED_MECHANISM();
    fx *f = *state;
    fs_policy(f);
    lcsb_opts(f, mech, CMD("--attest", "-"), CMD("true"), NULL, &P);
    assert_int_equal(P.status, 0);
    assert_contains(P.err,
                    "{\"backend\":\"oci\",\"fs\":\"enforced\",\"exec\":\"open\",\"net\":\"denied\","
                    "\"net_covers\":\"all\",\"net_by\":\"namespace\",\"metadata\":\"readonly\"",
                    "the attestation");
    expect_denied(f, CMD("sh", "-c", "exit 3"), 3, &P);
    assert_contains(P.err, "lcsb: sh exited 3 under oci (fs: enforced, exec: open, net: denied)",
                    "the trailer");
}

/* A launcher prefix rides inside a container and in front of a host
 * mechanism's shim. The launcher notes where it ran: inside, no_new_privs is
 * already set (the engine's); in front of the shim, it is not yet. */
static void test_oci_prefix_placement(void **state) {
    NEED_MECHANISM();
    fx *f = *state;
    char *mine = slurp("/proc/self/status");
    assert_non_null(mine);
    bool caller_has_nnp = strstr(mine, "NoNewPrivs:\t1\n") != NULL;
    free(mine);
    if (caller_has_nnp) {
        fprintf(stderr, "# skipped: this test runs with no_new_privs set already\n");
        skip();
    }
    char launcher[PATH_MAX], saw[PATH_MAX], script[3 * PATH_MAX];
    path_in(saw, f->project, "launcher-saw");
    FMT(script, "#!/bin/sh\ngrep NoNewPrivs /proc/self/status > '%s'\nexec \"$@\"\n", saw);
    write_file(path_in(launcher, f->project, "launch"), script);
    assert_int_equal(chmod(launcher, 0755), 0);
    policy(f, "exec = { \"sh\", \"grep\", \"%s\" }", launcher);
    static const struct {
        const char *backend, *launcher_saw;
    } where[] = {{"oci", "NoNewPrivs:\t1\n"}, {"landlock", "NoNewPrivs:\t0\n"}};
    for (size_t i = 0; i < 2; i++) {
        unlink(saw);
        lcsb_opts(f, where[i].backend, CMD("--prefix", launcher), CMD("sh", "-c", "echo ran"), NULL,
                  &P);
        if (P.status != 0) {
            describe(where[i].backend, CMD("sh"), &P);
            fail_msg("the prefixed run failed under %s", where[i].backend);
        }
        assert_contains(P.out, "ran", "stdout");
        assert_content(saw, where[i].launcher_saw);
    }
}

/* Nothing of the caller's environment enters the container but what the
 * policy's overlay puts there. */
static void test_oci_environment(void **state) {
    NEED_MECHANISM();
    fx *f = *state;
    policy(f, "exec = { \"sh\" }, env = { FOO = \"bar\" }");
    lcsb_env(f, mech, CMD("sh", "-c", "echo \"FOO=$FOO\"; echo \"SECRET=${SECRET-<unset>}\""),
             ENV("SECRET=hunter2"), &P);
    assert_int_equal(P.status, 0);
    assert_contains(P.out, "FOO=bar\n", "stdout");
    assert_contains(P.out, "SECRET=<unset>\n", "stdout");
}

/* A mount beneath a read-only path stays read-only: the engine's binds are
 * not recursive, so the container sees the directory beneath, not the mount.
 * Root only (it mounts); the twin writes through the mount unsandboxed. */
static void test_oci_mount_beneath_read_path(void **state) {
    NEED_MECHANISM();
    fx *f = *state;
    if (geteuid() != 0) {
        fprintf(stderr, "# skipped: only root can mount the tmpfs this case needs\n");
        skip();
    }
    char sub[PATH_MAX], target[PATH_MAX], script[2 * PATH_MAX];
    assert_int_equal(mkdir(path_in(sub, f->ro, "sub"), 0755), 0);
    if (mount("none", sub, "tmpfs", 0, "size=1m") != 0)
        fail_msg("mount tmpfs: %s", strerror(errno));
    FMT(f->mounted, "%s", sub);
    path_in(target, sub, "planted");
    FMT(script, "echo x > '%s'", target);
    fs_policy(f);
    expect_denied(f, CMD("sh", "-c", script), 2, &P);
    assert_exists(target, false);
    expect_unsandboxed_ok(f, CMD("sh", "-c", script), &P);
    assert_exists(target, true);
}

#define ENTRY_IMAGE "localhost/lcsb-enf-entry"

/* An image world runs the command, not the image's entrypoint with the
 * command as its arguments. The image (busybox, with an entrypoint that
 * says so and fails) is made here. */
static void test_oci_image_entrypoint_reset(void **state) {
    NEED_MECHANISM();
    fx *f = *state;
    if (access("/bin/busybox", X_OK) != 0) {
        if (landlock_required()) fail_msg("no /bin/busybox (busybox-static) to make an image with");
        fprintf(stderr, "# skipped: no /bin/busybox to make an image with\n");
        skip();
    }
    char script[4 * PATH_MAX], text[1024];
    FMT(script,
        "set -e; d=$(mktemp -d); trap 'rm -rf \"$d\"' EXIT; chmod 755 \"$d\"; "
        "mkdir -p \"$d/bin\" \"$d/usr/bin\"; "
        "cp /bin/busybox \"$d/bin/\"; for t in sh env echo cat; do ln -s /bin/busybox "
        "\"$d/bin/$t\"; done; ln -s /bin/busybox \"$d/usr/bin/env\"; "
        "tar -C \"$d\" -cf - . | podman import --change "
        "'ENTRYPOINT [\"/bin/sh\",\"-c\",\"echo ENTRYPOINT-RAN; exit 9\"]' - %s",
        ENTRY_IMAGE);
    run_child(f->project, CMD("/bin/sh", "-c", script), NULL, &P);
    if (P.status != 0) fail_msg("podman import failed (%d): %s", P.status, P.err);
    FMT(text,
        "local lcsb = require \"lcsb\"\nreturn lcsb.exec_policy{ exec = { \"sh\" }, "
        "oci = { image = \"%s\" } }\n",
        ENTRY_IMAGE);
    raw_policy(f, text);
    expect_allowed(f, CMD("sh", "-c", "echo the command ran > made; cat made"), &P);
    assert_contains(P.out, "the command ran", "stdout");
    assert_lacks(P.out, "ENTRYPOINT-RAN", "stdout");
    char made[PATH_MAX];
    assert_content(path_in(made, f->project, "made"), "the command ran\n");
    run_child(f->project, CMD("podman", "rmi", "-f", ENTRY_IMAGE), NULL, &P);
}

/* TCP ports are no mount: refused before anything runs, unless the network
 * may degrade, and then the attestation says it was dropped. */
static void test_oci_ports_refused_unless_degraded(void **state) {
    NEED_MECHANISM();
    fx *f = *state;
    char marker[PATH_MAX], script[PATH_MAX + 16];
    FMT(script, "touch '%s'", path_in(marker, f->project, "ran"));
    policy(f, "exec = { \"sh\" }, net = { connect = { 443 } }");
    lcsb(f, mech, CMD("sh", "-c", script), &P);
    assert_int_equal(P.status, 125);
    assert_contains(P.err, "degrade = { \"net\" }", "stderr");
    assert_exists(marker, false);
    /* An open network for a rootless container is slirp4netns's, which needs
     * /dev/net/tun: where this user cannot open it, the engine cannot give one. */
    if (geteuid() != 0 && access("/dev/net/tun", R_OK | W_OK) != 0) {
        fprintf(stderr, "# the degraded run skipped: /dev/net/tun is closed to uid %u\n",
                geteuid());
        return;
    }
    policy(f, "exec = { \"sh\" }, net = { connect = { 443 } }, degrade = { \"net\" }");
    /* The engine sets up its network with iptables, from sbin. */
    lcsb_opts(f, mech, CMD("--attest", "-"), CMD("sh", "-c", script),
              ENV("PATH=/usr/sbin:/usr/bin:/sbin:/bin"), &P);
    if (P.status != 0) {
        describe(mech, CMD("sh", "-c", script), &P);
        fail_msg("expected the run with the network open to succeed, got %d", P.status);
    }
    assert_exists(marker, true);
    assert_contains(P.err, "\"net\":\"open\"", "the attestation");
    assert_contains(P.err, "\"dropped\":[\"net\"]", "the attestation");
}

int main(void) {
    const struct CMUnitTest tests[] = {
        T(test_read_outside_file),
        T(test_read_real_home),
        T(test_list_outside_dir),
        T(test_symlink_to_outside),
        T(test_proc_self_root),
        T(test_read_etc_secrets),
        T(test_create_outside),
        T(test_write_outside),
        T(test_delete_outside),
        T(test_truncate_read_only),
        T(test_overwrite_read_only),
        T(test_hard_link),
        T(test_rename),
        T(test_exec_unlisted),
        T(test_exec_fresh_binary),
        T(test_exec_dir_refused),
        T(test_exec_dir_symlinked_python),
        T(test_tcp_connect),
        T(test_tcp_bind),
        T(test_udp_denied),
        T(test_mount),
        T(test_private_home),
        T(test_home_removed_after_signal),
        T(test_home_cleanup_follows_no_link),
        T(test_env_overlay),
        T(test_no_new_privs),
        T(test_exit_statuses),
        T(test_policy_syntax_error),
        T(test_policy_hostile_scripts),
        T(test_many_paths_policy),
        T(test_policy_unknown_key),
        T(test_policy_relative_read),
        T(test_backend_none_warns),
        T(test_leaked_fd_closed),
        T(test_attest_unwritable),
        T(test_signals_while_running),
        T(test_command_dies_with_lcsb),
        T(test_leftovers_ended),
        T(test_mknod_refused),
        T(test_other_terminal_refused),
        T(test_run_from_root_refused),
        T(test_run_from_home_refused),
        /* Beyond the file system: scopes, many runs, cleanup, kernel faults. */
        T(test_abstract_unix_socket_outside),
        T_OUTSIDE(test_signal_outside),
        T_OUTSIDE(test_ptrace_outside),
        T(test_concurrent_runs),
        T(test_cleanup_mode_000),
        T(test_cleanup_deep_tree),
        T(test_kernel_refuses),
        T(test_hints_name_the_key),
        T(test_stderr_relayed_exactly),
        T(test_metadata_outside_refused),
        T(test_git_hooks_protected),
        T(test_git_hooks_before_they_exist),
        T(test_git_placeholder_left_behind),
        T(test_git_file_protected),
        T(test_setid_refused),
        T(test_fake_setup_failure),
        T(test_older_abi_refused_unless_degraded),
        T(test_abi_cap_only_lowers),
        T(test_cleanup_reports_what_stays),
    };
    /* The cases whose refusal a container gives too (the exec allowlist, the
     * ABI and the shim's own cases are Landlock's), and the OCI ones. */
    const struct CMUnitTest oci_tests[] = {
        T(test_oci_world),
        T(test_oci_attestation),
        T(test_oci_prefix_placement),
        T(test_oci_environment),
        T(test_oci_ports_refused_unless_degraded),
        T(test_oci_mount_beneath_read_path),
        T(test_oci_image_entrypoint_reset),
        T(test_read_outside_file),
        T(test_read_real_home),
        T(test_list_outside_dir),
        T(test_symlink_to_outside),
        T(test_proc_self_root),
        T(test_create_outside),
        T(test_write_outside),
        T(test_truncate_read_only),
        T(test_overwrite_read_only),
        T(test_hard_link),
        T(test_rename),
        T(test_mount),
        T(test_private_home),
        T(test_home_cleanup_follows_no_link),
        T(test_no_new_privs),
        T(test_metadata_outside_refused),
        T(test_git_hooks_protected),
        T(test_git_hooks_before_they_exist),
        T(test_git_placeholder_left_behind),
        T(test_git_file_protected),
    };
    int failed = cmocka_run_group_tests_name("sandbox_enforcement", tests, group_setup, NULL);
    return failed | cmocka_run_group_tests_name("sandbox_enforcement_oci", oci_tests,
                                                oci_group_setup, oci_group_teardown);
}
