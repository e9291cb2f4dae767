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
#include <sys/prctl.h>

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

static void kill_unspared(pid_t pid, void *killed) {
    if (!is_spared(pid) && kill(pid, SIGKILL) == 0) ++*(int *)killed;
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

int cli_end_leftovers(void) {
    /* A killed process's own children come to lcsb in turn: repeat until none
     * is left, but give up rather than hang on one stuck in the kernel. */
    double deadline = seconds() + 5;
    for (;;) {
        int killed = 0;
        if (each_child(kill_unspared, &killed) < 0) return -1;
        pid_t pid;
        while ((pid = waitpid(-1, NULL, WNOHANG)) > 0 || (pid < 0 && errno == EINTR)) {
        }
        if (killed == 0) return 0;
        if (seconds() > deadline) {
            errno = ETIMEDOUT;
            return -1;
        }
        usleep(1000);
    }
}
#else
int cli_adopt_leftovers(void) { return 0; }
int cli_end_leftovers(void) { return 0; }
#endif
