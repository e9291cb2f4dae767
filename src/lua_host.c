/* The Lua binding's host helpers, gathered for luaopen_lcsb: what
 * exec_policy needs from the disk and the terminal, the scope that owns a
 * run's private directories, the hold on a placeholder, the walk for what a
 * run changed and the caches, each a file of its own (lua_*.c), set into
 * the module here so the module names them once. Misuse raises; expected
 * operational failures return nil, message. */
#include "lua_host.h"

#include "lua_cache.h"
#include "lua_changed.h"
#include "lua_facts.h"
#include "lua_files.h"
#include "lua_lexical.h"
#include "lua_placeholder.h"
#include "lua_scope.h"
#include "lua_tty.h"

#include <lauxlib.h>

void lcsb__lua_host_register(lua_State *L) {
    lcsb__lua_scope_class(L);
    lcsb__lua_placeholder_class(L);
    lcsb__lua_changed_class(L);
    luaL_setfuncs(L, lcsb__lua_scope_functions, 0);
    luaL_setfuncs(L, lcsb__lua_facts_functions, 0);
    luaL_setfuncs(L, lcsb__lua_files_functions, 0);
    luaL_setfuncs(L, lcsb__lua_lexical_functions, 0);
    luaL_setfuncs(L, lcsb__lua_tty_functions, 0);
    luaL_setfuncs(L, lcsb__lua_placeholder_functions, 0);
    luaL_setfuncs(L, lcsb__lua_changed_functions, 0);
    luaL_setfuncs(L, lcsb__lua_cache_functions, 0);
}
