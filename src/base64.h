/* Layer 1, pure: Base64 (RFC 4648's alphabet, padded), which Basic
 * credentials (secrets.c) and PEM certificates (jks.c) are written in. */
#ifndef LCSB_BASE64_H
#define LCSB_BASE64_H

#include "util.h"

#include <stddef.h>

/* IN (LEN bytes of Base64, padded or not) decoded into OUT (room for LEN
 * bytes): how many bytes, or -1 when it is no Base64. */
long lcsb__base64_decode(const char *in, size_t len, char *out);
/* LEN bytes of IN, encoded and padded, added to OUT. */
void lcsb__base64_encode(const char *in, size_t len, lcsb__buf *out);

#endif
