/* The shim's socket filter: probes run under each "sockets" value and under
 * "any", which proves each refusal is the filter's; a foreign architecture's
 * system calls are refused too. The fixture and its templates are in
 * shim_fixture.h. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h> /* after the four above, which it needs */

#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "shim_fixture.h"

#ifndef __X32_SYSCALL_BIT
#define __X32_SYSCALL_BIT 0x40000000
#endif

/* ---- the socket filter ---- */

/* Each probe named in argv[1] makes one call and prints "NAME ok" or
 * "NAME ERRNO". Python sets SOCK_CLOEXEC on every socket it creates, so "tcp4"
 * also checks that the filter masks the type's flags. */
static const char probe_py[] =
    "import ctypes, errno, os, socket as S, sys\n"
    "def sock(*a):\n"
    "    S.socket(*a).close()\n"
    "def pair(*a):\n"
    "    for s in S.socketpair(*a): s.close()\n"
    "def uring():\n"
    "    libc = ctypes.CDLL(None, use_errno=True)\n"
    "    params = (ctypes.c_char * 120)()\n"
    "    fd = libc.syscall(425, 8, params)\n" /* io_uring_setup, the same on both arches */
    "    if fd < 0: raise OSError(ctypes.get_errno(), 'io_uring_setup')\n"
    "    os.close(fd)\n"
    "probes = {\n"
    "    'udp4': lambda: sock(S.AF_INET, S.SOCK_DGRAM),\n"
    "    'udp6': lambda: sock(S.AF_INET6, S.SOCK_DGRAM),\n"
    "    'udp4_proto': lambda: sock(S.AF_INET, S.SOCK_DGRAM, S.IPPROTO_UDP),\n"
    "    'raw4': lambda: sock(S.AF_INET, S.SOCK_RAW, S.IPPROTO_ICMP),\n"
    "    'raw6': lambda: sock(S.AF_INET6, S.SOCK_RAW, S.IPPROTO_ICMPV6),\n"
    "    'packet': lambda: sock(S.AF_PACKET, S.SOCK_RAW),\n"
    "    'netlink': lambda: sock(S.AF_NETLINK, S.SOCK_RAW, 0),\n"
    "    'tcp4': lambda: sock(S.AF_INET, S.SOCK_STREAM),\n"
    "    'tcp4_proto': lambda: sock(S.AF_INET, S.SOCK_STREAM, S.IPPROTO_TCP),\n"
    "    'tcp4_flags': lambda: sock(S.AF_INET, S.SOCK_STREAM | S.SOCK_NONBLOCK),\n"
    "    'tcp6': lambda: sock(S.AF_INET6, S.SOCK_STREAM),\n"
    "    'sctp': lambda: sock(S.AF_INET, S.SOCK_STREAM, 132),\n"
    "    'mptcp': lambda: sock(S.AF_INET, S.SOCK_STREAM, 262),\n"
    "    'seqpacket4': lambda: sock(S.AF_INET, S.SOCK_SEQPACKET, 0),\n"
    "    'unix_stream': lambda: sock(S.AF_UNIX, S.SOCK_STREAM),\n"
    "    'unix_dgram': lambda: sock(S.AF_UNIX, S.SOCK_DGRAM | S.SOCK_NONBLOCK),\n"
    "    'unix_pair': lambda: pair(S.AF_UNIX, S.SOCK_STREAM),\n"
    "    'inet_pair': lambda: pair(S.AF_INET, S.SOCK_STREAM),\n"
    "    'io_uring': uring,\n"
    "}\n"
    "for name in sys.argv[1].split():\n"
    "    try:\n"
    "        probes[name]()\n"
    "        r = 'ok'\n"
    "    except OSError as e:\n"
    "        r = errno.errorcode.get(e.errno, str(e.errno))\n"
    "    print(name, r, flush=True)\n";

/* What each probe gets under "unix" and "unix+tcp"; NULL: whatever it gets
 * under "any", the filter lets it through. */
struct socket_case {
    const char *name;
    const char *unix_only;
    const char *unix_tcp;
};

static const struct socket_case socket_cases[] = {
    {"udp4", "EACCES", "EACCES"},
    {"udp6", "EACCES", "EACCES"},
    {"udp4_proto", "EACCES", "EACCES"},
    {"raw4", "EACCES", "EACCES"},
    {"raw6", "EACCES", "EACCES"},
    {"packet", "EACCES", "EACCES"},
    {"netlink", "EACCES", "EACCES"},
    {"tcp4", "EACCES", NULL},
    {"tcp4_proto", "EACCES", NULL},
    {"tcp4_flags", "EACCES", NULL},
    {"tcp6", "EACCES", NULL},
    /* Never made under "any": as root it would load the sctp module. */
    {"sctp", "EACCES", "EACCES"},
    {"mptcp", "EACCES", "EACCES"},
    {"seqpacket4", "EACCES", "EACCES"},
    {"unix_stream", NULL, NULL},
    {"unix_dgram", NULL, NULL},
    {"unix_pair", NULL, NULL},
    /* The kernel has no AF_INET pairs (EOPNOTSUPP); under "unix" the filter
     * refuses first, which shows that socketpair is checked too. */
    {"inet_pair", "EACCES", NULL},
    {"io_uring", "EPERM", "EPERM"},
};

#define N_SOCKET_CASES (sizeof socket_cases / sizeof socket_cases[0])

/* One result per socket case, from a run of the probes. */
struct probe_results {
    char got[N_SOCKET_CASES][32];
};

/* Runs the probes under "sockets":SOCKETS (all but sctp under "any"). */
static void run_probes(struct fixture *f, const char *sockets, struct probe_results *out) {
    char header[512], names[512] = "";
    const char *tmpls[] = {header, "{'part':1,'rules':[{SYS}]}", "--", PYTHON};
    struct result r;
    bool any = strcmp(sockets, "any") == 0;

    snprintf(
        header, sizeof header,
        HEAD FS
        ",'net':[],'ports':[],'scope':[],'sockets':'%s','dropped':[],'world':'open','protect':[],'hide':[],'limits':{},'proxy':0}",
        sockets);
    for (size_t i = 0; i < N_SOCKET_CASES; i++) {
        if (any && strcmp(socket_cases[i].name, "sctp") == 0) continue;
        strcat(names, socket_cases[i].name);
        strcat(names, " ");
    }
    for (size_t k = 0; f->args[k] != NULL; k++) free(f->args[k]);
    set_args(f, tmpls, 4);
    f->args[4] = strdup("-c");
    f->args[5] = strdup(probe_py);
    f->args[6] = strdup(names);
    f->args[7] = NULL;
    run(f, NULL, &r);
    if (r.status != 0)
        fail_msg("the probes under \"%s\" exited %d; stderr: %s", sockets, r.status, r.err);
    for (size_t i = 0; i < N_SOCKET_CASES; i++) {
        char want[64];
        const char *line;
        snprintf(want, sizeof want, "%s ", socket_cases[i].name);
        out->got[i][0] = '\0';
        for (line = r.out; line != NULL; line = strchr(line, '\n'), line = line ? line + 1 : NULL)
            if (strncmp(line, want, strlen(want)) == 0) break;
        if (line == NULL) {
            if (any && strcmp(socket_cases[i].name, "sctp") == 0) continue;
            fail_msg("no result for %s under \"%s\": %s", socket_cases[i].name, sockets, r.out);
        }
        line += strlen(want);
        snprintf(out->got[i], sizeof out->got[i], "%.*s", (int)strcspn(line, "\n"), line);
    }
}

static const char *result_of(const struct probe_results *res, const char *name) {
    for (size_t i = 0; i < N_SOCKET_CASES; i++)
        if (strcmp(socket_cases[i].name, name) == 0) return res->got[i];
    fail_msg("no socket case %s", name);
    return NULL;
}

/* Under SOCKETS each probe gets what socket_cases says; under "any" a refused
 * one got something else, so the refusal was the filter's. */
static void check_sockets(void **state, const char *sockets, bool tcp) {
    struct fixture *f = *state;
    struct probe_results any, got;

    require_landlock();
    require_python();
#ifndef NATIVE_ARCH
    skip();
#endif
    run_probes(f, "any", &any);
    run_probes(f, sockets, &got);
    for (size_t i = 0; i < N_SOCKET_CASES; i++) {
        const struct socket_case *c = &socket_cases[i];
        const char *want = tcp ? c->unix_tcp : c->unix_only;
        if (want == NULL) {
            if (strcmp(got.got[i], any.got[i]) != 0)
                fail_msg("%s under \"%s\": %s, and %s without the filter", c->name, sockets,
                         got.got[i], any.got[i]);
            continue;
        }
        if (strcmp(got.got[i], want) != 0)
            fail_msg("%s under \"%s\": %s, expected %s", c->name, sockets, got.got[i], want);
        if (strcmp(c->name, "sctp") == 0 || strcmp(any.got[i], want) != 0) continue;
        /* A host may turn io_uring off for this user (kernel.io_uring_disabled). */
        if (strcmp(c->name, "io_uring") != 0)
            fail_msg("%s gets %s without the filter too: the case proves nothing", c->name, want);
        print_message("note: io_uring gets %s without the filter too\n", want);
    }
}

static void test_sockets_unix(void **state) { check_sockets(state, "unix", false); }

static void test_sockets_unix_tcp(void **state) { check_sockets(state, "unix+tcp", true); }

/* The twin: with no filter, what the others refuse works, so that the probes
 * can fail at all. */
static void test_sockets_any(void **state) {
    static const char *const work[] = {"udp4",        "udp4_proto", "tcp4",
                                       "tcp4_proto",  "tcp4_flags", "netlink",
                                       "unix_stream", "unix_dgram", "unix_pair"};
    struct fixture *f = *state;
    struct probe_results any;

    require_landlock();
    require_python();
    run_probes(f, "any", &any);
    for (size_t i = 0; i < sizeof work / sizeof work[0]; i++)
        if (strcmp(result_of(&any, work[i]), "ok") != 0)
            fail_msg("%s without the filter: %s", work[i], result_of(&any, work[i]));
    assert_string_equal(result_of(&any, "inet_pair"), "ENOTSUP");
}

/* This binary as the sandboxed command: "--probe int80" makes an i386 system
 * call (getpid through int 0x80), "--probe x32" an x32 socket(AF_INET,
 * SOCK_DGRAM); each prints its result. */
static int probe_main(const char *what) {
    long ret = -1;

    /* A kill by the filter must not leave a core file behind. */
    struct rlimit none = {0, 0};
    setrlimit(RLIMIT_CORE, &none);
    prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
    errno = 0;
#if defined(__x86_64__)
    if (strcmp(what, "int80") == 0) {
        __asm__ volatile("int $0x80" : "=a"(ret) : "a"(20L) : "rcx", "r11", "memory");
        printf("int80 %s\n", ret > 0 ? "ok" : "failed");
        return 0;
    }
    if (strcmp(what, "x32") == 0) {
        ret = syscall(__X32_SYSCALL_BIT | __NR_socket, AF_INET, SOCK_DGRAM, 0);
        printf("x32 %s\n", ret >= 0 ? "ok" : strerrorname_np(errno));
        return 0;
    }
#endif
    (void)ret;
    fprintf(stderr, "unknown probe %s\n", what);
    return 2;
}

/* Runs this binary's probe WHAT under "sockets":SOCKETS. */
static void run_self_probe(struct fixture *f, const char *sockets, const char *what,
                           struct result *r) {
    char header[512], part[PATH_MAX + 256];
    const char *tmpls[] = {header, part, "--"};

    assert_true(self_exe[0] == '/' && strpbrk(self_exe, "\"\\'`{") == NULL);
    snprintf(
        header, sizeof header,
        HEAD FS
        ",'net':[],'ports':[],'scope':[],'sockets':'%s','dropped':[],'world':'open','protect':[],'hide':[],'limits':{},'proxy':0}",
        sockets);
    snprintf(part, sizeof part,
             "{'part':1,'rules':[{SYS},{'access':['read_file','execute'],'paths':['%s']}]}",
             self_exe);
    for (size_t k = 0; f->args[k] != NULL; k++) free(f->args[k]);
    set_args(f, tmpls, 3);
    f->args[3] = strdup(self_exe);
    f->args[4] = strdup("--probe");
    f->args[5] = strdup(what);
    f->args[6] = NULL;
    run(f, NULL, r);
}

/* The probes are this binary: a sanitizer's runtime needs more than the
 * sandbox grants, so the release build runs these. */
static void require_self_probe(void) {
    require_landlock();
#if defined(LCSB_SANITIZED) || !defined(__x86_64__)
    skip();
#endif
}

/* A foreign architecture's system call kills the process: on x86_64, i386's
 * int 0x80 is where socketcall() would reach every socket call. */
static void test_sockets_foreign_arch_killed(void **state) {
    struct fixture *f = *state;
    struct result r;

    require_self_probe();
    run_self_probe(f, "any", "int80", &r);
    if (r.status != 0 || strcmp(r.out, "int80 ok\n") != 0) {
        print_message("skipped: int 0x80 fails without the filter too (status %d%s%s)\n", r.status,
                      r.out[0] ? ", " : "", r.out);
        skip();
    }
    run_self_probe(f, "unix", "int80", &r);
    assert_int_equal(r.status, 128 + SIGSYS);
    assert_string_equal(r.out, "");
    run_self_probe(f, "unix+tcp", "int80", &r);
    assert_int_equal(r.status, 128 + SIGSYS);
}

/* x32 calls fail with ENOSYS, whether or not the kernel has x32. */
static void test_sockets_x32_refused(void **state) {
    struct fixture *f = *state;
    struct result r;

    require_self_probe();
    run_self_probe(f, "unix+tcp", "x32", &r);
    assert_int_equal(r.status, 0);
    assert_string_equal(r.out, "x32 ENOSYS\n");
    run_self_probe(f, "any", "x32", &r);
    assert_int_equal(r.status, 0);
    if (strcmp(r.out, "x32 ok\n") != 0)
        print_message("note: this kernel has no x32 (%.*s), so this case cannot fail here\n",
                      (int)strcspn(r.out, "\n"), r.out);
}

int main(int argc, char **argv) {
    static const struct CMUnitTest tests[] = {
        T(test_sockets_unix),
        T(test_sockets_unix_tcp),
        T(test_sockets_any),
        /* another architecture's system calls */
        T(test_sockets_foreign_arch_killed),
        T(test_sockets_x32_refused),
    };

    /* Run by the shim as a sandboxed command, not as the suite. */
    if (argc == 3 && strcmp(argv[1], "--probe") == 0) return probe_main(argv[2]);
    return cmocka_run_group_tests_name("sandbox_shim_sockets", tests, shim_group_setup, NULL);
}
