/* Just enough JSON reading to derive an attestation from a header lcsb wrote.
 * Tolerant of what it does not need, never reads past the terminating NUL. */
#include "internal.h"

#include <string.h>

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
        if (v > 1000000000L) return -1;
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
