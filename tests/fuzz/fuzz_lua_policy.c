/* libFuzzer target: the policy path from a Lua table into the C core.
 *
 * Policy scripts hand lcsb.policy whatever table they build, so the input here
 * is a Lua value tree. It is not Lua source: a small byte grammar (below) is
 * decoded with the C API onto a fresh lua_State that has no standard library,
 * so nothing can reach os or io. The tree goes to lcsb.policy under lua_pcall;
 * a policy that builds goes on to policy:table(), lcsb.policy again on that
 * table, lcsb.wrap and lcsb.attest. A Lua error is an expected outcome. A
 * crash, a leak, a sanitizer report or a broken invariant (an abort naming it)
 * is a finding:
 *   - policy:table() of a policy is accepted by lcsb.policy, and gives the
 *     same table back (it is documented as "the shape lcsb.policy takes");
 *   - the argv wrap returns attests, and says what the policy asked for:
 *     nothing dropped that the policy did not let degrade, and what is not
 *     dropped enforced as asked.
 *
 * lcsb.wrap asks the host what it can do (lcsb_detect) on every call. This
 * target is linked with -Wl,--wrap=lcsb_detect so that the input answers
 * instead: a run reads no file, is the same on every host, and reaches the
 * Landlock backend at every ABI whether or not this kernel has Landlock or an
 * installed shim. Nothing called here creates files (no scope, no run).
 *
 * Grammar. Bytes past the end of the input read as 0, which ends every list.
 *   input  := config root
 *   config := one byte: bits 0-2 the Landlock ABI minus one (8 is past what
 *             lcsb knows), bit 3 seccomp, bit 4 wrap with backend "none"
 *             instead of "landlock", bit 5 wrap and attest with a launcher
 *             prefix, bit 6 the root is any value instead of a MAP body.
 *   value  := tag byte (its low 4 bits) and the tag's operands:
 *     0 STR   byte: a string from STRINGS (paths good and bad, "..", "~", "",
 *             NUL inside, "any", port-like text, non-UTF-8, env.pass patterns)
 *     1 BYTES length byte, then that many raw bytes
 *     2 LONG  two bytes (little-endian, % 8193): length; one byte: pattern
 *             (one long component, many components, "/.." runs, "//./" runs)
 *     3 INT   byte: an integer from INTS (0, -1, 443, 65535, 65536, 2^32+443,
 *             the extremes)
 *     4 INT64 eight bytes, little-endian
 *     5 FLT   byte: a float from FLOATS (443.0, 443.5, -0.0, inf, nan, 2^63)
 *     6 F64   eight bytes, little-endian IEEE double
 *     7 TRUE  8 FALSE  9 NIL  10 LUDATA (light userdata)  11 CFUNC
 *     12 MAP  count byte (% 17), then count (key value) pairs
 *     13 LIST count byte (% 17), then count values at 1..count
 *     14 META flags byte, [a value when flags bit 1], then a LIST body, with a
 *             metatable: bit 0 __len returns LENS[flags >> 4 & 7], bit 3
 *             __len raises, bit 1 __index returns the value, bit 2 __index
 *             raises (a constant __index is dropped under a huge __len, which
 *             would only make lcsb.policy loop, as a script can itself)
 *     15 REF  byte: a table made earlier in this input (sharing and cycles);
 *             an empty table when there is none yet
 *   key    := byte < 0xC0: a name from KEYS (read, write, exec, env, net,
 *             connect, bind, cwd, degrade, junk, variable names good and bad,
 *             env's pass, set and unset);
 *             byte >= 0xC0: a value (nil and NaN keys are skipped)
 * Tables nest at most MAX_DEPTH deep (deeper, a table tag reads as STR), and
 * LONG strings share a budget of STRING_BUDGET bytes per input.
 *
 * Lua seeds its string hash per state, so lua_next may visit a map's keys in
 * another order from one run to the next: which of two bad keys is reported
 * can change, the outcome for a valid table cannot. */
#include "lcsb.h"

#include <lauxlib.h>
#include <lua.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int luaopen_lcsb_core(lua_State *L);
int __wrap_lcsb_detect(lcsb_capability *cap, const char *shim, lcsb_error *err);

enum { MAX_DEPTH = 6, MAX_COUNT = 16, MAX_LONG = 8192, STRING_BUDGET = 64 * 1024 };

enum {
    CONFIG_ABI = 0x07,
    CONFIG_SECCOMP = 0x08,
    CONFIG_NONE = 0x10,
    CONFIG_PREFIX = 0x20,
    CONFIG_ROOT_ANY = 0x40,
};

/* The tables read better packed. */
/* clang-format off */
enum {
    T_STR, T_BYTES, T_LONG, T_INT, T_INT64, T_FLT, T_F64, T_TRUE,
    T_FALSE, T_NIL, T_LUDATA, T_CFUNC, T_MAP, T_LIST, T_META, T_REF,
};

enum { META_LEN = 1, META_INDEX = 2, META_INDEX_RAISES = 4, META_LEN_RAISES = 8 };

#define FAKE_SHIM "/usr/local/libexec/lcsb/lcsb-exec"

typedef struct lstr {
    const char *s;
    size_t n;
} lstr;

#define S(lit) {lit, sizeof lit - 1}

static const lstr KEYS[] = {
    S("read"), S("write"), S("exec"), S("env"), S("net"), S("connect"), S("bind"),
    S("cwd"), S("degrade"),
    /* Junk a script could write: near misses, other layers' names, NUL. */
    S(""), S("Read"), S("reads"), S("read\0x"), S("table"), S("__index"), S("backend"),
    S("scope"), S("1"),
    /* Environment names, valid and not. */
    S("PATH"), S("HOME"), S("LD_PRELOAD"), S("LCSB_X"), S("_"), S("A=B"), S("1X"), S("A B"),
    S("PATH\0X"),
    /* env's structured form. */
    S("pass"), S("set"), S("unset"),
    /* private's entries (last, so the corpus's earlier picks stay what they were). */
    S("private"), S("path"), S("links"),
};

static const lstr STRINGS[] = {
    S("/"), S("/tmp"), S("/usr"), S("/usr/bin/true"), S("/usr/bin/env"), S("/etc/passwd"),
    S("/home/u/.ssh"), S("/proc/self/root"), S("/dev/null"), S("/lib"), S(".."), S("~"),
    S("~/x"), S(""), S("."), S("relative/path"), S("/a/../b"), S("/a/./b//c/"), S("//"),
    S("/tmp/\0/etc"), S("\0"), S("any"), S("ANY"), S("443"), S("0x1bb"), S(" 80 "), S("1e3"),
    S("-1"), S("net"), S("scope"), S("truncate"), S("ioctl"), S("terminal"),
    S("value with spaces"), S("A=B"), S("\xff\xfe"), S("/tmp/\"q\\"), S("/tmp/\n"), S("%s%n"),
    /* env.pass entries: patterns, a secret's name. */
    S("*"), S("NPM_CONFIG_*"), S("GITHUB_TOKEN"),
};

static const lua_Integer INTS[] = {
    0, 1, -1, 22, 80, 443, 8080, 65535, 65536, -65535, 2147483647, 2147483648LL,
    -2147483647LL - 1, 4294967296LL + 443, LUA_MAXINTEGER, LUA_MININTEGER,
};

static const double FLOATS[] = {
    0.0, -0.0, 1.0, 443.0, 443.5, 65535.0, 65536.0, -1.0, 1e300, -1e300, INFINITY, -INFINITY,
    NAN, 9223372036854775808.0, 4294967739.0, 0.5,
};

static const lua_Integer LENS[] = {-1, 0, 1, 2, 3, 16, 64, LUA_MAXINTEGER};
/* clang-format on */

#define COUNT(a) (sizeof(a) / sizeof(a)[0])

typedef struct reader {
    const uint8_t *p, *end;
    size_t budget; /* LONG bytes left */
    int refs;      /* stack index of the list of tables made so far */
} reader;

/* What the wrapped lcsb_detect reports for this input. */
static struct {
    int abi;
    bool seccomp;
} host;

int __wrap_lcsb_detect(lcsb_capability *cap, const char *shim, lcsb_error *err) {
    (void)err;
    memset(cap, 0, sizeof *cap);
    snprintf(cap->shim, sizeof cap->shim, "%s", shim ? shim : FAKE_SHIM);
    cap->shim_found = true;
    cap->landlock_abi = host.abi;
    cap->seccomp = host.seccomp;
    /* A host without seccomp here also lacks namespaces, so both kinds of
     * host reach wrap, with and without the read-only world. */
    cap->mount_namespaces = host.seccomp;
    return 0;
}

static uint8_t next(reader *r) { return r->p < r->end ? *r->p++ : 0; }

static uint64_t next64(reader *r) {
    uint64_t v = 0;
    for (int i = 0; i < 8; i++) v |= (uint64_t)next(r) << (8 * i);
    return v;
}

static void push_lstr(lua_State *L, const lstr *s) { lua_pushlstring(L, s->s, s->n); }

static void push_long(lua_State *L, reader *r) {
    static const char *const patterns[] = {"a", "/abcdefg", "/..", "//./"};
    size_t len = (next(r) | (size_t)next(r) << 8) % (MAX_LONG + 1);
    const char *pat = patterns[next(r) % COUNT(patterns)];
    size_t plen = strlen(pat);
    if (len > r->budget) len = r->budget;
    r->budget -= len;
    luaL_Buffer b;
    char *out = luaL_buffinitsize(L, &b, len);
    for (size_t i = 0; i < len; i++) out[i] = i == 0 ? '/' : pat[(i - 1) % plen];
    luaL_pushresultsize(&b, len);
}

static int meta_value(lua_State *L) {
    lua_pushvalue(L, lua_upvalueindex(1));
    return 1;
}

static int meta_raise(lua_State *L) { return luaL_error(L, "metamethod raised"); }

static int dummy_function(lua_State *L) { return 0; }

static void push_value(lua_State *L, reader *r, int depth);

/* A new table, remembered for REF. */
static int new_table(lua_State *L, reader *r) {
    lua_newtable(L);
    lua_pushvalue(L, -1);
    lua_rawseti(L, r->refs, (lua_Integer)lua_rawlen(L, r->refs) + 1);
    return lua_gettop(L);
}

static void fill_list(lua_State *L, reader *r, int depth, int t) {
    int n = next(r) % (MAX_COUNT + 1);
    for (int i = 1; i <= n; i++) {
        push_value(L, r, depth + 1);
        lua_rawseti(L, t, i);
    }
}

static void push_map(lua_State *L, reader *r, int depth) {
    int t = new_table(L, r);
    int n = next(r) % (MAX_COUNT + 1);
    for (int i = 0; i < n; i++) {
        uint8_t k = next(r);
        if (k < 0xC0)
            push_lstr(L, &KEYS[k % COUNT(KEYS)]);
        else
            push_value(L, r, depth + 1);
        push_value(L, r, depth + 1);
        bool nan =
            lua_type(L, -2) == LUA_TNUMBER && !lua_isinteger(L, -2) && isnan(lua_tonumber(L, -2));
        if (lua_isnil(L, -2) || nan)
            lua_pop(L, 2);
        else
            lua_rawset(L, t);
    }
}

static void push_meta(lua_State *L, reader *r, int depth) {
    uint8_t flags = next(r);
    lua_Integer len = LENS[flags >> 4 & 7];
    int t = new_table(L, r);
    lua_newtable(L);
    if (flags & META_LEN_RAISES) {
        lua_pushcfunction(L, meta_raise);
        lua_setfield(L, -2, "__len");
    } else if (flags & META_LEN) {
        lua_pushinteger(L, len);
        lua_pushcclosure(L, meta_value, 1);
        lua_setfield(L, -2, "__len");
    }
    if (flags & META_INDEX) {
        push_value(L, r, depth + 1); /* read even when dropped: the grammar stays fixed */
        if (!(flags & META_LEN_RAISES) && (flags & META_LEN) && len > 64)
            lua_pop(L, 1);
        else {
            lua_pushcclosure(L, meta_value, 1);
            lua_setfield(L, -2, "__index");
        }
    }
    if (flags & META_INDEX_RAISES) {
        lua_pushcfunction(L, meta_raise);
        lua_setfield(L, -2, "__index");
    }
    lua_setmetatable(L, t);
    fill_list(L, r, depth, t);
}

static void push_value(lua_State *L, reader *r, int depth) {
    luaL_checkstack(L, 8, "value tree");
    int tag = next(r) & 0x0F;
    if (depth >= MAX_DEPTH && (tag == T_MAP || tag == T_LIST || tag == T_META)) tag = T_STR;
    switch (tag) {
    case T_STR: push_lstr(L, &STRINGS[next(r) % COUNT(STRINGS)]); break;
    case T_BYTES: {
        size_t n = next(r);
        size_t have = (size_t)(r->end - r->p);
        if (n > have) n = have;
        lua_pushlstring(L, (const char *)r->p, n);
        r->p += n;
        break;
    }
    case T_LONG: push_long(L, r); break;
    case T_INT: lua_pushinteger(L, INTS[next(r) % COUNT(INTS)]); break;
    case T_INT64: lua_pushinteger(L, (lua_Integer)next64(r)); break;
    case T_FLT: lua_pushnumber(L, FLOATS[next(r) % COUNT(FLOATS)]); break;
    case T_F64: {
        uint64_t bits = next64(r);
        double d;
        memcpy(&d, &bits, sizeof d);
        lua_pushnumber(L, d);
        break;
    }
    case T_TRUE: lua_pushboolean(L, 1); break;
    case T_FALSE: lua_pushboolean(L, 0); break;
    case T_NIL: lua_pushnil(L); break;
    case T_LUDATA: lua_pushlightuserdata(L, (void *)r); break;
    case T_CFUNC: lua_pushcfunction(L, dummy_function); break;
    case T_MAP: push_map(L, r, depth); break;
    case T_LIST: fill_list(L, r, depth, new_table(L, r)); break;
    case T_META: push_meta(L, r, depth); break;
    case T_REF: {
        lua_Integer n = (lua_Integer)lua_rawlen(L, r->refs);
        uint8_t b = next(r);
        if (n == 0)
            lua_newtable(L);
        else
            lua_rawgeti(L, r->refs, b % n + 1);
        break;
    }
    }
}

static void finding(const char *what, const char *detail) {
    fprintf(stderr, "fuzz_lua_policy: %s%s%s\n", what, detail ? ": " : "", detail ? detail : "");
    abort();
}

/* Two tables of the kind policy:table() makes (strings, numbers, booleans and
 * such tables, no cycles) hold the same. */
static bool same(lua_State *L, int a, int b, int depth) {
    if (lua_type(L, a) != lua_type(L, b)) return false;
    if (lua_type(L, a) != LUA_TTABLE) return lua_rawequal(L, a, b);
    if (depth > 4) return false;
    luaL_checkstack(L, 6, "compare");
    a = lua_absindex(L, a);
    b = lua_absindex(L, b);
    size_t na = 0, nb = 0;
    bool ok = true;
    lua_pushnil(L);
    while (ok && lua_next(L, a)) {
        na++;
        lua_pushvalue(L, -2);
        lua_rawget(L, b);
        ok = same(L, -2, -1, depth + 1);
        lua_pop(L, 2);
    }
    if (!ok) {
        lua_pop(L, 1); /* the key lua_next left */
        return false;
    }
    lua_pushnil(L);
    while (lua_next(L, b)) {
        nb++;
        lua_pop(L, 1);
    }
    return na == nb;
}

static const char *field(lua_State *L, int t, const char *name) {
    lua_getfield(L, t, name);
    const char *s = lua_tostring(L, -1); /* kept alive by the table */
    lua_pop(L, 1);
    return s ? s : "";
}

static bool truthy_field(lua_State *L, int t, const char *name) {
    lua_getfield(L, t, name);
    bool v = lua_toboolean(L, -1);
    lua_pop(L, 1);
    return v;
}

/* NAME is in the list of strings at T (a missing list is empty). */
static bool listed(lua_State *L, int t, const char *list, const char *name) {
    lua_getfield(L, t, list);
    bool found = false;
    if (lua_istable(L, -1)) {
        for (lua_Integer i = 1; !found && i <= (lua_Integer)lua_rawlen(L, -1); i++) {
            lua_rawgeti(L, -1, i);
            found = lua_type(L, -1) == LUA_TSTRING && strcmp(lua_tostring(L, -1), name) == 0;
            lua_pop(L, 1);
        }
    }
    lua_pop(L, 1);
    return found;
}

/* What the attestation ATT of a wrapped policy must say, from TABLE (the
 * policy's policy:table()). lcsb.h: a backend refuses what it cannot enforce
 * unless the policy lets that part degrade, and the attestation lists what was
 * dropped; so nothing is dropped that the policy did not allow, and what is
 * not dropped holds. */
static void check_attestation(lua_State *L, int att, int table, bool none) {
    static const char *const parts[] = {"net", "scope", "truncate", "ioctl", "terminal"};
    if (none) {
        if (strcmp(field(L, att, "backend"), "none") != 0 || strcmp(field(L, att, "fs"), "open") ||
            strcmp(field(L, att, "exec"), "open") || strcmp(field(L, att, "net"), "open"))
            finding("backend none attests something enforced", field(L, att, "backend"));
        return;
    }
    if (strcmp(field(L, att, "backend"), "landlock") != 0)
        finding("a landlock argv attests another backend", field(L, att, "backend"));
    if (strcmp(field(L, att, "fs"), "enforced") != 0)
        finding("a landlock argv attests fs", field(L, att, "fs"));
    for (size_t i = 0; i < COUNT(parts); i++)
        if (listed(L, att, "dropped", parts[i]) && !listed(L, table, "degrade", parts[i]))
            finding("attested dropped without the policy's leave", parts[i]);
    lua_getfield(L, table, "exec");
    bool exec_open = lua_type(L, -1) == LUA_TSTRING && strcmp(lua_tostring(L, -1), "any") == 0;
    lua_pop(L, 1);
    if (strcmp(field(L, att, "exec"), exec_open ? "open" : "allowlist") != 0)
        finding("exec attested otherwise than asked", field(L, att, "exec"));
    const char *net;
    lua_getfield(L, table, "net");
    if (lua_isboolean(L, -1)) {
        net = lua_toboolean(L, -1) ? "open" : "denied";
    } else {
        lua_getfield(L, -1, "connect");
        lua_getfield(L, -2, "bind");
        net = lua_rawlen(L, -1) + lua_rawlen(L, -2) > 0 ? "ports" : "denied";
        lua_pop(L, 2);
    }
    lua_pop(L, 1);
    if (!listed(L, att, "dropped", "net")) {
        if (strcmp(field(L, att, "net"), net) != 0)
            finding("net attested otherwise than asked, and not dropped", field(L, att, "net"));
        if (strcmp(net, "open") != 0 && strcmp(field(L, att, "net_covers"), "all") != 0)
            finding("a restricted net covers less than all sockets, and is not dropped",
                    field(L, att, "net_covers"));
    }
    if (!listed(L, att, "dropped", "scope") && !truthy_field(L, att, "scoped"))
        finding("scoping not attested, and not dropped", NULL);
    int abi = host.abi > 7 ? 7 : host.abi;
    lua_getfield(L, att, "abi");
    if (lua_tointeger(L, -1) != abi) finding("abi attested otherwise than detected", NULL);
    lua_pop(L, 1);
}

/* Under lua_pcall: decode the input, then drive the module. Stack slots are
 * fixed so that each step can name what it uses. */
static int fuzz_one(lua_State *L) {
    enum { LCSB = 1, REFS, ROOT, POLICY, TABLE, ARGV, PREFIX, FINAL, ATT };
    reader *r = lua_touserdata(L, 1);
    uint8_t config = next(r);
    lua_settop(L, 0);
    lua_pushcfunction(L, luaopen_lcsb_core);
    lua_call(L, 0, 1);
    lua_newtable(L);
    r->refs = REFS;
    if (config & CONFIG_ROOT_ANY)
        push_value(L, r, 0);
    else
        push_map(L, r, 0);
    host.abi = (config & CONFIG_ABI) + 1;
    host.seccomp = config & CONFIG_SECCOMP;

    lua_getfield(L, LCSB, "policy");
    lua_pushvalue(L, ROOT);
    if (lua_pcall(L, 1, 1, 0) != LUA_OK) return 0;

    luaL_tolstring(L, POLICY, NULL); /* __tostring */
    lua_pop(L, 1);
    lua_getfield(L, POLICY, "table");
    if (lua_isfunction(L, -1)) {
        lua_pushvalue(L, POLICY);
        if (lua_pcall(L, 1, 1, 0) != LUA_OK) finding("policy:table() raised", lua_tostring(L, -1));
        /* TABLE; the round trip: */
        lua_getfield(L, LCSB, "policy");
        lua_pushvalue(L, TABLE);
        if (lua_pcall(L, 1, 1, 0) != LUA_OK)
            finding("lcsb.policy refuses policy:table()", lua_tostring(L, -1));
        lua_getfield(L, -1, "table");
        lua_insert(L, -2);
        if (lua_pcall(L, 1, 1, 0) != LUA_OK)
            finding("policy:table() raised on the round trip", lua_tostring(L, -1));
        if (!same(L, TABLE, -1, 0)) finding("policy:table() changes on a round trip", NULL);
        lua_pop(L, 1);
    } else {
        lua_pop(L, 1);
        lua_pushnil(L); /* TABLE: none to compare with */
    }

    lua_createtable(L, 3, 0); /* ARGV */
    lua_pushliteral(L, "/usr/bin/true");
    lua_rawseti(L, ARGV, 1);
    lua_pushliteral(L, "--");
    lua_rawseti(L, ARGV, 2);
    lua_pushliteral(L, "an argument");
    lua_rawseti(L, ARGV, 3);
    if (config & CONFIG_PREFIX) { /* PREFIX */
        lua_createtable(L, 3, 0);
        lua_pushliteral(L, "/usr/bin/nice");
        lua_rawseti(L, PREFIX, 1);
        lua_pushliteral(L, "-n");
        lua_rawseti(L, PREFIX, 2);
        lua_pushliteral(L, "5");
        lua_rawseti(L, PREFIX, 3);
    } else {
        lua_pushnil(L);
    }

    bool none = config & CONFIG_NONE;
    lua_getfield(L, LCSB, "wrap");
    lua_pushvalue(L, POLICY);
    lua_pushvalue(L, ARGV);
    lua_pushstring(L, none ? "none" : "landlock");
    lua_pushvalue(L, PREFIX);
    if (lua_pcall(L, 4, 1, 0) != LUA_OK || !lua_istable(L, FINAL)) return 0;

    lua_getfield(L, LCSB, "attest");
    lua_pushvalue(L, FINAL);
    lua_pushvalue(L, PREFIX);
    if (lua_pcall(L, 2, 2, 0) != LUA_OK)
        finding("attest raised on wrap's argv", lua_tostring(L, -1));
    if (!lua_istable(L, ATT)) finding("wrap's argv does not attest", lua_tostring(L, ATT + 1));

    if (lua_istable(L, TABLE)) check_attestation(L, ATT, TABLE, none);
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    lua_State *L = luaL_newstate();
    if (!L) return 0;
    reader r = {.p = data, .end = data + size, .budget = STRING_BUDGET};
    lua_pushcfunction(L, fuzz_one);
    lua_pushlightuserdata(L, &r);
    (void)lua_pcall(L, 1, 0, 0); /* only memory errors: the steps catch their own */
    lua_close(L);
    return 0;
}
