/*
 * bench: what lcsb costs in front of a command, measured side by side.
 *
 * Every row runs /bin/true (posix_spawn, then waitpid) and is timed from the
 * spawn to the reaping: bare, the shim alone under a 30-rule policy, lcsb end
 * to end with an exec_policy, the same with net.domains (a network of the
 * command's own and lcsb's proxy), lcsb's own start (--version), and bwrap,
 * firejail and podman where installed. Issue 28's rows (compile once, run
 * many): real policies (the smallest exec_policy, a C build's, a shell
 * script's with git and Python), each warm and cold (its plan cache emptied
 * before every run), and a host program that compiles a policy once and runs
 * every command with lcsb_run (bench-embedded, driven over a socket so that
 * its runs take their turns too, timing each itself). The rows are
 * interleaved round-robin so that a noisy moment of the machine lands on all
 * of them alike (podman and firejail take their turns after the others: what
 * they leave behind would slow the next row). Then the shim's cost per path
 * rule (10 to 20,000 rules), the cost of lcsb_backend_wrap and of building a
 * policy with the C API, each row's peak RSS (through bench-rss), and the
 * system calls of lcsb's own process in a run of each policy row (strace -c,
 * without -f). And the proxy's throughput: curl downloading 100 MiB from an
 * HTTP server in a thread of the harness, directly and under lcsb through
 * the proxy (an absolute-URI GET, and a CONNECT tunnel), in turns. A table
 * goes to stdout, the same numbers as JSON to --json FILE (report.c writes
 * both; bench.h is what the two files share).
 *
 * A row that cannot run here (no Landlock, a tool not installed) is skipped
 * with a note; no number is ever made up. The exit status is 1 when a row lcsb
 * itself owns (bare, shim, lcsb, its start, issue 28's, a download through
 * its proxy) fails to run, whatever the timings: the benchmark asserts
 * nothing about time.
 */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <lcsb.h>
#include <limits.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench.h"
#include "fixture.h"
#include "plans.h"
#include "process.h"
#include "served.h"
#include "syscalls.h"
#include "throughput.h"
#include "util.h"

static const long full_scaling[] = {10, 100, 1000, 5000, 20000};
static const long quick_scaling[] = {10, 100, 1000};

/* ---- Runs. ---- */

/* One untimed run whose stderr is kept in SCRATCH_FD, so that a row that
 * cannot work here says why instead of counting failures as times. A
 * served row's host starts here. */
static void verify(struct row *row, int scratch_fd) {
    if (row->state != ROW_OK) return;
    if (row->served) {
        double ms;
        if (served_start(row, scratch_fd)) served_run(row, &ms);
        return;
    }
    before_run(row);
    int status = spawn_wait(row->argv, row->cwd, row->env, devnull, scratch_fd);
    char first[160];
    take_first_line(scratch_fd, first, sizeof first);
    if (status != 0) row_fail(row, status, first);
}

/* One timed run of ROW, into *MS: its wait status (a served row says its
 * own time, and fails itself). */
static int timed_run(struct row *row, double *ms) {
    if (row->served) return served_run(row, ms) == 0 ? 0 : -1;
    before_run(row);
    double start = now_ms();
    int status = spawn_wait(row->argv, row->cwd, row->env, devnull, devnull);
    *ms = now_ms() - start;
    return status;
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
            double ms;
            int status = timed_run(row, &ms);
            if (row->state != ROW_OK) continue;
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
        /* A served row's host is one process for all its runs: not weighed. */
        bool weighed = row->state == ROW_OK && !row->served;
        while (weighed && row->argv[argc]) argc++;
        char **argv = weighed ? calloc(argc + 2, sizeof *argv) : NULL;
        if (!argv) continue;
        argv[0] = LCSB_BENCH_RSS;
        memcpy(argv + 1, row->argv, argc * sizeof *argv);
        for (int t = 0; t < tries; t++) {
            char out[32];
            before_run(row);
            int status = spawn_wait(argv, row->cwd, row->env, scratch_fd, devnull);
            take_first_line(scratch_fd, out, sizeof out);
            long kib = status == 0 ? strtol(out, NULL, 10) : 0;
            if (kib > row->peak_rss_kib) row->peak_rss_kib = kib;
        }
        free(argv);
    }
}

/* ---- The rows. ---- */

static void row_skip(struct row *row, const char *note) {
    row->state = ROW_SKIPPED;
    snprintf(row->note, sizeof row->note, "%s", note);
}

static void row_shim(struct row *row, const struct fixture *fx, const lcsb_backend *b, long nrules,
                     enum layout layout) {
    row->rules = nrules;
    /* The command's world holds the policy's paths only: stand in one. */
    row->cwd = "/usr";
    lcsb_error err = {0};
    if (!b) {
        row_skip(row, "no Landlock on this kernel");
    } else if (!(row->argv = shim_argv(fx, b, nrules, layout, &err))) {
        row->state = ROW_FAILED;
        snprintf(row->note, sizeof row->note, "policy: %.200s", err.message);
    }
}

/* The shim running the argv lcsb_prepare makes of exec_policy{} (p.lua)
 * for COMMAND once, with lcsb_env_block's environment: what a host that
 * prepares a policy once and runs many commands pays for each. */
static void row_prepared(struct row *row, struct fixture *fx, const lcsb_backend *b) {
    static const char *const cmd[] = {COMMAND, NULL};
    char here[PATH_MAX], path[PATH_MAX];
    lcsb_script_options opts;
    lcsb_error err = {0};
    char **final = NULL;
    if (!b) {
        row_skip(row, "no Landlock on this kernel");
        return;
    }
    lcsb_script_options_init(&opts);
    opts.lua_dir = LCSB_BENCH_LUA_DIR;
    opts.shim = LCSB_BENCH_SHIM;
    opts.trust = LCSB_TRUST_SKIP; /* the bench's own script */
    snprintf(path, sizeof path, "%s/p.lua", fx->project);
    /* The script takes the working directory for the project, as lcsb does. */
    bool ok = getcwd(here, sizeof here) && chdir(fx->project) == 0 &&
              !lcsb_script_open(path, cmd, &opts, &fx->script, &err) &&
              !lcsb_prepare(b, lcsb_script_policy(fx->script), NULL, cmd, &final, NULL, &err) &&
              !lcsb_env_block(b, lcsb_script_policy(fx->script), (const char *const *)run_env,
                              &fx->prepared_env, &err);
    if (chdir(here) != 0) ok = false;
    if (ok && (row->argv = strv_copy((const char *const *) final))) row->env = fx->prepared_env;
    lcsb_argv_free(final);
    if (!ok) {
        row->state = ROW_FAILED;
        snprintf(row->note, sizeof row->note, "prepare p.lua: %.200s", err.message);
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

/* A state directory of ROW's own, which its environment (ROW's, else
 * run_env) names as XDG_STATE_HOME, with FILE trusted in it as a user would
 * trust it: the plan cache and the guess live there too, so that emptying a
 * cold row's leaves every other row's as it was, and two rows that run one
 * policy under two environments do not each take the other's guess. */
static void own_state(struct row *row, const struct fixture *fx, const char *file) {
    char dir[PATH_MAX];
    snprintf(dir, sizeof dir, "%s/state-%s", fx->dir, row->name);
    if (asprintf(&row->state_var, "XDG_STATE_HOME=%s", dir) < 0) row->state_var = NULL;
    if (!row->state_var ||
        !(row->own_env = with_var(row->env ? row->env : run_env, row->state_var))) {
        row_skip(row, "out of memory");
        return;
    }
    row->env = row->own_env;
    char *const trust[] = {LCSB_BENCH_CLI, "trust", (char *)file, NULL};
    if (mkdir(dir, 0700) != 0) {
        row->state = ROW_FAILED;
        snprintf(row->note, sizeof row->note, "cannot make %.200s: %s", dir, strerror(errno));
    } else {
        int status = spawn_wait(trust, fx->project, row->env, devnull, devnull);
        if (status != 0) row_fail(row, status, "lcsb trust");
    }
}

/* lcsb FILE -- COMMAND in the project: warm, or COLD (its plan cache
 * emptied before every run), with its system calls counted. */
static void row_policy(struct row *row, const struct fixture *fx, const lcsb_backend *b,
                       const char *file, bool cold) {
    const char *const argv[] = {LCSB_BENCH_CLI, file, "--", COMMAND, NULL};
    row->required = true;
    row->cwd = fx->project;
    row->cold = cold;
    row->count_syscalls = true;
    if (!b) {
        row_skip(row, "no Landlock on this kernel");
        return;
    }
    if ((row->argv = strv_copy(argv))) own_state(row, fx, file);
}

/* The host program that compiles the minimal policy once and runs every
 * command with lcsb_run, or (AHEAD) through one lcsb_runner, which makes
 * each command's world while the one before runs, timing each itself
 * (embedded.c). */
static void row_embedded(struct row *row, const struct config *cfg, const struct fixture *fx,
                         const lcsb_backend *b, struct served *host, bool ahead) {
    char calls[32];
    snprintf(calls, sizeof calls, "%ld", cfg->prepare_calls);
    const char *argv[7] = {LCSB_BENCH_EMBEDDED, "--serve", "--prepare-calls", calls};
    size_t n = 4;
    if (ahead) argv[n++] = "--ahead";
    argv[n] = policies[0].file;
    *row = (struct row){.name = ahead ? "embedded_ahead" : "embedded",
                        .required = true,
                        .cwd = fx->project,
                        .served = host};
    snprintf(row->label, sizeof row->label, "%s", ahead ? "embedded, runner" : "embedded, per run");
    if (!b) {
        row_skip(row, "no Landlock on this kernel");
        return;
    }
    if ((row->argv = strv_copy((const char *const *)argv))) own_state(row, fx, policies[0].file);
}

/* lcsb's own rows, and bare beside them: the shim alone, the shim under the
 * prepared p.lua, lcsb p.lua (as is, with net.domains, with TMPDIR on a
 * tmpfs) and the CLI's own start. */
static void lcsb_rows(struct row *rows, struct fixture *fx, const lcsb_backend *b) {
    static const char *const bare[] = {COMMAND, NULL};
    const char *const lcsb[] = {LCSB_BENCH_CLI, "p.lua", "--", COMMAND, NULL};
    const char *const lcsb_domains[] = {LCSB_BENCH_CLI, "d.lua", "--", COMMAND, NULL};
    static const char *const start[] = {LCSB_BENCH_CLI, "--version", NULL};

    rows[ROW_BARE] = (struct row){.name = "bare", .label = "bare", .required = true};
    rows[ROW_BARE].argv = strv_copy(bare);
    rows[ROW_SHIM] = (struct row){.name = "shim", .required = true};
    snprintf(rows[ROW_SHIM].label, sizeof rows[ROW_SHIM].label, "shim, %d rules", MAIN_RULES);
    row_shim(&rows[ROW_SHIM], fx, b, MAIN_RULES, LAYOUT_TOOLS);
    rows[ROW_PREPARED] = (struct row){
        .name = "shim_prepared", .label = "shim, p.lua", .required = true, .cwd = fx->project};
    row_prepared(&rows[ROW_PREPARED], fx, b);
    rows[ROW_LCSB] =
        (struct row){.name = "lcsb", .label = "lcsb p.lua", .required = true, .cwd = fx->project};
    if (b)
        rows[ROW_LCSB].argv = strv_copy(lcsb);
    else
        row_skip(&rows[ROW_LCSB], "no Landlock on this kernel");
    /* The same with net.domains: the issue allows it 1 ms over lcsb p.lua. */
    rows[ROW_LCSB_DOMAINS] = (struct row){
        .name = "lcsb_domains", .label = "lcsb, domains", .required = true, .cwd = fx->project};
    if (b)
        rows[ROW_LCSB_DOMAINS].argv = strv_copy(lcsb_domains);
    else
        row_skip(&rows[ROW_LCSB_DOMAINS], "no Landlock on this kernel");
    /* The same as lcsb p.lua, with the private HOME and TMPDIR made on a
     * tmpfs. In a state of its own: a run takes the guess (the world made
     * ahead) its script, directory and command last had, and the other
     * TMPDIR makes it the other row's, which no run could use. */
    rows[ROW_LCSB_TMPFS] = (struct row){.name = "lcsb_tmpfs",
                                        .label = "lcsb, tmpfs TMPDIR",
                                        .required = true,
                                        .cwd = fx->project,
                                        .env = tmpfs_env};
    if (b) {
        if ((rows[ROW_LCSB_TMPFS].argv = strv_copy(lcsb)))
            own_state(&rows[ROW_LCSB_TMPFS], fx, "p.lua");
    } else {
        row_skip(&rows[ROW_LCSB_TMPFS], "no Landlock on this kernel");
    }
    /* The CLI's own start and exit, no policy: with the shim row, the floor of lcsb p.lua. */
    rows[ROW_START] =
        (struct row){.name = "lcsb_start", .label = "lcsb --version", .required = true};
    rows[ROW_START].argv = strv_copy(start);
    rows[ROW_START].count_syscalls = true;
}

/* Issue 28's rows: each real policy warm, then cold; then the embedded host. */
static void issue28_rows(struct row *rows, const struct config *cfg, struct fixture *fx,
                         const lcsb_backend *b, struct served *hosts) {
    static const struct {
        const char *name, *label;
    } issue28[] = {
        {"minimal", "lcsb minimal"},
        {"minimal_cold", "lcsb minimal, cold"},
        {"c", "lcsb c"},
        {"c_cold", "lcsb c, cold"},
        {"shell_git_python", "lcsb sh+git+py"},
        {"shell_git_python_cold", "lcsb sh+git+py, cold"},
    };
    for (size_t i = 0; i < sizeof issue28 / sizeof *issue28; i++) {
        struct row *row = &rows[ROW_MINIMAL + i];
        *row = (struct row){.name = issue28[i].name};
        snprintf(row->label, sizeof row->label, "%s", issue28[i].label);
        row_policy(row, fx, b, policies[i / 2].file, i % 2 == 1);
    }
    row_embedded(&rows[ROW_EMBEDDED], cfg, fx, b, &hosts[0], false);
    row_embedded(&rows[ROW_EMBEDDED_AHEAD], cfg, fx, b, &hosts[1], true);
}

/* The peers lcsb is weighed against, where installed: bwrap, firejail, podman. */
static void peer_rows(struct row *rows, const struct fixture *fx) {
    /* bubblewrap as agents' sandboxes configure it (issue 16's line): the
     * host read-only, its own /dev, /proc and /tmp, the project writable,
     * every namespace of its own, dying with its parent, a new session. */
    /* Issue 28's reference, word for word, one option to a line. */
    // clang-format off
    const char *const bwrap[] = {"bwrap",
                                 "--ro-bind", "/", "/",
                                 "--dev", "/dev",
                                 "--proc", "/proc",
                                 "--tmpfs", "/tmp",
                                 "--bind", fx->project, fx->project,
                                 "--unshare-all",
                                 "--die-with-parent",
                                 "--new-session",
                                 COMMAND, NULL};
    // clang-format on
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
    rows[ROW_BWRAP] = (struct row){.name = "bwrap", .label = "bwrap"};
    row_tool(&rows[ROW_BWRAP], bwrap);
    rows[ROW_FIREJAIL] = (struct row){.name = "firejail", .label = "firejail"};
    row_tool(&rows[ROW_FIREJAIL], firejail);
    rows[ROW_PODMAN] = (struct row){.name = "podman", .label = "podman"};
    row_tool(&rows[ROW_PODMAN], podman);
}

static void main_rows(struct row *rows, const struct config *cfg, struct fixture *fx,
                      const lcsb_backend *b, struct served *hosts) {
    lcsb_rows(rows, fx, b);
    issue28_rows(rows, cfg, fx, b, hosts);
    peer_rows(rows, fx);
    for (size_t i = 0; i < MAIN_ROWS; i++) {
        if (rows[i].state == ROW_OK && !rows[i].argv) row_skip(&rows[i], "out of memory");
    }
}

static void scaling_rows(struct row *rows, const struct config *cfg, const struct fixture *fx,
                         const lcsb_backend *b, enum layout layout) {
    for (size_t i = 0; i < cfg->scaling_n; i++) {
        rows[i] = (struct row){.name = "shim"};
        snprintf(rows[i].label, sizeof rows[i].label, "%ld", cfg->scaling[i]);
        row_shim(&rows[i], fx, b, cfg->scaling[i], layout);
    }
}

static void rows_free(struct row *rows, size_t n) {
    for (size_t i = 0; i < n; i++) {
        strv_free(rows[i].argv);
        free(rows[i].ms);
        free(rows[i].state_var);
        free(rows[i].own_env);
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
    lcsb_policy *p = rules_policy(ctx->fx, MICRO_RULES, LAYOUT_TOOLS, NULL);
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
    cfg->transfer_runs = cfg->quick ? 3 : 5;
    cfg->syscall_runs = cfg->quick ? 1 : 3;
    cfg->prepare_calls = cfg->quick ? 50 : 1000;
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
    lcsb_policy *p = b ? rules_policy(fx, MICRO_RULES, LAYOUT_TOOLS, NULL) : NULL;
    ctx.policy = p;
    r->wrap = p ? time_calls(wrap_once, &ctx, r->cfg->micro_calls) : (struct micro){NAN, NAN};
    lcsb_policy_free(p);
}

/* A file NAME in the fixture for what a run says, which the harness reads back. */
static int open_scratch(const struct fixture *fx, const char *name) {
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/%s", fx->dir, name);
    return open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
}

/* Everything measured, in this order: correctness first (one verifying run
 * per row), then the timed rounds, then the downloads (seconds of both
 * CPUs busy, which would only disturb the rows if they ran among them),
 * then RSS, the system calls and the micro-benchmarks, for the same reason. */
static void run_all(struct results *r, const struct fixture *fx, const lcsb_backend *b,
                    int scratch_fd, int err_fd) {
    const struct config *cfg = r->cfg;
    for (size_t i = 0; i < MAIN_ROWS; i++) verify(&r->main[i], scratch_fd);
    for (size_t l = 0; l < LAYOUTS; l++)
        for (size_t i = 0; i < cfg->scaling_n; i++) verify(&r->scaling[l][i], scratch_fd);
    /* podman (and firejail) leave work behind them, podman's clean-up and
     * storage, which slowed whatever ran next by up to a quarter here: they
     * take turns among themselves, after the rows they would otherwise tax. */
    measure(r->main, ROW_FIREJAIL, cfg->warmup, cfg->iterations);
    /* The host's last words (lcsb_prepare timed, after_run) before anything
     * else runs; then what the plan caches hold. */
    served_end(&r->main[ROW_EMBEDDED]);
    served_end(&r->main[ROW_EMBEDDED_AHEAD]);
    plans_look(r->main, MAIN_ROWS);
    measure(r->main + ROW_FIREJAIL, MAIN_ROWS - ROW_FIREJAIL, cfg->warmup, cfg->iterations);
    for (size_t l = 0; l < LAYOUTS; l++)
        measure(r->scaling[l], cfg->scaling_n, cfg->warmup, cfg->scaling_iterations);
    measure_transfers(r->net, cfg->transfer_runs, scratch_fd, err_fd);
    measure_rss(r->main, MAIN_ROWS, cfg->rss_runs, scratch_fd);
    for (size_t l = 0; l < LAYOUTS; l++) {
        measure_rss(r->scaling[l], cfg->scaling_n, cfg->rss_runs, scratch_fd);
        r->fit_us[l] = per_rule_fit_us(r->scaling[l], cfg->scaling_n);
    }
    count_syscalls(r->main, MAIN_ROWS, fx, cfg->syscall_runs, r->strace, sizeof r->strace,
                   scratch_fd);
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
    struct row rows[MAIN_ROWS] = {0},
               scaling[LAYOUTS][sizeof full_scaling / sizeof *full_scaling] = {{{0}}};
    struct throughput net = {0};
    struct server srv = {.fd = -1}, tls = {.fd = -1};
    struct served hosts[2] = {{.fd = -1}, {.fd = -1}};
    struct results r = {.cfg = &cfg,
                        .main = rows,
                        .scaling = {scaling[0], scaling[1]},
                        .net = &net,
                        .embedded = &hosts[0],
                        .embedded_ahead = &hosts[1]};
    int status = 2, scratch = -1, scratch_err = -1;
    devnull = open("/dev/null", O_RDWR | O_CLOEXEC);
    lcsb_backend *b = host_backend(&r.abi);
    /* The environment after the fixture, which names its trust store in it. */
    bool ready = devnull >= 0 && fixture_init(&fx, (size_t)cfg.scaling[cfg.scaling_n - 1]);
    if (ready) {
        run_env = make_env();
        tmpfs_env = with_tmpfs_tmpdir(run_env);
    }
    /* strace's summary file too, made now: a file made in the fixture's
     * directory later changes what the rows' plans rest on (the caps' plan
     * rests on the directory their state is in), and the counts after it
     * would count plans made again. */
    int counts = ready ? open_scratch(&fx, "strace.txt") : -1;
    if (counts >= 0) close(counts);
    if (!ready || !run_env || counts < 0 || (scratch = open_scratch(&fx, "scratch")) < 0 ||
        (scratch_err = open_scratch(&fx, "scratch-err")) < 0) {
        perror("bench: setup");
        goto out;
    }
    main_rows(rows, &cfg, &fx, b, hosts);
    for (size_t l = 0; l < LAYOUTS; l++) scaling_rows(scaling[l], &cfg, &fx, b, l);
    transfer_rows(&net, &srv, &tls, &fx, b);
    run_all(&r, &fx, b, scratch, scratch_err);
    report(&r);
    status = 0;
    for (size_t i = 0; i < MAIN_ROWS; i++) {
        if (rows[i].required && rows[i].state == ROW_FAILED) status = 1;
    }
    for (size_t i = 0; i < TRANSFERS; i++) {
        if (net.t[i].required && net.t[i].state == ROW_FAILED) status = 1;
    }
out:
    served_end(&rows[ROW_EMBEDDED]);
    served_end(&rows[ROW_EMBEDDED_AHEAD]);
    server_stop(&srv);
    server_stop(&tls);
    transfers_free(&net);
    if (scratch >= 0) close(scratch);
    if (scratch_err >= 0) close(scratch_err);
    rows_free(rows, MAIN_ROWS);
    for (size_t l = 0; l < LAYOUTS; l++) rows_free(scaling[l], cfg.scaling_n);
    fixture_free(&fx);
    lcsb_backend_free(b);
    free(run_env);
    free(tmpfs_env);
    if (devnull >= 0) close(devnull);
    return status;
}
