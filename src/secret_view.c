/* What an echo says with its escapes undone (secrets.h): percent-escapes,
 * JSON's \uXXXX and \/, HTML's entities, and the line breaks that wrap a
 * run of Base64, decoded in one pass. Each byte of the view knows the
 * bytes of the echo it came from, so that a value found in the view is
 * overwritten where the echo spelled it, however an encoder escaped it,
 * and whatever escape it put in the middle of the value's Base64 (PHP's
 * "\/", .NET's "\u002B", Go's "&#43;"). */
#include "secrets.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* The shortest line of Base64 a wrap is told by. */
#define WRAPPED_MIN 60

static int hex_digit(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

/* The N hex digits at P: their value, or -1. */
static long hex_value(const char *p, size_t n) {
    long v = 0;
    for (size_t i = 0; i < n; i++) {
        int d = hex_digit(p[i]);
        if (d < 0) return -1;
        v = v * 16 + d;
    }
    return v;
}

bool lcsb__is_b64(char c) {
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '+' ||
           c == '/' || c == '=' || c == '-' || c == '_';
}

/* \uXXXX at P (LEFT bytes), and its low surrogate after a high one: the
 * code point into *CP and how many bytes it took, or 0. */
static size_t json_escape(const char *p, size_t left, uint32_t *cp) {
    long u = left >= 6 && p[1] == 'u' ? hex_value(p + 2, 4) : -1;
    if (u < 0) return 0;
    if (u >= 0xd800 && u < 0xdc00 && left >= 12 && p[6] == '\\' && p[7] == 'u') {
        long low = hex_value(p + 8, 4);
        if (low >= 0xdc00 && low < 0xe000) {
            *cp = 0x10000 + (((uint32_t)u - 0xd800) << 10) + ((uint32_t)low - 0xdc00);
            return 12;
        }
    }
    *cp = (uint32_t)u;
    return 6;
}

/* An HTML character reference at P (LEFT bytes): &#NN; &#xHH; or one of
 * the five named ones; the code point into *CP and its length, or 0. */
static size_t html_reference(const char *p, size_t left, uint32_t *cp) {
    static const struct {
        const char *name;
        char c;
    } named[] = {{"&amp;", '&'}, {"&lt;", '<'}, {"&gt;", '>'}, {"&quot;", '"'}, {"&apos;", '\''}};
    for (size_t i = 0; i < sizeof named / sizeof *named; i++) {
        size_t n = strlen(named[i].name);
        if (left >= n && strncasecmp(p, named[i].name, n) == 0) {
            *cp = (unsigned char)named[i].c;
            return n;
        }
    }
    if (left < 4 || p[1] != '#') return 0;
    bool hex = p[2] == 'x' || p[2] == 'X';
    size_t at = hex ? 3 : 2, end = at;
    uint32_t v = 0;
    while (end < left && end < at + 7 && p[end] != ';') {
        int d = hex ? hex_digit(p[end]) : (p[end] >= '0' && p[end] <= '9' ? p[end] - '0' : -1);
        if (d < 0) return 0;
        v = v * (hex ? 16 : 10) + (uint32_t)d;
        end++;
    }
    if (end == at || end >= left || p[end] != ';' || v > 0x10ffff) return 0;
    *cp = v;
    return end + 1;
}

/* CP as UTF-8 into OUT: how many bytes. */
static size_t utf8(uint32_t cp, char *out) {
    if (cp < 0x80) return out[0] = (char)cp, 1;
    if (cp < 0x800) return out[0] = (char)(0xc0 | cp >> 6), out[1] = (char)(0x80 | (cp & 0x3f)), 2;
    if (cp < 0x10000) {
        out[0] = (char)(0xe0 | cp >> 12);
        out[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
        out[2] = (char)(0x80 | (cp & 0x3f));
        return 3;
    }
    out[0] = (char)(0xf0 | cp >> 18);
    out[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
    out[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
    out[3] = (char)(0x80 | (cp & 0x3f));
    return 4;
}

/* The escape at D[I] (LEN bytes in all) decoded into OUT: how many bytes
 * of D it takes (0: none there) and *N, how many it gives. */
static size_t escape_at(const char *d, size_t len, size_t i, char *out, size_t *n) {
    uint32_t cp;
    size_t took = 0;
    long byte;
    if (d[i] == '%' && i + 2 < len && (byte = hex_value(d + i + 1, 2)) >= 0) {
        out[0] = (char)byte;
        *n = 1;
        return 3;
    }
    if (d[i] == '\\' && i + 1 < len && d[i + 1] && strchr("\"\\/", d[i + 1])) {
        out[0] = d[i + 1];
        *n = 1;
        return 2;
    }
    if ((d[i] == '\\' && (took = json_escape(d + i, len - i, &cp))) ||
        (d[i] == '&' && (took = html_reference(d + i, len - i, &cp)))) {
        *n = utf8(cp, out);
        return took;
    }
    return 0;
}

/* Does a line break at D[I] wrap a run of Base64 (WRAPPED_MIN of it
 * before, more after)? */
static bool wraps_at(const char *d, size_t len, size_t i) {
    size_t next = i, run = 0;
    while (next < len && (d[next] == '\r' || d[next] == '\n')) next++;
    while (run < WRAPPED_MIN && run < i && lcsb__is_b64(d[i - 1 - run])) run++;
    return run >= WRAPPED_MIN && next < len && lcsb__is_b64(d[next]);
}

size_t lcsb__echo_escape_next(const char *d, size_t len, size_t i) {
    /* Asked of every byte an answer brings: the bytes an escape starts
     * with, told by a table. */
    static const unsigned char starts[256] = {
        ['%'] = 1, ['\\'] = 1, ['&'] = 1, ['\n'] = 2, ['\r'] = 2};
    const unsigned char *u = (const unsigned char *)d;
    for (; i < len; i++) {
        if (!starts[u[i]]) continue;
        char out[4];
        size_t n;
        if (starts[u[i]] == 1 ? escape_at(d, len, i, out, &n) != 0 : wraps_at(d, len, i)) return i;
    }
    return len;
}

int lcsb__echo_view(const char *d, size_t len, lcsb__view *v) {
    *v = (lcsb__view){0};
    if (len >= UINT32_MAX) return -1;
    v->p = malloc(len ? len : 1);
    v->from = malloc((len ? len : 1) * sizeof *v->from);
    v->to = malloc((len ? len : 1) * sizeof *v->to);
    if (!v->p || !v->from || !v->to) {
        lcsb__view_free(v);
        return -1;
    }
    for (size_t i = 0; i < len;) {
        char out[4];
        size_t n = 1, took = escape_at(d, len, i, out, &n);
        if (!took) {
            /* A line break that wraps a run of Base64 (MIME's every 76
             * characters, PEM's every 64) joins its two halves: one after
             * a line of 60 or more. */
            size_t next = i, run = 0;
            while (next < len && (d[next] == '\r' || d[next] == '\n')) next++;
            while (next > i && run < WRAPPED_MIN && run < v->len &&
                   lcsb__is_b64(v->p[v->len - 1 - run]))
                run++;
            if (run >= WRAPPED_MIN && next < len && lcsb__is_b64(d[next])) {
                i = next;
                continue;
            }
            out[0] = d[i];
            took = 1;
        }
        for (size_t k = 0; k < n; k++, v->len++) {
            v->p[v->len] = out[k];
            v->from[v->len] = (uint32_t)i;
            v->to[v->len] = (uint32_t)(i + took);
        }
        i += took;
    }
    return 0;
}

void lcsb__view_free(lcsb__view *v) {
    if (v->p) lcsb__wipe(v->p, v->len);
    free(v->p);
    free(v->from);
    free(v->to);
    *v = (lcsb__view){0};
}
