/*
 * bench: what lcsb costs in front of a command, measured side by side.
 *
 * Every row runs /bin/true (posix_spawn, then waitpid) and is timed from the
 * spawn to the reaping: bare, the shim alone under a 30-rule policy, lcsb end
 * to end with an exec_policy, lcsb's own start (--version), and bwrap,
 * firejail and podman where installed. The rows are interleaved round-robin
 * so that a noisy moment of the machine lands on all of them alike (podman and
 * firejail take their turns after the others: what they leave behind would
 * slow the next row). Then the shim's cost per path rule (10 to 20,000 rules),
 * the cost of lcsb_backend_wrap and of building a policy with the C API, and
 * each row's peak RSS (through bench-rss). A table goes to stdout, the same
 * numbers as JSON to --json FILE (report.c writes both; bench.h is what the
 * two files share).
 *
 * A row that cannot run here (no Landlock, a tool not installed) is skipped
 * with a note; no number is ever made up. The exit status is 1 when a row lcsb
 * itself owns (bare, shim, lcsb, its start) fails to run, whatever the timings: the
 * benchmark asserts nothing about time.
 */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <lcsb.h>
#include <limits.h>
#include <math.h>
#include <spawn.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"

extern char **environ;

static const long full_scaling[] = {10, 100, 1000, 5000, 20000};
static const long quick_scaling[] = {10, 100, 1000};

/* The temporary directory the policies point into, and lcsb's project. */
struct fixture {
    char dir[64];
    char project[96];
    char rootfs[96];   /* the podman row's root: empty, the host's system bound in */
    char **exec_files; /* what running COMMAND executes, from lcsb_resolve_program */
    /* Empty files for the policies' other rules, their paths made once so
     * that building a policy times lcsb, not snprintf. Short names: 20,000
     * of them travel on the shim's argv. */
    char **filler;
    size_t files;
};

/* What every run shares: one environment and one /dev/null. tmpfs_env is
 * the same with TMPDIR on a tmpfs, where lcsb makes the private HOME and
 * TMPDIR: on some disks a mkdir alone costs a millisecond. */
static char **run_env, **tmpfs_env;
static int devnull = -1;

/* ---- Small helpers. ---- */

static double now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static void strv_free(char **v) {
    for (size_t i = 0; v && v[i]; i++) free(v[i]);
    free(v);
}

/* A copy of the NULL-terminated SRC, so that every row's argv is freed alike. */
static char **strv_copy(const char *const *src) {
    size_t n = 0;
    while (src[n]) n++;
    char **v = calloc(n + 1, sizeof *v);
    for (size_t i = 0; v && i < n; i++) {
        if (!(v[i] = strdup(src[i]))) {
            strv_free(v);
            return NULL;
        }
    }
    return v;
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Median of N values; sorts them. */
static double median_of(double *v, size_t n) {
    qsort(v, n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* NAME's full path on PATH into OUT, or false. */
static bool find_program(const char *name, char *out, size_t size) {
    const char *path = getenv("PATH");
    char *copy = strdup(path && *path ? path : "/usr/local/bin:/usr/bin:/bin");
    bool found = false;
    if (!copy) return false;
    for (char *save = NULL, *dir = strtok_r(copy, ":", &save); dir && !found;
         dir = strtok_r(NULL, ":", &save)) {
        found = snprintf(out, size, "%s/%s", dir, name) < (int)size && access(out, X_OK) == 0;
    }
    free(copy);
    return found;
}

/* The environment of every run: ours with PATH=/usr/bin:/bin, so that lcsb
 * resolves the same programs whoever runs the benchmark. */
static char **make_env(void) {
    size_t n = 0;
    while (environ[n]) n++;
    char **env = calloc(n + 2, sizeof *env);
    size_t k = 0;
    for (size_t i = 0; env && i < n; i++) {
        if (strncmp(environ[i], "PATH=", 5) != 0) env[k++] = environ[i];
    }
    if (env) env[k] = "PATH=/usr/bin:/bin";
    return env;
}

/* ENV (run_env) with TMPDIR=/dev/shm in place of any TMPDIR. */
static char **with_tmpfs_tmpdir(char **env) {
    size_t n = 0;
    while (env && env[n]) n++;
    char **out = env ? calloc(n + 2, sizeof *out) : NULL;
    size_t k = 0;
    for (size_t i = 0; out && i < n; i++)
        if (strncmp(env[i], "TMPDIR=", 7) != 0) out[k++] = env[i];
    if (out) out[k] = "TMPDIR=/dev/shm";
    return out;
}

/* ---- Running and timing. ---- */

/* Spawns ARGV in CWD (NULL: ours) with stdout to OUT_FD and stderr to ERR_FD
 * and reaps it: its wait status, or -1 with errno when it could not start. */
static int spawn_wait(char *const argv[], const char *cwd, char **env, int out_fd, int err_fd) {
    posix_spawn_file_actions_t fa;
    if (posix_spawn_file_actions_init(&fa)) return -1;
    int rc = posix_spawn_file_actions_adddup2(&fa, out_fd, STDOUT_FILENO);
    if (!rc) rc = posix_spawn_file_actions_adddup2(&fa, err_fd, STDERR_FILENO);
    if (!rc && cwd) rc = posix_spawn_file_actions_addchdir_np(&fa, cwd);
    pid_t pid;
    int status = -1;
    if (!rc) rc = posix_spawn(&pid, argv[0], &fa, NULL, argv, env ? env : run_env);
    if (!rc) {
        while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
        }
    }
    posix_spawn_file_actions_destroy(&fa);
    if (rc) errno = rc;
    return rc ? -1 : status;
}

static void row_fail(struct row *row, int status, const char *detail) {
    row->state = ROW_FAILED;
    if (status == -1)
        snprintf(row->note, sizeof row->note, "cannot run %s: %s", row->argv[0], strerror(errno));
    else if (WIFEXITED(status))
        snprintf(row->note, sizeof row->note, "exit status %d%s%s", WEXITSTATUS(status),
                 *detail ? ": " : "", detail);
    else
        snprintf(row->note, sizeof row->note, "killed by signal %d", WTERMSIG(status));
}

/* The first line FD holds, and FD emptied for the next run. */
static void take_first_line(int fd, char *out, size_t size) {
    ssize_t n = pread(fd, out, size - 1, 0);
    out[n > 0 ? n : 0] = '\0';
    out[strcspn(out, "\n")] = '\0';
    if (ftruncate(fd, 0) != 0 || lseek(fd, 0, SEEK_SET) != 0) out[0] = '\0';
}

/* One untimed run whose stderr is kept in SCRATCH_FD, so that a row that
 * cannot work here says why instead of counting failures as times. */
static void verify(struct row *row, int scratch_fd) {
    if (row->state != ROW_OK) return;
    int status = spawn_wait(row->argv, row->cwd, row->env, devnull, scratch_fd);
    char first[160];
    take_first_line(scratch_fd, first, sizeof first);
    if (status != 0) row_fail(row, status, first);
}

/* Round-robin over the rows: each round runs every live row once, starting
 * one row further along each time so that no row always follows another. */
static void measure(struct row *rows, size_t n, int warmup, int rounds) {
    for (size_t i = 0; i < n; i++) {
        if (rows[i].state == ROW_OK && !(rows[i].ms = calloc((size_t)rounds, sizeof(double))))
            row_fail(&rows[i], -1, "");
    }
    for (int r = -warmup; r < rounds; r++) {
        for (size_t k = 0; k < n; k++) {
            struct row *row = &rows[((size_t)(r + warmup) + k) % n];
            if (row->state != ROW_OK) continue;
            double start = now_ms();
            int status = spawn_wait(row->argv, row->cwd, row->env, devnull, devnull);
            double ms = now_ms() - start;
            if (status != 0)
                row_fail(row, status, "in a timed run");
            else if (r >= 0)
                row->ms[row->runs++] = ms;
        }
    }
    for (size_t i = 0; i < n; i++) {
        struct row *row = &rows[i];
        if (row->state != ROW_OK || !row->runs) continue;
        row->median = median_of(row->ms, row->runs);
        row->min = row->ms[0];
        row->max = row->ms[row->runs - 1];
    }
}

/* Least-squares slope of median time over rule count, in µs per rule. Taken
 * here with the medians it is made of: a target weighs it, so it is part of
 * what was measured, not of how it is shown. */
static double per_rule_fit_us(const struct row *rows, size_t n) {
    double sx = 0, sy = 0, sxx = 0, sxy = 0;
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        if (rows[i].state != ROW_OK) continue;
        double x = (double)rows[i].rules, y = rows[i].median * 1e3;
        sx += x, sy += y, sxx += x * x, sxy += x * y, k++;
    }
    double den = k * sxx - sx * sx;
    return k >= 2 && den > 0 ? (k * sxy - sx * sy) / den : NAN;
}

/* Peak RSS of each live row, the largest of TRIES runs through bench-rss
 * (rss.c says why not from here); untimed. */
static void measure_rss(struct row *rows, size_t n, int tries, int scratch_fd) {
    for (size_t i = 0; i < n; i++) {
        struct row *row = &rows[i];
        size_t argc = 0;
        while (row->state == ROW_OK && row->argv[argc]) argc++;
        char **argv = row->state == ROW_OK ? calloc(argc + 2, sizeof *argv) : NULL;
        if (!argv) continue;
        argv[0] = LCSB_BENCH_RSS;
        memcpy(argv + 1, row->argv, argc * sizeof *argv);
        for (int t = 0; t < tries; t++) {
            char out[32];
            int status = spawn_wait(argv, row->cwd, row->env, scratch_fd, devnull);
            take_first_line(scratch_fd, out, sizeof out);
            long kib = status == 0 ? strtol(out, NULL, 10) : 0;
            if (kib > row->peak_rss_kib) row->peak_rss_kib = kib;
        }
        free(argv);
    }
}

/* ---- The fixture and the policies. ---- */

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw) {
    return remove(path);
}

static void fixture_free(struct fixture *fx) {
    if (fx->dir[0]) nftw(fx->dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
    lcsb_argv_free(fx->exec_files);
    for (size_t i = 0; i < fx->files; i++) free(fx->filler[i]);
    free(fx->filler);
}

static bool write_file(const char *path, const char *text) {
    FILE *f = fopen(path, "w");
    bool ok = f && fputs(text, f) >= 0;
    if (f && fclose(f) != 0) ok = false;
    return ok;
}

static bool make_filler(struct fixture *fx, size_t files) {
    if (!(fx->filler = calloc(files, sizeof *fx->filler))) return false;
    char path[PATH_MAX];
    for (; fx->files < files; fx->files++) {
        snprintf(path, sizeof path, "%s/%zu", fx->dir, fx->files);
        int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
        if (fd < 0 || close(fd) != 0 || !(fx->filler[fx->files] = strdup(path))) return false;
    }
    return true;
}

static bool fixture_init(struct fixture *fx, size_t files) {
    snprintf(fx->dir, sizeof fx->dir, "/tmp/lcsb-bench.XXXXXX");
    if (!mkdtemp(fx->dir)) {
        fx->dir[0] = '\0';
        return false;
    }
    if (!make_filler(fx, files)) return false;
    char path[PATH_MAX];
    snprintf(fx->project, sizeof fx->project, "%s/project", fx->dir);
    snprintf(path, sizeof path, "%s/p.lua", fx->project);
    lcsb_error err = {0};
    if (mkdir(fx->project, 0755) != 0 ||
        !write_file(path, "return require(\"lcsb\").exec_policy{}\n"))
        return false;
    /* The policy trusted as a user would, in a store of the bench's own: the
     * lcsb rows pay for the check of it, as every real run does. */
    char state[PATH_MAX + 16], trust[3 * PATH_MAX + 64];
    snprintf(state, sizeof state, "%s/state", fx->dir);
    snprintf(trust, sizeof trust, "cd '%s' && '%s' trust p.lua >/dev/null 2>&1", fx->project,
             LCSB_BENCH_CLI);
    if (setenv("XDG_STATE_HOME", state, 1) != 0 || system(trust) != 0) {
        fprintf(stderr, "bench: cannot trust %s\n", path);
        return false;
    }
    snprintf(fx->rootfs, sizeof fx->rootfs, "%s/rootfs", fx->dir);
    if (mkdir(fx->rootfs, 0755) != 0) return false;
    if (lcsb_resolve_program(COMMAND, &fx->exec_files, &err)) {
        fprintf(stderr, "bench: cannot resolve %s: %s\n", COMMAND, err.message);
        return false;
    }
    return true;
}

/* A policy of NRULES path rules: what COMMAND needs (read /usr and /etc,
 * execute its files), then read rules on filler files up to NRULES. */
static lcsb_policy *rules_policy(const struct fixture *fx, long nrules, lcsb_error *err) {
    lcsb_policy *p = lcsb_policy_new();
    if (!p) return NULL;
    int rc = lcsb_policy_add_read(p, "/usr", err);
    if (!rc) rc = lcsb_policy_add_read(p, "/etc", err);
    long have = 2;
    for (size_t i = 0; !rc && fx->exec_files[i]; i++, have++)
        rc = lcsb_policy_add_exec(p, fx->exec_files[i], err);
    for (size_t i = 0; !rc && have < nrules && i < fx->files; i++, have++)
        rc = lcsb_policy_add_read(p, fx->filler[i], err);
    if (rc) {
        lcsb_policy_free(p);
        return NULL;
    }
    return p;
}

/* The shim's argv for COMMAND under a policy of NRULES rules, validated first
 * so that a policy the host refuses says so by name. */
static char **shim_argv(const struct fixture *fx, const lcsb_backend *b, long nrules,
                        lcsb_error *err) {
    static const char *const cmd[] = {COMMAND, NULL};
    lcsb_policy *p = rules_policy(fx, nrules, err);
    char **wrapped = NULL, **copy = NULL;
    if (p && !lcsb_backend_validate(b, p, err) && !lcsb_backend_wrap(b, p, cmd, &wrapped, err))
        copy = strv_copy((const char *const *)wrapped);
    lcsb_argv_free(wrapped);
    lcsb_policy_free(p);
    return copy;
}

/* ---- The rows. ---- */

static void row_skip(struct row *row, const char *note) {
    row->state = ROW_SKIPPED;
    snprintf(row->note, sizeof row->note, "%s", note);
}

static void row_shim(struct row *row, const struct fixture *fx, const lcsb_backend *b,
                     long nrules) {
    row->rules = nrules;
    /* The command's world holds the policy's paths only: stand in one. */
    row->cwd = "/usr";
    lcsb_error err = {0};
    if (!b) {
        row_skip(row, "no Landlock on this kernel");
    } else if (!(row->argv = shim_argv(fx, b, nrules, &err))) {
        row->state = ROW_FAILED;
        snprintf(row->note, sizeof row->note, "policy: %.200s", err.message);
    }
}

/* bwrap, firejail, podman: run when installed, never installed for this. */
static void row_tool(struct row *row, const char *const *args) {
    char path[PATH_MAX];
    if (!find_program(args[0], path, sizeof path)) {
        snprintf(row->note, sizeof row->note, "%s is not installed", args[0]);
        row->state = ROW_SKIPPED;
        return;
    }
    if ((row->argv = strv_copy(args))) {
        free(row->argv[0]);
        row->argv[0] = strdup(path);
    }
    if (!row->argv || !row->argv[0]) row_skip(row, "out of memory");
}

static void main_rows(struct row *rows, const struct fixture *fx, const lcsb_backend *b) {
    static const char *const bare[] = {COMMAND, NULL};
    /* bubblewrap as agents' sandboxes configure it (issue 16's line): the
     * host read-only, its own /dev, /proc and /tmp, the project writable,
     * every namespace of its own, dying with its parent, a new session. */
    const char *const bwrap[] = {"bwrap",      "--ro-bind",         "/",
                                 "/",          "--dev",             "/dev",
                                 "--proc",     "/proc",             "--tmpfs",
                                 "/tmp",       "--bind",            fx->project,
                                 fx->project,  "--unshare-all",     "--die-with-parent",
                                 "--new-session", COMMAND,          NULL};
    static const char *const firejail[] = {"firejail", "--quiet", COMMAND, NULL};
    /* Without an image, a lower bound of the world lcsb's OCI backend makes:
     * an empty root with the host's system trees bound in read-only. The
     * row keeps a copy of the argv (row_tool), so BINDS may be local. */
    const char *image = getenv("LCSB_BENCH_PODMAN_IMAGE");
    const char *podman[24] = {"podman", "run", "--rm", "--network=none", "--read-only"};
    size_t n = 5;
    char binds[4][32];
    static const char *const trees[] = {"/usr", "/bin", "/lib", "/lib64"};
    for (size_t i = 0; !image && i < sizeof trees / sizeof *trees; i++) {
        if (access(trees[i], F_OK) != 0) continue;
        snprintf(binds[i], sizeof binds[i], "--volume=%s:%s:ro", trees[i], trees[i]);
        podman[n++] = binds[i];
    }
    if (image) {
        podman[n++] = "--pull=never";
        podman[n++] = image;
    } else {
        podman[n++] = "--rootfs";
        podman[n++] = fx->rootfs;
    }
    podman[n++] = COMMAND;
    podman[n] = NULL;
    const char *const lcsb[] = {LCSB_BENCH_CLI, "p.lua", "--", COMMAND, NULL};
    static const char *const start[] = {LCSB_BENCH_CLI, "--version", NULL};

    rows[ROW_BARE] = (struct row){.name = "bare", .label = "bare", .required = true};
    rows[ROW_BARE].argv = strv_copy(bare);
    rows[ROW_SHIM] = (struct row){.name = "shim", .required = true};
    snprintf(rows[ROW_SHIM].label, sizeof rows[ROW_SHIM].label, "shim, %d rules", MAIN_RULES);
    row_shim(&rows[ROW_SHIM], fx, b, MAIN_RULES);
    rows[ROW_LCSB] =
        (struct row){.name = "lcsb", .label = "lcsb p.lua", .required = true, .cwd = fx->project};
    if (b)
        rows[ROW_LCSB].argv = strv_copy(lcsb);
    else
        row_skip(&rows[ROW_LCSB], "no Landlock on this kernel");
    /* The same, with the private HOME and TMPDIR made on a tmpfs. */
    rows[ROW_LCSB_TMPFS] = (struct row){.name = "lcsb_tmpfs",
                                        .label = "lcsb, tmpfs TMPDIR",
                                        .required = true,
                                        .cwd = fx->project,
                                        .env = tmpfs_env};
    if (b)
        rows[ROW_LCSB_TMPFS].argv = strv_copy(lcsb);
    else
        row_skip(&rows[ROW_LCSB_TMPFS], "no Landlock on this kernel");
    /* The CLI's own start and exit, no policy: with the shim row, the floor of lcsb p.lua. */
    rows[ROW_START] =
        (struct row){.name = "lcsb_start", .label = "lcsb --version", .required = true};
    rows[ROW_START].argv = strv_copy(start);
    rows[ROW_BWRAP] = (struct row){.name = "bwrap", .label = "bwrap"};
    row_tool(&rows[ROW_BWRAP], bwrap);
    rows[ROW_FIREJAIL] = (struct row){.name = "firejail", .label = "firejail"};
    row_tool(&rows[ROW_FIREJAIL], firejail);
    rows[ROW_PODMAN] = (struct row){.name = "podman", .label = "podman"};
    row_tool(&rows[ROW_PODMAN], podman);
    for (size_t i = 0; i < MAIN_ROWS; i++) {
        if (rows[i].state == ROW_OK && !rows[i].argv) row_skip(&rows[i], "out of memory");
    }
}

static void scaling_rows(struct row *rows, const struct config *cfg, const struct fixture *fx,
                         const lcsb_backend *b) {
    for (size_t i = 0; i < cfg->scaling_n; i++) {
        rows[i] = (struct row){.name = "shim"};
        snprintf(rows[i].label, sizeof rows[i].label, "%ld", cfg->scaling[i]);
        row_shim(&rows[i], fx, b, cfg->scaling[i]);
    }
}

static void rows_free(struct row *rows, size_t n) {
    for (size_t i = 0; i < n; i++) {
        strv_free(rows[i].argv);
        free(rows[i].ms);
    }
}

/* ---- Micro-benchmarks: µs per call, the median of MICRO_BATCHES batches. ---- */

struct micro_ctx {
    const struct fixture *fx;
    const lcsb_backend *backend;
    const lcsb_policy *policy;
};

typedef int (*micro_fn)(const struct micro_ctx *ctx);

static int wrap_once(const struct micro_ctx *ctx) {
    static const char *const cmd[] = {COMMAND, NULL};
    char **out = NULL;
    int rc = lcsb_backend_wrap(ctx->backend, ctx->policy, cmd, &out, NULL);
    lcsb_argv_free(out);
    return rc;
}

static int build_once(const struct micro_ctx *ctx) {
    lcsb_policy *p = rules_policy(ctx->fx, MICRO_RULES, NULL);
    lcsb_policy_free(p);
    return p ? 0 : -1;
}

static struct micro time_calls(micro_fn fn, const struct micro_ctx *ctx, long calls) {
    struct micro m = {NAN, NAN};
    double batch_us[MICRO_BATCHES];
    long per_batch = calls / MICRO_BATCHES > 0 ? calls / MICRO_BATCHES : 1;
    for (int b = 0; b < MICRO_BATCHES; b++) {
        double start = now_ms();
        for (long i = 0; i < per_batch; i++) {
            if (fn(ctx) != 0) return m;
        }
        batch_us[b] = (now_ms() - start) * 1e3 / (double)per_batch;
    }
    m.median_us = median_of(batch_us, MICRO_BATCHES);
    m.min_us = batch_us[0]; /* sorted by median_of */
    return m;
}

/* ---- Options and main. ---- */

static void usage(FILE *f) {
    fprintf(f, "usage: bench [--quick] [--iterations N] [--json FILE]\n"
               "  --quick          a few rounds and a small scaling set (CI: seconds)\n"
               "  --iterations N   timed rounds over the main rows (default 100; the\n"
               "                   scaling rows get a fifth of that, at least 5)\n"
               "  --json FILE      also write the results as JSON\n"
               "env LCSB_BENCH_PODMAN_IMAGE: a local image for the podman row (default: an empty\n"
               "  root with the host's /usr, /bin, /lib and /lib64 bound in read-only)\n");
}

/* 0, or 1 for --help, or -1 for a usage error. */
static int parse_args(int argc, char **argv, struct config *cfg) {
    int iterations = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--help") == 0) {
            return 1;
        } else if (strcmp(a, "--quick") == 0) {
            cfg->quick = true;
        } else if (strcmp(a, "--iterations") == 0 && i + 1 < argc) {
            char *end;
            long n = strtol(argv[++i], &end, 10);
            if (*end || n < 1 || n > 1000000) return -1;
            iterations = (int)n;
        } else if (strcmp(a, "--json") == 0 && i + 1 < argc) {
            cfg->json_path = argv[++i];
        } else {
            return -1;
        }
    }
    /* Quick mode keeps every row and every micro-benchmark, just fewer runs of
     * each and no policy above 1,000 rules, so that CI exercises it all. */
    cfg->iterations = iterations ? iterations : cfg->quick ? 3 : 100;
    cfg->warmup = cfg->quick ? 1 : 5;
    cfg->scaling_iterations = cfg->quick ? 3 : (cfg->iterations / 5 > 5 ? cfg->iterations / 5 : 5);
    cfg->micro_calls = cfg->quick ? 200 : 20000;
    cfg->rss_runs = cfg->quick ? 1 : 3;
    cfg->scaling = cfg->quick ? quick_scaling : full_scaling;
    cfg->scaling_n = cfg->quick ? sizeof quick_scaling / sizeof *quick_scaling
                                : sizeof full_scaling / sizeof *full_scaling;
    return 0;
}

/* The Landlock backend for this host's ABI, or NULL when it has none. */
static lcsb_backend *host_backend(int *abi) {
    lcsb_capability cap;
    lcsb_backend *b = NULL;
    lcsb_error err = {0};
    *abi = 0;
    if (lcsb_detect(&cap, LCSB_BENCH_SHIM, &err) || !cap.landlock_abi) return NULL;
    *abi = cap.landlock_abi;
    if (lcsb_backend_landlock(cap.landlock_abi, LCSB_BENCH_SHIM, &b, &err)) {
        fprintf(stderr, "bench: landlock backend: %s\n", err.message);
        return NULL;
    }
    return b;
}

/* wrap needs the host's Landlock backend; building a policy needs nothing. */
static void run_micro(struct results *r, const struct fixture *fx, const lcsb_backend *b) {
    struct micro_ctx ctx = {.fx = fx, .backend = b};
    r->build = time_calls(build_once, &ctx, r->cfg->micro_calls);
    lcsb_policy *p = b ? rules_policy(fx, MICRO_RULES, NULL) : NULL;
    ctx.policy = p;
    r->wrap = p ? time_calls(wrap_once, &ctx, r->cfg->micro_calls) : (struct micro){NAN, NAN};
    lcsb_policy_free(p);
}

/* A file in the fixture for what a run says, which setup reads back. */
static int open_scratch(const struct fixture *fx) {
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/scratch", fx->dir);
    return open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
}

/* Everything measured, in this order: correctness first (one verifying run
 * per row), then the timed rounds, then RSS and the micro-benchmarks, which
 * would only disturb the timings if they ran among them. */
static void run_all(struct results *r, const struct fixture *fx, const lcsb_backend *b,
                    int scratch_fd) {
    const struct config *cfg = r->cfg;
    for (size_t i = 0; i < MAIN_ROWS; i++) verify(&r->main[i], scratch_fd);
    for (size_t i = 0; i < cfg->scaling_n; i++) verify(&r->scaling[i], scratch_fd);
    /* podman (and firejail) leave work behind them, podman's clean-up and
     * storage, which slowed whatever ran next by up to a quarter here: they
     * take turns among themselves, after the rows they would otherwise tax. */
    measure(r->main, ROW_FIREJAIL, cfg->warmup, cfg->iterations);
    measure(r->main + ROW_FIREJAIL, MAIN_ROWS - ROW_FIREJAIL, cfg->warmup, cfg->iterations);
    measure(r->scaling, cfg->scaling_n, cfg->warmup, cfg->scaling_iterations);
    measure_rss(r->main, MAIN_ROWS, cfg->rss_runs, scratch_fd);
    measure_rss(r->scaling, cfg->scaling_n, cfg->rss_runs, scratch_fd);
    r->fit_us = per_rule_fit_us(r->scaling, cfg->scaling_n);
    run_micro(r, fx, b);
}

int main(int argc, char **argv) {
    struct config cfg = {0};
    int parsed = parse_args(argc, argv, &cfg);
    if (parsed) {
        usage(parsed > 0 ? stdout : stderr);
        return parsed > 0 ? 0 : 2;
    }
    struct fixture fx = {0};
    struct row rows[MAIN_ROWS] = {0}, scaling[sizeof full_scaling / sizeof *full_scaling] = {0};
    struct results r = {.cfg = &cfg, .main = rows, .scaling = scaling};
    int status = 2, scratch = -1;
    devnull = open("/dev/null", O_RDWR | O_CLOEXEC);
    lcsb_backend *b = host_backend(&r.abi);
    /* The environment after the fixture, which names its trust store in it. */
    bool ready = devnull >= 0 && fixture_init(&fx, (size_t)cfg.scaling[cfg.scaling_n - 1]);
    if (ready) {
        run_env = make_env();
        tmpfs_env = with_tmpfs_tmpdir(run_env);
    }
    if (!ready || !run_env || (scratch = open_scratch(&fx)) < 0) {
        perror("bench: setup");
        goto out;
    }
    main_rows(rows, &fx, b);
    scaling_rows(scaling, &cfg, &fx, b);
    run_all(&r, &fx, b, scratch);
    report(&r);
    status = 0;
    for (size_t i = 0; i < MAIN_ROWS; i++) {
        if (rows[i].required && rows[i].state == ROW_FAILED) status = 1;
    }
out:
    if (scratch >= 0) close(scratch);
    rows_free(rows, MAIN_ROWS);
    rows_free(scaling, cfg.scaling_n);
    fixture_free(&fx);
    lcsb_backend_free(b);
    free(run_env);
    free(tmpfs_env);
    if (devnull >= 0) close(devnull);
    return status;
}
