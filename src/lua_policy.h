/* Layer 7: the Lua binding's policy (lua_policy.c). */
#ifndef LCSB_LUA_POLICY_H
#define LCSB_LUA_POLICY_H

#include "util.h"

#include <lua.h>

#define LCSB__POLICY_MT "lcsb.policy"

/* lcsb.policy{...} */
int lcsb__lua_policy(lua_State *L);
void lcsb__lua_policy_class(lua_State *L);
/* The policy at IDX: an lcsb.policy, or exec_policy's result holding one. */
lcsb_policy *lcsb__lua_checkpolicy(lua_State *L, int idx);

#endif
