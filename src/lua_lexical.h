/* Layer 7: paths judged as text, from Lua (lua_lexical.c): the policy's
 * normal form and the system prefixes (rule 3). */
#ifndef LCSB_LUA_LEXICAL_H
#define LCSB_LUA_LEXICAL_H

#include <lauxlib.h>

extern const luaL_Reg lcsb__lua_lexical_functions[];

#endif
