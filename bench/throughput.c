/* The proxy's throughput: curl downloading from an HTTP server in a thread
 * of the harness (and from its HTTPS twin), directly and under lcsb through
 * the proxy, blind and where a rule has it read the requests, in turns.
 * Apart from bench.c, whose rows run /bin/true. */
#include <arpa/inet.h>
#include <errno.h>
#include <lcsb.h>
#include <limits.h>
#include <netdb.h>
#include <netinet/in.h>
#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>
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

/* One connection's bytes, in TLS (SSL, an SSL *) or not. */
static ssize_t conn_recv(int fd, void *ssl, char *buf, size_t len) {
    size_t n;
    if (ssl) return SSL_read_ex(ssl, buf, len, &n) ? (ssize_t)n : -1;
    return recv(fd, buf, len, 0);
}

static ssize_t conn_send(int fd, void *ssl, const char *buf, size_t len) {
    size_t n;
    if (ssl) return SSL_write_ex(ssl, buf, len, &n) ? (ssize_t)n : -1;
    return send(fd, buf, len, MSG_NOSIGNAL);
}

/* One connection: its request read to the end of its head (closing over
 * unread bytes would reset the connection and could take the answer's tail
 * with it), then the answer, whatever was asked. */
static void serve_one(int fd, void *ssl) {
    char req[16384], head[128];
    size_t len = 0;
    while (len < sizeof req - 1) {
        ssize_t n = conn_recv(fd, ssl, req + len, sizeof req - 1 - len);
        if (n <= 0) return;
        len += (size_t)n;
        if (memmem(req, len, "\r\n\r\n", 4)) break;
    }
    int n = snprintf(head, sizeof head,
                     "HTTP/1.1 200 OK\r\nContent-Length: %lld\r\nConnection: close\r\n\r\n",
                     TRANSFER_BYTES);
    if (conn_send(fd, ssl, head, (size_t)n) != n) return;
    for (long long left = TRANSFER_BYTES; left > 0;) {
        size_t chunk = left < (long long)sizeof payload ? (size_t)left : sizeof payload;
        ssize_t sent = conn_send(fd, ssl, payload, chunk);
        if (sent <= 0) return;
        left -= sent;
    }
    /* Our end told, then the client's end awaited: curl closes once it has
     * the bytes Content-Length promised. */
    if (ssl) SSL_shutdown(ssl);
    shutdown(fd, SHUT_WR);
    while (conn_recv(fd, ssl, req, sizeof req) > 0) {
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
        SSL *ssl = srv->tls ? SSL_new(srv->tls) : NULL;
        if (!srv->tls || (ssl && SSL_set_fd(ssl, fd) && SSL_accept(ssl) == 1)) serve_one(fd, ssl);
        SSL_free(ssl);
        close(fd);
    }
    return NULL;
}

/* The HTTPS twin's context: a key and a certificate made now for HOST
 * (and ADDR), the certificate written to CERT for the clients to trust. */
static SSL_CTX *tls_context(const char *host, const char *addr, const char *cert) {
    EVP_PKEY *key = EVP_EC_gen("P-256");
    X509 *x = X509_new();
    SSL_CTX *ctx = SSL_CTX_new(TLS_server_method());
    char san[600];
    snprintf(san, sizeof san, "DNS:%s,IP:%s", host, addr);
    X509V3_CTX v3;
    X509V3_set_ctx_nodb(&v3);
    X509V3_set_ctx(&v3, x, x, NULL, NULL, 0);
    X509_EXTENSION *ext = x ? X509V3_EXT_nconf_nid(NULL, &v3, NID_subject_alt_name, san) : NULL;
    FILE *f = NULL;
    bool ok = key && x && ctx && ext && X509_set_version(x, X509_VERSION_3) &&
              ASN1_INTEGER_set(X509_get_serialNumber(x), 1) &&
              X509_gmtime_adj(X509_getm_notBefore(x), -3600) &&
              X509_gmtime_adj(X509_getm_notAfter(x), 86400) && X509_set_pubkey(x, key) &&
              X509_NAME_add_entry_by_txt(X509_get_subject_name(x), "CN", MBSTRING_ASC,
                                         (const unsigned char *)"lcsb bench", -1, -1, 0) &&
              X509_set_issuer_name(x, X509_get_subject_name(x)) && X509_add_ext(x, ext, -1) &&
              X509_sign(x, key, EVP_sha256()) && SSL_CTX_use_certificate(ctx, x) == 1 &&
              SSL_CTX_use_PrivateKey(ctx, key) == 1 && (f = fopen(cert, "w")) &&
              PEM_write_X509(f, x) == 1;
    if (f && fclose(f) != 0) ok = false;
    X509_EXTENSION_free(ext);
    X509_free(x);
    EVP_PKEY_free(key);
    if (!ok) {
        SSL_CTX_free(ctx);
        return NULL;
    }
    return ctx;
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
    SSL_CTX_free(srv->tls);
    srv->tls = NULL;
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

/* NAME in the project, trusted: a policy for curl to HOST:PORT and
 * HOST:TLS_PORT, each entry with RULE (NULL: none). */
static bool write_policy(const struct fixture *fx, const struct throughput *net, const char *name,
                         const char *rule) {
    char path[PATH_MAX], one[300], two[300], policy[1024];
    if (rule) {
        snprintf(one, sizeof one, "[\"%s:%d\"] = %s", net->host, net->port, rule);
        snprintf(two, sizeof two, "[\"%s:%d\"] = %s", net->host, net->tls_port, rule);
    } else {
        snprintf(one, sizeof one, "\"%s:%d\"", net->host, net->port);
        snprintf(two, sizeof two, "\"%s:%d\"", net->host, net->tls_port);
    }
    if (!net->tls_port) snprintf(two, sizeof two, "%s", one); /* no HTTPS twin here */
    snprintf(path, sizeof path, "%s/%s", fx->project, name);
    snprintf(policy, sizeof policy,
             "return require(\"lcsb\").exec_policy{ exec = { \"curl\" }, net = { domains = { "
             "%s, %s }, lan = { \"127.0.0.0/8\" } } }\n",
             one, two);
    return write_file(path, policy) && trust_policy(fx, name);
}

/* Every row's argv (and the intercepted row's environment): -q first, so
 * that no ~/.curlrc changes what runs; the bytes and curl's own time on
 * stdout; a run that stalls fails instead of holding the bench. The direct
 * one never takes a proxy from the harness's environment; under lcsb the
 * command's environment names lcsb's, and -p makes curl tunnel through it
 * with CONNECT even for http, as it does for every https download. Under
 * the rule (r.lua) lcsb trusts the HTTPS twin's certificate (CERT, in its
 * SSL_CERT_FILE), and curl the run's authority. */
static void set_argvs(struct transfer *t, const char *curl, const char *url, const char *tls_url,
                      const char *cert) {
    static const char w[] = "%{size_download} %{time_total}\n";
    const char *const direct[] = {curl, "-q",        "-sS", "--noproxy", "*", "--max-time", "120",
                                  "-o", "/dev/null", "-w",  w,           url, NULL};
    const char *const direct_tls[] = {
        curl,  "-q", "-sS",       "--noproxy", "*", "--cacert", cert, "--max-time",
        "120", "-o", "/dev/null", "-w",        w,   tls_url,    NULL};
    const char *const proxy[] = {
        LCSB_BENCH_CLI, "t.lua", "--",        "curl", "-q", "-sS", "--max-time",
        "120",          "-o",    "/dev/null", "-w",   w,    url,   NULL};
    const char *const tunnel[] = {
        LCSB_BENCH_CLI, "t.lua", "--",        "curl", "-q", "-sS", "-p", "--max-time",
        "120",          "-o",    "/dev/null", "-w",   w,    url,   NULL};
    const char *const judged[] = {
        LCSB_BENCH_CLI, "r.lua", "--",        "curl", "-q", "-sS", "--max-time",
        "120",          "-o",    "/dev/null", "-w",   w,    url,   NULL};
    const char *const intercepted[] = {LCSB_BENCH_CLI, "r.lua", "--", "curl",      "-q", "-sS",
                                       "--max-time",   "120",   "-o", "/dev/null", "-w", w,
                                       tls_url,        NULL};
    t[TRANSFER_DIRECT].argv = strv_copy(direct);
    t[TRANSFER_TLS_DIRECT].argv = strv_copy(direct_tls);
    t[TRANSFER_PROXY].argv = strv_copy(proxy);
    t[TRANSFER_TUNNEL].argv = strv_copy(tunnel);
    t[TRANSFER_JUDGED].argv = strv_copy(judged);
    t[TRANSFER_INTERCEPTED].argv = strv_copy(intercepted);
    /* This host's own SSL_CERT_FILE, if it names one, gives way. */
    static char trust[PATH_MAX + 16];
    snprintf(trust, sizeof trust, "SSL_CERT_FILE=%s", cert);
    t[TRANSFER_INTERCEPTED].env = with_var(run_env, trust);
}

void transfer_rows(struct throughput *net, struct server *srv, struct server *tls,
                   const struct fixture *fx, const lcsb_backend *b) {
    struct transfer *t = net->t;
    t[TRANSFER_DIRECT] = (struct transfer){.name = "direct", .label = "curl, direct"};
    t[TRANSFER_PROXY] =
        (struct transfer){.name = "proxy", .label = "lcsb, proxy", .required = true};
    t[TRANSFER_TUNNEL] =
        (struct transfer){.name = "tunnel", .label = "lcsb, CONNECT", .required = true};
    t[TRANSFER_JUDGED] =
        (struct transfer){.name = "judged", .label = "lcsb, proxy, judged", .required = true};
    t[TRANSFER_TLS_DIRECT] = (struct transfer){
        .name = "direct_tls", .label = "curl, direct, HTTPS", .of = TRANSFER_TLS_DIRECT};
    t[TRANSFER_INTERCEPTED] = (struct transfer){.name = "intercepted",
                                                .label = "lcsb, HTTPS, intercepted",
                                                .required = true,
                                                .of = TRANSFER_TLS_DIRECT};
    char curl[PATH_MAX], url[512], tls_url[512], cert[PATH_MAX];
    struct in_addr addr;
    const char *why = NULL;
    if (!find_program("curl", curl, sizeof curl))
        snprintf(net->note, sizeof net->note, "curl is not installed");
    else if (loopback_name(net, &addr) && server_start(srv, addr, &net->port) != 0)
        snprintf(net->note, sizeof net->note, "cannot start the HTTP server: %s", strerror(errno));
    char ip[INET_ADDRSTRLEN];
    snprintf(cert, sizeof cert, "%s/bench-server.pem", fx->dir);
    if (net->port && inet_ntop(AF_INET, &addr, ip, sizeof ip) &&
        (tls->tls = tls_context(net->host, ip, cert)) != NULL &&
        server_start(tls, addr, &net->tls_port) != 0)
        net->tls_port = 0;
    if (!net->port) {
        net->host[0] = '\0';
        for (size_t i = 0; i < TRANSFERS; i++) transfer_skip(&t[i], net->note);
        return;
    }
    snprintf(url, sizeof url, "http://%s:%d/", net->host, net->port);
    snprintf(tls_url, sizeof tls_url, "https://%s:%d/", net->host, net->tls_port);
    if (!b)
        why = "no Landlock on this kernel";
    else if (!write_policy(fx, net, "t.lua", NULL) ||
             !write_policy(fx, net, "r.lua", "{ methods = { \"GET\" } }"))
        why = "cannot write or trust t.lua and r.lua";

    set_argvs(t, curl, url, tls_url, cert);
    for (size_t i = TRANSFER_PROXY; i < TRANSFERS; i++) {
        if (i != TRANSFER_TLS_DIRECT) t[i].cwd = fx->project;
        if (why && i != TRANSFER_TLS_DIRECT) transfer_skip(&t[i], why);
    }
    if (!net->tls_port) {
        transfer_skip(&t[TRANSFER_TLS_DIRECT], "cannot start the HTTPS server");
        transfer_skip(&t[TRANSFER_INTERCEPTED], "cannot start the HTTPS server");
    }
    /* A row that cannot run here keeps no argv. */
    for (size_t i = 0; i < TRANSFERS; i++) {
        if (t[i].state != ROW_OK) {
            strv_free(t[i].argv);
            t[i].argv = NULL;
            free(t[i].env);
            t[i].env = NULL;
        }
    }
    for (size_t i = 0; i < TRANSFERS; i++)
        if (t[i].state == ROW_OK && !t[i].argv) transfer_skip(&t[i], "out of memory");
}

/* One download by T: 0 with its rates, or -1 with T failed. Its stdout and
 * stderr go to OUT_FD and ERR_FD, and are read back. */
static int download(struct transfer *t, int out_fd, int err_fd, double *mbs, double *wall_mbs) {
    char out[160], err[160];
    double start = now_ms();
    int status = spawn_wait(t->argv, t->cwd, t->env, out_fd, err_fd);
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
        free(net->t[i].env); /* its strings are run_env's and a static's */
        free(net->t[i].mbs);
        free(net->t[i].wall_mbs);
    }
}
