/* A network namespace for a container to join under net.domains (netns.h).
 * A forked child makes it, brings its loopback up, listens on
 * 127.0.0.1:PORT there and sends lcsb the socket (SCM_RIGHTS); then it
 * waits, holding the namespace, until lcsb closes the release pipe or dies.
 * Between fork and _exit the child makes system calls only: the host may
 * have threads. The shim does the same for the command's own network
 * (shim/namespaces.c); it shares no code with the library (rule 2), so the few
 * lines that bring loopback up and send a descriptor stand in both. */
#include "netns.h"
#include "sys.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <netinet/in.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

/* A new network namespace has a loopback device, down. */
static int loopback_up(void) {
    struct ifreq ifr = {0};
    int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    memcpy(ifr.ifr_name, "lo", 3);
    if (fd < 0 || ioctl(fd, SIOCGIFFLAGS, &ifr) != 0) return -1;
    ifr.ifr_flags |= IFF_UP;
    return ioctl(fd, SIOCSIFFLAGS, &ifr);
}

/* In the child: the namespace, its loopback, the listening socket sent on
 * CHANNEL; a failure is said by an errno byte alone. */
static void make_and_hold(uint16_t port, int channel, int release) {
    struct sockaddr_in addr = {
        .sin_family = AF_INET, .sin_port = htons(port), .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    int fd = -1;
    unsigned char failed;
    if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || unshare(CLONE_NEWNET) != 0 || loopback_up() != 0 ||
        (fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0)) < 0 ||
        bind(fd, (struct sockaddr *)&addr, sizeof addr) != 0 || listen(fd, 512) != 0)
        goto failed;
    char byte;
    if (lcsb__send_fds(channel, 'L', &fd, 1) != 0) goto failed;
    close(fd);
    close(channel);
    /* Until lcsb closes its end, or dies and takes this process with it. */
    while (read(release, &byte, 1) < 0 && errno == EINTR) {
    }
    _exit(0);
failed:
    failed = (unsigned char)errno;
    (void)!write(channel, &failed, 1);
    _exit(1);
}

int lcsb__netns_hold(uint16_t port, lcsb__netns *ns, int *listener, lcsb_error *err) {
    int channel[2], gate[2];
    *ns = (lcsb__netns){.release = -1};
    *listener = -1;
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, channel) != 0)
        return lcsb__fail(err, LCSB_ESYS, "cannot make the proxy's channel: %s", strerror(errno));
    if (pipe2(gate, O_CLOEXEC) != 0) {
        int e = errno;
        close(channel[0]);
        close(channel[1]);
        return lcsb__fail(err, LCSB_ESYS, "cannot make a pipe: %s", strerror(e));
    }
    lcsb__children_hold();
    pid_t pid = fork();
    if (pid == 0) {
        close(channel[0]);
        close(gate[1]);
        make_and_hold(port, channel[1], gate[0]);
    }
    int e = errno;
    close(channel[1]);
    close(gate[0]);
    ns->release = gate[1];
    if (pid < 0) {
        lcsb__children_release();
        close(channel[0]);
        lcsb__netns_release(ns);
        return lcsb__fail(err, LCSB_ESYS, "cannot fork: %s", strerror(e));
    }
    ns->holder = pid;
    snprintf(ns->path, sizeof ns->path, "/proc/%d/ns/net", (int)pid);

    unsigned char byte;
    *listener = lcsb__recv_fd(channel[0], &byte);
    close(channel[0]);
    if (*listener < 0) {
        lcsb__netns_release(ns);
        return lcsb__fail(err, LCSB_EUNAVAIL,
                          "cannot make a network namespace for the container: %s",
                          byte ? strerror(byte) : "its holder ended");
    }
    return 0;
}

void lcsb__netns_release(lcsb__netns *ns) {
    if (!ns) return;
    if (ns->release >= 0) close(ns->release);
    ns->release = -1;
    if (ns->holder > 0) lcsb__children_reap(ns->holder, NULL);
    ns->holder = 0;
}
