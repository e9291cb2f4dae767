/* The proxy on real sockets: the fixture of test_sandbox_proxy.c, apart so
 * that the suite reads as its cases. A listener on 127.0.0.1, a client's
 * blocking reads and writes with a timeout, upstream servers on threads of
 * this process (an echo, a one-shot HTTP server, a bulk source), and lcsb's
 * proxy started and stopped around a case. */
#ifndef LCSB_TESTS_PROXY_FIXTURE_H
#define LCSB_TESTS_PROXY_FIXTURE_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include "internal.h"
#include "proxy.h"

#define IO_SECONDS 10

int listen_local(uint16_t *port);
int dial(uint16_t port);
void put(int fd, const void *data, size_t len);
void puts_(int fd, const char *s);
/* Exactly LEN bytes. */
void get(int fd, void *buf, size_t len);
/* An HTTP head, byte by byte, so that nothing after it is taken. */
void get_head(int fd, char *buf, size_t cap);
/* Everything until the end of the stream (at most CAP - 1 bytes), NUL-terminated. */
size_t get_all(int fd, char *buf, size_t cap);

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

/* The byte a BULK upstream sends at offset I. */
unsigned char pattern(size_t i);
upstream *upstream_start(mode m, size_t bulk);
void upstream_stop(upstream *up);

typedef struct proxy_fx {
    lcsb__proxy *proxy;
    uint16_t port;
    lcsb_net_refusal refused[LCSB_NET_REFUSALS_MAX];
    size_t refused_n;
} proxy_fx;

/* A proxy serving DOMAINS and LAN (NULL-terminated) on 127.0.0.1. */
void proxy_up(proxy_fx *f, const char *const *domains, const char *const *lan);
void proxy_down(proxy_fx *f);
/* CONNECT AUTHORITY through the proxy; the status line's code. */
int http_connect(int fd, const char *authority, char *head, size_t cap);
void assert_echoes(int fd, const char *text);

#endif
