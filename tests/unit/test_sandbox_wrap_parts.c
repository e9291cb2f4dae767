/* A large policy splits into parts: every path lands in one part with its
 * tier's rights, each part fits the kernel's limit for one argv string, and
 * the attestation reads the header wherever the parts end. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h> /* after the four above, which it needs */

#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "wrap_fixture.h"

#define ARG_STRLEN_MAX (128 * 1024) /* the kernel's MAX_ARG_STRLEN, NUL included */

/* ---- a large policy splits into parts ---- */

#define MANY 20000
#define MANY_OTHER 300

/* One rule read back from a part: its access list and its paths. */
typedef struct seen_path {
    char *path;
    char *access;
} seen_path;

static int compare_seen(const void *a, const void *b) {
    return strcmp(((const seen_path *)a)->path, ((const seen_path *)b)->path);
}

static int compare_str(const void *a, const void *b) {
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Read PART's rules (the writer's exact shape; paths here need no escapes)
 * into SEEN. */
static void read_part(const char *part, size_t index, seen_path *seen, size_t *n, size_t cap) {
    char head[64];
    snprintf(head, sizeof head, "{\"part\":%zu,\"rules\":[", index);
    if (strncmp(part, head, strlen(head)) != 0) fail_msg("part %zu starts %.60s", index, part);
    size_t len = strlen(part);
    assert_true(len > 4 && strcmp(part + len - 4, "]}]}") == 0);
    const char *p = part + strlen(head);
    for (;;) {
        if (strncmp(p, "{\"access\":[", 11) != 0) fail_msg("rule expected at %.60s", p);
        const char *access = p + 11;
        const char *access_end = strstr(access, "],\"paths\":[");
        assert_non_null(access_end);
        p = access_end + 11;
        for (;;) {
            assert_int_equal(*p, '"');
            const char *end = strchr(p + 1, '"');
            assert_non_null(end);
            assert_true(*n < cap);
            seen[*n].path = strndup(p + 1, (size_t)(end - p - 1));
            seen[*n].access = strndup(access, (size_t)(access_end - access));
            (*n)++;
            p = end + 1;
            if (*p == ',') {
                p++;
                continue;
            }
            assert_int_equal(*p, ']');
            break;
        }
        assert_int_equal(p[1], '}');
        p += 2;
        if (*p == ',') {
            p++;
            continue;
        }
        assert_string_equal(p, "]}");
        break;
    }
}

static void test_many_paths_split(void **state) {
    (void)state;
    lcsb_policy *p = lcsb_policy_new();
    size_t total = MANY + 2 * MANY_OTHER;
    char **expect = calloc(total, sizeof *expect);
    assert_non_null(expect);
    char path[256];
    size_t k = 0;
    for (int i = 0; i < MANY; i++) {
        snprintf(path, sizeof path, "/p/dir%06d/file-with-a-reasonably-long-name-%06d.txt", i, i);
        add(p, LCSB_TIER_READ, path);
        expect[k++] = strdup(path);
    }
    /* Backwards and twice over, to see the writer sort and drop repeats. */
    for (int i = MANY_OTHER - 1; i >= 0; i--) {
        snprintf(path, sizeof path, "/x/bin/tool%04d", i);
        add(p, LCSB_TIER_EXEC, path);
        add(p, LCSB_TIER_EXEC, path);
        expect[k++] = strdup(path);
        snprintf(path, sizeof path, "/w/out%04d", i);
        add(p, LCSB_TIER_WRITE, path);
        expect[k++] = strdup(path);
    }
    assert_int_equal(k, total);
    lcsb_backend *b = landlock(7);
    static const char *const cmd[] = {"make", "-j8", NULL};
    char **out = wrap(b, p, cmd);

    size_t argc = argc_of(out);
    size_t parts = 0;
    assert_int_equal(sscanf(out[1], "{\"lcsb-exec\":5,\"abi\":7,\"parts\":%zu,", &parts), 1);
    assert_true(parts >= 5); /* about a megabyte of paths */
    assert_int_equal(argc, 1 + 1 + parts + 1 + 2);
    assert_string_equal(out[0], SHIM);
    assert_string_equal(out[2 + parts], "--");
    assert_string_equal(out[3 + parts], "make");
    assert_string_equal(out[4 + parts], "-j8");

    seen_path *seen = calloc(total + 1, sizeof *seen);
    assert_non_null(seen);
    size_t n = 0;
    for (size_t i = 0; i < parts; i++) {
        const char *part = out[2 + i];
        assert_true(strlen(part) + 1 <= ARG_STRLEN_MAX);
        assert_true(strlen(part) <= LCSB__WIRE_PART_MAX);
        read_part(part, i + 1, seen, &n, total + 1);
    }
    assert_int_equal(n, total);
    qsort(seen, n, sizeof *seen, compare_seen);
    qsort(expect, total, sizeof *expect, compare_str);
    for (size_t i = 0; i < total; i++) {
        if (strcmp(seen[i].path, expect[i]) != 0)
            fail_msg("path %zu: seen %s, expected %s", i, seen[i].path, expect[i]);
        const char *access = seen[i].access;
        bool ok = strncmp(expect[i], "/p/", 3) == 0
                      ? strcmp(access, "\"read_file\",\"read_dir\"") == 0
                  : strncmp(expect[i], "/x/", 3) == 0
                      ? strcmp(access, "\"execute\",\"read_file\",\"read_dir\"") == 0
                      : strncmp(access, "\"write_file\",\"read_file\",\"read_dir\",", 35) == 0 &&
                            !strstr(access, "execute");
        if (!ok) fail_msg("%s granted [%s]", seen[i].path, seen[i].access);
    }
    /* The attestation reads the header wherever the parts end. */
    lcsb_attestation a = attest(out);
    assert_string_equal(lcsb_attestation_value(&a, "backend"), "landlock");
    assert_string_equal(lcsb_attestation_value(&a, "exec"), "allowlist");

    for (size_t i = 0; i < n; i++) {
        free(seen[i].path);
        free(seen[i].access);
    }
    for (size_t i = 0; i < total; i++) free(expect[i]);
    free(seen);
    free(expect);
    lcsb_argv_free(out);
    lcsb_policy_free(p);
    lcsb_backend_free(b);
}

/* Paths of PATH_MAX - 1 bytes: a part never cuts one, each part still fits. */
static void test_longest_paths_split(void **state) {
    (void)state;
    lcsb_policy *p = lcsb_policy_new();
    char *path = malloc(PATH_MAX);
    assert_non_null(path);
    for (int i = 0; i < 100; i++) {
        memset(path, 'a' + i % 26, PATH_MAX - 1);
        path[0] = '/';
        snprintf(path + 1, 8, "%06d", i);
        path[7] = '/';
        path[PATH_MAX - 1] = '\0';
        add(p, LCSB_TIER_READ, path);
    }
    lcsb_backend *b = landlock(7);
    static const char *const cmd[] = {"true", NULL};
    char **out = wrap(b, p, cmd);
    size_t parts = 0;
    assert_int_equal(sscanf(out[1], "{\"lcsb-exec\":5,\"abi\":7,\"parts\":%zu,", &parts), 1);
    assert_true(parts >= 4);
    size_t paths = 0;
    for (size_t i = 0; i < parts; i++) {
        assert_true(strlen(out[2 + i]) <= LCSB__WIRE_PART_MAX);
        for (const char *q = out[2 + i]; (q = strstr(q, "\"/0")); q++) {
            const char *end = strchr(q + 1, '"');
            assert_int_equal(end - q - 1, PATH_MAX - 1);
            paths++;
        }
    }
    assert_int_equal(paths, 100);
    assert_string_equal(out[2 + parts], "--");
    lcsb_argv_free(out);
    lcsb_policy_free(p);
    lcsb_backend_free(b);
    free(path);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_many_paths_split),
        cmocka_unit_test(test_longest_paths_split),
    };
    return cmocka_run_group_tests_name("sandbox_wrap_parts", tests, NULL, NULL);
}
