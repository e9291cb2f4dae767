/* The host program bench drives, bench-embedded --serve: started, asked to
 * run a command over its socket, and ended with its last words. Apart from
 * bench.c: one protocol in one place. */
#include <errno.h>
#include <signal.h>
#include <spawn.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench.h"
#include "process.h"
#include "served.h"
#include "util.h"

/* ---- A host program bench drives: bench-embedded --serve. ---- */

/* A line from the socket FD into OUT, without its newline; false at its end.
 * Byte by byte: a few bytes a run, and the host times its runs itself. */
static bool read_line(int fd, char *out, size_t size) {
    size_t n = 0;
    for (;;) {
        char c;
        ssize_t got = recv(fd, &c, 1, 0);
        if (got < 0 && errno == EINTR) continue;
        if (got <= 0 || c == '\n') {
            out[n] = '\0';
            return got > 0;
        }
        if (n + 1 < size) out[n++] = c;
    }
}

/* ROW failed with what its host said ("error WHY"), or with the end of it. */
static void served_fail(struct row *row, const char *line) {
    row->state = ROW_FAILED;
    if (strncmp(line, "error ", 6) == 0)
        snprintf(row->note, sizeof row->note, "%.250s", line + 6);
    else
        snprintf(row->note, sizeof row->note, "bench-embedded ended (\"%.200s\")", line);
}

/* The host started in ROW's directory and environment, its stderr to
 * ERR_FD, and its "ready" line read: false with ROW failed otherwise. */
bool served_start(struct row *row, int err_fd) {
    struct served *h = row->served;
    int sv[2];
    char line[1200];
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0) {
        row_fail(row, -1, "");
        return false;
    }
    posix_spawn_file_actions_t fa;
    int rc = posix_spawn_file_actions_init(&fa);
    if (!rc) rc = posix_spawn_file_actions_adddup2(&fa, devnull, STDIN_FILENO);
    if (!rc) rc = posix_spawn_file_actions_adddup2(&fa, devnull, STDOUT_FILENO);
    if (!rc) rc = posix_spawn_file_actions_adddup2(&fa, err_fd, STDERR_FILENO);
    if (!rc) rc = posix_spawn_file_actions_adddup2(&fa, sv[1], 3);
    if (!rc) rc = posix_spawn_file_actions_addchdir_np(&fa, row->cwd);
    if (!rc) rc = posix_spawn(&h->pid, row->argv[0], &fa, NULL, row->argv, row->env);
    posix_spawn_file_actions_destroy(&fa);
    close(sv[1]);
    h->fd = sv[0];
    if (rc) {
        h->pid = 0;
        errno = rc;
        row_fail(row, -1, "");
        return false;
    }
    if (!read_line(h->fd, line, sizeof line) ||
        sscanf(line, "ready %lf %lf %lf", &h->open_ms, &h->select_ms, &h->validate_ms) != 3) {
        served_fail(row, line);
        return false;
    }
    return true;
}

/* One run through the host: 0 with its time in *MS, or -1 with ROW failed. */
int served_run(struct row *row, double *ms) {
    struct served *h = row->served;
    char line[1200] = "";
    if (send(h->fd, "run\n", 4, MSG_NOSIGNAL) != 4 || !read_line(h->fd, line, sizeof line) ||
        sscanf(line, "ok %lf", ms) != 1) {
        served_fail(row, line);
        return -1;
    }
    return 0;
}

/* The host told its runs are over, its last line read (what lcsb_prepare
 * costs per call, lcsb_script_after_run once), and reaped. */
void served_end(struct row *row) {
    struct served *h = row->served;
    if (!h || h->fd < 0) return;
    char line[1200] = "";
    /* A host whose row failed has nothing more to say. */
    if (row->state == ROW_FAILED && h->pid > 0) kill(h->pid, SIGTERM);
    shutdown(h->fd, SHUT_WR);
    if (row->state == ROW_OK) {
        if (read_line(h->fd, line, sizeof line) &&
            sscanf(line, "done %lf %lf", &h->prepare_us, &h->after_run_ms) == 2)
            h->done = true;
        else
            served_fail(row, line);
    }
    close(h->fd);
    h->fd = -1;
    while (h->pid > 0 && waitpid(h->pid, NULL, 0) < 0 && errno == EINTR) {
    }
    h->pid = 0;
}
