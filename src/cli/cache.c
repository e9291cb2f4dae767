/* lcsb cache: the caches a policy's cache = { ... } keeps per project,
 * listed with the disk each takes, and removed. */
#include "cli.h"

#include <lcsb.h>

#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* TEXT as one line "lcsb: TEXT" on stderr, escaped: it may quote a path. */
static void say(const char *text) {
    char line[4 * 1024 + 1];
    lcsb_escape(line, sizeof line, text, strlen(text));
    fprintf(stderr, "lcsb: %s\n", line);
}

/* BYTES as a person reads them: "0 B", "512 B", "4.0 KiB", "1.2 GiB". */
static void human(unsigned long long bytes, char *out, size_t size) {
    static const char *const units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    double value = (double)bytes;
    size_t u = 0;
    while (value >= 1024 && u + 1 < sizeof units / sizeof units[0]) value /= 1024, u++;
    if (u == 0)
        snprintf(out, size, "%llu B", bytes);
    else
        snprintf(out, size, "%.1f %s", value, units[u]);
}

static int list(const char *project, const char *dir) {
    lcsb_cache_entry *entries;
    size_t n;
    lcsb_error err;
    if (lcsb_cache_list(project, &entries, &n, &err)) {
        say(err.message);
        return LCSB_EXIT_USAGE;
    }
    if (project)
        printf("caches of %s, kept in %s:\n", project, dir);
    else
        printf("caches of every project, kept in %s:\n", dir);
    size_t width = 0;
    for (size_t i = 0; i < n; i++)
        if (strlen(entries[i].name) > width) width = strlen(entries[i].name);
    for (size_t i = 0; i < n; i++) {
        char size[32];
        human(entries[i].bytes, size, sizeof size);
        /* Every project's: where each is kept, for a project that is gone. */
        printf("  %-*s  %10s%s%s%s\n", (int)width, entries[i].name, size,
               entries[i].partial ? " (at least)" : "", project ? "" : "  ",
               project ? "" : entries[i].path);
    }
    if (n == 0) printf("  (none)\n");
    lcsb_cache_list_free(entries, n);
    return 0;
}

static int clear(const char *project, const char *dir) {
    lcsb_error err;
    if (lcsb_cache_clear(project, &err)) {
        say(err.message);
        return LCSB_EXIT_USAGE;
    }
    if (project)
        printf("removed the caches of %s (%s)\n", project, dir);
    else
        printf("removed the caches of every project (%s)\n", dir);
    return 0;
}

/* lcsb cache list|clear --plans. */
static int plans(bool clear) {
    char store[PATH_MAX], size[32];
    lcsb_error err;
    size_t n;
    unsigned long long bytes;
    if (clear ? lcsb_plans_clear(&n, &err)
              : lcsb_plans_list(&n, &bytes, store, sizeof store, &err)) {
        say(err.message);
        return LCSB_EXIT_USAGE;
    }
    if (clear) {
        printf("removed %zu plan%s: each policy is composed again at its next run\n", n,
               n == 1 ? "" : "s");
        return 0;
    }
    human(bytes, size, sizeof size);
    printf("plans kept in %s: %zu, %s\n", store, n, size);
    return 0;
}

int cli_cache(const cli_args *args) {
    char project[PATH_MAX], dir[PATH_MAX];
    lcsb_error err;
    const char *which = NULL;
    if (args->plans) return plans(args->cache_clear);
    if (!args->all_projects) {
        /* By its real path, as exec_policy keys it. */
        if (!realpath(args->project ? args->project : ".", project)) {
            char text[PATH_MAX + 64];
            snprintf(text, sizeof text, "cache: --project %s: %s",
                     args->project ? args->project : ".", strerror(errno));
            say(text);
            return LCSB_EXIT_USAGE;
        }
        which = project;
    }
    if (lcsb_cache_dir(which, dir, sizeof dir, &err)) {
        say(err.message);
        return LCSB_EXIT_USAGE;
    }
    return args->cache_clear ? clear(which, dir) : list(which, dir);
}
