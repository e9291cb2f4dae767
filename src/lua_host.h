/* Layer 7: the Lua binding's host helpers (lua_host.c): the scope, the
 * disk helpers, the hold. */
#ifndef LCSB_LUA_HOST_H
#define LCSB_LUA_HOST_H

#include "scope.h"

#include <lauxlib.h>

extern const luaL_Reg lcsb__lua_host_functions[];
void lcsb__lua_host_classes(lua_State *L);
/* Close the scope at IDX if it is an open one (never raises); as lcsb__scope_close. */
int lcsb__lua_close_scope(lua_State *L, int idx, lcsb_error *err);

#endif
