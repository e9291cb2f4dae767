/* Secrets by placeholder (secrets.h): the entry, the swap, the search.
 * Pure: memory only. */
#include "secrets.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#ifdef __GLIBC__
#define wipe(p, n) explicit_bzero(p, n)
#else
#define wipe(p, n) memset_s(p, n, 0, n)
#endif

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
        if (lcsb__domain_parse(entry, d, bad, sizeof bad) != 0 || d->deny || d->once ||
            d->until || lcsb__domain_has_rule(d)) {
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
}

bool lcsb__secret_goes_to(const lcsb__secret *s, const char *host, uint16_t port) {
    for (size_t i = 0; i < s->hosts_n; i++)
        if (lcsb__domain_matches(&s->hosts[i], host, port)) return true;
    return false;
}

void lcsb__secret_clear(lcsb__secret *s) {
    if (s->value) {
        wipe(s->value, s->value_len);
        free(s->value);
    }
    s->value = NULL;
    s->value_len = 0;
}

/* ---- Base64, for Basic credentials ---- */

static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

static int b64_value(char c) {
    const char *p = c ? strchr(b64, c) : NULL;
    return p ? (int)(p - b64) : -1;
}

/* IN (LEN bytes of Base64, padded) decoded into OUT (room for LEN bytes):
 * how many, or -1 when it is no Base64. */
static long b64_decode(const char *in, size_t len, char *out) {
    if (len % 4) return -1;
    size_t o = 0;
    for (size_t i = 0; i < len; i += 4) {
        int v[4];
        for (int k = 0; k < 4; k++) {
            bool pad = in[i + k] == '=' && i + 4 == len && k >= 2;
            v[k] = pad ? 0 : b64_value(in[i + k]);
            if (v[k] < 0) return -1;
        }
        unsigned bits = (unsigned)v[0] << 18 | (unsigned)v[1] << 12 | (unsigned)v[2] << 6 |
                        (unsigned)v[3];
        out[o++] = (char)(bits >> 16);
        if (in[i + 2] != '=') out[o++] = (char)(bits >> 8 & 0xff);
        if (in[i + 3] != '=') out[o++] = (char)(bits & 0xff);
    }
    return (long)o;
}

static void b64_encode(const char *in, size_t len, lcsb__buf *out) {
    for (size_t i = 0; i < len; i += 3) {
        unsigned bits = (unsigned char)in[i] << 16;
        if (i + 1 < len) bits |= (unsigned char)in[i + 1] << 8;
        if (i + 2 < len) bits |= (unsigned char)in[i + 2];
        char q[4] = {b64[bits >> 18], b64[bits >> 12 & 63], i + 1 < len ? b64[bits >> 6 & 63] : '=',
                     i + 2 < len ? b64[bits & 63] : '='};
        lcsb__buf_add(out, q, 4);
    }
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

/* TEXT (LEN bytes) into OUT, each placeholder of the secrets at V that go
 * to HOST:PORT swapped for its value. */
static void swap_text(const lcsb__secret *v, size_t n, const char *host, uint16_t port,
                      const char *text, size_t len, lcsb__buf *out) {
    for (size_t i = 0; i < len;) {
        bool swapped = false;
        for (size_t k = 0; k < n && !swapped; k++) {
            size_t pl = strlen(v[k].placeholder);
            if (pl && v[k].value && len - i >= pl && memcmp(text + i, v[k].placeholder, pl) == 0 &&
                lcsb__secret_goes_to(&v[k], host, port)) {
                lcsb__buf_add(out, v[k].value, v[k].value_len);
                i += pl;
                swapped = true;
            }
        }
        if (!swapped) lcsb__buf_add(out, text + i++, 1);
    }
}

void lcsb__secrets_swap(const lcsb__secret *v, size_t n, const char *host, uint16_t port,
                        const char *head, size_t len, lcsb__buf *out) {
    const char *nl = memchr(head, '\n', len);
    size_t first = nl ? (size_t)(nl - head) + 1 : len;
    lcsb__buf_add(out, head, first); /* the request line, as it is */
    for (size_t i = first; i < len;) {
        const char *end = memchr(head + i, '\n', len - i);
        size_t line_len = end ? (size_t)(end - (head + i)) + 1 : len - i;
        const char *line = head + i;
        size_t at, b64n;
        char *plain = NULL;
        long plain_len = -1;
        size_t content = line_len - (end ? 1 : 0) - (line_len > 1 && end && end[-1] == '\r');
        if (basic_credentials(line, content, &at, &b64n) && (plain = malloc(b64n + 1)))
            plain_len = b64_decode(line + at, b64n, plain);
        if (plain_len >= 0) {
            lcsb__buf swapped = {0};
            swap_text(v, n, host, port, plain, (size_t)plain_len, &swapped);
            lcsb__buf_add(out, line, at);
            b64_encode(swapped.p ? swapped.p : "", swapped.len, out);
            lcsb__buf_add(out, line + at + b64n, line_len - at - b64n);
            if (swapped.p) wipe(swapped.p, swapped.len);
            lcsb__buf_free(&swapped);
        } else {
            swap_text(v, n, host, port, line, line_len, out);
        }
        if (plain) {
            wipe(plain, b64n + 1);
            free(plain);
        }
        i += line_len;
    }
}

/* The first secret whose value TEXT (LEN bytes) holds as it is: its index,
 * or -1. */
static int find_raw(const lcsb__secret *v, size_t n, const char *text, size_t len) {
    for (size_t k = 0; k < n; k++)
        if (v[k].value_len && memmem(text, len, v[k].value, v[k].value_len)) return (int)k;
    return -1;
}

int lcsb__secrets_find(const lcsb__secret *v, size_t n, const char *data, size_t len) {
    int found = find_raw(v, n, data, len);
    /* And inside Basic credentials, line by line. */
    for (size_t i = 0; found < 0 && i < len;) {
        const char *end = memchr(data + i, '\n', len - i);
        size_t line_len = end ? (size_t)(end - (data + i)) : len - i;
        if (line_len && data[i + line_len - 1] == '\r') line_len--;
        size_t at, b64n;
        if (basic_credentials(data + i, line_len, &at, &b64n)) {
            char *plain = malloc(b64n + 1);
            long plain_len = plain ? b64_decode(data + i + at, b64n, plain) : -1;
            if (plain_len > 0) found = find_raw(v, n, plain, (size_t)plain_len);
            if (plain) {
                wipe(plain, b64n + 1);
                free(plain);
            }
        }
        if (!end) break;
        i = (size_t)(end - data) + 1;
    }
    return found;
}

size_t lcsb__secrets_longest(const lcsb__secret *v, size_t n) {
    size_t longest = 0;
    for (size_t k = 0; k < n; k++)
        if (v[k].value_len > longest) longest = v[k].value_len;
    return longest;
}
