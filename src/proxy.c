/* lcsb's proxy: the only way out of a network of the command's own.
 *
 * One acceptor thread polls the listening socket; each connection gets a
 * thread of its own, which reads the request (proxy_request.c), holds the
 * name to the policy's net.domains, resolves it here, outside, holds each
 * address to net.lan, connects, and relays bytes both ways until both sides
 * are done. Every poll also watches a wake pipe whose write end stop
 * closes, so that stop reaches every thread wherever it waits.
 *
 * A thread inside getaddrinfo cannot be reached: stop waits a moment, then
 * leaves it behind, holding a reference to the proxy's state, and the last
 * holder frees it. What a thread left behind does after stop is not
 * reported (stop has already given the refusals away). */
#include "proxy.h"

#include "netname.h"
#include "proxy_request.h"
#include "sys.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <netdb.h>
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
#define CONNECT_MS (10 * 1000)  /* for each address to answer */
#define REPLY_MS (5 * 1000)     /* for an answer to go out */
#define LINGER_MS 1000          /* reading what follows a refused request */
#define DRAIN_MS 300            /* stop's wait for requests already sent to be judged */
#define STOP_MS 1000            /* stop's wait for connections to end */
#define FDS_SPARE 64            /* descriptors left to the rest of the process */
#define ADDRS_MAX 16            /* a name's addresses tried */
#define SEEN_MAX 4096           /* distinct refusals told apart past the kept ones */
#define RELAY_MIN (64 * 1024)   /* each direction's buffer, at first */
#define RELAY_MAX (2048 * 1024) /* and once a download fills it, up to this */
#define RELAY_GROWN (64 << 20)  /* all buffers' growth past RELAY_MIN, together */
#define STACK_SIZE (256 * 1024) /* getaddrinfo's depth, with room; buffers are on the heap */

typedef struct conn conn;
struct conn {
    conn *prev, *next;
    lcsb__proxy *proxy;
    pthread_t thread;
    /* -1 once closed. The thread closes them under the lock, so that stop's
     * shutdown never reaches a descriptor number used again. */
    int client, upstream;
    bool done;   /* the thread is past its last use of the lock */
    bool orphan; /* stop gave up waiting: the thread frees itself */
};

struct lcsb__proxy {
    pthread_mutex_t lock;
    pthread_cond_t ended; /* a connection's thread is done */
    unsigned refs;        /* the owner, and each thread stop left behind */
    bool stopping;
    /* The command has ended: what it sent is judged and recorded, nothing
     * more is resolved or connected. */
    bool draining;
    int listen_fd;
    int wake[2];     /* stop closes wake[1]: wake[0] reads as hung up in every poll */
    int drain[2];    /* stop closes drain[1]: the acceptor takes the backlog, then ends */
    size_t conn_max; /* CONN_MAX, or fewer where the descriptor limit is lower */
    pthread_t acceptor;
    bool acceptor_started;
    conn *conns;
    size_t live;  /* connections not done */
    size_t grown; /* bytes the relay buffers hold past RELAY_MIN */
    lcsb__domain *domains;
    size_t domains_n;
    lcsb__cidr *lan;
    size_t lan_n;
    lcsb__cidr *own; /* this host's own addresses when the proxy started */
    size_t own_n;
    bool probe; /* a bind says whether an address is this host's (no nonlocal bind) */
    lcsb_net_refusal kept[LCSB_NET_REFUSALS_MAX];
    size_t kept_n;
    lcsb__strv seen; /* "host port" of the distinct refusals past the kept ones */
    size_t distinct;
};

/* ---- Time and waiting ---- */

static int left_ms(long long deadline) {
    long long left = deadline - lcsb__now_ms();
    return left < 0 ? 0 : left > 60000 ? 60000 : (int)left;
}

/* Wait until FD is ready for EVENTS: 1; 0 when DEADLINE passes; -1 when the
 * proxy stops. */
static int wait_fd(const conn *c, int fd, short events, long long deadline) {
    for (;;) {
        struct pollfd p[2] = {{.fd = fd, .events = events},
                              {.fd = c->proxy->wake[0], .events = POLLIN}};
        int n = poll(p, 2, left_ms(deadline));
        if (n < 0 && errno == EINTR) continue;
        if (n < 0 || p[1].revents) return -1;
        if (n == 0) {
            if (lcsb__now_ms() >= deadline) return 0;
            continue;
        }
        return 1;
    }
}

static int send_all(const conn *c, int fd, const void *data, size_t len, long long deadline) {
    const char *p = data;
    while (len) {
        ssize_t n = send(fd, p, len, MSG_NOSIGNAL | MSG_DONTWAIT);
        if (n > 0) {
            p += n;
            len -= (size_t)n;
        } else if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) {
            if (wait_fd(c, fd, POLLOUT, deadline) <= 0) return -1;
        } else {
            return -1;
        }
    }
    return 0;
}

/* More of the client's bytes into BUF (CAP bytes, *LEN used): 0, or -1 at
 * its end, on an error, past DEADLINE or when the proxy stops. */
static int read_more(const conn *c, char *buf, size_t *len, size_t cap, long long deadline) {
    if (*len >= cap) return -1;
    for (;;) {
        ssize_t n = recv(c->client, buf + *len, cap - *len, MSG_DONTWAIT);
        if (n > 0) {
            *len += (size_t)n;
            return 0;
        }
        if (n == 0 || (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)) return -1;
        if (wait_fd(c, c->client, POLLIN, deadline) <= 0) return -1;
    }
}

/* ---- The state, shared and counted ---- */

static void proxy_free(lcsb__proxy *p) {
    if (p->listen_fd >= 0) close(p->listen_fd);
    for (int i = 0; i < 2; i++) {
        if (p->wake[i] >= 0) close(p->wake[i]);
        if (p->drain[i] >= 0) close(p->drain[i]);
    }
    free(p->domains);
    free(p->lan);
    free(p->own);
    lcsb__strv_clear(&p->seen);
    pthread_cond_destroy(&p->ended);
    pthread_mutex_destroy(&p->lock);
    free(p);
}

static void conn_unlink(lcsb__proxy *p, conn *c) {
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
    for (conn *c = p->conns, *next; c; c = next) {
        next = c->next;
        if (!c->done || c->orphan) continue;
        pthread_join(c->thread, NULL);
        conn_unlink(p, c);
        free(c);
    }
}

static void close_locked(int *fd) {
    if (*fd >= 0) close(*fd);
    *fd = -1;
}

/* The connection's end, its thread's last use of the shared state. */
static void finish(conn *c) {
    lcsb__proxy *p = c->proxy;
    bool last = false;
    pthread_mutex_lock(&p->lock);
    close_locked(&c->client);
    close_locked(&c->upstream);
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

static bool stopping(lcsb__proxy *p) {
    pthread_mutex_lock(&p->lock);
    bool s = p->stopping;
    pthread_mutex_unlock(&p->lock);
    return s;
}

/* Is the command gone (or the proxy stopping)? Then nothing is resolved or
 * connected any more. */
static bool draining(lcsb__proxy *p) {
    pthread_mutex_lock(&p->lock);
    bool s = p->draining || p->stopping;
    pthread_mutex_unlock(&p->lock);
    return s;
}

/* Is SA an address of this host's own? Reaching it reaches the host's
 * services, whatever its range: it needs net.lan like loopback does. */
static bool own_address(const lcsb__proxy *p, const struct addrinfo *a) {
    for (size_t i = 0; i < p->own_n; i++)
        if (lcsb__cidr_contains(&p->own[i], a->ai_addr)) return true;
    if (!p->probe) return false;
    /* Now, not only at start: an address added since, or a whole range
     * routed to this host (a local route), binds as well. */
    struct sockaddr_storage any;
    memcpy(&any, a->ai_addr, a->ai_addrlen);
    if (a->ai_family == AF_INET)
        ((struct sockaddr_in *)(void *)&any)->sin_port = 0;
    else
        ((struct sockaddr_in6 *)(void *)&any)->sin6_port = 0;
    int fd = socket(a->ai_family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return true; /* cannot tell: take it for the host's */
    int bound = bind(fd, (struct sockaddr *)&any, a->ai_addrlen);
    int e = errno;
    close(fd);
    return bound == 0 || e != EADDRNOTAVAIL;
}

/* Does this host let a socket bind an address it does not have? Then a
 * bind tells nothing, and the list of addresses at start is all there is. */
static bool binds_nonlocal(void) {
    static const char *const knobs[] = {"/proc/sys/net/ipv4/ip_nonlocal_bind",
                                        "/proc/sys/net/ipv6/ip_nonlocal_bind"};
    for (size_t i = 0; i < sizeof knobs / sizeof *knobs; i++) {
        char c = '1';
        int fd = open(knobs[i], O_RDONLY | O_CLOEXEC);
        if (fd >= 0) {
            if (read(fd, &c, 1) != 1) c = '1';
            close(fd);
        }
        if (fd < 0 || c != '0') return true;
    }
    return false;
}

/* HOST:PORT refused for WHY: counted once per distinct pair, attempts
 * counted for the kept ones. */
static void record(lcsb__proxy *p, const char *host, uint16_t port, const char *why) {
    pthread_mutex_lock(&p->lock);
    if (p->stopping) goto unlock;
    for (size_t i = 0; i < p->kept_n; i++) {
        if (p->kept[i].port == port && strcmp(p->kept[i].host, host) == 0) {
            p->kept[i].attempts++;
            goto unlock;
        }
    }
    if (p->kept_n < LCSB_NET_REFUSALS_MAX) {
        lcsb_net_refusal *r = &p->kept[p->kept_n++];
        snprintf(r->host, sizeof r->host, "%s", host);
        r->port = port;
        r->attempts = 1;
        snprintf(r->why, sizeof r->why, "%s", why);
        p->distinct++;
        goto unlock;
    }
    char key[LCSB__HOST_MAX + 8];
    snprintf(key, sizeof key, "%s %u", host, (unsigned)port);
    for (size_t i = 0; i < p->seen.n; i++)
        if (strcmp(p->seen.v[i], key) == 0) goto unlock;
    /* Past SEEN_MAX names a command is spraying: each counts, even again. */
    if (p->seen.n < SEEN_MAX) (void)lcsb__strv_push(&p->seen, key);
    p->distinct++;
unlock:
    pthread_mutex_unlock(&p->lock);
}

/* ---- Answers ---- */

/* HOST:PORT as a person writes it, and as a net.domains entry would allow
 * it (no port for 443 and 80). */
static void host_port(const char *host, uint16_t port, bool always_port, char *out, size_t size) {
    bool v6 = strchr(host, ':') != NULL;
    if (always_port || (port != 443 && port != 80))
        snprintf(out, size, "%s%s%s:%u", v6 ? "[" : "", host, v6 ? "]" : "", (unsigned)port);
    else
        snprintf(out, size, "%s%s%s", v6 ? "[" : "", host, v6 ? "]" : "");
}

static const char *status_text(int status) {
    switch (status) {
    case 400: return "Bad Request";
    case 403: return "Forbidden";
    case 405: return "Method Not Allowed";
    case 431: return "Request Header Fields Too Large";
    case 502: return "Bad Gateway";
    case 503: return "Service Unavailable";
    default: return "Error";
    }
}

static int http_answer(char *out, size_t size, int status, const char *body) {
    int n = snprintf(out, size,
                     "HTTP/1.1 %d %s\r\nContent-Type: text/plain\r\nContent-Length: %zu\r\n"
                     "Connection: close\r\n\r\n%s",
                     status, status_text(status), strlen(body), body);
    return n < 0 ? 0 : (size_t)n >= size ? (int)size - 1 : n;
}

/* The answer to a request refused or failed, then the connection closed
 * gently: what the client sent past its head is read and dropped for a
 * moment, since closing over unread bytes resets the connection and can
 * take the answer with it. */
static void refuse(conn *c, const lcsb__request *req, int code, const char *body) {
    char text[1536]; /* a body of decide's 900 bytes and the head */
    long long deadline = lcsb__now_ms() + REPLY_MS;
    if (req->kind == LCSB__REQUEST_SOCKS) {
        unsigned char reply[10] = {5, (unsigned char)code, 0, 1};
        /* A greeting refused is answered with the method chosen, none. */
        if (send_all(c, c->client, reply, code == 0xff ? 2 : sizeof reply, deadline)) return;
    } else {
        int n = http_answer(text, sizeof text, code, body);
        if (send_all(c, c->client, text, (size_t)n, deadline)) return;
    }
    shutdown(c->client, SHUT_WR);
    deadline = lcsb__now_ms() + LINGER_MS;
    for (;;) {
        ssize_t n = recv(c->client, text, sizeof text, MSG_DONTWAIT);
        if (n > 0) continue;
        if (n == 0 || (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)) return;
        if (wait_fd(c, c->client, POLLIN, deadline) <= 0) return;
    }
}

/* ---- Deciding ---- */

typedef struct route {
    struct addrinfo *ai;
    const struct addrinfo *use[ADDRS_MAX];
    size_t n;
} route;

/* Is REQ's host:port allowed, and to which addresses? 0 with ROUTE filled;
 * -1 when it was answered (refused, or not resolved). */
static int decide(conn *c, const lcsb__request *req, route *r) {
    lcsb__proxy *p = c->proxy;
    bool socks = req->kind == LCSB__REQUEST_SOCKS;
    bool literal = lcsb__host_is_literal(req->host);
    char named[LCSB__HOST_MAX + 16], entry[LCSB__HOST_MAX + 16], body[900], why[160];
    host_port(req->host, req->port, true, named, sizeof named);
    host_port(req->host, req->port, false, entry, sizeof entry);

    const lcsb__domain *deny;
    if (lcsb__domains_refuse(p->domains, p->domains_n, req->host, req->port, &deny)) {
        if (deny) {
            char d[LCSB__HOST_MAX + 16];
            lcsb__domain_format(deny, d, sizeof d);
            /* A name near 253 bytes is cut short in WHY; the body has room. */
            snprintf(why, sizeof why, "denied by %.149s", d);
            snprintf(body, sizeof body,
                     "lcsb: %s is denied by \"%s\" in the policy's net.domains\n", named, d);
        } else if (literal) {
            snprintf(why, sizeof why, "an IP literal no entry names");
            snprintf(body, sizeof body,
                     "lcsb: %s is an IP address no entry of the policy's net.domains names; to "
                     "allow it, add net = { domains = { \"%s\" } }\n",
                     named, entry);
        } else {
            snprintf(why, sizeof why, "not in net.domains");
            snprintf(body, sizeof body,
                     "lcsb: %s is not in the policy's net.domains; to allow it, add net = { "
                     "domains = { \"%s\" } }\n",
                     named, entry);
        }
        record(p, req->host, req->port, why);
        refuse(c, req, socks ? 0x02 : 403, body);
        return -1;
    }

    /* The name resolved here, outside the sandbox. A literal needs no
     * lookup, and an entry named it: it counts as named even when private. */
    if (draining(p)) return -1;
    char service[8];
    snprintf(service, sizeof service, "%u", (unsigned)req->port);
    struct addrinfo hints = {.ai_family = AF_UNSPEC,
                             .ai_socktype = SOCK_STREAM,
                             .ai_flags = AI_NUMERICSERV | (literal ? AI_NUMERICHOST : 0)};
    int rc = getaddrinfo(req->host, service, &hints, &r->ai);
    if (rc != 0) r->ai = NULL;
    if (stopping(p)) return -1;
    if (rc != 0) {
        snprintf(body, sizeof body, "lcsb: cannot resolve %s: %s\n", req->host, gai_strerror(rc));
        snprintf(why, sizeof why, "cannot resolve it: %s", gai_strerror(rc));
        record(p, req->host, req->port, why);
        refuse(c, req, socks ? 0x04 : 502, body);
        return -1;
    }
    char first[INET6_ADDRSTRLEN] = "";
    bool first_own = false;
    for (const struct addrinfo *a = r->ai; a && r->n < ADDRS_MAX; a = a->ai_next) {
        if (a->ai_family != AF_INET && a->ai_family != AF_INET6) continue;
        bool public = lcsb__addr_public(a->ai_addr);
        bool own = !literal && public && own_address(p, a);
        bool ok = literal || (public && !own);
        for (size_t i = 0; !ok && i < p->lan_n; i++)
            ok = lcsb__cidr_contains(&p->lan[i], a->ai_addr);
        if (ok) {
            r->use[r->n++] = a;
        } else if (!first[0]) {
            const void *bytes =
                a->ai_family == AF_INET
                    ? (const void *)&((const struct sockaddr_in *)(void *)a->ai_addr)->sin_addr
                    : (const void *)&((const struct sockaddr_in6 *)(void *)a->ai_addr)->sin6_addr;
            inet_ntop(a->ai_family, bytes, first, sizeof first);
            first_own = own;
        }
    }
    if (r->n == 0) {
        if (!first[0]) {
            snprintf(body, sizeof body, "lcsb: %s has no IP address\n", req->host);
            record(p, req->host, req->port, "cannot resolve it: it has no IP address");
            refuse(c, req, socks ? 0x04 : 502, body);
            return -1;
        }
        const char *kind = first_own ? "an address of this host's own"
                                     : "a loopback, private or link-local address";
        snprintf(why, sizeof why, "resolves to %s, %s that net.lan does not name", first, kind);
        snprintf(body, sizeof body,
                 "lcsb: %s resolves to %s, %s that the policy's net.lan does not name; "
                 "to allow it, add net = { lan = { \"%s\" } }\n",
                 named, first, kind, first);
        record(p, req->host, req->port, why);
        refuse(c, req, socks ? 0x02 : 403, body);
        return -1;
    }
    return 0;
}

/* The first of ROUTE's addresses that answers, as c->upstream: 0, or -1
 * when none does (the last error in *ERROR) or the proxy stops. */
static int connect_any(conn *c, const route *r, int *error) {
    lcsb__proxy *p = c->proxy;
    *error = ECONNREFUSED;
    for (size_t i = 0; i < r->n; i++) {
        const struct addrinfo *a = r->use[i];
        int fd = socket(a->ai_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
        if (fd < 0) {
            *error = errno;
            continue;
        }
        pthread_mutex_lock(&p->lock);
        c->upstream = fd;
        pthread_mutex_unlock(&p->lock);
        int rc = connect(fd, a->ai_addr, a->ai_addrlen);
        if (rc < 0 && errno == EINPROGRESS) {
            int w = wait_fd(c, fd, POLLOUT, lcsb__now_ms() + CONNECT_MS);
            if (w < 0) return -1;
            socklen_t len = sizeof *error;
            if (w == 0)
                *error = ETIMEDOUT;
            else if (getsockopt(fd, SOL_SOCKET, SO_ERROR, error, &len) < 0)
                *error = errno;
            rc = w == 1 && *error == 0 ? 0 : -1;
        } else if (rc < 0) {
            *error = errno;
        }
        if (rc == 0) return 0;
        pthread_mutex_lock(&p->lock);
        close_locked(&c->upstream);
        pthread_mutex_unlock(&p->lock);
    }
    return -1;
}

/* ---- Relaying ---- */

typedef struct direction {
    lcsb__proxy *proxy;
    int from, to;
    char *buf;
    size_t cap, off, len;
    size_t grown; /* of the proxy's RELAY_GROWN */
    bool eof;     /* FROM said it is done */
    bool shut;    /* and TO was told */
    bool full;    /* the last read filled the buffer: a bulk transfer, worth a larger one */
} direction;

/* What is in D's buffer, written as far as TO takes it now: 0, or -1 on an
 * error. */
static int flush(direction *d) {
    while (d->len) {
        ssize_t n = send(d->to, d->buf + d->off, d->len, MSG_NOSIGNAL | MSG_DONTWAIT);
        if (n > 0) {
            d->off += (size_t)n;
            d->len -= (size_t)n;
        } else if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            return 0;
        } else if (n < 0 && errno == EINTR) {
            continue;
        } else {
            return -1;
        }
    }
    d->off = 0;
    return 0;
}

/* One read from FROM into D's empty buffer: 0, or -1 on an error. */
static int fill(direction *d) {
    if (d->full && d->cap < RELAY_MAX) {
        /* Fewer trips through the kernel on a download: through 64 KiB
         * buffers a loopback download ran at 0.47 of a direct one, through
         * 2 MiB at 0.87 (read and write beat splice through a pipe, 0.6).
         * A quiet connection never pays for them, and many downloads at
         * once share a budget. */
        lcsb__proxy *p = d->proxy;
        pthread_mutex_lock(&p->lock);
        bool may = p->grown + d->cap <= RELAY_GROWN;
        if (may) p->grown += d->cap;
        pthread_mutex_unlock(&p->lock);
        char *bigger = may ? malloc(d->cap * 2) : NULL;
        if (bigger) {
            free(d->buf);
            d->buf = bigger;
            d->grown += d->cap;
            d->cap *= 2;
        } else if (may) {
            pthread_mutex_lock(&p->lock);
            p->grown -= d->cap;
            pthread_mutex_unlock(&p->lock);
        }
    }
    ssize_t n = recv(d->from, d->buf, d->cap, MSG_DONTWAIT);
    if (n > 0) {
        d->len = (size_t)n;
        d->off = 0;
        d->full = (size_t)n == d->cap;
        return 0;
    }
    if (n == 0) {
        d->eof = true;
        return 0;
    }
    return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR ? 0 : -1;
}

/* Both ways until each side has ended what it sends (each end passed on
 * as a half-close), an error, or stop. */
static void relay(conn *c, direction d[2]) {
    int fds[2] = {c->client, c->upstream};
    for (;;) {
        short events[2] = {0, 0};
        for (int k = 0; k < 2; k++) {
            if (d[k].len)
                events[d[k].to == fds[0] ? 0 : 1] |= POLLOUT;
            else if (!d[k].eof)
                events[d[k].from == fds[0] ? 0 : 1] |= POLLIN;
        }
        if (!events[0] && !events[1]) return;
        /* A side nothing is waited on is left out: its hang-up would
         * otherwise wake every poll while the other side still has bytes
         * to take. */
        struct pollfd pf[3] = {{.fd = events[0] ? fds[0] : -1, .events = events[0]},
                               {.fd = events[1] ? fds[1] : -1, .events = events[1]},
                               {.fd = c->proxy->wake[0], .events = POLLIN}};
        int n = poll(pf, 3, -1);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0 || pf[2].revents) return;
        for (int k = 0; k < 2; k++) {
            direction *x = &d[k];
            short from = pf[x->from == fds[0] ? 0 : 1].revents;
            short to = pf[x->to == fds[0] ? 0 : 1].revents;
            if (!x->len && !x->eof && from) {
                if (fill(x)) return;
                to = x->len ? POLLOUT : 0;
            }
            if (x->len && to && flush(x)) return;
            if (x->eof && !x->len && !x->shut) {
                shutdown(x->to, SHUT_WR);
                x->shut = true;
            }
        }
    }
}

static int direction_init(direction *d, conn *c, bool up, const void *first, size_t len) {
    *d = (direction){.proxy = c->proxy,
                     .from = up ? c->client : c->upstream,
                     .to = up ? c->upstream : c->client,
                     .cap = len > RELAY_MIN ? len : RELAY_MIN};
    d->buf = malloc(d->cap);
    if (!d->buf) return -1;
    if (len) memcpy(d->buf, first, len);
    d->len = len;
    return 0;
}

/* ---- A connection ---- */

/* The request, read whole within HEAD_MS: 0 with REQ, and *HEAD_END where
 * the client's own bytes start in BUF; -1 when it was answered or gone. */
static int read_request(conn *c, char *buf, size_t *len, lcsb__request *req, size_t *head_end) {
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
            refuse(c, req, req->status, body);
            return -1;
        }
        *head_end = req->used;
        return 0;
    }
    while ((state = lcsb__socks_greeting(u, *len, req)) == LCSB__PARSE_MORE)
        if (read_more(c, buf, len, LCSB__REQUEST_HEAD_MAX, deadline)) return -1;
    if (state == LCSB__PARSE_BAD) {
        refuse(c, req, req->status, "");
        return -1;
    }
    size_t greeting = req->used;
    static const unsigned char no_auth[2] = {5, 0};
    if (send_all(c, c->client, no_auth, sizeof no_auth, lcsb__now_ms() + REPLY_MS)) return -1;
    while ((state = lcsb__socks_request(u + greeting, *len - greeting, req)) == LCSB__PARSE_MORE)
        if (read_more(c, buf, len, LCSB__REQUEST_HEAD_MAX, deadline)) return -1;
    if (state == LCSB__PARSE_BAD) {
        refuse(c, req, req->status, "");
        return -1;
    }
    *head_end = greeting + req->used;
    return 0;
}

static void *serve(void *arg) {
    conn *c = arg;
    lcsb__proxy *p = c->proxy;
    lcsb__request req = {0};
    route r = {0};
    direction d[2] = {{.buf = NULL}, {.buf = NULL}};
    size_t len = 0, head_end = 0;
    char *buf = malloc(LCSB__REQUEST_HEAD_MAX);
    if (!buf || read_request(c, buf, &len, &req, &head_end) || decide(c, &req, &r)) goto end;

    int error;
    if (connect_any(c, &r, &error)) {
        if (stopping(p)) goto end;
        char body[600], e[128], why[160];
        const char *reason = strerror_r(error, e, sizeof e);
        snprintf(body, sizeof body, "lcsb: cannot connect to %s port %u: %s\n", req.host,
                 (unsigned)req.port, reason);
        snprintf(why, sizeof why, "cannot connect: %s", reason);
        record(p, req.host, req.port, why);
        refuse(c, &req, req.kind == LCSB__REQUEST_SOCKS ? 0x05 : 502, body);
        goto end;
    }
    int one = 1;
    setsockopt(c->client, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    setsockopt(c->upstream, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);

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
        if (req.forward.oom || direction_init(&d[0], c, true, req.forward.p, req.forward.len))
            goto end;
    } else if (direction_init(&d[0], c, true, buf + head_end, extra)) {
        goto end;
    }
    free(buf);
    buf = NULL;
    lcsb__request_clear(&req);
    if (direction_init(&d[1], c, false, answer, answer_len)) goto end;
    relay(c, d);

end:
    for (int k = 0; k < 2; k++) {
        free(d[k].buf);
        if (d[k].grown) {
            pthread_mutex_lock(&p->lock);
            p->grown -= d[k].grown;
            pthread_mutex_unlock(&p->lock);
        }
    }
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
    int n = http_answer(text, sizeof text, 503, body);
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
        conn *c = NULL;
        pthread_mutex_lock(&p->lock);
        reap(p);
        if (p->live < p->conn_max && (c = calloc(1, sizeof *c))) {
            *c = (conn){.proxy = p, .client = fd, .upstream = -1, .next = p->conns};
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

/* This host's addresses, each as a range of one, into P->own. */
static int own_addresses(lcsb__proxy *p) {
    struct ifaddrs *all;
    if (getifaddrs(&all) != 0) return -1;
    size_t n = 0;
    for (struct ifaddrs *i = all; i; i = i->ifa_next) n++;
    p->own = calloc(n + 1, sizeof *p->own);
    for (struct ifaddrs *i = all; p->own && i; i = i->ifa_next) {
        const struct sockaddr *sa = i->ifa_addr;
        if (!sa || (sa->sa_family != AF_INET && sa->sa_family != AF_INET6)) continue;
        lcsb__cidr *c = &p->own[p->own_n++];
        c->family = sa->sa_family;
        if (sa->sa_family == AF_INET) {
            memcpy(c->addr, &((const struct sockaddr_in *)(const void *)sa)->sin_addr, 4);
            c->bits = 32;
        } else {
            memcpy(c->addr, &((const struct sockaddr_in6 *)(const void *)sa)->sin6_addr, 16);
            c->bits = 128;
        }
    }
    freeifaddrs(all);
    if (!p->own) errno = ENOMEM;
    return p->own ? 0 : -1;
}

int lcsb__proxy_start(const lcsb_policy *policy, int listen_fd, lcsb__proxy **out,
                      lcsb_error *err) {
    *out = NULL;
    lcsb__proxy *p = calloc(1, sizeof *p);
    if (!p) {
        close(listen_fd);
        return lcsb__fail(err, LCSB_ENOMEM, "out of memory");
    }
    p->listen_fd = listen_fd;
    p->wake[0] = p->wake[1] = p->drain[0] = p->drain[1] = -1;
    p->refs = 1;
    pthread_mutex_init(&p->lock, NULL);
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&p->ended, &ca);
    pthread_condattr_destroy(&ca);

    int rc = 0;
    char why[300];
    p->domains = calloc(policy->domains.n + 1, sizeof *p->domains);
    p->lan = calloc(policy->lan.n + 1, sizeof *p->lan);
    if (!p->domains || !p->lan) {
        rc = lcsb__fail(err, LCSB_ENOMEM, "out of memory");
        goto fail;
    }
    for (size_t i = 0; i < policy->domains.n; i++, p->domains_n++) {
        if (lcsb__domain_parse(policy->domains.v[i], &p->domains[i], why, sizeof why)) {
            rc = lcsb__fail(err, LCSB_EINVAL, "%s", why);
            goto fail;
        }
    }
    for (size_t i = 0; i < policy->lan.n; i++, p->lan_n++) {
        if (lcsb__cidr_parse(policy->lan.v[i], &p->lan[i], why, sizeof why)) {
            rc = lcsb__fail(err, LCSB_EINVAL, "%s", why);
            goto fail;
        }
    }
    /* The listening socket and the pipe stay out of the command that lcsb
     * starts next, and accept never blocks on a client that went away. */
    int flags = fcntl(listen_fd, F_GETFL);
    if (flags < 0 || fcntl(listen_fd, F_SETFL, flags | O_NONBLOCK) < 0 ||
        fcntl(listen_fd, F_SETFD, FD_CLOEXEC) < 0 || pipe2(p->wake, O_CLOEXEC) < 0 ||
        pipe2(p->drain, O_CLOEXEC) < 0) {
        rc = lcsb__fail(err, LCSB_ESYS, "cannot ready the proxy's socket: %s", strerror(errno));
        goto fail;
    }

    p->probe = !binds_nonlocal();
    if (own_addresses(p) != 0) {
        rc = lcsb__fail(err, LCSB_ESYS, "cannot list this host's addresses: %s", strerror(errno));
        goto fail;
    }
    /* Two descriptors a connection: a lower limit than CONN_MAX needs gets
     * fewer connections, and the 503, rather than accepts that fail. */
    struct rlimit files;
    p->conn_max = CONN_MAX;
    if (getrlimit(RLIMIT_NOFILE, &files) == 0 && files.rlim_cur != RLIM_INFINITY &&
        files.rlim_cur < 2 * CONN_MAX + FDS_SPARE)
        p->conn_max = files.rlim_cur > 2 * 8 + FDS_SPARE ? (files.rlim_cur - FDS_SPARE) / 2 : 8;

    /* The caller relays signals on its own thread: none may land in ours.
     * The threads inherit the mask they are created under. */
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setstacksize(&attr, STACK_SIZE);
    int e = pthread_create(&p->acceptor, &attr, accept_loop, p);
    pthread_attr_destroy(&attr);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
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
    for (conn *c = p->conns; c; c = c->next) {
        if (c->client >= 0) shutdown(c->client, SHUT_RDWR);
        if (c->upstream >= 0) shutdown(c->upstream, SHUT_RDWR);
    }
    wait_ended(p, STOP_MS);
    reap(p);
    /* Those still running (in getaddrinfo, which nothing interrupts) are
     * left to end on their own, and the last of them frees the state. */
    for (conn *c = p->conns; c; c = c->next) {
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
