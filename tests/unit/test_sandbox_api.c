/* The public API's joints: errors by name, lcsb_prepare as the one pipeline,
 * the Capability and the attestation written from their field tables, a
 * policy script's result read back as arrays, where a script's Lua files
 * are found, the attestation with what the script adds, and the placeholder
 * hold; and when a ctime counts as a change (changed.c), which the files
 * that run later rest on. The trust store and the digest it names files by
 * are test_sandbox_trust.c; a #! line resolved, test_sandbox_resolve.c. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "changed.h"
#include "helpers.h"

#include <dirent.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <unistd.h>

#ifndef LCSB_SHIM_PATH
#error "build with -DLCSB_SHIM_PATH='\"/path/to/lcsb-exec\"'"
#endif

static void test_errors_one_list(void **state) {
    (void)state;
    /* Every code in the list has a name and a text of its own. */
    static const int codes[] = {LCSB_OK,      LCSB_EINVAL,  LCSB_ENOMEM, LCSB_EUNAVAIL, LCSB_ESYS,
                                LCSB_ETOOBIG, LCSB_ESCRIPT, LCSB_EINTR,  LCSB_ETIMEDOUT};
    for (size_t i = 0; i < sizeof codes / sizeof codes[0]; i++) {
        assert_non_null(lcsb_error_name(codes[i]));
        assert_string_not_equal(lcsb_strerror(codes[i]), "unknown error");
        for (size_t k = 0; k < i; k++)
            assert_string_not_equal(lcsb_error_name(codes[i]), lcsb_error_name(codes[k]));
    }
    assert_string_equal(lcsb_error_name(LCSB_EUNAVAIL), "LCSB_EUNAVAIL");
    assert_string_equal(lcsb_strerror(LCSB_ENOMEM), "out of memory");
    assert_null(lcsb_error_name(-99));
    assert_string_equal(lcsb_strerror(-99), "unknown error");
}

/* TEXT (LEN bytes) escaped must read WANT, whole; escaping that again
 * changes nothing. */
static void assert_escaped(const char *text, size_t len, const char *want) {
    char out[256], again[256];
    size_t need = lcsb_escape(out, sizeof out, text, len);
    assert_int_equal(need, strlen(want));
    assert_string_equal(out, want);
    assert_int_equal(lcsb_escape(again, sizeof again, out, need), need);
    assert_string_equal(again, out);
}
#define ESCAPED(literal, want) assert_escaped(literal, sizeof literal - 1, want)

static void test_escape(void **state) {
    (void)state;
    ESCAPED("plain text, a tab\tand \\x1b as typed", "plain text, a tab\tand \\x1b as typed");
    ESCAPED("\x1b[2Jclear\rover\nline\x7f", "\\x1b[2Jclear\\rover\\nline\\x7f");
    ESCAPED("a\0b\x01\x1f", "a\\x00b\\x01\\x1f");
    /* UTF-8 stays, but not its C1 controls (CSI is U+009B). */
    ESCAPED("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x99\x82",
            "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x99\x82");
    ESCAPED("\xc2\x9b"
            "2J\xc2\xa0",
            "\\xc2\\x9b2J\xc2\xa0");
    /* The bidi controls and zero-width characters: a path that reads as
     * another (RLO reverses the rest of the line). */
    ESCAPED("/srv/\xe2\x80\xaegpj.exe", "/srv/\\u{202e}gpj.exe");
    ESCAPED("a\xe2\x80\x8b"
            "b\xe2\x81\xa6"
            "c\xef\xbb\xbf\xd8\x9c",
            "a\\u{200b}b\\u{2066}c\\u{feff}\\u{061c}");
    /* And those a terminal draws as nothing or a blank: the soft hyphen,
     * the Mongolian vowel separator, the Hangul fillers, the variation
     * selectors and the tag characters, each range at both ends. */
    ESCAPED("z\xc2\xadq\xe1\xa0\x8e", "z\\u{00ad}q\\u{180e}");
    ESCAPED("\xe1\x85\x9f\xe1\x85\xa0\xe3\x85\xa4\xef\xbe\xa0",
            "\\u{115f}\\u{1160}\\u{3164}\\u{ffa0}");
    ESCAPED("\xef\xb8\x80\xef\xb8\x8f", "\\u{fe00}\\u{fe0f}");
    ESCAPED("y\xf3\xa0\x80\x80\xf3\xa0\x80\x81\xf3\xa0\x81\xbfq",
            "y\\u{e0000}\\u{e0001}\\u{e007f}q");
    ESCAPED("\xf3\xa0\x84\x80\xf3\xa0\x87\xaf", "\\u{e0100}\\u{e01ef}");
    /* Their neighbours are printable and stay. */
    ESCAPED("\xc2\xac\xef\xb8\x90\xf3\xa0\x87\xb0", "\xc2\xac\xef\xb8\x90\xf3\xa0\x87\xb0");
    /* What is not UTF-8: a lone byte, a cut sequence, an overlong form, a
     * surrogate, past U+10FFFF. */
    ESCAPED("\x9b\xff", "\\x9b\\xff");
    ESCAPED("\xe2\x82", "\\xe2\\x82");
    ESCAPED("\xc0\xaf", "\\xc0\\xaf");
    ESCAPED("\xed\xa0\x80", "\\xed\\xa0\\x80");
    ESCAPED("\xf4\x90\x80\x80", "\\xf4\\x90\\x80\\x80");
    /* Cut between whole escapes, always terminated, the whole length told. */
    char small[8];
    assert_int_equal(lcsb_escape(small, sizeof small, "ab\x1b\x1b", 4), 10);
    assert_string_equal(small, "ab\\x1b");
    assert_int_equal(lcsb_escape(NULL, 0, "\r", 1), 2);
    assert_int_equal(lcsb_escape(small, 1, "x", 1), 1);
    assert_string_equal(small, "");

    /* The trailer quotes the command's name escaped. */
    lcsb_attestation att = {.backend = LCSB_MECHANISM_LANDLOCK, .fs = LCSB_FS_ENFORCED};
    char line[1024];
    lcsb_trailer("./evil\x1b[2J\rname", 1, &att, line, sizeof line);
    assert_contains(line, "lcsb: ./evil\\x1b[2J\\rname exited 1 under landlock");
    for (const char *c = line; *c; c++)
        if ((unsigned char)*c < 0x20 && !(c[0] == '\n' && c[1] == '\0'))
            fail_msg("a raw control byte %#x in the trailer: %s", (unsigned char)*c, line);
}

/* A policy this host can run: the shell, reading the system, writing DIR. */
static lcsb_policy *shell_policy(const char *dir) {
    lcsb_policy *p = new_policy();
    char **files = NULL;
    lcsb_error err;
    if (lcsb_resolve_program("/bin/sh", &files, &err)) fail_msg("resolve: %s", err.message);
    for (size_t i = 0; files[i]; i++) add(p, LCSB_TIER_EXEC, files[i]);
    lcsb_argv_free(files);
    add(p, LCSB_TIER_READ, "/usr");
    add(p, LCSB_TIER_WRITE, dir);
    assert_int_equal(lcsb_policy_set_cwd(p, dir, &err), 0);
    return p;
}

static void test_prepare_is_what_runs(void **state) {
    (void)state;
    char dir[] = "/tmp/lcsb-api.XXXXXX";
    assert_non_null(mkdtemp(dir));
    lcsb_policy *p = shell_policy(dir);
    lcsb_backend *b = landlock_backend(7, LCSB_SHIM_PATH);
    lcsb_error err;
    static const char *const prefix[] = {"nice", "--", NULL};
    static const char *const cmd[] = {"/bin/sh", "-c", "true", NULL};

    /* The argv lcsb_prepare gives is lcsb_compose's, and it is attested. */
    char **final = NULL, **composed = NULL;
    lcsb_attestation att;
    assert_int_equal(lcsb_prepare(b, p, prefix, cmd, &final, &att, &err), 0);
    assert_int_equal(lcsb_compose(b, p, prefix, cmd, &composed, &err), 0);
    assert_argv_equal(final, (const char *const *)composed);
    assert_int_equal(att.backend, LCSB_MECHANISM_LANDLOCK);
    assert_int_equal(att.exec, LCSB_EXEC_ALLOWLIST);
    lcsb_argv_free(final);
    lcsb_argv_free(composed);
    /* Without a command, a probe; without outputs, only the answer. */
    assert_int_equal(lcsb_prepare(b, p, NULL, NULL, NULL, NULL, &err), 0);
    assert_int_equal(lcsb_backend_validate(b, p, &err), 0);

    /* What validation refuses, lcsb_prepare refuses, and gives nothing back. */
    add(p, LCSB_TIER_EXEC, "/usr");
    final = (char **)&err; /* must stay as it is */
    assert_int_equal(lcsb_prepare(b, p, NULL, cmd, &final, &att, &err), LCSB_EINVAL);
    assert_ptr_equal(final, (char **)&err);
    assert_contains(err.message, "refusing EXECUTE");
    assert_int_equal(lcsb_backend_validate(b, p, &err), LCSB_EINVAL);

    /* lcsb_run refuses it the same way, before anything runs. */
    lcsb_run_options opts;
    lcsb_run_result result;
    lcsb_run_options_init(&opts);
    assert_int_equal(lcsb_run(b, p, cmd, &opts, &result, &err), LCSB_EINVAL);
    assert_contains(err.message, "refusing EXECUTE");
    lcsb_backend_free(b);
    lcsb_policy_free(p);
    rm_rf(dir);
}

static void test_field_tables(void **state) {
    (void)state;
    lcsb_capability cap;
    lcsb_error err;
    assert_int_equal(lcsb_detect(&cap, LCSB_SHIM_PATH, &err), 0);
    char *json = lcsb_capability_json(&cap);
    assert_non_null(json);
    static const char *const keys[] = {"\"landlock_abi\":",
                                       "\"landlock_abi_kernel\":",
                                       "\"seccomp\":",
                                       "\"user_namespaces\":",
                                       "\"mount_namespaces\":",
                                       "\"sandbox_exec\":",
                                       "\"shim\":\"" LCSB_SHIM_PATH "\"",
                                       "\"shim_found\":true",
                                       "\"oci_engine\":"};
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) assert_contains(json, keys[i]);
    free(json);

    /* The attestation's words and its JSON come from one table. */
    lcsb_attestation att = {.backend = LCSB_MECHANISM_OCI,
                            .fs = LCSB_FS_ENFORCED,
                            .net = LCSB_NET_DENY,
                            .net_covers = LCSB_NET_COVERS_ALL,
                            .net_by = LCSB_NET_BY_NAMESPACE,
                            .metadata = LCSB_HELD_READONLY,
                            .protected_paths = LCSB_HELD_NONE,
                            .scoped = true,
                            .dropped = LCSB_PART_NET};
    assert_string_equal(lcsb_attestation_value(&att, "backend"), "oci");
    assert_string_equal(lcsb_attestation_value(&att, "exec"), "open");
    assert_string_equal(lcsb_attestation_value(&att, "protected"), "none");
    assert_null(lcsb_attestation_value(&att, "abi")); /* a number, not a word */
    assert_null(lcsb_attestation_value(&att, "nonsense"));
    json = lcsb_attestation_json(&att);
    assert_string_equal(json, "{\"backend\":\"oci\",\"fs\":\"enforced\",\"exec\":\"open\","
                              "\"net\":\"denied\",\"net_covers\":\"all\",\"net_by\":\"namespace\","
                              "\"metadata\":\"readonly\",\"protected\":\"none\",\"scoped\":true,"
                              "\"dropped\":[\"net\"],\"world\":\"open\"}");
    free(json);
    /* Under none, nothing past the network; nothing covered, nothing said of it. */
    att = (lcsb_attestation){.backend = LCSB_MECHANISM_NONE, .net = LCSB_NET_OPEN};
    json = lcsb_attestation_json(&att);
    assert_string_equal(json, "{\"backend\":\"none\",\"fs\":\"open\",\"exec\":\"open\","
                              "\"net\":\"open\"}");
    free(json);
    assert_string_equal(lcsb_attestation_value(&att, "net_covers"), "");
}

/* The options for this build's Lua files and shim, with BUDGET. */
static const lcsb_script_options *build_options(double budget) {
    static lcsb_script_options opts;
    lcsb_script_options_init(&opts);
    opts.lua_dir = LCSB_LUA_DIR;
    opts.shim = LCSB_SHIM_PATH;
    opts.time_budget = budget;
    opts.trust = LCSB_TRUST_SKIP; /* the suite writes its scripts itself */
    return &opts;
}

/* Run DIR/p.lua, `local lcsb = require "lcsb"` and BODY, from DIR with
 * BUDGET; lcsb's answer. */
static int run_script(const char *dir, const char *body, double budget, lcsb_script **s,
                      lcsb_error *err) {
    char path[PATH_MAX];
    char text[4096];
    FMT(text, "local lcsb = require \"lcsb\"\n%s\n", body);
    write_file(path_in(path, dir, "p.lua"), text);
    static const char *const cmd[] = {"sh", NULL};
    char cwd[PATH_MAX];
    assert_non_null(getcwd(cwd, sizeof cwd));
    assert_int_equal(chdir(dir), 0);
    int rc = lcsb_script_open(path, cmd, build_options(budget), s, err);
    assert_int_equal(chdir(cwd), 0);
    return rc;
}

/* A policy script in DIR that leaves two paths out and protects nothing. */
static lcsb_script *open_script(const char *dir, const char *body) {
    char text[4096];
    FMT(text, "return %s", body);
    lcsb_script *s = NULL;
    lcsb_error err;
    int rc = run_script(dir, text, LCSB_SCRIPT_BUDGET, &s, &err);
    if (rc) fail_msg("lcsb_script_open: %s", err.message);
    return s;
}

static void test_script_result(void **state) {
    (void)state;
    char dir[] = "/tmp/lcsb-api.XXXXXX";
    assert_non_null(mkdtemp(dir));
    lcsb_script *s =
        open_script(dir, "lcsb.exec_policy { read = { \"/nonexistent-lcsb-a\" }, write = { "
                         "\"/nonexistent-lcsb-b\" }, protect = false }");
    const lcsb_policy *p = lcsb_script_policy(s);
    assert_non_null(p);
    /* Nothing of the repository's; the script itself, in the writable project. */
    char script[PATH_MAX], real[PATH_MAX];
    assert_non_null(realpath(path_in(script, dir, "p.lua"), real));
    assert_int_equal(lcsb_policy_count(p, LCSB_TIER_PROTECT), 1);
    assert_string_equal(lcsb_policy_path(p, LCSB_TIER_PROTECT, 0), real);

    /* What was left out: entries, not text to parse. */
    const lcsb_left_out *left = NULL;
    assert_int_equal(lcsb_script_left_out(s, &left), 2);
    assert_int_equal(left[0].tier, LCSB_TIER_READ);
    assert_string_equal(left[0].path, "/nonexistent-lcsb-a");
    assert_string_equal(left[0].why, "does not exist");
    assert_int_equal(left[1].tier, LCSB_TIER_WRITE);
    assert_string_equal(left[1].path, "/nonexistent-lcsb-b");
    assert_int_equal(lcsb_script_left_out(s, NULL), 2);
    lcsb_oci_world world;
    assert_false(lcsb_script_oci_world(s, &world));

    /* Hints, one line each, from the result's own tables. */
    lcsb_run_result result;
    memset(&result, 0, sizeof result);
    result.status = LCSB_EXIT_NOEXEC;
    result.attestation = (lcsb_attestation){
        .backend = LCSB_MECHANISM_LANDLOCK, .fs = LCSB_FS_ENFORCED, .exec = LCSB_EXEC_ALLOWLIST};
    static const char tail[] = "sh: 1: make: Permission denied\n";
    memcpy(result.stderr_tail, tail, sizeof tail - 1);
    result.stderr_tail_len = sizeof tail - 1;
    static const char *const cmd[] = {"sh", NULL};
    char **hints = lcsb_script_explain(s, cmd, &result);
    assert_non_null(hints);
    /* By its path when PATH has it (CI's may not). */
    assert_contains(hints[0], "make\" }");
    assert_contains(hints[0], "exec = { \"");
    for (size_t i = 0; hints[i]; i++) assert_null(strchr(hints[i], '\n'));
    lcsb_argv_free(hints);
    result.status = 0;
    assert_null(lcsb_script_explain(s, cmd, &result));

    /* Nothing held (protect = false), nothing to say after the run. */
    assert_null(lcsb_script_after_run(s));
    lcsb_error err;
    assert_int_equal(lcsb_script_close(s, &err), 0);
    rm_rf(dir);
}

/* The attestation with the script's keys: policy and caps always, run_later
 * once after_run looked
 * (and only then), each path exact in JSON when it is UTF-8, escaped when
 * it is not. lcsb_script_close looks for nothing: no command ran. */
static void test_script_attestation_json(void **state) {
    (void)state;
    char dir[] = "/tmp/lcsb-api.XXXXXX", path[PATH_MAX];
    assert_non_null(mkdtemp(dir));
    lcsb_attestation att = {.backend = LCSB_MECHANISM_NONE};
    char *plain = lcsb_attestation_json(&att);
    assert_non_null(plain);
    lcsb_script *s = open_script(dir, "lcsb.exec_policy { protect = false }");
    char *json = lcsb_script_attestation_json(s, &att);
    /* The attestation's own keys first; the policy's files and caps; no
     * run_later before anything looked. */
    assert_memory_equal(json, plain, strlen(plain) - 1);
    assert_contains(json, ",\"policy\":{\"script\":\"");
    assert_contains(json, ",\"caps\":[{\"file\":\"");
    assert_lacks(json, "run_later");
    /* After a run, its status as one more key of the same object. */
    lcsb_run_result ran = {.attestation = att, .status = 3};
    char *run = lcsb_script_run_json(s, &ran);
    assert_non_null(run);
    assert_memory_equal(run, json, strlen(json) - 1);
    assert_string_equal(run + strlen(json) - 1, ",\"status\":3}");
    assert_lacks(json, "\"status\"");
    free(run);
    /* A hint loads lcsb's modules it needs after the policy was made; the
     * policy's files in the attestation stay what they were (and are read
     * within what was noted of them: the sanitizer build reads it). */
    lcsb_run_result refused = {.attestation = att, .status = LCSB_EXIT_NOEXEC};
    static const char tail[] = "sh: 1: make: Permission denied\n";
    memcpy(refused.stderr_tail, tail, sizeof tail - 1);
    refused.stderr_tail_len = sizeof tail - 1;
    static const char *const cmd[] = {"sh", NULL};
    lcsb_argv_free(lcsb_script_explain(s, cmd, &refused));
    char *again = lcsb_script_attestation_json(s, &att);
    assert_non_null(again);
    assert_string_equal(again, json);
    free(again);
    free(json);
    /* Past the file system's clock tick from the script's start. */
    usleep(30000);
    write_file(path_in(path, dir, ".envrc"), "x\n");
    mkdir(path_in(path, dir, "a\x1b\"q"), 0755);
    write_file(path_in(path, dir, "a\x1b\"q/conftest.py"), "x\n");
    mkdir(path_in(path, dir, "b\xff"), 0755);
    write_file(path_in(path, dir, "b\xff/Makefile"), "x\n");
    char **lines = lcsb_script_after_run(s);
    assert_non_null(lines);
    size_t n = 0;
    for (; lines[n]; n++) assert_null(strpbrk(lines[n], "\x1b\n"));
    /* The Makefile is quiet (run_later.lua): in the attestation, no line. */
    assert_int_equal(n, 2);
    lcsb_argv_free(lines);
    json = lcsb_script_attestation_json(s, &att);
    assert_non_null(json);
    assert_int_equal(strncmp(json, plain, strlen(plain) - 1), 0);
    char want[PATH_MAX + 64];
    FMT(want, ",\"run_later\":[{\"path\":\"%s/.envrc\",\"why\":\"direnv", dir);
    assert_contains(json, want, "the attestation");
    FMT(want, "{\"path\":\"%s/a\\u001b\\\"q/conftest.py\"", dir);
    assert_contains(json, want, "the attestation");
    FMT(want, "{\"path\":\"%s/b\\\\xff/Makefile\",\"why\":\"make runs it\",\"quiet\":true}", dir);
    assert_contains(json, want, "the attestation");
    assert_int_equal(json[strlen(json) - 1], '}');
    free(json);
    lcsb_error err;
    assert_int_equal(lcsb_script_close(s, &err), 0);

    /* Closed without after_run, after a change: it says nothing. */
    s = open_script(dir, "lcsb.exec_policy { protect = false }");
    usleep(30000);
    write_file(path_in(path, dir, ".envrc"), "y\n");
    assert_int_equal(lcsb_script_close(s, &err), 0);
    free(plain);
    rm_rf(dir);
}

/* A ctime no earlier than the start is a change; one whose nanoseconds end
 * in zeros may have been cut to its file system's grain, and the start is
 * cut the same way before they are compared. */
static void test_changed_since(void **state) {
    (void)state;
    struct timespec since = {.tv_sec = 100, .tv_nsec = 123456789};
    assert_true(lcsb__changed_since(since, since));
    assert_true(lcsb__changed_since((struct timespec){100, 123456790}, since));
    assert_false(lcsb__changed_since((struct timespec){100, 123456788}, since));
    assert_true(lcsb__changed_since((struct timespec){101, 0}, since));
    assert_false(lcsb__changed_since((struct timespec){99, 999999999}, since));
    /* Whole seconds (a file system that keeps no more): the same second counts. */
    assert_true(lcsb__changed_since((struct timespec){100, 0}, since));
    /* Microseconds: 123456000 is 123456789 cut to them. */
    assert_true(lcsb__changed_since((struct timespec){100, 123456000}, since));
    assert_false(lcsb__changed_since((struct timespec){100, 123455000}, since));
}

static void test_script_bare_policy(void **state) {
    (void)state;
    char dir[] = "/tmp/lcsb-api.XXXXXX";
    assert_non_null(mkdtemp(dir));
    /* A bare lcsb.policy is kept too, and explain reads it as its table. */
    lcsb_script *s = open_script(dir, "lcsb.policy { read = { \"/usr\" }, net = true }");
    assert_int_equal(lcsb_policy_count(lcsb_script_policy(s), LCSB_TIER_READ), 1);
    assert_int_equal(lcsb_policy_net(lcsb_script_policy(s)), LCSB_NET_OPEN);
    assert_int_equal(lcsb_script_left_out(s, NULL), 0);
    lcsb_run_result result;
    memset(&result, 0, sizeof result);
    result.status = 1;
    lcsb_argv_free(lcsb_script_explain(s, (const char *const[]){"x", NULL}, &result));
    lcsb_error err;
    assert_int_equal(lcsb_script_close(s, &err), 0);

    /* Anything else is refused, naming the script. */
    char path[PATH_MAX];
    write_file(path_in(path, dir, "bad.lua"), "return { policy = 5 }\n");
    static const char *const cmd[] = {"sh", NULL};
    assert_int_equal(lcsb_script_open(path, cmd, build_options(LCSB_SCRIPT_BUDGET), &s, &err),
                     LCSB_ESCRIPT);
    assert_null(s);
    assert_contains(err.message, "bad.lua: the script returned a table");
    rm_rf(dir);
}

/* With no lua_dir, LCSB_LUA_DIR when set is the only place looked at: a
 * directory without lcsb/init.lua is refused naming it, and nothing runs.
 * Unset, the install's (which this suite's build tree is not). Whatever the
 * Lua files, a script keeps the shim its host gave. */
static void test_script_finds_lua_dir(void **state) {
    (void)state;
    char dir[] = "/tmp/lcsb-api.XXXXXX", path[PATH_MAX], want[PATH_MAX + 32];
    assert_non_null(mkdtemp(dir));
    write_file(path_in(path, dir, "p.lua"),
               "return require('lcsb').policy { read = { '/usr' } }\n");
    lcsb_script_options opts = *build_options(LCSB_SCRIPT_BUDGET);
    opts.lua_dir = NULL;
    static const char *const cmd[] = {"sh", NULL};
    lcsb_script *s = NULL;
    lcsb_error err;
    setenv("LCSB_LUA_DIR", LCSB_LUA_DIR, 1);
    if (lcsb_script_open(path, cmd, &opts, &s, &err)) fail_msg("%s", err.message);
    assert_int_equal(lcsb_policy_count(lcsb_script_policy(s), LCSB_TIER_READ), 1);
    assert_int_equal(lcsb_script_close(s, &err), 0);

    setenv("LCSB_LUA_DIR", dir, 1);
    assert_int_equal(lcsb_script_open(path, cmd, &opts, &s, &err), LCSB_EINVAL);
    assert_null(s);
    FMT(want, "looked in: %s (LCSB_LUA_DIR);", dir);
    assert_contains(err.message, want);
    assert_lacks(err.message, "built in");

    unsetenv("LCSB_LUA_DIR");
    if (lcsb_script_open(path, cmd, &opts, &s, &err) == 0)
        assert_int_equal(lcsb_script_close(s, &err), 0); /* an install on this host */
    else
        assert_contains(err.message, "/lua/5.4 (the install path built in)");

    /* The shim is the host's choice: a script cannot name another. */
    assert_int_equal(run_script(dir, "lcsb.set_shim('/bin/true')", LCSB_SCRIPT_BUDGET, &s, &err),
                     LCSB_ESCRIPT);
    assert_contains(err.message, "lcsb.set_shim: a policy script runs with its host's shim");
    rm_rf(dir);
}

/* What the script returns is read as data: code it leaves behind (a
 * metamethod, a finalizer called by hand, a heuristic) cannot change or free
 * the policy lcsb checks and enforces, nor drop the hints of others. */
static void test_script_result_is_data(void **state) {
    (void)state;
    char dir[] = "/tmp/lcsb-api.XXXXXX";
    assert_non_null(mkdtemp(dir));
    lcsb_script *s = open_script(
        dir, "(function()\n"
             "  local r = lcsb.exec_policy { read = { \"/nonexistent-lcsb-a\" } }\n"
             "  local P = r.policy\n"
             "  assert(getmetatable(P) == \"lcsb.policy\", \"its finalizer out of reach\")\n"
             "  local gc = function(p) return p:table() end\n"
             "  setmetatable(r, { __index = function() gc(P) end, __len = function() gc(P) end })\n"
             "  local rem = require \"lcsb.remedies\"\n"
             "  rem.add(\"two\", function() gc(P); return \"one\\ntwo\" end)\n"
             "  rem.add(\"odd\", function() return 42 end)\n"
             "  rem.add(\"after\", function() return { \"a list\", {}, \"of hints\" } end)\n"
             "  rem.add(function() return \"last\" end)\n"
             "  return r\n"
             "end)()");
    const lcsb_policy *p = lcsb_script_policy(s);
    assert_true(lcsb_policy_count(p, LCSB_TIER_READ) >= 5); /* the baseline, whole */
    assert_int_equal(lcsb_script_left_out(s, NULL), 1);
    lcsb_backend *b = landlock_backend(7, LCSB_SHIM_PATH);
    char **final = NULL;
    lcsb_error err;
    static const char *const cmd[] = {"true", NULL};
    assert_int_equal(lcsb_compose(b, p, NULL, cmd, &final, &err), 0);
    lcsb_argv_free(final);
    lcsb_backend_free(b);

    lcsb_run_result result;
    memset(&result, 0, sizeof result);
    result.status = 3;
    char **hints = lcsb_script_explain(s, cmd, &result);
    assert_non_null(hints);
    /* One line an entry; a number is said, a list is each of its strings,
     * what is none of these is passed over. */
    static const char *const want[] = {"one", "two", "42", "a list", "of hints", "last", NULL};
    assert_argv_equal(hints, want);
    lcsb_argv_free(hints);
    /* The policy is still the one checked. */
    assert_true(lcsb_policy_count(lcsb_script_policy(s), LCSB_TIER_READ) >= 5);
    assert_int_equal(lcsb_script_close(s, &err), 0);
    rm_rf(dir);
}

static void test_hold(void **state) {
    (void)state;
    char dir[] = "/tmp/lcsb-api.XXXXXX", git[PATH_MAX];
    assert_non_null(mkdtemp(dir));
    path_in(git, dir, ".git");
    lcsb_hold *first = NULL, *second = NULL;
    bool unwritable = true;
    lcsb_error err;
    assert_int_equal(lcsb_hold_acquire(git, &first, &unwritable, &err), 0);
    assert_false(unwritable);
    assert_true(exists(git));
    /* Shared: the first to let go leaves it to the other. */
    assert_int_equal(lcsb_hold_acquire(git, &second, NULL, &err), 0);
    assert_int_equal(lcsb_hold_release(first, &err), 0);
    assert_true(exists(git));
    assert_int_equal(lcsb_hold_release(second, &err), 0);
    assert_false(exists(git));
    /* Something made in it: kept, and said. */
    assert_int_equal(lcsb_hold_acquire(git, &first, NULL, &err), 0);
    char inside[PATH_MAX];
    write_file(path_in(inside, git, "config"), "x");
    assert_int_equal(lcsb_hold_release(first, &err), LCSB_ESYS);
    assert_contains(err.message, git);
    assert_true(exists(inside));
    /* Not empty: nothing to hold. */
    assert_int_equal(lcsb_hold_acquire(git, &first, NULL, &err), LCSB_ESYS);
    assert_null(first);
    assert_int_equal(lcsb_hold_acquire("relative/.git", &first, NULL, &err), LCSB_EINVAL);
    assert_int_equal(lcsb_hold_release(NULL, &err), 0);
    rm_rf(dir);
}

static volatile sig_atomic_t caught[65];
static void count_signal(int sig) { caught[sig]++; }

static bool same_handler(int sig, void (*want)(int)) {
    struct sigaction now;
    assert_int_equal(sigaction(sig, NULL, &now), 0);
    return !(now.sa_flags & SA_SIGINFO) && now.sa_handler == want;
}

/* A script that never returns is stopped: past its time budget
 * (LCSB_ETIMEDOUT), whether it loops, swallows the stop with pcall, or waits
 * for a command that does not end; by a signal (LCSB_EINTR), which its
 * caller then gets once; and every time its private directories are gone,
 * the caller's handlers back, the timer off. */
static void test_script_stopped(void **state) {
    (void)state;
    lcsb_script_options opts;
    lcsb_script_options_init(&opts);
    assert_int_equal(opts.size, sizeof opts);
    assert_true(opts.time_budget == LCSB_SCRIPT_BUDGET && LCSB_SCRIPT_BUDGET == 10.0);

    char dir[] = "/tmp/lcsb-api.XXXXXX", tmp[PATH_MAX];
    assert_non_null(mkdtemp(dir));
    assert_int_equal(mkdir(path_in(tmp, dir, "tmp"), 0700), 0);
    char *saved_tmpdir = getenv("TMPDIR") ? strdup(getenv("TMPDIR")) : NULL;
    setenv("TMPDIR", tmp, 1);
    struct sigaction mine = {.sa_handler = count_signal}, ignore = {.sa_handler = SIG_IGN};
    sigemptyset(&mine.sa_mask);
    sigemptyset(&ignore.sa_mask);
    assert_int_equal(sigaction(SIGTERM, &mine, NULL), 0);
    assert_int_equal(sigaction(SIGINT, &ignore, NULL), 0);

    lcsb_script *s = NULL;
    lcsb_error err;
    static const char *const endless[] = {
        "while true do end",
        "while true do pcall(function() while true do end end) end",
        "coroutine.wrap(function() while true do end end)()",
        "os.execute('exec sleep 30')",
        "io.popen('exec sleep 30'):read('a')",
    };
    for (size_t i = 0; i < sizeof endless / sizeof endless[0]; i++) {
        char body[512];
        FMT(body, "local result = lcsb.exec_policy {}\n%s\nreturn result", endless[i]);
        double start = now_seconds();
        int rc = run_script(dir, body, 0.3, &s, &err);
        double took = now_seconds() - start;
        if (rc != LCSB_ETIMEDOUT) fail_msg("%s: %d (%s)", endless[i], rc, err.message);
        assert_null(s);
        if (took > 5)
            fail_msg("%s: stopped after %.1f s, with a budget of 0.3 s", endless[i], took);
        assert_contains(err.message, "p.lua: the policy script ran past its time budget of 0.3 s");
        /* Its private HOME and TMPDIR are gone, and its placeholder .git. */
        struct dirent **left;
        int n = scandir(tmp, &left, NULL, NULL);
        for (int k = 0; k < n; k++) free(left[k]);
        free(left);
        if (n != 2) fail_msg("%s: %d entries left in %s", endless[i], n - 2, tmp);
        char git[PATH_MAX];
        assert_false(exists(path_in(git, dir, ".git")));
    }
    assert_int_equal(caught[SIGTERM], 0);

    /* A signal: the script is stopped, the caller's handler then gets it. */
    int rc = run_script(dir, "os.execute('kill -TERM $PPID') while true do end", 0, &s, &err);
    assert_int_equal(rc, LCSB_EINTR);
    assert_contains(err.message, "p.lua: the policy script was interrupted (SIGTERM)");
    assert_int_equal(caught[SIGTERM], 1);
    /* One the caller ignores stays ignored. */
    rc = run_script(dir, "os.execute('kill -INT $PPID') return lcsb.policy {}", 0, &s, &err);
    if (rc) fail_msg("an ignored SIGINT stopped the script: %s", err.message);
    assert_int_equal(lcsb_script_close(s, &err), 0);

    assert_true(same_handler(SIGTERM, count_signal));
    assert_true(same_handler(SIGINT, SIG_IGN));
    assert_true(same_handler(SIGALRM, SIG_DFL));
    struct itimerval timer;
    assert_int_equal(getitimer(ITIMER_REAL, &timer), 0);
    assert_false(timerisset(&timer.it_value));

    /* A budget out of range is a mistake, not a script's failure. */
    assert_int_equal(run_script(dir, "return lcsb.policy {}", -1, &s, &err), LCSB_EINVAL);
    assert_int_equal(run_script(dir, "return lcsb.policy {}", 1e7, &s, &err), LCSB_EINVAL);
    assert_contains(err.message, "time budget");

    signal(SIGTERM, SIG_DFL);
    signal(SIGINT, SIG_DFL);
    if (saved_tmpdir)
        setenv("TMPDIR", saved_tmpdir, 1);
    else
        unsetenv("TMPDIR");
    free(saved_tmpdir);
    rm_rf(dir);
}

static void test_relayed_signals(void **state) {
    (void)state;
    size_t n = 0;
    const int *signals = lcsb_relayed_signals(&n);
    assert_int_equal(n, 4);
    static const int want[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};
    for (size_t i = 0; i < n; i++) assert_int_equal(signals[i], want[i]);
}

/* A host thread that sends SIGHUP to its process until told to stop. */
static atomic_bool hup_stop;
static void *send_hups(void *arg) {
    (void)arg;
    while (!atomic_load(&hup_stop)) {
        kill(getpid(), SIGHUP);
        sched_yield();
    }
    return NULL;
}

/* A host that ignores SIGHUP, one of whose threads keeps sending it: lcsb
 * takes the disposition as it is before it sets any, so no SIGHUP reaches
 * its handler from a thread that does not hold it, and no script is
 * stopped (a replaced and restored one stopped some 6% of them). */
static void test_ignored_signal_from_another_thread(void **state) {
    (void)state;
    char dir[] = "/tmp/lcsb-api.XXXXXX";
    assert_non_null(mkdtemp(dir));
    struct sigaction ignore = {.sa_handler = SIG_IGN}, was;
    sigemptyset(&ignore.sa_mask);
    assert_int_equal(sigaction(SIGHUP, &ignore, &was), 0);
    atomic_store(&hup_stop, false);
    pthread_t sender;
    assert_int_equal(pthread_create(&sender, NULL, send_hups, NULL), 0);
    int stopped = 0;
    for (int i = 0; i < 150; i++) {
        lcsb_script *s = NULL;
        lcsb_error err;
        if (run_script(dir, "return lcsb.policy {}", 0, &s, &err) != 0)
            stopped++;
        else
            assert_int_equal(lcsb_script_close(s, &err), 0);
    }
    atomic_store(&hup_stop, true);
    pthread_join(sender, NULL);
    assert_int_equal(sigaction(SIGHUP, &was, NULL), 0);
    rm_rf(dir);
    if (stopped) fail_msg("%d of 150 scripts stopped by a SIGHUP the host ignores", stopped);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_errors_one_list),
        cmocka_unit_test(test_escape),
        cmocka_unit_test(test_prepare_is_what_runs),
        cmocka_unit_test(test_field_tables),
        cmocka_unit_test(test_script_result),
        cmocka_unit_test(test_script_bare_policy),
        cmocka_unit_test(test_script_finds_lua_dir),
        cmocka_unit_test(test_script_result_is_data),
        cmocka_unit_test(test_hold),
        cmocka_unit_test(test_relayed_signals),
        cmocka_unit_test(test_script_stopped),
        cmocka_unit_test(test_ignored_signal_from_another_thread),
        cmocka_unit_test(test_script_attestation_json),
        cmocka_unit_test(test_changed_since),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
