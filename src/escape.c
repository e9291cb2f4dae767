/* Text made safe for a terminal. Every line lcsb writes may quote what the
 * command or the caller chose (a program's name, a line of its stderr, a
 * path): a control byte in it would move the cursor, clear the screen,
 * overwrite the line with a CR or forge a line of lcsb's own with a LF. So
 * each control character (C0 but tab, DEL, the C1 controls U+0080 to
 * U+009F) and each byte that is not part of valid UTF-8 is written as \xHH,
 * CR and LF as \r and \n, the characters that show as nothing (the bidi
 * controls, the zero-width and format characters, the fillers, variation
 * selectors and tags) as \u{HHHH}; the rest, printable UTF-8, stays as it
 * is. A backslash stays too: the escape is for the terminal, not a
 * reversible encoding, and escaping escaped text changes nothing. Pure. */
#include "escape.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

/* The length of the valid UTF-8 sequence at S (N bytes left; S[0] >= 0x80),
 * or 0 when there is none (RFC 3629: no overlong forms, no surrogates,
 * nothing past U+10FFFF). */
size_t lcsb__utf8_length(const unsigned char *s, size_t n) {
    unsigned char c = s[0];
    size_t len;
    unsigned char lo = 0x80, hi = 0xbf; /* the bounds of the second byte */
    if (c >= 0xc2 && c <= 0xdf)
        len = 2;
    else if (c == 0xe0)
        len = 3, lo = 0xa0;
    else if (c >= 0xe1 && c <= 0xef)
        len = 3, hi = c == 0xed ? 0x9f : 0xbf;
    else if (c == 0xf0)
        len = 4, lo = 0x90;
    else if (c >= 0xf1 && c <= 0xf3)
        len = 4;
    else if (c == 0xf4)
        len = 4, hi = 0x8f;
    else
        return 0;
    if (n < len || s[1] < lo || s[1] > hi) return 0;
    for (size_t i = 2; i < len; i++)
        if (s[i] < 0x80 || s[i] > 0xbf) return 0;
    return len;
}

static unsigned code_point(const unsigned char *s, size_t len) {
    unsigned cp = s[0] & (0xff >> (len + 1));
    for (size_t i = 1; i < len; i++) cp = cp << 6 | (s[i] & 0x3f);
    return cp;
}

/* The characters that change how a line reads without showing: the bidi
 * controls (one reorders the rest of the line: a path can show as another),
 * the zero-width and format ones, and those a terminal draws as nothing or
 * as a blank: the soft hyphen, the Mongolian vowel separator, the Hangul
 * fillers, the variation selectors and the tag characters. Two paths that
 * differ by one of them would otherwise show as the same path. */
static bool invisible(const unsigned char *s, size_t len) {
    unsigned cp = code_point(s, len);
    return cp == 0x00ad || cp == 0x061c || cp == 0x115f || cp == 0x1160 || cp == 0x180e ||
           (cp >= 0x200b && cp <= 0x200f) || (cp >= 0x2028 && cp <= 0x202e) ||
           (cp >= 0x2060 && cp <= 0x206f) || cp == 0x3164 || (cp >= 0xfe00 && cp <= 0xfe0f) ||
           cp == 0xfeff || cp == 0xffa0 || (cp >= 0xe0000 && cp <= 0xe007f) ||
           (cp >= 0xe0100 && cp <= 0xe01ef);
}

/* The longest escape and its NUL: "\u{e01ef}" is nine bytes. */
#define ESCAPE_MAX 12

/* What the bytes at S (N left) become: *SPELLED (LEN bytes) for the first
 * *TAKEN of them. ROOM holds ESCAPE_MAX bytes. */
static void next(const unsigned char *s, size_t n, char *room, const char **spelled, size_t *len,
                 size_t *taken) {
    unsigned char c = s[0];
    size_t utf8 = c >= 0x80 ? lcsb__utf8_length(s, n) : 0;
    *taken = utf8 ? utf8 : 1;
    if (c == '\n' || c == '\r') {
        *spelled = c == '\n' ? "\\n" : "\\r";
        *len = 2;
    } else if ((c < 0x20 && c != '\t') || c == 0x7f || (c >= 0x80 && !utf8)) {
        *len = (size_t)snprintf(room, ESCAPE_MAX, "\\x%02x", c);
        *spelled = room;
    } else if (c == 0xc2 && utf8 && s[1] <= 0x9f) { /* a C1 control, U+0080 to U+009F */
        *len = (size_t)snprintf(room, ESCAPE_MAX, "\\x%02x\\x%02x", c, s[1]);
        *spelled = room;
    } else if (utf8 && invisible(s, utf8)) {
        *len = (size_t)snprintf(room, ESCAPE_MAX, "\\u{%04x}", code_point(s, utf8));
        *spelled = room;
    } else {
        *spelled = (const char *)s;
        *len = *taken;
    }
}

size_t lcsb_escape(char *out, size_t size, const char *text, size_t len) {
    const unsigned char *s = (const unsigned char *)text;
    size_t need = 0, written = 0, taken;
    bool full = !out || size == 0;
    for (size_t at = 0; at < len; at += taken) {
        char room[ESCAPE_MAX];
        const char *spelled;
        size_t n;
        next(s + at, len - at, room, &spelled, &n, &taken);
        /* Whole characters and whole escapes only, and room for the NUL. */
        if (!full && written + n < size) {
            memcpy(out + written, spelled, n);
            written += n;
        } else {
            full = true;
        }
        need += n;
    }
    if (out && size) out[written] = '\0';
    return need;
}

bool lcsb__is_utf8(const char *text, size_t len) {
    const unsigned char *s = (const unsigned char *)text;
    for (size_t at = 0; at < len;) {
        size_t n = s[at] >= 0x80 ? lcsb__utf8_length(s + at, len - at) : 1;
        if (!n) return false;
        at += n;
    }
    return true;
}

void lcsb__buf_add_escaped(lcsb__buf *b, const char *text, size_t len) {
    const unsigned char *s = (const unsigned char *)text;
    for (size_t at = 0; at < len;) {
        char room[ESCAPE_MAX];
        const char *spelled;
        size_t n, taken;
        next(s + at, len - at, room, &spelled, &n, &taken);
        lcsb__buf_add(b, spelled, n);
        at += taken;
    }
}
