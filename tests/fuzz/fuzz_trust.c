/* libFuzzer target: what the trust store reads back, and the summary of a
 * change. A record is the user's own file, but a policy's content is what a
 * command may have rewritten (under --backend none, say) before lcsb sums up
 * the change: an input is a record, and also two contents split at its
 * first NUL (or its middle). */
#define _GNU_SOURCE
#include "trust.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    const char *text = (const char *)data;
    lcsb__trust_record record;
    if (lcsb__trust_parse(text, size, &record)) {
        for (size_t i = 0; i < record.files.n; i++)
            if (record.files.v[i].path[0] != '/' || strlen(record.files.v[i].sha256) != 64) abort();
        for (size_t i = 0; i < record.absent.n; i++)
            if (record.absent.v[i].path[0] != '/' || record.absent.v[i].sha256[0]) abort();
        lcsb__trust_record_clear(&record);
    }
    const char *nul = memchr(text, '\0', size);
    size_t cut = nul ? (size_t)(nul - text) : size / 2;
    lcsb__buf out = {0};
    lcsb__trust_diff(text, cut, text + cut, size - cut, &out);
    lcsb__buf_free(&out);
    return 0;
}
