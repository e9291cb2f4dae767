/* Layer 7: lcsb.hold from Lua (lua_placeholder.c): the placeholder runs
 * share (placeholder.c) as a userdata. */
#ifndef LCSB_LUA_PLACEHOLDER_H
#define LCSB_LUA_PLACEHOLDER_H

#include <lauxlib.h>

extern const luaL_Reg lcsb__lua_placeholder_functions[];
void lcsb__lua_placeholder_class(lua_State *L);

#endif
