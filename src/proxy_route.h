/* Layer 6: where a request to lcsb's proxy may go (proxy_route.c): its
 * name held to net.domains, resolved here, outside, each address held to
 * net.lan and to this host's own, and the first address that answers
 * connected. The security boundary of the proxy is this decision, so it is
 * a file of its own, read apart from the threads that serve it. */
#ifndef LCSB_PROXY_ROUTE_H
#define LCSB_PROXY_ROUTE_H

#include "proxy_conn.h"

#include <netdb.h>
#include <stdbool.h>
#include <stddef.h>

#define LCSB__PROXY_ADDRS_MAX 16 /* a name's addresses tried */

/* The addresses a request may go to: AI as getaddrinfo gave it (the
 * caller frees it), USE the N of them the policy allows, in its order. */
typedef struct lcsb__route {
    struct addrinfo *ai;
    const struct addrinfo *use[LCSB__PROXY_ADDRS_MAX];
    size_t n;
    lcsb__domain *once; /* the once grant the request took, until it connects */
    bool judged;        /* a rule judges every request to the host (proxy_judged.h) */
} lcsb__route;

/* Is REQ's host:port allowed, and to which addresses? 0 with ROUTE filled;
 * -1 when it was answered (refused, or not resolved). */
int lcsb__proxy_decide(lcsb__conn *c, const lcsb__request *req, lcsb__route *r);
/* The first of ROUTE's addresses that answers, as c->upstream: 0, or -1
 * when none does (the last error in *ERROR) or the proxy stops. A once
 * grant the request took is given back when none answers: the grant is
 * for the first connection, and a retry after a refused one is that. */
int lcsb__proxy_connect(lcsb__conn *c, lcsb__route *r, int *error);

/* The once grant R took, given back: no connection came of it. */
void lcsb__proxy_give_back(lcsb__proxy *p, lcsb__route *r);

/* This host's addresses, each as a range of one, into P->own. */
int lcsb__proxy_own_addresses(lcsb__proxy *p);
/* Does this host let a socket bind an address it does not have? Then a
 * bind tells nothing, and the list of addresses at start is all there is. */
bool lcsb__proxy_binds_nonlocal(void);

#endif
