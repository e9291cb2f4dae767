/* Layer 7: the facts a composition asks through, from Lua (lua_facts.c):
 * core.compose_begin and core.compose_end, and the registry keys a script
 * run sets. */
#ifndef LCSB_LUA_FACTS_H
#define LCSB_LUA_FACTS_H

#include "facts.h"

#include <lauxlib.h>

/* The registry's light userdata for the facts (facts.h) a state composes
 * with: the disk helpers ask through them while a composition runs
 * (core.compose_begin to core.compose_end), and the host directly at any
 * other time. A script run (script.c) puts its own there; a plain Lua
 * program gets some made for it. */
#define LCSB__REG_FACTS "lcsb.facts"
/* The registry's boolean that says lcsb trust is running the script: it
 * composes afresh, for the record to hold every file a composition reads. */
#define LCSB__REG_TRUSTING "lcsb.trusting"

/* The facts to ask through while a composition runs, else NULL: the host
 * directly. */
lcsb__facts *lcsb__lua_facts(lua_State *L);

extern const luaL_Reg lcsb__lua_facts_functions[];

#endif
