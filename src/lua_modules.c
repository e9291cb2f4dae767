/* lcsb's Lua modules out of the library: each a preload entry that loads
 * its bytecode, which the library carries and no command can reach. */
#include "lua_modules.h"

#include "lua_lcsb.h"

#include <lauxlib.h>
#include <lualib.h>

#ifndef LCSB_LUA_CPATH
#define LCSB_LUA_CPATH ""
#endif

/* require's loader for the module at upvalue 1's index: its chunk, run as
 * a file's would be (with the module's name, and ":preload:"). */
static int load_module(lua_State *L) {
    const lcsb__lua_module *m = &lcsb__lua_modules[lua_tointeger(L, lua_upvalueindex(1))];
    /* The chunk names its file itself ("lcsb/init.lua"): the dump keeps it. */
    if (luaL_loadbufferx(L, (const char *)m->bytes, m->len, m->name, "b") != LUA_OK)
        return lua_error(L);
    lua_insert(L, 1);
    lua_call(L, lua_gettop(L) - 1, 1);
    return 1;
}

void lcsb__lua_open(lua_State *L, const char *lua_dir) {
    luaL_openlibs(L);
    luaL_getsubtable(L, LUA_REGISTRYINDEX, LUA_PRELOAD_TABLE);
    lua_pushcfunction(L, luaopen_lcsb);
    lua_setfield(L, -2, "lcsb.core");
    for (lua_Integer i = 0; lcsb__lua_modules[i].name; i++) {
        lua_pushinteger(L, i);
        lua_pushcclosure(L, load_module, 1);
        lua_setfield(L, -2, lcsb__lua_modules[i].name);
    }
    lua_pop(L, 1);
    lua_getglobal(L, "package");
    lua_pushfstring(L, "%s/?.lua;%s/?/init.lua", lua_dir, lua_dir);
    lua_setfield(L, -2, "path");
    lua_pushliteral(L, LCSB_LUA_CPATH);
    lua_setfield(L, -2, "cpath");
    lua_pop(L, 1);
    /* For lcsb.core.own_files: the hints never offer lcsb's own files. */
    lua_pushstring(L, lua_dir);
    lua_setfield(L, LUA_REGISTRYINDEX, LCSB__REG_LUA_DIR);
}
