/* Layer 6: the bytes of a connection lcsb's proxy allowed, relayed both
 * ways (proxy_relay.c) until each side is done, in buffers that grow for a
 * download within a budget the proxy's connections share. Apart from the
 * decision, which it never revisits: by now the way is open. */
#ifndef LCSB_PROXY_RELAY_H
#define LCSB_PROXY_RELAY_H

#include "proxy_conn.h"

#include <stdbool.h>
#include <stddef.h>

typedef struct lcsb__direction {
    lcsb__proxy *proxy;
    int from, to;
    char *buf;
    size_t cap, off, len;
    size_t grown; /* of the proxy's RELAY_GROWN */
    bool eof;     /* FROM said it is done */
    bool shut;    /* and TO was told */
    bool full;    /* the last read filled the buffer: a bulk transfer, worth a larger one */
} lcsb__direction;

/* D for the client's bytes to upstream (UP) or upstream's to the client,
 * its buffer starting with FIRST (LEN bytes): 0, or -1 out of memory. */
int lcsb__direction_init(lcsb__direction *d, lcsb__conn *c, bool up, const void *first, size_t len);
/* D's buffer freed, and what it grew past its first size given back to
 * the proxy's budget (NULL-buffer safe). */
void lcsb__direction_free(lcsb__direction *d);
/* Both ways until each side has ended what it sends (each end passed on
 * as a half-close), an error, or stop. */
void lcsb__proxy_relay(lcsb__conn *c, lcsb__direction d[2]);

#endif
