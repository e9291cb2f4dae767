/* lcsb trust over an earlier record: it runs the policy the user names, but
 * no other code that record does not cover as it is, and --accept FILE=SHA256
 * lets through only the copy lcsb named. Cut from the trust suite, whose
 * fixture it shares (trust_fixture.h). */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h> /* after the four above, which it needs */

#include <limits.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "trust_fixture.h"

/* The digest lcsb trust named for FILE in its refusal, the word after
 * "--accept FILE=", into OUT. */
static void accept_digest(const char *err, const char *file, char out[65]) {
    char word[PATH_MAX];
    FMT(word, "--accept %s=", file);
    const char *at = strstr(err, word);
    if (!at) fail_msg("no \"%s\" in:\n%s", word, err);
    at += strlen(word);
    assert_true(strspn(at, "0123456789abcdef") >= 64);
    memcpy(out, at, 64);
    out[64] = '\0';
}

/* `lcsb trust [--accept ACCEPT] POLICY` from the project, into P; ACCEPT
 * may be NULL. */
static void trust_accepting(fx *f, const char *accept) {
    if (accept)
        run_child(f->project, CMD(LCSB_CLI_PATH, "trust", "--accept", accept, f->policy),
                  trust_env(f), &P);
    else
        run_child(f->project, CMD(LCSB_CLI_PATH, "trust", f->policy), trust_env(f), &P);
}

/* lcsb trust over an earlier record runs the policy the user names, but no
 * other code that record does not cover as it is. The red team's case: a
 * trusted script looks for an optional file (pcall(dofile, ...)), the
 * command plants one in the project, the user edits the policy. The run's
 * refusal names both; lcsb trust stops before the planted file (125),
 * naming it, runs none of it and records nothing. Accepted with another
 * digest it still does not run; with the digest lcsb named (that of the
 * copy it kept), it runs, as the user approved. */
static void test_trust_runs_no_unseen_code(void **state) {
    fx *f = *state;
    NEED_LANDLOCK();
    char marker[PATH_MAX], local[PATH_MAX], code[PATH_MAX + 64], edited[512];
    path_in(marker, f->outside, "planted-ran");
    path_in(local, f->project, "policy.local.lua");
    const char *text = "local lcsb = require \"lcsb\"\n"
                       "pcall(dofile, \"policy.local.lua\")\n"
                       "return lcsb.exec_policy { exec = { \"sh\" } }\n";
    raw_policy(f, text);
    trust(f, f->policy);
    /* The command plants it: the project is its to write. */
    FMT(code, "io.open(\"%s\", \"w\"):close()\n", marker);
    run_checked(f, "landlock", f->policy,
                CMD("sh", "-c", "printf '%s' \"$1\" > policy.local.lua", "sh", code), false);
    assert_int_equal(P.status, 0);
    assert_exists(local, true);
    FMT(edited, "%s-- allow more later\n", text);
    write_file(f->policy, edited);

    run_checked(f, "landlock", f->policy, CMD("true"), false);
    assert_int_equal(P.status, LCSB_EXIT_USAGE);
    char *refusal = strdup(P.err); /* judged once lcsb trust has had its say */
    assert_non_null(refusal);

    trust_accepting(f, NULL);
    if (P.status != LCSB_EXIT_USAGE) describe("lcsb trust", CMD("trust"), &P);
    assert_exists(marker, false); /* the planted code did not run as the user */
    assert_int_equal(P.status, LCSB_EXIT_USAGE);
    assert_true(has_line(P.err, "lcsb: ",
                         CMD("lcsb trust stopped ",
                             "p.lua before it ran policy.local.lua, which "
                             "is new since you trusted",
                             "1 line, last changed", "lcsb ran none of it and recorded nothing",
                             "/state/lcsb/trust/content/",
                             "if you trust it, run: lcsb trust --accept policy.local.lua=",
                             "Also new or changed since you trusted it: p.lua (1 line added")));
    assert_exists(marker, false);
    /* The run's refusal named the planted file too, not the edit alone. */
    assert_true(has_line(refusal, "lcsb: ",
                         CMD("p.lua changed since you trusted it", "then run: lcsb trust",
                             "Also new or changed since you trusted it: policy.local.lua (new: "
                             "1 line, last changed ")));
    free(refusal);
    char digest[65], kept[PATH_MAX + 128];
    accept_digest(P.err, "policy.local.lua", digest);
    FMT(kept, "%s/state/lcsb/trust/content/%s", f->outside, digest);
    assert_content(kept, code); /* the bytes it found, to read */
    /* Nothing recorded: the run is refused as before. */
    run_checked(f, "landlock", f->policy, CMD("true"), false);
    assert_int_equal(P.status, LCSB_EXIT_USAGE);
    assert_true(has_line(P.err, "lcsb: ", CMD("p.lua changed since you trusted it")));

    /* Another digest accepts nothing. */
    char wrong[PATH_MAX];
    FMT(wrong, "policy.local.lua=%.63s%c", digest, digest[63] == '0' ? '1' : '0');
    trust_accepting(f, wrong);
    assert_int_equal(P.status, LCSB_EXIT_USAGE);
    assert_true(has_line(
        P.err, "lcsb: ", CMD("before it ran policy.local.lua", "it is not the one you accepted")));
    assert_exists(marker, false);

    /* The digest lcsb named: it runs, and is recorded with the rest. */
    char right[PATH_MAX];
    FMT(right, "policy.local.lua=%s", digest);
    trust_accepting(f, right);
    if (P.status != 0) describe("accepted", CMD("trust", "--accept", right), &P);
    assert_int_equal(P.status, 0);
    assert_true(has_line(P.err, "lcsb: ", CMD("/policy.local.lua (new)")));
    assert_true(has_line(P.err, "lcsb: ", CMD("/p.lua (changed)")));
    assert_exists(marker, true);
    assert_int_equal(unlink(marker), 0);
    run_checked(f, "landlock", f->policy, CMD("true"), false);
    assert_int_equal(P.status, 0);
    assert_exists(marker, true);
}

/* What lcsb trust over a record stops at, and what not: a module that
 * changed (code) stops it, and so do a data file's bytes given to load (a
 * state file read, then run); a data file that changed and is only read
 * keeps lcsb trust as it was, and its output says so. A normal run's
 * refusal names every file the record knows of that changed, not only the
 * first it met. */
static void test_trust_stops_at_changed_code(void **state) {
    fx *f = *state;
    NEED_LANDLOCK();
    char lib[PATH_MAX], mod[PATH_MAX], state_lua[PATH_MAX], extra[PATH_MAX], marker[PATH_MAX];
    char code[PATH_MAX + 64];
    assert_int_equal(mkdir(path_in(lib, f->project, "lib"), 0755), 0);
    write_file(path_in(mod, lib, "tools.lua"), "return { \"sh\" }\n");
    write_file(path_in(state_lua, f->project, "state.lua"), "return 1\n");
    write_file(path_in(extra, f->project, "extra.txt"), "cat\n");
    path_in(marker, f->outside, "changed-ran");
    FMT(code, "io.open(\"%s\", \"w\"):close()\n", marker);
    raw_policy(f, "local lcsb = require \"lcsb\"\n"
                  "package.path = \"lib/?.lua;\" .. package.path\n"
                  "local exec = require \"tools\"\n"
                  "local f = io.open(\"state.lua\"); load(f:read(\"a\"), \"state\", \"t\")()\n"
                  "for line in io.lines(\"extra.txt\") do exec[#exec + 1] = line end\n"
                  "return lcsb.exec_policy { exec = exec }\n");
    trust(f, f->policy);

    /* Data, only read: trusted as before, and named as changed. */
    write_file(extra, "cat\nls\n");
    trust_accepting(f, NULL);
    assert_int_equal(P.status, 0);
    assert_true(has_line(P.err, "lcsb: ", CMD("/extra.txt (changed)")));
    assert_false(has_line(P.err, "lcsb: ", CMD("/lib/tools.lua (")));

    /* A module and a data file changed: the run names both. */
    char evil[PATH_MAX + 128];
    FMT(evil, "%sreturn { \"sh\" }\n", code);
    write_file(mod, evil);
    write_file(extra, "cat\n");
    run_checked(f, "landlock", f->policy, CMD("true"), false);
    assert_int_equal(P.status, LCSB_EXIT_USAGE);
    assert_true(has_line(P.err, "lcsb: ",
                         CMD("p.lua reads lib/tools.lua, which changed since you trusted it",
                             "Also new or changed since you trusted it: extra.txt (0 lines added, "
                             "1 removed")));
    /* lcsb trust stops before the module. */
    trust_accepting(f, NULL);
    assert_int_equal(P.status, LCSB_EXIT_USAGE);
    assert_true(has_line(P.err, "lcsb: ",
                         CMD("before it ran lib/tools.lua, which changed since you trusted",
                             "1 line added, 0 removed; first at line 1: io.open(",
                             "--accept lib/tools.lua=", "extra.txt (0 lines added, 1 removed")));
    assert_exists(marker, false);
    write_file(mod, "return { \"sh\" }\n");

    /* A state file's bytes, run with load. */
    write_file(state_lua, code);
    trust_accepting(f, NULL);
    assert_int_equal(P.status, LCSB_EXIT_USAGE);
    assert_true(has_line(P.err, "lcsb: ",
                         CMD("before it ran the content of state.lua (load), which changed",
                             "--accept state.lua=")));
    assert_exists(marker, false);
    char digest[65], accept[PATH_MAX];
    accept_digest(P.err, "state.lua", digest);
    FMT(accept, "state.lua=%s", digest);
    trust_accepting(f, accept);
    assert_int_equal(P.status, 0);
    assert_exists(marker, true);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        T(test_trust_runs_no_unseen_code),
        T(test_trust_stops_at_changed_code),
    };
    return cmocka_run_group_tests_name("sandbox_enforce_trust_accept", tests, enforce_group_setup,
                                       NULL);
}
