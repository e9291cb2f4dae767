/* The plan cache (issue 28) a row keeps in a state directory of its own:
 * emptied before each run of a cold row, looked at after the timed rounds.
 * Apart from bench.c, which times the runs around it. */
#include <dirent.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "bench.h"
#include "plans.h"
#include "util.h"

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
void before_run(struct row *row) {
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
void plans_look(struct row *rows, size_t n) {
    for (size_t i = 0; i < n; i++) {
        long entries = plans_entries(&rows[i], false);
        if (entries < 0) continue;
        rows[i].plans.seen = true;
        rows[i].plans.entries = entries;
    }
}
