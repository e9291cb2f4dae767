/* fault_launcher: run a program on a kernel that refuses one system call.
 *
 *     fault_launcher NR [ERRNO [ARG0 | &MASK]] -- COMMAND [ARG...]
 *
 * Installs a seccomp filter under which system call NR (a number, for this
 * architecture) fails with ERRNO (a number; EPERM when omitted), then execs
 * COMMAND with the rest of argv. With ARG0 only the calls whose first argument
 * (its low 32 bits) is ARG0 fail, so `prctl` can be refused for one option
 * alone; with &MASK, only the calls whose first argument has a bit of MASK
 * set (clone with CLONE_NEWUSER). Every other call, and every call of a foreign architecture (x32, the
 * 32-bit compat calls), goes through.
 *
 * The filter survives exec and binds every descendant, so the tests use it to
 * show what lcsb and its shim do when the kernel says no for real, instead of
 * a flag inside the code under test (tests/enforce/test_sandbox_enforce_faults.c).
 *
 * Installing a filter unprivileged needs no_new_privs, set here with prctl
 * before the filter exists, so refusing prctl does not stop the launcher; the
 * filter goes in through seccomp(2), which the filter cannot refuse either: a
 * filter applies from the call after the one that installed it.
 *
 * Exit status: 98 when the launcher itself fails (usage, filter, exec), so it
 * is never mistaken for lcsb's 97 and 125 or for the command's own status. */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#define LAUNCHER_FAILED 98

#if defined(__x86_64__)
#define NATIVE_ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define NATIVE_ARCH AUDIT_ARCH_AARCH64
#endif

#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define ARG0_LO offsetof(struct seccomp_data, args)
#else
#define ARG0_LO (offsetof(struct seccomp_data, args) + 4)
#endif

#define LOAD(offset) BPF_STMT(BPF_LD | BPF_W | BPF_ABS, (uint32_t)(offset))
#define JEQ(k, jt, jf) BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (uint32_t)(k), jt, jf)
#define JA(k) BPF_JUMP(BPF_JMP | BPF_JA, (uint32_t)(k), 0, 0)
#define JSET(k, jt, jf) BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, (uint32_t)(k), jt, jf)
#define RET(k) BPF_STMT(BPF_RET | BPF_K, (uint32_t)(k))

static void usage(void) {
    fputs("fault_launcher: usage: fault_launcher NR [ERRNO [ARG0 | &MASK]] -- COMMAND [ARG...]\n",
          stderr);
}

/* A whole non-negative decimal number up to MAX, or -1. */
static long number(const char *s, long max) {
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno != 0 || end == s || *end != '\0' || v < 0 || v > max) return -1;
    return v;
}

static int install(long nr, long err, long arg0, bool mask) {
    struct sock_filter filter[] = {
#ifdef NATIVE_ARCH
        LOAD(offsetof(struct seccomp_data, arch)),
        JEQ(NATIVE_ARCH, 1, 0),
        RET(SECCOMP_RET_ALLOW),
#endif
        LOAD(offsetof(struct seccomp_data, nr)),
        JEQ(nr, 0, 3), /* to allow */
        LOAD(ARG0_LO),
        JEQ(arg0, 0, 1), /* to refuse, or to allow */
        RET(SECCOMP_RET_ERRNO | ((uint32_t)err & SECCOMP_RET_DATA)),
        RET(SECCOMP_RET_ALLOW),
    };
    size_t len = sizeof filter / sizeof filter[0];
    struct sock_fprog prog = {.len = (unsigned short)len, .filter = filter};

    /* Without ARG0 the argument test becomes a jump over nothing: refuse. */
    if (arg0 < 0) filter[len - 3] = (struct sock_filter)JA(0);
    if (mask) filter[len - 3] = (struct sock_filter)JSET(arg0, 0, 1);

    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) {
        fprintf(stderr, "fault_launcher: cannot set no_new_privs: %s\n", strerror(errno));
        return -1;
    }
    if (syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog) != 0) {
        fprintf(stderr, "fault_launcher: cannot install the filter: %s\n", strerror(errno));
        return -1;
    }
    return 0;
}

int main(int argc, char **argv) {
    int dashdash = 1;
    long nr, err = EPERM, arg0 = -1;

    while (dashdash < argc && strcmp(argv[dashdash], "--") != 0) dashdash++;
    if (dashdash < 2 || dashdash > 4 || dashdash + 1 >= argc) {
        usage();
        return LAUNCHER_FAILED;
    }
    nr = number(argv[1], INT32_MAX);
    if (dashdash > 2) err = number(argv[2], SECCOMP_RET_DATA);
    bool mask = dashdash > 3 && argv[3][0] == '&';
    if (dashdash > 3) arg0 = number(argv[3] + mask, UINT32_MAX);
    if (nr < 0 || err < 0 || (dashdash > 3 && arg0 < 0)) {
        usage();
        return LAUNCHER_FAILED;
    }
    if (install(nr, err, arg0, mask) != 0) return LAUNCHER_FAILED;
    execvp(argv[dashdash + 1], &argv[dashdash + 1]);
    fprintf(stderr, "fault_launcher: cannot execute %s: %s\n", argv[dashdash + 1], strerror(errno));
    return LAUNCHER_FAILED;
}
