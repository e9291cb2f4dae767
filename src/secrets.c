/* Secrets by placeholder (secrets.h): the entry, the swap, the search.
 * Pure: memory only. */
#include "secrets.h"

#include "base64.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static bool is_name(const char *name) {
    size_t n = strlen(name);
    if (n == 0 || n >= LCSB__SECRET_NAME_MAX || (name[0] >= '0' && name[0] <= '9')) return false;
    for (size_t i = 0; i < n; i++) {
        char c = name[i];
        if (!((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
              c == '_'))
            return false;
    }
    return true;
}

/* RFC 9110's tchar: what a header's name is made of. */
static bool is_tchar(unsigned char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           (c && strchr("!#$%&'*+-.^_`|~", c));
}

/* " from=/PATH" (TAIL, past its space) into OUT: 0, or -1. */
static int read_from(const char *tail, lcsb__secret *out) {
    static const char key[] = "from=";
    if (strncmp(tail, key, sizeof key - 1) != 0) return -1;
    const char *path = tail + sizeof key - 1;
    size_t len = strlen(path);
    if (path[0] != '/' || len >= sizeof out->from || strpbrk(path, " ,")) return -1;
    for (size_t i = 0; i < len; i++)
        if ((unsigned char)path[i] < 0x20 || path[i] == 0x7f) return -1;
    memcpy(out->from, path, len + 1);
    return 0;
}

/* A command's words as a JSON array of plain strings: '[', then "WORD"
 * separated by ',' and ']' to the end; each WORD printable ASCII but '"'
 * and '\\', not empty. */
static bool command_ok(const char *text) {
    size_t len = strlen(text), words = 0;
    if (len < 4 || text[0] != '[' || text[len - 1] != ']') return false;
    for (size_t i = 1; i < len - 1;) {
        if (text[i] != '"') return false;
        size_t j = i + 1;
        while (j < len - 1 && text[j] != '"') {
            if (text[j] < 0x20 || text[j] > 0x7e || text[j] == '\\') return false;
            j++;
        }
        if (j >= len - 1 || j == i + 1) return false; /* unterminated, or empty */
        words++;
        i = j + 1;
        if (i < len - 1 && (text[i] != ',' || i + 1 >= len - 1)) return false;
        if (i < len - 1) i++;
    }
    return words > 0 && words < 32;
}

/* " from=/PATH" or " command=[...]" (TAIL, past its space) into OUT: 0,
 * or -1. */
static int read_source(const char *tail, lcsb__secret *out) {
    static const char key[] = "command=";
    if (strncmp(tail, key, sizeof key - 1) != 0) return read_from(tail, out);
    const char *text = tail + sizeof key - 1;
    if (strlen(text) >= sizeof out->command || !command_ok(text)) return -1;
    snprintf(out->command, sizeof out->command, "%s", text);
    return 0;
}

size_t lcsb__secret_command(const lcsb__secret *s, char *buf, size_t size, char **argv,
                            size_t max) {
    size_t n = 0;
    if (!s->command[0] || snprintf(buf, size, "%s", s->command) >= (int)size) return 0;
    /* command_ok said: ["w","w",...]; each word between its quotes. */
    for (char *p = buf + 1; *p == '"' && n + 1 < max;) {
        char *end = strchr(p + 1, '"');
        *end = '\0';
        argv[n++] = p + 1;
        p = end + 1;
        if (*p == ',') p++;
    }
    argv[n] = NULL;
    return n;
}

/* " headers=A,B" past its space (TAIL) into OUT, lowercase, and where the
 * value comes from after it: 0, or -1. */
static int read_headers(const char *tail, lcsb__secret *out) {
    static const char key[] = "headers=";
    if (strncmp(tail, key, sizeof key - 1) != 0) return read_source(tail, out);
    if (strncmp(tail, key, sizeof key - 1) != 0) return -1;
    const char *list = tail + sizeof key - 1;
    const char *space = strchr(list, ' ');
    if (space && read_source(space + 1, out)) return -1;
    char whole[LCSB__SECRET_HEADERS_MAX + 1];
    if (space) {
        if ((size_t)(space - list) >= sizeof whole) return -1;
        memcpy(whole, list, (size_t)(space - list));
        whole[space - list] = '\0';
        list = whole;
    }
    size_t len = strlen(list);
    if (len == 0 || len >= sizeof out->headers || list[len - 1] == ',') return -1;
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)list[i];
        if (c == ',' ? i == 0 || list[i - 1] == ',' : !is_tchar(c)) return -1;
        out->headers[i] = (char)(c >= 'A' && c <= 'Z' ? c + 32 : c);
    }
    out->headers[len] = '\0';
    /* Authorization always: no need to list it. */
    return 0;
}

int lcsb__secret_parse(const char *name, const char *hosts, lcsb__secret *out, char *why,
                       size_t size) {
    memset(out, 0, sizeof *out);
    char whole_name[LCSB__SECRET_NAME_MAX];
    if (!hosts) {
        const char *space = strchr(name, ' ');
        if (!space || (size_t)(space - name) >= sizeof whole_name) {
            snprintf(why, size, "secrets: \"%.64s\": expected \"NAME host,host\"", name);
            return -1;
        }
        memcpy(whole_name, name, (size_t)(space - name));
        whole_name[space - name] = '\0';
        name = whole_name;
        hosts = space + 1;
    }
    if (!is_name(name)) {
        snprintf(why, size,
                 "secrets: \"%.64s\" is no variable's name (letters, digits and '_', not "
                 "starting with a digit)",
                 name);
        return -1;
    }
    snprintf(out->name, sizeof out->name, "%s", name);
    char hosts_only[LCSB__SECRET_HOSTS_MAX * (LCSB__HOST_MAX + 8)];
    const char *tail = strchr(hosts, ' ');
    if (tail) {
        if ((size_t)(tail - hosts) >= sizeof hosts_only || read_headers(tail + 1, out)) {
            snprintf(why, size,
                     "secrets.%s: after the hosts, only \" headers=Name,Name\" (the headers "
                     "besides Authorization it may go in), then \" from=/PATH\" (an absolute "
                     "path without spaces or commas) or \" command=[\"WORD\",...]\" (printable "
                     "ASCII, no quote or backslash)",
                     name);
            return -1;
        }
        memcpy(hosts_only, hosts, (size_t)(tail - hosts));
        hosts_only[tail - hosts] = '\0';
        hosts = hosts_only;
    }
    for (const char *p = hosts;;) {
        const char *end = strchr(p, ',');
        size_t n = end ? (size_t)(end - p) : strlen(p);
        char entry[LCSB__HOST_MAX + 16], bad[300];
        lcsb__domain *d = &out->hosts[out->hosts_n];
        if (out->hosts_n == LCSB__SECRET_HOSTS_MAX || n == 0 || n >= sizeof entry) {
            snprintf(why, size, "secrets.%s: from 1 to %d hosts, each a net.domains entry", name,
                     LCSB__SECRET_HOSTS_MAX);
            return -1;
        }
        memcpy(entry, p, n);
        entry[n] = '\0';
        if (lcsb__domain_parse(entry, d, bad, sizeof bad) != 0 || d->deny || d->once || d->until ||
            lcsb__domain_has_rule(d)) {
            snprintf(why, size,
                     "secrets.%s: \"%.64s\" is no host a secret can go to (a net.domains entry "
                     "that allows, without an end or a rule)",
                     name, entry);
            return -1;
        }
        out->hosts_n++;
        if (!end) break;
        p = end + 1;
    }
    return 0;
}

void lcsb__secret_format(const lcsb__secret *s, char *out, size_t size) {
    size_t used = (size_t)snprintf(out, size, "%s", s->name);
    for (size_t i = 0; i < s->hosts_n && used < size; i++) {
        char host[LCSB__DOMAIN_TEXT_MAX];
        lcsb__domain_format(&s->hosts[i], host, sizeof host);
        used += (size_t)snprintf(out + used, size - used, "%s%s", i ? "," : " ", host);
    }
    if (s->headers[0] && used < size)
        used += (size_t)snprintf(out + used, size - used, " headers=%s", s->headers);
    if (s->from[0] && used < size)
        used += (size_t)snprintf(out + used, size - used, " from=%s", s->from);
    if (s->command[0] && used < size) snprintf(out + used, size - used, " command=%s", s->command);
}

bool lcsb__secret_goes_to(const lcsb__secret *s, const char *host, uint16_t port) {
    for (size_t i = 0; i < s->hosts_n; i++)
        if (lcsb__domain_matches(&s->hosts[i], host, port)) return true;
    return false;
}

void lcsb__secret_clear(lcsb__secret *s) {
    if (s->value) {
        lcsb__wipe(s->value, s->value_len);
        free(s->value);
    }
    s->value = NULL;
    s->value_len = 0;
    for (size_t k = 0; k < LCSB__SECRET_FORMS; k++) {
        if (s->forms[k]) {
            lcsb__wipe(s->forms[k], s->forms_len[k]);
            free(s->forms[k]);
        }
        s->forms[k] = NULL;
        s->forms_len[k] = 0;
    }
    for (size_t k = 0; k < LCSB__SECRET_CLIPPED; k++) {
        if (s->clipped[k]) {
            lcsb__wipe(s->clipped[k], s->clipped_len[k]);
            free(s->clipped[k]);
        }
        s->clipped[k] = NULL;
        s->clipped_len[k] = 0;
    }
    s->clip_head = s->clip_tail = 0;
}

int lcsb__secret_copy(lcsb__secret *to, const lcsb__secret *from) {
    *to = *from;
    to->value = NULL;
    memset(to->forms, 0, sizeof to->forms);
    memset(to->clipped, 0, sizeof to->clipped);
    return lcsb__secret_set_value(to, from->value, from->value_len);
}

/* ---- The swap and the search ---- */

/* Where in LINE (LEN bytes) a header's Basic credentials start, and how
 * long they are: "Authorization: Basic XXXX". */
static bool basic_credentials(const char *line, size_t len, size_t *at, size_t *n) {
    static const char name[] = "authorization:";
    if (len < sizeof name - 1 || strncasecmp(line, name, sizeof name - 1) != 0) return false;
    size_t i = sizeof name - 1;
    while (i < len && (line[i] == ' ' || line[i] == '\t')) i++;
    if (len - i < 6 || strncasecmp(line + i, "basic ", 6) != 0) return false;
    i += 6;
    while (i < len && line[i] == ' ') i++;
    size_t end = len;
    while (end > i && (line[end - 1] == ' ' || line[end - 1] == '\t')) end--;
    *at = i;
    *n = end - i;
    return true;
}

/* May S go in the header NAME (LEN bytes)? Authorization, and the ones
 * its entry lists. */
static bool may_carry(const lcsb__secret *s, const char *name, size_t len) {
    if (len == 13 && strncasecmp(name, "authorization", 13) == 0) return true;
    for (const char *p = s->headers; *p;) {
        size_t n = strcspn(p, ",");
        if (n == len && strncasecmp(p, name, n) == 0) return true;
        p += n + (p[n] == ',');
    }
    return false;
}

/* TEXT (LEN bytes, of the header NAME's line) into OUT, each placeholder
 * of the secrets at V that go to HOST:PORT and may go in NAME swapped for
 * its value; *SWAPPED counts them. */
static void swap_text(const lcsb__secret *v, size_t n, const char *host, uint16_t port,
                      const char *name, size_t name_len, const char *text, size_t len,
                      lcsb__buf *out, size_t *swapped, bool *which) {
    for (size_t i = 0; i < len;) {
        bool done = false;
        for (size_t k = 0; k < n && !done; k++) {
            size_t pl = strlen(v[k].placeholder);
            if (pl && v[k].value && len - i >= pl && memcmp(text + i, v[k].placeholder, pl) == 0 &&
                lcsb__secret_goes_to(&v[k], host, port) && may_carry(&v[k], name, name_len)) {
                lcsb__buf_add(out, v[k].value, v[k].value_len);
                i += pl;
                done = true;
                (*swapped)++;
                if (which) which[k] = true;
            }
        }
        if (!done) lcsb__buf_add(out, text + i++, 1);
    }
}

size_t lcsb__secrets_swap(const lcsb__secret *v, size_t n, const char *host, uint16_t port,
                          const char *head, size_t len, lcsb__buf *out, bool *which) {
    size_t swapped = 0;
    for (size_t k = 0; which && k < n; k++) which[k] = false;
    const char *nl = memchr(head, '\n', len);
    size_t first = nl ? (size_t)(nl - head) + 1 : len;
    lcsb__buf_add(out, head, first); /* the request line, as it is */
    for (size_t i = first; i < len;) {
        const char *end = memchr(head + i, '\n', len - i);
        size_t line_len = end ? (size_t)(end - (head + i)) + 1 : len - i;
        const char *line = head + i;
        const char *colon = memchr(line, ':', line_len);
        size_t name_len = colon ? (size_t)(colon - line) : 0;
        size_t at, b64n;
        char *plain = NULL;
        long plain_len = -1;
        size_t content = line_len - (end ? 1 : 0) - (line_len > 1 && end && end[-1] == '\r');
        if (basic_credentials(line, content, &at, &b64n) && (plain = malloc(b64n + 1)))
            plain_len = lcsb__base64_decode(line + at, b64n, plain);
        if (plain_len >= 0) {
            lcsb__buf inside = {0};
            size_t before = swapped;
            swap_text(v, n, host, port, line, name_len, plain, (size_t)plain_len, &inside, &swapped,
                      which);
            lcsb__buf_add(out, line, at);
            if (swapped > before)
                lcsb__base64_encode(inside.p ? inside.p : "", inside.len, out);
            else
                lcsb__buf_add(out, line + at, b64n);
            lcsb__buf_add(out, line + at + b64n, line_len - at - b64n);
            if (inside.p) lcsb__wipe(inside.p, inside.len);
            lcsb__buf_free(&inside);
        } else {
            swap_text(v, n, host, port, line, name_len, line, line_len, out, &swapped, which);
        }
        if (plain) {
            lcsb__wipe(plain, b64n + 1);
            free(plain);
        }
        i += line_len;
    }
    return swapped;
}

/* Each form of S's value that may stand in DATA (LEN bytes): the value,
 * then its other forms (the first Base64), given to EACH with the form
 * and its length. */
static void each_form(const lcsb__secret *s,
                      void (*each)(const char *form, size_t n, bool in_b64, void *arg), void *arg) {
    if (!s->value_len) return;
    each(s->value, s->value_len, false, arg);
    for (size_t k = 0; k < LCSB__SECRET_FORMS; k++)
        if (s->forms[k]) each(s->forms[k], s->forms_len[k], k < LCSB__SECRET_B64_FORMS, arg);
}

int lcsb__secret_set_value(lcsb__secret *s, const char *value, size_t len) {
    lcsb__secret_clear(s);
    if (!(s->value = malloc(len + 1))) return -1;
    memcpy(s->value, value, len);
    s->value[len] = '\0';
    s->value_len = len;
    int rc = lcsb__secret_make_forms(s);
    if (rc) lcsb__secret_clear(s);
    return rc;
}

typedef struct finding {
    const char *text;
    size_t len;
    bool found;
} finding;

static void find_form(const char *form, size_t n, bool in_b64, void *arg) {
    (void)in_b64;
    finding *f = arg;
    f->found = f->found || memmem(f->text, f->len, form, n) != NULL;
}

/* The first secret of V whose value TEXT (LEN bytes) holds as it is or in
 * Base64, or, in a VIEWED text, clipped: its index, or -1. */
static int find_raw(const lcsb__secret *v, size_t n, const char *text, size_t len, bool viewed) {
    for (size_t k = 0; k < n && len; k++) {
        finding f = {text, len, false};
        each_form(&v[k], find_form, &f);
        for (size_t c = 0; viewed && c < LCSB__SECRET_CLIPPED && v[k].clipped[c]; c++)
            find_form(v[k].clipped[c], v[k].clipped_len[c], false, &f);
        if (f.found) return (int)k;
    }
    return -1;
}

/* DATA (LEN bytes) percent-decoded ("+" as a space) into OUT (room for
 * LEN bytes): how many. */
static size_t percent_decoded(const char *data, size_t len, char *out) {
    size_t o = 0;
    for (size_t i = 0; i < len; i++) {
        int hi, lo;
        if (data[i] == '%' && i + 2 < len && (hi = lcsb__hex_digit(data[i + 1])) >= 0 &&
            (lo = lcsb__hex_digit(data[i + 2])) >= 0) {
            out[o++] = (char)(hi << 4 | lo);
            i += 2;
        } else {
            out[o++] = data[i] == '+' ? ' ' : data[i];
        }
    }
    return o;
}

typedef struct viewed_find {
    const lcsb__secret *v;
    size_t n;
    int found;
} viewed_find;

static int find_in_view(const lcsb__view *view, void *arg) {
    viewed_find *f = arg;
    f->found = find_raw(f->v, f->n, view->p, view->len, true);
    return f->found >= 0;
}

int lcsb__secrets_find(const lcsb__secret *v, size_t n, const char *data, size_t len) {
    int found = find_raw(v, n, data, len, false);
    viewed_find f = {v, n, -1};
    if (found < 0 && lcsb__echo_escape_next(data, len, 0) < len &&
        lcsb__echo_views(data, len, lcsb__secrets_wide(v, n), find_in_view, &f) >= 0)
        found = f.found;
    if (found < 0 && memchr(data, '%', len)) {
        char *decoded = malloc(len ? len : 1);
        if (decoded) {
            found = find_raw(v, n, decoded, percent_decoded(data, len, decoded), false);
            lcsb__wipe(decoded, len);
            free(decoded);
        }
    }
    /* And inside Basic credentials, line by line. */
    for (size_t i = 0; found < 0 && i < len;) {
        const char *end = memchr(data + i, '\n', len - i);
        size_t line_len = end ? (size_t)(end - (data + i)) : len - i;
        if (line_len && data[i + line_len - 1] == '\r') line_len--;
        size_t at, b64n;
        if (basic_credentials(data + i, line_len, &at, &b64n)) {
            char *plain = malloc(b64n + 1);
            long plain_len = plain ? lcsb__base64_decode(data + i + at, b64n, plain) : -1;
            if (plain_len > 0) found = find_raw(v, n, plain, (size_t)plain_len, false);
            if (plain) {
                lcsb__wipe(plain, b64n + 1);
                free(plain);
            }
        }
        if (!end) break;
        i = (size_t)(end - data) + 1;
    }
    return found;
}

typedef struct masking {
    const char *seen;       /* what is searched: the bytes as they came, or their view */
    const lcsb__view *view; /* where SEEN's bytes came from in DATA + BASE; NULL: the same */
    size_t base;
    char *data; /* where each find is overwritten */
    size_t len; /* SEEN's */
    size_t found;
    bool open;                  /* a Base64 run overwritten up to the end of SEEN */
    int clipped;                /* 0, or the kind of clipped form FORM is (secrets.h) */
    const lcsb__secret *secret; /* whose forms */
} masking;

/* A clipped form found in a view at [*S, *E): the rest of the value
 * beside it, the characters the view shows as they are and the escape
 * that took the others, added (secrets.h). */
static void unclip(const masking *m, size_t *s, size_t *e) {
    const lcsb__view *v = m->view;
    const lcsb__secret *sec = m->secret;
    if (m->clipped & 1) {
        size_t want = sec->clip_head;
        while (want && *s > 0 && v->to[*s - 1] - v->from[*s - 1] == 1 &&
               m->seen[*s - 1] == sec->value[want - 1]) {
            (*s)--;
            want--;
        }
        if (want && *s > 0 && v->to[*s - 1] - v->from[*s - 1] > 1)
            for (uint32_t src = v->from[*s - 1]; *s > 0 && v->from[*s - 1] == src;) (*s)--;
    }
    if (m->clipped & 2) {
        size_t at = sec->clip_tail;
        while (at < sec->value_len && *e < m->len && v->to[*e] - v->from[*e] == 1 &&
               m->seen[*e] == sec->value[at]) {
            (*e)++;
            at++;
        }
        if (at < sec->value_len && *e < m->len && v->to[*e] - v->from[*e] > 1)
            for (uint32_t src = v->from[*e]; *e < m->len && v->from[*e] == src;) (*e)++;
    }
}

/* The most of an escape a read may cut short: "&#x" and its digits. */
#define CUT_MAX 16

/* Could SEEN's bytes from FROM to its end (LEN) still be a run of Base64
 * going on in the next read: none, an escape cut short ("%2", "\\u00"),
 * or blanks and a line break that may wrap it? */
static bool run_may_go_on(const char *seen, size_t from, size_t len) {
    if (from == len) return true;
    if (len - from > CUT_MAX) return false;
    bool escape = lcsb__echo_escapes(seen[from]);
    for (size_t i = from + (escape ? 1 : 0); i < len; i++) {
        char c = seen[i];
        if (escape ? !isalnum((unsigned char)c) && c != '#' : !lcsb__echo_blank(c)) return false;
    }
    return true;
}

/* Where a run of Base64 left open at the last read's end goes on in SEEN
 * (LEN bytes, the new ones from FRESH): at an escape the last read cut
 * short ("%2" there, "B" now), else at FRESH. */
static size_t run_resumes(const char *seen, size_t len, size_t fresh) {
    for (size_t at = fresh; at > 0 && fresh - at < CUT_MAX; at--) {
        char c = seen[at - 1], out[4];
        size_t k;
        if (lcsb__echo_escapes(c))
            return lcsb__echo_escape_at(seen, len, at - 1, out, &k) > fresh - (at - 1) ? at - 1
                                                                                       : fresh;
        if (!isalnum((unsigned char)c) && c != '#') break;
    }
    return fresh;
}

/* FORM overwritten wherever it stands; in Base64 (B64), the whole run of
 * Base64 around it too: the characters at its edges mix the value's first
 * and last bits with its neighbours', and an echo of Basic credentials
 * would hand those out (IN_B64). Found in a view, what the echo spelled
 * it with is overwritten, and counted only where it was not already. */
static void mask_form(const char *form, size_t n, bool in_b64, void *arg) {
    masking *m = arg;
    for (const char *at = m->seen; (at = memmem(at, m->len - (size_t)(at - m->seen), form, n));
         at += n) {
        size_t s = (size_t)(at - m->seen), e = s + n;
        while (in_b64 && s > 0 && lcsb__is_b64(m->seen[s - 1])) s--;
        while (in_b64 && e < m->len && lcsb__is_b64(m->seen[e])) e++;
        if (m->view && m->clipped) unclip(m, &s, &e);
        size_t from = m->view ? m->base + m->view->from[s] : s,
               to = m->view ? m->base + m->view->to[e - 1] : e;
        bool fresh = !m->view;
        for (size_t i = from; i < to && !fresh; i++) fresh = m->data[i] != '*';
        memset(m->data + from, '*', to - from);
        m->found += fresh;
        m->open = m->open || (in_b64 && run_may_go_on(m->seen, e, m->len));
    }
}

/* Each of V's N values in SEEN (LEN bytes; a VIEW of DATA's from BASE on,
 * or NULL for DATA's own), overwritten in DATA: how many, HIT (or NULL)
 * says whose, *OPEN (or NULL) whether a run of Base64 reached SEEN's end. */
static size_t mask_all(const lcsb__secret *v, size_t n, const char *seen, size_t len,
                       const lcsb__view *view, size_t base, char *data, bool *hit, bool *open) {
    size_t total = 0;
    for (size_t k = 0; k < n; k++) {
        masking m = {seen, view, base, data, len, 0, false, 0, &v[k]};
        each_form(&v[k], mask_form, &m);
        for (size_t c = 0; view && c < LCSB__SECRET_CLIPPED && v[k].clipped[c]; c++) {
            m.clipped = v[k].clipped_kind[c];
            mask_form(v[k].clipped[c], v[k].clipped_len[c], false, &m);
        }
        if (hit) hit[k] = hit[k] || m.found > 0;
        total += m.found;
        if (open) *open = *open || m.open;
    }
    return total;
}

typedef struct viewed_mask {
    const lcsb__secret *v;
    size_t n, base;
    char *data;
    bool *hit;
    size_t total;
    bool reached; /* a run of Base64 reached a view's end */
} viewed_mask;

static int mask_in_view(const lcsb__view *view, void *arg) {
    viewed_mask *m = arg;
    m->total +=
        mask_all(m->v, m->n, view->p, view->len, view, m->base, m->data, m->hit, &m->reached);
    return 0;
}

size_t lcsb__secrets_mask(const lcsb__secret *v, size_t n, char *data, size_t len, size_t fresh,
                          bool *run_open, bool *hit) {
    if (!len || !n) return 0;
    /* Found in a copy, overwritten in DATA: a value that overlaps another
     * is found whole whichever is overwritten first. */
    char *seen = malloc(len);
    if (!seen) {
        memset(data, '*', len); /* nothing can be looked for: nothing goes out as it was */
        return 1;
    }
    memcpy(seen, data, len);
    /* A run overwritten to the end of the bytes seen before goes on into
     * the new ones: its last character may hold the value's last bits, and
     * the value, overwritten, would not be found again to say so. */
    bool open = false;
    if (run_open && *run_open) {
        size_t i = run_resumes(seen, len, fresh);
        for (;;) {
            /* Base64 as it is, or escaped (%2B, \u002B): the run's. */
            char c[4];
            size_t k = 1, took = i < len ? lcsb__echo_escape_at(seen, len, i, c, &k) : 0;
            if (!(took && k == 1 && lcsb__is_b64(c[0])))
                took = i < len && lcsb__is_b64(seen[i]) ? 1 : 0;
            /* A line break that wraps the run: past it, the run goes on. */
            size_t next = !took && i < len ? lcsb__echo_wrap_end(seen, len, i) : 0;
            if (next) {
                i = next;
                continue;
            }
            if (!took) break;
            memset(data + i, '*', took);
            i += took;
        }
        open = run_may_go_on(seen, i, len);
    }
    if (hit) memset(hit, 0, n * sizeof *hit);
    size_t total = mask_all(v, n, seen, len, NULL, 0, data, hit, &open);
    /* Then as the echo says it with its escapes undone (the value, or its
     * Base64, spelled by an encoder, escapes in its midst and all): around
     * each escape, as far as an escaped value could reach, the stretches
     * that reach each other viewed as one. Elsewhere the bytes are their
     * own view, searched above. */
    size_t reach = lcsb__secrets_longest(v, n) + 4, at = lcsb__echo_escape_next(seen, len, 0);
    bool wide = lcsb__secrets_wide(v, n);
    while (at < len) {
        size_t from = at > reach ? at - reach : 0, to = at + reach < len ? at + reach : len;
        while ((at = lcsb__echo_escape_next(seen, len, at + 1)) < to)
            to = at + reach < len ? at + reach : len;
        viewed_mask m = {v, n, from, data, hit, 0, false};
        if (lcsb__echo_views(seen + from, to - from, wide, mask_in_view, &m) != 0) {
            memset(data + from, '*', to - from); /* not looked at: not sent as it was */
            total++;
            continue;
        }
        total += m.total;
        open = open || (m.reached && to == len);
    }
    if (run_open) *run_open = open;
    lcsb__wipe(seen, len);
    free(seen);
    return total;
}

bool lcsb__secrets_wide(const lcsb__secret *v, size_t n) {
    for (size_t k = 0; k < n; k++)
        for (size_t i = 0; i < v[k].value_len; i++)
            if ((unsigned char)v[k].value[i] >= 0x80) return true;
    return false;
}

size_t lcsb__secrets_longest(const lcsb__secret *v, size_t n) {
    size_t longest = 0;
    for (size_t k = 0; k < n; k++) {
        /* The value percent-encoded (three times as long), which a request
         * is decoded for, and every form of it an answer may hold: what a
         * search across reads must hold back. */
        /* Its Base64 with each character escaped (\u002B), or encoded
         * thrice (%25252B): twelve times as long. A value past
         * LCSB__SECRET_FORMS_VALUE_MAX is looked for as it is only. */
        size_t forms =
            v[k].value_len > LCSB__SECRET_FORMS_VALUE_MAX ? v[k].value_len : 12 * v[k].value_len;
        for (size_t f = 0; f < LCSB__SECRET_FORMS; f++)
            if (v[k].forms_len[f] > forms) forms = v[k].forms_len[f];
        if (forms > longest) longest = forms;
    }
    return longest;
}
