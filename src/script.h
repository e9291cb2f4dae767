/* Layer 7: a policy script, run (script.c), what it says back in lines
 * (script_explain.c), what it adds to the attestation (script_attest.c) and
 * what a learning run says to add to it (script_learn.c). Four files, one
 * handle: this header is what they share and nothing else,
 * the handle's insides and the two functions more than one of them calls.
 * No file outside the four includes it; the rest of lcsb sees lcsb_script
 * through <lcsb.h> only. */
#ifndef LCSB_SCRIPT_H
#define LCSB_SCRIPT_H

#include "caps.h"
#include "facts.h"
#include "lua_loads.h"
#include "lua_util.h"
#include "util.h"

#include <lua.h>
#include <stdbool.h>

/* The container world exec_policy named (oci = {...}): copies. */
typedef struct lcsb__oci_world_copy {
    bool named;
    char *engine, *image, *rootfs;
    lcsb__strv args;
} lcsb__oci_world_copy;

struct lcsb_script {
    lua_State *L;
    lcsb__lua_memory memory; /* what the script's Lua state may allocate, and has */
    /* exec_policy's result (or a bare policy's table), in the registry for
     * explain and after_run, and a copy of the policy it held when the
     * script returned: Lua code that runs later (a heuristic, a finalizer)
     * can neither change nor free what is checked and enforced. */
    int result;
    lcsb_policy *policy;
    lcsb__oci_world_copy oci;
    lcsb_left_out *left_out;
    size_t left_out_n;
    lcsb__strv left_out_text; /* owns the entries' paths and reasons */
    /* What the private HOME shows of the real one (result.home, .cache),
     * when the result says (exec_policy's does). */
    bool home_known;
    /* lcsb_script_options.list_quiet, for after_run. */
    bool list_quiet;
    lcsb_home_entry *home;
    size_t home_n;
    lcsb__strv home_text; /* owns the entries' names and paths */
    /* What the script read, checked against the user's trust; those in the
     * write tier are protected (PROTECTED[i] for LOADS.read then .own, as
     * many of each as there were then: a hint's modules, loaded later, add
     * to .own). */
    lcsb__loads loads;
    bool *protected_reads;
    size_t protected_read_n, protected_own_n;
    lcsb__caps *caps; /* what the policy was checked against */
    /* What the script's composition asked of the file system, asked once;
     * Lua sees them only while the script runs (after the command ran, a
     * hint asks the disk as it is). */
    lcsb__facts *facts;
    /* The policy's paths its composition verified (policy.h), and a sorted
     * view of them, which the policy borrows. */
    lcsb__strv verified;
    const char **verified_sorted;
};

/* T[KEY] pushed, read raw: reading the result runs none of its code
 * (script.c). */
int lcsb__raw_field(lua_State *L, int t, const char *key);
/* exec_policy's after_run; RAN says whether a command ran, for it to look
 * for what the command left: the lines it says, as lcsb_script_after_run
 * gives them (script_explain.c). lcsb_script_close calls it too, RAN false,
 * so that what the script put in the project goes on every way out. */
char **lcsb__script_after_run(lcsb_script *s, bool ran);
/* The list on top as an lcsb argv of lines, each escaped for a terminal
 * and, when SPLIT, cut at its newlines; NULL when there is none, or on
 * ENOMEM (script_explain.c). */
char **lcsb__script_take_lines(lua_State *L, bool split);
/* The evidence explain and learn read, pushed as a new table: ARGV, what
 * RESULT says of the run, the script's result (registry REF) as "policy",
 * and CAPS (may be NULL) merged (script_explain.c). */
void lcsb__push_evidence(lua_State *L, const char *const *argv, const lcsb_run_result *result,
                         int ref, const lcsb__caps *caps);

#endif
