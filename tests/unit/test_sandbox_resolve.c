/* Program names to files (resolve.c): what a #! line names. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "facts.h"
#include "helpers.h"
#include "resolve.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* A #! line names what runs a script; env's options that take a word
 * (-u NAME) are no program, and an interpreter that is not executable is
 * refused: a line the command rewrote cannot grant a host file. */
static void test_resolve_shebang_options(void **state) {
    (void)state;
    char dir[] = "/tmp/lcsb-api.XXXXXX", script[PATH_MAX], secret[PATH_MAX], text[2 * PATH_MAX];
    assert_non_null(mkdtemp(dir));
    write_file(path_in(secret, dir, "settings.xml"), "<password>x</password>\n");
    path_in(script, dir, "test.sh");
    FMT(text, "#!/usr/bin/env -S -u %s sh\necho hi\n", secret);
    write_file(script, text);
    assert_int_equal(chmod(script, 0755), 0);
    char **files = NULL;
    lcsb_error err;
    if (lcsb_resolve_program(script, &files, &err)) fail_msg("resolve: %s", err.message);
    for (size_t i = 0; files[i]; i++) assert_string_not_equal(files[i], secret);
    bool sh = false;
    for (size_t i = 0; files[i]; i++) sh |= strstr(files[i], "sh") && strstr(files[i], "/bin/");
    assert_true(sh);
    lcsb_argv_free(files);
    /* The file itself as the interpreter: not executable, refused. */
    FMT(text, "#!%s\n", secret);
    write_file(script, text);
    assert_int_equal(lcsb_resolve_program(script, &files, &err), LCSB_EINVAL);
    assert_contains(err.message, "not executable");
    FMT(text, "#!/usr/bin/env %s\n", secret);
    write_file(script, text);
    assert_int_equal(lcsb_resolve_program(script, &files, &err), LCSB_EINVAL);
    rm_rf(dir);
}

/* Where a name was found is the PATH entry's own path, its last part not
 * resolved (a link to a directory there is what the planted checks look
 * at): past a relative entry, one without the name, one whose file is not
 * executable, and through a symlinked entry ahead of its target. The same
 * through a composition's facts as asked of the host, and a name with a
 * slash is where it is named. */
static void test_resolve_located(void **state) {
    (void)state;
    char dir[] = "/tmp/lcsb-located.XXXXXX", real[PATH_MAX], link[PATH_MAX], plain[PATH_MAX],
         empty[PATH_MAX], prog[PATH_MAX], path_var[8 * PATH_MAX], want[PATH_MAX], at[PATH_MAX];
    assert_non_null(mkdtemp(dir));
    path_in(real, dir, "real");
    path_in(link, dir, "link");
    path_in(plain, dir, "plain");
    path_in(empty, dir, "empty");
    assert_int_equal(mkdir(real, 0755), 0);
    assert_int_equal(mkdir(plain, 0755), 0);
    assert_int_equal(mkdir(empty, 0755), 0);
    assert_int_equal(symlink("real", link), 0);
    write_file(path_in(prog, real, "lcsb-located-prog"), "#!/bin/sh\n");
    assert_int_equal(chmod(prog, 0755), 0);
    write_file(path_in(want, plain, "lcsb-located-prog"), "#!/bin/sh\n"); /* not executable */
    const char *saved = getenv("PATH");
    char *was = saved ? strdup(saved) : NULL;
    FMT(path_var, "bin:%s:%s:%s:%s:/usr/bin:/bin", empty, plain, link, real);
    assert_int_equal(setenv("PATH", path_var, 1), 0);
    path_in(want, link, "lcsb-located-prog");
    lcsb__facts *facts = lcsb__facts_new();
    assert_non_null(facts);
    lcsb__facts_record(facts, true);
    for (int through_facts = 0; through_facts < 2; through_facts++) {
        char **files = NULL;
        lcsb_error err;
        at[0] = '\0';
        if (lcsb__resolve_program_at(through_facts ? facts : NULL, "lcsb-located-prog", &files, at,
                                     &err))
            fail_msg("resolve: %s", err.message);
        assert_string_equal(at, want);
        char resolved[PATH_MAX];
        assert_non_null(realpath(prog, resolved));
        assert_string_equal(files[0], resolved);
        lcsb_argv_free(files);
        if (lcsb__resolve_program_at(through_facts ? facts : NULL, want, &files, at, &err))
            fail_msg("resolve: %s", err.message);
        assert_string_equal(at, want);
        lcsb_argv_free(files);
    }
    lcsb__facts_free(facts);
    if (was)
        setenv("PATH", was, 1);
    else
        unsetenv("PATH");
    free(was);
    rm_rf(dir);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_resolve_shebang_options),
        cmocka_unit_test(test_resolve_located),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
