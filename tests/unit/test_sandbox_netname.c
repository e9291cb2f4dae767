/* The names and addresses lcsb's proxy judges by (netname.c): net.domains
 * entries and net.lan ranges checked and normalized, a request's host made
 * comparable to them, the match, and an address judged public or not. Pure
 * functions, apart from the proxy on sockets (test_sandbox_proxy.c). */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "helpers.h"
#include "internal.h"
#include "netname.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>

#define LONG_LABEL "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"

static void assert_domain(const char *entry, const char *normal) {
    lcsb__domain d, again;
    char why[300], out[LCSB__DOMAIN_TEXT_MAX];
    if (lcsb__domain_parse(entry, &d, why, sizeof why) != 0) fail_msg("%s refused: %s", entry, why);
    lcsb__domain_format(&d, out, sizeof out);
    assert_string_equal(out, normal);
    /* The normal form is an entry too, and names the same thing. */
    assert_int_equal(lcsb__domain_parse(out, &again, why, sizeof why), 0);
    assert_memory_equal(&d, &again, sizeof d);
}

static void assert_domain_refused(const char *entry, const char *reason) {
    lcsb__domain d;
    char why[300];
    if (lcsb__domain_parse(entry, &d, why, sizeof why) == 0) fail_msg("%s accepted", entry);
    assert_contains(why, "net.domains: \"");
    assert_contains(why, reason, entry);
}

static void test_domain_parse(void **state) {
    (void)state;
    assert_domain("registry.npmjs.org", "registry.npmjs.org");
    assert_domain("Registry.NPMJS.org.", "registry.npmjs.org");
    assert_domain("*.example.com", "*.example.com");
    assert_domain("!*.Evil.example.com:8443", "!*.evil.example.com:8443");
    assert_domain("example.com:443", "example.com:443");
    assert_domain("_srv.example-1.com", "_srv.example-1.com");
    assert_domain("203.0.113.80", "203.0.113.80");
    assert_domain("10.0.0.1:8080", "10.0.0.1:8080");
    assert_domain("[::1]", "[::1]");
    assert_domain("[2001:DB8:0:0::1]:8443", "[2001:db8::1]:8443");
    assert_domain("[::ffff:127.0.0.1]", "[::ffff:127.0.0.1]");
    assert_domain("!10.0.0.1", "!10.0.0.1");
    char longest[300];
    memset(longest, 'a', 63);
    strcpy(longest + 63, ".");
    memset(longest + 64, 'b', 63);
    strcpy(longest + 127, ".com");
    assert_domain(longest, longest);

    assert_domain_refused("", "an empty entry");
    assert_domain_refused("!", "an empty entry");
    assert_domain_refused("*", "\"*\" alone");
    assert_domain_refused("*.", "\"*\" alone");
    assert_domain_refused("a.*.com", "\"*\" only as a leading");
    assert_domain_refused("*example.com", "\"*\" only as a leading");
    assert_domain_refused("*.*.example.com", "\"*\" only as a leading");
    assert_domain_refused("https://x", "give a host name, not a URL");
    assert_domain_refused("x/y", "not a path");
    assert_domain_refused("exa mple.com", "no spaces");
    assert_domain_refused(" example.com", "no spaces");
    assert_domain_refused("example.com\n", "control characters");
    assert_domain_refused("example.com:0", "1 to 65535");
    assert_domain_refused("example.com:65536", "1 to 65535");
    assert_domain_refused("example.com:", "1 to 65535");
    assert_domain_refused("example.com:+80", "1 to 65535");
    assert_domain_refused(":443", "a port alone");
    assert_domain_refused("::1", "in brackets");
    assert_domain_refused("[::1", "without its");
    assert_domain_refused("[::1]x", "after \"]\"");
    assert_domain_refused("[1.2.3.4]", "not an IPv6 address");
    assert_domain_refused("exa..mple.com", "not a host name");
    assert_domain_refused("ex@mple.com", "not a host name");
    assert_domain_refused("127.1", "not a host name");
    assert_domain_refused("0x7f.0.0.1", "not a host name");
    assert_domain_refused("0x7f000001", "not a host name");
    assert_domain_refused("127.0.0.0x1:443", "not a host name");
    assert_domain_refused("010.0.0.1", "not a host name");
    assert_domain_refused("*.10.0.0.1", "goes before a name");
    assert_domain_refused("*.[::1]", "goes before a name");
    memset(longest, 'a', 64);
    strcpy(longest + 64, ".com");
    assert_domain_refused(longest, "not a host name");
    for (int i = 0; i < 4; i++) memset(longest + i * 64, 'a', 63), longest[i * 64 + 63] = '.';
    strcpy(longest + 252, "co"); /* 254 bytes */
    assert_domain_refused(longest, "not a host name");
    /* The entry is escaped in the reason: it is bound for a terminal. */
    lcsb__domain d;
    char why[300];
    assert_int_equal(lcsb__domain_parse("x\x1b[2Jy", &d, why, sizeof why), -1);
    assert_contains(why, "x\\x1b[2Jy");
}

static bool matches(const char *entry, const char *host, uint16_t port) {
    lcsb__domain d;
    char why[300], h[LCSB__HOST_MAX + 1];
    assert_int_equal(lcsb__domain_parse(entry, &d, why, sizeof why), 0);
    assert_int_equal(lcsb__host_normal(host, strlen(host), h), 0);
    return lcsb__domain_matches(&d, h, port);
}

static void test_domain_match(void **state) {
    (void)state;
    assert_true(matches("example.com", "example.com", 443));
    assert_true(matches("example.com", "example.com", 80));
    assert_false(matches("example.com", "example.com", 8443));
    assert_true(matches("example.com:8443", "example.com", 8443));
    assert_false(matches("example.com:8443", "example.com", 443));
    assert_true(matches("example.com", "EXAMPLE.com.", 443));
    assert_false(matches("example.com", "www.example.com", 443));
    assert_false(matches("example.com", "badexample.com", 443));
    /* A wildcard is strictly below its suffix. */
    assert_true(matches("*.example.com", "www.example.com", 443));
    assert_true(matches("*.example.com", "a.b.example.com", 80));
    assert_false(matches("*.example.com", "example.com", 443));
    assert_false(matches("*.example.com", "badexample.com", 443));
    assert_false(matches("*.example.com", "www.example.com.evil.net", 443));
    /* Literals and names never stand for each other. */
    assert_true(matches("10.0.0.1", "10.0.0.1", 443));
    assert_false(matches("10.0.0.1", "10.0.0.2", 443));
    assert_true(matches("[::1]:8080", "[0:0::1]", 8080));
    assert_true(matches("[::1]:8080", "::1", 8080));
    assert_false(matches("[::ffff:10.0.0.1]", "10.0.0.1", 443));

    /* A deny wins wherever it stands; no entry at all refuses. */
    lcsb__domain v[3];
    char why[300];
    assert_int_equal(lcsb__domain_parse("*.example.com", &v[0], why, sizeof why), 0);
    assert_int_equal(lcsb__domain_parse("!bad.example.com", &v[1], why, sizeof why), 0);
    assert_int_equal(lcsb__domain_parse("bad.example.com", &v[2], why, sizeof why), 0);
    lcsb__domain_verdict out;
    assert_false(lcsb__domains_refuse(v, 3, "good.example.com", 443, 0, &out));
    assert_null(out.deny);
    assert_true(lcsb__domains_refuse(v, 3, "bad.example.com", 443, 0, &out));
    assert_ptr_equal(out.deny, &v[1]);
    /* A deny without a port holds on every port: "!host" is never that host. */
    assert_true(lcsb__domains_refuse(v, 3, "bad.example.com", 8443, 0, &out));
    assert_ptr_equal(out.deny, &v[1]);
    assert_true(lcsb__domains_refuse(v, 3, "example.com", 443, 0, &out));
    assert_null(out.deny);
    assert_null(out.ended);
    assert_true(lcsb__domains_refuse(v, 0, "example.com", 443, 0, &out));
    assert_null(out.deny);
}

/* Grants that end: "once" allows the first connection alone, "until=" while
 * the clock is before it; a lasting entry is taken before a once, which
 * stays for when it is needed; a deny still wins. */
static void test_domain_grants(void **state) {
    (void)state;
    assert_domain("pkg.example.org once", "pkg.example.org once");
    assert_domain("pkg.example.org until=2026-12-06T18:00:00Z",
                  "pkg.example.org until=2026-12-06T18:00:00Z");
    assert_domain("*.Example.org:8443 once until=2030-01-31T00:00:59Z",
                  "*.example.org:8443 once until=2030-01-31T00:00:59Z");
    /* The longest: a 253-byte wildcard's host, a port and both ends. */
    char longest[LCSB__DOMAIN_TEXT_MAX + 8];
    snprintf(longest, sizeof longest,
             "*.%.63s.%.63s.%.63s.%.57s.ex:65535 once until=2099-01-01T00:00:00Z", LONG_LABEL,
             LONG_LABEL, LONG_LABEL, LONG_LABEL);
    assert_true(strlen(longest) < LCSB__DOMAIN_TEXT_MAX);
    assert_domain(longest, longest);
    assert_domain_refused("!pkg.example.org once", "a deny entry has no grant");
    assert_domain_refused("pkg.example.org twice", "only \" once\"");
    assert_domain_refused("pkg.example.org until=2026-12-06 18:00", "takes a time in UTC");
    assert_domain_refused("pkg.example.org once\t", "no spaces");
    assert_domain_refused("pkg.example.org until=2026-12-06T18:00:00", "until= takes a time");
    assert_domain_refused("pkg.example.org until=2026-02-30T18:00:00Z", "until= takes a time");
    assert_domain_refused("pkg.example.org until=2026-12-06T24:00:00Z", "until= takes a time");
    assert_domain_refused("pkg.example.org until=2026-12-06T18:00:00Z once", "only \" once\"");
    assert_domain_refused("pkg.example.org once once", "only \" once\"");
    assert_domain_refused("pkg.example.org ", "only \" once\"");
    assert_domain_refused("pkg.example.org once ", "only \" once\"");

    char why[300];
    lcsb__domain v[3];
    lcsb__domain_verdict out;
    assert_int_equal(lcsb__domain_parse("pkg.example.org once", &v[0], why, sizeof why), 0);
    assert_false(lcsb__domains_refuse(v, 1, "pkg.example.org", 443, 0, &out));
    assert_true(v[0].used);
    assert_ptr_equal(out.taken, &v[0]); /* the caller's to give back, if it cannot connect */
    assert_true(lcsb__domains_refuse(v, 1, "pkg.example.org", 443, 0, &out));
    assert_null(out.deny);
    assert_ptr_equal(out.ended, &v[0]);
    /* Another host: not this grant's, and no entry allows it. */
    assert_true(lcsb__domains_refuse(v, 1, "other.example.org", 443, 0, &out));
    assert_null(out.ended);

    int64_t end = 1796580000; /* 2026-12-06T18:00:00Z */
    assert_int_equal(
        lcsb__domain_parse("pkg.example.org until=2026-12-06T18:00:00Z", &v[0], why, sizeof why),
        0);
    assert_int_equal(v[0].until, end);
    assert_false(lcsb__domains_refuse(v, 1, "pkg.example.org", 443, end - 1, &out));
    assert_false(lcsb__domains_refuse(v, 1, "pkg.example.org", 443, end - 1, &out));
    assert_true(lcsb__domains_refuse(v, 1, "pkg.example.org", 443, end, &out));
    assert_ptr_equal(out.ended, &v[0]);

    /* A lasting entry first: the once is left for when nothing else allows. */
    assert_int_equal(lcsb__domain_parse("*.example.org once", &v[0], why, sizeof why), 0);
    assert_int_equal(lcsb__domain_parse("pkg.example.org", &v[1], why, sizeof why), 0);
    assert_int_equal(lcsb__domain_parse("!bad.example.org", &v[2], why, sizeof why), 0);
    assert_false(lcsb__domains_refuse(v, 3, "pkg.example.org", 443, 0, &out));
    assert_false(v[0].used);
    assert_true(lcsb__domains_refuse(v, 3, "bad.example.org", 443, 0, &out));
    assert_ptr_equal(out.deny, &v[2]);
    assert_false(v[0].used);
    assert_false(lcsb__domains_refuse(v, 3, "www.example.org", 443, 0, &out));
    assert_true(v[0].used);
    assert_true(lcsb__domains_refuse(v, 3, "api.example.org", 443, 0, &out));
    assert_ptr_equal(out.ended, &v[0]);
    assert_false(lcsb__domains_refuse(v, 3, "pkg.example.org", 443, 0, &out));
}

static void normal_is(const char *in, const char *want) {
    char out[LCSB__HOST_MAX + 1];
    if (!want) {
        if (lcsb__host_normal(in, strlen(in), out) == 0) fail_msg("%s taken as %s", in, out);
        return;
    }
    if (lcsb__host_normal(in, strlen(in), out) != 0) fail_msg("%s refused", in);
    assert_string_equal(out, want);
}

/* Rules on requests: methods= and paths=, their normal form, and a
 * request judged by every entry that allows its host. */
static bool request_refused(const lcsb__domain *v, size_t n, const char *method,
                            const char *target, const char **why) {
    const lcsb__domain *rule;
    return lcsb__domains_refuse_request(v, n, "reg.example.org", 443, 1000, method, target, &rule,
                                        why);
}

static void test_domain_rules(void **state) {
    (void)state;
    assert_domain("reg.example.org methods=GET,HEAD", "reg.example.org methods=GET,HEAD");
    assert_domain("reg.example.org paths=/v2/,/simple/%40scope", "reg.example.org paths=/v2/,/simple/%40scope");
    assert_domain("Reg.example.org once until=2030-01-01T00:00:00Z methods=GET paths=/a/",
                  "reg.example.org once until=2030-01-01T00:00:00Z methods=GET paths=/a/");
    assert_domain_refused("reg.example.org paths=/a/ methods=GET", "in that order");
    assert_domain_refused("reg.example.org methods=get", "uppercase");
    assert_domain_refused("reg.example.org methods=GET,", "uppercase");
    assert_domain_refused("reg.example.org methods=", "uppercase");
    assert_domain_refused("reg.example.org paths=v2/", "starting with");
    assert_domain_refused("reg.example.org paths=/a/../b/", "segment");
    assert_domain_refused("reg.example.org paths=/a/%2", "%XX");
    assert_domain_refused("reg.example.org paths=/a b", "in that order");
    assert_domain_refused("!reg.example.org methods=GET", "nor rule");
    assert_domain_refused("reg.example.org methods=GET methods=PUT", "in that order");
}

static void test_domain_rules_judged(void **state) {
    (void)state;
    lcsb__domain v[3];
    char why[300];
    const char *no;
    assert_int_equal(lcsb__domain_parse("reg.example.org methods=GET,HEAD paths=/v2/,/simple/", &v[0],
                                        why, sizeof why),
                     0);
    assert_true(lcsb__domains_rule_only(v, 1, "reg.example.org", 443, 1000));
    assert_false(lcsb__domains_rule_only(v, 1, "other.example.org", 443, 1000));
    assert_false(request_refused(v, 1, "GET", "/v2/lib/manifests/1?x=../", &no));
    assert_false(request_refused(v, 1, "HEAD", "/simple/", &no));
    assert_true(request_refused(v, 1, "POST", "/v2/lib", &no));
    assert_contains(no, "method");
    assert_true(request_refused(v, 1, "get", "/v2/lib", &no));
    assert_true(request_refused(v, 1, "GET", "/v3/lib", &no));
    assert_contains(no, "starts with none");
    assert_true(request_refused(v, 1, "GET", "/v2", &no));
    /* What a server could resolve past the prefix is no path a rule judges. */
    static const char *const escapes[] = {"/v2/../admin",
                                          "/v2/%2e%2e/admin",
                                          "/v2/.%2E/x",
                                          "/v2/%2e",
                                          "/v2/a%2f..%2fb",
                                          "/v2/a\\b",
                                          "/v2/%5c..",
                                          "/v2/%00",
                                          "/v2/%252e%252e/x",
                                          "/v2/%zz",
                                          "/v2/%2",
                                          "*",
                                          "http://x/v2/",
                                          "/v2/..;/admin",
                                          "/v2/%2e%2e;x/a",
                                          "/v2/.../x",
                                          "/v2/%c0%ae%c0%ae/x",
                                          "/v2/.;a",
                                          "/v2/%e0%80%ae%e0%80%ae/x",
                                          "/v2/%ef%bc%8e%ef%bc%8e/a",
                                          "/v2/.%09./a",
                                          "/v2/%7f"};
    for (size_t i = 0; i < sizeof escapes / sizeof *escapes; i++) {
        if (!request_refused(v, 1, "GET", escapes[i], &no)) fail_msg("%s allowed", escapes[i]);
    }
    assert_false(request_refused(v, 1, "GET", "/v2/a.../x/..a/%41;p=1/", &no));
    /* Another entry for the host without a rule lets everything through;
     * one that expired, or a deny, does not. */
    assert_int_equal(lcsb__domain_parse("reg.example.org until=1970-01-01T00:05:00Z", &v[1], why,
                                        sizeof why),
                     0);
    assert_true(request_refused(v, 2, "POST", "/x", &no));
    assert_true(lcsb__domains_rule_only(v, 2, "reg.example.org", 443, 1000));
    assert_int_equal(lcsb__domain_parse("*.example.org", &v[2], why, sizeof why), 0);
    assert_false(request_refused(v, 3, "POST", "/x", &no));
    assert_false(lcsb__domains_rule_only(v, 3, "reg.example.org", 443, 1000));
    /* Two rules: either lets a request through. */
    assert_int_equal(lcsb__domain_parse("reg.example.org methods=POST paths=/upload/", &v[1], why,
                                        sizeof why),
                     0);
    assert_false(request_refused(v, 2, "POST", "/upload/x", &no));
    assert_false(request_refused(v, 2, "GET", "/v2/x", &no));
    assert_true(request_refused(v, 2, "POST", "/v2/x", &no));
    /* A once counts on the connection that took it. */
    assert_int_equal(lcsb__domain_parse("reg.example.org once methods=GET", &v[0], why, sizeof why), 0);
    v[0].used = true;
    assert_false(request_refused(v, 1, "GET", "/", &no));
    assert_true(request_refused(v, 1, "PUT", "/", &no));
}

static void test_host_normal(void **state) {
    (void)state;
    normal_is("Example.COM", "example.com");
    normal_is("example.com.", "example.com");
    normal_is("localhost", "localhost");
    normal_is("a-b_c.d", "a-b_c.d");
    normal_is("1.2.3.4", "1.2.3.4");
    normal_is("[::1]", "::1");
    normal_is("::1", "::1");
    normal_is("[2001:DB8::0:1]", "2001:db8::1");
    normal_is("[::FFFF:7F00:1]", "::ffff:127.0.0.1");
    normal_is("1a.example", "1a.example");
    normal_is("", NULL);
    normal_is(".", NULL);
    normal_is("example.com..", NULL);
    normal_is(".example.com", NULL);
    normal_is("exa mple", NULL);
    normal_is("example.com:443", NULL);
    normal_is("[::1", NULL);
    normal_is("[1.2.3.4]", NULL);
    normal_is("127.1", NULL);
    normal_is("2130706433", NULL);
    /* What inet_aton reads as an address is one, whatever its last label:
     * never a name a 403 would offer to net.domains (red team 3). */
    normal_is("0x7f000001", NULL);
    normal_is("127.0.0.0x1", NULL);
    normal_is("0x7f.0x0.0x0.0x1", NULL);
    normal_is("0xa.0.0.1", NULL);
    normal_is("0x7f000001.example", "0x7f000001.example");
    normal_is("deadbeef.cafe", "deadbeef.cafe");
    normal_is("1.2.3.04", NULL);
    normal_is("ex\xc3\xa4mple.com", NULL);
    char nul[] = "exa\0mple.com";
    char out[LCSB__HOST_MAX + 1];
    assert_int_equal(lcsb__host_normal(nul, sizeof nul - 1, out), -1);
    assert_true(lcsb__host_is_literal("10.0.0.1"));
    assert_true(lcsb__host_is_literal("::1"));
    assert_false(lcsb__host_is_literal("example.com"));
}

static struct sockaddr_storage sockaddr_of(const char *text) {
    struct sockaddr_storage ss = {0};
    struct sockaddr_in *in = (struct sockaddr_in *)&ss;
    struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)&ss;
    if (inet_pton(AF_INET, text, &in->sin_addr) == 1)
        in->sin_family = AF_INET;
    else if (inet_pton(AF_INET6, text, &in6->sin6_addr) == 1)
        in6->sin6_family = AF_INET6;
    else
        fail_msg("%s: no address", text);
    return ss;
}

static bool public(const char *text) {
    struct sockaddr_storage ss = sockaddr_of(text);
    return lcsb__addr_public((struct sockaddr *)&ss);
}

static bool contains(const char *range, const char *text) {
    lcsb__cidr c;
    char why[300];
    if (lcsb__cidr_parse(range, &c, why, sizeof why)) fail_msg("%s: %s", range, why);
    struct sockaddr_storage ss = sockaddr_of(text);
    return lcsb__cidr_contains(&c, (struct sockaddr *)&ss);
}

static void cidr_is(const char *in, const char *want) {
    lcsb__cidr c;
    char why[300], out[64];
    if (!want) {
        if (lcsb__cidr_parse(in, &c, why, sizeof why) == 0) fail_msg("%s accepted", in);
        assert_contains(why, "net.lan: \"");
        return;
    }
    if (lcsb__cidr_parse(in, &c, why, sizeof why)) fail_msg("%s: %s", in, why);
    lcsb__cidr_format(&c, out, sizeof out);
    assert_string_equal(out, want);
}

static void test_addresses(void **state) {
    (void)state;
    cidr_is("10.0.0.0/8", "10.0.0.0/8");
    cidr_is("10.1.2.3/8", "10.0.0.0/8");
    cidr_is("127.0.0.1", "127.0.0.1");
    cidr_is("127.0.0.1/32", "127.0.0.1");
    cidr_is("FD00::/8", "fd00::/8");
    cidr_is("[::1]", "::1");
    cidr_is("0.0.0.0/0", "0.0.0.0/0");
    cidr_is("10.0.0.0/33", NULL);
    cidr_is("fd00::/129", NULL);
    cidr_is("10.0.0.0/", NULL);
    cidr_is("10.0.0.0/x", NULL);
    cidr_is("example.com", NULL);
    cidr_is("", NULL);
    cidr_is("10.0.0.0/8 ", NULL);

    assert_true(contains("10.0.0.0/8", "10.255.0.1"));
    assert_false(contains("10.0.0.0/8", "11.0.0.1"));
    assert_true(contains("172.16.0.0/12", "172.31.255.255"));
    assert_false(contains("172.16.0.0/12", "172.32.0.0"));
    assert_true(contains("127.0.0.1", "127.0.0.1"));
    assert_false(contains("127.0.0.1", "127.0.0.2"));
    assert_true(contains("::1", "::1"));
    assert_false(contains("::1", "127.0.0.1"));
    /* An IPv4-mapped address is its IPv4 address. */
    assert_true(contains("10.0.0.0/8", "::ffff:10.0.0.5"));
    assert_true(contains("::ffff:0:0/96", "::ffff:10.0.0.5"));
    assert_true(contains("fd00::/8", "fd12::1"));

    static const char *const local[] = {
        "127.0.0.1",  "127.255.0.1",     "0.0.0.0",          "0.1.2.3",
        "10.0.0.5",   "172.16.0.1",      "172.31.255.254",   "192.168.1.1",
        "100.64.0.1", "100.127.255.1",   "169.254.1.1",      "224.0.0.1",
        "239.1.1.1",  "255.255.255.255", "240.0.0.1",        "::",
        "::1",        "fc00::1",         "fd12:3456::1",     "fe80::1",
        "febf::1",    "ff02::1",         "::ffff:127.0.0.1", "::ffff:10.0.0.5",
        "::10.0.0.5", "64:ff9b::a00:5",  "fec0::1",          NULL};
    for (size_t i = 0; local[i]; i++)
        if (public(local[i])) fail_msg("%s judged public", local[i]);
    static const char *const open[] = {
        "203.0.113.80",   "192.0.2.1",        "198.51.100.7",   "8.8.8.8",
        "1.1.1.1",        "172.32.0.1",       "172.15.255.255", "100.128.0.1",
        "192.169.0.1",    "11.0.0.1",         "2001:db8::1",    "2606:4700::1111",
        "::ffff:8.8.8.8", "64:ff9b::808:808", "fe00::1",        NULL};
    for (size_t i = 0; open[i]; i++)
        if (!public(open[i])) fail_msg("%s judged not public", open[i]);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_domain_parse),        cmocka_unit_test(test_domain_match),
        cmocka_unit_test(test_domain_grants),       cmocka_unit_test(test_domain_rules),
        cmocka_unit_test(test_domain_rules_judged), cmocka_unit_test(test_host_normal),
        cmocka_unit_test(test_addresses),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
