/* The host program bench drives, bench-embedded --serve (served.c). */
#ifndef LCSB_BENCH_SERVED_H
#define LCSB_BENCH_SERVED_H

#include <stdbool.h>

#include "bench.h"

/* The host started in ROW's directory and environment, its stderr to
 * ERR_FD, and its "ready" line read: false with ROW failed otherwise. */
bool served_start(struct row *row, int err_fd);
/* One run through the host: 0 with its time in *MS, or -1 with ROW failed. */
int served_run(struct row *row, double *ms);
/* The host told its runs are over, its last line read, and reaped. */
void served_end(struct row *row);

#endif
