/* The facts a composition asks through (facts.h), from Lua: while
 * exec_policy composes, what it asks of the disk is asked once and, for a
 * plan, marked; the disk helpers (lua_files.c, lua_plan.c, lua_loads.c)
 * find them here. */
#include "lua_facts.h"

#include <lauxlib.h>
#include <lua.h>
#include <stdbool.h>

#define FACTS_ACTIVE "lcsb.facts_active"
#define FACTS_OWNED "lcsb.facts_owned"
#define FACTS_OWNED_MT "lcsb.facts_owned_mt"

lcsb__facts *lcsb__lua_facts(lua_State *L) {
    lua_getfield(L, LUA_REGISTRYINDEX, FACTS_ACTIVE);
    lcsb__facts *f = lua_touserdata(L, -1);
    lua_pop(L, 1);
    return f;
}

static int facts_owned_gc(lua_State *L) {
    lcsb__facts **f = luaL_checkudata(L, 1, FACTS_OWNED_MT);
    lcsb__facts_free(*f);
    *f = NULL;
    return 0;
}

/* lcsb.core.compose_begin(record): what a composition asks is asked once
 * from now on, and, with RECORD, marked for a plan. The facts are the
 * script run's, or, in a plain Lua program, fresh ones for each
 * composition. */
static int l_compose_begin(lua_State *L) {
    bool record = lua_toboolean(L, 1);
    lua_getfield(L, LUA_REGISTRYINDEX, LCSB__REG_FACTS);
    lcsb__facts *f = lua_touserdata(L, -1);
    lua_pop(L, 1);
    if (!f) {
        lcsb__facts **owned = lua_newuserdatauv(L, sizeof *owned, 0);
        *owned = NULL;
        if (luaL_newmetatable(L, FACTS_OWNED_MT)) {
            lua_pushcfunction(L, facts_owned_gc);
            lua_setfield(L, -2, "__gc");
        }
        lua_setmetatable(L, -2);
        if (!(*owned = f = lcsb__facts_new())) return luaL_error(L, "out of memory");
        lua_setfield(L, LUA_REGISTRYINDEX, FACTS_OWNED); /* kept till the next one */
    }
    lcsb__facts_record(f, record);
    lua_pushlightuserdata(L, f);
    lua_setfield(L, LUA_REGISTRYINDEX, FACTS_ACTIVE);
    return 0;
}

/* lcsb.core.compose_end(): the host is asked directly again. */
static int l_compose_end(lua_State *L) {
    lcsb__facts_record(lcsb__lua_facts(L), false);
    lua_pushnil(L);
    lua_setfield(L, LUA_REGISTRYINDEX, FACTS_ACTIVE);
    return 0;
}

const luaL_Reg lcsb__lua_facts_functions[] = {
    {"compose_begin", l_compose_begin},
    {"compose_end", l_compose_end},
    {NULL, NULL},
};
