/* lcsb's proxy: the only way out of a network of the command's own.
 *
 * One acceptor thread polls the listening socket; each connection gets a
 * thread of its own, which reads the request (proxy_request.c), holds the
 * name to the policy's net.domains, resolves it here, outside, holds each
 * address to net.lan, connects, and relays bytes both ways until both sides
 * are done. Every poll also watches a wake pipe whose write end stop
 * closes, so that stop reaches every thread wherever it waits.
 *
 * This file holds the acceptor, a connection's course from its request to
 * its end, and the start and stop; where a request may go is
 * proxy_route.c, the relay proxy_relay.c, what they share proxy_conn.c.
 *
 * A thread inside getaddrinfo cannot be reached: stop waits a moment, then
 * leaves it behind, holding a reference to the proxy's state, and the last
 * holder frees it. What a thread left behind does after stop is not
 * reported (stop has already given the refusals away). */
#include "proxy.h"

#include "proxy_conn.h"
#include "proxy_judged.h"
#include "proxy_relay.h"
#include "proxy_request.h"
#include "proxy_route.h"
#include "proxy_tls.h"
#include "sys.h"

#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define CONN_MAX 512            /* connections served at once; more get a 503 */
#define HEAD_MS (30 * 1000)     /* for the request to arrive whole */
#define DRAIN_MS 300            /* stop's wait for requests already sent to be judged */
#define STOP_MS 1000            /* stop's wait for connections to end */
#define FDS_SPARE 64            /* descriptors left to the rest of the process */
#define STACK_SIZE (256 * 1024) /* getaddrinfo's depth, with room; buffers are on the heap */

/* ---- The state, shared and counted ---- */

static void proxy_free(lcsb__proxy *p) {
    if (p->listen_fd >= 0) close(p->listen_fd);
    for (int i = 0; i < 2; i++) {
        if (p->wake[i] >= 0) close(p->wake[i]);
        if (p->drain[i] >= 0) close(p->drain[i]);
    }
    free(p->domains);
    lcsb__tls_free(p->tls);
    for (size_t i = 0; i < p->secrets_n; i++) lcsb__secret_clear(&p->secrets[i]);
    free(p->secrets);
    free(p->lan);
    free(p->own);
    lcsb__strv_clear(&p->seen);
    pthread_cond_destroy(&p->ended);
    pthread_mutex_destroy(&p->lock);
    free(p);
}

static void conn_unlink(lcsb__proxy *p, lcsb__conn *c) {
    if (c->prev)
        c->prev->next = c->next;
    else
        p->conns = c->next;
    if (c->next) c->next->prev = c->prev;
}

/* The threads that are done, joined (they no longer take the lock, so
 * joining under it cannot wait on it) and their records freed. Under the
 * lock. */
static void reap(lcsb__proxy *p) {
    for (lcsb__conn *c = p->conns, *next; c; c = next) {
        next = c->next;
        if (!c->done || c->orphan) continue;
        pthread_join(c->thread, NULL);
        conn_unlink(p, c);
        free(c);
    }
}

/* The connection's end, its thread's last use of the shared state. */
static void finish(lcsb__conn *c) {
    lcsb__proxy *p = c->proxy;
    bool last = false;
    pthread_mutex_lock(&p->lock);
    lcsb__proxy_close_locked(&c->client);
    lcsb__proxy_close_locked(&c->upstream);
    c->done = true;
    p->live--;
    if (c->orphan) {
        conn_unlink(p, c);
        free(c);
        last = --p->refs == 0;
    } else {
        pthread_cond_broadcast(&p->ended);
    }
    pthread_mutex_unlock(&p->lock);
    if (last) proxy_free(p);
}

/* ---- A connection ---- */

/* More of the client's bytes into BUF (CAP bytes, *LEN used): 0, or -1 at
 * its end, on an error, past DEADLINE or when the proxy stops. */
static int read_more(const lcsb__conn *c, char *buf, size_t *len, size_t cap, long long deadline) {
    if (*len >= cap) return -1;
    for (;;) {
        ssize_t n = recv(c->client, buf + *len, cap - *len, MSG_DONTWAIT);
        if (n > 0) {
            *len += (size_t)n;
            return 0;
        }
        if (n == 0 || (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)) return -1;
        if (lcsb__proxy_wait_fd(c, c->client, POLLIN, deadline) <= 0) return -1;
    }
}

/* The request, read whole within HEAD_MS: 0 with REQ, and *HEAD_END where
 * the client's own bytes start in BUF; -1 when it was answered or gone. */
static int read_request(lcsb__conn *c, char *buf, size_t *len, lcsb__request *req,
                        size_t *head_end) {
    long long deadline = lcsb__now_ms() + HEAD_MS;
    if (read_more(c, buf, len, LCSB__REQUEST_HEAD_MAX, deadline)) return -1;
    const unsigned char *u = (const unsigned char *)buf;
    lcsb__parse state;
    if (u[0] != 5) {
        while ((state = lcsb__http_request(buf, *len, req)) == LCSB__PARSE_MORE)
            if (read_more(c, buf, len, LCSB__REQUEST_HEAD_MAX, deadline)) return -1;
        if (state == LCSB__PARSE_BAD) {
            char body[200];
            snprintf(body, sizeof body, "lcsb: %s\n", req->why);
            lcsb__proxy_refuse(c, req, req->status, body);
            return -1;
        }
        *head_end = req->used;
        return 0;
    }
    while ((state = lcsb__socks_greeting(u, *len, req)) == LCSB__PARSE_MORE)
        if (read_more(c, buf, len, LCSB__REQUEST_HEAD_MAX, deadline)) return -1;
    if (state == LCSB__PARSE_BAD) {
        lcsb__proxy_refuse(c, req, req->status, "");
        return -1;
    }
    size_t greeting = req->used;
    static const unsigned char no_auth[2] = {5, 0};
    if (lcsb__proxy_send_all(c, c->client, no_auth, sizeof no_auth,
                             lcsb__now_ms() + LCSB__PROXY_REPLY_MS))
        return -1;
    while ((state = lcsb__socks_request(u + greeting, *len - greeting, req)) == LCSB__PARSE_MORE)
        if (read_more(c, buf, len, LCSB__REQUEST_HEAD_MAX, deadline)) return -1;
    if (state == LCSB__PARSE_BAD) {
        lcsb__proxy_refuse(c, req, req->status, "");
        return -1;
    }
    *head_end = greeting + req->used;
    return 0;
}

static void *serve(void *arg) {
    lcsb__conn *c = arg;
    lcsb__proxy *p = c->proxy;
    lcsb__request req = {0};
    lcsb__route r = {0};
    lcsb__direction d[2] = {{.buf = NULL}, {.buf = NULL}};
    size_t len = 0, head_end = 0;
    char *buf = malloc(LCSB__REQUEST_HEAD_MAX);
    if (!buf || read_request(c, buf, &len, &req, &head_end) || lcsb__proxy_decide(c, &req, &r))
        goto end;

    /* A forwarded request a rule refuses makes no connection. */
    if (r.judged && req.kind == LCSB__REQUEST_FORWARD && lcsb__proxy_judge_forward(c, &req)) {
        lcsb__proxy_give_back(p, &r);
        goto end;
    }
    int error;
    if (lcsb__proxy_connect(c, &r, &error)) {
        if (lcsb__proxy_stopping(p)) goto end;
        char body[600], e[128], why[160];
        const char *reason = strerror_r(error, e, sizeof e);
        snprintf(body, sizeof body, "lcsb: cannot connect to %s port %u: %s\n", req.host,
                 (unsigned)req.port, reason);
        snprintf(why, sizeof why, "cannot connect: %s", reason);
        lcsb__proxy_record(p, req.host, req.port, why);
        lcsb__proxy_refuse(c, &req, req.kind == LCSB__REQUEST_SOCKS ? 0x05 : 502, body);
        goto end;
    }
    int one = 1;
    setsockopt(c->client, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    setsockopt(c->upstream, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    if (r.judged) {
        lcsb__proxy_judged(c, &req, buf + head_end, len - head_end);
        goto end;
    }

    /* Upstream first: the rewritten head of a forwarded request, then
     * whatever the client sent past its head. Downstream first: the answer
     * that the tunnel is open. */
    static const char established[] = "HTTP/1.1 200 Connection established\r\n\r\n";
    static const unsigned char socks_ok[10] = {5, 0, 0, 1};
    const void *answer = NULL;
    size_t answer_len = 0;
    if (req.kind == LCSB__REQUEST_CONNECT)
        answer = established, answer_len = sizeof established - 1;
    else if (req.kind == LCSB__REQUEST_SOCKS)
        answer = socks_ok, answer_len = sizeof socks_ok;
    size_t extra = len - head_end;
    if (req.kind == LCSB__REQUEST_FORWARD) {
        lcsb__buf_add(&req.forward, buf + head_end, extra);
        if (req.forward.oom || lcsb__direction_init(&d[0], c, true, req.forward.p, req.forward.len))
            goto end;
    } else if (lcsb__direction_init(&d[0], c, true, buf + head_end, extra)) {
        goto end;
    }
    free(buf);
    buf = NULL;
    lcsb__request_clear(&req);
    if (lcsb__direction_init(&d[1], c, false, answer, answer_len)) goto end;
    lcsb__proxy_relay(c, d);

end:
    for (int k = 0; k < 2; k++) lcsb__direction_free(&d[k]);
    free(buf);
    if (r.ai) freeaddrinfo(r.ai);
    lcsb__request_clear(&req);
    finish(c);
    return NULL;
}

/* ---- Accepting ---- */

static void busy(const lcsb__proxy *p, int fd) {
    char text[256], body[128];
    snprintf(body, sizeof body, "lcsb: the proxy serves %zu connections at once; try again\n",
             p->conn_max);
    int n = lcsb__proxy_http_answer(text, sizeof text, 503, body);
    (void)!send(fd, text, (size_t)n, MSG_NOSIGNAL | MSG_DONTWAIT);
    close(fd);
}

static void *accept_loop(void *arg) {
    lcsb__proxy *p = arg;
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setstacksize(&attr, STACK_SIZE);
    /* Once the command is gone, what it left in the backlog is taken too,
     * to be judged and recorded, and then no more. */
    bool backlog = false;
    for (;;) {
        struct pollfd pf[3] = {{.fd = p->listen_fd, .events = POLLIN},
                               {.fd = p->wake[0], .events = POLLIN},
                               {.fd = p->drain[0], .events = POLLIN}};
        if (!backlog) {
            if (poll(pf, 3, -1) < 0 && errno != EINTR) break;
            if (pf[1].revents) break;
            backlog = pf[2].revents != 0;
            if (!backlog && !pf[0].revents) continue;
        }
        int fd = accept4(p->listen_fd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
        if (fd < 0 && backlog && errno != EINTR && errno != ECONNABORTED) break;
        if (fd < 0) {
            /* Out of descriptors or memory: the backlog keeps them for a
             * moment, instead of a loop that spins on them. */
            if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM)
                (void)poll(&pf[1], 1, 100);
            continue;
        }
        lcsb__conn *c = NULL;
        pthread_mutex_lock(&p->lock);
        reap(p);
        if (p->live < p->conn_max && (c = calloc(1, sizeof *c))) {
            *c = (lcsb__conn){.proxy = p, .client = fd, .upstream = -1, .next = p->conns};
            if (p->conns) p->conns->prev = c;
            p->conns = c;
            p->live++;
        }
        pthread_mutex_unlock(&p->lock);
        if (c && pthread_create(&c->thread, &attr, serve, c) != 0) {
            pthread_mutex_lock(&p->lock);
            conn_unlink(p, c);
            p->live--;
            pthread_mutex_unlock(&p->lock);
            free(c);
            c = NULL;
        }
        if (!c) busy(p, fd);
    }
    pthread_attr_destroy(&attr);
    return NULL;
}

/* ---- Start and stop ---- */

/* Until no connection is left, or MS have passed; P's lock held. */
static void wait_ended(lcsb__proxy *p, long ms) {
    struct timespec deadline;
    clock_gettime(CLOCK_MONOTONIC, &deadline);
    deadline.tv_sec += ms / 1000;
    deadline.tv_nsec += (ms % 1000) * 1000000L;
    if (deadline.tv_nsec >= 1000000000L) deadline.tv_sec++, deadline.tv_nsec -= 1000000000L;
    while (p->live > 0)
        if (pthread_cond_timedwait(&p->ended, &p->lock, &deadline) == ETIMEDOUT) break;
}

/* The state, its descriptors none yet but LISTEN_FD, held by its owner
 * alone; NULL out of memory. */
static lcsb__proxy *proxy_new(int listen_fd) {
    lcsb__proxy *p = calloc(1, sizeof *p);
    if (!p) return NULL;
    p->listen_fd = listen_fd;
    p->wake[0] = p->wake[1] = p->drain[0] = p->drain[1] = -1;
    p->refs = 1;
    pthread_mutex_init(&p->lock, NULL);
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&p->ended, &ca);
    pthread_condattr_destroy(&ca);
    return p;
}

/* POLICY's net.domains and net.lan, parsed into P: 0, or the error. */
static int read_nets(lcsb__proxy *p, const lcsb_policy *policy, lcsb_error *err) {
    char why[300];
    p->domains = calloc(policy->domains.n + 1, sizeof *p->domains);
    p->lan = calloc(policy->lan.n + 1, sizeof *p->lan);
    if (!p->domains || !p->lan) return lcsb__fail(err, LCSB_ENOMEM, "out of memory");
    for (size_t i = 0; i < policy->domains.n; i++, p->domains_n++) {
        if (lcsb__domain_parse(policy->domains.v[i], &p->domains[i], why, sizeof why))
            return lcsb__fail(err, LCSB_EINVAL, "%s", why);
    }
    for (size_t i = 0; i < policy->lan.n; i++, p->lan_n++) {
        if (lcsb__cidr_parse(policy->lan.v[i], &p->lan[i], why, sizeof why))
            return lcsb__fail(err, LCSB_EINVAL, "%s", why);
    }
    return 0;
}

/* Two descriptors a connection: a lower limit than CONN_MAX needs gets
 * fewer connections, and the 503, rather than accepts that fail. */
static size_t conn_limit(void) {
    struct rlimit files;
    if (getrlimit(RLIMIT_NOFILE, &files) == 0 && files.rlim_cur != RLIM_INFINITY &&
        files.rlim_cur < 2 * CONN_MAX + FDS_SPARE)
        return files.rlim_cur > 2 * 8 + FDS_SPARE ? (files.rlim_cur - FDS_SPARE) / 2 : 8;
    return CONN_MAX;
}

/* The acceptor's thread, started: 0, or pthread_create's error. The caller
 * relays signals on its own thread: none may land in ours. The threads
 * inherit the mask they are created under. */
static int start_acceptor(lcsb__proxy *p) {
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setstacksize(&attr, STACK_SIZE);
    int e = pthread_create(&p->acceptor, &attr, accept_loop, p);
    pthread_attr_destroy(&attr);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    return e;
}

/* WITH's secrets, copied into P. */
static int copy_secrets(lcsb__proxy *p, const lcsb__intercept *with) {
    if (!with || !with->secrets_n) return 0;
    if (!(p->secrets = calloc(with->secrets_n, sizeof *p->secrets))) return -1;
    for (size_t i = 0; i < with->secrets_n; i++, p->secrets_n++) {
        const lcsb__secret *s = &with->secrets[i];
        lcsb__secret *copy = &p->secrets[i];
        if (lcsb__secret_copy(copy, s)) return -1;
    }
    return 0;
}

int lcsb__proxy_start(const lcsb_policy *policy, int listen_fd, const lcsb__intercept *with,
                      lcsb__proxy **out, lcsb_error *err) {
    *out = NULL;
    lcsb__proxy *p = proxy_new(listen_fd);
    if (!p) {
        close(listen_fd);
        return lcsb__fail(err, LCSB_ENOMEM, "out of memory");
    }
    p->tls = lcsb__tls_hold(with ? with->tls : NULL);
    int rc = copy_secrets(p, with) ? lcsb__fail(err, LCSB_ENOMEM, "out of memory") : 0;
    if (!rc) rc = read_nets(p, policy, err);
    if (rc) goto fail;
    /* The listening socket and the pipe stay out of the command that lcsb
     * starts next, and accept never blocks on a client that went away. */
    int flags = fcntl(listen_fd, F_GETFL);
    if (flags < 0 || fcntl(listen_fd, F_SETFL, flags | O_NONBLOCK) < 0 ||
        fcntl(listen_fd, F_SETFD, FD_CLOEXEC) < 0 || pipe2(p->wake, O_CLOEXEC) < 0 ||
        pipe2(p->drain, O_CLOEXEC) < 0) {
        rc = lcsb__fail(err, LCSB_ESYS, "cannot ready the proxy's socket: %s", strerror(errno));
        goto fail;
    }

    p->probe = !lcsb__proxy_binds_nonlocal();
    if (lcsb__proxy_own_addresses(p) != 0) {
        rc = lcsb__fail(err, LCSB_ESYS, "cannot list this host's addresses: %s", strerror(errno));
        goto fail;
    }
    p->conn_max = conn_limit();
    int e = start_acceptor(p);
    if (e) {
        rc = lcsb__fail(err, LCSB_ESYS, "cannot start the proxy's thread: %s", strerror(e));
        goto fail;
    }
    p->acceptor_started = true;
    *out = p;
    return 0;

fail:
    proxy_free(p);
    return rc;
}

void lcsb__proxy_stop(lcsb__proxy *p, lcsb_net_refusal *out, size_t max, size_t *count) {
    if (count) *count = 0;
    if (!p) return;
    /* The command has ended, and with it whatever it would still send: the
     * requests already sent, in the backlog or being read, are judged and
     * recorded first (a command cannot keep its last attempts out of the
     * record by exiting), for at most DRAIN_MS. */
    pthread_mutex_lock(&p->lock);
    p->draining = true;
    pthread_mutex_unlock(&p->lock);
    close(p->drain[1]);
    p->drain[1] = -1;
    if (p->acceptor_started) pthread_join(p->acceptor, NULL);
    p->acceptor_started = false;
    close(p->listen_fd);
    p->listen_fd = -1;
    pthread_mutex_lock(&p->lock);
    wait_ended(p, DRAIN_MS);
    p->stopping = true;
    pthread_mutex_unlock(&p->lock);
    close(p->wake[1]);
    p->wake[1] = -1;

    pthread_mutex_lock(&p->lock);
    for (lcsb__conn *c = p->conns; c; c = c->next) {
        if (c->client >= 0) shutdown(c->client, SHUT_RDWR);
        if (c->upstream >= 0) shutdown(c->upstream, SHUT_RDWR);
    }
    wait_ended(p, STOP_MS);
    reap(p);
    /* Those still running (in getaddrinfo, which nothing interrupts) are
     * left to end on their own, and the last of them frees the state. */
    for (lcsb__conn *c = p->conns; c; c = c->next) {
        c->orphan = true;
        pthread_detach(c->thread);
        p->refs++;
    }
    size_t n = p->kept_n < max ? p->kept_n : max;
    if (out && n) memcpy(out, p->kept, n * sizeof *out);
    if (count) *count = p->distinct;
    bool last = --p->refs == 0;
    pthread_mutex_unlock(&p->lock);
    if (last) proxy_free(p);
}
