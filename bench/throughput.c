/* The proxy's throughput: curl downloading from an HTTP server in a thread
 * of the harness, directly and under lcsb through the proxy, in turns.
 * Apart from bench.c, whose rows run /bin/true. */
#include <errno.h>
#include <lcsb.h>
#include <limits.h>
#include <netdb.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include "bench.h"
#include "fixture.h"
#include "process.h"
#include "throughput.h"
#include "util.h"

/* ---- The proxy's throughput: a download through it against a direct one. ---- */

/* What the server sends: zeros, TRANSFER_BYTES of them in writes of this
 * size, so that the server does no work per byte but its send (no file to
 * read, nothing to fill in) and as few sends as the socket takes. */
static char payload[4 << 20];

/* One connection: its request read to the end of its head (closing over
 * unread bytes would reset the connection and could take the answer's tail
 * with it), then the answer, whatever was asked. */
static void serve_one(int fd) {
    char req[16384], head[128];
    size_t len = 0;
    while (len < sizeof req - 1) {
        ssize_t n = recv(fd, req + len, sizeof req - 1 - len, 0);
        if (n <= 0) return;
        len += (size_t)n;
        if (memmem(req, len, "\r\n\r\n", 4)) break;
    }
    int n = snprintf(head, sizeof head,
                     "HTTP/1.1 200 OK\r\nContent-Length: %lld\r\nConnection: close\r\n\r\n",
                     TRANSFER_BYTES);
    if (send(fd, head, (size_t)n, MSG_NOSIGNAL) != n) return;
    for (long long left = TRANSFER_BYTES; left > 0;) {
        size_t chunk = left < (long long)sizeof payload ? (size_t)left : sizeof payload;
        ssize_t sent = send(fd, payload, chunk, MSG_NOSIGNAL);
        if (sent <= 0) return;
        left -= sent;
    }
    /* Our end told, then the client's end awaited: curl closes once it has
     * the bytes Content-Length promised. */
    shutdown(fd, SHUT_WR);
    while (recv(fd, req, sizeof req, 0) > 0) {
    }
}

static void *serve_downloads(void *arg) {
    const struct server *srv = arg;
    for (;;) {
        int fd = accept4(srv->fd, NULL, NULL, SOCK_CLOEXEC);
        if (fd < 0 && (errno == EINTR || errno == ECONNABORTED)) continue;
        /* server_stop's shutdown of the listening socket ends the accept. */
        if (fd < 0) break;
        /* A client that stalls fails its run instead of holding the bench. */
        struct timeval limit = {.tv_sec = 30};
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &limit, sizeof limit);
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &limit, sizeof limit);
        serve_one(fd);
        close(fd);
    }
    return NULL;
}

/* The server on ADDR, its port in *PORT: 0, or -1 with errno. */
static int server_start(struct server *srv, struct in_addr addr, int *port) {
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_addr = addr};
    socklen_t len = sizeof sa;
    srv->fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (srv->fd < 0) return -1;
    if (bind(srv->fd, (struct sockaddr *)&sa, sizeof sa) != 0 || listen(srv->fd, 16) != 0 ||
        getsockname(srv->fd, (struct sockaddr *)&sa, &len) != 0)
        return -1;
    int e = pthread_create(&srv->thread, NULL, serve_downloads, srv);
    if (e) {
        errno = e;
        return -1;
    }
    srv->started = true;
    /* Only now: a port says there is a server to download from. */
    *port = ntohs(sa.sin_port);
    return 0;
}

void server_stop(struct server *srv) {
    /* On Linux, shutting a listening socket down wakes its blocked accept. */
    if (srv->started) {
        shutdown(srv->fd, SHUT_RDWR);
        pthread_join(srv->thread, NULL);
    }
    if (srv->fd >= 0) close(srv->fd);
    srv->fd = -1;
}

/* The host's own name into NET->host and its address into ADDR when the
 * name resolves to a 127.x address: the proxy resolves it as it does any
 * name (net.lan lets it lead to loopback), and it is not "localhost", which
 * the command's NO_PROXY sends around the proxy. Otherwise NET->note says
 * why there is no measurement. */
static bool loopback_name(struct throughput *net, struct in_addr *addr) {
    struct addrinfo hints = {.ai_family = AF_INET, .ai_socktype = SOCK_STREAM}, *res = NULL;
    char name[sizeof net->host];
    if (gethostname(name, sizeof name) != 0 || !name[0]) {
        snprintf(net->note, sizeof net->note, "this host has no name to download from");
        return false;
    }
    name[sizeof name - 1] = '\0';
    if (strcmp(name, "localhost") == 0) {
        snprintf(net->note, sizeof net->note,
                 "this host's name is localhost, which NO_PROXY sends around the proxy");
        return false;
    }
    if (getaddrinfo(name, NULL, &hints, &res) != 0) {
        snprintf(net->note, sizeof net->note, "this host's name (%.64s) does not resolve", name);
        return false;
    }
    *addr = ((const struct sockaddr_in *)(const void *)res->ai_addr)->sin_addr;
    freeaddrinfo(res);
    if (ntohl(addr->s_addr) >> 24 != 127) {
        snprintf(net->note, sizeof net->note,
                 "this host's name (%.64s) does not resolve to a 127.x address", name);
        return false;
    }
    snprintf(net->host, sizeof net->host, "%s", name);
    return true;
}

static void transfer_skip(struct transfer *t, const char *note) {
    t->state = ROW_SKIPPED;
    snprintf(t->note, sizeof t->note, "%s", note);
}

static void transfer_fail(struct transfer *t, int status, const char *detail) {
    t->state = ROW_FAILED;
    status_note(t->note, sizeof t->note, t->argv[0], status, detail);
}

/* The server, the policy t.lua (written now: it names the server's port)
 * trusted, and the three downloads' argvs. Each one that cannot run here
 * says why. */
void transfer_rows(struct throughput *net, struct server *srv, const struct fixture *fx,
                   const lcsb_backend *b) {
    struct transfer *t = net->t;
    t[TRANSFER_DIRECT] = (struct transfer){.name = "direct", .label = "curl, direct"};
    t[TRANSFER_PROXY] =
        (struct transfer){.name = "proxy", .label = "lcsb, proxy", .required = true};
    t[TRANSFER_TUNNEL] =
        (struct transfer){.name = "tunnel", .label = "lcsb, CONNECT", .required = true};
    char curl[PATH_MAX], url[512], path[PATH_MAX], policy[1024];
    struct in_addr addr;
    const char *why = NULL;
    if (!find_program("curl", curl, sizeof curl))
        snprintf(net->note, sizeof net->note, "curl is not installed");
    else if (loopback_name(net, &addr) && server_start(srv, addr, &net->port) != 0)
        snprintf(net->note, sizeof net->note, "cannot start the HTTP server: %s", strerror(errno));
    if (!net->port) {
        net->host[0] = '\0';
        for (size_t i = 0; i < TRANSFERS; i++) transfer_skip(&t[i], net->note);
        return;
    }
    snprintf(url, sizeof url, "http://%s:%d/", net->host, net->port);
    snprintf(path, sizeof path, "%s/t.lua", fx->project);
    snprintf(policy, sizeof policy,
             "return require(\"lcsb\").exec_policy{ exec = { \"curl\" }, net = { domains = { "
             "\"%s:%d\" }, lan = { \"127.0.0.0/8\" } } }\n",
             net->host, net->port);
    if (!b)
        why = "no Landlock on this kernel";
    else if (!write_file(path, policy) || !trust_policy(fx, "t.lua"))
        why = "cannot write or trust t.lua";

    /* -q first, so that no ~/.curlrc changes what runs; the bytes and
     * curl's own time on stdout; a run that stalls fails instead of
     * holding the bench. The direct one never takes a proxy from the
     * harness's environment; under lcsb the command's environment names
     * lcsb's, and -p makes curl tunnel through it with CONNECT even for
     * http, as it does for every https download. */
    static const char w[] = "%{size_download} %{time_total}\n";
    const char *const direct[] = {curl, "-q",        "-sS", "--noproxy", "*", "--max-time", "120",
                                  "-o", "/dev/null", "-w",  w,           url, NULL};
    const char *const proxy[] = {
        LCSB_BENCH_CLI, "t.lua", "--",        "curl", "-q", "-sS", "--max-time",
        "120",          "-o",    "/dev/null", "-w",   w,    url,   NULL};
    const char *const tunnel[] = {
        LCSB_BENCH_CLI, "t.lua", "--",        "curl", "-q", "-sS", "-p", "--max-time",
        "120",          "-o",    "/dev/null", "-w",   w,    url,   NULL};
    t[TRANSFER_DIRECT].argv = strv_copy(direct);
    for (size_t i = TRANSFER_PROXY; i < TRANSFERS; i++) {
        t[i].cwd = fx->project;
        if (why) transfer_skip(&t[i], why);
    }
    if (!why) {
        t[TRANSFER_PROXY].argv = strv_copy(proxy);
        t[TRANSFER_TUNNEL].argv = strv_copy(tunnel);
    }
    for (size_t i = 0; i < TRANSFERS; i++)
        if (t[i].state == ROW_OK && !t[i].argv) transfer_skip(&t[i], "out of memory");
}

/* One download by T: 0 with its rates, or -1 with T failed. Its stdout and
 * stderr go to OUT_FD and ERR_FD, and are read back. */
static int download(struct transfer *t, int out_fd, int err_fd, double *mbs, double *wall_mbs) {
    char out[160], err[160];
    double start = now_ms();
    int status = spawn_wait(t->argv, t->cwd, NULL, out_fd, err_fd);
    double ms = now_ms() - start;
    take_first_line(out_fd, out, sizeof out);
    take_first_line(err_fd, err, sizeof err);
    if (status != 0) {
        transfer_fail(t, status, err);
        return -1;
    }
    /* curl writes its seconds as the locale has them: "0,25" reads as 0. */
    for (char *c = out; *c; c++)
        if (*c == ',') *c = '.';
    long long bytes = -1;
    double secs = 0;
    if (sscanf(out, "%lld %lf", &bytes, &secs) != 2 || bytes != TRANSFER_BYTES || secs <= 0) {
        t->state = ROW_FAILED;
        snprintf(t->note, sizeof t->note, "got %lld of %lld bytes (curl said \"%.60s\")", bytes,
                 TRANSFER_BYTES, out);
        return -1;
    }
    *mbs = (double)TRANSFER_BYTES / 1e6 / secs;
    *wall_mbs = (double)TRANSFER_BYTES / 1e3 / ms;
    return 0;
}

/* The downloads in turns, as measure does the rows, after one round that
 * warms the caches and would show a broken one before any is timed. */
void measure_transfers(struct throughput *net, int rounds, int out_fd, int err_fd) {
    struct transfer *t = net->t;
    const int warmup = 1;
    for (size_t i = 0; i < TRANSFERS; i++) {
        if (t[i].state != ROW_OK) continue;
        t[i].mbs = calloc((size_t)rounds, sizeof(double));
        t[i].wall_mbs = calloc((size_t)rounds, sizeof(double));
        if (!t[i].mbs || !t[i].wall_mbs) transfer_skip(&t[i], "out of memory");
    }
    for (int r = -warmup; r < rounds; r++) {
        for (size_t k = 0; k < TRANSFERS; k++) {
            struct transfer *x = &t[((size_t)(r + warmup) + k) % TRANSFERS];
            double mbs, wall;
            if (x->state != ROW_OK || download(x, out_fd, err_fd, &mbs, &wall)) continue;
            if (r < 0) continue;
            x->mbs[x->runs] = mbs;
            x->wall_mbs[x->runs++] = wall;
        }
    }
    for (size_t i = 0; i < TRANSFERS; i++) {
        struct transfer *x = &t[i];
        if (x->state != ROW_OK || !x->runs) continue;
        x->median = median_of(x->mbs, x->runs);
        x->min = x->mbs[0];
        x->max = x->mbs[x->runs - 1];
        x->wall_median = median_of(x->wall_mbs, x->runs);
    }
}

void transfers_free(struct throughput *net) {
    for (size_t i = 0; i < TRANSFERS; i++) {
        strv_free(net->t[i].argv);
        free(net->t[i].mbs);
        free(net->t[i].wall_mbs);
    }
}
