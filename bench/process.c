/* Running a program as every row does: the run's environment and /dev/null,
 * spawned and reaped, and what a run that failed said. Apart from bench.c so
 * that the parts that run things (the rows, the system calls, the downloads)
 * share one way to run them. */
#include <errno.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench.h"
#include "process.h"
#include "util.h"

extern char **environ;

/* What every run shares: one environment and one /dev/null. tmpfs_env is
 * the same with TMPDIR on a tmpfs, where lcsb makes the private HOME and
 * TMPDIR: on some disks a mkdir alone costs a millisecond. */
char **run_env, **tmpfs_env;
int devnull = -1;

/* ---- Small helpers. ---- */

/* The environment of every run: ours with PATH=/usr/bin:/bin, so that lcsb
 * resolves the same programs whoever runs the benchmark. */
char **make_env(void) {
    size_t n = 0;
    while (environ[n]) n++;
    char **env = calloc(n + 2, sizeof *env);
    size_t k = 0;
    for (size_t i = 0; env && i < n; i++) {
        if (strncmp(environ[i], "PATH=", 5) != 0) env[k++] = environ[i];
    }
    if (env) env[k] = "PATH=/usr/bin:/bin";
    return env;
}

/* ENV (run_env) with TMPDIR=/dev/shm in place of any TMPDIR. */
char **with_tmpfs_tmpdir(char **env) {
    size_t n = 0;
    while (env && env[n]) n++;
    char **out = env ? calloc(n + 2, sizeof *out) : NULL;
    size_t k = 0;
    for (size_t i = 0; out && i < n; i++)
        if (strncmp(env[i], "TMPDIR=", 7) != 0) out[k++] = env[i];
    if (out) out[k] = "TMPDIR=/dev/shm";
    return out;
}

/* ENV with VAR ("NAME=VALUE", not copied) in place of any NAME=. */
char **with_var(char **env, const char *var) {
    size_t n = 0, name = strcspn(var, "=") + 1;
    while (env && env[n]) n++;
    char **out = env ? calloc(n + 2, sizeof *out) : NULL;
    size_t k = 0;
    for (size_t i = 0; out && i < n; i++)
        if (strncmp(env[i], var, name) != 0) out[k++] = env[i];
    if (out) out[k] = (char *)var;
    return out;
}

/* ---- Running and timing. ---- */

/* Spawns ARGV in CWD (NULL: ours) with stdout to OUT_FD and stderr to ERR_FD
 * and reaps it: its wait status, or -1 with errno when it could not start. */
int spawn_wait(char *const argv[], const char *cwd, char **env, int out_fd, int err_fd) {
    posix_spawn_file_actions_t fa;
    if (posix_spawn_file_actions_init(&fa)) return -1;
    int rc = posix_spawn_file_actions_adddup2(&fa, out_fd, STDOUT_FILENO);
    if (!rc) rc = posix_spawn_file_actions_adddup2(&fa, err_fd, STDERR_FILENO);
    if (!rc && cwd) rc = posix_spawn_file_actions_addchdir_np(&fa, cwd);
    pid_t pid;
    int status = -1;
    if (!rc) rc = posix_spawn(&pid, argv[0], &fa, NULL, argv, env ? env : run_env);
    if (!rc) {
        while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
        }
    }
    posix_spawn_file_actions_destroy(&fa);
    if (rc) errno = rc;
    return rc ? -1 : status;
}

/* What went wrong with a run of ARGV0, from spawn_wait's STATUS, into NOTE. */
void status_note(char *note, size_t size, const char *argv0, int status, const char *detail) {
    if (status == -1)
        snprintf(note, size, "cannot run %s: %s", argv0, strerror(errno));
    else if (WIFEXITED(status))
        snprintf(note, size, "exit status %d%s%s", WEXITSTATUS(status), *detail ? ": " : "",
                 detail);
    else
        snprintf(note, size, "killed by signal %d", WTERMSIG(status));
}

void row_fail(struct row *row, int status, const char *detail) {
    row->state = ROW_FAILED;
    status_note(row->note, sizeof row->note, row->argv[0], status, detail);
}

/* The first line FD holds, and FD emptied for the next run. */
void take_first_line(int fd, char *out, size_t size) {
    ssize_t n = pread(fd, out, size - 1, 0);
    out[n > 0 ? n : 0] = '\0';
    out[strcspn(out, "\n")] = '\0';
    if (ftruncate(fd, 0) != 0 || lseek(fd, 0, SEEK_SET) != 0) out[0] = '\0';
}
