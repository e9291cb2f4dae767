/* The backends' wrap and the seam (env_argv, compose) as pure functions of
 * their inputs: golden headers and parts per docs/wire-format.md, what each
 * ABI adds, the env overlay, and where a launcher prefix goes. */
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

#include "internal.h"
#include "wrap_fixture.h"

/* ---- golden wire format ---- */

#define FS_V1                                                                                      \
    "\"execute\",\"write_file\",\"read_file\",\"read_dir\",\"remove_dir\",\"remove_file\","        \
    "\"make_char\",\"make_dir\",\"make_reg\",\"make_sock\",\"make_fifo\",\"make_block\","          \
    "\"make_sym\""
/* The write tier: everything but execute, make_char and make_block (no device
 * nodes, not even in a writable tree). */
#define WRITE_V1                                                                                   \
    "\"write_file\",\"read_file\",\"read_dir\",\"remove_dir\",\"remove_file\","                    \
    "\"make_dir\",\"make_reg\",\"make_sock\",\"make_fifo\",\"make_sym\""

static const char header_abi7[] =
    "{\"lcsb-exec\":5,\"abi\":7,\"parts\":1,\"fs\":[" FS_V1 ",\"refer\",\"truncate\","
    "\"ioctl_dev\"],\"net\":[\"bind_tcp\",\"connect_tcp\"],\"ports\":[],"
    "\"scope\":[\"abstract_unix_socket\",\"signal\"],\"sockets\":\"unix\",\"dropped\":[],"
    "\"world\":\"policy\",\"protect\":[],\"hide\":[],\"limits\":{},\"proxy\":0}";
static const char part_abi7[] =
    "{\"part\":1,\"rules\":["
    "{\"access\":[\"read_file\",\"read_dir\"],\"paths\":[\"/etc\",\"/usr\"]},"
    "{\"access\":[\"execute\",\"read_file\",\"read_dir\"],\"paths\":[\"/usr/bin/true\"]},"
    "{\"access\":[" WRITE_V1 ",\"refer\",\"truncate\",\"ioctl_dev\"],\"paths\":[\"/srv/w\"]}]}";

static const char header_abi3[] =
    "{\"lcsb-exec\":5,\"abi\":3,\"parts\":1,\"fs\":[" FS_V1 ",\"refer\",\"truncate\"],"
    "\"net\":[],\"ports\":[],\"scope\":[],\"sockets\":\"unix\",\"dropped\":[\"scope\",\"ioctl\"],"
    "\"world\":\"policy\",\"protect\":[],\"hide\":[],\"limits\":{},\"proxy\":0}";
static const char part_abi3[] =
    "{\"part\":1,\"rules\":["
    "{\"access\":[\"read_file\",\"read_dir\"],\"paths\":[\"/etc\",\"/usr\"]},"
    "{\"access\":[\"execute\",\"read_file\",\"read_dir\"],\"paths\":[\"/usr/bin/true\"]},"
    "{\"access\":[" WRITE_V1 ",\"refer\",\"truncate\"],\"paths\":[\"/srv/w\"]}]}";

static const char header_abi1[] =
    "{\"lcsb-exec\":5,\"abi\":1,\"parts\":1,\"fs\":[" FS_V1 "],"
    "\"net\":[],\"ports\":[],\"scope\":[],\"sockets\":\"any\","
    "\"dropped\":[\"scope\",\"truncate\",\"ioctl\"],\"world\":\"policy\",\"protect\":[],\"hide\":[]"
    ",\"limits\":{},\"proxy\":0}";
static const char part_abi1[] =
    "{\"part\":1,\"rules\":["
    "{\"access\":[\"read_file\",\"read_dir\"],\"paths\":[\"/etc\",\"/usr\"]},"
    "{\"access\":[\"execute\",\"read_file\",\"read_dir\"],\"paths\":[\"/usr/bin/true\"]},"
    "{\"access\":[" WRITE_V1 "],\"paths\":[\"/srv/w\"]}]}";

/* ABI 9: connecting to a unix socket is held too, granted where reading is. */
static const char header_abi9[] =
    "{\"lcsb-exec\":5,\"abi\":9,\"parts\":1,\"fs\":[" FS_V1 ",\"refer\",\"truncate\","
    "\"ioctl_dev\",\"resolve_unix\"],\"net\":[\"bind_tcp\",\"connect_tcp\"],\"ports\":[],"
    "\"scope\":[\"abstract_unix_socket\",\"signal\"],\"sockets\":\"unix\",\"dropped\":[],"
    "\"world\":\"policy\",\"protect\":[],\"hide\":[],\"limits\":{},\"proxy\":0}";
static const char part_abi9[] =
    "{\"part\":1,\"rules\":["
    "{\"access\":[\"read_file\",\"read_dir\",\"resolve_unix\"],\"paths\":[\"/etc\",\"/usr\"]},"
    "{\"access\":[\"execute\",\"read_file\",\"read_dir\",\"resolve_unix\"],"
    "\"paths\":[\"/usr/bin/true\"]},"
    "{\"access\":[" WRITE_V1 ",\"refer\",\"truncate\",\"ioctl_dev\",\"resolve_unix\"],"
    "\"paths\":[\"/srv/w\"]}]}";

static void check_golden(int abi, lcsb_net net, const char *header, const char *part) {
    lcsb_backend *b = landlock(abi);
    lcsb_policy *p = small_policy(net);
    static const char *const cmd[] = {"/usr/bin/printf", "%s\\n", "--", "a b", "", NULL};
    char **out = wrap(b, p, cmd);
    const char *const want[] = {SHIM,    header, part,  "--", "/usr/bin/printf",
                                "%s\\n", "--",   "a b", "",   NULL};
    assert_argv_equal(out, want);
    lcsb_argv_free(out);
    lcsb_policy_free(p);
    lcsb_backend_free(b);
}

static void test_golden_abi7(void **state) {
    (void)state;
    check_golden(7, LCSB_NET_DENY, header_abi7, part_abi7);
}

static void test_golden_abi9(void **state) {
    (void)state;
    check_golden(9, LCSB_NET_DENY, header_abi9, part_abi9);
}

static void test_golden_abi3(void **state) {
    (void)state;
    /* A denied network needs no TCP rules: the socket filter refuses TCP too. */
    check_golden(3, LCSB_NET_DENY, header_abi3, part_abi3);
}

static void test_golden_abi1(void **state) {
    (void)state;
    check_golden(1, LCSB_NET_OPEN, header_abi1, part_abi1);
}

/* What each ABI adds, on the smallest policy: no paths at all is no part. */
static void test_header_per_abi(void **state) {
    (void)state;
    static const char *const cmd[] = {"true", NULL};
    for (int abi = 1; abi <= 9; abi++) {
        lcsb_backend *b = landlock(abi);
        lcsb_policy *p = lcsb_policy_new();
        lcsb_policy_set_degradable(p, LCSB_PARTS_ALL);
        char **out = wrap(b, p, cmd);
        assert_int_equal(argc_of(out), 4);
        assert_string_equal(out[0], SHIM);
        assert_string_equal(out[2], "--");
        assert_string_equal(out[3], "true");
        char h[1024];
        snprintf(h, sizeof h, "%.*s", (int)strcspn(out[1], "]"), out[1]); /* up to fs's end */
        char want[64];
        snprintf(want, sizeof want, "{\"lcsb-exec\":5,\"abi\":%d,\"parts\":0,\"fs\":[", abi);
        assert_int_equal(strncmp(h, want, strlen(want)), 0);
        assert_true((strstr(h, "\"refer\"") != NULL) == (abi >= 2));
        assert_true((strstr(h, "\"truncate\"") != NULL) == (abi >= 3));
        assert_true((strstr(h, "\"ioctl_dev\"") != NULL) == (abi >= 5));
        assert_true((strstr(h, "\"resolve_unix\"") != NULL) == (abi >= 9));
        h[0] = '\0';
        snprintf(h, sizeof h, "%s", out[1]);
        assert_true((strstr(h, "\"net\":[\"bind_tcp\",\"connect_tcp\"]") != NULL) == (abi >= 4));
        assert_true((strstr(h, "\"scope\":[\"abstract_unix_socket\",\"signal\"],") != NULL) ==
                    (abi >= 6));
        /* The network is denied on every ABI by the socket filter; what the
         * ABI lacks is dropped, and said so. */
        assert_contains(h, ",\"sockets\":\"unix\",");
        const char *dropped = abi >= 6   ? "[]"
                              : abi >= 5 ? "[\"scope\"]"
                              : abi >= 3 ? "[\"scope\",\"ioctl\"]"
                                         : "[\"scope\",\"truncate\",\"ioctl\"]";
        char want_end[160];
        snprintf(want_end, sizeof want_end,
                 ",\"dropped\":%s,\"world\":\"policy\",\"protect\":[],\"hide\":[],\"limits\":{},\"proxy\":0}", dropped);
        assert_true(strlen(h) > strlen(want_end));
        assert_string_equal(h + strlen(h) - strlen(want_end), want_end);
        lcsb_attestation a = attest(out);
        assert_string_equal(lcsb_attestation_value(&a, "net"), "denied");
        assert_string_equal(lcsb_attestation_value(&a, "net_covers"), "all");
        lcsb_argv_free(out);
        lcsb_policy_free(p);
        lcsb_backend_free(b);
    }
}

static void test_wrap_refusals(void **state) {
    (void)state;
    lcsb_error err = {0};
    char **out = NULL;
    static const char *const cmd[] = {"true", NULL};
    static const char *const empty[] = {NULL};
    lcsb_policy *p = small_policy(LCSB_NET_DENY);
    /* Ports cannot be held before ABI 4: refused, not left open, unless the
     * policy lets the network degrade (then TCP is open, and attested so). */
    add_port(p, LCSB_PORT_CONNECT, 443);
    for (int abi = 1; abi <= 3; abi++) {
        lcsb_backend *b = landlock(abi);
        lcsb_policy_set_degradable(p, LCSB_PARTS_ALL & ~LCSB_PART_NET);
        assert_int_equal(lcsb_backend_wrap(b, p, cmd, &out, &err), LCSB_EUNAVAIL);
        assert_contains(err.message, "ABI 4");
        assert_contains(err.message, "degrade = { \"net\" }");
        assert_null(out);
        lcsb_policy_set_degradable(p, LCSB_PARTS_ALL);
        out = wrap(b, p, cmd);
        assert_contains(out[1], "\"net\":[],\"ports\":[],");
        assert_contains(out[1], "\"sockets\":\"unix+tcp\"");
        lcsb_attestation a = attest(out);
        assert_string_equal(lcsb_attestation_value(&a, "net"), "open");
        assert_true(a.dropped & LCSB_PART_NET);
        lcsb_argv_free(out);
        out = NULL;
        lcsb_backend_free(b);
    }
    /* No command. */
    lcsb_backend *b = landlock(7);
    assert_int_equal(lcsb_backend_wrap(b, p, empty, &out, &err), LCSB_EINVAL);
    assert_int_equal(lcsb_backend_wrap(b, p, NULL, &out, &err), LCSB_EINVAL);
    assert_int_equal(lcsb_compose(b, p, NULL, empty, &out, &err), LCSB_EINVAL);
    assert_null(out);
    lcsb_backend_free(b);
    lcsb_policy_free(p);
}

/* Protected paths ride in the header, sorted, once each; a host that cannot
 * make the world read-only drops "metadata" and with it the protection, and
 * the attestation says which. */
static void test_world_and_protect(void **state) {
    (void)state;
    static const char *const cmd[] = {"true", NULL};
    lcsb_policy *p = small_policy(LCSB_NET_DENY);
    add(p, LCSB_TIER_PROTECT, "/srv/w/.git/hooks");
    add(p, LCSB_TIER_PROTECT, "/srv/w/.git/config");
    add(p, LCSB_TIER_PROTECT, "/srv/w/.git/hooks/");
    lcsb_backend *b = landlock(7);
    char **out = wrap(b, p, cmd);
    assert_contains(out[1], ",\"world\":\"policy\",\"protect\":[\"/srv/w/.git/config\","
                            "\"/srv/w/.git/hooks\"],\"hide\":[],\"limits\":{},\"proxy\":0}");
    lcsb_attestation a = attest(out);
    assert_string_equal(lcsb_attestation_value(&a, "world"), "own");
    assert_string_equal(lcsb_attestation_value(&a, "metadata"), "readonly");
    assert_string_equal(lcsb_attestation_value(&a, "protected"), "readonly");
    lcsb_argv_free(out);
    lcsb_backend_free(b);

    lcsb_capability cap = host_without_userns();
    lcsb_error err = {0};
    { /* a host that can enter no mount namespace */
        assert_int_equal(lcsb_backend_select(&cap, "auto", &b, &err), 0);
        lcsb_policy_set_degradable(p, 0);
        assert_int_equal(lcsb_backend_wrap(b, p, cmd, &out, &err), LCSB_EUNAVAIL);
        assert_contains(err.message, "degrade = { \"metadata\", \"world\" }");
        lcsb_policy_set_degradable(p, LCSB_PARTS_ALL);
        out = wrap(b, p, cmd);
        assert_contains(out[1], "\"world\":\"open\",\"protect\":[],\"hide\":[],\"limits\":{},\"proxy\":0}");
        a = attest(out);
        assert_string_equal(lcsb_attestation_value(&a, "metadata"), "open");
        assert_string_equal(lcsb_attestation_value(&a, "protected"), "open");
        assert_true(a.dropped & LCSB_PART_METADATA);
        assert_true(a.dropped & LCSB_PART_WORLD);
        assert_string_equal(lcsb_attestation_value(&a, "world"), "open");
        lcsb_argv_free(out);
        lcsb_backend_free(b);
    }
    lcsb_policy_free(p);
    /* Nothing to protect: "none". */
    p = small_policy(LCSB_NET_DENY);
    b = landlock(7);
    out = wrap(b, p, cmd);
    assert_int_equal(attest(out).protected_paths, LCSB_HELD_NONE);
    replace(&out[1], "\"world\":\"policy\"", "\"world\":\"rw\"");
    assert_int_equal(lcsb_attest((const char *const *)out, NULL, &a, &err), LCSB_EINVAL);
    lcsb_argv_free(out);
    lcsb_backend_free(b);
    lcsb_policy_free(p);
}

/* Private directories ride at the header's end, in the policy's order, with
 * their links, where the shim makes them (a world of its own): the backend
 * says it makes them, so the run makes nothing on the host. In an open
 * world the key is left out and the run makes them; none never does. */
static void test_private_in_world(void **state) {
    (void)state;
    static const char *const cmd[] = {"true", NULL};
    static const char *const links[] = {".gitconfig", "/h/.gitconfig", ".cache/pip", "/c/p", NULL};
    lcsb_policy *p = small_policy(LCSB_NET_DENY);
    lcsb_error err = {0};
    assert_int_equal(lcsb__policy_add_private(p, "/tmp/lcsb-home.a", links, &err), 0);
    assert_int_equal(lcsb__policy_add_private(p, "/tmp/lcsb-tmp.b", NULL, &err), 0);
    lcsb_backend *b = landlock(7);
    char **out = wrap(b, p, cmd);
    assert_contains(out[1], "\"proxy\":0,\"private\":[{\"path\":\"/tmp/lcsb-home.a\",\"links\":"
                            "[[\".gitconfig\",\"/h/.gitconfig\"],[\".cache/pip\",\"/c/p\"]]},"
                            "{\"path\":\"/tmp/lcsb-tmp.b\",\"links\":[]}]}");
    assert_true(b->ops->makes_private(b, p));
    lcsb_argv_free(out);
    lcsb_backend_free(b);

    lcsb_capability cap = host_without_userns();
    assert_int_equal(lcsb_backend_select(&cap, "auto", &b, &err), 0);
    lcsb_policy_set_degradable(p, LCSB_PARTS_ALL);
    out = wrap(b, p, cmd);
    assert_lacks(out[1], "private");
    assert_false(b->ops->makes_private(b, p));
    lcsb_argv_free(out);
    lcsb_backend_free(b);
    assert_int_equal(lcsb_backend_select(&cap, "none", &b, &err), 0);
    assert_null(b->ops->makes_private);
    lcsb_backend_free(b);
    lcsb_policy_free(p);
}

/* Path bytes the JSON needs escaped are escaped; the rest pass as they are. */
static void test_wrap_escapes_paths(void **state) {
    (void)state;
    lcsb_backend *b = landlock(7);
    lcsb_policy *p = lcsb_policy_new();
    add(p, LCSB_TIER_READ,
        "/a\"b\\c\x01"
        "d\x7f"
        "e\xff/\xc3\xa9 \t");
    static const char *const cmd[] = {"true", NULL};
    char **out = wrap(b, p, cmd);
    assert_string_equal(out[2], "{\"part\":1,\"rules\":[{\"access\":[\"read_file\",\"read_dir\"],"
                                "\"paths\":[\"/a\\\"b\\\\c\\u0001d\\u007fe\xff/\xc3\xa9 "
                                "\\u0009\"]}]}");
    lcsb_argv_free(out);
    lcsb_policy_free(p);
    lcsb_backend_free(b);
}

static void test_exec_any_drops_execute(void **state) {
    (void)state;
    static const char *const cmd[] = {"true", NULL};
    for (int abi = 1; abi <= 7; abi++) {
        lcsb_backend *b = landlock(abi);
        lcsb_policy *p = small_policy(LCSB_NET_OPEN);
        char **out = wrap(b, p, cmd);
        assert_contains(out[1], "\"fs\":[\"execute\",");
        lcsb_argv_free(out);
        lcsb_policy_set_exec_open(p, true);
        add(p, LCSB_TIER_EXEC, "/usr"); /* no EXECUTE rule is written, so nothing to refuse */
        out = wrap(b, p, cmd);
        for (size_t i = 0; out[i]; i++)
            if (strstr(out[i], "execute"))
                fail_msg("abi %d: execute in argv[%zu]: %s", abi, i, out[i]);
        assert_contains(out[1], "\"fs\":[\"write_file\",\"read_file\",");
        /* The exec entries are still readable. */
        assert_contains(out[2], "{\"access\":[\"read_file\",\"read_dir\"],"
                                "\"paths\":[\"/usr\",\"/usr/bin/true\"]}");
        lcsb_attestation a = attest(out);
        assert_string_equal(lcsb_attestation_value(&a, "exec"), "open");
        assert_string_equal(lcsb_attestation_value(&a, "fs"), "enforced");
        lcsb_argv_free(out);
        lcsb_policy_free(p);
        lcsb_backend_free(b);
    }
}

static void test_ports_sorted_unique(void **state) {
    (void)state;
    lcsb_policy *p = small_policy(LCSB_NET_DENY);
    const long connect[] = {443, 80, 443, 8080, 80, 65535, 1, 443};
    for (size_t i = 0; i < sizeof connect / sizeof connect[0]; i++)
        add_port(p, LCSB_PORT_CONNECT, connect[i]);
    add_port(p, LCSB_PORT_BIND, 9000);
    add_port(p, LCSB_PORT_BIND, 22);
    add_port(p, LCSB_PORT_BIND, 9000);
    assert_int_equal(lcsb_policy_net(p), LCSB_NET_PORTS);
    static const char *const cmd[] = {"true", NULL};
    for (int abi = 4; abi <= 7; abi++) {
        lcsb_backend *b = landlock(abi);
        char **out = wrap(b, p, cmd);
        assert_contains(out[1], ",\"net\":[\"bind_tcp\",\"connect_tcp\"],\"ports\":["
                                "{\"access\":[\"bind_tcp\"],\"ports\":[22,9000]},"
                                "{\"access\":[\"connect_tcp\"],\"ports\":[1,80,443,8080,65535]}],");
        /* TCP sockets may be created (Landlock holds them to the ports), no others. */
        assert_contains(out[1], ",\"sockets\":\"unix+tcp\",");
        lcsb_attestation a = attest(out);
        assert_string_equal(lcsb_attestation_value(&a, "net"), "ports");
        assert_string_equal(lcsb_attestation_value(&a, "net_covers"), "all");
        lcsb_argv_free(out);
        lcsb_backend_free(b);
    }
    lcsb_policy_free(p);

    /* Connect only: one rule. Ports but an open network: no rules, nothing handled. */
    p = lcsb_policy_new();
    add_port(p, LCSB_PORT_CONNECT, 443);
    lcsb_backend *b = landlock(7);
    char **out = wrap(b, p, cmd);
    assert_contains(out[1], "\"ports\":[{\"access\":[\"connect_tcp\"],\"ports\":[443]}],");
    lcsb_argv_free(out);
    lcsb_policy_set_net(p, LCSB_NET_OPEN);
    out = wrap(b, p, cmd);
    assert_contains(out[1], "\"net\":[],\"ports\":[],");
    assert_contains(out[1], ",\"sockets\":\"any\",");
    assert_int_equal(attest(out).net, LCSB_NET_OPEN);
    assert_int_equal(attest(out).net_covers, LCSB_NET_COVERS_NOTHING);
    lcsb_argv_free(out);
    /* PORTS without a port denies everything, and attests so. */
    lcsb_policy *q = lcsb_policy_new();
    lcsb_policy_set_net(q, LCSB_NET_PORTS);
    out = wrap(b, q, cmd);
    assert_contains(out[1], "\"net\":[\"bind_tcp\",\"connect_tcp\"],\"ports\":[],");
    assert_contains(out[1], ",\"sockets\":\"unix+tcp\",");
    assert_int_equal(attest(out).net, LCSB_NET_DENY);
    assert_int_equal(attest(out).net_covers, LCSB_NET_COVERS_ALL);
    lcsb_argv_free(out);
    lcsb_policy_free(q);
    lcsb_policy_free(p);
    lcsb_backend_free(b);
}

/* ---- the seam: env_argv and compose ---- */

static char **env_argv(const lcsb_policy *p, const char *const *argv) {
    char **out = NULL;
    lcsb_error err = {0};
    if (lcsb_env_argv(p, argv, &out, &err)) fail_msg("env_argv: %s", err.message);
    return out;
}

static void test_env_argv(void **state) {
    (void)state;
    static const char *const cmd[] = {"cmd", "a=b", "--", "-u", "", NULL};
    lcsb_policy *p = lcsb_policy_new();
    /* No overlay: the argv, copied, unchanged. */
    char **out = env_argv(p, cmd);
    assert_argv_equal(out, cmd);
    for (size_t i = 0; cmd[i]; i++) assert_ptr_not_equal(out[i], cmd[i]);
    lcsb_argv_free(out);
    /* A command with '=' is fine when no env hop stands in front of it. */
    static const char *const eq[] = {"./x=y", NULL};
    out = env_argv(p, eq);
    assert_argv_equal(out, eq);
    lcsb_argv_free(out);

    set_env(p, "CI", "1");
    set_env(p, "SECRET", NULL);
    set_env(p, "OPTS", "x=y z");
    set_env(p, "EMPTY", "");
    set_env(p, "GONE", NULL);
    set_env(p, "CI", "2"); /* last wins, first position kept */
    out = env_argv(p, cmd);
    static const char *const want[] = {"/usr/bin/env", "-u",   "SECRET",     "-u",     "GONE",
                                       "--",           "CI=2", "OPTS=x=y z", "EMPTY=", "cmd",
                                       "a=b",          "--",   "-u",         "",       NULL};
    assert_argv_equal(out, want);
    lcsb_argv_free(out);

    /* Only unsets: no assignment after "--". */
    lcsb_policy *u = lcsb_policy_new();
    set_env(u, "K", NULL);
    out = env_argv(u, cmd);
    static const char *const want_u[] = {"/usr/bin/env", "-u", "K",  "--", "cmd",
                                         "a=b",          "--", "-u", "",   NULL};
    assert_argv_equal(out, want_u);
    lcsb_argv_free(out);
    lcsb_policy_free(u);

    /* env would take a command named with '=' for an assignment: refused. */
    char **none_out = NULL;
    lcsb_error err = {0};
    assert_int_equal(lcsb_env_argv(p, eq, &none_out, &err), LCSB_EINVAL);
    assert_contains(err.message, "./x=y");
    assert_contains(err.message, "'='");
    assert_null(none_out);
    lcsb_backend *b = landlock(7);
    assert_int_equal(lcsb_compose(b, p, NULL, eq, &none_out, &err), LCSB_EINVAL);
    assert_null(none_out);
    /* No command at all. */
    static const char *const empty[] = {NULL};
    assert_int_equal(lcsb_env_argv(p, empty, &none_out, &err), LCSB_EINVAL);
    assert_int_equal(lcsb_env_argv(p, NULL, &none_out, &err), LCSB_EINVAL);
    lcsb_backend_free(b);
    lcsb_policy_free(p);
}

/* The value of NAME the env hop OUT sets last: the one the command gets. */
static const char *hop_value(char *const *out, const char *name) {
    const char *value = NULL;
    size_t len = strlen(name);
    for (size_t i = 0; out[i]; i++)
        if (strncmp(out[i], name, len) == 0 && out[i][len] == '=') value = out[i] + len + 1;
    return value;
}

/* Java reads its proxy and its truststore from JAVA_TOOL_OPTIONS: the
 * policy's own options first, lcsb's after them (a later -D wins), the
 * truststore's path quoted as the JVM reads quotes. No proxy, no word. */
static void test_env_argv_java(void **state) {
    (void)state;
    static const char *const cmd[] = {"java", "Fetch", NULL};
    static const char proxy[] =
        "-Dhttp.proxyHost=127.0.0.1 -Dhttp.proxyPort=3128 -Dhttps.proxyHost=127.0.0.1 "
        "-Dhttps.proxyPort=3128 -Dhttp.nonProxyHosts=localhost|127.0.0.1|[::1]";
    lcsb_policy *p = small_policy(LCSB_NET_DOMAINS);
    char **out = env_argv(p, cmd);
    assert_string_equal(hop_value(out, "JAVA_TOOL_OPTIONS"), proxy);
    assert_null(hop_value(out, "SSL_CERT_FILE"));
    lcsb_argv_free(out);

    set_env(p, "JAVA_TOOL_OPTIONS", "-Xmx1g -Djavax.net.ssl.trustStore=/mine.p12");
    p->ca_bundle = strdup("/tmp/a b/certificates.pem");
    p->java_truststore = strdup("/tmp/a b\"'c/truststore.jks");
    out = env_argv(p, cmd);
    char want[1024];
    snprintf(want, sizeof want,
             "-Xmx1g -Djavax.net.ssl.trustStore=/mine.p12 %s "
             "-Djavax.net.ssl.trustStore=/tmp/a\" \"b'\"'\"'\"c/truststore.jks "
             "-Djavax.net.ssl.trustStoreType=JKS -Djavax.net.ssl.trustStorePassword=changeit",
             proxy);
    assert_string_equal(hop_value(out, "JAVA_TOOL_OPTIONS"), want);
    assert_string_equal(hop_value(out, "SSL_CERT_FILE"), "/tmp/a b/certificates.pem");
    lcsb_argv_free(out);
    lcsb_policy_free(p);

    /* Without lcsb's proxy, the policy's value alone. */
    p = small_policy(LCSB_NET_DENY);
    set_env(p, "JAVA_TOOL_OPTIONS", "-Xmx1g");
    out = env_argv(p, cmd);
    assert_string_equal(hop_value(out, "JAVA_TOOL_OPTIONS"), "-Xmx1g");
    lcsb_argv_free(out);
    lcsb_policy_free(p);
}

static void test_compose_prefix(void **state) {
    (void)state;
    static const char *const cmd[] = {"pytest", "-q", NULL};
    static const char *const prefix[] = {"uv", "run", "--", NULL};
    static const char *const empty_prefix[] = {NULL};
    lcsb_policy *p = small_policy(LCSB_NET_DENY);
    set_env(p, "CI", "1");
    lcsb_error err = {0};
    char **out = NULL;

    /* Landlock is a host mechanism: the launcher runs outside, in front of the shim. */
    lcsb_backend *b = landlock(7);
    assert_false(lcsb_backend_contains_prefix(b));
    assert_int_equal(lcsb_compose(b, p, prefix, cmd, &out, &err), 0);
    const char *const want_ll[] = {"uv", "run",          "--", SHIM,   header_abi7, part_abi7,
                                   "--", "/usr/bin/env", "--", "CI=1", "pytest",    "-q",
                                   NULL};
    assert_argv_equal(out, want_ll);
    lcsb_attestation a;
    assert_int_equal(lcsb_attest((const char *const *)out, prefix, &a, &err), 0);
    assert_string_equal(lcsb_attestation_value(&a, "backend"), "landlock");
    assert_string_equal(lcsb_attestation_value(&a, "net"), "denied");
    lcsb_argv_free(out);
    /* Without a prefix, or with an empty one: the shim comes first. */
    assert_int_equal(lcsb_compose(b, p, NULL, cmd, &out, &err), 0);
    assert_argv_equal(out, want_ll + 3);
    lcsb_argv_free(out);
    assert_int_equal(lcsb_compose(b, p, empty_prefix, cmd, &out, &err), 0);
    assert_argv_equal(out, want_ll + 3);
    lcsb_argv_free(out);
    lcsb_backend_free(b);

    /* none: the same seam, nothing wrapped. */
    b = none();
    assert_int_equal(lcsb_compose(b, p, prefix, cmd, &out, &err), 0);
    static const char *const want_none[] = {"uv",     "run", "--", "/usr/bin/env", "--", "CI=1",
                                            "pytest", "-q",  NULL};
    assert_argv_equal(out, want_none);
    a = attest(out);
    assert_string_equal(lcsb_attestation_value(&a, "backend"), "none");
    lcsb_argv_free(out);
    assert_int_equal(lcsb_compose(b, p, NULL, cmd, &out, &err), 0);
    assert_argv_equal(out, want_none + 3);
    lcsb_argv_free(out);
    /* none wraps to the very same argv. */
    out = wrap(b, p, cmd);
    assert_argv_equal(out, cmd);
    lcsb_argv_free(out);
    lcsb_backend_free(b);
    lcsb_policy_free(p);
}

/* Under a host mechanism what the policy passes never reaches the argv:
 * the command gets it through the environment it is spawned with. The same
 * policy without pass entries composes to the same bytes. */
static void test_compose_host_carries_no_env(void **state) {
    (void)state;
    static const char *const cmd[] = {"env", NULL};
    setenv("GITHUB_TOKEN", "gh-golden-value", 1);
    setenv("CI", "ci-golden-value", 1);
    lcsb_policy *p = small_policy(LCSB_NET_DENY), *passing = small_policy(LCSB_NET_DENY);
    set_env(p, "HOME", "/tmp/lcsb-home.x");
    set_env(passing, "HOME", "/tmp/lcsb-home.x");
    assert_int_equal(lcsb_policy_pass_env(passing, "GITHUB_TOKEN", NULL), 0);
    assert_int_equal(lcsb_policy_pass_env(passing, "*", NULL), 0);
    lcsb_backend *backends[] = {landlock(7), none()};
    for (size_t i = 0; i < 2; i++) {
        char **want = NULL, **got = NULL;
        lcsb_error err = {0};
        assert_int_equal(lcsb_compose(backends[i], p, NULL, cmd, &want, &err), 0);
        assert_int_equal(lcsb_compose(backends[i], passing, NULL, cmd, &got, &err), 0);
        assert_argv_equal(got, (const char *const *)want);
        for (size_t k = 0; got[k]; k++) {
            assert_lacks(got[k], "GITHUB_TOKEN");
            assert_lacks(got[k], "golden-value");
        }
        lcsb_argv_free(want);
        lcsb_argv_free(got);
        lcsb_backend_free(backends[i]);
    }
    unsetenv("GITHUB_TOKEN");
    unsetenv("CI");
    lcsb_policy_free(p);
    lcsb_policy_free(passing);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        /* the golden wire format */
        cmocka_unit_test(test_golden_abi7),
        cmocka_unit_test(test_golden_abi9),
        cmocka_unit_test(test_golden_abi3),
        cmocka_unit_test(test_golden_abi1),
        cmocka_unit_test(test_header_per_abi),
        cmocka_unit_test(test_wrap_refusals),
        cmocka_unit_test(test_world_and_protect),
        cmocka_unit_test(test_private_in_world),
        cmocka_unit_test(test_wrap_escapes_paths),
        cmocka_unit_test(test_exec_any_drops_execute),
        cmocka_unit_test(test_ports_sorted_unique),
        /* the seam: env_argv and compose */
        cmocka_unit_test(test_env_argv),
        cmocka_unit_test(test_env_argv_java),
        cmocka_unit_test(test_compose_prefix),
        cmocka_unit_test(test_compose_host_carries_no_env),
    };
    return cmocka_run_group_tests_name("sandbox_wrap_golden", tests, NULL, NULL);
}
