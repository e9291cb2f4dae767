/* libFuzzer target: the shim's wire reader (shim/wire.c), on hostile argv.
 *
 * The input is split on NUL bytes into argv strings, as the kernel would hand
 * them over, and read as the shim reads it: once with no sink, the pass that
 * only checks; then, when that accepts it, once more with a sink that stands
 * in for the enforcement and holds each item to what the checks promise it.
 * Nothing is opened, added or mounted. */
#define _GNU_SOURCE
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "wire.h"

/* What the enforcing pass may rely on once the checking pass has accepted. */
static int check_port(void *ctx, uint64_t port, uint64_t access) {
    if (port > 65535 || access == 0) abort();
    return 0;
}

static int check_path(void *ctx, const char *path, uint64_t access) {
    if (path[0] != '/' || strlen(path) >= PATH_MAX || access == 0) abort();
    return 0;
}

static int check_protect(void *ctx, const char *path) {
    if (path[0] != '/' || strlen(path) >= PATH_MAX) abort();
    return 0;
}

/* A relative path below where it starts: no "", "." or ".." component. */
static int stays_below(const char *s) {
    for (const char *p = s;;) {
        size_t n = strcspn(p, "/");
        if (n == 0 || (n == 1 && p[0] == '.') || (n == 2 && p[0] == '.' && p[1] == '.')) return 0;
        if (p[n] == '\0') return 1;
        p += n + 1;
    }
}

static int check_private(void *ctx, const char *path) {
    if (path[0] != '/' || strlen(path) >= PATH_MAX || !stays_below(path + 1)) abort();
    return 0;
}

static int check_link(void *ctx, const char *dir, const char *rel, const char *target) {
    check_private(ctx, dir);
    if (!stays_below(rel) || strlen(rel) >= PATH_MAX || target[0] != '/') abort();
    return 0;
}

/* Refusals print a line each: run with -close_fd_mask=2 to keep them out of
 * the fuzzer's own output. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    enum { MAX_ARGS = 64 };
    static const struct policy_sink enforce = {.on_port = check_port,
                                               .on_path = check_path,
                                               .on_protect = check_protect,
                                               .on_hide = check_protect,
                                               .on_private = check_private,
                                               .on_link = check_link};
    char *copy = malloc(size + 1);
    char *argv[MAX_ARGS + 3];
    int argc = 0;

    if (!copy) return 0;
    memcpy(copy, data, size);
    copy[size] = '\0';
    argv[argc++] = "lcsb-exec";
    for (char *p = copy; argc < MAX_ARGS && p <= copy + size; p += strlen(p) + 1) argv[argc++] = p;
    argv[argc] = NULL;
    if (argc >= 2) {
        int dashdash = 2;
        while (dashdash < argc && strcmp(argv[dashdash], "--") != 0) dashdash++;
        struct header h;
        if (read_policy(argv, argc, dashdash, &h, NULL) == 0 &&
            read_policy(argv, argc, dashdash, &h, &enforce) != 0)
            abort(); /* the same bytes, read twice, must get the same answer */
    }
    free(copy);
    return 0;
}
