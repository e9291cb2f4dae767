/* Layer 7: the Lua module (lua_lcsb.c), and the registry keys it shares
 * with the script runner (script.c). */
#ifndef LCSB_LUA_LCSB_H
#define LCSB_LUA_LCSB_H

#include "util.h"

#include <lua.h>

/* Registry keys: the shim lcsb.detect() reports, the scope that owns the
 * run's private HOME, the run's context (argv, cwd, env), and the
 * directory of lcsb's Lua files in a state lcsb made. */
#define LCSB__REG_SHIM "lcsb.shim"
#define LCSB__REG_RUN_SCOPE "lcsb.run_scope"
#define LCSB__REG_RUN "lcsb.run"
#define LCSB__REG_LUA_DIR "lcsb.lua_dir"

LCSB_API int luaopen_lcsb(lua_State *L);
LCSB_API int luaopen_lcsb_core(lua_State *L);

#endif
