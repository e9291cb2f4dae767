/*
 * bench-project: what lcsb, and its refusal recorder, cost a real build.
 *
 * A C project of N files (main.c and N - 1 units, each including stdio.h,
 * stdlib.h, string.h, math.h and the project's header) and its Makefile are
 * generated in a fresh temporary directory, and `make -j2` builds it from
 * clean through each row, the rows taking turns every round (starting one
 * row further along each time) after a warm-up round that also shows a row
 * that cannot build:
 *
 *   bare               make -j2
 *   lcsb --no-record   lcsb --no-trust-check --no-record p.lua -- make -j2
 *   lcsb               the same with the recorder (liblcsb-record.so in every
 *                      dynamically linked process, writing to lcsb's pipe)
 *   bwrap              make -j2 in bubblewrap as agents configure it
 *   bare, recorder     make -j2 with the recorder preloaded and its pipe read
 *                      by this harness: what the library costs the build's
 *                      processes without lcsb, and how many lines it writes
 *
 * `make clean` runs before every build, untimed. Each build is timed from the
 * spawn to the exit, and charged the CPU time of everything it ran (the
 * getrusage(RUSAGE_CHILDREN) delta, user + sys), the top process's own CPU
 * time (lcsb's, for the lcsb rows: reading the recorder's pipe is in it) and
 * that process's voluntary context switches (its wakeups).
 *
 * The gate is the requirement the recorder was given: with it, a build of
 * 200 C files gets at most 5% slower than with --no-record (median wall
 * times). The full run exits 3 when that is exceeded, 4 when it could not be
 * judged (no recorder beside lcsb-exec, the attestation does not say
 * recorded: true, or other work took more than BUSY_MAX of the machine
 * while the two rows built: /proc/stat's busy time less the build's own);
 * --quick (CI) asserts nothing about time. A row whose build
 * fails is exit 2, with the tail of its stderr.
 */
#include "generated.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <lcsb.h>
#include <limits.h>
#include <math.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

#define FULL_FILES 200
#define FULL_ROUNDS 7
#define QUICK_FILES 20
#define QUICK_ROUNDS 2
#define GATE 1.05 /* lcsb / lcsb --no-record, median wall time, at most */
/* The share of the machine's CPU time other work may take during the gate
 * rows' builds (median) for the gate to be judged: a build that keeps both
 * CPUs busy is slowed by whatever else runs, and on a shared machine that
 * moved single builds by a factor of three. */
#define BUSY_MAX 0.05
#define JOBS "-j2"
#define RECORDER_NAME "liblcsb-record.so" /* beside the shim, as lcsb finds it */
#define RECORD_FD 3                       /* the bare, recorder row's pipe, in make */
#define TAIL_BYTES 2048                   /* of a failing build's stderr */
#define TALLY_MAX 64

struct config {
    bool quick, keep;
    int files, rounds, warmup;
};

enum row_state { ROW_OK, ROW_SKIPPED, ROW_FAILED };

enum { ROW_BARE, ROW_NO_RECORD, ROW_RECORD, ROW_BWRAP, ROW_BARE_RECORDER, ROWS };

struct row {
    const char *label;
    char **argv;        /* owned */
    bool reads_records; /* the harness is the recorder's reader (bare, recorder) */
    enum row_state state;
    char note[256];
    double *wall_ms, *cpu_ms, *own_ms, *wakeups, *other; /* one per timed round */
    size_t runs;
    long lines, bytes; /* records read and their bytes, last run (bare, recorder) */
};

/* One build: how long, what it used. */
struct run {
    double wall_ms, cpu_ms, own_ms;
    double other; /* the share of the machine's CPU time that went elsewhere */
    long wakeups, lines, bytes;
};

/* What the recorder wrote in one build, by op, errno and program. */
struct tally {
    char key[96];
    long n;
};

static char **run_env;      /* ours, PATH=/usr/bin:/bin, no make or preload variables */
static char **recorder_env; /* run_env with the recorder preloaded */
static int devnull = -1;
static struct tally tally[TALLY_MAX];
static size_t tally_n;
static long tally_other; /* lines past TALLY_MAX keys */

/* ---- Small helpers. ---- */

static double tv_ms(struct timeval tv) { return tv.tv_sec * 1e3 + tv.tv_usec / 1e3; }

static double children_cpu_ms(void) {
    struct rusage ru;
    getrusage(RUSAGE_CHILDREN, &ru);
    return tv_ms(ru.ru_utime) + tv_ms(ru.ru_stime);
}

/* The machine's busy CPU time so far (ms, every CPU, steal included: a
 * hypervisor's other guests take from the build too), or NAN. */
static double machine_busy_ms(void) {
    unsigned long long user, nice, sys, idle, iowait, irq, softirq, steal;
    FILE *f = fopen("/proc/stat", "r");
    int n = f ? fscanf(f, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &user, &nice, &sys, &idle,
                       &iowait, &irq, &softirq, &steal)
              : 0;
    if (f) fclose(f);
    if (n != 8) return NAN;
    return (double)(user + nice + sys + irq + softirq + steal) * 1e3 / (double)sysconf(_SC_CLK_TCK);
}

static double ratio(double a, double b) { return isnan(a) || isnan(b) || b <= 0 ? NAN : a / b; }

static bool starts_with(const char *s, const char *prefix) {
    return strncmp(s, prefix, strlen(prefix)) == 0;
}

/* Our environment for every build: PATH=/usr/bin:/bin, so that every row
 * runs the same make and gcc whoever runs the harness; without a make's
 * jobserver or flags (the harness may itself run under make) and without a
 * preload of the caller's. EXTRA (NULL-terminated) is added. */
static char **make_env(const char *const *extra) {
    static const char *const dropped[] = {
        "PATH=", "MAKEFLAGS=", "MFLAGS=", "MAKELEVEL=", "LD_PRELOAD=", "LCSB_RECORD", NULL};
    size_t n = 0, x = 0;
    while (environ[n]) n++;
    while (extra && extra[x]) x++;
    char **env = calloc(n + x + 2, sizeof *env);
    size_t k = 0;
    for (size_t i = 0; env && i < n; i++) {
        bool drop = false;
        for (size_t d = 0; dropped[d] && !drop; d++) drop = starts_with(environ[i], dropped[d]);
        if (!drop) env[k++] = environ[i];
    }
    if (env) env[k++] = "PATH=/usr/bin:/bin";
    for (size_t i = 0; env && i < x; i++) env[k++] = (char *)extra[i];
    return env;
}

/* ---- Running a build. ---- */

/* A line the recorder wrote, "OP\tERRNO\tPID\tPROGRAM\tTARGET", counted
 * under "OP ERRNO PROGRAM". */
static void tally_line(const char *line) {
    char op[16] = "", program[64] = "";
    int error = -1;
    if (sscanf(line, "%15[^\t]\t%d\t%*d\t%63[^\t]", op, &error, program) != 3) {
        snprintf(op, sizeof op, "?");
        program[0] = '\0';
    }
    char key[96];
    snprintf(key, sizeof key, "%s %s %s", op, error > 0 ? strerrorname_np(error) : "?", program);
    for (size_t i = 0; i < tally_n; i++) {
        if (strcmp(tally[i].key, key) == 0) {
            tally[i].n++;
            return;
        }
    }
    if (tally_n == TALLY_MAX) {
        tally_other++;
        return;
    }
    snprintf(tally[tally_n].key, sizeof tally[tally_n].key, "%s", key);
    tally[tally_n++].n = 1;
}

/* Everything the recorder's pipe carries until no process holds its write
 * end, counted (and tallied when KEEP_TALLY). */
static void drain_records(int fd, struct run *out, bool keep_tally) {
    char buf[65536], line[4096];
    size_t len = 0;
    for (;;) {
        ssize_t n = read(fd, buf, sizeof buf);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) break;
        out->bytes += n;
        for (ssize_t i = 0; i < n; i++) {
            if (buf[i] != '\n') {
                if (len < sizeof line - 1) line[len++] = buf[i];
                continue;
            }
            line[len] = '\0';
            out->lines++;
            if (keep_tally) tally_line(line);
            len = 0;
        }
    }
}

/* The exited, not yet reaped PID's own CPU time (ms, from its schedstat,
 * which counts in ns where stat counts in ticks) and voluntary context
 * switches. */
static void own_usage(pid_t pid, struct run *out) {
    char path[64], text[4096];
    out->own_ms = NAN;
    out->wakeups = -1;
    snprintf(path, sizeof path, "/proc/%d/schedstat", (int)pid);
    FILE *f = fopen(path, "r");
    unsigned long long ns;
    if (f && fscanf(f, "%llu", &ns) == 1) out->own_ms = ns / 1e6;
    if (f) fclose(f);
    snprintf(path, sizeof path, "/proc/%d/status", (int)pid);
    if (!(f = fopen(path, "r"))) return;
    while (fgets(text, sizeof text, f))
        if (sscanf(text, "voluntary_ctxt_switches: %ld", &out->wakeups) == 1) break;
    fclose(f);
}

/* ARGV in CWD with stdout to /dev/null and stderr to ERR_FD: its wait
 * status, or -1 with errno. With RECORD (the read end of a pipe whose write
 * end is RECORD_W), the write end goes to RECORD_FD in the child and the
 * pipe is read here until every process of the build has let go of it. */
static int run_build(char *const argv[], const char *cwd, char **env, int err_fd, int record,
                     int record_w, bool keep_tally, struct run *out) {
    posix_spawn_file_actions_t fa;
    if (posix_spawn_file_actions_init(&fa)) return -1;
    int rc = posix_spawn_file_actions_adddup2(&fa, devnull, STDOUT_FILENO);
    if (!rc) rc = posix_spawn_file_actions_adddup2(&fa, err_fd, STDERR_FILENO);
    if (!rc && record >= 0) rc = posix_spawn_file_actions_adddup2(&fa, record_w, RECORD_FD);
    if (!rc) rc = posix_spawn_file_actions_addchdir_np(&fa, cwd);
    *out = (struct run){0};
    pid_t pid;
    int status = -1;
    double busy = machine_busy_ms(), cpu = children_cpu_ms(), start = now_ms();
    if (!rc) rc = posix_spawn(&pid, argv[0], &fa, NULL, argv, env);
    posix_spawn_file_actions_destroy(&fa);
    if (rc) {
        errno = rc;
        return -1;
    }
    if (record >= 0) {
        close(record_w); /* now only the build holds it */
        drain_records(record, out, keep_tally);
    }
    siginfo_t info;
    while (waitid(P_PID, (id_t)pid, &info, WEXITED | WNOWAIT) < 0 && errno == EINTR) {
    }
    out->wall_ms = now_ms() - start;
    own_usage(pid, out);
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    /* What the build left to us (the harness is their subreaper), reaped so
     * that their CPU time is counted: bwrap exits without reaping its
     * namespace's init, which has reaped make. */
    while (waitpid(-1, NULL, 0) > 0 || errno == EINTR) {
    }
    out->cpu_ms = children_cpu_ms() - cpu;
    /* What the machine did besides the build (the harness's reading of the
     * recorder's pipe counts here, a few ms), as a share of what it had. */
    double others = machine_busy_ms() - busy - out->cpu_ms;
    out->other = (others > 0 ? others : 0) / (out->wall_ms * (double)sysconf(_SC_NPROCESSORS_ONLN));
    return status;
}

/* The last TAIL_BYTES of what FD holds (from offset 0), on stderr. */
static void print_tail(int fd) {
    char buf[TAIL_BYTES + 1];
    off_t end = lseek(fd, 0, SEEK_END);
    off_t from = end > TAIL_BYTES ? end - TAIL_BYTES : 0;
    ssize_t n = end > 0 ? pread(fd, buf, (size_t)(end - from), from) : 0;
    buf[n > 0 ? n : 0] = '\0';
    fprintf(stderr, "--- its stderr%s ---\n%s%s--- end ---\n", from ? " (the tail)" : "", buf,
            n > 0 && buf[n - 1] != '\n' ? "\n" : "");
}

/* The recorder's pipe as lcsb makes it: the write end never blocks, and
 * the pipe holds a burst. */
static bool record_pipe(int fds[2]) {
    if (pipe2(fds, O_CLOEXEC) == 0 && fcntl(fds[1], F_SETFL, O_NONBLOCK) == 0) {
        (void)fcntl(fds[0], F_SETPIPE_SZ, 1 << 20);
        return true;
    }
    perror("bench-project: the recorder's pipe");
    return false;
}

static bool empty_fd(int fd) { return ftruncate(fd, 0) == 0 && lseek(fd, 0, SEEK_SET) == 0; }

/* One build by ROW after an untimed `make clean`: 0, or -1 after saying
 * why on stderr (its stderr's tail included). */
static int build_once(struct row *row, const char *project, const char *make, int err_fd,
                      bool keep_tally, struct run *out) {
    char *const clean[] = {(char *)make, "-s", "clean", NULL};
    struct run ignored;
    int status =
        empty_fd(err_fd) ? run_build(clean, project, run_env, err_fd, -1, -1, false, &ignored) : -1;
    if (status != 0) {
        fprintf(stderr, "bench-project: make clean failed (status %d) before the %s row\n", status,
                row->label);
        print_tail(err_fd);
        return -1;
    }
    int pipefd[2] = {-1, -1};
    if (row->reads_records && !record_pipe(pipefd)) return -1;
    status = empty_fd(err_fd)
                 ? run_build(row->argv, project, row->reads_records ? recorder_env : run_env,
                             err_fd, pipefd[0], pipefd[1], keep_tally, out)
                 : -1;
    if (pipefd[0] >= 0) close(pipefd[0]);
    if (status == 0) return 0;
    row->state = ROW_FAILED;
    if (status == -1)
        snprintf(row->note, sizeof row->note, "cannot run %s: %s", row->argv[0], strerror(errno));
    else if (WIFEXITED(status))
        snprintf(row->note, sizeof row->note, "exit status %d", WEXITSTATUS(status));
    else
        snprintf(row->note, sizeof row->note, "killed by signal %d", WTERMSIG(status));
    fprintf(stderr, "bench-project: the %s row's build failed (%s): %s\n", row->label, row->note,
            row->argv[0]);
    print_tail(err_fd);
    return -1;
}

/* ---- The rows. ---- */

static void row_skip(struct row *row, const char *note) {
    row->state = ROW_SKIPPED;
    snprintf(row->note, sizeof row->note, "%s", note);
}

/* Is there Landlock for lcsb to run on? */
static bool have_landlock(void) {
    lcsb_capability cap;
    lcsb_error err = {0};
    return lcsb_detect(&cap, LCSB_BENCH_SHIM, &err) == 0 && cap.landlock_abi > 0;
}

static void make_rows(struct row *rows, const char *project, const char *make,
                      const char *recorder) {
    char bwrap[PATH_MAX];
    const char *const bare[] = {make, JOBS, NULL};
    const char *const no_record[] = {
        LCSB_BENCH_CLI, "--no-trust-check", "--no-record", "p.lua", "--", "make", JOBS, NULL};
    const char *const record[] = {
        LCSB_BENCH_CLI, "--no-trust-check", "p.lua", "--", "make", JOBS, NULL};
    /* bubblewrap as agents' sandboxes configure it (bench.c's row). */
    const char *const bw[] = {bwrap,
                              "--ro-bind",
                              "/",
                              "/",
                              "--dev",
                              "/dev",
                              "--proc",
                              "/proc",
                              "--tmpfs",
                              "/tmp",
                              "--bind",
                              project,
                              project,
                              "--unshare-all",
                              "--die-with-parent",
                              "--new-session",
                              "make",
                              JOBS,
                              NULL};
    rows[ROW_BARE] = (struct row){.label = "bare", .argv = strv_copy(bare)};
    rows[ROW_NO_RECORD] = (struct row){.label = "lcsb --no-record"};
    rows[ROW_RECORD] = (struct row){.label = "lcsb"};
    if (have_landlock()) {
        rows[ROW_NO_RECORD].argv = strv_copy(no_record);
        rows[ROW_RECORD].argv = strv_copy(record);
    } else {
        row_skip(&rows[ROW_NO_RECORD], "no Landlock on this kernel");
        row_skip(&rows[ROW_RECORD], "no Landlock on this kernel");
    }
    rows[ROW_BWRAP] = (struct row){.label = "bwrap"};
    if (find_program("bwrap", bwrap, sizeof bwrap))
        rows[ROW_BWRAP].argv = strv_copy(bw);
    else
        row_skip(&rows[ROW_BWRAP], "bwrap is not installed");
    rows[ROW_BARE_RECORDER] = (struct row){.label = "bare, recorder", .reads_records = true};
    if (recorder)
        rows[ROW_BARE_RECORDER].argv = strv_copy(bare);
    else
        row_skip(&rows[ROW_BARE_RECORDER], "no " RECORDER_NAME " beside lcsb-exec");
    for (size_t i = 0; i < ROWS; i++)
        if (rows[i].state == ROW_OK && !rows[i].argv) row_skip(&rows[i], "out of memory");
}

/* Does the recorder write here? A build outside lcsb may give it nothing
 * to write (it keeps a missing path only where the nearest directory is a
 * tmpfs, as a world's root is), so a count of 0 says nothing until a
 * probe that must be recorded was: sh opening a missing file in /dev/shm. */
static void probe_recorder(struct row *row, int err_fd) {
    char *const probe[] = {"/bin/sh", "-c", ": < /dev/shm/lcsb-bench-project-probe", NULL};
    int fds[2];
    struct run run;
    if (row->state != ROW_OK || !record_pipe(fds)) return;
    int status = run_build(probe, "/", recorder_env, err_fd, fds[0], fds[1], false, &run);
    close(fds[0]);
    if (WIFEXITED(status) && run.lines == 1) return;
    row_skip(row, "the recorder wrote no record for a probe (sh opening a missing file in a "
                  "tmpfs) outside lcsb");
}

/* Every live row once per round, in turns; the first WARMUP rounds are not
 * kept. false when a build failed (it said why). */
static bool measure(struct row *rows, const struct config *cfg, const char *project,
                    const char *make, int err_fd) {
    for (size_t i = 0; i < ROWS; i++) {
        struct row *row = &rows[i];
        size_t n = (size_t)cfg->rounds;
        if (row->state != ROW_OK) continue;
        row->wall_ms = calloc(n, sizeof(double));
        row->cpu_ms = calloc(n, sizeof(double));
        row->own_ms = calloc(n, sizeof(double));
        row->wakeups = calloc(n, sizeof(double));
        row->other = calloc(n, sizeof(double));
        if (!row->wall_ms || !row->cpu_ms || !row->own_ms || !row->wakeups || !row->other)
            return false;
    }
    for (int r = -cfg->warmup; r < cfg->rounds; r++) {
        fprintf(stderr, "bench-project: %s %d of %d\n", r < 0 ? "warm-up" : "round",
                r < 0 ? r + cfg->warmup + 1 : r + 1, r < 0 ? cfg->warmup : cfg->rounds);
        for (size_t k = 0; k < ROWS; k++) {
            struct row *row = &rows[((size_t)(r + cfg->warmup) + k) % ROWS];
            struct run run;
            if (row->state != ROW_OK) continue;
            /* The tally is of the last round's build only. */
            bool last = r == cfg->rounds - 1;
            if (build_once(row, project, make, err_fd, last, &run) != 0) return false;
            row->lines = run.lines;
            row->bytes = run.bytes;
            if (r < 0) continue;
            row->wall_ms[row->runs] = run.wall_ms;
            row->cpu_ms[row->runs] = run.cpu_ms;
            row->own_ms[row->runs] = run.own_ms;
            row->other[row->runs] = run.other;
            row->wakeups[row->runs++] = (double)run.wakeups;
        }
    }
    return true;
}

static void rows_free(struct row *rows) {
    for (size_t i = 0; i < ROWS; i++) {
        strv_free(rows[i].argv);
        free(rows[i].wall_ms);
        free(rows[i].cpu_ms);
        free(rows[i].own_ms);
        free(rows[i].wakeups);
        free(rows[i].other);
    }
}

/* ---- The attestation of a run with the recorder. ---- */

struct attested {
    bool ran, recorded;
    long refused_count;
    char refused[512]; /* the attestation's refused list, cut */
};

/* One more build by the lcsb row, untimed, with --attest: was the recorder
 * on, and what did lcsb keep of what it read? */
static bool attest(const struct row *row, const char *project, const char *make, int err_fd,
                   struct attested *a) {
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/../attestation.json", project);
    size_t n = 0;
    while (row->argv[n]) n++;
    char **argv = calloc(n + 3, sizeof *argv);
    if (!argv) return false;
    argv[0] = row->argv[0];
    argv[1] = "--attest";
    argv[2] = path;
    memcpy(argv + 3, row->argv + 1, n * sizeof *argv);
    struct row copy = *row;
    copy.argv = argv;
    struct run run;
    int rc = build_once(&copy, project, make, err_fd, false, &run);
    free(argv);
    if (rc != 0) return false;
    a->ran = true;
    FILE *f = fopen(path, "r");
    static char text[1 << 20];
    size_t len = f ? fread(text, 1, sizeof text - 1, f) : 0;
    if (f) fclose(f);
    text[len] = '\0';
    a->recorded = strstr(text, "\"recorded\":true") != NULL;
    const char *count = strstr(text, "\"refused_count\":");
    a->refused_count = count ? strtol(count + strlen("\"refused_count\":"), NULL, 10) : -1;
    const char *refused = strstr(text, "\"refused\":");
    if (refused) snprintf(a->refused, sizeof a->refused, "%.*s", 500, refused);
    return true;
}

/* ---- The report. ---- */

struct summary {
    double wall, wall_min, wall_max, cpu, own, wakeups, other;
};

static struct summary summarize(struct row *row) {
    struct summary s = {NAN, NAN, NAN, NAN, NAN, NAN, NAN};
    if (row->state != ROW_OK || !row->runs) return s;
    s.wall = median_of(row->wall_ms, row->runs);
    s.wall_min = row->wall_ms[0];
    s.wall_max = row->wall_ms[row->runs - 1];
    s.cpu = median_of(row->cpu_ms, row->runs);
    s.own = median_of(row->own_ms, row->runs);
    s.wakeups = median_of(row->wakeups, row->runs);
    s.other = median_of(row->other, row->runs);
    return s;
}

/* The median of A[i] / B[i] over the rounds both rows ran: each pair ran
 * in the same round, mostly one right after the other, so that what else
 * the machine did then weighs on both. Before summarize sorts them. */
static double paired_ratio(const struct row *a, const struct row *b) {
    if (a->state != ROW_OK || b->state != ROW_OK || a->runs != b->runs || !a->runs) return NAN;
    double r[a->runs];
    for (size_t i = 0; i < a->runs; i++) r[i] = a->wall_ms[i] / b->wall_ms[i];
    return median_of(r, a->runs);
}

/* The median share of the machine other work took during the gate rows'
 * builds, both rows' together. */
static double gate_busy(const struct row *a, const struct row *b) {
    if (a->state != ROW_OK || b->state != ROW_OK || !a->runs || !b->runs) return NAN;
    double v[a->runs + b->runs];
    memcpy(v, a->other, a->runs * sizeof *v);
    memcpy(v + a->runs, b->other, b->runs * sizeof *v);
    return median_of(v, a->runs + b->runs);
}

static void print_ratio(const char *what, double v) {
    printf("  %-42s", what);
    if (isnan(v))
        printf(" n/a\n");
    else
        printf(" %.3f\n", v);
}

static int by_count(const void *a, const void *b) {
    const struct tally *x = a, *y = b;
    return (y->n > x->n) - (y->n < x->n);
}

static void print_tally(const struct row *row) {
    if (row->state != ROW_OK) return;
    printf("\nwhat the recorder wrote in one build (bare, recorder row, LCSB_RECORD_ABSENT=1 as "
           "in lcsb's world): %ld lines, %ld bytes\n",
           row->lines, row->bytes);
    qsort(tally, tally_n, sizeof *tally, by_count);
    for (size_t i = 0; i < tally_n && i < 10; i++) printf("  %7ld  %s\n", tally[i].n, tally[i].key);
    if (tally_n > 10) printf("  (and %zu kinds more)\n", tally_n - 10);
    if (tally_other)
        printf("  (and %ld lines of kinds past the first %d)\n", tally_other, TALLY_MAX);
}

/* The table; then the gate: 0 met or not asked, 3 exceeded, 4 not judged. */
static int report(struct row *rows, const struct config *cfg, const struct attested *a) {
    struct summary s[ROWS];
    double paired = paired_ratio(&rows[ROW_RECORD], &rows[ROW_NO_RECORD]);
    double busy = gate_busy(&rows[ROW_RECORD], &rows[ROW_NO_RECORD]);
    for (size_t i = 0; i < ROWS; i++) s[i] = summarize(&rows[i]);
    printf("\nbench-project: make %s clean builds of %d C files (stdio.h, stdlib.h, string.h, "
           "math.h, project.h), %ld CPUs,\n%d rounds after %d warm-up, the rows in turns%s\n\n",
           JOBS, cfg->files, sysconf(_SC_NPROCESSORS_ONLN), cfg->rounds, cfg->warmup,
           cfg->quick ? " (quick mode: nothing asserted)" : "");
    printf("  %-18s %9s %9s %9s %9s %11s %8s %8s %7s\n", "row", "median s", "min s", "max s",
           "CPU s", "own CPU ms", "wakeups", "others %", "x bare");
    for (size_t i = 0; i < ROWS; i++) {
        printf("  %-18s", rows[i].label);
        if (rows[i].state != ROW_OK) {
            printf(" %s: %s\n", rows[i].state == ROW_SKIPPED ? "skipped" : "failed", rows[i].note);
            continue;
        }
        printf(" %9.3f %9.3f %9.3f %9.3f %11.1f %8.0f %8.1f %7.3f\n", s[i].wall / 1e3,
               s[i].wall_min / 1e3, s[i].wall_max / 1e3, s[i].cpu / 1e3, s[i].own, s[i].wakeups,
               s[i].other * 100, ratio(s[i].wall, s[ROW_BARE].wall));
    }
    printf("  (medians; CPU: everything the build ran, user + sys; own CPU and wakeups: the\n"
           "  top process's alone (lcsb, bwrap or make), its voluntary context switches; others:\n"
           "  the share of the machine's CPU time, steal included, that went to other work)\n\n");
    double gate = ratio(s[ROW_RECORD].wall, s[ROW_NO_RECORD].wall);
    print_ratio("lcsb / lcsb --no-record (the gate)", gate);
    print_ratio("  the same, round by round (median)", paired);
    print_ratio("  the same, CPU", ratio(s[ROW_RECORD].cpu, s[ROW_NO_RECORD].cpu));
    print_ratio("  lcsb's own CPU, record - no-record (ms)",
                s[ROW_RECORD].own - s[ROW_NO_RECORD].own);
    print_ratio("lcsb / bare", ratio(s[ROW_RECORD].wall, s[ROW_BARE].wall));
    print_ratio("lcsb --no-record / bare", ratio(s[ROW_NO_RECORD].wall, s[ROW_BARE].wall));
    print_ratio("bwrap / bare", ratio(s[ROW_BWRAP].wall, s[ROW_BARE].wall));
    print_ratio("bare, recorder / bare", ratio(s[ROW_BARE_RECORDER].wall, s[ROW_BARE].wall));
    print_ratio("  the same, CPU", ratio(s[ROW_BARE_RECORDER].cpu, s[ROW_BARE].cpu));
    print_tally(&rows[ROW_BARE_RECORDER]);
    printf("\nthe attestation of one more build with the recorder (--attest): ");
    if (!a->ran)
        printf("not run\n");
    else
        printf("recorded: %s, refused_count: %ld%s\n", a->recorded ? "true" : "false",
               a->refused_count < 0 ? 0 : a->refused_count,
               a->refused_count < 0 ? " (absent: no recorder)" : "");
    if (a->ran && a->refused_count > 0) printf("  %s\n", a->refused);

    if (cfg->quick) return 0;
    if (isnan(gate) || !a->recorded) {
        printf("\ngate: not judged: %s\n",
               isnan(gate) ? "the lcsb rows did not run"
                           : "the attestation does not say recorded: true (is " RECORDER_NAME
                             " built beside lcsb-exec?)");
        return 4;
    }
    if (isnan(busy) || busy > BUSY_MAX) {
        printf("\ngate: not judged: other work took %.1f%% of the machine's CPU time during the "
               "lcsb rows' builds (median), over the %.0f%% that leaves their wall times "
               "comparable; the ratio was %.3f. Run it again on a quiet machine\n",
               busy * 100, BUSY_MAX * 100, gate);
        return 4;
    }
    if (gate > GATE) {
        printf("\ngate: EXCEEDED: with the recorder the build took %.3f x as long as with "
               "--no-record (%.3f s against %.3f s, medians), over the %.2f allowed; lcsb's own "
               "CPU %.1f ms against %.1f ms, its wakeups %.0f against %.0f\n",
               gate, s[ROW_RECORD].wall / 1e3, s[ROW_NO_RECORD].wall / 1e3, GATE, s[ROW_RECORD].own,
               s[ROW_NO_RECORD].own, s[ROW_RECORD].wakeups, s[ROW_NO_RECORD].wakeups);
        return 3;
    }
    printf("\ngate: met: %.3f <= %.2f\n", gate, GATE);
    return 0;
}

/* ---- Options and main. ---- */

static void usage(FILE *f) {
    fprintf(f,
            "usage: bench-project [--quick] [--files N] [--rounds N] [--keep]\n"
            "  --quick       %d files, %d rounds, nothing asserted about time (CI)\n"
            "  --files N     C files in the generated project, main.c included (default %d)\n"
            "  --rounds N    timed rounds of every row (default %d)\n"
            "  --keep        keep the project (its path is printed), to rerun a row by hand\n"
            "exit: 0, 2 a build failed (or usage), 3 the recorder's gate (%.2f) exceeded,\n"
            "4 the gate could not be judged (no recorder, or the machine busy with other\n"
            "work); --quick: 0 or 2\n",
            QUICK_FILES, QUICK_ROUNDS, FULL_FILES, FULL_ROUNDS, GATE);
}

/* 0, or 1 for --help, or -1 for a usage error. */
static int parse_args(int argc, char **argv, struct config *cfg) {
    int files = 0, rounds = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        long n = 0;
        char *end = NULL;
        if (strcmp(a, "--help") == 0) return 1;
        if (strcmp(a, "--quick") == 0 || strcmp(a, "--keep") == 0) {
            *(a[2] == 'q' ? &cfg->quick : &cfg->keep) = true;
            continue;
        }
        if ((strcmp(a, "--files") != 0 && strcmp(a, "--rounds") != 0) || i + 1 == argc) return -1;
        n = strtol(argv[++i], &end, 10);
        bool is_files = strcmp(a, "--files") == 0;
        /* main.c and one unit at least */
        if (*end || n < (is_files ? 2 : 1) || n > 100000) return -1;
        *(is_files ? &files : &rounds) = (int)n;
    }
    cfg->files = files ? files : cfg->quick ? QUICK_FILES : FULL_FILES;
    cfg->rounds = rounds ? rounds : cfg->quick ? QUICK_ROUNDS : FULL_ROUNDS;
    cfg->warmup = 1;
    return 0;
}

/* The recorder beside the shim, as lcsb looks for it, or NULL. */
static const char *find_recorder(char *out, size_t size) {
    const char *slash = strrchr(LCSB_BENCH_SHIM, '/');
    struct stat st;
    snprintf(out, size, "%.*s/%s", (int)(slash - LCSB_BENCH_SHIM), LCSB_BENCH_SHIM, RECORDER_NAME);
    return stat(out, &st) == 0 && S_ISREG(st.st_mode) ? out : NULL;
}

int main(int argc, char **argv) {
    struct config cfg = {0};
    int parsed = parse_args(argc, argv, &cfg);
    if (parsed) {
        usage(parsed > 0 ? stdout : stderr);
        return parsed > 0 ? 0 : 2;
    }
    char dir[] = "/tmp/lcsb-bench-project.XXXXXX", project[64], err_path[96], make[PATH_MAX],
         recorder_path[PATH_MAX], preload[PATH_MAX + 16];
    struct row rows[ROWS] = {0};
    struct attested att = {0};
    int status = 2, err_fd = -1;
    setvbuf(stdout, NULL, _IOLBF, 0); /* in order with the progress on stderr */
    if (prctl(PR_SET_CHILD_SUBREAPER, 1) != 0) {
        perror("bench-project: PR_SET_CHILD_SUBREAPER");
        return 2;
    }
    if (!mkdtemp(dir)) {
        perror("bench-project: mkdtemp");
        return 2;
    }
    snprintf(project, sizeof project, "%s/project", dir);
    snprintf(err_path, sizeof err_path, "%s/stderr", dir);
    const char *recorder = find_recorder(recorder_path, sizeof recorder_path);
    snprintf(preload, sizeof preload, "LD_PRELOAD=%s", recorder_path);
    /* The recorder as the shim hands it to the command, in a world of its
     * own (LCSB_RECORD_ABSENT: a path outside the policy does not exist, so
     * ENOENT counts too). */
    const char *const recorder_vars[] = {preload, "LCSB_RECORD_FD=3", "LCSB_RECORD_ABSENT=1", NULL};
    run_env = make_env(NULL);
    recorder_env = make_env(recorder_vars);
    devnull = open("/dev/null", O_RDWR | O_CLOEXEC);
    if (setenv("PATH", "/usr/bin:/bin", 1) != 0 || !run_env || !recorder_env || devnull < 0 ||
        mkdir(project, 0755) != 0 ||
        (err_fd = open(err_path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600)) < 0) {
        perror("bench-project: setup");
        goto out;
    }
    char ccpath[PATH_MAX];
    if (!find_program("make", make, sizeof make) || !find_program("cc", ccpath, sizeof ccpath)) {
        fprintf(stderr, "bench-project: make and cc must be installed (on /usr/bin:/bin)\n");
        goto out;
    }
    if (!write_project(project, cfg.files - 1)) {
        perror("bench-project: cannot write the project");
        goto out;
    }
    make_rows(rows, project, make, recorder);
    probe_recorder(&rows[ROW_BARE_RECORDER], err_fd);
    if (!measure(rows, &cfg, project, make, err_fd)) goto out;
    if (rows[ROW_RECORD].state == ROW_OK && !attest(&rows[ROW_RECORD], project, make, err_fd, &att))
        goto out;
    status = report(rows, &cfg, &att);
out:
    rows_free(rows);
    if (err_fd >= 0) close(err_fd);
    if (devnull >= 0) close(devnull);
    free(run_env);
    free(recorder_env);
    if (cfg.keep)
        printf("\nthe project is kept in %s\n", project);
    else
        remove_tree(dir);
    return status;
}
