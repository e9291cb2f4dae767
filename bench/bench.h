/* What bench.c and report.c share: the configuration, the rows and what
 * measuring gave, which bench.c fills in and report.c prints as a table and
 * writes as JSON. Nothing here runs anything. */
#ifndef LCSB_BENCH_H
#define LCSB_BENCH_H

#include <stdbool.h>
#include <stddef.h>

#define COMMAND "/bin/true"
#define MAIN_RULES 30   /* the shim row's policy size */
#define MICRO_RULES 100 /* the policy the micro-benchmarks build and wrap */
#define MICRO_BATCHES 5

struct config {
    bool quick;
    int iterations;         /* timed rounds over the main rows */
    int warmup;             /* untimed rounds before them */
    int scaling_iterations; /* timed rounds over the scaling rows */
    long micro_calls;       /* calls per micro-benchmark */
    int rss_runs;           /* untimed runs per row for peak RSS */
    const long *scaling;
    size_t scaling_n;
    const char *json_path;
};

enum row_state { ROW_OK, ROW_SKIPPED, ROW_FAILED };

/* One way of running the command, and what measuring it gave. */
struct row {
    const char *name; /* the JSON name */
    char label[32];   /* the table's */
    char **argv;      /* owned; NULL when the row cannot run here */
    const char *cwd;  /* NULL: the harness's own */
    char **env;       /* NULL: the harness's own; not owned */
    long rules;       /* path rules in its policy (scaling rows) */
    bool required;    /* failing to run fails the benchmark */
    enum row_state state;
    char note[256];
    double *ms; /* wall time of each timed run */
    size_t runs;
    long peak_rss_kib;
    double median, min, max;
};

/* The main rows, in the order of the table and the JSON, bare first. firejail
 * and podman stay last, from ROW_FIREJAIL on: run_all gives them their turns
 * after the others. */
enum {
    ROW_BARE,
    ROW_SHIM,
    ROW_LCSB,
    ROW_LCSB_TMPFS,
    ROW_START,
    ROW_BWRAP,
    ROW_FIREJAIL,
    ROW_PODMAN,
    MAIN_ROWS
};

/* NAN when not measured. */
struct micro {
    double median_us, min_us;
};

/* What one run of the benchmark measured: bench.c fills it in, report()
 * prints it. */
struct results {
    const struct config *cfg;
    struct row *main, *scaling;
    struct micro wrap, build;
    double fit_us;
    int abi;
};

/* Prints the results as a table on stdout and, with --json FILE, writes them
 * to FILE as well; says on stderr when it cannot. */
void report(const struct results *r);

#endif
