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
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <lcsb.h>
#include <limits.h>
#include <math.h>
#include <netdb.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"
#include "util.h"

extern char **environ;

static const long full_scaling[] = {10, 100, 1000, 5000, 20000};
static const long quick_scaling[] = {10, 100, 1000};

/* The temporary directory the policies point into, and lcsb's project. */
struct fixture {
    char dir[64];
    char project[96];
    char rootfs[96];   /* the podman row's root: empty, the host's system bound in */
    char **exec_files; /* what running COMMAND executes, from lcsb_resolve_program */
    /* Empty files for the policies' other rules, in each layout, their
     * paths made once so that building a policy times lcsb, not snprintf.
     * Short names: 20,000 of them travel on the shim's argv. */
    char **filler[LAYOUTS];
    size_t files[LAYOUTS];
    /* p.lua run once through the C API, as a host that prepares a policy
     * once would: its private HOME and TMPDIR live until it is closed. */
    lcsb_script *script;
    char **prepared_env; /* lcsb_env_block's, for the prepared argv */
};

/* What every run shares: one environment and one /dev/null. tmpfs_env is
 * the same with TMPDIR on a tmpfs, where lcsb makes the private HOME and
 * TMPDIR: on some disks a mkdir alone costs a millisecond. */
static char **run_env, **tmpfs_env;
static int devnull = -1;

/* ---- Small helpers. ---- */

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

/* ENV with VAR ("NAME=VALUE", not copied) in place of any NAME=. */
static char **with_var(char **env, const char *var) {
    size_t n = 0, name = strcspn(var, "=") + 1;
    while (env && env[n]) n++;
    char **out = env ? calloc(n + 2, sizeof *out) : NULL;
    size_t k = 0;
    for (size_t i = 0; out && i < n; i++)
        if (strncmp(env[i], var, name) != 0) out[k++] = env[i];
    if (out) out[k] = (char *)var;
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

/* What went wrong with a run of ARGV0, from spawn_wait's STATUS, into NOTE. */
static void status_note(char *note, size_t size, const char *argv0, int status,
                        const char *detail) {
    if (status == -1)
        snprintf(note, size, "cannot run %s: %s", argv0, strerror(errno));
    else if (WIFEXITED(status))
        snprintf(note, size, "exit status %d%s%s", WEXITSTATUS(status), *detail ? ": " : "",
                 detail);
    else
        snprintf(note, size, "killed by signal %d", WTERMSIG(status));
}

static void row_fail(struct row *row, int status, const char *detail) {
    row->state = ROW_FAILED;
    status_note(row->note, sizeof row->note, row->argv[0], status, detail);
}

/* The first line FD holds, and FD emptied for the next run. */
static void take_first_line(int fd, char *out, size_t size) {
    ssize_t n = pread(fd, out, size - 1, 0);
    out[n > 0 ? n : 0] = '\0';
    out[strcspn(out, "\n")] = '\0';
    if (ftruncate(fd, 0) != 0 || lseek(fd, 0, SEEK_SET) != 0) out[0] = '\0';
}

/* ---- The plan cache (issue 28): $XDG_STATE_HOME/lcsb/plans, a row's own. ---- */

/* ROW's plans directory into OUT; false when the row has no state of its own. */
static bool plans_dir(const struct row *row, char *out, size_t size) {
    return row->state_var &&
           snprintf(out, size, "%s/lcsb/plans", strchr(row->state_var, '=') + 1) < (int)size;
}

/* How many entries ROW's plans directory holds, each removed first when
 * REMOVE; -1 when there is no such directory, which is no error: lcsb has
 * kept no plan there (yet). */
static long plans_entries(const struct row *row, bool remove) {
    char dir[PATH_MAX], path[PATH_MAX + 256];
    DIR *d = plans_dir(row, dir, sizeof dir) ? opendir(dir) : NULL;
    if (!d) return -1;
    long n = 0;
    for (struct dirent *e; (e = readdir(d));) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
        n++;
        if (remove && snprintf(path, sizeof path, "%s/%s", dir, e->d_name) < (int)sizeof path)
            remove_tree(path);
    }
    closedir(d);
    return n;
}

/* What comes before each of ROW's runs, outside the timed window: a cold
 * row's plan cache emptied, as if lcsb had never run its policy. */
static void before_run(struct row *row) {
    if (!row->cold) return;
    long n = plans_entries(row, true);
    if (n >= 0) {
        row->plans.seen = true;
        row->plans.removed += n;
        row->plans.emptied++;
    }
}

/* After the timed rounds: whether each row's plans directory is there, and
 * what it holds (a warm row's plans, a cold row's last run's). */
static void plans_look(struct row *rows, size_t n) {
    for (size_t i = 0; i < n; i++) {
        long entries = plans_entries(&rows[i], false);
        if (entries < 0) continue;
        rows[i].plans.seen = true;
        rows[i].plans.entries = entries;
    }
}

/* ---- A host program bench drives: bench-embedded --serve. ---- */

/* A line from the socket FD into OUT, without its newline; false at its end.
 * Byte by byte: a few bytes a run, and the host times its runs itself. */
static bool read_line(int fd, char *out, size_t size) {
    size_t n = 0;
    for (;;) {
        char c;
        ssize_t got = recv(fd, &c, 1, 0);
        if (got < 0 && errno == EINTR) continue;
        if (got <= 0 || c == '\n') {
            out[n] = '\0';
            return got > 0;
        }
        if (n + 1 < size) out[n++] = c;
    }
}

/* ROW failed with what its host said ("error WHY"), or with the end of it. */
static void served_fail(struct row *row, const char *line) {
    row->state = ROW_FAILED;
    if (strncmp(line, "error ", 6) == 0)
        snprintf(row->note, sizeof row->note, "%.250s", line + 6);
    else
        snprintf(row->note, sizeof row->note, "bench-embedded ended (\"%.200s\")", line);
}

/* The host started in ROW's directory and environment, its stderr to
 * ERR_FD, and its "ready" line read: false with ROW failed otherwise. */
static bool served_start(struct row *row, int err_fd) {
    struct served *h = row->served;
    int sv[2];
    char line[1200];
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0) {
        row_fail(row, -1, "");
        return false;
    }
    posix_spawn_file_actions_t fa;
    int rc = posix_spawn_file_actions_init(&fa);
    if (!rc) rc = posix_spawn_file_actions_adddup2(&fa, devnull, STDIN_FILENO);
    if (!rc) rc = posix_spawn_file_actions_adddup2(&fa, devnull, STDOUT_FILENO);
    if (!rc) rc = posix_spawn_file_actions_adddup2(&fa, err_fd, STDERR_FILENO);
    if (!rc) rc = posix_spawn_file_actions_adddup2(&fa, sv[1], 3);
    if (!rc) rc = posix_spawn_file_actions_addchdir_np(&fa, row->cwd);
    if (!rc) rc = posix_spawn(&h->pid, row->argv[0], &fa, NULL, row->argv, row->env);
    posix_spawn_file_actions_destroy(&fa);
    close(sv[1]);
    h->fd = sv[0];
    if (rc) {
        h->pid = 0;
        errno = rc;
        row_fail(row, -1, "");
        return false;
    }
    if (!read_line(h->fd, line, sizeof line) ||
        sscanf(line, "ready %lf %lf %lf", &h->open_ms, &h->select_ms, &h->validate_ms) != 3) {
        served_fail(row, line);
        return false;
    }
    return true;
}

/* One run through the host: 0 with its time in *MS, or -1 with ROW failed. */
static int served_run(struct row *row, double *ms) {
    struct served *h = row->served;
    char line[1200] = "";
    if (send(h->fd, "run\n", 4, MSG_NOSIGNAL) != 4 || !read_line(h->fd, line, sizeof line) ||
        sscanf(line, "ok %lf", ms) != 1) {
        served_fail(row, line);
        return -1;
    }
    return 0;
}

/* The host told its runs are over, its last line read (what lcsb_prepare
 * costs per call, lcsb_script_after_run once), and reaped. */
static void served_end(struct row *row) {
    struct served *h = row->served;
    if (!h || h->fd < 0) return;
    char line[1200] = "";
    /* A host whose row failed has nothing more to say. */
    if (row->state == ROW_FAILED && h->pid > 0) kill(h->pid, SIGTERM);
    shutdown(h->fd, SHUT_WR);
    if (row->state == ROW_OK) {
        if (read_line(h->fd, line, sizeof line) &&
            sscanf(line, "done %lf %lf", &h->prepare_us, &h->after_run_ms) == 2)
            h->done = true;
        else
            served_fail(row, line);
    }
    close(h->fd);
    h->fd = -1;
    while (h->pid > 0 && waitpid(h->pid, NULL, 0) < 0 && errno == EINTR) {
    }
    h->pid = 0;
}

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

/* ---- System calls of lcsb's own process: strace -c, without -f. ---- */

/* strace -c's summary at PATH (-S calls: the most frequent first) into SYS:
 * its total and the first SYSCALLS_TOP calls. False when it has no total. */
static bool parse_strace(const char *path, struct syscalls *sys) {
    FILE *f = fopen(path, "r");
    char line[256];
    bool total = false;
    sys->ntop = 0;
    while (f && fgets(line, sizeof line, f)) {
        if (line[0] == '%' || line[0] == '-') continue;
        /* % time, seconds, usecs/call, calls, errors (blank when none), syscall */
        char *tok[7];
        size_t n = 0;
        for (char *save = NULL, *t = strtok_r(line, " \t\n", &save); t && n < 7;
             t = strtok_r(NULL, " \t\n", &save))
            tok[n++] = t;
        if (n != 5 && n != 6) continue;
        long calls = strtol(tok[3], NULL, 10), errors = n == 6 ? strtol(tok[4], NULL, 10) : 0;
        if (strcmp(tok[n - 1], "total") == 0) {
            sys->total = calls;
            sys->errors = errors;
            total = true;
        } else if (sys->ntop < SYSCALLS_TOP) {
            snprintf(sys->top[sys->ntop].name, sizeof sys->top[0].name, "%s", tok[n - 1]);
            sys->top[sys->ntop++].calls = calls;
        }
    }
    if (f) fclose(f);
    return total;
}

static int cmp_total(const void *a, const void *b) {
    long x = ((const struct syscalls *)a)->total, y = ((const struct syscalls *)b)->total;
    return (x > y) - (x < y);
}

/* ROW's argv under strace -c: RUNS runs, each untimed (a cold row's plans
 * removed first), the run with the median total kept in ROW->sys. strace
 * follows no child (no -f): what the shim and the command do is theirs, and
 * what a run costs in lcsb's own process is what the plan cache can save. */
static void count_row(struct row *row, const char *strace, const char *out, int runs,
                      int scratch_fd) {
    struct syscalls *sys = &row->sys;
    size_t argc = 0;
    while (row->argv[argc]) argc++;
    const char *head[] = {strace, "-c", "-S", "calls", "-o", out};
    size_t nhead = sizeof head / sizeof *head;
    char **argv = calloc(nhead + argc + 1, sizeof *argv);
    struct syscalls *each = calloc((size_t)runs, sizeof *each);
    if (!argv || !each) {
        sys->state = ROW_FAILED;
        snprintf(sys->note, sizeof sys->note, "out of memory");
        goto out;
    }
    memcpy(argv, head, sizeof head);
    memcpy(argv + nhead, row->argv, argc * sizeof *argv);
    for (int r = 0; r < runs; r++) {
        char first[160];
        before_run(row);
        int status = spawn_wait(argv, row->cwd, row->env, devnull, scratch_fd);
        take_first_line(scratch_fd, first, sizeof first);
        if (status == 0 && parse_strace(out, &each[r])) continue;
        sys->state = ROW_FAILED;
        if (status != 0)
            status_note(sys->note, sizeof sys->note, "strace", status, first);
        else
            snprintf(sys->note, sizeof sys->note, "strace -c wrote no summary");
        goto out;
    }
    qsort(each, (size_t)runs, sizeof *each, cmp_total);
    *sys = each[runs / 2];
    sys->state = ROW_OK;
    sys->runs = runs;
    sys->min_total = each[0].total;
    sys->max_total = each[runs - 1].total;
out:
    free(argv);
    free(each);
}

/* The rows that count their system calls, after their timed rounds (the
 * rows run warm, as measured). With no strace here, each says so: a count
 * not taken is never a zero. */
static void count_syscalls(struct row *rows, size_t n, const struct fixture *fx, int runs,
                           char *version, size_t size, int scratch_fd) {
    char strace[PATH_MAX], out[PATH_MAX];
    bool have = find_program("strace", strace, sizeof strace);
    snprintf(out, sizeof out, "%s/strace.txt", fx->dir);
    version[0] = '\0';
    if (have) {
        char *const v[] = {strace, "-V", NULL};
        if (spawn_wait(v, NULL, NULL, scratch_fd, devnull) == 0)
            take_first_line(scratch_fd, version, size);
        else
            take_first_line(scratch_fd, version, 1);
    }
    for (size_t i = 0; i < n; i++) {
        struct row *row = &rows[i];
        if (!row->count_syscalls) continue;
        row->sys.state = ROW_SKIPPED;
        if (!have)
            snprintf(row->sys.note, sizeof row->sys.note,
                     "strace is not installed (scripts/deps.sh installs it)");
        else if (row->state != ROW_OK)
            snprintf(row->sys.note, sizeof row->sys.note, "the row did not run");
        else
            count_row(row, strace, out, runs, scratch_fd);
    }
}

/* ---- The fixture and the policies. ---- */

static void fixture_free(struct fixture *fx) {
    lcsb_argv_free(fx->prepared_env);
    if (fx->script) (void)lcsb_script_close(fx->script, NULL);
    if (fx->dir[0]) remove_tree(fx->dir);
    lcsb_argv_free(fx->exec_files);
    for (size_t l = 0; l < LAYOUTS; l++) {
        for (size_t i = 0; i < fx->files[l]; i++) free(fx->filler[l][i]);
        free(fx->filler[l]);
    }
}

static bool write_file(const char *path, const char *text) {
    FILE *f = fopen(path, "w");
    bool ok = f && fputs(text, f) >= 0;
    if (f && fclose(f) != 0) ok = false;
    return ok;
}

/* FILES empty files laid out as LAYOUT says, under DIR/t (in directories of
 * TOOL_DIR) or DIR/l (one to a directory). */
static bool make_filler(struct fixture *fx, enum layout layout, size_t files) {
    char **v = calloc(files, sizeof *v);
    /* fx->dir is short (mkdtemp's): these hold any path made of it. */
    char path[PATH_MAX + 32], dir[PATH_MAX];
    if (!(fx->filler[layout] = v)) return false;
    snprintf(dir, sizeof dir, "%s/%s", fx->dir, layout == LAYOUT_TOOLS ? "t" : "l");
    if (mkdir(dir, 0755) != 0) return false;
    for (size_t i = 0; i < files; i++, fx->files[layout]++) {
        size_t d = layout == LAYOUT_TOOLS ? i / TOOL_DIR : i;
        snprintf(dir, sizeof dir, "%s/%s/%zu", fx->dir, layout == LAYOUT_TOOLS ? "t" : "l", d);
        if ((layout == LAYOUT_LONE || i % TOOL_DIR == 0) && mkdir(dir, 0755) != 0) return false;
        if (layout == LAYOUT_TOOLS)
            snprintf(path, sizeof path, "%s/%zu", dir, i % TOOL_DIR);
        else
            snprintf(path, sizeof path, "%s/f", dir);
        int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
        if (fd < 0 || close(fd) != 0 || !(v[i] = strdup(path))) return false;
    }
    return true;
}

/* NAME in the project, trusted as a user would trust it, in the store that
 * XDG_STATE_HOME names (the bench's own): the lcsb rows pay for the check
 * of it, as every real run does. */
static bool trust_policy(const struct fixture *fx, const char *name) {
    char trust[3 * PATH_MAX + 64];
    snprintf(trust, sizeof trust, "cd '%s' && '%s' trust %s >/dev/null 2>&1", fx->project,
             LCSB_BENCH_CLI, name);
    if (system(trust) == 0) return true;
    fprintf(stderr, "bench: cannot trust %s/%s\n", fx->project, name);
    return false;
}

/* Issue 28's policies, real ones as a project keeps them: the smallest
 * exec_policy, a C build's, and a shell script's that runs git and Python.
 * Each is a file in the project, trusted, run as lcsb POLICY -- COMMAND. */
static const struct {
    const char *file, *text;
} policies[] = {
    {"minimal.lua",
     "return function(run) return require(\"lcsb\").exec_policy { project = run.cwd } end\n"},
    {"c.lua", "local lcsb = require(\"lcsb\")\n"
              "return function(run)\n"
              "  return lcsb.exec_policy {\n"
              "    project = run.cwd,\n"
              "    exec = { lcsb.tools.c, built = true },\n"
              "  }\n"
              "end\n"},
    {"shell-git-python.lua", "local lcsb = require(\"lcsb\")\n"
                             "return function(run)\n"
                             "  return lcsb.exec_policy {\n"
                             "    project = run.cwd,\n"
                             "    exec = { lcsb.tools.shell, lcsb.tools.git, lcsb.tools.python },\n"
                             "  }\n"
                             "end\n"},
};

static bool fixture_init(struct fixture *fx, size_t files) {
    snprintf(fx->dir, sizeof fx->dir, "/tmp/lcsb-bench.XXXXXX");
    if (!mkdtemp(fx->dir)) {
        fx->dir[0] = '\0';
        return false;
    }
    for (size_t l = 0; l < LAYOUTS; l++)
        if (!make_filler(fx, l, files)) return false;
    char path[PATH_MAX], domains[PATH_MAX];
    snprintf(fx->project, sizeof fx->project, "%s/project", fx->dir);
    snprintf(path, sizeof path, "%s/p.lua", fx->project);
    /* The same policy with a network by name: what the lcsb_domains row
     * adds to lcsb's is the network namespace and the proxy. The name is
     * never asked for: /bin/true connects nowhere. */
    snprintf(domains, sizeof domains, "%s/d.lua", fx->project);
    lcsb_error err = {0};
    if (mkdir(fx->project, 0755) != 0 ||
        !write_file(path, "return require(\"lcsb\").exec_policy{}\n") ||
        !write_file(domains, "return require(\"lcsb\").exec_policy{ net = { domains = { "
                             "\"example.com\" } } }\n"))
        return false;
    char state[PATH_MAX + 16];
    snprintf(state, sizeof state, "%s/state", fx->dir);
    if (setenv("XDG_STATE_HOME", state, 1) != 0 || !trust_policy(fx, "p.lua") ||
        !trust_policy(fx, "d.lua"))
        return false;
    /* Trusted by each row that runs them, in a state directory of its own. */
    for (size_t i = 0; i < sizeof policies / sizeof *policies; i++) {
        snprintf(path, sizeof path, "%s/%s", fx->project, policies[i].file);
        if (!write_file(path, policies[i].text)) return false;
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
 * execute its files), then read rules on filler files of LAYOUT up to
 * NRULES. */
static lcsb_policy *rules_policy(const struct fixture *fx, long nrules, enum layout layout,
                                 lcsb_error *err) {
    lcsb_policy *p = lcsb_policy_new();
    if (!p) return NULL;
    int rc = lcsb_policy_add_read(p, "/usr", err);
    if (!rc) rc = lcsb_policy_add_read(p, "/etc", err);
    long have = 2;
    for (size_t i = 0; !rc && fx->exec_files[i]; i++, have++)
        rc = lcsb_policy_add_exec(p, fx->exec_files[i], err);
    for (size_t i = 0; !rc && have < nrules && i < fx->files[layout]; i++, have++)
        rc = lcsb_policy_add_read(p, fx->filler[layout][i], err);
    if (rc) {
        lcsb_policy_free(p);
        return NULL;
    }
    return p;
}

/* The shim's argv for COMMAND under a policy of NRULES rules, validated first
 * so that a policy the host refuses says so by name. */
static char **shim_argv(const struct fixture *fx, const lcsb_backend *b, long nrules,
                        enum layout layout, lcsb_error *err) {
    static const char *const cmd[] = {COMMAND, NULL};
    lcsb_policy *p = rules_policy(fx, nrules, layout, err);
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

/* A state directory of ROW's own, which its environment names as
 * XDG_STATE_HOME, with FILE trusted in it as a user would trust it: the
 * plan cache lives there too, so that emptying a cold row's leaves every
 * other row's as it was. */
static void own_state(struct row *row, const struct fixture *fx, const char *file) {
    char dir[PATH_MAX];
    snprintf(dir, sizeof dir, "%s/state-%s", fx->dir, row->name);
    if (asprintf(&row->state_var, "XDG_STATE_HOME=%s", dir) < 0) row->state_var = NULL;
    if (!row->state_var || !(row->own_env = with_var(run_env, row->state_var))) {
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
 * command with lcsb_run, timing each itself (embedded.c). */
static void row_embedded(struct row *row, const struct config *cfg, const struct fixture *fx,
                         const lcsb_backend *b, struct served *host) {
    char calls[32];
    snprintf(calls, sizeof calls, "%ld", cfg->prepare_calls);
    const char *const argv[] = {LCSB_BENCH_EMBEDDED, "--serve", "--prepare-calls", calls,
                                policies[0].file,    NULL};
    *row = (struct row){.name = "embedded",
                        .label = "embedded, per run",
                        .required = true,
                        .cwd = fx->project,
                        .served = host};
    if (!b) {
        row_skip(row, "no Landlock on this kernel");
        return;
    }
    if ((row->argv = strv_copy(argv))) own_state(row, fx, policies[0].file);
}

static void main_rows(struct row *rows, const struct config *cfg, struct fixture *fx,
                      const lcsb_backend *b, struct served *host) {
    static const char *const bare[] = {COMMAND, NULL};
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
    /* The same as lcsb p.lua, with the private HOME and TMPDIR made on a tmpfs. */
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
    rows[ROW_START].count_syscalls = true;
    /* Issue 28's: each policy warm, then cold; then the embedded host. */
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
    row_embedded(&rows[ROW_EMBEDDED], cfg, fx, b, host);
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

/* ---- The proxy's throughput: a download through it against a direct one. ---- */

/* What the server sends: zeros, TRANSFER_BYTES of them in writes of this
 * size, so that the server does no work per byte but its send (no file to
 * read, nothing to fill in) and as few sends as the socket takes. */
static char payload[4 << 20];

/* The bench's HTTP server, in a thread of the harness: listening on the
 * loopback address the host's name resolves to, port 0. */
struct server {
    int fd;
    pthread_t thread;
    bool started;
};

/* One connection: its request read to the end of its head (closing over
 * unread bytes would reset the connection and could take the answer's tail
 * with it), then the answer, whatever was asked. */
static void serve_one(int fd) {
    char req[16384], head[128];
    size_t len = 0;
    while (len < sizeof req - 1) {
        ssize_t n = recv(fd, req + len, sizeof req - 1 - len, 0);
        if (n <= 0) return;
        len += (size_t)n;
        if (memmem(req, len, "\r\n\r\n", 4)) break;
    }
    int n = snprintf(head, sizeof head,
                     "HTTP/1.1 200 OK\r\nContent-Length: %lld\r\nConnection: close\r\n\r\n",
                     TRANSFER_BYTES);
    if (send(fd, head, (size_t)n, MSG_NOSIGNAL) != n) return;
    for (long long left = TRANSFER_BYTES; left > 0;) {
        size_t chunk = left < (long long)sizeof payload ? (size_t)left : sizeof payload;
        ssize_t sent = send(fd, payload, chunk, MSG_NOSIGNAL);
        if (sent <= 0) return;
        left -= sent;
    }
    /* Our end told, then the client's end awaited: curl closes once it has
     * the bytes Content-Length promised. */
    shutdown(fd, SHUT_WR);
    while (recv(fd, req, sizeof req, 0) > 0) {
    }
}

static void *serve_downloads(void *arg) {
    const struct server *srv = arg;
    for (;;) {
        int fd = accept4(srv->fd, NULL, NULL, SOCK_CLOEXEC);
        if (fd < 0 && (errno == EINTR || errno == ECONNABORTED)) continue;
        /* server_stop's shutdown of the listening socket ends the accept. */
        if (fd < 0) break;
        /* A client that stalls fails its run instead of holding the bench. */
        struct timeval limit = {.tv_sec = 30};
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &limit, sizeof limit);
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &limit, sizeof limit);
        serve_one(fd);
        close(fd);
    }
    return NULL;
}

/* The server on ADDR, its port in *PORT: 0, or -1 with errno. */
static int server_start(struct server *srv, struct in_addr addr, int *port) {
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_addr = addr};
    socklen_t len = sizeof sa;
    srv->fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (srv->fd < 0) return -1;
    if (bind(srv->fd, (struct sockaddr *)&sa, sizeof sa) != 0 || listen(srv->fd, 16) != 0 ||
        getsockname(srv->fd, (struct sockaddr *)&sa, &len) != 0)
        return -1;
    int e = pthread_create(&srv->thread, NULL, serve_downloads, srv);
    if (e) {
        errno = e;
        return -1;
    }
    srv->started = true;
    /* Only now: a port says there is a server to download from. */
    *port = ntohs(sa.sin_port);
    return 0;
}

static void server_stop(struct server *srv) {
    /* On Linux, shutting a listening socket down wakes its blocked accept. */
    if (srv->started) {
        shutdown(srv->fd, SHUT_RDWR);
        pthread_join(srv->thread, NULL);
    }
    if (srv->fd >= 0) close(srv->fd);
    srv->fd = -1;
}

/* The host's own name into NET->host and its address into ADDR when the
 * name resolves to a 127.x address: the proxy resolves it as it does any
 * name (net.lan lets it lead to loopback), and it is not "localhost", which
 * the command's NO_PROXY sends around the proxy. Otherwise NET->note says
 * why there is no measurement. */
static bool loopback_name(struct throughput *net, struct in_addr *addr) {
    struct addrinfo hints = {.ai_family = AF_INET, .ai_socktype = SOCK_STREAM}, *res = NULL;
    char name[sizeof net->host];
    if (gethostname(name, sizeof name) != 0 || !name[0]) {
        snprintf(net->note, sizeof net->note, "this host has no name to download from");
        return false;
    }
    name[sizeof name - 1] = '\0';
    if (strcmp(name, "localhost") == 0) {
        snprintf(net->note, sizeof net->note,
                 "this host's name is localhost, which NO_PROXY sends around the proxy");
        return false;
    }
    if (getaddrinfo(name, NULL, &hints, &res) != 0) {
        snprintf(net->note, sizeof net->note, "this host's name (%.64s) does not resolve", name);
        return false;
    }
    *addr = ((const struct sockaddr_in *)(const void *)res->ai_addr)->sin_addr;
    freeaddrinfo(res);
    if (ntohl(addr->s_addr) >> 24 != 127) {
        snprintf(net->note, sizeof net->note,
                 "this host's name (%.64s) does not resolve to a 127.x address", name);
        return false;
    }
    snprintf(net->host, sizeof net->host, "%s", name);
    return true;
}

static void transfer_skip(struct transfer *t, const char *note) {
    t->state = ROW_SKIPPED;
    snprintf(t->note, sizeof t->note, "%s", note);
}

static void transfer_fail(struct transfer *t, int status, const char *detail) {
    t->state = ROW_FAILED;
    status_note(t->note, sizeof t->note, t->argv[0], status, detail);
}

/* The server, the policy t.lua (written now: it names the server's port)
 * trusted, and the three downloads' argvs. Each one that cannot run here
 * says why. */
static void transfer_rows(struct throughput *net, struct server *srv, const struct fixture *fx,
                          const lcsb_backend *b) {
    struct transfer *t = net->t;
    t[TRANSFER_DIRECT] = (struct transfer){.name = "direct", .label = "curl, direct"};
    t[TRANSFER_PROXY] =
        (struct transfer){.name = "proxy", .label = "lcsb, proxy", .required = true};
    t[TRANSFER_TUNNEL] =
        (struct transfer){.name = "tunnel", .label = "lcsb, CONNECT", .required = true};
    char curl[PATH_MAX], url[512], path[PATH_MAX], policy[1024];
    struct in_addr addr;
    const char *why = NULL;
    if (!find_program("curl", curl, sizeof curl))
        snprintf(net->note, sizeof net->note, "curl is not installed");
    else if (loopback_name(net, &addr) && server_start(srv, addr, &net->port) != 0)
        snprintf(net->note, sizeof net->note, "cannot start the HTTP server: %s", strerror(errno));
    if (!net->port) {
        net->host[0] = '\0';
        for (size_t i = 0; i < TRANSFERS; i++) transfer_skip(&t[i], net->note);
        return;
    }
    snprintf(url, sizeof url, "http://%s:%d/", net->host, net->port);
    snprintf(path, sizeof path, "%s/t.lua", fx->project);
    snprintf(policy, sizeof policy,
             "return require(\"lcsb\").exec_policy{ exec = { \"curl\" }, net = { domains = { "
             "\"%s:%d\" }, lan = { \"127.0.0.0/8\" } } }\n",
             net->host, net->port);
    if (!b)
        why = "no Landlock on this kernel";
    else if (!write_file(path, policy) || !trust_policy(fx, "t.lua"))
        why = "cannot write or trust t.lua";

    /* -q first, so that no ~/.curlrc changes what runs; the bytes and
     * curl's own time on stdout; a run that stalls fails instead of
     * holding the bench. The direct one never takes a proxy from the
     * harness's environment; under lcsb the command's environment names
     * lcsb's, and -p makes curl tunnel through it with CONNECT even for
     * http, as it does for every https download. */
    static const char w[] = "%{size_download} %{time_total}\n";
    const char *const direct[] = {curl, "-q",        "-sS", "--noproxy", "*", "--max-time", "120",
                                  "-o", "/dev/null", "-w",  w,           url, NULL};
    const char *const proxy[] = {
        LCSB_BENCH_CLI, "t.lua", "--",        "curl", "-q", "-sS", "--max-time",
        "120",          "-o",    "/dev/null", "-w",   w,    url,   NULL};
    const char *const tunnel[] = {
        LCSB_BENCH_CLI, "t.lua", "--",        "curl", "-q", "-sS", "-p", "--max-time",
        "120",          "-o",    "/dev/null", "-w",   w,    url,   NULL};
    t[TRANSFER_DIRECT].argv = strv_copy(direct);
    for (size_t i = TRANSFER_PROXY; i < TRANSFERS; i++) {
        t[i].cwd = fx->project;
        if (why) transfer_skip(&t[i], why);
    }
    if (!why) {
        t[TRANSFER_PROXY].argv = strv_copy(proxy);
        t[TRANSFER_TUNNEL].argv = strv_copy(tunnel);
    }
    for (size_t i = 0; i < TRANSFERS; i++)
        if (t[i].state == ROW_OK && !t[i].argv) transfer_skip(&t[i], "out of memory");
}

/* One download by T: 0 with its rates, or -1 with T failed. Its stdout and
 * stderr go to OUT_FD and ERR_FD, and are read back. */
static int download(struct transfer *t, int out_fd, int err_fd, double *mbs, double *wall_mbs) {
    char out[160], err[160];
    double start = now_ms();
    int status = spawn_wait(t->argv, t->cwd, NULL, out_fd, err_fd);
    double ms = now_ms() - start;
    take_first_line(out_fd, out, sizeof out);
    take_first_line(err_fd, err, sizeof err);
    if (status != 0) {
        transfer_fail(t, status, err);
        return -1;
    }
    /* curl writes its seconds as the locale has them: "0,25" reads as 0. */
    for (char *c = out; *c; c++)
        if (*c == ',') *c = '.';
    long long bytes = -1;
    double secs = 0;
    if (sscanf(out, "%lld %lf", &bytes, &secs) != 2 || bytes != TRANSFER_BYTES || secs <= 0) {
        t->state = ROW_FAILED;
        snprintf(t->note, sizeof t->note, "got %lld of %lld bytes (curl said \"%.60s\")", bytes,
                 TRANSFER_BYTES, out);
        return -1;
    }
    *mbs = (double)TRANSFER_BYTES / 1e6 / secs;
    *wall_mbs = (double)TRANSFER_BYTES / 1e3 / ms;
    return 0;
}

/* The downloads in turns, as measure does the rows, after one round that
 * warms the caches and would show a broken one before any is timed. */
static void measure_transfers(struct throughput *net, int rounds, int out_fd, int err_fd) {
    struct transfer *t = net->t;
    const int warmup = 1;
    for (size_t i = 0; i < TRANSFERS; i++) {
        if (t[i].state != ROW_OK) continue;
        t[i].mbs = calloc((size_t)rounds, sizeof(double));
        t[i].wall_mbs = calloc((size_t)rounds, sizeof(double));
        if (!t[i].mbs || !t[i].wall_mbs) transfer_skip(&t[i], "out of memory");
    }
    for (int r = -warmup; r < rounds; r++) {
        for (size_t k = 0; k < TRANSFERS; k++) {
            struct transfer *x = &t[((size_t)(r + warmup) + k) % TRANSFERS];
            double mbs, wall;
            if (x->state != ROW_OK || download(x, out_fd, err_fd, &mbs, &wall)) continue;
            if (r < 0) continue;
            x->mbs[x->runs] = mbs;
            x->wall_mbs[x->runs++] = wall;
        }
    }
    for (size_t i = 0; i < TRANSFERS; i++) {
        struct transfer *x = &t[i];
        if (x->state != ROW_OK || !x->runs) continue;
        x->median = median_of(x->mbs, x->runs);
        x->min = x->mbs[0];
        x->max = x->mbs[x->runs - 1];
        x->wall_median = median_of(x->wall_mbs, x->runs);
    }
}

static void transfers_free(struct throughput *net) {
    for (size_t i = 0; i < TRANSFERS; i++) {
        strv_free(net->t[i].argv);
        free(net->t[i].mbs);
        free(net->t[i].wall_mbs);
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
    struct server srv = {.fd = -1};
    struct served host = {.fd = -1};
    struct results r = {.cfg = &cfg,
                        .main = rows,
                        .scaling = {scaling[0], scaling[1]},
                        .net = &net,
                        .embedded = &host};
    int status = 2, scratch = -1, scratch_err = -1;
    devnull = open("/dev/null", O_RDWR | O_CLOEXEC);
    lcsb_backend *b = host_backend(&r.abi);
    /* The environment after the fixture, which names its trust store in it. */
    bool ready = devnull >= 0 && fixture_init(&fx, (size_t)cfg.scaling[cfg.scaling_n - 1]);
    if (ready) {
        run_env = make_env();
        tmpfs_env = with_tmpfs_tmpdir(run_env);
    }
    if (!ready || !run_env || (scratch = open_scratch(&fx, "scratch")) < 0 ||
        (scratch_err = open_scratch(&fx, "scratch-err")) < 0) {
        perror("bench: setup");
        goto out;
    }
    main_rows(rows, &cfg, &fx, b, &host);
    for (size_t l = 0; l < LAYOUTS; l++) scaling_rows(scaling[l], &cfg, &fx, b, l);
    transfer_rows(&net, &srv, &fx, b);
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
    server_stop(&srv);
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
