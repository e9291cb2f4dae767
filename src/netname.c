/* Network names and addresses, for the domain allowlist: a policy's entries
 * checked and put in one normal form, a request's host made comparable to
 * them, and an address judged public or not. The proxy compares text, so
 * everything that could spell one host two ways (case, a trailing dot,
 * brackets, the many spellings of an IPv6 address) is settled here, once.
 * Pure: inet_pton, inet_aton and inet_ntop only read and write memory. */
#include "netname.h"

#include "lcsb.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* The quoted entry in a reason: escaped (it is the caller's text, bound for a
 * terminal) and cut short, so that the reason itself still fits. */
#define QUOTED_MAX 96

static void reason(char *why, size_t size, const char *what, const char *entry, const char *text) {
    char quoted[QUOTED_MAX];
    size_t len = strlen(entry);
    bool cut = len > 64;
    lcsb_escape(quoted, sizeof quoted, entry, cut ? 64 : len);
    snprintf(why, size, "%s: \"%s%s\": %s", what, quoted, cut ? "..." : "", text);
}

static bool is_digit(char c) { return c >= '0' && c <= '9'; }

/* TEXT (LEN bytes) as a port: decimal 1..65535, no sign, no spaces. */
static bool port_parse(const char *text, size_t len, uint16_t *port) {
    unsigned long v = 0;
    if (len == 0 || len > 5) return false;
    for (size_t i = 0; i < len; i++) {
        if (!is_digit(text[i])) return false;
        v = v * 10 + (unsigned long)(text[i] - '0');
    }
    if (v == 0 || v > 65535) return false;
    *port = (uint16_t)v;
    return true;
}

/* An IP literal in its one canonical spelling: inet_pton refuses the
 * shorthand forms ("127.1", "0x7f.0.0.1", leading zeros) that inet_aton and
 * getaddrinfo would take, and inet_ntop writes IPv6 one way. */
static bool literal_normal(const char *in, size_t len, char out[LCSB__HOST_MAX + 1]) {
    char text[INET6_ADDRSTRLEN + 1];
    unsigned char addr[16];
    if (len == 0 || len >= sizeof text) return false;
    memcpy(text, in, len);
    text[len] = '\0';
    if (inet_pton(AF_INET, text, addr) == 1)
        return inet_ntop(AF_INET, addr, out, LCSB__HOST_MAX + 1) != NULL;
    if (inet_pton(AF_INET6, text, addr) == 1)
        return inet_ntop(AF_INET6, addr, out, LCSB__HOST_MAX + 1) != NULL;
    return false;
}

/* Is IN an IPv4 address in one of the other spellings inet_aton and
 * getaddrinfo take ("0x7f000001", "127.0.0.0x1", "0177.1", "2130706433")?
 * Such a host leads to that address, so it is no name; nor is it taken as
 * the address, which a policy names in its own spelling. */
static bool aton_spelling(const char *in, size_t len) {
    char text[64];
    struct in_addr addr;
    if (len == 0 || len >= sizeof text || strspn(in, "0123456789abcdefABCDEFxX.") < len)
        return false;
    memcpy(text, in, len);
    text[len] = '\0';
    return inet_aton(text, &addr) == 1;
}

bool lcsb__host_is_literal(const char *host) {
    unsigned char addr[16];
    return inet_pton(AF_INET, host, addr) == 1 || inet_pton(AF_INET6, host, addr) == 1;
}

int lcsb__host_normal(const char *in, size_t len, char out[LCSB__HOST_MAX + 1]) {
    if (len >= 2 && in[0] == '[') {
        if (in[len - 1] != ']') return -1;
        unsigned char addr[16];
        char text[INET6_ADDRSTRLEN + 1];
        if (len - 2 >= sizeof text) return -1;
        memcpy(text, in + 1, len - 2);
        text[len - 2] = '\0';
        if (inet_pton(AF_INET6, text, addr) != 1) return -1;
        return inet_ntop(AF_INET6, addr, out, LCSB__HOST_MAX + 1) ? 0 : -1;
    }
    if (literal_normal(in, len, out)) return 0;
    if (aton_spelling(in, len)) return -1;
    if (len && in[len - 1] == '.') len--;
    if (len == 0 || len > LCSB__HOST_MAX) return -1;
    size_t label = 0;
    bool numeric = true; /* the last label so far is all digits */
    for (size_t i = 0; i < len; i++) {
        char c = in[i];
        if (c >= 'A' && c <= 'Z') c = (char)(c - 'A' + 'a');
        if (c == '.') {
            if (label == 0) return -1;
            label = 0;
            numeric = true;
        } else if ((c >= 'a' && c <= 'z') || is_digit(c) || c == '-' || c == '_') {
            if (++label > 63) return -1;
            numeric = numeric && is_digit(c);
        } else {
            return -1;
        }
        out[i] = c;
    }
    /* A name ending in a number is an address in one of inet_aton's
     * spellings ("127.1", "10.0.0.010"), which getaddrinfo would take as
     * that address: no top-level domain is numeric, so it is no name. */
    if (label == 0 || numeric) return -1;
    out[len] = '\0';
    return 0;
}

/* What makes an entry (S, past its '!'; ENTRY whole) no entry whatever its
 * host names: NULL when nothing does. */
static const char *entry_misshapen(const char *entry, const char *s) {
    if (!*s) return "an empty entry names nothing";
    for (const char *p = entry; *p; p++) {
        if ((unsigned char)*p <= ' ' || *p == 0x7f)
            return "no spaces or control characters in a host name";
    }
    if (strstr(s, "://")) return "give a host name, not a URL";
    if (strchr(s, '/')) return "give a host name, not a path (for a range, use net.lan)";
    if (strcmp(s, "*") == 0 || strcmp(s, "*.") == 0)
        return "\"*\" alone would allow every name: list the names, or give net = true";
    return NULL;
}

/* The host and the port: an IPv6 literal keeps its colons in brackets.
 * S's first *HOST_LEN bytes are the host, *PORT what follows its colon (or
 * NULL): NULL, or what is wrong with them. */
static const char *split_host_port(const char *s, size_t *host_len, const char **port) {
    *port = NULL;
    if (*s == '[') {
        const char *close = strchr(s, ']');
        if (!close) return "a \"[\" without its \"]\"";
        *host_len = (size_t)(close - s) + 1;
        if (close[1] == ':')
            *port = close + 2;
        else if (close[1])
            return "after \"]\" only \":PORT\"";
    } else {
        const char *colon = strchr(s, ':');
        if (colon && strchr(colon + 1, ':'))
            return "an IPv6 address goes in brackets, its port after them: \"[2001:db8::1]:443\"";
        *host_len = colon ? (size_t)(colon - s) : strlen(s);
        if (colon) *port = colon + 1;
    }
    return NULL;
}

/* S's host (HOST_LEN bytes) and PORT (or NULL) into OUT, checked: NULL, or
 * what is wrong with them. */
static const char *read_host_port(lcsb__domain *out, const char *s, size_t host_len,
                                  const char *port) {
    if (port && !port_parse(port, strlen(port), &out->port))
        return "the port must be a number from 1 to 65535";
    if (host_len == 0) return "a port alone names no host";
    if (lcsb__host_normal(s, host_len, out->host) < 0)
        return s[0] == '[' ? "not an IPv6 address in brackets"
                           : "not a host name (letters, digits, '-', '_' and '.', labels of 1 "
                             "to 63 and at most 253 in all, not ending in a number) nor an IP "
                             "address";
    if (out->wildcard && lcsb__host_is_literal(out->host))
        return "\"*.\" goes before a name, not an address";
    return NULL;
}

/* "YYYY-MM-DDTHH:MM:SSZ" as seconds since the epoch (UTC), or -1. */
static int64_t utc_time(const char *s) {
    static const char shape[] = "dddd-dd-ddTdd:dd:ddZ";
    if (strlen(s) != sizeof shape - 1) return -1;
    for (size_t i = 0; shape[i]; i++)
        if (shape[i] == 'd' ? !is_digit(s[i]) : s[i] != shape[i]) return -1;
    int year = atoi(s), mon = atoi(s + 5), day = atoi(s + 8), hour = atoi(s + 11),
        min = atoi(s + 14), sec = atoi(s + 17);
    static const int days[] = {31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    bool leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
    if (year < 1970 || mon < 1 || mon > 12 || day < 1 || day > days[mon - 1] ||
        (mon == 2 && day == 29 && !leap) || hour > 23 || min > 59 || sec > 59)
        return -1;
    struct tm tm = {.tm_year = year - 1900,
                    .tm_mon = mon - 1,
                    .tm_mday = day,
                    .tm_hour = hour,
                    .tm_min = min,
                    .tm_sec = sec};
    return (int64_t)timegm(&tm);
}

/* RULE's methods ("GET,HEAD"): uppercase tokens, comma-separated, into
 * OUT. NULL, or what is wrong with them. */
static const char *read_methods(const char *list, lcsb__domain *out) {
    static const char wrong[] = "methods= takes uppercase methods, comma-separated (GET,HEAD)";
    size_t len = strlen(list);
    if (len == 0 || len >= sizeof out->methods) return wrong;
    for (const char *p = list; *p;) {
        const char *end = strchr(p, ',');
        size_t n = end ? (size_t)(end - p) : strlen(p);
        if (n == 0 || n > 16) return wrong;
        for (size_t i = 0; i < n; i++)
            if (p[i] < 'A' || p[i] > 'Z') return wrong;
        p += n + (end ? 1 : 0);
        if (end && !*p) return wrong;
    }
    memcpy(out->methods, list, len + 1);
    return NULL;
}

static bool is_hex(char c) {
    return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

/* A path's bytes as RFC 3986 has them (unreserved, sub-delims but the
 * comma that separates the list, ':', '@', '/', and "%XX"), with no
 * segment "." or ".." (which a server would resolve past the prefix). */
static bool path_prefix_ok(const char *p, size_t n) {
    if (n == 0 || p[0] != '/') return false;
    for (size_t i = 0; i < n; i++) {
        char c = p[i];
        if (c == '%') {
            if (i + 2 >= n) return false;
            if (!is_hex(p[i + 1]) || !is_hex(p[i + 2])) return false;
            i += 2;
        } else if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || is_digit(c) ||
                     strchr("-._~!$&'()*+;=:@/", c))) {
            return false;
        }
    }
    for (size_t i = 0; i < n; i++) {
        if (p[i] != '/') continue;
        size_t k = i + 1;
        while (k < n && p[k] == '.') k++;
        if (k - i - 1 >= 1 && k - i - 1 <= 2 && (k == n || p[k] == '/')) return false;
    }
    return true;
}

/* RULE's path prefixes ("/v2/,/simple/"), into OUT. NULL, or what is
 * wrong with them. */
static const char *read_paths(const char *list, lcsb__domain *out) {
    static const char wrong[] =
        "paths= takes path prefixes, comma-separated, each starting with \"/\" (/v2/,/simple/), "
        "of letters, digits, \"-._~!$&'()*+;=:@/\" and %XX, with no \".\" or \"..\" segment";
    size_t len = strlen(list);
    if (len == 0 || len >= sizeof out->paths) return wrong;
    for (const char *p = list; *p;) {
        const char *end = strchr(p, ',');
        size_t n = end ? (size_t)(end - p) : strlen(p);
        if (!path_prefix_ok(p, n)) return wrong;
        p += n + (end ? 1 : 0);
        if (end && !*p) return wrong;
    }
    memcpy(out->paths, list, len + 1);
    return NULL;
}

/* What follows an entry's host (TAIL: past its space): the grant's end,
 * " once" and " until=...", then the requests' rule, " methods=..." and
 * " paths=...", each at most once and in that order. NULL, or what is
 * wrong with it. */
static const char *read_tail(lcsb__domain *out, const char *tail) {
    static const char order[] =
        "no spaces or control characters in a host name; after it, only \" once\", "
        "\" until=YYYY-MM-DDTHH:MM:SSZ\", \" methods=GET,HEAD\" and \" paths=/PREFIX/\", in "
        "that order";
    if (out->deny) return "a deny entry has no grant to end (\"once\", \"until=\") nor rule";
    static const char *const words[] = {"once", "until=", "methods=", "paths="};
    size_t next = 0; /* the first of WORDS that may still come */
    char token[LCSB__DOMAIN_PATHS_MAX + 8];
    for (const char *p = tail;;) {
        const char *space = strchr(p, ' ');
        size_t n = space ? (size_t)(space - p) : strlen(p);
        if (n == 0 || n >= sizeof token) return order;
        memcpy(token, p, n);
        token[n] = '\0';
        size_t w = next;
        while (w < 4 && (w == 0 ? strcmp(token, "once") != 0
                                : strncmp(token, words[w], strlen(words[w])) != 0))
            w++;
        if (w == 4) return order;
        const char *value = token + strlen(words[w]), *wrong = NULL;
        if (w == 0) {
            out->once = true;
        } else if (w == 1) {
            out->until = utc_time(value);
            if (out->until <= 0) wrong = "until= takes a time in UTC, as 2026-12-06T18:00:00Z";
        } else if (w == 2) {
            wrong = read_methods(value, out);
        } else {
            wrong = read_paths(value, out);
        }
        if (wrong) return wrong;
        next = w + 1;
        if (!space) return NULL;
        p = space + 1;
    }
}

int lcsb__domain_parse(const char *entry, lcsb__domain *out, char *why, size_t size) {
    static const char what[] = "net.domains";
    memset(out, 0, sizeof *out);
    /* The host part, apart from the grant's end after its space. */
    char host_part[LCSB__HOST_MAX + 16];
    const char *space = strchr(entry, ' ');
    if (space == entry) space = NULL; /* no host before it: misshapen as a whole */
    size_t host_part_len = space ? (size_t)(space - entry) : strlen(entry);
    if (host_part_len >= sizeof host_part) {
        reason(why, size, what, entry, "longer than any host name and port");
        return -1;
    }
    memcpy(host_part, entry, host_part_len);
    host_part[host_part_len] = '\0';
    const char *s = host_part;
    if (*s == '!') {
        out->deny = true;
        s++;
    }
    const char *wrong = entry_misshapen(host_part, s);
    if (!wrong && strncmp(s, "*.", 2) == 0) {
        out->wildcard = true;
        s += 2;
    }
    if (!wrong && strchr(s, '*')) wrong = "\"*\" only as a leading \"*.\" (\"*.example.com\")";
    size_t host_len = 0;
    const char *port = NULL;
    if (!wrong) wrong = split_host_port(s, &host_len, &port);
    if (!wrong) wrong = read_host_port(out, s, host_len, port);
    if (!wrong && space) wrong = read_tail(out, space + 1);
    if (!wrong) return 0;
    reason(why, size, what, entry, wrong);
    return -1;
}

void lcsb__domain_format_lasting(const lcsb__domain *d, char *out, size_t size) {
    lcsb__domain lasting = *d;
    lasting.once = false;
    lasting.until = 0;
    lcsb__domain_format(&lasting, out, size);
}

void lcsb__domain_format(const lcsb__domain *d, char *out, size_t size) {
    char port[8] = "";
    if (d->port) snprintf(port, sizeof port, ":%u", (unsigned)d->port);
    bool v6 = strchr(d->host, ':') != NULL;
    char until[32] = "";
    struct tm tm;
    time_t t = (time_t)d->until;
    if (d->until > 0 && gmtime_r(&t, &tm))
        strftime(until, sizeof until, " until=%Y-%m-%dT%H:%M:%SZ", &tm);
    snprintf(out, size, "%s%s%s%s%s%s%s%s%s%s%s%s", d->deny ? "!" : "", d->wildcard ? "*." : "",
             v6 ? "[" : "", d->host, v6 ? "]" : "", port, d->once ? " once" : "", until,
             d->methods[0] ? " methods=" : "", d->methods, d->paths[0] ? " paths=" : "", d->paths);
}

bool lcsb__domain_matches(const lcsb__domain *d, const char *host, uint16_t port) {
    /* Without a port an entry allows the web's two, and denies every one:
     * "!host" means never that host. */
    if (d->port ? port != d->port : !d->deny && port != 443 && port != 80) return false;
    /* A literal entry matches only that literal and a name entry only names:
     * "10.0.0.1" never stands for a name that resolves to it. */
    bool literal = lcsb__host_is_literal(host);
    if (lcsb__host_is_literal(d->host)) return literal && strcmp(d->host, host) == 0;
    if (literal) return false;
    if (!d->wildcard) return strcmp(d->host, host) == 0;
    size_t n = strlen(host), k = strlen(d->host);
    return n > k + 1 && host[n - k - 1] == '.' && strcmp(host + n - k, d->host) == 0;
}

bool lcsb__domains_refuse(lcsb__domain *v, size_t n, const char *host, uint16_t port, int64_t now,
                          lcsb__domain_verdict *out) {
    lcsb__domain *lasting = NULL, *once = NULL;
    *out = (lcsb__domain_verdict){0};
    for (size_t i = 0; i < n; i++) {
        if (!lcsb__domain_matches(&v[i], host, port)) continue;
        if (v[i].deny) {
            out->deny = &v[i];
            return true;
        }
        if ((v[i].until && now >= v[i].until) || (v[i].once && v[i].used)) {
            if (!out->ended) out->ended = &v[i];
        } else if (!v[i].once) {
            lasting = lasting ? lasting : &v[i];
        } else {
            once = once ? once : &v[i];
        }
    }
    if (!lasting && !once) return true;
    out->ended = NULL;
    /* A lasting grant first: a once is not spent where another allows. */
    if (!lasting) {
        once->used = true;
        out->taken = once;
    }
    return false;
}

/* ---- Rules on requests ---- */

bool lcsb__domain_has_rule(const lcsb__domain *d) { return d->methods[0] || d->paths[0]; }

/* Is D an allowing entry for HOST:PORT that has not expired at NOW? */
static bool live_grant(const lcsb__domain *d, const char *host, uint16_t port, int64_t now) {
    return !d->deny && !(d->until && now >= d->until) && lcsb__domain_matches(d, host, port);
}

bool lcsb__domains_rule_only(const lcsb__domain *v, size_t n, const char *host, uint16_t port,
                             int64_t now) {
    bool any = false;
    for (size_t i = 0; i < n; i++) {
        if (!live_grant(&v[i], host, port, now)) continue;
        if (!lcsb__domain_has_rule(&v[i])) return false;
        any = true;
    }
    return any;
}

/* Is WORD (LEN bytes) one of LIST's comma-separated items, exactly? With
 * PREFIX, does WORD start with one of them? */
static bool listed(const char *list, const char *word, size_t len, bool prefix) {
    for (const char *p = list; *p;) {
        const char *end = strchr(p, ',');
        size_t n = end ? (size_t)(end - p) : strlen(p);
        if (prefix ? n <= len && memcmp(word, p, n) == 0 : n == len && memcmp(word, p, n) == 0)
            return true;
        p += n + (end ? 1 : 0);
    }
    return false;
}

/* Can a path rule judge PATH (LEN bytes, before any "?")? Not when a server
 * could read it as another path than its bytes say: a "." or ".." segment,
 * spelled out or percent-encoded (with "%2F" as a separator too), a
 * backslash, a NUL, or an escape that decodes to another escape. */
static bool path_judgeable(const char *path, size_t len) {
    if (len == 0 || path[0] != '/') return false;
    /* The current segment's length and its dots, up to a ";" (a path
     * parameter, which servers drop before they resolve the segment). */
    size_t dots = 0, seg = 0;
    bool params = false;
    for (size_t i = 0; i <= len; i++) {
        char c = i < len ? path[i] : '/';
        size_t step = 1;
        if (c == '%') {
            if (i + 2 >= len || !is_hex(path[i + 1]) || !is_hex(path[i + 2])) return false;
            char hex[3] = {path[i + 1], path[i + 2], '\0'};
            c = (char)strtol(hex, NULL, 16);
            step = 3;
            /* Another escape, and any byte past ASCII: an overlong UTF-8
             * spelling of a dot ("%c0%ae", "%e0%80%ae"), a fullwidth one a
             * server may fold into "." (NFKC), and the rest of Unicode,
             * which an API's path rarely holds. */
            if (c == '%' || (unsigned char)c >= 0x80) return false;
        }
        /* A backslash, a NUL, a control character ("%09" between dots). */
        if (c == '\\' || (unsigned char)c < 0x20 || c == 0x7f) return false;
        if (c == '/') {
            /* A segment of dots alone, of any number ("...", which some
             * servers read as ".."), before its parameters. */
            if (seg && seg == dots) return false;
            seg = dots = 0;
            params = false;
        } else if (c == ';' || params) {
            params = true;
        } else {
            seg++;
            if (c == '.') dots++;
        }
        i += step - 1;
    }
    return true;
}

bool lcsb__domains_refuse_request(const lcsb__domain *v, size_t n, const char *host, uint16_t port,
                                  int64_t now, const char *method, const char *target,
                                  const lcsb__domain **rule, const char **why) {
    *rule = NULL;
    *why = "no entry of net.domains allows the host";
    size_t path_len = strcspn(target, "?");
    bool judgeable = path_judgeable(target, path_len);
    for (size_t i = 0; i < n; i++) {
        const lcsb__domain *d = &v[i];
        if (!live_grant(d, host, port, now)) continue;
        if (!lcsb__domain_has_rule(d)) return false;
        const char *no = NULL;
        if (d->methods[0] && !listed(d->methods, method, strlen(method), false))
            no = "its method is not among the rule's";
        else if (d->paths[0] && !judgeable)
            no = "its path has a \".\" or \"..\" segment, a backslash or an escape a server "
                 "could read as another path";
        else if (d->paths[0] && !listed(d->paths, target, path_len, true))
            no = "its path starts with none of the rule's";
        if (!no) return false;
        if (!*rule) *rule = d, *why = no;
    }
    return true;
}

/* ---- Addresses ---- */

/* SA's address as FAMILY and bytes; an IPv4-mapped IPv6 address as its
 * IPv4 when UNMAP. False for a family that is neither. */
static bool addr_bytes(const struct sockaddr *sa, bool unmap, int *family, unsigned char addr[16]) {
    if (sa->sa_family == AF_INET) {
        memcpy(addr, &((const struct sockaddr_in *)(const void *)sa)->sin_addr, 4);
        *family = AF_INET;
        return true;
    }
    if (sa->sa_family != AF_INET6) return false;
    const unsigned char *a = ((const struct sockaddr_in6 *)(const void *)sa)->sin6_addr.s6_addr;
    static const unsigned char mapped[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
    if (unmap && memcmp(a, mapped, 12) == 0) {
        memcpy(addr, a + 12, 4);
        *family = AF_INET;
        return true;
    }
    memcpy(addr, a, 16);
    *family = AF_INET6;
    return true;
}

static bool prefix_equal(const unsigned char *a, const unsigned char *b, unsigned bits) {
    unsigned whole = bits / 8, rest = bits % 8;
    if (memcmp(a, b, whole) != 0) return false;
    if (!rest) return true;
    unsigned char mask = (unsigned char)(0xff << (8 - rest));
    return (a[whole] & mask) == (b[whole] & mask);
}

int lcsb__cidr_parse(const char *text, lcsb__cidr *out, char *why, size_t size) {
    static const char what[] = "net.lan";
    memset(out, 0, sizeof *out);
    char addr[INET6_ADDRSTRLEN + 2];
    const char *slash = strchr(text, '/');
    const char *start = text;
    size_t len = slash ? (size_t)(slash - text) : strlen(text);
    if (len >= 2 && text[0] == '[' && text[len - 1] == ']') start++, len -= 2;
    if (len == 0 || len >= sizeof addr) {
        reason(why, size, what, text, "give an address or ADDRESS/BITS (\"10.0.0.0/8\")");
        return -1;
    }
    memcpy(addr, start, len);
    addr[len] = '\0';
    unsigned max;
    if (inet_pton(AF_INET, addr, out->addr) == 1)
        out->family = AF_INET, max = 32;
    else if (inet_pton(AF_INET6, addr, out->addr) == 1)
        out->family = AF_INET6, max = 128;
    else {
        reason(why, size, what, text,
               "not an IP address (a range is ADDRESS/BITS: \"10.0.0.0/8\", \"fd00::/8\")");
        return -1;
    }
    out->bits = max;
    if (slash) {
        const char *b = slash + 1;
        unsigned long bits = 0;
        size_t n = strlen(b);
        bool ok = n >= 1 && n <= 3;
        for (size_t i = 0; ok && i < n; i++) {
            ok = is_digit(b[i]);
            bits = bits * 10 + (unsigned long)(b[i] - '0');
        }
        if (!ok || bits > max) {
            char text_why[64];
            snprintf(text_why, sizeof text_why, "the prefix length must be 0 to %u", max);
            reason(why, size, what, text, text_why);
            return -1;
        }
        out->bits = (unsigned)bits;
    }
    /* The host bits cleared: "10.1.2.3/8" is the range 10.0.0.0/8, said so. */
    for (unsigned i = out->bits; i < max; i++)
        out->addr[i / 8] &= (unsigned char)~(0x80u >> (i % 8));
    return 0;
}

void lcsb__cidr_format(const lcsb__cidr *c, char *out, size_t size) {
    char addr[INET6_ADDRSTRLEN];
    unsigned max = c->family == AF_INET ? 32 : 128;
    if (!inet_ntop(c->family, c->addr, addr, sizeof addr)) addr[0] = '\0';
    if (c->bits == max)
        snprintf(out, size, "%s", addr);
    else
        snprintf(out, size, "%s/%u", addr, c->bits);
}

bool lcsb__cidr_contains(const lcsb__cidr *c, const struct sockaddr *sa) {
    int family;
    unsigned char addr[16];
    /* As it is, and an IPv4-mapped address once more as its IPv4. */
    for (int unmap = 0; unmap <= 1; unmap++)
        if (addr_bytes(sa, unmap, &family, addr) && family == c->family &&
            prefix_equal(addr, c->addr, c->bits))
            return true;
    return false;
}

typedef struct range {
    unsigned char addr[16];
    unsigned bits;
} range;

/* Not the internet at large: where a public name must not lead unless
 * net.lan says so. The documentation ranges (192.0.2/24, 198.51.100/24,
 * 203.0.113/24) are absent on purpose: nothing routes them locally, and some
 * networks serve real hosts from them. */
static const range v4_local[] = {
    {{0}, 8},         /* "this network", 0.0.0.0 */
    {{10}, 8},        /* private */
    {{100, 64}, 10},  /* shared address space (carrier NAT) */
    {{127}, 8},       /* loopback */
    {{169, 254}, 16}, /* link-local */
    {{172, 16}, 12},  /* private */
    {{192, 168}, 16}, /* private */
    {{224}, 4},       /* multicast */
    {{240}, 4},       /* reserved, with the broadcast address */
};
static const range v6_local[] = {
    {{0}, 127},         /* :: and ::1 (the rest of ::/96 is judged as IPv4) */
    {{0xfc}, 7},        /* unique local */
    {{0xfe, 0x80}, 10}, /* link-local */
    {{0xfe, 0xc0}, 10}, /* site-local, deprecated but routed by some */
    {{0xff}, 8},        /* multicast */
};

static bool in_ranges(const unsigned char *addr, const range *v, size_t n) {
    for (size_t i = 0; i < n; i++)
        if (prefix_equal(addr, v[i].addr, v[i].bits)) return true;
    return false;
}

bool lcsb__addr_public(const struct sockaddr *sa) {
    int family;
    unsigned char a[16];
    if (!addr_bytes(sa, true, &family, a)) return false;
    if (family == AF_INET6) {
        static const unsigned char zero[12] = {0};
        static const unsigned char nat64[12] = {0, 0x64, 0xff, 0x9b};
        if (in_ranges(a, v6_local, sizeof v6_local / sizeof v6_local[0])) return false;
        /* IPv4-compatible (::a.b.c.d) and the NAT64 well-known prefix
         * (64:ff9b::/96) carry an IPv4 address that they lead to. */
        if (memcmp(a, zero, 12) != 0 && memcmp(a, nat64, 12) != 0) return true;
        memmove(a, a + 12, 4);
    }
    return !in_ranges(a, v4_local, sizeof v4_local / sizeof v4_local[0]);
}
