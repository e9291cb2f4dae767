/* lcsb's proxy: the names and addresses it judges by (netname.c), the
 * requests it reads (proxy_request.c), and the proxy itself on real sockets
 * of this host: a listener on 127.0.0.1, upstream servers on threads of
 * this process, clients that speak HTTP CONNECT, absolute-URI HTTP and
 * SOCKS5 to it, well and badly. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "helpers.h"
#include "internal.h"
#include "netname.h"
#include "proxy.h"
#include "proxy_request.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

/* getaddrinfo, wrapped at link time (-Wl,--wrap=getaddrinfo): a lookup of
 * "slow.example" waits until the test lets it go, as one stuck on a DNS
 * server that does not answer would; "gone.example" is no name at all;
 * every other name is looked up. */
int __real_getaddrinfo(const char *node, const char *service, const struct addrinfo *hints,
                       struct addrinfo **res);
int __wrap_getaddrinfo(const char *node, const char *service, const struct addrinfo *hints,
                       struct addrinfo **res);

static pthread_mutex_t slow_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t slow_cond = PTHREAD_COND_INITIALIZER;
static enum { SLOW_IDLE, SLOW_INSIDE, SLOW_GO, SLOW_DONE } slow_state;

/* What "self.example" resolves to: one of this host's own addresses. */
static char self_address[INET6_ADDRSTRLEN];

int __wrap_getaddrinfo(const char *node, const char *service, const struct addrinfo *hints,
                       struct addrinfo **res) {
    if (node && strcmp(node, "gone.example") == 0) return EAI_NONAME;
    if (node && strcmp(node, "self.example") == 0 && self_address[0])
        return __real_getaddrinfo(self_address, service, hints, res);
    if (!node || strcmp(node, "slow.example") != 0)
        return __real_getaddrinfo(node, service, hints, res);
    pthread_mutex_lock(&slow_lock);
    slow_state = SLOW_INSIDE;
    pthread_cond_broadcast(&slow_cond);
    while (slow_state != SLOW_GO) pthread_cond_wait(&slow_cond, &slow_lock);
    slow_state = SLOW_DONE;
    pthread_cond_broadcast(&slow_cond);
    pthread_mutex_unlock(&slow_lock);
    return __real_getaddrinfo("localhost", service, hints, res);
}

static void slow_wait_for(int state) {
    pthread_mutex_lock(&slow_lock);
    while ((int)slow_state != state) pthread_cond_wait(&slow_cond, &slow_lock);
    pthread_mutex_unlock(&slow_lock);
}

/* ---- names ---- */

static void assert_domain(const char *entry, const char *normal) {
    lcsb__domain d, again;
    char why[300], out[300];
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
    const lcsb__domain *deny;
    assert_false(lcsb__domains_refuse(v, 3, "good.example.com", 443, &deny));
    assert_null(deny);
    assert_true(lcsb__domains_refuse(v, 3, "bad.example.com", 443, &deny));
    assert_ptr_equal(deny, &v[1]);
    /* A deny without a port holds on every port: "!host" is never that host. */
    assert_true(lcsb__domains_refuse(v, 3, "bad.example.com", 8443, &deny));
    assert_ptr_equal(deny, &v[1]);
    assert_true(lcsb__domains_refuse(v, 3, "example.com", 443, &deny));
    assert_null(deny);
    assert_true(lcsb__domains_refuse(v, 0, "example.com", 443, &deny));
    assert_null(deny);
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

/* ---- requests ---- */

/* Every prefix of DATA is MORE: a request is never judged before it is whole. */
static void assert_prefixes_more(const char *data, size_t len) {
    lcsb__request r = {0};
    for (size_t i = 0; i < len; i++)
        if (lcsb__http_request(data, i, &r) != LCSB__PARSE_MORE)
            fail_msg("a prefix of %zu bytes was judged: %s", i, r.why);
    lcsb__request_clear(&r);
}

static lcsb__parse http(const char *text, lcsb__request *r) {
    return lcsb__http_request(text, strlen(text), r);
}

static void assert_http_bad(const char *text, size_t len, int status, const char *why) {
    lcsb__request r = {0};
    if (lcsb__http_request(text, len, &r) != LCSB__PARSE_BAD) fail_msg("accepted: %s", text);
    assert_int_equal(r.status, status);
    assert_contains(r.why, why);
    lcsb__request_clear(&r);
}
#define HTTP_BAD(literal, status, why) assert_http_bad(literal, sizeof literal - 1, status, why)

static void test_request_http(void **state) {
    (void)state;
    lcsb__request r = {0};
    static const char connect[] = "CONNECT Example.com:443 HTTP/1.1\r\nHost: x\r\n\r\nHELLO";
    assert_int_equal(http(connect, &r), LCSB__PARSE_DONE);
    assert_int_equal(r.kind, LCSB__REQUEST_CONNECT);
    assert_string_equal(r.host, "example.com");
    assert_int_equal(r.port, 443);
    assert_string_equal(connect + r.used, "HELLO");
    assert_prefixes_more(connect, r.used);

    assert_int_equal(http("CONNECT [::1]:8443 HTTP/1.0\n\n", &r), LCSB__PARSE_DONE);
    assert_string_equal(r.host, "::1");
    assert_int_equal(r.port, 8443);

    static const char get[] = "POST http://Example.com:8080/p/a?q=1#frag HTTP/1.1\r\n"
                              "Host: evil.example.net\r\n"
                              "Proxy-Connection: keep-alive\r\n"
                              "Proxy-Authorization: Basic eA==\r\n"
                              "Connection: keep-alive\r\n"
                              "keep-alive: 300\r\n"
                              "Content-Length: 4\r\n"
                              "X-Other:\tv a l\r\n"
                              "\r\nbody";
    assert_int_equal(http(get, &r), LCSB__PARSE_DONE);
    assert_int_equal(r.kind, LCSB__REQUEST_FORWARD);
    assert_string_equal(r.host, "example.com");
    assert_int_equal(r.port, 8080);
    assert_string_equal(get + r.used, "body");
    assert_string_equal(r.forward.p, "POST /p/a?q=1 HTTP/1.1\r\n"
                                     "Content-Length: 4\r\n"
                                     "X-Other:\tv a l\r\n"
                                     "Host: example.com:8080\r\n"
                                     "Connection: close\r\n\r\n");
    assert_prefixes_more(get, r.used);

    assert_int_equal(http("GET HTTP://[::1]?x HTTP/1.1\n\n", &r), LCSB__PARSE_DONE);
    assert_int_equal(r.port, 80);
    assert_string_equal(r.forward.p,
                        "GET /?x HTTP/1.1\r\nHost: [::1]\r\nConnection: close\r\n\r\n");
    assert_int_equal(http("GET http://x.example HTTP/1.0\r\n\r\n", &r), LCSB__PARSE_DONE);
    assert_string_equal(r.forward.p,
                        "GET / HTTP/1.0\r\nHost: x.example\r\nConnection: close\r\n\r\n");

    assert_int_equal(http("CONNECT example.com:443 HTTP/1.1\r\nHost: x\r\n", &r), LCSB__PARSE_MORE);
    assert_int_equal(http("CONNECT example.com:443 HTTP/1.1\r", &r), LCSB__PARSE_MORE);
    assert_int_equal(http("", &r), LCSB__PARSE_MORE);
    lcsb__request_clear(&r);

    HTTP_BAD("garbage\r\n\r\n", 400, "request line");
    HTTP_BAD("GET / HTTP/1.1\r\n\r\n", 405, "this is a proxy");
    HTTP_BAD("OPTIONS * HTTP/1.1\r\n\r\n", 405, "this is a proxy");
    HTTP_BAD("GET https://example.com/ HTTP/1.1\r\n\r\n", 400, "by CONNECT");
    HTTP_BAD("GET ftp://example.com/ HTTP/1.1\r\n\r\n", 400, "only http://");
    HTTP_BAD("CONNECT example.com HTTP/1.1\r\n\r\n", 400, "no port");
    HTTP_BAD("CONNECT example.com:0 HTTP/1.1\r\n\r\n", 400, "port");
    HTTP_BAD("CONNECT example.com:99999 HTTP/1.1\r\n\r\n", 400, "port");
    HTTP_BAD("CONNECT ::1:443 HTTP/1.1\r\n\r\n", 400, "brackets");
    HTTP_BAD("CONNECT u:p@example.com:443 HTTP/1.1\r\n\r\n", 400, "user or password");
    HTTP_BAD("GET http://allowed.example@evil.example/ HTTP/1.1\r\n\r\n", 400, "user");
    HTTP_BAD("GET http://ex ample/ HTTP/1.1\r\n\r\n", 400, "HTTP/1.0 or HTTP/1.1");
    HTTP_BAD("GET http:///x HTTP/1.1\r\n\r\n", 400, "no host");
    HTTP_BAD("GET http://127.1/ HTTP/1.1\r\n\r\n", 400, "not a host name");
    HTTP_BAD("GET http://0x7f000001/ HTTP/1.1\r\n\r\n", 400, "not a host name");
    HTTP_BAD("CONNECT 127.0.0.0x1:443 HTTP/1.1\r\n\r\n", 400, "not a host name");
    HTTP_BAD("GET http://x.example/ HTTP/2\r\n\r\n", 400, "HTTP/1.0 or HTTP/1.1");
    HTTP_BAD("GET http://x.example/ HTTP/1.1\r\n folded\r\n\r\n", 400, "folded");
    HTTP_BAD("GET http://x.example/ HTTP/1.1\r\nNo colon\r\n\r\n", 400, "NAME:");
    HTTP_BAD("GET http://x.example/ HTTP/1.1\r\nName : v\r\n\r\n", 400, "NAME:");
    HTTP_BAD("GET http://x.example/ HTTP/1.1\rX: y\r\n\r\n", 400, "CR");
    /* Refused at once, before a newline: NUL bytes, control bytes, binary. */
    HTTP_BAD("GET \0http://x", 400, "control character");
    HTTP_BAD("\x16\x03\x01\x02\x00", 400, "control character");
    HTTP_BAD("\x80\x81", 400, "not an HTTP request");
    HTTP_BAD("\r\n\r\n", 400, "request line");

    /* A head over 16 KiB, with or without its end. */
    size_t big = LCSB__REQUEST_HEAD_MAX + 100;
    char *head = malloc(big + 1);
    assert_non_null(head);
    const char *start = "CONNECT example.com:443 HTTP/1.1\r\nX: ";
    memset(head, 'a', big);
    memcpy(head, start, strlen(start));
    memcpy(head + big - 4, "\r\n\r\n", 4);
    head[big] = '\0';
    assert_http_bad(head, big, 431, "16 KiB");
    assert_http_bad(head, LCSB__REQUEST_HEAD_MAX, 431, "16 KiB");
    assert_int_equal(lcsb__http_request(head, LCSB__REQUEST_HEAD_MAX - 1, &r), LCSB__PARSE_MORE);
    lcsb__request_clear(&r);
    free(head);
}

static void test_request_socks(void **state) {
    (void)state;
    lcsb__request r = {0};
    static const unsigned char hello[] = {5, 2, 2, 0};
    for (size_t i = 0; i < sizeof hello; i++)
        assert_int_equal(lcsb__socks_greeting(hello, i, &r), LCSB__PARSE_MORE);
    assert_int_equal(lcsb__socks_greeting(hello, sizeof hello, &r), LCSB__PARSE_DONE);
    assert_int_equal(r.used, 4);
    static const unsigned char no_method0[] = {5, 1, 2};
    assert_int_equal(lcsb__socks_greeting(no_method0, 3, &r), LCSB__PARSE_BAD);
    assert_int_equal(r.status, 0xff);
    static const unsigned char none[] = {5, 0};
    assert_int_equal(lcsb__socks_greeting(none, 2, &r), LCSB__PARSE_BAD);
    static const unsigned char v4[] = {4, 1};
    assert_int_equal(lcsb__socks_greeting(v4, 1, &r), LCSB__PARSE_BAD);

    static const unsigned char name[] = {5,   1,   0,   3,   9,   'L',  'o',  'c', 'a',
                                         'l', 'h', 'o', 's', 't', 0x1f, 0x90, 'x'};
    for (size_t i = 0; i < sizeof name - 1; i++)
        assert_int_equal(lcsb__socks_request(name, i, &r), LCSB__PARSE_MORE);
    assert_int_equal(lcsb__socks_request(name, sizeof name, &r), LCSB__PARSE_DONE);
    assert_string_equal(r.host, "localhost");
    assert_int_equal(r.port, 8080);
    assert_int_equal(r.used, sizeof name - 1);
    static const unsigned char ip4[] = {5, 1, 0, 1, 10, 0, 0, 1, 1, 187};
    assert_int_equal(lcsb__socks_request(ip4, sizeof ip4, &r), LCSB__PARSE_DONE);
    assert_string_equal(r.host, "10.0.0.1");
    assert_int_equal(r.port, 443);
    static const unsigned char ip6[] = {5, 1, 0, 4, 0, 0, 0, 0, 0, 0, 0,
                                        0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 80};
    assert_int_equal(lcsb__socks_request(ip6, sizeof ip6, &r), LCSB__PARSE_DONE);
    assert_string_equal(r.host, "::1");

    static const unsigned char bind[] = {5, 2, 0, 1};
    assert_int_equal(lcsb__socks_request(bind, sizeof bind, &r), LCSB__PARSE_BAD);
    assert_int_equal(r.status, 0x07);
    static const unsigned char atyp[] = {5, 1, 0, 9, 0, 0};
    assert_int_equal(lcsb__socks_request(atyp, sizeof atyp, &r), LCSB__PARSE_BAD);
    assert_int_equal(r.status, 0x08);
    static const unsigned char port0[] = {5, 1, 0, 1, 10, 0, 0, 1, 0, 0};
    assert_int_equal(lcsb__socks_request(port0, sizeof port0, &r), LCSB__PARSE_BAD);
    static const unsigned char badname[] = {5, 1, 0, 3, 3, 'a', ' ', 'b', 0, 80};
    assert_int_equal(lcsb__socks_request(badname, sizeof badname, &r), LCSB__PARSE_BAD);
    assert_int_equal(r.status, 0x01);
    lcsb__request_clear(&r);
}

/* ---- the proxy on real sockets ---- */

#define IO_SECONDS 10

static int listen_local(uint16_t *port) {
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    assert_true(fd >= 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t len = sizeof a;
    assert_int_equal(bind(fd, (struct sockaddr *)&a, sizeof a), 0);
    assert_int_equal(listen(fd, 1024), 0);
    assert_int_equal(getsockname(fd, (struct sockaddr *)&a, &len), 0);
    *port = ntohs(a.sin_port);
    return fd;
}

static int dial(uint16_t port) {
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    assert_true(fd >= 0);
    struct timeval tv = {.tv_sec = IO_SECONDS};
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
    struct sockaddr_in a = {
        .sin_family = AF_INET, .sin_port = htons(port), .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    if (connect(fd, (struct sockaddr *)&a, sizeof a) != 0)
        fail_msg("cannot connect to port %u: %s", port, strerror(errno));
    return fd;
}

static void put(int fd, const void *data, size_t len) {
    const char *p = data;
    while (len) {
        ssize_t n = send(fd, p, len, MSG_NOSIGNAL);
        if (n <= 0) fail_msg("send: %s", strerror(errno));
        p += n;
        len -= (size_t)n;
    }
}
static void puts_(int fd, const char *s) { put(fd, s, strlen(s)); }

/* Exactly LEN bytes. */
static void get(int fd, void *buf, size_t len) {
    char *p = buf;
    while (len) {
        ssize_t n = recv(fd, p, len, 0);
        if (n <= 0) fail_msg("recv: %s", n ? strerror(errno) : "end of stream");
        p += n;
        len -= (size_t)n;
    }
}

/* An HTTP head, byte by byte, so that nothing after it is taken. */
static void get_head(int fd, char *buf, size_t cap) {
    size_t n = 0;
    while (n + 1 < cap) {
        get(fd, buf + n, 1);
        n++;
        buf[n] = '\0';
        if (n >= 4 && memcmp(buf + n - 4, "\r\n\r\n", 4) == 0) return;
    }
    fail_msg("no head end in %zu bytes", n);
}

/* Everything until the end of the stream (at most CAP - 1 bytes), NUL-terminated. */
static size_t get_all(int fd, char *buf, size_t cap) {
    size_t n = 0;
    for (;;) {
        ssize_t k = recv(fd, buf + n, cap - 1 - n, 0);
        if (k < 0) fail_msg("recv: %s", strerror(errno));
        if (k == 0) break;
        n += (size_t)k;
        assert_true(n < cap - 1);
    }
    buf[n] = '\0';
    return n;
}

/* An upstream server on a thread of its own: an echo, a one-shot HTTP
 * server that keeps the head it got, or a source of BULK bytes. */
typedef enum { ECHO, HTTP, BULK } mode;
#define UP_CONNS 512

typedef struct upstream {
    mode mode;
    int fd;
    uint16_t port;
    size_t bulk;
    pthread_t acceptor;
    pthread_mutex_t lock;
    pthread_t threads[UP_CONNS];
    int fds[UP_CONNS];
    size_t n;
    char head[4096];
} upstream;

typedef struct up_conn {
    upstream *up;
    int fd;
} up_conn;

static unsigned char pattern(size_t i) { return (unsigned char)(i * 131 + (i >> 16)); }

static void *up_serve(void *arg) {
    up_conn *uc = arg;
    upstream *up = uc->up;
    int fd = uc->fd;
    free(uc);
    char *buf = malloc(1 << 16);
    if (!buf) abort(); /* cmocka's asserts belong to the main thread */
    ssize_t n;
    if (up->mode == ECHO) {
        while ((n = recv(fd, buf, 1 << 16, 0)) > 0)
            if (send(fd, buf, (size_t)n, MSG_NOSIGNAL) != n) break;
        shutdown(fd, SHUT_WR);
    } else if (up->mode == HTTP) {
        size_t got = 0;
        while (got < sizeof up->head - 1 && (n = recv(fd, buf, 1, 0)) == 1) {
            pthread_mutex_lock(&up->lock);
            up->head[got++] = buf[0];
            up->head[got] = '\0';
            pthread_mutex_unlock(&up->lock);
            if (got >= 4 && memcmp(up->head + got - 4, "\r\n\r\n", 4) == 0) break;
        }
        const char *ok = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok";
        (void)!send(fd, ok, strlen(ok), MSG_NOSIGNAL);
        shutdown(fd, SHUT_WR);
        while (recv(fd, buf, 1 << 16, 0) > 0) {
        }
    } else {
        for (size_t sent = 0; sent < up->bulk;) {
            size_t k = up->bulk - sent < (1 << 16) ? up->bulk - sent : (1 << 16);
            for (size_t i = 0; i < k; i++) buf[i] = (char)pattern(sent + i);
            if ((n = send(fd, buf, k, MSG_NOSIGNAL)) <= 0) break;
            sent += (size_t)n;
        }
        shutdown(fd, SHUT_WR);
        while (recv(fd, buf, 1 << 16, 0) > 0) {
        }
    }
    free(buf);
    return NULL;
}

static void *up_accept(void *arg) {
    upstream *up = arg;
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setstacksize(&attr, 256 * 1024);
    for (;;) {
        int fd = accept4(up->fd, NULL, NULL, SOCK_CLOEXEC);
        if (fd < 0) break;
        up_conn *uc = malloc(sizeof *uc);
        if (!uc) abort();
        *uc = (up_conn){up, fd};
        pthread_mutex_lock(&up->lock);
        if (up->n >= UP_CONNS) abort();
        up->fds[up->n] = fd;
        if (pthread_create(&up->threads[up->n], &attr, up_serve, uc) != 0) abort();
        up->n++;
        pthread_mutex_unlock(&up->lock);
    }
    pthread_attr_destroy(&attr);
    return NULL;
}

static upstream *upstream_start(mode m, size_t bulk) {
    upstream *up = calloc(1, sizeof *up);
    assert_non_null(up);
    up->mode = m;
    up->bulk = bulk;
    pthread_mutex_init(&up->lock, NULL);
    up->fd = listen_local(&up->port);
    assert_int_equal(pthread_create(&up->acceptor, NULL, up_accept, up), 0);
    return up;
}

static void upstream_stop(upstream *up) {
    shutdown(up->fd, SHUT_RDWR); /* wakes accept */
    pthread_join(up->acceptor, NULL);
    for (size_t i = 0; i < up->n; i++) shutdown(up->fds[i], SHUT_RDWR);
    for (size_t i = 0; i < up->n; i++) {
        pthread_join(up->threads[i], NULL);
        close(up->fds[i]);
    }
    close(up->fd);
    pthread_mutex_destroy(&up->lock);
    free(up);
}

typedef struct proxy_fx {
    lcsb__proxy *proxy;
    uint16_t port;
    lcsb_net_refusal refused[LCSB_NET_REFUSALS_MAX];
    size_t refused_n;
} proxy_fx;

/* A proxy serving DOMAINS and LAN (NULL-terminated) on 127.0.0.1. */
static void proxy_up(proxy_fx *f, const char *const *domains, const char *const *lan) {
    memset(f, 0, sizeof *f);
    lcsb_policy *policy = new_policy();
    lcsb_error err = {0};
    for (size_t i = 0; domains && domains[i]; i++)
        if (lcsb_policy_add_domain(policy, domains[i], &err)) fail_msg("%s", err.message);
    for (size_t i = 0; lan && lan[i]; i++)
        if (lcsb_policy_add_lan(policy, lan[i], &err)) fail_msg("%s", err.message);
    int fd = listen_local(&f->port);
    if (lcsb__proxy_start(policy, fd, &f->proxy, &err)) fail_msg("proxy: %s", err.message);
    /* The proxy keeps a copy: the policy may go. */
    lcsb_policy_free(policy);
}

static void proxy_down(proxy_fx *f) {
    lcsb__proxy_stop(f->proxy, f->refused, LCSB_NET_REFUSALS_MAX, &f->refused_n);
    f->proxy = NULL;
}

/* CONNECT AUTHORITY through the proxy; the status line's code. */
static int http_connect(int fd, const char *authority, char *head, size_t cap) {
    char req[512];
    FMT(req, "CONNECT %s HTTP/1.1\r\nHost: %s\r\n\r\n", authority, authority);
    puts_(fd, req);
    get_head(fd, head, cap);
    assert_true(strncmp(head, "HTTP/1.1 ", 9) == 0);
    return atoi(head + 9);
}

static void assert_echoes(int fd, const char *text) {
    char buf[256];
    size_t n = strlen(text);
    assert_true(n < sizeof buf);
    puts_(fd, text);
    get(fd, buf, n);
    assert_memory_equal(buf, text, n);
}

static void test_connect_relays(void **state) {
    (void)state;
    upstream *up = upstream_start(ECHO, 0);
    char entry[64], head[1024], buf[256];
    FMT(entry, "localhost:%u", up->port);
    const char *const domains[] = {entry, NULL};
    const char *const lan[] = {"127.0.0.1", "::1", NULL};
    proxy_fx f;
    proxy_up(&f, domains, lan);

    int fd = dial(f.port);
    char req[256];
    /* What the client sends after its head goes upstream first. */
    FMT(req, "CONNECT LOCALHOST.:%u HTTP/1.1\r\n\r\nearly ", up->port);
    puts_(fd, req);
    get_head(fd, head, sizeof head);
    assert_string_equal(head, "HTTP/1.1 200 Connection established\r\n\r\n");
    get(fd, buf, 6);
    assert_memory_equal(buf, "early ", 6);
    assert_echoes(fd, "hello, both ways");
    /* A half-close passes on: the echo ends, and so does the tunnel. */
    shutdown(fd, SHUT_WR);
    assert_int_equal(get_all(fd, buf, sizeof buf), 0);
    close(fd);

    /* The same port by another spelling of the name is the same entry. */
    fd = dial(f.port);
    FMT(req, "localhost.:%u", up->port);
    assert_int_equal(http_connect(fd, req, head, sizeof head), 200);
    assert_echoes(fd, "again");
    close(fd);

    proxy_down(&f);
    assert_int_equal(f.refused_n, 0);
    upstream_stop(up);
}

/* Absolute-URI HTTP goes on in origin form, without the proxy's headers,
 * with the URI's Host and Connection: close. */
static void test_forward_rewrites(void **state) {
    (void)state;
    upstream *up = upstream_start(HTTP, 0);
    char entry[64], req[512], buf[1024], want[256];
    FMT(entry, "localhost:%u", up->port);
    const char *const domains[] = {entry, NULL};
    const char *const lan[] = {"127.0.0.1", NULL};
    proxy_fx f;
    proxy_up(&f, domains, lan);
    int fd = dial(f.port);
    FMT(req,
        "DELETE http://localhost:%u/x HTTP/1.1\r\nHost: evil.example.net\r\n"
        "Proxy-Connection: keep-alive\r\nConnection: keep-alive\r\nKeep-Alive: 5\r\n"
        "Proxy-Authorization: Basic eDp5\r\nUser-Agent: test\r\n\r\n",
        up->port);
    puts_(fd, req);
    get_all(fd, buf, sizeof buf);
    assert_contains(buf, "\r\n\r\nok");
    close(fd);
    FMT(want,
        "DELETE /x HTTP/1.1\r\nUser-Agent: test\r\nHost: localhost:%u\r\n"
        "Connection: close\r\n\r\n",
        up->port);
    pthread_mutex_lock(&up->lock);
    assert_string_equal(up->head, want);
    pthread_mutex_unlock(&up->lock);
    proxy_down(&f);
    upstream_stop(up);
}

static void test_refused_recorded(void **state) {
    (void)state;
    const char *const domains[] = {"*.example.com", "!bad.example.com", "10.9.8.7", NULL};
    proxy_fx f;
    proxy_up(&f, domains, NULL);
    char head[1024], body[1024];

    for (int i = 0; i < 2; i++) {
        int fd = dial(f.port);
        assert_int_equal(http_connect(fd, "Evil.Example.NET:443", head, sizeof head), 403);
        assert_contains(head, "Content-Type: text/plain\r\n");
        assert_contains(head, "Connection: close\r\n");
        get_all(fd, body, sizeof body);
        assert_string_equal(body,
                            "lcsb: evil.example.net:443 is not in the policy's net.domains; "
                            "to allow it, add net = { domains = { \"evil.example.net\" } }\n");
        close(fd);
    }
    int fd = dial(f.port);
    assert_int_equal(http_connect(fd, "evil.example.net:8443", head, sizeof head), 403);
    get_all(fd, body, sizeof body);
    assert_contains(body, "add net = { domains = { \"evil.example.net:8443\" } }");
    close(fd);

    /* The apex of a wildcard is not below it; a deny wins over it. */
    fd = dial(f.port);
    assert_int_equal(http_connect(fd, "example.com:443", head, sizeof head), 403);
    close(fd);
    fd = dial(f.port);
    assert_int_equal(http_connect(fd, "bad.example.com:443", head, sizeof head), 403);
    get_all(fd, body, sizeof body);
    assert_contains(body, "denied by \"!bad.example.com\"");
    close(fd);

    /* An IP literal only by its own entry, however it resolves. */
    fd = dial(f.port);
    assert_int_equal(http_connect(fd, "10.1.2.3:443", head, sizeof head), 403);
    get_all(fd, body, sizeof body);
    assert_contains(body, "add net = { domains = { \"10.1.2.3\" } }");
    close(fd);
    fd = dial(f.port);
    assert_int_equal(http_connect(fd, "[::ffff:10.9.8.7]:443", head, sizeof head), 403);
    close(fd);

    /* The absolute-URI form is held to the same list. */
    fd = dial(f.port);
    puts_(fd, "GET http://evil.example.net/x HTTP/1.1\r\n\r\n");
    get_all(fd, body, sizeof body);
    assert_contains(body, "HTTP/1.1 403 Forbidden\r\n");
    assert_contains(body, "evil.example.net:80 is not in the policy's net.domains");
    close(fd);

    proxy_down(&f);
    assert_int_equal(f.refused_n, 7);
    static const struct {
        const char *host;
        unsigned port, attempts;
        const char *why;
    } want[] = {
        {"evil.example.net", 443, 2, "not in net.domains"},
        {"evil.example.net", 8443, 1, "not in net.domains"},
        {"example.com", 443, 1, "not in net.domains"},
        {"bad.example.com", 443, 1, "denied by !bad.example.com"},
        {"10.1.2.3", 443, 1, "an IP literal no entry names"},
        {"::ffff:10.9.8.7", 443, 1, "an IP literal no entry names"},
        {"evil.example.net", 80, 1, "not in net.domains"},
    };
    for (size_t i = 0; i < 7; i++) {
        assert_string_equal(f.refused[i].host, want[i].host);
        assert_int_equal(f.refused[i].port, want[i].port);
        assert_int_equal(f.refused[i].attempts, want[i].attempts);
        assert_string_equal(f.refused[i].why, want[i].why);
    }
}

static void test_refusals_counted_past_the_kept(void **state) {
    (void)state;
    const char *const domains[] = {"allowed.example", NULL};
    proxy_fx f;
    proxy_up(&f, domains, NULL);
    char head[512], name[64];
    for (int i = 0; i < LCSB_NET_REFUSALS_MAX + 4; i++) {
        for (int again = 0; again < (i == LCSB_NET_REFUSALS_MAX + 1 ? 2 : 1); again++) {
            int fd = dial(f.port);
            FMT(name, "n%d.example:443", i);
            assert_int_equal(http_connect(fd, name, head, sizeof head), 403);
            close(fd);
        }
    }
    proxy_down(&f);
    assert_int_equal(f.refused_n, LCSB_NET_REFUSALS_MAX + 4);
    assert_string_equal(f.refused[0].host, "n0.example");
    assert_string_equal(f.refused[LCSB_NET_REFUSALS_MAX - 1].host, "n15.example");
}

static void test_private_address_refused(void **state) {
    (void)state;
    upstream *up = upstream_start(ECHO, 0);
    char entry[64], literal[64], head[1024], body[1024], authority[64];
    FMT(entry, "localhost:%u", up->port);
    FMT(literal, "127.0.0.1:%u", up->port);
    const char *const domains[] = {entry, literal, NULL};
    proxy_fx f;
    proxy_up(&f, domains, NULL);

    /* A listed name that leads to loopback, with no net.lan. (A host may
     * list ::1 for localhost first.) */
    int fd = dial(f.port);
    assert_int_equal(http_connect(fd, entry, head, sizeof head), 403);
    get_all(fd, body, sizeof body);
    const char *loopback = strstr(body, "resolves to ::1") ? "::1" : "127.0.0.1";
    char want[256];
    FMT(want,
        "resolves to %s, a loopback, private or link-local address that the policy's net.lan "
        "does not name; to allow it, add net = { lan = { \"%s\" } }",
        loopback, loopback);
    assert_contains(body, want);
    close(fd);
    /* The literal itself is named by its entry: it is allowed, private or not. */
    fd = dial(f.port);
    FMT(authority, "127.0.0.1:%u", up->port);
    assert_int_equal(http_connect(fd, authority, head, sizeof head), 200);
    assert_echoes(fd, "named");
    close(fd);

    proxy_down(&f);
    assert_int_equal(f.refused_n, 1);
    assert_string_equal(f.refused[0].host, "localhost");
    FMT(want,
        "resolves to %s, a loopback, private or link-local address that net.lan does not name",
        loopback);
    assert_string_equal(f.refused[0].why, want);
    upstream_stop(up);
}

/* An allowed host that cannot be reached is a 502, not a refusal: the
 * record keeps it all the same, with why it failed, so that a hint can say
 * so rather than suggest a grant. */
static void test_connect_failure_recorded(void **state) {
    (void)state;
    /* A port nothing listens on: bound, then closed. */
    uint16_t port;
    close(listen_local(&port));
    char entry[64], head[1024], body[1024];
    FMT(entry, "localhost:%u", port);
    const char *const domains[] = {entry, NULL};
    const char *const lan[] = {"127.0.0.1", NULL};
    proxy_fx f;
    proxy_up(&f, domains, lan);
    int fd = dial(f.port);
    assert_int_equal(http_connect(fd, entry, head, sizeof head), 502);
    get_all(fd, body, sizeof body);
    assert_contains(body, "lcsb: cannot connect to localhost port");
    close(fd);
    proxy_down(&f);
    assert_int_equal(f.refused_n, 1);
    assert_string_equal(f.refused[0].why, "cannot connect: Connection refused");
}

static void test_resolve_failure_recorded(void **state) {
    (void)state;
    const char *const domains[] = {"gone.example", NULL};
    proxy_fx f;
    proxy_up(&f, domains, NULL);
    char head[1024], body[1024];
    int fd = dial(f.port);
    assert_int_equal(http_connect(fd, "gone.example:443", head, sizeof head), 502);
    get_all(fd, body, sizeof body);
    assert_contains(body, "lcsb: cannot resolve gone.example: ");
    close(fd);
    /* SOCKS5 says the host is unreachable. */
    fd = dial(f.port);
    static const unsigned char hello[] = {5, 1, 0};
    static const unsigned char req[] = {5,   1,   0,   3,   12,  'g', 'o', 'n', 'e', '.',
                                        'e', 'x', 'a', 'm', 'p', 'l', 'e', 1,   187};
    unsigned char reply[10];
    put(fd, hello, sizeof hello);
    get(fd, reply, 2);
    put(fd, req, sizeof req);
    get(fd, reply, sizeof reply);
    assert_int_equal(reply[1], 0x04);
    close(fd);
    proxy_down(&f);
    assert_int_equal(f.refused_n, 1);
    assert_int_equal(f.refused[0].attempts, 2);
    assert_non_null(strstr(f.refused[0].why, "cannot resolve it: "));
}

/* SOCKS5: the greeting, then CONNECT to ATYP; the reply's code. */
static int socks(int fd, const unsigned char *request, size_t len) {
    static const unsigned char hello[] = {5, 1, 0};
    unsigned char reply[10];
    put(fd, hello, sizeof hello);
    get(fd, reply, 2);
    assert_int_equal(reply[0], 5);
    assert_int_equal(reply[1], 0);
    put(fd, request, len);
    get(fd, reply, sizeof reply);
    assert_int_equal(reply[0], 5);
    assert_int_equal(reply[3], 1);
    return reply[1];
}

static void test_socks(void **state) {
    (void)state;
    upstream *up = upstream_start(ECHO, 0);
    char entry[64];
    FMT(entry, "localhost:%u", up->port);
    const char *const domains[] = {entry, NULL};
    const char *const lan[] = {"127.0.0.1", "::1", NULL};
    proxy_fx f;
    proxy_up(&f, domains, lan);

    int fd = dial(f.port);
    unsigned char req[32] = {5,
                             1,
                             0,
                             3,
                             9,
                             'l',
                             'o',
                             'c',
                             'a',
                             'l',
                             'h',
                             'o',
                             's',
                             't',
                             (unsigned char)(up->port >> 8),
                             (unsigned char)up->port};
    assert_int_equal(socks(fd, req, 16), 0);
    assert_echoes(fd, "through socks");
    close(fd);

    fd = dial(f.port);
    unsigned char ip[] = {5, 1, 0, 1, 10, 0, 0, 1, 1, 187};
    assert_int_equal(socks(fd, ip, sizeof ip), 0x02);
    close(fd);
    fd = dial(f.port);
    unsigned char ip6[] = {5, 1, 0, 4, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 187};
    assert_int_equal(socks(fd, ip6, sizeof ip6), 0x02);
    close(fd);
    fd = dial(f.port);
    unsigned char bind[] = {5, 2, 0, 1, 10, 0, 0, 1, 1, 187};
    assert_int_equal(socks(fd, bind, sizeof bind), 0x07);
    close(fd);
    fd = dial(f.port);
    unsigned char atyp[] = {5, 1, 0, 7, 10, 0, 0, 1, 1, 187};
    assert_int_equal(socks(fd, atyp, sizeof atyp), 0x08);
    close(fd);

    /* A greeting that offers only username/password is refused. */
    fd = dial(f.port);
    static const unsigned char userpass[] = {5, 1, 2};
    unsigned char reply[4];
    put(fd, userpass, sizeof userpass);
    get(fd, reply, 2);
    assert_int_equal(reply[1], 0xff);
    assert_int_equal(get_all(fd, (char *)reply, sizeof reply), 0);
    close(fd);

    proxy_down(&f);
    assert_int_equal(f.refused_n, 2);
    assert_string_equal(f.refused[0].host, "10.0.0.1");
    assert_string_equal(f.refused[1].host, "::1");
    assert_string_equal(f.refused[1].why, "an IP literal no entry names");
    upstream_stop(up);
}

/* TEXT (LEN bytes) to the proxy: its answer's status code. */
static int answer_to(uint16_t port, const char *text, size_t len, char *body, size_t cap) {
    int fd = dial(port);
    put(fd, text, len);
    get_all(fd, body, cap);
    close(fd);
    assert_true(strncmp(body, "HTTP/1.1 ", 9) == 0);
    return atoi(body + 9);
}
#define ANSWER(port, literal, body) answer_to(port, literal, sizeof literal - 1, body, sizeof body)

static void test_malformed(void **state) {
    (void)state;
    upstream *up = upstream_start(ECHO, 0);
    char entry[64], body[2048], head[1024];
    FMT(entry, "localhost:%u", up->port);
    const char *const domains[] = {entry, NULL};
    const char *const lan[] = {"127.0.0.1", NULL};
    proxy_fx f;
    proxy_up(&f, domains, lan);

    assert_int_equal(ANSWER(f.port, "garbage\r\n\r\n", body), 400);
    assert_contains(body, "Connection: close\r\n");
    assert_int_equal(ANSWER(f.port, "GET \0\0\0 HTTP/1.1\r\n\r\n", body), 400);
    assert_int_equal(ANSWER(f.port, "\x16\x03\x01\x00\xa5\x01\x00\x00", body), 400);
    assert_int_equal(ANSWER(f.port, "CONNECT localhost HTTP/1.1\r\n\r\n", body), 400);
    assert_contains(body, "no port");
    assert_int_equal(ANSWER(f.port, "GET https://localhost/ HTTP/1.1\r\n\r\n", body), 400);
    assert_int_equal(ANSWER(f.port, "GET / HTTP/1.1\r\nHost: localhost\r\n\r\n", body), 405);
    assert_contains(body, "this is a proxy");

    /* An overlong head, sent whole: the answer still arrives, though the
     * proxy stopped reading halfway. */
    size_t big = LCSB__REQUEST_HEAD_MAX + 4096;
    char *text = malloc(big);
    assert_non_null(text);
    memset(text, 'a', big);
    const char *start = "GET http://localhost/ HTTP/1.1\r\nX: ";
    memcpy(text, start, strlen(start));
    memcpy(text + big - 4, "\r\n\r\n", 4);
    assert_int_equal(answer_to(f.port, text, big, body, sizeof body), 431);
    free(text);

    /* And it still serves. */
    int fd = dial(f.port);
    assert_int_equal(http_connect(fd, entry, head, sizeof head), 200);
    assert_echoes(fd, "still here");
    close(fd);
    proxy_down(&f);
    assert_int_equal(f.refused_n, 0);
    upstream_stop(up);
}

static void test_slow_client(void **state) {
    (void)state;
    upstream *up = upstream_start(ECHO, 0);
    char entry[64], head[1024];
    FMT(entry, "localhost:%u", up->port);
    const char *const domains[] = {entry, NULL};
    const char *const lan[] = {"127.0.0.1", NULL};
    proxy_fx f;
    proxy_up(&f, domains, lan);

    /* Half a head, then nothing: the others are served meanwhile. */
    int slow[8];
    for (int i = 0; i < 8; i++) {
        slow[i] = dial(f.port);
        puts_(slow[i], "CONNECT local");
    }
    double t0 = now_seconds();
    for (int i = 0; i < 4; i++) {
        int fd = dial(f.port);
        assert_int_equal(http_connect(fd, entry, head, sizeof head), 200);
        assert_echoes(fd, "served");
        close(fd);
    }
    assert_true(now_seconds() - t0 < 2);
    /* The slow ones have their whole head time; they can still finish. */
    char rest[64];
    FMT(rest, "host:%u HTTP/1.1\r\n\r\n", up->port);
    puts_(slow[0], rest);
    get_head(slow[0], head, sizeof head);
    assert_string_equal(head, "HTTP/1.1 200 Connection established\r\n\r\n");
    for (int i = 0; i < 8; i++) close(slow[i]);
    proxy_down(&f);
    upstream_stop(up);
}

#define MANY 200

static void test_many_at_once(void **state) {
    (void)state;
    upstream *up = upstream_start(ECHO, 0);
    char entry[64], head[1024], msg[64], buf[64];
    FMT(entry, "localhost:%u", up->port);
    const char *const domains[] = {entry, NULL};
    const char *const lan[] = {"127.0.0.1", NULL};
    proxy_fx f;
    proxy_up(&f, domains, lan);

    int fds[MANY];
    char req[128];
    FMT(req, "CONNECT %s HTTP/1.1\r\n\r\n", entry);
    for (int i = 0; i < MANY; i++) {
        fds[i] = dial(f.port);
        puts_(fds[i], req);
    }
    for (int i = 0; i < MANY; i++) {
        get_head(fds[i], head, sizeof head);
        assert_string_equal(head, "HTTP/1.1 200 Connection established\r\n\r\n");
    }
    /* All open at once, each with bytes of its own. */
    for (int i = 0; i < MANY; i++) {
        FMT(msg, "connection %d", i);
        puts_(fds[i], msg);
    }
    for (int i = 0; i < MANY; i++) {
        FMT(msg, "connection %d", i);
        get(fds[i], buf, strlen(msg));
        assert_memory_equal(buf, msg, strlen(msg));
        close(fds[i]);
    }
    proxy_down(&f);
    upstream_stop(up);
}

static void test_busy(void **state) {
    (void)state;
    const char *const domains[] = {"localhost", NULL};
    proxy_fx f;
    proxy_up(&f, domains, NULL);
    /* 512 connections that say nothing yet hold every place. */
    enum { CAP = 512 };
    int *fds = calloc(CAP, sizeof *fds);
    assert_non_null(fds);
    char body[512];
    for (int i = 0; i < CAP; i++) {
        fds[i] = dial(f.port);
        puts_(fds[i], "C");
    }
    /* The acceptor counts them as it takes them: wait until it has. */
    int code = 0;
    for (int tries = 0; tries < 100 && code != 503; tries++) {
        int fd = dial(f.port);
        struct pollfd p = {.fd = fd, .events = POLLIN};
        if (poll(&p, 1, 50) == 1) {
            get_all(fd, body, sizeof body);
            code = atoi(body + 9);
        }
        close(fd);
    }
    assert_int_equal(code, 503);
    for (int i = 0; i < CAP; i++) close(fds[i]);
    free(fds);
    proxy_down(&f);
}

static void test_bulk_download(void **state) {
    (void)state;
    size_t total = 16 << 20;
    upstream *up = upstream_start(BULK, total);
    char entry[64], head[1024];
    FMT(entry, "localhost:%u", up->port);
    const char *const domains[] = {entry, NULL};
    const char *const lan[] = {"127.0.0.1", NULL};
    proxy_fx f;
    proxy_up(&f, domains, lan);
    int fd = dial(f.port);
    assert_int_equal(http_connect(fd, entry, head, sizeof head), 200);
    unsigned char *buf = malloc(1 << 16);
    assert_non_null(buf);
    size_t got = 0;
    ssize_t n;
    while ((n = recv(fd, buf, 1 << 16, 0)) > 0) {
        for (ssize_t i = 0; i < n; i++)
            if (buf[i] != pattern(got + (size_t)i)) fail_msg("byte %zu differs", got + (size_t)i);
        got += (size_t)n;
    }
    assert_int_equal(n, 0);
    assert_int_equal(got, total);
    free(buf);
    close(fd);
    proxy_down(&f);
    upstream_stop(up);
}

static void test_stop_with_connections_open(void **state) {
    (void)state;
    upstream *up = upstream_start(ECHO, 0);
    char entry[64], head[1024], buf[16];
    FMT(entry, "localhost:%u", up->port);
    const char *const domains[] = {entry, NULL};
    const char *const lan[] = {"127.0.0.1", NULL};
    proxy_fx f;
    proxy_up(&f, domains, lan);
    int open[6];
    for (int i = 0; i < 4; i++) {
        open[i] = dial(f.port);
        assert_int_equal(http_connect(open[i], entry, head, sizeof head), 200);
    }
    open[4] = dial(f.port);
    puts_(open[4], "CONNECT loc");
    open[5] = dial(f.port);

    double t0 = now_seconds();
    proxy_down(&f);
    assert_true(now_seconds() - t0 < 1.0);
    /* Every client sees its connection end, and nobody listens any more. */
    for (int i = 0; i < 6; i++) {
        ssize_t n = recv(open[i], buf, sizeof buf, 0);
        assert_true(n <= 0);
        close(open[i]);
    }
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    struct sockaddr_in a = {.sin_family = AF_INET,
                            .sin_port = htons(f.port),
                            .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    assert_int_equal(connect(fd, (struct sockaddr *)&a, sizeof a), -1);
    close(fd);
    upstream_stop(up);
}

/* This process's threads, as the kernel counts them. */
static int threads_now(void) {
    char status[4096];
    read_file("/proc/self/status", status, sizeof status);
    const char *t = strstr(status, "\nThreads:");
    assert_non_null(t);
    return atoi(t + 9);
}

/* A thread inside getaddrinfo cannot be woken: stop waits its second and
 * leaves it behind, and it ends on its own later, reporting nothing (the
 * name resolves to loopback, which net.lan does not name) and freeing
 * what it shared with stop (the sanitizer build and valgrind judge that). */
static void test_stop_leaves_a_lookup_behind(void **state) {
    (void)state;
    int before = threads_now();
    const char *const domains[] = {"slow.example", NULL};
    proxy_fx f;
    proxy_up(&f, domains, NULL);
    int fd = dial(f.port);
    puts_(fd, "CONNECT slow.example:443 HTTP/1.1\r\n\r\n");
    slow_wait_for(SLOW_INSIDE);
    double t0 = now_seconds();
    proxy_down(&f);
    double took = now_seconds() - t0;
    assert_true(took >= 0.9 && took < 2);
    assert_int_equal(f.refused_n, 0);
    /* Stop shut its client's socket down on its way out. */
    char buf[16];
    assert_int_equal(recv(fd, buf, sizeof buf, 0), 0);
    close(fd);
    assert_int_equal(threads_now(), before + 1);

    pthread_mutex_lock(&slow_lock);
    slow_state = SLOW_GO;
    pthread_cond_broadcast(&slow_cond);
    pthread_mutex_unlock(&slow_lock);
    slow_wait_for(SLOW_DONE);
    for (int i = 0; i < 200 && threads_now() != before; i++) usleep(10 * 1000);
    assert_int_equal(threads_now(), before);
    slow_state = SLOW_IDLE;
}

/* A listed name that leads to this host's own address leads to the host's
 * services, whatever that address's range: it needs net.lan like loopback.
 * Needs an interface address of this host that is public by its range. */
static void test_own_address_refused(void **state) {
    (void)state;
    struct ifaddrs *all;
    assert_int_equal(getifaddrs(&all), 0);
    for (struct ifaddrs *i = all; i && !self_address[0]; i = i->ifa_next)
        if (i->ifa_addr && i->ifa_addr->sa_family == AF_INET && lcsb__addr_public(i->ifa_addr))
            inet_ntop(AF_INET, &((struct sockaddr_in *)(void *)i->ifa_addr)->sin_addr, self_address,
                      sizeof self_address);
    freeifaddrs(all);
    if (!self_address[0]) {
        fprintf(stderr, "# skipped: no interface of this host has a public IPv4 address\n");
        skip();
    }
    const char *const domains[] = {"self.example:9", NULL};
    proxy_fx f;
    proxy_up(&f, domains, NULL);
    char head[1024], body[1024], want[200];
    int fd = dial(f.port);
    assert_int_equal(http_connect(fd, "self.example:9", head, sizeof head), 403);
    get_all(fd, body, sizeof body);
    close(fd);
    proxy_down(&f);
    FMT(want, "resolves to %s, an address of this host's own", self_address);
    assert_contains(body, want);
    assert_int_equal(f.refused_n, 1);

    /* Named in net.lan, it is let through to be connected to. */
    const char *const lan[] = {self_address, NULL};
    proxy_up(&f, domains, lan);
    fd = dial(f.port);
    assert_int_not_equal(http_connect(fd, "self.example:9", head, sizeof head), 403);
    close(fd);
    proxy_down(&f);
    self_address[0] = '\0';
}

/* A command that sends its requests and exits at once does not keep them
 * out of the record: stop judges what was sent before it ends the rest. */
static void test_requests_of_a_command_gone_are_recorded(void **state) {
    (void)state;
    const char *const domains[] = {"allowed.example", NULL};
    proxy_fx f;
    proxy_up(&f, domains, NULL);
    enum { SENT = 40 };
    for (int i = 0; i < SENT; i++) {
        char req[128];
        FMT(req, "CONNECT denied-%d.example:443 HTTP/1.1\r\n\r\n", i);
        int fd = dial(f.port);
        puts_(fd, req);
        close(fd);
    }
    proxy_down(&f);
    assert_int_equal(f.refused_n, SENT);
}

static void test_start_refuses_bad_entries(void **state) {
    (void)state;
    /* An entry lcsb_policy_add_domain would refuse, put in behind its back:
     * the proxy checks what it serves again. */
    lcsb_policy *policy = new_policy();
    assert_int_equal(lcsb__strv_push(&policy->domains, "https://x"), 0);
    uint16_t port;
    int fd = listen_local(&port);
    lcsb__proxy *p = (lcsb__proxy *)1;
    lcsb_error err = {0};
    assert_int_equal(lcsb__proxy_start(policy, fd, &p, &err), LCSB_EINVAL);
    assert_null(p);
    assert_contains(err.message, "give a host name, not a URL");
    /* The socket was taken even so. */
    assert_int_equal(fcntl(fd, F_GETFD), -1);
    lcsb_policy_free(policy);
    lcsb__proxy_stop(NULL, NULL, 0, NULL);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_own_address_refused),
        cmocka_unit_test(test_requests_of_a_command_gone_are_recorded),
        cmocka_unit_test(test_domain_parse),
        cmocka_unit_test(test_domain_match),
        cmocka_unit_test(test_host_normal),
        cmocka_unit_test(test_addresses),
        cmocka_unit_test(test_request_http),
        cmocka_unit_test(test_request_socks),
        cmocka_unit_test(test_start_refuses_bad_entries),
        cmocka_unit_test(test_connect_relays),
        cmocka_unit_test(test_forward_rewrites),
        cmocka_unit_test(test_refused_recorded),
        cmocka_unit_test(test_refusals_counted_past_the_kept),
        cmocka_unit_test(test_private_address_refused),
        cmocka_unit_test(test_connect_failure_recorded),
        cmocka_unit_test(test_resolve_failure_recorded),
        cmocka_unit_test(test_socks),
        cmocka_unit_test(test_malformed),
        cmocka_unit_test(test_slow_client),
        cmocka_unit_test(test_many_at_once),
        cmocka_unit_test(test_busy),
        cmocka_unit_test(test_bulk_download),
        cmocka_unit_test(test_stop_with_connections_open),
        cmocka_unit_test(test_stop_leaves_a_lookup_behind),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
