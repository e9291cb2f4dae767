/* libFuzzer target: the shim's policy parser, on hostile argv.
 *
 * The shim stays one file with nothing in it for tests (DESIGN.md rule 2), so
 * this includes it whole with its main renamed, and drives the checking pass
 * of read_policy (ruleset_fd -1: parse and validate, open nothing). The input
 * is split on NUL bytes into argv strings, as the kernel would hand them over. */
int lcsb_exec_main(int argc, char **argv);
#define main lcsb_exec_main
#include "../../shim/lcsb-exec.c"
#undef main

#include <stdint.h>

/* Refusals print a line each: run with -close_fd_mask=2 to keep them out of
 * the fuzzer's own output. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    enum { MAX_ARGS = 64 };
    char *copy = malloc(size + 1);
    char *argv[MAX_ARGS + 3];
    int argc = 0;

    if (!copy) return 0;
    memcpy(copy, data, size);
    copy[size] = '\0';
    argv[argc++] = "lcsb-exec";
    for (char *p = copy; argc < MAX_ARGS && p <= copy + size; p += strlen(p) + 1)
        argv[argc++] = p;
    argv[argc] = NULL;
    if (argc >= 2) {
        int dashdash = 2;
        while (dashdash < argc && strcmp(argv[dashdash], "--") != 0) dashdash++;
        struct header h;
        (void)read_policy(argv, argc, dashdash, &h, -1);
    }
    free(copy);
    return 0;
}
