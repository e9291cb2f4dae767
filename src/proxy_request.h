/* Layer 1, pure: what a client of lcsb's proxy asks for, read from the bytes
 * it sent so far. An HTTP request head (CONNECT host:port, or any method
 * with an absolute http:// URI, rewritten for the origin server) and
 * SOCKS5's greeting and CONNECT. Each reader says whether the bytes are a
 * whole request, the start of one (read more), or none (and why); a prefix
 * of a whole request is never called malformed, so the answer does not
 * depend on how the bytes arrived. No I/O: the fuzzer's target. */
#ifndef LCSB_PROXY_REQUEST_H
#define LCSB_PROXY_REQUEST_H

#include "netname.h"
#include "util.h"

#include <stdint.h>

/* The longest HTTP request head read: a longer one is refused (431). */
#define LCSB__REQUEST_HEAD_MAX 16384

typedef enum lcsb__parse {
    LCSB__PARSE_MORE, /* a prefix of a request: read more */
    LCSB__PARSE_DONE, /* a whole request, in the first USED bytes */
    LCSB__PARSE_BAD,  /* no request: STATUS and WHY say what to answer */
} lcsb__parse;

typedef enum lcsb__request_kind {
    LCSB__REQUEST_CONNECT, /* HTTP CONNECT host:port */
    LCSB__REQUEST_FORWARD, /* absolute-URI HTTP, to be sent on as FORWARD */
    LCSB__REQUEST_SOCKS,   /* SOCKS5 greeting, then CONNECT */
    LCSB__REQUEST_ORIGIN,  /* origin-form HTTP inside a tunnel the proxy reads (interception) */
} lcsb__request_kind;

/* How a request's body is framed (RFC 9112, 6): what the proxy sends on
 * of a request it judges, and no byte past it. */
typedef enum lcsb__body {
    LCSB__BODY_NONE,
    LCSB__BODY_LENGTH,  /* Content-Length: BODY_LEN bytes */
    LCSB__BODY_CHUNKED, /* Transfer-Encoding: chunked */
} lcsb__body;

typedef struct lcsb__request {
    lcsb__request_kind kind;
    char host[LCSB__HOST_MAX + 1]; /* lcsb__host_normal's form */
    uint16_t port;
    size_t used; /* bytes the head took: what follows is the client's payload */
    /* FORWARD and ORIGIN: the head for the origin server, in origin form,
     * without the proxy's and the connection's own headers nor Expect (the
     * proxy answers a 100-continue itself), with the request's Host and
     * Connection: close; the method, the target in origin form
     * ("/path?query"), the body's framing, and whether the client waits
     * for a 100 Continue. */
    lcsb__buf forward;
    char method[24]; /* empty when longer: no rule names it */
    /* The method an X-HTTP-Method-Override (X-HTTP-Method,
     * X-Method-Override) asks the server to take instead, which a methods
     * rule judges too; "" without one. */
    char method_override[24];
    lcsb__buf target;
    lcsb__body body;
    uint64_t body_len;
    bool expect_continue;
    /* BAD: the HTTP status (400, 405, 431) or the SOCKS5 reply code (0x01,
     * 0x07, 0x08; 0xFF for a greeting without "no authentication"), and a
     * sentence for the client. */
    int status;
    char why[128];
} lcsb__request;

/* The LEN bytes a client sent first, as an HTTP request head. */
lcsb__parse lcsb__http_request(const char *data, size_t len, lcsb__request *req);
/* The LEN bytes a client sent first inside a tunnel to HOST:PORT (DEFAULT_PORT
 * being the one its Host may leave out: 443 over TLS, 80 without), as an
 * origin-form HTTP request head whose Host names that same host and port:
 * a request for another name through a connection the policy allowed for
 * this one is refused (421). */
lcsb__parse lcsb__http_origin_request(const char *data, size_t len, const char *host, uint16_t port,
                                      uint16_t default_port, lcsb__request *req);

/* A chunked body read as it comes (RFC 9112, 7.1): sizes, extensions,
 * data and trailers, with each line bounded. */
typedef struct lcsb__chunked {
    int state;
    uint64_t left; /* of the chunk's data, or the size read so far */
    size_t line;   /* bytes of the line being read (a size's, an extension's, a trailer's) */
    size_t digits;
} lcsb__chunked;
/* Of the LEN bytes at DATA, *USED belong to the body: DONE when its end is
 * among them (what follows is no part of it), MORE when all are and more
 * is to come, BAD when it is no chunked body. The chunks' data among them
 * is added to PAYLOAD (NULL: not wanted). */
lcsb__parse lcsb__chunked_feed(lcsb__chunked *ch, const char *data, size_t len, size_t *used,
                               lcsb__buf *payload);

/* SOCKS5's greeting (version, methods): DONE when it offers no
 * authentication (method 0), which lcsb answers. */
lcsb__parse lcsb__socks_greeting(const unsigned char *data, size_t len, lcsb__request *req);
/* SOCKS5's request after the greeting: CONNECT to an IPv4 address, a name
 * or an IPv6 address. */
lcsb__parse lcsb__socks_request(const unsigned char *data, size_t len, lcsb__request *req);
/* What a request holds (FORWARD); REQ may be read again. */
void lcsb__request_clear(lcsb__request *req);

#endif
