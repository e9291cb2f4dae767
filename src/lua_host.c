/* The Lua binding's host helpers: what exec_policy needs from the disk and
 * the terminal (which programs, which kind of file, real paths, a
 * directory's entries), the scope that owns a run's private directories, and
 * the hold on a placeholder .git. Misuse raises; expected operational
 * failures return nil, message. */
#include "lua_host.h"

#include "lua_util.h"

#include "path.h"
#include "sys.h"

#include <dirent.h>
#include <errno.h>
#include <lauxlib.h>
#include <limits.h>
#include <lua.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define SCOPE_MT "lcsb.scope"
#define HOLD_MT "lcsb.hold"

typedef struct scope_ud {
    lcsb__scope *scope;
} scope_ud;

/* ---- lcsb.scope ---- */

static int l_scope(lua_State *L) {
    scope_ud *ud = lua_newuserdatauv(L, sizeof *ud, 0);
    ud->scope = NULL;
    luaL_setmetatable(L, SCOPE_MT);
    if (!(ud->scope = lcsb__scope_new())) return luaL_error(L, "out of memory");
    return 1;
}

static lcsb__scope *check_scope(lua_State *L, int idx) {
    scope_ud *ud = luaL_checkudata(L, idx, SCOPE_MT);
    if (!ud->scope) luaL_argerror(L, idx, "scope is closed");
    return ud->scope;
}

static int l_scope_mkdtemp(lua_State *L) {
    lcsb__scope *s = check_scope(L, 1);
    const char *label = luaL_optstring(L, 2, "run");
    for (const char *c = label; *c; c++)
        if (*c == '/') return luaL_argerror(L, 2, "a label, not a path");
    char path[PATH_MAX];
    lcsb_error err;
    if (lcsb__scope_mkdtemp(s, label, path, &err)) return lcsb__lua_fail(L, err.message);
    lua_pushstring(L, path);
    return 1;
}

/* __close, __gc and :close() share this; closing twice is harmless. */
int lcsb__lua_close_scope(lua_State *L, int idx, lcsb_error *err) {
    scope_ud *ud = luaL_testudata(L, idx, SCOPE_MT);
    if (!ud || !ud->scope) return 0;
    int rc = lcsb__scope_close(ud->scope, err);
    lcsb__scope_free(ud->scope);
    ud->scope = NULL;
    return rc;
}

static int l_scope_close(lua_State *L) {
    luaL_checkudata(L, 1, SCOPE_MT);
    lcsb_error err = {0};
    return lcsb__lua_outcome(L, lcsb__lua_close_scope(L, 1, &err), &err);
}

/* ---- what exec_policy needs from the disk ---- */

/* lcsb.which(name) -> { program, interpreter... } | nil, message */
static int l_which(lua_State *L) {
    size_t len;
    const char *name = luaL_checklstring(L, 1, &len);
    char **files = NULL;
    lcsb_error err;
    if (strlen(name) != len) { /* C would resolve only what precedes the NUL */
        luaL_pushfail(L);
        lua_pushfstring(L, "exec: %s: holds a NUL byte", name);
        return 2;
    }
    if (lcsb_resolve_program(name, &files, &err)) return lcsb__lua_fail(L, err.message);
    lcsb__lua_push_argv(L, files);
    lcsb_argv_free(files);
    return 1;
}

/* The path at IDX, refused (raised) when it holds a NUL byte. */
static const char *check_path(lua_State *L, int idx) {
    size_t len;
    const char *path = luaL_checklstring(L, idx, &len);
    if (strlen(path) != len) luaL_argerror(L, idx, "the path holds a NUL byte");
    return path;
}

/* true, or nil and "PATH: REASON" from errno, for a call that returned RC. */
static int push_outcome(lua_State *L, int rc, const char *path) {
    if (rc != 0) {
        luaL_pushfail(L);
        lua_pushfstring(L, "%s: %s", path, strerror(errno));
        return 2;
    }
    lua_pushboolean(L, 1);
    return 1;
}

/* lcsb.mkdir(path [, mode]) -> true | nil, message (one directory, not a chain) */
static int l_mkdir(lua_State *L) {
    const char *path = check_path(L, 1);
    return push_outcome(L, mkdir(path, (mode_t)luaL_optinteger(L, 2, 0755)), path);
}

/* lcsb.rmdir(path) -> true | nil, message (an empty directory only) */
static int l_rmdir(lua_State *L) {
    const char *path = check_path(L, 1);
    return push_outcome(L, rmdir(path), path);
}

/* lcsb.kind(path) -> "dir" | "file" | "other" | nil (following symlinks) */
static int l_kind(lua_State *L) {
    struct stat st;
    if (stat(luaL_checkstring(L, 1), &st) != 0) {
        luaL_pushfail(L);
        return 1;
    }
    lua_pushstring(L, S_ISDIR(st.st_mode) ? "dir" : S_ISREG(st.st_mode) ? "file" : "other");
    return 1;
}

static int l_realpath(lua_State *L) {
    char out[PATH_MAX];
    const char *path = luaL_checkstring(L, 1);
    if (!lcsb__realpath(path, out)) {
        luaL_pushfail(L);
        lua_pushfstring(L, "%s: %s", path, strerror(errno));
        return 2;
    }
    lua_pushstring(L, out);
    return 1;
}

static int not_dots(const struct dirent *e) {
    return strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0;
}

static int by_name(const struct dirent **a, const struct dirent **b) {
    return strcmp((*a)->d_name, (*b)->d_name);
}

/* lcsb.listdir(path) -> PATH's entry names, sorted bytewise, without . and
 * .., and their kinds as the directory says ("file", "dir", "link", "other",
 * or "unknown" where the file system does not say) | nil, message */
static int l_listdir(lua_State *L) {
    const char *path = luaL_checkstring(L, 1);
    struct dirent **names;
    int n = scandir(path, &names, not_dots, by_name);
    if (n < 0) {
        luaL_pushfail(L);
        lua_pushfstring(L, "%s: %s", path, strerror(errno));
        return 2;
    }
    lua_createtable(L, n, 0);
    lua_createtable(L, n, 0);
    for (int i = 0; i < n; i++) {
        unsigned char type = names[i]->d_type;
        lua_pushstring(L, names[i]->d_name);
        lua_rawseti(L, -3, i + 1);
        lua_pushstring(L, type == DT_REG       ? "file"
                          : type == DT_DIR     ? "dir"
                          : type == DT_LNK     ? "link"
                          : type == DT_UNKNOWN ? "unknown"
                                               : "other");
        lua_rawseti(L, -2, i + 1);
        free(names[i]);
    }
    free(names);
    return 2;
}

/* ---- lcsb.hold: the placeholder .git (hold.c) ---- */

typedef struct hold_ud {
    lcsb_hold *hold;
} hold_ud;

/* lcsb.hold(path) -> hold | nil, message, unwritable: PATH made, or taken as
 * it is when it is an empty directory, and held for this run. UNWRITABLE is
 * true when this user may not make it (then neither may a command it runs). */
static int l_hold(lua_State *L) {
    const char *path = check_path(L, 1);
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

static const luaL_Reg scope_methods[] = {
    {"mkdtemp", l_scope_mkdtemp},
    {"close", l_scope_close},
    {NULL, NULL},
};

static const luaL_Reg scope_meta[] = {
    {"__gc", l_scope_close},
    {"__close", l_scope_close},
    {NULL, NULL},
};

static const luaL_Reg hold_methods[] = {{"release", l_hold_release}, {NULL, NULL}};
static const luaL_Reg hold_meta[] = {
    {"__gc", l_hold_release}, {"__close", l_hold_release}, {NULL, NULL}};

const luaL_Reg lcsb__lua_host_functions[] = {
    {"scope", l_scope},
    {"which", l_which},
    {"kind", l_kind},
    {"realpath", l_realpath},
    {"normalize", l_normalize},
    {"ttys", l_ttys},
    {"listdir", l_listdir},
    {"mkdir", l_mkdir},
    {"rmdir", l_rmdir},
    {"hold", l_hold},
    {NULL, NULL},
};

void lcsb__lua_host_classes(lua_State *L) {
    lcsb__lua_new_class(L, SCOPE_MT, scope_meta, scope_methods);
    lcsb__lua_new_class(L, HOLD_MT, hold_meta, hold_methods);
}
