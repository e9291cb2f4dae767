/* lcsb.scope: the run's private directories (scope.c) as a userdata a
 * script closes with <close>, or the collector does. Apart from the disk
 * helpers: it owns what it makes, and removes it. */
#include "lua_scope.h"

#include "lua_util.h"
#include "scope.h"

#include <lauxlib.h>
#include <limits.h>
#include <lua.h>

#define SCOPE_MT "lcsb.scope"

typedef struct scope_ud {
    lcsb__scope *scope;
} scope_ud;

static int l_scope(lua_State *L) {
    scope_ud *ud = lua_newuserdatauv(L, sizeof *ud, 0);
    ud->scope = NULL;
    luaL_setmetatable(L, SCOPE_MT);
    if (!(ud->scope = lcsb__scope_new())) return luaL_error(L, "out of memory");
    return 1;
}

static lcsb__scope *check_scope(lua_State *L, int idx) {
    scope_ud *ud = luaL_checkudata(L, idx, SCOPE_MT);
    if (!ud->scope) luaL_argerror(L, idx, "scope is closed");
    return ud->scope;
}

/* A path of the scope's under the label argument, made (mkdtemp) or, when
 * RESERVE, reserved: its path, or nil and why. */
static int scope_path(lua_State *L, bool reserve) {
    lcsb__scope *s = check_scope(L, 1);
    const char *label = luaL_optstring(L, 2, "run");
    for (const char *c = label; *c; c++)
        if (*c == '/') return luaL_argerror(L, 2, "a label, not a path");
    /* The names a run before gave them, which a run's own scope may take
     * again (lcsb_script_options.private_names): strings the registry keeps. */
    const char *wanted[8] = {NULL};
    if (reserve && lua_getfield(L, LUA_REGISTRYINDEX, LCSB__REG_PRIVATE_NAMES) == LUA_TTABLE)
        for (lua_Integer i = 1; i < 8 && lua_rawgeti(L, -1, i) == LUA_TSTRING; i++) {
            wanted[i - 1] = lua_tostring(L, -1);
            lua_pop(L, 1);
        }
    lua_settop(L, 2);
    char path[PATH_MAX];
    lcsb_error err;
    if (reserve ? lcsb__scope_reserve_as(s, label, wanted, path, &err)
                : lcsb__scope_mkdtemp(s, label, path, &err))
        return lcsb__lua_fail(L, err.message);
    lua_pushstring(L, path);
    return 1;
}

static int l_scope_mkdtemp(lua_State *L) { return scope_path(L, false); }

/* scope:reserve(label) -> a path the scope owns, not made yet: the run's
 * private HOME or TMPDIR, which the shim makes in the command's world, or
 * the run on the host (lcsb__scope_reserve). */
static int l_scope_reserve(lua_State *L) { return scope_path(L, true); }

/* __close, __gc and :close() share this; closing twice is harmless. */
int lcsb__lua_close_scope(lua_State *L, int idx, lcsb_error *err) {
    scope_ud *ud = luaL_testudata(L, idx, SCOPE_MT);
    if (!ud || !ud->scope) return 0;
    int rc = lcsb__scope_close(ud->scope, err);
    lcsb__scope_free(ud->scope);
    ud->scope = NULL;
    return rc;
}

static int l_scope_close(lua_State *L) {
    luaL_checkudata(L, 1, SCOPE_MT);
    lcsb_error err = {0};
    return lcsb__lua_outcome(L, lcsb__lua_close_scope(L, 1, &err), &err);
}

static const luaL_Reg scope_methods[] = {
    {"mkdtemp", l_scope_mkdtemp},
    {"reserve", l_scope_reserve},
    {"close", l_scope_close},
    {NULL, NULL},
};

static const luaL_Reg scope_meta[] = {
    {"__gc", l_scope_close},
    {"__close", l_scope_close},
    {NULL, NULL},
};

const luaL_Reg lcsb__lua_scope_functions[] = {
    {"scope", l_scope},
    {NULL, NULL},
};

void lcsb__lua_scope_class(lua_State *L) {
    lcsb__lua_new_class(L, SCOPE_MT, scope_meta, scope_methods);
}
