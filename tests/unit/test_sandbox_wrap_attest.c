/* The attestation, read back from the argv and never from the policy: one
 * flag flipped in the argv changes one answer, and a header lcsb would not
 * write is an error, not a guess. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h> /* after the four above, which it needs */

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "wrap_fixture.h"

/* ---- attestation ---- */

static void expect_attestation(char **argv, const char *backend, const char *fs, const char *exec,
                               const char *net, const char *covers, int abi, bool scoped) {
    lcsb_attestation a = attest(argv);
    assert_string_equal(lcsb_attestation_value(&a, "backend"), backend);
    assert_string_equal(lcsb_attestation_value(&a, "fs"), fs);
    assert_string_equal(lcsb_attestation_value(&a, "exec"), exec);
    assert_string_equal(lcsb_attestation_value(&a, "net"), net);
    assert_string_equal(lcsb_attestation_value(&a, "net_covers"), covers);
    /* Who holds it follows from the header: TCP rules, the socket filter, or both. */
    if (!covers[0])
        assert_string_equal(lcsb_attestation_value(&a, "net_by"), "");
    else if (strcmp(covers, "tcp") == 0)
        assert_string_equal(lcsb_attestation_value(&a, "net_by"), "landlock");
    else
        assert_true(a.net_by == LCSB_NET_BY_LANDLOCK_SECCOMP || a.net_by == LCSB_NET_BY_SECCOMP);
    assert_int_equal(a.abi, abi);
    assert_int_equal(a.scoped, scoped);
}

/* One flag flipped in OUT's header, one answer changed: the attestation
 * reads the argv, not the policy. What was dropped, and only names lcsb knows. */
static void attest_follows_the_header(char **out) {
    lcsb_attestation d;
    char *json;
    char summary[256];
    replace(&out[1], "\"execute\",", "");
    expect_attestation(out, "landlock", "enforced", "open", "denied", "all", 7, true);
    /* Without TCP rules, the "unix" socket filter still refuses TCP sockets. */
    replace(&out[1], "\"net\":[\"bind_tcp\",\"connect_tcp\"]", "\"net\":[]");
    expect_attestation(out, "landlock", "enforced", "open", "denied", "all", 7, true);
    assert_int_equal(attest(out).net_by, LCSB_NET_BY_SECCOMP);
    replace(&out[1], "\"sockets\":\"unix\"", "\"sockets\":\"unix+tcp\"");
    expect_attestation(out, "landlock", "enforced", "open", "open", "", 7, true);
    replace(&out[1], "\"scope\":[\"abstract_unix_socket\",\"signal\"]", "\"scope\":[\"signal\"]");
    expect_attestation(out, "landlock", "enforced", "open", "open", "", 7, false);
    replace(&out[1], "\"abi\":7", "\"abi\":5");
    expect_attestation(out, "landlock", "enforced", "open", "open", "", 5, false);
    /* What the header says was dropped, and only names lcsb knows. */
    replace(&out[1], "\"dropped\":[]", "\"dropped\":[\"terminal\",\"scope\"]");
    d = attest(out);
    assert_int_equal(d.dropped, LCSB_PART_TERMINAL | LCSB_PART_SCOPE);
    json = lcsb_attestation_json(&d);
    assert_contains(json, "\"dropped\":[\"scope\",\"terminal\"],\"world\":\"own\"}");
    free(json);
    lcsb_attestation_summary(&d, summary, sizeof summary);
    assert_contains(summary, "abi 5, not enforced here: scope terminal");
    static const char *const bad_dropped[] = {"[\"fs\"]", "[\"scope\",1]", "\"scope\"", "{}",
                                              "[\"scope\",\"fs\"]"};
    for (size_t i = 0; i < sizeof bad_dropped / sizeof bad_dropped[0]; i++) {
        char *copy = strdup(out[1]);
        char with[64];
        snprintf(with, sizeof with, "\"dropped\":%s,", bad_dropped[i]);
        replace(&copy, "\"dropped\":[\"terminal\",\"scope\"],", with);
        const char *argv[] = {out[0], copy, "--", "true", NULL};
        lcsb_error e = {0};
        if (lcsb_attest(argv, NULL, &d, &e) != LCSB_EINVAL) fail_msg("attested %s", copy);
        free(copy);
    }
}

/* Headers with one network rule, a port rule, or no fs rules. */
static void attest_partial_headers(const lcsb_backend *b, const lcsb_policy *p,
                                   const char *const *cmd) {
    char **out = wrap(b, p, cmd);
    replace(&out[1], "\"net\":[\"bind_tcp\",\"connect_tcp\"]", "\"net\":[\"connect_tcp\"]");
    expect_attestation(out, "landlock", "enforced", "allowlist", "denied", "all", 7, true);
    replace(&out[1], "\"sockets\":\"unix\"", "\"sockets\":\"any\"");
    expect_attestation(out, "landlock", "enforced", "allowlist", "open", "", 7, true);
    lcsb_argv_free(out);
    out = wrap(b, p, cmd);
    replace(&out[1], "\"ports\":[]", "\"ports\":[{\"access\":[\"connect_tcp\"],\"ports\":[1]}]");
    expect_attestation(out, "landlock", "enforced", "allowlist", "ports", "all", 7, true);
    lcsb_argv_free(out);
    out = wrap(b, p, cmd);
    char *fs = strstr(out[1], "\"fs\":[");
    char *fs_end = strchr(fs, ']');
    memmove(fs + 6, fs_end, strlen(fs_end) + 1);
    expect_attestation(out, "landlock", "open", "open", "denied", "all", 7, true);
    lcsb_argv_free(out);
}

/* The socket filter: without it Landlock holds TCP only, and UDP gets out: "open". */
static void attest_socket_filter(const lcsb_backend *b, const lcsb_policy *p,
                                 const char *const *cmd) {
    lcsb_attestation a;
    char *json;
    char summary[256];
    char **out = wrap(b, p, cmd);
    replace(&out[1], "\"sockets\":\"unix\"", "\"sockets\":\"any\"");
    expect_attestation(out, "landlock", "enforced", "allowlist", "open", "tcp", 7, true);
    a = attest(out);
    json = lcsb_attestation_json(&a);
    assert_contains(json, "\"net\":\"open\",\"net_covers\":\"tcp\",\"net_by\":\"landlock\",");
    free(json);
    lcsb_attestation_summary(&a, summary, sizeof summary);
    assert_string_equal(summary, "fs: enforced, exec: allowlist, net: open but for TCP, abi 7");
    replace(&out[1], "\"ports\":[]", "\"ports\":[{\"access\":[\"connect_tcp\"],\"ports\":[1]}]");
    expect_attestation(out, "landlock", "enforced", "allowlist", "open", "tcp", 7, true);
    replace(&out[1], "\"sockets\":\"any\"", "\"sockets\":\"unix+tcp\"");
    expect_attestation(out, "landlock", "enforced", "allowlist", "ports", "all", 7, true);
    /* A filter with Landlock's network rules off: the network is attested
     * open, which is never more than what holds. */
    replace(&out[1], "\"net\":[\"bind_tcp\",\"connect_tcp\"]", "\"net\":[]");
    expect_attestation(out, "landlock", "enforced", "allowlist", "open", "", 7, true);
    a = attest(out);
    lcsb_attestation_summary(&a, summary, sizeof summary);
    assert_string_equal(summary, "fs: enforced, exec: allowlist, net: open, abi 7");
    lcsb_argv_free(out);
}

/* The whole header malformed: an error, not a guess. */
static void attest_refuses_malformed(const lcsb_backend *b, const lcsb_policy *p,
                                     const char *const *cmd) {
    lcsb_attestation a;
    char **out = wrap(b, p, cmd);
    replace(&out[1], "\"fs\":[", "\"fs\":");
    lcsb_error err = {0};
    assert_int_equal(lcsb_attest((const char *const *)out, NULL, &a, &err), LCSB_EINVAL);
    assert_contains(err.message, "malformed");
    lcsb_argv_free(out);
    out = wrap(b, p, cmd);
    replace(&out[1], "\"abi\":7", "\"abi\":0");
    assert_int_equal(lcsb_attest((const char *const *)out, NULL, &a, &err), LCSB_EINVAL);
    lcsb_argv_free(out);
    /* So is a missing or unknown "sockets": no filter is never assumed away. */
    static const char *const bad_sockets[] = {
        "", /* missing */
        ",\"sockets\":\"tcp\"",
        ",\"sockets\":\"\"",
        ",\"sockets\":\"UNIX\"",
        ",\"sockets\":\"unix+\"",
        ",\"sockets\":\"unix+tcp+\"",
        ",\"sockets\":[\"unix\"]",
        ",\"sockets\":1",
        ",\"sockets\":\"unix",
        ",\"sockets\":null",
    };
    for (size_t i = 0; i < sizeof bad_sockets / sizeof bad_sockets[0]; i++) {
        out = wrap(b, p, cmd);
        replace(&out[1], ",\"sockets\":\"unix\"", bad_sockets[i]);
        memset(&err, 0, sizeof err);
        if (lcsb_attest((const char *const *)out, NULL, &a, &err) != LCSB_EINVAL)
            fail_msg("attested %s: net %s (%s)", out[1], lcsb_attestation_value(&a, "net"),
                     lcsb_attestation_value(&a, "net_covers"));
        assert_contains(err.message, "malformed");
        lcsb_argv_free(out);
    }
}

static void test_attest_from_argv(void **state) {
    (void)state;
    lcsb_backend *b = landlock(7);
    lcsb_policy *p = small_policy(LCSB_NET_DENY);
    static const char *const cmd[] = {"true", NULL};
    char **out = wrap(b, p, cmd);
    expect_attestation(out, "landlock", "enforced", "allowlist", "denied", "all", 7, true);
    lcsb_attestation a = attest(out);
    char *json = lcsb_attestation_json(&a);
    assert_string_equal(json, "{\"backend\":\"landlock\",\"fs\":\"enforced\",\"exec\":"
                              "\"allowlist\",\"net\":\"denied\",\"net_covers\":\"all\","
                              "\"net_by\":\"landlock+seccomp\",\"metadata\":\"readonly\","
                              "\"protected\":\"none\",\"abi\":7,\"scoped\":true,"
                              "\"dropped\":[],\"world\":\"own\"}");
    free(json);
    char summary[256];
    lcsb_attestation_summary(&a, summary, sizeof summary);
    assert_string_equal(summary, "fs: enforced, exec: allowlist, net: denied, abi 7");

    attest_follows_the_header(out);
    lcsb_argv_free(out);
    attest_partial_headers(b, p, cmd);
    attest_socket_filter(b, p, cmd);
    attest_refuses_malformed(b, p, cmd);
    lcsb_policy_free(p);
    lcsb_backend_free(b);
}

static void test_attest_without_shim(void **state) {
    (void)state;
    char *plain[] = {"true", NULL};
    expect_attestation(plain, "none", "open", "open", "open", "", 0, false);
    char *env[] = {"/usr/bin/env", "--", "A=1", "make", NULL};
    expect_attestation(env, "none", "open", "open", "open", "", 0, false);
    lcsb_attestation a = attest(plain);
    char *json = lcsb_attestation_json(&a);
    assert_string_equal(json, "{\"backend\":\"none\",\"fs\":\"open\",\"exec\":\"open\","
                              "\"net\":\"open\"}");
    free(json);
    char summary[256];
    lcsb_attestation_summary(&a, summary, sizeof summary);
    assert_contains(summary, "nothing was enforced");
    /* The header without the shim in front, or the shim without a header. */
    char header[] = "{\"lcsb-exec\":5,\"abi\":7,\"parts\":0,\"fs\":[\"execute\"],"
                    "\"net\":[\"bind_tcp\",\"connect_tcp\"],\"ports\":[],\"scope\":[],"
                    "\"sockets\":\"any\",\"dropped\":[],\"world\":\"open\",\"protect\":[],\"hide\":"
                    "[],\"limits\":{},\"proxy\":0}";
    char *no_shim[] = {"/usr/bin/lcsb-exec-not", header, "--", "true", NULL};
    expect_attestation(no_shim, "none", "open", "open", "open", "", 0, false);
    char *no_header[] = {"/usr/libexec/lcsb/lcsb-exec", "--", "true", NULL};
    expect_attestation(no_header, "none", "open", "open", "open", "", 0, false);
    char *shim_last[] = {"/usr/libexec/lcsb/lcsb-exec", NULL};
    expect_attestation(shim_last, "none", "open", "open", "open", "", 0, false);
    /* The shim by any directory (or none): the name is what counts. This
     * hand-made header asks for no socket filter: TCP only. */
    char *bare[] = {"lcsb-exec", header, "--", "true", NULL};
    expect_attestation(bare, "landlock", "enforced", "allowlist", "open", "tcp", 7, false);
    assert_int_equal(lcsb_attest(NULL, NULL, &a, NULL), 0);
    assert_string_equal(lcsb_attestation_value(&a, "backend"), "none");
    char *empty[] = {NULL};
    expect_attestation(empty, "none", "open", "open", "open", "", 0, false);
}

/* Through a host launcher, even one that ends with its own "--". */
static void test_attest_through_prefix(void **state) {
    (void)state;
    lcsb_backend *b = landlock(6);
    lcsb_policy *p = small_policy(LCSB_NET_OPEN);
    static const char *const cmd[] = {"true", NULL};
    static const char *const prefix[] = {"nix", "develop", "-c", "uv", "run", "--", NULL};
    char **out = NULL;
    lcsb_error err = {0};
    assert_int_equal(lcsb_compose(b, p, prefix, cmd, &out, &err), 0);
    assert_string_equal(out[6], SHIM);
    lcsb_attestation a;
    assert_int_equal(lcsb_attest((const char *const *)out, prefix, &a, &err), 0);
    assert_string_equal(lcsb_attestation_value(&a, "backend"), "landlock");
    assert_int_equal(a.abi, 6);
    /* Read without the prefix, the launcher is taken for the command. */
    expect_attestation(out, "none", "open", "open", "open", "", 0, false);
    /* An argv that does not start with the prefix is an error, not a guess. */
    static const char *const other[] = {"uv", "run", "--", NULL};
    assert_int_equal(lcsb_attest((const char *const *)out, other, &a, &err), LCSB_EINVAL);
    lcsb_argv_free(out);

    /* Under none, a command whose own arguments look like the shim and its
     * header is still attested as nothing enforced. */
    lcsb_backend *none = NULL;
    assert_int_equal(lcsb_backend_none(&none, &err), 0);
    static const char *const mimic[] = {
        "sh",
        "-c",
        "x",
        "lcsb-exec",
        "{\"lcsb-exec\":5,\"abi\":7,\"parts\":0,\"fs\":[\"execute\"],\"net\":[],"
        "\"ports\":[],\"scope\":[],\"sockets\":\"unix\"}",
        "--",
        "true",
        NULL};
    assert_int_equal(lcsb_compose(none, p, prefix, mimic, &out, &err), 0);
    assert_int_equal(lcsb_attest((const char *const *)out, prefix, &a, &err), 0);
    assert_string_equal(lcsb_attestation_value(&a, "backend"), "none");
    lcsb_argv_free(out);
    lcsb_backend_free(none);
    lcsb_policy_free(p);
    lcsb_backend_free(b);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_attest_from_argv),
        cmocka_unit_test(test_attest_without_shim),
        cmocka_unit_test(test_attest_through_prefix),
    };
    return cmocka_run_group_tests_name("sandbox_wrap_attest", tests, NULL, NULL);
}
