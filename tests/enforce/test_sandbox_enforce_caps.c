/* Caps through the real CLI: a project policy that asks for what the caps
 * keep (a denied path, a tree holding one unhidden, net, exec = "any",
 * degrade) is refused with 125 before anything runs, under every backend,
 * naming the cap and its file; the same policy runs where the caps allow it;
 * what a hide keeps is kept by the kernel, and under none (the unsandboxed
 * twin) it is there. Each case runs with a HOME of its own holding a fake
 * ~/.ssh/id_ed25519. The rules of the enforcement suites are in
 * enforce_fixture.h. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h> /* after the four above, which it needs */

#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "enforce_fixture.h"
#include "sha256.h"

#define KEY "PRIVATE-KEY-" SECRET

/* OUTSIDE/home as HOME, with .ssh/id_ed25519 and .config/lcsb in it; the
 * XDG names pointed there too, whatever the caller's are. */
typedef struct home {
    char dir[PATH_MAX];
    char key[PATH_MAX];
    char user[PATH_MAX]; /* .config/lcsb/user.lua, not written yet */
    char env[3][PATH_MAX + 32];
    char marker[PATH_MAX]; /* PROJECT/marker, which the command makes */
} home;

static void make_home(fx *f, home *h) {
    char ssh[PATH_MAX], config[PATH_MAX], lcsb_dir[PATH_MAX];
    assert_int_equal(mkdir(path_in(h->dir, f->outside, "home"), 0700), 0);
    assert_int_equal(mkdir(path_in(ssh, h->dir, ".ssh"), 0700), 0);
    write_file(path_in(h->key, ssh, "id_ed25519"), KEY);
    assert_int_equal(mkdir(path_in(config, h->dir, ".config"), 0700), 0);
    assert_int_equal(mkdir(path_in(lcsb_dir, config, "lcsb"), 0700), 0);
    path_in(h->user, lcsb_dir, "user.lua");
    FMT(h->env[0], "HOME=%s", h->dir);
    FMT(h->env[1], "XDG_CONFIG_HOME=%s", config);
    FMT(h->env[2], "XDG_STATE_HOME=%s/.local/state", h->dir);
    path_in(h->marker, f->project, "marker");
}

#define HOME_ENV(h) ENV((h)->env[0], (h)->env[1], (h)->env[2])

/* Under the mechanism and under none, CMD must be refused with 125 before
 * anything runs (the marker stays unmade), with a line holding NEEDLES. */
static void expect_capped(fx *f, home *h, const char *const *cmd, const char *const *needles) {
    const char *const backends[] = {mech, "none"};
    for (size_t i = 0; i < 2; i++) {
        lcsb_env(f, backends[i], cmd, HOME_ENV(h), &P);
        if (P.status != 125) {
            describe(backends[i], cmd, &P);
            fail_msg("expected 125 under %s, got %d", backends[i], P.status);
        }
        if (!has_line(P.err, "lcsb: ", needles)) {
            describe(backends[i], cmd, &P);
            fail_msg("no line naming the cap (first needle: %s)", needles[0]);
        }
        assert_exists(h->marker, false);
    }
}

/* Under the mechanism CMD runs. */
static void expect_runs(fx *f, home *h, const char *const *cmd) {
    lcsb_env(f, mech, cmd, HOME_ENV(h), &P);
    if (P.status != 0) {
        describe(mech, cmd, &P);
        fail_msg("expected 0 under %s, got %d", mech, P.status);
    }
}

/* read = { "~/.ssh" }: refused by lcsb's defaults, naming the file and the
 * allow that would let it through; with that allow in user.lua it runs, and
 * the key is readable. */
static void test_denied_path(void **state) {
    NEED_LANDLOCK();
    fx *f = *state;
    home h;
    make_home(f, &h);
    policy(f, "exec = { \"sh\", \"cat\", \"touch\" }, read = { \"~/.ssh\" }");
    char script[2 * PATH_MAX + 32], ssh[PATH_MAX + 16], caps[PATH_MAX];
    FMT(script, "touch '%s' && cat '%s'", h.marker, h.key);
    FMT(ssh, "%s/.ssh", h.dir);
    FMT(caps, "lcsb's defaults, %s/lcsb/caps.lua", LCSB_LUA_DIR);
    const char *const *cmd = CMD("sh", "-c", script);
    expect_capped(f, &h, cmd,
                  CMD("asks to read", ssh, "cap deny", caps, "add \"~/.ssh\" to allow in", h.user));

    write_file(h.user, "return { allow = { \"~/.ssh\" } }\n");
    expect_runs(f, &h, cmd);
    assert_contains(P.out, KEY, "stdout");
    assert_exists(h.marker, true);
}

/* read = { "/" }: refused while ~/.ssh is not hidden. Hidden, the kernel
 * keeps the key from the command; under none (the same policy, nothing
 * enforced) the key is there: the hide is what keeps it. */
static void test_root_needs_hide(void **state) {
    NEED_LANDLOCK();
    fx *f = *state;
    home h;
    make_home(f, &h);
    policy(f, "exec = { \"sh\", \"cat\", \"touch\" }, read = { \"/\" }");
    char script[2 * PATH_MAX + 32], ssh[PATH_MAX + 16];
    FMT(script, "touch '%s' && cat '%s'", h.marker, h.key);
    FMT(ssh, "%s/.ssh", h.dir);
    expect_capped(f, &h, CMD("sh", "-c", script),
                  CMD("read path / holds what no project policy may have", ssh,
                      "hide it (exec_policy{ hide = { \"~/.ssh\" } }"));

    policy(f, "exec = { \"sh\", \"cat\" }, read = { \"/\" }, hide = { \"~/.ssh\" }");
    const char *const *cat = CMD("cat", h.key);
    lcsb_env(f, mech, cat, HOME_ENV(&h), &P);
    if (P.status == 0 || P.status == 125 || P.status == 97) {
        describe(mech, cat, &P);
        fail_msg("expected the key hidden under %s, got %d", mech, P.status);
    }
    assert_lacks(P.out, KEY, "stdout");
    assert_trailer(&P, mech);
    lcsb_env(f, "none", cat, HOME_ENV(&h), &P);
    if (P.status != 0) {
        describe("none", cat, &P);
        fail_msg("the same command failed unsandboxed (%d): the denial proves nothing", P.status);
    }
    assert_contains(P.out, KEY, "stdout under none");

    /* The rest of "/" is readable all the same, in a world of its own too:
     * a host tree outside the baseline (/var) is there. */
    const char *const *status = CMD("cat", "/var/lib/dpkg/status");
    lcsb_env(f, mech, status, HOME_ENV(&h), &P);
    if (P.status != 0) describe(mech, status, &P);
    assert_int_equal(P.status, 0);
    assert_contains(P.out, "Package: ", "dpkg's status");
}

/* A container's root directory is its whole world, written as it runs: a
 * rootfs that holds what the caps deny (HOME) is refused like a write path,
 * before any engine is asked. */
static void test_oci_rootfs_capped(void **state) {
    fx *f = *state;
    home h;
    make_home(f, &h);
    char body[PATH_MAX + 64];
    FMT(body, "oci = { rootfs = \"%s\" }", h.dir);
    policy(f, "%s", body);
    lcsb_opts(f, "oci", NULL, CMD("true"), HOME_ENV(&h), &P);
    assert_int_equal(P.status, LCSB_EXIT_USAGE);
    assert_true(
        has_line(P.err, "lcsb: ", CMD("write path", h.dir, "holds what no project policy")));
}

/* net, exec = "any" and degrade are open by default and closed by user.lua:
 * each refused naming the cap and the file, then run once the file is gone. */
static void test_switches(void **state) {
    NEED_LANDLOCK();
    fx *f = *state;
    home h;
    make_home(f, &h);
    const char *const *cmd = CMD("touch", h.marker);
    static const struct {
        const char *body;
        const char *says;
    } cases[] = {
        {"net = true", "an open network (net = true)"},
        {"net = { connect = { 443 } }", "TCP ports"},
        {"exec = \"any\"", "exec_any = false"},
        {"degrade = { \"scope\" }", "allows degrading nothing"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        policy(f, "%s", cases[i].body);
        write_file(h.user, "return { net = false, exec_any = false, degrade = false }\n");
        expect_capped(f, &h, cmd, CMD(cases[i].says, h.user));
        unlink(h.user);
        expect_runs(f, &h, cmd);
        assert_exists(h.marker, true);
        unlink(h.marker);
    }
}

/* A broken caps file stops lcsb before the project's policy script runs:
 * 125, naming the file and its line. */
static void test_broken_caps_file(void **state) {
    NEED_LANDLOCK();
    fx *f = *state;
    home h;
    make_home(f, &h);
    char text[2 * PATH_MAX];
    FMT(text,
        "io.open(\"%s\", \"w\"):close()\n"
        "return require(\"lcsb\").exec_policy { exec = { \"touch\" } }\n",
        h.marker);
    raw_policy(f, text);
    write_file(h.user, "return {\n  deny = { \"~/.ssh\" \"~/x\" },\n}\n");
    char where[PATH_MAX + 16];
    FMT(where, "caps file %s:2:", h.user);
    expect_capped(f, &h, CMD("touch", h.marker), CMD(where));
    /* Hostile: it runs with no library at all. */
    write_file(h.user, "os.execute(\"touch marker\")\n");
    expect_capped(f, &h, CMD("touch", h.marker), CMD("caps file", "global 'os'"));
}

/* The attestation names the caps files and their content; check says what
 * is in force. */
static void test_attestation_and_check(void **state) {
    NEED_LANDLOCK();
    fx *f = *state;
    home h;
    make_home(f, &h);
    static const char user[] = "return { net = \"ports\" }\n";
    write_file(h.user, user);
    policy(f, "exec = { \"true\" }");
    char attest[PATH_MAX], hex[LCSB__SHA256_HEX], want[PATH_MAX + 128];
    path_in(attest, f->outside, "att.json");
    lcsb_opts(f, mech, CMD("--attest", attest), CMD("true"), HOME_ENV(&h), &P);
    assert_int_equal(P.status, 0);
    char *json = slurp(attest);
    assert_non_null(json);
    lcsb__sha256_of(user, strlen(user), hex);
    FMT(want, "{\"file\":\"%s\",\"sha256\":\"%s\"}]", h.user, hex);
    assert_contains(json, ",\"caps\":[{\"file\":\"" LCSB_LUA_DIR "/lcsb/caps.lua\",\"sha256\":\"",
                    "the attestation");
    assert_contains(json, want, "the attestation");
    free(json);

    const char *const check[] = {LCSB_CLI_PATH, "check", "--no-trust-check", "--backend", mech,
                                 f->policy,     NULL};
    run_child(f->project, check, HOME_ENV(&h), &P);
    assert_int_equal(P.status, 0);
    assert_contains(P.out, "caps (the most any policy may ask): ", "check");
    assert_contains(P.out, "net up to ports, exec any allowed, degrade any part", "check");
    assert_contains(P.out, h.user, "check");
}

/* lcsb's own configuration and state are never writable: named outright,
 * refused; in a writable tree, held read-only by protect, and then the
 * kernel keeps the command from writing there (under none it can). */
static void test_own_files_unwritable(void **state) {
    NEED_LANDLOCK();
    fx *f = *state;
    home h;
    make_home(f, &h);
    char config[PATH_MAX + 32];
    FMT(config, "%s/.config/lcsb", h.dir);
    policy(f, "exec = { \"touch\" }, write = { \"~/.config/lcsb\" }");
    expect_capped(f, &h, CMD("touch", h.marker),
                  CMD("asks to write", config, "cap deny_write", "lcsb's own programs, configuration"));

    /* The trust store, under XDG_STATE_HOME, in a tree the policy writes. */
    char local[PATH_MAX], state_dir[PATH_MAX], store[PATH_MAX], trusted[PATH_MAX];
    assert_int_equal(mkdir(path_in(local, h.dir, ".local"), 0700), 0);
    assert_int_equal(mkdir(path_in(state_dir, local, "state"), 0700), 0);
    assert_int_equal(mkdir(path_in(store, state_dir, "lcsb"), 0700), 0);
    path_in(trusted, store, "trusted");
    policy(f, "exec = { \"sh\", \"touch\" }, write = { \"~/.local/state\" }");
    char script[2 * PATH_MAX + 32];
    FMT(script, "touch '%s' && echo all > '%s'", h.marker, trusted);
    const char *const *cmd = CMD("sh", "-c", script);
    expect_capped(f, &h, cmd, CMD("write path", store, "protect it"));

    policy(f, "exec = { \"sh\", \"touch\" }, write = { \"~/.local/state\" }, "
              "protect = { \"~/.local/state/lcsb\" }");
    lcsb_env(f, mech, cmd, HOME_ENV(&h), &P);
    if (P.status == 0 || P.status == 125 || P.status == 97) {
        describe(mech, cmd, &P);
        fail_msg("expected the trust store read-only under %s, got %d", mech, P.status);
    }
    assert_exists(trusted, false);
    lcsb_env(f, "none", cmd, HOME_ENV(&h), &P);
    if (P.status != 0) {
        describe("none", cmd, &P);
        fail_msg("the same command failed unsandboxed (%d)", P.status);
    }
    assert_exists(trusted, true);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        T(test_denied_path),          T(test_root_needs_hide),
        T(test_oci_rootfs_capped),    T(test_switches),
        T(test_broken_caps_file),     T(test_attestation_and_check),
        T(test_own_files_unwritable),
    };
    return cmocka_run_group_tests_name("sandbox_enforce_caps", tests, enforce_group_setup, NULL);
}
