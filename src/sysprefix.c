/* Rule 3: never grant EXECUTE on a directory that could be a system prefix.
 * Landlock unions rights over ancestors, so one EXECUTE on /usr outranks the
 * whole per-file allowlist. The same list bounds the write tier: write access
 * to one of these hands the command the system itself. Pure: a lexical check
 * on normalized paths; the symlink half of the rule needs the disk and lives
 * in validation. */
#include "sysprefix.h"

#include "path.h"
#include "policy.h"

#include <string.h>

/* Grouped by kind, one group a line. */
// clang-format off
static const char *const system_prefixes[] = {
    "/",
    "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32",
    "/usr", "/usr/bin", "/usr/sbin", "/usr/lib", "/usr/lib32", "/usr/lib64", "/usr/libx32",
    "/usr/libexec", "/usr/games", "/usr/local", "/usr/local/bin", "/usr/local/sbin",
    "/usr/local/lib", "/usr/local/libexec",
    "/opt", "/opt/homebrew", "/opt/homebrew/bin", "/opt/local", "/opt/local/bin",
    "/nix", "/nix/store", "/run/current-system", "/snap", "/snap/bin", "/var/lib/snapd",
    "/System", "/Library", "/Applications", "/usr/local/Cellar",
    "/etc", "/home", "/root", "/tmp", "/var", "/var/tmp",
    "/dev", "/proc", "/sys", "/run", "/boot", "/srv", "/mnt", "/media",
    NULL,
};
// clang-format on

/* A multiarch library directory such as /usr/lib/x86_64-linux-gnu holds every
 * shared library and the dynamic loader: as much a system prefix as /usr/lib. */
static bool is_multiarch_dir(const char *dir) {
    static const char *const parents[] = {"/lib/", "/usr/lib/", "/usr/local/lib/", NULL};
    for (size_t i = 0; parents[i]; i++) {
        size_t n = strlen(parents[i]);
        if (strncmp(dir, parents[i], n) != 0) continue;
        const char *leaf = dir + n;
        if (!strchr(leaf, '/') && strstr(leaf, "-linux-")) return true;
    }
    return false;
}

const char *lcsb__system_prefix_within(const char *dir) {
    if (is_multiarch_dir(dir)) return dir;
    for (size_t i = 0; system_prefixes[i]; i++)
        if (lcsb__path_within(system_prefixes[i], dir)) return system_prefixes[i];
    return NULL;
}

/* The system's own trees: writing anywhere in them (a cron job, a Python
 * site-packages file, a library) reaches beyond the run, and an image brings
 * its own. /usr/local is the administrator's own. */
const char *lcsb__system_tree_of(const char *path) {
    static const char *const trees[] = {"/usr",   "/etc",   "/bin",    "/sbin", "/lib",
                                        "/lib32", "/lib64", "/libx32", "/boot", NULL};
    if (lcsb__path_within(path, "/usr/local")) return NULL;
    for (size_t i = 0; trees[i]; i++)
        if (lcsb__path_within(path, trees[i])) return trees[i];
    return NULL;
}

int lcsb__refuse_exec_dir(const char *path, const char *right, const char *prefix,
                          lcsb_error *err) {
    return lcsb__fail(err, LCSB_EINVAL,
                      "exec: %s: refusing %s on a directory that is or contains the system "
                      "prefix %s; name the programs instead",
                      path, right, prefix);
}

int lcsb__check_exec_dirs(const lcsb_policy *policy, const char *right, lcsb_error *err) {
    for (size_t i = 0; !policy->exec_open && i < policy->exec.n; i++) {
        const char *prefix = lcsb__system_prefix_within(policy->exec.v[i]);
        if (prefix) return lcsb__refuse_exec_dir(policy->exec.v[i], right, prefix, err);
    }
    return 0;
}
