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
 * through a server that hosts both. */
static bool hop_header(span name) {
    static const char *const names[] = {"Host",       "Connection",          "Proxy-Connection",
                                        "Keep-Alive", "Proxy-Authorization", NULL};
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

static void forward_head(span method, span path, span version, const char *data, size_t used,
                         lcsb__request *req) {
    lcsb__buf *b = &req->forward;
    lcsb__buf_add(b, method.p, method.n);
    lcsb__buf_adds(b, " ");
    if (path.n == 0 || path.p[0] != '/') lcsb__buf_adds(b, "/");
    lcsb__buf_add(b, path.p, path.n);
    lcsb__buf_adds(b, " ");
    lcsb__buf_add(b, version.p, version.n);
    lcsb__buf_adds(b, "\r\n");
    /* The header lines again, one by one, as the parse saw them. */
    const char *p = memchr(data, '\n', used) + 1, *end = data + used;
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        span line = {p, (size_t)(nl - p)};
        if (line.n && line.p[line.n - 1] == '\r') line.n--;
        span name;
        if (line.n && header_line(line, &name) && !hop_header(name)) {
            lcsb__buf_add(b, line.p, line.n);
            lcsb__buf_adds(b, "\r\n");
        }
        p = nl + 1;
    }
    bool v6 = strchr(req->host, ':') != NULL;
    lcsb__buf_addf(b, "Host: %s%s%s", v6 ? "[" : "", req->host, v6 ? "]" : "");
    if (req->port != 80) lcsb__buf_addf(b, ":%u", (unsigned)req->port);
    lcsb__buf_adds(b, "\r\nConnection: close\r\n\r\n");
}

lcsb__parse lcsb__http_request(const char *data, size_t len, lcsb__request *req) {
    lcsb__request_clear(req);
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
            if (why) return bad(req, 400, why);
            if (target_parse(method, target, &path, req) == LCSB__PARSE_BAD) return LCSB__PARSE_BAD;
        } else if (line.n == 0) {
            req->used = i + 1;
            if (req->kind == LCSB__REQUEST_FORWARD) {
                forward_head(method, path, version, data, req->used, req);
                if (req->forward.oom) return bad(req, 400, "out of memory");
            }
            return LCSB__PARSE_DONE;
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
