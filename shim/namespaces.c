/* The command's namespaces (namespaces.h): user, pid and IPC namespaces of
 * its own, their limits written from outside before the command can touch
 * them, a keyring of its own, and with "proxy" a network of its own:
 * loopback only, where the shim listens for lcsb's proxy and hands lcsb the
 * socket, so that the names the policy lists are the only way out. Apart
 * from world.c, which builds the root inside them: entering namespaces and
 * building a root are each read in one sitting.
 *
 * libc and kernel headers only, like the rest of the shim. */
#define _GNU_SOURCE
#include "namespaces.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <arpa/inet.h>
#include <net/if.h>
#include <netinet/in.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "say.h"

static int write_file(const char *file, const char *text) {
    int fd = open(file, O_WRONLY | O_CLOEXEC);
    ssize_t n = fd < 0 ? -1 : write(fd, text, strlen(text));
    int err = errno;

    if (fd >= 0)
        close(fd);
    if (n != (ssize_t)strlen(text))
        return fail("write %s: %s", file, strerror(err));
    return 0;
}

/* INSIDE's uid and gid map to OUTSIDE's in the user namespace just entered:
 * one of each, all an unprivileged process may map. */
static int map_ids(uid_t uid_inside, uid_t uid_outside, gid_t gid_inside, gid_t gid_outside) {
    char map[64];

    snprintf(map, sizeof map, "%u %u 1\n", (unsigned)uid_inside, (unsigned)uid_outside);
    if (write_file("/proc/self/uid_map", map) != 0 ||
        write_file("/proc/self/setgroups", "deny") != 0)
        return -1;
    snprintf(map, sizeof map, "%u %u 1\n", (unsigned)gid_inside, (unsigned)gid_outside);
    return write_file("/proc/self/gid_map", map);
}

static int enter(int flags, const char *what) {
    if (unshare(flags) == 0)
        return 0;
    int err = errno;
    fail("enter namespaces of its own (%s): %s", what, strerror(err));
    if (err == EPERM || err == EACCES || err == ENOSPC)
        hint("this host refuses user namespaces (an AppArmor or seccomp restriction, or "
             "user.max_user_namespaces); run lcsb rather than the wrapped argv, to be told "
             "which degrade words allow running without them");
    return -1;
}

/* A number or a row of them from a sysctl of the namespace just entered. */
static int read_numbers(const char *file, unsigned long long *v, size_t n) {
    FILE *f = fopen(file, "re");
    size_t got = 0;

    if (f == NULL)
        return fail("read %s: %s", file, strerror(errno));
    while (got < n && fscanf(f, "%llu", &v[got]) == 1)
        got++;
    fclose(f);
    return got == n ? 0 : fail("read %s: expected %zu numbers", file, n);
}

static int write_number(const char *file, unsigned long long v) {
    char text[32];

    snprintf(text, sizeof text, "%llu\n", v);
    return write_file(file, text);
}

static unsigned long long least(unsigned long long a, unsigned long long b) {
    return a < b ? a : b;
}

/* What the IPC namespace holds counts against no process: a segment
 * attached, filled and detached stays. So its own limits hold SysV IPC to
 * MEMORY bytes however many processes share it: shared memory exactly
 * (shmall in pages, shmmax per segment, one page at least per segment);
 * message queues by their text and a header of about 64 bytes per message,
 * a queue holding at most msgmnb bytes in at most msgmnb messages;
 * semaphores by about 64 bytes each (half the memory) and under 1 KiB per
 * array (the other half). The new namespace starts from the kernel's
 * defaults; none of them is raised. */
static int limit_ipc(uint64_t memory) {
    unsigned long long page = (unsigned long long)sysconf(_SC_PAGESIZE);
    unsigned long long shmmni, msgmnb, msgmni, sem[4]; /* semmsl semmns semopm semmni */
    unsigned long long pages = memory / page;
    char text[96];

    if (read_numbers("/proc/sys/kernel/shmmni", &shmmni, 1) != 0 ||
        read_numbers("/proc/sys/kernel/msgmnb", &msgmnb, 1) != 0 ||
        read_numbers("/proc/sys/kernel/msgmni", &msgmni, 1) != 0 ||
        read_numbers("/proc/sys/kernel/sem", sem, 4) != 0)
        return -1;
    sem[1] = least(sem[1], memory / 128);
    sem[3] = least(sem[3], memory / 2048);
    snprintf(text, sizeof text, "%llu %llu %llu %llu\n", sem[0], sem[1], sem[2], sem[3]);
    return write_number("/proc/sys/kernel/shmmax", memory) != 0 ||
                   write_number("/proc/sys/kernel/shmall", pages) != 0 ||
                   write_number("/proc/sys/kernel/shmmni", least(shmmni, pages)) != 0 ||
                   write_number("/proc/sys/kernel/msgmni",
                                least(msgmni, memory / (65 * (msgmnb ? msgmnb : 1)))) != 0 ||
                   write_file("/proc/sys/kernel/sem", text) != 0
               ? -1
               : 0;
}

/* The caller's uid and gid are the only ones mapped, root's too: from inside
 * the new namespace no more may be written, and the command, which keeps no
 * capability (lcsb-exec.c), has no use for others' ids anyway. Files of other
 * owners show as nobody's. Root gets a user namespace too, so that the user
 * keyrings are the namespace's, and gone with it. The mount namespace is
 * the init's alone (enter_scaffold, world.c): the shim outside stays out of it, so
 * that it need not wait for it to be torn down (init.c).
 *
 * The kernel lets only the uid its owning user namespace maps to 0 write an
 * IPC namespace's limits, and the command's namespace maps the caller's uid
 * to itself. So with MEMORY the IPC namespace comes first, in a user
 * namespace that maps the caller to 0, where its limits are written; the
 * command's namespace, nested in that one, maps the caller's uid back to
 * itself; and in it no IPC namespace may be made any more, which would
 * start again from the kernel's defaults. (The command could write the
 * limits too, as their owner's uid, but Landlock grants no write in /proc.) */
int enter_namespaces(bool network, uint64_t memory) {
    uid_t uid = geteuid();
    gid_t gid = getegid();
    int flags = CLONE_NEWUSER | CLONE_NEWPID | (network ? CLONE_NEWNET : 0);
    const char *what = network ? "user, pid, IPC, network" : "user, pid, IPC";

    if (memory == 0)
        return enter(flags | CLONE_NEWIPC, what) != 0 || map_ids(uid, uid, gid, gid) != 0 ? -1 : 0;
    if (enter(CLONE_NEWUSER, what) != 0 || map_ids(0, uid, 0, gid) != 0 ||
        enter(CLONE_NEWIPC, what) != 0 || limit_ipc(memory) != 0 || enter(flags, what) != 0 ||
        map_ids(uid, 0, gid, 0) != 0)
        return -1;
    return write_file("/proc/sys/user/max_ipc_namespaces", "0\n");
}

/* A new network namespace has a loopback device, down. */
static int bring_up_loopback(void) {
    struct ifreq ifr = {0};
    int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    int ret = -1;

    snprintf(ifr.ifr_name, sizeof ifr.ifr_name, "lo");
    if (fd < 0 || ioctl(fd, SIOCGIFFLAGS, &ifr) != 0)
        fail("read the flags of the loopback device: %s", strerror(errno));
    else if (ifr.ifr_flags |= IFF_UP, ioctl(fd, SIOCSIFFLAGS, &ifr) != 0)
        fail("bring up the loopback device: %s", strerror(errno));
    else
        ret = 0;
    if (fd >= 0)
        close(fd);
    return ret;
}

/* The network of the command's own has loopback only; lcsb's proxy, in the
 * host's network, is the way out. The shim listens on 127.0.0.1:PORT in
 * here and hands the listening socket to lcsb over CHANNEL (SCM_RIGHTS),
 * keeping no copy: only lcsb accepts on it, and no process in here needs
 * a right to reach outside. */
int hand_over_listener(uint16_t port, int channel) {
    struct sockaddr_in addr = {.sin_family = AF_INET, .sin_port = htons(port),
                               .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    char byte = 'L';
    struct iovec iov = {.iov_base = &byte, .iov_len = 1};
    union {
        char buf[CMSG_SPACE(sizeof(int))];
        struct cmsghdr align;
    } control;
    struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = control.buf,
                         .msg_controllen = sizeof control.buf};
    struct cmsghdr *cmsg = CMSG_FIRSTHDR(&msg);
    int fd, ret = -1;

    if (bring_up_loopback() != 0)
        return -1;
    fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0 || bind(fd, (struct sockaddr *)&addr, sizeof addr) != 0 || listen(fd, 512) != 0) {
        fail("listen on 127.0.0.1:%u for lcsb's proxy: %s", port, strerror(errno));
        goto out;
    }
    cmsg->cmsg_level = SOL_SOCKET;
    cmsg->cmsg_type = SCM_RIGHTS;
    cmsg->cmsg_len = CMSG_LEN(sizeof(int));
    memcpy(CMSG_DATA(cmsg), &fd, sizeof fd);
    if (sendmsg(channel, &msg, MSG_NOSIGNAL) != 1)
        fail("hand the proxy's listening socket to lcsb: %s", strerror(errno));
    else
        ret = 0;
out:
    if (fd >= 0)
        close(fd);
    return ret;
}

int join_new_keyring(void) {
    /* KEYCTL_JOIN_SESSION_KEYRING with no name: a new anonymous one. */
    if (syscall(SYS_keyctl, 1, NULL) < 0)
        return fail("join a session keyring of its own: %s", strerror(errno));
    return 0;
}

int limit_pids(uint64_t pids) {
    char text[32];
    /* pid 1 is the init; pid_max is one past the highest pid. The kernel
     * takes nothing below 301. */
    uint64_t max = pids + 2 < 301 ? 301 : pids + 2;

    snprintf(text, sizeof text, "%llu\n", (unsigned long long)max);
    return write_file("/proc/sys/kernel/pid_max", text);
}
