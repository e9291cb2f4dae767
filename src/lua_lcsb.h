/* Layer 7: the Lua binding's pieces, shared by the module (lua_*.c) and the
 * script runner (script.c). */
#ifndef LCSB_LUA_LCSB_H
#define LCSB_LUA_LCSB_H

#include "scope.h"

struct lua_State;

/* Registry keys: the shim lcsb.detect() reports, the scope that owns the
 * run's private HOME, and the run's context (argv, cwd, env). */
#define LCSB__REG_SHIM "lcsb.shim"
#define LCSB__REG_RUN_SCOPE "lcsb.run_scope"
#define LCSB__REG_RUN "lcsb.run"

LCSB_API int luaopen_lcsb(struct lua_State *L);
LCSB_API int luaopen_lcsb_core(struct lua_State *L);
lcsb_policy *lcsb__lua_checkpolicy(struct lua_State *L, int idx);
lcsb__scope *lcsb__lua_checkscope(struct lua_State *L, int idx);
/* Close the scope at IDX if it is an open one (never raises); as lcsb__scope_close. */
int lcsb__lua_close_scope(struct lua_State *L, int idx, lcsb_error *err);
void lcsb__lua_push_attestation(struct lua_State *L, const lcsb_attestation *a);

#endif
