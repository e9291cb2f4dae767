/* Layer 6: interception, for the hosts whose requests a rule judges
 * (net.domains' methods= and paths=). The run's own certificate authority,
 * made in memory for each run (its key is never written anywhere, and goes
 * with lcsb's process); a certificate it signs for each host the command
 * connects to; and the two ends of a connection in TLS: the command's,
 * served under that certificate, and upstream's, verified against the
 * system's trust store (SSL_CERT_FILE and SSL_CERT_DIR, as OpenSSL reads
 * them) and the host's name. HTTP/1.1 only, on both sides (ALPN). */
#ifndef LCSB_PROXY_TLS_H
#define LCSB_PROXY_TLS_H

#include "lcsb.h"
#include "proxy_conn.h"

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

typedef struct lcsb__tls lcsb__tls;

/* A run's authority, made fresh: 0, or why not. Counted: the proxy takes
 * a reference (lcsb__tls_hold) for as long as a thread of it may use it. */
int lcsb__tls_new(lcsb__tls **out, lcsb_error *err);
lcsb__tls *lcsb__tls_hold(lcsb__tls *t);
void lcsb__tls_free(lcsb__tls *t); /* NULL-safe; the last holder frees */

/* What the command's TLS clients are to trust: the system's certificates
 * (the file OpenSSL reads by default, or SSL_CERT_FILE's, read once) and
 * the run's authority, as one PEM file at BUNDLE, and for Java, which reads
 * no PEM, as a Java KeyStore (JKS) at TRUSTSTORE, each certificate a
 * trusted entry, its digest for LCSB__JKS_PASSWORD (jks.h); both made, mode
 * 0644, certificates only. 0, or why not, with neither left: a bundle
 * without the system's certificates would fail every other host. Both go
 * in the directory open at DIR, by the last component of each path (the
 * paths name them in messages): made, and on failure removed, in that
 * directory, wherever its name has come to lead meanwhile. */
int lcsb__tls_write_trust(const lcsb__tls *t, int dir, const char *bundle, const char *truststore,
                          lcsb_error *err);

/* One end of a judged connection: a socket, in TLS or not. */
typedef struct lcsb__end {
    int fd;
    void *ssl; /* SSL *, NULL: plain */
} lcsb__end;

/* The command's end of a tunnel to HOST, served in TLS under a certificate
 * for HOST: 0, or -1 with why in WHY (a handshake that failed, a TLS name
 * (SNI) for another host). */
int lcsb__tls_accept(const lcsb__conn *c, lcsb__tls *t, const char *host, lcsb__end *e, char *why,
                     size_t size);
/* Upstream's end to HOST over E's socket, in TLS, its certificate verified
 * for HOST: 0, or -1 with why in WHY. */
int lcsb__tls_connect(const lcsb__conn *c, lcsb__tls *t, const char *host, lcsb__end *e, char *why,
                      size_t size);
/* Up to CAP bytes from E into BUF, what has come already, without
 * waiting: how many (0: none yet, or E's end or an error, which the next
 * lcsb__end_read says). */
size_t lcsb__end_read_ready(lcsb__end *e, void *buf, size_t cap);
/* Up to CAP bytes from E into BUF: how many, 0 at its end, -1 on an error,
 * DEADLINE or stop. */
ssize_t lcsb__end_read(const lcsb__conn *c, lcsb__end *e, void *buf, size_t cap,
                       long long deadline);
/* All of DATA (LEN bytes) to E by DEADLINE: 0, or -1. */
int lcsb__end_write(const lcsb__conn *c, lcsb__end *e, const void *data, size_t len,
                    long long deadline);
/* E's sending ended (TLS's close_notify, or a half-close), then what the
 * peer still sends read and dropped until it ends or for MS. */
void lcsb__end_close_gently(const lcsb__conn *c, lcsb__end *e, long long ms);
/* E's TLS ended (a close_notify tried, never waited on) and freed; its
 * socket stays the connection's to close. */
void lcsb__end_finish(lcsb__end *e);

#endif
