/* Layer 7: the disk helpers exec_policy uses (lua_files.c): programs,
 * kinds, real paths, listings, a regular file read, a directory made. */
#ifndef LCSB_LUA_FILES_H
#define LCSB_LUA_FILES_H

#include <lauxlib.h>

extern const luaL_Reg lcsb__lua_files_functions[];

#endif
