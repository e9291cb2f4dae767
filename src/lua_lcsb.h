/* Layer 7: the Lua binding's pieces, shared by the module (lua_*.c) and the
 * script runner (script.c). */
#ifndef LCSB_LUA_LCSB_H
#define LCSB_LUA_LCSB_H

#include "scope.h"

#include <lauxlib.h>
#include <lua.h>

#include "fields.h"

#define LCSB__POLICY_MT "lcsb.policy"

/* Registry keys: the shim lcsb.detect() reports, the scope that owns the
 * run's private HOME, and the run's context (argv, cwd, env). */
#define LCSB__REG_SHIM "lcsb.shim"
#define LCSB__REG_RUN_SCOPE "lcsb.run_scope"
#define LCSB__REG_RUN "lcsb.run"

LCSB_API int luaopen_lcsb(lua_State *L);
LCSB_API int luaopen_lcsb_core(lua_State *L);

/* lua_lcsb.c: the module, and what its files share. */
int lcsb__lua_raise(lua_State *L, const lcsb_error *err);
void lcsb__lua_push_argv(lua_State *L, char **argv);
/* BITS as the list of their NAMES (bit I is NAMES[I]). */
void lcsb__lua_push_bits(lua_State *L, const char *const *names, unsigned bits);
void lcsb__lua_push_attestation(lua_State *L, const lcsb_attestation *a);
/* A metatable NAME with META and, as __index, METHODS. */
void lcsb__lua_new_class(lua_State *L, const char *name, const luaL_Reg *meta,
                         const luaL_Reg *methods);

/* lua_policy.c: lcsb.policy{...} and its userdata. */
int lcsb__lua_policy(lua_State *L);
void lcsb__lua_policy_class(lua_State *L);
lcsb_policy *lcsb__lua_checkpolicy(lua_State *L, int idx);

/* lua_host.c: the scope, the disk helpers, the hold. */
extern const luaL_Reg lcsb__lua_host_functions[];
void lcsb__lua_host_classes(lua_State *L);
lcsb__scope *lcsb__lua_checkscope(lua_State *L, int idx);
/* Close the scope at IDX if it is an open one (never raises); as lcsb__scope_close. */
int lcsb__lua_close_scope(lua_State *L, int idx, lcsb_error *err);

#endif
