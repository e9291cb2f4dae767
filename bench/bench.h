/* What bench.c and report.c share: the configuration, the rows and what
 * measuring gave, which bench.c fills in and report.c prints as a table and
 * writes as JSON. Nothing here runs anything. */
#ifndef LCSB_BENCH_H
#define LCSB_BENCH_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

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
    int syscall_runs;       /* untimed runs under strace per counted row */
    long prepare_calls;     /* lcsb_prepare calls the embedded host times */
    const long *scaling;
    size_t scaling_n;
    const char *json_path;
};

enum row_state { ROW_OK, ROW_SKIPPED, ROW_FAILED };

/* What a row saw of the plan cache (issue 28), $XDG_STATE_HOME/lcsb/plans,
 * in the state directory of its own that the row's XDG_STATE_HOME names. */
struct plans {
    bool seen;    /* the directory was there when looked at */
    long removed; /* entries a cold row removed before its runs, in all */
    long emptied; /* runs of a cold row that found the directory to empty */
    long entries; /* entries in it after the row's last run */
};

#define SYSCALLS_TOP 5

/* The system calls of lcsb's own process in one run, counted by strace -c
 * without -f: lcsb's process alone, not the shim's nor the command's. */
struct syscalls {
    enum row_state state; /* ROW_SKIPPED: not counted, NOTE says why */
    char note[200];
    int runs;
    long total, errors;        /* of the run whose total is the median */
    long min_total, max_total; /* over the runs */
    struct {
        char name[32];
        long calls;
    } top[SYSCALLS_TOP]; /* that run's most frequent calls, most first */
    size_t ntop;
};

/* A host program bench drives (bench-embedded --serve): it times each run
 * itself, and says what it did once, before its runs, and after them. */
struct served {
    pid_t pid;
    int fd;    /* bench's end of the socket pair it takes requests on; -1 */
    bool done; /* it said "done" */
    double open_ms, select_ms, validate_ms; /* once, before the runs */
    double prepare_us;                      /* lcsb_prepare per call, which lcsb_run repeats */
    double after_run_ms;                    /* lcsb_script_after_run, once, after the runs */
};

/* One way of running the command, and what measuring it gave. */
struct row {
    const char *name; /* the JSON name */
    char label[32];   /* the table's */
    char **argv;      /* owned; NULL when the row cannot run here */
    const char *cwd;  /* NULL: the harness's own */
    char **env;       /* NULL: the harness's own; not owned */
    long rules;       /* path rules in its policy (scaling rows) */
    bool required;    /* failing to run fails the benchmark */
    /* Issue 28's rows: an XDG_STATE_HOME of the row's own, so that emptying
     * one row's plan cache leaves the others' as they are. */
    char *state_var; /* owned: "XDG_STATE_HOME=DIR", or NULL */
    char **own_env;  /* owned: the environment that names it (env points here) */
    bool cold;       /* its plan cache emptied before every run, untimed */
    struct plans plans;
    bool count_syscalls; /* counted under strace, after the timed rounds */
    struct syscalls sys;
    struct served *served; /* not NULL: runs through a host program, not spawned */
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
    /* Issue 28: real policies, each warm (its plan cache kept) and cold
     * (emptied before each run), and a host that compiles one once. */
    ROW_MINIMAL,
    ROW_MINIMAL_COLD,
    ROW_C,
    ROW_C_COLD,
    ROW_TOOLS,
    ROW_TOOLS_COLD,
    ROW_EMBEDDED,
    ROW_EMBEDDED_AHEAD,
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
    char **env;       /* the array owned (with_var's), not its strings; NULL: run_env */
    int of;           /* the row it is measured against (a direct one) */
    bool required;    /* failing to run fails the benchmark */
    enum row_state state;
    char note[256];
    double *mbs, *wall_mbs; /* MB/s (10^6 bytes) of each timed run */
    size_t runs;
    double median, min, max, wall_median;
};

/* Blind relays (the proxy forwarding, a CONNECT tunnel), and what a rule
 * reads (issue 32): a forwarded request judged, and HTTPS intercepted,
 * against a direct HTTPS download from the same server's TLS twin. */
enum {
    TRANSFER_DIRECT,
    TRANSFER_PROXY,
    TRANSFER_TUNNEL,
    TRANSFER_JUDGED,
    TRANSFER_TLS_DIRECT,
    TRANSFER_INTERCEPTED,
    TRANSFERS
};

/* The downloads, and where they went: HOST:PORT, the bench's server, and
 * TLS_PORT its HTTPS twin (0: none). */
struct throughput {
    char host[256]; /* empty when there is none to use; then NOTE says why */
    int port, tls_port;
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
    const struct served *embedded;       /* the ROW_EMBEDDED host's once-only costs */
    const struct served *embedded_ahead; /* ROW_EMBEDDED_AHEAD's, through a runner */
    char strace[64];                     /* what counted the system calls, or "" */
};

/* Prints the results as a table on stdout and, with --json FILE, writes them
 * to FILE as well; says on stderr when it cannot. */
void report(const struct results *r);

#endif
