/* Layer 1, pure: text made safe for a terminal (escape.c). */
#ifndef LCSB_ESCAPE_H
#define LCSB_ESCAPE_H

#include "util.h"

/* LEN bytes of TEXT appended to B as lcsb_escape writes them. */
void lcsb__buf_add_escaped(lcsb__buf *b, const char *text, size_t len);

/* The length of the valid UTF-8 sequence at S (N bytes left, S[0] >= 0x80),
 * or 0 when none starts there. */
size_t lcsb__utf8_length(const unsigned char *s, size_t n);

/* Are LEN bytes of TEXT valid UTF-8 (RFC 3629)? */
bool lcsb__is_utf8(const char *text, size_t len);

#endif
