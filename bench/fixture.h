/* The temporary directory the policies point into, lcsb's project in it, and
 * the policies built over them (fixture.c). */
#ifndef LCSB_BENCH_FIXTURE_H
#define LCSB_BENCH_FIXTURE_H

#include <lcsb.h>
#include <stdbool.h>
#include <stddef.h>

#include "bench.h"

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

/* Issue 28's policies (fixture.c says which), written into the project by
 * fixture_init. */
#define ISSUE28_POLICIES 3
struct issue28_policy {
    const char *file, *text;
};
extern const struct issue28_policy policies[ISSUE28_POLICIES];

/* The fixture for scaling policies of up to FILES rules, and its project. */
bool fixture_init(struct fixture *fx, size_t files);
void fixture_free(struct fixture *fx);
bool write_file(const char *path, const char *text);
/* NAME in the project, trusted as a user would trust it. */
bool trust_policy(const struct fixture *fx, const char *name);
/* A policy of NRULES path rules: what COMMAND needs, then read rules on
 * filler files of LAYOUT up to NRULES. */
lcsb_policy *rules_policy(const struct fixture *fx, long nrules, enum layout layout,
                          lcsb_error *err);
/* The shim's argv for COMMAND under a policy of NRULES rules, validated first. */
char **shim_argv(const struct fixture *fx, const lcsb_backend *b, long nrules, enum layout layout,
                 lcsb_error *err);

#endif
