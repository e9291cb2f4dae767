/* Layer 7: lcsb.changed and lcsb.fs_now from Lua (lua_changed.c): what a
 * run changed in the project (changed.c). */
#ifndef LCSB_LUA_CHANGED_H
#define LCSB_LUA_CHANGED_H

#include <lauxlib.h>

extern const luaL_Reg lcsb__lua_changed_functions[];
void lcsb__lua_changed_class(lua_State *L);

#endif
