/* Layer 6: a connection whose requests a rule judges (net.domains'
 * methods= and paths=): read, judged, and sent on by their framing, with
 * no byte past it. Interception happens here, for a tunnel: the command's
 * end is served in TLS when it speaks TLS, under a certificate the run's
 * authority signs for the tunnel's host (proxy_tls.h), and upstream's end
 * is then verified as the command's own client would verify it. One
 * request per connection (Connection: close), so that a refusal is always
 * the connection's first answer. */
#ifndef LCSB_PROXY_JUDGED_H
#define LCSB_PROXY_JUDGED_H

#include "proxy_conn.h"
#include "proxy_request.h"

#include <stddef.h>

/* A forwarded request (FORWARD) held to the rules before its connection
 * is made: 0, or -1 when it was refused and answered. */
int lcsb__proxy_judge_forward(lcsb__conn *c, const lcsb__request *req);
/* Serve C, whose upstream is connected, for REQ: a tunnel (CONNECT,
 * SOCKS5), told it is open here; or a forwarded request, judged already,
 * with FIRST (LEN bytes) what the client sent past its head. */
void lcsb__proxy_judged(lcsb__conn *c, lcsb__request *req, const char *first, size_t len);

#endif
