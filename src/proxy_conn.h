/* Layer 6: what the proxy's files share (proxy.c the acceptor and a
 * connection's course, proxy_route.c where a request may go, proxy_relay.c
 * the bytes both ways): the proxy's state and a connection's record, the
 * waits that stop reaches, and a refusal answered and kept. Apart so that
 * each of those files reads as its own step; nothing outside the proxy
 * includes it, the rest of lcsb sees proxy.h only. */
#ifndef LCSB_PROXY_CONN_H
#define LCSB_PROXY_CONN_H

#include "netname.h"
#include "policy.h"
#include "proxy_request.h"
#include "secrets.h"
#include "util.h"

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define LCSB__PROXY_REPLY_MS (5 * 1000) /* for an answer to go out */

/* proxy.h's handle, named again rather than included: proxy.c, which
 * implements proxy.h, includes this header. */
typedef struct lcsb__proxy lcsb__proxy;
typedef struct lcsb__conn lcsb__conn;
struct lcsb__conn {
    lcsb__conn *prev, *next;
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
    lcsb__conn *conns;
    size_t live;  /* connections not done */
    size_t grown; /* bytes the relay buffers hold past RELAY_MIN */
    lcsb__domain *domains;
    size_t domains_n;
    /* The run's authority (proxy_tls.h), held: where a rule must read a
     * tunnel's requests. NULL: no rule needs it (any tunnel that would is
     * refused). */
    struct lcsb__tls *tls;
    /* The run's secrets and the values withheld from the command (copies,
     * wiped when the proxy goes). */
    lcsb__secret *secrets;
    size_t secrets_n;
    bool withheld_seen; /* a request carried a withheld value: no more are sent on */
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

/* Wait until FD is ready for EVENTS: 1; 0 when DEADLINE passes; -1 when the
 * proxy stops. */
int lcsb__proxy_wait_fd(const lcsb__conn *c, int fd, short events, long long deadline);
/* All of DATA (LEN bytes) to FD by DEADLINE: 0, or -1 (an error, the
 * deadline, or stop). */
int lcsb__proxy_send_all(const lcsb__conn *c, int fd, const void *data, size_t len,
                         long long deadline);
/* *FD closed and set to -1; under the proxy's lock. */
void lcsb__proxy_close_locked(int *fd);
bool lcsb__proxy_stopping(lcsb__proxy *p);
/* Is the command gone (or the proxy stopping)? Then nothing is resolved or
 * connected any more. */
bool lcsb__proxy_draining(lcsb__proxy *p);
/* HOST:PORT refused for WHY: counted once per distinct pair, attempts
 * counted for the kept ones; a request that carried a withheld value
 * ("withheld: ...") is a refusal of its own, never folded into another. */
void lcsb__proxy_record(lcsb__proxy *p, const char *host, uint16_t port, const char *why);
/* An HTTP answer of STATUS with BODY into OUT (SIZE bytes): its length. */
int lcsb__proxy_http_answer(char *out, size_t size, int status, const char *body);
/* The answer to a request refused or failed, then the connection closed
 * gently: what the client sent past its head is read and dropped for a
 * moment, since closing over unread bytes resets the connection and can
 * take the answer with it. */
void lcsb__proxy_refuse(lcsb__conn *c, const lcsb__request *req, int code, const char *body);

#endif
