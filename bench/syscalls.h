/* The system calls of lcsb's own process, strace -c without -f (syscalls.c). */
#ifndef LCSB_BENCH_SYSCALLS_H
#define LCSB_BENCH_SYSCALLS_H

#include <stddef.h>

#include "bench.h"
#include "fixture.h"

/* The rows that count their system calls, after their timed rounds. With no
 * strace here, each says so: a count not taken is never a zero. */
void count_syscalls(struct row *rows, size_t n, const struct fixture *fx, int runs, char *version,
                    size_t size, int scratch_fd);

#endif
