/* JSON: strings written, and just enough reading to derive an attestation
 * from a header lcsb wrote. The reader is tolerant of what it does not need
 * and never reads past the terminating NUL. Pure. */
#include "json.h"

#include "escape.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>

/* S as a JSON string that is valid text: valid UTF-8 stays, a C1 control
 * is written \u0080 to \u009f, and a byte of no UTF-8 as the character of
 * its value. For what the command named, raw bytes and all, on its way to
 * a reader that wants JSON (the attestation); the wire to the shim keeps
 * paths byte for byte instead (lcsb__buf_add_json_string). */
void lcsb__buf_add_json_text(lcsb__buf *b, const char *s) {
    lcsb__buf_add(b, "\"", 1);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        size_t len = *p >= 0x80 ? lcsb__utf8_length(p, strnlen((const char *)p, 4)) : 1;
        char hex[8];
        unsigned c1 = len == 2 && p[0] == 0xc2 && p[1] <= 0x9f ? p[1] : 0;
        if (len > 1 && !c1) {
            lcsb__buf_add(b, (const char *)p, len);
            p += len - 1;
            continue;
        }
        if (*p == '"' || *p == '\\') {
            hex[0] = '\\', hex[1] = (char)*p, hex[2] = '\0';
        } else if (c1 || len == 0 || *p < 0x20 || *p == 0x7f) {
            snprintf(hex, sizeof hex, "\\u%04x", c1 ? c1 : *p);
            p += c1 ? 1 : 0;
        } else {
            hex[0] = (char)*p, hex[1] = '\0';
        }
        lcsb__buf_adds(b, hex);
    }
    lcsb__buf_add(b, "\"", 1);
}

void lcsb__buf_add_json_string(lcsb__buf *b, const char *s) {
    lcsb__buf_add(b, "\"", 1);
    const char *run = s;
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        const char *esc = NULL;
        char hex[8];
        if (*p == '"')
            esc = "\\\"";
        else if (*p == '\\')
            esc = "\\\\";
        else if (*p < 0x20 || *p == 0x7f) {
            snprintf(hex, sizeof hex, "\\u%04x", *p);
            esc = hex;
        }
        if (!esc) continue;
        lcsb__buf_add(b, run, (size_t)((const char *)p - run));
        lcsb__buf_adds(b, esc);
        run = (const char *)p + 1;
    }
    lcsb__buf_adds(b, run);
    lcsb__buf_add(b, "\"", 1);
}

char *lcsb_argv_json(const char *const *argv) {
    lcsb__buf b = {0};
    lcsb__buf_adds(&b, "[");
    for (size_t i = 0; argv && argv[i]; i++) {
        if (i) lcsb__buf_adds(&b, ",");
        lcsb__buf_add_json_string(&b, argv[i]);
    }
    lcsb__buf_adds(&b, "]");
    if (b.oom) {
        lcsb__buf_free(&b);
        return NULL;
    }
    return b.p;
}

static const char *skip_ws(const char *p) {
    while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r') p++;
    return p;
}

/* Skip one JSON string starting at its opening quote; NULL when unterminated. */
static const char *skip_string(const char *p) {
    for (p++; *p; p++) {
        if (*p == '\\') {
            if (!*++p) return NULL;
        } else if (*p == '"') {
            return p + 1;
        }
    }
    return NULL;
}

/* Skip one value of any kind; NULL on malformed input. */
static const char *skip_value(const char *p) {
    p = skip_ws(p);
    if (*p == '"') return skip_string(p);
    if (*p == '{' || *p == '[') {
        int depth = 0;
        while (*p) {
            if (*p == '"') {
                if (!(p = skip_string(p))) return NULL;
                continue;
            }
            if (*p == '{' || *p == '[') depth++;
            if (*p == '}' || *p == ']') {
                if (--depth == 0) return p + 1;
            }
            p++;
        }
        return NULL;
    }
    while (*p && *p != ',' && *p != '}' && *p != ']') p++;
    return p;
}

const char *lcsb__json_find(const char *text, const char *key) {
    const char *p = skip_ws(text);
    if (*p++ != '{') return NULL;
    size_t keylen = strlen(key);
    for (;;) {
        p = skip_ws(p);
        if (*p != '"') return NULL;
        const char *name = p + 1;
        const char *end = skip_string(p);
        if (!end) return NULL;
        bool match = (size_t)(end - 1 - name) == keylen && memcmp(name, key, keylen) == 0;
        p = skip_ws(end);
        if (*p++ != ':') return NULL;
        p = skip_ws(p);
        if (match) return p;
        if (!(p = skip_value(p))) return NULL;
        p = skip_ws(p);
        if (*p++ != ',') return NULL;
    }
}

long lcsb__json_int(const char *p) {
    if (!p || *p < '0' || *p > '9') return -1;
    long v = 0;
    for (; *p >= '0' && *p <= '9'; p++) {
        if (v > (LONG_MAX - 9) / 10) return -1;
        v = v * 10 + (*p - '0');
    }
    return v;
}

int lcsb__json_array(const char *p, const char *name, bool *found) {
    if (!p || *p != '[') return -1;
    int count = 0;
    p = skip_ws(p + 1);
    if (*p == ']') return 0;
    for (;;) {
        p = skip_ws(p);
        const char *end = skip_value(p);
        if (!end) return -1;
        if (name && *p == '"' && (size_t)(end - p - 2) == strlen(name) &&
            memcmp(p + 1, name, strlen(name)) == 0)
            *found = true;
        count++;
        p = skip_ws(end);
        if (*p == ']') return count;
        if (*p++ != ',') return -1;
    }
}

const char *lcsb__json_choice(const char *p, const char *const *choices) {
    if (!p || *p != '"') return NULL;
    for (size_t i = 0; choices[i]; i++) {
        size_t n = strlen(choices[i]);
        if (strncmp(p + 1, choices[i], n) == 0 && p[1 + n] == '"') return choices[i];
    }
    return NULL;
}
