/* What lcsb_detect sees (capability.c): a Landlock ABI lowered by
 * LCSB_LANDLOCK_ABI_MAX, and the places it looks for the shim. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h> /* after the four above, which it needs */

#include <errno.h>
#include <limits.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "helpers.h"
#include "internal.h"

#ifndef LCSB_SHIM_PATH
#error "build with -DLCSB_SHIM_PATH='\"/path/to/lcsb-exec\"'"
#endif

/* LCSB_LANDLOCK_ABI_MAX lowers what detect reports, never raises it, and a
 * value that is not a number is an error rather than ignored. */
static void test_detect_abi_cap(void **state) {
    (void)state;
    lcsb_capability cap;
    lcsb_error err = {0};
    unsetenv("LCSB_LANDLOCK_ABI_MAX");
    assert_int_equal(lcsb_detect(&cap, LCSB_SHIM_PATH, &err), 0);
    int kernel = cap.landlock_abi;
    char text[16];
    for (int want = 0; want <= kernel + 2; want++) {
        snprintf(text, sizeof text, "%d", want);
        setenv("LCSB_LANDLOCK_ABI_MAX", text, 1);
        assert_int_equal(lcsb_detect(&cap, LCSB_SHIM_PATH, &err), 0);
        assert_int_equal(cap.landlock_abi, want < kernel ? want : kernel);
        assert_int_equal(cap.landlock_abi_kernel, kernel);
    }
    static const char *const bad[] = {"",   "x",  "-1", "+3",
                                      " 3", "3 ", "3x", "99999999999999999999"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        setenv("LCSB_LANDLOCK_ABI_MAX", bad[i], 1);
        assert_int_equal(lcsb_detect(&cap, LCSB_SHIM_PATH, &err), LCSB_EINVAL);
        assert_contains(err.message, "LCSB_LANDLOCK_ABI_MAX");
    }
    unsetenv("LCSB_LANDLOCK_ABI_MAX");
}

/* With no shim given, LCSB_SHIM when set is the only place looked at (a
 * mistake in it is never covered by another file); unset, the places the
 * install would put it, which this suite's build tree is none of. A shim
 * not found fails the selection of Landlock, naming every place. */
static void test_detect_finds_shim(void **state) {
    (void)state;
    lcsb_capability cap;
    lcsb_backend *b = NULL;
    lcsb_error err = {0};
    setenv("LCSB_SHIM", LCSB_SHIM_PATH, 1);
    assert_int_equal(lcsb_detect(&cap, NULL, &err), 0);
    assert_true(cap.shim_found);
    assert_string_equal(cap.shim, LCSB_SHIM_PATH);
    assert_string_equal(cap.shim_searched, LCSB_SHIM_PATH " (LCSB_SHIM)");
    /* Given, the shim is what the caller named, whatever the variable says. */
    setenv("LCSB_SHIM", "/nonexistent/lcsb-exec", 1);
    assert_int_equal(lcsb_detect(&cap, LCSB_SHIM_PATH, &err), 0);
    assert_true(cap.shim_found);
    assert_string_equal(cap.shim, LCSB_SHIM_PATH);
    assert_string_equal(cap.shim_searched, LCSB_SHIM_PATH " (given)");

    char dir[] = "/tmp/lcsb-shim.XXXXXX", relative[PATH_MAX];
    assert_non_null(mkdtemp(dir));
    FMT(relative, "%s", LCSB_SHIM_PATH + 1);
    const char *const wrong[] = {"/nonexistent/lcsb-exec", dir, relative};
    for (size_t i = 0; i < sizeof wrong / sizeof wrong[0]; i++) {
        char want[PATH_MAX + 32];
        setenv("LCSB_SHIM", wrong[i], 1);
        assert_int_equal(lcsb_detect(&cap, NULL, &err), 0);
        assert_false(cap.shim_found);
        assert_string_equal(cap.shim, "");
        FMT(want, "%s (LCSB_SHIM)", wrong[i]);
        assert_string_equal(cap.shim_searched, want);
        if (cap.landlock_abi > 0) {
            assert_int_equal(lcsb_backend_select(&cap, "landlock", &b, &err), LCSB_EUNAVAIL);
            assert_contains(err.message, want);
        }
    }
    rmdir(dir);

    /* Unset (or empty): the install path built in, the last resort. */
    for (int empty = 0; empty < 2; empty++) {
        if (empty)
            setenv("LCSB_SHIM", "", 1);
        else
            unsetenv("LCSB_SHIM");
        assert_int_equal(lcsb_detect(&cap, NULL, &err), 0);
        assert_contains(cap.shim_searched, "lcsb-exec (the install path built in)");
        assert_lacks(cap.shim_searched, "LCSB_SHIM");
        assert_lacks(cap.shim_searched, "(the install of");
        if (!cap.shim_found && cap.landlock_abi > 0) {
            assert_int_equal(lcsb_backend_select(&cap, "auto", &b, &err), LCSB_EUNAVAIL);
            assert_contains(err.message, cap.shim_searched);
        }
    }
    unsetenv("LCSB_SHIM");
}

/* A caller's SIGCHLD handler that reaps every child may take the probe's
 * child before lcsb waits for it: that probe says nothing, and is asked
 * again, so the answer once the handler is gone is this host's. The first
 * call, with the handler, may say either. */
static void reap_all(int sig) {
    (void)sig;
    while (waitpid(-1, NULL, WNOHANG) > 0) {
    }
}

static void test_detect_after_a_probe_lost(void **state) {
    (void)state;
    struct sigaction was, reaper = {.sa_handler = reap_all};
    sigemptyset(&reaper.sa_mask);
    lcsb_capability cap;
    lcsb_error err;
    /* First of the suite's: this process has not probed yet. */
    assert_int_equal(sigaction(SIGCHLD, &reaper, &was), 0);
    assert_int_equal(lcsb_detect(&cap, LCSB_SHIM_PATH, &err), 0);
    assert_int_equal(sigaction(SIGCHLD, &was, NULL), 0);
    assert_int_equal(lcsb_detect(&cap, LCSB_SHIM_PATH, &err), 0);
    /* What a process that lost no probe says (the CLI, run afresh). */
    FILE *p = popen(LCSB_CLI_PATH " detect --json", "r");
    char json[8192] = "";
    assert_non_null(p);
    json[fread(json, 1, sizeof json - 1, p)] = '\0';
    assert_int_equal(pclose(p), 0);
    bool fresh = strstr(json, "\"user_namespaces\":true") != NULL;
    if (cap.user_namespaces != fresh)
        fail_msg("after a lost probe: user_namespaces %d, %d in a process that lost none",
                 cap.user_namespaces, fresh);
}

/* A host without Landlock is told why, as the kernel answers: here, with
 * landlock_create_ruleset answering ENOSYS (a seccomp filter in a child,
 * as valgrind's unknown system call looks), the message says so; its twin,
 * the same selection where the kernel answers, says nothing more. */
static void test_no_landlock_says_why(void **state) {
    (void)state;
    lcsb_capability cap;
    lcsb_error err = {0};
    assert_int_equal(lcsb_detect(&cap, LCSB_SHIM_PATH, &err), 0);
    if (cap.landlock_abi < 1) skip();
    cap.landlock_abi = cap.landlock_abi_kernel = 0;
    lcsb_backend *b = NULL;
    assert_int_equal(lcsb_backend_select(&cap, "auto", &b, &err), LCSB_EUNAVAIL);
    assert_contains(err.message, "no Landlock here");
    assert_lacks(err.message, "ENOSYS");
    int pipe_fds[2];
    assert_int_equal(pipe(pipe_fds), 0);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        struct sock_filter code[] = {
            BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
            BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_landlock_create_ruleset, 0, 1),
            BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | ENOSYS),
            BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
        };
        struct sock_fprog prog = {.len = sizeof code / sizeof *code, .filter = code};
        if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) ||
            prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog))
            _exit(2);
        lcsb_error child_err = {0};
        lcsb_backend *none = NULL;
        if (lcsb_backend_select(&cap, "auto", &none, &child_err) != LCSB_EUNAVAIL) _exit(4);
        ssize_t n = write(pipe_fds[1], child_err.message, strlen(child_err.message));
        _exit(n > 0 ? 0 : 3);
    }
    close(pipe_fds[1]);
    char said[2048] = "";
    size_t got = 0;
    ssize_t n;
    while (got + 1 < sizeof said && (n = read(pipe_fds[0], said + got, sizeof said - 1 - got)) > 0)
        got += (size_t)n;
    said[got] = '\0';
    close(pipe_fds[0]);
    int status;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    assert_contains(said, "no Landlock here");
    assert_contains(said, "the kernel answers ENOSYS");
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_detect_after_a_probe_lost),
        cmocka_unit_test(test_detect_abi_cap),
        cmocka_unit_test(test_detect_finds_shim),
        cmocka_unit_test(test_no_landlock_says_why),
    };
    return cmocka_run_group_tests_name("sandbox_detect", tests, NULL, NULL);
}
