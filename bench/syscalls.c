/* The system calls of lcsb's own process in a run of each policy row:
 * strace -c, without -f, its summary read back. Apart from bench.c, which
 * times. */
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "fixture.h"
#include "plans.h"
#include "process.h"
#include "syscalls.h"
#include "util.h"

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
    /* A warm row counts a warm run: should anything since its timed rounds
     * have changed what its plans rest on, one run first makes them again,
     * as a user's next run would (a plan made within a second of a change
     * is not kept, so that run is not enough then: bench.c makes strace's
     * summary file with the fixture, not here). */
    if (!row->cold) (void)spawn_wait(row->argv, row->cwd, row->env, devnull, devnull);
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
void count_syscalls(struct row *rows, size_t n, const struct fixture *fx, int runs, char *version,
                    size_t size, int scratch_fd) {
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
