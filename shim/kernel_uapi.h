/* The kernel's UAPI as the shim needs it, for when libc's headers lag the
 * kernel: Landlock, the new mount API, and the numbers the seccomp filters
 * name. Values are the kernel's; where a system header may define a name, an
 * #ifndef guard lets it win. Kernel and libc headers only.
 *
 * Define _GNU_SOURCE before including it: the wrappers call syscall(). */
#ifndef LCSB_SHIM_KERNEL_UAPI_H
#define LCSB_SHIM_KERNEL_UAPI_H

#include <linux/audit.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <unistd.h>

/* Landlock, carried here because distribution headers lag the kernel (Debian
 * 12's stops at ABI 2). Values are the kernel's UAPI; the #ifndef guards let a
 * newer system header win, as the kernel's samples/landlock/sandboxer.c does. */
#ifndef __NR_landlock_create_ruleset
#define __NR_landlock_create_ruleset 444
#endif
#ifndef __NR_landlock_add_rule
#define __NR_landlock_add_rule 445
#endif
#ifndef __NR_landlock_restrict_self
#define __NR_landlock_restrict_self 446
#endif
#ifndef LANDLOCK_CREATE_RULESET_VERSION
#define LANDLOCK_CREATE_RULESET_VERSION (1U << 0)
#endif
#ifndef LANDLOCK_RULE_PATH_BENEATH
#define LANDLOCK_RULE_PATH_BENEATH 1
#endif
#ifndef LANDLOCK_RULE_NET_PORT
#define LANDLOCK_RULE_NET_PORT 2
#endif

#ifndef LANDLOCK_ACCESS_FS_EXECUTE
#define LANDLOCK_ACCESS_FS_EXECUTE (1ULL << 0)
#define LANDLOCK_ACCESS_FS_WRITE_FILE (1ULL << 1)
#define LANDLOCK_ACCESS_FS_READ_FILE (1ULL << 2)
#define LANDLOCK_ACCESS_FS_READ_DIR (1ULL << 3)
#define LANDLOCK_ACCESS_FS_REMOVE_DIR (1ULL << 4)
#define LANDLOCK_ACCESS_FS_REMOVE_FILE (1ULL << 5)
#define LANDLOCK_ACCESS_FS_MAKE_CHAR (1ULL << 6)
#define LANDLOCK_ACCESS_FS_MAKE_DIR (1ULL << 7)
#define LANDLOCK_ACCESS_FS_MAKE_REG (1ULL << 8)
#define LANDLOCK_ACCESS_FS_MAKE_SOCK (1ULL << 9)
#define LANDLOCK_ACCESS_FS_MAKE_FIFO (1ULL << 10)
#define LANDLOCK_ACCESS_FS_MAKE_BLOCK (1ULL << 11)
#define LANDLOCK_ACCESS_FS_MAKE_SYM (1ULL << 12)
#endif
#ifndef LANDLOCK_ACCESS_FS_REFER
#define LANDLOCK_ACCESS_FS_REFER (1ULL << 13)
#endif
#ifndef LANDLOCK_ACCESS_FS_TRUNCATE
#define LANDLOCK_ACCESS_FS_TRUNCATE (1ULL << 14)
#endif
#ifndef LANDLOCK_ACCESS_FS_IOCTL_DEV
#define LANDLOCK_ACCESS_FS_IOCTL_DEV (1ULL << 15)
#endif
/* ABI 9: connecting to a pathname unix socket (connect, sendmsg to it). */
#ifndef LANDLOCK_ACCESS_FS_RESOLVE_UNIX
#define LANDLOCK_ACCESS_FS_RESOLVE_UNIX (1ULL << 16)
#endif
#ifndef LANDLOCK_ACCESS_NET_BIND_TCP
#define LANDLOCK_ACCESS_NET_BIND_TCP (1ULL << 0)
#define LANDLOCK_ACCESS_NET_CONNECT_TCP (1ULL << 1)
#endif
#ifndef LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET
#define LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET (1ULL << 0)
#define LANDLOCK_SCOPE_SIGNAL (1ULL << 1)
#endif

/* Our own names for the UAPI structs, so that a system header defining the
 * kernel's (with fewer fields) can never clash with these. */
struct ruleset_attr {
    uint64_t handled_access_fs;
    uint64_t handled_access_net; /* ABI 4 */
    uint64_t scoped;             /* ABI 6 */
};

struct path_beneath_attr {
    uint64_t allowed_access;
    int32_t parent_fd;
} __attribute__((packed));

struct net_port_attr {
    uint64_t allowed_access;
    uint64_t port;
};

#ifndef landlock_create_ruleset
static inline int landlock_create_ruleset(const struct ruleset_attr *attr, size_t size,
                                          uint32_t flags) {
    return (int)syscall(__NR_landlock_create_ruleset, attr, size, flags);
}
#endif

#ifndef landlock_add_rule
static inline int landlock_add_rule(int ruleset_fd, int rule_type, const void *rule_attr,
                                    uint32_t flags) {
    return (int)syscall(__NR_landlock_add_rule, ruleset_fd, rule_type, rule_attr, flags);
}
#endif

#ifndef landlock_restrict_self
static inline int landlock_restrict_self(int ruleset_fd, uint32_t flags) {
    return (int)syscall(__NR_landlock_restrict_self, ruleset_fd, flags);
}
#endif

/* The new mount API by number, as libc headers lag; new system calls share
 * one number on every architecture. */
#ifndef SYS_open_tree
#define SYS_open_tree 428
#endif
#ifndef SYS_move_mount
#define SYS_move_mount 429
#endif
#ifndef SYS_mount_setattr
#define SYS_mount_setattr 442
#endif
#define OPEN_TREE_CLONE_ 1
#define MOVE_MOUNT_F_EMPTY_PATH_ 0x4
#define MOVE_MOUNT_T_EMPTY_PATH_ 0x40
#define MOUNT_ATTR_RDONLY_ 0x1

/* setxattrat(2), Linux 6.13: the same number on every architecture. */
#ifndef __NR_setxattrat
#define __NR_setxattrat 463
#endif

/* memfd_create(2): the memfd can never be made executable. */
#define MFD_NOEXEC_SEAL_ 0x0008U
#define AT_RECURSIVE_ 0x8000

struct mount_attr_v0 {
    uint64_t attr_set, attr_clr, propagation, userns_fd;
};

/* System calls the seccomp filters name that older headers do not number
 * (one number on every architecture, as above). */
#ifndef __NR_io_uring_setup
#define __NR_io_uring_setup 425
#endif
#ifndef __NR_fchmodat2
#define __NR_fchmodat2 452
#endif
#ifndef __NR_openat2
#define __NR_openat2 437
#endif

/* The socket filter's architecture: the one this shim is built for. A syscall
 * made under any other (i386's int 0x80 on x86_64, where socketcall() reaches
 * every socket call behind one number; arm32 on aarch64) kills the process.
 * x32 is x86_64 with 32-bit pointers and its own syscall numbers, so an x32
 * build of this shim counts as another architecture. Elsewhere the shim
 * refuses to run: it could not hold the terminal either. */
#if defined(__x86_64__) && !defined(__ILP32__)
#define FILTER_ARCH AUDIT_ARCH_X86_64
#ifndef __X32_SYSCALL_BIT
#define __X32_SYSCALL_BIT 0x40000000
#endif
#elif defined(__aarch64__) && !defined(__ILP32__)
#define FILTER_ARCH AUDIT_ARCH_AARCH64
#endif

#endif
