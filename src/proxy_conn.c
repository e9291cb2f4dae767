/* What every step of serving a connection shares: waiting on a descriptor
 * while watching for stop, sending, the state's two flags read under its
 * lock, a refusal kept for the record and answered to the client. Apart
 * from proxy.c so that the acceptor, the route and the relay each read on
 * their own, over the same few means. */
#include "proxy_conn.h"

#include "sys.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define LINGER_MS 1000 /* reading what follows a refused request */
#define SEEN_MAX 4096  /* distinct refusals told apart past the kept ones */

/* ---- Time and waiting ---- */

static int left_ms(long long deadline) {
    long long left = deadline - lcsb__now_ms();
    return left < 0 ? 0 : left > 60000 ? 60000 : (int)left;
}

int lcsb__proxy_wait_fd(const lcsb__conn *c, int fd, short events, long long deadline) {
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

int lcsb__proxy_send_all(const lcsb__conn *c, int fd, const void *data, size_t len,
                         long long deadline) {
    const char *p = data;
    while (len) {
        ssize_t n = send(fd, p, len, MSG_NOSIGNAL | MSG_DONTWAIT);
        if (n > 0) {
            p += n;
            len -= (size_t)n;
        } else if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) {
            if (lcsb__proxy_wait_fd(c, fd, POLLOUT, deadline) <= 0) return -1;
        } else {
            return -1;
        }
    }
    return 0;
}

void lcsb__proxy_close_locked(int *fd) {
    if (*fd >= 0) close(*fd);
    *fd = -1;
}

bool lcsb__proxy_stopping(lcsb__proxy *p) {
    pthread_mutex_lock(&p->lock);
    bool s = p->stopping;
    pthread_mutex_unlock(&p->lock);
    return s;
}

bool lcsb__proxy_draining(lcsb__proxy *p) {
    pthread_mutex_lock(&p->lock);
    bool s = p->draining || p->stopping;
    pthread_mutex_unlock(&p->lock);
    return s;
}

/* What tells two refusals of one host:port apart, each with a hint of its
 * own, into KIND (SIZE bytes): a withheld value's, which must not hide
 * behind another's, and a rule's by its reason ("rule: POST /x: its
 * method is not among the rule's"; a method's with the method), so that
 * one run shows every rule a command ran into; "" for the rest. */
static void refusal_kind(const char *why, char *kind, size_t size) {
    const char *reason = strncmp(why, "rule: ", 6) == 0 ? strstr(why + 6, ": ") : NULL;
    if (strncmp(why, "withheld:", 9) == 0)
        snprintf(kind, size, "withheld");
    else if (reason)
        snprintf(kind, size, "%.*s%s", strstr(reason, "method") ? (int)strcspn(why + 6, " ") : 0,
                 why + 6, reason);
    else
        kind[0] = '\0';
}

void lcsb__proxy_record(lcsb__proxy *p, const char *host, uint16_t port, const char *why) {
    pthread_mutex_lock(&p->lock);
    if (p->stopping) goto unlock;
    char kind[sizeof p->kept[0].why], theirs[sizeof p->kept[0].why];
    refusal_kind(why, kind, sizeof kind);
    for (size_t i = 0; i < p->kept_n; i++) {
        if (p->kept[i].port != port || strcmp(p->kept[i].host, host) != 0) continue;
        refusal_kind(p->kept[i].why, theirs, sizeof theirs);
        if (strcmp(kind, theirs) == 0) {
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
    char key[LCSB__HOST_MAX + sizeof p->kept[0].why + 8];
    snprintf(key, sizeof key, "%s %u %s", host, (unsigned)port, kind);
    for (size_t i = 0; i < p->seen.n; i++)
        if (strcmp(p->seen.v[i], key) == 0) goto unlock;
    /* Past SEEN_MAX names a command is spraying: each counts, even again. */
    if (p->seen.n < SEEN_MAX) (void)lcsb__strv_push(&p->seen, key);
    p->distinct++;
unlock:
    pthread_mutex_unlock(&p->lock);
}

/* ---- Answers ---- */

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

int lcsb__proxy_http_answer(char *out, size_t size, int status, const char *body) {
    int n = snprintf(out, size,
                     "HTTP/1.1 %d %s\r\nContent-Type: text/plain\r\nContent-Length: %zu\r\n"
                     "Connection: close\r\n\r\n%s",
                     status, status_text(status), strlen(body), body);
    return n < 0 ? 0 : (size_t)n >= size ? (int)size - 1 : n;
}

void lcsb__proxy_refuse(lcsb__conn *c, const lcsb__request *req, int code, const char *body) {
    char text[1536]; /* a body of decide's 900 bytes and the head */
    long long deadline = lcsb__now_ms() + LCSB__PROXY_REPLY_MS;
    if (req->kind == LCSB__REQUEST_SOCKS) {
        unsigned char reply[10] = {5, (unsigned char)code, 0, 1};
        /* A greeting refused is answered with the method chosen, none. */
        if (lcsb__proxy_send_all(c, c->client, reply, code == 0xff ? 2 : sizeof reply, deadline))
            return;
    } else {
        int n = lcsb__proxy_http_answer(text, sizeof text, code, body);
        if (lcsb__proxy_send_all(c, c->client, text, (size_t)n, deadline)) return;
    }
    shutdown(c->client, SHUT_WR);
    deadline = lcsb__now_ms() + LINGER_MS;
    for (;;) {
        ssize_t n = recv(c->client, text, sizeof text, MSG_DONTWAIT);
        if (n > 0) continue;
        if (n == 0 || (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)) return;
        if (lcsb__proxy_wait_fd(c, c->client, POLLIN, deadline) <= 0) return;
    }
}
