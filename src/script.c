/* Running a policy script: a Lua 5.4 state with the standard libraries and
 * lcsb preloaded (the way lua.c embeds Lua: everything under lua_pcall), the
 * run's context and scope in the registry, and the result it returns, kept
 * by reference: the policy the C core enforces is the one the script built,
 * and explain reads the very tables exec_policy made. What the script says
 * back in lines is script_explain.c's; what it adds to the attestation,
 * script_attest.c's. */
#include "script.h"

#include "caps.h"
#include "facts.h"
#include "installed.h"
#include "lua_host.h"
#include "lua_lcsb.h"
#include "lua_loads.h"
#include "lua_modules.h"
#include "lua_policy.h"
#include "lua_scope.h"
#include "lua_stop.h"
#include "lua_util.h"
#include "path.h"
#include "policy.h"
#include "sys.h"

#include <errno.h>
#include <lauxlib.h>
#include <limits.h>
#include <lua.h>
#include <lualib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifndef LCSB_LUA_CPATH
#define LCSB_LUA_CPATH ""
#endif

extern char **environ;

/* What a policy script may allocate: far more than any real policy needs
 * (a 20,000-path one takes a few MB), far less than would take the host down. */
#define SCRIPT_MEMORY_MAX ((size_t)1 << 30)

static int panic(lua_State *L) {
    (void)L; /* unreachable: everything runs under lua_pcall */
    return 0;
}

typedef struct pmain_args {
    const char *path;
    const char *const *private_names;
    const char *const *argv;
    const char *lua_dir;
    const char *shim;
    lcsb_script *script; /* out: its result, policy, world and left_out */
} pmain_args;

/* T[KEY] pushed, read raw: reading the result runs none of its code. */
int lcsb__raw_field(lua_State *L, int t, const char *key) {
    lua_pushstring(L, key);
    return lua_rawget(L, t < 0 ? t - 1 : t);
}

/* FIELD of the table on top as a copy in *OUT (NULL when absent). */
static void copy_field(lua_State *L, const char *field, char **out) {
    if (lcsb__raw_field(L, -1, field) == LUA_TSTRING && !(*out = strdup(lua_tostring(L, -1))))
        luaL_error(L, "out of memory");
    lua_pop(L, 1);
}

/* The result's container world (result.oci), for --backend oci. */
static void copy_oci_world(lua_State *L, int result, lcsb__oci_world_copy *oci) {
    if (lcsb__raw_field(L, result, "oci") != LUA_TTABLE) {
        lua_pop(L, 1);
        return;
    }
    oci->named = true;
    copy_field(L, "engine", &oci->engine);
    copy_field(L, "image", &oci->image);
    copy_field(L, "rootfs", &oci->rootfs);
    if (lcsb__raw_field(L, -1, "args") == LUA_TTABLE) {
        for (lua_Integer i = 1; lua_rawgeti(L, -1, i) == LUA_TSTRING; i++) {
            if (lcsb__strv_push(&oci->args, lua_tostring(L, -1))) luaL_error(L, "out of memory");
            lua_pop(L, 1);
        }
        lua_pop(L, 1);
    }
    lua_pop(L, 2);
}

/* What the composition verified of the policy's paths (result.verified,
 * strings), copied, sorted and lent to the policy (policy.h). */
static void copy_verified(lua_State *L, int result, lcsb_script *s) {
    lcsb__raw_field(L, result, "verified");
    if (lua_istable(L, -1)) {
        for (lua_Integer i = 1; lua_rawgeti(L, -1, i) == LUA_TSTRING; i++) {
            if (lcsb__strv_push(&s->verified, lua_tostring(L, -1))) luaL_error(L, "out of memory");
            lua_pop(L, 1);
        }
        lua_pop(L, 1);
    }
    lua_pop(L, 1);
    size_t n;
    free(s->verified_sorted);
    if (!(s->verified_sorted = lcsb__strv_sorted_unique(&s->verified, &n)))
        luaL_error(L, "out of memory");
    s->policy->verified = s->verified_sorted;
    s->policy->verified_n = n;
}

static bool tier_named(const char *name, lcsb_tier *out) {
    for (int t = 0; t < LCSB_TIERS; t++)
        if (name && strcmp(lcsb_tier_name((lcsb_tier)t), name) == 0)
            return *out = (lcsb_tier)t, true;
    return false;
}

/* The result's left_out list as C entries: { tier, path, why } each. */
static void copy_left_out(lua_State *L, int result, lcsb_script *s) {
    if (lcsb__raw_field(L, result, "left_out") != LUA_TTABLE) {
        lua_pop(L, 1);
        return;
    }
    lua_Integer n = (lua_Integer)lua_rawlen(L, -1);
    if (n <= 0 || !(s->left_out = calloc((size_t)n, sizeof *s->left_out))) {
        lua_pop(L, 1);
        if (n > 0) luaL_error(L, "out of memory");
        return;
    }
    for (lua_Integer i = 1; i <= n; i++) {
        lcsb_left_out *e = &s->left_out[s->left_out_n];
        lua_rawgeti(L, -1, i);
        bool whole = lua_istable(L, -1) && lcsb__raw_field(L, -1, "tier") == LUA_TSTRING &&
                     lcsb__raw_field(L, -2, "path") == LUA_TSTRING &&
                     lcsb__raw_field(L, -3, "why") == LUA_TSTRING;
        if (whole && tier_named(lua_tostring(L, -3), &e->tier)) {
            if (lcsb__strv_push(&s->left_out_text, lua_tostring(L, -2)) ||
                lcsb__strv_push(&s->left_out_text, lua_tostring(L, -1)))
                luaL_error(L, "out of memory");
            s->left_out_n++;
        }
        lua_settop(L, result + 1);
    }
    /* The strings are in place now that the array will not move again. */
    for (size_t i = 0; i < s->left_out_n; i++) {
        s->left_out[i].path = s->left_out_text.v[2 * i];
        s->left_out[i].why = s->left_out_text.v[2 * i + 1];
    }
    lua_pop(L, 1);
}

/* The result's home and cache lists as C entries: { name, path } each. */
static void copy_home(lua_State *L, int result, lcsb_script *s) {
    static const char *const keys[] = {"home", "cache"};
    size_t n = 0;
    for (size_t k = 0; k < 2; k++) {
        if (lcsb__raw_field(L, result, keys[k]) == LUA_TTABLE) {
            s->home_known = true;
            n += lua_rawlen(L, -1);
        }
        lua_pop(L, 1);
    }
    if (n == 0) return;
    if (!(s->home = calloc(n, sizeof *s->home))) luaL_error(L, "out of memory");
    for (size_t k = 0; k < 2; k++) {
        if (lcsb__raw_field(L, result, keys[k]) != LUA_TTABLE) {
            lua_pop(L, 1);
            continue;
        }
        int list = lua_gettop(L);
        for (lua_Integer i = 1; s->home_n < n && lua_rawgeti(L, list, i) == LUA_TTABLE; i++) {
            if (lcsb__raw_field(L, -1, "name") == LUA_TSTRING &&
                lcsb__raw_field(L, -2, "path") == LUA_TSTRING) {
                if (lcsb__strv_push(&s->home_text, lua_tostring(L, -2)) ||
                    lcsb__strv_push(&s->home_text, lua_tostring(L, -1)))
                    luaL_error(L, "out of memory");
                s->home[s->home_n++].cache = k == 1;
            }
            lua_settop(L, list);
        }
        /* The list, and what ended the walk (a nil) if anything was pushed. */
        lua_settop(L, list - 1);
    }
    /* The strings are in place now that the array will not move again. */
    for (size_t i = 0; i < s->home_n; i++) {
        s->home[i].name = s->home_text.v[2 * i];
        s->home[i].path = s->home_text.v[2 * i + 1];
    }
}

/* What the script returned, at the top, as the result to keep: exec_policy's
 * result as it is; a bare lcsb.policy as the table it was built from, with
 * the policy in it. */
static void make_result(lua_State *L, const char *path) {
    int v = lua_gettop(L);
    if (luaL_testudata(L, v, LCSB__POLICY_MT)) {
        lua_pushcfunction(L, lcsb__lua_policy_table); /* the binding's own, not a method */
        lua_pushvalue(L, v);
        lua_call(L, 1, 1);
        lua_pushvalue(L, v);
        lua_setfield(L, -2, "policy");
        lua_replace(L, v);
        return;
    }
    bool holds_policy = false;
    if (lua_istable(L, v)) {
        lcsb__raw_field(L, v, "policy");
        holds_policy = luaL_testudata(L, -1, LCSB__POLICY_MT) != NULL;
        lua_pop(L, 1);
    }
    if (!holds_policy)
        luaL_error(L,
                   "%s: the script returned a %s; expected a policy (lcsb.exec_policy{...}) "
                   "or a function returning one",
                   path, luaL_typename(L, v));
}

static void push_run_context(lua_State *L, const char *const *argv) {
    char cwd[PATH_MAX];
    lua_newtable(L);
    lua_newtable(L);
    for (size_t i = 0; argv && argv[i]; i++) {
        lua_pushstring(L, argv[i]);
        lua_rawseti(L, -2, (lua_Integer)i + 1);
    }
    lua_setfield(L, -2, "argv");
    if (getcwd(cwd, sizeof cwd)) {
        lua_pushstring(L, cwd);
        lua_setfield(L, -2, "cwd");
    }
    lua_newtable(L);
    for (size_t i = 0; environ && environ[i]; i++) {
        const char *eq = strchr(environ[i], '=');
        if (!eq) continue;
        lua_pushlstring(L, environ[i], (size_t)(eq - environ[i]));
        lua_pushstring(L, eq + 1);
        lua_settable(L, -3);
    }
    lua_setfield(L, -2, "env");
}

/* Of Lua's debug library, a policy script gets traceback (for xpcall's
 * messages) and nothing else: the rest reaches into lcsb's own state, its
 * registry (what its C functions take for their own), its functions'
 * upvalues and locals (a plan's key as it is made), its hooks. */
static void debug_traceback_only(lua_State *L) {
    lua_createtable(L, 0, 1);
    lua_getglobal(L, "debug");
    lua_getfield(L, -1, "traceback");
    lua_setfield(L, -3, "traceback");
    lua_pop(L, 1);
    lua_pushvalue(L, -1);
    lua_setglobal(L, "debug");
    luaL_getsubtable(L, LUA_REGISTRYINDEX, LUA_LOADED_TABLE);
    lua_insert(L, -2);
    lua_setfield(L, -2, "debug");
    lua_pop(L, 1);
}

/* Everything that can raise runs here, under lua_pcall. */
static int pmain(lua_State *L) {
    pmain_args *args = lua_touserdata(L, 1);
    lcsb_script *s = args->script;
    /* `require "lcsb"` finds lcsb's modules in the library; only the
     * system's Lua C modules (lua-cjson for JSON policy files). */
    lcsb__lua_open(L, args->lua_dir);
    debug_traceback_only(L);
    lcsb__stop_open_commands(L);
    lcsb__loads_install(L, &s->loads);

    if (args->shim) {
        lua_pushstring(L, args->shim);
        lua_setfield(L, LUA_REGISTRYINDEX, LCSB__REG_SHIM);
    }
    lua_pushlightuserdata(L, s->facts);
    lua_setfield(L, LUA_REGISTRYINDEX, LCSB__REG_FACTS);
    lua_newtable(L);
    for (lua_Integer i = 0; args->private_names && args->private_names[i]; i++) {
        lua_pushstring(L, args->private_names[i]);
        lua_rawseti(L, -2, i + 1);
    }
    lua_setfield(L, LUA_REGISTRYINDEX, LCSB__REG_PRIVATE_NAMES);
    lua_pushboolean(L, s->loads.record);
    lua_setfield(L, LUA_REGISTRYINDEX, LCSB__REG_TRUSTING);
    /* lcsb's own, which core.run() copies; and the script's function's. */
    push_run_context(L, args->argv);
    lua_setfield(L, LUA_REGISTRYINDEX, LCSB__REG_RUN);
    push_run_context(L, args->argv);
    int run = lua_gettop(L);

    /* The run's scope: the private HOME and TMPDIR live in it until close. */
    lua_getglobal(L, "require");
    lua_pushliteral(L, "lcsb");
    lua_call(L, 1, 1);
    lua_getfield(L, -1, "scope");
    lua_call(L, 0, 1);
    lua_setfield(L, LUA_REGISTRYINDEX, LCSB__REG_RUN_SCOPE);
    lua_pop(L, 1);

    lcsb__loads_chunk(L, &s->loads, args->path);
    lua_call(L, 0, 1);
    if (lua_type(L, -1) == LUA_TFUNCTION) {
        lua_pushvalue(L, run);
        lua_call(L, 1, 1);
    }
    make_result(L, args->path);
    int result = lua_gettop(L);
    lcsb__raw_field(L, result, "policy");
    if (!(s->policy = lcsb_policy_copy(lcsb__lua_checkpolicy(L, -1))))
        return luaL_error(L, "out of memory");
    lua_pop(L, 1);
    copy_verified(L, result, s);
    copy_oci_world(L, result, &s->oci);
    copy_left_out(L, result, s);
    copy_home(L, result, s);
    s->result = luaL_ref(L, LUA_REGISTRYINDEX);
    return 0;
}
void lcsb_script_options_init(lcsb_script_options *opts) {
    memset(opts, 0, sizeof *opts);
    opts->size = sizeof *opts;
    opts->time_budget = LCSB_SCRIPT_BUDGET;
}

/* Why the script at PATH failed (STATUS, its error on top of L) or was
 * stopped, into ERR; REFUSAL, when not NULL, is why it was refused as not
 * trusted (whatever error the script went on to). */
static int script_failure(lua_State *L, int status, const char *path, double budget,
                          const char *refusal, lcsb_error *err) {
    int sig = lcsb__stop_signal();
    if (sig) {
        const char *name = sigabbrev_np(sig);
        return lcsb__fail(err, LCSB_EINTR, "%s: the policy script was interrupted (SIG%s)", path,
                          name ? name : "?");
    }
    if (lcsb__stop_timed_out())
        return lcsb__fail(err, LCSB_ETIMEDOUT,
                          "%s: the policy script ran past its time budget of %g s", path, budget);
    const char *msg = lua_tostring(L, -1);
    if (refusal) return lcsb__fail(err, LCSB_EUNTRUSTED, "%s", refusal);
    if (!msg) msg = "policy script failed (its error is not a string)";
    if (status == LUA_ERRMEM) msg = "the policy script ran out of memory (it may use 1 GiB)";
    /* Name the script unless the message already does (with its line:
     * lcsb's own functions blame the line that called them). */
    size_t n = strlen(path);
    bool placed = strncmp(msg, path, n) == 0 && msg[n] == ':';
    return placed ? lcsb__fail(err, LCSB_ESCRIPT, "%s", msg)
                  : lcsb__fail(err, LCSB_ESCRIPT, "%s: %s", path, msg);
}

/* The caps in force for a run: lcsb's defaults beside its Lua files, and
 * the administrator's and the user's files where OPTS says. */
static int load_caps(const char *lua_dir, const lcsb_script_options *opts, lcsb__caps **out,
                     lcsb_error *err) {
    lcsb__caps_places *places = malloc(sizeof *places);
    if (!places) return lcsb__fail(err, LCSB_ENOMEM, "out of memory");
    lcsb__caps_places_find(places, lua_dir, opts->caps_system, opts->caps_user);
    int rc = lcsb__caps_load(places, out, err);
    free(places);
    return rc;
}

/* Each file the script read that lies in the policy's write tier is
 * protected for the run, and every directory between it and the write
 * tree's root is made writable on its own: in a world of its own each is a
 * mount point then, which the command cannot rename away to put another
 * file in its place. */
/* F's digest, from the file as it is now. */
static void digest_of(lcsb__trust_file *f) {
    char real[PATH_MAX], *data;
    size_t len;
    if (lcsb__trust_read(f->real, &data, &len, real, NULL, f->sha256, NULL) == 0) free(data);
}

static int protect_reads(lcsb_script *s, lcsb_error *err) {
    lcsb_policy *p = s->policy;
    size_t n = s->loads.read.n + s->loads.own.n;
    if (n == 0) return 0;
    size_t writable = lcsb_policy_count(p, LCSB_TIER_WRITE);
    char(*roots)[PATH_MAX] = calloc(writable ? writable : 1, PATH_MAX);
    if (!roots || !(s->protected_reads = calloc(n, sizeof *s->protected_reads))) {
        free(roots);
        return lcsb__fail(err, LCSB_ENOMEM, "out of memory");
    }
    s->protected_read_n = s->loads.read.n;
    s->protected_own_n = s->loads.own.n;
    /* The write tier's roots by their real paths, once. */
    for (size_t w = 0; w < writable; w++)
        if (!lcsb__realpath(lcsb_policy_path(p, LCSB_TIER_WRITE, w), roots[w])) roots[w][0] = '\0';
    int rc = 0;
    for (size_t i = 0; !rc && i < n; i++) {
        const char *file = i < s->loads.read.n ? s->loads.read.v[i].real
                                               : s->loads.own.v[i - s->loads.read.n].real;
        const char *root = NULL;
        for (size_t w = 0; w < writable && !root; w++)
            if (roots[w][0] && lcsb__path_within(file, roots[w]) && strcmp(file, roots[w]) != 0)
                root = roots[w];
        if (!root) continue;
        /* Its directories up to the write path are held in place by the
         * backend, as for every protected path (lcsb__policy_pins). */
        rc = lcsb_policy_add_protect(p, file, err);
        if (!rc) s->protected_reads[i] = true;
        /* lcsb's own module, unhashed as it was read: named in the
         * attestation by its digest once protected. */
        lcsb__trust_file *f =
            i < s->loads.read.n ? &s->loads.read.v[i] : &s->loads.own.v[i - s->loads.read.n];
        if (!rc && !f->sha256[0]) digest_of(f);
    }
    free(roots);
    return rc;
}

/* The container's root directory (oci = { rootfs = DIR }) is the command's
 * whole world there, written as it runs: held to the caps as a write path
 * of the policy. */
static int check_rootfs_caps(const lcsb_script *s, const char *path, lcsb_error *err) {
    if (!s->oci.rootfs) return 0;
    lcsb_policy *with_root = lcsb_policy_copy(s->policy);
    if (!with_root) return lcsb__fail(err, LCSB_ENOMEM, "out of memory");
    int rc = lcsb_policy_add_write(with_root, s->oci.rootfs, err);
    if (!rc) rc = lcsb__caps_check(s->caps, with_root, path, err);
    lcsb_policy_free(with_root);
    return rc;
}

/* The caller's OPTS (NULL: the defaults) into GIVEN, checked; RECORD, for
 * lcsb_trust's run, checks no trust. */
static int take_options(const lcsb_script_options *opts, bool record, lcsb_script_options *given,
                        lcsb_error *err) {
    /* A caller built against an older, shorter struct gets defaults for the rest. */
    lcsb_script_options_init(given);
    if (opts && (opts->size < sizeof(size_t) || opts->size > sizeof *given))
        return lcsb__fail(err, LCSB_EINVAL, "script: options of unknown size %zu", opts->size);
    if (opts) memcpy(given, opts, opts->size);
    if (record) given->trust = LCSB_TRUST_SKIP;
    if (given->trust != LCSB_TRUST_CHECK && given->trust != LCSB_TRUST_SKIP)
        return lcsb__fail(err, LCSB_EINVAL, "script: unknown trust mode %d", (int)given->trust);
    if (!(given->time_budget >= 0 && given->time_budget <= LCSB_SCRIPT_BUDGET_MAX))
        return lcsb__fail(err, LCSB_EINVAL,
                          "time budget %g s: not from 0 (no budget) to %g seconds",
                          given->time_budget, LCSB_SCRIPT_BUDGET_MAX);
    return 0;
}

/* lcsb_script_open, and lcsb_trust's run: RECORD keeps each file's bytes. */
static int open_script(const char *path, const char *const *argv, const lcsb_script_options *opts,
                       bool record, lcsb_script **out, lcsb_error *err) {
    lcsb_script_options given;
    *out = NULL;
    int rc = take_options(opts, record, &given, err);
    if (rc) return rc;
    if (!path) return lcsb__fail(err, LCSB_EINVAL, "no policy script given");
    if (access(path, R_OK) != 0)
        return lcsb__fail(err, LCSB_EINVAL, "cannot read policy script %s: %s", path,
                          strerror(errno));
    char installed[PATH_MAX];
    const char *lua_dir = given.lua_dir;
    if (!lua_dir) {
        int found = lcsb__installed_lua_dir(installed, err);
        if (found) return found;
        lua_dir = installed;
    }
    /* The caps come first, from files the script cannot reach: a broken
     * one stops lcsb before the project's script runs. */
    lcsb__caps *caps;
    rc = load_caps(lua_dir, &given, &caps, err);
    if (rc) return rc;
    lcsb_script *s = calloc(1, sizeof *s);
    if (!s) {
        lcsb__caps_free(caps);
        return lcsb__fail(err, LCSB_ENOMEM, "out of memory");
    }
    s->memory.max = SCRIPT_MEMORY_MAX;
    rc = lcsb__loads_init(&s->loads, path, argv && argv[0] ? argv[0] : NULL, lua_dir, given.trust,
                          record, given.accept, err);
    if (rc || !(s->facts = lcsb__facts_new()) ||
        !(s->L = lua_newstate(lcsb__lua_capped_alloc, &s->memory))) {
        lcsb__facts_free(s->facts);
        lcsb__loads_clear(&s->loads);
        lcsb__caps_free(caps);
        free(s);
        return rc ? rc : lcsb__fail(err, LCSB_ENOMEM, "out of memory");
    }
    s->caps = caps;
    s->result = LUA_NOREF;
    s->list_quiet = given.list_quiet;
    lua_atpanic(s->L, panic);
    pmain_args args = {.path = path,
                       .argv = argv,
                       .shim = given.shim,
                       .script = s,
                       .lua_dir = lua_dir,
                       .private_names = given.private_names};
    /* Stoppable from before the first instruction until its directories are
     * gone; a signal that stops it is raised again after that. */
    lcsb__stop stop;
    lcsb__stop_arm(&stop, s->L, given.time_budget);
    lua_pushcfunction(s->L, pmain);
    lua_pushlightuserdata(s->L, &args);
    int status = lua_pcall(s->L, 1, 0, 0);
    lcsb__stop_unhook(s->L);
    lua_pushnil(s->L);
    lua_setfield(s->L, LUA_REGISTRYINDEX, LCSB__REG_FACTS);
    /* A stop that came as the script returned stops it all the same: what
     * it returned may rest on a command the stop cut short. */
    if (status != LUA_OK || lcsb__stop_signal() || lcsb__stop_timed_out())
        rc = script_failure(s->L, status, path, given.time_budget,
                            s->loads.refused ? s->loads.refusal : NULL, err);
    else if (s->loads.refused) /* caught (pcall), and refused all the same */
        rc = lcsb__fail(err, LCSB_EUNTRUSTED, "%s", s->loads.refusal);
    /* The policy as the script made it is held to the caps; then what it
     * read in the write tier is protected (paths the caps cannot mind). */
    else if (!(rc = lcsb__caps_check(s->caps, s->policy, path, err)) &&
             !(rc = check_rootfs_caps(s, path, err)))
        rc = protect_reads(s, err);
    if (rc) {
        lcsb_error ignored;
        (void)lcsb_script_close(s, &ignored); /* its own error is the one to report */
    } else {
        *out = s;
    }
    lcsb__stop_disarm(&stop);
    return rc;
}

int lcsb_script_open(const char *path, const char *const *argv, const lcsb_script_options *opts,
                     lcsb_script **out, lcsb_error *err) {
    return open_script(path, argv, opts, false, out, err);
}

int lcsb_trust(const char *path, const char *const *argv, const lcsb_script_options *opts,
               char ***trusted, lcsb_error *err) {
    lcsb_script *s;
    if (trusted) *trusted = NULL;
    int rc = open_script(path, argv, opts, true, &s, err);
    if (rc) return rc;
    const lcsb__loads *loads = &s->loads;
    rc = lcsb__trust_save(loads->script_path, &loads->read, &loads->absent, loads->contents,
                          loads->lens, err);
    lcsb__strv lines = {0};
    for (size_t i = 0; !rc && trusted && i < loads->read.n; i++) {
        lcsb__buf b = {0};
        const lcsb__trust_file *f = &loads->read.v[i];
        lcsb__buf_addf(&b, "%s  %s", f->sha256, f->path);
        if (strcmp(f->path, f->real) != 0) lcsb__buf_addf(&b, " -> %s", f->real);
        /* What the record before did not cover as it is: the data the
         * script read without stopping, which the user may want to read. */
        const lcsb__trust_file *was =
            loads->previous ? lcsb__trust_files_find(&loads->trusted.files, f->path) : NULL;
        if (loads->previous && !was)
            lcsb__buf_adds(&b, " (new)");
        else if (was && (strcmp(was->sha256, f->sha256) != 0 || strcmp(was->real, f->real) != 0))
            lcsb__buf_adds(&b, " (changed)");
        if (b.oom || lcsb__strv_push(&lines, b.p))
            rc = lcsb__fail(err, LCSB_ENOMEM, "out of memory");
        lcsb__buf_free(&b);
    }
    if (!rc && trusted && !(*trusted = lcsb__strv_take(&lines)))
        rc = lcsb__fail(err, LCSB_ENOMEM, "out of memory");
    lcsb__strv_clear(&lines);
    lcsb_error close_err;
    if (lcsb_script_close(s, &close_err) && !rc) {
        if (err) *err = close_err;
        rc = close_err.code;
    }
    return rc;
}

const lcsb_policy *lcsb_script_policy(const lcsb_script *s) { return s->policy; }

static const char *trusted_how(const lcsb__loads *loads) {
    if (loads->mode != LCSB_TRUST_CHECK) return "skipped";
    return loads->by_location ? "location" : "recorded";
}

const char *lcsb_script_trusted(const lcsb_script *s) { return trusted_how(&s->loads); }

bool lcsb_script_oci_world(const lcsb_script *s, lcsb_oci_world *out) {
    memset(out, 0, sizeof *out);
    if (!s || !s->oci.named) return false;
    out->engine = s->oci.engine;
    out->image = s->oci.image;
    out->rootfs = s->oci.rootfs;
    out->engine_args = (const char *const *)s->oci.args.v;
    return true;
}

size_t lcsb_script_left_out(const lcsb_script *s, const lcsb_left_out **out) {
    if (out) *out = s ? s->left_out : NULL;
    return s ? s->left_out_n : 0;
}

size_t lcsb_script_home(const lcsb_script *s, const lcsb_home_entry **out) {
    if (out) *out = s ? s->home : NULL;
    return s ? s->home_n : 0;
}

int lcsb_script_close(lcsb_script *s, lcsb_error *err) {
    if (!s) return 0;
    int rc = 0;
    /* What exec_policy put in the project for the run (a placeholder .git)
     * goes on every way out, check and wrap included; then the run's scope,
     * to hear whether its private directories went; closing the state then
     * collects whatever other scopes the script made. */
    char **left = lcsb__script_after_run(s, false);
    if (left) {
        lcsb__buf b = {0};
        for (size_t i = 0; left[i]; i++) lcsb__buf_addf(&b, "%s%s", i ? "; " : "", left[i]);
        rc = lcsb__fail(err, LCSB_ESYS, "%s", b.oom ? "out of memory" : b.p);
        lcsb__buf_free(&b);
        lcsb_argv_free(left);
    }
    if (s->L) {
        lua_getfield(s->L, LUA_REGISTRYINDEX, LCSB__REG_RUN_SCOPE);
        lcsb_error scope_err;
        int scope_rc = lcsb__lua_close_scope(s->L, -1, &scope_err);
        if (scope_rc && !rc) {
            rc = scope_rc;
            if (err) *err = scope_err;
        }
        lua_close(s->L);
    }
    lcsb_policy_free(s->policy);
    free(s->oci.engine);
    free(s->oci.image);
    free(s->oci.rootfs);
    lcsb__strv_clear(&s->oci.args);
    free(s->left_out);
    lcsb__strv_clear(&s->left_out_text);
    free(s->home);
    lcsb__strv_clear(&s->home_text);
    lcsb__loads_clear(&s->loads);
    free(s->protected_reads);
    lcsb__caps_free(s->caps);
    lcsb__facts_free(s->facts);
    lcsb__strv_clear(&s->verified);
    free(s->verified_sorted);
    free(s);
    return rc;
}

char **lcsb_script_caps(const lcsb_script *s) {
    return s && s->caps ? lcsb__caps_lines(s->caps) : NULL;
}
