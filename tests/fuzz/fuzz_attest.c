/* libFuzzer target: the attestation's reading of a final argv. lcsb_attest
 * reads whatever argv a host hands it, so its mechanism's words may be
 * anything. An input that starts with "oci\n" is an engine's argv, one word
 * per line (read with and without a launcher prefix inside it); one that
 * starts with '(' is a Seatbelt profile (the profile position of a
 * sandbox-exec argv); any other input is a shim header. */
#include "lcsb.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void attest(const char *const *argv, const char *const *prefix) {
    lcsb_attestation a;
    if (lcsb_attest(argv, prefix, &a, NULL) == 0) {
        char *json = lcsb_attestation_json(&a);
        char summary[256];
        lcsb_attestation_summary(&a, summary, sizeof summary);
        free(json);
    }
}

#define OCI_WORDS_MAX 256

static void attest_engine_argv(char *text) {
    const char *argv[OCI_WORDS_MAX + 1];
    size_t n = 0;
    for (char *word = text; word && n < OCI_WORDS_MAX; n++) {
        argv[n] = word;
        word = strchr(word, '\n');
        if (word) *word++ = '\0';
    }
    argv[n] = NULL;
    static const char *const prefix[] = {"uv", "run", "--", NULL};
    attest(argv, NULL);
    attest(argv, prefix);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    char *text = malloc(size + 1);
    if (!text) return 0;
    memcpy(text, data, size);
    text[size] = '\0'; /* argv strings end at the first NUL, as here */
    if (strncmp(text, "oci\n", 4) == 0) {
        attest_engine_argv(text + 4);
    } else if (text[0] == '(') {
        /* One parameter of each tier the seed's profile names. */
        const char *argv[] = {"/usr/bin/sandbox-exec", "-p", text, "-D", "READ0=/r", "-D",
                              "EXEC0=/e", "-D", "WRITE0=/w", "--", "true", NULL};
        attest(argv, NULL);
    } else {
        const char *argv[] = {"/usr/libexec/lcsb/lcsb-exec", text, "--", "true", NULL};
        attest(argv, NULL);
    }
    free(text);
    return 0;
}
