/* The caches kept per project (cache.c) as exec_policy's cache = { ... }
 * asks for them: a project's directory made on demand, and where they all
 * are. */
#include "lua_cache.h"

#include "cache.h"
#include "lua_util.h"

#include <lauxlib.h>
#include <limits.h>
#include <lua.h>

/* lcsb.cache_dir(project, rel) -> path | nil, message: the directory
 * PROJECT keeps in place of ~/REL (exec_policy's cache = { ... }), made on
 * demand, by its real path. */
static int l_cache_dir(lua_State *L) {
    const char *project = lcsb__lua_check_path(L, 1), *rel = lcsb__lua_check_path(L, 2);
    char out[PATH_MAX];
    lcsb_error err;
    if (lcsb__cache_make(project, rel, out, &err)) return lcsb__lua_fail(L, err.message);
    lua_pushstring(L, out);
    return 1;
}

/* lcsb.core.cache_root() -> path | nil, message: where every project's
 * caches are kept (lcsb_cache_dir's answer), made or not: exec_policy counts
 * it as the command's to write. */
static int l_cache_root(lua_State *L) {
    char out[PATH_MAX];
    lcsb_error err;
    if (lcsb_cache_dir(NULL, out, sizeof out, &err)) return lcsb__lua_fail(L, err.message);
    lua_pushstring(L, out);
    return 1;
}

const luaL_Reg lcsb__lua_cache_functions[] = {
    {"cache_dir", l_cache_dir},
    {"cache_root", l_cache_root},
    {NULL, NULL},
};
