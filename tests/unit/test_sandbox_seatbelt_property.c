/* The meaning of the Seatbelt profile, judged by the tests' own reading of
 * SBPL (sbpl_eval.c): over many generated policies, against a mutated layer
 * order that must be caught, and on the real `lcsb wrap` output; and the
 * backend chosen by name anywhere, yet refused (125) wherever sandbox-exec is
 * missing. Nothing here needs macOS. */
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

#include "seatbelt_fixture.h"

/* ---- the property, over many generated policies ---- */

typedef struct rng {
    uint64_t s;
} rng;

static unsigned next(rng *r, unsigned bound) {
    r->s = r->s * 6364136223846793005ull + 1442695040888963407ull;
    return (unsigned)((r->s >> 33) % bound);
}

/* What a generated policy asked for, as the property checks it. */
typedef struct generated {
    lcsb_policy *policy;
    char read[4][96], write[4][96], exec[5][128], protect[128];
    size_t n_read, n_write, n_exec;
    bool exec_open, has_protect;
} generated;

static void generate(uint64_t seed, generated *g) {
    rng r = {seed * 2654435761u + 1};
    memset(g, 0, sizeof *g);
    g->policy = lcsb_policy_new();
    assert_non_null(g->policy);
    unsigned proj = next(&r, 1000);
    /* The project, and a private HOME where macOS puts $TMPDIR, named as
     * a process sees it (/var/...), under the guarded /private/var. */
    snprintf(g->write[g->n_write++], 96, "/Users/u%u/proj%u", next(&r, 3), proj);
    snprintf(g->write[g->n_write++], 96, "/var/folders/%c%c/x%u/T/lcsb-home.%u", 'a' + next(&r, 26),
             'a' + next(&r, 26), next(&r, 100), next(&r, 100000));
    if (next(&r, 2)) snprintf(g->write[g->n_write++], 96, "/tmp/lcsb-tmp.%u", next(&r, 1000));
    if (next(&r, 3) == 0) snprintf(g->write[g->n_write++], 96, "/Volumes/ext/w%u", next(&r, 9));
    static const char *const read_pool[] = {"/Users/u9/data", "/opt/share/d", "/srv/r",
                                            "/Volumes/ext/r", "/etc/ssl"};
    for (unsigned n = next(&r, 5); g->n_read < n;)
        snprintf(g->read[g->n_read++], 96, "%s%u", read_pool[next(&r, 5)], next(&r, 50));
    static const char *const exec_pool[] = {"/usr/bin/git", "/usr/bin/env",
                                            "/opt/homebrew/bin/python3.12", "/bin/ls"};
    for (unsigned n = next(&r, 4); g->n_exec < n;)
        snprintf(g->exec[g->n_exec++], 128, "%s", exec_pool[next(&r, 4)]);
    if (next(&r, 2)) snprintf(g->exec[g->n_exec++], 128, "%s/build", g->write[0]);
    g->exec_open = next(&r, 8) == 0;
    g->has_protect = next(&r, 2);
    if (g->has_protect) snprintf(g->protect, sizeof g->protect, "%s/.git/hooks", g->write[0]);
    for (size_t i = 0; i < g->n_read; i++) add(g->policy, LCSB_TIER_READ, g->read[i]);
    for (size_t i = 0; i < g->n_write; i++) add(g->policy, LCSB_TIER_WRITE, g->write[i]);
    for (size_t i = 0; i < g->n_exec; i++) add(g->policy, LCSB_TIER_EXEC, g->exec[i]);
    if (g->has_protect) add(g->policy, LCSB_TIER_PROTECT, g->protect);
    lcsb_policy_set_exec_open(g->policy, g->exec_open);
    switch (next(&r, 3)) {
    case 0: break;
    case 1: lcsb_policy_set_net(g->policy, LCSB_NET_OPEN); break;
    default: add_port(g->policy, LCSB_PORT_CONNECT, 1 + next(&r, 65535)); break;
    }
}

/* OP on PATH is not WANT: say so in WHY and return false. */
static bool holds(const sbpl_profile *pr, const char *op, const char *path, int want, char *why,
                  size_t size) {
    int got = sbpl_allowed(pr, op, path);
    if (got == want) return true;
    snprintf(why, size, "%s on %s: %s", op, path,
             got < 0 ? "cannot be judged"
             : got   ? "allowed, must not be"
                     : "denied, must not be");
    return false;
}

/* The property: every write-tier path (and below) is writable; every
 * guarded and every protected path is not; nothing outside the read set is
 * readable; nothing outside the exec allowlist is executable. True when it
 * holds; else the first counterexample in WHY. */
static bool property(const generated *g, char **argv, char *why, size_t size) {
    char err[256] = "";
    sbpl_profile *pr = sbpl_load((const char *const *)argv, err, sizeof err);
    if (!pr) {
        snprintf(why, size, "unreadable profile: %s", err);
        return false;
    }
    char path[256];
    bool ok = true;
    for (size_t i = 0; ok && i < g->n_write; i++) {
        snprintf(path, sizeof path, "%s/src/main.c", g->write[i]);
        ok = holds(pr, WRITE, g->write[i], 1, why, size) && holds(pr, WRITE, path, 1, why, size) &&
             holds(pr, READ, path, 1, why, size) && holds(pr, EXEC, path, g->exec_open, why, size);
        /* A sibling that shares the name's prefix is outside: a subpath is
         * a path and what is below it, not a string prefix. */
        snprintf(path, sizeof path, "%s-sibling/x", g->write[i]);
        ok = ok && holds(pr, WRITE, path, 0, why, size) && holds(pr, READ, path, 0, why, size);
    }
    if (ok && g->has_protect) {
        snprintf(path, sizeof path, "%s/pre-commit", g->protect);
        ok = holds(pr, WRITE, path, 0, why, size) && holds(pr, READ, path, 1, why, size);
    }
    static const char *const guarded[] = {"/System/Library/x",
                                          "/usr/lib/libSystem.B.dylib",
                                          "/usr/local/bin/x",
                                          "/bin/sh",
                                          "/sbin/mount",
                                          "/Library/Preferences/x",
                                          "/Applications/X.app/y",
                                          "/etc/hosts",
                                          "/private/etc/sudoers",
                                          "/var/db/x",
                                          "/private/var/root/.profile",
                                          "/var/folders/zz/other/T/x",
                                          NULL};
    for (size_t i = 0; ok && guarded[i]; i++) ok = holds(pr, WRITE, guarded[i], 0, why, size);
    static const char *const outside[] = {
        "/Users/other/secret", "/Users/u0/.ssh/id_ed25519", "/private/tmp/other",
        "/tmp/lcsb-tmpX/x", "/Volumes/ext/secret", "/opt/secret", "/private/var/root/x",
        "/var/folders/zz/other/T/x", "/Users",
        /* The base reads /private/etc entry by entry, never its secrets. */
        "/private/etc/master.passwd", "/private/etc/sudoers", "/private/etc/sudoers.d/x",
        "/private/etc/ssh/ssh_host_ed25519_key", "/etc/krb5.keytab", NULL};
    for (size_t i = 0; ok && outside[i]; i++)
        ok =
            holds(pr, READ, outside[i], 0, why, size) && holds(pr, WRITE, outside[i], 0, why, size);
    for (size_t i = 0; ok && i < g->n_read; i++) {
        snprintf(path, sizeof path, "%s/f", g->read[i]);
        ok = holds(pr, READ, path, 1, why, size) && holds(pr, WRITE, path, 0, why, size);
    }
    for (size_t i = 0; ok && i < g->n_exec; i++) {
        snprintf(path, sizeof path, "%s/tool", g->exec[i]); /* for the directory entry */
        ok = holds(pr, EXEC, g->exec[i], 1, why, size) &&
             (!strstr(g->exec[i], "/build") || holds(pr, EXEC, path, 1, why, size));
    }
    static const char *const unlisted[] = {"/usr/bin/curl", "/bin/sh", "/private/tmp/x",
                                           "/usr/bin/gitk", NULL};
    for (size_t i = 0; ok && unlisted[i]; i++) {
        bool listed = false;
        for (size_t k = 0; k < g->n_exec; k++) listed |= strcmp(g->exec[k], unlisted[i]) == 0;
        ok = holds(pr, EXEC, unlisted[i], g->exec_open || listed, why, size);
    }
    sbpl_free(pr);
    return ok;
}

#define SEEDS 300

static void test_property_many_policies(void **state) {
    (void)state;
    static const char *const cmd[] = {"make", "-j8", NULL};
    for (uint64_t seed = 0; seed < SEEDS; seed++) {
        generated g;
        generate(seed, &g);
        char **argv = wrap(g.policy, cmd);
        char why[512];
        if (!property(&g, argv, why, sizeof why))
            fail_msg("seed %llu: %s", (unsigned long long)seed, why);
        lcsb_argv_free(argv);
        lcsb_policy_free(g.policy);
    }
}

/* The order of rule 4 is what makes the property hold: with the guard after
 * the write tier (or the protected paths before it) the property test must
 * fail, or it tests nothing. */
static void check_mutation(const lcsb__seatbelt_layer *order, const char *what) {
    static const char *const cmd[] = {"make", NULL};
    size_t caught = 0, protected_policies = 0;
    for (uint64_t seed = 0; seed < SEEDS; seed++) {
        generated g;
        generate(seed, &g);
        int rc;
        lcsb_error err = {0};
        char **argv = wrap_ordered(g.policy, order, cmd, &rc, &err);
        if (!argv) fail_msg("seed %llu: %s", (unsigned long long)seed, err.message);
        char why[512];
        caught += !property(&g, argv, why, sizeof why);
        protected_policies += g.has_protect;
        lcsb_argv_free(argv);
        lcsb_policy_free(g.policy);
    }
    /* Every policy has a write path under the guarded /private/var; about
     * half have a protected path. */
    size_t want = strstr(what, "guard") ? SEEDS : protected_policies;
    if (caught != want)
        fail_msg("%s: the property caught %zu of %zu mutated profiles", what, caught, want);
}

static void test_mutation_is_caught(void **state) {
    (void)state;
    lcsb__seatbelt_layer swapped[LCSB__SB_LAYERS], early_protect[LCSB__SB_LAYERS];
    memcpy(swapped, lcsb__seatbelt_order, sizeof swapped);
    memcpy(early_protect, lcsb__seatbelt_order, sizeof early_protect);
    for (size_t i = 0; i < LCSB__SB_LAYERS; i++) {
        if (lcsb__seatbelt_order[i] == LCSB__SB_GUARD) swapped[i] = LCSB__SB_WRITE;
        if (lcsb__seatbelt_order[i] == LCSB__SB_WRITE) swapped[i] = LCSB__SB_GUARD;
        if (lcsb__seatbelt_order[i] == LCSB__SB_WRITE) early_protect[i] = LCSB__SB_PROTECT;
        if (lcsb__seatbelt_order[i] == LCSB__SB_PROTECT) early_protect[i] = LCSB__SB_WRITE;
    }
    check_mutation(swapped, "guard and write tier swapped");
    check_mutation(early_protect, "protected paths before the write tier");
}

/* ---- selection ---- */

static void test_select(void **state) {
    (void)state;
    lcsb_capability cap;
    memset(&cap, 0, sizeof cap);
    lcsb_backend *b = NULL;
    lcsb_error err = {0};
    /* Chosen by name on any host, so that `lcsb wrap` works here... */
    assert_int_equal(lcsb_backend_select(&cap, "seatbelt", &b, &err), 0);
    assert_string_equal(lcsb_backend_name(b), "seatbelt");
    assert_false(lcsb_backend_contains_prefix(b));
    /* ...and refused before anything runs where sandbox-exec is missing. */
    lcsb_policy *p = lcsb_policy_new();
    assert_int_equal(lcsb_backend_validate(b, p, &err), LCSB_EUNAVAIL);
    assert_non_null(strstr(err.message, "/usr/bin/sandbox-exec not found"));
    lcsb_run_result *result = malloc(sizeof *result);
    assert_non_null(result);
    assert_int_equal(lcsb_run(b, p, (const char *const[]){"true", NULL}, NULL, result, &err),
                     LCSB_EUNAVAIL);
    free(result);
    lcsb_backend_free(b);
    /* auto picks it where sandbox-exec is (macOS), never where it is not. */
    cap.sandbox_exec = true;
    assert_int_equal(lcsb_backend_select(&cap, "auto", &b, &err), 0);
    assert_string_equal(lcsb_backend_name(b), "seatbelt");
    lcsb_backend_free(b);
    cap.sandbox_exec = false;
    assert_int_equal(lcsb_backend_select(&cap, "auto", &b, &err), LCSB_EUNAVAIL);
    lcsb_policy_free(p);
}

/* ---- the real CLI ---- */

/* The JSON array of strings `lcsb wrap` prints, as an argv (the escapes
 * lcsb writes: \" \\ and \u00XX). */
static char **parse_json_argv(const char *text) {
    lcsb__strv sv = {0};
    const char *p = text;
    assert_true(*p++ == '[');
    while (*p == '"') {
        lcsb__buf s = {0};
        for (p++; *p && *p != '"'; p++) {
            char c = *p;
            if (c == '\\') {
                c = *++p;
                if (c == 'u') {
                    c = (char)strtol((char[]){p[1], p[2], p[3], p[4], 0}, NULL, 16);
                    p += 4;
                }
            }
            lcsb__buf_add(&s, &c, 1);
        }
        assert_true(*p++ == '"');
        assert_int_equal(lcsb__strv_push(&sv, s.p ? s.p : ""), 0);
        lcsb__buf_free(&s);
        if (*p == ',') p++;
    }
    assert_true(*p == ']');
    return lcsb__strv_take(&sv);
}

/* The "done when", through the command line a user types: the
 * argv `lcsb wrap --backend seatbelt` prints on Linux, judged by the
 * evaluator, and `lcsb --backend seatbelt` refusing with 125. */
static void test_cli_wrap_done_when(void **state) {
    (void)state;
    char project[] = "/tmp/lcsb-sb-project.XXXXXX";
    assert_non_null(mkdtemp(project));
    char policy[PATH_MAX], src[PATH_MAX];
    snprintf(policy, sizeof policy, "%s/p.lua", project);
    write_file(policy, "local lcsb = require \"lcsb\"\n"
                       "return lcsb.exec_policy{ exec = { \"/usr/bin/git\" } }\n");
    snprintf(src, sizeof src, "%s/src", project);
    assert_int_equal(mkdir(src, 0700), 0);

    proc *o = malloc(sizeof *o);
    assert_non_null(o);
    run_child(project,
              (const char *const[]){LCSB_CLI_PATH, "wrap", "--no-trust-check", "--backend", "seatbelt", policy, "--",
                                    "/usr/bin/git", "status", NULL},
              NULL, o);
    if (o->status != 0) fail_msg("lcsb wrap: %d\n%s", o->status, o->err);
    char **argv = parse_json_argv(o->out);
    sbpl_profile *pr = load(argv);
    char path[PATH_MAX + 32];
    /* The project: read and write, below and at the top. */
    snprintf(path, sizeof path, "%s/src/main.c", project);
    expect(pr, READ, path, 1);
    expect(pr, WRITE, path, 1);
    expect(pr, WRITE, project, 1);
    /* System libraries are readable, not writable. */
    expect(pr, READ, "/usr/lib/libSystem.B.dylib", 1);
    expect(pr, READ, "/System/Library/Frameworks/CoreFoundation.framework/CoreFoundation", 1);
    expect(pr, WRITE, "/usr/lib/libSystem.B.dylib", 0);
    expect(pr, WRITE, "/System/Library/x", 0);
    expect(pr, WRITE, "/usr/local/bin/x", 0);
    /* The allowlisted program runs; others do not, the project's own included. */
    expect(pr, EXEC, "/usr/bin/git", 1);
    expect(pr, EXEC, "/usr/bin/curl", 0);
    expect(pr, EXEC, "/bin/sh", 0);
    snprintf(path, sizeof path, "%s/a.out", project);
    expect(pr, EXEC, path, 0);
    /* Outside: neither read nor written. */
    expect(pr, READ, "/Users/someone/.ssh/id_ed25519", 0);
    expect(pr, WRITE, "/Users/someone/x", 0);
    expect(pr, READ, "/tmp/lcsb-sb-elsewhere/secret", 0);
    expect(pr, WRITE, "/tmp/lcsb-sb-elsewhere/secret", 0);
    expect(pr, READ, "/root/.bashrc", 0);
    /* The command follows "--" untouched. */
    const char *const *cmd = sbpl_command(pr);
    size_t n = 0;
    while (cmd[n]) n++;
    assert_true(n >= 2);
    assert_string_equal(cmd[n - 2], "/usr/bin/git");
    assert_string_equal(cmd[n - 1], "status");
    sbpl_free(pr);
    lcsb_argv_free(argv);

    /* Run and check: refused before anything runs, naming sandbox-exec. */
    static const char *const verbs[] = {NULL, "check"};
    for (size_t i = 0; i < 2; i++) {
        const char *run_argv[] = {LCSB_CLI_PATH, "--no-trust-check", "--backend",    "seatbelt", policy,
                                  "--",          "/usr/bin/git", "status",   NULL};
        const char *check_argv[] = {LCSB_CLI_PATH, "check", "--no-trust-check", "--backend", "seatbelt", policy, NULL};
        run_child(project, verbs[i] ? check_argv : run_argv, NULL, o);
        assert_int_equal(o->status, 125);
        if (!strstr(o->err, "lcsb: ") || !strstr(o->err, "/usr/bin/sandbox-exec not found"))
            fail_msg("stderr does not name sandbox-exec:\n%s", o->err);
    }
    free(o);
    unlink(policy);
    rmdir(src);
    assert_int_equal(rmdir(project), 0);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_property_many_policies),
        cmocka_unit_test(test_mutation_is_caught),
        cmocka_unit_test(test_select),
        cmocka_unit_test(test_cli_wrap_done_when),
    };
    return cmocka_run_group_tests_name("sandbox_seatbelt_property", tests, NULL, NULL);
}
