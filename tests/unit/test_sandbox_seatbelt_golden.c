/* The Seatbelt backend, proven on any host: the evaluator the other cases
 * trust, golden argvs, what wrap refuses, and the attestation read back from
 * the argv, which vouches for nothing but a profile lcsb writes. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h> /* after the four above, which it needs */

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "seatbelt_fixture.h"

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
    const char *argv[] = {"/usr/bin/sandbox-exec",
                          "-p",
                          profile,
                          "-D",
                          "L=/l/f",
                          "-D",
                          "W=/w",
                          "--",
                          "cmd",
                          "arg",
                          NULL};
    char err[256] = "";
    sbpl_profile *pr = sbpl_load(argv, err, sizeof err);
    if (!pr) fail_msg("%s", err);
    expect(pr, READ, "/a", 1);
    expect(pr, READ, "/a/b/c", 1);
    expect(pr, READ, "/ab", 0); /* subpath is not a string prefix */
    expect(pr, READ, "/l/f", 1);
    expect(pr, READ, "/l/f/g", 0); /* literal is the path only */
    expect(pr, WRITE, "/w/x", 1);
    expect(pr, "file-write-mode", "/w/ro/x", 1);
    expect(pr, WRITE, "/w/ro/x", 0); /* the later, narrower rule wins */
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
    LCSB__SEATBELT_HEAD ";; base (profiles/base.sb)\n"
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
    "-D",     "READ0=/Users/u/data",
    "-D",     "READ1=/private/etc/ssl",
    "-D",     "EXEC0=/usr/bin/git",
    "-D",     "WRITE0=/Users/u/proj",
    "-D",     "WRITE1=/private/var/folders/ab/xyz/T/lcsb-home.1",
    "-D",     "PROTECT0=/Users/u/proj/.git/hooks",
    "--",     "git",
    "status", NULL,
};

static lcsb_policy *golden_policy(void) {
    lcsb_policy *p = new_policy();
    add(p, LCSB_TIER_READ, "/etc/ssl");
    add(p, LCSB_TIER_READ, "/Users/u/data");
    add(p, LCSB_TIER_READ, "/Users/u/data/");
    add(p, LCSB_TIER_EXEC, "/usr/bin/git");
    add(p, LCSB_TIER_WRITE, "/var/folders/ab/xyz/T/lcsb-home.1");
    add(p, LCSB_TIER_WRITE, "/Users/u/proj");
    add(p, LCSB_TIER_PROTECT, "/Users/u/proj/.git/hooks");
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
    add(p, LCSB_TIER_WRITE, "/Users/u/proj");
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

/* Domains: lcsb's proxy on the loopback is the one way out (the proxy
 * resolves names: no DNS rule), the policy's ports the loopback's alone; the
 * attestation reads it back, and a widened proxy rule is no profile of lcsb's. */
static void test_domains(void **state) {
    (void)state;
    lcsb_policy *p = lcsb_policy_new();
    lcsb_error err = {0};
    add(p, LCSB_TIER_WRITE, "/Users/u/proj");
    assert_int_equal(lcsb_policy_add_domain(p, "registry.npmjs.org", &err), 0);
    add_port(p, LCSB_PORT_CONNECT, 5432);
    char **argv = wrap(p, (const char *const[]){"/usr/bin/true", NULL});
    const char *net = strstr(argv[2], ";; network\n");
    assert_non_null(net);
    assert_string_equal(net, ";; network\n"
                             ";; lcsb's proxy\n"
                             "(allow network-outbound (remote tcp \"localhost:3128\"))\n"
                             "(allow network-outbound (remote tcp \"localhost:5432\"))\n");
    lcsb_attestation a;
    assert_int_equal(lcsb_attest((const char *const *)argv, NULL, &a, &err), 0);
    assert_string_equal(lcsb_attestation_value(&a, "net"), "domains");
    assert_string_equal(lcsb_attestation_value(&a, "net_by"), "seatbelt");
    char *widened = replaced(argv[2], "localhost:3128", "*:3128");
    free(argv[2]);
    argv[2] = widened;
    assert_int_equal(lcsb_attest((const char *const *)argv, NULL, &a, &err), LCSB_EINVAL);
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
    static const char *const readable[] = {"/usr/lib/libSystem.B.dylib",
                                           "/System/Library/Frameworks/x",
                                           "/bin/sh",
                                           "/etc/hosts",
                                           "/private/var/db/timezone/zoneinfo/UTC",
                                           "/Library/Preferences/x",
                                           "/dev/urandom",
                                           "/dev/null",
                                           NULL};
    for (size_t i = 0; readable[i]; i++) expect(pr, READ, readable[i], 1);
    static const char *const unreadable[] = {"/Users/u/x",          "/private/tmp/x",
                                             "/private/var/root/x", "/dev/disk0",
                                             "/Volumes/x",          "/private/var/folders/ab/x/T/y",
                                             "/opt/homebrew/bin/x", NULL};
    for (size_t i = 0; unreadable[i]; i++) expect(pr, READ, unreadable[i], 0);
    static const char *const writable[] = {"/dev/null", "/dev/zero", "/dev/tty", "/dev/fd/1", NULL};
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
    add(p, LCSB_TIER_WRITE, nasty);
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
        {"/tmp", "/private/tmp"},
        {"/tmp/x/y", "/private/tmp/x/y"},
        {"/var/folders/a", "/private/var/folders/a"},
        {"/etc/hosts", "/private/etc/hosts"},
        {"/tmpfoo", "/tmpfoo"},
        {"/private/tmp/x", "/private/tmp/x"},
        {"/Users/u", "/Users/u"},
        {"/", "/"},
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
        lcsb_tier tier;
        const char *path, *says;
    } cases[] = {
        {LCSB_TIER_WRITE, "/usr/local/share/x", "inside the system tree /usr"},
        {LCSB_TIER_WRITE, "/private", "is or contains the system tree /private/etc"},
        {LCSB_TIER_WRITE, "/var", "is or contains the system tree /private/var"},
        {LCSB_TIER_WRITE, "/var/db/x", "inside the system tree /private/var"},
        {LCSB_TIER_WRITE, "/Library/Preferences", "inside the system tree /Library"},
        {LCSB_TIER_WRITE, "/", "is or contains the system tree /System"},
        {LCSB_TIER_EXEC, "/private", "system prefix /private/etc"},
        {LCSB_TIER_EXEC, "/usr/bin", "system prefix /usr/bin"},
        {LCSB_TIER_EXEC, "/opt/homebrew", "system prefix /opt/homebrew"},
        {LCSB_TIER_EXEC, "/private/tmp", "system prefix /private/tmp"},
        {LCSB_TIER_EXEC, "/private/var/folders", "system prefix /private/var/folders"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        lcsb_policy *p = lcsb_policy_new();
        add(p, cases[i].tier, cases[i].path);
        int rc;
        lcsb_error err = {0};
        char **argv =
            wrap_ordered(p, lcsb__seatbelt_order, (const char *const[]){"ls", NULL}, &rc, &err);
        assert_null(argv);
        assert_int_equal(rc, LCSB_EINVAL);
        if (!strstr(err.message, cases[i].says))
            fail_msg("%s %s: \"%s\" lacks \"%s\"", lcsb_tier_name(cases[i].tier), cases[i].path,
                     err.message,
                     cases[i].says);
        lcsb_policy_free(p);
    }
    /* The per-user temporary directories are the one hole in /private/var. */
    lcsb_policy *p = lcsb_policy_new();
    add(p, LCSB_TIER_WRITE, "/var/folders/ab/xyz/T/lcsb-tmp.1");
    char **argv = wrap(p, (const char *const[]){"ls", NULL});
    lcsb_argv_free(argv);
    /* A command sandbox-exec could take for one of its options. */
    int rc;
    lcsb_error err = {0};
    assert_null(
        wrap_ordered(p, lcsb__seatbelt_order, (const char *const[]){"-n", "x", NULL}, &rc, &err));
    assert_int_equal(rc, LCSB_EINVAL);
    assert_non_null(strstr(err.message, "starts with '-'"));
    lcsb_policy_free(p);
}

/* ---- attestation ---- */

/* Malformed: neither passes for enforcement, nor does a profile lcsb did
 * not write from Q, nor the same words inside the command. */
static void attest_refuses_what_lcsb_did_not_write(const lcsb_policy *q) {
    lcsb_attestation a;
    lcsb_error err = {0};
    char **argv;
    /* Malformed: no "--" before the command, or a profile that allows
     * everything; neither passes for enforcement. */
    static const char *const no_dashes[] = {
        LCSB__SANDBOX_EXEC, "-p", LCSB__SEATBELT_HEAD, "-D", "K=V", "x", NULL};
    assert_int_equal(lcsb_attest(no_dashes, NULL, &a, &err), LCSB_EINVAL);
    static const char *const allows_all[] = {
        LCSB__SANDBOX_EXEC, "-p", LCSB__SEATBELT_HEAD "(allow default)\n", "--", "x", NULL};
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
        const char *const tampered_argv[] = {argv[0], argv[1], edited, argv[3],
                                             argv[4], "--",    "x",    NULL};
        assert_string_equal(argv[3], "-D");
        /* Refused, or (a head that is not lcsb's) not taken for Seatbelt at all. */
        int rc = lcsb_attest(tampered_argv, NULL, &a, &err);
        if (rc != LCSB_EINVAL && !(rc == 0 && a.backend == LCSB_MECHANISM_NONE))
            fail_msg("tampered profile %zu was attested (%s, exec %s, net %s)", i,
                     lcsb_attestation_value(&a, "fs"), lcsb_attestation_value(&a, "exec"),
                     lcsb_attestation_value(&a, "net"));
        free(edited);
    }
    lcsb_argv_free(argv);
    /* The layers in another order are not lcsb's profile either. */
    lcsb__strv swapped = {0};
    lcsb__seatbelt_layer order[LCSB__SB_LAYERS];
    memcpy(order, lcsb__seatbelt_order, sizeof order);
    order[3] = LCSB__SB_WRITE;
    order[4] = LCSB__SB_GUARD;
    assert_int_equal(
        lcsb__seatbelt_wrap_layers(q, order, (const char *const[]){"x", NULL}, &swapped, &err), 0);
    assert_int_equal(lcsb_attest((const char *const *)swapped.v, NULL, &a, &err), LCSB_EINVAL);
    lcsb__strv_clear(&swapped);
    /* Only the argv position right after the prefix is the mechanism: the
     * same words inside the command are the command's. */
    static const char *const inside[] = {
        "sh", "-c", "exec \"$@\"", "sh", LCSB__SANDBOX_EXEC, "-p", LCSB__SEATBELT_HEAD,
        "--", "x",  NULL};
    assert_int_equal(lcsb_attest(inside, NULL, &a, &err), 0);
    assert_string_equal(lcsb_attestation_value(&a, "backend"), "none");
    assert_string_equal(lcsb_attestation_value(&a, "fs"), "open");
}

static void test_attest(void **state) {
    (void)state;
    lcsb_policy *p = golden_policy();
    static const char *const prefix[] = {"uv", "run", "--", NULL};
    char **argv = NULL;
    lcsb_backend *b = seatbelt();
    lcsb_error err = {0};
    assert_int_equal(lcsb_compose(b, p, prefix, (const char *const[]){"pytest", NULL}, &argv, &err),
                     0);
    lcsb_attestation a;
    assert_int_equal(lcsb_attest((const char *const *)argv, prefix, &a, &err), 0);
    assert_string_equal(lcsb_attestation_value(&a, "backend"), "seatbelt");
    assert_string_equal(lcsb_attestation_value(&a, "fs"), "enforced");
    assert_string_equal(lcsb_attestation_value(&a, "exec"), "allowlist");
    assert_string_equal(lcsb_attestation_value(&a, "net"), "ports");
    assert_string_equal(lcsb_attestation_value(&a, "net_covers"), "all");
    assert_string_equal(lcsb_attestation_value(&a, "net_by"), "seatbelt");
    assert_string_equal(lcsb_attestation_value(&a, "metadata"), "readonly");
    assert_string_equal(lcsb_attestation_value(&a, "protected"), "readonly");
    assert_true(a.scoped);
    char *json = lcsb_attestation_json(&a);
    assert_string_equal(json, "{\"backend\":\"seatbelt\",\"fs\":\"enforced\",\"exec\":"
                              "\"allowlist\",\"net\":\"ports\",\"net_covers\":\"all\","
                              "\"net_by\":\"seatbelt\",\"metadata\":\"readonly\","
                              "\"protected\":\"readonly\",\"scoped\":true,\"dropped\":[],\"world\":\"open\"}");
    free(json);
    char summary[256];
    lcsb_attestation_summary(&a, summary, sizeof summary);
    assert_string_equal(summary, "fs: enforced, exec: allowlist, net: ports");
    lcsb_argv_free(argv);

    /* Open network and exec, no protected path. */
    lcsb_policy_set_net(p, LCSB_NET_OPEN);
    lcsb_policy_set_exec_open(p, true);
    lcsb_policy *q = lcsb_policy_new();
    add(q, LCSB_TIER_WRITE, "/Users/u/proj");
    argv = wrap(q, (const char *const[]){"x", NULL});
    assert_int_equal(lcsb_attest((const char *const *)argv, NULL, &a, &err), 0);
    assert_string_equal(lcsb_attestation_value(&a, "net"), "denied");
    assert_string_equal(lcsb_attestation_value(&a, "protected"), "none");
    lcsb_argv_free(argv);
    argv = wrap(p, (const char *const[]){"x", NULL});
    assert_int_equal(lcsb_attest((const char *const *)argv, NULL, &a, &err), 0);
    assert_string_equal(lcsb_attestation_value(&a, "net"), "open");
    assert_string_equal(lcsb_attestation_value(&a, "exec"), "open");
    assert_string_equal(lcsb_attestation_value(&a, "net_covers"), "");

    lcsb_argv_free(argv);

    attest_refuses_what_lcsb_did_not_write(q);
    lcsb_policy_free(q);
    lcsb_policy_free(p);
    lcsb_backend_free(b);
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
        cmocka_unit_test(test_attest),
        cmocka_unit_test(test_domains),
    };
    return cmocka_run_group_tests_name("sandbox_seatbelt_golden", tests, NULL, NULL);
}
