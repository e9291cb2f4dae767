/* What an echo says with its escapes undone (secrets.h): percent-escapes,
 * JSON's escapes, HTML's character references, and the line breaks that
 * wrap a run of Base64, undone in a pass, and what a pass undid looked at
 * again in the next (up to VIEW_PASSES). Each byte of the view knows the
 * bytes of the echo it came from, so that a value found in the view is
 * overwritten where the echo spelled it, however an encoder escaped it,
 * and whatever escape it put in the middle of the value's Base64 (PHP's
 * "\/", .NET's "\u002B", Go's "&#43;"). */
#include "secrets.h"

#include "util.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* The shortest line of Base64 a wrap is told by. */
#define WRAPPED_MIN 60

/* The N hex digits at P: their value, or -1. */
static long hex_value(const char *p, size_t n) {
    long v = 0;
    for (size_t i = 0; i < n; i++) {
        int d = lcsb__hex_digit(p[i]);
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

/* HTML5's names for ASCII's characters that an encoder may write
 * (PHP's htmlentities with ENT_HTML5 names even "_" and "+"). */
static const struct {
    const char *name;
    char c;
} ascii_names[] = {
    {"&amp;", '&'},   {"&lt;", '<'},     {"&gt;", '>'},     {"&quot;", '"'},   {"&apos;", '\''},
    {"&plus;", '+'},  {"&sol;", '/'},    {"&lowbar;", '_'}, {"&equals;", '='}, {"&quest;", '?'},
    {"&colon;", ':'}, {"&excl;", '!'},   {"&num;", '#'},    {"&dollar;", '$'}, {"&percnt;", '%'},
    {"&lpar;", '('},  {"&rpar;", ')'},   {"&ast;", '*'},    {"&comma;", ','},  {"&period;", '.'},
    {"&semi;", ';'},  {"&commat;", '@'}, {"&lsqb;", '['},   {"&rsqb;", ']'},   {"&bsol;", '\\'},
    {"&Hat;", '^'},   {"&grave;", '`'},  {"&lcub;", '{'},   {"&rcub;", '}'},   {"&verbar;", '|'},
    {"&tilde;", '~'}, {"&hyphen;", '-'}, {"&dash;", '-'},   {"&Tab;", '\t'},   {"&NewLine;", '\n'}};

/* HTML 4's names past ASCII (PHP's htmlentities writes "p&auml;ss",
 * "&euro;", "&Omega;"), sorted; the semicolon, as browsers read the
 * Latin-1 ones, may be left out. */
static const struct {
    const char *name;
    uint32_t cp;
} wide[] = {{"AElig", 0xC6},     {"Aacute", 0xC1},    {"Acirc", 0xC2},    {"Agrave", 0xC0},
            {"Alpha", 0x391},    {"Aring", 0xC5},     {"Atilde", 0xC3},   {"Auml", 0xC4},
            {"Beta", 0x392},     {"Ccedil", 0xC7},    {"Chi", 0x3A7},     {"Dagger", 0x2021},
            {"Delta", 0x394},    {"ETH", 0xD0},       {"Eacute", 0xC9},   {"Ecirc", 0xCA},
            {"Egrave", 0xC8},    {"Epsilon", 0x395},  {"Eta", 0x397},     {"Euml", 0xCB},
            {"Gamma", 0x393},    {"Iacute", 0xCD},    {"Icirc", 0xCE},    {"Igrave", 0xCC},
            {"Iota", 0x399},     {"Iuml", 0xCF},      {"Kappa", 0x39A},   {"Lambda", 0x39B},
            {"Mu", 0x39C},       {"Ntilde", 0xD1},    {"Nu", 0x39D},      {"OElig", 0x152},
            {"Oacute", 0xD3},    {"Ocirc", 0xD4},     {"Ograve", 0xD2},   {"Omega", 0x3A9},
            {"Omicron", 0x39F},  {"Oslash", 0xD8},    {"Otilde", 0xD5},   {"Ouml", 0xD6},
            {"Phi", 0x3A6},      {"Pi", 0x3A0},       {"Prime", 0x2033},  {"Psi", 0x3A8},
            {"Rho", 0x3A1},      {"Scaron", 0x160},   {"Sigma", 0x3A3},   {"THORN", 0xDE},
            {"Tau", 0x3A4},      {"Theta", 0x398},    {"Uacute", 0xDA},   {"Ucirc", 0xDB},
            {"Ugrave", 0xD9},    {"Upsilon", 0x3A5},  {"Uuml", 0xDC},     {"Xi", 0x39E},
            {"Yacute", 0xDD},    {"Yuml", 0x178},     {"Zeta", 0x396},    {"aacute", 0xE1},
            {"acirc", 0xE2},     {"acute", 0xB4},     {"aelig", 0xE6},    {"agrave", 0xE0},
            {"alefsym", 0x2135}, {"alpha", 0x3B1},    {"and", 0x2227},    {"ang", 0x2220},
            {"aring", 0xE5},     {"asymp", 0x2248},   {"atilde", 0xE3},   {"auml", 0xE4},
            {"bdquo", 0x201E},   {"beta", 0x3B2},     {"brvbar", 0xA6},   {"bull", 0x2022},
            {"cap", 0x2229},     {"ccedil", 0xE7},    {"cedil", 0xB8},    {"cent", 0xA2},
            {"chi", 0x3C7},      {"circ", 0x2C6},     {"clubs", 0x2663},  {"cong", 0x2245},
            {"copy", 0xA9},      {"crarr", 0x21B5},   {"cup", 0x222A},    {"curren", 0xA4},
            {"dArr", 0x21D3},    {"dagger", 0x2020},  {"darr", 0x2193},   {"deg", 0xB0},
            {"delta", 0x3B4},    {"diams", 0x2666},   {"divide", 0xF7},   {"eacute", 0xE9},
            {"ecirc", 0xEA},     {"egrave", 0xE8},    {"empty", 0x2205},  {"emsp", 0x2003},
            {"ensp", 0x2002},    {"epsilon", 0x3B5},  {"equiv", 0x2261},  {"eta", 0x3B7},
            {"eth", 0xF0},       {"euml", 0xEB},      {"euro", 0x20AC},   {"exist", 0x2203},
            {"fnof", 0x192},     {"forall", 0x2200},  {"frac12", 0xBD},   {"frac14", 0xBC},
            {"frac34", 0xBE},    {"frasl", 0x2044},   {"gamma", 0x3B3},   {"ge", 0x2265},
            {"hArr", 0x21D4},    {"harr", 0x2194},    {"hearts", 0x2665}, {"hellip", 0x2026},
            {"iacute", 0xED},    {"icirc", 0xEE},     {"iexcl", 0xA1},    {"igrave", 0xEC},
            {"image", 0x2111},   {"infin", 0x221E},   {"int", 0x222B},    {"iota", 0x3B9},
            {"iquest", 0xBF},    {"isin", 0x2208},    {"iuml", 0xEF},     {"kappa", 0x3BA},
            {"lArr", 0x21D0},    {"lambda", 0x3BB},   {"lang", 0x2329},   {"laquo", 0xAB},
            {"larr", 0x2190},    {"lceil", 0x2308},   {"ldquo", 0x201C},  {"le", 0x2264},
            {"lfloor", 0x230A},  {"lowast", 0x2217},  {"loz", 0x25CA},    {"lrm", 0x200E},
            {"lsaquo", 0x2039},  {"lsquo", 0x2018},   {"macr", 0xAF},     {"mdash", 0x2014},
            {"micro", 0xB5},     {"middot", 0xB7},    {"minus", 0x2212},  {"mu", 0x3BC},
            {"nabla", 0x2207},   {"nbsp", 0xA0},      {"ndash", 0x2013},  {"ne", 0x2260},
            {"ni", 0x220B},      {"not", 0xAC},       {"notin", 0x2209},  {"nsub", 0x2284},
            {"ntilde", 0xF1},    {"nu", 0x3BD},       {"oacute", 0xF3},   {"ocirc", 0xF4},
            {"oelig", 0x153},    {"ograve", 0xF2},    {"oline", 0x203E},  {"omega", 0x3C9},
            {"omicron", 0x3BF},  {"oplus", 0x2295},   {"or", 0x2228},     {"ordf", 0xAA},
            {"ordm", 0xBA},      {"oslash", 0xF8},    {"otilde", 0xF5},   {"otimes", 0x2297},
            {"ouml", 0xF6},      {"para", 0xB6},      {"part", 0x2202},   {"permil", 0x2030},
            {"perp", 0x22A5},    {"phi", 0x3C6},      {"pi", 0x3C0},      {"piv", 0x3D6},
            {"plusmn", 0xB1},    {"pound", 0xA3},     {"prime", 0x2032},  {"prod", 0x220F},
            {"prop", 0x221D},    {"psi", 0x3C8},      {"rArr", 0x21D2},   {"radic", 0x221A},
            {"rang", 0x232A},    {"raquo", 0xBB},     {"rarr", 0x2192},   {"rceil", 0x2309},
            {"rdquo", 0x201D},   {"real", 0x211C},    {"reg", 0xAE},      {"rfloor", 0x230B},
            {"rho", 0x3C1},      {"rlm", 0x200F},     {"rsaquo", 0x203A}, {"rsquo", 0x2019},
            {"sbquo", 0x201A},   {"scaron", 0x161},   {"sdot", 0x22C5},   {"sect", 0xA7},
            {"shy", 0xAD},       {"sigma", 0x3C3},    {"sigmaf", 0x3C2},  {"sim", 0x223C},
            {"spades", 0x2660},  {"sub", 0x2282},     {"sube", 0x2286},   {"sum", 0x2211},
            {"sup", 0x2283},     {"sup1", 0xB9},      {"sup2", 0xB2},     {"sup3", 0xB3},
            {"supe", 0x2287},    {"szlig", 0xDF},     {"tau", 0x3C4},     {"there4", 0x2234},
            {"theta", 0x3B8},    {"thetasym", 0x3D1}, {"thinsp", 0x2009}, {"thorn", 0xFE},
            {"tilde", 0x2DC},    {"times", 0xD7},     {"trade", 0x2122},  {"uArr", 0x21D1},
            {"uacute", 0xFA},    {"uarr", 0x2191},    {"ucirc", 0xFB},    {"ugrave", 0xF9},
            {"uml", 0xA8},       {"upsih", 0x3D2},    {"upsilon", 0x3C5}, {"uuml", 0xFC},
            {"weierp", 0x2118},  {"xi", 0x3BE},       {"yacute", 0xFD},   {"yen", 0xA5},
            {"yuml", 0xFF},      {"zeta", 0x3B6},     {"zwj", 0x200D},    {"zwnj", 0x200C}};

/* A named reference at P (LEFT bytes, 2 or more, P[1] no "#"): its code
 * point into *CP and its length, or 0. */
static size_t named_reference(const char *p, size_t left, uint32_t *cp) {
    /* Asked of every "&" of a page: a name is looked for by its first
     * letter before it is compared whole. */
    for (size_t i = 0; i < sizeof ascii_names / sizeof *ascii_names; i++) {
        if (ascii_names[i].name[1] != p[1]) continue;
        size_t n = strlen(ascii_names[i].name);
        if (left >= n && strncmp(p, ascii_names[i].name, n) == 0) {
            *cp = (unsigned char)ascii_names[i].c;
            return n;
        }
    }
    size_t longest = 0, lo = 0, hi = sizeof wide / sizeof *wide;
    /* Asked of every "&" of a page: the names with its first letter are
     * found by halves, the table being sorted. */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (wide[mid].name[0] < p[1])
            lo = mid + 1;
        else
            hi = mid;
    }
    for (size_t i = lo; i < sizeof wide / sizeof *wide && wide[i].name[0] == p[1]; i++) {
        size_t n = strlen(wide[i].name);
        if (n > longest && left > n && strncmp(p + 1, wide[i].name, n) == 0) {
            longest = n;
            *cp = wide[i].cp;
        }
    }
    if (longest) return 1 + longest + (left > longest + 1 && p[longest + 1] == ';');
    return 0;
}

/* An HTML character reference at P (LEFT bytes): &#NN; &#xHH; or a named
 * one; the code point into *CP and its length, or 0. */
static size_t html_reference(const char *p, size_t left, uint32_t *cp) {
    size_t named = left >= 2 && p[1] != '#' ? named_reference(p, left, cp) : 0;
    if (named) return named;
    /* &#NN; and &#xHH;, leading zeros and all; the semicolon, which a
     * browser does without, may be left out. */
    if (left < 3 || p[1] != '#') return 0;
    bool hex = p[2] == 'x' || p[2] == 'X';
    size_t at = hex ? 3 : 2, end = at;
    uint32_t v = 0;
    for (; end < left && end < at + 12; end++) {
        int d =
            hex ? lcsb__hex_digit(p[end]) : (p[end] >= '0' && p[end] <= '9' ? p[end] - '0' : -1);
        if (d < 0) break;
        v = v * (hex ? 16 : 10) + (uint32_t)d;
        if (v > 0x10ffff) return 0;
    }
    if (end == at) return 0;
    *cp = v;
    return end < left && p[end] == ';' ? end + 1 : end;
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

/* Asked of every byte an answer brings: the bytes an escape starts with,
 * and the blanks a wrap of Base64 is made of, told by a table. */
enum { ESCAPE = 1, BLANK = 2 };
static const unsigned char STARTS[256] = {
    ['%'] = ESCAPE, ['\\'] = ESCAPE, ['&'] = ESCAPE, ['\n'] = BLANK,
    ['\r'] = BLANK, [' '] = BLANK,   ['\t'] = BLANK};

bool lcsb__echo_escapes(char c) { return STARTS[(unsigned char)c] == ESCAPE; }

bool lcsb__echo_blank(char c) { return STARTS[(unsigned char)c] == BLANK; }

/* How a view takes a character reference or a \uXXXX below 0x100 and
 * past ASCII (\u00C3, &#195;): as the character, in UTF-8, or as the byte
 * it names, as a server that read the value as Latin-1 wrote it. */
typedef struct reading {
    bool bytes;
    bool latin1_seen; /* whether such an escape was undone (as a character) */
} reading;

/* The escape at D[I] (LEN bytes in all) decoded into OUT, read as R says
 * (NULL: as characters): how many bytes of D it takes (0: none there) and
 * *N, how many it gives. */
static size_t escape_read(const char *d, size_t len, size_t i, char *out, size_t *n, reading *r) {
    uint32_t cp;
    size_t took = 0;
    long byte;
    if (d[i] == '%' && i + 2 < len && (byte = hex_value(d + i + 1, 2)) >= 0) {
        out[0] = (char)byte;
        *n = 1;
        return 3;
    }
    if (d[i] == '\\' && i + 1 < len) {
        char c = d[i + 1];
        switch (c) {
        case 'n': c = '\n'; break;
        case 'r': c = '\r'; break;
        case 't': c = '\t'; break;
        case 'b': c = '\b'; break;
        case 'f': c = '\f'; break;
        case '"':
        case '\\':
        case '/': break;
        default: c = 0;
        }
        if (c) {
            out[0] = c;
            *n = 1;
            return 2;
        }
    }
    if ((d[i] == '\\' && (took = json_escape(d + i, len - i, &cp))) ||
        (d[i] == '&' && (took = html_reference(d + i, len - i, &cp)))) {
        bool latin1 = cp >= 0x80 && cp < 0x100;
        if (latin1 && r && r->bytes) {
            out[0] = (char)cp;
            *n = 1;
        } else {
            *n = utf8(cp, out);
            if (latin1 && r) r->latin1_seen = true;
        }
        return took;
    }
    return 0;
}

static size_t escape_at(const char *d, size_t len, size_t i, char *out, size_t *n) {
    return escape_read(d, len, i, out, n, NULL);
}

/* Past the blanks at D[I] and the line break after them, where a run of
 * Base64 could go on: 0 when no line break follows or no Base64 after it.
 * Whether the line before was long enough is its caller's to ask. */
static size_t wrap_end(const char *d, size_t len, size_t i) {
    size_t j = i;
    while (j < len && (d[j] == ' ' || d[j] == '\t')) j++;
    if (j == len || (d[j] != '\r' && d[j] != '\n')) return 0;
    while (j < len && (d[j] == '\r' || d[j] == '\n' || d[j] == ' ' || d[j] == '\t')) j++;
    return j < len && lcsb__is_b64(d[j]) ? j : 0;
}

/* Does the Base64 that ends at D[END] (exclusive) make a line of
 * WRAPPED_MIN or more? */
static bool long_line(const char *d, size_t end) {
    size_t run = 0;
    while (run < WRAPPED_MIN && run < end && lcsb__is_b64(d[end - 1 - run])) run++;
    return run == WRAPPED_MIN;
}

/* Does the line that ends at D[END] (exclusive) run to WRAPPED_MIN or
 * more characters from the line break before it (or D's start), ending in
 * Base64? Base64 wrapped at a column its line's start took part of (a
 * header's name) makes a shorter run of it than its line. */
static bool long_text_line(const char *d, size_t end) {
    size_t start = end;
    if (end == 0 || !lcsb__is_b64(d[end - 1])) return false;
    while (start > 0 && d[start - 1] != '\n' && end - start < WRAPPED_MIN) start--;
    return end - start == WRAPPED_MIN;
}

/* Is the line at D[J] nothing but Base64 (blanks after it allowed) up to
 * its line break or D's end: a wrapped run going on? */
static bool b64_line(const char *d, size_t len, size_t j) {
    while (j < len && lcsb__is_b64(d[j])) j++;
    while (j < len && (d[j] == ' ' || d[j] == '\t')) j++;
    return j == len || d[j] == '\r' || d[j] == '\n';
}

/* Does a line break whose line ends at LINE[END] (exclusive) and goes on
 * at D[NEXT] wrap Base64: a run of WRAPPED_MIN or more before it, or a line
 * that long ending in Base64 and one of nothing but Base64 after it? */
static bool wraps(const char *line, size_t end, const char *d, size_t len, size_t next) {
    return long_line(line, end) || (long_text_line(line, end) && b64_line(d, len, next));
}

/* Does a line break at D[I] (or the blanks before one) wrap a run of
 * Base64? */
static bool wraps_at(const char *d, size_t len, size_t i) {
    size_t back = i, next = wrap_end(d, len, i);
    if (!next) return false;
    while (back > 0 && (d[back - 1] == ' ' || d[back - 1] == '\t')) back--;
    return wraps(d, back, d, len, next);
}

size_t lcsb__echo_escape_next(const char *d, size_t len, size_t i) {
    const unsigned char *u = (const unsigned char *)d;
    for (; i < len; i++) {
        if (!STARTS[u[i]]) continue;
        char out[4];
        size_t n;
        if (STARTS[u[i]] == ESCAPE ? escape_at(d, len, i, out, &n) != 0 : wraps_at(d, len, i))
            return i;
        /* A run of blanks wraps at its start or nowhere: each blank after
         * follows a blank, no Base64 (and asking each would cost the run's
         * length a blank). */
        while (STARTS[u[i]] == BLANK && i + 1 < len && STARTS[u[i + 1]] == BLANK) i++;
    }
    return len;
}

size_t lcsb__echo_escape_at(const char *d, size_t len, size_t i, char *out, size_t *n) {
    return escape_at(d, len, i, out, n);
}

size_t lcsb__echo_wrap_end(const char *d, size_t len, size_t i) { return wrap_end(d, len, i); }

/* One pass of the view over D (LEN bytes) into V, each byte's span of D:
 * whether any escape or wrap was undone. */
static int view_pass(const char *d, size_t len, lcsb__view *v, bool *undone, reading *r) {
    *v = (lcsb__view){0};
    *undone = false;
    if (len >= UINT32_MAX) return -1;
    v->p = malloc(len ? len : 1);
    v->from = malloc((len ? len : 1) * sizeof *v->from);
    v->to = malloc((len ? len : 1) * sizeof *v->to);
    if (!v->p || !v->from || !v->to) {
        lcsb__view_free(v);
        return -1;
    }
    size_t plain_until = 0; /* blanks up to here wrap nothing */
    for (size_t i = 0; i < len;) {
        char out[4];
        unsigned char kind = STARTS[(unsigned char)d[i]];
        size_t n = 1, took = kind == ESCAPE ? escape_read(d, len, i, out, &n, r) : 0;
        if (kind == BLANK && i >= plain_until) {
            /* A line break that wraps a run of Base64 (MIME's every 76
             * characters, PEM's every 64, blanks around it or not) joins
             * its two halves (wraps). */
            size_t next = wrap_end(d, len, i);
            if (next && wraps(v->p, v->len, d, len, next)) {
                i = next;
                *undone = true;
                continue;
            }
            /* None: the blanks after it follow a blank, and wrap nothing. */
            for (plain_until = i;
                 plain_until < len && STARTS[(unsigned char)d[plain_until]] == BLANK;)
                plain_until++;
        }
        if (!took) {
            out[0] = d[i];
            took = 1;
        } else {
            *undone = true;
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

/* How many times an escape's result is looked at again for one (a
 * percent-escape of a JSON escape, an URL encoded thrice). */
#define VIEW_PASSES 4

/* The views of D (LEN bytes) read as R says, each pass's that undid
 * anything given to EACH (lcsb__echo_views). */
static int view_chain(const char *d, size_t len, reading *r,
                      int (*each)(const lcsb__view *v, void *arg), void *arg) {
    lcsb__view v;
    bool undone;
    int rc = 0;
    if (view_pass(d, len, &v, &undone, r) != 0) return -1;
    for (int pass = 1; undone; pass++) {
        /* Every pass is looked in, not the last alone: a value that holds
         * what looks like an escape (%41, \n, &amp;) is undone again by
         * the pass after the one that spelled it out. */
        if ((rc = each(&v, arg)) != 0) break;
        /* A pass over a view with nothing in it to undo would give it back
         * as it is: one is made only where the last one left an escape. */
        if (pass == VIEW_PASSES || lcsb__echo_escape_next(v.p, v.len, 0) == v.len) break;
        lcsb__view next;
        if (view_pass(v.p, v.len, &next, &undone, r) != 0) {
            rc = -1;
            break;
        }
        /* Each byte of the new view from the bytes of D its span of the
         * last one came from. */
        for (size_t k = 0; k < next.len; k++) {
            uint32_t first = next.from[k], last = next.to[k] - 1;
            next.from[k] = v.from[first];
            next.to[k] = v.to[last];
        }
        lcsb__view_free(&v);
        v = next;
    }
    lcsb__view_free(&v);
    return rc;
}

int lcsb__echo_views(const char *d, size_t len, bool bytes_too,
                     int (*each)(const lcsb__view *v, void *arg), void *arg) {
    reading chars = {.bytes = false}, bytes = {.bytes = true};
    int rc = view_chain(d, len, &chars, each, arg);
    /* Read again where a character below 0x100 was escaped: as its byte
     * (\u00C3\u00A4, a UTF-8 "ä" read as Latin-1 and escaped). */
    if (rc == 0 && bytes_too && chars.latin1_seen) rc = view_chain(d, len, &bytes, each, arg);
    return rc;
}

void lcsb__view_free(lcsb__view *v) {
    if (v->p) lcsb__wipe(v->p, v->len);
    free(v->p);
    free(v->from);
    free(v->to);
    *v = (lcsb__view){0};
}
