/* Layer 7: lcsb.scope from Lua (lua_scope.c): the userdata that owns a
 * run's private directories (scope.h). */
#ifndef LCSB_LUA_SCOPE_H
#define LCSB_LUA_SCOPE_H

#include "lcsb.h"

#include <lauxlib.h>

/* The names the run's private HOME and TMPDIR may take again (a table in
 * the registry: lcsb_script_options.private_names). */
#define LCSB__REG_PRIVATE_NAMES "lcsb.private_names"

extern const luaL_Reg lcsb__lua_scope_functions[];
void lcsb__lua_scope_class(lua_State *L);
/* Close the scope at IDX if it is an open one (never raises); as lcsb__scope_close. */
int lcsb__lua_close_scope(lua_State *L, int idx, lcsb_error *err);

#endif
