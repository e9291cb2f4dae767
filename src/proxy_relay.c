/* The relay: both directions of an open connection in one poll, each with
 * its own buffer, and an end passed on as a half-close. A buffer grows when
 * a read fills it (a download), within RELAY_GROWN for all of them. */
#include "proxy_relay.h"

#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#define RELAY_MIN (64 * 1024)   /* each direction's buffer, at first */
#define RELAY_MAX (2048 * 1024) /* and once a download fills it, up to this */
#define RELAY_GROWN (64 << 20)  /* all buffers' growth past RELAY_MIN, together */

/* What is in D's buffer, written as far as TO takes it now: 0, or -1 on an
 * error. */
static int flush(lcsb__direction *d) {
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
static int fill(lcsb__direction *d) {
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

void lcsb__proxy_relay(lcsb__conn *c, lcsb__direction d[2]) {
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
            lcsb__direction *x = &d[k];
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

int lcsb__direction_init(lcsb__direction *d, lcsb__conn *c, bool up, const void *first,
                         size_t len) {
    *d = (lcsb__direction){.proxy = c->proxy,
                           .from = up ? c->client : c->upstream,
                           .to = up ? c->upstream : c->client,
                           .cap = len > RELAY_MIN ? len : RELAY_MIN};
    d->buf = malloc(d->cap);
    if (!d->buf) return -1;
    if (len) memcpy(d->buf, first, len);
    d->len = len;
    return 0;
}

void lcsb__direction_free(lcsb__direction *d) {
    free(d->buf);
    if (d->grown) {
        lcsb__proxy *p = d->proxy;
        pthread_mutex_lock(&p->lock);
        p->grown -= d->grown;
        pthread_mutex_unlock(&p->lock);
    }
}
