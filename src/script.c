/* Running a policy script: a Lua 5.4 state with the standard libraries and
 * lcsb preloaded (the way lua.c embeds Lua: everything under lua_pcall), the
 * run's context and scope in the registry, and the policy it returns. */
#include "lua_lcsb.h"

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
#ifndef LCSB_DEFAULT_LUA_DIR
#define LCSB_DEFAULT_LUA_DIR "/usr/local/share/lua/5.4"
#endif

extern char **environ;

/* What a policy script may allocate: far more than any real policy needs
 * (a 20,000-path one takes a few MB), far less than would take the host down. */
#define SCRIPT_MEMORY_MAX ((size_t)1 << 30)

/* The container world exec_policy named (oci = {...}): copies. */
typedef struct oci_world_copy {
    bool named;
    char *engine, *image, *rootfs;
    lcsb__strv args;
} oci_world_copy;

struct lcsb_script {
    lua_State *L;
    lcsb_policy *policy;
    size_t memory_used;
    oci_world_copy oci;
};

/* Lua's allocator, with a ceiling: a script that allocates without end gets
 * a Lua memory error, and lcsb a message, instead of the OOM killer. */
static void *capped_alloc(void *ud, void *ptr, size_t old_size, size_t new_size) {
    lcsb_script *s = ud;
    if (!ptr) old_size = 0; /* then old_size tells the kind of object, not a size */
    if (new_size == 0) {
        free(ptr);
        s->memory_used -= old_size;
        return NULL;
    }
    if (new_size > old_size && new_size - old_size > SCRIPT_MEMORY_MAX - s->memory_used)
        return NULL;
    void *grown = realloc(ptr, new_size);
    if (grown) s->memory_used = s->memory_used - old_size + new_size;
    return grown;
}

static int panic(lua_State *L) {
    (void)L; /* unreachable: everything runs under lua_pcall */
    return 0;
}

typedef struct pmain_args {
    const char *path;
    const char *const *argv;
    const char *lua_dir;
    const char *shim;
    lcsb_policy *policy; /* out */
    oci_world_copy *oci; /* out */
} pmain_args;

/* FIELD of the table on top as a copy in *OUT (NULL when absent). */
static void copy_field(lua_State *L, const char *field, char **out) {
    if (lua_getfield(L, -1, field) == LUA_TSTRING && !(*out = strdup(lua_tostring(L, -1))))
        luaL_error(L, "out of memory");
    lua_pop(L, 1);
}

/* What exec_policy left in the run context for --backend oci. */
static void copy_oci_world(lua_State *L, int run, oci_world_copy *oci) {
    if (lua_getfield(L, run, "oci") != LUA_TTABLE) {
        lua_pop(L, 1);
        return;
    }
    oci->named = true;
    copy_field(L, "engine", &oci->engine);
    copy_field(L, "image", &oci->image);
    copy_field(L, "rootfs", &oci->rootfs);
    if (lua_getfield(L, -1, "args") == LUA_TTABLE) {
        for (lua_Integer i = 1; lua_rawgeti(L, -1, i) == LUA_TSTRING; i++) {
            if (lcsb__strv_push(&oci->args, lua_tostring(L, -1))) luaL_error(L, "out of memory");
            lua_pop(L, 1);
        }
        lua_pop(L, 1);
    }
    lua_pop(L, 2);
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

/* Everything that can raise runs here, under lua_pcall. */
static int pmain(lua_State *L) {
    pmain_args *args = lua_touserdata(L, 1);
    luaL_openlibs(L);

    /* `require "lcsb"` finds lua/lcsb/init.lua; its C half is preloaded. */
    luaL_getsubtable(L, LUA_REGISTRYINDEX, LUA_PRELOAD_TABLE);
    lua_pushcfunction(L, luaopen_lcsb);
    lua_setfield(L, -2, "lcsb.core");
    lua_pop(L, 1);
    lua_getglobal(L, "package");
    lua_pushfstring(L, "%s/?.lua;%s/?/init.lua", args->lua_dir, args->lua_dir);
    lua_setfield(L, -2, "path");
    /* Only the system's Lua C modules (lua-cjson for JSON policy files). */
    lua_pushliteral(L, LCSB_LUA_CPATH);
    lua_setfield(L, -2, "cpath");
    lua_pop(L, 1);

    if (args->shim) {
        lua_pushstring(L, args->shim);
        lua_setfield(L, LUA_REGISTRYINDEX, LCSB__REG_SHIM);
    }
    push_run_context(L, args->argv);
    lua_pushvalue(L, -1);
    lua_setfield(L, LUA_REGISTRYINDEX, LCSB__REG_RUN);
    int run = lua_gettop(L);

    /* The run's scope: the private HOME and TMPDIR live in it until close. */
    lua_getglobal(L, "require");
    lua_pushliteral(L, "lcsb");
    lua_call(L, 1, 1);
    lua_getfield(L, -1, "scope");
    lua_call(L, 0, 1);
    lua_setfield(L, LUA_REGISTRYINDEX, LCSB__REG_RUN_SCOPE);
    lua_pop(L, 1);

    if (luaL_loadfilex(L, args->path, "t") != LUA_OK) return lua_error(L);
    lua_call(L, 0, 1);
    if (lua_type(L, -1) == LUA_TFUNCTION) {
        lua_pushvalue(L, run);
        lua_call(L, 1, 1);
    }
    if (!luaL_testudata(L, -1, "lcsb.policy"))
        return luaL_error(L,
                          "%s: the script returned a %s; expected a policy (lcsb.exec_policy{...}) "
                          "or a function returning one",
                          args->path, luaL_typename(L, -1));
    args->policy = lcsb_policy_copy(lcsb__lua_checkpolicy(L, -1));
    if (!args->policy) return luaL_error(L, "out of memory");
    copy_oci_world(L, run, args->oci);
    return 0;
}

int lcsb_script_open(const char *path, const char *const *argv, const char *lua_dir,
                     const char *shim, lcsb_script **out, lcsb_error *err) {
    *out = NULL;
    if (!path) return lcsb__fail(err, LCSB_EINVAL, "no policy script given");
    if (access(path, R_OK) != 0)
        return lcsb__fail(err, LCSB_EINVAL, "cannot read policy script %s: %s", path,
                          strerror(errno));
    lcsb_script *s = calloc(1, sizeof *s);
    if (!s || !(s->L = lua_newstate(capped_alloc, s))) {
        free(s);
        return lcsb__fail(err, LCSB_ENOMEM, "out of memory");
    }
    lua_atpanic(s->L, panic);
    pmain_args args = {.path = path,
                       .argv = argv,
                       .shim = shim,
                       .oci = &s->oci,
                       .lua_dir = lua_dir ? lua_dir : LCSB_DEFAULT_LUA_DIR};
    lua_pushcfunction(s->L, pmain);
    lua_pushlightuserdata(s->L, &args);
    int status = lua_pcall(s->L, 1, 0, 0);
    if (status != LUA_OK) {
        const char *msg = lua_tostring(s->L, -1);
        if (!msg) msg = "policy script failed (its error is not a string)";
        if (status == LUA_ERRMEM) msg = "the policy script ran out of memory (it may use 1 GiB)";
        /* Name the script unless the message already does (with its line:
         * lcsb's own functions blame the line that called them). */
        size_t n = strlen(path);
        bool placed = strncmp(msg, path, n) == 0 && msg[n] == ':';
        int rc = placed ? lcsb__fail(err, LCSB_ESCRIPT, "%s", msg)
                        : lcsb__fail(err, LCSB_ESCRIPT, "%s: %s", path, msg);
        lcsb_policy_free(args.policy);
        lcsb_error ignored;
        (void)lcsb_script_close(s, &ignored); /* the script's own error is the one to report */
        return rc;
    }
    s->policy = args.policy;
    *out = s;
    return 0;
}

const lcsb_policy *lcsb_script_policy(const lcsb_script *s) { return s->policy; }

bool lcsb_script_oci_world(const lcsb_script *s, lcsb_oci_world *out) {
    memset(out, 0, sizeof *out);
    if (!s || !s->oci.named) return false;
    out->engine = s->oci.engine;
    out->image = s->oci.image;
    out->rootfs = s->oci.rootfs;
    out->engine_args = (const char *const *)s->oci.args.v;
    return true;
}

static int pexplain(lua_State *L) {
    const char *const *argv = lua_touserdata(L, 1);
    const lcsb_run_result *result = lua_touserdata(L, 2);
    const lcsb_policy *policy = lua_touserdata(L, 3);
    lua_getglobal(L, "require");
    lua_pushliteral(L, "lcsb.remedies");
    lua_call(L, 1, 1);
    lua_getfield(L, -1, "explain");
    lua_newtable(L); /* the evidence */
    lua_newtable(L);
    for (size_t i = 0; argv && argv[i]; i++) {
        lua_pushstring(L, argv[i]);
        lua_rawseti(L, -2, (lua_Integer)i + 1);
    }
    lua_setfield(L, -2, "argv");
    lua_pushinteger(L, result->status);
    lua_setfield(L, -2, "status");
    lua_pushstring(L, result->note);
    lua_setfield(L, -2, "note");
    lua_pushboolean(L, result->setup_failed);
    lua_setfield(L, -2, "setup_failed");
    if (result->stderr_tail_len > 0) {
        lua_pushlstring(L, result->stderr_tail, result->stderr_tail_len);
        lua_setfield(L, -2, "stderr");
    }
    lcsb__lua_push_attestation(L, &result->attestation);
    lua_setfield(L, -2, "attestation");
    /* The policy as a table, through the binding's own method. */
    lua_getfield(L, LUA_REGISTRYINDEX, "lcsb.policy");
    lua_getfield(L, -1, "__index");
    lua_getfield(L, -1, "table");
    lcsb_policy **ud = lua_newuserdatauv(L, sizeof(lcsb_policy *), 0);
    *ud = lcsb_policy_copy(policy);
    luaL_setmetatable(L, "lcsb.policy");
    if (!*ud) return luaL_error(L, "out of memory");
    lua_call(L, 1, 1);
    lua_setfield(L, -4, "policy");
    lua_pop(L, 2);
    lua_call(L, 1, 1);
    return 1;
}

char *lcsb_script_explain(lcsb_script *s, const char *const *argv, const lcsb_run_result *result) {
    if (!s || !s->L) return NULL;
    lua_State *L = s->L;
    int top = lua_gettop(L);
    char *hints = NULL;
    lua_pushcfunction(L, pexplain);
    lua_pushlightuserdata(L, (void *)argv);
    lua_pushlightuserdata(L, (void *)result);
    lua_pushlightuserdata(L, (void *)s->policy);
    if (lua_pcall(L, 3, 1, 0) != LUA_OK) {
        const char *msg = lua_tostring(L, -1);
        lcsb__buf b = {0};
        lcsb__buf_addf(&b, "explain failed: %s", msg ? msg : "(no message)");
        hints = b.oom ? NULL : b.p;
    } else if (lua_istable(L, -1)) {
        lcsb__buf b = {0};
        lua_Integer n = luaL_len(L, -1);
        for (lua_Integer i = 1; i <= n; i++) {
            lua_geti(L, -1, i);
            const char *line = lua_tostring(L, -1);
            if (line) lcsb__buf_addf(&b, "%s%s", b.len ? "\n" : "", line);
            lua_pop(L, 1);
        }
        if (b.oom || b.len == 0) lcsb__buf_free(&b);
        hints = b.p;
    }
    lua_settop(L, top);
    return hints;
}

static int pafter(lua_State *L) {
    lua_getglobal(L, "require");
    lua_pushliteral(L, "lcsb");
    lua_call(L, 1, 1);
    lua_getfield(L, -1, "after_run");
    lua_call(L, 0, 1);
    return 1;
}

char *lcsb_script_after_run(lcsb_script *s) {
    if (!s || !s->L) return NULL;
    lua_State *L = s->L;
    int top = lua_gettop(L);
    lcsb__buf b = {0};
    lua_pushcfunction(L, pafter);
    if (lua_pcall(L, 0, 1, 0) == LUA_OK && lua_istable(L, -1)) {
        for (lua_Integer i = 1; lua_geti(L, -1, i) == LUA_TSTRING; i++) {
            lcsb__buf_addf(&b, "%s%s", b.len ? "\n" : "", lua_tostring(L, -1));
            lua_pop(L, 1);
        }
    } else if (lua_type(L, -1) == LUA_TSTRING) {
        lcsb__buf_addf(&b, "checking after the run failed: %s", lua_tostring(L, -1));
    }
    lua_settop(L, top);
    if (b.oom || b.len == 0) {
        lcsb__buf_free(&b);
        return NULL;
    }
    return b.p;
}

char *lcsb_script_left_out(lcsb_script *s) {
    if (!s || !s->L) return NULL;
    lua_State *L = s->L;
    int top = lua_gettop(L);
    lcsb__buf b = {0};
    lua_getfield(L, LUA_REGISTRYINDEX, LCSB__REG_RUN);
    if (lua_istable(L, -1) && lua_getfield(L, -1, "left_out") == LUA_TTABLE) {
        for (lua_Integer i = 1; lua_geti(L, -1, i) == LUA_TTABLE; i++) {
            lua_getfield(L, -1, "tier");
            lua_getfield(L, -2, "path");
            lua_getfield(L, -3, "why");
            const char *tier = lua_tostring(L, -3), *path = lua_tostring(L, -2),
                       *why = lua_tostring(L, -1);
            if (tier && path && why)
                lcsb__buf_addf(&b, "%s%s\t%s\t%s", b.len ? "\n" : "", tier, path, why);
            lua_pop(L, 4);
        }
    }
    lua_settop(L, top);
    if (b.oom || b.len == 0) {
        lcsb__buf_free(&b);
        return NULL;
    }
    return b.p;
}

int lcsb_script_close(lcsb_script *s, lcsb_error *err) {
    if (!s) return 0;
    int rc = 0;
    /* What exec_policy put in the project for the run (a placeholder .git)
     * goes on every way out, check and wrap included; then the run's scope,
     * to hear whether its private directories went; closing the state then
     * collects whatever other scopes the script made. */
    char *left = lcsb_script_after_run(s);
    if (left) rc = lcsb__fail(err, LCSB_ESYS, "%s", left);
    free(left);
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
    free(s);
    return rc;
}
