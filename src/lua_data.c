/* Plain Lua data as bytes: a tag byte, then the value. 'T' a table, its
 * number of pairs then each key and value; 'S' a string, its length then
 * its bytes; 'I' an integer and 'F' a float, 8 bytes each, little-endian;
 * 'B' a boolean, one byte. Lengths and counts are LEB128. */
#include "lua_data.h"

#include <stdint.h>
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

static const char *encode(lua_State *L, int idx, lcsb__buf *out, int depth) {
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
    default: return "a value that is no plain data (a function or a userdata)";
    }
    if (depth >= DEPTH_MAX) return "tables nested deeper than 64 (or in a circle)";
    if (!lua_checkstack(L, 3)) return "tables nested too deep for the stack";
    idx = lua_absindex(L, idx);
    uint64_t n = 0;
    lua_pushnil(L);
    while (lua_next(L, idx)) {
        n++;
        lua_pop(L, 1);
    }
    lcsb__buf_add(out, "T", 1);
    add_count(out, n);
    lua_pushnil(L);
    while (lua_next(L, idx)) {
        int kt = lua_type(L, -2);
        const char *why = kt != LUA_TSTRING && kt != LUA_TNUMBER
                              ? "a key that is no string or number"
                              : encode(L, -2, out, depth + 1);
        if (!why) why = encode(L, -1, out, depth + 1);
        lua_pop(L, 1);
        if (why) {
            lua_pop(L, 1);
            return why;
        }
    }
    return NULL;
}

const char *lcsb__lua_data_encode(lua_State *L, int idx, lcsb__buf *out) {
    return encode(L, idx, out, 0);
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
