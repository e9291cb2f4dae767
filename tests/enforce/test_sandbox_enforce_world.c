/* A read-only world: metadata outside the policy cannot be changed, a
 * repository's hooks and config and the coding agents' configuration stay
 * read-only, no set-id bit or extended attribute outlives the run. The
 * rules of the enforcement suites are in enforce_fixture.h. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h> /* after the four above, which it needs */

#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <utime.h>

#include "enforce_fixture.h"

/* ---- metadata and protected paths (a read-only world) ---- */

/* chmod, chown and touch -d on a file outside the policy: Landlock has no
 * right for them, the read-only mount namespace refuses them (EROFS). */
static void test_metadata_outside_refused(void **state) {
    NEED_MECHANISM();
    fx *f = *state;
    char file[PATH_MAX], chown_script[2 * PATH_MAX];
    /* A file it may read: outside the policy it would not exist at all. */
    write_file(path_in(file, f->ro, "owned"), "x\n");
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

/* Files move between the project's directories, by rename and by hard
 * link, as package managers (npm's cache), git and build tools move them;
 * one moved out of the project into what it may only read is refused. The
 * command's own nested Landlock domain once refused every move across
 * directories (EXDEV): a domain takes REFER as handled, rule or not. */
static void test_moves_within_the_project(void **state) {
    NEED_MECHANISM();
    fx *f = *state;
    char script[4 * PATH_MAX], out_file[PATH_MAX];
    path_in(out_file, f->ro, "moved-out");
    policy(f, "exec = { \"sh\", \"mkdir\", \"mv\", \"ln\", \"cat\", \"%s\" }, read = { \"%s\" }",
           PYTHON, f->ro);
    FMT(script, "import os\n"
                "os.makedirs('a/b', exist_ok=True); os.makedirs('c', exist_ok=True)\n"
                "open('a/b/f', 'w').write('moved\\n')\n"
                "os.rename('a/b/f', 'c/f')\n"
                "os.link('c/f', 'a/g')\n"
                "os.rename('a/b', 'c/b')\n"
                "print(open('a/g').read(), end='')\n");
    const char *const *cmd = CMD(PYTHON, "-c", script);
    expect_allowed(f, cmd, &P);
    assert_string_equal(P.out, "moved\n");
    char moved[PATH_MAX];
    assert_true(access(path_in(moved, f->project, "c/b"), F_OK) == 0);
    /* Out of the project into the read tier: refused, and it stays. */
    FMT(script, "import os\nos.rename('a/g', '%s')\n", out_file);
    expect_denied(f, CMD(PYTHON, "-c", script), 1, &P);
    assert_int_equal(access(out_file, F_OK), -1);
    expect_unsandboxed_ok(f, CMD(PYTHON, "-c", script), &P);
    assert_int_equal(unlink(out_file), 0);
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

/* The tree test_held_paths_stay_in_place works on, made again: a/b/kept
 * protected, c/d (holding a secret) hidden, inside the writable project. */
static void held_tree(fx *f) {
    char script[2 * PATH_MAX];
    FMT(script,
        "cd '%s' && rm -rf a a2 c c2 && mkdir -p a/b c/d && echo original > a/b/kept && "
        "echo " SECRET " > c/d/secret",
        f->project);
    run_child(f->project, CMD("/bin/sh", "-c", script), NULL, &P);
    assert_int_equal(P.status, 0);
}

/* A protected or hidden path stays where it is: the directories above it,
 * inside the writable project, cannot be renamed away and made again
 * around a path nobody holds (a red team's way to a trust store of its
 * own under a writable ~/.local). The rest of those directories stays
 * writable. The twins: unsandboxed, each move lands. */
static void test_held_paths_stay_in_place(void **state) {
    NEED_MECHANISM();
    fx *f = *state;
    char kept[PATH_MAX], secret[PATH_MAX];
    path_in(kept, f->project, "a/b/kept");
    path_in(secret, f->project, "c/d/secret");
    held_tree(f);
    policy(f,
           "exec = { \"sh\", \"mv\", \"mkdir\", \"cat\" }, protect = { \"%s\" }, "
           "hide = { \"%s/c/d\" }",
           kept, f->project);
    /* Each move, and what its hint says: the directory holds what the
     * policy keeps, or is the hidden path itself. */
    static const struct {
        const char *cmd, *hint;
    } moves[] = {
        {"mv a a2 && mkdir -p a/b && echo planted > a/b/kept", "stays where it is for the run"},
        {"mv a/b a/b2 && mkdir a/b && echo planted > a/b/kept", "stays where it is for the run"},
        {"mv c c2 && mkdir -p c/d && echo planted > c/d/secret", "stays where it is for the run"},
        {"mv c/d c/d2", "it is hidden by the policy (hide)"},
    };
    for (size_t i = 0; i < sizeof moves / sizeof *moves; i++) {
        const char *const *cmd = CMD("sh", "-c", moves[i].cmd);
        held_tree(f);
        expect_denied(f, cmd, -1, &P);
        assert_contains(P.err, "busy", "stderr");
        /* The hint names what the directory holds, and offers no way to
         * let protection go: a move is no reason to. */
        assert_contains(P.err, moves[i].hint, "hint");
        assert_lacks(P.err, "protect = false", "hint");
        assert_content(kept, "original\n");
        assert_content(secret, SECRET "\n");
        held_tree(f);
        expect_unsandboxed_ok(f, cmd, &P);
    }
    held_tree(f);
    expect_allowed(f, CMD("sh", "-c", "mkdir a/new c/new && echo x > a/b/beside && cat a/b/kept"),
                   &P);
    assert_string_equal(P.out, "original\n");
    /* Hidden, it is no file of the command's world. */
    expect_denied(f, CMD("cat", "c/d/secret"), 1, &P);
}

/* A path hidden or protected inside a private directory (a fresh tmpfs in
 * the world, nothing of the host's): the directories above it are not
 * held in place by binding the host's own there, which would show the
 * command what lies beside the path, writable. Under none the private
 * directory is made on the host, and the host's directory is not there
 * either; the twin is a policy without it, where the command reads and
 * writes beside the path. */
static void test_held_paths_in_a_private_directory(void **state) {
    NEED_LANDLOCK();
    if (oci_group()) skip();
    fx *f = *state;
    char priv[PATH_MAX], sub[PATH_MAX], beside[PATH_MAX], made[PATH_MAX], text[4096];
    path_in(priv, f->outside, "priv");
    path_in(sub, priv, "sub");
    assert_int_equal(mkdir(priv, 0755), 0);
    assert_int_equal(mkdir(sub, 0755), 0);
    write_file(path_in(beside, sub, "beside"), SECRET "\n");
    write_file(path_in(made, sub, "file"), "held\n");
    path_in(made, sub, "made");
    const char *const *cmd = CMD("sh", "-c", "cat \"$0/beside\"; echo planted > \"$0/made\"", sub);
    const char *const kinds[] = {"hide", "protect"};
    char private[PATH_MAX + 64];
    FMT(private, ", private = { { path = \"%s\" } }", priv);
    for (int twin = 0; twin < 2; twin++)
        for (size_t k = 0; k < 2; k++) {
            FMT(text,
                "local lcsb = require \"lcsb\"\n"
                "return function(run)\n"
                "  local p = lcsb.exec_policy { project = run.cwd,\n"
                "    exec = { \"sh\", \"cat\", \"mv\", \"mkdir\" } }\n"
                "  return lcsb.policy { cwd = run.cwd, read = p.read, exec = p.exec,\n"
                "    write = { run.cwd, \"%s\" }, %s = { \"%s/file\" }%s }\n"
                "end\n",
                priv, kinds[k], sub, twin ? "" : private);
            raw_policy(f, text);
            if (!twin) {
                expect_denied(f, cmd, -1, &P);
                assert_lacks(P.out, SECRET, "stdout");
                assert_exists(made, false);
            } else {
                expect_allowed(f, cmd, &P);
                assert_contains(P.out, SECRET, "stdout");
                assert_exists(made, true);
                assert_int_equal(unlink(made), 0);
            }
        }
    /* A private directory that is no path of the policy's would not be
     * made fresh: the command would see the host's, through the tree the
     * policy writes that holds it. Such a policy is refused before
     * anything runs (its twin, listing the directory, is the first case). */
    const char *const *move =
        CMD("sh", "-c", "mv \"$0\" \"$0.2\" && mkdir \"$0\" && echo planted > \"$0/file\"", sub);
    FMT(text,
        "local lcsb = require \"lcsb\"\n"
        "return function(run)\n"
        "  local p = lcsb.exec_policy { project = run.cwd, exec = { \"sh\", \"mv\", \"mkdir\" } }\n"
        "  return lcsb.policy { cwd = run.cwd, read = p.read, exec = p.exec,\n"
        "    write = { run.cwd, \"%s\" }, protect = { \"%s/file\" }%s }\n"
        "end\n",
        f->outside, sub, private);
    raw_policy(f, text);
    lcsb(f, "landlock", move, &P);
    assert_int_equal(P.status, LCSB_EXIT_USAGE);
    assert_true(has_line(P.err, "lcsb: ", CMD("private:", priv, "none of the policy's paths")));
    char held[PATH_MAX];
    assert_content(path_in(held, sub, "file"), "held\n");
}

/* A private directory starts empty. In a world of its own it is a tmpfs
 * there; elsewhere (under none here, as under any backend without a world)
 * lcsb makes it on the host, and a directory of the host's already at that
 * path is refused, not taken as fresh. Its twin: with nothing there, the
 * same run under none gets an empty directory. */
static void test_private_directory_never_the_hosts(void **state) {
    NEED_LANDLOCK();
    if (oci_group()) skip();
    fx *f = *state;
    char priv[PATH_MAX], inside[PATH_MAX], text[4096];
    path_in(priv, f->outside, "priv");
    assert_int_equal(mkdir(priv, 0700), 0);
    write_file(path_in(inside, priv, "host"), SECRET "\n");
    FMT(text,
        "local lcsb = require \"lcsb\"\n"
        "return function(run)\n"
        "  local p = lcsb.exec_policy { project = run.cwd, exec = { \"sh\", \"ls\" } }\n"
        "  return lcsb.policy { cwd = run.cwd, read = p.read, exec = p.exec,\n"
        "    write = { run.cwd, \"%s\" }, private = { { path = \"%s\" } } }\n"
        "end\n",
        priv, priv);
    raw_policy(f, text);
    const char *const *cmd = CMD("sh", "-c", "ls -A \"$0\"; echo made > \"$0/made\"", priv);
    char made[PATH_MAX];
    path_in(made, priv, "made");
    expect_allowed(f, cmd, &P);
    assert_lacks(P.out, "host", "stdout");
    assert_exists(made, false);
    lcsb(f, "none", cmd, &P);
    assert_int_equal(P.status, LCSB_EXIT_USAGE);
    assert_true(has_line(P.err, "lcsb: ", CMD(priv, "lcsb did not make")));
    assert_exists(made, false);
    assert_int_equal(unlink(inside), 0);
    assert_int_equal(rmdir(priv), 0);
    expect_unsandboxed_ok(f, cmd, &P);
    assert_lacks(P.out, "host", "stdout");
    assert_exists(made, true);
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

/* ---- files outside every tree the policy reads ---- */

/* Two or more files the policy names in one directory that no tree of the
 * policy holds make that directory one mount, bound whole (each file would
 * otherwise be a mount of its own). Its other entries are then there: stat
 * finds them by name, and that is all. Landlock grants nothing on them, so
 * they cannot be read, run, written or listed, and a hidden one stays
 * covered; the named ones read. */
static void test_directory_bound_whole(void **state) {
    NEED_LANDLOCK();
    fx *f = *state;
    char dir[PATH_MAX], a[PATH_MAX], b[PATH_MAX], other[PATH_MAX], hidden[PATH_MAX],
        script[PATH_MAX], made[PATH_MAX], write[2 * PATH_MAX];
    assert_int_equal(mkdir(path_in(dir, f->outside, "tool"), 0755), 0);
    write_file(path_in(a, dir, "a"), "a\n");
    write_file(path_in(b, dir, "b"), "b\n");
    write_file(path_in(other, dir, "other"), SECRET "\n");
    write_file(path_in(hidden, dir, "hidden"), SECRET "\n");
    write_file(path_in(script, dir, "script"), "#!/bin/sh\necho ran\n");
    assert_int_equal(chmod(script, 0755), 0);
    path_in(made, dir, "made");
    FMT(write, "echo x > '%s'", other);
    policy(f, "exec = { " TOOLS " }, read = { \"%s\", \"%s\" }, hide = { \"%s\" }", a, b, hidden);

    expect_allowed(f, CMD("cat", a, b), &P);
    assert_string_equal(P.out, "a\nb\n");
    /* There, and nothing more. */
    expect_allowed(f, CMD("stat", "-c", "%n", other), &P);
    expect_denied(f, CMD("cat", other), 1, &P);
    assert_contains(P.err, "Permission denied", "stderr");
    assert_lacks(P.out, SECRET, "stdout");
    expect_unsandboxed_ok(f, CMD("cat", other), &P);
    assert_contains(P.out, SECRET, "stdout");
    expect_denied(f, CMD("ls", dir), 2, &P);
    assert_lacks(P.out, "other", "stdout");
    expect_unsandboxed_ok(f, CMD("ls", dir), &P);
    assert_contains(P.out, "other", "stdout");
    expect_denied(f, CMD("sh", "-c", script), 126, &P);
    assert_lacks(P.out, "ran", "stdout");
    expect_unsandboxed_ok(f, CMD("sh", "-c", script), &P);
    assert_contains(P.out, "ran", "stdout");
    expect_denied(f, CMD("cat", hidden), 1, &P);
    assert_lacks(P.out, SECRET, "stdout");
    expect_unsandboxed_ok(f, CMD("cat", hidden), &P);
    assert_contains(P.out, SECRET, "stdout");
    expect_denied(f, CMD("sh", "-c", write), -1, &P);
    assert_content(other, SECRET "\n");
    expect_denied(f, CMD("touch", made), 1, &P);
    assert_exists(made, false);
    expect_unsandboxed_ok(f, CMD("touch", made), &P);
    assert_exists(made, true);
    expect_unsandboxed_ok(f, CMD("sh", "-c", write), &P);
    assert_content(other, "x\n");
}

/* A path of the write tier in a directory bound whole keeps a writable
 * mount of its own (a mount point: it cannot be renamed away); the named
 * read paths beside it read, and the rest of the directory is read-only. */
static void test_directory_bound_whole_keeps_the_write_tier(void **state) {
    NEED_LANDLOCK();
    fx *f = *state;
    char dir[PATH_MAX], a[PATH_MAX], b[PATH_MAX], log[PATH_MAX], other[PATH_MAX],
        append[2 * PATH_MAX], clobber[2 * PATH_MAX], moved[PATH_MAX];
    assert_int_equal(mkdir(path_in(dir, f->outside, "tool"), 0755), 0);
    write_file(path_in(a, dir, "a"), "a\n");
    write_file(path_in(b, dir, "b"), "b\n");
    write_file(path_in(log, dir, "log"), "");
    write_file(path_in(other, dir, "other"), SECRET "\n");
    path_in(moved, dir, "moved");
    FMT(append, "echo written >> '%s'", log);
    FMT(clobber, "echo x > '%s'", other);
    policy(f, "exec = { " TOOLS " }, read = { \"%s\", \"%s\" }, write = { \"%s\" }", a, b, log);

    expect_allowed(f, CMD("sh", "-c", append), &P);
    assert_content(log, "written\n");
    expect_allowed(f, CMD("cat", a, b), &P);
    assert_string_equal(P.out, "a\nb\n");
    expect_denied(f, CMD("mv", log, moved), 1, &P);
    assert_exists(log, true);
    assert_exists(moved, false);
    expect_denied(f, CMD("sh", "-c", clobber), -1, &P);
    assert_content(other, SECRET "\n");
    expect_unsandboxed_ok(f, CMD("sh", "-c", clobber), &P);
    assert_content(other, "x\n");
    expect_unsandboxed_ok(f, CMD("mv", log, moved), &P);
    assert_exists(moved, true);
}

/* A directory stays apart, its named files each a mount of their own and
 * nothing else of it there, when it holds a directory the policy does not
 * name (its whole tree would come along), or when the policy names only
 * one of its entries. */
static void test_directory_kept_apart(void **state) {
    NEED_LANDLOCK();
    fx *f = *state;
    char dir[PATH_MAX], sub[PATH_MAX], deep[PATH_MAX], a[PATH_MAX], b[PATH_MAX], other[PATH_MAX],
        lone[PATH_MAX], alone[PATH_MAX], beside[PATH_MAX];
    assert_int_equal(mkdir(path_in(dir, f->outside, "tool"), 0755), 0);
    assert_int_equal(mkdir(path_in(sub, dir, "sub"), 0755), 0);
    write_file(path_in(deep, sub, "deep"), SECRET "\n");
    write_file(path_in(a, dir, "a"), "a\n");
    write_file(path_in(b, dir, "b"), "b\n");
    write_file(path_in(other, dir, "other"), SECRET "\n");
    assert_int_equal(mkdir(path_in(lone, f->outside, "lone"), 0755), 0);
    write_file(path_in(alone, lone, "alone"), "alone\n");
    write_file(path_in(beside, lone, "beside"), SECRET "\n");
    policy(f, "exec = { " TOOLS " }, read = { \"%s\", \"%s\", \"%s\" }", a, b, alone);

    expect_allowed(f, CMD("cat", a, b, alone), &P);
    assert_string_equal(P.out, "a\nb\nalone\n");
    const char *absent[] = {sub, deep, other, beside};
    for (size_t i = 0; i < sizeof absent / sizeof absent[0]; i++) {
        expect_denied(f, CMD("stat", "-c", "%n", absent[i]), 1, &P);
        assert_contains(P.err, "No such file or directory", "stderr");
        expect_unsandboxed_ok(f, CMD("stat", "-c", "%n", absent[i]), &P);
    }
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

/* ---- the coding agents' configuration ---- */

/* The files the agent-configuration cases plant in, and what each held
 * before: the project as an agent user's, with Claude Code's settings, an
 * MCP server list, Cursor's, VS Code's settings and aider's. */
static const char *const agent_files[] = {".claude/settings.json", ".mcp.json", ".cursor/mcp.json",
                                          ".vscode/settings.json", ".aider.conf.yml"};

static void agent_project(fx *f) {
    static const char *const gone[] = {".claude-old", ".vscode-old", "via"};
    static const char *const dirs[] = {".claude", ".cursor", ".vscode"};
    char path[PATH_MAX];
    for (size_t i = 0; i < sizeof gone / sizeof *gone; i++)
        rm_rf(path_in(path, f->project, gone[i]));
    for (size_t i = 0; i < sizeof dirs / sizeof *dirs; i++) {
        rm_rf(path_in(path, f->project, dirs[i]));
        assert_int_equal(mkdir(path, 0755), 0);
    }
    for (size_t i = 0; i < sizeof agent_files / sizeof *agent_files; i++)
        write_file(path_in(path, f->project, agent_files[i]), "original\n");
}

/* What an agent acts on at its next start, outside any sandbox: a hook in
 * .claude/settings.json, an MCP server in .mcp.json or Cursor's mcp.json,
 * Copilot's auto-approval in .vscode/settings.json, aider's test-cmd. Where
 * they exist they stay read-only: written, added to, reached through a
 * symlink the command makes, or .claude moved away and made again. The twin:
 * unsandboxed, every one of those writes lands. */
static void test_agent_config_protected(void **state) {
    NEED_MECHANISM();
    fx *f = *state;
    policy(f, "exec = { \"sh\", \"mkdir\", \"ln\", \"mv\" }");
    static const struct {
        const char *cmd, *planted; /* the command, and the file it plants */
    } cases[] = {
        {"echo planted > .claude/settings.json", ".claude/settings.json"},
        {"echo planted > .mcp.json", ".mcp.json"},
        {"echo planted > .cursor/mcp.json", ".cursor/mcp.json"},
        {"echo planted > .vscode/settings.json", ".vscode/settings.json"},
        {"echo planted > .aider.conf.yml", ".aider.conf.yml"},
        {"mkdir -p .claude/commands && echo planted > .claude/commands/x.md",
         ".claude/commands/x.md"},
        {"ln -s .claude via && echo planted > via/settings.local.json",
         ".claude/settings.local.json"},
        {"mv .claude .claude-old && mkdir .claude && echo planted > .claude/settings.json",
         ".claude/settings.json"},
        /* Only the file is protected: its directory is held in place. */
        {"mv .vscode .vscode-old && mkdir .vscode && echo planted > .vscode/settings.json",
         ".vscode/settings.json"},
    };
    for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
        char planted[PATH_MAX], path[PATH_MAX];
        const char *const *cmd = CMD("sh", "-c", cases[c].cmd);
        path_in(planted, f->project, cases[c].planted);
        agent_project(f);
        expect_denied(f, cmd, -1, &P);
        for (size_t i = 0; i < sizeof agent_files / sizeof *agent_files; i++)
            assert_content(path_in(path, f->project, agent_files[i]), "original\n");
        /* One that was there is among agent_files, still the original. */
        bool was_there = false;
        for (size_t i = 0; i < sizeof agent_files / sizeof *agent_files; i++)
            was_there |= strcmp(agent_files[i], cases[c].planted) == 0;
        if (!was_there) assert_exists(planted, false);
        agent_project(f);
        expect_unsandboxed_ok(f, cmd, &P);
        assert_content(planted, "planted\n");
    }
}

/* Where an agent's configuration is not there, the command may make it
 * (a mount needs something to sit on, and a placeholder would be a broken
 * configuration to every agent that starts meanwhile): lcsb names it after
 * the run, and the runs after keep it read-only. The twin of that refusal:
 * unsandboxed, the change lands. */
static void test_agent_config_before_it_exists(void **state) {
    NEED_MECHANISM();
    fx *f = *state;
    char path[PATH_MAX], line[PATH_MAX + 64];
    policy(f, "exec = { \"sh\", \"mkdir\" }");
    const char *const *plant =
        CMD("sh", "-c", "mkdir -p .claude && echo '{\"hooks\":{}}' > .claude/settings.json");
    expect_allowed(f, plant, &P);
    FMT(line, "%s/.claude was created or changed during the run", f->project);
    if (!has_line(P.err, "lcsb: warning: ", CMD(line, "Claude Code runs the hooks")))
        fail_msg("no warning naming .claude:\n%s", P.err);
    const char *const *change =
        CMD("sh", "-c", "echo '{\"hooks\":{\"x\":1}}' > .claude/settings.json");
    expect_denied(f, change, -1, &P);
    assert_content(path_in(path, f->project, ".claude/settings.json"), "{\"hooks\":{}}\n");
    expect_unsandboxed_ok(f, change, &P);
    assert_content(path, "{\"hooks\":{\"x\":1}}\n");
}

/* protect = { "!.claude" } lets that default go, and only it: under the
 * mechanism the hook lands, in a .claude the command makes and in one that
 * exists, while an existing .codex stays read-only; .codex's refusal has
 * its twin. */
static void test_agent_config_let_go(void **state) {
    NEED_MECHANISM();
    fx *f = *state;
    char settings[PATH_MAX], codex[PATH_MAX];
    path_in(settings, f->project, ".claude/settings.json");
    path_in(codex, f->project, ".codex");
    policy(f, "exec = { \"sh\", \"mkdir\" }, protect = { \"!.claude\" }");
    expect_allowed(f, CMD("sh", "-c", "mkdir .claude && echo made > .claude/settings.json"), &P);
    assert_content(settings, "made\n");
    expect_allowed(f, CMD("sh", "-c", "echo again > .claude/settings.json"), &P);
    assert_content(settings, "again\n");
    char config[PATH_MAX];
    assert_int_equal(mkdir(codex, 0755), 0);
    path_in(config, codex, "config.toml");
    const char *const *codex_plant = CMD("sh", "-c", "echo planted > .codex/config.toml");
    expect_denied(f, codex_plant, -1, &P);
    assert_exists(config, false);
    expect_unsandboxed_ok(f, codex_plant, &P);
    assert_exists(config, true);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        T(test_metadata_outside_refused),
        /* a repository's hooks and config */
        T(test_git_hooks_protected),
        T(test_git_hooks_before_they_exist),
        T(test_git_placeholder_left_behind),
        T(test_git_file_protected),
        T(test_moves_within_the_project),
        T(test_held_paths_stay_in_place),
        T(test_held_paths_in_a_private_directory),
        T(test_private_directory_never_the_hosts),
        /* the coding agents' configuration */
        T(test_agent_config_protected),
        T(test_agent_config_before_it_exists),
        T(test_agent_config_let_go),
        /* set-id bits, and a status that only looks like the shim's */
        T(test_setid_refused),
        T(test_fake_setup_failure),
        /* files outside every tree the policy reads */
        T(test_directory_bound_whole),
        T(test_directory_bound_whole_keeps_the_write_tier),
        T(test_directory_kept_apart),
    };
    /* The cases whose refusal a container gives too (the exec allowlist, the ABI and the shim's own
     * cases are Landlock's). */
    const struct CMUnitTest oci_tests[] = {
        T(test_metadata_outside_refused),
        /* a repository's hooks and config */
        T(test_git_hooks_protected),
        T(test_git_hooks_before_they_exist),
        T(test_git_placeholder_left_behind),
        T(test_git_file_protected),
        T(test_held_paths_stay_in_place),
        /* the coding agents' configuration */
        T(test_agent_config_protected),
        T(test_agent_config_before_it_exists),
        T(test_agent_config_let_go),
    };
    int failed =
        cmocka_run_group_tests_name("sandbox_enforce_world", tests, enforce_group_setup, NULL);
    return failed | cmocka_run_group_tests_name("sandbox_enforce_world_oci", oci_tests,
                                                oci_group_setup, oci_group_teardown);
}
