/* Nothing the command starts outlives it. lcsb becomes a child subreaper, so
 * whatever the command leaves running in the background (a `daemon &`, a
 * double fork, a setsid) is re-parented to lcsb rather than to init; once the
 * command has exited, lcsb kills and reaps all of it before it removes the
 * private HOME those processes might still be using. This is the CLI's
 * choice: a library must not make its host a subreaper. */
#include "cli.h"

#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#ifdef __linux__
#include <sys/prctl.h>

int cli_adopt_leftovers(void) { return prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); }

/* Kill every child lcsb has now, as the kernel lists them; how many. */
static int kill_children(void) {
    char path[64];
    snprintf(path, sizeof path, "/proc/self/task/%d/children", (int)getpid());
    FILE *f = fopen(path, "re");
    if (!f) return -1;
    int pid, killed = 0;
    while (fscanf(f, "%d", &pid) == 1)
        if (kill(pid, SIGKILL) == 0) killed++;
    fclose(f);
    return killed;
}

int cli_end_leftovers(void) {
    int ended = 0;
    /* A killed process's own children come to lcsb in turn: repeat until the
     * kernel lists none. */
    for (;;) {
        int killed = kill_children();
        if (killed <= 0) return killed < 0 ? -1 : ended;
        /* Wait for as many as were killed, then collect whatever else is dead. */
        for (int waiting = killed;;) {
            pid_t pid = waitpid(-1, NULL, waiting > 0 ? 0 : WNOHANG);
            if (pid > 0) {
                ended++;
                waiting--;
            } else if (!(pid < 0 && errno == EINTR)) {
                break;
            }
        }
    }
}
#else
int cli_adopt_leftovers(void) { return 0; }
int cli_end_leftovers(void) { return 0; }
#endif
