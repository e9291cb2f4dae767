/* The backends' wrap, the seam (env_argv, compose) and the attestation, as
 * pure functions of their inputs: golden headers and parts per
 * docs/wire-format.md, splitting a large policy into parts, the env overlay,
 * where a launcher prefix goes, attestations read back from the argv, and
 * test_wrap_is_pure (rule 1), which runs wrap under a seccomp filter that kills
 * any syscall but memory management and exit. */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#ifdef __linux__
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#endif

#include "internal.h"

#ifndef LCSB_SHIM_PATH
#error "build with -DLCSB_SHIM_PATH='\"/path/to/lcsb-exec\"'"
#endif

/* The purity tests need a native seccomp architecture; under a sanitizer
 * (CMakeLists.txt defines LCSB_SANITIZED) the runtime makes syscalls of its
 * own, so they skip there and the release build runs them. */
#if defined(LCSB_SANITIZED)
#elif defined(__linux__) && defined(__x86_64__)
#define NATIVE_ARCH AUDIT_ARCH_X86_64
#elif defined(__linux__) && defined(__aarch64__)
#define NATIVE_ARCH AUDIT_ARCH_AARCH64
#endif

#define SHIM "/opt/lcsb/libexec/lcsb-exec" /* wrap never looks at it */
#define ARG_STRLEN_MAX (128 * 1024)        /* the kernel's MAX_ARG_STRLEN, NUL included */

/* ---- helpers ---- */

#define assert_contains(haystack, needle)                                                   \
    do {                                                                                    \
        const char *h_ = (haystack), *n_ = (needle);                                        \
        if (!strstr(h_, n_)) fail_msg("expected \"%s\" in \"%s\"", n_, h_);                 \
    } while (0)

static size_t argc_of(char **argv) {
    size_t n = 0;
    while (argv[n]) n++;
    return n;
}

static void assert_argv_equal(char **got, const char *const *want) {
    size_t i = 0;
    for (; want[i]; i++) {
        if (!got[i]) fail_msg("argv too short: missing [%zu] \"%s\"", i, want[i]);
        if (strcmp(got[i], want[i]) != 0)
            fail_msg("argv[%zu]: got \"%s\", want \"%s\"", i, got[i], want[i]);
    }
    if (got[i]) fail_msg("argv too long: extra [%zu] \"%s\"", i, got[i]);
}

static lcsb_backend *landlock(int abi) {
    lcsb_backend *b = NULL;
    lcsb_error err = {0};
    if (lcsb_backend_landlock(abi, SHIM, &b, &err)) fail_msg("landlock: %s", err.message);
    return b;
}

static lcsb_backend *none(void) {
    lcsb_backend *b = NULL;
    lcsb_error err = {0};
    if (lcsb_backend_none(&b, &err)) fail_msg("none: %s", err.message);
    return b;
}

static void add(lcsb_policy *p, const char *tier, const char *path) {
    lcsb_error err = {0};
    int rc = strcmp(tier, "read") == 0    ? lcsb_policy_add_read(p, path, &err)
             : strcmp(tier, "write") == 0 ? lcsb_policy_add_write(p, path, &err)
             : strcmp(tier, "protect") == 0 ? lcsb_policy_add_protect(p, path, &err)
                                          : lcsb_policy_add_exec(p, path, &err);
    if (rc) fail_msg("%s %s: %s", tier, path, err.message);
}

static void set_env(lcsb_policy *p, const char *name, const char *value) {
    lcsb_error err = {0};
    if (lcsb_policy_set_env(p, name, value, &err)) fail_msg("env %s: %s", name, err.message);
}

static void add_port(lcsb_policy *p, lcsb_port_kind kind, long port) {
    lcsb_error err = {0};
    if (lcsb_policy_add_port(p, kind, port, &err)) fail_msg("port %ld: %s", port, err.message);
}

/* read /usr, /etc (given out of order and once twice); exec /usr/bin/true; write /srv/w.
 * Every part may degrade, so that older ABIs wrap too; what each drops is
 * checked below. */
static lcsb_policy *small_policy(lcsb_net net) {
    lcsb_policy *p = lcsb_policy_new();
    assert_non_null(p);
    add(p, "read", "/usr");
    add(p, "read", "/etc/");
    add(p, "read", "//usr");
    add(p, "exec", "/usr/bin/true");
    add(p, "write", "/srv/w");
    lcsb_policy_set_net(p, net);
    lcsb_policy_set_degradable(p, LCSB_PARTS_ALL);
    return p;
}

static char **wrap(const lcsb_backend *b, const lcsb_policy *p, const char *const *argv) {
    char **out = NULL;
    lcsb_error err = {0};
    int rc = lcsb_backend_wrap(b, p, argv, &out, &err);
    if (rc) fail_msg("wrap: %d %s", rc, err.message);
    return out;
}

static lcsb_attestation attest(char **argv) {
    lcsb_attestation a;
    lcsb_error err = {0};
    int rc = lcsb_attest((const char *const *)argv, NULL, &a, &err);
    if (rc) fail_msg("attest: %d %s", rc, err.message);
    return a;
}

/* Replace the first FROM in *S by TO (reallocating); FROM must be there. */
static void replace(char **s, const char *from, const char *to) {
    char *at = strstr(*s, from);
    if (!at) fail_msg("\"%s\" not in \"%s\"", from, *s);
    size_t pre = (size_t)(at - *s), flen = strlen(from), tlen = strlen(to);
    size_t rest = strlen(at + flen);
    char *n = malloc(pre + tlen + rest + 1);
    assert_non_null(n);
    memcpy(n, *s, pre);
    memcpy(n + pre, to, tlen);
    memcpy(n + pre + tlen, at + flen, rest + 1);
    free(*s);
    *s = n;
}

/* ---- golden wire format ---- */

#define FS_V1                                                                               \
    "\"execute\",\"write_file\",\"read_file\",\"read_dir\",\"remove_dir\",\"remove_file\","  \
    "\"make_char\",\"make_dir\",\"make_reg\",\"make_sock\",\"make_fifo\",\"make_block\","    \
    "\"make_sym\""
/* The write tier: everything but execute, make_char and make_block (no device
 * nodes, not even in a writable tree). */
#define WRITE_V1                                                                            \
    "\"write_file\",\"read_file\",\"read_dir\",\"remove_dir\",\"remove_file\","              \
    "\"make_dir\",\"make_reg\",\"make_sock\",\"make_fifo\",\"make_sym\""

static const char header_abi7[] =
    "{\"lcsb-exec\":2,\"abi\":7,\"parts\":1,\"fs\":[" FS_V1 ",\"refer\",\"truncate\","
    "\"ioctl_dev\"],\"net\":[\"bind_tcp\",\"connect_tcp\"],\"ports\":[],"
    "\"scope\":[\"abstract_unix_socket\",\"signal\"],\"sockets\":\"unix\",\"dropped\":[],\"world\":\"readonly\",\"protect\":[]}";
static const char part_abi7[] =
    "{\"part\":1,\"rules\":["
    "{\"access\":[\"read_file\",\"read_dir\"],\"paths\":[\"/etc\",\"/usr\"]},"
    "{\"access\":[\"execute\",\"read_file\",\"read_dir\"],\"paths\":[\"/usr/bin/true\"]},"
    "{\"access\":[" WRITE_V1 ",\"refer\",\"truncate\",\"ioctl_dev\"],\"paths\":[\"/srv/w\"]}]}";

static const char header_abi3[] =
    "{\"lcsb-exec\":2,\"abi\":3,\"parts\":1,\"fs\":[" FS_V1 ",\"refer\",\"truncate\"],"
    "\"net\":[],\"ports\":[],\"scope\":[],\"sockets\":\"unix\",\"dropped\":[\"scope\",\"ioctl\"],\"world\":\"readonly\",\"protect\":[]}";
static const char part_abi3[] =
    "{\"part\":1,\"rules\":["
    "{\"access\":[\"read_file\",\"read_dir\"],\"paths\":[\"/etc\",\"/usr\"]},"
    "{\"access\":[\"execute\",\"read_file\",\"read_dir\"],\"paths\":[\"/usr/bin/true\"]},"
    "{\"access\":[" WRITE_V1 ",\"refer\",\"truncate\"],\"paths\":[\"/srv/w\"]}]}";

static const char header_abi1[] =
    "{\"lcsb-exec\":2,\"abi\":1,\"parts\":1,\"fs\":[" FS_V1 "],"
    "\"net\":[],\"ports\":[],\"scope\":[],\"sockets\":\"any\","
    "\"dropped\":[\"scope\",\"truncate\",\"ioctl\"],\"world\":\"readonly\",\"protect\":[]}";
static const char part_abi1[] =
    "{\"part\":1,\"rules\":["
    "{\"access\":[\"read_file\",\"read_dir\"],\"paths\":[\"/etc\",\"/usr\"]},"
    "{\"access\":[\"execute\",\"read_file\",\"read_dir\"],\"paths\":[\"/usr/bin/true\"]},"
    "{\"access\":[" WRITE_V1 "],\"paths\":[\"/srv/w\"]}]}";

static void check_golden(int abi, lcsb_net net, const char *header, const char *part) {
    lcsb_backend *b = landlock(abi);
    lcsb_policy *p = small_policy(net);
    static const char *const cmd[] = {"/usr/bin/printf", "%s\\n", "--", "a b", "", NULL};
    char **out = wrap(b, p, cmd);
    const char *const want[] = {SHIM, header, part, "--", "/usr/bin/printf", "%s\\n", "--",
                                "a b", "", NULL};
    assert_argv_equal(out, want);
    lcsb_argv_free(out);
    lcsb_policy_free(p);
    lcsb_backend_free(b);
}

static void test_golden_abi7(void **state) {
    (void)state;
    check_golden(7, LCSB_NET_DENY, header_abi7, part_abi7);
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
    for (int abi = 1; abi <= 7; abi++) {
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
        snprintf(want, sizeof want, "{\"lcsb-exec\":2,\"abi\":%d,\"parts\":0,\"fs\":[", abi);
        assert_int_equal(strncmp(h, want, strlen(want)), 0);
        assert_true((strstr(h, "\"refer\"") != NULL) == (abi >= 2));
        assert_true((strstr(h, "\"truncate\"") != NULL) == (abi >= 3));
        assert_true((strstr(h, "\"ioctl_dev\"") != NULL) == (abi >= 5));
        h[0] = '\0';
        snprintf(h, sizeof h, "%s", out[1]);
        assert_true((strstr(h, "\"net\":[\"bind_tcp\",\"connect_tcp\"]") != NULL) == (abi >= 4));
        assert_true((strstr(h, "\"scope\":[\"abstract_unix_socket\",\"signal\"],") != NULL) ==
                    (abi >= 6));
        /* The network is denied on every ABI by the socket filter; what the
         * ABI lacks is dropped, and said so. */
        assert_contains(h, ",\"sockets\":\"unix\",");
        const char *dropped = abi >= 6 ? "[]"
                              : abi >= 5 ? "[\"scope\"]"
                              : abi >= 3 ? "[\"scope\",\"ioctl\"]"
                                         : "[\"scope\",\"truncate\",\"ioctl\"]";
        char want_end[160];
        snprintf(want_end, sizeof want_end, ",\"dropped\":%s,\"world\":\"readonly\",\"protect\":[]}",
                 dropped);
        assert_true(strlen(h) > strlen(want_end));
        assert_string_equal(h + strlen(h) - strlen(want_end), want_end);
        lcsb_attestation a = attest(out);
        assert_string_equal(a.net, "denied");
        assert_string_equal(a.net_covers, "all");
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
        assert_string_equal(a.net, "open");
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
    add(p, "protect", "/srv/w/.git/hooks");
    add(p, "protect", "/srv/w/.git/config");
    add(p, "protect", "/srv/w/.git/hooks/");
    lcsb_backend *b = landlock(7);
    char **out = wrap(b, p, cmd);
    assert_contains(out[1], ",\"world\":\"readonly\",\"protect\":[\"/srv/w/.git/config\","
                            "\"/srv/w/.git/hooks\"]}");
    lcsb_attestation a = attest(out);
    assert_string_equal(a.metadata, "readonly");
    assert_string_equal(a.protected_paths, "readonly");
    lcsb_argv_free(out);
    lcsb_backend_free(b);

    lcsb_capability cap;
    memset(&cap, 0, sizeof cap);
    cap.landlock_abi = 7;
    cap.seccomp = true;
    cap.shim_found = true;
    snprintf(cap.shim, sizeof cap.shim, "%s", SHIM);
    lcsb_error err = {0};
    { /* a host that can enter no mount namespace */
        assert_int_equal(lcsb_backend_select(&cap, "auto", &b, &err), 0);
        lcsb_policy_set_degradable(p, 0);
        assert_int_equal(lcsb_backend_wrap(b, p, cmd, &out, &err), LCSB_EUNAVAIL);
        assert_contains(err.message, "degrade = { \"metadata\" }");
        lcsb_policy_set_degradable(p, LCSB_PARTS_ALL);
        out = wrap(b, p, cmd);
        assert_contains(out[1], "\"world\":\"open\",\"protect\":[]}");
        a = attest(out);
        assert_string_equal(a.metadata, "open");
        assert_string_equal(a.protected_paths, "open");
        assert_true(a.dropped & LCSB_PART_METADATA);
        lcsb_argv_free(out);
        lcsb_backend_free(b);
    }
    lcsb_policy_free(p);
    /* Nothing to protect: "none". */
    p = small_policy(LCSB_NET_DENY);
    b = landlock(7);
    out = wrap(b, p, cmd);
    assert_string_equal(attest(out).protected_paths, "none");
    replace(&out[1], "\"world\":\"readonly\"", "\"world\":\"rw\"");
    assert_int_equal(lcsb_attest((const char *const *)out, NULL, &a, &err), LCSB_EINVAL);
    lcsb_argv_free(out);
    lcsb_backend_free(b);
    lcsb_policy_free(p);
}

/* Path bytes the JSON needs escaped are escaped; the rest pass as they are. */
static void test_wrap_escapes_paths(void **state) {
    (void)state;
    lcsb_backend *b = landlock(7);
    lcsb_policy *p = lcsb_policy_new();
    add(p, "read", "/a\"b\\c\x01" "d\x7f" "e\xff/\xc3\xa9 \t");
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
        add(p, "exec", "/usr"); /* no EXECUTE rule is written, so nothing to refuse */
        out = wrap(b, p, cmd);
        for (size_t i = 0; out[i]; i++)
            if (strstr(out[i], "execute")) fail_msg("abi %d: execute in argv[%zu]: %s", abi, i,
                                                   out[i]);
        assert_contains(out[1], "\"fs\":[\"write_file\",\"read_file\",");
        /* The exec entries are still readable. */
        assert_contains(out[2], "{\"access\":[\"read_file\",\"read_dir\"],"
                                "\"paths\":[\"/usr\",\"/usr/bin/true\"]}");
        lcsb_attestation a = attest(out);
        assert_string_equal(a.exec, "open");
        assert_string_equal(a.fs, "enforced");
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
        assert_contains(out[1],
                        ",\"net\":[\"bind_tcp\",\"connect_tcp\"],\"ports\":["
                        "{\"access\":[\"bind_tcp\"],\"ports\":[22,9000]},"
                        "{\"access\":[\"connect_tcp\"],\"ports\":[1,80,443,8080,65535]}],");
        /* TCP sockets may be created (Landlock holds them to the ports), no others. */
        assert_contains(out[1], ",\"sockets\":\"unix+tcp\",");
        lcsb_attestation a = attest(out);
        assert_string_equal(a.net, "ports");
        assert_string_equal(a.net_covers, "all");
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
    assert_string_equal(attest(out).net, "open");
    assert_string_equal(attest(out).net_covers, "");
    lcsb_argv_free(out);
    /* PORTS without a port denies everything, and attests so. */
    lcsb_policy *q = lcsb_policy_new();
    lcsb_policy_set_net(q, LCSB_NET_PORTS);
    out = wrap(b, q, cmd);
    assert_contains(out[1], "\"net\":[\"bind_tcp\",\"connect_tcp\"],\"ports\":[],");
    assert_contains(out[1], ",\"sockets\":\"unix+tcp\",");
    assert_string_equal(attest(out).net, "denied");
    assert_string_equal(attest(out).net_covers, "all");
    lcsb_argv_free(out);
    lcsb_policy_free(q);
    lcsb_policy_free(p);
    lcsb_backend_free(b);
}

/* ---- a large policy splits into parts ---- */

#define MANY 20000
#define MANY_OTHER 300

/* One rule read back from a part: its access list and its paths. */
typedef struct seen_path {
    char *path;
    char *access;
} seen_path;

static int compare_seen(const void *a, const void *b) {
    return strcmp(((const seen_path *)a)->path, ((const seen_path *)b)->path);
}

static int compare_str(const void *a, const void *b) {
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Read PART's rules (the writer's exact shape; paths here need no escapes)
 * into SEEN. */
static void read_part(const char *part, size_t index, seen_path *seen, size_t *n, size_t cap) {
    char head[64];
    snprintf(head, sizeof head, "{\"part\":%zu,\"rules\":[", index);
    if (strncmp(part, head, strlen(head)) != 0) fail_msg("part %zu starts %.60s", index, part);
    size_t len = strlen(part);
    assert_true(len > 4 && strcmp(part + len - 4, "]}]}") == 0);
    const char *p = part + strlen(head);
    for (;;) {
        if (strncmp(p, "{\"access\":[", 11) != 0) fail_msg("rule expected at %.60s", p);
        const char *access = p + 11;
        const char *access_end = strstr(access, "],\"paths\":[");
        assert_non_null(access_end);
        p = access_end + 11;
        for (;;) {
            assert_int_equal(*p, '"');
            const char *end = strchr(p + 1, '"');
            assert_non_null(end);
            assert_true(*n < cap);
            seen[*n].path = strndup(p + 1, (size_t)(end - p - 1));
            seen[*n].access = strndup(access, (size_t)(access_end - access));
            (*n)++;
            p = end + 1;
            if (*p == ',') {
                p++;
                continue;
            }
            assert_int_equal(*p, ']');
            break;
        }
        assert_int_equal(p[1], '}');
        p += 2;
        if (*p == ',') {
            p++;
            continue;
        }
        assert_string_equal(p, "]}");
        break;
    }
}

static void test_many_paths_split(void **state) {
    (void)state;
    lcsb_policy *p = lcsb_policy_new();
    size_t total = MANY + 2 * MANY_OTHER;
    char **expect = calloc(total, sizeof *expect);
    assert_non_null(expect);
    char path[256];
    size_t k = 0;
    for (int i = 0; i < MANY; i++) {
        snprintf(path, sizeof path, "/p/dir%06d/file-with-a-reasonably-long-name-%06d.txt", i,
                 i);
        add(p, "read", path);
        expect[k++] = strdup(path);
    }
    /* Backwards and twice over, to see the writer sort and drop repeats. */
    for (int i = MANY_OTHER - 1; i >= 0; i--) {
        snprintf(path, sizeof path, "/x/bin/tool%04d", i);
        add(p, "exec", path);
        add(p, "exec", path);
        expect[k++] = strdup(path);
        snprintf(path, sizeof path, "/w/out%04d", i);
        add(p, "write", path);
        expect[k++] = strdup(path);
    }
    assert_int_equal(k, total);
    lcsb_backend *b = landlock(7);
    static const char *const cmd[] = {"make", "-j8", NULL};
    char **out = wrap(b, p, cmd);

    size_t argc = argc_of(out);
    size_t parts = 0;
    assert_int_equal(sscanf(out[1], "{\"lcsb-exec\":2,\"abi\":7,\"parts\":%zu,", &parts), 1);
    assert_true(parts >= 5); /* about a megabyte of paths */
    assert_int_equal(argc, 1 + 1 + parts + 1 + 2);
    assert_string_equal(out[0], SHIM);
    assert_string_equal(out[2 + parts], "--");
    assert_string_equal(out[3 + parts], "make");
    assert_string_equal(out[4 + parts], "-j8");

    seen_path *seen = calloc(total + 1, sizeof *seen);
    assert_non_null(seen);
    size_t n = 0;
    for (size_t i = 0; i < parts; i++) {
        const char *part = out[2 + i];
        assert_true(strlen(part) + 1 <= ARG_STRLEN_MAX);
        assert_true(strlen(part) <= LCSB__WIRE_PART_MAX);
        read_part(part, i + 1, seen, &n, total + 1);
    }
    assert_int_equal(n, total);
    qsort(seen, n, sizeof *seen, compare_seen);
    qsort(expect, total, sizeof *expect, compare_str);
    for (size_t i = 0; i < total; i++) {
        if (strcmp(seen[i].path, expect[i]) != 0)
            fail_msg("path %zu: seen %s, expected %s", i, seen[i].path, expect[i]);
        const char *access = seen[i].access;
        bool ok = strncmp(expect[i], "/p/", 3) == 0
                      ? strcmp(access, "\"read_file\",\"read_dir\"") == 0
                  : strncmp(expect[i], "/x/", 3) == 0
                      ? strcmp(access, "\"execute\",\"read_file\",\"read_dir\"") == 0
                      : strncmp(access, "\"write_file\",\"read_file\",\"read_dir\",", 35) == 0 &&
                            !strstr(access, "execute");
        if (!ok)
            fail_msg("%s granted [%s]", seen[i].path, seen[i].access);
    }
    /* The attestation reads the header wherever the parts end. */
    lcsb_attestation a = attest(out);
    assert_string_equal(a.backend, "landlock");
    assert_string_equal(a.exec, "allowlist");

    for (size_t i = 0; i < n; i++) {
        free(seen[i].path);
        free(seen[i].access);
    }
    for (size_t i = 0; i < total; i++) free(expect[i]);
    free(seen);
    free(expect);
    lcsb_argv_free(out);
    lcsb_policy_free(p);
    lcsb_backend_free(b);
}

/* Paths of PATH_MAX - 1 bytes: a part never cuts one, each part still fits. */
static void test_longest_paths_split(void **state) {
    (void)state;
    lcsb_policy *p = lcsb_policy_new();
    char *path = malloc(PATH_MAX);
    assert_non_null(path);
    for (int i = 0; i < 100; i++) {
        memset(path, 'a' + i % 26, PATH_MAX - 1);
        path[0] = '/';
        snprintf(path + 1, 8, "%06d", i);
        path[7] = '/';
        path[PATH_MAX - 1] = '\0';
        add(p, "read", path);
    }
    lcsb_backend *b = landlock(7);
    static const char *const cmd[] = {"true", NULL};
    char **out = wrap(b, p, cmd);
    size_t parts = 0;
    assert_int_equal(sscanf(out[1], "{\"lcsb-exec\":2,\"abi\":7,\"parts\":%zu,", &parts), 1);
    assert_true(parts >= 4);
    size_t paths = 0;
    for (size_t i = 0; i < parts; i++) {
        assert_true(strlen(out[2 + i]) <= LCSB__WIRE_PART_MAX);
        for (const char *q = out[2 + i]; (q = strstr(q, "\"/0")); q++) {
            const char *end = strchr(q + 1, '"');
            assert_int_equal(end - q - 1, PATH_MAX - 1);
            paths++;
        }
    }
    assert_int_equal(paths, 100);
    assert_string_equal(out[2 + parts], "--");
    lcsb_argv_free(out);
    lcsb_policy_free(p);
    lcsb_backend_free(b);
    free(path);
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
    static const char *const want[] = {"/usr/bin/env", "-u", "SECRET", "-u", "GONE", "--",
                                       "CI=2", "OPTS=x=y z", "EMPTY=", "cmd", "a=b", "--",
                                       "-u", "", NULL};
    assert_argv_equal(out, want);
    lcsb_argv_free(out);

    /* Only unsets: no assignment after "--". */
    lcsb_policy *u = lcsb_policy_new();
    set_env(u, "K", NULL);
    out = env_argv(u, cmd);
    static const char *const want_u[] = {"/usr/bin/env", "-u", "K", "--", "cmd", "a=b", "--",
                                         "-u", "", NULL};
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
    const char *const want_ll[] = {"uv", "run", "--", SHIM, header_abi7, part_abi7, "--",
                                   "/usr/bin/env", "--", "CI=1", "pytest", "-q", NULL};
    assert_argv_equal(out, want_ll);
    lcsb_attestation a;
    assert_int_equal(lcsb_attest((const char *const *)out, prefix, &a, &err), 0);
    assert_string_equal(a.backend, "landlock");
    assert_string_equal(a.net, "denied");
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
    static const char *const want_none[] = {"uv", "run", "--", "/usr/bin/env", "--", "CI=1",
                                            "pytest", "-q", NULL};
    assert_argv_equal(out, want_none);
    a = attest(out);
    assert_string_equal(a.backend, "none");
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

/* ---- attestation ---- */

static void expect_attestation(char **argv, const char *backend, const char *fs,
                               const char *exec, const char *net, const char *covers, int abi,
                               bool scoped) {
    lcsb_attestation a = attest(argv);
    assert_string_equal(a.backend, backend);
    assert_string_equal(a.fs, fs);
    assert_string_equal(a.exec, exec);
    assert_string_equal(a.net, net);
    assert_string_equal(a.net_covers, covers);
    /* Who holds it follows from the header: TCP rules, the socket filter, or both. */
    if (!covers[0]) assert_string_equal(a.net_by, "");
    else if (strcmp(covers, "tcp") == 0) assert_string_equal(a.net_by, "landlock");
    else assert_true(strcmp(a.net_by, "landlock+seccomp") == 0 || strcmp(a.net_by, "seccomp") == 0);
    assert_int_equal(a.abi, abi);
    assert_int_equal(a.scoped, scoped);
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
                              "\"dropped\":[]}");
    free(json);
    char summary[256];
    lcsb_attestation_summary(&a, summary, sizeof summary);
    assert_string_equal(summary, "fs: enforced, exec: allowlist, net: denied, abi 7");

    /* One flag flipped in the argv, one answer changed: the attestation reads
     * the argv, not the policy. */
    replace(&out[1], "\"execute\",", "");
    expect_attestation(out, "landlock", "enforced", "open", "denied", "all", 7, true);
    /* Without TCP rules, the "unix" socket filter still refuses TCP sockets. */
    replace(&out[1], "\"net\":[\"bind_tcp\",\"connect_tcp\"]", "\"net\":[]");
    expect_attestation(out, "landlock", "enforced", "open", "denied", "all", 7, true);
    assert_string_equal(attest(out).net_by, "seccomp");
    replace(&out[1], "\"sockets\":\"unix\"", "\"sockets\":\"unix+tcp\"");
    expect_attestation(out, "landlock", "enforced", "open", "open", "", 7, true);
    replace(&out[1], "\"scope\":[\"abstract_unix_socket\",\"signal\"]", "\"scope\":[\"signal\"]");
    expect_attestation(out, "landlock", "enforced", "open", "open", "", 7, false);
    replace(&out[1], "\"abi\":7", "\"abi\":5");
    expect_attestation(out, "landlock", "enforced", "open", "open", "", 5, false);
    /* What the header says was dropped, and only names lcsb knows. */
    replace(&out[1], "\"dropped\":[]", "\"dropped\":[\"terminal\",\"scope\"]");
    lcsb_attestation d = attest(out);
    assert_int_equal(d.dropped, LCSB_PART_TERMINAL | LCSB_PART_SCOPE);
    json = lcsb_attestation_json(&d);
    assert_contains(json, "\"dropped\":[\"scope\",\"terminal\"]}");
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
    lcsb_argv_free(out);

    out = wrap(b, p, cmd);
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

    /* The socket filter: without it Landlock holds TCP only, and UDP gets out: "open". */
    out = wrap(b, p, cmd);
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

    /* The whole header malformed: an error, not a guess. */
    out = wrap(b, p, cmd);
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
        "",                       /* missing */
        ",\"sockets\":\"tcp\"",     ",\"sockets\":\"\"",          ",\"sockets\":\"UNIX\"",
        ",\"sockets\":\"unix+\"",   ",\"sockets\":\"unix+tcp+\"", ",\"sockets\":[\"unix\"]",
        ",\"sockets\":1",           ",\"sockets\":\"unix",         ",\"sockets\":null",
    };
    for (size_t i = 0; i < sizeof bad_sockets / sizeof bad_sockets[0]; i++) {
        out = wrap(b, p, cmd);
        replace(&out[1], ",\"sockets\":\"unix\"", bad_sockets[i]);
        memset(&err, 0, sizeof err);
        if (lcsb_attest((const char *const *)out, NULL, &a, &err) != LCSB_EINVAL)
            fail_msg("attested %s: net %s (%s)", out[1], a.net, a.net_covers);
        assert_contains(err.message, "malformed");
        lcsb_argv_free(out);
    }
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
    char header[] = "{\"lcsb-exec\":2,\"abi\":7,\"parts\":0,\"fs\":[\"execute\"],"
                    "\"net\":[\"bind_tcp\",\"connect_tcp\"],\"ports\":[],\"scope\":[],"
                    "\"sockets\":\"any\",\"dropped\":[],\"world\":\"open\",\"protect\":[]}";
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
    assert_string_equal(a.backend, "none");
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
    assert_string_equal(a.backend, "landlock");
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
    static const char *const mimic[] = {"sh", "-c", "x", "lcsb-exec",
        "{\"lcsb-exec\":2,\"abi\":7,\"parts\":0,\"fs\":[\"execute\"],\"net\":[],"
        "\"ports\":[],\"scope\":[],\"sockets\":\"unix\"}", "--", "true", NULL};
    assert_int_equal(lcsb_compose(none, p, prefix, mimic, &out, &err), 0);
    assert_int_equal(lcsb_attest((const char *const *)out, prefix, &a, &err), 0);
    assert_string_equal(a.backend, "none");
    lcsb_argv_free(out);
    lcsb_backend_free(none);
    lcsb_policy_free(p);
    lcsb_backend_free(b);
}

/* ---- rule 1: wrap is pure ---- */

/* One backend configuration of the purity test. */
typedef struct pure_case {
    const char *name;
    int abi; /* 0: none, PURE_OCI: oci, PURE_SEATBELT: seatbelt */
} pure_case;

#define PURE_OCI (-1)
#define PURE_SEATBELT (-2)
static const pure_case pure_cases[] = {
    {"landlock abi 1", 1}, {"landlock abi 4", 4},   {"landlock abi 6", 6},
    {"landlock abi 7", 7}, {"none", 0},             {"oci", PURE_OCI},
    {"seatbelt", PURE_SEATBELT},
};
#define PURE_CASES (sizeof pure_cases / sizeof pure_cases[0])

static const char *const pure_argv[] = {"python3", "-m", "pytest", "-q", "a=b", "--", NULL};
static const char *const pure_prefix[] = {"uv", "run", "--", NULL};

/* A policy large enough that sorting its read tier takes more than a small
 * stack buffer in a libc's qsort (glibc allocates, and asks the system how
 * much memory it has, past 1 KiB of pointers), with every tier, the env
 * overlay and ports; net open below ABI 4, where ports cannot be held; every
 * part allowed to degrade, so that older ABIs drop some. */
static lcsb_policy *pure_policy(int abi) {
    lcsb_policy *p = lcsb_policy_new();
    if (!p) return NULL;
    char path[64];
    bool ok = true;
    for (int i = 511; i >= 0 && ok; i--) {
        snprintf(path, sizeof path, "/data/set%03d/part-%03d", i % 37, i);
        ok = !lcsb_policy_add_read(p, path, NULL);
    }
    ok = ok && !lcsb_policy_add_read(p, "/usr", NULL) && !lcsb_policy_add_read(p, "/etc", NULL);
    for (int i = 199; i >= 0 && ok; i--) {
        snprintf(path, sizeof path, "/opt/tool/bin/prog%03d", i);
        ok = !lcsb_policy_add_exec(p, path, NULL);
    }
    ok = ok && !lcsb_policy_add_exec(p, "/usr/bin/env", NULL) &&
         !lcsb_policy_add_write(p, "/home/u/proj", NULL) &&
         !lcsb_policy_add_write(p, "/tmp/lcsb-home.abc123", NULL) &&
         !lcsb_policy_set_env(p, "HOME", "/tmp/lcsb-home.abc123", NULL) &&
         !lcsb_policy_set_env(p, "AWS_SECRET_ACCESS_KEY", NULL, NULL) &&
         !lcsb_policy_set_cwd(p, "/home/u/proj", NULL);
    lcsb_policy_set_degradable(p, LCSB_PARTS_ALL);
    if (abi >= 4 || abi <= 0) {
        ok = ok && !lcsb_policy_add_port(p, LCSB_PORT_CONNECT, 443, NULL) &&
             !lcsb_policy_add_port(p, LCSB_PORT_CONNECT, 80, NULL) &&
             !lcsb_policy_add_port(p, LCSB_PORT_BIND, 8080, NULL);
    } else {
        lcsb_policy_set_net(p, LCSB_NET_OPEN);
    }
    if (!ok) {
        lcsb_policy_free(p);
        return NULL;
    }
    return p;
}

static lcsb_backend *pure_backend(int abi) {
    lcsb_backend *b = NULL;
    static const lcsb_oci_world world = {.engine = "/usr/bin/podman", .rootfs = "/srv/root"};
    int rc = abi == PURE_OCI        ? lcsb_backend_oci(NULL, &world, &b, NULL)
             : abi == PURE_SEATBELT ? lcsb_backend_seatbelt(&b, NULL)
             : abi           ? lcsb_backend_landlock(abi, SHIM, &b, NULL)
                             : lcsb_backend_none(&b, NULL);
    return rc ? NULL : b;
}

typedef struct bytes {
    char *p;
    size_t len, cap;
    bool oom;
} bytes;

static void bytes_add(bytes *b, const void *s, size_t len) {
    if (b->oom) return;
    if (b->len + len > b->cap) {
        size_t cap = b->cap ? b->cap : 4096;
        while (cap < b->len + len) cap *= 2;
        char *p = realloc(b->p, cap);
        if (!p) {
            b->oom = true;
            return;
        }
        b->p = p;
        b->cap = cap;
    }
    memcpy(b->p + b->len, s, len);
    b->len += len;
}

static void bytes_add_argv(bytes *b, char **argv) {
    for (size_t i = 0; argv[i]; i++) bytes_add(b, argv[i], strlen(argv[i]) + 1);
    bytes_add(b, "\x01", 1);
}

/* Everything the pure functions give for this configuration, as bytes:
 * wrap, compose with and without the prefix, attest and its JSON. 0 or -1. */
static int pure_outputs(const lcsb_backend *b, const lcsb_policy *p, bytes *out) {
    char **argv = NULL;
    lcsb_attestation a;
    if (lcsb_backend_wrap(b, p, pure_argv, &argv, NULL)) return -1;
    bytes_add_argv(out, argv);
    lcsb_argv_free(argv);
    if (lcsb_compose(b, p, NULL, pure_argv, &argv, NULL)) return -1;
    bytes_add_argv(out, argv);
    lcsb_argv_free(argv);
    if (lcsb_compose(b, p, pure_prefix, pure_argv, &argv, NULL)) return -1;
    bytes_add_argv(out, argv);
    int rc = lcsb_attest((const char *const *)argv, pure_prefix, &a, NULL);
    char *json = rc ? NULL : lcsb_attestation_json(&a);
    char *argv_json = lcsb_argv_json((const char *const *)argv);
    lcsb_argv_free(argv);
    if (!json || !argv_json) {
        free(json);
        free(argv_json);
        return -1;
    }
    bytes_add(out, json, strlen(json) + 1);
    bytes_add(out, argv_json, strlen(argv_json) + 1);
    free(json);
    free(argv_json);
    return out->oom ? -1 : 0;
}

#ifdef NATIVE_ARCH
/* Where the trap handler of a diagnostic run puts the offending syscall. */
static volatile long *trapped_nr;

static void on_sigsys(int sig, siginfo_t *info, void *ctx) {
    (void)sig;
    (void)ctx;
    if (trapped_nr) *trapped_nr = info->si_syscall;
    syscall(SYS_exit_group, 4);
}

#define ALLOW(nr) BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (nr), 0, 1), \
    BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW)

/* Memory management and exit, nothing else; any other syscall is DENY.
 *
 * mprotect is not allowed: glibc's malloc calls it only to grow the heap of
 * a secondary arena (threads), and these children are single-threaded. Nor
 * is write: children report through their exit status alone. */
static int install_filter(unsigned int deny) {
    struct sock_filter filter[] = {
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, NATIVE_ARCH, 1, 0),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
        ALLOW(__NR_brk),
        ALLOW(__NR_mmap),
        ALLOW(__NR_munmap),
        ALLOW(__NR_mremap),
        ALLOW(__NR_madvise),
        ALLOW(__NR_exit),
        ALLOW(__NR_exit_group),
        BPF_STMT(BPF_RET | BPF_K, deny),
    };
    struct sock_fprog prog = {(unsigned short)(sizeof filter / sizeof filter[0]), filter};
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) return -1;
    return prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog, 0, 0);
}

/* The child's verdicts. */
enum { PURE_SAME = 0, PURE_DIFFERENT = 1, PURE_SETUP = 3, PURE_TRAPPED = 4, PURE_FAILED = 5 };

/* Under the filter: compute twice, compare both with EXPECT; exit with a verdict. */
static void pure_child(const lcsb_backend *b, const lcsb_policy *p, const bytes *expect,
                       unsigned int deny) {
    /* Warm up malloc: small chunks, a large (mmap'd) one, a realloc. The
     * parent used malloc already, so this is belt and braces. */
    for (size_t size = 16; size <= (1u << 20); size *= 4) {
        char *m = malloc(size);
        if (!m) _exit(PURE_SETUP);
        m[0] = 1;
        char *r = realloc(m, size * 3);
        free(r ? r : m);
    }
    if (deny == SECCOMP_RET_TRAP) {
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_sigaction = on_sigsys;
        sa.sa_flags = SA_SIGINFO;
        if (sigaction(SIGSYS, &sa, NULL) != 0) _exit(PURE_SETUP);
    }
    if (install_filter(deny) != 0) _exit(PURE_SETUP);
    for (int round = 0; round < 2; round++) {
        bytes got = {0};
        if (pure_outputs(b, p, &got) != 0) _exit(PURE_FAILED);
        if (got.len != expect->len || memcmp(got.p, expect->p, got.len) != 0)
            _exit(PURE_DIFFERENT);
        free(got.p);
    }
    _exit(PURE_SAME);
}

/* Run one child; its verdict, or -SIG when a signal ended it. */
static int run_pure_child(const lcsb_backend *b, const lcsb_policy *p, const bytes *expect,
                          unsigned int deny) {
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) pure_child(b, p, expect, deny);
    int status = 0;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    if (WIFSIGNALED(status)) return -WTERMSIG(status);
    return WEXITSTATUS(status);
}

/* After a kill, rerun with a trap to learn which syscall it was. */
static long which_syscall(const lcsb_backend *b, const lcsb_policy *p, const bytes *expect) {
    long *shared = mmap(NULL, sizeof(long), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS,
                        -1, 0);
    if (shared == MAP_FAILED) return -1;
    *shared = -1;
    trapped_nr = shared;
    run_pure_child(b, p, expect, SECCOMP_RET_TRAP);
    trapped_nr = NULL;
    long nr = *shared;
    munmap(shared, sizeof(long));
    return nr;
}

static void check_verdict(const char *name, int verdict, long nr) {
    if (verdict == PURE_SAME) return;
    if (verdict == -SIGSYS)
        fail_msg("%s: impure: killed by the seccomp filter (syscall %ld)", name, nr);
    if (verdict < 0) fail_msg("%s: child killed by signal %d", name, -verdict);
    if (verdict == PURE_DIFFERENT) fail_msg("%s: different bytes under the filter", name);
    if (verdict == PURE_SETUP) fail_msg("%s: could not install the seccomp filter", name);
    fail_msg("%s: child failed (%d)", name, verdict);
}
#endif

static void test_wrap_is_pure(void **state) {
    (void)state;
#ifndef NATIVE_ARCH
    skip();
#else
    for (size_t i = 0; i < PURE_CASES; i++) {
        lcsb_policy *p = pure_policy(pure_cases[i].abi);
        lcsb_backend *b = pure_backend(pure_cases[i].abi);
        assert_non_null(p);
        assert_non_null(b);
        bytes expect = {0}, again = {0};
        assert_int_equal(pure_outputs(b, p, &expect), 0);
        /* Same inputs, same bytes, in this process too. */
        assert_int_equal(pure_outputs(b, p, &again), 0);
        assert_int_equal(again.len, expect.len);
        assert_memory_equal(again.p, expect.p, expect.len);
        free(again.p);

        int verdict = run_pure_child(b, p, &expect, SECCOMP_RET_KILL_PROCESS);
        check_verdict(pure_cases[i].name, verdict,
                      verdict == -SIGSYS ? which_syscall(b, p, &expect) : -1);

        /* The filter must bite, or the verdict means nothing: a child that
         * makes one syscall more is killed. */
        pid_t pid = fork();
        assert_true(pid >= 0);
        if (pid == 0) {
            if (install_filter(SECCOMP_RET_KILL_PROCESS) != 0) _exit(PURE_SETUP);
            (void)getppid();
            _exit(PURE_SAME);
        }
        int status = 0;
        assert_int_equal(waitpid(pid, &status, 0), pid);
        assert_true(WIFSIGNALED(status) && WTERMSIG(status) == SIGSYS);

        /* And a different expectation is noticed. */
        expect.p[expect.len / 2] ^= 1;
        assert_int_equal(run_pure_child(b, p, &expect, SECCOMP_RET_KILL_PROCESS),
                         PURE_DIFFERENT);
        free(expect.p);
        lcsb_policy_free(p);
        lcsb_backend_free(b);
    }
#endif
}

/* A forked child inherits whatever libc initialized lazily in the parent
 * (glibc's qsort caches the machine's memory size after its first large
 * sort). A fresh process has nothing cached: the test binary runs itself
 * with --pure-child, reads the expected bytes from fd 3 before installing
 * the filter, and wraps for the first time under it. */
static const char *self_exe;

#ifdef NATIVE_ARCH
/* argv: --pure-child CASE kill|trap. fd 3: the expected bytes; for trap, fd 4:
 * a shared page for the number of the syscall that trapped. */
static int pure_fresh_main(const char *case_index, const char *mode) {
    size_t i = (size_t)strtoul(case_index, NULL, 10);
    if (i >= PURE_CASES) return PURE_SETUP;
    lcsb_policy *p = pure_policy(pure_cases[i].abi);
    lcsb_backend *b = pure_backend(pure_cases[i].abi);
    if (!p || !b) return PURE_SETUP;
    bytes expect = {0};
    char buf[65536];
    ssize_t n;
    while ((n = read(3, buf, sizeof buf)) > 0) bytes_add(&expect, buf, (size_t)n);
    if (n < 0 || expect.oom) return PURE_SETUP;
    close(3);
    bool trap = strcmp(mode, "trap") == 0;
    if (trap) {
        void *page = mmap(NULL, sizeof(long), PROT_READ | PROT_WRITE, MAP_SHARED, 4, 0);
        if (page == MAP_FAILED) return PURE_SETUP;
        trapped_nr = page;
    }
    pure_child(b, p, &expect, trap ? SECCOMP_RET_TRAP : SECCOMP_RET_KILL_PROCESS);
    return PURE_SETUP; /* not reached */
}

/* Run the fresh child; its verdict, or -SIG. With TRAP, *NR gets the syscall. */
static int run_fresh_child(size_t index, const bytes *expect, bool trap, long *nr) {
    int fds[2];
    assert_int_equal(pipe(fds), 0);
    int page_fd = -1;
    long *page = NULL;
    if (trap) {
        page_fd = memfd_create("lcsb-pure-trap", 0);
        assert_true(page_fd >= 0);
        assert_int_equal(ftruncate(page_fd, sizeof(long)), 0);
        page = mmap(NULL, sizeof(long), PROT_READ | PROT_WRITE, MAP_SHARED, page_fd, 0);
        assert_true(page != MAP_FAILED);
        *page = -1;
    }
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        char arg[16];
        snprintf(arg, sizeof arg, "%zu", index);
        close(fds[1]);
        if (dup2(fds[0], 3) < 0 || (trap && dup2(page_fd, 4) < 0)) _exit(PURE_SETUP);
        execl(self_exe, self_exe, "--pure-child", arg, trap ? "trap" : "kill", (char *)NULL);
        _exit(PURE_SETUP);
    }
    close(fds[0]);
    signal(SIGPIPE, SIG_IGN);
    for (size_t off = 0; off < expect->len;) {
        ssize_t w = write(fds[1], expect->p + off, expect->len - off);
        if (w <= 0) break;
        off += (size_t)w;
    }
    close(fds[1]);
    int status = 0;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    if (trap) {
        *nr = *page;
        munmap(page, sizeof(long));
        close(page_fd);
    }
    return WIFSIGNALED(status) ? -WTERMSIG(status) : WEXITSTATUS(status);
}
#endif

static void test_wrap_is_pure_fresh_process(void **state) {
    (void)state;
#ifndef NATIVE_ARCH
    skip();
#else
    for (size_t i = 0; i < PURE_CASES; i++) {
        lcsb_policy *p = pure_policy(pure_cases[i].abi);
        lcsb_backend *b = pure_backend(pure_cases[i].abi);
        bytes expect = {0};
        assert_int_equal(pure_outputs(b, p, &expect), 0);
        long nr = -1;
        int verdict = run_fresh_child(i, &expect, false, NULL);
        if (verdict == -SIGSYS) run_fresh_child(i, &expect, true, &nr);
        check_verdict(pure_cases[i].name, verdict, nr);
        /* A different expectation is noticed here too. */
        expect.p[expect.len - 1] ^= 1;
        assert_int_equal(run_fresh_child(i, &expect, false, NULL), PURE_DIFFERENT);
        free(expect.p);
        lcsb_policy_free(p);
        lcsb_backend_free(b);
    }
#endif
}

/* Same bytes whatever the environment says. */
static void test_wrap_ignores_environment(void **state) {
    (void)state;
    const char *names[] = {"PATH", "HOME", "TMPDIR", "LANG", "LC_ALL"};
    char *saved[5];
    for (size_t i = 0; i < 5; i++) {
        const char *v = getenv(names[i]);
        saved[i] = v ? strdup(v) : NULL;
    }
    for (size_t c = 0; c < PURE_CASES; c++) {
        lcsb_policy *p = pure_policy(pure_cases[c].abi);
        lcsb_backend *b = pure_backend(pure_cases[c].abi);
        bytes before = {0}, after = {0}, unset = {0};
        assert_int_equal(pure_outputs(b, p, &before), 0);
        setenv("PATH", "/nonexistent/bin:/elsewhere", 1);
        setenv("HOME", "/somewhere/else", 1);
        setenv("TMPDIR", "/var/tmp/other", 1);
        setenv("LANG", "de_DE.UTF-8", 1);
        setenv("LC_ALL", "C.UTF-8", 1);
        assert_int_equal(pure_outputs(b, p, &after), 0);
        for (size_t i = 0; i < 5; i++) unsetenv(names[i]);
        assert_int_equal(pure_outputs(b, p, &unset), 0);
        for (size_t i = 0; i < 5; i++)
            if (saved[i]) setenv(names[i], saved[i], 1);
        assert_int_equal(after.len, before.len);
        assert_memory_equal(after.p, before.p, before.len);
        assert_int_equal(unset.len, before.len);
        assert_memory_equal(unset.p, before.p, before.len);
        /* Nothing about this host leaked in. */
        assert_null(memmem(before.p, before.len, "/nonexistent/bin", 16));
        free(before.p);
        free(after.p);
        free(unset.p);
        lcsb_policy_free(p);
        lcsb_backend_free(b);
    }
    for (size_t i = 0; i < 5; i++) free(saved[i]);
}

int main(int argc, char **argv) {
#ifdef NATIVE_ARCH
    if (argc == 4 && strcmp(argv[1], "--pure-child") == 0)
        return pure_fresh_main(argv[2], argv[3]);
#endif
    (void)argc;
    static char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n > 0) exe[n] = '\0';
    self_exe = n > 0 ? exe : argv[0];

    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_golden_abi7),
        cmocka_unit_test(test_golden_abi3),
        cmocka_unit_test(test_golden_abi1),
        cmocka_unit_test(test_header_per_abi),
        cmocka_unit_test(test_wrap_refusals),
        cmocka_unit_test(test_world_and_protect),
        cmocka_unit_test(test_wrap_escapes_paths),
        cmocka_unit_test(test_exec_any_drops_execute),
        cmocka_unit_test(test_ports_sorted_unique),
        cmocka_unit_test(test_many_paths_split),
        cmocka_unit_test(test_longest_paths_split),
        cmocka_unit_test(test_env_argv),
        cmocka_unit_test(test_compose_prefix),
        cmocka_unit_test(test_attest_from_argv),
        cmocka_unit_test(test_attest_without_shim),
        cmocka_unit_test(test_attest_through_prefix),
        cmocka_unit_test(test_wrap_is_pure),
        cmocka_unit_test(test_wrap_is_pure_fresh_process),
        cmocka_unit_test(test_wrap_ignores_environment),
    };
    return cmocka_run_group_tests_name("sandbox_wrap", tests, NULL, NULL);
}
