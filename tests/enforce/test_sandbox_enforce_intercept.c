/* Interception: lcsb's proxy reading a host's requests where a rule
 * (net.domains' methods= and paths=) or a secret needs it, HTTPS under the
 * run's own authority. Rules judged, framing enforced, secrets put in by
 * placeholder and never found inside, withheld values refused; against
 * the net.domains servers (net_fixture.h), with real curl and git. Every
 * refusal has its twin: the same request without the rule or the secret,
 * and under none. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h> /* after the four above, which it needs */

#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "enforce_fixture.h"
#include "net_fixture.h"

#define RULE_POLICY                                                                                \
    "exec = { \"curl\", \"sh\", \"git\", \"cat\" }, net = { domains = { [\"%s:%d\"] = %s, "        \
    "[\"%s:%d\"] = %s "                                                                            \
    "}, lan = { \"127.0.0.0/8\" } }"

/* lcsb, with lcsb itself trusting the test servers' certificate (the
 * command trusts the run's own authority, which the proxy names to it). */
static void lcsb_trusting(fx *f, const char *const *cmd) {
    char trust[PATH_MAX + 16];
    FMT(trust, "SSL_CERT_FILE=%s", srv.cert);
    lcsb_env(f, "landlock", cmd, ENV(trust), &P);
}

/* The HTTP status curl got for ARGS, as stdout's only line. */
#define STATUS_OF(...) CMD("curl", "-s", "-o", "/dev/null", "-w", "%{http_code}\n", __VA_ARGS__)

/* Rules on requests: methods= and paths=. A request a rule refuses gets a
 * 403 naming the rule, a hint and a record in the attestation; HTTPS is
 * read through interception (the command trusts the run's authority, lcsb
 * verifies the server). The twins: the same request under an entry without
 * a rule reaches the server (its 501 for a POST), and so it does with no
 * sandbox. */
static void test_request_rules(void **state) {
    NEED_SERVERS();
    fx *f = *state;
    char https[512], http[512], echo[512], hint[600], why[300];
    FMT(https, "https://%s:%d/hello.txt", srv.host, srv.https);
    FMT(http, "http://%s:%d/hello.txt", srv.host, srv.http);
    FMT(echo, "https://%s:%d/echo?q=1", srv.host, srv.https);
    policy(f, RULE_POLICY, srv.host, srv.https, "{ methods = { \"GET\" } }", srv.host, srv.http,
           "{ methods = { \"GET\", \"POST\" }, paths = { \"/hello\", \"/echo\" } }");
    lcsb_trusting(f, CMD("curl", "-sS", https));
    assert_int_equal(P.status, 0);
    assert_string_equal(P.out, "hello through lcsb's proxy\n");
    /* git's dumb HTTP: GETs only, through the same interception. */
    char clone[800];
    FMT(clone, "cd \"$TMPDIR\" && git clone -q https://%s:%d/repo.git r && cat r/README", srv.host,
        srv.https);
    lcsb_trusting(f, CMD("sh", "-c", clone));
    if (P.status != 0) {
        describe("git clone", CMD("sh", "-c", clone), &P);
        fail_msg("git's clone through interception failed");
    }
    assert_contains(P.out, "cloned through lcsb's proxy", "git's clone");

    const char *const *post = CMD("curl", "-fsS", "-X", "POST", "-d", "a=1", echo);
    lcsb_trusting(f, post);
    assert_int_equal(P.status, 22);
    assert_lacks(P.out, "POST", "stdout (the server saw nothing)");
    FMT(hint,
        "lcsb's proxy refused POST /echo?q=1 to %s:%d: its method is not among the rule's; to "
        "allow it, add \"POST\" to the entry's methods",
        srv.host, srv.https);
    assert_contains(P.err, hint, "stderr");
    char attested[8192];
    char trust[PATH_MAX + 16];
    FMT(trust, "SSL_CERT_FILE=%s", srv.cert);
    char att[PATH_MAX];
    FMT(att, "%s/attestation.json", f->outside);
    lcsb_opts(f, "landlock", CMD("--attest", att), post, ENV(trust), &P);
    read_file(att, attested, sizeof attested);
    FMT(why, "\"why\":\"rule: POST /echo?q=1: its method is not among the rule's\"");
    assert_contains(attested, why, "the attestation");
    /* A method override is a method: the rule judges it too. */
    lcsb_trusting(f, STATUS_OF("-H", "X-HTTP-Method-Override: DELETE", https));
    assert_string_equal(P.out, "403\n");
    /* Forwarded HTTP: the paths the rule names, and no other. */
    lcsb_trusting(f, STATUS_OF("-X", "POST", "-d", "a=1", http));
    assert_string_equal(P.out, "501\n");
    char other[512];
    FMT(other, "http://%s:%d/repo.git/HEAD", srv.host, srv.http);
    lcsb_trusting(f, STATUS_OF(other));
    assert_string_equal(P.out, "403\n");
    /* A Host header for another name, inside a tunnel to this one. */
    lcsb_trusting(f, STATUS_OF("-H", "Host: localhost", https));
    assert_string_equal(P.out, "421\n");
    /* Framing a server could read two ways. */
    FMT(echo, "http://%s:%d/echo", srv.host, srv.http);
    lcsb_trusting(f, STATUS_OF("-X", "POST", "-H", "Transfer-Encoding: chunked", "-H",
                               "Content-Length: 3", "-d", "a=1", echo));
    assert_string_equal(P.out, "400\n");
    /* A body by its length and a chunked one arrive whole. */
    lcsb_trusting(f, CMD("curl", "-sS", "-d", "a=1", echo));
    assert_contains(P.out, "POST /echo\n", "the echo");
    assert_contains(P.out, "body: a=1\n", "the echo");

    /* lcsb verifies the server: without its certificate among the ones lcsb
     * trusts, the tunnel goes no further (502, and why). */
    lcsb(f, "landlock", CMD("curl", "-fsS", https), &P);
    assert_int_equal(P.status, 22);
    assert_contains(P.err, "could not verify the host: its certificate is not trusted", "stderr");

    /* The twins: no rule, and no sandbox. */
    FMT(echo, "https://%s:%d/echo?q=1", srv.host, srv.https);
    const char *const *posted = CMD("curl", "-fsS", "--cacert", srv.cert, "-d", "a=1", echo);
    servers_policy(f, NULL);
    lcsb_trusting(f, posted);
    assert_int_equal(P.status, 0);
    assert_contains(P.out, "POST /echo?q=1\n", "the server's echo");
    expect_unsandboxed_ok(f, posted, &P);
    assert_contains(P.out, "POST /echo?q=1\n", "the server's echo");
}

/* Two reasons a rule refused one host's requests for, in one run: a
 * record and a hint for each, so that one run shows every rule the command
 * ran into. (With them merged, the second is neither recorded nor said.) */
static void test_rule_reasons(void **state) {
    NEED_SERVERS();
    fx *f = *state;
    char http[512], other[512], both[1200], att[PATH_MAX], attested[8192], trust[PATH_MAX + 16];
    FMT(http, "http://%s:%d/hello.txt", srv.host, srv.http);
    FMT(other, "http://%s:%d/repo.git/HEAD", srv.host, srv.http);
    FMT(att, "%s/attestation.json", f->outside);
    FMT(trust, "SSL_CERT_FILE=%s", srv.cert);
    policy(f, RULE_POLICY, srv.host, srv.https, "{ methods = { \"GET\" } }", srv.host, srv.http,
           "{ methods = { \"GET\", \"POST\" }, paths = { \"/hello\", \"/echo\" } }");
    FMT(both, "curl -s -o /dev/null -X DELETE %s; curl -fsS %s", http, other);
    lcsb_opts(f, "landlock", CMD("--attest", att), CMD("sh", "-c", both), ENV(trust), &P);
    assert_int_equal(P.status, 22);
    assert_contains(P.err, "add \"DELETE\" to the entry's methods", "the method's hint");
    assert_contains(P.err, "add \"/repo.git/\" (or a shorter prefix) to the entry's paths",
                    "the path's hint");
    read_file(att, attested, sizeof attested);
    assert_contains(attested, "\"why\":\"rule: DELETE /hello.txt: its method is not among",
                    "the method's record");
    assert_contains(attested, "\"why\":\"rule: GET /repo.git/HEAD: its path starts with none",
                    "the path's record");
}

/* What a command inside tries, to find the real value: every process's
 * environment and argv it can see, its own files, the bundle it was given
 * (and a private key in it). Each count must be 0. The pattern is no copy
 * of the value ("[-]"), or it would find itself in these very argvs. */
#define VALUE_PATTERN "ghp_0nly-the-server[-]sees-this"
static const char find_value[] =
    "for f in /proc/[0-9]*/environ /proc/[0-9]*/cmdline; do cat \"$f\" 2>/dev/null; done | "
    "grep -c '" VALUE_PATTERN "'; grep -rsc '" VALUE_PATTERN "' \"$HOME\" \"$TMPDIR\" "
    "\"$SSL_CERT_FILE\" | grep -vc ':0$'; grep -c 'PRIVATE KEY' \"$SSL_CERT_FILE\"; exit 0";

/* Secrets by placeholder: the command holds a placeholder, and the server
 * a secret goes to gets the value in its place (a header, Basic
 * credentials); another host gets the placeholder. No route inside leads
 * to the value, with a world of its own and without. A request that
 * carries a withheld value itself is refused. The twins: without the
 * secret (and without a sandbox) the same request goes through. */
static void test_secrets(void **state) {
    NEED_SERVERS();
    fx *f = *state;
    char script[1200], att[PATH_MAX], attested[8192], https[256], http[256];
    FMT(https, "https://%s:%d/echo", srv.host, srv.https);
    FMT(http, "http://%s:%d/echo", srv.host, srv.http);
    secrets_policy(f, "");
    FMT(script,
        "echo \"$LCSB_TEST_SECRET\"; curl -sS -H \"X-Token: $LCSB_TEST_SECRET\" %s; "
        "curl -sS -u \"git:$LCSB_TEST_SECRET\" %s; curl -sS -H \"X-Token: $LCSB_TEST_SECRET\" %s",
        https, https, http);
    FMT(att, "%s/attestation.json", f->outside);
    unlink(att);
    lcsb_with_secret(f, NULL, CMD("--attest", att), CMD("sh", "-c", script));
    if (P.status != 0) {
        describe("secrets", CMD("sh", "-c", script), &P);
        fail_msg("the requests with a placeholder failed");
    }
    char placeholder[128];
    first_line(P.out, placeholder, sizeof placeholder);
    assert_int_equal(strncmp(placeholder, "lcsb-placeholder-", 17), 0);
    assert_int_equal(strlen(placeholder), 17 + 32);
    /* The server got the value (its digest says so), and what it echoed
     * reached the command with the value overwritten. */
    assert_contains(P.out, "x-token-sha256: " SECRET_SHA256 "\n", "the secret's host");
    assert_contains(P.out, "x-token: *****************************\n", "the echo, masked");
    assert_contains(P.out, "authorization-sha256: " BASIC_SHA256 "\n", "Basic credentials");
    assert_contains(P.out, "accept-encoding: identity\n", "the answer asked for plain");
    assert_lacks(P.out, SECRET_VALUE, "the command's output");
    char elsewhere[200];
    FMT(elsewhere, "x-token: %s\n", placeholder);
    assert_contains(P.out, elsewhere, "another host");
    read_file(att, attested, sizeof attested);
    char listed[300];
    FMT(listed, "\"secrets\":[\"LCSB_TEST_SECRET %s:%d headers=x-token\"]", srv.host, srv.https);
    assert_contains(attested, listed, "the attestation");
    assert_lacks(attested, SECRET_VALUE, "the attestation");
    /* Only over TLS: plain HTTP to the secret's host is refused the value. */
    FMT(script, "curl -fsS -H \"X-Token: $LCSB_TEST_SECRET\" http://%s:%d/echo", srv.host,
        srv.https);
    lcsb_with_secret(f, NULL, NULL, CMD("sh", "-c", script));
    assert_int_equal(P.status, 22);
    assert_contains(P.err, "lcsb puts a secret's value only into requests over TLS", "stderr");
}

/* No route inside leads to the value: every process's environment and
 * argv, the command's files, the bundle; with a world of its own, and with
 * Landlock alone, where the host's processes are in view. */
static void test_secret_not_found_inside(void **state) {
    NEED_SERVERS();
    fx *f = *state;
    char https[256];
    FMT(https, "https://%s:%d/echo", srv.host, srv.https);
    secrets_policy(f, "");
    lcsb_with_secret(f, NULL, NULL, CMD("sh", "-c", find_value));
    assert_int_equal(P.status, 0);
    assert_string_equal(P.out, "0\n0\n0\n");
    /* The same looks with the host's processes in view (Landlock alone). */
    secrets_policy(f, ", degrade = { \"net\", \"world\", \"metadata\" }");
    lcsb_with_secret(f, without_userns(LCSB_FAULT_LAUNCHER_PATH), NULL,
                     CMD("sh", "-c", find_value));
    if (P.status != 0 || strcmp(P.out, "0\n0\n0\n") != 0) {
        describe("the value looked for, Landlock alone", CMD("sh", "-c", find_value), &P);
        fail_msg("the value was found, or the looks failed");
    }
    lcsb_with_secret(f, without_userns(LCSB_FAULT_LAUNCHER_PATH), NULL,
                     CMD("sh", "-c", "curl -sS -H \"X-Token: $LCSB_TEST_SECRET\" \"$0\"", https));
    assert_contains(P.out, "x-token-sha256: " SECRET_SHA256 "\n",
                    "the secret's host, Landlock alone");
    /* The twin: the same looks find the value where the command was
     * given it, with no sandbox. */
    policy(f, "exec = { \"sh\", \"cat\", \"grep\" }, env = { pass = { \"LCSB_TEST_SECRET\" } }");
    lcsb_launched(f, NULL, "none", NULL, CMD("sh", "-c", find_value),
                  ENV("LCSB_TEST_SECRET=" SECRET_VALUE), &P);
    assert_int_equal(P.status, 0);
    if (strncmp(P.out, "0\n", 2) == 0) fail_msg("the looks found nothing with the value given");
}

/* A value the command would hold some other way than the proxy's is
 * refused before the run: on its argv (a shell expanded the variable), in
 * a variable env.pass gives it, and one too short to be found in an echo.
 * The twins: the variable as the command's own shell expands it, another
 * variable, a value of 8 bytes. */
static void test_value_given_or_short(void **state) {
    NEED_SERVERS();
    fx *f = *state;
    char trust[PATH_MAX + 16];
    FMT(trust, "SSL_CERT_FILE=%s", srv.cert);
    secrets_policy(f, ", env = { pass = { \"LCSB_TEST_OTHER\" } }");
    lcsb_with_secret(f, NULL, NULL, CMD("sh", "-c", "echo " SECRET_VALUE));
    assert_int_equal(P.status, 125);
    assert_contains(P.err,
                    "an argument of the command's holds the value of the secret "
                    "LCSB_TEST_SECRET, which the command must never have",
                    "stderr");
    assert_contains(P.err, "write '$LCSB_TEST_SECRET'", "stderr");
    assert_lacks(P.out, SECRET_VALUE, "stdout");
    lcsb_with_secret(f, NULL, NULL, CMD("sh", "-c", "echo \"$LCSB_TEST_SECRET\""));
    assert_int_equal(P.status, 0);
    assert_contains(P.out, "lcsb-placeholder-", "the placeholder");
    lcsb_launched(
        f, NULL, "landlock", NULL, CMD("sh", "-c", "echo \"$LCSB_TEST_OTHER\""),
        ENV(trust, "LCSB_TEST_SECRET=" SECRET_VALUE, "LCSB_TEST_OTHER=x" SECRET_VALUE "y"), &P);
    assert_int_equal(P.status, 125);
    assert_contains(P.err,
                    "LCSB_TEST_OTHER, a variable the command is given (env.pass), holds "
                    "the value of the secret LCSB_TEST_SECRET",
                    "stderr");
    lcsb_launched(f, NULL, "landlock", NULL, CMD("sh", "-c", "echo \"$LCSB_TEST_OTHER\""),
                  ENV(trust, "LCSB_TEST_SECRET=" SECRET_VALUE, "LCSB_TEST_OTHER=other"), &P);
    assert_int_equal(P.status, 0);
    assert_string_equal(P.out, "other\n");
    lcsb_launched(f, NULL, "landlock", NULL, CMD("sh", "-c", "true"),
                  ENV(trust, "LCSB_TEST_SECRET=7-bytes"), &P);
    assert_int_equal(P.status, 125);
    assert_contains(P.err, "secrets.LCSB_TEST_SECRET: its value is 7 bytes; lcsb takes 8 or more",
                    "stderr");
    lcsb_launched(f, NULL, "landlock", NULL, CMD("sh", "-c", "true"),
                  ENV(trust, "LCSB_TEST_SECRET=8--bytes"), &P);
    assert_int_equal(P.status, 0);
    /* Past 4096 bytes, the forms a value takes in an echo are not made:
     * refused; at 4096, run. */
    static char longest[32 + 4097];
    for (size_t n = 4097; n >= 4096; n--) {
        int head = snprintf(longest, sizeof longest, "LCSB_TEST_SECRET=");
        memset(longest + head, 'v', n);
        longest[head + (int)n] = '\0';
        lcsb_launched(f, NULL, "landlock", NULL, CMD("sh", "-c", "true"), ENV(trust, longest), &P);
        assert_int_equal(P.status, n > 4096 ? 125 : 0);
        if (n > 4096)
            assert_contains(P.err, "its value is 4097 bytes; lcsb takes 4096 at most", "stderr");
    }
    /* lcsb check says what the run gives: the secret's placeholder, even
     * where env.pass names it, and the run's certificates. The twin: with
     * no secret, the variable is held back, and the caller's bundle passed. */
    secrets_policy(f, ", env = { pass = { \"LCSB_TEST_SECRET\" } }");
    const char *const *env = ENV(trust, "LCSB_TEST_SECRET=" SECRET_VALUE);
    run_child(f->project, CMD(LCSB_CLI_PATH, "check", "--no-trust-check", f->policy), env, &P);
    assert_int_equal(P.status, 0);
    assert_true(has_line(P.out, "  passed    LCSB_TEST_SECRET",
                         CMD("not the caller's value: the secret's placeholder")));
    assert_true(has_line(P.out, "  secret    LCSB_TEST_SECRET", CMD("a placeholder", srv.host)));
    assert_true(has_line(P.out, "  passed    SSL_CERT_FILE", CMD("the run's certificates")));
    assert_lacks(P.out, SECRET_VALUE, "check");
    policy(f, "exec = { \"sh\" }, net = { domains = { \"%s:%d\" } }", srv.host, srv.https);
    run_child(f->project, CMD(LCSB_CLI_PATH, "check", "--no-trust-check", f->policy), env, &P);
    assert_int_equal(P.status, 0);
    assert_true(has_line(P.out, "  held back LCSB_TEST_SECRET", CMD("looks sensitive")));
    assert_false(has_line(P.out, "  passed    SSL_CERT_FILE", CMD("the run's certificates")));
    assert_true(has_line(P.out, "  passed    SSL_CERT_FILE", CMD("")));
}

/* While lcsb holds a secret's value and the run's authority's key, no
 * process without CAP_SYS_PTRACE opens its memory (nor would a core file
 * be written): lcsb is not dumpable for the run. The twin: a run with no
 * interception leaves lcsb as any process of the user's, whose memory
 * another of the user's may open. Both without CAP_SYS_PTRACE: a process
 * with capabilities the opener lacks is refused to it anyway. */
static void test_not_dumpable(void **state) {
    NEED_SERVERS();
    fx *f = *state;
    char trust[PATH_MAX + 16];
    FMT(trust, "SSL_CERT_FILE=%s", srv.cert);
    static const char look[] =
        "exec setpriv --bounding-set -sys_ptrace sh -c '\"$0\" --no-trust-check \"$1\" -- sh -c "
        "\"sleep 2\" & pid=$!; sleep 1; sh -c \"exec 3<\\\"/proc/\\$0/mem\\\"\" $pid 2>/dev/null "
        "&& echo opened || echo refused; wait $pid' \"$0\" \"$1\"";
    secrets_policy(f, ", exec = { \"sh\", \"sleep\" }");
    run_child(f->project, CMD("/bin/sh", "-c", look, LCSB_CLI_PATH, f->policy),
              ENV(trust, "LCSB_TEST_SECRET=" SECRET_VALUE), &P);
    if (P.status != 0) fail_msg("the run with a secret failed:\n%s", P.err);
    assert_string_equal(P.out, "refused\n");
    policy(f, "exec = { \"sh\", \"sleep\" }, net = { domains = { \"%s:%d\" } }", srv.host,
           srv.https);
    run_child(f->project, CMD("/bin/sh", "-c", look, LCSB_CLI_PATH, f->policy), ENV(trust), &P);
    assert_int_equal(P.status, 0);
    assert_string_equal(P.out, "opened\n");
}

/* A secret's value from a file (from = "/PATH"): the server gets it, and
 * the command, whose policy reads the file's directory, cannot read the
 * file; from a command that prints it (from = { ... }). The twin: with no
 * sandbox the file is there to read. */
static void test_secret_from_file(void **state) {
    NEED_SERVERS();
    fx *f = *state;
    char dir[PATH_MAX], file[PATH_MAX], script[800], https[256];
    FMT(dir, "%s/secrets", f->outside);
    FMT(file, "%s/token", dir);
    mkdir(dir, 0700);
    write_file(file, SECRET_VALUE "\n");
    FMT(https, "https://%s:%d/echo", srv.host, srv.https);
    policy(f,
           "exec = { \"curl\", \"sh\", \"cat\" }, read = { \"%s\" }, net = { domains = { \"%s:%d\" "
           "}, lan = { \"127.0.0.0/8\" } }, secrets = { FROM_FILE = { hosts = { \"%s:%d\" }, "
           "headers = { \"X-Token\" }, from = \"%s\" } }",
           dir, srv.host, srv.https, srv.host, srv.https, file);
    FMT(script, "cat \"$0\"; curl -sS -H \"X-Token: $FROM_FILE\" %s", https);
    char trust[PATH_MAX + 16];
    FMT(trust, "SSL_CERT_FILE=%s", srv.cert);
    lcsb_env(f, "landlock", CMD("sh", "-c", script, file), ENV(trust), &P);
    assert_contains(P.out, "x-token-sha256: " SECRET_SHA256 "\n", "the server got it");
    assert_lacks(P.out, SECRET_VALUE, "stdout");
    char refused[PATH_MAX + 16];
    FMT(refused, "cat: %s: ", file);
    assert_contains(P.err, refused, "the file, hidden");
    /* A second name for the file (a hard link), which lcsb could not hide:
     * refused before anything runs. */
    char link_path[PATH_MAX];
    FMT(link_path, "%s/again", dir);
    assert_int_equal(link(file, link_path), 0);
    lcsb_env(f, "landlock", CMD("sh", "-c", script, file), ENV(trust), &P);
    assert_int_equal(P.status, 125);
    assert_contains(P.err, "has other names (hard links)", "stderr");
    unlink(link_path);
    /* From a command that prints it, run as the user when the run starts;
     * one that fails leaves no value, and nothing runs. */
    policy(f,
           "exec = { \"curl\", \"sh\" }, net = { domains = { \"%s:%d\" }, lan = { "
           "\"127.0.0.0/8\" } }, secrets = { FROM_FILE = { hosts = { \"%s:%d\" }, headers = { "
           "\"X-Token\" }, from = { \"cat\", \"%s\" } } }",
           srv.host, srv.https, srv.host, srv.https, file);
    FMT(script, "curl -sS -H \"X-Token: $FROM_FILE\" %s", https);
    lcsb_env(f, "landlock", CMD("sh", "-c", script), ENV(trust), &P);
    assert_contains(P.out, "x-token-sha256: " SECRET_SHA256 "\n", "from a command");
    policy(f,
           "exec = { \"sh\" }, net = { domains = { \"%s:%d\" }, lan = { \"127.0.0.0/8\" } }, "
           "secrets = { FROM_FILE = { hosts = { \"%s:%d\" }, from = { \"false\" } } }",
           srv.host, srv.https, srv.host, srv.https);
    lcsb_env(f, "landlock", CMD("sh", "-c", "echo ran"), ENV(trust), &P);
    assert_int_equal(P.status, 125);
    assert_lacks(P.out, "ran", "stdout");
    assert_contains(P.err, "secrets.FROM_FILE: false failed (exit status 1)", "stderr");
    policy(f, "exec = { \"cat\" }, read = { \"%s\" }", dir);
    expect_unsandboxed_ok(f, CMD("cat", file), &P);
    assert_string_equal(P.out, SECRET_VALUE "\n");
}

/* What the command was not given goes nowhere the proxy reads: a request
 * carrying a withheld value is refused, in its head or far into its body,
 * and after it the proxy sends on no more. The twins: without the secret
 * (and without a sandbox) the same request goes through. */
static void test_withheld_values(void **state) {
    NEED_SERVERS();
    fx *f = *state;
    char script[1200], att[PATH_MAX], attested[8192], https[256];
    FMT(https, "https://%s:%d/echo", srv.host, srv.https);
    FMT(att, "%s/attestation.json", f->outside);
    secrets_policy(f, "");
    const char *const *carried = CMD("curl", "-fsS", "-d", "k=" WITHHELD_VALUE, https);
    lcsb_with_secret(f, NULL, NULL, carried);
    assert_int_equal(P.status, 22);
    assert_lacks(P.out, WITHHELD_VALUE, "stdout");
    assert_contains(P.err,
                    "held the value of AWS_SECRET_ACCESS_KEY, which lcsb keeps from the "
                    "command",
                    "stderr");
    /* After one such request the proxy sends on no more it reads in the
     * run (each refusal would answer a guess); the attestation keeps the
     * withheld value's refusal apart from the host's others. */
    /* The command has the secret's value by a way of its own (a file in
     * the project): lcsb refuses a run whose argv holds it. */
    char file[PATH_MAX + 16];
    FMT(file, "%s/guessed", f->project);
    write_file(file, SECRET_VALUE);
    FMT(script,
        "curl -s -o /dev/null -X DELETE %s; curl -fsS -d k=\"$(cat guessed)\" %s; curl -sS %s",
        https, https, https);
    unlink(att);
    lcsb_with_secret(f, NULL, CMD("--attest", att), CMD("sh", "-c", script));
    assert_int_equal(P.status, 0);
    assert_contains(P.out, "an earlier request of this run carried a value lcsb withholds",
                    "the request after");
    read_file(att, attested, sizeof attested);
    assert_contains(attested, "\"why\":\"withheld: the value of LCSB_TEST_SECRET\"",
                    "the attestation");
    /* Far into a body, past what came with the head, by length and chunked. */
    static const char far[] = "{ head -c 600000 /dev/zero; printf k=" WITHHELD_VALUE "; } | "
                              "curl -fsS --data-binary @- $1 \"$0\"";
    lcsb_with_secret(f, NULL, NULL, CMD("sh", "-c", far, https, ""));
    assert_int_equal(P.status, 22);
    assert_contains(P.err, "held the value of AWS_SECRET_ACCESS_KEY", "stderr (by length)");
    lcsb_with_secret(f, NULL, NULL, CMD("sh", "-c", far, https, "-HTransfer-Encoding:chunked"));
    assert_int_equal(P.status, 22);
    assert_contains(P.err, "held the value of AWS_SECRET_ACCESS_KEY", "stderr (chunked)");
    /* The twins: no secret in the policy (the host is not read), and no
     * sandbox. */
    const char *const *plain =
        CMD("curl", "-fsS", "--cacert", srv.cert, "-d", "k=" WITHHELD_VALUE, https);
    policy(f,
           "exec = { \"curl\" }, read = { \"%s\" }, net = { domains = { \"%s:%d\" }, lan = { "
           "\"127.0.0.0/8\" } }",
           srv.cert, srv.host, srv.https);
    lcsb_with_secret(f, NULL, NULL, plain);
    assert_int_equal(P.status, 0);
    assert_contains(P.out, "body: k=" WITHHELD_VALUE "\n", "the server's echo");
    expect_unsandboxed_ok(f, plain, &P);
    assert_contains(P.out, "body: k=" WITHHELD_VALUE "\n", "the server's echo");
}

/* git push over HTTPS to a smart HTTP server that wants the token: the
 * command has a placeholder in the URL's password, and the server gets the
 * token in its place. The twins: the same push under a policy without the
 * secret is refused by the server (the command has no token), and with no
 * sandbox and the token itself, it goes through. */
static void test_git_push_with_secret(void **state) {
    NEED_SERVERS();
    fx *f = *state;
    char push[1200], repo[PATH_MAX];
    FMT(push,
        "cd \"$TMPDIR\" && git clone -q \"https://git:$LCSB_TEST_SECRET@%s:%d/smart/repo.git\" r "
        "&& cd r && git -c user.name=t -c user.email=t@t commit -q --allow-empty -m \"$0\" && "
        "git push -q origin HEAD:main && echo pushed",
        srv.host, srv.https);
    FMT(repo, "%s/smart/repo.git", srv.root);
    const char *const *last =
        CMD("/usr/bin/git", "--git-dir", repo, "log", "-1", "--format=%s", "main");
    proc logged;
    policy(f,
           "exec = { \"git\", \"sh\", \"cat\" }, net = { domains = { \"%s:%d\" }, lan = { "
           "\"127.0.0.0/8\" } }, secrets = { LCSB_TEST_SECRET = { hosts = { \"%s:%d\" } } }",
           srv.host, srv.https, srv.host, srv.https);
    lcsb_with_secret(f, NULL, NULL, CMD("sh", "-c", push, "pushed through lcsb"));
    if (P.status != 0) {
        describe("git push", CMD("sh", "-c", push), &P);
        fail_msg("git push with the secret's placeholder failed");
    }
    assert_string_equal(P.out, "pushed\n");
    run_child(NULL, last, NULL, &logged);
    if (strcmp(logged.out, "pushed through lcsb\n") != 0)
        fail_msg("the server's repository: %s%s", logged.out, logged.err);

    /* Without the secret: the command's variable is withheld, and git has
     * nothing to give. With no sandbox, the variable passed, it pushes. */
    static const char twin[] =
        "exec = { \"git\", \"sh\", \"cat\" }, read = { \"%s\" }, net = { domains = { \"%s:%d\" "
        "}, lan = { \"127.0.0.0/8\" } }, env = { set = { GIT_SSL_CAINFO = \"%s\", "
        "GIT_TERMINAL_PROMPT = \"0\" }%s }";
    policy(f, twin, srv.cert, srv.host, srv.https, srv.cert, "");
    lcsb_with_secret(f, NULL, NULL, CMD("sh", "-c", push, "no token"));
    assert_int_equal(P.status, 128);
    assert_contains(P.err, "Authentication failed", "git's stderr");
    policy(f, twin, srv.cert, srv.host, srv.https, srv.cert, ", pass = { \"LCSB_TEST_SECRET\" }");
    char trust[PATH_MAX + 16];
    FMT(trust, "SSL_CERT_FILE=%s", srv.cert);
    lcsb_launched(f, NULL, "none", NULL, CMD("sh", "-c", push, "pushed without lcsb"),
                  ENV(trust, "LCSB_TEST_SECRET=" SECRET_VALUE), &P);
    assert_int_equal(P.status, 0);
    run_child(NULL, last, NULL, &logged);
    if (strcmp(logged.out, "pushed without lcsb\n") != 0)
        fail_msg("the server's repository: %s%s", logged.out, logged.err);
}

/* PATH's times AGE seconds ago. */
static void backdate(const char *path, time_t age) {
    struct timespec times[2] = {{.tv_sec = time(NULL) - age}, {.tv_sec = time(NULL) - age}};
    assert_int_equal(utimensat(AT_FDCWD, path, times, 0), 0);
}

/* A directory of certificates left in TMPDIR by a run that is gone (lcsb
 * killed by SIGKILL removes nothing), made here as such a run leaves it. */
static void dead_bundle(const char *dir, const char *name, time_t age, char *out) {
    char file[PATH_MAX + 32];
    snprintf(out, PATH_MAX, "%s/%s", dir, name);
    assert_int_equal(mkdir(out, 0700), 0);
    FMT(file, "%s/certificates.pem", out);
    write_file(file, "-----BEGIN CERTIFICATE-----\n");
    backdate(out, age);
}

/* Each intercepting run removes what dead runs left: the user's directories
 * of certificates an hour old that no run holds. A run's own is held (a
 * lock) while it lasts, however old; a young one may be a run still making
 * its own; a symlink is no directory of lcsb's. The twin: a run that
 * intercepts nothing sweeps nothing. */
static void test_dead_runs_certificates(void **state) {
    NEED_SERVERS();
    fx *f = *state;
    run_tmp t;
    make_run_tmp(f, &t);
    char dead[PATH_MAX], young[PATH_MAX], held[PATH_MAX], link[PATH_MAX + 32];
    char more[PATH_MAX], more_file[PATH_MAX + 32];
    dead_bundle(t.dir, "lcsb-tls-dead01", 2 * 60 * 60, dead);
    dead_bundle(t.dir, "lcsb-tls-young1", 60, young);
    dead_bundle(t.dir, "lcsb-tls-held01", 2 * 60 * 60, held);
    /* Something besides certificates in it: not a run's, whatever its name. */
    dead_bundle(t.dir, "lcsb-tls-more01", 2 * 60 * 60, more);
    FMT(more_file, "%s/notes", more);
    write_file(more_file, "mine\n");
    backdate(more, 2 * 60 * 60);
    FMT(link, "%s/lcsb-tls-link01", t.dir);
    assert_int_equal(symlink(f->outside, link), 0);
    int lock = open(held, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    assert_true(lock >= 0);
    assert_int_equal(flock(lock, LOCK_EX | LOCK_NB), 0);

    /* Under a policy that reads no requests: nothing goes. */
    policy(f, "net = { domains = { \"%s:%d\" }, lan = { \"127.0.0.0/8\" } }", srv.host, srv.https);
    lcsb_env(f, "landlock", CMD("true"), ENV(t.env), &P);
    assert_int_equal(P.status, 0);
    assert_exists(dead, true);

    policy(f,
           "net = { domains = { [\"%s:%d\"] = { methods = { \"GET\" } } }, "
           "lan = { \"127.0.0.0/8\" } }",
           srv.host, srv.https);
    lcsb_env(f, "landlock", CMD("true"), ENV(t.env), &P);
    assert_int_equal(P.status, 0);
    assert_exists(dead, false);
    char planted[PATH_MAX + 32];
    assert_exists(young, true);
    assert_exists(held, true);
    FMT(planted, "%s/certificates.pem", more);
    assert_exists(planted, true);
    assert_exists(link, true);
    assert_exists(f->outside, true);
    close(lock);
    /* Nothing else: the run removed its own. */
    assert_int_equal(unlink(more_file), 0);
    for (const char *const *d = ENV(young, held, more); *d; d++) {
        FMT(planted, "%s/certificates.pem", *d);
        assert_int_equal(unlink(planted), 0);
        assert_int_equal(rmdir(*d), 0);
    }
    assert_int_equal(unlink(link), 0);
    assert_left_nothing(t.dir, "after an intercepting run swept dead runs' certificates");
}

/* The run's directory of certificates is emptied through the descriptor
 * lcsb holds, never through its name: a command that can write where lcsb's
 * TMPDIR is (here, in the project) and puts a symlink in its place gets no
 * file removed where the symlink leads. */
static void test_certificates_removed_where_they_are(void **state) {
    NEED_SERVERS();
    fx *f = *state;
    char tmp[PATH_MAX + 16], env[PATH_MAX + 32], victim[PATH_MAX + 16], file[PATH_MAX + 48];
    FMT(tmp, "%s/.tmp", f->project);
    FMT(env, "TMPDIR=%s", tmp);
    FMT(victim, "%s/victim", f->outside);
    assert_int_equal(mkdir(tmp, 0700), 0);
    assert_int_equal(mkdir(victim, 0700), 0);
    for (const char *const *name = ENV("certificates.pem", "truststore.jks"); *name; name++) {
        FMT(file, "%s/%s", victim, *name);
        write_file(file, "not lcsb's\n");
    }
    policy(f,
           "exec = { \"sh\", \"mv\", \"ln\", \"dirname\" }, net = { domains = { "
           "[\"%s:%d\"] = { methods = { \"GET\" } } }, lan = { \"127.0.0.0/8\" } }",
           srv.host, srv.https);
    char swap[PATH_MAX + 128];
    FMT(swap, "d=$(dirname \"$SSL_CERT_FILE\") && mv \"$d\" \"$d.moved\" && ln -s %s \"$d\"",
        victim);
    lcsb_env(f, "landlock", CMD("sh", "-c", swap), ENV(env), &P);
    if (P.status != 0) {
        describe("the swap", CMD("sh", "-c", swap), &P);
        fail_msg("the command could not put a symlink in place of its certificates");
    }
    for (const char *const *name = ENV("certificates.pem", "truststore.jks"); *name; name++) {
        FMT(file, "%s/%s", victim, *name);
        assert_content(file, "not lcsb's\n");
    }
    /* The run's own, moved, were removed where they went. */
    char moved[PATH_MAX + 64];
    DIR *dir = opendir(tmp);
    assert_non_null(dir);
    int seen = 0;
    for (struct dirent *e = readdir(dir); e; e = readdir(dir)) {
        if (!strstr(e->d_name, ".moved")) continue;
        FMT(moved, "%s/%s", tmp, e->d_name);
        assert_left_nothing(moved, "after the run, in its moved directory of certificates");
        seen++;
    }
    closedir(dir);
    assert_int_equal(seen, 1);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        T(test_request_rules),
        T(test_rule_reasons),
        T(test_secrets),
        T(test_secret_not_found_inside),
        T(test_withheld_values),
        T(test_value_given_or_short),
        T(test_not_dumpable),
        T(test_secret_from_file),
        T(test_git_push_with_secret),
        T(test_dead_runs_certificates),
        T(test_certificates_removed_where_they_are),
    };
    return cmocka_run_group_tests_name("sandbox_enforce_intercept", tests, net_group_setup,
                                       net_group_teardown);
}
