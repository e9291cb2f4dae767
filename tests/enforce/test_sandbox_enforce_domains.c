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
#include "net_fixture.h"

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
        T(test_no_way_around),
        T(test_clients),
        T(test_own_loopback),
        T(test_npm_install),
        T(test_without_namespaces),
        T(test_container),
    };
    return cmocka_run_group_tests_name("sandbox_enforce_domains", tests, net_group_setup,
                                       net_group_teardown);
}
