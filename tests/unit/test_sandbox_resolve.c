/* Program names to files (resolve.c): what a #! line names. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "helpers.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

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

/* The summary of a change counts lines as a diff would: a line changed
 * and one appended are two added and one removed, not the span between. */
int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_resolve_shebang_options),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
