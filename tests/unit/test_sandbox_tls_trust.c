/* The bundle and the Java truststore a run's clients trust (proxy_tls.c's
 * lcsb__tls_write_trust): written in the directory lcsb holds open, by
 * name, and removed there when writing fails, wherever the paths that name
 * them in messages have come to lead. A command that can write where
 * lcsb's TMPDIR is may put another directory (or a symlink) in the place of
 * the run's: nothing of its is written or removed. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h> /* after the four above, which it needs */

#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "helpers.h"
#include "proxy_tls.h"

/* A run's authority, as interception makes one; a directory of the test's
 * own, open, and another that the paths name. */
typedef struct fixture {
    lcsb__tls *tls;
    char held[PATH_MAX], named[PATH_MAX];
    char bundle[PATH_MAX + 32], truststore[PATH_MAX + 32];
    int fd;
} fixture;

static int set_up(void **state) {
    fixture *f = calloc(1, sizeof *f);
    lcsb_error err;
    assert_non_null(f);
    if (lcsb__tls_new(&f->tls, &err)) fail_msg("lcsb__tls_new: %s", err.message);
    snprintf(f->held, sizeof f->held, "/tmp/lcsb-tls-held.XXXXXX");
    snprintf(f->named, sizeof f->named, "/tmp/lcsb-tls-named.XXXXXX");
    assert_non_null(mkdtemp(f->held));
    assert_non_null(mkdtemp(f->named));
    snprintf(f->bundle, sizeof f->bundle, "%s/certificates.pem", f->named);
    snprintf(f->truststore, sizeof f->truststore, "%s/truststore.jks", f->named);
    f->fd = open(f->held, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    assert_true(f->fd >= 0);
    *state = f;
    return 0;
}

static int tear_down(void **state) {
    fixture *f = *state;
    rm_rf(f->held);
    rm_rf(f->named);
    close(f->fd);
    lcsb__tls_free(f->tls);
    free(f);
    return 0;
}

static bool there(const char *dir, const char *name) {
    char path[PATH_MAX + 32];
    struct stat st;
    snprintf(path, sizeof path, "%s/%s", dir, name);
    return lstat(path, &st) == 0;
}

static void test_written_in_the_held_directory(void **state) {
    fixture *f = *state;
    lcsb_error err;
    assert_int_equal(lcsb__tls_write_trust(f->tls, f->fd, f->bundle, f->truststore, &err), 0);
    assert_true(there(f->held, "certificates.pem"));
    assert_true(there(f->held, "truststore.jks"));
    assert_false(there(f->named, "certificates.pem"));
    assert_false(there(f->named, "truststore.jks"));
}

/* The truststore cannot be made (one is there): the bundle just written is
 * removed in the held directory, and the files the paths name, elsewhere,
 * stay. */
static void test_removed_in_the_held_directory(void **state) {
    fixture *f = *state;
    lcsb_error err;
    char path[PATH_MAX + 32];
    snprintf(path, sizeof path, "%s/truststore.jks", f->held);
    write_file(path, "in the way\n");
    write_file(f->bundle, "not lcsb's\n");
    write_file(f->truststore, "not lcsb's\n");
    assert_int_not_equal(lcsb__tls_write_trust(f->tls, f->fd, f->bundle, f->truststore, &err), 0);
    assert_non_null(strstr(err.message, "cannot write the Java truststore"));
    assert_false(there(f->held, "certificates.pem"));
    assert_true(there(f->named, "certificates.pem"));
    assert_true(there(f->named, "truststore.jks"));
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_written_in_the_held_directory, set_up, tear_down),
        cmocka_unit_test_setup_teardown(test_removed_in_the_held_directory, set_up, tear_down),
    };
    return cmocka_run_group_tests_name("sandbox_tls_trust", tests, NULL, NULL);
}
