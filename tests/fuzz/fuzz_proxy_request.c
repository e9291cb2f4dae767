/* libFuzzer target: what a command inside the sandbox sends lcsb's proxy,
 * and the policy entries the proxy parses again at start. An input is read
 * as an HTTP head, as SOCKS5's greeting and request, as a net.domains entry
 * and as a net.lan range (up to its first NUL). Besides what the sanitizers
 * catch, it holds the readers to their promises: a whole request's parts
 * are in their normal form, a prefix of a whole request is never judged,
 * and a normal form reads back as itself. */
#define _GNU_SOURCE
#include "proxy_request.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_host(const lcsb__request *req) {
    char again[LCSB__HOST_MAX + 1];
    if (req->port == 0) abort();
    if (lcsb__host_normal(req->host, strlen(req->host), again) != 0) abort();
    if (strcmp(again, req->host) != 0) abort();
}

static void http(const char *text, size_t size) {
    lcsb__request req = {0};
    lcsb__parse state = lcsb__http_request(text, size, &req);
    if (state == LCSB__PARSE_DONE) {
        check_host(&req);
        if (req.used == 0 || req.used > size || req.used > LCSB__REQUEST_HEAD_MAX) abort();
        if (req.kind == LCSB__REQUEST_FORWARD) {
            const lcsb__buf *f = &req.forward;
            if (f->len < 4 || memcmp(f->p + f->len - 4, "\r\n\r\n", 4) != 0) abort();
            if (!strstr(f->p, "\r\nConnection: close\r\n\r\n")) abort();
            /* One head, ending where it says: no header smuggled in. */
            if (strstr(f->p, "\r\n\r\n") != f->p + f->len - 4) abort();
            if (memchr(f->p, '\0', f->len)) abort();
        }
        /* Cut anywhere before its end, the same head is only incomplete. */
        size_t cut = (size * 2654435761u) % req.used;
        lcsb__request part = {0};
        if (lcsb__http_request(text, cut, &part) != LCSB__PARSE_MORE) abort();
        lcsb__request_clear(&part);
    } else if (state == LCSB__PARSE_BAD) {
        if (req.status != 400 && req.status != 405 && req.status != 431) abort();
    }
    lcsb__request_clear(&req);
}

static void socks(const unsigned char *bytes, size_t size) {
    lcsb__request req = {0};
    if (lcsb__socks_greeting(bytes, size, &req) == LCSB__PARSE_DONE && req.used > size) abort();
    lcsb__parse state = lcsb__socks_request(bytes, size, &req);
    if (state == LCSB__PARSE_DONE) {
        check_host(&req);
        if (req.used > size) abort();
    } else if (state == LCSB__PARSE_BAD) {
        if (req.status != 1 && req.status != 7 && req.status != 8) abort();
    }
    lcsb__request_clear(&req);
}

static void entries(const char *text) {
    char why[300], out[LCSB__DOMAIN_TEXT_MAX];
    lcsb__domain d, again;
    if (lcsb__domain_parse(text, &d, why, sizeof why) == 0) {
        lcsb__domain_format(&d, out, sizeof out);
        if (lcsb__domain_parse(out, &again, why, sizeof why) != 0) abort();
        if (memcmp(&d, &again, sizeof d) != 0) abort();
        (void)lcsb__domain_matches(&d, d.host, d.port ? d.port : 443);
    } else if (strncmp(why, "net.domains: \"", 14) != 0) {
        abort();
    }
    lcsb__cidr c, c2;
    if (lcsb__cidr_parse(text, &c, why, sizeof why) == 0) {
        lcsb__cidr_format(&c, out, sizeof out);
        if (lcsb__cidr_parse(out, &c2, why, sizeof why) != 0) abort();
        if (memcmp(&c, &c2, sizeof c) != 0) abort();
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    /* A copy of its own, so that a read past SIZE is the sanitizer's to see. */
    char *text = malloc(size + 1);
    if (!text) return 0;
    memcpy(text, data, size);
    text[size] = '\0';
    http(text, size);
    socks((const unsigned char *)text, size);
    entries(text);
    free(text);
    return 0;
}
