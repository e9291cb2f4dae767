/* Nothing the command starts outlives it. lcsb becomes a child subreaper, so
 * whatever the command leaves running in the background (a `daemon &`, a
 * double fork, a setsid) is re-parented to lcsb rather than to init; once the
 * command has exited, lcsb kills and reaps all of it before it removes the
 * private HOME those processes might still be using. Children lcsb already
 * had when it started (its caller may have exec'd it with jobs running) are
 * not the command's and are left alone. This is the CLI's choice: a library
 * must not make its host a subreaper. */
#include "cli.h"

#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#ifdef __linux__
#include <poll.h>
#include <sys/prctl.h>
#include <sys/syscall.h>

#define SPARED_MAX 256
static pid_t spared[SPARED_MAX]; /* lcsb's children before the command */
static size_t spared_n;

/* Call F on each child the kernel lists for lcsb now; how many, or -1. */
static int each_child(void (*f)(pid_t pid, void *arg), void *arg) {
    char path[64];
    snprintf(path, sizeof path, "/proc/self/task/%d/children", (int)getpid());
    FILE *list = fopen(path, "re");
    if (!list) return -1;
    int pid, n = 0;
    while (fscanf(list, "%d", &pid) == 1) {
        f((pid_t)pid, arg);
        n++;
    }
    fclose(list);
    return n;
}

static void spare(pid_t pid, void *arg) {
    (void)arg;
    if (spared_n < SPARED_MAX) spared[spared_n++] = pid;
}

static bool is_spared(pid_t pid) {
    for (size_t i = 0; i < spared_n; i++)
        if (spared[i] == pid) return true;
    return false;
}

/* The children killed in one round, the first KILLED_MAX of them by pid. */
#define KILLED_MAX 64
struct killed {
    int n;
    pid_t pids[KILLED_MAX];
};

static void kill_unspared(pid_t pid, void *arg) {
    struct killed *k = arg;
    if (is_spared(pid) || kill(pid, SIGKILL) != 0) return;
    if (k->n < KILLED_MAX) k->pids[k->n] = pid;
    k->n++;
}

int cli_adopt_leftovers(void) {
    if (each_child(spare, NULL) < 0) return -1;
    if (spared_n == SPARED_MAX) {
        errno = E2BIG;
        return -1;
    }
    return prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
}

static double seconds(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Until every child in K has exited, or DEADLINE: a descriptor for each
 * (pidfd_open), polled, so that lcsb goes on the moment they are gone (the
 * shim's init may still be tearing its mount namespace down when the shim
 * has exited: lcsb is its subreaper). Where the kernel gives none, or K
 * holds more than it lists, a millisecond's sleep, and the caller looks
 * again. */
static void await_killed(const struct killed *k, double deadline) {
    struct pollfd fds[KILLED_MAX];
    int n = 0;
    for (int i = 0; i < k->n && i < KILLED_MAX; i++) {
        int fd = (int)syscall(SYS_pidfd_open, k->pids[i], 0);
        if (fd >= 0) fds[n++] = (struct pollfd){.fd = fd, .events = POLLIN};
    }
    if (n < k->n) usleep(1000);
    for (int done = 0; done < n;) {
        int ms = (int)((deadline - seconds()) * 1000);
        int ready = ms > 0 ? poll(fds, (nfds_t)n, ms) : 0;
        if (ready < 0 && errno == EINTR) continue;
        if (ready <= 0) break;
        for (int i = 0; i < n; i++)
            if (fds[i].fd >= 0 && fds[i].revents) {
                close(fds[i].fd);
                fds[i].fd = -1; /* poll passes over it from now on */
                done++;
            }
    }
    for (int i = 0; i < n; i++)
        if (fds[i].fd >= 0) close(fds[i].fd);
}

int cli_end_leftovers(void) {
    /* A killed process's own children come to lcsb in turn: repeat until none
     * is left, but give up rather than hang on one stuck in the kernel. */
    double deadline = seconds() + 5;
    for (;;) {
        struct killed killed = {0};
        if (each_child(kill_unspared, &killed) < 0) return -1;
        if (killed.n > 0) await_killed(&killed, deadline);
        pid_t pid;
        while ((pid = waitpid(-1, NULL, WNOHANG)) > 0 || (pid < 0 && errno == EINTR)) {
        }
        if (killed.n == 0) return 0;
        if (seconds() > deadline) {
            errno = ETIMEDOUT;
            return -1;
        }
    }
}
#else
int cli_adopt_leftovers(void) { return 0; }
int cli_end_leftovers(void) { return 0; }
#endif
