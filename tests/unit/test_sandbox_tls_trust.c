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

/* A directory of the test's own, open, and another that the paths name. */
typedef struct dirs {
    char held[PATH_MAX], named[PATH_MAX];
    char bundle[PATH_MAX + 32], truststore[PATH_MAX + 32];
    int fd;
} dirs;

static void make_dirs(dirs *d) {
    snprintf(d->held, sizeof d->held, "/tmp/lcsb-tls-held.XXXXXX");
    snprintf(d->named, sizeof d->named, "/tmp/lcsb-tls-named.XXXXXX");
    assert_non_null(mkdtemp(d->held));
    assert_non_null(mkdtemp(d->named));
    snprintf(d->bundle, sizeof d->bundle, "%s/certificates.pem", d->named);
    snprintf(d->truststore, sizeof d->truststore, "%s/truststore.jks", d->named);
    d->fd = open(d->held, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    assert_true(d->fd >= 0);
}

/* A run's authority, as interception makes one. */
static lcsb__tls *new_tls(void) {
    lcsb__tls *t = NULL;
    lcsb_error err;
    if (lcsb__tls_new(&t, &err)) fail_msg("lcsb__tls_new: %s", err.message);
    return t;
}

static void drop(dirs *d, lcsb__tls *t) {
    rm_rf(d->held);
    rm_rf(d->named);
    close(d->fd);
    lcsb__tls_free(t);
}

static bool there(const char *dir, const char *name) {
    char path[PATH_MAX + 32];
    struct stat st;
    snprintf(path, sizeof path, "%s/%s", dir, name);
    return lstat(path, &st) == 0;
}

static void test_written_in_the_held_directory(void **state) {
    (void)state;
    lcsb__tls *t = new_tls();
    lcsb_error err;
    dirs d;
    make_dirs(&d);
    assert_int_equal(lcsb__tls_write_trust(t, d.fd, d.bundle, d.truststore, &err), 0);
    assert_true(there(d.held, "certificates.pem"));
    assert_true(there(d.held, "truststore.jks"));
    assert_false(there(d.named, "certificates.pem"));
    assert_false(there(d.named, "truststore.jks"));
    drop(&d, t);
}

/* The truststore cannot be made (one is there): the bundle just written is
 * removed in the held directory, and the files the paths name, elsewhere,
 * stay. */
static void test_removed_in_the_held_directory(void **state) {
    (void)state;
    lcsb__tls *t = new_tls();
    lcsb_error err;
    dirs d;
    make_dirs(&d);
    char path[PATH_MAX + 32];
    snprintf(path, sizeof path, "%s/truststore.jks", d.held);
    write_file(path, "in the way\n");
    write_file(d.bundle, "not lcsb's\n");
    write_file(d.truststore, "not lcsb's\n");
    assert_int_not_equal(lcsb__tls_write_trust(t, d.fd, d.bundle, d.truststore, &err), 0);
    assert_non_null(strstr(err.message, "cannot write the Java truststore"));
    assert_false(there(d.held, "certificates.pem"));
    assert_true(there(d.named, "certificates.pem"));
    assert_true(there(d.named, "truststore.jks"));
    drop(&d, t);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_written_in_the_held_directory),
        cmocka_unit_test(test_removed_in_the_held_directory),
    };
    return cmocka_run_group_tests_name("sandbox_tls_trust", tests, NULL, NULL);
}
