/* What a client of lcsb's proxy asks for. The command inside the sandbox
 * writes these bytes, so everything here is hostile input: each reader
 * looks only at the LEN bytes it is given, refuses what it does not
 * understand rather than guessing, and answers the same whether the bytes
 * came at once or one by one (a prefix of a request is MORE, never BAD).
 * Pure: memory allocation only. */
#include "proxy_request.h"

#include <arpa/inet.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

static lcsb__parse bad(lcsb__request *req, int status, const char *why) {
    req->status = status;
    snprintf(req->why, sizeof req->why, "%s", why);
    return LCSB__PARSE_BAD;
}

void lcsb__request_clear(lcsb__request *req) {
    lcsb__buf_free(&req->forward);
    lcsb__buf_free(&req->target);
    memset(req, 0, sizeof *req);
}

/* ---- HTTP ---- */

/* RFC 9110's tchar: what a method and a header's name are made of. */
static bool is_tchar(unsigned char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           (c && strchr("!#$%&'*+-.^_`|~", c));
}

static bool port_parse(const char *s, size_t n, uint16_t *port) {
    unsigned long v = 0;
    if (n == 0 || n > 5) return false;
    for (size_t i = 0; i < n; i++) {
        if (s[i] < '0' || s[i] > '9') return false;
        v = v * 10 + (unsigned long)(s[i] - '0');
    }
    if (v == 0 || v > 65535) return false;
    *port = (uint16_t)v;
    return true;
}

/* HOST[:PORT] (N bytes at S) into REQ; PORT is required when DEFAULT_PORT is
 * 0. NULL, or why it is no authority. */
static const char *authority(const char *s, size_t n, uint16_t default_port, lcsb__request *req) {
    if (n == 0) return "no host";
    if (memchr(s, '@', n)) return "a user or password in a proxy request";
    size_t host_len;
    const char *rest;
    if (s[0] == '[') {
        const char *close = memchr(s, ']', n);
        if (!close) return "a \"[\" without its \"]\"";
        host_len = (size_t)(close - s) + 1;
        rest = close + 1;
    } else {
        const char *colon = memchr(s, ':', n);
        if (colon && memchr(colon + 1, ':', n - (size_t)(colon + 1 - s)))
            return "an IPv6 address goes in brackets";
        host_len = colon ? (size_t)(colon - s) : n;
        rest = s + host_len;
    }
    size_t rest_len = n - host_len;
    if (rest_len == 0) {
        if (!default_port) return "no port (CONNECT takes host:port)";
        req->port = default_port;
    } else if (rest[0] != ':' || !port_parse(rest + 1, rest_len - 1, &req->port)) {
        return "the port is not a number from 1 to 65535";
    }
    if (host_len == 0 || lcsb__host_normal(s, host_len, req->host) < 0)
        return "not a host name nor an IP address";
    return NULL;
}

typedef struct span {
    const char *p;
    size_t n;
} span;

static bool span_is(span s, const char *text) {
    return s.n == strlen(text) && strncasecmp(s.p, text, s.n) == 0;
}

/* The headers a proxy keeps to itself, and Host, which the URI decides: a
 * Host of the client's choosing would reach a name the policy never saw
 * through a server that hosts both. Expect too: the proxy answers a
 * 100-continue itself (a request it judges is sent on in turn, the body
 * after the head, and would otherwise wait on an answer it holds back). */
static bool hop_header(span name) {
    static const char *const names[] = {"Host",       "Connection",          "Proxy-Connection",
                                        "Keep-Alive", "Proxy-Authorization", "Expect",
                                        NULL};
    for (size_t i = 0; names[i]; i++)
        if (span_is(name, names[i])) return true;
    return false;
}

/* The request line "METHOD TARGET HTTP/1.x" into its three parts. NULL, or
 * why it is none. */
static const char *request_line(span line, span *method, span *target, span *version) {
    const char *sp1 = memchr(line.p, ' ', line.n);
    if (!sp1) return "no request line (METHOD URI HTTP/1.1)";
    const char *after = sp1 + 1, *end = line.p + line.n;
    const char *sp2 = memchr(after, ' ', (size_t)(end - after));
    if (!sp2) return "no request line (METHOD URI HTTP/1.1)";
    *method = (span){line.p, (size_t)(sp1 - line.p)};
    *target = (span){after, (size_t)(sp2 - after)};
    *version = (span){sp2 + 1, (size_t)(end - sp2 - 1)};
    if (method->n == 0 || target->n == 0) return "no request line (METHOD URI HTTP/1.1)";
    for (size_t i = 0; i < method->n; i++)
        if (!is_tchar((unsigned char)method->p[i])) return "not a method";
    for (size_t i = 0; i < target->n; i++)
        if ((unsigned char)target->p[i] <= ' ' || (unsigned char)target->p[i] >= 0x7f)
            return "not a URI";
    if (version->n != 8 ||
        (memcmp(version->p, "HTTP/1.1", 8) != 0 && memcmp(version->p, "HTTP/1.0", 8) != 0))
        return "not HTTP/1.0 or HTTP/1.1";
    return NULL;
}

/* TARGET as a proxy request: CONNECT's authority, or an absolute http://
 * URI whose path-and-query go into *PATH. */
static lcsb__parse target_parse(span method, span target, span *path, lcsb__request *req) {
    const char *why;
    if (method.n == 7 && memcmp(method.p, "CONNECT", 7) == 0) {
        req->kind = LCSB__REQUEST_CONNECT;
        why = authority(target.p, target.n, 0, req);
        return why ? bad(req, 400, why) : LCSB__PARSE_DONE;
    }
    req->kind = LCSB__REQUEST_FORWARD;
    static const char http[] = "http://";
    if (target.n < sizeof http - 1 || strncasecmp(target.p, http, sizeof http - 1) != 0) {
        if (target.p[0] == '/' || (target.n == 1 && target.p[0] == '*'))
            return bad(req, 405,
                       "this is a proxy: ask for an absolute URI (GET http://host/path) "
                       "or CONNECT host:port");
        if (target.n >= 8 && strncasecmp(target.p, "https://", 8) == 0)
            return bad(req, 400, "an https:// URI goes through a proxy by CONNECT host:443");
        return bad(req, 400, "only http:// URIs, or CONNECT host:port");
    }
    const char *a = target.p + sizeof http - 1, *end = target.p + target.n, *p = a;
    while (p < end && *p != '/' && *p != '?' && *p != '#') p++;
    why = authority(a, (size_t)(p - a), 80, req);
    if (why) return bad(req, 400, why);
    const char *hash = memchr(p, '#', (size_t)(end - p));
    *path = (span){p, (size_t)((hash ? hash : end) - p)};
    return LCSB__PARSE_DONE;
}

/* A header line: "NAME:VALUE", NAME made of tchars. */
static bool header_line(span line, span *name) {
    const char *colon = memchr(line.p, ':', line.n);
    if (!colon || colon == line.p) return false;
    *name = (span){line.p, (size_t)(colon - line.p)};
    for (size_t i = 0; i < name->n; i++)
        if (!is_tchar((unsigned char)name->p[i])) return false;
    return true;
}

/* Each header line of the head (DATA, USED bytes, past its request line)
 * in turn: ON_LINE(LINE, NAME, ARG) for each; NULL, or the first why it
 * returns. */
static const char *each_header(const char *data, size_t used,
                               const char *(*on_line)(span line, span name, void *arg), void *arg) {
    const char *p = memchr(data, '\n', used) + 1, *end = data + used;
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        span line = {p, (size_t)(nl - p)};
        if (line.n && line.p[line.n - 1] == '\r') line.n--;
        span name;
        if (line.n && header_line(line, &name)) {
            const char *why = on_line(line, name, arg);
            if (why) return why;
        }
        p = nl + 1;
    }
    return NULL;
}

/* A header's value, without the whitespace around it. */
static span header_value(span line, span name) {
    span v = {line.p + name.n + 1, line.n - name.n - 1};
    while (v.n && (v.p[0] == ' ' || v.p[0] == '\t')) v.p++, v.n--;
    while (v.n && (v.p[v.n - 1] == ' ' || v.p[v.n - 1] == '\t')) v.n--;
    return v;
}

typedef struct framing {
    lcsb__request *req;
    bool length, chunked;
    span host;  /* the Host header's value (ORIGIN) */
    bool hosts; /* more than one */
} framing;

/* What shapes the body and the answer: Content-Length, Transfer-Encoding,
 * Expect, Host. Framing a server could read two ways (both, either twice
 * apart, a coding other than chunked alone) is refused: it is how requests
 * are smuggled past a proxy that judges them. */
static const char *framing_line(span line, span name, void *arg) {
    framing *f = arg;
    span v = header_value(line, name);
    if (span_is(name, "Content-Length")) {
        uint64_t n = 0;
        if (v.n == 0 || v.n > 18) return "a Content-Length that is no number";
        for (size_t i = 0; i < v.n; i++) {
            if (v.p[i] < '0' || v.p[i] > '9') return "a Content-Length that is no number";
            n = n * 10 + (uint64_t)(v.p[i] - '0');
        }
        if (f->length && n != f->req->body_len) return "two Content-Length headers that differ";
        f->length = true;
        f->req->body_len = n;
    } else if (span_is(name, "Transfer-Encoding")) {
        if (f->chunked || !span_is(v, "chunked"))
            return "a Transfer-Encoding other than one \"chunked\"";
        f->chunked = true;
    } else if (span_is(name, "Expect")) {
        f->req->expect_continue = f->req->expect_continue || span_is(v, "100-continue");
    } else if (span_is(name, "Host")) {
        f->hosts = f->host.p != NULL;
        f->host = v;
    } else if (span_is(name, "X-HTTP-Method-Override") || span_is(name, "X-HTTP-Method") ||
               span_is(name, "X-Method-Override") || span_is(name, "X-Original-Method")) {
        /* Taken as the method by some servers: the rule judges it too. One
         * too long for any rule stands as "?", which none names. */
        char *o = f->req->method_override;
        size_t cap = sizeof f->req->method_override;
        if (o[0] && !(strlen(o) == v.n && memcmp(o, v.p, v.n) == 0))
            return "two method overrides that differ";
        snprintf(o, cap, "%.*s", (int)(v.n && v.n < cap ? v.n : 1), v.n && v.n < cap ? v.p : "?");
    }
    return NULL;
}

/* Every header line but the proxy's own, into the forwarded head. */
static const char *copy_line(span line, span name, void *arg) {
    if (!hop_header(name)) {
        lcsb__buf_add(arg, line.p, line.n);
        lcsb__buf_adds(arg, "\r\n");
    }
    return NULL;
}

/* The head for the origin server: METHOD PATH VERSION, the client's
 * headers but the proxy's own, and REQ's Host, DEFAULT_PORT left out; and
 * what a rule judges, the method and the target as the server gets them. */
static void forward_head(span method, span path, span version, const char *data, size_t used,
                         uint16_t default_port, lcsb__request *req) {
    lcsb__buf *t = &req->target;
    if (path.n == 0 || path.p[0] != '/') lcsb__buf_adds(t, "/");
    lcsb__buf_add(t, path.p, path.n);
    lcsb__buf_add(t, "", 1);
    if (method.n < sizeof req->method) {
        memcpy(req->method, method.p, method.n);
        req->method[method.n] = '\0';
    }
    lcsb__buf *b = &req->forward;
    lcsb__buf_add(b, method.p, method.n);
    lcsb__buf_adds(b, " ");
    if (!t->oom) lcsb__buf_adds(b, t->p);
    lcsb__buf_adds(b, " ");
    lcsb__buf_add(b, version.p, version.n);
    lcsb__buf_adds(b, "\r\n");
    (void)each_header(data, used, copy_line, b);
    bool v6 = strchr(req->host, ':') != NULL;
    lcsb__buf_addf(b, "Host: %s%s%s", v6 ? "[" : "", req->host, v6 ? "]" : "");
    if (req->port != default_port) lcsb__buf_addf(b, ":%u", (unsigned)req->port);
    lcsb__buf_adds(b, "\r\nConnection: close\r\n\r\n");
}

/* An ORIGIN request's target: origin form only ("/path?query"; a "*" for
 * OPTIONS goes on as it is, for a rule to judge). */
static const char *origin_target(span target) {
    if (target.p[0] == '/' || (target.n == 1 && target.p[0] == '*')) return NULL;
    return "a request inside a tunnel gives its path (GET /path), not a URI";
}

/* Is the Host header's value REQ's own host and port, as the tunnel was
 * asked for? */
static bool same_host(span value, const lcsb__request *req, uint16_t default_port) {
    lcsb__request named = {0};
    if (value.n == 0 || authority(value.p, value.n, default_port, &named)) return false;
    return named.port == req->port && strcmp(named.host, req->host) == 0;
}

/* The head once whole (USED bytes): framing checked, the forwarded head
 * made. */
static lcsb__parse head_done(const char *data, size_t used, span method, span target, span path,
                             span version, uint16_t default_port, lcsb__request *req) {
    req->used = used;
    framing f = {.req = req};
    const char *why = each_header(data, used, framing_line, &f);
    if (why) return bad(req, 400, why);
    if (f.length && f.chunked)
        return bad(req, 400, "both Content-Length and Transfer-Encoding (one framing only)");
    if (f.chunked && version.p[7] == '0')
        return bad(req, 400, "Transfer-Encoding in an HTTP/1.0 request (RFC 9112 6.1)");
    req->body = f.chunked ? LCSB__BODY_CHUNKED : f.length ? LCSB__BODY_LENGTH : LCSB__BODY_NONE;
    if (req->kind == LCSB__REQUEST_ORIGIN) {
        if (f.hosts || !same_host(f.host, req, default_port))
            return bad(req, 421, "the Host header names another host than the tunnel's");
        path = target;
    } else if (req->kind != LCSB__REQUEST_FORWARD) {
        return LCSB__PARSE_DONE;
    }
    forward_head(method, path, version, data, used,
                 req->kind == LCSB__REQUEST_ORIGIN ? default_port : 80, req);
    if (req->forward.oom || req->target.oom) return bad(req, 400, "out of memory");
    return LCSB__PARSE_DONE;
}

/* A request head as a proxy (ORIGIN_HOST NULL) or a tunnel's server
 * (ORIGIN_HOST:ORIGIN_PORT) reads it. */
static lcsb__parse head_parse(const char *data, size_t len, const char *origin_host,
                              uint16_t origin_port, uint16_t default_port, lcsb__request *req) {
    lcsb__request_clear(req);
    if (origin_host) {
        req->kind = LCSB__REQUEST_ORIGIN;
        snprintf(req->host, sizeof req->host, "%s", origin_host);
        req->port = origin_port;
    }
    /* Each whole line checked as it comes, so that a malformed request is
     * answered at once and not after the head's time runs out. */
    size_t scan = len < LCSB__REQUEST_HEAD_MAX ? len : LCSB__REQUEST_HEAD_MAX;
    size_t start = 0, lines = 0;
    span method = {0}, target = {0}, version = {0}, path = {0};
    for (size_t i = 0; i < scan; i++) {
        unsigned char c = (unsigned char)data[i];
        if (c == '\r') {
            if (i + 1 < len && data[i + 1] != '\n') return bad(req, 400, "a CR without its LF");
            continue;
        }
        if (c != '\n') {
            if (c == '\0' || (c < ' ' && c != '\t') || c == 0x7f)
                return bad(req, 400, "a control character in the request head");
            /* The request line is ASCII: a binary protocol is refused before
             * its first newline. */
            if (lines == 0 && c >= 0x7f) return bad(req, 400, "not an HTTP request");
            continue;
        }
        span line = {data + start, i - start};
        if (line.n && line.p[line.n - 1] == '\r') line.n--;
        if (lines == 0) {
            const char *why = request_line(line, &method, &target, &version);
            if (!why && origin_host) why = origin_target(target);
            if (why) return bad(req, 400, why);
            if (!origin_host && target_parse(method, target, &path, req) == LCSB__PARSE_BAD)
                return LCSB__PARSE_BAD;
        } else if (line.n == 0) {
            return head_done(data, i + 1, method, target, path, version, default_port, req);
        } else {
            span name;
            if (line.p[0] == ' ' || line.p[0] == '\t')
                return bad(req, 400, "a header folded onto a second line");
            if (!header_line(line, &name)) return bad(req, 400, "a header line without NAME:");
        }
        lines++;
        start = i + 1;
    }
    if (len >= LCSB__REQUEST_HEAD_MAX) return bad(req, 431, "the request head is over 16 KiB");
    return LCSB__PARSE_MORE;
}

lcsb__parse lcsb__http_request(const char *data, size_t len, lcsb__request *req) {
    return head_parse(data, len, NULL, 0, 0, req);
}

lcsb__parse lcsb__http_origin_request(const char *data, size_t len, const char *host, uint16_t port,
                                      uint16_t default_port, lcsb__request *req) {
    return head_parse(data, len, host, port, default_port, req);
}

/* ---- A chunked body ---- */

enum {
    CH_SIZE,       /* hex digits of a chunk's size */
    CH_EXT,        /* ";name=value" after the size, to its line's end */
    CH_SIZE_LF,    /* the LF after a size line's CR */
    CH_DATA,       /* LEFT bytes of the chunk */
    CH_DATA_CR,    /* the CRLF after them */
    CH_DATA_LF,
    CH_TRAILER,    /* a trailer line's start, or the CRLF that ends the body */
    CH_TRAILER_IN, /* within a trailer line */
    CH_END_LF,     /* the last LF */
};

#define CHUNK_LINE_MAX 4096 /* a size line's extensions, a trailer line */

lcsb__parse lcsb__chunked_feed(lcsb__chunked *ch, const char *data, size_t len, size_t *used,
                               lcsb__buf *payload) {
    size_t i = 0;
    *used = 0;
    while (i < len) {
        char c = data[i];
        switch (ch->state) {
        case CH_SIZE: {
            int d = lcsb__hex_digit(c);
            if (d >= 0) {
                if (++ch->digits > 15) return LCSB__PARSE_BAD;
                ch->left = ch->left * 16 + (uint64_t)d;
            } else if (ch->digits && (c == ';' || c == ' ' || c == '\t')) {
                ch->state = CH_EXT;
            } else if (ch->digits && c == '\r') {
                ch->state = CH_SIZE_LF;
            } else {
                return LCSB__PARSE_BAD;
            }
            break;
        }
        case CH_EXT:
            if (++ch->line > CHUNK_LINE_MAX || c == '\n' || c == '\0') return LCSB__PARSE_BAD;
            if (c == '\r') ch->state = CH_SIZE_LF;
            break;
        case CH_SIZE_LF:
            if (c != '\n') return LCSB__PARSE_BAD;
            ch->line = ch->digits = 0;
            ch->state = ch->left ? CH_DATA : CH_TRAILER;
            break;
        case CH_DATA: {
            size_t take = len - i < ch->left ? len - i : (size_t)ch->left;
            if (payload) lcsb__buf_add(payload, data + i, take);
            ch->left -= take;
            i += take;
            if (!ch->left) ch->state = CH_DATA_CR;
            continue;
        }
        case CH_DATA_CR:
            if (c != '\r') return LCSB__PARSE_BAD;
            ch->state = CH_DATA_LF;
            break;
        case CH_DATA_LF:
            if (c != '\n') return LCSB__PARSE_BAD;
            ch->state = CH_SIZE;
            break;
        case CH_TRAILER:
            if (c == '\r') {
                ch->state = CH_END_LF;
                break;
            }
            ch->state = CH_TRAILER_IN;
            ch->line = 0;
            __attribute__((fallthrough)); /* the line's first byte */
        case CH_TRAILER_IN:
            if (++ch->line > CHUNK_LINE_MAX || c == '\0') return LCSB__PARSE_BAD;
            if (c == '\n') ch->state = CH_TRAILER;
            break;
        case CH_END_LF:
            if (c != '\n') return LCSB__PARSE_BAD;
            *used = i + 1;
            return LCSB__PARSE_DONE;
        default: return LCSB__PARSE_BAD;
        }
        i++;
    }
    *used = len;
    return LCSB__PARSE_MORE;
}

/* ---- SOCKS5 (RFC 1928) ---- */

lcsb__parse lcsb__socks_greeting(const unsigned char *data, size_t len, lcsb__request *req) {
    lcsb__request_clear(req);
    req->kind = LCSB__REQUEST_SOCKS;
    if (len >= 1 && data[0] != 5) return bad(req, 0xff, "not SOCKS version 5");
    if (len < 2 || len < 2 + (size_t)data[1]) return LCSB__PARSE_MORE;
    req->used = 2 + (size_t)data[1];
    if (!memchr(data + 2, 0, data[1]))
        return bad(req, 0xff, "SOCKS5 without \"no authentication\" (method 0)");
    return LCSB__PARSE_DONE;
}

lcsb__parse lcsb__socks_request(const unsigned char *data, size_t len, lcsb__request *req) {
    lcsb__request_clear(req);
    req->kind = LCSB__REQUEST_SOCKS;
    if (len >= 1 && data[0] != 5) return bad(req, 0x01, "not SOCKS version 5");
    if (len >= 2 && data[1] != 1) return bad(req, 0x07, "only CONNECT");
    if (len >= 3 && data[2] != 0) return bad(req, 0x01, "a reserved byte that is not 0");
    if (len < 5) return LCSB__PARSE_MORE;
    size_t addr_len;
    switch (data[3]) {
    case 1: addr_len = 4; break;
    case 3: addr_len = 1 + (size_t)data[4]; break;
    case 4: addr_len = 16; break;
    default: return bad(req, 0x08, "an address type other than IPv4, a name or IPv6");
    }
    if (data[3] == 3 && data[4] == 0) return bad(req, 0x01, "an empty name");
    size_t total = 4 + addr_len + 2;
    if (len < total) return LCSB__PARSE_MORE;
    req->used = total;
    req->port = (uint16_t)(data[total - 2] << 8 | data[total - 1]);
    if (req->port == 0) return bad(req, 0x01, "port 0");
    const unsigned char *a = data + 4;
    int ok;
    if (data[3] == 3)
        ok = lcsb__host_normal((const char *)a + 1, a[0], req->host) == 0;
    else
        ok = inet_ntop(data[3] == 1 ? AF_INET : AF_INET6, a, req->host, sizeof req->host) != NULL;
    if (!ok) return bad(req, 0x01, "not a host name");
    return LCSB__PARSE_DONE;
}
