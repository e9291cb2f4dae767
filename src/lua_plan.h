/* Layer 7: plans from Lua (lua_plan.c): core.plan_find and core.plan_save,
 * which exec_policy's composition goes through (plan.h). */
#ifndef LCSB_LUA_PLAN_H
#define LCSB_LUA_PLAN_H

#include <lauxlib.h>

extern const luaL_Reg lcsb__lua_plan_functions[];

#endif
