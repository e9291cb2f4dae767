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
};

/* The server, the policy t.lua trusted, and the three downloads' argvs.
 * Each one that cannot run here says why. */
void transfer_rows(struct throughput *net, struct server *srv, const struct fixture *fx,
                   const lcsb_backend *b);
/* The downloads in turns, after one round that warms the caches. */
void measure_transfers(struct throughput *net, int rounds, int out_fd, int err_fd);
void transfers_free(struct throughput *net);
void server_stop(struct server *srv);

#endif
