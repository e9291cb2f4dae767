/* The Seatbelt backend, proven on any host: golden argvs, and the meaning of
 * the generated profile judged by the tests' own last-match-wins reading of
 * SBPL (sbpl_eval.c), over hand-picked cases, many generated policies, a
 * mutated layer order that must be caught, and the real `lcsb wrap` output.
 * Nothing here needs macOS; `lcsb --backend seatbelt` must refuse (125)
 * wherever sandbox-exec is missing. */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "internal.h"
#include "sbpl_eval.h"

#ifndef LCSB_CLI_PATH
#error "build with -DLCSB_CLI_PATH='\"/path/to/lcsb\"'"
#endif

/* ---- helpers ---- */

static lcsb_backend *seatbelt(void) {
    lcsb_backend *b = NULL;
    lcsb_error err = {0};
    if (lcsb_backend_seatbelt(&b, &err)) fail_msg("seatbelt: %s", err.message);
    return b;
}

static void add(lcsb_policy *p, const char *tier, const char *path) {
    lcsb_error err = {0};
    int rc = strcmp(tier, "read") == 0      ? lcsb_policy_add_read(p, path, &err)
             : strcmp(tier, "write") == 0   ? lcsb_policy_add_write(p, path, &err)
             : strcmp(tier, "protect") == 0 ? lcsb_policy_add_protect(p, path, &err)
                                            : lcsb_policy_add_exec(p, path, &err);
    if (rc) fail_msg("%s %s: %s", tier, path, err.message);
}

static void add_port(lcsb_policy *p, lcsb_port_kind kind, long port) {
    lcsb_error err = {0};
    if (lcsb_policy_add_port(p, kind, port, &err)) fail_msg("port %ld: %s", port, err.message);
}

/* Wrap with the layers in ORDER; *RC gets the result, the argv or NULL. */
static char **wrap_ordered(const lcsb_policy *p, const lcsb__seatbelt_layer *order,
                           const char *const *argv, int *rc, lcsb_error *err) {
    lcsb__strv sv = {0};
    *rc = lcsb__seatbelt_wrap_layers(p, order, argv, &sv, err);
    if (*rc) {
        lcsb__strv_clear(&sv);
        return NULL;
    }
    return lcsb__strv_take(&sv);
}

static char **wrap(const lcsb_policy *p, const char *const *argv) {
    lcsb_backend *b = seatbelt();
    char **out = NULL;
    lcsb_error err = {0};
    int rc = lcsb_backend_wrap(b, p, argv, &out, &err);
    lcsb_backend_free(b);
    if (rc) fail_msg("wrap: %d %s", rc, err.message);
    return out;
}

static sbpl_profile *load(char **argv) {
    char err[256] = "";
    sbpl_profile *pr = sbpl_load((const char *const *)argv, err, sizeof err);
    if (!pr) fail_msg("the evaluator cannot read the profile: %s", err);
    return pr;
}

/* OP on PATH must be WANT (1 allowed, 0 denied). */
static void expect(const sbpl_profile *pr, const char *op, const char *path, int want) {
    int got = sbpl_allowed(pr, op, path);
    if (got != want)
        fail_msg("%s on %s: got %d, want %d (1 allowed, 0 denied, -1 cannot judge)", op, path,
                 got, want);
}

#define READ "file-read-data"
#define WRITE "file-write-data"
#define EXEC "process-exec"

/* ---- the judge itself ---- */

/* The evaluator the other tests trust, on profiles written by hand. */
static void test_evaluator(void **state) {
    (void)state;
    static const char profile[] =
        "(version 1)\n"
        "(deny default) ; comment\n"
        "(allow file-read* (subpath \"/a\") (literal (param \"L\")))\n"
        "(allow file-write* (subpath (param \"W\")))\n"
        "(deny file-write-data (require-all (subpath \"/w\") (subpath \"/w/ro\")))\n"
        "(allow process-exec (require-any (literal \"/bin/x\") (literal \"/bin/y\")))\n"
        "(allow file-read-metadata)\n"
        "(allow file-ioctl (vnode-type CHARACTER-DEVICE))\n";
    const char *argv[] = {"/usr/bin/sandbox-exec", "-p", profile, "-D", "L=/l/f", "-D",
                          "W=/w", "--", "cmd", "arg", NULL};
    char err[256] = "";
    sbpl_profile *pr = sbpl_load(argv, err, sizeof err);
    if (!pr) fail_msg("%s", err);
    expect(pr, READ, "/a", 1);
    expect(pr, READ, "/a/b/c", 1);
    expect(pr, READ, "/ab", 0);            /* subpath is not a string prefix */
    expect(pr, READ, "/l/f", 1);
    expect(pr, READ, "/l/f/g", 0);         /* literal is the path only */
    expect(pr, WRITE, "/w/x", 1);
    expect(pr, "file-write-mode", "/w/ro/x", 1);
    expect(pr, WRITE, "/w/ro/x", 0);       /* the later, narrower rule wins */
    expect(pr, WRITE, "/a/x", 0);
    expect(pr, EXEC, "/bin/y", 1);
    expect(pr, EXEC, "/bin/z", 0);
    expect(pr, "file-read-metadata", "/anything", 1);
    expect(pr, "file-ioctl", "/dev/tty", -1); /* a filter it does not know */
    expect(pr, READ, "/tmp/x", 0);
    assert_string_equal(sbpl_command(pr)[0], "cmd");
    sbpl_free(pr);
    /* Refused: no version, an unknown form, an unclosed list, no "--". */
    static const char *const bad[] = {"(deny default)", "(version 1)(define x 1)",
                                      "(version 1)(deny default", NULL};
    for (size_t i = 0; bad[i]; i++) {
        argv[2] = bad[i];
        assert_null(sbpl_load(argv, err, sizeof err));
    }
    const char *no_dashes[] = {"/usr/bin/sandbox-exec", "-p", "(version 1)", "-D", NULL};
    assert_null(sbpl_load(no_dashes, err, sizeof err));
}

/* ---- golden ---- */

/* The argv for a small policy of every tier and TCP ports, with the base
 * profile (its own file, checked by the evaluator below) cut out. */
static const char golden_profile[] =
    LCSB__SEATBELT_HEAD
    ";; base (profiles/base.sb)\n"
    "@BASE@"
    ";; read tier\n"
    "(allow file-read*\n"
    "  (subpath (param \"READ0\"))\n"
    "  (subpath (param \"READ1\")))\n"
    ";; exec allowlist\n"
    "(allow file-read* process-exec*\n"
    "  (subpath (param \"EXEC0\")))\n"
    ";; guard: no writes in the system trees\n"
    "(deny file-write*\n"
    "  (subpath \"/System\")\n"
    "  (subpath \"/usr\")\n"
    "  (subpath \"/bin\")\n"
    "  (subpath \"/sbin\")\n"
    "  (subpath \"/Library\")\n"
    "  (subpath \"/Applications\")\n"
    "  (subpath \"/private/etc\")\n"
    "  (subpath \"/private/var\"))\n"
    ";; write tier, restated after the guard\n"
    "(allow file-read* file-write*\n"
    "  (subpath (param \"WRITE0\"))\n"
    "  (subpath (param \"WRITE1\")))\n"
    ";; protected paths inside the write tier\n"
    "(deny file-write*\n"
    "  (subpath (param \"PROTECT0\")))\n"
    ";; network\n"
    "(allow network-bind network-inbound (local tcp \"*:8080\"))\n"
    "(allow network-outbound (remote tcp \"*:80\"))\n"
    "(allow network-outbound (remote tcp \"*:443\"))\n"
    "(allow mach-lookup (global-name \"com.apple.dnssd.service\"))\n"
    "(allow network-outbound (literal \"/private/var/run/mDNSResponder\"))\n";

static const char *const golden_rest[] = {
    "-D", "READ0=/Users/u/data",
    "-D", "READ1=/private/etc/ssl",
    "-D", "EXEC0=/usr/bin/git",
    "-D", "WRITE0=/Users/u/proj",
    "-D", "WRITE1=/private/var/folders/ab/xyz/T/lcsb-home.1",
    "-D", "PROTECT0=/Users/u/proj/.git/hooks",
    "--", "git", "status", NULL,
};

static lcsb_policy *golden_policy(void) {
    lcsb_policy *p = lcsb_policy_new();
    assert_non_null(p);
    add(p, "read", "/etc/ssl");
    add(p, "read", "/Users/u/data");
    add(p, "read", "/Users/u/data/");
    add(p, "exec", "/usr/bin/git");
    add(p, "write", "/var/folders/ab/xyz/T/lcsb-home.1");
    add(p, "write", "/Users/u/proj");
    add(p, "protect", "/Users/u/proj/.git/hooks");
    add_port(p, LCSB_PORT_CONNECT, 443);
    add_port(p, LCSB_PORT_CONNECT, 80);
    add_port(p, LCSB_PORT_CONNECT, 443);
    add_port(p, LCSB_PORT_BIND, 8080);
    return p;
}

static void test_golden(void **state) {
    (void)state;
    lcsb_policy *p = golden_policy();
    char **argv = wrap(p, (const char *const[]){"git", "status", NULL});
    assert_string_equal(argv[0], "/usr/bin/sandbox-exec");
    assert_string_equal(argv[1], "-p");
    /* The base sits where the golden says, whole. */
    const char *base_at = strstr(argv[2], lcsb__seatbelt_base);
    assert_non_null(base_at);
    lcsb__buf got = {0};
    lcsb__buf_add(&got, argv[2], (size_t)(base_at - argv[2]));
    lcsb__buf_adds(&got, "@BASE@");
    lcsb__buf_adds(&got, base_at + strlen(lcsb__seatbelt_base));
    assert_false(got.oom);
    assert_string_equal(got.p, golden_profile);
    for (size_t i = 0; golden_rest[i]; i++) {
        assert_non_null(argv[3 + i]);
        assert_string_equal(argv[3 + i], golden_rest[i]);
    }
    assert_null(argv[3 + sizeof golden_rest / sizeof golden_rest[0] - 1]);
    lcsb__buf_free(&got);
    lcsb_argv_free(argv);
    lcsb_policy_free(p);
}

/* Denied network: no network rule at all; open: one; exec "any": one
 * process-exec* for everything, and an empty tier writes no rule (a rule
 * without a filter would match every path). */
static void test_network_and_open_exec(void **state) {
    (void)state;
    lcsb_policy *p = lcsb_policy_new();
    add(p, "write", "/Users/u/proj");
    char **argv = wrap(p, (const char *const[]){"/usr/bin/true", NULL});
    assert_null(strstr(argv[2], "(allow network"));
    assert_null(strstr(argv[2], "(param \"READ"));
    assert_null(strstr(argv[2], "process-exec"));
    assert_null(strstr(argv[2], "(param \"PROTECT"));
    sbpl_profile *pr = load(argv);
    expect(pr, EXEC, "/usr/bin/true", 0);
    expect(pr, READ, "/Users/u/other", 0);
    sbpl_free(pr);
    lcsb_argv_free(argv);

    lcsb_policy_set_net(p, LCSB_NET_OPEN);
    lcsb_policy_set_exec_open(p, true);
    argv = wrap(p, (const char *const[]){"/usr/bin/true", NULL});
    assert_non_null(strstr(argv[2], "\n(allow network*)\n"));
    assert_non_null(strstr(argv[2], "\n(allow process-exec*)\n"));
    pr = load(argv);
    expect(pr, EXEC, "/usr/bin/true", 1);
    expect(pr, EXEC, "/Users/u/proj/a.out", 1);
    expect(pr, READ, "/Users/u/other", 0);
    sbpl_free(pr);
    lcsb_argv_free(argv);
    lcsb_policy_free(p);
}

/* The base alone (an empty policy): the system readable, device nodes as
 * listed, no write but to devices, nothing executable, nothing else. */
static void test_base_profile(void **state) {
    (void)state;
    assert_non_null(strstr(lcsb__seatbelt_base, "Provenance"));
    assert_non_null(strstr(lcsb__seatbelt_base, "The one local delta"));
    lcsb_policy *p = lcsb_policy_new();
    char **argv = wrap(p, (const char *const[]){"/bin/sh", NULL});
    sbpl_profile *pr = load(argv);
    static const char *const readable[] = {
        "/usr/lib/libSystem.B.dylib", "/System/Library/Frameworks/x", "/bin/sh",
        "/etc/hosts", "/private/var/db/timezone/zoneinfo/UTC", "/Library/Preferences/x",
        "/dev/urandom", "/dev/null", NULL};
    for (size_t i = 0; readable[i]; i++) expect(pr, READ, readable[i], 1);
    static const char *const unreadable[] = {
        "/Users/u/x", "/private/tmp/x", "/private/var/root/x", "/dev/disk0", "/Volumes/x",
        "/private/var/folders/ab/x/T/y", "/opt/homebrew/bin/x", NULL};
    for (size_t i = 0; unreadable[i]; i++) expect(pr, READ, unreadable[i], 0);
    static const char *const writable[] = {"/dev/null", "/dev/zero", "/dev/tty", "/dev/fd/1",
                                           NULL};
    for (size_t i = 0; writable[i]; i++) expect(pr, WRITE, writable[i], 1);
    for (size_t i = 0; readable[i]; i++)
        if (strcmp(readable[i], "/dev/null") != 0) expect(pr, WRITE, readable[i], 0);
    expect(pr, EXEC, "/bin/sh", 0);
    expect(pr, "file-read-metadata", "/Users/u/x", 1); /* stat, as on Linux */
    sbpl_free(pr);
    lcsb_argv_free(argv);
    lcsb_policy_free(p);
}

/* A path is a -D parameter only: quotes, parentheses and newlines in it
 * never reach the profile text. */
static void test_paths_never_in_profile(void **state) {
    (void)state;
    static const char nasty[] = "/Users/u/a\") (allow default) (\"b\nc";
    lcsb_policy *p = lcsb_policy_new();
    add(p, "write", nasty);
    char **argv = wrap(p, (const char *const[]){"ls", NULL});
    assert_null(strstr(argv[2], "allow default"));
    assert_null(strstr(argv[2], "/Users"));
    char want[256];
    snprintf(want, sizeof want, "WRITE0=%s", nasty);
    assert_string_equal(argv[4], want);
    sbpl_profile *pr = load(argv);
    char below[256];
    snprintf(below, sizeof below, "%s/x", nasty);
    expect(pr, WRITE, below, 1);
    expect(pr, WRITE, "/Users/u/elsewhere", 0);
    sbpl_free(pr);
    lcsb_argv_free(argv);
    lcsb_policy_free(p);
}

static void test_canonical(void **state) {
    (void)state;
    static const char *const cases[][2] = {
        {"/tmp", "/private/tmp"},         {"/tmp/x/y", "/private/tmp/x/y"},
        {"/var/folders/a", "/private/var/folders/a"}, {"/etc/hosts", "/private/etc/hosts"},
        {"/tmpfoo", "/tmpfoo"},           {"/private/tmp/x", "/private/tmp/x"},
        {"/Users/u", "/Users/u"},         {"/", "/"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char out[LCSB__SEATBELT_PATH_MAX];
        assert_int_equal(lcsb__seatbelt_canonical(cases[i][0], out), 0);
        assert_string_equal(out, cases[i][1]);
    }
}

/* What wrap refuses, lexically, before any profile is written. */
static void test_refusals(void **state) {
    (void)state;
    static const struct {
        const char *tier, *path, *says;
    } cases[] = {
        {"write", "/usr/local/share/x", "inside the system tree /usr"},
        {"write", "/private", "is or contains the system tree /private/etc"},
        {"write", "/var", "is or contains the system tree /private/var"},
        {"write", "/var/db/x", "inside the system tree /private/var"},
        {"write", "/Library/Preferences", "inside the system tree /Library"},
        {"write", "/", "is or contains the system tree /System"},
        {"exec", "/private", "system prefix /private/etc"},
        {"exec", "/usr/bin", "system prefix /usr/bin"},
        {"exec", "/opt/homebrew", "system prefix /opt/homebrew"},
        {"exec", "/private/tmp", "system prefix /private/tmp"},
        {"exec", "/private/var/folders", "system prefix /private/var/folders"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        lcsb_policy *p = lcsb_policy_new();
        add(p, cases[i].tier, cases[i].path);
        int rc;
        lcsb_error err = {0};
        char **argv = wrap_ordered(p, lcsb__seatbelt_order, (const char *const[]){"ls", NULL},
                                   &rc, &err);
        assert_null(argv);
        assert_int_equal(rc, LCSB_EINVAL);
        if (!strstr(err.message, cases[i].says))
            fail_msg("%s %s: \"%s\" lacks \"%s\"", cases[i].tier, cases[i].path, err.message,
                     cases[i].says);
        lcsb_policy_free(p);
    }
    /* The per-user temporary directories are the one hole in /private/var. */
    lcsb_policy *p = lcsb_policy_new();
    add(p, "write", "/var/folders/ab/xyz/T/lcsb-tmp.1");
    char **argv = wrap(p, (const char *const[]){"ls", NULL});
    lcsb_argv_free(argv);
    /* A command sandbox-exec could take for one of its options. */
    int rc;
    lcsb_error err = {0};
    assert_null(wrap_ordered(p, lcsb__seatbelt_order, (const char *const[]){"-n", "x", NULL}, &rc,
                             &err));
    assert_int_equal(rc, LCSB_EINVAL);
    assert_non_null(strstr(err.message, "starts with '-'"));
    lcsb_policy_free(p);
}

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
    snprintf(g->write[g->n_write++], 96, "/var/folders/%c%c/x%u/T/lcsb-home.%u",
             'a' + next(&r, 26), 'a' + next(&r, 26), next(&r, 100), next(&r, 100000));
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
    for (size_t i = 0; i < g->n_read; i++) add(g->policy, "read", g->read[i]);
    for (size_t i = 0; i < g->n_write; i++) add(g->policy, "write", g->write[i]);
    for (size_t i = 0; i < g->n_exec; i++) add(g->policy, "exec", g->exec[i]);
    if (g->has_protect) add(g->policy, "protect", g->protect);
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
             got < 0 ? "cannot be judged" : got ? "allowed, must not be" : "denied, must not be");
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
             holds(pr, READ, path, 1, why, size) &&
             holds(pr, EXEC, path, g->exec_open, why, size);
        /* A sibling that shares the name's prefix is outside: a subpath is
         * a path and what is below it, not a string prefix. */
        snprintf(path, sizeof path, "%s-sibling/x", g->write[i]);
        ok = ok && holds(pr, WRITE, path, 0, why, size) && holds(pr, READ, path, 0, why, size);
    }
    if (ok && g->has_protect) {
        snprintf(path, sizeof path, "%s/pre-commit", g->protect);
        ok = holds(pr, WRITE, path, 0, why, size) && holds(pr, READ, path, 1, why, size);
    }
    static const char *const guarded[] = {
        "/System/Library/x", "/usr/lib/libSystem.B.dylib", "/usr/local/bin/x", "/bin/sh",
        "/sbin/mount", "/Library/Preferences/x", "/Applications/X.app/y", "/etc/hosts",
        "/private/etc/sudoers", "/var/db/x", "/private/var/root/.profile",
        "/var/folders/zz/other/T/x", NULL};
    for (size_t i = 0; ok && guarded[i]; i++) ok = holds(pr, WRITE, guarded[i], 0, why, size);
    static const char *const outside[] = {
        "/Users/other/secret", "/Users/u0/.ssh/id_ed25519", "/private/tmp/other",
        "/tmp/lcsb-tmpX/x", "/Volumes/ext/secret", "/opt/secret", "/private/var/root/x",
        "/var/folders/zz/other/T/x", "/Users",
        /* The base reads /private/etc entry by entry, never its secrets. */
        "/private/etc/master.passwd", "/private/etc/sudoers", "/private/etc/sudoers.d/x",
        "/private/etc/ssh/ssh_host_ed25519_key", "/etc/krb5.keytab", NULL};
    for (size_t i = 0; ok && outside[i]; i++)
        ok = holds(pr, READ, outside[i], 0, why, size) &&
             holds(pr, WRITE, outside[i], 0, why, size);
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
        if (!property(&g, argv, why, sizeof why)) fail_msg("seed %llu: %s",
                                                            (unsigned long long)seed, why);
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

/* ---- attestation ---- */

static void test_attest(void **state) {
    (void)state;
    lcsb_policy *p = golden_policy();
    static const char *const prefix[] = {"uv", "run", "--", NULL};
    char **argv = NULL;
    lcsb_backend *b = seatbelt();
    lcsb_error err = {0};
    assert_int_equal(lcsb_compose(b, p, prefix, (const char *const[]){"pytest", NULL}, &argv,
                                  &err),
                     0);
    lcsb_attestation a;
    assert_int_equal(lcsb_attest((const char *const *)argv, prefix, &a, &err), 0);
    assert_string_equal(a.backend, "seatbelt");
    assert_string_equal(a.fs, "enforced");
    assert_string_equal(a.exec, "allowlist");
    assert_string_equal(a.net, "ports");
    assert_string_equal(a.net_covers, "all");
    assert_string_equal(a.net_by, "seatbelt");
    assert_string_equal(a.metadata, "readonly");
    assert_string_equal(a.protected_paths, "readonly");
    assert_true(a.scoped);
    char *json = lcsb_attestation_json(&a);
    assert_string_equal(json, "{\"backend\":\"seatbelt\",\"fs\":\"enforced\",\"exec\":"
                              "\"allowlist\",\"net\":\"ports\",\"net_covers\":\"all\","
                              "\"net_by\":\"seatbelt\",\"metadata\":\"readonly\","
                              "\"protected\":\"readonly\",\"scoped\":true,\"dropped\":[]}");
    free(json);
    char summary[256];
    lcsb_attestation_summary(&a, summary, sizeof summary);
    assert_string_equal(summary, "fs: enforced, exec: allowlist, net: ports");
    lcsb_argv_free(argv);

    /* Open network and exec, no protected path. */
    lcsb_policy_set_net(p, LCSB_NET_OPEN);
    lcsb_policy_set_exec_open(p, true);
    lcsb_policy *q = lcsb_policy_new();
    add(q, "write", "/Users/u/proj");
    argv = wrap(q, (const char *const[]){"x", NULL});
    assert_int_equal(lcsb_attest((const char *const *)argv, NULL, &a, &err), 0);
    assert_string_equal(a.net, "denied");
    assert_string_equal(a.protected_paths, "none");
    lcsb_argv_free(argv);
    argv = wrap(p, (const char *const[]){"x", NULL});
    assert_int_equal(lcsb_attest((const char *const *)argv, NULL, &a, &err), 0);
    assert_string_equal(a.net, "open");
    assert_string_equal(a.exec, "open");
    assert_string_equal(a.net_covers, "");

    lcsb_argv_free(argv);

    /* Malformed: no "--" before the command, or a profile that allows
     * everything; neither passes for enforcement. */
    static const char *const no_dashes[] = {LCSB__SANDBOX_EXEC, "-p", LCSB__SEATBELT_HEAD,
                                            "-D", "K=V", "x", NULL};
    assert_int_equal(lcsb_attest(no_dashes, NULL, &a, &err), LCSB_EINVAL);
    static const char *const allows_all[] = {LCSB__SANDBOX_EXEC, "-p",
                                             LCSB__SEATBELT_HEAD "(allow default)\n", "--", "x",
                                             NULL};
    assert_int_equal(lcsb_attest(allows_all, NULL, &a, &err), LCSB_EINVAL);
    /* Nothing but a profile lcsb writes is vouched for: any rule added,
     * widened or moved (a guess from its lines let these through). */
    argv = wrap(q, (const char *const[]){"x", NULL});
    static const struct {
        const char *find, *replace;
    } tampered[] = {
        {";; network\n", ";; network\n(allow default) \n"},
        {";; network\n", ";; network\n(allow default) ; x\n"},
        {";; network\n", "(allow process-fork)(allow default)\n;; network\n"},
        {";; network\n", "(allow file*)\n;; network\n"},
        {";; network\n", "(allow file-write* (subpath \"/\"))\n;; network\n"},
        {";; network\n", ";; network\n(allow process-exec)\n"},
        {";; network\n", ";; network\n(allow network-outbound)\n"},
        {";; network\n", ";; (remote tcp \"*:1\")\n;; network\n"},
        {"(allow signal (target same-sandbox))", "(allow signal)"},
        {"(deny default)", "(allow default)"},
    };
    for (size_t i = 0; i < sizeof tampered / sizeof tampered[0]; i++) {
        const char *at = strstr(argv[2], tampered[i].find);
        assert_non_null(at);
        size_t head = (size_t)(at - argv[2]);
        char *edited = malloc(strlen(argv[2]) + strlen(tampered[i].replace) + 1);
        assert_non_null(edited);
        memcpy(edited, argv[2], head);
        strcpy(edited + head, tampered[i].replace);
        strcat(edited, at + strlen(tampered[i].find));
        const char *const tampered_argv[] = {argv[0], argv[1], edited, argv[3], argv[4],
                                             "--", "x", NULL};
        assert_string_equal(argv[3], "-D");
        /* Refused, or (a head that is not lcsb's) not taken for Seatbelt at all. */
        int rc = lcsb_attest(tampered_argv, NULL, &a, &err);
        if (rc != LCSB_EINVAL && !(rc == 0 && strcmp(a.backend, "none") == 0))
            fail_msg("tampered profile %zu was attested (%s, exec %s, net %s)", i, a.fs, a.exec,
                     a.net);
        free(edited);
    }
    lcsb_argv_free(argv);
    /* The layers in another order are not lcsb's profile either. */
    lcsb__strv swapped = {0};
    lcsb__seatbelt_layer order[LCSB__SB_LAYERS];
    memcpy(order, lcsb__seatbelt_order, sizeof order);
    order[3] = LCSB__SB_WRITE;
    order[4] = LCSB__SB_GUARD;
    assert_int_equal(lcsb__seatbelt_wrap_layers(q, order, (const char *const[]){"x", NULL},
                                                &swapped, &err),
                     0);
    assert_int_equal(lcsb_attest((const char *const *)swapped.v, NULL, &a, &err), LCSB_EINVAL);
    lcsb__strv_clear(&swapped);
    /* Only the argv position right after the prefix is the mechanism: the
     * same words inside the command are the command's. */
    static const char *const inside[] = {"sh", "-c", "exec \"$@\"", "sh", LCSB__SANDBOX_EXEC,
                                         "-p", LCSB__SEATBELT_HEAD, "--", "x", NULL};
    assert_int_equal(lcsb_attest(inside, NULL, &a, &err), 0);
    assert_string_equal(a.backend, "none");
    assert_string_equal(a.fs, "open");
    lcsb_policy_free(q);
    lcsb_policy_free(p);
    lcsb_backend_free(b);
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

typedef struct output {
    int status;
    char out[1 << 20];
    char err[8192];
} output;

static void slurp(int fd, char *buf, size_t size) {
    size_t n = 0;
    ssize_t r;
    while ((r = read(fd, buf + n, size - 1 - n)) > 0) n += (size_t)r;
    buf[n] = '\0';
}

/* Run ARGV in CWD; stdout and stderr are read one after the other, which
 * is enough for the small outputs here. */
static void run(const char *cwd, const char *const *argv, output *o) {
    int out[2], err[2];
    assert_int_equal(pipe(out), 0);
    assert_int_equal(pipe(err), 0);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        if (chdir(cwd) != 0 || dup2(out[1], 1) < 0 || dup2(err[1], 2) < 0) _exit(120);
        close(out[0]);
        close(err[0]);
        execv(argv[0], (char *const *)argv);
        _exit(121);
    }
    close(out[1]);
    close(err[1]);
    slurp(out[0], o->out, sizeof o->out);
    slurp(err[0], o->err, sizeof o->err);
    close(out[0]);
    close(err[0]);
    int status;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    o->status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

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

/* The issue's "done when", through the command line a user types: the
 * argv `lcsb wrap --backend seatbelt` prints on Linux, judged by the
 * evaluator, and `lcsb --backend seatbelt` refusing with 125. */
static void test_cli_wrap_done_when(void **state) {
    (void)state;
    char project[] = "/tmp/lcsb-sb-project.XXXXXX";
    assert_non_null(mkdtemp(project));
    char policy[PATH_MAX], src[PATH_MAX];
    snprintf(policy, sizeof policy, "%s/p.lua", project);
    FILE *f = fopen(policy, "w");
    assert_non_null(f);
    fputs("local lcsb = require \"lcsb\"\n"
          "return lcsb.exec_policy{ exec = { \"/usr/bin/git\" } }\n",
          f);
    fclose(f);
    snprintf(src, sizeof src, "%s/src", project);
    assert_int_equal(mkdir(src, 0700), 0);

    output *o = malloc(sizeof *o);
    assert_non_null(o);
    run(project,
        (const char *const[]){LCSB_CLI_PATH, "wrap", "--backend", "seatbelt", policy, "--",
                              "/usr/bin/git", "status", NULL},
        o);
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
        const char *run_argv[] = {LCSB_CLI_PATH, "--backend", "seatbelt", policy,
                                  "--",          "/usr/bin/git", "status", NULL};
        const char *check_argv[] = {LCSB_CLI_PATH, "check", "--backend", "seatbelt", policy,
                                    NULL};
        run(project, verbs[i] ? check_argv : run_argv, o);
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
        cmocka_unit_test(test_evaluator),
        cmocka_unit_test(test_golden),
        cmocka_unit_test(test_base_profile),
        cmocka_unit_test(test_network_and_open_exec),
        cmocka_unit_test(test_paths_never_in_profile),
        cmocka_unit_test(test_canonical),
        cmocka_unit_test(test_refusals),
        cmocka_unit_test(test_property_many_policies),
        cmocka_unit_test(test_mutation_is_caught),
        cmocka_unit_test(test_attest),
        cmocka_unit_test(test_select),
        cmocka_unit_test(test_cli_wrap_done_when),
    };
    return cmocka_run_group_tests_name("sandbox_seatbelt", tests, NULL, NULL);
}
