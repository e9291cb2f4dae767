/* What the shim runs: a valid policy, however it is spelled, runs the
 * command (which makes the refusals of test_sandbox_shim_refusals.c mean
 * something), and the command gets only what the rules grant. The fixture and
 * its templates are in shim_fixture.h. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h> /* after the four above, which it needs */

#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "shim_fixture.h"

#define ARG_LIMIT (128 * 1024) /* MAX_ARG_STRLEN, NUL included */
#define MANY_PATHS 20000

/* The seam's env hop (`/usr/bin/env -u NAME -- NAME=VALUE CMD`) is carried
 * out by the shim, not executed: with /usr/bin/env not executable, the hop
 * still runs CMD, and CMD sees the environment env would have made. The
 * twin: the same hop in a shape the shim leaves to env (no "--") runs env,
 * which the policy refuses (126). */
#define P_NO_ENV                                                                                   \
    "{'part':1,'rules':[{'access':['read_file','read_dir'],'paths':['/usr','/etc']},"              \
    "{'access':['execute','read_file'],'paths':['/usr/bin/touch','/usr/lib']}," RULE_T "]}"

static void test_env_hop_carried_out(void **state) {
    struct fixture *f = *state;
    struct result r;
    const char *elided[] = {H_OK,          P_NO_ENV, "--",       "/usr/bin/env", "-u",
                            "LCSB_T_GONE", "--",     "LCSB_T=1", "{CMD}"};
    const char *exec_env[] = {H_OK, P_NO_ENV, "--", "/usr/bin/env", "LCSB_T=1", "{CMD}"};
    const char *sees[] = {H_OK,
                          P_OK,
                          "--",
                          "/usr/bin/env",
                          "-u",
                          "LCSB_T_GONE",
                          "--",
                          "LCSB_T=a=b",
                          "PATH=/nowhere:/usr/bin",
                          "sh",
                          "-c",
                          "test \"$LCSB_T\" = a=b && test -z \"${LCSB_T_GONE+set}\" && "
                          "test \"$PATH\" = /nowhere:/usr/bin && touch \"$0\""};

    require_landlock();
    setenv("LCSB_T_GONE", "x", 1);
    free_args(f);
    set_args(f, elided, 9);
    run(f, NULL, &r);
    if (r.status != 0) print_error("hop: stderr: %s", r.err);
    assert_int_equal(r.status, 0);
    assert_true(exists(f->marker));
    unlink(f->marker);

    free_args(f);
    set_args(f, exec_env, 6);
    run(f, NULL, &r);
    assert_int_equal(r.status, 126);
    assert_false(exists(f->marker));

    /* What the command sees; sh found through the new PATH, as env would. */
    free_args(f);
    set_args(f, sees, 12);
    f->args[12] = strdup(f->marker);
    f->args[13] = NULL;
    run(f, NULL, &r);
    unsetenv("LCSB_T_GONE");
    if (r.status != 0) print_error("environment: stderr: %s", r.err);
    assert_int_equal(r.status, 0);
    assert_true(exists(f->marker));
}

static void test_valid_policy_runs(void **state) {
    static const char *const headers[] = {H_OK, H_SOCKETS("unix"), H_SOCKETS("unix+tcp"),
                                          H_READONLY};
    struct fixture *f = *state;
    struct result r;

    require_landlock();
    for (size_t i = 0; i < sizeof headers / sizeof headers[0]; i++) {
        for (size_t k = 0; f->args[k] != NULL; k++) free(f->args[k]);
        set_valid_header(f, headers[i], NULL);
        unlink(f->marker);
        run(f, NULL, &r);
        if (r.status != 0) print_error("%s: stderr: %s", headers[i], r.err);
        assert_int_equal(r.status, 0);
        assert_true(exists(f->marker));
        assert_string_equal(r.err, "");
    }
}

/* Whitespace, escapes and any order of the header's later keys are JSON the
 * shim must read as the same policy. */
static void test_valid_policy_spelled_differently(void **state) {
    struct fixture *f = *state;
    const char *tmpls[] = {
        " {\n\t'lcsb-exec' : 5 ,\r\n 'scope':[ ], 'sockets' : 'unix\\u002btcp', 'dropped' : [ ], "
        "'world':'open', 'limits' : { }, 'proxy' : 0, 'protect' : [ ], 'hide':[], 'parts':1,"
        "'abi' :1, 'net':[],'ports':[],"
        "'fs':['\\u0065xecute','write\\u005ffile','read_file','read_dir','make_reg']} ",
        ("{'part':1,\n'rules':[ {SYS} , {'access':['write_file','make_reg'],"
         "'paths':['{TESC}']} ]}\n"),
        "--", "{CMD}"};
    struct result r;

    require_landlock();
    set_args(f, tmpls, 4);
    run(f, NULL, &r);
    if (r.status != 0) print_error("stderr: %s", r.err);
    assert_int_equal(r.status, 0);
    assert_true(exists(f->marker));
}

/* Paths are byte strings: a control byte arrives escaped, a byte above 0x7f
 * raw, and both must reach open() as the bytes they stand for. */
static void test_path_bytes_decoded(void **state) {
    struct fixture *f = *state;
    const char *tmpls[] = {H_OK,
                           "{'part':1,'rules':[{SYS},{'access':['write_file','make_reg'],"
                           "'paths':['{T}\\/odd\\u0001\xe9\\u007f\\\\']}]}",
                           "--", "/usr/bin/touch", NULL};
    char odd[128], inside[160];
    struct result r;

    require_landlock();
    snprintf(odd, sizeof odd, "%s/odd\x01\xe9\x7f\\", f->dir);
    snprintf(inside, sizeof inside, "%s/file", odd);
    assert_int_equal(mkdir(odd, 0755), 0);
    set_args(f, tmpls, 4);
    f->args[4] = strdup(inside);
    f->args[5] = NULL;
    run(f, NULL, &r);
    if (r.status != 0) print_error("stderr: %s", r.err);
    assert_int_equal(r.status, 0);
    assert_true(exists(inside));
}

/* Every right, net and scope of the newest ABI, so the ruleset's full size
 * and every name reach the kernel. */
static void test_valid_policy_newest_abi(void **state) {
    struct fixture *f = *state;
    const char *tmpls[] = {
        "{'lcsb-exec':5,'abi':7,'parts':1,'fs':['execute','write_file','read_file','read_dir',"
        "'remove_dir','remove_file','make_char','make_dir','make_reg','make_sock','make_fifo',"
        "'make_block','make_sym','refer','truncate','ioctl_dev'],'net':['bind_tcp',"
        "'connect_tcp'],'ports':[{'access':['connect_tcp'],'ports':[0,443,65535]},"
        "{'access':['bind_tcp','connect_tcp'],'ports':[8080]}],"
        "'scope':['abstract_unix_socket','signal'],'sockets':'unix+tcp','dropped':[],"
        "'world':'open','protect':[],'hide':[],'limits':{},'proxy':0}",
        ("{'part':1,'rules':[{SYS},{'access':['write_file','make_reg','truncate'],"
         "'paths':['{T}']}]}"),
        "--", "{CMD}"};
    struct result r;

    require_landlock();
    if (kernel_abi < 7) skip();
    set_args(f, tmpls, 4);
    run(f, NULL, &r);
    if (r.status != 0) print_error("stderr: %s", r.err);
    assert_int_equal(r.status, 0);
    assert_true(exists(f->marker));
}

/* Landlock ABI 9 holds connecting to a pathname unix socket
 * (resolve_unix). The shim knows it: on a kernel that has it, a socket
 * outside the rules cannot be connected to; on an older one the header is
 * refused by name (97), never run with less. */
static void test_resolve_unix(void **state) {
    struct fixture *f = *state;
    const char *tmpls[] = {
        "{'lcsb-exec':5,'abi':9,'parts':1,'fs':['execute','write_file','read_file','read_dir',"
        "'make_reg','resolve_unix'],'net':[],'ports':[],'scope':[],'sockets':'any','dropped':[],"
        "'world':'open','protect':[],'hide':[],'limits':{},'proxy':0}",
        ("{'part':1,'rules':[{SYS},{'access':['write_file','make_reg','resolve_unix'],"
         "'paths':['{T}']}]}"),
        "--", "{CMD}"};
    struct result r;

    require_landlock();
    set_args(f, tmpls, 4);
    run(f, NULL, &r);
    if (kernel_abi < 9) {
        assert_int_equal(r.status, 97);
        assert_non_null(strstr(r.err, "it needs Landlock ABI 9 and this kernel has ABI"));
        assert_false(exists(f->marker));
    } else {
        if (r.status != 0) print_error("stderr: %s", r.err);
        assert_int_equal(r.status, 0);
        assert_true(exists(f->marker));
    }
}

/* A file rule naming only directory rights is dropped, not refused. */
static void test_directory_rights_on_a_file_are_dropped(void **state) {
    struct fixture *f = *state;
    struct result r;

    require_landlock();
    set_valid(f, "{'part':1,'rules':[{SYS}," RULE_T ",{'access':['read_dir','make_reg'],"
                 "'paths':['/etc/passwd']}]}");
    run(f, NULL, &r);
    assert_int_equal(r.status, 0);
    assert_true(exists(f->marker));
}

/* A rule's path is opened without following a symlink anywhere along it:
 * the library names real paths, so a symlink there was planted after it
 * looked, and would move the grant to wherever it points. Each case's twin,
 * the same policy through the real path, runs. */
static void test_rule_path_through_symlink(void **state) {
    static const char *const cases[][2] = {
        /* through a symlink, and the real path */
        {"{T}/link", "{T}/real"},          /* the last component, to a directory */
        {"{T}/link/sub", "{T}/real/sub"},  /* a parent component */
        {"{T}/filelink", "{T}/real/file"}, /* the last component, to a file */
    };
    struct fixture *f = *state;
    char path[128], part[512], expect[256];
    struct result r;
    int fd;

    require_landlock();
    snprintf(path, sizeof path, "%s/real", f->dir);
    assert_int_equal(mkdir(path, 0755), 0);
    snprintf(path, sizeof path, "%s/real/sub", f->dir);
    assert_int_equal(mkdir(path, 0755), 0);
    snprintf(path, sizeof path, "%s/real/file", f->dir);
    fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    assert_true(fd >= 0);
    close(fd);
    snprintf(path, sizeof path, "%s/link", f->dir);
    assert_int_equal(symlink("real", path), 0);
    snprintf(path, sizeof path, "%s/filelink", f->dir);
    assert_int_equal(symlink("real/file", path), 0);

    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        for (int real = 0; real <= 1; real++) {
            snprintf(part, sizeof part,
                     "{'part':1,'rules':[{SYS}," RULE_T
                     ",{'access':['read_file'],'paths':['%s']}]}",
                     cases[i][real]);
            free_args(f);
            unlink(f->marker);
            set_valid(f, part);
            run(f, NULL, &r);
            if (real) {
                if (r.status != 0) print_error("%s: stderr: %s", cases[i][1], r.err);
                assert_int_equal(r.status, 0);
                assert_true(exists(f->marker));
                continue;
            }
            char *shown = expand(f, cases[i][0]);
            snprintf(expect, sizeof expect,
                     "lcsb-exec: cannot open %s: the path passes through a symlink", shown);
            free(shown);
            assert_refused(f, &r, expect);
        }
    }
}

static void test_write_not_granted(void **state) {
    struct fixture *f = *state;
    struct result r;

    require_landlock();
    set_valid(f, "{'part':1,'rules':[{SYS}]}");
    run(f, NULL, &r);
    assert_int_not_equal(r.status, 0);
    assert_int_not_equal(r.status, SETUP_FAILED);
    assert_false(exists(f->marker));
}

static void test_command_not_found(void **state) {
    struct fixture *f = *state;
    char *old_path;
    struct result r;

    require_landlock();
    set_valid(f, NULL);
    free(f->args[3]);
    f->args[3] = strdup("/nonexistent/lcsb-no-such-command");
    run(f, NULL, &r);
    assert_int_equal(r.status, 127);
    assert_non_null(strstr(r.err, "lcsb-exec: cannot execute /nonexistent/lcsb-no-such-command"));

    /* Searched on PATH; a PATH entry the user may not search would turn
     * execvp's ENOENT into EACCES, so use one every user can. */
    free(f->args[3]);
    f->args[3] = strdup("lcsb-no-such-command");
    old_path = getenv("PATH") != NULL ? strdup(getenv("PATH")) : NULL;
    setenv("PATH", "/usr/bin:/bin", 1);
    run(f, NULL, &r);
    if (old_path != NULL) setenv("PATH", old_path, 1);
    free(old_path);
    assert_int_equal(r.status, 127);
    assert_false(exists(f->marker));
}

/* A bare name found on PATH as execvp finds it, though the shim writes each
 * candidate itself (so that the init's watch lets the command's own exec
 * through unseen): a directory whose file of that name may not be executed
 * is passed over and remembered, the next one's runs; found nowhere else,
 * it is 126, not the 127 of a name nowhere at all. */
static void test_command_found_on_path(void **state) {
    struct fixture *f = *state;
    char refused[128], found[128], file[160], path[300];
    char *old_path = getenv("PATH") != NULL ? strdup(getenv("PATH")) : NULL;
    struct result r;
    int fd;

    require_landlock();
    snprintf(refused, sizeof refused, "%s/refused", f->dir);
    snprintf(found, sizeof found, "%s/found", f->dir);
    assert_int_equal(mkdir(refused, 0755), 0);
    assert_int_equal(mkdir(found, 0755), 0);
    snprintf(file, sizeof file, "%s/lcsb-t-touch", refused);
    fd = open(file, O_WRONLY | O_CREAT | O_EXCL, 0644);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, "#!/bin/sh\n", 10), 10);
    close(fd);
    snprintf(file, sizeof file, "%s/lcsb-t-touch", found);
    assert_int_equal(symlink("/usr/bin/touch", file), 0);
    set_valid(f, NULL);
    free(f->args[3]);
    f->args[3] = strdup("lcsb-t-touch");

    snprintf(path, sizeof path, "/nonexistent:%s:%s", refused, found);
    setenv("PATH", path, 1);
    run(f, NULL, &r);
    if (r.status != 0) print_error("found: stderr: %s", r.err);
    assert_int_equal(r.status, 0);
    assert_true(exists(f->marker));
    unlink(f->marker);

    snprintf(path, sizeof path, "%s:/nonexistent", refused);
    setenv("PATH", path, 1);
    run(f, NULL, &r);
    assert_int_equal(r.status, 126);
    assert_non_null(strstr(r.err, "Permission denied"));
    assert_false(exists(f->marker));

    /* What the last directory said: a file where a directory should be. */
    snprintf(path, sizeof path, "/nonexistent:%s", file);
    setenv("PATH", path, 1);
    run(f, NULL, &r);
    assert_int_equal(r.status, 127);
    assert_non_null(strstr(r.err, "Not a directory"));

    /* A name no directory can hold: execvp's own answer. musl's says so
     * before it looks (126); glibc's looks, and /nonexistent is not there
     * (127). The shim's own search said "not found" (127) under musl too. */
    free(f->args[3]);
    f->args[3] = calloc(1, NAME_MAX + 2);
    memset(f->args[3], 'y', NAME_MAX + 1);
    setenv("PATH", "/nonexistent", 1);
    run(f, NULL, &r);
    if (old_path != NULL) setenv("PATH", old_path, 1);
    free(old_path);
    assert_int_equal(r.status, LCSB_SHIM_MUSL ? 126 : 127);
    assert_non_null(strstr(r.err, LCSB_SHIM_MUSL ? "too long" : "No such file"));
}

static void test_command_not_executable(void **state) {
    struct fixture *f = *state;
    char script[128];
    struct result r;
    int fd;

    require_landlock();
    snprintf(script, sizeof script, "%s/script", f->dir);
    fd = open(script, O_WRONLY | O_CREAT | O_EXCL, 0644);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, "#!/bin/sh\n", 10), 10);
    close(fd);
    /* The directory's files are executable as far as Landlock goes; the
     * mode alone says no. */
    set_valid(f, "{'part':1,'rules':[{SYS},{'access':['read_file','execute'],"
                 "'paths':['{T}']}]}");
    free(f->args[3]);
    f->args[3] = strdup(script);
    run(f, NULL, &r);
    assert_int_equal(r.status, 126);
    assert_non_null(strstr(r.err, "Permission denied"));
}

static void test_command_exec_denied(void **state) {
    struct fixture *f = *state;
    struct result r;

    require_landlock();
    set_valid(
        f, "{'part':1,'rules':[{'access':['read_file','read_dir'],'paths':['/usr','/etc']}," RULE_T
           "]}");
    run(f, NULL, &r);
    assert_int_equal(r.status, 126);
    assert_false(exists(f->marker));
}

/* 20,000 file rules over several parts, each below the kernel's argv-string
 * limit; reading the last file proves the last part was enforced too, and
 * reading an unlisted one proves the rules are all that was granted. */
static void test_many_paths(void **state) {
    struct fixture *f = *state;
    const size_t part_max = 120 * 1024;
    char many[128], path[192], header[256];
    char *args[64 + 8];
    size_t nargs = 1, len = 0;
    char *cur = NULL;
    struct result r;

    require_landlock();
    snprintf(many, sizeof many, "%s/many", f->dir);
    assert_int_equal(mkdir(many, 0755), 0);
    for (int i = 0; i <= MANY_PATHS; i++) { /* the last one is left out of the policy */
        snprintf(path, sizeof path, "%s/f%05d", many, i);
        int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
        assert_true(fd >= 0);
        close(fd);
    }
    for (int i = 0; i < MANY_PATHS; i++) {
        snprintf(path, sizeof path, "%s/f%05d", many, i);
        if (cur != NULL && len + strlen(path) + 8 > part_max) {
            len += (size_t)sprintf(cur + len, "]}]}");
            args[nargs++] = cur;
            cur = NULL;
        }
        if (cur == NULL) {
            assert_true(nargs < 64);
            cur = xmalloc(part_max + 4096);
            len = (size_t)sprintf(cur, "{\"part\":%zu,\"rules\":[", nargs);
            if (nargs == 1) {
                char *sys = expand(f, "{SYS}," RULE_T ",");
                len += (size_t)sprintf(cur + len, "%s", sys);
                free(sys);
            }
            len += (size_t)sprintf(cur + len, "{\"access\":[\"read_file\"],\"paths\":[");
        } else {
            cur[len++] = ',';
        }
        len += (size_t)sprintf(cur + len, "\"%s\"", path);
    }
    len += (size_t)sprintf(cur + len, "]}]}");
    args[nargs++] = cur;
    snprintf(header, sizeof header,
             "{\"lcsb-exec\":5,\"abi\":1,\"parts\":%zu,\"fs\":[\"execute\",\"write_file\","
             "\"read_file\",\"read_dir\",\"make_reg\"],\"net\":[],\"ports\":[],\"scope\":[],"
             "\"sockets\":\"any\",\"dropped\":[],\"world\":\"open\",\"protect\":[],\"hide\":[],"
             "\"limits\":{},\"proxy\":0}",
             nargs - 1);
    args[0] = header;
    assert_true(nargs - 1 >= 5);
    for (size_t i = 0; i < nargs; i++) assert_true(strlen(args[i]) + 1 < ARG_LIMIT);

    snprintf(path, sizeof path, "%s/f%05d", many, MANY_PATHS - 1);
    args[nargs] = "--";
    args[nargs + 1] = "/bin/sh";
    args[nargs + 2] = "-c";
    args[nargs + 3] = "exec <\"$1\" && exec /usr/bin/touch \"$2\"";
    args[nargs + 4] = "sh";
    args[nargs + 5] = path;
    args[nargs + 6] = f->marker;
    args[nargs + 7] = NULL;
    run_argv(f, args, NULL, &r);
    if (r.status != 0) print_error("stderr: %s", r.err);
    assert_int_equal(r.status, 0);
    assert_true(exists(f->marker));

    assert_int_equal(unlink(f->marker), 0);
    snprintf(path, sizeof path, "%s/f%05d", many, MANY_PATHS);
    run_argv(f, args, NULL, &r);
    assert_int_not_equal(r.status, 0);
    assert_int_not_equal(r.status, SETUP_FAILED);
    assert_false(exists(f->marker));
    for (size_t i = 1; i < nargs; i++) free(args[i]);
}

static void test_version(void **state) {
    struct fixture *f = *state;
    struct result r;
    const char *tmpls[] = {"--version"};

    set_args(f, tmpls, 1);
    run(f, NULL, &r);
    assert_int_equal(r.status, 0);
    assert_string_equal(r.out, "lcsb-exec 5\n");
    assert_string_equal(r.err, "");
}

int main(void) {
    static const struct CMUnitTest tests[] = {
        T(test_version),
        T(test_valid_policy_runs),
        T(test_env_hop_carried_out),
        T(test_valid_policy_spelled_differently),
        T(test_valid_policy_newest_abi),
        T(test_resolve_unix),
        T(test_path_bytes_decoded),
        T(test_directory_rights_on_a_file_are_dropped),
        T(test_rule_path_through_symlink),
        T(test_write_not_granted),
        T(test_command_not_found),
        T(test_command_found_on_path),
        T(test_command_not_executable),
        T(test_command_exec_denied),
        T(test_many_paths),
    };
    return cmocka_run_group_tests_name("sandbox_shim_runs", tests, shim_group_setup, NULL);
}
