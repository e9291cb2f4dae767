/* String arrays and byte buffers. Pure: memory allocation only. */
#include "util.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int strv_reserve(lcsb__strv *sv, size_t extra) {
    if (sv->n + extra + 1 <= sv->cap) return 0;
    size_t cap = sv->cap ? sv->cap : 8;
    while (cap < sv->n + extra + 1) cap *= 2;
    char **v = realloc(sv->v, cap * sizeof *v);
    if (!v) return LCSB_ENOMEM;
    sv->v = v;
    sv->cap = cap;
    return 0;
}

int lcsb__strv_push_n(lcsb__strv *sv, const char *s, size_t len) {
    if (strv_reserve(sv, 1)) return LCSB_ENOMEM;
    char *copy = malloc(len + 1);
    if (!copy) return LCSB_ENOMEM;
    memcpy(copy, s, len);
    copy[len] = '\0';
    sv->v[sv->n++] = copy;
    sv->v[sv->n] = NULL;
    return 0;
}

int lcsb__strv_push(lcsb__strv *sv, const char *s) { return lcsb__strv_push_n(sv, s, strlen(s)); }

int lcsb__strv_push_all(lcsb__strv *sv, const char *const *argv) {
    for (size_t i = 0; argv && argv[i]; i++)
        if (lcsb__strv_push(sv, argv[i])) return LCSB_ENOMEM;
    return 0;
}

bool lcsb__strv_has(const lcsb__strv *sv, const char *s) {
    for (size_t i = 0; i < sv->n; i++)
        if (strcmp(sv->v[i], s) == 0) return true;
    return false;
}

void lcsb__strv_clear(lcsb__strv *sv) {
    for (size_t i = 0; i < sv->n; i++) free(sv->v[i]);
    free(sv->v);
    sv->v = NULL;
    sv->n = sv->cap = 0;
}

char **lcsb__strv_take(lcsb__strv *sv) {
    if (strv_reserve(sv, 0)) {
        lcsb__strv_clear(sv);
        return NULL;
    }
    sv->v[sv->n] = NULL;
    char **v = sv->v;
    sv->v = NULL;
    sv->n = sv->cap = 0;
    return v;
}

void lcsb_argv_free(char **argv) {
    for (size_t i = 0; argv && argv[i]; i++) free(argv[i]);
    free(argv);
}

/* Not qsort: glibc's asks the kernel how much memory the machine has
 * (sysinfo) the first time it sorts more than 1 KiB of pointers, and keeps the
 * answer in a static; wrap makes no syscall and keeps no state (rule 1). A
 * bottom-up merge sort through TMP, which holds N pointers. */
static void sort_strings(const char **v, const char **tmp, size_t n) {
    for (size_t width = 1; width < n; width *= 2) {
        for (size_t lo = 0; lo < n; lo += 2 * width) {
            size_t mid = n - lo > width ? lo + width : n;
            size_t hi = n - mid > width ? mid + width : n;
            size_t i = lo, j = mid, k = lo;
            while (i < mid && j < hi) tmp[k++] = strcmp(v[j], v[i]) < 0 ? v[j++] : v[i++];
            while (i < mid) tmp[k++] = v[i++];
            while (j < hi) tmp[k++] = v[j++];
        }
        memcpy(v, tmp, n * sizeof *v);
    }
}

const char **lcsb__strv_sorted_unique(const lcsb__strv *sv, size_t *count) {
    const char **out = malloc((sv->n + 1) * sizeof *out);
    const char **tmp = malloc((sv->n + 1) * sizeof *tmp);
    if (!out || !tmp) {
        free(out);
        free(tmp);
        return NULL;
    }
    for (size_t i = 0; i < sv->n; i++) out[i] = sv->v[i];
    sort_strings(out, tmp, sv->n);
    free(tmp);
    size_t k = 0;
    for (size_t i = 0; i < sv->n; i++)
        if (k == 0 || strcmp(out[k - 1], out[i]) != 0) out[k++] = out[i];
    *count = k;
    return out;
}

static bool buf_reserve(lcsb__buf *b, size_t extra) {
    if (b->oom) return false;
    if (b->len + extra + 1 <= b->cap) return true;
    size_t cap = b->cap ? b->cap : 256;
    while (cap < b->len + extra + 1) cap *= 2;
    char *p = realloc(b->p, cap);
    if (!p) {
        b->oom = true;
        return false;
    }
    b->p = p;
    b->cap = cap;
    return true;
}

void lcsb__buf_add(lcsb__buf *b, const char *s, size_t len) {
    if (!buf_reserve(b, len)) return;
    memcpy(b->p + b->len, s, len);
    b->len += len;
    b->p[b->len] = '\0';
}

void lcsb__buf_adds(lcsb__buf *b, const char *s) { lcsb__buf_add(b, s, strlen(s)); }

void lcsb__buf_addf(lcsb__buf *b, const char *fmt, ...) {
    char small[256];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(small, sizeof small, fmt, ap);
    va_end(ap);
    if (n < 0) {
        b->oom = true;
        return;
    }
    if ((size_t)n < sizeof small) {
        lcsb__buf_add(b, small, (size_t)n);
        return;
    }
    if (!buf_reserve(b, (size_t)n)) return;
    va_start(ap, fmt);
    vsnprintf(b->p + b->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    b->len += (size_t)n;
}

void lcsb__buf_free(lcsb__buf *b) {
    free(b->p);
    b->p = NULL;
    b->len = b->cap = 0;
    b->oom = false;
}

void lcsb__buf_add_word(lcsb__buf *b, const char *text) {
    for (const unsigned char *p = (const unsigned char *)text; *p; p++) {
        if (*p == '%' || *p <= 0x20 || *p == 0x7f)
            lcsb__buf_addf(b, "%%%02X", *p);
        else
            lcsb__buf_add(b, (const char *)p, 1);
    }
}

int lcsb__hex_digit(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

/* A hex digit as lcsb__buf_add_word writes them, upper case: its value, or -1. */
static int upper_hex_digit(char c) { return c >= 'a' && c <= 'f' ? -1 : lcsb__hex_digit(c); }

bool lcsb__word_decode(const char *word, size_t len, char *out, size_t size) {
    size_t o = 0;
    for (size_t i = 0; i < len; i++) {
        int byte = (unsigned char)word[i];
        if (word[i] == '%') {
            int hi = i + 2 < len ? upper_hex_digit(word[i + 1]) : -1;
            int lo = hi >= 0 ? upper_hex_digit(word[i + 2]) : -1;
            if (lo < 0) return false;
            byte = hi * 16 + lo;
            i += 2;
        }
        if (o + 1 >= size || byte == 0) return false;
        out[o++] = (char)byte;
    }
    if (size == 0) return false;
    out[o] = '\0';
    return true;
}
