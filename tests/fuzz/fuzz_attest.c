/* libFuzzer target: the attestation's reading of a shim header, or of a
 * Seatbelt profile when the input starts with '(' (the profile position of a
 * sandbox-exec argv). lcsb_attest reads whatever argv a host hands it, so
 * either may be anything. */
#include "lcsb.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    char *header = malloc(size + 1);
    if (!header) return 0;
    memcpy(header, data, size);
    header[size] = '\0'; /* argv strings end at the first NUL, as here */
    const char *shim_argv[] = {"/usr/libexec/lcsb/lcsb-exec", header, "--", "true", NULL};
    const char *seatbelt_argv[] = {"/usr/bin/sandbox-exec", "-p", header, "-D", "W0=/p",
                                   "--", "true", NULL};
    const char *const *argv = header[0] == '(' ? seatbelt_argv : shim_argv;
    lcsb_attestation a;
    if (lcsb_attest(argv, NULL, &a, NULL) == 0) {
        char *json = lcsb_attestation_json(&a);
        char summary[256];
        lcsb_attestation_summary(&a, summary, sizeof summary);
        free(json);
    }
    free(header);
    return 0;
}
