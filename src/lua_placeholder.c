/* lcsb.hold: the placeholder .git of a project that is no repository, or an
 * agent's directory (placeholder.c), held for the run by a userdata that
 * lets go when released, closed or collected. */
#include "lua_placeholder.h"

#include "lua_util.h"

#include <lauxlib.h>
#include <lua.h>
#include <stdbool.h>

#define HOLD_MT "lcsb.hold"

typedef struct hold_ud {
    lcsb_hold *hold;
} hold_ud;

/* lcsb.hold(path) -> hold | nil, message, unwritable: PATH made, or taken as
 * it is when it is an empty directory, and held for this run. UNWRITABLE is
 * true when this user may not make it (then neither may a command it runs). */
static int l_hold(lua_State *L) {
    const char *path = lcsb__lua_check_path(L, 1);
    hold_ud *h = lua_newuserdatauv(L, sizeof *h, 0);
    h->hold = NULL;
    luaL_setmetatable(L, HOLD_MT);
    bool unwritable;
    lcsb_error err;
    int rc = lcsb_hold_acquire(path, &h->hold, &unwritable, &err);
    if (rc == LCSB_ENOMEM) return luaL_error(L, "out of memory");
    if (rc) {
        luaL_pushfail(L);
        lua_pushstring(L, err.message);
        lua_pushboolean(L, unwritable);
        return 3;
    }
    return 1;
}

/* hold:release() -> true | nil, message: removes the directory unless another
 * run still holds it (then that run will); lets go either way. Collected or
 * closed, a hold is released the same way. */
static int l_hold_release(lua_State *L) {
    hold_ud *h = luaL_checkudata(L, 1, HOLD_MT);
    lcsb_error err;
    int rc = lcsb_hold_release(h->hold, &err);
    h->hold = NULL;
    return lcsb__lua_outcome(L, rc, &err);
}

static const luaL_Reg hold_methods[] = {{"release", l_hold_release}, {NULL, NULL}};
static const luaL_Reg hold_meta[] = {
    {"__gc", l_hold_release}, {"__close", l_hold_release}, {NULL, NULL}};

const luaL_Reg lcsb__lua_placeholder_functions[] = {
    {"hold", l_hold},
    {NULL, NULL},
};

void lcsb__lua_placeholder_class(lua_State *L) {
    lcsb__lua_new_class(L, HOLD_MT, hold_meta, hold_methods);
}
