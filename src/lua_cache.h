/* Layer 7: the caches kept per project, from Lua (lua_cache.c). */
#ifndef LCSB_LUA_CACHE_H
#define LCSB_LUA_CACHE_H

#include <lauxlib.h>

extern const luaL_Reg lcsb__lua_cache_functions[];

#endif
