/* The network by name (net.domains): the command in a network of its own,
 * loopback only, and lcsb's proxy the one way out, to the names listed.
 * Real clients (curl, python, pip, node, git, npm) against HTTP and HTTPS
 * servers on the host's loopback (tests/enforce/net_server.py, a self-signed
 * certificate), named by the name this host resolves for itself. Every
 * refusal has its twin under none; the rules of the enforcement suites are
 * in enforce_fixture.h. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h> /* after the four above, which it needs */

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "enforce_fixture.h"

#define NODE "/usr/bin/node"

/* The servers, once for the suite. */
static struct {
    char host[256];             /* a name the host resolves to its loopback, not "localhost" */
    char addr[INET_ADDRSTRLEN]; /* where it resolves: 127.0.1.1 on an installed Debian */
    char root[PATH_MAX];
    char cert[PATH_MAX];
    int http, https;
    pid_t pid;
    int feed;            /* the server's stdin: it serves until this closes */
    const char *missing; /* why the suite cannot run here */
} srv;

/* The host's own name, when it resolves to a loopback address: the proxy
 * resolves it as any name, and the command's NO_PROXY (localhost) does not
 * send it round the proxy. */
static bool find_host(void) {
    struct addrinfo hints = {.ai_family = AF_INET, .ai_socktype = SOCK_STREAM}, *res = NULL;
    if (gethostname(srv.host, sizeof srv.host) != 0 || strcmp(srv.host, "localhost") == 0 ||
        getaddrinfo(srv.host, NULL, &hints, &res) != 0)
        return false;
    const struct sockaddr_in *in = (const struct sockaddr_in *)res->ai_addr;
    bool loopback = (ntohl(in->sin_addr.s_addr) >> 24) == 127 &&
                    inet_ntop(AF_INET, &in->sin_addr, srv.addr, sizeof srv.addr);
    freeaddrinfo(res);
    return loopback;
}

/* The secrets cases' value: the smart HTTP server's password too. */
#define SECRET_VALUE "ghp_0nly-the-server-sees-this"

static int start_servers(void) {
    int in[2], out[2];
    char line[PATH_MAX + 64];
    FMT(srv.root, "/tmp/lcsb-net-servers.XXXXXX");
    if (!mkdtemp(srv.root) || pipe2(in, O_CLOEXEC) != 0 || pipe2(out, O_CLOEXEC) != 0) return -1;
    const char *script = LCSB_NET_SERVER;
    srv.pid = fork();
    if (srv.pid == 0) {
        dup2(in[0], 0);
        dup2(out[1], 1);
        /* The token in its environment: another process may read its argv. */
        setenv("LCSB_NET_SERVER_TOKEN", SECRET_VALUE, 1);
        execl(PYTHON, PYTHON, script, srv.root, srv.host, srv.addr, (char *)NULL);
        _exit(127);
    }
    close(in[0]);
    close(out[1]);
    srv.feed = in[1];
    bool ok = read_line(out[0], line, sizeof line) &&
              sscanf(line, "http %d https %d cert %4095s", &srv.http, &srv.https, srv.cert) == 3;
    close(out[0]);
    return ok ? 0 : -1;
}

static int group_setup(void **state) {
    enforce_group_setup(state);
    static const char *const tools[] = {"/usr/bin/curl", "/usr/bin/openssl", "/usr/bin/git", PYTHON,
                                        NODE};
    for (size_t i = 0; i < sizeof tools / sizeof *tools; i++)
        if (access(tools[i], X_OK) != 0) srv.missing = tools[i];
    if (!srv.missing && !find_host()) srv.missing = "a host name that resolves to loopback";
    if (!srv.missing && start_servers() != 0) srv.missing = "the test servers (net_server.py)";
    if (srv.missing) fprintf(stderr, "# net.domains cases cannot run: %s\n", srv.missing);
    return 0;
}

static int group_teardown(void **state) {
    (void)state;
    if (srv.pid > 0) {
        close(srv.feed);
        waitpid(srv.pid, NULL, 0);
    }
    if (srv.root[0]) rm_rf(srv.root);
    return 0;
}

#define NEED_SERVERS()                                                                             \
    do {                                                                                           \
        NEED_LANDLOCK();                                                                           \
        if (srv.missing) {                                                                         \
            if (tests_required())                                                                  \
                fail_msg("missing %s and LCSB_SANDBOX_TESTS_REQUIRED=1", srv.missing);             \
            skip();                                                                                \
        }                                                                                          \
    } while (0)

/* Run CMD under BACKEND with the attestation in ATT (a file in OUTSIDE),
 * read back into ATTESTED. */
static void run_attested(fx *f, const char *backend, const char *const *cmd, char *attested,
                         size_t size) {
    char att[PATH_MAX];
    FMT(att, "%s/attestation.json", f->outside);
    unlink(att);
    lcsb_opts(f, backend, CMD("--attest", att), cmd, NULL, &P);
    read_file(att, attested, size);
}

/* The policy of most cases: curl, the certificate readable, the servers' two
 * ports on the host's name, and its loopback address let in. */
static void servers_policy(fx *f, const char *extra) {
    policy(f,
           "exec = { \"curl\", \"sh\" }, read = { \"%s\" }, net = { domains = { \"%s:%d\", "
           "\"%s:%d\" }, lan = { \"127.0.0.0/8\" }%s }",
           srv.cert, srv.host, srv.https, srv.host, srv.http, extra ? extra : "");
}

static void test_curl_through_the_proxy(void **state) {
    NEED_SERVERS();
    fx *f = *state;
    char url[512], plain[512], attested[8192];
    FMT(url, "https://%s:%d/hello.txt", srv.host, srv.https);
    FMT(plain, "http://%s:%d/hello.txt", srv.host, srv.http);
    servers_policy(f, NULL);
    /* HTTPS through CONNECT, HTTP as an absolute URI. */
    run_attested(f, "landlock", CMD("curl", "-sS", "--cacert", srv.cert, url), attested,
                 sizeof attested);
    if (P.status != 0) {
        describe("landlock run", CMD("curl", url), &P);
        fail_msg("curl through the proxy failed");
    }
    assert_contains(P.out, "hello through lcsb's proxy", "stdout");
    assert_contains(attested, "\"net\":\"domains\",\"net_covers\":\"all\",\"net_by\":\"namespace\"",
                    "the attestation");
    char entry[300];
    FMT(entry, "\"domains\":[\"%s:%d\",\"%s:%d\"]", srv.host, srv.https, srv.host, srv.http);
    assert_contains(attested, entry, "the attestation");
    assert_lacks(attested, "net_refused", "the attestation");
    expect_allowed(f, CMD("curl", "-sS", plain), &P);
    assert_contains(P.out, "hello through lcsb's proxy", "stdout");
}

/* A name the policy does not list, asked of the proxy: refused, named in the
 * hint and in the attestation. Unsandboxed the same request goes straight
 * to the server. */
static void test_unlisted_name_refused(void **state) {
    NEED_SERVERS();
    fx *f = *state;
    char url[512], attested[8192];
    FMT(url, "https://localhost:%d/hello.txt", srv.https);
    const char *const *cmd = CMD("curl", "-sSk", "--noproxy", "", url);
    servers_policy(f, NULL);
    run_attested(f, "landlock", cmd, attested, sizeof attested);
    if (P.status == 0 || strstr(P.out, "hello")) {
        describe("landlock run", cmd, &P);
        fail_msg("an unlisted name got through the proxy");
    }
    char hint[512];
    FMT(hint,
        "lcsb: hint: the command tried to reach localhost:%d; to allow it, add net = { domains = "
        "{ \"localhost:%d\" } }",
        srv.https, srv.https);
    assert_contains(P.err, hint, "stderr");
    char refused[300];
    FMT(refused,
        "\"net_refused\":[{\"host\":\"localhost\",\"port\":%d,\"attempts\":1,"
        "\"why\":\"not in net.domains\"}]",
        srv.https);
    assert_contains(attested, refused, "the attestation");
    expect_unsandboxed_ok(f, cmd, &P);
    assert_contains(P.out, "hello through lcsb's proxy", "stdout");

    /* A run that exits 0 says nothing on stderr, and the attestation keeps it. */
    char quiet[700];
    FMT(quiet, "curl -sSk --noproxy '' %s 2>/dev/null; exit 0", url);
    run_attested(f, "landlock", CMD("sh", "-c", quiet), attested, sizeof attested);
    assert_int_equal(P.status, 0);
    assert_lacks(P.err, "lcsb: hint", "stderr");
    assert_contains(attested, refused, "the attestation");
}

/* A client that asks lcsb's proxy (HTTPS_PROXY) for HOST:PORT by CONNECT
 * as written, where curl would respell it; without a proxy, it connects
 * there itself. Exit 0 when the tunnel or connection stands. */
static const char spelled_py[] =
    "import os, socket, sys\n"
    "host, port = sys.argv[1], int(sys.argv[2])\n"
    "proxy = os.environ.get('HTTPS_PROXY')\n"
    "if not proxy:\n"
    "    socket.create_connection((host, port), timeout=5).close(); sys.exit(0)\n"
    "p = proxy.split('://')[-1].strip('/').rsplit(':', 1)\n"
    "s = socket.create_connection((p[0], int(p[1])), timeout=5)\n"
    "s.sendall(f'CONNECT {host}:{port} HTTP/1.1\\r\\nHost: {host}:{port}\\r\\n\\r\\n'.encode())\n"
    "status = s.recv(4096).decode(errors='replace').split('\\r\\n')[0]\n"
    "print(status, file=sys.stderr)\n"
    "sys.exit(0 if ' 200 ' in status + ' ' else 1)\n";

/* An address the policy does not name, as a literal, or where a listed name
 * leads without net.lan: refused, each for its reason. */
static void test_literal_and_private_refused(void **state) {
    NEED_SERVERS();
    fx *f = *state;
    char literal[512], named[512];
    FMT(literal, "https://%s:%d/hello.txt", srv.addr, srv.https);
    FMT(named, "https://%s:%d/hello.txt", srv.host, srv.https);
    servers_policy(f, NULL);
    const char *const *cmd = CMD("curl", "-sSk", "--noproxy", "", literal);
    expect_denied(f, cmd, 56, &P);
    char hint[512];
    FMT(hint, "add net = { domains = { \"%s:%d\"", srv.addr, srv.https);
    assert_contains(P.err, hint, "stderr");
    expect_unsandboxed_ok(f, cmd, &P);

    policy(f, "exec = { \"curl\", \"%s\" }, read = { \"%s\" }, net = { domains = { \"%s:%d\" } }",
           PYTHON, srv.cert, srv.host, srv.https);
    cmd = CMD("curl", "-sS", "--cacert", srv.cert, named);
    expect_denied(f, cmd, 56, &P);
    FMT(hint, "which resolves to %s", srv.addr);
    assert_contains(P.err, hint, "stderr");

    /* An address spelled as a name (inet_aton's hex) is an address: no
     * hint offers it to net.domains, the first step of a lure to the
     * host's loopback (red team 3). Unsandboxed, it reaches the server. */
    char port[16];
    FMT(port, "%d", srv.https);
    cmd = CMD(PYTHON, "-c", spelled_py, "0x7f000001", port);
    expect_denied(f, cmd, 1, &P);
    assert_contains(P.err, "400", "the proxy's answer");
    assert_lacks(P.err, "domains = { \"0x7f000001", "stderr");
    expect_unsandboxed_ok(f, cmd, &P);
    cmd = CMD(PYTHON, "-c", spelled_py, "127.0.0.0x1", port);
    expect_denied(f, cmd, 1, &P);
    assert_lacks(P.err, "domains = { \"127.0.0.0x1", "stderr");

    cmd = CMD("curl", "-sS", "--cacert", srv.cert, named);
    expect_denied(f, cmd, 56, &P);
    assert_contains(P.err, hint, "stderr");
    FMT(hint, "net = { lan = { \"%s\" } }", srv.addr);
    assert_contains(P.err, hint, "stderr");
    expect_unsandboxed_ok(f, cmd, &P);
}

/* A denying entry wins over an allowing one that matches too. */
static void test_deny_entry_wins(void **state) {
    NEED_SERVERS();
    fx *f = *state;
    char url[512];
    FMT(url, "https://%s:%d/hello.txt", srv.host, srv.https);
    policy(f,
           "exec = { \"curl\" }, read = { \"%s\" }, net = { domains = { \"%s:%d\", \"!%s\" }, "
           "lan = { \"127.0.0.0/8\" } }",
           srv.cert, srv.host, srv.https, srv.host);
    const char *const *cmd = CMD("curl", "-sS", "--cacert", srv.cert, url);
    expect_denied(f, cmd, 56, &P);
    char hint[512];
    FMT(hint, "which the policy denies (!%s in net.domains)", srv.host);
    assert_contains(P.err, hint, "stderr");
    expect_unsandboxed_ok(f, cmd, &P);
}

#define GRANT_POLICY                                                                               \
    "exec = { \"curl\", \"sh\" }, read = { \"%s\" }, net = { domains = { [\"%s:%d\"] = %s }, "     \
    "lan = { \"127.0.0.0/8\" } }"

/* Grants that end: "once" lets the first connection through and refuses
 * the next, "until" refuses once its time has passed; each refusal is
 * named, with its grant, in the hint and the attestation. The twins: the
 * same entry with no end lets both through, and so does no sandbox. */
static void test_grants_that_end(void **state) {
    NEED_SERVERS();
    fx *f = *state;
    char url[512], twice[1200], attested[8192], hint[512], why[300];
    FMT(url, "https://%s:%d/hello.txt", srv.host, srv.https);
    FMT(twice, "curl -sS --cacert %s %s && curl -sS --cacert %s %s", srv.cert, url, srv.cert, url);
    const char *const *cmd = CMD("sh", "-c", twice);
    policy(f, GRANT_POLICY, srv.cert, srv.host, srv.https, "{ once = true }");
    run_attested(f, "landlock", cmd, attested, sizeof attested);
    if (P.status != 56) {
        describe("landlock run", cmd, &P);
        fail_msg("a once grant: expected the second curl refused (56), got %d", P.status);
    }
    assert_contains(P.out, "hello through lcsb's proxy", "the first connection");
    FMT(why, "\"why\":\"the grant \\\"%s:%d once\\\" was used by an earlier connection\"", srv.host,
        srv.https);
    assert_contains(attested, why, "the attestation");
    FMT(hint, "but the grant \"%s:%d once\" in net.domains was used by an earlier connection",
        srv.host, srv.https);
    assert_contains(P.err, hint, "stderr");
    expect_unsandboxed_ok(f, cmd, &P);

    policy(f, GRANT_POLICY, srv.cert, srv.host, srv.https,
           "{ [\"until\"] = \"2020-01-01T00:00:00Z\" }");
    cmd = CMD("curl", "-sS", "--cacert", srv.cert, url);
    run_attested(f, "landlock", cmd, attested, sizeof attested);
    assert_int_equal(P.status, 56);
    FMT(why, "the grant \\\"%s:%d until=2020-01-01T00:00:00Z\\\" has expired", srv.host, srv.https);
    assert_contains(attested, why, "the attestation");
    assert_contains(P.err, "has expired", "stderr");
    expect_unsandboxed_ok(f, cmd, &P);

    /* A once whose connection was refused upstream is given back: the retry
     * is refused by the host again (502), not by the spent grant (403). */
    int dead;
    close(listener(SOCK_STREAM, &dead));
    char retry[600];
    FMT(retry, "for i in 1 2; do curl -s -o /dev/null -w '%%{http_code}\\n' http://%s:%d/; done",
        srv.host, dead);
    policy(f, GRANT_POLICY, srv.cert, srv.host, dead, "{ once = true }");
    lcsb(f, "landlock", CMD("sh", "-c", retry), &P);
    assert_string_equal(P.out, "502\n502\n");
    assert_lacks(P.err, "was used by an earlier connection", "stderr");

    /* Not ended yet, and no end: both connections go through. */
    policy(f, GRANT_POLICY, srv.cert, srv.host, srv.https, "{ [\"until\"] = os.time() + 3600 }");
    expect_allowed(f, CMD("curl", "-sS", "--cacert", srv.cert, url), &P);
    policy(f,
           "exec = { \"curl\", \"sh\" }, read = { \"%s\" }, net = { domains = { \"%s:%d\" }, "
           "lan = { \"127.0.0.0/8\" } }",
           srv.cert, srv.host, srv.https);
    expect_allowed(f, CMD("sh", "-c", twice), &P);
}

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

#define WITHHELD_VALUE "aws-withheld-4f9a2c7e"
/* sha256(SECRET_VALUE), and of "Basic " base64("git:" SECRET_VALUE). */
#define SECRET_SHA256 "da804544d3c0190405806a15e0bc2e781fc2dc5e40616d599574cad1b2ede83b"
#define BASIC_SHA256 "7636a7236a38e4cd62085ade7ba393e196f9c193198a50ae8c17eea68a08e94e"
#define SECRETS_POLICY                                                                             \
    "exec = { \"curl\", \"sh\", \"cat\", \"grep\", \"head\" }, net = { domains = { \"%s:%d\", "    \
    "\"%s:%d\" }, lan = { \"127.0.0.0/8\" } }, secrets = { LCSB_TEST_SECRET = { hosts = { "        \
    "\"%s:%d\" }, headers = { \"X-Token\" } } }%s"

/* lcsb with the secret's value, a sensitive variable the command is not
 * given, and the servers' certificate trusted, in its own environment. */
static void lcsb_with_secret(fx *f, const char *const *launcher, const char *const *options,
                             const char *const *cmd) {
    char trust[PATH_MAX + 16];
    FMT(trust, "SSL_CERT_FILE=%s", srv.cert);
    lcsb_launched(f, launcher, "landlock", options, cmd,
                  ENV(trust, "LCSB_TEST_SECRET=" SECRET_VALUE,
                      "AWS_SECRET_ACCESS_KEY=" WITHHELD_VALUE),
                  &P);
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
    policy(f, SECRETS_POLICY, srv.host, srv.https, srv.host, srv.http, srv.host, srv.https, "");
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
    FMT(listed, "\"secrets\":[\"LCSB_TEST_SECRET %s:%d headers=x-token\"]", srv.host,
        srv.https);
    assert_contains(attested, listed, "the attestation");
    assert_lacks(attested, SECRET_VALUE, "the attestation");
    /* Only over TLS: plain HTTP to the secret's host is refused the value. */
    FMT(script, "curl -fsS -H \"X-Token: $LCSB_TEST_SECRET\" http://%s:%d/echo", srv.host,
        srv.https);
    lcsb_with_secret(f, NULL, NULL, CMD("sh", "-c", script));
    assert_int_equal(P.status, 22);
    assert_contains(P.err, "lcsb puts a secret's value only into requests over TLS", "stderr");

    lcsb_with_secret(f, NULL, NULL, CMD("sh", "-c", find_value));
    assert_int_equal(P.status, 0);
    assert_string_equal(P.out, "0\n0\n0\n");
    /* The same looks with the host's processes in view (Landlock alone). */
    policy(f, SECRETS_POLICY, srv.host, srv.https, srv.host, srv.http, srv.host, srv.https,
           ", degrade = { \"net\", \"world\", \"metadata\" }");
    lcsb_with_secret(f, without_userns(LCSB_FAULT_LAUNCHER_PATH), NULL,
                     CMD("sh", "-c", find_value));
    if (P.status != 0 || strcmp(P.out, "0\n0\n0\n") != 0) {
        describe("the value looked for, Landlock alone", CMD("sh", "-c", find_value), &P);
        fail_msg("the value was found, or the looks failed");
    }
    lcsb_with_secret(f, without_userns(LCSB_FAULT_LAUNCHER_PATH), NULL,
                     CMD("sh", "-c", "curl -sS -H \"X-Token: $LCSB_TEST_SECRET\" \"$0\"", https));
    assert_contains(P.out, "x-token-sha256: " SECRET_SHA256 "\n", "the secret's host, Landlock alone");

    /* What the command was not given goes nowhere the proxy reads. */
    policy(f, SECRETS_POLICY, srv.host, srv.https, srv.host, srv.http, srv.host, srv.https, "");
    const char *const *carried = CMD("curl", "-fsS", "-d", "k=" WITHHELD_VALUE, https);
    lcsb_with_secret(f, NULL, NULL, carried);
    assert_int_equal(P.status, 22);
    assert_lacks(P.out, WITHHELD_VALUE, "stdout");
    assert_contains(P.err, "held the value of AWS_SECRET_ACCESS_KEY, which lcsb keeps from the "
                           "command",
                    "stderr");
    /* After one such request the proxy sends on no more it reads in the
     * run (each refusal would answer a guess); the attestation keeps the
     * withheld value's refusal apart from the host's others. */
    FMT(script,
        "curl -s -o /dev/null -X DELETE %s; curl -fsS -d k=%s %s; curl -sS %s", https,
        SECRET_VALUE, https, https);
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
    lcsb_with_secret(f, NULL, NULL,
                     CMD("sh", "-c", far, https, "-HTransfer-Encoding:chunked"));
    assert_int_equal(P.status, 22);
    assert_contains(P.err, "held the value of AWS_SECRET_ACCESS_KEY", "stderr (chunked)");
    /* The twins: no secret in the policy (the host is not read), and no
     * sandbox. */
    const char *const *plain = CMD("curl", "-fsS", "--cacert", srv.cert, "-d", "k=" WITHHELD_VALUE,
                                   https);
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
    const char *const *last = CMD("/usr/bin/git", "--git-dir", repo, "log", "-1", "--format=%s", "main");
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
    policy(f, twin, srv.cert, srv.host, srv.https, srv.cert,
           ", pass = { \"LCSB_TEST_SECRET\" }");
    char trust[PATH_MAX + 16];
    FMT(trust, "SSL_CERT_FILE=%s", srv.cert);
    lcsb_launched(f, NULL, "none", NULL, CMD("sh", "-c", push, "pushed without lcsb"),
                  ENV(trust, "LCSB_TEST_SECRET=" SECRET_VALUE), &P);
    assert_int_equal(P.status, 0);
    run_child(NULL, last, NULL, &logged);
    if (strcmp(logged.out, "pushed without lcsb\n") != 0)
        fail_msg("the server's repository: %s%s", logged.out, logged.err);
}

/* Around the proxy there is no way out: a TCP connect to the host's
 * loopback (a port the policy lists, which is the command's own loopback
 * here), a UDP datagram and a DNS query never arrive. */
static const char dns_py[] =
    "import socket, sys\n"
    "q = b'\\x12\\x34\\x01\\x00\\x00\\x01\\x00\\x00\\x00\\x00\\x00\\x00'\n"
    "q += b'\\x07example\\x03com\\x00\\x00\\x01\\x00\\x01'\n"
    "socket.socket(socket.AF_INET, socket.SOCK_DGRAM).sendto(q, ('127.0.0.1', int(sys.argv[1])))\n";

static void test_no_way_around(void **state) {
    NEED_SERVERS();
    fx *f = *state;
    int tcp_port, udp_port, dns_port;
    int tcp = listener(SOCK_STREAM, &tcp_port);
    int udp = listener(SOCK_DGRAM, &udp_port), dns = listener(SOCK_DGRAM, &dns_port);
    char to_tcp[128], up[16], dp[16];
    FMT(to_tcp, "exec 3<>/dev/tcp/127.0.0.1/%d", tcp_port);
    FMT(up, "%d", udp_port);
    FMT(dp, "%d", dns_port);
    policy(f, "exec = { \"bash\", \"%s\" }, net = { domains = { \"%s\" }, connect = { %d } }",
           PYTHON, srv.host, tcp_port);
    expect_denied(f, CMD("bash", "-c", to_tcp), 1, &P);
    assert_false(accepted(tcp));
    expect_unsandboxed_ok(f, CMD("bash", "-c", to_tcp), &P);
    assert_true(accepted(tcp));

    lcsb(f, "landlock", CMD(PYTHON, "-c", udp_py, up), &P);
    assert_int_not_equal(P.status, 0);
    assert_false(received(udp));
    expect_unsandboxed_ok(f, CMD(PYTHON, "-c", udp_py, up), &P);
    assert_true(received(udp));

    lcsb(f, "landlock", CMD(PYTHON, "-c", dns_py, dp), &P);
    assert_int_not_equal(P.status, 0);
    assert_false(received(dns));
    expect_unsandboxed_ok(f, CMD(PYTHON, "-c", dns_py, dp), &P);
    assert_true(received(dns));
    close(tcp);
    close(udp);
    close(dns);
}

/* The clients that matter, each through the proxy by the variables the seam
 * sets: python's urllib, pip against a package index, node, git. */
static const char urllib_py[] = "import ssl, sys, urllib.request\n"
                                "ctx = ssl.create_default_context(cafile=sys.argv[2])\n"
                                "print(urllib.request.urlopen(sys.argv[1], context=ctx).read()"
                                ".decode(), end='')\n";

static const char node_js[] =
    "const http = require('http'), tls = require('tls'), fs = require('fs');\n"
    "const [host, port, ca] = process.argv.slice(1);\n"
    "const proxy = new URL(process.env.HTTPS_PROXY);\n"
    "http.request({ host: proxy.hostname, port: proxy.port, method: 'CONNECT',\n"
    "               path: `${host}:${port}` }).on('connect', (res, socket) => {\n"
    "  if (res.statusCode !== 200) { console.error('CONNECT', res.statusCode); process.exit(1); }\n"
    "  const s = tls.connect({ socket, servername: host, ca: fs.readFileSync(ca) }, () => {\n"
    "    s.write(`GET /hello.txt HTTP/1.1\\r\\nHost: ${host}\\r\\nConnection: "
    "close\\r\\n\\r\\n`);\n"
    "  });\n"
    "  let body = ''; s.on('data', d => body += d);\n"
    "  s.on('end', () => console.log(body.split('\\r\\n\\r\\n')[1].trim()));\n"
    "}).end();\n";

static void test_clients(void **state) {
    NEED_SERVERS();
    fx *f = *state;
    char url[512], index[512], repo[512], port[16];
    FMT(url, "https://%s:%d/hello.txt", srv.host, srv.https);
    FMT(index, "https://%s:%d/simple/", srv.host, srv.https);
    FMT(repo, "https://%s:%d/repo.git", srv.host, srv.https);
    FMT(port, "%d", srv.https);
    policy(f,
           "exec = { \"%s\", \"%s\", \"git\", \"/usr/lib/git-core/git\", "
           "\"/usr/lib/git-core/git-remote-https\" }, "
           "read = { \"%s\" }, env = { set = { GIT_SSL_CAINFO = \"%s\", "
           "REQUESTS_CA_BUNDLE = \"%s\" } }, "
           "net = { domains = { \"%s:%d\" }, lan = { \"%s\" } }",
           PYTHON, NODE, srv.cert, srv.cert, srv.cert, srv.host, srv.https, srv.addr);

    expect_allowed(f, CMD(PYTHON, "-c", urllib_py, url, srv.cert), &P);
    assert_contains(P.out, "hello through lcsb's proxy", "python's stdout");

    expect_allowed(f,
                   CMD(PYTHON, "-m", "pip", "download", "-q", "--no-deps", "--no-cache-dir",
                       "--disable-pip-version-check", "-d", "wheels", "--index-url", index,
                       "--cert", srv.cert, "lcsbdemo"),
                   &P);
    char wheel[PATH_MAX];
    FMT(wheel, "%s/wheels/lcsbdemo-1.0-py3-none-any.whl", f->project);
    assert_true(exists(wheel));

    expect_allowed(f, CMD(NODE, "-e", node_js, srv.host, port, srv.cert), &P);
    assert_contains(P.out, "hello through lcsb's proxy", "node's stdout");

    expect_allowed(f, CMD("git", "clone", "-q", repo, "clone"), &P);
    char readme[PATH_MAX], text[256];
    FMT(readme, "%s/clone/README", f->project);
    read_file(readme, text, sizeof text);
    assert_contains(text, "cloned through lcsb's proxy", "the clone");
}

/* The command's own loopback is its own: a server it starts there is
 * reached directly (NO_PROXY), on the ports the policy lists. */
static const char own_server_sh[] =
    "python3 -m http.server --bind 127.0.0.1 \"$1\" >/dev/null 2>&1 & "
    "for i in 1 2 3 4 5 6 7 8 9 10; do "
    "  curl -sS -o /dev/null -w '%{http_code}\\n' http://localhost:$1/ 2>/dev/null && break; "
    "  sleep 0.3; done; kill $!";

static void test_own_loopback(void **state) {
    NEED_SERVERS();
    fx *f = *state;
    int port;
    close(listener(SOCK_STREAM, &port));
    char ps[16];
    FMT(ps, "%d", port);
    policy(f,
           "exec = { \"sh\", \"curl\", \"sleep\", \"%s\", \"python3\" }, net = { domains = { "
           "\"%s\" }, "
           "connect = { %d }, bind = { %d } }",
           PYTHON, srv.host, port, port);
    expect_allowed(f, CMD("sh", "-c", own_server_sh, "sh", ps), &P);
    assert_contains(P.out, "200", "stdout");
}

/* What a new user does first: npm install from the registry this machine is
 * configured with, listed alone; the same run reaches no other host, and
 * the hint names the one it tried. */
static void test_npm_install(void **state) {
    NEED_SERVERS();
    fx *f = *state;
    /* npm is no mechanism: where nodejs comes without it, there is no trial. */
    if (access("/usr/bin/npm", X_OK) != 0) {
        fprintf(stderr, "# skipped: /usr/bin/npm is missing\n");
        skip();
    }
    proc q;
    run_child(f->project, CMD("/usr/bin/npm", "config", "get", "registry"), NULL, &q);
    char registry[256] = "", host[256] = "";
    sscanf(q.out, "%255s", registry);
    if (q.status != 0 || sscanf(registry, "https://%255[^/:]", host) != 1)
        fail_msg("npm config get registry said %s", q.out);
    char pkg[PATH_MAX];
    FMT(pkg, "%s/package.json", f->project);
    write_file(pkg, "{ \"name\": \"trial\", \"version\": \"1.0.0\" }\n");
    policy(f, "exec = { \"node\", \"npm\", \"sh\", \"curl\" }, net = { domains = { \"%s\" } }",
           host);
    /* The registry is a host of the internet's: npm is told to give up in
     * time, and a failure while the registry does not answer this host
     * either is no failure of lcsb's. */
    const char *const *cmd =
        CMD("npm", "install", "--no-audit", "--no-fund", "--no-update-notifier",
            "--fetch-timeout=8000", "--fetch-retries=1", "--fetch-retry-mintimeout=1000",
            "--fetch-retry-maxtimeout=2000", "is-number");
    lcsb(f, "landlock", cmd, &P);
    if (P.status != 0) {
        proc direct;
        run_child(f->project, CMD("/usr/bin/curl", "-sS", "-m", "8", "-o", "/dev/null", registry),
                  NULL, &direct);
        if (direct.status != 0) {
            fprintf(stderr, "# skipped: the registry %s does not answer this host now\n", registry);
            skip();
        }
        describe("npm install", cmd, &P);
        fail_msg("npm install failed under lcsb while the registry answers directly");
    }
    char installed[PATH_MAX];
    FMT(installed, "%s/node_modules/is-number/package.json", f->project);
    assert_true(exists(installed));

    const char *const *other = CMD("curl", "-sS", "-o", "/dev/null", "https://deb.debian.org/");
    expect_denied(f, other, 56, &P);
    assert_contains(P.err,
                    "lcsb: hint: the command tried to reach deb.debian.org:443; to allow it, add "
                    "net = { domains = { \"deb.debian.org\" } }",
                    "stderr");
    expect_unsandboxed_ok(f, other, &P);
}

/* Where user namespaces are refused there is no network of its own: a
 * domains policy is refused, naming net, unless it lets net degrade; then
 * lcsb's proxy listens on the host's loopback, the command may connect to
 * that port alone, and the attestation says net was dropped. */
static void test_without_namespaces(void **state) {
    NEED_SERVERS();
    fx *f = *state;
    char url[512], direct[512], att[PATH_MAX];
    char attested[8192];
    FMT(url, "https://%s:%d/hello.txt", srv.host, srv.https);
    FMT(direct, "https://localhost:%d/hello.txt", srv.https);
    FMT(att, "%s/attestation.json", f->outside);
    const char *const *launcher = without_userns(LCSB_FAULT_LAUNCHER_PATH);
    servers_policy(f, NULL);
    const char *const *cmd = CMD("curl", "-sS", "--cacert", srv.cert, url);
    lcsb_launched(f, launcher, "landlock", NULL, cmd, NULL, &P);
    if (P.status != 125) {
        describe("user namespaces refused", cmd, &P);
        fail_msg("expected 125 where a network of its own cannot be had, got %d", P.status);
    }
    assert_contains(P.err, "net (no user namespaces here", "stderr");

    policy(f,
           "exec = { \"curl\" }, read = { \"%s\" }, net = { domains = { \"%s:%d\" }, "
           "lan = { \"127.0.0.0/8\" } }, degrade = { \"net\", \"world\", \"metadata\" }",
           srv.cert, srv.host, srv.https);
    unlink(att);
    lcsb_launched(f, launcher, "landlock", CMD("--attest", att), cmd, NULL, &P);
    if (P.status != 0) {
        describe("user namespaces refused, net degraded", cmd, &P);
        fail_msg("expected curl through the host's proxy to work, got %d", P.status);
    }
    assert_contains(P.out, "hello through lcsb's proxy", "stdout");
    read_file(att, attested, sizeof attested);
    assert_contains(attested, "\"world\":\"open\"", "the attestation");
    assert_contains(attested, "\"net\"", "the attestation's dropped parts");
    /* Around the proxy, Landlock holds TCP to its port: the server's own
     * port is refused, where unsandboxed it answers. */
    const char *const *around = CMD("curl", "-sSk", "--noproxy", "*", direct);
    lcsb_launched(f, launcher, "landlock", NULL, around, NULL, &P);
    assert_int_equal(P.status, 7);
    assert_lacks(P.out, "hello", "stdout");
    expect_unsandboxed_ok(f, around, &P);
    assert_contains(P.out, "hello through lcsb's proxy", "stdout");
}

/* A container joins a network namespace lcsb makes, loopback only, whose
 * way out is the same proxy: rootful podman can be told it by path. As any
 * other user, or with docker, the policy is refused, naming why. */
static void test_container(void **state) {
    NEED_SERVERS();
    fx *f = *state;
    const char *was = mech;
    oci_group_setup(NULL);
    mech = was;
    if (!oci_ready) {
        oci_group_teardown(NULL);
        mech = was;
        if (tests_required()) fail_msg("no podman here and LCSB_SANDBOX_TESTS_REQUIRED=1");
        skip();
    }
    char url[512], direct[512], text[4096];
    FMT(url, "https://%s:%d/hello.txt", srv.host, srv.https);
    FMT(direct, "https://localhost:%d/hello.txt", srv.https);
    FMT(text,
        "return require(\"lcsb\").exec_policy{ exec = { \"curl\" }, read = { \"%s\" }, "
        "net = { domains = { \"%s:%d\" }, lan = { \"127.0.0.0/8\" } }, "
        "oci = { rootfs = \"%s\" } }\n",
        srv.cert, srv.host, srv.https, oci_rootfs);
    raw_policy(f, text);
    const char *const *cmd = CMD("curl", "-sS", "--cacert", srv.cert, url);
    lcsb(f, "oci", cmd, &P);
    if (geteuid() != 0) {
        assert_int_equal(P.status, 125);
        assert_contains(P.err, "only rootful podman can join", "stderr");
    } else {
        if (P.status != 0) {
            describe("oci run", cmd, &P);
            fail_msg("expected curl in the container to reach the server through the proxy");
        }
        assert_contains(P.out, "hello through lcsb's proxy", "stdout");
        /* Around the proxy: the container's loopback is its own. */
        const char *const *around = CMD("curl", "-sSk", "--noproxy", "*", direct);
        lcsb(f, "oci", around, &P);
        assert_int_equal(P.status, 7);
        expect_unsandboxed_ok(f, around, &P);
        assert_contains(P.out, "hello through lcsb's proxy", "stdout");
    }
    oci_group_teardown(NULL);
    mech = was;
}

int main(void) {
    const struct CMUnitTest tests[] = {
        T(test_curl_through_the_proxy),
        T(test_unlisted_name_refused),
        T(test_literal_and_private_refused),
        T(test_deny_entry_wins),
        T(test_grants_that_end),
        T(test_request_rules),
        T(test_secrets),
        T(test_git_push_with_secret),
        T(test_no_way_around),
        T(test_clients),
        T(test_own_loopback),
        T(test_npm_install),
        T(test_without_namespaces),
        T(test_container),
    };
    return cmocka_run_group_tests_name("sandbox_enforce_domains", tests, group_setup,
                                       group_teardown);
}
