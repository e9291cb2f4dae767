/* The OCI backend: the same policy as a container's world, through podman,
 * with an empty directory as the container's root. The cases a container
 * answers like any mechanism run in the OCI groups of the other enforcement
 * suites; these are the container's own. The rules of the enforcement suites
 * are in enforce_fixture.h. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h> /* after the four above, which it needs */

#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "enforce_fixture.h"

/* The "done when", as a new user would try it: the command writes in
 * the project (as the caller), cannot read or write outside, and sees only
 * the loopback interface: TCP and UDP to the host's own loopback do not
 * arrive. Each refusal works under none. */
static void test_oci_world(void **state) {
    NEED_MECHANISM();
    fx *f = *state;
    char secret[PATH_MAX], made[PATH_MAX], outside_new[PATH_MAX], script[4 * PATH_MAX];
    write_file(path_in(secret, f->outside, "secret"), SECRET "\n");
    path_in(made, f->project, "made");
    path_in(outside_new, f->outside, "new");
    fs_policy(f);

    expect_allowed(f, CMD("sh", "-c", "echo built > made && cat made"), &P);
    assert_content(made, "built\n");
    struct stat st;
    assert_int_equal(stat(made, &st), 0);
    assert_int_equal(st.st_uid, geteuid());
    assert_int_equal(st.st_gid, getegid());

    expect_denied(f, CMD("cat", secret), 1, &P);
    assert_lacks(P.out, SECRET, "stdout");
    FMT(script, "echo x > '%s'", outside_new);
    expect_denied(f, CMD("sh", "-c", script), 2, &P);
    assert_exists(outside_new, false);

    /* Only lo: the interface table's lines past its two headers. */
    const char *const *ifaces =
        CMD("sh", "-c", "tail -n +3 /proc/net/dev | cut -d: -f1 | tr -d ' '");
    expect_allowed(f, ifaces, &P);
    assert_string_equal(P.out, "lo\n");

    int tcp_port, udp_port;
    int tcp = listener(SOCK_STREAM, &tcp_port), udp = listener(SOCK_DGRAM, &udp_port);
    FMT(script, "exec 3<>/dev/tcp/127.0.0.1/%d", tcp_port);
    policy(f, "exec = { \"bash\" }");
    expect_denied(f, CMD("bash", "-c", script), 1, &P);
    assert_false(accepted(tcp));
    char port[16];
    FMT(port, "%d", udp_port);
    lcsb(f, mech, CMD(PYTHON, "-c", udp_py, port), &P);
    if (received(udp)) fail_msg("a datagram from the container reached the host's loopback");

    /* The twins. */
    expect_unsandboxed_ok(f, CMD("cat", secret), &P);
    assert_contains(P.out, SECRET, "stdout");
    expect_unsandboxed_ok(f, CMD("bash", "-c", script), &P);
    assert_true(accepted(tcp));
    expect_unsandboxed_ok(f, CMD(PYTHON, "-c", udp_py, port), &P);
    assert_true(received(udp));
    close(tcp);
    close(udp);
}

/* The attestation says what a container holds, and that it runs any
 * program it finds: exec is open. */
static void test_oci_attestation(void **state) {
    NEED_MECHANISM();
    fx *f = *state;
    fs_policy(f);
    lcsb_opts(f, mech, CMD("--attest", "-"), CMD("true"), NULL, &P);
    assert_int_equal(P.status, 0);
    assert_contains(P.err,
                    "{\"backend\":\"oci\",\"fs\":\"enforced\",\"exec\":\"open\",\"net\":\"denied\","
                    "\"net_covers\":\"all\",\"net_by\":\"namespace\",\"metadata\":\"readonly\"",
                    "the attestation");
    expect_denied(f, CMD("sh", "-c", "exit 3"), 3, &P);
    assert_contains(P.err, "lcsb: sh exited 3 under oci (fs: enforced, exec: open, net: denied)",
                    "the trailer");
}

/* A launcher prefix rides inside a container and in front of a host
 * mechanism's shim. The launcher notes where it ran: inside, no_new_privs is
 * already set (the engine's); in front of the shim, it is not yet. */
static void test_oci_prefix_placement(void **state) {
    NEED_MECHANISM();
    fx *f = *state;
    char *mine = slurp("/proc/self/status");
    assert_non_null(mine);
    bool caller_has_nnp = strstr(mine, "NoNewPrivs:\t1\n") != NULL;
    free(mine);
    if (caller_has_nnp) {
        fprintf(stderr, "# skipped: this test runs with no_new_privs set already\n");
        skip();
    }
    char launcher[PATH_MAX], saw[PATH_MAX], script[3 * PATH_MAX];
    path_in(saw, f->project, "launcher-saw");
    FMT(script, "#!/bin/sh\ngrep NoNewPrivs /proc/self/status > '%s'\nexec \"$@\"\n", saw);
    write_file(path_in(launcher, f->project, "launch"), script);
    assert_int_equal(chmod(launcher, 0755), 0);
    policy(f, "exec = { \"sh\", \"grep\", \"%s\" }", launcher);
    static const struct {
        const char *backend, *launcher_saw;
    } where[] = {{"oci", "NoNewPrivs:\t1\n"}, {"landlock", "NoNewPrivs:\t0\n"}};
    for (size_t i = 0; i < 2; i++) {
        unlink(saw);
        lcsb_opts(f, where[i].backend, CMD("--prefix", launcher), CMD("sh", "-c", "echo ran"), NULL,
                  &P);
        if (P.status != 0) {
            describe(where[i].backend, CMD("sh"), &P);
            fail_msg("the prefixed run failed under %s", where[i].backend);
        }
        assert_contains(P.out, "ran", "stdout");
        assert_content(saw, where[i].launcher_saw);
    }
}

/* Nothing of the caller's environment enters the container but what the
 * policy's overlay puts there. */
static void test_oci_environment(void **state) {
    NEED_MECHANISM();
    fx *f = *state;
    policy(f, "exec = { \"sh\" }, env = { FOO = \"bar\" }");
    lcsb_env(f, mech, CMD("sh", "-c", "echo \"FOO=$FOO\"; echo \"SECRET=${SECRET-<unset>}\""),
             ENV("SECRET=hunter2"), &P);
    assert_int_equal(P.status, 0);
    assert_contains(P.out, "FOO=bar\n", "stdout");
    assert_contains(P.out, "SECRET=<unset>\n", "stdout");
}

/* A mount beneath a read-only path stays read-only: the engine's binds are
 * not recursive, so the container sees the directory beneath, not the mount.
 * Root only (it mounts); the twin writes through the mount unsandboxed. */
static void test_oci_mount_beneath_read_path(void **state) {
    NEED_MECHANISM();
    fx *f = *state;
    if (geteuid() != 0) {
        fprintf(stderr, "# skipped: only root can mount the tmpfs this case needs\n");
        skip();
    }
    char sub[PATH_MAX], target[PATH_MAX], script[2 * PATH_MAX];
    assert_int_equal(mkdir(path_in(sub, f->ro, "sub"), 0755), 0);
    if (mount("none", sub, "tmpfs", 0, "size=1m") != 0)
        fail_msg("mount tmpfs: %s", strerror(errno));
    FMT(f->mounted, "%s", sub);
    path_in(target, sub, "planted");
    FMT(script, "echo x > '%s'", target);
    fs_policy(f);
    expect_denied(f, CMD("sh", "-c", script), 2, &P);
    assert_exists(target, false);
    expect_unsandboxed_ok(f, CMD("sh", "-c", script), &P);
    assert_exists(target, true);
}

#define ENTRY_IMAGE "localhost/lcsb-enf-entry"

/* An image world runs the command, not the image's entrypoint with the
 * command as its arguments. The image (busybox, with an entrypoint that
 * says so and fails) is made here. */
static void test_oci_image_entrypoint_reset(void **state) {
    NEED_MECHANISM();
    fx *f = *state;
    if (access("/bin/busybox", X_OK) != 0) {
        if (tests_required()) fail_msg("no /bin/busybox (busybox-static) to make an image with");
        fprintf(stderr, "# skipped: no /bin/busybox to make an image with\n");
        skip();
    }
    char script[4 * PATH_MAX], text[1024];
    FMT(script,
        "set -e; d=$(mktemp -d); trap 'rm -rf \"$d\"' EXIT; chmod 755 \"$d\"; "
        "mkdir -p \"$d/bin\" \"$d/usr/bin\"; "
        "cp /bin/busybox \"$d/bin/\"; for t in sh env echo cat; do ln -s /bin/busybox "
        "\"$d/bin/$t\"; done; ln -s /bin/busybox \"$d/usr/bin/env\"; "
        "tar -C \"$d\" -cf - . | podman import --change "
        "'ENTRYPOINT [\"/bin/sh\",\"-c\",\"echo ENTRYPOINT-RAN; exit 9\"]' - %s",
        ENTRY_IMAGE);
    run_child(f->project, CMD("/bin/sh", "-c", script), NULL, &P);
    if (P.status != 0) fail_msg("podman import failed (%d): %s", P.status, P.err);
    FMT(text,
        "local lcsb = require \"lcsb\"\nreturn lcsb.exec_policy{ exec = { \"sh\" }, "
        "oci = { image = \"%s\" } }\n",
        ENTRY_IMAGE);
    raw_policy(f, text);
    expect_allowed(f, CMD("sh", "-c", "echo the command ran > made; cat made"), &P);
    assert_contains(P.out, "the command ran", "stdout");
    assert_lacks(P.out, "ENTRYPOINT-RAN", "stdout");
    char made[PATH_MAX];
    assert_content(path_in(made, f->project, "made"), "the command ran\n");
    run_child(f->project, CMD("podman", "rmi", "-f", ENTRY_IMAGE), NULL, &P);
}

/* TCP ports are no mount: refused before anything runs, unless the network
 * may degrade, and then the attestation says it was dropped. */
static void test_oci_ports_refused_unless_degraded(void **state) {
    NEED_MECHANISM();
    fx *f = *state;
    char marker[PATH_MAX], script[PATH_MAX + 16];
    FMT(script, "touch '%s'", path_in(marker, f->project, "ran"));
    policy(f, "exec = { \"sh\" }, net = { connect = { 443 } }");
    lcsb(f, mech, CMD("sh", "-c", script), &P);
    assert_int_equal(P.status, 125);
    assert_contains(P.err, "degrade = { \"net\" }", "stderr");
    assert_exists(marker, false);
    /* An open network for a rootless container is slirp4netns's, which needs
     * /dev/net/tun: where this user cannot open it, the engine cannot give one. */
    if (geteuid() != 0 && access("/dev/net/tun", R_OK | W_OK) != 0) {
        fprintf(stderr, "# the degraded run skipped: /dev/net/tun is closed to uid %u\n",
                geteuid());
        return;
    }
    policy(f, "exec = { \"sh\" }, net = { connect = { 443 } }, degrade = { \"net\" }");
    /* The engine sets up its network with iptables, from sbin. */
    lcsb_opts(f, mech, CMD("--attest", "-"), CMD("sh", "-c", script),
              ENV("PATH=/usr/sbin:/usr/bin:/sbin:/bin"), &P);
    if (P.status != 0) {
        describe(mech, CMD("sh", "-c", script), &P);
        fail_msg("expected the run with the network open to succeed, got %d", P.status);
    }
    assert_exists(marker, true);
    assert_contains(P.err, "\"net\":\"open\"", "the attestation");
    assert_contains(P.err, "\"dropped\":[\"net\"]", "the attestation");
}

int main(void) {
    const struct CMUnitTest tests[] = {
        T(test_oci_world),
        T(test_oci_attestation),
        T(test_oci_prefix_placement),
        T(test_oci_environment),
        T(test_oci_ports_refused_unless_degraded),
        T(test_oci_mount_beneath_read_path),
        T(test_oci_image_entrypoint_reset),
    };
    return cmocka_run_group_tests_name("sandbox_enforce_oci", tests, oci_group_setup,
                                       oci_group_teardown);
}
