/* The temporary directory the policies point into, lcsb's project in it,
 * and the policies built over them. Apart from bench.c: what the rows run
 * against, made once before any is timed. */
#include <fcntl.h>
#include <ftw.h>
#include <lcsb.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench.h"
#include "fixture.h"
#include "process.h"
#include "util.h"

/* ---- The fixture and the policies. ---- */

void fixture_free(struct fixture *fx) {
    lcsb_argv_free(fx->prepared_env);
    if (fx->script) (void)lcsb_script_close(fx->script, NULL);
    if (fx->dir[0]) remove_tree(fx->dir);
    lcsb_argv_free(fx->exec_files);
    for (size_t l = 0; l < LAYOUTS; l++) {
        for (size_t i = 0; i < fx->files[l]; i++) free(fx->filler[l][i]);
        free(fx->filler[l]);
    }
}

bool write_file(const char *path, const char *text) {
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
bool trust_policy(const struct fixture *fx, const char *name) {
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
const struct issue28_policy policies[ISSUE28_POLICIES] = {
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

bool fixture_init(struct fixture *fx, size_t files) {
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
lcsb_policy *rules_policy(const struct fixture *fx, long nrules, enum layout layout,
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
char **shim_argv(const struct fixture *fx, const lcsb_backend *b, long nrules, enum layout layout,
                 lcsb_error *err) {
    static const char *const cmd[] = {COMMAND, NULL};
    lcsb_policy *p = rules_policy(fx, nrules, layout, err);
    char **wrapped = NULL, **copy = NULL;
    if (p && !lcsb_backend_validate(b, p, err) && !lcsb_backend_wrap(b, p, cmd, &wrapped, err))
        copy = strv_copy((const char *const *)wrapped);
    lcsb_argv_free(wrapped);
    lcsb_policy_free(p);
    return copy;
}
