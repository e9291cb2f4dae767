/* Layer 7: the Lua binding's host helpers (lua_host.c): the scope, the
 * disk helpers, the hold. */
#ifndef LCSB_LUA_HOST_H
#define LCSB_LUA_HOST_H

#include "facts.h"
#include "scope.h"

#include <lauxlib.h>

/* The registry's light userdata for the facts (facts.h) a state composes
 * with: the disk helpers ask through them while a composition runs
 * (core.compose_begin to core.compose_end), and the host directly at any
 * other time. A script run (script.c) puts its own there; a plain Lua
 * program gets some made for it. */
#define LCSB__REG_FACTS "lcsb.facts"
/* The registry's boolean that says lcsb trust is running the script: it
 * composes afresh, for the record to hold every file a composition reads. */
#define LCSB__REG_TRUSTING "lcsb.trusting"

/* The facts to ask through while a composition runs, else NULL: the host
 * directly. */
lcsb__facts *lcsb__lua_facts(lua_State *L);

extern const luaL_Reg lcsb__lua_host_functions[];
void lcsb__lua_host_classes(lua_State *L);
/* Close the scope at IDX if it is an open one (never raises); as lcsb__scope_close. */
int lcsb__lua_close_scope(lua_State *L, int idx, lcsb_error *err);

#endif
