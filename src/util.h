/* Layer 1, pure: what every other file builds with. Errors filled into the
 * caller's lcsb_error, growable string arrays and byte buffers. Memory
 * allocation only: wrap may use all of it (rule 1). */
#ifndef LCSB_UTIL_H
#define LCSB_UTIL_H

#include "lcsb.h"

#include <stdbool.h>
#include <stddef.h>

#if defined(__GNUC__)
#define LCSB_PRINTF(fmt, args) __attribute__((format(printf, fmt, args)))
#else
#define LCSB_PRINTF(fmt, args)
#endif

/* Fill ERR (when non-NULL) and return CODE. */
int lcsb__fail(lcsb_error *err, int code, const char *fmt, ...) LCSB_PRINTF(3, 4);

/* ---- A growable array of owned strings, kept NULL-terminated. ---- */

typedef struct lcsb__strv {
    char **v;
    size_t n;
    size_t cap;
} lcsb__strv;

int lcsb__strv_push(lcsb__strv *sv, const char *s);               /* copies S */
int lcsb__strv_push_n(lcsb__strv *sv, const char *s, size_t len); /* copies LEN bytes */
int lcsb__strv_push_all(lcsb__strv *sv, const char *const *argv); /* NULL-safe */
void lcsb__strv_clear(lcsb__strv *sv);
/* Is S one of SV's strings? */
bool lcsb__strv_has(const lcsb__strv *sv, const char *s);
/* Hand the array over as a NULL-terminated argv (an empty one when SV is empty). */
char **lcsb__strv_take(lcsb__strv *sv);
/* Sorted, duplicate-free view of SV's strings (pointers into SV); caller frees the array. */
const char **lcsb__strv_sorted_unique(const lcsb__strv *sv, size_t *count);

/* ---- A growable byte buffer, always NUL-terminated. ---- */

typedef struct lcsb__buf {
    char *p;
    size_t len;
    size_t cap;
    bool oom; /* sticky: one check at the end instead of one per append */
} lcsb__buf;

void lcsb__buf_add(lcsb__buf *b, const char *s, size_t len);
void lcsb__buf_adds(lcsb__buf *b, const char *s);
void lcsb__buf_addf(lcsb__buf *b, const char *fmt, ...) LCSB_PRINTF(2, 3);
void lcsb__buf_free(lcsb__buf *b);

/* ---- A path as one word of a line (the trust store's records, plans). ---- */

/* TEXT appended with '%', space, control bytes and DEL as %XX. */
void lcsb__buf_add_word(lcsb__buf *b, const char *text);
/* What lcsb__buf_add_word wrote (LEN bytes of WORD) back into OUT (SIZE
 * bytes, NUL-terminated); false if it is not that, or does not fit. */
bool lcsb__word_decode(const char *word, size_t len, char *out, size_t size);
/* C as a hex digit, either case: its value, or -1. */
int lcsb__hex_digit(char c);

#endif
