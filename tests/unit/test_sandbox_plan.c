/* A plan's record of what is missing in HOME (plan.c): kept while HOME's
 * times hold; when they moved, each missing path is asked again, those
 * whose first component HOME's listing lacks answered from that listing.
 * What the listing cannot answer (a path below a directory of HOME that is
 * there now) is asked of the path itself: there, the plan is not used. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "facts.h"
#include "helpers.h"
#include "plan.h"
#include "sys.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define KEY "test key"

static char root[64], home[128];

static int setup(void **state) {
    (void)state;
    snprintf(root, sizeof root, "/tmp/lcsb-test-plan.XXXXXX");
    if (!mkdtemp(root)) return -1;
    char state_dir[128];
    snprintf(state_dir, sizeof state_dir, "%s/state", root);
    snprintf(home, sizeof home, "%s/home", root);
    if (mkdir(state_dir, 0700) || mkdir(home, 0700)) return -1;
    setenv("XDG_STATE_HOME", state_dir, 1);
    setenv("HOME", home, 1);
    return 0;
}

static int teardown(void **state) {
    (void)state;
    rm_rf(root);
    return 0;
}

static char *in_home(char *buf, const char *rel) {
    snprintf(buf, PATH_MAX, "%s/%s", home, rel);
    return buf;
}

/* Whether the plan for KEY is used now; WHY says why not. */
static bool used(char *why, size_t size) {
    char *data = NULL;
    size_t len = 0;
    int rc = lcsb__plan_find(KEY, strlen(KEY), &data, &len, why, size);
    free(data);
    return rc == 0;
}

/* The plan of a composition that asked for a/b alone, neither there,
 * begun LATER seconds from now: 2, and what is in HOME is older than a
 * second before it, so that HOME's times may stand for what is missing; 0,
 * and HOME (made just now) changed too lately for that. */
static void keep_plan(int later) {
    char path[PATH_MAX], why[PATH_MAX + 100];
    struct stat st;
    lcsb__facts *facts = lcsb__facts_new();
    assert_non_null(facts);
    lcsb__facts_record(facts, true);
    assert_int_equal(lcsb__facts_lstat(facts, in_home(path, "a/b"), &st), -1);
    assert_int_equal(errno, ENOENT);
    lcsb__facts_record(facts, false);
    struct timespec made = lcsb__fs_now();
    made.tv_sec += later;
    assert_int_equal(
        lcsb__plan_save(KEY, strlen(KEY), facts, made, NULL, 0, "x", 1, why, sizeof why), 0);
    lcsb__facts_free(facts);
}

/* a comes, b not in it: asked of a/b itself, still missing, the plan used;
 * then b comes: the plan is not used. */
static void a_then_b_come(void) {
    char path[PATH_MAX], why[PATH_MAX + 100];
    assert_int_equal(mkdir(in_home(path, "a"), 0700), 0);
    assert_true(used(why, sizeof why));
    assert_int_equal(mkdir(in_home(path, "a/b"), 0700), 0);
    assert_false(used(why, sizeof why));
    assert_non_null(strstr(why, "/a/b changed"));
}

static void test_missing_in_home(void **state) {
    (void)state;
    char path[PATH_MAX], why[PATH_MAX + 100];
    keep_plan(2);
    assert_true(used(why, sizeof why));

    /* HOME changed (a shell's history): a/b is still missing, as HOME's
     * listing shows of a. */
    write_file(in_home(path, "history"), "ls\n");
    assert_true(used(why, sizeof why));
    a_then_b_come();
    /* Its twin: gone again, the plan holds again. */
    assert_int_equal(rmdir(in_home(path, "a/b")), 0);
    assert_true(used(why, sizeof why));
    /* a a file, not a directory: lstat of a/b says ENOTDIR, not what was
     * recorded. */
    assert_int_equal(rmdir(in_home(path, "a")), 0);
    write_file(in_home(path, "a"), "");
    assert_false(used(why, sizeof why));
}

/* HOME changed within a second of the composition: its times stand for
 * nothing, each missing path is asked on every run, and still answered
 * from HOME's listing where it can be. */
static void test_missing_in_a_home_just_changed(void **state) {
    (void)state;
    char why[PATH_MAX + 100];
    keep_plan(0);
    assert_true(used(why, sizeof why));
    a_then_b_come();
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_missing_in_home, setup, teardown),
        cmocka_unit_test_setup_teardown(test_missing_in_a_home_just_changed, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
