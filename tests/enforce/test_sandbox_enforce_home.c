/* What the private HOME shows of the real one, through the real CLI: git
 * finds the user's identity through home = { ".gitconfig" } (and does not
 * without it), the file is read-only to the command (under none, the
 * unsandboxed twin, it is not), a cache = { ".npm" } directory is kept
 * between runs of a project and is not another project's, and `lcsb cache
 * clear` removes it without following what the command planted there.
 * Each case runs with a HOME of its own, and the XDG names pointed into it.
 * The rules of the enforcement suites are in enforce_fixture.h. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h> /* after the four above, which it needs */

#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "enforce_fixture.h"

#define NAME "Home Person"
#define GITCONFIG "[user]\n\tname = " NAME "\n"

/* OUTSIDE/home as HOME, the XDG names in it. */
typedef struct home {
    char dir[PATH_MAX];
    char gitconfig[PATH_MAX];
    char env[4][PATH_MAX + 32];
} home;

static void make_home(fx *f, home *h) {
    assert_int_equal(mkdir(path_in(h->dir, f->outside, "home"), 0700), 0);
    path_in(h->gitconfig, h->dir, ".gitconfig");
    FMT(h->env[0], "HOME=%s", h->dir);
    FMT(h->env[1], "XDG_CONFIG_HOME=%s/.config", h->dir);
    FMT(h->env[2], "XDG_STATE_HOME=%s/.local/state", h->dir);
    FMT(h->env[3], "XDG_CACHE_HOME=%s/.cache", h->dir);
}

#define HOME_ENV(h) ENV((h)->env[0], (h)->env[1], (h)->env[2], (h)->env[3])

/* CMD under BACKEND with H as HOME must exit WANT (-1: anything but 0, 97
 * and 125, with the trailer). */
static void expect(fx *f, home *h, const char *backend, const char *const *cmd, int want) {
    lcsb_env(f, backend, cmd, HOME_ENV(h), &P);
    bool ok = want >= 0 ? P.status == want : P.status != 0 && P.status != 97 && P.status != 125;
    if (!ok) {
        describe(backend, cmd, &P);
        fail_msg("expected status %d under %s, got %d", want, backend, P.status);
    }
    if (want != 0) assert_trailer(&P, backend);
}

/* A second project beside F's: OUTSIDE/NAME, with a p.lua of its own. */
static void second_project(const fx *f, const char *name, fx *other) {
    *other = *f;
    assert_int_equal(mkdir(path_in(other->project, f->outside, name), 0700), 0);
    path_in(other->policy, other->project, "p.lua");
}

/* `lcsb cache ARGS...` in F's project with H as HOME. */
static void lcsb_cache(fx *f, home *h, const char *const *args) {
    const char *argv[8] = {LCSB_CLI_PATH, "cache"};
    size_t n = 2;
    for (size_t i = 0; args[i]; i++) argv[n++] = args[i];
    argv[n] = NULL;
    run_child(f->project, argv, HOME_ENV(h), &P);
}

/* Where `lcsb cache` says F's project keeps its caches. */
static void cache_dir_of(fx *f, home *h, char *out, size_t size) {
    lcsb_cache(f, h, CMD("list"));
    assert_int_equal(P.status, 0);
    const char *at = strstr(P.out, ", kept in ");
    assert_non_null(at);
    at += strlen(", kept in ");
    snprintf(out, size, "%.*s", (int)strcspn(at, ":\n"), at);
}

/* git reads the user's identity from ~/.gitconfig: through home it is
 * there, under the mechanism and under none alike; without home the
 * private HOME holds none. */
static void test_git_identity(void **state) {
    NEED_MECHANISM();
    fx *f = *state;
    home h;
    make_home(f, &h);
    write_file(h.gitconfig, GITCONFIG);
    const char *const *cmd = CMD("git", "config", "--global", "user.name");

    policy(f, "exec = { \"git\" }, home = { \".gitconfig\" }");
    const char *const backends[] = {mech, "none"};
    for (size_t i = 0; i < 2; i++) {
        expect(f, &h, backends[i], cmd, 0);
        assert_string_equal(P.out, NAME "\n");
    }

    /* The README's policy as it was: read alone grants the file, but git
     * looks in the private HOME, where there is none. */
    policy(f, "exec = { \"git\" }, read = { \"~/.gitconfig\" }");
    for (size_t i = 0; i < 2; i++) {
        expect(f, &h, backends[i], cmd, 1);
        assert_lacks(P.out, NAME, "stdout");
    }
}

/* The real file is read-only to the command: appending through the link
 * is refused, and the file is as it was; under none the same append
 * lands. The private HOME stays the command's: it may put a file of its
 * own in the link's place, which the real one never sees. */
static void test_home_read_only(void **state) {
    NEED_MECHANISM();
    fx *f = *state;
    home h;
    make_home(f, &h);
    write_file(h.gitconfig, GITCONFIG);
    policy(f, "exec = { \"sh\", \"rm\", \"cat\" }, home = { \".gitconfig\" }");
    const char *const *append =
        CMD("sh", "-c", "echo '[core] fsmonitor = evil' >> \"$HOME/.gitconfig\"");
    expect(f, &h, mech, append, -1);
    assert_content(h.gitconfig, GITCONFIG);

    const char *const *shadow = CMD("sh", "-c",
                                    "rm \"$HOME/.gitconfig\" && echo mine > \"$HOME/.gitconfig\" "
                                    "&& cat \"$HOME/.gitconfig\"");
    expect(f, &h, mech, shadow, 0);
    assert_string_equal(P.out, "mine\n");
    assert_content(h.gitconfig, GITCONFIG);

    expect(f, &h, "none", append, 0);
    assert_content(h.gitconfig, GITCONFIG "[core] fsmonitor = evil\n");
}

/* A cache is kept between runs of the project and is another project's
 * nowhere: the second project's run does not find the first one's file,
 * which the first project's next run reads. Only the cache is writable:
 * the directory above it is not (under none it is). */
static void test_cache_per_project(void **state) {
    NEED_MECHANISM();
    fx *f = *state, g;
    home h;
    make_home(f, &h);
    static const char body[] = "exec = { \"sh\", \"cat\" }, cache = { \".npm\" }";
    policy(f, "%s", body);
    second_project(f, "second", &g);
    policy(&g, "%s", body);

    expect(f, &h, mech, CMD("sh", "-c", "echo one > \"$HOME/.npm/kept\""), 0);
    expect(f, &h, mech, CMD("sh", "-c", "cat \"$HOME/.npm/kept\""), 0);
    assert_string_equal(P.out, "one\n");

    expect(&g, &h, mech, CMD("sh", "-c", "cat \"$HOME/.npm/kept\""), -1);
    assert_lacks(P.out, "one", "the second project's stdout");
    expect(&g, &h, mech, CMD("sh", "-c", "echo two > \"$HOME/.npm/kept\""), 0);
    expect(f, &h, mech, CMD("sh", "-c", "cat \"$HOME/.npm/kept\""), 0);
    assert_string_equal(P.out, "one\n");

    char dir[PATH_MAX], planted[PATH_MAX];
    cache_dir_of(f, &h, dir, sizeof dir);
    path_in(planted, dir, "planted");
    const char *const *above = CMD("sh", "-c", "echo x > \"$HOME/.npm/../planted\"");
    /* A container's directories above its mounts are its root's, which it
     * writes: there the write lands, never in the host's. */
    if (oci_group())
        lcsb_env(f, mech, above, HOME_ENV(&h), &P);
    else
        expect(f, &h, mech, above, -1);
    assert_exists(planted, false);
    expect(f, &h, "none", above, 0);
    assert_exists(planted, true);
}

/* lcsb cache lists the project's caches; clear removes them, and only
 * them: not the link's target the command planted in its cache, nor
 * another project's cache. A cache root that is a symlink is refused. */
static void test_cache_clear(void **state) {
    NEED_LANDLOCK();
    fx *f = *state, g;
    home h;
    make_home(f, &h);
    char precious[PATH_MAX], file[PATH_MAX], script[3 * PATH_MAX];
    assert_int_equal(mkdir(path_in(precious, f->outside, "precious"), 0700), 0);
    write_file(path_in(file, precious, "file"), "keep\n");
    static const char body[] =
        "exec = { \"sh\", \"ln\", \"cat\", \"mkdir\" }, cache = { \".npm\" }";
    policy(f, "%s", body);
    FMT(script,
        "echo data > \"$HOME/.npm/f\" && mkdir \"$HOME/.npm/sub\" && "
        "ln -s '%s' \"$HOME/.npm/sub/link\" && ln -s '%s' \"$HOME/.npm/flink\"",
        precious, file);
    expect(f, &h, mech, CMD("sh", "-c", script), 0);
    second_project(f, "second", &g);
    policy(&g, "%s", body);
    expect(&g, &h, mech, CMD("sh", "-c", "echo other > \"$HOME/.npm/f\""), 0);

    char dir[PATH_MAX], npm[PATH_MAX], through[PATH_MAX];
    cache_dir_of(f, &h, dir, sizeof dir);
    assert_contains(P.out, "~/.npm", "lcsb cache");
    path_in(npm, dir, ".npm");
    FMT(through, "%s/sub/link/file", npm);
    assert_content(through, "keep\n"); /* the link the command planted leads out */

    lcsb_cache(f, &h, CMD("clear"));
    if (P.status != 0) describe("lcsb cache clear", CMD("clear"), &P);
    assert_int_equal(P.status, 0);
    assert_exists(dir, false);
    assert_content(file, "keep\n");
    lcsb_cache(f, &h, CMD("list"));
    assert_contains(P.out, "(none)", "lcsb cache after clear");
    expect(&g, &h, mech, CMD("sh", "-c", "cat \"$HOME/.npm/f\""), 0);
    assert_string_equal(P.out, "other\n");

    /* A cache root made a symlink: refused, and nothing where it leads goes. */
    char root[PATH_MAX], moved[PATH_MAX], other[PATH_MAX];
    cache_dir_of(&g, &h, other, sizeof other);
    FMT(root, "%s/.cache/lcsb", h.dir);
    FMT(moved, "%s/.cache/moved", h.dir);
    assert_int_equal(rename(root, moved), 0);
    assert_int_equal(symlink(moved, root), 0);
    const char *const *verbs[] = {CMD("clear", "--all"), CMD("clear"), CMD("list")};
    for (size_t i = 0; i < 3; i++) {
        lcsb_cache(&g, &h, verbs[i]);
        assert_int_equal(P.status, LCSB_EXIT_USAGE);
        assert_true(has_line(P.err, "lcsb: ", CMD(root, "is a symlink")));
    }
    char kept[2 * PATH_MAX];
    FMT(kept, "%s/projects/%s/.npm/f", moved, strrchr(other, '/') + 1);
    assert_content(kept, "other\n");
}

/* The private HOME and TMPDIR of a run in a world of its own are made in
 * that world, a tmpfs each, and never on the host: lcsb's TMPDIR, where
 * they would be, is not touched at all (its mtime, set back to 2001, stays;
 * any entry made and removed there would move it). They start empty but
 * for the home entries, are writable, and are not the next run's. The
 * twin: under none they are directories of the host, in that TMPDIR (its
 * mtime moves), and the same commands succeed. */
static void test_private_dirs_in_world(void **state) {
    NEED_LANDLOCK();
    if (oci_group()) skip();
    fx *f = *state;
    home h;
    run_tmp t;
    make_home(f, &h);
    make_run_tmp(f, &t);
    write_file(h.gitconfig, GITCONFIG);
    policy(f, "exec = { \"sh\", \"ls\", \"readlink\", \"stat\", \"cat\" }, "
              "home = { \".gitconfig\" }");
    const char *const *cmd =
        CMD("sh", "-c",
            "echo \"$HOME\"; ls -A \"$HOME\" \"$TMPDIR\"; readlink \"$HOME/.gitconfig\"; "
            "stat -f -c %T \"$HOME\" \"$TMPDIR\"; cat \"$HOME/mark\" 2>/dev/null; "
            "echo run > \"$HOME/mark\" && echo x > \"$TMPDIR/x\" && echo wrote");
    const struct timespec old[2] = {{981158400, 0}, {981158400, 0}};
    const char *const backends[] = {mech, "none"};
    char first[PATH_MAX] = "", listing[2 * PATH_MAX];
    for (size_t i = 0; i < 2; i++) {
        for (int round = 0; round < 2; round++) {
            assert_int_equal(utimensat(AT_FDCWD, t.dir, old, 0), 0);
            lcsb_env(f, backends[i], cmd, ENV(h.env[0], t.env), &P);
            if (P.status != 0) {
                describe(backends[i], cmd, &P);
                fail_msg("the private directories' run failed under %s", backends[i]);
            }
            char home_dir[PATH_MAX];
            first_line(P.out, home_dir, sizeof home_dir);
            /* Fresh each run: no mark of the run before. */
            FMT(listing, "%s\n%s:\n.gitconfig\n\n", home_dir, home_dir);
            assert_true(strncmp(P.out, listing, strlen(listing)) == 0);
            assert_contains(P.out,
                            "\n"
                            "wrote\n",
                            "stdout");
            assert_lacks(P.out, "run\n", "stdout (the run before's mark)");
            assert_contains(P.out, h.gitconfig, "stdout (the home entry's link)");
            /* A new name each run where lcsb makes the directory on the
             * host; in a world of its own a run may take the name its last
             * run had (lcsb_runner_start), the directory fresh all the same. */
            if (i != 0) assert_true(strcmp(first, home_dir) != 0);
            snprintf(first, sizeof first, "%s", home_dir);
            struct stat st;
            assert_int_equal(stat(t.dir, &st), 0);
            bool in_world = i == 0;
            if (in_world) {
                assert_contains(P.out, "\ntmpfs\ntmpfs\n", "stdout (their file systems)");
                assert_int_equal(st.st_mtime, 981158400);
            } else {
                assert_true(st.st_mtime != 981158400);
            }
            assert_exists(home_dir, false);
            assert_left_nothing(t.dir, backends[i]);
        }
    }
}

/* The attestation lists what the private HOME showed. */
static void test_attestation(void **state) {
    NEED_LANDLOCK();
    fx *f = *state;
    home h;
    make_home(f, &h);
    write_file(h.gitconfig, GITCONFIG);
    policy(f, "exec = { \"true\" }, home = { \".gitconfig\" }, cache = { \"~/.cache/pip\" }");
    char attest[PATH_MAX], want[2 * PATH_MAX];
    path_in(attest, f->outside, "att.json");
    lcsb_opts(f, mech, CMD("--attest", attest), CMD("true"), HOME_ENV(&h), &P);
    assert_int_equal(P.status, 0);
    char *json = slurp(attest);
    assert_non_null(json);
    FMT(want, ",\"home\":[{\"name\":\"~/.gitconfig\",\"path\":\"%s\"}]", h.gitconfig);
    assert_contains(json, want, "the attestation");
    FMT(want, ",\"cache\":[{\"name\":\"~/.cache/pip\",\"path\":\"%s/.cache/lcsb/projects/", h.dir);
    assert_contains(json, want, "the attestation");
    assert_contains(json, "/.cache%2Fpip\"}]", "the attestation");
    free(json);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        T(test_git_identity), T(test_home_read_only), T(test_cache_per_project),
        T(test_cache_clear),  T(test_attestation),    T(test_private_dirs_in_world),
    };
    /* A container gets the same symlinks, and mounts what they lead to. */
    const struct CMUnitTest oci_tests[] = {
        T(test_git_identity),
        T(test_home_read_only),
        T(test_cache_per_project),
    };
    int failed =
        cmocka_run_group_tests_name("sandbox_enforce_home", tests, enforce_group_setup, NULL);
    return failed | cmocka_run_group_tests_name("sandbox_enforce_home_oci", oci_tests,
                                                oci_group_setup, oci_group_teardown);
}
