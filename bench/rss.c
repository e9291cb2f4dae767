/*
 * bench-rss: run ARGV, print its peak RSS in KiB as wait4 reports it (the
 * largest of the command and the descendants it reaped), exit 0 if it did.
 *
 * Why a separate program, linked statically: on exec, Linux folds the peak
 * RSS of the address space being left into the new program's, and a
 * posix_spawn child leaves its parent's. Spawned from the harness, every row
 * would weigh at least the harness, whose heap holds 20,000-rule argvs; from
 * this launcher, at least its own ~0.7 MiB, below what /bin/true takes alone.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <sys/resource.h>
#include <sys/wait.h>

extern char **environ;

int main(int argc, char **argv) {
    if (argc < 2) {
        fputs("usage: bench-rss COMMAND [ARG...]\n", stderr);
        return 2;
    }
    /* Our stdout carries the number and nothing the command says. */
    posix_spawn_file_actions_t fa;
    pid_t pid;
    int status = -1;
    struct rusage ru;
    if (posix_spawn_file_actions_init(&fa) ||
        posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0) ||
        posix_spawn(&pid, argv[1], &fa, NULL, argv + 1, environ) ||
        wait4(pid, &status, 0, &ru) != pid || status != 0)
        return 1;
    printf("%ld\n", ru.ru_maxrss);
    return 0;
}
