/* Layer 7: lcsb's own Lua modules (lua/lcsb), compiled into the library as
 * bytecode when it is built (cmake/lua_bytecode.c), and a Lua state opened
 * to run policy scripts and hints with them: no run parses them again. */
#ifndef LCSB_LUA_MODULES_H
#define LCSB_LUA_MODULES_H

#include <lua.h>
#include <stddef.h>

typedef struct lcsb__lua_module {
    const char *name; /* as require takes it: "lcsb", "lcsb.tools" */
    const unsigned char *bytes;
    size_t len;
} lcsb__lua_module;

/* The modules, ended by one whose name is NULL. */
extern const lcsb__lua_module lcsb__lua_modules[];

/* L's standard libraries opened, and require finding lcsb.core (the C half)
 * and lcsb's own modules in the library, ahead of any file (a project's
 * "lcsb/tools.lua" on package.path shadows none of them); other Lua files
 * on LUA_DIR, C modules on the system's Lua directories only. */
void lcsb__lua_open(lua_State *L, const char *lua_dir);

#endif
