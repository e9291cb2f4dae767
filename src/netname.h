/* Layer 1, pure: network names and addresses, for the domain allowlist.
 * A policy's net.domains and net.lan entries checked, normalized and
 * matched, a host name as a request gives it made comparable, and an
 * address judged public or not. */
#ifndef LCSB_NETNAME_H
#define LCSB_NETNAME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#define LCSB__HOST_MAX 253
/* A rule's methods ("GET,HEAD") and path prefixes ("/v2/,/simple/") as
 * text, each at most this long with its NUL. */
#define LCSB__DOMAIN_METHODS_MAX 72
#define LCSB__DOMAIN_PATHS_MAX 512
/* An entry's normal form, at most: "!*." and a host, ":65535",
 * " once until=YYYY-MM-DDTHH:MM:SSZ", " methods=..." and " paths=...",
 * with its NUL. */
#define LCSB__DOMAIN_TEXT_MAX \
    (LCSB__HOST_MAX + 48 + 9 + LCSB__DOMAIN_METHODS_MAX + 7 + LCSB__DOMAIN_PATHS_MAX)

typedef struct lcsb__domain {
    /* Lowercase, no trailing dot; a wildcard's suffix without "*."; an
     * IPv6 literal without its brackets. */
    char host[LCSB__HOST_MAX + 1];
    bool wildcard; /* "*.example.com": any name below example.com, not itself */
    bool deny;     /* "!..." */
    uint16_t port; /* 0: 443 and 80 */
    /* A grant that ends (an allowing entry's only): "once", the first
     * connection of a run; "until=2026-12-06T18:00:00Z", while the clock
     * is before that (seconds since the epoch, 0: no end). */
    bool once;
    int64_t until;
    /* A rule on the requests themselves (an allowing entry's only), which
     * the proxy can judge only by reading them (interception, for HTTPS):
     * the methods allowed ("GET,HEAD"; empty: any) and the path prefixes
     * ("/v2/,/simple/"; empty: any), each list comma-separated. */
    char methods[LCSB__DOMAIN_METHODS_MAX];
    char paths[LCSB__DOMAIN_PATHS_MAX];
    bool used; /* the proxy's copy: its once is taken (by a connection under way, or made) */
} lcsb__domain;

/* What lcsb__domains_refuse found: the deny that refused, else the entry
 * whose grant would have allowed but ended (used, or past its until); and
 * when allowed by a once, that entry, marked used, for the caller to give
 * back if no connection comes of it. */
typedef struct lcsb__domain_verdict {
    const lcsb__domain *deny, *ended;
    lcsb__domain *taken;
} lcsb__domain_verdict;

/* ENTRY as a net.domains entry: [!]NAME, [!]*.NAME, [!]IPV4 or [!][IPV6],
 * each with an optional ":PORT", and for an allowing one, after a space
 * each and in this order: the grant's end, " once" and
 * " until=YYYY-MM-DDTHH:MM:SSZ" (UTC); the requests' rule,
 * " methods=GET,HEAD" (uppercase tokens) and " paths=/v2/,/simple/"
 * (prefixes of the request's path, each starting with "/"). 0, or -1 with
 * the reason in WHY. */
int lcsb__domain_parse(const char *entry, lcsb__domain *out, char *why, size_t size);
/* D's normal form ("!*.example.com:8080", "pkg.example.org once") into OUT. */
void lcsb__domain_format(const lcsb__domain *d, char *out, size_t size);
/* Does D name HOST (normalized, lcsb__host_normal) at PORT? */
bool lcsb__domain_matches(const lcsb__domain *d, const char *host, uint16_t port);
/* Is HOST:PORT refused under the N entries V at NOW (seconds since the
 * epoch)? Allowed when an allowing entry matches, its grant not ended, and
 * no denying one does (a deny wins wherever it stands). An entry without
 * "once" is taken before one with it. *OUT says by what (all NULL: refused
 * for no entry allowing it). */
bool lcsb__domains_refuse(lcsb__domain *v, size_t n, const char *host, uint16_t port, int64_t now,
                          lcsb__domain_verdict *out);
/* The entry as one with no end ("*.example.org" for "*.example.org once",
 * a rule kept), into OUT. */
void lcsb__domain_format_lasting(const lcsb__domain *d, char *out, size_t size);

/* Does D carry a rule on requests (methods= or paths=)? */
bool lcsb__domain_has_rule(const lcsb__domain *d);
/* Must the proxy read the requests to HOST:PORT to judge them: is every
 * allowing entry of the N at V that matches it, and has not expired at NOW,
 * one with a rule? (One without a rule lets any request through.) */
bool lcsb__domains_rule_only(const lcsb__domain *v, size_t n, const char *host, uint16_t port,
                             int64_t now);
/* Is the request METHOD TARGET (origin form: "/path?query") to HOST:PORT
 * refused by the rules of the N entries at V? Allowed when an allowing
 * entry that matches and has not expired at NOW (a once counts: the
 * connection took it) has no rule, or a rule it meets. When refused, *RULE
 * is the entry whose rule refused it (NULL: a target no rule can judge)
 * and *WHY says why, for the 403 and the record. */
bool lcsb__domains_refuse_request(const lcsb__domain *v, size_t n, const char *host, uint16_t port,
                                  int64_t now, const char *method, const char *target,
                                  const lcsb__domain **rule, const char **why);

/* IN (LEN bytes) as the proxy compares it: lowercase, a trailing dot
 * dropped, an IP literal in inet_ntop's spelling without brackets. -1 when
 * it is no host name (bytes outside letters, digits, '-', '_' and '.', an
 * empty or overlong label, longer than LCSB__HOST_MAX, a last label all
 * digits or any other spelling inet_aton reads as an address: "127.1" and
 * "0x7f000001" are addresses to getaddrinfo) and no IP literal. */
int lcsb__host_normal(const char *in, size_t len, char out[LCSB__HOST_MAX + 1]);
/* Is HOST (normalized) an IPv4 or IPv6 literal? */
bool lcsb__host_is_literal(const char *host);

typedef struct lcsb__cidr {
    int family; /* AF_INET, AF_INET6 */
    unsigned char addr[16];
    unsigned bits;
} lcsb__cidr;

/* TEXT as a net.lan entry: an address, or ADDRESS/BITS. 0, or -1 with WHY. */
int lcsb__cidr_parse(const char *text, lcsb__cidr *out, char *why, size_t size);
void lcsb__cidr_format(const lcsb__cidr *c, char *out, size_t size);
bool lcsb__cidr_contains(const lcsb__cidr *c, const struct sockaddr *sa);
/* Is SA an address on the internet at large: not loopback, unspecified,
 * private (10/8, 172.16/12, 192.168/16, fc00::/7), shared (100.64/10),
 * link-local (169.254/16, fe80::/10, and site-local fec0::/10), multicast,
 * 0/8 or 240/4 (broadcast); an IPv4-mapped, -compatible or NAT64
 * (64:ff9b::/96) IPv6 address judged as its IPv4. The documentation ranges
 * count as public. */
bool lcsb__addr_public(const struct sockaddr *sa);

#endif
