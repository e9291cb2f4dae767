/* Layer 1, pure: a Java KeyStore (JKS, version 2) of trusted certificates,
 * the one file Java reads a list of authorities from: it takes neither a
 * PEM bundle nor SSL_CERT_FILE, and a PKCS12 store marks nothing trusted
 * for it unless a newer OpenSSL than Debian 12's wrote it. The format, as
 * Java's JavaKeyStore reads it: magic 0xFEEDFEED, version 2, the number of
 * entries, then each entry (tag 2, a trusted certificate: its alias in
 * Java's modified UTF-8 with a 16-bit length, the time it was made in ms,
 * the type "X.509", the DER's 32-bit length and the DER), all big-endian;
 * last a SHA-1 over the password in UTF-16BE, "Mighty Aphrodite" and every
 * byte before it. The digest comes from the caller: this layer links no
 * cryptography. No I/O. */
#ifndef LCSB_JKS_H
#define LCSB_JKS_H

#include "util.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define LCSB__SHA1_LEN 20
/* Java's name for a store's password when none was chosen: its own stores
 * have it, and keytool, told it, lists a store lcsb made. */
#define LCSB__JKS_PASSWORD "changeit"

/* A store being made: its bytes so far, and its entries. */
typedef struct lcsb__jks {
    lcsb__buf bytes;
    uint32_t n;
} lcsb__jks;

/* SHA-1 of LEN bytes of DATA into DIGEST: 0, or -1. */
typedef int lcsb__sha1_fn(const void *data, size_t len, unsigned char digest[LCSB__SHA1_LEN]);

/* K (zeroed) begun: the header, with no entries yet. */
void lcsb__jks_init(lcsb__jks *k);
/* One trusted certificate added to K under ALIAS (printable ASCII, lower
 * case: Java folds a JKS alias to lower case as it loads it, and two that
 * fold alike are one), made at MS (ms since 1970), its DER LEN bytes. */
void lcsb__jks_add_trusted(lcsb__jks *k, const char *alias, uint64_t ms, const void *der,
                           size_t len);
/* Every certificate of the PEM text TEXT (LEN bytes: "-----BEGIN
 * CERTIFICATE-----" blocks, anything between them skipped) added to K as
 * trusted, made at MS, "system-N" in their order. Its Base64 is decoded,
 * not parsed as X.509: the system's hundred-odd authorities cost no
 * certificate parser's time (OpenSSL's took 15 ms). 0; -1 when a block is
 * no Base64 or has no end, or out of memory. */
int lcsb__jks_add_pem(lcsb__jks *k, const char *text, size_t len, uint64_t ms);
/* K finished: its count of entries written in, and the digest for
 * PASSWORD (ASCII) by SHA1 after it. True, or false out of memory or a
 * digest that failed (K's bytes are then not a store). */
bool lcsb__jks_finish(lcsb__jks *k, const char *password, lcsb__sha1_fn *sha1)
    __attribute__((warn_unused_result));
void lcsb__jks_free(lcsb__jks *k);

#endif
