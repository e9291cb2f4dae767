/* lcsb's modules as they were loaded, kept as a copy, and whether a policy
 * script left them so (lua_stock.h). The copy lives in the state's
 * registry: the copies in the order they were kept, and beside them each
 * copied table's number of pairs and the metatable its original had. */
#include "lua_stock.h"

#include <lauxlib.h>

#define STOCK_KEY "lcsb.stock"
#define DEPTH_MAX 64

/* Where the registry's tables are on the stack while one call works. */
typedef struct tables {
    int counts; /* copy -> its number of pairs */
    int metas;  /* copy -> the original's metatable */
    int seen;   /* keeping: original -> copy; comparing: now -> copy */
    int back;   /* comparing: copy -> now */
} tables;

/* The copy of the value at IDX pushed: a table's pairs with its values
 * copied (each table once: a table met twice is one copy met twice), the
 * rest as it is. NULL, or why not, with nothing pushed. */
static const char *copy_value(lua_State *L, const tables *t, int idx, int depth) {
    if (lua_type(L, idx) != LUA_TTABLE) {
        lua_pushvalue(L, idx);
        return NULL;
    }
    idx = lua_absindex(L, idx);
    lua_pushvalue(L, idx);
    if (lua_rawget(L, t->seen) == LUA_TTABLE) return NULL;
    lua_pop(L, 1);
    if (depth >= DEPTH_MAX) return "tables nested deeper than 64";
    if (!lua_checkstack(L, 8)) return "tables nested too deep for the stack";
    lua_newtable(L);
    int copy = lua_gettop(L);
    lua_pushvalue(L, idx);
    lua_pushvalue(L, copy);
    lua_rawset(L, t->seen);
    if (lua_getmetatable(L, idx)) {
        lua_pushvalue(L, copy);
        lua_insert(L, -2);
        lua_rawset(L, t->metas);
    }
    lua_Integer n = 0;
    lua_pushnil(L);
    while (lua_next(L, idx)) {
        n++;
        const char *why = copy_value(L, t, -1, depth + 1);
        if (why) {
            lua_settop(L, copy - 1);
            return why;
        }
        lua_pushvalue(L, -3); /* the key, under the value's copy */
        lua_insert(L, -2);
        lua_rawset(L, copy);
        lua_pop(L, 1);
    }
    lua_pushvalue(L, copy);
    lua_pushinteger(L, n);
    lua_rawset(L, t->counts);
    return NULL;
}

static int same_value(lua_State *L, const tables *t, int now, int copy, int depth);

/* Is the table at NOW what the copy at COPY holds (both absolute)? */
static int same_table(lua_State *L, const tables *t, int now, int copy, int depth) {
    lua_pushvalue(L, now);
    if (lua_rawget(L, t->seen) != LUA_TNIL) {
        int same = lua_rawequal(L, -1, copy);
        lua_pop(L, 1);
        return same;
    }
    lua_pushvalue(L, copy);
    int taken = lua_rawget(L, t->back) != LUA_TNIL;
    lua_pop(L, 2);
    /* Two tables where the copy has one: the same pairs, other data. */
    if (taken || depth >= DEPTH_MAX || !lua_checkstack(L, 8)) return 0;
    lua_pushvalue(L, now);
    lua_pushvalue(L, copy);
    lua_rawset(L, t->seen);
    lua_pushvalue(L, copy);
    lua_pushvalue(L, now);
    lua_rawset(L, t->back);

    int has = lua_getmetatable(L, now);
    lua_pushvalue(L, copy);
    int had = lua_rawget(L, t->metas) != LUA_TNIL;
    int same = has ? had && lua_rawequal(L, -1, -2) : !had;
    lua_pop(L, has ? 2 : 1);
    if (!same) return 0;

    lua_Integer n = 0;
    lua_pushnil(L);
    while (lua_next(L, now)) {
        n++;
        lua_pushvalue(L, -2);
        if (lua_rawget(L, copy) == LUA_TNIL ||
            !same_value(L, t, lua_gettop(L) - 1, lua_gettop(L), depth + 1)) {
            lua_pop(L, 3);
            return 0;
        }
        lua_pop(L, 2);
    }
    lua_pushvalue(L, copy);
    lua_rawget(L, t->counts);
    same = lua_tointeger(L, -1) == n;
    lua_pop(L, 1);
    return same;
}

static int same_value(lua_State *L, const tables *t, int now, int copy, int depth) {
    int type = lua_type(L, now);
    if (type != lua_type(L, copy)) return 0;
    if (type == LUA_TTABLE)
        return same_table(L, t, lua_absindex(L, now), lua_absindex(L, copy), depth);
    /* 1 and 1.0 are equal, and written as different data. */
    if (type == LUA_TNUMBER && lua_isinteger(L, now) != lua_isinteger(L, copy)) return 0;
    return lua_rawequal(L, now, copy);
}

/* The registry's table of copies pushed: 1; 0 with nothing pushed. */
static int stock_pushed(lua_State *L) {
    if (lua_getfield(L, LUA_REGISTRYINDEX, STOCK_KEY) == LUA_TTABLE) return 1;
    lua_pop(L, 1);
    return 0;
}

const char *lcsb__lua_stock_keep(lua_State *L, int idx) {
    idx = lua_absindex(L, idx);
    luaL_checkstack(L, 8, "keeping lcsb's modules");
    if (!stock_pushed(L)) {
        lua_createtable(L, 0, 3);
        lua_newtable(L);
        lua_setfield(L, -2, "copies");
        lua_newtable(L);
        lua_setfield(L, -2, "counts");
        lua_newtable(L);
        lua_setfield(L, -2, "metas");
        lua_pushvalue(L, -1);
        lua_setfield(L, LUA_REGISTRYINDEX, STOCK_KEY);
    }
    int stock = lua_gettop(L);
    lua_getfield(L, stock, "counts");
    lua_getfield(L, stock, "metas");
    lua_newtable(L);
    tables t = {.counts = stock + 1, .metas = stock + 2, .seen = stock + 3};
    const char *why = copy_value(L, &t, idx, 0);
    if (!why) {
        lua_getfield(L, stock, "copies");
        lua_insert(L, -2);
        lua_rawseti(L, -2, (lua_Integer)lua_rawlen(L, -2) + 1);
    }
    lua_settop(L, stock - 1);
    return why;
}

int lcsb__lua_stock_same(lua_State *L, int idx, lua_Integer copy) {
    idx = lua_absindex(L, idx);
    luaL_checkstack(L, 8, "comparing lcsb's modules");
    if (lua_type(L, idx) != LUA_TTABLE || !stock_pushed(L)) return 0;
    int stock = lua_gettop(L);
    lua_getfield(L, stock, "counts");
    lua_getfield(L, stock, "metas");
    lua_newtable(L);
    lua_newtable(L);
    lua_getfield(L, stock, "copies");
    lua_rawgeti(L, -1, copy);
    tables t = {.counts = stock + 1, .metas = stock + 2, .seen = stock + 3, .back = stock + 4};
    int same = lua_istable(L, -1) && same_table(L, &t, idx, lua_gettop(L), 0);
    lua_settop(L, stock - 1);
    return same;
}

int lcsb__lua_stock_copies(lua_State *L) {
    if (!stock_pushed(L)) return 0;
    lua_getfield(L, -1, "copies");
    lua_remove(L, -2);
    return 1;
}
