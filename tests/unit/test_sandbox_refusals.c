/* The recorder's reports read against a policy and this host: what the
 * policy accounts for is kept under the key that would allow it, what it
 * does not (a path it grants, one the host does not have) is passed over,
 * and what no record is (a bad escape, a short line) is ignored. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h> /* after the four above, which it needs */

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "json.h"
#include "refusals.h"

static char dir[PATH_MAX]; /* a real directory of this test's */

static void make_file(const char *rel) {
    char path[PATH_MAX * 2];
    snprintf(path, sizeof path, "%s/%s", dir, rel);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fclose(f);
}

static int setup(void **state) {
    (void)state;
    char tmpl[] = "/tmp/lcsb-refusals.XXXXXX";
    if (!mkdtemp(tmpl)) return -1;
    if (!realpath(tmpl, dir)) return -1;
    char path[PATH_MAX * 2];
    const char *dirs[] = {"ro", "rw", "rw/.git", "home", "out", "hidden"};
    for (size_t i = 0; i < sizeof dirs / sizeof dirs[0]; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, dirs[i]);
        if (mkdir(path, 0755) != 0) return -1;
    }
    make_file("ro/data");
    make_file("rw/.git/config");
    make_file("out/secret");
    make_file("hidden/key");
    make_file("tool");
    return 0;
}

/* A unix socket at REL, left behind as a file when its descriptor closes. */
static void make_socket(const char *rel) {
    struct sockaddr_un addr = {.sun_family = AF_UNIX};
    int n = snprintf(addr.sun_path, sizeof addr.sun_path, "%s/%s", dir, rel);
    assert_true(n > 0 && (size_t)n < sizeof addr.sun_path);
    int fd = socket(AF_UNIX, SOCK_STREAM, 0);
    assert_true(fd >= 0);
    assert_int_equal(bind(fd, (struct sockaddr *)&addr, sizeof addr), 0);
    close(fd);
}

static int teardown(void **state) {
    (void)state;
    char cmd[PATH_MAX + 16];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    return system(cmd) == 0 ? 0 : -1;
}

static char *at(const char *rel) {
    static char paths[8][PATH_MAX * 2];
    static int next;
    char *p = paths[next++ % 8];
    snprintf(p, PATH_MAX * 2, "%s/%s", dir, rel);
    return p;
}

static lcsb_policy *policy(void) {
    lcsb_policy *p = lcsb_policy_new();
    assert_non_null(p);
    assert_int_equal(lcsb_policy_add_read(p, at("ro"), NULL), 0);
    assert_int_equal(lcsb_policy_add_write(p, at("rw"), NULL), 0);
    assert_int_equal(lcsb_policy_add_write(p, at("home"), NULL), 0);
    assert_int_equal(lcsb_policy_add_exec(p, "/usr/bin/env", NULL), 0);
    assert_int_equal(lcsb_policy_add_protect(p, at("rw/.git"), NULL), 0);
    assert_int_equal(lcsb_policy_add_hide(p, at("hidden"), NULL), 0);
    assert_int_equal(lcsb_policy_set_env(p, "HOME", at("home"), NULL), 0);
    lcsb_policy_set_net(p, LCSB_NET_PORTS);
    assert_int_equal(lcsb_policy_add_port(p, LCSB_PORT_CONNECT, 443, NULL), 0);
    return p;
}

/* TEXT fed to a reader for a fresh policy, in two pieces cut at CUT, for
 * a run that FAILED or not. */
static lcsb_attestation *read_run(const char *text, size_t cut, bool failed) {
    static lcsb_attestation att;
    lcsb_policy *p = policy();
    lcsb__refusals *r = lcsb__refusals_new(p);
    assert_non_null(r);
    size_t len = strlen(text);
    if (cut > len) cut = len;
    lcsb__refusals_feed(r, text, cut);
    lcsb__refusals_feed(r, text + cut, len - cut);
    memset(&att, 0, sizeof att);
    lcsb__refusals_finish(r, failed, &att);
    lcsb__refusals_free(r);
    lcsb_policy_free(p);
    return &att;
}

static lcsb_attestation *read_records(const char *text, size_t cut) {
    return read_run(text, cut, true);
}

static char *line(const char *op, int error, const char *program, const char *target) {
    static char lines[8][PATH_MAX * 3];
    static int next;
    char *l = lines[next++ % 8];
    snprintf(l, PATH_MAX * 3, "%s\t%d\t42\t%s\t%s\n", op, error, program, target);
    return l;
}

static void expect(const lcsb_refusal *r, const char *op, const char *key, const char *target) {
    assert_string_equal(r->op, op);
    assert_string_equal(r->key, key);
    assert_string_equal(r->target, target);
}

static void test_kept_under_the_key_that_allows_it(void **state) {
    (void)state;
    char text[PATH_MAX * 24] = "";
    strcat(text, line("exec", EACCES, "sh", "/usr/bin/id"));
    strcat(text, line("read", ENOENT, "cat", at("out/secret")));
    strcat(text, line("write", EROFS, "sh", at("ro/new")));
    strcat(text, line("write", EROFS, "git", at("rw/.git/config")));
    strcat(text, line("read", ENOENT, "cat", at("hidden/key")));
    strcat(text, line("connect", EACCES, "curl", "93.184.216.34:80"));
    strcat(text, line("socket", EACCES, "dig", "inet/dgram"));
    lcsb_attestation *a = read_records(text, 37);
    assert_int_equal(a->refused_count, 7);
    expect(&a->refused[0], "exec", "exec", "/usr/bin/id");
    assert_string_equal(a->refused[0].program, "sh");
    assert_int_equal(a->refused[0].error, EACCES);
    expect(&a->refused[1], "read", "read", at("out/secret"));
    expect(&a->refused[2], "write", "write", at("ro/new"));
    expect(&a->refused[3], "write", "protect", at("rw/.git/config"));
    expect(&a->refused[4], "read", "hide", at("hidden/key"));
    expect(&a->refused[5], "connect", "net", "93.184.216.34:80");
    expect(&a->refused[6], "socket", "net", "inet/dgram");
}

/* A failure the policy does not account for is the command's own. */
static void test_what_the_policy_grants_is_no_refusal(void **state) {
    (void)state;
    char text[PATH_MAX * 24] = "";
    strcat(text, line("exec", EACCES, "sh", "/usr/bin/env"));            /* in exec */
    strcat(text, line("read", EACCES, "cat", at("ro/data")));            /* a file's mode */
    strcat(text, line("write", EACCES, "touch", at("rw/file")));         /* in write */
    strcat(text, line("read", ENOENT, "cc1", "/usr/include/nothere.h")); /* not on the host */
    strcat(text, line("write", ENOENT, "sh", "/nonexistent-dir/x"));     /* nor its directory */
    strcat(text, line("connect", EACCES, "curl", "10.0.0.1:443"));       /* a port it allows */
    strcat(text, line("exec", ENOENT, "sh", "/usr/local/bin/nothere"));
    lcsb_attestation *a = read_records(text, 5);
    assert_int_equal(a->refused_count, 0);
}

/* A program named in exec and refused anyway: kept when its file was made
 * after the run began (a build's new link, which the grant does not hold:
 * the hint of a remade program), not when it is older (its mode, a noexec
 * mount: the command's own). */
static void test_a_program_remade_in_exec(void **state) {
    (void)state;
    make_file("rw/old-app");
    usleep(30000); /* past the coarse clock's tick, which files' times take */
    lcsb_policy *p = policy();
    assert_int_equal(lcsb_policy_add_exec(p, at("rw/old-app"), NULL), 0);
    assert_int_equal(lcsb_policy_add_exec(p, at("rw/new-app"), NULL), 0);
    lcsb__refusals *r = lcsb__refusals_new(p);
    assert_non_null(r);
    make_file("rw/new-app");
    char text[PATH_MAX * 8] = "";
    strcat(text, line("exec", EACCES, "ctest", at("rw/old-app")));
    strcat(text, line("exec", EACCES, "ctest", at("rw/new-app")));
    lcsb__refusals_feed(r, text, strlen(text));
    static lcsb_attestation att;
    memset(&att, 0, sizeof att);
    lcsb__refusals_finish(r, true, &att);
    lcsb__refusals_free(r);
    lcsb_policy_free(p);
    assert_int_equal(att.refused_count, 1);
    expect(&att.refused[0], "exec", "exec", at("rw/new-app"));
}

static void test_counted_once_and_normalized(void **state) {
    (void)state;
    char text[PATH_MAX * 24] = "", twisted[PATH_MAX * 2];
    snprintf(twisted, sizeof twisted, "%s/ro/../out/./secret", dir);
    strcat(text, line("read", EACCES, "cat", at("out/secret")));
    strcat(text, line("read", EACCES, "python3", twisted));
    strcat(text, line("read", EACCES, "cat", at("out/secret")));
    strcat(text, line("write", EACCES, "sh", at("home/.gitconfig.lock")));
    lcsb_attestation *a = read_records(text, 1);
    /* The private HOME is writable: nothing there is refused but what is
     * shown read-only (a link out of it), which the tiers say. */
    assert_int_equal(a->refused_count, 1);
    expect(&a->refused[0], "read", "read", at("out/secret"));
    assert_int_equal(a->refused[0].count, 3);
    assert_string_equal(a->refused[0].program, "cat");
}

static void test_private_home_marked(void **state) {
    (void)state;
    char link[PATH_MAX * 2], text[PATH_MAX * 4];
    /* ~/.gitconfig shown read-only: a link to a file the policy reads. */
    snprintf(link, sizeof link, "%s/home/.gitconfig", dir);
    assert_int_equal(symlink(at("ro/data"), link), 0);
    snprintf(text, sizeof text, "%s", line("write", EROFS, "git", link));
    lcsb_attestation *a = read_records(text, 0);
    assert_int_equal(a->refused_count, 1);
    expect(&a->refused[0], "write", "write", link);
    assert_true(a->refused[0].home);
    unlink(link);
}

static void test_not_records_are_ignored(void **state) {
    (void)state;
    char text[PATH_MAX * 24] = "";
    char escaped[PATH_MAX * 2];
    strcat(text, "exec\t13\t42\tsh\n");                     /* too few fields */
    strcat(text, "exec\t13\t42\tsh\t/usr/bin/id\textra\n"); /* too many */
    strcat(text, "open\t13\t42\tsh\t/usr/bin/id\n");        /* no such op */
    strcat(text, "exec\tx13\t42\tsh\t/usr/bin/id\n");       /* no number */
    strcat(text, "exec\t13\t42\tsh\t/usr/bin/i%0\n");       /* a cut escape */
    strcat(text, "exec\t13\t42\tsh\t/usr/bin/i%00d\n");     /* a NUL */
    strcat(text, "exec\t13\t42\t\t/usr/bin/id\n");          /* no program */
    /* Escaped: a newline in the path is part of it, not a new record. */
    snprintf(escaped, sizeof escaped, "write\t30\t1\tsh\t%s/ro/a%%0Aexec%%09b\n", dir);
    strcat(text, escaped);
    lcsb_attestation *a = read_records(text, 3);
    assert_int_equal(a->refused_count, 1);
    char want[PATH_MAX * 2];
    snprintf(want, sizeof want, "%s/ro/a\nexec\tb", dir);
    expect(&a->refused[0], "write", "write", want);
}

/* A unix socket is the sockets key's whatever the call that met it: a read
 * or a write entry for it would put it in the command's world, where
 * connect() reaches its server (Landlock does not judge connect on a
 * path). The twin, a file beside it, is a read or a write. */
static void test_a_socket_is_the_sockets_key(void **state) {
    (void)state;
    make_socket("out/server.sock");
    make_socket("rw/granted.sock");
    char text[PATH_MAX * 24] = "";
    strcat(text, line("read", EACCES, "cat", at("out/server.sock")));
    strcat(text, line("write", EACCES, "sh", at("out/server.sock")));
    strcat(text, line("connect", ENOENT, "tmux", at("out/server.sock")));
    strcat(text, line("read", EACCES, "cat", at("out/secret")));
    strcat(text, line("write", EACCES, "sh", at("out/secret")));
    /* Granted, it is no refusal of the sandbox's. */
    strcat(text, line("read", EACCES, "cat", at("rw/granted.sock")));
    lcsb_attestation *a = read_records(text, 11);
    assert_int_equal(a->refused_count, 5);
    expect(&a->refused[0], "read", "sockets", at("out/server.sock"));
    expect(&a->refused[1], "write", "sockets", at("out/server.sock"));
    expect(&a->refused[2], "connect", "sockets", at("out/server.sock"));
    expect(&a->refused[3], "read", "read", at("out/secret"));
    expect(&a->refused[4], "write", "write", at("out/secret"));
    unlink(at("out/server.sock"));
    unlink(at("rw/granted.sock"));
}

/* What a hint must never be drawn from: exec of a directory (a grant of
 * all it holds), /proc (another process's links, resolved by lcsb), a
 * target too long for the attestation to hold whole. Each twin, a file
 * outside the policy, is kept. */
static void test_what_no_hint_may_come_from(void **state) {
    (void)state;
    char text[PATH_MAX * 24] = "", proc[PATH_MAX + 64], longer[PATH_MAX + 8];
    snprintf(proc, sizeof proc, "/proc/%d/root%s/out/secret", (int)getpid(), dir);
    snprintf(longer, sizeof longer, "%s/ro/", dir);
    memset(longer + strlen(longer), 'x', 1100 - strlen(longer));
    longer[1100] = '\0';
    strcat(text, line("exec", EACCES, "python3", at("out")));
    strcat(text, line("exec", EACCES, "python3", at("tool")));
    strcat(text, line("read", EACCES, "cat", proc));
    strcat(text, line("write", EROFS, "sh", longer));
    strcat(text, line("write", EROFS, "sh", at("ro/short")));
    lcsb_attestation *a = read_records(text, 9);
    assert_int_equal(a->refused_count, 2);
    expect(&a->refused[0], "exec", "exec", at("tool"));
    expect(&a->refused[1], "write", "write", at("ro/short"));
}

/* What a refusal names goes into the attestation as valid JSON text, raw
 * bytes and C1 controls too; valid UTF-8 as it is. */
static void test_attestation_text_is_valid_json(void **state) {
    (void)state;
    lcsb__buf b = {0};
    lcsb__buf_add_json_text(&b, "/a\"b\\c\x01\xc2\x9b"
                                "2K\xff\xc3\xa9\xe2\x80\xae");
    lcsb__buf_add(&b, "", 1);
    assert_false(b.oom);
    assert_string_equal(b.p, "\"/a\\\"b\\\\c\\u0001\\u009b2K\\u00ff\xc3\xa9\xe2\x80\xae\"");
    lcsb__buf_free(&b);
}

static void test_only_the_first_are_kept_all_counted(void **state) {
    (void)state;
    size_t n = LCSB_REFUSALS_MAX + 8;
    char *text = calloc(n, PATH_MAX);
    assert_non_null(text);
    for (size_t i = 0; i < n; i++) {
        char target[PATH_MAX * 2];
        snprintf(target, sizeof target, "%s/ro/new%zu", dir, i);
        strcat(text, line("write", EROFS, "sh", target));
    }
    /* An overlong line is dropped whole, and the next one still read. */
    char *long_line = malloc(10000);
    memset(long_line, 'a', 9999);
    long_line[9999] = '\0';
    lcsb__refusals *r;
    lcsb_policy *p = policy();
    assert_non_null(r = lcsb__refusals_new(p));
    lcsb__refusals_feed(r, long_line, strlen(long_line));
    lcsb__refusals_feed(r, "\n", 1);
    lcsb__refusals_feed(r, text, strlen(text));
    lcsb_attestation *a = calloc(1, sizeof *a);
    lcsb__refusals_finish(r, true, a);
    assert_int_equal(a->refused_count, n);
    char first[PATH_MAX * 2];
    snprintf(first, sizeof first, "%s/ro/new0", dir);
    expect(&a->refused[0], "write", "write", first);
    lcsb__refusals_free(r);
    lcsb_policy_free(p);
    free(a);
    free(long_line);
    free(text);
}

/* A learning run: the execs only seen asked for come first, and count
 * whatever the status, however many the kernel's refusals before them. */
static void test_learning_keeps_the_execs_first(void **state) {
    (void)state;
    size_t n = LCSB_REFUSALS_MAX + 4;
    char *text = calloc(n + 2, PATH_MAX * 2);
    assert_non_null(text);
    for (size_t i = 0; i < n; i++) {
        char target[PATH_MAX * 2];
        snprintf(target, sizeof target, "%s/ro/new%zu", dir, i);
        strcat(text, line("write", EROFS, "sh", target));
    }
    strcat(text, line("exec_seen", 0, "go", "/usr/bin/id"));
    lcsb_policy *p = policy();
    lcsb__refusals *r = lcsb__refusals_new(p);
    assert_non_null(r);
    lcsb__refusals_feed(r, text, strlen(text));
    lcsb_attestation *a = calloc(1, sizeof *a);
    lcsb__refusals_finish_learning(r, a);
    assert_int_equal(a->refused_count, n + 1);
    expect(&a->refused[0], "exec", "exec", "/usr/bin/id");
    /* Its twin: finished as a run, the writes fill the list first. */
    memset(a, 0, sizeof *a);
    lcsb__refusals_finish(r, true, a);
    assert_string_equal(a->refused[0].op, "write");
    lcsb__refusals_free(r);
    lcsb_policy_free(p);
    free(a);
    free(text);
}

/* The init's exec_seen: an exec asked for, before the kernel answered. One
 * outside the exec tier is what Landlock refuses (EACCES), kept when the
 * run failed; a run that succeeded had it fail harmlessly, or not at all. */
static void test_an_exec_seen_is_refused_when_the_run_failed(void **state) {
    (void)state;
    char text[PATH_MAX * 4] = "";
    strcat(text, line("exec_seen", 0, "go", "/usr/bin/id"));
    strcat(text, line("exec_seen", 0, "go", "/usr/bin/env")); /* in the tier */
    const lcsb_attestation *a = read_run(text, 7, true);
    assert_int_equal(a->refused_count, 1);
    expect(&a->refused[0], "exec", "exec", "/usr/bin/id");
    assert_string_equal(a->refused[0].program, "go");
    assert_int_equal(a->refused[0].error, EACCES);
    assert_int_equal(a->refused[0].count, 1);
    a = read_run(text, 7, false);
    assert_int_equal(a->refused_count, 0);
}

/* A dynamically linked program's refused exec is seen by the init and
 * reported by the recorder: one refusal, in either order, kept whatever
 * the status (the recorder saw the kernel refuse it). */
static void test_seen_and_recorded_are_one_refusal(void **state) {
    (void)state;
    char text[PATH_MAX * 4] = "";
    strcat(text, line("exec_seen", 0, "sh", "/usr/bin/id"));
    strcat(text, line("exec", EACCES, "sh", "/usr/bin/id"));
    const lcsb_attestation *a = read_run(text, 0, false);
    assert_int_equal(a->refused_count, 1);
    assert_int_equal(a->refused[0].count, 1);
    text[0] = '\0';
    strcat(text, line("exec", EACCES, "sh", "/usr/bin/id"));
    strcat(text, line("exec_seen", 0, "sh", "/usr/bin/id"));
    a = read_run(text, 0, false);
    assert_int_equal(a->refused_count, 1);
    assert_int_equal(a->refused[0].count, 1);
}

/* Execs only asked for take no room from the refusals the kernel made:
 * after a run that exited 0, the list holds the first 32 of those, whole. */
static void test_execs_asked_for_leave_the_list_whole(void **state) {
    (void)state;
    size_t n = LCSB_REFUSALS_MAX + 2;
    char *text = calloc(n + 3, PATH_MAX);
    assert_non_null(text);
    strcat(text, line("exec_seen", 0, "go", "/usr/bin/id"));
    strcat(text, line("exec_seen", 0, "go", "/usr/bin/env")); /* in the tier: no refusal */
    strcat(text, line("exec_seen", 0, "go", at("tool")));
    for (size_t i = 0; i < n; i++) {
        char target[PATH_MAX * 2];
        snprintf(target, sizeof target, "%s/ro/new%zu", dir, i);
        strcat(text, line("write", EROFS, "sh", target));
    }
    const lcsb_attestation *a = read_run(text, 0, false);
    assert_int_equal(a->refused_count, n);
    for (size_t i = 0; i < LCSB_REFUSALS_MAX; i++) assert_string_equal(a->refused[i].op, "write");
    a = read_run(text, 0, true);
    assert_int_equal(a->refused_count, n + 2);
    for (size_t i = 0; i < LCSB_REFUSALS_MAX; i++) assert_string_equal(a->refused[i].op, "write");
    free(text);
}

/* Strictly its shape: no errno yet, and an absolute path. */
static void test_a_bad_exec_seen_is_no_record(void **state) {
    (void)state;
    char text[PATH_MAX * 4] = "";
    strcat(text, line("exec_seen", EACCES, "go", "/usr/bin/id"));
    strcat(text, line("exec_seen", 0, "go", "usr/bin/id"));
    strcat(text, "exec_seen\t0\t42\tgo\t\n");
    strcat(text, "exec_seen\t\t42\tgo\t/usr/bin/id\n");
    strcat(text, "exec_seen\t00\t42\tgo\t/usr/bin/id\n");
    assert_int_equal(read_records(text, 3)->refused_count, 0);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_kept_under_the_key_that_allows_it),
        cmocka_unit_test(test_what_the_policy_grants_is_no_refusal),
        cmocka_unit_test(test_a_program_remade_in_exec),
        cmocka_unit_test(test_counted_once_and_normalized),
        cmocka_unit_test(test_private_home_marked),
        cmocka_unit_test(test_not_records_are_ignored),
        cmocka_unit_test(test_a_socket_is_the_sockets_key),
        cmocka_unit_test(test_what_no_hint_may_come_from),
        cmocka_unit_test(test_attestation_text_is_valid_json),
        cmocka_unit_test(test_only_the_first_are_kept_all_counted),
        cmocka_unit_test(test_an_exec_seen_is_refused_when_the_run_failed),
        cmocka_unit_test(test_seen_and_recorded_are_one_refusal),
        cmocka_unit_test(test_execs_asked_for_leave_the_list_whole),
        cmocka_unit_test(test_a_bad_exec_seen_is_no_record),
        cmocka_unit_test(test_learning_keeps_the_execs_first),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
