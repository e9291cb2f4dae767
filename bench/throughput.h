/* The proxy's throughput: a download through it against a direct one
 * (throughput.c). */
#ifndef LCSB_BENCH_THROUGHPUT_H
#define LCSB_BENCH_THROUGHPUT_H

#include <lcsb.h>
#include <pthread.h>
#include <stdbool.h>

#include "bench.h"
#include "fixture.h"

/* The bench's HTTP server, in a thread of the harness: listening on the
 * loopback address the host's name resolves to, port 0. */
struct server {
    int fd;
    pthread_t thread;
    bool started;
    void *tls; /* SSL_CTX *: the HTTPS twin; NULL: plain HTTP */
};

/* The servers (SRV plain, TLS its HTTPS twin), the policies t.lua (the
 * server's name) and r.lua (the same with a rule, which has the proxy read
 * the requests) trusted, and the downloads' argvs. Each one that cannot
 * run here says why. */
void transfer_rows(struct throughput *net, struct server *srv, struct server *tls,
                   const struct fixture *fx, const lcsb_backend *b);
/* The downloads in turns, after one round that warms the caches. */
void measure_transfers(struct throughput *net, int rounds, int out_fd, int err_fd);
void transfers_free(struct throughput *net);
void server_stop(struct server *srv);

#endif
