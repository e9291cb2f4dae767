/* The command line, parsed: every subcommand and option, and each usage error
 * naming what was wrong (cli_parse is pure; cli_main is tested through the
 * built lcsb elsewhere). */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "helpers.h"

#define MAX_ARGS 160

/* argv as cli_parse gets it: "lcsb" first, then the words, NULL-terminated.
 * The words stay alive (static storage) while the parsed args point into them. */
typedef struct parsed {
    int rc;
    cli_args args;
    char err[512];
    char *argv[MAX_ARGS];
} parsed;

static parsed *parse_v(const char *const *words) {
    parsed *p = calloc(1, sizeof *p);
    assert_non_null(p);
    int argc = 0;
    p->argv[argc++] = "lcsb";
    for (size_t i = 0; words[i]; i++) {
        assert_true(argc < MAX_ARGS - 1);
        p->argv[argc++] = (char *)words[i];
    }
    p->argv[argc] = NULL;
    memset(p->err, 0, sizeof p->err);
    p->rc = cli_parse(argc, p->argv, &p->args, p->err, sizeof p->err);
    return p;
}

#define PARSE(...) parse_v((const char *const[]){__VA_ARGS__, NULL})
#define PARSE0() parse_v((const char *const[]){NULL})

static void done(parsed *p) {
    cli_args_free(&p->args);
    assert_null(p->args.prefix);
    free(p);
}

static parsed *ok(parsed *p) {
    if (p->rc != 0) fail_msg("expected success, got: %s", p->err);
    return p;
}

static void refused(parsed *p, const char *expect) {
    if (p->rc == 0) fail_msg("expected a usage error naming \"%s\"", expect);
    assert_int_equal(p->rc, -1);
    assert_contains(p->err, expect);
    done(p);
}

/* ---- subcommands ---- */

static void test_run(void **state) {
    (void)state;
    parsed *p = ok(PARSE("policy.lua", "--", "make", "-j8", "--", "x"));
    assert_int_equal(p->args.command, CLI_RUN);
    assert_string_equal(p->args.policy, "policy.lua");
    assert_string_equal(p->args.backend, "auto");
    assert_null(p->args.attest);
    assert_null(p->args.prefix);
    assert_false(p->args.no_capture);
    assert_false(p->args.json);
    /* The command is everything after the first "--", untouched, in place. */
    assert_ptr_equal(p->args.argv, (const char *const *)&p->argv[3]);
    assert_argv_equal((char **)p->args.argv, (const char *const[]){"make", "-j8", "--", "x", NULL});
    done(p);

    /* Options look like options only before "--". */
    p = ok(PARSE("p.lua", "--", "--backend", "--frob", "--help"));
    assert_string_equal(p->args.backend, "auto");
    assert_argv_equal((char **)p->args.argv, (const char *const[]){"--backend", "--frob", "--help",
                                                              NULL});
    done(p);
    /* "-" is a name, not an option. */
    p = ok(PARSE("-", "--", "true"));
    assert_string_equal(p->args.policy, "-");
    done(p);
}

static void test_help_version(void **state) {
    (void)state;
    parsed *p = ok(PARSE("--help"));
    assert_int_equal(p->args.command, CLI_HELP);
    done(p);
    p = ok(PARSE("-h"));
    assert_int_equal(p->args.command, CLI_HELP);
    done(p);
    /* First word wins; the rest is not even looked at. */
    p = ok(PARSE("--help", "--frob"));
    assert_int_equal(p->args.command, CLI_HELP);
    done(p);
    p = ok(PARSE("--version"));
    assert_int_equal(p->args.command, CLI_VERSION);
    done(p);
    /* Nothing at all is a usage error, not help. */
    refused(PARSE0(), "no policy script given");
    /* The usage text names every option the parser takes. */
    const char *options[] = {"--backend", "--attest", "--prefix", "--no-capture", "--json",
                             "--help", "--version", "detect", "check", "wrap",
                             "LCSB_POLICY_TIMEOUT", "cache", "clear", "--project", "--all",
                             "trust", "--accept"};
    for (size_t i = 0; i < sizeof options / sizeof options[0]; i++)
        assert_contains(cli_usage, options[i]);
}

static void test_detect(void **state) {
    (void)state;
    parsed *p = ok(PARSE("detect"));
    assert_int_equal(p->args.command, CLI_DETECT);
    assert_false(p->args.json);
    assert_null(p->args.policy);
    done(p);
    p = ok(PARSE("detect", "--json"));
    assert_int_equal(p->args.command, CLI_DETECT);
    assert_true(p->args.json);
    done(p);
    refused(PARSE("detect", "policy.lua"), "detect takes no argument (got policy.lua)");
    refused(PARSE("detect", "--frob"), "unknown option --frob");
    refused(PARSE("detect", "--backend", "bogus"), "unknown backend 'bogus'");
    /* --json belongs to detect alone. */
    refused(PARSE("--json", "p.lua", "--", "true"), "unknown option --json");
    refused(PARSE("check", "--json", "p.lua"), "unknown option --json");
    refused(PARSE("wrap", "p.lua", "--json", "--", "true"), "unknown option --json");
    /* A subcommand is only the first word. */
    p = ok(PARSE("p.lua", "--", "detect"));
    assert_int_equal(p->args.command, CLI_RUN);
    done(p);
    refused(PARSE("p.lua", "detect", "--", "true"), "unexpected argument detect");
}

static void test_check(void **state) {
    (void)state;
    parsed *p = ok(PARSE("check", "p.lua"));
    assert_int_equal(p->args.command, CLI_CHECK);
    assert_string_equal(p->args.policy, "p.lua");
    assert_null(p->args.argv); /* the command is optional */
    done(p);
    p = ok(PARSE("check", "p.lua", "--"));
    assert_non_null(p->args.argv);
    assert_null(p->args.argv[0]);
    done(p);
    p = ok(PARSE("check", "--backend", "none", "--attest", "-", "p.lua", "--", "git", "status"));
    assert_int_equal(p->args.command, CLI_CHECK);
    assert_string_equal(p->args.backend, "none");
    assert_string_equal(p->args.attest, "-");
    assert_argv_equal((char **)p->args.argv, (const char *const[]){"git", "status", NULL});
    done(p);
    refused(PARSE("check"), "no policy script given");
    refused(PARSE("check", "--", "true"), "no policy script given");
}

/* lcsb cache [list|clear] [--project DIR | --all | --plans]: list by
 * default, the current directory's project unless one is named. */
static void test_cache(void **state) {
    (void)state;
    parsed *p = ok(PARSE("cache"));
    assert_int_equal(p->args.command, CLI_CACHE);
    assert_false(p->args.cache_clear);
    assert_null(p->args.project);
    assert_false(p->args.all_projects);
    assert_null(p->args.policy);
    done(p);
    p = ok(PARSE("cache", "list", "--all"));
    assert_false(p->args.cache_clear);
    assert_true(p->args.all_projects);
    done(p);
    p = ok(PARSE("cache", "clear", "--project", "/src/app"));
    assert_true(p->args.cache_clear);
    assert_string_equal(p->args.project, "/src/app");
    done(p);
    p = ok(PARSE("cache", "--project", "list"));
    assert_false(p->args.cache_clear);
    assert_string_equal(p->args.project, "list");
    done(p);
    refused(PARSE("cache", "clear", "--project"), "option --project needs a value");
    refused(PARSE("cache", "--project", "a", "--project", "b"), "--project given twice");
    p = ok(PARSE("cache", "clear", "--plans"));
    assert_true(p->args.cache_clear);
    assert_true(p->args.plans);
    assert_null(p->args.project);
    done(p);
    refused(PARSE("cache", "clear", "--all", "--project", "a"), "--project, --all and --plans: choose one");
    refused(PARSE("cache", "--plans", "--all"), "choose one");
    refused(PARSE("cache", "purge"), "cache: unexpected argument purge");
    refused(PARSE("cache", "clear", "p.lua"), "unexpected argument p.lua");
    refused(PARSE("cache", "--backend", "none"), "unexpected argument --backend");
}

static void test_wrap(void **state) {
    (void)state;
    parsed *p = ok(PARSE("wrap", "--backend", "landlock", "p.lua", "--", "true"));
    assert_int_equal(p->args.command, CLI_WRAP);
    assert_string_equal(p->args.backend, "landlock");
    assert_string_equal(p->args.policy, "p.lua");
    assert_argv_equal((char **)p->args.argv, (const char *const[]){"true", NULL});
    done(p);
    refused(PARSE("wrap", "p.lua"), "no command given");
    refused(PARSE("wrap", "p.lua", "--"), "no command given");
    refused(PARSE("wrap"), "no policy script given");
}

/* ---- options ---- */

static void test_options_anywhere_before_dashdash(void **state) {
    (void)state;
    parsed *p = ok(PARSE("--no-capture", "p.lua", "--attest", "out.json", "--backend", "oci",
                         "--", "true"));
    assert_int_equal(p->args.command, CLI_RUN);
    assert_true(p->args.no_capture);
    assert_string_equal(p->args.attest, "out.json");
    assert_string_equal(p->args.backend, "oci");
    assert_string_equal(p->args.policy, "p.lua");
    done(p);
    /* The last value given wins. */
    p = ok(PARSE("--backend", "none", "--backend", "seatbelt", "p.lua", "--", "true"));
    assert_string_equal(p->args.backend, "seatbelt");
    done(p);
    /* A value that looks like an option is still the value. */
    p = ok(PARSE("--attest", "--no-capture", "p.lua", "--", "true"));
    assert_string_equal(p->args.attest, "--no-capture");
    assert_false(p->args.no_capture);
    done(p);
}

static void test_backends(void **state) {
    (void)state;
    const char *known[] = {"auto", "landlock", "seatbelt", "oci", "none"};
    for (size_t i = 0; i < 5; i++) {
        parsed *p = ok(PARSE("--backend", known[i], "p.lua", "--", "true"));
        assert_string_equal(p->args.backend, known[i]);
        done(p);
    }
    refused(PARSE("--backend", "docker", "p.lua", "--", "true"), "unknown backend 'docker'");
    refused(PARSE("--backend", "", "p.lua", "--", "true"), "unknown backend ''");
    refused(PARSE("--backend", "Landlock", "p.lua", "--", "true"), "expected auto, landlock");
}

static void test_missing_values(void **state) {
    (void)state;
    refused(PARSE("--backend"), "option --backend needs a value");
    refused(PARSE("p.lua", "--attest"), "option --attest needs a value");
    refused(PARSE("check", "p.lua", "--prefix"), "option --prefix needs a value");
    refused(PARSE("detect", "--backend"), "option --backend needs a value");
}

static void test_keep_fd(void **state) {
    (void)state;
    parsed *p = ok(PARSE("--keep-fd", "3", "p.lua", "--keep-fd", "65535", "--", "x"));
    assert_int_equal(p->args.keep_fds_count, 2);
    assert_int_equal(p->args.keep_fds[0], 3);
    assert_int_equal(p->args.keep_fds[1], 65535);
    done(p);
    p = ok(PARSE("p.lua", "--", "x", "--keep-fd", "5"));
    assert_int_equal(p->args.keep_fds_count, 0); /* the command's own argument */
    done(p);
    static const char *const bad[] = {"0", "1", "2", "-3", "+3", "", "3x", "x", "65536",
                                      "99999999999999999999"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        refused(PARSE("--keep-fd", bad[i], "p.lua", "--", "x"), "expected a descriptor number");
    refused(PARSE("p.lua", "--keep-fd"), "option --keep-fd needs a value");
    const char *many[2 * CLI_KEEP_FDS_MAX + 6];
    size_t n = 0;
    for (int fd = 3; fd < 3 + CLI_KEEP_FDS_MAX + 1; fd++) {
        static char numbers[CLI_KEEP_FDS_MAX + 1][8];
        snprintf(numbers[fd - 3], sizeof numbers[0], "%d", fd);
        many[n++] = "--keep-fd";
        many[n++] = numbers[fd - 3];
    }
    many[n++] = "p.lua";
    many[n++] = "--";
    many[n++] = "x";
    many[n] = NULL;
    refused(parse_v(many), "more than 64 --keep-fd options");
}

/* lcsb trust --accept FILE=SHA256: the file lcsb trust named and the
 * digest it showed, repeatable, for trust alone; any other form is refused
 * before anything runs. */
static void test_accept(void **state) {
    (void)state;
#define SHA "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
    parsed *p = ok(PARSE("trust", "--accept", "local.lua=" SHA, "p.lua", "--accept",
                         "a=b/c=" SHA, "--", "make"));
    assert_int_equal(p->args.command, CLI_TRUST);
    assert_int_equal(p->args.accept_count, 2);
    assert_string_equal(p->args.accept[0], "local.lua=" SHA);
    assert_string_equal(p->args.accept[1], "a=b/c=" SHA); /* the last '=' parts them */
    assert_null(p->args.accept[2]);
    done(p);
    p = ok(PARSE("trust", "p.lua"));
    assert_int_equal(p->args.accept_count, 0);
    assert_null(p->args.accept[0]);
    done(p);
    static const char *const bad[] = {
        "local.lua", "local.lua=", "=" SHA, "local.lua=" SHA "0", "local.lua=0123",
        "local.lua=0123456789ABCDEF0123456789abcdef0123456789abcdef0123456789abcdef"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        refused(PARSE("trust", "--accept", bad[i], "p.lua"), "expected FILE=SHA256");
    refused(PARSE("trust", "p.lua", "--accept"), "option --accept needs a value");
    refused(PARSE("--accept", "local.lua=" SHA, "p.lua", "--", "true"),
            "--accept is for lcsb trust");
    refused(PARSE("check", "--accept", "local.lua=" SHA, "p.lua"), "--accept is for lcsb trust");
#undef SHA
}

static void test_unknown_and_extra(void **state) {
    (void)state;
    refused(PARSE("--frob", "p.lua", "--", "true"), "unknown option --frob");
    refused(PARSE("p.lua", "-x", "--", "true"), "unknown option -x");
    refused(PARSE("p.lua", "--backend=none", "--", "true"), "unknown option --backend=none");
    refused(PARSE("check", "p.lua", "--help"), "unknown option --help");
    refused(PARSE("p.lua", "make", "--", "true"), "unexpected argument make");
    refused(PARSE("p.lua", "make"), "put the command after --");
}

static void test_missing_policy_or_command(void **state) {
    (void)state;
    refused(PARSE("--", "true"), "no policy script given");
    refused(PARSE("--backend", "none"), "no policy script given");
    refused(PARSE("p.lua"), "no command given (lcsb POLICY.lua -- COMMAND)");
    refused(PARSE("p.lua", "--"), "no command given");
    refused(PARSE("--no-capture", "p.lua", "--attest", "x"), "no command given");
}

/* ---- --prefix ---- */

static void test_prefix(void **state) {
    (void)state;
    parsed *p = ok(PARSE("--prefix", "uv run --", "p.lua", "--", "pytest"));
    assert_argv_equal(p->args.prefix, (const char *const[]){"uv", "run", "--", NULL});
    assert_argv_equal((char **)p->args.argv, (const char *const[]){"pytest", NULL});
    done(p);
    /* Quotes group, blanks split, tabs too; quotes join with what touches them. */
    p = ok(PARSE("wrap", "--prefix", "  nix\tdevelop  'a b' \"c 'd'\" e\"f g\"h '' \"\"  ",
                 "p.lua", "--", "true"));
    assert_argv_equal(p->args.prefix,
                 (const char *const[]){"nix", "develop", "a b", "c 'd'", "ef gh", "", "", NULL});
    done(p);
    /* A later --prefix replaces the earlier one (and frees it). */
    p = ok(PARSE("--prefix", "a b", "--prefix", "direnv exec .", "p.lua", "--", "true"));
    assert_argv_equal(p->args.prefix, (const char *const[]){"direnv", "exec", ".", NULL});
    done(p);
    /* Unterminated quotes, and nothing at all, are refused by name. */
    refused(PARSE("--prefix", "uv 'run", "p.lua", "--", "true"),
            "--prefix 'uv 'run': no words, or an unclosed quote");
    refused(PARSE("--prefix", "\"", "p.lua", "--", "true"), "unclosed quote");
    refused(PARSE("--prefix", "a \"b' c", "p.lua", "--", "true"), "unclosed quote");
    refused(PARSE("--prefix", "", "p.lua", "--", "true"), "no words");
    refused(PARSE("--prefix", " \t ", "p.lua", "--", "true"), "no words");
    /* A usage error after a good --prefix leaves it for cli_args_free. */
    p = PARSE("--prefix", "uv run", "--frob", "p.lua", "--", "true");
    assert_int_equal(p->rc, -1);
    assert_non_null(p->args.prefix);
    done(p);
}

/* LCSB_POLICY_TIMEOUT: seconds, whole or not, 0 for none; anything else
 * names the variable and what it takes. */
static void test_policy_timeout(void **state) {
    (void)state;
    char err[256] = "";
    double seconds = 10;
    assert_int_equal(cli_parse_timeout(NULL, &seconds, err, sizeof err), 0);
    assert_int_equal(cli_parse_timeout("", &seconds, err, sizeof err), 0);
    assert_true(seconds == 10);
    static const struct {
        const char *text;
        double want;
    } good[] = {{"0", 0}, {"30", 30}, {"2.5", 2.5}, {".5", 0.5}, {"1000000", 1e6}};
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
        assert_int_equal(cli_parse_timeout(good[i].text, &seconds, err, sizeof err), 0);
        assert_true(seconds == good[i].want);
    }
    static const char *const bad[] = {"-1", "abc", "10s", " 1", "1e3", "inf",
                                      "nan", "0x10", "1.2.3", ".", "1000001"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        seconds = 7;
        err[0] = '\0';
        if (cli_parse_timeout(bad[i], &seconds, err, sizeof err) == 0)
            fail_msg("LCSB_POLICY_TIMEOUT='%s' was taken", bad[i]);
        assert_true(seconds == 7);
        assert_contains(err, "LCSB_POLICY_TIMEOUT");
        assert_contains(err, bad[i]);
    }
}

static void test_split_words(void **state) {
    (void)state;
    char **w = cli_split_words("one");
    assert_argv_equal(w, (const char *const[]){"one", NULL});
    for (size_t i = 0; w[i]; i++) free(w[i]);
    free(w);
    /* More words than the first allocation holds. */
    w = cli_split_words("a b c d e f g h i j k l m n o p q r s t");
    assert_non_null(w);
    size_t n = 0;
    while (w[n]) n++;
    assert_int_equal(n, 20);
    assert_string_equal(w[19], "t");
    for (size_t i = 0; w[i]; i++) free(w[i]);
    free(w);
    assert_null(cli_split_words(""));
    assert_null(cli_split_words("'"));
    assert_null(cli_split_words("ok 'not ok"));
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_run),
        cmocka_unit_test(test_help_version),
        cmocka_unit_test(test_detect),
        cmocka_unit_test(test_check),
        cmocka_unit_test(test_cache),
        cmocka_unit_test(test_wrap),
        cmocka_unit_test(test_options_anywhere_before_dashdash),
        cmocka_unit_test(test_backends),
        cmocka_unit_test(test_missing_values),
        cmocka_unit_test(test_keep_fd),
        cmocka_unit_test(test_accept),
        cmocka_unit_test(test_unknown_and_extra),
        cmocka_unit_test(test_missing_policy_or_command),
        cmocka_unit_test(test_prefix),
        cmocka_unit_test(test_split_words),
        cmocka_unit_test(test_policy_timeout),
    };
    return cmocka_run_group_tests_name("cli_args", tests, NULL, NULL);
}
