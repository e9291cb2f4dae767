/* libFuzzer target: a PEM bundle read into a Java truststore (jks.c). The
 * bundle is the system's file, or one SSL_CERT_FILE names in lcsb's own
 * environment, with the run's authority added; the reader still takes any
 * bytes as if anyone wrote them: a store whose entries are whole, or a
 * refusal, never a read past what was given. */
#include "jks.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    lcsb__jks k = {0};
    lcsb__jks_init(&k);
    size_t header = k.bytes.len;
    int rc = lcsb__jks_add_pem(&k, (const char *)data, size, 1);
    if (rc != 0 && rc != -1) abort();
    /* Each entry is at least its tag, alias, time, type and length. */
    if (!k.bytes.oom && k.bytes.len < header + (size_t)k.n * (4 + 2 + 8 + 7 + 4)) abort();
    lcsb__jks_free(&k);
    return 0;
}
