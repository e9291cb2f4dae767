/* Layer 7: lcsb.ttys from Lua (lua_tty.c): the terminals lcsb runs on. */
#ifndef LCSB_LUA_TTY_H
#define LCSB_LUA_TTY_H

#include <lauxlib.h>

extern const luaL_Reg lcsb__lua_tty_functions[];

#endif
