/* When the kernel says no: the CLI under a seccomp fault, and on an older
 * Landlock ABI, where what cannot be enforced is refused unless the policy
 * lets it degrade. The rules of the enforcement suites are in
 * enforce_fixture.h. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h> /* after the four above, which it needs */

#include <errno.h>
#include <limits.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "enforce_fixture.h"

#ifndef LCSB_FAULT_LAUNCHER_PATH
#error "build with -DLCSB_FAULT_LAUNCHER_PATH='\"/path/to/fault_launcher\"'"
#endif

#ifndef SYS_landlock_restrict_self
#define SYS_landlock_restrict_self 446
#endif

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
        /* A negative ARG0 is a mask: the call fails when any of its bits is set. */
        if (faults[i].arg0 < -1) FMT(nums[i][2], "&%ld", -faults[i].arg0);
        if (faults[i].arg0 >= 0 || faults[i].arg0 < -1) argv[k++] = nums[i][2];
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
    /* User namespaces refused (AppArmor's restriction on Ubuntu 24.04, a
     * container's seccomp profile): lcsb's probe finds none, and the world
     * of its own is refused before anything runs, naming the degrade words. */
    {"unshare, clone(CLONE_NEWUSER): EPERM",
     {{SYS_unshare, EPERM, -1}, {SYS_clone, EPERM, -CLONE_NEWUSER}},
     2,
     125,
     "lcsb: ",
     {"this host cannot enforce", "world", "degrade = { \"metadata\", \"world\" }", NULL}},
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

/* Where user namespaces are refused, a policy that lets the world degrade
 * runs without it, and the attestation says the world is open. The twin of
 * the refusal above. */
static void test_world_degraded(void **state) {
    NEED_LANDLOCK();
    fx *f = *state;
    char marker[PATH_MAX], script[PATH_MAX + 32];
    path_in(marker, f->project, "marker");
    FMT(script, "touch '%s'", marker);
    const char *const *cmd = CMD("sh", "-c", script);
    policy(f, "exec = { \"sh\", \"touch\" }, degrade = { \"metadata\", \"world\" }");
    const char *const *launcher = without_userns(LCSB_FAULT_LAUNCHER_PATH);
    lcsb_launched(f, launcher, "landlock", NULL, cmd, NULL, &P);
    if (P.status != 0) {
        describe("user namespaces refused, world degraded", cmd, &P);
        fail_msg("expected the command to run (0), got %d", P.status);
    }
    assert_exists(marker, true);
    char attest[PATH_MAX + 16], json[4096];
    FMT(attest, "%s/attest.json", f->project);
    lcsb_launched(f, launcher, "landlock", CMD("--attest", attest), cmd, NULL, &P);
    assert_int_equal(P.status, 0);
    read_file(attest, json, sizeof json);
    assert_contains(json, "\"world\":\"open\"", "the attestation");
    assert_contains(json, "\"world\"]", "the attestation's dropped parts");

    /* Without an init, lcsb itself waits for the command (and serves its
     * proxy): the command may not change its limits or its scheduling.
     * Unsandboxed the same call on the same parent goes through. */
    static const char prlimit_py[] =
        "import os, resource\n"
        "resource.prlimit(os.getppid(), resource.RLIMIT_CORE, (0, 0))\n";
    policy(f, "exec = { \"%s\" }, degrade = { \"metadata\", \"world\" }", PYTHON);
    const char *const *guard = CMD(PYTHON, "-c", prlimit_py);
    lcsb_launched(f, launcher, "landlock", NULL, guard, NULL, &P);
    if (P.status != 1 || !strstr(P.err, "PermissionError")) {
        describe("prlimit on lcsb, world degraded", guard, &P);
        fail_msg("expected the prlimit on lcsb refused (1), got %d", P.status);
    }
    expect_unsandboxed_ok(f, guard, &P);
}

/* Run `lcsb SUB --backend landlock p.lua` (with ARGS after, may be NULL)
 * where user namespaces are refused, as in test_world_degraded. */
static void lcsb_sub_without_userns(fx *f, const char *sub, const char *const *args, proc *p) {
    const char *argv[MAX_ARGV];
    size_t n = 0;
    for (const char *const *l = without_userns(LCSB_FAULT_LAUNCHER_PATH); *l; l++) argv[n++] = *l;
    const char *const cli[] = {LCSB_CLI_PATH, sub,        "--no-trust-check",
                               "--backend",   "landlock", f->policy};
    for (size_t i = 0; i < sizeof cli / sizeof *cli; i++) argv[n++] = cli[i];
    for (size_t i = 0; args && args[i]; i++) argv[n++] = args[i];
    argv[n] = NULL;
    run_child(f->project, argv, NULL, p);
    if (p->status == 98) fail_msg("fault_launcher itself failed:\n%s", p->err);
}

/* How many lines of TEXT start with PREFIX; the first into LINE. */
static size_t lines_starting(const char *text, const char *prefix, char *line, size_t size) {
    size_t n = 0;
    for (const char *at = text; at && *at;) {
        const char *end = strchr(at, '\n');
        int len = end ? (int)(end - at) : (int)strlen(at);
        if (strncmp(at, prefix, strlen(prefix)) == 0 && n++ == 0)
            snprintf(line, size, "%.*s", len, at);
        at = end ? end + 1 : NULL;
    }
    return n;
}

static size_t occurrences(const char *text, const char *needle) {
    size_t n = 0;
    for (const char *at = text; (at = strstr(at, needle)); at += strlen(needle)) n++;
    return n;
}

/* The names LINE lists after LEAD, up to its closing ")", as ", A, B,". */
static void listed(const char *line, const char *lead, char *out, size_t size) {
    const char *at = strstr(line, lead);
    const char *end = strrchr(line, ')');
    if (!at || !end || end < at) fail_msg("no \"%s...)\" in: %s", lead, line);
    at += strlen(lead);
    snprintf(out, size, ", %.*s,", (int)(end - at), at);
}

/* Without user namespaces exec_policy grants /etc entry by entry, some 150
 * lines check used to print: now one, counting as many entries as the argv
 * grants, and naming what it leaves out, every secret a world of its own
 * hides among them. */
static void test_check_etc_in_one_line(void **state) {
    NEED_LANDLOCK();
    fx *f = *state;
    policy(f, "exec = { \"sh\" }, degrade = { \"metadata\", \"world\" }");
    char etc[PATH_MAX], head[PATH_MAX + 32], line[8192], left_out[8192], needle[PATH_MAX + 8];
    assert_non_null(realpath("/etc", etc));
    FMT(head, "  enforced  %s (", etc);

    lcsb_sub_without_userns(f, "check", NULL, &P);
    if (P.status != 0) {
        describe("check, user namespaces refused", CMD("check"), &P);
        fail_msg("expected check to pass (0), got %d", P.status);
    }
    if (lines_starting(P.out, head, line, sizeof line) != 1)
        fail_msg("not one line \"%s...\":\n%s", head, P.out);
    FMT(needle, "  enforced  %s/", etc);
    if (lines_starting(P.out, needle, left_out, sizeof left_out) != 0)
        fail_msg("a line per /etc entry still (%s):\n%s", left_out, P.out);
    size_t entries = 0;
    if (sscanf(line + strlen(head), "%zu entries, one by one", &entries) != 1)
        fail_msg("no count of entries: %s", line);
    /* The argv the shim gets (JSON inside JSON) grants each entry once. */
    lcsb_sub_without_userns(f, "wrap", CMD("--", "sh"), &P);
    assert_int_equal(P.status, 0);
    FMT(needle, "\\\"%s/", etc);
    assert_int_equal(entries, occurrences(P.out, needle));
    assert_true(entries > 0);
    if (access("/etc/shadow", F_OK) == 0) assert_contains(line, "left out: ", "the /etc line");
    if (!strstr(line, "left out: ")) return;
    listed(line, "left out: ", left_out, sizeof left_out);
    if (access("/etc/shadow", F_OK) == 0) assert_contains(left_out, ", shadow,", "the /etc line");

    /* The twin, with a world of its own where this host gives one: /etc whole,
     * and what is hidden in it is what was left out above. */
    run_child(f->project,
              CMD(LCSB_CLI_PATH, "check", "--no-trust-check", "--backend", "landlock", f->policy),
              NULL, &P);
    assert_int_equal(P.status, 0);
    if (lines_starting(P.out, head, line, sizeof line) != 1)
        fail_msg("not one line \"%s...\":\n%s", head, P.out);
    if (strncmp(line + strlen(head), "whole", 5) != 0) return; /* no namespaces here either */
    if (!strstr(line, "hidden in it: ")) return;
    char hidden[8192];
    listed(line, "hidden in it: ", hidden, sizeof hidden);
    for (char *name = hidden + 2, *comma; (comma = strchr(name, ',')); name = comma + 2) {
        char item[512];
        FMT(item, ", %.*s,", (int)(comma - name), name);
        if (!strstr(left_out, item))
            fail_msg("%s is hidden in a world of its own, not left out without one: %s", item,
                     left_out);
        if (!comma[1]) break;
    }
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

/* A kernel without seccomp user notification (here seccomp(2) answers
 * EINVAL, as to a request it does not know): the init sees no exec and the
 * run goes on, enforced the same: the program the policy lists runs, the
 * one it does not is refused (sh's 126), and the attestation and lcsb check
 * say that no exec is seen. The twin, without the fault, sees them. */
static void test_without_user_notification(void **state) {
    NEED_LANDLOCK();
    fx *f = *state;
    char marker[PATH_MAX], script[PATH_MAX + 32], attest[PATH_MAX + 16], json[65536];
    char nr[16], einval[16];
    path_in(marker, f->project, "marker");
    FMT(script, "touch '%s' && id -u", marker);
    FMT(attest, "%s/attest.json", f->project);
    FMT(nr, "%d", (int)SYS_seccomp);
    FMT(einval, "%d", EINVAL);
    const char *const launcher[] = {LCSB_FAULT_LAUNCHER_PATH, nr, einval, "--", NULL};
    const char *const *cmd = CMD("sh", "-c", script);
    policy(f, "exec = { \"sh\", \"touch\" }");
    for (int faulted = 1; faulted >= 0; faulted--) {
        const char *what = faulted ? "seccomp(2) refused" : "the twin";
        unlink(marker);
        lcsb_launched(f, faulted ? launcher : NULL, "landlock", CMD("--attest", attest), cmd, NULL,
                      &P);
        if (P.status == 98) fail_msg("fault_launcher itself failed:\n%s", P.err);
        if (P.status != 126) {
            describe(what, cmd, &P);
            fail_msg("%s: expected sh's 126 for the refused id, got %d", what, P.status);
        }
        assert_exists(marker, true);
        read_file(attest, json, sizeof json);
        assert_contains(json, faulted ? "\"execs_seen\":false" : "\"execs_seen\":true", what);
        const char *argv[] = {faulted ? launcher[0] : LCSB_CLI_PATH,
                              nr,
                              einval,
                              "--",
                              LCSB_CLI_PATH,
                              "check",
                              "--no-trust-check",
                              "--backend",
                              "landlock",
                              f->policy,
                              NULL};
        run_child(f->project, faulted ? argv : argv + 4, NULL, &P);
        assert_int_equal(P.status, 0);
        assert_contains(P.out, faulted ? "no seccomp user notification here" : "seen by the init",
                        what);
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        T(test_kernel_refuses),
        T(test_world_degraded),
        T(test_check_etc_in_one_line),
        T(test_older_abi_refused_unless_degraded),
        T(test_abi_cap_only_lowers),
        T(test_cleanup_reports_what_stays),
        T(test_without_user_notification),
    };
    return cmocka_run_group_tests_name("sandbox_enforce_faults", tests, enforce_group_setup, NULL);
}
