/* Paths judged as text, as the C side judges them (path.c, sysprefix.c),
 * so exec_policy and the hints agree with it: the policy's lexical normal
 * form, and the system prefix a path is or holds. Pure: apart from the disk
 * helpers (lua_files.c). */
#include "lua_lexical.h"

#include "lua_util.h"
#include "path.h"
#include "sysprefix.h"

#include <lauxlib.h>
#include <limits.h>
#include <lua.h>
#include <string.h>

/* lcsb.normalize(path) -> the policy's lexical normal form | nil, message */
static int l_normalize(lua_State *L) {
    char out[PATH_MAX];
    lcsb_error err;
    size_t len;
    const char *path = luaL_checklstring(L, 1, &len);
    if (strlen(path) != len) { /* C would see only what precedes the NUL: a parent */
        luaL_pushfail(L);
        lua_pushfstring(L, "path: %s: holds a NUL byte", path);
        return 2;
    }
    if (lcsb__path_normalize("path", path, out, &err)) return lcsb__lua_fail(L, err.message);
    lua_pushstring(L, out);
    return 1;
}

/* lcsb.core.system_prefix(path) -> the system prefix PATH is or holds ("/",
 * "/usr", "/tmp", a multiarch library directory, ...), or nil: a directory
 * no write or exec grant may name (rule 3), so a hint must not suggest it.
 * Lexical, on PATH normalized; nil for a path that does not normalize. */
static int l_system_prefix(lua_State *L) {
    char out[PATH_MAX];
    lcsb_error err;
    size_t len;
    const char *path = luaL_checklstring(L, 1, &len);
    const char *prefix = strlen(path) == len && !lcsb__path_normalize("path", path, out, &err)
                             ? lcsb__system_prefix_within(out)
                             : NULL;
    if (!prefix) {
        luaL_pushfail(L);
        return 1;
    }
    lua_pushstring(L, prefix);
    return 1;
}

/* lcsb.core.split(path) -> directory | nil, name: PATH at its last slash,
 * as text. The directory is nil when there is none before that slash (a
 * name alone, or one right under "/"); the name is what follows it (the
 * whole of PATH when it has no slash; "" after a trailing one). What a
 * composition asks of each of hundreds of files, at a tenth of a pattern's
 * cost. */
static int l_split(lua_State *L) {
    size_t len;
    const char *path = luaL_checklstring(L, 1, &len);
    const char *slash = len ? memrchr(path, '/', len) : NULL;
    if (slash && slash > path)
        lua_pushlstring(L, path, (size_t)(slash - path));
    else
        luaL_pushfail(L);
    const char *name = slash ? slash + 1 : path;
    lua_pushlstring(L, name, len - (size_t)(name - path));
    return 2;
}

const luaL_Reg lcsb__lua_lexical_functions[] = {
    {"normalize", l_normalize},
    {"system_prefix", l_system_prefix},
    {"split", l_split},
    {NULL, NULL},
};
