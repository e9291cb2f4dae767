/* A Java KeyStore of trusted certificates (jks.h). */
#include "jks.h"

#include "base64.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define JKS_MAGIC 0xFEEDFEEDu
#define JKS_VERSION 2
#define JKS_TRUSTED_CERT 2
#define COUNT_AT 8 /* after the magic and the version */

static void put_u16(lcsb__buf *b, uint16_t v) {
    char c[2] = {(char)(v >> 8), (char)v};
    lcsb__buf_add(b, c, sizeof c);
}

static void put_u32(lcsb__buf *b, uint32_t v) {
    char c[4] = {(char)(v >> 24), (char)(v >> 16), (char)(v >> 8), (char)v};
    lcsb__buf_add(b, c, sizeof c);
}

static void put_u64(lcsb__buf *b, uint64_t v) {
    put_u32(b, (uint32_t)(v >> 32));
    put_u32(b, (uint32_t)v);
}

/* Java's DataOutput.writeUTF, for ASCII without NUL, where modified UTF-8
 * is the bytes themselves. */
static void put_utf(lcsb__buf *b, const char *s) {
    size_t len = strlen(s);
    if (len > UINT16_MAX) {
        b->oom = true;
        return;
    }
    put_u16(b, (uint16_t)len);
    lcsb__buf_add(b, s, len);
}

void lcsb__jks_init(lcsb__jks *k) {
    put_u32(&k->bytes, JKS_MAGIC);
    put_u32(&k->bytes, JKS_VERSION);
    put_u32(&k->bytes, 0);
    k->n = 0;
}

void lcsb__jks_add_trusted(lcsb__jks *k, const char *alias, uint64_t ms, const void *der,
                           size_t len) {
    if (len > INT32_MAX) {
        k->bytes.oom = true;
        return;
    }
    put_u32(&k->bytes, JKS_TRUSTED_CERT);
    put_utf(&k->bytes, alias);
    put_u64(&k->bytes, ms);
    put_utf(&k->bytes, "X.509");
    put_u32(&k->bytes, (uint32_t)len);
    lcsb__buf_add(&k->bytes, der, len);
    k->n++;
}

#define PEM_BEGIN "-----BEGIN CERTIFICATE-----"
#define PEM_END "-----END CERTIFICATE-----"

int lcsb__jks_add_pem(lcsb__jks *k, const char *text, size_t len, uint64_t ms) {
    const char *at = text, *end = text + len;
    size_t system = 0;
    lcsb__buf b64 = {0};
    char *der = NULL;
    int rc = 0;
    while (rc == 0 && (at = memmem(at, (size_t)(end - at), PEM_BEGIN, strlen(PEM_BEGIN)))) {
        at += strlen(PEM_BEGIN);
        const char *stop = memmem(at, (size_t)(end - at), PEM_END, strlen(PEM_END));
        if (!stop) {
            rc = -1;
            break;
        }
        /* The Base64 without its line breaks. */
        b64.len = 0;
        for (const char *c = at; c < stop; c++)
            if (*c != '\n' && *c != '\r' && *c != ' ' && *c != '\t') lcsb__buf_add(&b64, c, 1);
        char *more = b64.oom ? NULL : realloc(der, b64.len + 1);
        long n = more ? lcsb__base64_decode(b64.p ? b64.p : "", b64.len, der = more) : -1;
        if (n <= 0) {
            rc = -1;
            break;
        }
        char alias[32];
        snprintf(alias, sizeof alias, "system-%zu", ++system);
        lcsb__jks_add_trusted(k, alias, ms, der, (size_t)n);
        at = stop + strlen(PEM_END);
    }
    lcsb__buf_free(&b64);
    free(der);
    return rc == 0 && k->bytes.oom ? -1 : rc;
}

bool lcsb__jks_finish(lcsb__jks *k, const char *password, lcsb__sha1_fn *sha1) {
    static const char whitener[] = "Mighty Aphrodite"; /* Java's, for every JKS */
    if (k->bytes.oom || k->bytes.len < COUNT_AT + 4) return false;
    for (int i = 0; i < 4; i++) k->bytes.p[COUNT_AT + i] = (char)(k->n >> (24 - 8 * i));
    /* Java hashes a password as its UTF-16 code units, big-endian. */
    lcsb__buf keyed = {0};
    for (const char *c = password; *c; c++) put_u16(&keyed, (unsigned char)*c);
    lcsb__buf_add(&keyed, whitener, sizeof whitener - 1);
    lcsb__buf_add(&keyed, k->bytes.p, k->bytes.len);
    unsigned char digest[LCSB__SHA1_LEN];
    bool ok = !keyed.oom && sha1(keyed.p, keyed.len, digest) == 0;
    lcsb__buf_free(&keyed);
    if (ok) lcsb__buf_add(&k->bytes, (const char *)digest, sizeof digest);
    return ok && !k->bytes.oom;
}

void lcsb__jks_free(lcsb__jks *k) {
    lcsb__buf_free(&k->bytes);
    k->n = 0;
}
