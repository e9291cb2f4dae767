/* The network under Landlock: TCP connect and bind held to the listed ports,
 * and every other socket refused by the shim's filter. Each refusal has its
 * twin under none; the rules of the enforcement suites are in
 * enforce_fixture.h. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h> /* after the four above, which it needs */

#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "enforce_fixture.h"

/* ---- network ---- */

/* A port nothing listens on now (the kernel's pick, released). */
static int free_port(void) {
    int port;
    close(listener(SOCK_STREAM, &port));
    return port;
}

static void test_tcp_connect(void **state) {
    NEED_LANDLOCK();
    fx *f = *state;
    int a_port, b_port;
    int a = listener(SOCK_STREAM, &a_port), b = listener(SOCK_STREAM, &b_port);
    char to_a[128], to_b[128];
    FMT(to_a, "exec 3<>/dev/tcp/127.0.0.1/%d", a_port);
    FMT(to_b, "exec 3<>/dev/tcp/127.0.0.1/%d", b_port);

    /* net = false (the default) */
    policy(f, "exec = { \"bash\" }");
    expect_denied(f, CMD("bash", "-c", to_a), 1, &P);
    assert_false(accepted(a));
    expect_unsandboxed_ok(f, CMD("bash", "-c", to_a), &P);
    assert_true(accepted(a));

    /* exactly the listed port */
    policy(f, "exec = { \"bash\" }, net = { connect = { %d } }", a_port);
    expect_allowed(f, CMD("bash", "-c", to_a), &P);
    assert_true(accepted(a));
    expect_denied(f, CMD("bash", "-c", to_b), 1, &P);
    assert_false(accepted(b));
    expect_unsandboxed_ok(f, CMD("bash", "-c", to_b), &P);
    assert_true(accepted(b));
    close(a);
    close(b);
}

static const char bind_py[] = "import socket, sys\n"
                              "s = socket.socket()\n"
                              "s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)\n"
                              "s.bind(('127.0.0.1', int(sys.argv[1])))\n"
                              "s.listen()\n"
                              "print('bound', sys.argv[1])\n";

static void test_tcp_bind(void **state) {
    NEED_LANDLOCK();
    fx *f = *state;
    if (access(PYTHON, X_OK) != 0) {
        fprintf(stderr, "# skipped: %s is missing; nothing here can bind a TCP port\n", PYTHON);
        skip();
    }
    char p1[16], p2[16];
    int port1 = free_port(), port2;
    do port2 = free_port();
    while (port2 == port1);
    FMT(p1, "%d", port1);
    FMT(p2, "%d", port2);

    policy(f, "exec = { \"%s\" }", PYTHON);
    expect_denied(f, CMD(PYTHON, "-c", bind_py, p1), 1, &P);
    assert_lacks(P.out, "bound", "stdout");
    expect_unsandboxed_ok(f, CMD(PYTHON, "-c", bind_py, p1), &P);
    assert_contains(P.out, "bound", "stdout");

    policy(f, "exec = { \"%s\" }, net = { bind = { %d } }", PYTHON, port1);
    expect_allowed(f, CMD(PYTHON, "-c", bind_py, p1), &P);
    assert_contains(P.out, "bound", "stdout");
    expect_denied(f, CMD(PYTHON, "-c", bind_py, p2), 1, &P);
    assert_lacks(P.out, "bound", "stdout");
    expect_unsandboxed_ok(f, CMD(PYTHON, "-c", bind_py, p2), &P);
    assert_contains(P.out, "bound", "stdout");
}

/* Run CMD under landlock with `--attest -`: the attestation goes to stderr. */
static void lcsb_attested(fx *f, const char *const *cmd, proc *p) {
    lcsb_opts(f, "landlock", CMD("--attest", "-"), cmd, NULL, p);
}

/* net = false means no network, not no TCP. Landlock covers TCP only; the
 * shim's socket filter refuses every other socket, so the datagram must not
 * arrive under landlock (Python's socket() gets EACCES), must arrive under
 * none, and the attestation says that all of the network is covered. With
 * ports, UDP stays refused, even to a port the policy lets TCP reach. */
static void test_udp_denied(void **state) {
    NEED_LANDLOCK();
    fx *f = *state;
    if (access(PYTHON, X_OK) != 0) {
        fprintf(stderr, "# skipped: %s is missing\n", PYTHON);
        skip();
    }
    int port;
    int rx = listener(SOCK_DGRAM, &port);
    char ps[16];
    FMT(ps, "%d", port);
    const char *const *cmd = CMD(PYTHON, "-c", udp_py, ps);
    char policies[2][256];
    FMT(policies[0], "exec = { \"%s\" }", PYTHON);
    FMT(policies[1], "exec = { \"%s\" }, net = { connect = { %d } }", PYTHON, port);
    static const char *const attested[] = {"\"net\":\"denied\",\"net_covers\":\"all\"",
                                           "\"net\":\"ports\",\"net_covers\":\"all\""};
    for (size_t i = 0; i < 2; i++) {
        policy(f, "%s", policies[i]);
        lcsb_attested(f, cmd, &P);
        if (received(rx)) {
            describe("landlock run", cmd, &P);
            fail_msg("UDP got out under \"%s\"", policies[i]);
        }
        if (P.status != 1) {
            describe("landlock run", cmd, &P);
            fail_msg("expected Python's refusal (1) under landlock, got %d", P.status);
        }
        assert_contains(P.err, "PermissionError: [Errno 13] Permission denied", "stderr");
        assert_contains(P.err, attested[i], "the attestation");
        assert_lacks(P.err, "tcp only", "stderr");
        assert_trailer(&P, "landlock");
        expect_unsandboxed_ok(f, cmd, &P);
        if (!received(rx)) fail_msg("the datagram did not arrive unsandboxed either");
    }
    close(rx);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        T(test_tcp_connect),
        T(test_tcp_bind),
        T(test_udp_denied),
    };
    return cmocka_run_group_tests_name("sandbox_enforce_net", tests, enforce_group_setup, NULL);
}
