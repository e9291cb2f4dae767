/* What a client of lcsb's proxy asks for (proxy_request.c): an HTTP head,
 * CONNECT or an absolute http:// URI rewritten to origin form, and SOCKS5,
 * each read as more / done / malformed from the bytes so far. Pure
 * functions, apart from the proxy on sockets (test_sandbox_proxy.c). */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "helpers.h"
#include "internal.h"
#include "proxy_request.h"

#include <stdlib.h>
#include <string.h>

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
}

static void test_request_http_refused(void **state) {
    (void)state;
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
}

/* A head over 16 KiB, with or without its end. */
static void test_request_http_head_too_long(void **state) {
    (void)state;
    lcsb__request r = {0};
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

/* Inside a tunnel the proxy reads (interception): origin form, a Host
 * that names the tunnel's own host, and framing one way only. */
static lcsb__parse origin(const char *text, lcsb__request *r) {
    return lcsb__http_origin_request(text, strlen(text), "reg.example.org", 443, 443, r);
}

static void test_request_origin(void **state) {
    (void)state;
    lcsb__request r = {0};
    static const char get[] = "GET /v2/x?y=1 HTTP/1.1\r\nHost: Reg.Example.org.\r\n"
                              "Connection: keep-alive\r\nExpect: 100-continue\r\n"
                              "Content-Length: 3\r\n\r\nabc";
    assert_int_equal(origin(get, &r), LCSB__PARSE_DONE);
    assert_int_equal(r.kind, LCSB__REQUEST_ORIGIN);
    assert_string_equal(r.method, "GET");
    assert_string_equal(r.target.p, "/v2/x?y=1");
    assert_int_equal(r.body, LCSB__BODY_LENGTH);
    assert_int_equal(r.body_len, 3);
    assert_true(r.expect_continue);
    assert_string_equal(get + r.used, "abc");
    assert_string_equal(r.forward.p, "GET /v2/x?y=1 HTTP/1.1\r\nContent-Length: 3\r\n"
                                     "Host: reg.example.org\r\nConnection: close\r\n\r\n");
    assert_int_equal(origin("GET / HTTP/1.1\r\nHost: reg.example.org:443\r\n"
                            "Transfer-Encoding: Chunked\r\n\r\n", &r),
                     LCSB__PARSE_DONE);
    assert_int_equal(r.body, LCSB__BODY_CHUNKED);
    static const char *const refused[][2] = {
        {"GET / HTTP/1.1\r\nHost: other.example.org\r\n\r\n", "another host"},
        {"GET / HTTP/1.1\r\nHost: reg.example.org:8443\r\n\r\n", "another host"},
        {"GET / HTTP/1.1\r\n\r\n", "another host"},
        {"GET / HTTP/1.1\r\nHost: reg.example.org\r\nHost: reg.example.org\r\n\r\n",
         "another host"},
        {"GET http://reg.example.org/ HTTP/1.1\r\nHost: reg.example.org\r\n\r\n", "not a URI"},
        {"POST / HTTP/1.1\r\nHost: reg.example.org\r\nContent-Length: 3\r\n"
         "Transfer-Encoding: chunked\r\n\r\n",
         "one framing only"},
        {"POST / HTTP/1.1\r\nHost: reg.example.org\r\nContent-Length: 3\r\nContent-Length: 4\r\n\r\n",
         "differ"},
        {"POST / HTTP/1.1\r\nHost: reg.example.org\r\nContent-Length: 3, 3\r\n\r\n", "no number"},
        {"POST / HTTP/1.1\r\nHost: reg.example.org\r\nContent-Length: +3\r\n\r\n", "no number"},
        {"POST / HTTP/1.1\r\nHost: reg.example.org\r\nTransfer-Encoding: gzip, chunked\r\n\r\n",
         "other than one"},
        {"POST / HTTP/1.1\r\nHost: reg.example.org\r\nTransfer-Encoding: chunked\r\n"
         "Transfer-Encoding: chunked\r\n\r\n",
         "other than one"},
    };
    for (size_t i = 0; i < sizeof refused / sizeof *refused; i++) {
        if (origin(refused[i][0], &r) != LCSB__PARSE_BAD) fail_msg("accepted: %s", refused[i][0]);
        assert_contains(r.why, refused[i][1], refused[i][0]);
    }
    /* The same framing rules hold for a forwarded request. */
    HTTP_BAD("POST http://a.example/ HTTP/1.1\r\nContent-Length: 1\r\nTransfer-Encoding: chunked"
             "\r\n\r\n",
             400, "one framing only");
    lcsb__request_clear(&r);
}

/* A chunked body, fed whole or a byte at a time: the same end, the same
 * data, and nothing past the end counted as the body's. */
static void test_chunked(void **state) {
    (void)state;
    static const char body[] = "3;ext=1\r\nabc\r\n10\r\n0123456789abcdef\r\n0\r\nTrailer: x\r\n\r\nNEXT";
    size_t whole = sizeof body - 1 - 4;
    lcsb__chunked ch = {0};
    lcsb__buf payload = {0};
    size_t used;
    assert_int_equal(lcsb__chunked_feed(&ch, body, sizeof body - 1, &used, &payload),
                     LCSB__PARSE_DONE);
    assert_int_equal(used, whole);
    assert_int_equal(payload.len, 19);
    assert_memory_equal(payload.p, "abc0123456789abcdef", 19);
    lcsb__chunked one = {0};
    for (size_t i = 0; i < whole; i++) {
        lcsb__parse got = lcsb__chunked_feed(&one, body + i, 1, &used, NULL);
        assert_int_equal(used, 1);
        assert_int_equal(got, i + 1 == whole ? LCSB__PARSE_DONE : LCSB__PARSE_MORE);
    }
    static const char *const bad[] = {"x\r\n", "\r\n", "3\nabc\r\n", "3\r\nabcd\r\n",
                                      "fffffffffffffffff\r\n", "-1\r\n", "3\r\nabc\n0\r\n\r\n",
                                      "0\r\n\r\r"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        lcsb__chunked c = {0};
        if (lcsb__chunked_feed(&c, bad[i], strlen(bad[i]), &used, NULL) != LCSB__PARSE_BAD)
            fail_msg("accepted: %s", bad[i]);
    }
    lcsb__buf_free(&payload);
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

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_request_http),
        cmocka_unit_test(test_request_http_refused),
        cmocka_unit_test(test_request_http_head_too_long),
        cmocka_unit_test(test_request_socks),
        cmocka_unit_test(test_request_origin),
        cmocka_unit_test(test_chunked),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
