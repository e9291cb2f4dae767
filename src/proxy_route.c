/* Where a request may go, decided: the name held to net.domains (a deny
 * wins), resolved here, outside the sandbox, each address held to net.lan
 * and to this host's own, then connected to the first that answers. Every
 * refusal is recorded and answered with what would allow it. */
#include "proxy_route.h"

#include "sys.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define CONNECT_MS (10 * 1000) /* for each address to answer */

/* HOST:PORT as a person writes it, and as a net.domains entry would allow
 * it (no port for 443 and 80). */
static void host_port(const char *host, uint16_t port, bool always_port, char *out, size_t size) {
    bool v6 = strchr(host, ':') != NULL;
    if (always_port || (port != 443 && port != 80))
        snprintf(out, size, "%s%s%s:%u", v6 ? "[" : "", host, v6 ? "]" : "", (unsigned)port);
    else
        snprintf(out, size, "%s%s%s", v6 ? "[" : "", host, v6 ? "]" : "");
}

/* Is SA an address of this host's own? Reaching it reaches the host's
 * services, whatever its range: it needs net.lan like loopback does. */
static bool own_address(const lcsb__proxy *p, const struct addrinfo *a) {
    for (size_t i = 0; i < p->own_n; i++)
        if (lcsb__cidr_contains(&p->own[i], a->ai_addr)) return true;
    if (!p->probe) return false;
    /* Now, not only at start: an address added since, or a whole range
     * routed to this host (a local route), binds as well. */
    struct sockaddr_storage any;
    memcpy(&any, a->ai_addr, a->ai_addrlen);
    if (a->ai_family == AF_INET)
        ((struct sockaddr_in *)(void *)&any)->sin_port = 0;
    else
        ((struct sockaddr_in6 *)(void *)&any)->sin6_port = 0;
    int fd = socket(a->ai_family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return true; /* cannot tell: take it for the host's */
    int bound = bind(fd, (struct sockaddr *)&any, a->ai_addrlen);
    int e = errno;
    close(fd);
    return bound == 0 || e != EADDRNOTAVAIL;
}

void lcsb__proxy_give_back(lcsb__proxy *p, lcsb__route *r) {
    if (!r->once) return;
    pthread_mutex_lock(&p->lock);
    r->once->used = false;
    pthread_mutex_unlock(&p->lock);
    r->once = NULL;
}

/* The grant ENDED as the attestation's why names it, in WHY (SIZE bytes):
 * its end kept whole, a long host cut short ("...") to make room. */
static void ended_why(const lcsb__domain *ended, const char *how, char *why, size_t size) {
    char whole[LCSB__DOMAIN_TEXT_MAX], host[LCSB__DOMAIN_TEXT_MAX];
    lcsb__domain grant = *ended; /* its host and its end: a rule has no part in why */
    grant.methods[0] = grant.paths[0] = '\0';
    lcsb__domain_format(&grant, whole, sizeof whole);
    lcsb__domain_format_lasting(&grant, host, sizeof host);
    const char *end = whole + strlen(host); /* " once until=..." */
    size_t fixed = strlen("the grant \"...\" ") + strlen(end) + strlen(how) + 1;
    size_t room = size > fixed ? size - fixed : 0, len = strlen(host);
    bool cut = len > room + 3;
    char full[2 * LCSB__DOMAIN_TEXT_MAX + 64];
    snprintf(full, sizeof full, "the grant \"%.*s%s%s\" %s", (int)(cut ? room : len), host,
             cut ? "..." : "", end, how);
    size_t n = strlen(full) < size ? strlen(full) : size - 1; /* fits: room was made */
    memcpy(why, full, n);
    why[n] = '\0';
}

/* Does a secret go to HOST:PORT? Then its requests are read, to put it in. */
static bool secret_goes_to(const lcsb__proxy *p, const char *host, uint16_t port) {
    for (size_t i = 0; i < p->secrets_n; i++)
        if (lcsb__secret_goes_to(&p->secrets[i], host, port)) return true;
    return false;
}

/* REQ held to net.domains by its name: a deny entry, a grant that ended,
 * an IP literal no entry names, a name no entry allows. -1 when it was
 * refused and answered with what would allow it; 0 when it may go on, with
 * the once grant it took in R. */
static int refuse_by_name(lcsb__conn *c, const lcsb__request *req, bool literal, const char *named,
                          lcsb__route *r) {
    lcsb__proxy *p = c->proxy;
    bool socks = req->kind == LCSB__REQUEST_SOCKS;
    char entry[LCSB__HOST_MAX + 16], body[1200], why[160];
    host_port(req->host, req->port, false, entry, sizeof entry);

    lcsb__domain_verdict v;
    /* Under the lock: a "once" is taken by one connection alone. */
    pthread_mutex_lock(&p->lock);
    bool refused = lcsb__domains_refuse(p->domains, p->domains_n, req->host, req->port,
                                        (int64_t)time(NULL), &v);
    pthread_mutex_unlock(&p->lock);
    r->once = v.taken;
    r->judged = !refused && (lcsb__domains_rule_only(p->domains, p->domains_n, req->host,
                                                     req->port, (int64_t)time(NULL)) ||
                             secret_goes_to(p, req->host, req->port));
    if (refused) {
        if (v.ended) {
            char d[LCSB__DOMAIN_TEXT_MAX], lasting[LCSB__DOMAIN_TEXT_MAX];
            lcsb__domain_format(v.ended, d, sizeof d);
            lcsb__domain_format_lasting(v.ended, lasting, sizeof lasting);
            const char *how = v.ended->once && v.ended->used ? "was used by an earlier connection"
                                                             : "has expired";
            ended_why(v.ended, how, why, sizeof why);
            snprintf(body, sizeof body,
                     "lcsb: %.260s: the grant \"%.300s\" in the policy's net.domains %s; to "
                     "allow it again, list \"%.300s\" without its end\n",
                     named, d, how, lasting);
        } else if (v.deny) {
            char d[LCSB__DOMAIN_TEXT_MAX];
            lcsb__domain_format(v.deny, d, sizeof d);
            /* A name near 253 bytes is cut short in WHY; the body has room. */
            snprintf(why, sizeof why, "denied by %.149s", d);
            snprintf(body, sizeof body,
                     "lcsb: %s is denied by \"%s\" in the policy's net.domains\n", named, d);
        } else if (literal) {
            snprintf(why, sizeof why, "an IP literal no entry names");
            snprintf(body, sizeof body,
                     "lcsb: %s is an IP address no entry of the policy's net.domains names; to "
                     "allow it, add net = { domains = { \"%s\" } }\n",
                     named, entry);
        } else {
            snprintf(why, sizeof why, "not in net.domains");
            snprintf(body, sizeof body,
                     "lcsb: %s is not in the policy's net.domains; to allow it, add net = { "
                     "domains = { \"%s\" } }\n",
                     named, entry);
        }
        lcsb__proxy_record(p, req->host, req->port, why);
        lcsb__proxy_refuse(c, req, socks ? 0x02 : 403, body);
        return -1;
    }
    return 0;
}

/* The name resolved here, outside the sandbox. A literal needs no
 * lookup, and an entry named it: it counts as named even when private.
 * 0 with R->ai; -1 when it was answered (not resolved), or the command is
 * gone and nothing more is resolved. */
static int resolve(lcsb__conn *c, const lcsb__request *req, bool literal, lcsb__route *r) {
    lcsb__proxy *p = c->proxy;
    bool socks = req->kind == LCSB__REQUEST_SOCKS;
    char body[900], why[160];
    if (lcsb__proxy_draining(p)) return -1;
    char service[8];
    snprintf(service, sizeof service, "%u", (unsigned)req->port);
    struct addrinfo hints = {.ai_family = AF_UNSPEC,
                             .ai_socktype = SOCK_STREAM,
                             .ai_flags = AI_NUMERICSERV | (literal ? AI_NUMERICHOST : 0)};
    int rc = getaddrinfo(req->host, service, &hints, &r->ai);
    if (rc != 0) r->ai = NULL;
    if (lcsb__proxy_stopping(p)) return -1;
    if (rc != 0) {
        snprintf(body, sizeof body, "lcsb: cannot resolve %s: %s\n", req->host, gai_strerror(rc));
        snprintf(why, sizeof why, "cannot resolve it: %s", gai_strerror(rc));
        lcsb__proxy_record(p, req->host, req->port, why);
        lcsb__proxy_refuse(c, req, socks ? 0x04 : 502, body);
        return -1;
    }
    return 0;
}

/* R's addresses held to net.lan: a literal goes where it says, a name to a
 * public address that is not this host's own, or to one net.lan names.
 * 0 with R->use filled; -1 when none is left, refused and answered with the
 * first address held back. */
static int hold_addresses(lcsb__conn *c, const lcsb__request *req, bool literal, const char *named,
                          lcsb__route *r) {
    lcsb__proxy *p = c->proxy;
    bool socks = req->kind == LCSB__REQUEST_SOCKS;
    char body[900], why[160];
    char first[INET6_ADDRSTRLEN] = "";
    bool first_own = false;
    for (const struct addrinfo *a = r->ai; a && r->n < LCSB__PROXY_ADDRS_MAX; a = a->ai_next) {
        if (a->ai_family != AF_INET && a->ai_family != AF_INET6) continue;
        bool public = lcsb__addr_public(a->ai_addr);
        bool own = !literal && public && own_address(p, a);
        bool ok = literal || (public && !own);
        for (size_t i = 0; !ok && i < p->lan_n; i++)
            ok = lcsb__cidr_contains(&p->lan[i], a->ai_addr);
        if (ok) {
            r->use[r->n++] = a;
        } else if (!first[0]) {
            const void *bytes =
                a->ai_family == AF_INET
                    ? (const void *)&((const struct sockaddr_in *)(void *)a->ai_addr)->sin_addr
                    : (const void *)&((const struct sockaddr_in6 *)(void *)a->ai_addr)->sin6_addr;
            inet_ntop(a->ai_family, bytes, first, sizeof first);
            first_own = own;
        }
    }
    if (r->n == 0) {
        if (!first[0]) {
            snprintf(body, sizeof body, "lcsb: %s has no IP address\n", req->host);
            lcsb__proxy_record(p, req->host, req->port, "cannot resolve it: it has no IP address");
            lcsb__proxy_refuse(c, req, socks ? 0x04 : 502, body);
            return -1;
        }
        const char *kind = first_own ? "an address of this host's own"
                                     : "a loopback, private or link-local address";
        snprintf(why, sizeof why, "resolves to %s, %s that net.lan does not name", first, kind);
        snprintf(body, sizeof body,
                 "lcsb: %s resolves to %s, %s that the policy's net.lan does not name; "
                 "to allow it, add net = { lan = { \"%s\" } }\n",
                 named, first, kind, first);
        lcsb__proxy_record(p, req->host, req->port, why);
        lcsb__proxy_refuse(c, req, socks ? 0x02 : 403, body);
        return -1;
    }
    return 0;
}

int lcsb__proxy_decide(lcsb__conn *c, const lcsb__request *req, lcsb__route *r) {
    bool literal = lcsb__host_is_literal(req->host);
    char named[LCSB__HOST_MAX + 16];
    host_port(req->host, req->port, true, named, sizeof named);
    if (refuse_by_name(c, req, literal, named, r)) return -1;
    if (resolve(c, req, literal, r) || hold_addresses(c, req, literal, named, r)) {
        lcsb__proxy_give_back(c->proxy, r);
        return -1;
    }
    return 0;
}

int lcsb__proxy_connect(lcsb__conn *c, lcsb__route *r, int *error) {
    lcsb__proxy *p = c->proxy;
    *error = ECONNREFUSED;
    for (size_t i = 0; i < r->n; i++) {
        const struct addrinfo *a = r->use[i];
        int fd = socket(a->ai_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
        if (fd < 0) {
            *error = errno;
            continue;
        }
        pthread_mutex_lock(&p->lock);
        c->upstream = fd;
        pthread_mutex_unlock(&p->lock);
        int rc = connect(fd, a->ai_addr, a->ai_addrlen);
        if (rc < 0 && errno == EINPROGRESS) {
            int w = lcsb__proxy_wait_fd(c, fd, POLLOUT, lcsb__now_ms() + CONNECT_MS);
            if (w < 0) return -1;
            socklen_t len = sizeof *error;
            if (w == 0)
                *error = ETIMEDOUT;
            else if (getsockopt(fd, SOL_SOCKET, SO_ERROR, error, &len) < 0)
                *error = errno;
            rc = w == 1 && *error == 0 ? 0 : -1;
        } else if (rc < 0) {
            *error = errno;
        }
        if (rc == 0) return 0;
        pthread_mutex_lock(&p->lock);
        lcsb__proxy_close_locked(&c->upstream);
        pthread_mutex_unlock(&p->lock);
    }
    lcsb__proxy_give_back(p, r);
    return -1;
}

bool lcsb__proxy_binds_nonlocal(void) {
    static const char *const knobs[] = {"/proc/sys/net/ipv4/ip_nonlocal_bind",
                                        "/proc/sys/net/ipv6/ip_nonlocal_bind"};
    for (size_t i = 0; i < sizeof knobs / sizeof *knobs; i++) {
        char c = '1';
        int fd = open(knobs[i], O_RDONLY | O_CLOEXEC);
        if (fd >= 0) {
            if (read(fd, &c, 1) != 1) c = '1';
            close(fd);
        }
        if (fd < 0 || c != '0') return true;
    }
    return false;
}

int lcsb__proxy_own_addresses(lcsb__proxy *p) {
    struct ifaddrs *all;
    if (getifaddrs(&all) != 0) return -1;
    size_t n = 0;
    for (struct ifaddrs *i = all; i; i = i->ifa_next) n++;
    p->own = calloc(n + 1, sizeof *p->own);
    for (struct ifaddrs *i = all; p->own && i; i = i->ifa_next) {
        const struct sockaddr *sa = i->ifa_addr;
        if (!sa || (sa->sa_family != AF_INET && sa->sa_family != AF_INET6)) continue;
        lcsb__cidr *c = &p->own[p->own_n++];
        c->family = sa->sa_family;
        if (sa->sa_family == AF_INET) {
            memcpy(c->addr, &((const struct sockaddr_in *)(const void *)sa)->sin_addr, 4);
            c->bits = 32;
        } else {
            memcpy(c->addr, &((const struct sockaddr_in6 *)(const void *)sa)->sin6_addr, 16);
            c->bits = 128;
        }
    }
    freeifaddrs(all);
    if (!p->own) errno = ENOMEM;
    return p->own ? 0 : -1;
}
