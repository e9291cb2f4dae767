/* lcsb-exec's seccomp filter (filters.h): one BPF program built for the
 * header, installed last, right before exec. It is apart from lcsb-exec.c
 * so that the enforcement there reads as the kernel sees it; what lies here
 * is the program's making, segment by segment, and the search that sorts
 * out the calls none of them names.
 *
 * libc and kernel headers only, like the rest of the shim. */
#define _GNU_SOURCE
#include "filters.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "kernel_uapi.h"
#include "say.h"

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

#ifdef FILTER_ARCH
/* The low 32 bits of syscall argument I: the socket calls take ints, and the
 * kernel ignores the upper half too. */
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define ARG_LO(i) (offsetof(struct seccomp_data, args) + 8 * (i))
#else
#define ARG_LO(i) (offsetof(struct seccomp_data, args) + 8 * (i) + 4)
#endif
/* A jump's numbers count the instructions it skips when the test holds, and
 * when not. */
#define LOAD(offset) BPF_STMT(BPF_LD | BPF_W | BPF_ABS, (uint32_t)(offset))
#define JEQ(k, jt, jf) BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (uint32_t)(k), jt, jf)
#define RET(k) BPF_STMT(BPF_RET | BPF_K, (uint32_t)(k))
#define ERRNO(e) RET(SECCOMP_RET_ERRNO | ((e) & SECCOMP_RET_DATA))
#define JSET(k, jt, jf) BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, (uint32_t)(k), jt, jf)

/* Every filter starts here: native syscalls only (see FILTER_ARCH), then the
 * syscall number loaded for the checks that follow. On x86_64, x32 calls come
 * under the same arch with a bit set in the number, so a check for socket() or
 * ioctl() would miss x32's; they fail with ENOSYS, what a kernel without x32
 * answers (as most do): a program probing for x32 falls back quietly, where a
 * kill would end it and EPERM would claim a policy that says nothing of x32. */
#if defined(__x86_64__)
#define NATIVE_SYSCALL_NUMBER                                                   \
    LOAD(offsetof(struct seccomp_data, arch)), JEQ(FILTER_ARCH, 1, 0),          \
        RET(SECCOMP_RET_KILL_PROCESS), LOAD(offsetof(struct seccomp_data, nr)), \
        BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, __X32_SYSCALL_BIT, 0, 1), ERRNO(ENOSYS)
#else
#define NATIVE_SYSCALL_NUMBER                                                   \
    LOAD(offsetof(struct seccomp_data, arch)), JEQ(FILTER_ARCH, 1, 0),          \
        RET(SECCOMP_RET_KILL_PROCESS), LOAD(offsetof(struct seccomp_data, nr))
#endif

/* The filter is one program of segments, one per concern below. Each
 * segment starts with the syscall number loaded again, and where it allows
 * (has nothing against the call) it goes on to the next one: the first to
 * refuse answers. One program rather than one filter per concern: each
 * filter is compiled on its own, and every system call the command makes
 * runs every filter. */
struct program {
    struct sock_filter v[768];
    unsigned n;
    bool full;
};

static void emit(struct program *p, struct sock_filter ins) {
    if (p->n == COUNT(p->v)) {
        p->full = true;
        return;
    }
    p->v[p->n++] = ins;
}

static bool allows(const struct sock_filter *ins) {
    return ins->code == (BPF_RET | BPF_K) && ins->k == SECCOMP_RET_ALLOW;
}

/* RULES (N of them, expecting the syscall number loaded) as a segment: its
 * allows become jumps past its end. */
static void add_segment(struct program *p, const struct sock_filter *rules, size_t n) {
    emit(p, (struct sock_filter)LOAD(offsetof(struct seccomp_data, nr)));
    for (size_t i = 0; i < n; i++)
        emit(p, allows(&rules[i]) ? (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JA,
                                                                 (uint32_t)(n - i - 1), 0, 0)
                                  : rules[i]);
}

/* Whatever the policy: the command must not type into the caller's terminal
 * (TIOCSTI pushes bytes into its input queue, TIOCLINUX can paste a selection),
 * which would run commands in the caller's shell after lcsb exits. Interactive
 * programs keep the terminal; no new session detaches them. */
static void add_tty_rules(struct program *p) {
    const struct sock_filter rules[] = {
        JEQ(__NR_ioctl, 0, 3), /* to allow */
        LOAD(ARG_LO(1)),
        JEQ(TIOCSTI, 2, 0),    /* to EPERM */
        JEQ(TIOCLINUX, 1, 0),  /* to EPERM */
        RET(SECCOMP_RET_ALLOW),
        ERRNO(EPERM),
    };
    add_segment(p, rules, COUNT(rules));
}

#define SETID (S_ISUID | S_ISGID)
#define CREATING (O_CREAT | 020000000) /* O_CREAT, __O_TMPFILE */

/* Syscall NR sets a mode from argument MODE: refused when it holds a set-id bit. */
#define MODE_RULE(nr, mode) \
    JEQ(nr, 0, 4), LOAD(ARG_LO(mode)), JSET(SETID, 0, 1), ERRNO(EPERM), RET(SECCOMP_RET_ALLOW)
/* The same for a call that takes a mode only when FLAGS create a file. */
#define CREATE_RULE(nr, flags, mode)                                                   \
    JEQ(nr, 0, 6), LOAD(ARG_LO(flags)), JSET(CREATING, 0, 3), LOAD(ARG_LO(mode)),       \
        JSET(SETID, 0, 1), ERRNO(EPERM), RET(SECCOMP_RET_ALLOW)

/* Files the command leaves behind outlive the sandbox: a set-uid root shell,
 * or one with file capabilities, made by a command lcsb ran as root, would
 * hand root to whoever runs it later. So no set-id bit is set (chmod, or a
 * mode given when creating) and no extended attribute is written
 * (security.capability is one; the name cannot be read from here, so none
 * is, and tools take EOPNOTSUPP as "no xattrs here"). openat2 and io_uring,
 * whose modes sit behind pointers, are left to their callers' fallbacks. */
static void add_setid_rules(struct program *p) {
    const struct sock_filter rules[] = {
#ifdef __NR_chmod
        MODE_RULE(__NR_chmod, 1),
#endif
        MODE_RULE(__NR_fchmod, 1),
        MODE_RULE(__NR_fchmodat, 2),
        MODE_RULE(__NR_fchmodat2, 2),
#ifdef __NR_creat
        MODE_RULE(__NR_creat, 1),
#endif
#ifdef __NR_mknod
        MODE_RULE(__NR_mknod, 1),
#endif
        MODE_RULE(__NR_mknodat, 2),
#ifdef __NR_open
        CREATE_RULE(__NR_open, 1, 2),
#endif
        CREATE_RULE(__NR_openat, 2, 3),
        JEQ(__NR_openat2, 0, 1), ERRNO(ENOSYS),
        JEQ(__NR_io_uring_setup, 0, 1), ERRNO(EPERM),
        JEQ(__NR_setxattrat, 3, 0), JEQ(__NR_setxattr, 2, 0), JEQ(__NR_lsetxattr, 1, 0),
        JEQ(__NR_fsetxattr, 0, 1),
        ERRNO(EOPNOTSUPP),
        RET(SECCOMP_RET_ALLOW),
    };
    add_segment(p, rules, COUNT(rules));
}

/* Landlock does not govern a memfd (an internal file, in no directory), so a
 * program written into one would run outside the exec allowlist, through
 * execveat or /proc/self/fd. memfd_create is refused unless the memfd is
 * sealed against exec (MFD_NOEXEC_SEAL), what vm.memfd_noexec = 2 would
 * enforce; that sysctl only root may set in a pid namespace, this holds for
 * everyone. */
static void add_memfd_rules(struct program *p) {
    const struct sock_filter rules[] = {
        JEQ(__NR_memfd_create, 0, 3), /* to allow */
        LOAD(ARG_LO(1)),
        JSET(MFD_NOEXEC_SEAL_, 1, 0), /* to allow */
        ERRNO(EACCES),
        RET(SECCOMP_RET_ALLOW),
    };
    add_segment(p, rules, COUNT(rules));
}

/* The session keyring is a new one (world.c) and the user keyrings belong to
 * the user namespace, so the caller's keys are not the command's. A key can
 * still be named by its serial number, and one the caller let its uid read
 * would be read. So a key or keyring argument of keyctl and add_key must be
 * one of the special, negative KEY_SPEC_* numbers (the command's own
 * keyrings) or 0 where 0 means "none"; request_key is refused; keyctl operations that
 * carry keys behind a pointer (DH_COMPUTE, the PKEY_* crypto) or that this
 * table does not know are refused whole. */
struct key_args {
    uint32_t op;
    uint8_t args; /* bit I: argument I is a key */
};

static const struct key_args keyctl_ops[] = {
    {0, 1 << 1},  {2, 1 << 1},  {3, 1 << 1},          {4, 1 << 1},  {5, 1 << 1},
    {6, 1 << 1},  {7, 1 << 1},  {8, 1 << 1 | 1 << 2}, {9, 1 << 1 | 1 << 2},
    {10, 1 << 1 | 1 << 4},      {11, 1 << 1},         {12, 1 << 1 | 1 << 4},
    {13, 1 << 1 | 1 << 3},      {15, 1 << 1},         {16, 1 << 1}, {17, 1 << 1},
    {19, 1 << 1 | 1 << 4},      {20, 1 << 1 | 1 << 4}, {21, 1 << 1}, {22, 1 << 2},
    {24, 1 << 1}, {29, 1 << 1}, {30, 1 << 1 | 1 << 2 | 1 << 3},       {32, 1 << 1},
    /* JOIN_SESSION_KEYRING, SET_REQKEY_KEYRING, SESSION_TO_PARENT, CAPABILITIES */
    {1, 0},       {14, 0},      {18, 0},              {31, 0},
};

/* The arguments in ARGS hold a special key number, or 0: else EACCES. */
static void emit_key_checks(struct program *p, unsigned args) {
    for (unsigned i = 0; i < 6; i++) {
        if ((args & (1U << i)) == 0)
            continue;
        emit(p, (struct sock_filter)LOAD(ARG_LO(i)));
        emit(p, (struct sock_filter)JSET(0x80000000u, 2, 0)); /* negative: next check */
        emit(p, (struct sock_filter)JEQ(0, 1, 0));            /* none: next check */
        emit(p, (struct sock_filter)ERRNO(EACCES));
    }
    emit(p, (struct sock_filter)RET(SECCOMP_RET_ALLOW));
}

static unsigned key_checks_length(unsigned args) {
    return 4 * (unsigned)__builtin_popcount(args) + 1;
}

/* Syscall NR with its key arguments ARGS: checked, or skipped past. */
static void emit_call(struct program *p, uint32_t nr, unsigned args) {
    emit(p, (struct sock_filter)JEQ(nr, 0, key_checks_length(args)));
    emit_key_checks(p, args);
}

/* keyctl: its operation loaded once and matched against the table, each
 * match jumping to the checks of its key arguments; operations that check
 * the same arguments share those checks (the program is compiled on every
 * run, and a table of one check block per operation was most of it). */
static int add_keyring_rules(struct program *out) {
    struct program p = {.n = 0};
    uint8_t masks[COUNT(keyctl_ops)];
    unsigned at[COUNT(keyctl_ops)]; /* where each mask's checks start, after the table */
    size_t n_masks = 0;
    unsigned checks = 0, keyctl_len;

    for (size_t i = 0; i < COUNT(keyctl_ops); i++) {
        size_t m = 0;
        while (m < n_masks && masks[m] != keyctl_ops[i].args)
            m++;
        if (m == n_masks) {
            masks[n_masks++] = keyctl_ops[i].args;
            at[m] = checks;
            checks += key_checks_length(keyctl_ops[i].args);
        }
    }
    /* The operation loaded, the table, an operation not in it, the checks. */
    keyctl_len = 1 + (unsigned)COUNT(keyctl_ops) + 1 + checks;
    /* A jump counts 255 instructions at most; the table is kept within. */
    if (keyctl_len > 255)
        return fail("build the seccomp filter: the keyctl table is too long");
    /* add_key(type, description, payload, plen, keyring) */
    emit_call(&p, __NR_add_key, 1 << 4);
    /* request_key may start the host's /sbin/request-key, as root, outside
     * any sandbox, to make the key: refused whole. */
    emit(&p, (struct sock_filter)JEQ(__NR_request_key, 0, 1));
    emit(&p, (struct sock_filter)ERRNO(EACCES));
    emit(&p, (struct sock_filter)JEQ(__NR_keyctl, 0, keyctl_len));
    emit(&p, (struct sock_filter)LOAD(ARG_LO(0)));
    for (size_t i = 0; i < COUNT(keyctl_ops); i++) {
        size_t m = 0;
        while (masks[m] != keyctl_ops[i].args)
            m++;
        /* Past the rest of the table and the refusal, into the checks. */
        emit(&p, (struct sock_filter)JEQ(keyctl_ops[i].op,
                                         (unsigned)(COUNT(keyctl_ops) - i - 1) + 1 + at[m], 0));
    }
    emit(&p, (struct sock_filter)ERRNO(EACCES)); /* an operation not in the table */
    for (size_t m = 0; m < n_masks; m++)
        emit_key_checks(&p, masks[m]);
    emit(&p, (struct sock_filter)RET(SECCOMP_RET_ALLOW));
    add_segment(out, p.v, p.n);
    return 0;
}

/* The process that waits for the command shares its uid, and the
 * scheduler calls and prlimit take no Landlock scope: a command could
 * starve it (idle policy, lowest priority, one CPU) so that it never reaps,
 * or take its descriptors away (prlimit RLIMIT_NOFILE), and what the
 * command left would run on. In a world of its own that is the init (pid
 * 1); in the host's, lcsb, the shim's parent, which also serves the
 * command's proxy and keeps what it refused. Those calls are refused on
 * GUARDED, and setpriority and ioprio_set on a process group or a user
 * (which hold it too) are refused whole; on the command's own processes
 * they work. */
static void emit_refused_on(struct program *p, uint32_t nr, uint32_t guarded) {
    emit(p, (struct sock_filter)JEQ(nr, 0, 4));
    emit(p, (struct sock_filter)LOAD(ARG_LO(0)));
    emit(p, (struct sock_filter)JEQ(guarded, 0, 1));
    emit(p, (struct sock_filter)ERRNO(EPERM));
    emit(p, (struct sock_filter)RET(SECCOMP_RET_ALLOW));
}

/* NR(which, who, ...): allowed for WHICH_PROCESS and a pid but GUARDED. */
static void emit_process_only(struct program *p, uint32_t nr, uint32_t which_process,
                              uint32_t guarded) {
    emit(p, (struct sock_filter)JEQ(nr, 0, 6));
    emit(p, (struct sock_filter)LOAD(ARG_LO(0)));
    emit(p, (struct sock_filter)JEQ(which_process, 0, 2));
    emit(p, (struct sock_filter)LOAD(ARG_LO(1)));
    emit(p, (struct sock_filter)JEQ(guarded, 0, 1));
    emit(p, (struct sock_filter)ERRNO(EPERM));
    emit(p, (struct sock_filter)RET(SECCOMP_RET_ALLOW));
}

static void add_guard_rules(struct program *out, uint32_t guarded) {
    static const uint32_t pid_first[] = {__NR_sched_setscheduler, __NR_sched_setparam,
                                         __NR_sched_setattr, __NR_sched_setaffinity,
                                         __NR_prlimit64};
    struct program p = {.n = 0};

    for (size_t i = 0; i < COUNT(pid_first); i++)
        emit_refused_on(&p, pid_first[i], guarded);
    emit_process_only(&p, __NR_setpriority, 0 /* PRIO_PROCESS */, guarded);
    emit_process_only(&p, __NR_ioprio_set, 1 /* IOPRIO_WHO_PROCESS */, guarded);
    emit(&p, (struct sock_filter)RET(SECCOMP_RET_ALLOW));
    add_segment(out, p.v, p.n);
}

/* Landlock's network rules cover TCP only. This lets the command create
 * AF_UNIX sockets and, with "unix+tcp", TCP sockets over IPv4 and IPv6 (which
 * Landlock then holds to the policy's ports), and refuses every other socket
 * with EACCES, the errno Landlock gives, so that the command and lcsb's
 * explanations both see "Permission denied". io_uring is refused whole
 * (EPERM): IORING_OP_SOCKET creates sockets without socket(). */
static void add_socket_rules(struct program *p, enum sockets sockets) {
    bool tcp = sockets == SOCKETS_UNIX_TCP;
    const struct sock_filter rules[] = {
        JEQ(__NR_socket, 4, 0),         /* to the domain check */
        JEQ(__NR_socketpair, 3, 0),     /* to the domain check */
        JEQ(__NR_io_uring_setup, 1, 0), /* to EPERM */
        RET(SECCOMP_RET_ALLOW),
        ERRNO(EPERM),
        /* socket(domain, type, protocol), socketpair(domain, type, protocol, sv) */
        LOAD(ARG_LO(0)),
        JEQ(AF_UNIX, 8, 0), /* allow */
        /* With "unix" both compare with AF_UNIX, which cannot match here. */
        JEQ(tcp ? AF_INET : AF_UNIX, 1, 0),  /* to the type check */
        JEQ(tcp ? AF_INET6 : AF_UNIX, 0, 7), /* to the type check, or refuse */
        LOAD(ARG_LO(1)),
        BPF_STMT(BPF_ALU | BPF_AND | BPF_K, ~(uint32_t)(SOCK_NONBLOCK | SOCK_CLOEXEC)),
        JEQ(SOCK_STREAM, 0, 4), /* to the protocol check, or refuse */
        LOAD(ARG_LO(2)),
        JEQ(0, 1, 0),           /* the family's default, which is TCP: allow */
        JEQ(IPPROTO_TCP, 0, 1), /* allow, or refuse */
        RET(SECCOMP_RET_ALLOW),
        ERRNO(EACCES),
    };
    add_segment(p, rules, COUNT(rules));
}

/* The syscall numbers the segments of P look at: those a call that none of
 * them names is compared with on its way through, from FROM (where the
 * number is loaded) to the allow it reaches. Any other step on that way (an
 * argument loaded, a test but for equality, anything but an allow at its
 * end) would make the way depend on more than the number: then 0, and the
 * program stays as it is. */
static size_t watched_calls(const struct program *p, unsigned from, uint32_t *nrs, size_t max) {
    size_t n = 0;

    for (unsigned pc = from; pc < p->n;) {
        const struct sock_filter *ins = &p->v[pc];
        if (ins->code == (BPF_LD | BPF_W | BPF_ABS) &&
            ins->k == offsetof(struct seccomp_data, nr)) {
            pc++;
        } else if (ins->code == (BPF_JMP | BPF_JEQ | BPF_K)) {
            /* The number is in the accumulator: every load above was of it. */
            if (n == max)
                return 0;
            nrs[n++] = ins->k;
            pc += 1u + ins->jf;
        } else if (ins->code == (BPF_JMP | BPF_JA)) {
            pc += 1u + ins->k;
        } else {
            return allows(ins) ? n : 0;
        }
    }
    return 0;
}

static int by_number(const void *a, const void *b) {
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

    return x < y ? -1 : x > y;
}

static unsigned search_length(size_t n) {
    return n <= 3 ? (unsigned)n + 1 : 1 + search_length(n / 2) + search_length(n - n / 2);
}

/* A search for the number among NRS (N, sorted): on into the segments,
 * which start at index END, for a number it holds; allowed at once for any
 * other. */
static void emit_search(struct program *p, const uint32_t *nrs, size_t n, unsigned end) {
    if (n <= 3) {
        for (size_t i = 0; i < n; i++)
            emit(p, (struct sock_filter)JEQ(nrs[i], end - p->n - 1, 0));
        emit(p, (struct sock_filter)RET(SECCOMP_RET_ALLOW));
        return;
    }
    emit(p, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, nrs[n / 2],
                                         search_length(n / 2), 0));
    emit_search(p, nrs, n / 2, end);
    emit_search(p, nrs + n / 2, n - n / 2, end);
}

/* P with the calls its segments name sorted out first: OUT is P's start
 * (FROM instructions, the number loaded at their end), a search for the
 * number, then P's segments. When the filter is installed the kernel runs
 * the program once for every syscall number, to learn which it may let
 * through unfiltered later; a number none of the segments names went
 * through every one of them, which made that most of the filter's cost.
 * Left as P when its segments do not lend themselves to it. */
static const struct program *sorted_out(const struct program *p, unsigned from,
                                        struct program *out) {
    uint32_t nrs[128];
    size_t n = watched_calls(p, from, nrs, COUNT(nrs)), unique = 0;
    unsigned end;

    if (n == 0)
        return p;
    qsort(nrs, n, sizeof nrs[0], by_number);
    for (size_t i = 0; i < n; i++)
        if (unique == 0 || nrs[unique - 1] != nrs[i])
            nrs[unique++] = nrs[i];
    end = from + search_length(unique);
    /* A jump counts 255 instructions at most. */
    if (end - from > 255)
        return p;
    out->n = 0;
    out->full = false;
    for (unsigned i = 0; i < from; i++)
        emit(out, p->v[i]);
    emit_search(out, nrs, unique, end);
    for (unsigned i = from; i < p->n; i++)
        emit(out, p->v[i]);
    return out->full ? p : out;
}

/* The program for H: the terminal and set-id rules (unless seccomp is
 * dropped), memfd when execute is handled, the keyrings and the init in a
 * world of its own, and sockets when the header restricts them; installed
 * last, right before exec (no_new_privs is already set, as an unprivileged
 * filter requires). */
int install_filters(const struct header *h) {
    static struct program p, sorted;
    const struct program *final;
    const struct sock_filter start[] = {NATIVE_SYSCALL_NUMBER};
    bool guards = (h->dropped & DROPPED_TERMINAL) == 0;

    if (!guards && h->sockets == SOCKETS_ANY)
        return 0;
    p.n = 0;
    p.full = false;
    for (size_t i = 0; i < COUNT(start); i++)
        emit(&p, start[i]);
    if (guards) {
        add_tty_rules(&p);
        add_setid_rules(&p);
        if ((h->handled.fs & LANDLOCK_ACCESS_FS_EXECUTE) != 0)
            add_memfd_rules(&p);
        if (h->world == WORLD_POLICY) {
            if (add_keyring_rules(&p) != 0)
                return -1;
            add_guard_rules(&p, 1);
        } else {
            add_guard_rules(&p, (uint32_t)getppid());
        }
    }
    if (h->sockets != SOCKETS_ANY)
        add_socket_rules(&p, h->sockets);
    emit(&p, (struct sock_filter)RET(SECCOMP_RET_ALLOW));
    if (p.full)
        return fail("build the seccomp filter: it is longer than %zu instructions", COUNT(p.v));
    final = sorted_out(&p, COUNT(start), &sorted);
    struct sock_fprog prog = {.len = (unsigned short)final->n, .filter = (struct sock_filter *)final->v};
    if (prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) != 0)
        return fail("install the seccomp filter: %s", strerror(errno));
    return 0;
}

#else
int install_filters(const struct header *h) {
    /* check_header has refused a header restricting sockets here already. */
    if ((h->dropped & DROPPED_TERMINAL) == 0)
        return fail("guard the terminal on this architecture: the seccomp filter knows "
                    "x86_64 and aarch64 only");
    return 0;
}
#endif
