/* Layer 1, pure: SHA-256 (FIPS 180-4), for naming the content of a policy
 * file the user trusted and of a caps file the attestation cites. */
#ifndef LCSB_SHA256_H
#define LCSB_SHA256_H

#include <stddef.h>
#include <stdint.h>

#define LCSB__SHA256_HEX 65 /* 64 hex digits and the NUL */

typedef struct lcsb__sha256 {
    uint32_t state[8];
    uint64_t length; /* bytes taken so far */
    unsigned char block[64];
    size_t filled; /* bytes of BLOCK waiting for the rest of it */
} lcsb__sha256;

void lcsb__sha256_init(lcsb__sha256 *h);
void lcsb__sha256_add(lcsb__sha256 *h, const void *data, size_t len);
/* The digest as 64 lowercase hex digits into HEX; H is spent. */
void lcsb__sha256_hex(lcsb__sha256 *h, char hex[LCSB__SHA256_HEX]);
/* LEN bytes of DATA, hashed in one go. */
void lcsb__sha256_of(const void *data, size_t len, char hex[LCSB__SHA256_HEX]);

#endif
