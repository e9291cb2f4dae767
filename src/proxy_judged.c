/* A judged connection (proxy_judged.h): the tunnel opened and read, in TLS
 * or not; the request's head read and judged; the head and the body sent
 * on as framed; the answer relayed until upstream ends. */
#include "proxy_judged.h"

#include "proxy_tls.h"
#include "sys.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <time.h>

#define HEAD_MS (30 * 1000)       /* for the request's head to arrive */
#define IDLE_MS (5 * 60 * 1000)   /* a body or an answer that stops arriving */
#define CHUNK (64 * 1024)
#define LINGER_MS 1000            /* reading what follows a refused request */

/* STATUS with BODY to the command over E, and REQ's host:port refused for
 * WHY in the record when WHY is not NULL. */
static void answer(lcsb__conn *c, lcsb__end *e, const lcsb__request *req, int status,
                   const char *body, const char *why) {
    char text[1536];
    if (why) lcsb__proxy_record(c->proxy, req->host, req->port, why);
    int n = lcsb__proxy_http_answer(text, sizeof text, status, body);
    if (lcsb__end_write(c, e, text, (size_t)n, lcsb__now_ms() + LCSB__PROXY_REPLY_MS)) return;
    /* Then our end, and what the command still sends (the rest of a body)
     * read and dropped for a moment: closing over unread bytes resets the
     * connection, and the answer can go with it. */
    lcsb__end_close_gently(c, e, LINGER_MS);
}

/* REQ held to the rules: 0, or -1 when it was refused and answered. */
static int judge(lcsb__conn *c, lcsb__end *client, const lcsb__request *req) {
    lcsb__proxy *p = c->proxy;
    const lcsb__domain *rule;
    const char *no;
    int64_t now = (int64_t)time(NULL);
    bool refused = lcsb__domains_refuse_request(p->domains, p->domains_n, req->host, req->port,
                                                now, req->method, req->target.p, &rule, &no);
    /* A method override is a method the server may take: judged as one. */
    if (!refused && req->method_override[0] &&
        lcsb__domains_refuse_request(p->domains, p->domains_n, req->host, req->port, now,
                                     req->method_override, req->target.p, &rule, &no)) {
        refused = true;
        no = "the method its override header asks for is not among the rule's";
    }
    if (!refused) return 0;
    char entry[LCSB__DOMAIN_TEXT_MAX] = "", why[160], body[1200];
    if (rule) lcsb__domain_format(rule, entry, sizeof entry);
    /* The record names the request and the rule, the rule's text cut short
     * first; the answer has room for all. */
    snprintf(why, sizeof why, "rule: %.16s %.40s%s: %s", req->method, req->target.p,
             strlen(req->target.p) > 40 ? "..." : "", no);
    snprintf(body, sizeof body,
             "lcsb: %.16s %.200s on %.253s:%u: refused by the rule \"%.600s\" in the policy's "
             "net.domains: %s\n",
             req->method, req->target.p, req->host, (unsigned)req->port, entry, no);
    answer(c, client, req, 403, body, why);
    return -1;
}

int lcsb__proxy_judge_forward(lcsb__conn *c, const lcsb__request *req) {
    lcsb__end client = {.fd = c->client};
    return judge(c, &client, req);
}

/* Bytes on their way (a request's body upstream, an answer to the
 * command) while values are looked for in them: what came and has not
 * gone on yet, KEEP bytes held back (a value may start in them and end in
 * what comes next). A chunked body goes on in chunks of lcsb's own, its
 * trailers dropped. */
typedef struct held_back {
    lcsb__buf held;
    size_t keep;
    bool chunked;
    bool run_open; /* a Base64 run overwritten reached the end of what came */
} held_back;

/* A held_back for the run's values: the longest form of one, less a byte. */
static held_back hold_for(const lcsb__proxy *p, bool chunked) {
    size_t longest = lcsb__secrets_longest(p->secrets, p->secrets_n);
    return (held_back){.keep = longest ? longest - 1 : 0, .chunked = chunked};
}

/* N bytes at DATA added to H: 0, or -1 out of memory. */
static int hold(held_back *h, const char *data, size_t n) {
    if (n) lcsb__buf_add(&h->held, data, n); /* a chunk's size line brings no data */
    return h->held.oom ? -1 : 0;
}

/* What H holds sent on to E but what a value could still start in (all of
 * it when LAST): 0, or -1. */
static int release(lcsb__conn *c, lcsb__end *e, held_back *h, bool last) {
    size_t go = last ? h->held.len : h->held.len > h->keep ? h->held.len - h->keep : 0;
    long long deadline = lcsb__now_ms() + IDLE_MS;
    char size[24];
    int size_len = snprintf(size, sizeof size, "%zx\r\n", go);
    if (go && h->chunked &&
        (lcsb__end_write(c, e, size, (size_t)size_len, deadline) ||
         lcsb__end_write(c, e, h->held.p, go, deadline) ||
         lcsb__end_write(c, e, "\r\n", 2, deadline)))
        return -1;
    if (go && !h->chunked && lcsb__end_write(c, e, h->held.p, go, deadline)) return -1;
    if (last && h->chunked && lcsb__end_write(c, e, "0\r\n\r\n", 5, deadline)) return -1;
    if (go) memmove(h->held.p, h->held.p + go, h->held.len - go);
    h->held.len -= go;
    return 0;
}

/* H's bytes wiped and freed. */
static void hold_free(held_back *h) {
    if (h->held.p) explicit_bzero(h->held.p, h->held.len);
    lcsb__buf_free(&h->held);
}

/* PAYLOAD (N bytes) of a request's body, LAST when no more follows, sent
 * upstream past what a value could still start in: 0, -1 on an error, or
 * the index + 2 of the secret whose value it holds (nothing of that value
 * went on). */
static int scan_send(lcsb__conn *c, lcsb__end *up, held_back *h, const char *payload, size_t n,
                     bool last) {
    lcsb__proxy *p = c->proxy;
    if (hold(h, payload, n)) return -1;
    int k = h->held.len ? lcsb__secrets_find(p->secrets, p->secrets_n, h->held.p, h->held.len) : -1;
    return k >= 0 ? k + 2 : release(c, up, h, last);
}

/* The body REQ frames, HAVE (LEN bytes) of it read already, from the
 * command to upstream, and not a byte past it: 0, -1, or as scan_send
 * says, where values are looked for (secrets, or values withheld). */
static int send_body(lcsb__conn *c, lcsb__end *client, lcsb__end *up, const lcsb__request *req,
                     const char *have, size_t len) {
    if (req->body == LCSB__BODY_NONE) return 0;
    lcsb__proxy *p = c->proxy;
    uint64_t left = req->body_len;
    lcsb__chunked ch = {0};
    held_back s = hold_for(p, req->body == LCSB__BODY_CHUNKED);
    bool scan = p->secrets_n > 0;
    lcsb__buf payload = {0};
    char *buf = malloc(CHUNK);
    int rc = buf ? 0 : -1;
    const char *data = have;
    size_t n = len;
    while (!rc) {
        size_t take = n;
        bool done;
        payload.len = 0;
        if (req->body == LCSB__BODY_LENGTH) {
            if (take > left) take = (size_t)left;
            left -= take;
            done = left == 0;
        } else {
            lcsb__parse state = lcsb__chunked_feed(&ch, data, n, &take, scan ? &payload : NULL);
            if (state == LCSB__PARSE_BAD || payload.oom) {
                rc = -1;
                break;
            }
            done = state == LCSB__PARSE_DONE;
        }
        if (scan)
            rc = req->body == LCSB__BODY_LENGTH ? scan_send(c, up, &s, data, take, done)
                                                : scan_send(c, up, &s, payload.p, payload.len, done);
        else if (take && lcsb__end_write(c, up, data, take, lcsb__now_ms() + IDLE_MS))
            rc = -1;
        if (rc || done) break;
        ssize_t got = lcsb__end_read(c, client, buf, CHUNK, lcsb__now_ms() + IDLE_MS);
        if (got <= 0) {
            rc = -1;
            break;
        }
        data = buf;
        /* With what came with it: each read is searched with all that is
         * held back (relay_answer's reason). */
        n = (size_t)got + (scan ? lcsb__end_read_ready(client, buf + got, CHUNK - (size_t)got) : 0);
    }
    lcsb__buf_free(&payload);
    hold_free(&s);
    free(buf);
    return rc;
}

/* Does the header line LINE (N bytes) name one of NAMES (lowercase, each
 * with its colon)? */
static bool names_one_of(const char *line, size_t n, const char *const *names) {
    for (; *names; names++) {
        size_t len = strlen(*names);
        if (n >= len && strncasecmp(line, *names, len) == 0) return true;
    }
    return false;
}

/* HEAD (a whole request head to a host a secret goes to) asking for the
 * answer whole and as it is, so that a value echoed back is found in it: its
 * Accept-Encoding replaced by "identity", and neither TE (a transfer coding
 * such as gzip, which the proxy would pass on unread) nor Range and
 * If-Range (the part of an echo the command picks, a value cut where it
 * is not found) sent on. A server may ignore all of them (RFC 9110). */
static void without_encoding(lcsb__buf *head) {
    static const char *const dropped[] = {"accept-encoding:", "te:", "range:", "if-range:", NULL};
    if (head->oom) return;
    lcsb__buf out = {0};
    for (size_t i = 0; i < head->len;) {
        const char *line = head->p + i;
        const char *nl = memchr(line, '\n', head->len - i);
        size_t n = nl ? (size_t)(nl - line) + 1 : head->len - i;
        if (n == 2 && line[0] == '\r') lcsb__buf_adds(&out, "Accept-Encoding: identity\r\n");
        if (!names_one_of(line, n, dropped)) lcsb__buf_add(&out, line, n);
        i += n;
    }
    explicit_bzero(head->p, head->len);
    lcsb__buf_free(head);
    *head = out;
}

/* Has a request of this run carried a value lcsb withholds? Then the proxy
 * sends on no more of the requests it reads: each refusal would tell the
 * command whether its guess was the value, a bit at a time. Marked by
 * MARK. */
static bool withheld_seen(lcsb__proxy *p, bool mark) {
    pthread_mutex_lock(&p->lock);
    bool seen = p->withheld_seen;
    if (mark) p->withheld_seen = true;
    pthread_mutex_unlock(&p->lock);
    return seen;
}

/* ---- The answer ---- */

#define ANSWER_HEAD_MAX (64 * 1024)

/* What an answer's relay knows: the secrets whose values went into the
 * request (their echo is expected, and overwritten quietly), and whether
 * the bytes it holds back are a chunked body's data, sent on in chunks of
 * the proxy's own. */
typedef struct answering {
    lcsb__conn *c;
    lcsb__end *client;
    const lcsb__request *req;
    const bool *swapped;
    held_back out;  /* its body (chunked: its data) not sent on yet */
    bool by_length; /* the body ends after LEFT bytes (Content-Length, or none at all) */
    uint64_t left;
    bool told; /* a value came back that the request did not carry: recorded */
} answering;

/* A value that came back in an answer though the request did not carry
 * it: the server had it some other way, or the command guessed it and the
 * server echoed the guess. Either way the command learns it is the value
 * from the overwriting, once: the proxy sends on no more after it. */
static void note_hits(answering *a, const bool *hit) {
    lcsb__proxy *p = a->c->proxy;
    for (size_t k = 0; k < p->secrets_n && !a->told; k++) {
        if (!hit[k] || (a->swapped && a->swapped[k])) continue;
        char why[160];
        snprintf(why, sizeof why, "withheld: the value of %.100s, in an answer",
                 p->secrets[k].name);
        lcsb__proxy_record(p, a->req->host, a->req->port, why);
        (void)withheld_seen(p, true);
        a->told = true;
    }
}

/* DATA (N bytes) of the answer, LAST when no more follows, overwritten
 * where a value stands and sent on but for what a value could still start
 * in: 0, or -1. */
static int answer_send(answering *a, const char *data, size_t n, bool last) {
    lcsb__proxy *p = a->c->proxy;
    size_t fresh = a->out.held.len;
    if (hold(&a->out, data, n)) return -1;
    bool hit[LCSB__RUN_SECRETS_MAX];
    if (lcsb__secrets_mask(p->secrets, p->secrets_n, a->out.held.p, a->out.held.len, fresh,
                           &a->out.run_open, hit))
        note_hits(a, hit);
    return release(a->c, a->client, &a->out, last);
}

/* Is the header NAME (as the head has it, up to its colon) of the line at
 * LINE's start, and its value WANT (NULL: any but "identity")? */
static bool header_says(const char *line, size_t len, const char *name, const char *want) {
    size_t n = strlen(name);
    if (len <= n || strncasecmp(line, name, n) != 0 || line[n] != ':') return false;
    const char *v = line + n + 1, *end = line + len;
    while (v < end && (*v == ' ' || *v == '\t')) v++;
    while (end > v && (end[-1] == ' ' || end[-1] == '\t' || end[-1] == '\r')) end--;
    size_t vn = (size_t)(end - v);
    if (!want) return vn && !(vn == 8 && strncasecmp(v, "identity", 8) == 0);
    return vn == strlen(want) && strncasecmp(v, want, vn) == 0;
}

/* An answer's framing, as its head says it. */
typedef struct answer_framing {
    bool chunked;    /* Transfer-Encoding's last coding is chunked */
    bool coded;      /* a coding before the last but identity (gzip, chunked) */
    bool identity;   /* the last coding so far is identity */
    bool has_length; /* Content-Length, the only framing */
    uint64_t length;
    bool encoded; /* a Content-Encoding other than identity */
} answer_framing;

/* The codings of a Transfer-Encoding header's value [V, END), after those
 * of the head's earlier ones (*TE: there were some), into FR: the last
 * counts, and one before it but identity makes a body the proxy passes on
 * unread (gzip, chunked). */
static void take_codings(const char *v, const char *end, bool *te, answer_framing *fr) {
    for (;;) {
        while (v < end && (*v == ' ' || *v == '\t' || *v == ',')) v++;
        const char *coding = v;
        while (v < end && *v != ',' && *v != ' ' && *v != '\t') v++;
        if (v == coding) return;
        if (*te && !fr->identity) fr->coded = true;
        *te = true;
        fr->chunked = v - coding == 7 && strncasecmp(coding, "chunked", 7) == 0;
        fr->identity = v - coding == 8 && strncasecmp(coding, "identity", 8) == 0;
    }
}

/* HEAD's (LEN bytes, whole) framing into FR: NULL, or what the proxy cannot
 * read it by. A client may take framing the proxy does not for chunks, and
 * a chunk boundary the proxy does not see can split a value past the
 * search: only a Transfer-Encoding whose last coding is chunked, or one
 * Content-Length, or neither (the body ends with the connection). */
static const char *read_framing(const char *head, size_t len, answer_framing *fr) {
    bool te = false;
    for (const char *line = memchr(head, '\n', len) + 1; line < head + len;) {
        const char *nl = memchr(line, '\n', (size_t)(head + len - line));
        size_t ll = (size_t)(nl - line);
        if (ll && line[ll - 1] == '\r') ll--;
        if (ll && (line[0] == ' ' || line[0] == '\t')) return "a folded header";
        static const char tename[] = "transfer-encoding:", clname[] = "content-length:";
        if (ll >= sizeof tename - 1 && strncasecmp(line, tename, sizeof tename - 1) == 0) {
            take_codings(line + sizeof tename - 1, line + ll, &te, fr);
        } else if (ll >= sizeof clname - 1 && strncasecmp(line, clname, sizeof clname - 1) == 0) {
            const char *v = line + sizeof clname - 1, *end = line + ll;
            while (v < end && (*v == ' ' || *v == '\t')) v++;
            while (end > v && (end[-1] == ' ' || end[-1] == '\t')) end--;
            uint64_t n = 0;
            if (v == end || end - v > 18) return "a Content-Length that is no number";
            for (const char *d = v; d < end; d++) {
                if (*d < '0' || *d > '9') return "a Content-Length that is no number";
                n = n * 10 + (uint64_t)(*d - '0');
            }
            if (fr->has_length && n != fr->length) return "two Content-Lengths that differ";
            fr->has_length = true;
            fr->length = n;
        } else if (header_says(line, ll, "Content-Encoding", NULL)) {
            fr->encoded = true;
        }
        line = nl + 1;
    }
    if (te && !fr->chunked) return "a Transfer-Encoding whose last coding is not chunked";
    if (te) fr->has_length = false; /* chunks frame it, whatever a length says */
    return NULL;
}

/* The answer's head, whole in BUF (its first HEAD_LEN of *LEN bytes):
 * judged by its framing, overwritten where a value stands, and sent on;
 * BUF then holds what followed it. 1 for an interim answer (another head
 * follows), 0 when the body starts (A says how it is framed), -1 when it
 * was refused or could not be sent. */
/* The status of an HTTP/1.x status line at HEAD (LEN bytes): "HTTP/1.0"
 * or "HTTP/1.1", a space, three digits, then a space or the line's end;
 * -1 for any other line, which clients read each their own way (curl takes
 * "HTTP/2 100" as an interim answer). */
static int status_of(const char *head, size_t len) {
    if (len < 13 || memcmp(head, "HTTP/1.", 7) != 0 || (head[7] != '0' && head[7] != '1') ||
        head[8] != ' ')
        return -1;
    for (size_t i = 9; i < 12; i++)
        if (head[i] < '0' || head[i] > '9') return -1;
    if (head[12] != ' ' && head[12] != '\r' && head[12] != '\n') return -1;
    return (head[9] - '0') * 100 + (head[10] - '0') * 10 + (head[11] - '0');
}

static int take_head(answering *a, char *buf, size_t *len, size_t head_len, bool guarded) {
    lcsb__proxy *p = a->c->proxy;
    int status = status_of(buf, head_len);
    answer_framing fr = {0};
    const char *unframed = status < 0 ? "a status line that is not HTTP/1.0's or HTTP/1.1's"
                                      : read_framing(buf, head_len, &fr);
    if (unframed) {
        char body[300];
        snprintf(body, sizeof body,
                 "lcsb: the server's answer is framed in a way the proxy does not read (%s): it "
                 "is not passed on\n",
                 unframed);
        answer(a->c, a->client, a->req, 502, body, NULL);
        return -1;
    }
    if ((fr.encoded || fr.coded) && guarded) {
        answer(a->c, a->client, a->req, 502,
               "lcsb: the server encoded its answer though asked not to; lcsb cannot look in it "
               "for a secret's value (a secret goes to this host), so it is not passed on\n",
               "upstream its answer is encoded (a Content-Encoding, or a transfer coding besides "
               "chunked), from a host a secret goes to");
        return -1;
    }
    /* After a 101 comes another protocol, whose frames may cut a value
     * where the search does not find it. */
    if (status == 101 && guarded) {
        answer(a->c, a->client, a->req, 502,
               "lcsb: the server switched protocols (101); lcsb cannot look in what follows for "
               "a secret's value (a secret goes to this host), so it is not passed on\n",
               "upstream it switched protocols (101), from a host a secret goes to");
        return -1;
    }
    /* Asked for whole: a part is one the server chose, a value cut where
     * the search does not find it. */
    if (status == 206 && guarded) {
        answer(a->c, a->client, a->req, 502,
               "lcsb: the server answered with a part (206) though asked for the whole; lcsb "
               "cannot look in it for a secret's value (a secret goes to this host), so it is not "
               "passed on\n",
               "upstream its answer is a part (206), from a host a secret goes to");
        return -1;
    }
    bool hit[LCSB__RUN_SECRETS_MAX];
    if (lcsb__secrets_mask(p->secrets, p->secrets_n, buf, head_len, 0, NULL, hit))
        note_hits(a, hit);
    if (lcsb__end_write(a->c, a->client, buf, head_len, lcsb__now_ms() + IDLE_MS)) return -1;
    memmove(buf, buf + head_len, *len - head_len);
    *len -= head_len;
    /* A 101 is the last head: what follows is another protocol's, read by
     * clients as it comes, to the end, whatever its head said of framing. */
    bool switched = status == 101;
    if (status >= 100 && status < 200 && !switched) return 1;
    bool bodiless = strcmp(a->req->method, "HEAD") == 0 || status == 204 || status == 304;
    a->out.chunked = fr.chunked && !bodiless && !switched;
    /* A body of a known length ends there: what was held back goes then,
     * not when the server gets round to closing. */
    a->left = bodiless ? 0 : fr.length;
    a->by_length = bodiless || (fr.has_length && !switched);
    return 0;
}

/* How long the answer's head in BUF (LEN bytes) is: through its first
 * empty line, each line ended by an LF with or without a CR before it, as
 * clients read one (curl, Python's and Go's take a bare LF); 0 while it is
 * not whole. Where a client sees the body start, the proxy must too: a
 * head taken to run on to a later CRLF CRLF would swallow a chunked body,
 * searched whole with its chunk lines splitting a value. A CR that ends no
 * line is read one way by one client and another by the next (curl ends
 * the head at a line that starts with one): *STRAY says the head has one,
 * and its length is then where it stands. */
static size_t head_length(const char *buf, size_t len, bool *stray) {
    *stray = false;
    for (size_t i = 0; i < len; i++) {
        if (buf[i] == '\r' && i + 1 < len && buf[i + 1] != '\n') {
            *stray = true;
            return i + 1;
        }
        if (buf[i] != '\n') continue;
        if (i + 1 < len && buf[i + 1] == '\n') return i + 2;
        if (i + 2 < len && buf[i + 1] == '\r' && buf[i + 2] == '\n') return i + 3;
    }
    return 0;
}

/* Upstream's answer to the command, until upstream ends, every value lcsb
 * withholds overwritten on the way (its length kept, so the answer's framing
 * holds), in every form secrets.h looks for: a server that echoes what it
 * was sent (a header, Basic credentials, a form), or stored it for a later
 * request, would otherwise hand the command a secret's value. A chunked
 * body is read as its data and sent on in chunks of the proxy's own, so
 * that no chunk boundary hides a value; from a host a secret goes to
 * (GUARDED), an answer in a coding the proxy cannot look into, or a part
 * of one, is refused. SWAPPED: whose values the request got. */
static void relay_answer(lcsb__conn *c, lcsb__end *client, lcsb__end *up, const lcsb__request *req,
                         const bool *swapped, bool guarded) {
    lcsb__proxy *p = c->proxy;
    answering a = {
        .c = c, .client = client, .req = req, .swapped = swapped, .out = hold_for(p, false)};
    char *buf = malloc(ANSWER_HEAD_MAX + CHUNK);
    size_t len = 0;
    bool in_body = false, done = false;
    lcsb__chunked ch = {0};
    lcsb__buf payload = {0};
    int rc = buf ? 0 : -1;
    bool stray = false;
    while (!rc && !done) {
        /* A head already whole (after an interim answer) is read from BUF. */
        if (in_body || !head_length(buf, len, &stray)) {
            size_t cap = in_body ? CHUNK : ANSWER_HEAD_MAX;
            ssize_t n = lcsb__end_read(c, up, buf + len, cap - len, lcsb__now_ms() + IDLE_MS);
            if (n <= 0) break;
            len += (size_t)n;
            /* And what came with it: each read is searched with what is
             * held back (up to twelve times a value's length), so a server
             * sending a byte a record would cost that much a byte. */
            if (in_body) len += lcsb__end_read_ready(up, buf + len, cap - len);
        }
        if (!in_body) {
            size_t head_len = head_length(buf, len, &stray);
            if (!head_len && len < ANSWER_HEAD_MAX) continue;
            if (stray) {
                answer(c, client, req, 502,
                       "lcsb: the server's answer has a CR that ends no line in its head, which "
                       "clients read differently: it is not passed on\n",
                       NULL);
                rc = -1;
                break;
            }
            /* No head the proxy can read: nothing of it goes on. */
            int head = head_len ? take_head(&a, buf, &len, head_len, guarded) : -1;
            if (head < 0) {
                rc = -1;
                break;
            }
            if (head > 0) continue;
            in_body = true;
        }
        if (a.out.chunked) {
            size_t used;
            payload.len = 0;
            lcsb__parse state = lcsb__chunked_feed(&ch, buf, len, &used, &payload);
            if (state == LCSB__PARSE_BAD || payload.oom) break;
            done = state == LCSB__PARSE_DONE;
            rc = answer_send(&a, payload.p, payload.len, done);
        } else {
            size_t take = a.by_length && a.left < len ? (size_t)a.left : len;
            if (a.by_length) a.left -= take;
            done = a.by_length && a.left == 0;
            rc = answer_send(&a, buf, take, done);
        }
        len = 0;
    }
    /* A body that ends with the connection: what was held back goes too.
     * One cut short of its length keeps it: it may hold the start of a
     * value, cut where the server chose. */
    if (!rc && !a.out.chunked && a.out.held.len && !(a.by_length && a.left > 0))
        (void)answer_send(&a, NULL, 0, true);
    lcsb__buf_free(&payload);
    hold_free(&a.out);
    free(buf);
}

/* The request refused for carrying the value of S itself (SENT: after its
 * start went upstream, the value held back): lcsb keeps it from the
 * command, so the command had it by another way. */
static void refuse_withheld(lcsb__conn *c, lcsb__end *client, const lcsb__request *req,
                            const lcsb__secret *s, bool sent) {
    char why[160], body[500];
    (void)withheld_seen(c->proxy, true);
    snprintf(why, sizeof why, "withheld: the value of %.100s", s->name);
    snprintf(body, sizeof body,
             "lcsb: the request holds the value of %.100s, which lcsb keeps from the command "
             "(%s); %s, and the proxy sends on no more requests it reads in this run\n",
             s->name, s->hosts_n ? "a secret of the policy's" : "a variable it was not given",
             sent ? "it was cut off before the value" : "nothing of it was sent");
    answer(c, client, req, 403, body, why);
}

/* Does a secret of P's go to REQ's host and port? */
static bool to_secrets_host(const lcsb__proxy *p, const lcsb__request *req) {
    for (size_t k = 0; k < p->secrets_n; k++)
        if (p->secrets[k].hosts_n && lcsb__secret_goes_to(&p->secrets[k], req->host, req->port))
            return true;
    return false;
}

/* REQ (parsed whole, judged) sent on, FIRST (LEN bytes) the start of its
 * body, with the secrets that go to its host put in place of their
 * placeholders (only over TLS, and the answer then asked for unencoded, so
 * that a value echoed back is found); refused when it carries a value lcsb
 * withholds, or after one did. */
static void send_request(lcsb__conn *c, lcsb__end *client, lcsb__end *up, const lcsb__request *req,
                         const char *first, size_t len) {
    lcsb__proxy *p = c->proxy;
    if (withheld_seen(p, false)) {
        answer(c, client, req, 403,
               "lcsb: an earlier request of this run carried a value lcsb withholds; the proxy "
               "sends on no more requests it reads\n",
               "withheld: after an earlier request or answer carried a withheld value");
        return;
    }
    /* The head, and what came of the body with it: a value there is
     * refused before upstream hears of the request at all. */
    int k = lcsb__secrets_find(p->secrets, p->secrets_n, req->forward.p, req->forward.len);
    if (k < 0) k = lcsb__secrets_find(p->secrets, p->secrets_n, first, len);
    if (k >= 0) {
        refuse_withheld(c, client, req, &p->secrets[k], false);
        return;
    }
    lcsb__buf head = {0};
    bool which[LCSB__RUN_SECRETS_MAX] = {false};
    size_t swapped = lcsb__secrets_swap(p->secrets, p->secrets_n, req->host, req->port,
                                        req->forward.p, req->forward.len, &head, which);
    if (swapped && !up->ssl) {
        if (head.p) explicit_bzero(head.p, head.len);
        lcsb__buf_free(&head);
        char why[160] = "no TLS: a secret's placeholder in a plain HTTP request";
        answer(c, client, req, 403,
               "lcsb: lcsb puts a secret's value only into requests over TLS (https://) to the "
               "secret's hosts, verified; this one is plain HTTP, and was not sent\n",
               why);
        return;
    }
    /* Any answer of a secret's host may hold a value it was sent before
     * (a server that stores requests and serves them back): each is asked
     * for whole and plain, not only the answer to a request that got one. */
    bool guarded = to_secrets_host(p, req);
    if (guarded) without_encoding(&head);
    static const char go_on[] = "HTTP/1.1 100 Continue\r\n\r\n";
    int rc = head.oom ? -1 : 0;
    if (!rc && req->expect_continue)
        rc = lcsb__end_write(c, client, go_on, sizeof go_on - 1,
                             lcsb__now_ms() + LCSB__PROXY_REPLY_MS);
    if (!rc) rc = lcsb__end_write(c, up, head.p, head.len, lcsb__now_ms() + IDLE_MS);
    if (head.p) explicit_bzero(head.p, head.len);
    lcsb__buf_free(&head);
    if (!rc) rc = send_body(c, client, up, req, first, len);
    /* A server may answer before the body is all there (a 401, a 413) and
     * stop reading: what it said is relayed all the same. */
    if (rc >= 2)
        refuse_withheld(c, client, req, &p->secrets[rc - 2], true);
    else
        relay_answer(c, client, up, req, which, guarded);
}

/* The first byte the command sends into the tunnel, looked at and left
 * there: 1 for a TLS handshake's, 0 for anything else, -1 at its end. */
static int speaks_tls(lcsb__conn *c) {
    long long deadline = lcsb__now_ms() + HEAD_MS;
    for (;;) {
        unsigned char first;
        ssize_t n = recv(c->client, &first, 1, MSG_PEEK | MSG_DONTWAIT);
        if (n == 1) return first == 0x16;
        if (n == 0 || (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)) return -1;
        if (lcsb__proxy_wait_fd(c, c->client, POLLIN, deadline) <= 0) return -1;
    }
}

/* The tunnel's one request: read from CLIENT, for REQ's host and port. */
static void tunnel_request(lcsb__conn *c, lcsb__end *client, lcsb__end *up,
                           const lcsb__request *tunnel) {
    uint16_t default_port = client->ssl ? 443 : 80;
    char *buf = malloc(LCSB__REQUEST_HEAD_MAX);
    size_t len = 0;
    lcsb__request req = {0};
    lcsb__parse state = LCSB__PARSE_MORE;
    long long deadline = lcsb__now_ms() + HEAD_MS;
    while (buf && state == LCSB__PARSE_MORE && len < LCSB__REQUEST_HEAD_MAX) {
        ssize_t n = lcsb__end_read(c, client, buf + len, LCSB__REQUEST_HEAD_MAX - len, deadline);
        if (n <= 0) break;
        len += (size_t)n;
        state = lcsb__http_origin_request(buf, len, tunnel->host, tunnel->port, default_port, &req);
    }
    if (state == LCSB__PARSE_DONE && !judge(c, client, &req)) {
        send_request(c, client, up, &req, buf + req.used, len - req.used);
    } else if (state == LCSB__PARSE_BAD) {
        char body[200], why[160];
        snprintf(body, sizeof body, "lcsb: %s\n", req.why);
        /* A request for another host through this one's tunnel is an attempt
         * on that host: recorded as refused. */
        snprintf(why, sizeof why, "rule: %s", req.why);
        answer(c, client, tunnel, req.status, body, req.status == 421 ? why : NULL);
    }
    lcsb__request_clear(&req);
    free(buf);
}

void lcsb__proxy_judged(lcsb__conn *c, lcsb__request *req, const char *first, size_t len) {
    lcsb__proxy *p = c->proxy;
    lcsb__end client = {.fd = c->client}, up = {.fd = c->upstream};
    if (req->kind == LCSB__REQUEST_FORWARD) {
        send_request(c, &client, &up, req, first, len);
        return;
    }
    /* The tunnel is open, as far as the command can tell. */
    static const char established[] = "HTTP/1.1 200 Connection established\r\n\r\n";
    static const unsigned char socks_ok[10] = {5, 0, 0, 1};
    bool socks = req->kind == LCSB__REQUEST_SOCKS;
    if (lcsb__proxy_send_all(c, c->client, socks ? (const void *)socks_ok : established,
                             socks ? sizeof socks_ok : sizeof established - 1,
                             lcsb__now_ms() + LCSB__PROXY_REPLY_MS))
        return;
    int tls = speaks_tls(c);
    char why[150], body[600];
    if (tls < 0) return;
    if (tls && !p->tls) {
        /* Interception was not set up for this run: nothing is judged blind. */
        lcsb__proxy_record(p, req->host, req->port, "rule: no interception in this run");
        return;
    }
    if (tls && lcsb__tls_accept(c, p->tls, req->host, &client, why, sizeof why)) {
        lcsb__proxy_record(p, req->host, req->port, why);
    } else if (tls && lcsb__tls_connect(c, p->tls, req->host, &up, why, sizeof why)) {
        char record[160];
        snprintf(record, sizeof record, "upstream %s", why);
        snprintf(body, sizeof body, "lcsb: %s port %u: %s\n", req->host, (unsigned)req->port, why);
        answer(c, &client, req, 502, body, record);
    } else {
        tunnel_request(c, &client, &up, req);
    }
    lcsb__end_finish(&client);
    lcsb__end_finish(&up);
}
