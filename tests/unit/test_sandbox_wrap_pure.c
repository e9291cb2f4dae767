/* Rule 1: wrap is pure. test_wrap_is_pure runs wrap, compose and attest under
 * a seccomp filter that kills any syscall but memory management and exit, in
 * a forked child and in a fresh process; the same inputs give the same bytes
 * whatever the environment says. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h> /* after the four above, which it needs */

#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#ifdef __linux__
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#endif

#include "internal.h"
#include "wrap_fixture.h"

/* The purity tests need a native seccomp architecture; under a sanitizer
 * (CMakeLists.txt defines LCSB_SANITIZED) the runtime makes syscalls of its
 * own, so they skip there and the release build runs them. */
#if defined(LCSB_SANITIZED)
#elif defined(__linux__) && defined(__x86_64__)
#define NATIVE_ARCH AUDIT_ARCH_X86_64
#elif defined(__linux__) && defined(__aarch64__)
#define NATIVE_ARCH AUDIT_ARCH_AARCH64
#endif

/* ---- rule 1: wrap is pure ---- */

/* One backend configuration of the purity test. */
typedef struct pure_case {
    const char *name;
    int abi; /* 0: none, PURE_OCI: oci, PURE_SEATBELT: seatbelt */
} pure_case;

#define PURE_OCI (-1)
#define PURE_SEATBELT (-2)
static const pure_case pure_cases[] = {
    {"landlock abi 1", 1},       {"landlock abi 4", 4}, {"landlock abi 6", 6},
    {"landlock abi 7", 7},       {"none", 0},           {"oci", PURE_OCI},
    {"seatbelt", PURE_SEATBELT},
};
#define PURE_CASES (sizeof pure_cases / sizeof pure_cases[0])

static const char *const pure_argv[] = {"python3", "-m", "pytest", "-q", "a=b", "--", NULL};
static const char *const pure_prefix[] = {"uv", "run", "--", NULL};

/* A policy large enough that sorting its read tier takes more than a small
 * stack buffer in a libc's qsort (glibc allocates, and asks the system how
 * much memory it has, past 1 KiB of pointers), with every tier, the env
 * overlay and ports; net open below ABI 4, where ports cannot be held; every
 * part allowed to degrade, so that older ABIs drop some. */
static lcsb_policy *pure_policy(int abi) {
    lcsb_policy *p = lcsb_policy_new();
    if (!p) return NULL;
    char path[64];
    bool ok = true;
    for (int i = 511; i >= 0 && ok; i--) {
        snprintf(path, sizeof path, "/data/set%03d/part-%03d", i % 37, i);
        ok = !lcsb_policy_add_read(p, path, NULL);
    }
    ok = ok && !lcsb_policy_add_read(p, "/usr", NULL) && !lcsb_policy_add_read(p, "/etc", NULL);
    for (int i = 199; i >= 0 && ok; i--) {
        snprintf(path, sizeof path, "/opt/tool/bin/prog%03d", i);
        ok = !lcsb_policy_add_exec(p, path, NULL);
    }
    ok = ok && !lcsb_policy_add_exec(p, "/usr/bin/env", NULL) &&
         !lcsb_policy_add_write(p, "/home/u/proj", NULL) &&
         !lcsb_policy_add_write(p, "/tmp/lcsb-home.abc123", NULL) &&
         !lcsb_policy_set_env(p, "HOME", "/tmp/lcsb-home.abc123", NULL) &&
         !lcsb_policy_set_env(p, "AWS_SECRET_ACCESS_KEY", NULL, NULL) &&
         !lcsb_policy_set_cwd(p, "/home/u/proj", NULL);
    lcsb_policy_set_degradable(p, LCSB_PARTS_ALL);
    if (abi >= 4 || abi <= 0) {
        ok = ok && !lcsb_policy_add_port(p, LCSB_PORT_CONNECT, 443, NULL) &&
             !lcsb_policy_add_port(p, LCSB_PORT_CONNECT, 80, NULL) &&
             !lcsb_policy_add_port(p, LCSB_PORT_BIND, 8080, NULL);
    } else {
        lcsb_policy_set_net(p, LCSB_NET_OPEN);
    }
    if (!ok) {
        lcsb_policy_free(p);
        return NULL;
    }
    return p;
}

static lcsb_backend *pure_backend(int abi) {
    lcsb_backend *b = NULL;
    static const lcsb_oci_world world = {.engine = "/usr/bin/podman", .rootfs = "/srv/root"};
    int rc = abi == PURE_OCI        ? lcsb_backend_oci(NULL, &world, &b, NULL)
             : abi == PURE_SEATBELT ? lcsb_backend_seatbelt(&b, NULL)
             : abi                  ? lcsb_backend_landlock(abi, SHIM, &b, NULL)
                                    : lcsb_backend_none(&b, NULL);
    return rc ? NULL : b;
}

typedef struct bytes {
    char *p;
    size_t len, cap;
    bool oom;
} bytes;

static void bytes_add(bytes *b, const void *s, size_t len) {
    if (b->oom) return;
    if (b->len + len > b->cap) {
        size_t cap = b->cap ? b->cap : 4096;
        while (cap < b->len + len) cap *= 2;
        char *p = realloc(b->p, cap);
        if (!p) {
            b->oom = true;
            return;
        }
        b->p = p;
        b->cap = cap;
    }
    memcpy(b->p + b->len, s, len);
    b->len += len;
}

static void bytes_add_argv(bytes *b, char **argv) {
    for (size_t i = 0; argv[i]; i++) bytes_add(b, argv[i], strlen(argv[i]) + 1);
    bytes_add(b, "\x01", 1);
}

/* Everything the pure functions give for this configuration, as bytes:
 * wrap, compose with and without the prefix, attest and its JSON. 0 or -1. */
static int pure_outputs(const lcsb_backend *b, const lcsb_policy *p, bytes *out) {
    char **argv = NULL;
    lcsb_attestation a;
    if (lcsb_backend_wrap(b, p, pure_argv, &argv, NULL)) return -1;
    bytes_add_argv(out, argv);
    lcsb_argv_free(argv);
    if (lcsb_compose(b, p, NULL, pure_argv, &argv, NULL)) return -1;
    bytes_add_argv(out, argv);
    lcsb_argv_free(argv);
    if (lcsb_compose(b, p, pure_prefix, pure_argv, &argv, NULL)) return -1;
    bytes_add_argv(out, argv);
    int rc = lcsb_attest((const char *const *)argv, pure_prefix, &a, NULL);
    char *json = rc ? NULL : lcsb_attestation_json(&a);
    char *argv_json = lcsb_argv_json((const char *const *)argv);
    lcsb_argv_free(argv);
    if (!json || !argv_json) {
        free(json);
        free(argv_json);
        return -1;
    }
    bytes_add(out, json, strlen(json) + 1);
    bytes_add(out, argv_json, strlen(argv_json) + 1);
    free(json);
    free(argv_json);
    return out->oom ? -1 : 0;
}

#ifdef NATIVE_ARCH
/* Where the trap handler of a diagnostic run puts the offending syscall. */
static volatile long *trapped_nr;

static void on_sigsys(int sig, siginfo_t *info, void *ctx) {
    (void)sig;
    (void)ctx;
    if (trapped_nr) *trapped_nr = info->si_syscall;
    syscall(SYS_exit_group, 4);
}

#define ALLOW(nr)                                                                                  \
    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (nr), 0, 1), BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW)

/* Memory management and exit, nothing else; any other syscall is DENY.
 *
 * mprotect is not allowed: glibc's malloc calls it only to grow the heap of
 * a secondary arena (threads), and these children are single-threaded. Nor
 * is write: children report through their exit status alone. */
static int install_filter(unsigned int deny) {
    struct sock_filter filter[] = {
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, NATIVE_ARCH, 1, 0),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
        ALLOW(__NR_brk),
        ALLOW(__NR_mmap),
        ALLOW(__NR_munmap),
        ALLOW(__NR_mremap),
        ALLOW(__NR_madvise),
        ALLOW(__NR_exit),
        ALLOW(__NR_exit_group),
        BPF_STMT(BPF_RET | BPF_K, deny),
    };
    struct sock_fprog prog = {(unsigned short)(sizeof filter / sizeof filter[0]), filter};
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) return -1;
    return prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog, 0, 0);
}

/* The child's verdicts. */
enum { PURE_SAME = 0, PURE_DIFFERENT = 1, PURE_SETUP = 3, PURE_TRAPPED = 4, PURE_FAILED = 5 };

/* Under the filter: compute twice, compare both with EXPECT; exit with a verdict. */
static void pure_child(const lcsb_backend *b, const lcsb_policy *p, const bytes *expect,
                       unsigned int deny) {
    /* Warm up malloc: small chunks, a large (mmap'd) one, a realloc. The
     * parent used malloc already, so this is belt and braces. */
    for (size_t size = 16; size <= (1u << 20); size *= 4) {
        char *m = malloc(size);
        if (!m) _exit(PURE_SETUP);
        m[0] = 1;
        char *r = realloc(m, size * 3);
        free(r ? r : m);
    }
    if (deny == SECCOMP_RET_TRAP) {
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_sigaction = on_sigsys;
        sa.sa_flags = SA_SIGINFO;
        if (sigaction(SIGSYS, &sa, NULL) != 0) _exit(PURE_SETUP);
    }
    if (install_filter(deny) != 0) _exit(PURE_SETUP);
    for (int round = 0; round < 2; round++) {
        bytes got = {0};
        if (pure_outputs(b, p, &got) != 0) _exit(PURE_FAILED);
        if (got.len != expect->len || memcmp(got.p, expect->p, got.len) != 0) _exit(PURE_DIFFERENT);
        free(got.p);
    }
    _exit(PURE_SAME);
}

/* Run one child; its verdict, or -SIG when a signal ended it. */
static int run_pure_child(const lcsb_backend *b, const lcsb_policy *p, const bytes *expect,
                          unsigned int deny) {
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) pure_child(b, p, expect, deny);
    int status = 0;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    if (WIFSIGNALED(status)) return -WTERMSIG(status);
    return WEXITSTATUS(status);
}

/* After a kill, rerun with a trap to learn which syscall it was. */
static long which_syscall(const lcsb_backend *b, const lcsb_policy *p, const bytes *expect) {
    long *shared =
        mmap(NULL, sizeof(long), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (shared == MAP_FAILED) return -1;
    *shared = -1;
    trapped_nr = shared;
    run_pure_child(b, p, expect, SECCOMP_RET_TRAP);
    trapped_nr = NULL;
    long nr = *shared;
    munmap(shared, sizeof(long));
    return nr;
}

static void check_verdict(const char *name, int verdict, long nr) {
    if (verdict == PURE_SAME) return;
    if (verdict == -SIGSYS)
        fail_msg("%s: impure: killed by the seccomp filter (syscall %ld)", name, nr);
    if (verdict < 0) fail_msg("%s: child killed by signal %d", name, -verdict);
    if (verdict == PURE_DIFFERENT) fail_msg("%s: different bytes under the filter", name);
    if (verdict == PURE_SETUP) fail_msg("%s: could not install the seccomp filter", name);
    fail_msg("%s: child failed (%d)", name, verdict);
}
#endif

static void test_wrap_is_pure(void **state) {
    (void)state;
#ifndef NATIVE_ARCH
    skip();
#else
    for (size_t i = 0; i < PURE_CASES; i++) {
        lcsb_policy *p = pure_policy(pure_cases[i].abi);
        lcsb_backend *b = pure_backend(pure_cases[i].abi);
        assert_non_null(p);
        assert_non_null(b);
        bytes expect = {0}, again = {0};
        assert_int_equal(pure_outputs(b, p, &expect), 0);
        /* Same inputs, same bytes, in this process too. */
        assert_int_equal(pure_outputs(b, p, &again), 0);
        assert_int_equal(again.len, expect.len);
        assert_memory_equal(again.p, expect.p, expect.len);
        free(again.p);

        int verdict = run_pure_child(b, p, &expect, SECCOMP_RET_KILL_PROCESS);
        check_verdict(pure_cases[i].name, verdict,
                      verdict == -SIGSYS ? which_syscall(b, p, &expect) : -1);

        /* The filter must bite, or the verdict means nothing: a child that
         * makes one syscall more is killed. */
        pid_t pid = fork();
        assert_true(pid >= 0);
        if (pid == 0) {
            if (install_filter(SECCOMP_RET_KILL_PROCESS) != 0) _exit(PURE_SETUP);
            (void)getppid();
            _exit(PURE_SAME);
        }
        int status = 0;
        assert_int_equal(waitpid(pid, &status, 0), pid);
        assert_true(WIFSIGNALED(status) && WTERMSIG(status) == SIGSYS);

        /* And a different expectation is noticed. */
        expect.p[expect.len / 2] ^= 1;
        assert_int_equal(run_pure_child(b, p, &expect, SECCOMP_RET_KILL_PROCESS), PURE_DIFFERENT);
        free(expect.p);
        lcsb_policy_free(p);
        lcsb_backend_free(b);
    }
#endif
}

/* A forked child inherits whatever libc initialized lazily in the parent
 * (glibc's qsort caches the machine's memory size after its first large
 * sort). A fresh process has nothing cached: the test binary runs itself
 * with --pure-child, reads the expected bytes from fd 3 before installing
 * the filter, and wraps for the first time under it. */
static const char *self_exe;

#ifdef NATIVE_ARCH
/* argv: --pure-child CASE kill|trap. fd 3: the expected bytes; for trap, fd 4:
 * a shared page for the number of the syscall that trapped. */
static int pure_fresh_main(const char *case_index, const char *mode) {
    size_t i = (size_t)strtoul(case_index, NULL, 10);
    if (i >= PURE_CASES) return PURE_SETUP;
    lcsb_policy *p = pure_policy(pure_cases[i].abi);
    lcsb_backend *b = pure_backend(pure_cases[i].abi);
    if (!p || !b) return PURE_SETUP;
    bytes expect = {0};
    char buf[65536];
    ssize_t n;
    while ((n = read(3, buf, sizeof buf)) > 0) bytes_add(&expect, buf, (size_t)n);
    if (n < 0 || expect.oom) return PURE_SETUP;
    close(3);
    bool trap = strcmp(mode, "trap") == 0;
    if (trap) {
        void *page = mmap(NULL, sizeof(long), PROT_READ | PROT_WRITE, MAP_SHARED, 4, 0);
        if (page == MAP_FAILED) return PURE_SETUP;
        trapped_nr = page;
    }
    pure_child(b, p, &expect, trap ? SECCOMP_RET_TRAP : SECCOMP_RET_KILL_PROCESS);
    return PURE_SETUP; /* not reached */
}

/* Run the fresh child; its verdict, or -SIG. With TRAP, *NR gets the syscall. */
static int run_fresh_child(size_t index, const bytes *expect, bool trap, long *nr) {
    int fds[2];
    assert_int_equal(pipe(fds), 0);
    int page_fd = -1;
    long *page = NULL;
    if (trap) {
        page_fd = memfd_create("lcsb-pure-trap", 0);
        assert_true(page_fd >= 0);
        assert_int_equal(ftruncate(page_fd, sizeof(long)), 0);
        page = mmap(NULL, sizeof(long), PROT_READ | PROT_WRITE, MAP_SHARED, page_fd, 0);
        assert_true(page != MAP_FAILED);
        *page = -1;
    }
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        char arg[16];
        snprintf(arg, sizeof arg, "%zu", index);
        close(fds[1]);
        if (dup2(fds[0], 3) < 0 || (trap && dup2(page_fd, 4) < 0)) _exit(PURE_SETUP);
        execl(self_exe, self_exe, "--pure-child", arg, trap ? "trap" : "kill", (char *)NULL);
        _exit(PURE_SETUP);
    }
    close(fds[0]);
    signal(SIGPIPE, SIG_IGN);
    for (size_t off = 0; off < expect->len;) {
        ssize_t w = write(fds[1], expect->p + off, expect->len - off);
        if (w <= 0) break;
        off += (size_t)w;
    }
    close(fds[1]);
    int status = 0;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    if (trap) {
        *nr = *page;
        munmap(page, sizeof(long));
        close(page_fd);
    }
    return WIFSIGNALED(status) ? -WTERMSIG(status) : WEXITSTATUS(status);
}
#endif

static void test_wrap_is_pure_fresh_process(void **state) {
    (void)state;
#ifndef NATIVE_ARCH
    skip();
#else
    for (size_t i = 0; i < PURE_CASES; i++) {
        lcsb_policy *p = pure_policy(pure_cases[i].abi);
        lcsb_backend *b = pure_backend(pure_cases[i].abi);
        bytes expect = {0};
        assert_int_equal(pure_outputs(b, p, &expect), 0);
        long nr = -1;
        int verdict = run_fresh_child(i, &expect, false, NULL);
        if (verdict == -SIGSYS) run_fresh_child(i, &expect, true, &nr);
        check_verdict(pure_cases[i].name, verdict, nr);
        /* A different expectation is noticed here too. */
        expect.p[expect.len - 1] ^= 1;
        assert_int_equal(run_fresh_child(i, &expect, false, NULL), PURE_DIFFERENT);
        free(expect.p);
        lcsb_policy_free(p);
        lcsb_backend_free(b);
    }
#endif
}

static bool bytes_have(const bytes *b, const char *s) {
    return memmem(b->p, b->len, s, strlen(s)) != NULL;
}

/* Same bytes whatever the environment's values say. Only a container's argv
 * changes with the environment: it names the variables passed in
 * (--env=NAME), and never holds a value. */
static void test_wrap_ignores_environment(void **state) {
    (void)state;
    const char *names[] = {"PATH", "HOME", "TMPDIR", "LANG", "LC_ALL"};
    const char *one[] = {"/nonexistent/bin:/elsewhere", "/somewhere/else", "/var/tmp/other",
                         "de_DE.UTF-8", "xx_ONE.UTF-8"};
    const char *two[] = {"/other/bin", "/home/two", "/var/tmp/two", "fr_FR.UTF-8", "xx_TWO.UTF-8"};
    char *saved[5];
    for (size_t i = 0; i < 5; i++) {
        const char *v = getenv(names[i]);
        saved[i] = v ? strdup(v) : NULL;
    }
    for (size_t c = 0; c < PURE_CASES; c++) {
        lcsb_policy *p = pure_policy(pure_cases[c].abi);
        lcsb_backend *b = pure_backend(pure_cases[c].abi);
        bool container = pure_cases[c].abi == PURE_OCI;
        bytes before = {0}, after = {0}, unset = {0};
        for (size_t i = 0; i < 5; i++) setenv(names[i], one[i], 1);
        assert_int_equal(pure_outputs(b, p, &before), 0);
        for (size_t i = 0; i < 5; i++) setenv(names[i], two[i], 1);
        assert_int_equal(pure_outputs(b, p, &after), 0);
        for (size_t i = 0; i < 5; i++) unsetenv(names[i]);
        assert_int_equal(pure_outputs(b, p, &unset), 0);
        for (size_t i = 0; i < 5; i++)
            if (saved[i]) setenv(names[i], saved[i], 1);
        assert_int_equal(after.len, before.len);
        assert_memory_equal(after.p, before.p, before.len);
        if (container) {
            /* The base set's LANG and LC_ALL are passed by name; PATH (the
             * world has its own), HOME and TMPDIR are not. */
            assert_true(bytes_have(&before, "--env=LANG"));
            assert_true(bytes_have(&before, "--env=LC_ALL"));
            assert_false(bytes_have(&unset, "--env=LANG"));
            assert_false(bytes_have(&before, "--env=PATH"));
            assert_false(bytes_have(&before, "--env=HOME"));
            assert_false(bytes_have(&before, "--env=TMPDIR"));
        } else {
            assert_int_equal(unset.len, before.len);
            assert_memory_equal(unset.p, before.p, before.len);
        }
        /* Nothing about this host leaked in: no value. */
        for (size_t i = 0; i < 5; i++) {
            assert_false(bytes_have(&before, one[i]));
            assert_false(bytes_have(&after, two[i]));
        }
        free(before.p);
        free(after.p);
        free(unset.p);
        lcsb_policy_free(p);
        lcsb_backend_free(b);
    }
    for (size_t i = 0; i < 5; i++) free(saved[i]);
}

int main(int argc, char **argv) {
#ifdef NATIVE_ARCH
    if (argc == 4 && strcmp(argv[1], "--pure-child") == 0) return pure_fresh_main(argv[2], argv[3]);
#endif
    (void)argc;
    static char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n > 0) exe[n] = '\0';
    self_exe = n > 0 ? exe : argv[0];

    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_wrap_is_pure),
        cmocka_unit_test(test_wrap_is_pure_fresh_process),
        cmocka_unit_test(test_wrap_ignores_environment),
    };
    return cmocka_run_group_tests_name("sandbox_wrap_pure", tests, NULL, NULL);
}
