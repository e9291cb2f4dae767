/* The terminals on lcsb's own stdin, stdout and stderr, which exec_policy
 * lets the command write: the one thing the binding asks of the terminal,
 * apart from the disk helpers. */
#include "lua_tty.h"

#include <lauxlib.h>
#include <limits.h>
#include <lua.h>
#include <stdbool.h>
#include <string.h>
#include <unistd.h>

/* lcsb.ttys() -> the terminals on stdin, stdout and stderr, each once */
static int l_ttys(lua_State *L) {
    lua_newtable(L);
    int n = 0;
    char seen[3][PATH_MAX];
    for (int fd = 0; fd <= 2; fd++) {
        if (ttyname_r(fd, seen[n], sizeof seen[n]) != 0) continue;
        bool dup = false;
        for (int i = 0; i < n; i++) dup |= strcmp(seen[i], seen[n]) == 0;
        if (dup) continue;
        lua_pushstring(L, seen[n]);
        lua_rawseti(L, -2, ++n);
    }
    return 1;
}

const luaL_Reg lcsb__lua_tty_functions[] = {
    {"ttys", l_ttys},
    {NULL, NULL},
};
