/* What no policy turns off: the terminal filter (no TIOCSTI, no TIOCLINUX)
 * and the dropped capabilities, each shown against the same command run
 * without the shim. The fixture and its templates are in shim_fixture.h. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h> /* after the four above, which it needs */

#include <errno.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>

#include "shim_fixture.h"

#define H_DROPPED(parts)                                                                           \
    HEAD FS ",'net':[],'ports':[],'scope':[],'sockets':'any','dropped':[" parts                    \
            "],'world':'open','protect':[],'hide':[],'limits':{},'proxy':0}"
#define TIOCSTI_PY "import fcntl,termios,sys; fcntl.ioctl(0, termios.TIOCSTI, b\"x\")"

/* ---- the terminal ---- */

/* A pseudo-terminal pair; the slave will be the command's stdin. */
static void open_pty(int *master, int *slave) {
    const char *name = NULL;

    *slave = -1;
    *master = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);
    if (*master >= 0 && grantpt(*master) == 0 && unlockpt(*master) == 0) name = ptsname(*master);
    if (name != NULL) *slave = open(name, O_RDWR | O_NOCTTY | O_CLOEXEC);
    if (*slave >= 0) return;
    if (*master >= 0) close(*master);
    if (tests_required())
        fail_msg("no pseudo-terminal (%s) and LCSB_SANDBOX_TESTS_REQUIRED=1", strerror(errno));
    print_message("skipped: no pseudo-terminal: %s\n", strerror(errno));
    skip();
}

/* The twins run TIOCSTI outside the shim, on their own terminal, and since
 * Linux 6.2 that takes dev.tty.legacy_tiocsti = 1 or CAP_SYS_ADMIN. */
static void require_tiocsti(void) {
    char legacy[8] = "";

    read_file("/proc/sys/dev/tty/legacy_tiocsti", legacy, sizeof legacy);
    if (legacy[0] != '0' || geteuid() == 0) /* no file: a kernel before 6.2 */
        return;
    if (tests_required())
        fail_msg("dev.tty.legacy_tiocsti is 0 and this is not root, so no twin can show "
                 "TIOCSTI working; LCSB_SANDBOX_TESTS_REQUIRED=1");
    print_message("skipped: dev.tty.legacy_tiocsti is 0 and this is not root: TIOCSTI fails "
                  "without the shim too, so its refusal would prove nothing\n");
    skip();
}

/* Whether input waits on the terminal. */
static bool typed(int slave) {
    struct pollfd p = {.fd = slave, .events = POLLIN};
    return poll(&p, 1, 0) == 1 && (p.revents & POLLIN) != 0;
}

/* Sets the fixture to run python's -c SCRIPT under a policy granting the
 * system directories, with a new pty as its stdin and controlling terminal:
 * TIOCSTI works on the caller's own terminal only. */
static void set_tty_command(struct fixture *f, const char *header, const char *script, int *master,
                            int *slave) {
    const char *tmpls[] = {header, "{'part':1,'rules':[{SYS}]}", "--", PYTHON, "-c"};
    struct termios raw;

    open_pty(master, slave);
    /* Raw, so that one pushed byte is input at once, without a newline. */
    assert_int_equal(tcgetattr(*slave, &raw), 0);
    cfmakeraw(&raw);
    assert_int_equal(tcsetattr(*slave, TCSANOW, &raw), 0);
    free_args(f);
    set_args(f, tmpls, 5);
    f->args[5] = strdup(script);
    f->args[6] = NULL;
    f->stdin_fd = *slave;
    f->ctty = true;
}

/* TIOCSTI would type into the caller's terminal, to be run by its shell once
 * lcsb exits. The twins, the same command on the same terminal without the
 * shim, and under a header that drops "terminal" (a host without seccomp),
 * type "x". */
static void test_terminal_tiocsti_refused(void **state) {
    struct fixture *f = *state;
    struct result r;
    int master, slave;
    char got[8];

    require_landlock();
    require_python();
#ifndef NATIVE_ARCH
    skip();
#endif
    require_tiocsti();
    for (int dropped = 0; dropped <= 1; dropped++) {
        set_tty_command(f, dropped ? H_DROPPED("'terminal'") : H_OK, TIOCSTI_PY, &master, &slave);
        run(f, NULL, &r);
        if (!dropped) {
            if (r.status == 0 || r.status == SETUP_FAILED ||
                strstr(r.err, "Operation not permitted") == NULL)
                fail_msg("TIOCSTI under the shim: status %d, stderr: %s", r.status, r.err);
            assert_false(typed(slave));
            run_direct(f, &r);
        }
        if (r.status != 0)
            fail_msg("TIOCSTI %s: status %d, stderr: %s",
                     dropped ? "with \"terminal\" dropped" : "without the shim", r.status, r.err);
        assert_true(typed(slave));
        assert_int_equal(read(slave, got, sizeof got), 1);
        assert_int_equal(got[0], 'x');
        f->stdin_fd = 0;
        close(slave);
        close(master);
    }
}

/* Each line: an ioctl on stdin and its result, "ok" or the errno's name.
 * TIOCSTI with junk in the upper half of the request: the kernel reads only
 * the lower 32 bits, so the filter must too. TIOCLINUX's subcode 6 reads the
 * shift state. TCGETS: the terminal's other ioctls still work. */
static const char tty_probe_py[] =
    "import ctypes, errno, termios\n"
    "libc = ctypes.CDLL(None, use_errno=True)\n"
    "def ioctl(name, request, arg):\n"
    "    rc = libc.ioctl(0, ctypes.c_ulong(request), arg)\n"
    "    print(name, 'ok' if rc == 0 else errno.errorcode.get(ctypes.get_errno(), '?'),\n"
    "          flush=True)\n"
    "ioctl('tiocsti_high', (1 << 32) | termios.TIOCSTI, ctypes.c_char_p(b'y'))\n"
    "ioctl('tioclinux', termios.TIOCLINUX, ctypes.create_string_buffer(b'\\x06', 8))\n"
    "ioctl('tcgets', termios.TCGETS, ctypes.create_string_buffer(256))\n";

/* The value after "NAME " in the probe's output. */
static void probe_result(const char *out, const char *name, char *buf, size_t cap) {
    size_t len = strlen(name);

    for (const char *line = out; line != NULL && *line != '\0';
         line = strchr(line, '\n'), line = line ? line + 1 : NULL) {
        if (strncmp(line, name, len) == 0 && line[len] == ' ') {
            snprintf(buf, cap, "%.*s", (int)strcspn(line + len + 1, "\n"), line + len + 1);
            return;
        }
    }
    fail_msg("no result for %s in: %s", name, out);
}

static void test_terminal_other_ioctls(void **state) {
    struct fixture *f = *state;
    struct result shim, direct;
    char got[32];
    int master, slave;

    require_landlock();
    require_python();
#ifndef NATIVE_ARCH
    skip();
#endif
    require_tiocsti();
    set_tty_command(f, H_OK, tty_probe_py, &master, &slave);
    run(f, NULL, &shim);
    if (shim.status != 0)
        fail_msg("the probe under the shim exited %d; stderr: %s", shim.status, shim.err);
    assert_false(typed(slave));
    run_direct(f, &direct);
    if (direct.status != 0)
        fail_msg("the probe without the shim exited %d; stderr: %s", direct.status, direct.err);

    probe_result(shim.out, "tiocsti_high", got, sizeof got);
    assert_string_equal(got, "EPERM");
    probe_result(direct.out, "tiocsti_high", got, sizeof got);
    assert_string_equal(got, "ok");
    assert_true(typed(slave));

    probe_result(shim.out, "tioclinux", got, sizeof got);
    assert_string_equal(got, "EPERM");
    /* A pty has no TIOCLINUX: ENOTTY or EINVAL, never the filter's EPERM. */
    probe_result(direct.out, "tioclinux", got, sizeof got);
    if (strcmp(got, "EPERM") == 0 || strcmp(got, "ok") == 0)
        fail_msg("TIOCLINUX on a pty without the shim: %s; the case proves nothing", got);

    probe_result(shim.out, "tcgets", got, sizeof got);
    assert_string_equal(got, "ok");
    probe_result(direct.out, "tcgets", got, sizeof got);
    assert_string_equal(got, "ok");
    f->stdin_fd = 0;
    close(slave);
    close(master);
}

/* ---- capabilities ---- */

struct caps {
    unsigned long long eff, prm, bnd, amb, inh;
};

/* The Cap* lines of /proc/self/status, as grep printed them. */
static void parse_caps(const char *out, struct caps *c) {
    static const char *const names[] = {"CapEff:", "CapPrm:", "CapBnd:", "CapAmb:", "CapInh:"};
    unsigned long long *fields[] = {&c->eff, &c->prm, &c->bnd, &c->amb, &c->inh};

    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        const char *at = strstr(out, names[i]);
        if (at == NULL || (at != out && at[-1] != '\n') ||
            sscanf(at + strlen(names[i]), "%llx", fields[i]) != 1)
            fail_msg("no %s line in: %s", names[i], out);
    }
}

/* Runs grep for the Cap* lines of /proc/self/status, as CALLER, under the
 * shim (SHIM) and without it (DIRECT). False if the shim is not NOBODY's to run. */
static bool read_caps(struct fixture *f, enum caller_caps caller, struct caps *shim,
                      struct caps *direct) {
    const char *tmpls[] = {
        H_OK,
        "{'part':1,'rules':[{SYS},{'access':['read_file','read_dir'],'paths':['/proc']}]}",
        "--",
        "/usr/bin/grep",
        "-E",
        "^Cap(Eff|Prm|Bnd|Amb|Inh)",
        "/proc/self/status"};
    struct result r;

    free_args(f);
    set_args(f, tmpls, sizeof tmpls / sizeof tmpls[0]);
    f->caps = caller;
    run(f, NULL, &r);
    if (r.status == STATUS_NOT_NOBODYS) return false;
    if (r.status != 0) fail_msg("grep under the shim exited %d; stderr: %s", r.status, r.err);
    parse_caps(r.out, shim);
    run_direct(f, &r);
    if (r.status != 0) fail_msg("grep without the shim exited %d; stderr: %s", r.status, r.err);
    parse_caps(r.out, direct);
    return true;
}

/* The command runs without capabilities. As root it would otherwise have
 * them all (the twin), and with them ways around Landlock; root's bounding
 * set goes too, since exec as uid 0 would hand them back from it. Anyone
 * else may not drop from the bounding set (that takes CAP_SETPCAP), so it
 * stays as it was: harmless, as a non-root exec raises nothing from it, and
 * no_new_privs keeps set-uid and file capabilities from raising anything. */
static void test_capabilities_dropped(void **state) {
    struct fixture *f = *state;
    struct caps shim, direct;

    require_landlock();
    assert_true(read_caps(f, CALLER_AS_IS, &shim, &direct));
    assert_int_equal(shim.eff, 0);
    assert_int_equal(shim.prm, 0);
    assert_int_equal(shim.amb, 0);
    assert_int_equal(shim.inh, 0);
    assert_int_not_equal(direct.bnd, 0);
    if (getuid() != 0 && geteuid() != 0) {
        /* Without capabilities to begin with: see the root-only cases below. */
        assert_int_equal(shim.bnd, direct.bnd);
        return;
    }
    assert_int_equal(shim.bnd, 0);
    assert_int_not_equal(direct.eff, 0);
    assert_int_not_equal(direct.prm, 0);

    /* Root with an inheritable capability: exec as root would make it
     * permitted again, bounding set or not. */
    assert_true(read_caps(f, CALLER_INHERITABLE, &shim, &direct));
    assert_int_equal(direct.inh, 1ULL << CAP_NET_BIND_SERVICE);
    assert_int_equal(shim.eff | shim.prm | shim.bnd | shim.amb | shim.inh, 0);

    /* Not root, with an ambient capability (as systemd's AmbientCapabilities=
     * gives a service): exec hands it on. The bounding set stays. */
    if (!read_caps(f, CALLER_AMBIENT_USER, &shim, &direct)) {
        print_message("note: uid %d may not run %s; the ambient case did not run\n", NOBODY,
                      LCSB_SHIM_PATH);
        return;
    }
    assert_int_equal(direct.amb, 1ULL << CAP_NET_BIND_SERVICE);
    assert_int_equal(direct.eff, 1ULL << CAP_NET_BIND_SERVICE);
    assert_int_equal(shim.eff | shim.prm | shim.amb | shim.inh, 0);
    assert_int_equal(shim.bnd, direct.bnd);
    assert_int_not_equal(shim.bnd, 0);
}

int main(void) {
    static const struct CMUnitTest tests[] = {
        T(test_terminal_tiocsti_refused),
        T(test_terminal_other_ioctls),
        T(test_capabilities_dropped),
    };
    return cmocka_run_group_tests_name("sandbox_shim_terminal", tests, shim_group_setup, NULL);
}
