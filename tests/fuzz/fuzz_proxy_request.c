/* libFuzzer target: what a command inside the sandbox sends lcsb's proxy,
 * and the policy entries the proxy parses again at start. An input is read
 * as an HTTP head, as an origin-form head inside an intercepted tunnel
 * (judged by a rule, its placeholders swapped), as a chunked body, as
 * SOCKS5's greeting and request, as a net.domains entry and as a net.lan
 * range (up to its first NUL). Besides what the sanitizers catch, it holds
 * the readers to their promises: a whole request's parts are in their
 * normal form, a prefix of a whole request is never judged, a chunked body
 * ends at the same byte however its bytes arrive, a swap touches only what
 * the placeholder stood in, and a normal form reads back as itself. */
#define _GNU_SOURCE
#include "proxy_request.h"
#include "secrets.h"

#include <stdint.h>
#include <stdio.h>
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

#define PLACEHOLDER "lcsb-placeholder-00112233445566778899aabbccddeeff"

/* The head inside a tunnel to reg.example.org:443, judged by a rule and
 * with a secret's placeholder swapped: one head still, no value where the
 * placeholder was not. */
static void origin(const char *text, size_t size) {
    lcsb__request req = {0};
    lcsb__parse state = lcsb__http_origin_request(text, size, "reg.example.org", 443, 443, &req);
    if (state == LCSB__PARSE_BAD && req.status != 400 && req.status != 421 && req.status != 431)
        abort();
    if (state != LCSB__PARSE_DONE) {
        lcsb__request_clear(&req);
        return;
    }
    const lcsb__buf *f = &req.forward;
    if (strstr(f->p, "\r\n\r\n") != f->p + f->len - 4) abort();
    if (!req.target.p || (req.target.p[0] != '/' && strcmp(req.target.p, "*") != 0)) abort();
    lcsb__domain rule;
    char why[300];
    const lcsb__domain *by;
    const char *no;
    if (lcsb__domain_parse("reg.example.org methods=GET,POST paths=/v2/", &rule, why, sizeof why))
        abort();
    bool refused = lcsb__domains_refuse_request(&rule, 1, "reg.example.org", 443, 0, req.method,
                                                req.target.p, &by, &no);
    if (!refused && (strncmp(req.target.p, "/v2/", 4) != 0 || strstr(req.target.p, "/../")))
        abort();
    lcsb__secret s;
    if (lcsb__secret_parse("T", "reg.example.org", &s, why, sizeof why)) abort();
    snprintf(s.placeholder, sizeof s.placeholder, "%s", PLACEHOLDER);
    if (lcsb__secret_set_value(&s, "VALUE", 5)) abort();
    lcsb__buf out = {0};
    lcsb__secrets_swap(&s, 1, "reg.example.org", 443, f->p, f->len, &out, NULL);
    if (!out.oom && (strstr(out.p, "\r\n\r\n") != out.p + out.len - 4 || out.len > f->len))
        abort();
    /* Unchanged where there is nothing to swap: no placeholder as it is,
     * and no Basic credentials (the scheme in any case, as RFC 7235 has
     * it), where one may be encoded. */
    if (!out.oom && !memmem(f->p, f->len, PLACEHOLDER, strlen(PLACEHOLDER)) &&
        !strcasestr(f->p, "basic") && (out.len != f->len || memcmp(out.p, f->p, f->len) != 0))
        abort();
    (void)lcsb__secrets_find(&s, 1, out.p ? out.p : "", out.len);
    /* An answer overwritten where the value stands: its length kept, and
     * no form of the value left in it. */
    char *answer = malloc(size ? size : 1);
    if (answer && size) {
        memcpy(answer, text, size);
        bool hit, open = false;
        (void)lcsb__secrets_mask(&s, 1, answer, size, 0, NULL, &hit);
        if (memmem(answer, size, "VALUE", 5)) abort();
        /* And read in two parts, as an answer comes: the second goes on
         * from where the first left a run of Base64 open. */
        memcpy(answer, text, size);
        size_t half = size / 2;
        (void)lcsb__secrets_mask(&s, 1, answer, half, 0, &open, &hit);
        (void)lcsb__secrets_mask(&s, 1, answer, size, half, &open, &hit);
        if (memmem(answer, size, "VALUE", 5)) abort();
    }
    free(answer);
    lcsb__buf_free(&out);
    lcsb__secret_clear(&s);
    lcsb__request_clear(&req);
}

/* As a chunked body: whole, then in two parts cut anywhere, the same end. */
static void chunked(const char *text, size_t size) {
    lcsb__chunked a = {0}, b = {0};
    size_t used, first, second;
    lcsb__buf payload = {0};
    lcsb__parse whole = lcsb__chunked_feed(&a, text, size, &used, &payload);
    if (used > size || (whole != LCSB__PARSE_BAD && payload.len > used)) abort();
    size_t cut = size ? (size * 2654435761u) % size : 0;
    lcsb__parse part = lcsb__chunked_feed(&b, text, cut, &first, NULL);
    if (part == LCSB__PARSE_MORE) {
        part = lcsb__chunked_feed(&b, text + cut, size - cut, &second, NULL);
        if (part != whole || (whole == LCSB__PARSE_DONE && first + second != used)) abort();
    } else if ((part == LCSB__PARSE_DONE && (whole != LCSB__PARSE_DONE || first != used)) ||
               (part == LCSB__PARSE_BAD && whole != LCSB__PARSE_BAD)) {
        abort();
    }
    lcsb__buf_free(&payload);
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
    origin(text, size);
    chunked(text, size);
    socks((const unsigned char *)text, size);
    entries(text);
    free(text);
    return 0;
}
