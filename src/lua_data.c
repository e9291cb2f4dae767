/* Plain Lua data as bytes: a tag byte, then the value. 'T' a table, its
 * number of pairs then each key and value; 'S' a string, its length then
 * its bytes; 'I' an integer and 'F' a float, 8 bytes each, little-endian;
 * 'B' a boolean, one byte; 'P' before a table: it has the metatable the
 * caller marked (a key's only). In the state of lcsb's modules, also: 'M'
 * and a table before a table: its metatable; 'N' a function by its name
 * (its length, its bytes); 'R' a table met before (8 bytes: the count of
 * tables met when it was first); 'U' a userdata. Lengths and counts are
 * LEB128. */
#include "lua_data.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DEPTH_MAX 64

static void add_count(lcsb__buf *out, uint64_t n) {
    do {
        unsigned char byte = (unsigned char)(n & 0x7f);
        n >>= 7;
        if (n) byte |= 0x80;
        lcsb__buf_add(out, (const char *)&byte, 1);
    } while (n);
}

static void add_u64(lcsb__buf *out, char tag, uint64_t v) {
    unsigned char bytes[9] = {(unsigned char)tag};
    for (int i = 0; i < 8; i++) bytes[1 + i] = (unsigned char)(v >> (8 * i));
    lcsb__buf_add(out, (const char *)bytes, sizeof bytes);
}

/* A path component that stands for no place (enter). */
#define PLACELESS "\x01"

/* How a table is written: its pairs as lua_next gives them (data read
 * back by decode), or sorted by key, so that equal data is equal bytes
 * (a key). Sorted, it may also stand for the state of lcsb's own modules
 * (NAMES): a function by the name it was given when the modules were
 * loaded, a table met again by when it was first met, a metatable with its
 * table; or walk them to give those names (NAMING). */
typedef struct encoder {
    lcsb__buf *out;
    bool sorted;
    int mark;        /* sorted: the stack index of the one metatable allowed, or 0 */
    int names;       /* the stack index of a table function -> name, or 0 */
    int places;      /* with NAMES: the stack index of a table path -> function, or 0 */
    bool naming;     /* fill NAMES in: each function not named yet, by its path; PLACES too */
    int seen;        /* with NAMES: the stack index of a table table -> when met */
    lua_Integer met; /* tables met so far */
    char path[1024]; /* NAMING, or PLACES: where the walk is, "tools.closures_of" */
} encoder;

static const char *encode(encoder *e, lua_State *L, int idx, int depth);

static const char *encode_pairs(encoder *e, lua_State *L, int idx, int depth, uint64_t n) {
    lcsb__buf_add(e->out, "T", 1);
    add_count(e->out, n);
    lua_pushnil(L);
    while (lua_next(L, idx)) {
        int kt = lua_type(L, -2);
        const char *why = kt != LUA_TSTRING && kt != LUA_TNUMBER
                              ? "a key that is no string or number"
                              : encode(e, L, -2, depth + 1);
        if (!why) why = encode(e, L, -1, depth + 1);
        lua_pop(L, 1);
        if (why) {
            lua_pop(L, 1);
            return why;
        }
    }
    return NULL;
}

/* A key of a table, as the sort sees it; a string's bytes stay alive in
 * the table while it is written. AT is where the pair sits on the stack
 * (the key, then its value), or 0 when the key is pushed again from here. */
typedef struct key_ref {
    bool is_string, is_integer;
    lua_Integer integer;
    lua_Number number;
    const char *s;
    size_t len;
    int at;
} key_ref;

/* Numbers before strings; numbers by value, strings by their bytes. */
static int key_order(const void *pa, const void *pb) {
    const key_ref *a = pa, *b = pb;
    if (a->is_string != b->is_string) return a->is_string ? 1 : -1;
    if (a->is_string) {
        int c = memcmp(a->s, b->s, a->len < b->len ? a->len : b->len);
        return c ? c : (a->len > b->len) - (a->len < b->len);
    }
    if (a->is_integer && b->is_integer)
        return (a->integer > b->integer) - (a->integer < b->integer);
    lua_Number x = a->is_integer ? (lua_Number)a->integer : a->number;
    lua_Number y = b->is_integer ? (lua_Number)b->integer : b->number;
    return (x > y) - (x < y);
}

/* The table at IDX's metatable, if it has one, written before it: NULL, or
 * why it cannot be. */
static const char *encode_metatable(encoder *e, lua_State *L, int idx, int depth) {
    /* A metatable can answer for keys pairs never shows (__index): only
     * the one the caller marks (a preset's) is plain data, written 'P'; in
     * lcsb's state, any is, written 'M' with its table. */
    if (lua_getmetatable(L, idx)) {
        if (e->names || e->naming) {
            lcsb__buf_add(e->out, "M", 1);
            const char *why = encode(e, L, -1, depth + 1);
            lua_pop(L, 1);
            if (why) return why;
        } else {
            bool marked = e->mark && lua_rawequal(L, -1, e->mark);
            lua_pop(L, 1);
            if (!marked) return "a table with a metatable of its own";
            lcsb__buf_add(e->out, "P", 1);
        }
    }
    return NULL;
}

/* The table at IDX, of N pairs, as a list (keys 1..N) when it is one: in
 * order already, as sorting would put it. Its length is a border only: N
 * pairs with a border at N are a list when none of 1..N is missing (keys 0,
 * 1, 2, 4, 5, 6 have a border at 6). */
static bool is_list(lua_State *L, int idx, uint64_t n) {
    bool list = n && n == lua_rawlen(L, idx);
    for (lua_Integer i = 1; list && i <= (lua_Integer)n; i++) {
        list = lua_rawgeti(L, idx, i) != LUA_TNIL;
        lua_pop(L, 1);
    }
    return list;
}

/* NAMING or PLACES: the walk's place as the value at IDX is written,
 * PATH's old length returned. Only a table or a function needs a place
 * (what is named, or holds what is); a string or a number is passed over. */
static size_t enter(encoder *e, lua_State *L, int idx, const key_ref *k) {
    size_t at = strlen(e->path), room = sizeof e->path - at;
    int type = lua_type(L, idx);
    if (!(e->naming || e->places) || (type != LUA_TTABLE && type != LUA_TFUNCTION)) return at;
    /* One path for one place: a string key of letters, digits, "_" and
     * "-" as it is, any other string by its bytes in hex, a number in
     * brackets ("1" and 1 are two places). A key too long to write whole
     * marks the place as none (PLACELESS): no function there is in place. */
    int n = -1;
    bool plain = k->is_string && k->len > 0;
    for (size_t i = 0; plain && i < k->len; i++)
        plain = (k->s[i] >= 'a' && k->s[i] <= 'z') || (k->s[i] >= 'A' && k->s[i] <= 'Z') ||
                (k->s[i] >= '0' && k->s[i] <= '9') || k->s[i] == '_' || k->s[i] == '-';
    if (at > sizeof e->path - 300 || (k->is_string && k->len > 128)) /* past any of lcsb's */
        n = snprintf(e->path + at, room, "%s", PLACELESS);
    else if (plain)
        n = snprintf(e->path + at, room, "%s%.*s", at ? "." : "", (int)k->len, k->s);
    else if (k->is_string) {
        n = snprintf(e->path + at, room, "[\"");
        for (size_t i = 0; i < k->len && n > 0 && (size_t)n < room; i++)
            n += snprintf(e->path + at + n, room - (size_t)n, "%02x", (unsigned char)k->s[i]);
        if (n > 0 && (size_t)n < room) n += snprintf(e->path + at + n, room - (size_t)n, "\"]");
    } else if (k->is_integer)
        n = snprintf(e->path + at, room, "[%lld]", (long long)k->integer);
    else
        n = snprintf(e->path + at, room, "[%.17g]", k->number);
    if (n < 0 || (size_t)n >= room) snprintf(e->path + at, room, "%s", PLACELESS);
    return at;
}

/* The list at IDX, N items, written in order: NULL, or why it cannot be. */
static const char *encode_list(encoder *e, lua_State *L, int idx, int depth, uint64_t n) {
    lcsb__buf_add(e->out, "T", 1);
    add_count(e->out, n);
    const char *why = NULL;
    for (lua_Integer i = 1; i <= (lua_Integer)n && !why; i++) {
        add_u64(e->out, 'I', (uint64_t)i);
        lua_rawgeti(L, idx, i);
        key_ref k = {.is_integer = true, .integer = i};
        size_t at = enter(e, L, -1, &k);
        why = encode(e, L, -1, depth + 1);
        lua_pop(L, 1);
        e->path[at] = '\0';
    }
    return why;
}

/* The most pairs of one table kept on the stack while it is sorted; a
 * larger one has each value looked up again by its key. */
#define PAIRS_ON_STACK 4096

/* The pairs of the table at IDX into KEYS, each key read for the sort;
 * with ON_STACK each pair also left on the stack, in the order met. */
static const char *gather(lua_State *L, int idx, key_ref *keys, size_t *count, bool on_stack) {
    lua_pushnil(L);
    while (lua_next(L, idx)) {
        key_ref *k = &keys[(*count)++];
        if (lua_type(L, -2) == LUA_TSTRING) {
            k->is_string = true;
            k->s = lua_tolstring(L, -2, &k->len);
        } else if (lua_type(L, -2) == LUA_TNUMBER) {
            k->is_integer = lua_isinteger(L, -2);
            if (k->is_integer)
                k->integer = lua_tointeger(L, -2);
            else
                k->number = lua_tonumber(L, -2);
        } else {
            lua_pop(L, 2);
            return "a key that is no string or number";
        }
        if (on_stack) {
            k->at = lua_gettop(L) - 1;
            lua_pushvalue(L, -2); /* lua_next takes this copy; the pair stays */
        } else {
            lua_pop(L, 1);
        }
    }
    return NULL;
}

static const char *encode_sorted(encoder *e, lua_State *L, int idx, int depth, uint64_t n) {
    const char *wrong = encode_metatable(e, L, idx, depth);
    if (wrong) return wrong;
    if (is_list(L, idx, n)) return encode_list(e, L, idx, depth, n);
    key_ref *keys = n ? calloc((size_t)n, sizeof *keys) : NULL;
    if (n && !keys) return "out of memory";
    /* Each pair kept where lua_next left it: no key is looked up again,
     * nor its string made again, to reach its value. */
    int base = lua_gettop(L);
    bool on_stack = n <= PAIRS_ON_STACK && lua_checkstack(L, 2 * (int)n + 4);
    size_t count = 0;
    const char *why = gather(L, idx, keys, &count, on_stack);
    if (!why && count) qsort(keys, count, sizeof *keys, key_order);
    if (!why) {
        lcsb__buf_add(e->out, "T", 1);
        add_count(e->out, count);
        /* What # says of a table with holes ({ a, nil, c }: 3, or 1 when
         * made t[1], t[3]) is what ipairs and a check of its keys see, and
         * no listing of its pairs shows. */
        size_t border = lua_rawlen(L, idx);
        if (border) {
            lcsb__buf_add(e->out, "#", 1);
            add_count(e->out, border);
        }
    }
    for (size_t i = 0; i < count && !why; i++) {
        const key_ref *k = &keys[i];
        int key_at = k->at;
        if (!on_stack) {
            if (k->is_string)
                lua_pushlstring(L, k->s, k->len);
            else if (k->is_integer)
                lua_pushinteger(L, k->integer);
            else
                lua_pushnumber(L, k->number);
            key_at = lua_gettop(L);
            lua_pushvalue(L, -1);
            lua_rawget(L, idx);
        }
        why = encode(e, L, key_at, depth + 1);
        size_t at = enter(e, L, key_at + 1, k);
        if (!why) why = encode(e, L, key_at + 1, depth + 1);
        e->path[at] = '\0';
        if (!on_stack) lua_pop(L, 2);
    }
    lua_settop(L, base);
    free(keys);
    return why;
}

/* The function at IDX: named by where the walk is (NAMING, the first
 * place it is met), and that place noted as one of its own (PLACES); or
 * written by its name. One with none is the script's own, and no state
 * stands for it; one of lcsb's where the modules did not have it neither:
 * lcsb's own code reaches it there (the plan's keeping among it). */
static const char *function_name(encoder *e, lua_State *L, int idx) {
    bool placed = !strstr(e->path, PLACELESS);
    if (e->naming && e->places && placed) {
        lua_pushstring(L, e->path);
        lua_pushvalue(L, idx);
        lua_rawset(L, e->places);
    }
    lua_pushvalue(L, idx);
    int type = lua_rawget(L, e->names);
    if (e->naming) {
        lua_pop(L, 1);
        if (type == LUA_TNIL) {
            lua_pushvalue(L, idx);
            lua_pushstring(L, e->path);
            lua_rawset(L, e->names);
        }
        return NULL;
    }
    size_t len;
    const char *name = type == LUA_TSTRING ? lua_tolstring(L, -1, &len) : NULL;
    if (name) {
        lcsb__buf_add(e->out, "N", 1);
        add_count(e->out, len);
        lcsb__buf_add(e->out, name, len);
    }
    lua_pop(L, 1);
    if (!name) return "a function of the script's own in lcsb's tables";
    if (e->places) {
        lua_pushstring(L, e->path);
        bool in_place =
            placed && lua_rawget(L, e->places) == LUA_TFUNCTION && lua_rawequal(L, -1, idx);
        lua_pop(L, 1);
        if (!in_place) return "a function of lcsb's where lcsb's modules did not have it";
    }
    return NULL;
}

static const char *encode(encoder *e, lua_State *L, int idx, int depth) {
    lcsb__buf *out = e->out;
    switch (lua_type(L, idx)) {
    case LUA_TBOOLEAN: {
        char bytes[2] = {'B', (char)lua_toboolean(L, idx)};
        lcsb__buf_add(out, bytes, 2);
        return NULL;
    }
    case LUA_TNUMBER:
        if (lua_isinteger(L, idx)) {
            add_u64(out, 'I', (uint64_t)lua_tointeger(L, idx));
        } else {
            double d = lua_tonumber(L, idx);
            uint64_t bits;
            memcpy(&bits, &d, sizeof bits);
            add_u64(out, 'F', bits);
        }
        return NULL;
    case LUA_TSTRING: {
        size_t len;
        const char *s = lua_tolstring(L, idx, &len);
        lcsb__buf_add(out, "S", 1);
        add_count(out, len);
        lcsb__buf_add(out, s, len);
        return NULL;
    }
    case LUA_TTABLE: break;
    case LUA_TFUNCTION:
        if (e->naming || e->names) return function_name(e, L, idx);
        return "a value that is no plain data (a function or a userdata)";
    case LUA_TUSERDATA:
    case LUA_TLIGHTUSERDATA:
        /* lcsb's own (a scope): what it holds is no part of a state. */
        if (e->naming || e->names) {
            lcsb__buf_add(out, "U", 1);
            return NULL;
        }
        return "a value that is no plain data (a function or a userdata)";
    default: return "a value that is no plain data (a function or a userdata)";
    }
    if (depth >= DEPTH_MAX) return "tables nested deeper than 64 (or in a circle)";
    if (!lua_checkstack(L, 6)) return "tables nested too deep for the stack";
    idx = lua_absindex(L, idx);
    /* A weak table loses pairs to a collection the walk cannot hold off
     * (an emergency one, when memory runs short), keys it still reads
     * among them: its pairs are no data to keep. */
    if (lua_getmetatable(L, idx)) {
        lua_pushliteral(L, "__mode");
        bool weak = lua_rawget(L, -2) != LUA_TNIL;
        lua_pop(L, 2);
        if (weak) return "a weak table (its metatable has __mode)";
    }
    if (e->seen) {
        lua_pushvalue(L, idx);
        if (lua_rawget(L, e->seen) == LUA_TNUMBER) {
            add_u64(out, 'R', (uint64_t)lua_tointeger(L, -1));
            lua_pop(L, 1);
            return NULL;
        }
        lua_pop(L, 1);
        lua_pushvalue(L, idx);
        lua_pushinteger(L, ++e->met);
        lua_rawset(L, e->seen);
    }
    uint64_t n = 0;
    lua_pushnil(L);
    while (lua_next(L, idx)) {
        n++;
        lua_pop(L, 1);
    }
    return e->sorted ? encode_sorted(e, L, idx, depth, n) : encode_pairs(e, L, idx, depth, n);
}

const char *lcsb__lua_data_encode(lua_State *L, int idx, lcsb__buf *out) {
    encoder e = {.out = out};
    return encode(&e, L, idx, 0);
}

const char *lcsb__lua_data_name_functions(lua_State *L, int idx, int names, int places) {
    lcsb__buf scratch = {0};
    idx = lua_absindex(L, idx);
    names = lua_absindex(L, names);
    places = lua_absindex(L, places);
    lua_newtable(L);
    encoder e = {.out = &scratch,
                 .sorted = true,
                 .names = names,
                 .places = places,
                 .naming = true,
                 .seen = lua_gettop(L)};
    const char *why = encode(&e, L, idx, 0);
    lua_pop(L, 1);
    lcsb__buf_free(&scratch);
    return why;
}

const char *lcsb__lua_data_encode_state(lua_State *L, int idx, int names, int places,
                                        lcsb__buf *out) {
    idx = lua_absindex(L, idx);
    names = lua_absindex(L, names);
    places = lua_absindex(L, places);
    lua_newtable(L);
    encoder e = {
        .out = out, .sorted = true, .names = names, .places = places, .seen = lua_gettop(L)};
    const char *why = encode(&e, L, idx, 0);
    lua_pop(L, 1);
    return why;
}

const char *lcsb__lua_data_encode_sorted(lua_State *L, int idx, int mark, lcsb__buf *out) {
    encoder e = {.out = out, .sorted = true, .mark = mark ? lua_absindex(L, mark) : 0};
    return encode(&e, L, idx, 0);
}

typedef struct reader {
    const unsigned char *at, *end;
} reader;

static bool take_count(reader *r, uint64_t *n) {
    *n = 0;
    for (int shift = 0; shift < 64 && r->at < r->end; shift += 7) {
        unsigned char byte = *r->at++;
        *n |= (uint64_t)(byte & 0x7f) << shift;
        if (!(byte & 0x80)) return true;
    }
    return false;
}

static bool take_u64(reader *r, uint64_t *v) {
    if (r->end - r->at < 8) return false;
    *v = 0;
    for (int i = 0; i < 8; i++) *v |= (uint64_t)r->at[i] << (8 * i);
    r->at += 8;
    return true;
}

/* One value pushed: true, or false with nothing pushed. */
static bool decode(lua_State *L, reader *r, int depth) {
    if (r->at >= r->end || !lua_checkstack(L, 3)) return false;
    unsigned char tag = *r->at++;
    uint64_t v;
    switch (tag) {
    case 'B':
        if (r->at >= r->end || *r->at > 1) return false;
        lua_pushboolean(L, *r->at++);
        return true;
    case 'I':
        if (!take_u64(r, &v)) return false;
        lua_pushinteger(L, (lua_Integer)v);
        return true;
    case 'F': {
        double d;
        if (!take_u64(r, &v)) return false;
        memcpy(&d, &v, sizeof d);
        lua_pushnumber(L, d);
        return true;
    }
    case 'S':
        if (!take_count(r, &v) || v > (uint64_t)(r->end - r->at)) return false;
        lua_pushlstring(L, (const char *)r->at, (size_t)v);
        r->at += v;
        return true;
    case 'T':
        /* Each pair takes two bytes at least: a count past that is a lie. */
        if (depth >= DEPTH_MAX || !take_count(r, &v) || v > (uint64_t)(r->end - r->at) / 2)
            return false;
        lua_createtable(L, 0, (int)(v < 1024 ? v : 1024));
        for (uint64_t i = 0; i < v; i++) {
            if (!decode(L, r, depth + 1)) break;
            if (lua_isnil(L, -1) ||
                (lua_type(L, -1) == LUA_TNUMBER && lua_tonumber(L, -1) != lua_tonumber(L, -1)) ||
                (lua_type(L, -1) != LUA_TSTRING && lua_type(L, -1) != LUA_TNUMBER) ||
                !decode(L, r, depth + 1)) {
                lua_pop(L, 2); /* the key and the table */
                return false;
            }
            lua_rawset(L, -3);
            if (i + 1 == v) return true;
        }
        if (v == 0) return true;
        lua_pop(L, 1);
        return false;
    }
    return false;
}

int lcsb__lua_data_decode(lua_State *L, const char *data, size_t len) {
    reader r = {(const unsigned char *)data, (const unsigned char *)data + len};
    int top = lua_gettop(L);
    if (!decode(L, &r, 0) || r.at != r.end) {
        lua_settop(L, top);
        return 0;
    }
    return 1;
}
