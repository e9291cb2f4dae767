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
} lcsb__request_kind;

typedef struct lcsb__request {
    lcsb__request_kind kind;
    char host[LCSB__HOST_MAX + 1]; /* lcsb__host_normal's form */
    uint16_t port;
    size_t used; /* bytes the head took: what follows is the client's payload */
    /* FORWARD: the head for the origin server, in origin form, without the
     * proxy's and the connection's own headers, with the URI's Host and
     * Connection: close. */
    lcsb__buf forward;
    /* BAD: the HTTP status (400, 405, 431) or the SOCKS5 reply code (0x01,
     * 0x07, 0x08; 0xFF for a greeting without "no authentication"), and a
     * sentence for the client. */
    int status;
    char why[128];
} lcsb__request;

/* The LEN bytes a client sent first, as an HTTP request head. */
lcsb__parse lcsb__http_request(const char *data, size_t len, lcsb__request *req);
/* SOCKS5's greeting (version, methods): DONE when it offers no
 * authentication (method 0), which lcsb answers. */
lcsb__parse lcsb__socks_greeting(const unsigned char *data, size_t len, lcsb__request *req);
/* SOCKS5's request after the greeting: CONNECT to an IPv4 address, a name
 * or an IPv6 address. */
lcsb__parse lcsb__socks_request(const unsigned char *data, size_t len, lcsb__request *req);
/* What a request holds (FORWARD); REQ may be read again. */
void lcsb__request_clear(lcsb__request *req);

#endif
