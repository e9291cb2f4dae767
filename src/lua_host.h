/* Layer 7: the Lua binding's host helpers, gathered (lua_host.c): the
 * scope, the facts, the disk helpers, the hold, the walk for what changed,
 * the caches, the terminals, each in a file of its own. This header also
 * gives the facts' registry keys and the scope's close (lua_facts.h,
 * lua_scope.h) to the files that take them from here (script.c). */
#ifndef LCSB_LUA_HOST_H
#define LCSB_LUA_HOST_H

#include "lua_facts.h"
#include "lua_scope.h"

#include <lauxlib.h>

/* Set every host helper into the module table at the top of the stack, and
 * make their classes. */
void lcsb__lua_host_register(lua_State *L);

#endif
