/* Layer 6: a network namespace of lcsb's making, for a container to join
 * under net.domains: loopback only, with a socket listening on
 * 127.0.0.1:PORT in it that lcsb's proxy serves from the host's network.
 * A child process holds it; the engine joins it by the child's
 * /proc/PID/ns/net (podman --network=ns:PATH). Making one takes root (the
 * engine must be rootful to join it, too). */
#ifndef LCSB_NETNS_H
#define LCSB_NETNS_H

#include "util.h"

#include <stdint.h>
#include <sys/types.h>

typedef struct lcsb__netns {
    pid_t holder;   /* the child in it; 0: none */
    int release;    /* closing it lets the holder go */
    char path[64];  /* /proc/HOLDER/ns/net */
} lcsb__netns;

/* Make one, with the socket listening on 127.0.0.1:PORT in it into
 * *LISTENER. The holder dies with lcsb. */
int lcsb__netns_hold(uint16_t port, lcsb__netns *ns, int *listener, lcsb_error *err);
/* Let the holder go and reap it (NULL-safe; a zeroed NS holds nothing). */
void lcsb__netns_release(lcsb__netns *ns);

#endif
