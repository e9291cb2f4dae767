/* The file system under the mechanism: reading, writing and executing what
 * the policy does not grant, mounting, the private HOME and the environment
 * the command gets. Each refusal has its twin under none; the rules of the
 * enforcement suites are in enforce_fixture.h. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h> /* after the four above, which it needs */

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pwd.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "enforce_fixture.h"

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

/* /etc is read whole, and lcsb.etc_secrets (lua/lcsb/init.lua) are hidden in
 * the command's world: /etc/shadow is an empty file no one may read there. As root
 * the same cat works unsandboxed, which proves the refusal was the sandbox's. As an ordinary user
 * /etc/shadow is unreadable anyway, so there is no succeeding twin; the twin for everyone is that
 * the rest of /etc still reads. Listing /etc itself is the accepted cost. */
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
    /* Outside the policy, they are not in the command's world at all. */
    expect_denied(f, CMD("rm", target), 1, &P);
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
    /* An empty HOME: "/" holds nothing the caps deny from reading, and it is
     * validation's refusal that is tested (test_sandbox_enforce_caps.c has
     * theirs). */
    char home[PATH_MAX + 8];
    FMT(home, "HOME=%s", f->outside);
    for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
        char entry[PATH_MAX + 64];
        FMT(entry, "\"%s%s\"", refused[i].in_project ? f->project : "", refused[i].path);
        policy(f, "exec = { %s }", entry);
        lcsb_env(f, "landlock", cmd, ENV(home), &P);
        if (P.status != 125) {
            describe("landlock run", cmd, &P);
            fail_msg("exec = { %s }: expected 125, got %d", entry, P.status);
        }
        if (!has_line(P.err, "lcsb: ", CMD("exec")))
            fail_msg("exec = { %s }: no message naming exec:\n%s", entry, P.err);
        assert_exists(marker, false);
        lcsb_env(f, "none", cmd, ENV(home), &P);
        if (P.status != 0) {
            describe("unsandboxed run", cmd, &P);
            fail_msg("exec = { %s }: the same command failed unsandboxed (%d)", entry, P.status);
        }
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

/* ---- mount ---- */

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

/* The overlay: set and unset, in either form, on top of what is passed. */
static void test_env_overlay(void **state) {
    NEED_LANDLOCK();
    fx *f = *state;
    const char *const *env = ENV("SECRET=hunter2", "FOO=caller");
    const char *const *cmd =
        CMD("sh", "-c", "echo \"FOO=$FOO\"; echo \"SECRET=${SECRET-<unset>}\"");
    const char *const backends[] = {mech, "none"};
    for (size_t i = 0; i < 2; i++) {
        /* Passed by name, the caller's SECRET gets through... */
        policy(f, "exec = { \"sh\" }, env = { pass = { \"SECRET\", \"FOO\" } }");
        lcsb_env(f, backends[i], cmd, env, &P);
        assert_int_equal(P.status, 0);
        assert_contains(P.out, "SECRET=hunter2", "stdout");
        assert_contains(P.out, "FOO=caller\n", "stdout");
        /* ... the overlay sets FOO and removes it. */
        policy(f, "exec = { \"sh\" }, env = { pass = { \"SECRET\", \"FOO\" }, set = { FOO = "
                  "\"bar\" }, unset = { \"SECRET\" } }");
        lcsb_env(f, backends[i], cmd, env, &P);
        assert_int_equal(P.status, 0);
        assert_contains(P.out, "FOO=bar\n", "stdout");
        assert_contains(P.out, "SECRET=<unset>\n", "stdout");
        assert_lacks(P.out, "hunter2", "stdout");
        /* The simple form is the overlay alone. */
        policy(f, "exec = { \"sh\" }, env = { FOO = \"bar\", SECRET = false }");
        lcsb_env(f, backends[i], cmd, env, &P);
        assert_int_equal(P.status, 0);
        assert_contains(P.out, "FOO=bar\n", "stdout");
        assert_contains(P.out, "SECRET=<unset>\n", "stdout");
    }
}

/* The caller's environment for the allowlist cases: secrets of the usual
 * kinds, a locale, and ordinary variables. */
#define CALLER_ENV                                                                                 \
    ENV("AWS_SECRET_ACCESS_KEY=aws-s3cr3t-value", "GITHUB_TOKEN=gh-t0ken-value",                   \
        "SSH_AUTH_SOCK=/tmp/agent-sock-value", "NPM_CONFIG_TOKEN=npm-t0ken-value",                 \
        "NPM_CONFIG_CACHE=/npm-cache-value", "CI=ci-value", "FOO=foo-value", "LANG=C.UTF-8")

static const char *const secret_values[] = {"aws-s3cr3t-value", "gh-t0ken-value",
                                            "agent-sock-value", "npm-t0ken-value", NULL};

/* P.out (an `env` listing) holds none of the secrets but those in BUT. */
static void assert_secrets_kept(const char *backend, const char *const *but) {
    for (size_t i = 0; secret_values[i]; i++) {
        bool allowed = false;
        for (size_t k = 0; but && but[k]; k++) allowed |= strcmp(but[k], secret_values[i]) == 0;
        if (!allowed && strstr(P.out, secret_values[i]))
            fail_msg("under %s the command saw %s:\n%s", backend, secret_values[i], P.out);
    }
}

/* The command gets the base set, the private HOME and what the policy
 * passes, never a secret-looking variable unless named exactly; the values
 * never ride on the argv. The twin is plain env, without lcsb: the caller
 * did have every secret. Under none the composition is the same (the seam's,
 * not a mechanism's). */
static void test_env_allowlist(void **state) {
    NEED_MECHANISM();
    fx *f = *state;
    const char *const *env = CALLER_ENV;
    const char *const backends[] = {mech, "none"};
    for (size_t i = 0; i < 2; i++) {
        const char *b = backends[i];
        bool container = strcmp(b, "oci") == 0;
        /* Nothing passed: the base set and the private HOME. */
        policy(f, "exec = { \"env\" }");
        lcsb_env(f, b, CMD("env"), env, &P);
        if (P.status != 0) describe(b, CMD("env"), &P);
        assert_int_equal(P.status, 0);
        assert_secrets_kept(b, NULL);
        assert_lacks(P.out, "foo-value", "stdout");
        assert_lacks(P.out, "ci-value", "stdout");
        assert_lacks(P.out, "npm-cache-value", "stdout");
        assert_contains(P.out, "LANG=C.UTF-8\n", "stdout");
        /* A container's PATH is its world's; elsewhere the caller's. */
        assert_contains(P.out, container ? "PATH=" : "PATH=/usr/bin:/bin\n", "stdout");
        assert_contains(P.out, "HOME=/", "stdout");
        assert_lacks(P.out, "HOME=/root\n", "stdout");

        /* By exact name a secret passes; by pattern it does not. */
        policy(f, "exec = { \"env\" }, env = { pass = { \"GITHUB_TOKEN\", \"NPM_CONFIG_*\", "
                  "\"CI\" } }");
        lcsb_env(f, b, CMD("env"), env, &P);
        assert_int_equal(P.status, 0);
        assert_contains(P.out, "GITHUB_TOKEN=gh-t0ken-value\n", "stdout");
        assert_contains(P.out, "NPM_CONFIG_CACHE=/npm-cache-value\n", "stdout");
        assert_contains(P.out, "CI=ci-value\n", "stdout");
        assert_secrets_kept(b, CMD("gh-t0ken-value"));
        assert_lacks(P.out, "foo-value", "stdout");

        /* Everything but the sensitive names. */
        policy(f, "exec = { \"env\" }, env = { pass = { \"*\" } }");
        lcsb_env(f, b, CMD("env"), env, &P);
        assert_int_equal(P.status, 0);
        assert_contains(P.out, "FOO=foo-value\n", "stdout");
        assert_contains(P.out, "CI=ci-value\n", "stdout");
        assert_secrets_kept(b, NULL);

        /* The argv lcsb executes names what it passes, never a value. */
        policy(f, "exec = { \"env\" }, env = { pass = { \"GITHUB_TOKEN\", \"CI\" } }");
        run_child(
            f->project,
            CMD(LCSB_CLI_PATH, "wrap", "--no-trust-check", "--backend", b, f->policy, "--", "env"),
            env, &P);
        assert_int_equal(P.status, 0);
        assert_secrets_kept(b, NULL);
        assert_lacks(P.out, "ci-value", "the final argv");
        if (container) assert_contains(P.out, "\"--env=GITHUB_TOKEN\"", "the final argv");
        /* check names what passes and what is held back, by name only. */
        run_child(f->project,
                  CMD(LCSB_CLI_PATH, "check", "--no-trust-check", "--backend", b, f->policy), env,
                  &P);
        assert_int_equal(P.status, 0);
        assert_contains(P.out, "env: allow-listed", "check");
        assert_true(has_line(P.out, "  passed", CMD("GITHUB_TOKEN")));
        assert_true(has_line(P.out, "  passed", CMD("CI")));
        assert_true(has_line(P.out, "  held back", CMD("AWS_SECRET_ACCESS_KEY")));
        assert_true(has_line(P.out, "  held back", CMD("SSH_AUTH_SOCK")));
        assert_false(has_line(P.out, "  passed", CMD("FOO")));
        assert_secrets_kept(b, NULL);
        assert_lacks(P.out, "ci-value", "check");
    }
    /* The twin: the caller had them all. */
    run_child(f->project, CMD("/usr/bin/env"), env, &P);
    assert_int_equal(P.status, 0);
    for (size_t i = 0; secret_values[i]; i++) assert_contains(P.out, secret_values[i], "env");
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
        T(test_mount),
        T(test_private_home),
        T(test_home_removed_after_signal),
        T(test_home_cleanup_follows_no_link),
        T(test_env_overlay),
        T(test_env_allowlist),
        T(test_no_new_privs),
    };
    /* The cases whose refusal a container gives too (the exec allowlist, the ABI and the shim's own
     * cases are Landlock's). */
    const struct CMUnitTest oci_tests[] = {
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
        T(test_env_allowlist),
        T(test_no_new_privs),
    };
    int failed =
        cmocka_run_group_tests_name("sandbox_enforce_fs", tests, enforce_group_setup, NULL);
    return failed | cmocka_run_group_tests_name("sandbox_enforce_fs_oci", oci_tests,
                                                oci_group_setup, oci_group_teardown);
}
