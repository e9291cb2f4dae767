/* Interception's TLS (proxy_tls.h): the run's authority and the
 * certificates it signs, the two contexts (serving the command, verifying
 * upstream), and reading and writing either end while watching for the
 * proxy's stop. OpenSSL 3. */
#include "proxy_tls.h"

#include "jks.h"
#include "netname.h"
#include "sys.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define VALID_BEFORE (60L * 60)        /* a clock a little behind still takes them */
#define VALID_FOR (30L * 24 * 60 * 60) /* longer than any run */
#define LEAVES_MAX 256                 /* certificates kept for hosts met again */
#define HANDSHAKE_MS (30 * 1000)

/* OpenSSL, loaded by the first run that intercepts (lcsb__tls_new), not
 * linked: its two libraries cost every lcsb process 0.6 ms of loading, and
 * most runs never speak TLS. Each function this file calls, by name. */
#define TLS_FUNCTIONS(X)                                                                           \
    X(BN_free)                                                                                     \
    X(BN_new)                                                                                      \
    X(BN_rand)                                                                                     \
    X(BN_to_ASN1_INTEGER)                                                                          \
    X(CRYPTO_free)                                                                                 \
    X(ERR_clear_error)                                                                             \
    X(ERR_get_error)                                                                               \
    X(ERR_peek_last_error)                                                                         \
    X(ERR_reason_error_string)                                                                     \
    X(EVP_Digest)                                                                                  \
    X(EVP_PKEY_Q_keygen)                                                                           \
    X(EVP_PKEY_free)                                                                               \
    X(EVP_sha1)                                                                                    \
    X(EVP_sha256)                                                                                  \
    X(PEM_write_X509)                                                                              \
    X(SSL_CTX_ctrl)                                                                                \
    X(SSL_CTX_free)                                                                                \
    X(SSL_CTX_new)                                                                                 \
    X(SSL_CTX_set_alpn_protos)                                                                     \
    X(SSL_CTX_set_alpn_select_cb)                                                                  \
    X(SSL_CTX_set_default_verify_paths)                                                            \
    X(SSL_CTX_set_options)                                                                         \
    X(SSL_CTX_set_verify)                                                                          \
    X(SSL_ctrl)                                                                                    \
    X(SSL_do_handshake)                                                                            \
    X(SSL_free)                                                                                    \
    X(SSL_get0_param)                                                                              \
    X(SSL_get_error)                                                                               \
    X(SSL_get_servername)                                                                          \
    X(SSL_get_verify_result)                                                                       \
    X(SSL_new)                                                                                     \
    X(SSL_read_ex)                                                                                 \
    X(SSL_select_next_proto)                                                                       \
    X(SSL_set1_host)                                                                               \
    X(SSL_set_accept_state)                                                                        \
    X(SSL_set_connect_state)                                                                       \
    X(SSL_set_fd)                                                                                  \
    X(SSL_shutdown)                                                                                \
    X(SSL_use_PrivateKey)                                                                          \
    X(SSL_use_certificate)                                                                         \
    X(SSL_write_ex)                                                                                \
    X(TLS_client_method)                                                                           \
    X(TLS_server_method)                                                                           \
    X(X509V3_EXT_nconf_nid)                                                                        \
    X(X509V3_set_ctx)                                                                              \
    X(X509_EXTENSION_free)                                                                         \
    X(X509_NAME_add_entry_by_txt)                                                                  \
    X(X509_VERIFY_PARAM_set1_ip_asc)                                                               \
    X(X509_add_ext)                                                                                \
    X(X509_free)                                                                                   \
    X(X509_get_default_cert_file)                                                                  \
    X(X509_get_default_cert_file_env)                                                              \
    X(X509_get_serialNumber)                                                                       \
    X(X509_get_subject_name)                                                                       \
    X(X509_getm_notAfter)                                                                          \
    X(X509_getm_notBefore)                                                                         \
    X(X509_gmtime_adj)                                                                             \
    X(X509_new)                                                                                    \
    X(X509_set_issuer_name)                                                                        \
    X(X509_set_pubkey)                                                                             \
    X(X509_set_version)                                                                            \
    X(X509_sign)                                                                                   \
    X(X509_up_ref)                                                                                 \
    X(X509_verify_cert_error_string)                                                               \
    X(i2d_X509)

static struct {
#define X(name) __typeof__(name) *name;
    TLS_FUNCTIONS(X)
#undef X
} ossl;
static pthread_once_t ossl_once = PTHREAD_ONCE_INIT;
static char ossl_missing[256]; /* why OpenSSL could not be loaded: "" when it was */

#ifdef __APPLE__
#define LIBSSL "libssl.3.dylib"
#else
#define LIBSSL "libssl.so.3"
#endif

static void ossl_load(void) {
    /* libssl brings libcrypto; both stay for the process's life. */
    void *lib = dlopen(LIBSSL, RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        snprintf(ossl_missing, sizeof ossl_missing, "%s", dlerror());
        return;
    }
#define X(name)                                                                                    \
    if (!ossl_missing[0] && !(*(void **)&ossl.name = dlsym(lib, #name)))                           \
        snprintf(ossl_missing, sizeof ossl_missing, "%s has no %s", LIBSSL, #name);
    TLS_FUNCTIONS(X)
#undef X
}

typedef struct leaf {
    struct leaf *next;
    char host[LCSB__HOST_MAX + 1];
    X509 *cert;
} leaf;

struct lcsb__tls {
    pthread_mutex_t lock;
    unsigned refs;
    EVP_PKEY *ca_key, *leaf_key; /* one key for every host's certificate: made once a run */
    X509 *ca;
    SSL_CTX *serve, *verify;
    leaf *leaves;
    size_t leaves_n;
};

/* ---- Certificates ---- */

static bool add_ext(X509 *cert, X509 *issuer, int nid, const char *value) {
    X509V3_CTX ctx;
    X509V3_set_ctx_nodb(&ctx);
    ossl.X509V3_set_ctx(&ctx, issuer, cert, NULL, NULL, 0);
    X509_EXTENSION *ext = ossl.X509V3_EXT_nconf_nid(NULL, &ctx, nid, value);
    if (!ext) return false;
    bool ok = ossl.X509_add_ext(cert, ext, -1) == 1;
    ossl.X509_EXTENSION_free(ext);
    return ok;
}

/* A certificate of KEY's, its serial random, valid from a little before
 * now, named O=lcsb and CN (NULL: none). */
static X509 *cert_new(EVP_PKEY *key, const char *cn) {
    X509 *x = ossl.X509_new();
    BIGNUM *serial = ossl.BN_new();
    X509_NAME *name = x ? ossl.X509_get_subject_name(x) : NULL;
    bool ok = x && serial && name && ossl.X509_set_version(x, X509_VERSION_3) &&
              ossl.BN_rand(serial, 127, BN_RAND_TOP_ANY, BN_RAND_BOTTOM_ANY) &&
              ossl.BN_to_ASN1_INTEGER(serial, ossl.X509_get_serialNumber(x)) &&
              ossl.X509_gmtime_adj(ossl.X509_getm_notBefore(x), -VALID_BEFORE) &&
              ossl.X509_gmtime_adj(ossl.X509_getm_notAfter(x), VALID_FOR) &&
              ossl.X509_set_pubkey(x, key) &&
              ossl.X509_NAME_add_entry_by_txt(name, "O", MBSTRING_ASC,
                                              (const unsigned char *)"lcsb", -1, -1, 0) &&
              (!cn || ossl.X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_UTF8,
                                                      (const unsigned char *)cn, -1, -1, 0));
    ossl.BN_free(serial);
    if (!ok) ossl.X509_free(x);
    return ok ? x : NULL;
}

static X509 *make_ca(EVP_PKEY *key) {
    char cn[64];
    snprintf(cn, sizeof cn, "lcsb run %ld (interception)", (long)getpid());
    X509 *x = cert_new(key, cn);
    bool ok = x && ossl.X509_set_issuer_name(x, ossl.X509_get_subject_name(x)) &&
              add_ext(x, x, NID_basic_constraints, "critical,CA:TRUE,pathlen:0") &&
              add_ext(x, x, NID_key_usage, "critical,keyCertSign,cRLSign") &&
              add_ext(x, x, NID_subject_key_identifier, "hash") &&
              ossl.X509_sign(x, key, ossl.EVP_sha256()) > 0;
    if (!ok) ossl.X509_free(x);
    return ok ? x : NULL;
}

/* HOST's certificate, signed by T's authority. */
static X509 *make_leaf(const lcsb__tls *t, const char *host) {
    char san[LCSB__HOST_MAX + 8];
    snprintf(san, sizeof san, "%s:%s", lcsb__host_is_literal(host) ? "IP" : "DNS", host);
    X509 *x = cert_new(t->leaf_key, NULL);
    bool ok = x && ossl.X509_set_issuer_name(x, ossl.X509_get_subject_name(t->ca)) &&
              add_ext(x, t->ca, NID_subject_alt_name, san) &&
              add_ext(x, t->ca, NID_basic_constraints, "critical,CA:FALSE") &&
              add_ext(x, t->ca, NID_key_usage, "critical,digitalSignature") &&
              add_ext(x, t->ca, NID_ext_key_usage, "serverAuth") &&
              add_ext(x, t->ca, NID_authority_key_identifier, "keyid:always") &&
              ossl.X509_sign(x, t->ca_key, ossl.EVP_sha256()) > 0;
    if (!ok) ossl.X509_free(x);
    return ok ? x : NULL;
}

/* HOST's certificate, kept for the next connection to it (a reference the
 * caller frees). */
static X509 *leaf_for(lcsb__tls *t, const char *host) {
    pthread_mutex_lock(&t->lock);
    X509 *x = NULL;
    for (leaf *l = t->leaves; l && !x; l = l->next)
        if (strcmp(l->host, host) == 0) x = l->cert;
    if (x) ossl.X509_up_ref(x);
    pthread_mutex_unlock(&t->lock);
    if (x) return x;
    if (!(x = make_leaf(t, host))) return NULL;
    leaf *l = t->leaves_n < LEAVES_MAX ? calloc(1, sizeof *l) : NULL;
    if (!l) return x;
    snprintf(l->host, sizeof l->host, "%s", host);
    l->cert = x;
    ossl.X509_up_ref(x);
    pthread_mutex_lock(&t->lock);
    l->next = t->leaves;
    t->leaves = l;
    t->leaves_n++;
    pthread_mutex_unlock(&t->lock);
    return x;
}

/* ---- Contexts ---- */

/* HTTP/1.1 or nothing: the proxy reads requests as HTTP/1.1 does. */
static int choose_http11(SSL *ssl, const unsigned char **out, unsigned char *out_len,
                         const unsigned char *in, unsigned int in_len, void *arg) {
    (void)ssl;
    (void)arg;
    static const unsigned char http11[] = "\x08http/1.1";
    unsigned char *chosen;
    if (ossl.SSL_select_next_proto(&chosen, out_len, http11, sizeof http11 - 1, in, in_len) !=
        OPENSSL_NPN_NEGOTIATED)
        return SSL_TLSEXT_ERR_NOACK;
    *out = chosen;
    return SSL_TLSEXT_ERR_OK;
}

static SSL_CTX *context(bool serve) {
    SSL_CTX *ctx = ossl.SSL_CTX_new(serve ? ossl.TLS_server_method() : ossl.TLS_client_method());
    if (!ctx) return NULL;
    static const unsigned char http11[] = "\x08http/1.1";
    /* A peer that ends without close_notify has ended all the same: HTTP
     * frames its own messages. */
    ossl.SSL_CTX_set_options(ctx, SSL_OP_IGNORE_UNEXPECTED_EOF | SSL_OP_NO_RENEGOTIATION);
    bool ok = ossl.SSL_CTX_ctrl(ctx, SSL_CTRL_SET_MIN_PROTO_VERSION, TLS1_2_VERSION, NULL);
    if (serve) {
        ossl.SSL_CTX_set_alpn_select_cb(ctx, choose_http11, NULL);
    } else {
        ossl.SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER, NULL);
        ok = ok && ossl.SSL_CTX_set_default_verify_paths(ctx) &&
             ossl.SSL_CTX_set_alpn_protos(ctx, http11, sizeof http11 - 1) == 0;
    }
    if (!ok) {
        ossl.SSL_CTX_free(ctx);
        return NULL;
    }
    return ctx;
}

int lcsb__tls_new(lcsb__tls **out, lcsb_error *err) {
    *out = NULL;
    pthread_once(&ossl_once, ossl_load);
    if (ossl_missing[0])
        return lcsb__fail(err, LCSB_ESYS,
                          "a rule or a secret has lcsb's proxy read requests, which needs OpenSSL "
                          "3 (%s): %s",
                          LIBSSL, ossl_missing);
    lcsb__tls *t = calloc(1, sizeof *t);
    if (!t) return lcsb__fail(err, LCSB_ENOMEM, "out of memory");
    pthread_mutex_init(&t->lock, NULL);
    t->refs = 1;
    t->ca_key = ossl.EVP_PKEY_Q_keygen(NULL, NULL, "EC", "P-256");
    t->leaf_key = ossl.EVP_PKEY_Q_keygen(NULL, NULL, "EC", "P-256");
    if (!t->ca_key || !t->leaf_key || !(t->ca = make_ca(t->ca_key)) ||
        !(t->serve = context(true))) {
        unsigned long e = ossl.ERR_get_error();
        lcsb__tls_free(t);
        return lcsb__fail(err, LCSB_ESYS, "cannot make the run's certificate authority: %s",
                          e ? ossl.ERR_reason_error_string(e) : "OpenSSL failed");
    }
    *out = t;
    return 0;
}

lcsb__tls *lcsb__tls_hold(lcsb__tls *t) {
    if (!t) return NULL;
    pthread_mutex_lock(&t->lock);
    t->refs++;
    pthread_mutex_unlock(&t->lock);
    return t;
}

void lcsb__tls_free(lcsb__tls *t) {
    if (!t) return;
    pthread_mutex_lock(&t->lock);
    bool last = --t->refs == 0;
    pthread_mutex_unlock(&t->lock);
    if (!last) return;
    for (leaf *l = t->leaves, *next; l; l = next) {
        next = l->next;
        ossl.X509_free(l->cert);
        free(l);
    }
    ossl.SSL_CTX_free(t->serve);
    ossl.SSL_CTX_free(t->verify);
    ossl.X509_free(t->ca);
    ossl.EVP_PKEY_free(t->ca_key);
    ossl.EVP_PKEY_free(t->leaf_key);
    pthread_mutex_destroy(&t->lock);
    free(t);
}

/* The file of system certificates OpenSSL trusts when told nothing else. */
static const char *system_certificates(void) {
    const char *file = getenv(ossl.X509_get_default_cert_file_env());
    return file && *file ? file : ossl.X509_get_default_cert_file();
}

static int sha1(const void *data, size_t len, unsigned char digest[LCSB__SHA1_LEN]) {
    unsigned int n = 0;
    bool ok = ossl.EVP_Digest(data, len, digest, &n, ossl.EVP_sha1(), NULL) == 1;
    return ok && n == LCSB__SHA1_LEN ? 0 : -1;
}

/* PATH's last component: the name of PATH's file in its directory. */
static const char *file_name(const char *path) {
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

/* The same certificates for Java: SYSTEM's (LEN bytes of PEM) and T's
 * authority, as a JKS store in the directory open at DIR, by PATH's name.
 * 0, or -1 with what failed in WHY. */
static int write_truststore(const lcsb__tls *t, const char *system, size_t len, int dir,
                            const char *path, const char **why) {
    lcsb__jks k = {0};
    lcsb__jks_init(&k);
    uint64_t ms = (uint64_t)time(NULL) * 1000;
    unsigned char *ours = NULL;
    int ours_len = ossl.i2d_X509(t->ca, &ours);
    *why = "a system certificate that is no PEM, or out of memory";
    bool ok = lcsb__jks_add_pem(&k, system, len, ms) == 0 && ours_len > 0;
    if (ok) lcsb__jks_add_trusted(&k, "lcsb-run", ms, ours, (size_t)ours_len);
    ossl.CRYPTO_free(ours, OPENSSL_FILE, OPENSSL_LINE);
    ok = ok && lcsb__jks_finish(&k, LCSB__JKS_PASSWORD, sha1);
    int fd = ok ? openat(dir, file_name(path), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW,
                         0644)
                : -1;
    if (ok) *why = NULL;
    ok = fd >= 0 && lcsb__write_all(fd, k.bytes.p, k.bytes.len);
    if (fd >= 0) ok = close(fd) == 0 && ok;
    lcsb__jks_free(&k);
    return ok ? 0 : -1;
}

int lcsb__tls_write_trust(const lcsb__tls *t, int dir, const char *bundle, const char *truststore,
                          lcsb_error *err) {
    const char *system = system_certificates();
    char *data = NULL;
    size_t len = 0;
    if (lcsb__read_regular(system, 8 << 20, false, &data, &len, NULL, NULL) != 0)
        return lcsb__fail(err, LCSB_ESYS,
                          "cannot read the system's certificates (%s) for the bundle the command "
                          "trusts: %s",
                          system, strerror(errno));
    int fd =
        openat(dir, file_name(bundle), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0644);
    FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
    bool ok = f && fwrite(data, 1, len, f) == len &&
              (len == 0 || data[len - 1] == '\n' || fputc('\n', f) != EOF) &&
              ossl.PEM_write_X509(f, t->ca) == 1;
    int saved = errno;
    if (f)
        ok = fclose(f) == 0 && ok;
    else if (fd >= 0)
        close(fd);
    const char *why = NULL;
    int rc = 0;
    if (!ok)
        rc = lcsb__fail(err, LCSB_ESYS, "cannot write the certificate bundle %s: %s", bundle,
                        strerror(saved ? saved : EIO));
    else if (write_truststore(t, data, len, dir, truststore, &why) != 0)
        rc = lcsb__fail(err, LCSB_ESYS, "cannot write the Java truststore %s: %s", truststore,
                        why ? why : strerror(errno ? errno : EIO));
    free(data);
    /* Half a bundle or store would be left behind in the run's directory. */
    if (rc) {
        if (fd >= 0) (void)unlinkat(dir, file_name(bundle), 0);
        (void)unlinkat(dir, file_name(truststore), 0);
    }
    return rc;
}

/* ---- The two ends ---- */

/* What OpenSSL's last failure was, for a why. */
static const char *tls_reason(void) {
    unsigned long e = ossl.ERR_peek_last_error();
    const char *r = e ? ossl.ERR_reason_error_string(e) : NULL;
    return r ? r : "the connection ended";
}

static int handshake(const lcsb__conn *c, SSL *ssl, int fd) {
    long long deadline = lcsb__now_ms() + HANDSHAKE_MS;
    for (;;) {
        ossl.ERR_clear_error();
        int r = ossl.SSL_do_handshake(ssl);
        if (r == 1) return 0;
        int e = ossl.SSL_get_error(ssl, r);
        short ev = e == SSL_ERROR_WANT_READ ? POLLIN : e == SSL_ERROR_WANT_WRITE ? POLLOUT : 0;
        if (!ev || lcsb__proxy_wait_fd(c, fd, ev, deadline) <= 0) return -1;
    }
}

int lcsb__tls_accept(const lcsb__conn *c, lcsb__tls *t, const char *host, lcsb__end *e, char *why,
                     size_t size) {
    X509 *cert = leaf_for(t, host);
    SSL *ssl = cert ? ossl.SSL_new(t->serve) : NULL;
    bool ok = ssl && ossl.SSL_set_fd(ssl, e->fd) && ossl.SSL_use_certificate(ssl, cert) &&
              ossl.SSL_use_PrivateKey(ssl, t->leaf_key);
    ossl.X509_free(cert);
    if (ssl) e->ssl = ssl;
    if (!ok) {
        snprintf(why, size, "cannot serve TLS for %s: %s", host, tls_reason());
        return -1;
    }
    ossl.SSL_set_accept_state(ssl);
    if (handshake(c, ssl, e->fd)) {
        snprintf(why, size, "the command's TLS handshake failed: %s", tls_reason());
        return -1;
    }
    /* The name the command asked TLS for is the tunnel's, or none: one
     * tunnel, one host. */
    const char *sni = ossl.SSL_get_servername(ssl, TLSEXT_NAMETYPE_host_name);
    char normal[LCSB__HOST_MAX + 1];
    if (sni && (lcsb__host_normal(sni, strlen(sni), normal) < 0 || strcmp(normal, host) != 0)) {
        snprintf(why, size, "the TLS name (SNI) is not the tunnel's host");
        return -1;
    }
    return 0;
}

/* The context upstream is verified in, made at the first connection that
 * needs it: loading the system's authorities parses each (15 ms for a
 * Debian's hundred-odd), which a run that reaches no intercepted host, or
 * the command's own start, need not wait for. NULL when it cannot be made. */
static SSL_CTX *verify_context(lcsb__tls *t) {
    pthread_mutex_lock(&t->lock);
    if (!t->verify) t->verify = context(false);
    SSL_CTX *ctx = t->verify;
    pthread_mutex_unlock(&t->lock);
    return ctx;
}

int lcsb__tls_connect(const lcsb__conn *c, lcsb__tls *t, const char *host, lcsb__end *e, char *why,
                      size_t size) {
    SSL_CTX *verify = verify_context(t);
    SSL *ssl = verify ? ossl.SSL_new(verify) : NULL;
    if (ssl) e->ssl = ssl;
    bool literal = lcsb__host_is_literal(host);
    bool ok = ssl && ossl.SSL_set_fd(ssl, e->fd) &&
              (literal ? ossl.X509_VERIFY_PARAM_set1_ip_asc(ossl.SSL_get0_param(ssl), host) == 1
                       : ossl.SSL_ctrl(ssl, SSL_CTRL_SET_TLSEXT_HOSTNAME, TLSEXT_NAMETYPE_host_name,
                                       (void *)host) == 1 &&
                             ossl.SSL_set1_host(ssl, host) == 1);
    if (!ok) {
        snprintf(why, size, "cannot speak TLS to %s: %s", host, tls_reason());
        return -1;
    }
    ossl.SSL_set_connect_state(ssl);
    if (handshake(c, ssl, e->fd)) {
        long verified = ossl.SSL_get_verify_result(ssl);
        if (verified != X509_V_OK)
            snprintf(why, size, "its certificate is not trusted: %s",
                     ossl.X509_verify_cert_error_string(verified));
        else
            snprintf(why, size, "the TLS handshake failed: %s", tls_reason());
        return -1;
    }
    return 0;
}

/* One read from E into BUF (CAP bytes) that does not wait: how many, 0 at
 * its end, -1 on an error, or -2 when nothing has come yet (*EV: what to
 * wait for). */
static ssize_t read_now(lcsb__end *e, void *buf, size_t cap, short *ev) {
    if (e->ssl) {
        size_t n;
        ossl.ERR_clear_error();
        if (ossl.SSL_read_ex(e->ssl, buf, cap, &n)) return (ssize_t)n;
        int r = ossl.SSL_get_error(e->ssl, 0);
        if (r == SSL_ERROR_ZERO_RETURN) return 0;
        *ev = r == SSL_ERROR_WANT_READ ? POLLIN : r == SSL_ERROR_WANT_WRITE ? POLLOUT : 0;
        return *ev ? -2 : -1;
    }
    ssize_t n = recv(e->fd, buf, cap, MSG_DONTWAIT);
    if (n >= 0) return n;
    *ev = POLLIN;
    return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR ? -2 : -1;
}

ssize_t lcsb__end_read(const lcsb__conn *c, lcsb__end *e, void *buf, size_t cap,
                       long long deadline) {
    for (;;) {
        short ev = 0;
        ssize_t n = read_now(e, buf, cap, &ev);
        if (n != -2) return n;
        if (lcsb__proxy_wait_fd(c, e->fd, ev, deadline) <= 0) return -1;
    }
}

size_t lcsb__end_read_ready(lcsb__end *e, void *buf, size_t cap) {
    size_t got = 0;
    short ev;
    for (ssize_t n; got < cap && (n = read_now(e, (char *)buf + got, cap - got, &ev)) > 0;)
        got += (size_t)n;
    return got;
}

int lcsb__end_write(const lcsb__conn *c, lcsb__end *e, const void *data, size_t len,
                    long long deadline) {
    if (!e->ssl) return lcsb__proxy_send_all(c, e->fd, data, len, deadline);
    const char *p = data;
    while (len) {
        size_t n;
        ossl.ERR_clear_error();
        if (ossl.SSL_write_ex(e->ssl, p, len, &n)) {
            p += n;
            len -= n;
            continue;
        }
        int r = ossl.SSL_get_error(e->ssl, 0);
        short ev = r == SSL_ERROR_WANT_READ ? POLLIN : r == SSL_ERROR_WANT_WRITE ? POLLOUT : 0;
        if (!ev || lcsb__proxy_wait_fd(c, e->fd, ev, deadline) <= 0) return -1;
    }
    return 0;
}

void lcsb__end_close_gently(const lcsb__conn *c, lcsb__end *e, long long ms) {
    if (e->ssl) {
        ossl.ERR_clear_error();
        (void)ossl.SSL_shutdown(e->ssl);
    } else {
        shutdown(e->fd, SHUT_WR);
    }
    char drop[4096];
    long long deadline = lcsb__now_ms() + ms;
    while (lcsb__end_read(c, e, drop, sizeof drop, deadline) > 0) {
    }
}

void lcsb__end_finish(lcsb__end *e) {
    if (!e->ssl) return;
    ossl.ERR_clear_error();
    (void)ossl.SSL_shutdown(e->ssl);
    ossl.SSL_free(e->ssl);
    e->ssl = NULL;
    ossl.ERR_clear_error();
}
