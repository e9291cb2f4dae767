/* The validation a backend does before anything runs (rule 8), on files this
 * suite makes in a private directory; the parts a host cannot enforce; the
 * backends' constructors; and the scope's removal racing a symlink swap.
 * Which directory at a private directory's path lcsb takes as its own is
 * test_sandbox_private.c.
 * What detect sees is test_sandbox_detect.c. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h> /* after the four above, which it needs */

#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "helpers.h"
#include "internal.h"

#ifndef LCSB_SHIM_PATH
#error "build with -DLCSB_SHIM_PATH='\"/path/to/lcsb-exec\"'"
#endif

/* ---- validation (rule 8) ---- */

static char fixture[PATH_MAX]; /* a private directory for the validation cases */

static int fixture_setup(void **state) {
    (void)state;
    char tmpl[] = "/tmp/lcsb-policy-test.XXXXXX";
    if (!mkdtemp(tmpl) || !realpath(tmpl, fixture)) return -1;
    char path[PATH_MAX + 64];
    snprintf(path, sizeof path, "%s/bin", fixture);
    if (mkdir(path, 0755)) return -1;
    snprintf(path, sizeof path, "%s/bin/tool", fixture);
    FILE *f = fopen(path, "w");
    if (!f) return -1;
    fputs("#!/bin/sh\nexit 0\n", f);
    fclose(f);
    chmod(path, 0755);
    char target[PATH_MAX + 64];
    snprintf(target, sizeof target, "%s/bin", fixture);
    snprintf(path, sizeof path, "%s/bin-link", fixture);
    if (symlink(target, path)) return -1;
    snprintf(target, sizeof target, "%s/bin/tool", fixture);
    snprintf(path, sizeof path, "%s/tool-link", fixture);
    if (symlink(target, path)) return -1;
    snprintf(path, sizeof path, "%s/fifo", fixture);
    if (mkfifo(path, 0600)) return -1;
    return 0;
}

static int fixture_teardown(void **state) {
    (void)state;
    rm_rf(fixture);
    return 0;
}

static const char *fx(const char *rel) {
    static char buf[4][PATH_MAX + 64];
    static int next;
    char *out = buf[next++ % 4];
    snprintf(out, sizeof buf[0], "%s%s%s", fixture, rel[0] ? "/" : "", rel);
    return out;
}
static lcsb_backend *landlock(int abi) { return landlock_backend(abi, LCSB_SHIM_PATH); }

/* A policy that validates: the cases below each add one fault to it. */
static lcsb_policy *valid_policy(void) {
    lcsb_policy *p = new_policy();
    added(p, LCSB_TIER_READ, "/usr");
    added(p, LCSB_TIER_READ, "/etc");
    added(p, LCSB_TIER_WRITE, fx(""));
    added(p, LCSB_TIER_EXEC, "/usr/bin/env");
    added(p, LCSB_TIER_EXEC, fx("bin"));
    added(p, LCSB_TIER_EXEC, fx("bin/tool"));
    return p;
}

static void expect_valid(const lcsb_backend *b, const lcsb_policy *p) {
    lcsb_error err = {0};
    int rc = lcsb_backend_validate(b, p, &err);
    if (rc) fail_msg("expected a valid policy, got %d: %s", rc, err.message);
}

static void expect_invalid(const lcsb_backend *b, const lcsb_policy *p, int code,
                           const char *expect1, const char *expect2) {
    lcsb_error err = {0};
    int rc = lcsb_backend_validate(b, p, &err);
    if (rc != code) fail_msg("expected %d, got %d (%s)", code, rc, err.message);
    assert_int_equal(err.code, code);
    assert_contains(err.message, expect1);
    if (expect2) assert_contains(err.message, expect2);
}

static void test_validate_baseline(void **state) {
    (void)state;
    lcsb_backend *b = landlock(7);
    lcsb_policy *p = valid_policy();
    expect_valid(b, p);
    lcsb_error err = {0};
    assert_int_equal(lcsb_policy_set_cwd(p, fx(""), &err), 0);
    expect_valid(b, p);
    lcsb_policy_free(p);
    lcsb_backend_free(b);
}

static void test_validate_missing_paths(void **state) {
    (void)state;
    lcsb_backend *b = landlock(7);
    const lcsb_tier tiers[] = {LCSB_TIER_READ, LCSB_TIER_WRITE, LCSB_TIER_EXEC};
    for (size_t t = 0; t < 3; t++) {
        lcsb_policy *p = valid_policy();
        const char *missing = added(p, tiers[t], fx("no-such-file"));
        expect_invalid(b, p, LCSB_EINVAL, missing, "No such file or directory");
        lcsb_policy_free(p);
    }
    lcsb_policy *p = valid_policy();
    added(p, LCSB_TIER_READ, "/etc/passwd/x");
    expect_invalid(b, p, LCSB_EINVAL, "read: /etc/passwd/x", "Not a directory");
    lcsb_policy_free(p);

    p = valid_policy();
    lcsb_error err = {0};
    assert_int_equal(lcsb_policy_set_cwd(p, fx("gone"), &err), 0);
    expect_invalid(b, p, LCSB_EINVAL, "cwd", fx("gone"));
    lcsb_policy_free(p);
    lcsb_backend_free(b);
}

/* A private directory is made fresh only where it is one of the policy's
 * paths: one that is not would be the host's directory, seen through a
 * tree that holds it. Listed in write, it passes. */
static void test_validate_private_listed(void **state) {
    (void)state;
    lcsb_backend *b = landlock(7);
    lcsb_error err = {0};
    lcsb_policy *p = valid_policy();
    assert_int_equal(lcsb__policy_add_private(p, fx("home"), NULL, &err), 0);
    expect_invalid(b, p, LCSB_EINVAL, fx("home"), "none of the policy's paths");
    added(p, LCSB_TIER_WRITE, fx("home"));
    expect_valid(b, p);
    lcsb_policy_free(p);
    lcsb_backend_free(b);
}

/* A hidden path is covered where it is: named through a symlink it would
 * cover the link, not what a read through it reaches. One that does not
 * exist is hidden already. Limits and hidden paths need the world, and the
 * other backends refuse what they cannot hold. */
static void test_validate_hide_and_limits(void **state) {
    (void)state;
    lcsb_backend *b = landlock(7);
    lcsb_policy *p = valid_policy();
    added(p, LCSB_TIER_HIDE, fx("tool-link"));
    expect_invalid(b, p, LCSB_EINVAL, fx("tool-link"), "symlink");
    lcsb_policy_free(p);
    p = valid_policy();
    added(p, LCSB_TIER_HIDE, fx("bin/tool"));
    added(p, LCSB_TIER_HIDE, fx("not-there"));
    expect_valid(b, p);
    lcsb_error err = {0};
    assert_int_equal(lcsb_policy_set_limit(p, LCSB_LIMIT_PIDS, 4194305, &err), LCSB_EINVAL);
    assert_contains(err.message, "limits.pids");
    assert_int_equal(lcsb_policy_set_limit(p, (lcsb_limit)LCSB_LIMITS, 1, &err), LCSB_EINVAL);
    assert_int_equal(lcsb_policy_set_limit(p, LCSB_LIMIT_TIME, 5, &err), 0);
    assert_int_equal(lcsb_policy_limit(p, LCSB_LIMIT_TIME), 5);
    expect_valid(b, p);
    /* The attestation reads the limits back from the argv, large ones too. */
    assert_int_equal(lcsb_policy_set_limit(p, LCSB_LIMIT_MEMORY, 1ULL << 40, &err), 0);
    {
        static const char *const cmd[] = {"true", NULL};
        char **final = NULL;
        lcsb_attestation a;
        assert_int_equal(lcsb_backend_wrap(b, p, cmd, &final, &err), 0);
        assert_int_equal(lcsb_attest((const char *const *) final, NULL, &a, &err), 0);
        assert_string_equal(a.limits, "time=5 memory=1099511627776");
        lcsb_argv_free(final);
    }
    assert_int_equal(lcsb_policy_set_limit(p, LCSB_LIMIT_MEMORY, 0, &err), 0);
    /* pids below 299 cannot be held for root (the kernel does not count
     * root's processes; pid_max has a floor): refused, naming the part, or
     * dropped where the policy allows it, and then not in the argv. */
    assert_int_equal(lcsb_policy_set_limit(p, LCSB_LIMIT_PIDS, 50, &err), 0);
    if (geteuid() == 0) {
        expect_invalid(b, p, LCSB_EUNAVAIL, "limits.pids = 50", "degrade = { \"limits\" }");
        lcsb_policy_set_degradable(p, LCSB_PART_LIMITS);
        static const char *const cmd[] = {"true", NULL};
        char **final = NULL;
        assert_int_equal(lcsb_backend_wrap(b, p, cmd, &final, &err), 0);
        assert_contains(final[1], "\"limits\":{\"time\":5}");
        lcsb_argv_free(final);
        lcsb_policy_set_degradable(p, 0);
    } else {
        expect_valid(b, p);
    }
    assert_int_equal(lcsb_policy_set_limit(p, LCSB_LIMIT_PIDS, 0, &err), 0);
    /* A tmp limit needs TMPDIR set to a path of the write tier. */
    assert_int_equal(lcsb_policy_set_limit(p, LCSB_LIMIT_TMP, 1 << 20, &err), 0);
    expect_invalid(b, p, LCSB_EINVAL, "limits.tmp", "TMPDIR");
    assert_int_equal(lcsb_policy_set_env(p, "TMPDIR", fx(""), &err), 0);
    expect_valid(b, p);
    lcsb_backend_free(b);
    /* Without namespaces, nothing holds them. */
    lcsb_capability cap;
    memset(&cap, 0, sizeof cap);
    cap.landlock_abi = 7;
    cap.seccomp = cap.shim_found = true;
    snprintf(cap.shim, sizeof cap.shim, "%s", LCSB_SHIM_PATH);
    assert_int_equal(lcsb_backend_select(&cap, "landlock", &b, &err), 0);
    lcsb_policy_set_degradable(p, LCSB_PARTS_ALL);
    expect_invalid(b, p, LCSB_EUNAVAIL, "cannot hide", "world");
    lcsb_policy_free(p);
    /* Limits alone, world and limits allowed to degrade: run without them. */
    p = valid_policy();
    assert_int_equal(lcsb_policy_set_limit(p, LCSB_LIMIT_TIME, 5, &err), 0);
    expect_invalid(b, p, LCSB_EUNAVAIL, "limits", "degrade = {");
    lcsb_policy_set_degradable(p, LCSB_PARTS_ALL);
    static const char *const true_cmd[] = {"true", NULL};
    char **open_world = NULL;
    assert_int_equal(lcsb_backend_wrap(b, p, true_cmd, &open_world, &err), 0);
    assert_contains(open_world[1], "\"world\":\"open\"");
    assert_contains(open_world[1], "\"limits\":{}");
    lcsb_argv_free(open_world);
    lcsb_backend_free(b);
    lcsb_policy_free(p);
}

/* limits.memory: held by the memory cgroup the host lets the shim make (v2
 * or v1), named on the wire and in the attestation. Where there is none it
 * is refused, naming the memory part, or dropped where the policy allows
 * it: then no cgroup on the wire, and held per process and by the IPC
 * namespace only. The private tmp, a tmpfs, holds no more than memory. */
static void test_validate_memory_limit(void **state) {
    (void)state;
    static const char *const cmd[] = {"true", NULL};
    static const char *const by[] = {"rlimit", "cgroup1", "cgroup2"};
    lcsb_error err = {0};
    lcsb_policy *p = valid_policy();
    assert_int_equal(lcsb_policy_set_limit(p, LCSB_LIMIT_MEMORY, 64 << 20, &err), 0);
    assert_int_equal(lcsb_policy_set_limit(p, LCSB_LIMIT_TMP, 1 << 30, &err), 0);
    assert_int_equal(lcsb_policy_set_env(p, "TMPDIR", fx(""), &err), 0);
    for (int version = 0; version <= 2; version++) {
        lcsb_capability cap;
        memset(&cap, 0, sizeof cap);
        cap.landlock_abi = 7;
        cap.seccomp = cap.shim_found = cap.user_namespaces = true;
        cap.memory_cgroup = version;
        snprintf(cap.shim, sizeof cap.shim, "%s", LCSB_SHIM_PATH);
        lcsb_backend *b;
        assert_int_equal(lcsb_backend_select(&cap, "landlock", &b, &err), 0);
        if (version == 0) {
            expect_invalid(b, p, LCSB_EUNAVAIL, "cannot enforce memory (no memory cgroup",
                           "degrade = { \"memory\" }");
            lcsb_policy_set_degradable(p, LCSB_PART_MEMORY);
        }
        expect_valid(b, p);
        char **final = NULL, want[128], summary[256];
        lcsb_attestation a;
        assert_int_equal(lcsb_backend_wrap(b, p, cmd, &final, &err), 0);
        assert_contains(final[1], "\"limits\":{\"memory\":67108864,\"tmp\":67108864,");
        snprintf(want, sizeof want, "\"cgroup\":\"v%d\"", version);
        if (version)
            assert_contains(final[1], want);
        else
            assert_lacks(final[1], "\"cgroup\"");
        assert_int_equal(lcsb_attest((const char *const *) final, NULL, &a, &err), 0);
        assert_int_equal(a.memory_by, version == 0   ? LCSB_MEMORY_BY_RLIMIT
                                      : version == 1 ? LCSB_MEMORY_BY_CGROUP1
                                                     : LCSB_MEMORY_BY_CGROUP2);
        assert_string_equal(lcsb_attestation_value(&a, "memory_by"), by[version]);
        assert_int_equal(a.dropped, version ? 0u : (unsigned)LCSB_PART_MEMORY);
        assert_string_equal(a.limits, "memory=67108864 tmp=67108864");
        lcsb_attestation_summary(&a, summary, sizeof summary);
        snprintf(want, sizeof want, "(memory by %s)", by[version]);
        assert_contains(summary, want);
        char *json = lcsb_attestation_json(&a);
        snprintf(want, sizeof want, "\"memory_by\":\"%s\"", by[version]);
        assert_contains(json, want);
        free(json);
        lcsb_argv_free(final);
        lcsb_policy_set_degradable(p, 0);
        lcsb_backend_free(b);
    }
    /* No memory limit, nothing said of it. */
    assert_int_equal(lcsb_policy_set_limit(p, LCSB_LIMIT_MEMORY, 0, &err), 0);
    lcsb_backend *b = landlock(7);
    char **final = NULL;
    lcsb_attestation a;
    assert_int_equal(lcsb_backend_wrap(b, p, cmd, &final, &err), 0);
    assert_lacks(final[1], "\"cgroup\"");
    assert_contains(final[1], "\"tmp\":1073741824,");
    assert_int_equal(lcsb_attest((const char *const *) final, NULL, &a, &err), 0);
    assert_int_equal(a.memory_by, LCSB_MEMORY_BY_NOTHING);
    char *json = lcsb_attestation_json(&a);
    assert_lacks(json, "memory_by");
    free(json);
    lcsb_argv_free(final);
    lcsb_backend_free(b);
    lcsb_policy_free(p);
}

static void test_validate_exec_symlinks(void **state) {
    (void)state;
    lcsb_backend *b = landlock(7);
    /* A directory named through a symlink. */
    lcsb_policy *p = valid_policy();
    added(p, LCSB_TIER_EXEC, fx("bin-link"));
    expect_invalid(b, p, LCSB_EINVAL, fx("bin-link"), "symlink");
    lcsb_policy_free(p);
    /* A file named through a symlink. */
    p = valid_policy();
    added(p, LCSB_TIER_EXEC, fx("tool-link"));
    expect_invalid(b, p, LCSB_EINVAL, fx("tool-link"), "symlink");
    lcsb_policy_free(p);
    /* A symlink further up: the entry itself is no link, its parent is. */
    p = valid_policy();
    added(p, LCSB_TIER_EXEC, fx("bin-link/tool"));
    expect_invalid(b, p, LCSB_EINVAL, fx("bin-link/tool"), fx("bin/tool"));
    lcsb_policy_free(p);
    /* With the exec allowlist off there are no exec rules to check. */
    p = valid_policy();
    added(p, LCSB_TIER_EXEC, fx("bin-link"));
    lcsb_policy_set_exec_open(p, true);
    expect_valid(b, p);
    lcsb_policy_free(p);
    /* Neither file nor directory. */
    p = valid_policy();
    added(p, LCSB_TIER_EXEC, fx("fifo"));
    expect_invalid(b, p, LCSB_EINVAL, fx("fifo"), "neither a file nor a directory");
    lcsb_policy_free(p);
    lcsb_backend_free(b);
}

/* Read and write paths must be real too: a rule names the inode at the end of
 * the path, so a symlink (left in a project by an earlier run, say) would
 * widen the grant to wherever it points. Refused, naming the target. */
static void test_validate_read_write_symlinks(void **state) {
    (void)state;
    lcsb_backend *b = landlock(7);
    static const lcsb_tier tiers[] = {LCSB_TIER_READ, LCSB_TIER_WRITE};
    for (size_t t = 0; t < 2; t++) {
        static const struct {
            const char *entry, *target;
        } cases[] = {
            {"bin-link", "bin"},           /* a directory named through a symlink */
            {"tool-link", "bin/tool"},     /* a file named through a symlink */
            {"bin-link/tool", "bin/tool"}, /* a symlinked parent: the entry is no link */
        };
        for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
            lcsb_policy *p = valid_policy();
            char entry[PATH_MAX + 64], want[2 * PATH_MAX + 64];
            snprintf(entry, sizeof entry, "%s", fx(cases[i].entry));
            added(p, tiers[t], entry);
            snprintf(want, sizeof want, "%s: %s is reached through a symlink (it resolves to %s)",
                     lcsb_tier_name(tiers[t]), entry, fx(cases[i].target));
            expect_invalid(b, p, LCSB_EINVAL, want, NULL);
            lcsb_policy_free(p);
        }
        /* The real paths behind them are fine. */
        lcsb_policy *p = valid_policy();
        added(p, tiers[t], fx("bin"));
        added(p, tiers[t], fx("bin/tool"));
        expect_valid(b, p);
        lcsb_policy_free(p);
    }
    /* /bin is a symlink on a merged-/usr system: the baseline must name
     * /usr/bin (exec_policy resolves it); named as it is, it is refused. */
    char real[PATH_MAX];
    if (realpath("/bin", real) && strcmp(real, "/bin") != 0) {
        lcsb_policy *p = valid_policy();
        added(p, LCSB_TIER_READ, "/bin");
        expect_invalid(b, p, LCSB_EINVAL, "read: /bin is reached through a symlink", real);
        lcsb_policy_free(p);
    }
    lcsb_backend_free(b);
}

/* No write path may be or contain a system prefix: running lcsb from "/" made
 * the project "/", and a write rule on it hands the command the system. */
static void test_validate_write_system_dirs(void **state) {
    (void)state;
    lcsb_backend *b = landlock(7);
    static const char *const dirs[] = {"/",    "/home",  "/tmp",     "/etc",      "/usr",  "/var",
                                       "/dev", "/proc",  "/sys",     "/run",      "/boot", "/srv",
                                       "/mnt", "/media", "/var/lib", "/usr/local"};
    size_t checked = 0;
    for (size_t i = 0; i < sizeof dirs / sizeof dirs[0]; i++) {
        char real[PATH_MAX];
        struct stat st;
        /* Only what exists here as a real directory reaches the prefix check. */
        if (!realpath(dirs[i], real) || strcmp(real, dirs[i]) != 0 || stat(real, &st) != 0 ||
            !S_ISDIR(st.st_mode))
            continue;
        lcsb_policy *p = valid_policy();
        added(p, LCSB_TIER_WRITE, dirs[i]);
        char want[PATH_MAX + 16];
        snprintf(want, sizeof want, "write: %s: ", dirs[i]);
        expect_invalid(b, p, LCSB_EINVAL, want, "system prefix");
        lcsb_policy_free(p);
        /* Readable is another matter: /usr and /etc are in every baseline. */
        p = valid_policy();
        added(p, LCSB_TIER_READ, dirs[i]);
        expect_valid(b, p);
        lcsb_policy_free(p);
        checked++;
    }
    /* "/", "/home", "/tmp" and "/etc" exist on every host this runs on. */
    assert_true(checked >= 4);
    /* Inside the system's own trees, no write either; /usr/local is the
     * administrator's. */
    static const char *const inside[] = {"/etc/cron.d", "/usr/share/doc", "/etc/apt", "/boot/grub"};
    size_t refused = 0;
    for (size_t i = 0; i < sizeof inside / sizeof inside[0]; i++) {
        char real[PATH_MAX];
        if (!realpath(inside[i], real) || strcmp(real, inside[i]) != 0) continue;
        lcsb_policy *p = valid_policy();
        added(p, LCSB_TIER_WRITE, inside[i]);
        expect_invalid(b, p, LCSB_EINVAL, inside[i], "inside the system's own");
        lcsb_policy_free(p);
        refused++;
    }
    assert_true(refused >= 2);
    char local[PATH_MAX];
    if (realpath("/usr/local/share", local) && strcmp(local, "/usr/local/share") == 0) {
        lcsb_policy *p = valid_policy();
        added(p, LCSB_TIER_WRITE, "/usr/local/share");
        expect_valid(b, p);
        lcsb_policy_free(p);
    }
    /* A project beneath /tmp is no system prefix: the fixture is one. */
    assert_null(lcsb__system_prefix_within("/tmp/x-project"));
    assert_null(lcsb__system_prefix_within("/home/u/project"));
    assert_int_equal(strncmp(fixture, "/tmp/", 5), 0);
    lcsb_policy *p = valid_policy(); /* writes the fixture */
    char xproject[PATH_MAX + 64];
    snprintf(xproject, sizeof xproject, "%s-x-project", fixture);
    assert_int_equal(mkdir(xproject, 0700), 0);
    added(p, LCSB_TIER_WRITE, xproject);
    expect_valid(b, p);
    rmdir(xproject);
    lcsb_policy_free(p);
    lcsb_backend_free(b);
}

/* Each argv string must fit the kernel's limit for one (MAX_ARG_STRLEN,
 * 128 KiB): the shim's header carries the ports, and 30,000 of them do not
 * fit. Refused before anything runs, with a message saying why. */
static void test_validate_too_many_ports(void **state) {
    (void)state;
    lcsb_backend *b = landlock(7);
    lcsb_policy *p = valid_policy();
    lcsb_error err = {0};
    for (int port = 1; port <= 30000; port++)
        assert_int_equal(lcsb_policy_add_port(p, LCSB_PORT_CONNECT, port, &err), 0);
    expect_invalid(b, p, LCSB_ETOOBIG, "128 KiB", "ports");
    lcsb_policy_free(p);
    /* A few thousand fit. */
    p = valid_policy();
    for (int port = 1; port <= 5000; port++)
        assert_int_equal(lcsb_policy_add_port(p, LCSB_PORT_CONNECT, port, &err), 0);
    expect_valid(b, p);
    lcsb_policy_free(p);
    lcsb_backend_free(b);
}

static void test_validate_exec_system_dirs(void **state) {
    (void)state;
    lcsb_backend *b = landlock(7);
    const char *dirs[] = {"/usr", "/usr/bin", "/etc", "/tmp"};
    for (size_t i = 0; i < 4; i++) {
        lcsb_policy *p = valid_policy();
        added(p, LCSB_TIER_EXEC, dirs[i]);
        expect_invalid(b, p, LCSB_EINVAL, dirs[i], "system prefix");
        lcsb_policy_free(p);
    }
    /* /bin is a symlink on a merged-/usr system, a directory elsewhere: refused
     * either way. */
    lcsb_policy *p = valid_policy();
    added(p, LCSB_TIER_EXEC, "/bin");
    expect_invalid(b, p, LCSB_EINVAL, "exec: /bin", NULL);
    lcsb_policy_free(p);
    lcsb_backend_free(b);
}

static void test_validate_env_needs_env(void **state) {
    (void)state;
    lcsb_backend *b = landlock(7);
    lcsb_error err = {0};
    lcsb_policy *p = new_policy();
    added(p, LCSB_TIER_READ, "/usr");
    added(p, LCSB_TIER_EXEC, "/usr/bin/true");
    expect_valid(b, p); /* no overlay: env is not needed */
    assert_int_equal(lcsb_policy_set_env(p, "CI", "1", &err), 0);
    expect_invalid(b, p, LCSB_EINVAL, "/usr/bin/env", "exec allowlist");
    /* An unset alone is an overlay too. */
    lcsb_policy *u = new_policy();
    added(u, LCSB_TIER_EXEC, "/usr/bin/true");
    assert_int_equal(lcsb_policy_set_env(u, "SECRET", NULL, &err), 0);
    expect_invalid(b, u, LCSB_EINVAL, "/usr/bin/env", NULL);
    lcsb_policy_free(u);
    /* Named, or the allowlist off: fine. */
    added(p, LCSB_TIER_EXEC, "/usr/bin/env");
    expect_valid(b, p);
    lcsb_policy *o = new_policy();
    assert_int_equal(lcsb_policy_set_env(o, "CI", "1", &err), 0);
    lcsb_policy_set_exec_open(o, true);
    expect_valid(b, o);
    lcsb_policy_free(o);
    lcsb_policy_free(p);
    lcsb_backend_free(b);
}

/* What a host with Landlock ABI ABI (and seccomp or not) cannot enforce of a
 * policy with network NET, written out from the kernel's history rather than
 * from the backend's code: TCP port rules came with ABI 4, scoping with 6,
 * truncate with 3, device ioctls with 5; the socket filter and the terminal
 * filter are seccomp. A denied network needs only the socket filter, which
 * refuses TCP sockets too. */
static unsigned expected_gaps(int abi, bool seccomp, lcsb_net net) {
    unsigned gaps = 0;
    if (net != LCSB_NET_OPEN && !seccomp) gaps |= LCSB_PART_NET;
    if (net == LCSB_NET_PORTS && abi < 4) gaps |= LCSB_PART_NET;
    if (abi < 6) gaps |= LCSB_PART_SCOPE;
    if (abi < 3) gaps |= LCSB_PART_TRUNCATE;
    if (abi < 5) gaps |= LCSB_PART_IOCTL;
    if (!seccomp) gaps |= LCSB_PART_TERMINAL;
    return gaps;
}

static lcsb_backend *host(int abi, bool seccomp) {
    lcsb_capability cap;
    memset(&cap, 0, sizeof cap);
    cap.landlock_abi = abi;
    cap.seccomp = seccomp;
    cap.user_namespaces = cap.mount_namespaces = true; /* their absence: test_world_and_protect */
    cap.shim_found = true;
    snprintf(cap.shim, sizeof cap.shim, "%s", LCSB_SHIM_PATH);
    lcsb_backend *b = NULL;
    lcsb_error err = {0};
    if (lcsb_backend_select(&cap, "auto", &b, &err)) fail_msg("select: %s", err.message);
    return b;
}

/* The parts the attestation of POLICY wrapped by B says were dropped. */
static unsigned attested_drops(const lcsb_backend *b, const lcsb_policy *policy) {
    static const char *const cmd[] = {"true", NULL};
    char **final = NULL;
    lcsb_attestation att;
    lcsb_error err = {0};
    if (lcsb_backend_wrap(b, policy, cmd, &final, &err) ||
        lcsb_attest((const char *const *) final, NULL, &att, &err))
        fail_msg("wrap/attest: %s", err.message);
    lcsb_argv_free(final);
    return att.dropped;
}

/* On every host lcsb knows, a part the host cannot enforce is refused by
 * name, with the remedy, by validation and by wrap alike; allowed to degrade,
 * it is dropped and attested, and nothing else is. */
static void test_validate_parts_per_host(void **state) {
    (void)state;
    static const lcsb_net nets[] = {LCSB_NET_DENY, LCSB_NET_PORTS, LCSB_NET_OPEN};
    for (int abi = 1; abi <= 7; abi++) {
        for (int seccomp = 0; seccomp <= 1; seccomp++) {
            lcsb_backend *b = host(abi, seccomp);
            for (size_t n = 0; n < 3; n++) {
                lcsb_policy *p = valid_policy();
                lcsb_error err = {0};
                lcsb_policy_set_net(p, nets[n]);
                if (nets[n] == LCSB_NET_PORTS)
                    assert_int_equal(lcsb_policy_add_port(p, LCSB_PORT_CONNECT, 443, &err), 0);
                unsigned gaps = expected_gaps(abi, seccomp, nets[n]);
                print_message("abi %d, seccomp %d, net %d: gaps %#x\n", abi, seccomp, (int)nets[n],
                              gaps);
                if (!gaps) {
                    expect_valid(b, p);
                    assert_int_equal(attested_drops(b, p), 0);
                } else {
                    expect_invalid(b, p, LCSB_EUNAVAIL, "cannot enforce", "degrade = {");
                    for (unsigned part = 1; part <= LCSB_PARTS_ALL; part <<= 1) {
                        char quoted[32];
                        snprintf(quoted, sizeof quoted, "\"%s\"", lcsb_part_name(part));
                        lcsb_error e = {0};
                        char **final = NULL;
                        assert_int_not_equal(lcsb_backend_validate(b, p, &e), 0);
                        if (gaps & part)
                            assert_contains(e.message, quoted);
                        else
                            assert_null(strstr(e.message, quoted));
                        static const char *const cmd[] = {"true", NULL};
                        assert_int_equal(lcsb_backend_wrap(b, p, cmd, &final, &e), LCSB_EUNAVAIL);
                    }
                    /* Allowing all but one part still refuses, naming that one. */
                    unsigned last = gaps & -gaps;
                    lcsb_policy_set_degradable(p, gaps & ~last);
                    if (gaps != last) {
                        expect_invalid(b, p, LCSB_EUNAVAIL, lcsb_part_name(last), NULL);
                    }
                    lcsb_policy_set_degradable(p, gaps);
                    expect_valid(b, p);
                    assert_int_equal(attested_drops(b, p), gaps);
                }
                /* Allowing more than the host lacks drops no more than it lacks. */
                lcsb_policy_set_degradable(p, LCSB_PARTS_ALL);
                expect_valid(b, p);
                assert_int_equal(attested_drops(b, p), gaps);
                lcsb_policy_free(p);
            }
            lcsb_backend_free(b);
        }
    }
}

/* ---- the scope's removal ---- */

/* A process the command left behind swaps a directory in the private HOME
 * with a symlink to somewhere outside, again and again, while lcsb removes
 * HOME. Removal opens directories with O_NOFOLLOW and opens them up (chmod
 * 0700) only through a descriptor: a chmod by name, between the check that
 * saw a directory and the chmod, would follow the link and change the
 * outside directory's mode. */
struct swapper {
    char dir[PATH_MAX];
    atomic_bool stop;
    atomic_long swaps;
};

/* Swap d and l until told to stop, or for 0.1 s at most: where threads take
 * turns (valgrind runs one at a time), removal must get its turn. */
static void *swap_loop(void *arg) {
    struct swapper *sw = arg;
    int dfd = open(sw->dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
    if (dfd < 0) return NULL;
    double until = now_seconds() + 0.1;
    for (unsigned long i = 0; !atomic_load(&sw->stop); i++) {
        if (renameat2(dfd, "d", dfd, "l", RENAME_EXCHANGE) == 0) atomic_fetch_add(&sw->swaps, 1);
        if (i % 256 == 0 && now_seconds() > until) break;
    }
    close(dfd);
    return NULL;
}

static void test_scope_close_races_symlink_swap(void **state) {
    (void)state;
    char outside[PATH_MAX + 64];
    snprintf(outside, sizeof outside, "%s/outside", fixture);
    assert_int_equal(mkdir(outside, 0755), 0);
    assert_int_equal(chmod(outside, 0755), 0);
    double start = now_seconds();
    long rounds = 0, swaps = 0;
    do {
        lcsb__scope *scope = lcsb__scope_new();
        assert_non_null(scope);
        struct swapper sw = {.stop = false, .swaps = 0};
        lcsb_error err = {0};
        assert_int_equal(lcsb__scope_mkdtemp(scope, "race", sw.dir, &err), 0);
        char d[PATH_MAX + 8], l[PATH_MAX + 8], f[PATH_MAX + 16];
        snprintf(d, sizeof d, "%s/d", sw.dir);
        snprintf(l, sizeof l, "%s/l", sw.dir);
        snprintf(f, sizeof f, "%s/d/f", sw.dir);
        assert_int_equal(mkdir(d, 0700), 0);
        FILE *fp = fopen(f, "w");
        assert_non_null(fp);
        fclose(fp);
        /* Unreadable, so that an ordinary user's removal must open it up. */
        assert_int_equal(chmod(d, 0), 0);
        assert_int_equal(symlink(outside, l), 0);
        pthread_t t;
        assert_int_equal(pthread_create(&t, NULL, swap_loop, &sw), 0);
        while (atomic_load(&sw.swaps) < 2 && now_seconds() - start < 10) sched_yield();
        (void)lcsb__scope_close(scope, NULL); /* may lose entries to the swapper */
        atomic_store(&sw.stop, true);
        pthread_join(t, NULL);
        swaps += atomic_load(&sw.swaps);
        lcsb__scope_free(scope);
        /* Whatever the race left behind: gone now, by hand, the swapper
         * stopped (and no chmod of a name that may be the link). */
        struct stat st;
        if (lstat(sw.dir, &st) == 0) {
            chmod(sw.dir, 0700);
            const char *names[] = {d, l};
            for (size_t i = 0; i < 2; i++) {
                if (lstat(names[i], &st) != 0) continue;
                if (!S_ISDIR(st.st_mode)) {
                    unlink(names[i]);
                    continue;
                }
                chmod(names[i], 0700);
                snprintf(f, sizeof f, "%s/f", names[i]);
                unlink(f);
                rmdir(names[i]);
            }
            rmdir(sw.dir);
        }
        assert_int_equal(stat(outside, &st), 0);
        if ((st.st_mode & 07777) != 0755)
            fail_msg("round %ld: removal followed the swapped-in link: %s is now %o", rounds,
                     outside, (unsigned)(st.st_mode & 07777));
        rounds++;
    } while (rounds < 20000 && now_seconds() - start < 1.5);
    print_message("%ld rounds, %ld swaps: %s kept its mode\n", rounds, swaps, outside);
    assert_true(swaps > rounds); /* the swapper did swap, or this proved nothing */
    rmdir(outside);
}

static void test_backend_constructors(void **state) {
    (void)state;
    lcsb_backend *b = NULL;
    lcsb_error err = {0};
    assert_int_equal(lcsb_backend_landlock(0, LCSB_SHIM_PATH, &b, &err), LCSB_EINVAL);
    assert_contains(err.message, "ABI 0");
    assert_int_equal(lcsb_backend_landlock(10, LCSB_SHIM_PATH, &b, &err), LCSB_EINVAL);
    assert_int_equal(lcsb_backend_landlock(7, "lcsb-exec", &b, &err), LCSB_EINVAL);
    assert_contains(err.message, "absolute");
    assert_int_equal(lcsb_backend_landlock(7, NULL, &b, &err), LCSB_EINVAL);
    assert_null(b);

    /* A shim that is not there: EUNAVAIL naming it. */
    assert_int_equal(lcsb_backend_landlock(7, "/nonexistent/lcsb-exec", &b, &err), 0);
    lcsb_policy *p = new_policy();
    lcsb_policy_set_net(p, LCSB_NET_OPEN);
    expect_invalid(b, p, LCSB_EUNAVAIL, "/nonexistent/lcsb-exec", "not executable");
    lcsb_backend_free(b);

    /* none validates anything: it enforces nothing and says so elsewhere. */
    assert_int_equal(lcsb_backend_none(&b, &err), 0);
    assert_string_equal(lcsb_backend_name(b), "none");
    assert_false(lcsb_backend_contains_prefix(b));
    added(p, LCSB_TIER_EXEC, "/usr");
    added(p, LCSB_TIER_READ, "/no/such/path");
    expect_valid(b, p);
    lcsb_backend_free(b);
    lcsb_policy_free(p);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_validate_baseline),
        cmocka_unit_test(test_validate_missing_paths),
        cmocka_unit_test(test_validate_private_listed),
        cmocka_unit_test(test_validate_exec_symlinks),
        cmocka_unit_test(test_validate_hide_and_limits),
        cmocka_unit_test(test_validate_memory_limit),
        cmocka_unit_test(test_validate_read_write_symlinks),
        cmocka_unit_test(test_validate_write_system_dirs),
        cmocka_unit_test(test_validate_too_many_ports),
        cmocka_unit_test(test_validate_exec_system_dirs),
        cmocka_unit_test(test_validate_env_needs_env),
        cmocka_unit_test(test_validate_parts_per_host),
        cmocka_unit_test(test_backend_constructors),
        cmocka_unit_test(test_scope_close_races_symlink_swap),
    };
    return cmocka_run_group_tests_name("sandbox_policy_validate", tests, fixture_setup,
                                       fixture_teardown);
}
