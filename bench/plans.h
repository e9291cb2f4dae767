/* The plan cache (issue 28) a row keeps, $XDG_STATE_HOME/lcsb/plans in a
 * state directory of its own (plans.c). */
#ifndef LCSB_BENCH_PLANS_H
#define LCSB_BENCH_PLANS_H

#include <stddef.h>

#include "bench.h"

/* Before each run of ROW: a cold row's plan cache emptied. */
void before_run(struct row *row);
/* What the plan caches of ROWS hold, after their timed rounds. */
void plans_look(struct row *rows, size_t n);

#endif
