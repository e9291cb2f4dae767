/* lcsb.changed: the walk for what a run changed in the project (changed.c),
 * with the watches run_later.lua names checked on the way in, and the
 * result pushed from a userdata that owns it, so a memory error leaves
 * nothing behind; and lcsb.fs_now, the clock the walk compares with. */
#include "lua_changed.h"

#include "changed.h"
#include "lua_util.h"
#include "sys.h"

#include <errno.h>
#include <lauxlib.h>
#include <lua.h>
#include <stdbool.h>
#include <string.h>
#include <time.h>

#define CHANGED_MT "lcsb.changed"

/* The list at the top of the stack, of at most 64 strings that CHECK
 * accepts (else WHAT for NAME), as a NULL-terminated array anchored on
 * ANCHOR; the strings are kept alive by the watch table. */
static const char *const *watch_list(lua_State *L, int anchor, const char *name,
                                     bool (*check)(const char *, size_t), const char *what) {
    lua_Integer n = (lua_Integer)lua_rawlen(L, -1);
    if (n > 64) luaL_error(L, "changed: watch '%s': more than 64 entries in a list", name);
    const char **list = lua_newuserdatauv(L, ((size_t)n + 1) * sizeof *list, 0);
    for (lua_Integer i = 1; i <= n; i++) {
        size_t len;
        lua_rawgeti(L, -2, i);
        const char *item = lua_tolstring(L, -1, &len);
        if (lua_type(L, -1) != LUA_TSTRING || strlen(item) != len || !check(item, len))
            luaL_error(L, "changed: watch '%s': entry %d %s", name, (int)i, what);
        list[i - 1] = item;
        lua_pop(L, 1);
    }
    list[n] = NULL;
    lua_rawsetp(L, anchor, list); /* the userdata lives as long as the anchor */
    return list;
}

static bool inside_ok(const char *part, size_t len) {
    const char *slash = strchr(part, '/');
    return len > 0 && strcmp(part, "..") != 0 && (!slash || strcmp(slash, "/*") == 0) &&
           slash != part;
}

static bool parent_ok(const char *name, size_t len) { return len > 0 && !strchr(name, '/'); }

/* How a watch looks at its entry (the value at the top of the stack): true
 * (itself), "tree" (it and all below), or a list of paths inside it. */
static void check_look(lua_State *L, int anchor, lcsb__watch *w) {
    if (lua_type(L, -1) == LUA_TBOOLEAN && lua_toboolean(L, -1)) {
        w->how = LCSB__WATCH_SELF;
    } else if (lua_type(L, -1) == LUA_TSTRING && strcmp(lua_tostring(L, -1), "tree") == 0) {
        w->how = LCSB__WATCH_TREE;
    } else if (lua_istable(L, -1)) {
        w->how = LCSB__WATCH_INSIDE;
        w->inside = watch_list(L, anchor, w->name, inside_ok, "is not NAME, NAME/*, * or .");
    } else {
        luaL_error(L, "changed: watch '%s': expected true, \"tree\" or a list", w->name);
    }
}

/* What a watch says about an entry: how it looks at it, or a table with
 * that as `look`, and `parents` (names of the directory the entry must be
 * directly in) and `kind` ("link", "gitdir") to narrow which entries. */
static void check_watch(lua_State *L, int anchor, lcsb__watch *w) {
    size_t len;
    const char *name = lua_tolstring(L, -2, &len);
    bool rooted = name[0] == '/';
    if (len == 0 || strlen(name) != len || (rooted && len == 1) || (!rooted && strchr(name, '/')) ||
        strcmp(name, ".") == 0 || strcmp(name, "..") == 0)
        luaL_error(L, "changed: watched name '%s' is neither a file name nor /PATH", name);
    *w = (lcsb__watch){.name = name};
    bool spec = false;
    if (lua_istable(L, -1)) {
        spec = lua_getfield(L, -1, "look") != LUA_TNIL;
        if (!spec) lua_pop(L, 1);
    }
    check_look(L, anchor, w);
    if (!spec) return;
    lua_pop(L, 1);
    if (lua_getfield(L, -1, "parents") != LUA_TNIL) {
        if (!lua_istable(L, -1)) luaL_error(L, "changed: watch '%s': parents is a list", name);
        w->parents = watch_list(L, anchor, name, parent_ok, "is not a file name");
    }
    lua_pop(L, 1);
    const char *kind = (lua_getfield(L, -1, "kind"), lua_tostring(L, -1));
    if (kind && strcmp(kind, "link") == 0)
        w->kind = LCSB__KIND_LINK;
    else if (kind && strcmp(kind, "gitdir") == 0)
        w->kind = LCSB__KIND_GITDIR;
    else if (!lua_isnil(L, -1))
        luaL_error(L, "changed: watch '%s': kind is \"link\" or \"gitdir\"", name);
    lua_pop(L, 1);
}

static int l_changed_gc(lua_State *L) {
    lcsb__changed_free(luaL_checkudata(L, 1, CHANGED_MT));
    return 0;
}

static void push_unseen(lua_State *L, const lcsb__unseen *u, const char *what) {
    if (!u->n) return;
    lua_createtable(L, 0, 3);
    lua_pushstring(L, u->first);
    lua_setfield(L, -2, "first");
    lua_pushinteger(L, (lua_Integer)u->n);
    lua_setfield(L, -2, "n");
    if (u->error) {
        lua_pushstring(L, strerror(u->error));
        lua_setfield(L, -2, "error");
    }
    lua_setfield(L, -2, what);
}

/* OPTS[KEY] (OPTS at IDX), a list of at most 64 strings (paths when
 * PATHS), as a NULL-terminated array anchored on the stack; NULL when
 * absent. */
static const char *const *name_list(lua_State *L, int idx, const char *key, bool paths) {
    if (lua_getfield(L, idx, key) != LUA_TTABLE) {
        lua_pop(L, 1);
        return NULL;
    }
    lua_Integer n = (lua_Integer)lua_rawlen(L, -1);
    if (n > 64) luaL_error(L, "changed: more than 64 entries in %s", key);
    const char **list = lua_newuserdatauv(L, ((size_t)n + 1) * sizeof *list, 0);
    for (lua_Integer i = 1; i <= n; i++) {
        lua_rawgeti(L, -2, i);
        /* Kept alive by the list, which stays on the stack. */
        list[i - 1] = paths ? lcsb__lua_check_path(L, -1) : luaL_checkstring(L, -1);
        lua_pop(L, 1);
    }
    list[n] = NULL;
    return list;
}

/* lcsb.changed(root, since, watch [, opts]) -> entries, info | nil, message
 * What under ROOT changed since SINCE (nanoseconds, lcsb.fs_now()'s clock),
 * among the entries WATCH names: { [name] = true | "tree" | { inside... } },
 * a name a file name matched at any depth or "/PATH" from ROOT, either of
 * them maybe a pattern (fnmatch); or [name] = { look = one of those,
 * parents = { names of the directory it must be directly in }, kind =
 * "link" | "gitdir" }. OPTS:
 * skip (directories not entered), shallow (names of directories below which
 * only each package's root is listed), entries, depth (the walk's bounds).
 * ENTRIES: { path (from ROOT), kind, watch (its key), id ("DEV:INO", but
 * for a tree's), parts, parts_n } each;
 * INFO: visited, cut (at the entries bound), full (at LCSB__WALK_FOUND
 * entries found), and deep and unreadable ({ first, n, error }). */
static int l_changed(lua_State *L) {
    const char *root = lcsb__lua_check_path(L, 1);
    lua_Integer since = luaL_checkinteger(L, 2);
    luaL_argcheck(L, since >= 0, 2, "a time before 1970");
    luaL_checktype(L, 3, LUA_TTABLE);
    lua_settop(L, 4);
    lcsb__walk_opts o = {
        .since = {.tv_sec = (time_t)(since / 1000000000), .tv_nsec = (long)(since % 1000000000)}};
    if (!lua_isnil(L, 4)) {
        luaL_checktype(L, 4, LUA_TTABLE);
        lua_getfield(L, 4, "entries");
        lua_getfield(L, 4, "depth");
        lua_Integer entries = luaL_optinteger(L, -2, 0), depth = luaL_optinteger(L, -1, 0);
        luaL_argcheck(L, entries >= 0 && depth >= 0 && depth <= 4096, 4, "bounds out of range");
        o.entries_max = (size_t)entries;
        o.depth_max = (unsigned)depth;
        lua_pop(L, 2);
        o.skip = name_list(L, 4, "skip", true);
        o.shallow = name_list(L, 4, "shallow", false);
        /* The list and its userdata stay on the stack. */
    }
    lua_newtable(L); /* anchors what the watches point at */
    int anchor = lua_gettop(L);
    size_t n = 0;
    for (lua_pushnil(L); lua_next(L, 3); lua_pop(L, 1)) {
        if (lua_type(L, -2) != LUA_TSTRING) luaL_error(L, "changed: watched names are strings");
        n++;
    }
    lcsb__watch *watch = lua_newuserdatauv(L, (n ? n : 1) * sizeof *watch, 0);
    lua_rawsetp(L, anchor, watch);
    size_t i = 0;
    for (lua_pushnil(L); lua_next(L, 3); lua_pop(L, 1)) check_watch(L, anchor, &watch[i++]);
    o.watch = watch;
    o.watch_n = i;

    /* The result is owned by a userdata from before the walk, so that a
     * memory error while it is pushed leaves nothing behind. */
    lcsb__changed *c = lua_newuserdatauv(L, sizeof *c, 0);
    memset(c, 0, sizeof *c);
    luaL_setmetatable(L, CHANGED_MT);
    lcsb_error err;
    int rc = lcsb__changed_walk(root, &o, c, &err);
    if (rc == LCSB_ENOMEM) return luaL_error(L, "out of memory");
    if (rc) return lcsb__lua_fail(L, err.message);
    lua_createtable(L, (int)c->n, 0);
    for (size_t e = 0; e < c->n; e++) {
        const lcsb__changed_entry *entry = &c->v[e];
        lua_createtable(L, 0, 5);
        lua_pushstring(L, entry->path);
        lua_setfield(L, -2, "path");
        lua_pushstring(L, entry->kind);
        lua_setfield(L, -2, "kind");
        lua_pushstring(L, watch[entry->watch].name);
        lua_setfield(L, -2, "watch");
        if (entry->ino) {
            lcsb__lua_push_identity(L, (lua_Integer)entry->dev, (lua_Integer)entry->ino);
            lua_setfield(L, -2, "id");
        }
        if (entry->parts_n) {
            lcsb__lua_push_argv(L, entry->parts.v);
            lua_setfield(L, -2, "parts");
            lua_pushinteger(L, (lua_Integer)entry->parts_n);
            lua_setfield(L, -2, "parts_n");
        }
        lua_rawseti(L, -2, (lua_Integer)e + 1);
    }
    lua_createtable(L, 0, 4);
    lua_pushinteger(L, (lua_Integer)c->visited);
    lua_setfield(L, -2, "visited");
    lua_pushboolean(L, c->cut);
    lua_setfield(L, -2, "cut");
    lua_pushboolean(L, c->full);
    lua_setfield(L, -2, "full");
    push_unseen(L, &c->deep, "deep");
    push_unseen(L, &c->unreadable, "unreadable");
    lcsb__changed_free(c);
    return 2;
}

/* lcsb.fs_now() -> now, in nanoseconds, as the file system stamps a change */
static int l_fs_now(lua_State *L) {
    struct timespec now = lcsb__fs_now();
    lua_pushinteger(L, (lua_Integer)now.tv_sec * 1000000000 + now.tv_nsec);
    return 1;
}

const luaL_Reg lcsb__lua_changed_functions[] = {
    {"changed", l_changed},
    {"fs_now", l_fs_now},
    {NULL, NULL},
};

void lcsb__lua_changed_class(lua_State *L) {
    static const luaL_Reg changed_meta[] = {{"__gc", l_changed_gc}, {NULL, NULL}};
    static const luaL_Reg no_methods[] = {{NULL, NULL}};
    lcsb__lua_new_class(L, CHANGED_MT, changed_meta, no_methods);
}
