/* lcsb's proxy itself on real sockets of this host: a listener on
 * 127.0.0.1, upstream servers on threads of this process, clients that speak
 * HTTP CONNECT, absolute-URI HTTP and SOCKS5 to it, well and badly. The names
 * it judges by and the requests it reads have suites of their own
 * (test_sandbox_netname.c, test_sandbox_proxy_request.c); the sockets and
 * servers are proxy_fixture.c. */
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
#include "proxy_fixture.h"
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
    assert_int_equal(lcsb__proxy_start(policy, fd, NULL, &p, &err), LCSB_EINVAL);
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
