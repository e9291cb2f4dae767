/* lcsb's modules as they were loaded, kept as a record, and whether a
 * policy script left them so (lua_stock.h).
 *
 * A record is a userdata in the state's registry: every table the roots
 * reach, numbered as first met, each with its pairs in one run of slots and
 * the metatable it had; the keys and values (tables aside, which are
 * numbered) sit in one Lua array, its user value, which keeps them alive:
 * a function the script let go of could otherwise be freed and its address
 * given to another, which would then look the same. Neither walk makes a
 * Lua object while it reads the script's tables, so no collection step can
 * start in it (and no finalizer of the script's run): keeping makes the
 * array first and only sets its slots; comparing only reads. */
#include "lua_stock.h"

#include <lauxlib.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define STOCK_KEY "lcsb.stock"
#define RECORD_META "lcsb.stock_record"
#define DEPTH_MAX 64

/* One pair of a table: where its key and value sit in the array; a value
 * that is a table is its number instead, as -(number) - 1. */
typedef struct slot {
    int key, value;
} slot;

typedef struct table_record {
    size_t first, count; /* its pairs: slots[first .. first + count) */
    int meta;            /* where its metatable sits in the array; 0: none */
} table_record;

/* Tables met, by address, to their numbers: open addressing, grown at half. */
typedef struct table_map {
    const void **at;
    size_t *number;
    size_t size, used;
} table_map;

typedef struct record {
    table_record *tables;
    size_t tables_n, tables_cap;
    slot *slots;
    size_t slots_n, slots_cap;
    int anchored;   /* the array's last index */
    table_map seen; /* while keeping; the record's, so that an error Lua raises frees it */
} record;

static size_t slot_of(const table_map *m, const void *p) {
    uint64_t h = (uint64_t)((uintptr_t)p >> 4) * 0x9E3779B97F4A7C15u;
    size_t i = (size_t)(h ^ (h >> 32)) & (m->size - 1);
    while (m->at[i] && m->at[i] != p) i = (i + 1) & (m->size - 1);
    return i;
}

/* P's number, or (size_t)-1 when it was not met. */
static size_t map_get(const table_map *m, const void *p) {
    if (!m->size) return (size_t)-1;
    size_t i = slot_of(m, p);
    return m->at[i] ? m->number[i] : (size_t)-1;
}

static int map_put(table_map *m, const void *p, size_t number) {
    if (2 * (m->used + 1) > m->size) {
        table_map grown = {.size = m->size ? 2 * m->size : 64, .used = m->used};
        grown.at = calloc(grown.size, sizeof *grown.at);
        grown.number = malloc(grown.size * sizeof *grown.number);
        if (!grown.at || !grown.number) {
            free(grown.at);
            free(grown.number);
            return -1;
        }
        for (size_t i = 0; i < m->size; i++) {
            if (!m->at[i]) continue;
            size_t j = slot_of(&grown, m->at[i]);
            grown.at[j] = m->at[i];
            grown.number[j] = m->number[i];
        }
        free(m->at);
        free(m->number);
        *m = grown;
    }
    size_t i = slot_of(m, p);
    m->at[i] = p;
    m->number[i] = number;
    m->used++;
    return 0;
}

static void map_free(table_map *m) {
    free(m->at);
    free(m->number);
    memset(m, 0, sizeof *m);
}

static void record_clear(record *r) {
    free(r->tables);
    free(r->slots);
    map_free(&r->seen);
    memset(r, 0, sizeof *r);
}

static int record_gc(lua_State *L) {
    record *r = luaL_testudata(L, 1, RECORD_META);
    if (r) record_clear(r);
    return 0;
}

static void *grown(void *p, size_t *cap, size_t need, size_t each) {
    if (need <= *cap) return p;
    size_t n = *cap ? *cap : 64;
    while (n < need) n *= 2;
    void *q = realloc(p, n * each);
    if (q) *cap = n;
    return q;
}

/* The value at IDX set in the array at ARRAY: where it sits. */
static int anchor(lua_State *L, record *r, int array, int idx) {
    lua_pushvalue(L, idx);
    lua_rawseti(L, array, ++r->anchored);
    return r->anchored;
}

/* The table at IDX (absolute) recorded, and every table it reaches not met
 * yet: its number in *NUMBER. NULL, or why not. */
static const char *keep_table(lua_State *L, record *r, int array, int idx, int depth,
                              size_t *number) {
    const void *p = lua_topointer(L, idx);
    size_t known = map_get(&r->seen, p);
    if (known != (size_t)-1) {
        *number = known;
        return NULL;
    }
    if (depth >= DEPTH_MAX) return "tables nested deeper than 64";
    if (!lua_checkstack(L, 8)) return "tables nested too deep for the stack";
    table_record *tables = grown(r->tables, &r->tables_cap, r->tables_n + 1, sizeof *tables);
    if (!tables) return "out of memory";
    r->tables = tables;
    size_t me = r->tables_n++;
    if (map_put(&r->seen, p, me)) return "out of memory";
    *number = me;
    size_t count = 0;
    lua_pushnil(L);
    while (lua_next(L, idx)) {
        count++;
        lua_pop(L, 1);
    }
    if (count) {
        slot *slots = grown(r->slots, &r->slots_cap, r->slots_n + count, sizeof *slots);
        if (!slots) return "out of memory";
        r->slots = slots;
    }
    size_t first = r->slots_n;
    r->slots_n += count;
    int meta = lua_getmetatable(L, idx) ? anchor(L, r, array, -1) : 0;
    if (meta) lua_pop(L, 1);
    r->tables[me] = (table_record){.first = first, .count = count, .meta = meta};
    size_t i = first;
    lua_pushnil(L);
    while (lua_next(L, idx)) {
        slot s = {.key = anchor(L, r, array, -2)};
        if (lua_type(L, -1) == LUA_TTABLE) {
            size_t inner;
            const char *why = keep_table(L, r, array, lua_gettop(L), depth + 1, &inner);
            if (why) {
                lua_pop(L, 2);
                return why;
            }
            s.value = -(int)inner - 1;
        } else {
            s.value = anchor(L, r, array, -1);
        }
        r->slots[i++] = s;
        lua_pop(L, 1);
    }
    return NULL;
}

/* The registry's list of records pushed: 1; 0 with nothing pushed. */
static int stock_pushed(lua_State *L) {
    if (lua_getfield(L, LUA_REGISTRYINDEX, STOCK_KEY) == LUA_TTABLE) return 1;
    lua_pop(L, 1);
    return 0;
}

const char *lcsb__lua_stock_keep(lua_State *L, int idx) {
    idx = lua_absindex(L, idx);
    luaL_checktype(L, idx, LUA_TTABLE);
    luaL_checkstack(L, 8, "keeping lcsb's modules");
    if (!stock_pushed(L)) {
        lua_newtable(L);
        lua_pushvalue(L, -1);
        lua_setfield(L, LUA_REGISTRYINDEX, STOCK_KEY);
    }
    int stock = lua_gettop(L);
    /* Every Lua object this makes, made before the walk. */
    record *r = lua_newuserdatauv(L, sizeof *r, 1);
    memset(r, 0, sizeof *r);
    if (luaL_newmetatable(L, RECORD_META)) {
        lua_pushcfunction(L, record_gc);
        lua_setfield(L, -2, "__gc");
        lua_pushliteral(L, "lcsb's own");
        lua_setfield(L, -2, "__metatable");
    }
    lua_setmetatable(L, -2);
    lua_newtable(L);
    int array = lua_gettop(L);
    size_t root;
    const char *why = keep_table(L, r, array, idx, 0, &root);
    map_free(&r->seen);
    if (!why) {
        lua_setiuservalue(L, -2, 1);
        lua_rawseti(L, stock, (lua_Integer)lua_rawlen(L, stock) + 1);
    }
    lua_settop(L, stock - 1);
    return why;
}

/* Where one comparison is: the record, its array's place on the stack, and
 * which table now stands for each of the record's. */
typedef struct compare {
    const record *r;
    int array;
    const void **now_of; /* by the record's number */
    table_map met;       /* now -> the record's number */
} compare;

static int same_table(lua_State *L, compare *c, int now, size_t number, int depth);

/* Is the value on top what the slot's value SLOT_VALUE was? */
static int same_value(lua_State *L, compare *c, int slot_value, int depth) {
    int now = lua_gettop(L);
    if (slot_value < 0)
        return lua_type(L, now) == LUA_TTABLE &&
               same_table(L, c, now, (size_t)(-(slot_value + 1)), depth);
    lua_rawgeti(L, c->array, slot_value);
    int type = lua_type(L, now);
    /* 1 and 1.0 are equal, and written as different data. */
    int same = type == lua_type(L, -1) &&
               (type != LUA_TNUMBER || lua_isinteger(L, now) == lua_isinteger(L, -1)) &&
               lua_rawequal(L, now, -1);
    lua_pop(L, 1);
    return same;
}

/* Is the table at NOW (absolute) what the record's table NUMBER held? Its
 * metatable the same one, as many pairs, each key's value the same; a table
 * met twice in the record met twice here, never two for one. */
static int same_table(lua_State *L, compare *c, int now, size_t number, int depth) {
    const void *p = lua_topointer(L, now);
    size_t met = map_get(&c->met, p);
    if (met != (size_t)-1) return met == number;
    if (c->now_of[number] || depth >= DEPTH_MAX || !lua_checkstack(L, 8)) return 0;
    if (map_put(&c->met, p, number)) return 0;
    c->now_of[number] = p;
    const table_record *t = &c->r->tables[number];

    int has = lua_getmetatable(L, now);
    if (has != (t->meta != 0)) {
        lua_pop(L, has);
        return 0;
    }
    if (has) {
        lua_rawgeti(L, c->array, t->meta);
        int same = lua_rawequal(L, -1, -2);
        lua_pop(L, 2);
        if (!same) return 0;
    }
    size_t count = 0;
    lua_pushnil(L);
    while (lua_next(L, now)) {
        count++;
        lua_pop(L, 1);
    }
    if (count != t->count) return 0;
    for (size_t i = t->first; i < t->first + t->count; i++) {
        lua_rawgeti(L, c->array, c->r->slots[i].key);
        lua_rawget(L, now);
        int same = same_value(L, c, c->r->slots[i].value, depth + 1);
        lua_pop(L, 1);
        if (!same) return 0;
    }
    return 1;
}

int lcsb__lua_stock_same(lua_State *L, int idx, lua_Integer which) {
    idx = lua_absindex(L, idx);
    luaL_checkstack(L, 8, "comparing lcsb's modules");
    if (lua_type(L, idx) != LUA_TTABLE || !stock_pushed(L)) return 0;
    int stock = lua_gettop(L);
    const record *r = NULL;
    if (lua_rawgeti(L, stock, which) == LUA_TUSERDATA) r = luaL_testudata(L, -1, RECORD_META);
    if (!r || !r->tables_n || lua_getiuservalue(L, -1, 1) != LUA_TTABLE) {
        lua_settop(L, stock - 1);
        return 0;
    }
    compare c = {.r = r, .array = lua_gettop(L), .now_of = calloc(r->tables_n, sizeof(void *))};
    int same = c.now_of && same_table(L, &c, idx, 0, 0);
    free(c.now_of);
    map_free(&c.met);
    lua_settop(L, stock - 1);
    return same;
}

/* The record at the top copied as Lua tables (each table's pairs, its
 * tables copied too, each once): its first table's copy in its place. */
static void push_copy(lua_State *L, const record *r) {
    luaL_checkstack(L, 8, "copying lcsb's modules");
    lua_getiuservalue(L, -1, 1);
    int array = lua_gettop(L);
    lua_createtable(L, (int)r->tables_n, 0);
    int copies = array + 1;
    for (size_t n = 0; n < r->tables_n; n++) {
        lua_createtable(L, 0, (int)r->tables[n].count);
        lua_rawseti(L, copies, (lua_Integer)n + 1);
    }
    for (size_t n = 0; n < r->tables_n; n++) {
        lua_rawgeti(L, copies, (lua_Integer)n + 1);
        const table_record *t = &r->tables[n];
        for (size_t i = t->first; i < t->first + t->count; i++) {
            lua_rawgeti(L, array, r->slots[i].key);
            int value = r->slots[i].value;
            if (value < 0)
                lua_rawgeti(L, copies, -(lua_Integer)value);
            else
                lua_rawgeti(L, array, value);
            lua_rawset(L, -3);
        }
        lua_pop(L, 1);
    }
    lua_rawgeti(L, copies, 1);
    lua_replace(L, array - 1);
    lua_settop(L, array - 1);
}

int lcsb__lua_stock_copies(lua_State *L) {
    if (!stock_pushed(L)) return 0;
    int stock = lua_gettop(L);
    lua_Integer n = (lua_Integer)lua_rawlen(L, stock);
    lua_createtable(L, (int)n, 0);
    for (lua_Integer i = 1; i <= n; i++) {
        lua_rawgeti(L, stock, i);
        const record *r = luaL_testudata(L, -1, RECORD_META);
        if (!r || !r->tables_n) {
            lua_pop(L, 1);
            continue;
        }
        push_copy(L, r);
        lua_rawseti(L, stock + 1, (lua_Integer)lua_rawlen(L, stock + 1) + 1);
    }
    lua_remove(L, stock);
    return 1;
}

lua_Integer lcsb__lua_stock_count(lua_State *L) {
    if (!stock_pushed(L)) return 0;
    lua_Integer n = (lua_Integer)lua_rawlen(L, -1);
    lua_pop(L, 1);
    return n;
}
