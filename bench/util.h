/* What the two benchmarks (bench.c, project.c) share: the clock, argv
 * copies, medians, programs found on PATH, trees removed. */
#ifndef LCSB_BENCH_UTIL_H
#define LCSB_BENCH_UTIL_H

#include <stdbool.h>
#include <stddef.h>

/* CLOCK_MONOTONIC in milliseconds. */
double now_ms(void);

void strv_free(char **v);
/* A copy of the NULL-terminated SRC, so that every row's argv is freed alike. */
char **strv_copy(const char *const *src);

/* Median of N values (NAN for none); sorts them, so v[0] and v[n-1] are the
 * min and max after. */
double median_of(double *v, size_t n);

/* NAME's full path on PATH (else /usr/bin:/bin) into OUT, or false. */
bool find_program(const char *name, char *out, size_t size);

/* DIR and everything in it removed, links not followed. */
void remove_tree(const char *dir);

#endif
