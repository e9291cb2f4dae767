/* The private directories lcsb makes on the host, where no world of the
 * command's own makes them (private.c): which directory found at such a
 * path it takes as its own, and that it holds one descriptor for each.
 * Whether a policy may name one at all is validation's
 * (test_sandbox_policy_validate.c). */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h> /* after the four above, which it needs */

#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "policy.h"
#include "private.h"

static char fixture[PATH_MAX]; /* where the cases make their directories */

static int fixture_setup(void **state) {
    (void)state;
    char tmpl[] = "/tmp/lcsb-private-test.XXXXXX";
    return mkdtemp(tmpl) && realpath(tmpl, fixture) ? 0 : -1;
}

static int fixture_teardown(void **state) {
    (void)state;
    return rmdir(fixture);
}

/* Where lcsb makes a private directory on the host, one there already is
 * taken only as the very directory this process made: not another made at
 * that name since (the inode the first had is held, so never given to it),
 * not one made before with the host's files in it. */
static void test_private_made_is_the_one_made(void **state) {
    (void)state;
    lcsb_error err = {0};
    char dir[PATH_MAX + 16];
    snprintf(dir, sizeof dir, "%s/private", fixture);
    lcsb_policy *p = lcsb_policy_new();
    assert_int_equal(lcsb__policy_add_private(p, dir, NULL, &err), 0);
    assert_int_equal(lcsb__private_make(p, &err), 0);
    assert_int_equal(lcsb__private_make(p, &err), 0); /* its own, the next run */
    /* Made anew by someone else, with a file of the host's in it. */
    assert_int_equal(rmdir(dir), 0);
    assert_int_equal(mkdir(dir, 0700), 0);
    char file[PATH_MAX + 32];
    snprintf(file, sizeof file, "%s/host", dir);
    FILE *f = fopen(file, "w");
    assert_non_null(f);
    fclose(f);
    assert_int_not_equal(lcsb__private_make(p, &err), 0);
    assert_non_null(strstr(err.message, "lcsb did not make"));
    /* Nor taken as made when it is found so just after the mkdir. */
    assert_int_not_equal(lcsb__private_made(dir, &err), 0);
    assert_non_null(strstr(err.message, "not the empty directory lcsb made"));
    lcsb__private_gone(dir);
    assert_int_equal(unlink(file), 0);
    assert_int_equal(rmdir(dir), 0);
    /* Its twin: nothing there, it is made. */
    assert_int_equal(lcsb__private_make(p, &err), 0);
    lcsb__private_gone(dir);
    assert_int_equal(rmdir(dir), 0);
    lcsb_policy_free(p);
}

/* How many descriptors this process has open. */
static int open_fds(void) {
    DIR *d = opendir("/proc/self/fd");
    int n = 0;
    while (d && readdir(d)) n++;
    if (d) closedir(d);
    return n;
}

/* A directory removed between runs (by the host, by the command) and made
 * again takes the place of the one before: one held descriptor per path,
 * however many runs. */
static void test_private_made_again_holds_one(void **state) {
    (void)state;
    lcsb_error err = {0};
    char dir[PATH_MAX + 16];
    snprintf(dir, sizeof dir, "%s/again", fixture);
    lcsb_policy *p = lcsb_policy_new();
    assert_int_equal(lcsb__policy_add_private(p, dir, NULL, &err), 0);
    assert_int_equal(lcsb__private_make(p, &err), 0);
    int fds = open_fds();
    for (int run = 0; run < 20; run++) {
        assert_int_equal(rmdir(dir), 0);
        assert_int_equal(lcsb__private_make(p, &err), 0);
    }
    assert_int_equal(open_fds(), fds);
    lcsb__private_gone(dir);
    assert_int_equal(open_fds(), fds - 1);
    assert_int_equal(rmdir(dir), 0);
    lcsb_policy_free(p);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_private_made_is_the_one_made),
        cmocka_unit_test(test_private_made_again_holds_one),
    };
    return cmocka_run_group_tests_name("sandbox_private", tests, fixture_setup, fixture_teardown);
}
