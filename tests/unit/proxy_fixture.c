/* The proxy on real sockets: what test_sandbox_proxy.c's cases share
 * (proxy_fixture.h says what). */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "helpers.h"
#include "proxy_fixture.h"

#include <errno.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

int listen_local(uint16_t *port) {
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

int dial(uint16_t port) {
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

void put(int fd, const void *data, size_t len) {
    const char *p = data;
    while (len) {
        ssize_t n = send(fd, p, len, MSG_NOSIGNAL);
        if (n <= 0) fail_msg("send: %s", strerror(errno));
        p += n;
        len -= (size_t)n;
    }
}
void puts_(int fd, const char *s) { put(fd, s, strlen(s)); }

/* Exactly LEN bytes. */
void get(int fd, void *buf, size_t len) {
    char *p = buf;
    while (len) {
        ssize_t n = recv(fd, p, len, 0);
        if (n <= 0) fail_msg("recv: %s", n ? strerror(errno) : "end of stream");
        p += n;
        len -= (size_t)n;
    }
}

/* An HTTP head, byte by byte, so that nothing after it is taken. */
void get_head(int fd, char *buf, size_t cap) {
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
size_t get_all(int fd, char *buf, size_t cap) {
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

unsigned char pattern(size_t i) { return (unsigned char)(i * 131 + (i >> 16)); }

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

upstream *upstream_start(mode m, size_t bulk) {
    upstream *up = calloc(1, sizeof *up);
    assert_non_null(up);
    up->mode = m;
    up->bulk = bulk;
    pthread_mutex_init(&up->lock, NULL);
    up->fd = listen_local(&up->port);
    assert_int_equal(pthread_create(&up->acceptor, NULL, up_accept, up), 0);
    return up;
}

void upstream_stop(upstream *up) {
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

/* A proxy serving DOMAINS and LAN (NULL-terminated) on 127.0.0.1. */
void proxy_up(proxy_fx *f, const char *const *domains, const char *const *lan) {
    memset(f, 0, sizeof *f);
    lcsb_policy *policy = new_policy();
    lcsb_error err = {0};
    for (size_t i = 0; domains && domains[i]; i++)
        if (lcsb_policy_add_domain(policy, domains[i], &err)) fail_msg("%s", err.message);
    for (size_t i = 0; lan && lan[i]; i++)
        if (lcsb_policy_add_lan(policy, lan[i], &err)) fail_msg("%s", err.message);
    int fd = listen_local(&f->port);
    if (lcsb__proxy_start(policy, fd, NULL, &f->proxy, &err)) fail_msg("proxy: %s", err.message);
    /* The proxy keeps a copy: the policy may go. */
    lcsb_policy_free(policy);
}

void proxy_down(proxy_fx *f) {
    lcsb__proxy_stop(f->proxy, f->refused, LCSB_NET_REFUSALS_MAX, &f->refused_n);
    f->proxy = NULL;
}

/* CONNECT AUTHORITY through the proxy; the status line's code. */
int http_connect(int fd, const char *authority, char *head, size_t cap) {
    char req[512];
    FMT(req, "CONNECT %s HTTP/1.1\r\nHost: %s\r\n\r\n", authority, authority);
    puts_(fd, req);
    get_head(fd, head, cap);
    assert_true(strncmp(head, "HTTP/1.1 ", 9) == 0);
    return atoi(head + 9);
}

void assert_echoes(int fd, const char *text) {
    char buf[256];
    size_t n = strlen(text);
    assert_true(n < sizeof buf);
    puts_(fd, text);
    get(fd, buf, n);
    assert_memory_equal(buf, text, n);
}
