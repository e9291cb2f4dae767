/* Layer 6: lcsb's own proxy, the only way out of a network of the
 * command's own (LCSB_NET_DOMAINS). HTTP CONNECT, absolute-URI HTTP and
 * SOCKS5 CONNECT on one listening socket; each name checked against the
 * policy's net.domains, resolved here, outside, and refused when it leads
 * to a loopback, private or link-local address that net.lan does not name;
 * then connected and relayed both ways. Served by threads of its own, so
 * that lcsb's wait (the stderr relay, the signals) goes on as before. */
#ifndef LCSB_PROXY_H
#define LCSB_PROXY_H

#include "policy.h"
#include "secrets.h"

typedef struct lcsb__proxy lcsb__proxy;

/* What the proxy needs to read and change requests, lent to
 * lcsb__proxy_start: the run's authority (NULL: none, and a tunnel that
 * needs one is refused), held while the proxy needs it; the run's secrets,
 * placeholders and values (secrets.h), and the values lcsb withheld from
 * the command (secrets without hosts: never sent, only looked for),
 * copied. */
struct lcsb__tls;
typedef struct lcsb__intercept {
    struct lcsb__tls *tls;
    const lcsb__secret *secrets;
    size_t secrets_n;
} lcsb__intercept;

/* Serve POLICY's net.domains and net.lan (copied: POLICY may go) on the
 * listening TCP socket LISTEN_FD, which is taken, even on failure, with
 * WITH (NULL: nothing to read or change). Every signal is blocked in the
 * proxy's threads. */
int lcsb__proxy_start(const lcsb_policy *policy, int listen_fd, const lcsb__intercept *with,
                      lcsb__proxy **out, lcsb_error *err);
/* Accept no more, end every connection, and free PROXY (NULL-safe); the
 * refusals it saw into OUT (at most MAX, one per host:port) and how many
 * distinct ones there were into *COUNT. */
void lcsb__proxy_stop(lcsb__proxy *proxy, lcsb_net_refusal *out, size_t max, size_t *count);

#endif
