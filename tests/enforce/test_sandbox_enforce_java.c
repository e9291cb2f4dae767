/* Java through lcsb's proxy: a JVM reads neither HTTPS_PROXY nor a PEM
 * bundle, so lcsb names the proxy and the run's truststore to it in
 * JAVA_TOOL_OPTIONS. A real JDK fetches (Fetch.java, compiled once for the
 * suite) from the net.domains servers (net_fixture.h): through a rule,
 * HTTPS intercepted and trusted by the truststore alone, the caller's own
 * options kept; through blind entries by the proxy properties alone. Each
 * has its twin: the same JVM told to forget lcsb's truststore fails Java's
 * PKIX check, and told to forget the proxy is refused its own way out. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h> /* after the four above, which it needs */

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "enforce_fixture.h"
#include "net_fixture.h"

#define JAVA "/usr/bin/java"
#define JAVAC "/usr/bin/javac"

static char classes[PATH_MAX];   /* where Fetch.class is */
static const char *java_missing; /* why the suite cannot run Java here */

#define NEED_JAVA()                                                                                \
    do {                                                                                           \
        NEED_SERVERS();                                                                            \
        if (java_missing) {                                                                        \
            if (tests_required())                                                                  \
                fail_msg("missing %s and LCSB_SANDBOX_TESTS_REQUIRED=1", java_missing);            \
            skip();                                                                                \
        }                                                                                          \
    } while (0)

static int java_group_setup(void **state) {
    net_group_setup(state);
    if (access(JAVA, X_OK) != 0)
        java_missing = JAVA;
    else if (access(JAVAC, X_OK) != 0)
        java_missing = JAVAC;
    snprintf(classes, sizeof classes, "/tmp/lcsb-java-fetch.XXXXXX");
    if (!java_missing && !mkdtemp(classes)) java_missing = "a directory for Fetch.class";
    if (!java_missing) {
        proc p;
        run_child(NULL, CMD(JAVAC, "-d", classes, LCSB_JAVA_FETCH), NULL, &p);
        if (p.status != 0) {
            fprintf(stderr, "# javac: %s%s", p.out, p.err);
            java_missing = "Fetch.java compiled (javac failed)";
        }
    }
    if (java_missing) fprintf(stderr, "# Java cases cannot run: %s\n", java_missing);
    return 0;
}

static int java_group_teardown(void **state) {
    if (classes[0] == '/' && access(classes, F_OK) == 0) rm_rf(classes);
    return net_group_teardown(state);
}

/* Fetch, under the JVM lcsb starts: its perf data off (the JVM writes it
 * to /tmp, outside any policy here, and says so on stderr). */
#define FETCH(...) CMD(JAVA, "-XX:-UsePerfData", "-cp", classes, "Fetch", __VA_ARGS__)

/* The caller's own JAVA_TOOL_OPTIONS, which a policy below passes:
 * lcsb's replaces it (it is set on the env hop's command line, which any
 * user may read, and the caller's may hold a password). lcsb itself trusts
 * the test servers' certificate. */
static void lcsb_java(fx *f, const char *const *cmd) {
    char trust[PATH_MAX + 16];
    FMT(trust, "SSL_CERT_FILE=%s", srv.cert);
    lcsb_env(f, "landlock", cmd, ENV(trust, "JAVA_TOOL_OPTIONS=-Dlcsb.caller=passed"), &P);
}

/* The policy's own JAVA_TOOL_OPTIONS: a property of its own, and a
 * truststore and password of its own that lcsb's must outrank. */
#define POLICY_JAVA_OPTIONS                                                                        \
    "env = { set = { JAVA_TOOL_OPTIONS = \"-Dlcsb.test=kept "                                      \
    "-Djavax.net.ssl.trustStore=/nowhere.jks "                                                     \
    "-Djavax.net.ssl.trustStorePassword=not-this-one\" } }"

/* A rule has the proxy intercept the host's HTTPS: Java trusts the run's
 * authority through the truststore lcsb wrote, reaches the server through
 * the proxy (which saw, and let through, a GET), and keeps the policy's
 * options, not the caller's. The twin forgets lcsb's truststore for the JDK's own, which
 * does not know the run's authority: Java's PKIX error. */
static void test_java_intercepted(void **state) {
    NEED_JAVA();
    fx *f = *state;
    char url[512], line[600];
    FMT(url, "https://%s:%d/echo?from=java", srv.host, srv.https);
    policy(f,
           "exec = { \"java\" }, read = { \"%s\" }, net = { domains = { [\"%s:%d\"] = { methods = "
           "{ \"GET\" } } }, lan = { \"127.0.0.0/8\" } }, " POLICY_JAVA_OPTIONS,
           classes, srv.host, srv.https);
    lcsb_java(f, FETCH("--print=lcsb.test", "--print=javax.net.ssl.trustStoreType", url));
    if (P.status != 0) {
        describe("java through interception", FETCH(url), &P);
        fail_msg("Java's fetch through interception failed");
    }
    assert_contains(P.out, "lcsb.test=kept\n", "the policy's own option");
    assert_contains(P.out, "javax.net.ssl.trustStoreType=JKS\n", "lcsb's truststore");
    FMT(line, "%s: 200 proxy=true\n", url);
    assert_contains(P.out, line, "Java's fetch");
    assert_contains(P.out, "GET /echo?from=java\n", "what the server saw");

    lcsb_java(f, FETCH("--default-trust", url));
    assert_int_equal(P.status, 1);
    /* Newer JDKs put the alert between the two: "(certificate_unknown)". */
    assert_contains(P.out, "SSLHandshakeException: ", "the twin");
    assert_contains(P.out, "PKIX path building failed", "the twin");
    assert_lacks(P.out, "GET /echo", "the twin's output (the server saw nothing)");
}

/* Blind entries: no interception, so no truststore; Java reaches both
 * servers through the proxy properties, HTTP forwarded and HTTPS tunnelled
 * (trusting the server's own certificate). The twin, the proxy forgotten,
 * connects by itself and is refused (lcsb's hint says why). The caller's
 * own JAVA_TOOL_OPTIONS, passed, is replaced by lcsb's. */
static void test_java_blind(void **state) {
    NEED_JAVA();
    fx *f = *state;
    char http[512], https[512], trust[PATH_MAX + 16], line[600];
    FMT(http, "http://%s:%d/hello.txt", srv.host, srv.http);
    FMT(https, "https://%s:%d/hello.txt", srv.host, srv.https);
    FMT(trust, "--trust=%s", srv.cert);
    policy(f,
           "exec = { \"java\" }, read = { \"%s\", \"%s\" }, net = { domains = { \"%s:%d\", "
           "\"%s:%d\" }, lan = { \"127.0.0.0/8\" } }, env = { pass = { \"JAVA_TOOL_OPTIONS\" } }",
           classes, srv.cert, srv.host, srv.http, srv.host, srv.https);
    lcsb_java(f,
              FETCH("--print=javax.net.ssl.trustStore", "--print=lcsb.caller", trust, http, https));
    if (P.status != 0) {
        describe("java through the proxy", FETCH(trust, http, https), &P);
        fail_msg("Java's fetch through the proxy failed");
    }
    assert_contains(P.out, "javax.net.ssl.trustStore=null\n", "no truststore without a rule");
    assert_contains(P.out, "lcsb.caller=null\n", "the caller's options, replaced");
    FMT(line, "%s: 200 proxy=true\nhello through lcsb's proxy\n", http);
    assert_contains(P.out, line, "HTTP through the proxy");
    FMT(line, "%s: 200 proxy=true\nhello through lcsb's proxy\n", https);
    assert_contains(P.out, line, "HTTPS through the proxy");

    lcsb(f, "landlock", FETCH("--no-proxy", trust, https), &P);
    assert_int_equal(P.status, 1);
    FMT(line, "%s: failed: java.net.", https);
    assert_contains(P.out, line, "the twin");
    assert_contains(P.err, "reaches hosts by name, through lcsb's proxy", "the twin's hint");
}

int main(void) {
    const struct CMUnitTest tests[] = {
        T(test_java_intercepted),
        T(test_java_blind),
    };
    return cmocka_run_group_tests_name("sandbox_enforce_java", tests, java_group_setup,
                                       java_group_teardown);
}
