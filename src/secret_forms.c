/* The forms a secret's value takes in what a server echoes (secrets.h): a
 * header reflected into a JSON document, a query string, an HTML error
 * page, a Location; Basic credentials in Base64. The proxy overwrites each
 * of them in an answer and refuses each in a request. Every form is made
 * once, with the value; one the same as another is kept once. */
#include "secrets.h"

#include "base64.h"

#include <ctype.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static const char HEX_UPPER[] = "0123456789ABCDEF", HEX_LOWER[] = "0123456789abcdef";

/* The Base64 characters that S's value makes whatever surrounds it, with
 * the value starting at byte ALIGN (0 to 2) of a group of three: the ones
 * whose six bits all come from the value. Into OUT (CAP bytes): how many
 * (0 when the value is too short to make any). A server that echoes Basic
 * credentials sends these. */
static size_t b64_core(const lcsb__secret *s, size_t align, char *out, size_t cap) {
    size_t bits_from = 8 * align, bits_to = 8 * (align + s->value_len);
    size_t first = (bits_from + 5) / 6, last = bits_to / 6; /* chars [first, last) */
    if (last <= first || last - first > cap) return 0;
    char *padded = calloc(align + s->value_len + 3, 1);
    if (!padded) return 0;
    memcpy(padded + align, s->value, s->value_len);
    lcsb__buf enc = {0};
    lcsb__base64_encode(padded, align + s->value_len + 2, &enc);
    size_t n = 0;
    if (!enc.oom && enc.len >= last) {
        memcpy(out, enc.p + first, last - first);
        n = last - first;
    }
    lcsb__wipe(padded, align + s->value_len + 3);
    free(padded);
    if (enc.p) lcsb__wipe(enc.p, enc.len);
    lcsb__buf_free(&enc);
    return n;
}

/* FORM (N bytes) kept as S's form K, unless it is none (N 0) or one S
 * has already: 0, or -1 out of memory. */
static int keep_form(lcsb__secret *s, size_t k, const char *form, size_t n) {
    if (!n || (n == s->value_len && memcmp(form, s->value, n) == 0)) return 0;
    for (size_t j = 0; j < k; j++)
        if (s->forms[j] && s->forms_len[j] == n && memcmp(s->forms[j], form, n) == 0) return 0;
    if (!(s->forms[k] = malloc(n))) return -1;
    memcpy(s->forms[k], form, n);
    s->forms_len[k] = n;
    return 0;
}

/* CORE (N Base64 characters) as a URL carries it (base64url, URLSAFE), or
 * percent-encoded in a query or a Location (HEX's digits), into OUT. */
static size_t b64_spelled(const char *core, size_t n, bool urlsafe, const char *hex, char *out) {
    size_t o = 0;
    for (size_t i = 0; i < n; i++) {
        char c = core[i];
        if (urlsafe) {
            out[o++] = c == '+' ? '-' : c == '/' ? '_' : c;
        } else if (c == '+' || c == '/') {
            out[o++] = '%';
            out[o++] = hex[(unsigned char)c >> 4];
            out[o++] = hex[c & 15];
        } else {
            out[o++] = c;
        }
    }
    return o;
}

/* S's value percent-encoded: every byte but RFC 3986's unreserved ones
 * and those in KEEP (urllib's quote keeps "/"), a space as "+" where PLUS
 * (a form's fields), with HEX's digits; into OUT (3 bytes a byte). */
static size_t percent_spelled(const lcsb__secret *s, const char *keep, bool plus, const char *hex,
                              char *out) {
    size_t o = 0;
    for (size_t i = 0; i < s->value_len; i++) {
        unsigned char c = (unsigned char)s->value[i];
        if (plus && c == ' ') {
            out[o++] = '+';
        } else if (isalnum(c) || (c && strchr("-._~", c)) || (c && strchr(keep, c))) {
            out[o++] = (char)c;
        } else {
            out[o++] = '%';
            out[o++] = hex[c >> 4];
            out[o++] = hex[c & 15];
        }
    }
    return o;
}

/* The code point of the UTF-8 sequence at P (LEFT bytes) into *CP: its
 * length, or 0 for no well-formed one. */
static size_t utf8_decoded(const unsigned char *p, size_t left, uint32_t *cp) {
    size_t n = p[0] >= 0xf0 ? 4 : p[0] >= 0xe0 ? 3 : p[0] >= 0xc0 ? 2 : 0;
    if (!n || n > left || p[0] > 0xf4) return 0;
    uint32_t c = p[0] & (0x7f >> n);
    for (size_t i = 1; i < n; i++) {
        if ((p[i] & 0xc0) != 0x80) return 0;
        c = c << 6 | (p[i] & 0x3f);
    }
    static const uint32_t least[] = {0, 0, 0x80, 0x800, 0x10000};
    if (c < least[n] || c > 0x10ffff || (c >= 0xd800 && c < 0xe000)) return 0;
    *cp = c;
    return n;
}

static size_t u_escaped(uint32_t u, char *out) {
    out[0] = '\\';
    out[1] = 'u';
    for (int i = 0; i < 4; i++) out[2 + i] = HEX_LOWER[(u >> (12 - 4 * i)) & 15];
    return 6;
}

/* The ways a JSON encoder escapes what a JSON string need not: "/" (PHP),
 * "<", ">" and "&" as \u003c (Go), and every character past ASCII as
 * \uXXXX, a UTF-16 pair past the BMP (Python, PHP), or every byte past
 * ASCII as \u00XX (a server that read the header as Latin-1 first, as
 * Python's http.server does). */
enum { JSON_SOLIDUS = 1, JSON_HTML = 2, JSON_ASCII = 4, JSON_BYTES = 8 };

/* S's value as a JSON string's characters (it holds no control
 * character), escaped as HOW says, into OUT (12 bytes a byte at most);
 * 0 where JSON_ASCII meets bytes that are no UTF-8. */
static size_t json_spelled(const lcsb__secret *s, int how, char *out) {
    const unsigned char *v = (const unsigned char *)s->value;
    size_t o = 0;
    for (size_t i = 0; i < s->value_len;) {
        uint32_t cp = v[i];
        size_t n = 1;
        if (cp >= 0x80 && (how & JSON_ASCII) && !(n = utf8_decoded(v + i, s->value_len - i, &cp)))
            return 0;
        if (cp == '"' || cp == '\\' || (cp == '/' && (how & JSON_SOLIDUS))) {
            out[o++] = '\\';
            out[o++] = (char)cp;
        } else if ((how & JSON_HTML) && (cp == '<' || cp == '>' || cp == '&')) {
            o += u_escaped(cp, out + o);
        } else if (cp >= 0x10000) {
            o += u_escaped(0xd800 + ((cp - 0x10000) >> 10), out + o);
            o += u_escaped(0xdc00 + ((cp - 0x10000) & 0x3ff), out + o);
        } else if (cp >= 0x80 && (how & (JSON_ASCII | JSON_BYTES))) {
            o += u_escaped(cp, out + o);
        } else {
            out[o++] = (char)v[i];
        }
        i += n;
    }
    return o;
}

/* S's value as HTML text escapes it (Python's html.escape), the
 * apostrophe as APOS; into OUT (6 bytes a byte at most). */
static size_t html_spelled(const lcsb__secret *s, const char *apos, char *out) {
    size_t o = 0;
    for (size_t i = 0; i < s->value_len; i++) {
        char c = s->value[i];
        const char *entity = c == '&'    ? "&amp;"
                             : c == '<'  ? "&lt;"
                             : c == '>'  ? "&gt;"
                             : c == '"'  ? "&quot;"
                             : c == '\'' ? apos
                                         : NULL;
        size_t n = entity ? strlen(entity) : 1;
        memcpy(out + o, entity ? entity : &c, n);
        o += n;
    }
    return o;
}

/* S's value with its spaces as "+" and nothing else changed: a form's
 * field as encoders that keep more than Python's quote_plus write it
 * (URLSearchParams, Java's URLEncoder keep "*", encodeURIComponent "!'()"),
 * its other escapes undone by the view (secret_view.c). Into OUT. */
static size_t plus_spaced(const lcsb__secret *s, char *out) {
    for (size_t i = 0; i < s->value_len; i++) out[i] = s->value[i] == ' ' ? '+' : s->value[i];
    return s->value_len;
}

/* S's value read as Latin-1 and written out as UTF-8: each byte past ASCII
 * as the two bytes of U+0080 to U+00FF (a server that decodes a header as
 * Latin-1, as Python's http.server does, and encodes its echo as UTF-8).
 * Into OUT (2 bytes a byte at most). */
static size_t latin1_as_utf8(const lcsb__secret *s, char *out) {
    size_t o = 0;
    for (size_t i = 0; i < s->value_len; i++) {
        unsigned char c = (unsigned char)s->value[i];
        if (c < 0x80) {
            out[o++] = (char)c;
        } else {
            out[o++] = (char)(0xc0 | c >> 6);
            out[o++] = (char)(0x80 | (c & 0x3f));
        }
    }
    return o;
}

/* The value's own views, kept as forms from slot K on (VIEWED_FORMS). */
#define VIEWED_FORMS 8
typedef struct viewed_forms {
    lcsb__secret *s;
    size_t k, end;
    int rc;
} viewed_forms;

static int keep_viewed(const lcsb__view *v, void *arg) {
    viewed_forms *f = arg;
    if (f->k == f->end) return 1;
    /* As short as a value may be, at the least: shorter, it would turn up
     * by chance. */
    if (v->len < LCSB__SECRET_VALUE_MIN) return 0;
    f->rc = keep_form(f->s, f->k++, v->p, v->len);
    return f->rc;
}

/* The most of a value an escape begun or ended beside it can take: "&#"
 * and up to twelve digits, leading zeros and all, and its ";". */
#define CLIPPED_MAX 13

/* Can C be taken into an escape begun before it (a hex or decimal digit,
 * an HTML name's letter or its ";")? */
static bool takeable(char c) { return isalnum((unsigned char)c) || c == ';'; }

/* BASE (N bytes) less its first S->clip_head and its last (from
 * S->clip_tail) characters as KIND says (1, 2, 3), kept as the next
 * clipped form, where BASE starts and ends as the value does there. */
static int keep_clipped(lcsb__secret *s, size_t *k, const char *base, size_t n, int kind) {
    size_t head = kind & 1 ? s->clip_head : 0, tail = kind & 2 ? s->value_len - s->clip_tail : 0;
    if ((kind & 1 && !head) || (kind & 2 && !tail) || n < head + tail + LCSB__SECRET_VALUE_MIN ||
        memcmp(base, s->value, head) != 0 ||
        memcmp(base + n - tail, s->value + s->clip_tail, tail) != 0 || *k == LCSB__SECRET_CLIPPED)
        return 0;
    size_t len = n - head - tail;
    for (size_t j = 0; j < *k; j++)
        if (s->clipped_len[j] == len && memcmp(s->clipped[j], base + head, len) == 0) return 0;
    if (!(s->clipped[*k] = malloc(len))) return -1;
    memcpy(s->clipped[*k], base + head, len);
    s->clipped_len[*k] = len;
    s->clipped_kind[(*k)++] = (unsigned char)kind;
    return 0;
}

/* S's clipped forms (secrets.h), from the value and its forms from FROM
 * on (its spaces as "+", read as Latin-1, its views). 0, or -1 out of
 * memory. */
static int make_clipped(lcsb__secret *s, size_t from) {
    size_t len = s->value_len, head = 0, tail = len, k = 0;
    while (head < CLIPPED_MAX && head + LCSB__SECRET_VALUE_MIN < len && takeable(s->value[head]))
        head++;
    for (size_t i = len > CLIPPED_MAX ? len - CLIPPED_MAX : 0; i < len && tail == len; i++)
        if (lcsb__echo_escapes(s->value[i])) tail = i;
    s->clip_head = head;
    s->clip_tail = tail;
    int rc = 0;
    for (int kind = 1; kind <= 3 && !rc; kind++) {
        rc = keep_clipped(s, &k, s->value, len, kind);
        for (size_t f = from; f < LCSB__SECRET_FORMS && !rc; f++)
            if (s->forms[f]) rc = keep_clipped(s, &k, s->forms[f], s->forms_len[f], kind);
    }
    return rc;
}

int lcsb__secret_make_forms(lcsb__secret *s) {
    if (s->value_len > LCSB__SECRET_FORMS_VALUE_MAX) return 0;
    /* The longest spelling: a character past the BMP, 4 bytes, as 12. */
    size_t cap = 12 * s->value_len + 16;
    char *core = malloc(cap), *form = malloc(cap);
    int rc = core && form ? 0 : -1;
    size_t k = 0;
    /* Base64 first (LCSB__SECRET_B64_FORMS), whose runs are overwritten
     * whole: standard and URL-safe at each alignment. Shorter than 8
     * characters, a form turns up by chance. */
    size_t n[3];
    for (size_t a = 0; a < 3 && !rc; a++) {
        n[a] = b64_core(s, a, core, cap);
        if (n[a] < 8) n[a] = 0;
        rc = keep_form(s, k++, core, n[a]);
        if (!rc) rc = keep_form(s, k++, form, b64_spelled(core, n[a], true, NULL, form));
    }
    for (size_t a = 0; a < 3 && !rc; a++) {
        n[a] = n[a] ? b64_core(s, a, core, cap) : 0;
        rc = keep_form(s, k++, form, b64_spelled(core, n[a], false, HEX_UPPER, form));
        if (!rc) rc = keep_form(s, k++, form, b64_spelled(core, n[a], false, HEX_LOWER, form));
    }
    k = LCSB__SECRET_SPELLED_FORMS;
    static const struct {
        const char *keep;
        bool plus;
    } percent[] = {{"", false}, {"/", false}, {"", true}};
    for (size_t i = 0; i < 3 && !rc; i++) {
        rc = keep_form(s, k++, form,
                       percent_spelled(s, percent[i].keep, percent[i].plus, HEX_UPPER, form));
        if (!rc)
            rc = keep_form(s, k++, form,
                           percent_spelled(s, percent[i].keep, percent[i].plus, HEX_LOWER, form));
    }
    static const int json[] = {0,
                               JSON_SOLIDUS,
                               JSON_HTML,
                               JSON_ASCII,
                               JSON_SOLIDUS | JSON_ASCII,
                               JSON_HTML | JSON_ASCII,
                               JSON_BYTES,
                               JSON_SOLIDUS | JSON_BYTES,
                               JSON_HTML | JSON_BYTES};
    for (size_t i = 0; i < sizeof json / sizeof *json && !rc; i++)
        rc = keep_form(s, k++, form, json_spelled(s, json[i], form));
    if (!rc) rc = keep_form(s, k++, form, html_spelled(s, "&#x27;", form));
    if (!rc) rc = keep_form(s, k++, form, html_spelled(s, "&#39;", form));
    /* From here on, forms that spell the value's characters as they are:
     * what an escape beside the value takes, it takes of them too. */
    size_t as_is = k;
    if (!rc) rc = keep_form(s, k++, form, plus_spaced(s, form));
    if (!rc) rc = keep_form(s, k++, form, latin1_as_utf8(s, form));
    /* That, in a form's field: its spaces as "+". */
    if (!rc) {
        size_t spelled = latin1_as_utf8(s, form);
        for (size_t i = 0; i < spelled; i++)
            if (form[i] == ' ') form[i] = '+';
        rc = keep_form(s, k++, form, spelled);
    }
    /* A value that holds what reads as an escape (%41, \n, &amp;) is
     * undone with the escapes an encoder put around it, in the same pass
     * ("p\u002Bss%41" views as "p+ssA"): its own views are looked for too. */
    viewed_forms viewed = {s, k, k + VIEWED_FORMS, 0};
    if (!rc && lcsb__echo_views(s->value, s->value_len, lcsb__secrets_wide(s, 1), keep_viewed,
                                &viewed) < 0)
        rc = -1;
    if (!rc) rc = viewed.rc;
    if (!rc) rc = make_clipped(s, as_is);
    if (core) lcsb__wipe(core, cap);
    if (form) lcsb__wipe(form, cap);
    free(core);
    free(form);
    return rc;
}
