/* The C project bench-project builds, generated (generated.c). */
#ifndef LCSB_BENCH_GENERATED_H
#define LCSB_BENCH_GENERATED_H

#include <stdbool.h>

/* UNITS C files and main.c, project.h, the Makefile and the policy, in DIR. */
bool write_project(const char *dir, int units);

#endif
