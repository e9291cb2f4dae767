/* Layer 7: the Lua binding's policy (lua_policy.c). */
#ifndef LCSB_LUA_POLICY_H
#define LCSB_LUA_POLICY_H

#include "util.h"

#include <lua.h>

#define LCSB__POLICY_MT "lcsb.policy"

/* lcsb.policy{...} */
int lcsb__lua_policy(lua_State *L);
void lcsb__lua_policy_class(lua_State *L);
/* policy:table(): the policy at 1 as the plain table lcsb.policy takes. */
int lcsb__lua_policy_table(lua_State *L);
/* The policy at IDX. The pointer lives as long as the userdata and no
 * longer: take it after anything that may run Lua code. */
lcsb_policy *lcsb__lua_checkpolicy(lua_State *L, int idx);
/* Where IDX is exec_policy's result, put the policy it holds in its place
 * (read raw), so that the slot anchors the userdata itself. */
void lcsb__lua_policy_slot(lua_State *L, int idx);

#endif
