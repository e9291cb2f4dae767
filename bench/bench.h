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
/* The download timed through lcsb's proxy and directly: 100 MiB, the issue's
 * "100 MB", big enough that a connection's set-up is lost in it. */
#define TRANSFER_BYTES (100LL << 20)

/* How the scaling policies' files lie, outside every tree those policies
 * read (/usr and /etc). */
enum layout {
    /* An install's: directories of TOOL_DIR files, every file named, as a
     * closure names a toolchain's bin and lib directories under HOME. */
    LAYOUT_TOOLS,
    /* Each file alone in a directory of its own: the most a path can cost,
     * a mount of its own. */
    LAYOUT_LONE,
    LAYOUTS
};
#define TOOL_DIR 50
#define TOOL_DIR_TEXT "50"

struct config {
    bool quick;
    int iterations;         /* timed rounds over the main rows */
    int warmup;             /* untimed rounds before them */
    int scaling_iterations; /* timed rounds over the scaling rows */
    long micro_calls;       /* calls per micro-benchmark */
    int rss_runs;           /* untimed runs per row for peak RSS */
    int transfer_runs;      /* timed downloads of each transfer */
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
    ROW_PREPARED,
    ROW_LCSB,
    ROW_LCSB_DOMAINS,
    ROW_LCSB_TMPFS,
    ROW_START,
    ROW_BWRAP,
    ROW_FIREJAIL,
    ROW_PODMAN,
    MAIN_ROWS
};

/* One way of downloading TRANSFER_BYTES from the bench's own HTTP server
 * with curl, and the rates it got: directly, or under lcsb through its
 * proxy. The rate is by curl's clock (%{time_total}, from its first connect
 * to the last byte), which is the proxy's throughput; the wall time from
 * spawn to exit adds lcsb's start and the network's set-up, which the
 * lcsb_domains row measures on their own. */
struct transfer {
    const char *name; /* the JSON name */
    char label[32];   /* the table's */
    char **argv;      /* owned; NULL when it cannot run here */
    const char *cwd;  /* NULL: the harness's own */
    bool required;    /* failing to run fails the benchmark */
    enum row_state state;
    char note[256];
    double *mbs, *wall_mbs; /* MB/s (10^6 bytes) of each timed run */
    size_t runs;
    double median, min, max, wall_median;
};

enum { TRANSFER_DIRECT, TRANSFER_PROXY, TRANSFER_TUNNEL, TRANSFERS };

/* The downloads, and where they went: HOST:PORT, the bench's server. */
struct throughput {
    char host[256]; /* empty when there is none to use; then NOTE says why */
    int port;
    char note[256];
    struct transfer t[TRANSFERS];
};

/* NAN when not measured. */
struct micro {
    double median_us, min_us;
};

/* What one run of the benchmark measured: bench.c fills it in, report()
 * prints it. */
struct results {
    const struct config *cfg;
    struct row *main, *scaling[LAYOUTS];
    struct throughput *net;
    struct micro wrap, build;
    double fit_us[LAYOUTS];
    int abi;
};

/* Prints the results as a table on stdout and, with --json FILE, writes them
 * to FILE as well; says on stderr when it cannot. */
void report(const struct results *r);

#endif
