/* Running a program as every row does (process.c): the run's environment and
 * /dev/null, spawned and reaped, and what a run that failed said. */
#ifndef LCSB_BENCH_PROCESS_H
#define LCSB_BENCH_PROCESS_H

#include <stddef.h>

#include "bench.h"

/* What every run shares: one environment and one /dev/null. tmpfs_env is
 * the same with TMPDIR on a tmpfs, where lcsb makes the private HOME and
 * TMPDIR: on some disks a mkdir alone costs a millisecond. */
extern char **run_env, **tmpfs_env;
extern int devnull;

/* The environment of every run: ours with PATH=/usr/bin:/bin. */
char **make_env(void);
/* ENV (run_env) with TMPDIR=/dev/shm in place of any TMPDIR. */
char **with_tmpfs_tmpdir(char **env);
/* ENV with VAR ("NAME=VALUE", not copied) in place of any NAME=. */
char **with_var(char **env, const char *var);
/* Spawns ARGV in CWD (NULL: ours) with stdout to OUT_FD and stderr to ERR_FD
 * and reaps it: its wait status, or -1 with errno when it could not start. */
int spawn_wait(char *const argv[], const char *cwd, char **env, int out_fd, int err_fd);
/* What went wrong with a run of ARGV0, from spawn_wait's STATUS, into NOTE. */
void status_note(char *note, size_t size, const char *argv0, int status, const char *detail);
void row_fail(struct row *row, int status, const char *detail);
/* The first line FD holds, and FD emptied for the next run. */
void take_first_line(int fd, char *out, size_t size);

#endif
