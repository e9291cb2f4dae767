/* The Lua binding's policy: `lcsb.policy{...}` builds an lcsb_policy owned
 * by a userdata, checked key by key in C; `policy:table()` gives it back as
 * the plain table it was built from. */
#include "lua_policy.h"

#include "lua_net.h"
#include "lua_util.h"

#include "policy.h"

#include <ctype.h>
#include <lauxlib.h>
#include <limits.h>
#include <lua.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct policy_ud {
    lcsb_policy *policy;
} policy_ud;

lcsb_policy *lcsb__lua_checkpolicy(lua_State *L, int idx) {
    policy_ud *ud = luaL_checkudata(L, idx, LCSB__POLICY_MT);
    if (!ud->policy) luaL_argerror(L, idx, "policy already freed");
    return ud->policy;
}

void lcsb__lua_policy_slot(lua_State *L, int idx) {
    idx = lua_absindex(L, idx);
    if (lua_type(L, idx) != LUA_TTABLE) return;
    /* Raw: reading lcsb's own data runs none of the table's code. */
    lua_pushliteral(L, "policy");
    lua_rawget(L, idx);
    if (!luaL_testudata(L, -1, LCSB__POLICY_MT))
        luaL_argerror(L, idx, "expected a policy, or exec_policy's result holding one");
    lua_replace(L, idx);
}

static void add_paths(lua_State *L, lcsb_policy *p, const char *key,
                      int (*add)(lcsb_policy *, const char *, lcsb_error *)) {
    lcsb_error err;
    int t = lua_gettop(L);
    if (lua_type(L, t) != LUA_TTABLE)
        luaL_error(L, "policy key '%s': expected a list of paths, got %s", key,
                   luaL_typename(L, t));
    lua_Integer n = luaL_len(L, t);
    for (lua_Integer i = 1; i <= n; i++) {
        lua_geti(L, t, i);
        const char *path = lcsb__lua_list_entry(L, key, i, "a path string");
        if (add(p, path, &err)) lcsb__lua_raise(L, &err);
        lua_pop(L, 1);
    }
}

/* The string at the top, checked for a NUL byte; left on the stack. */
static const char *check_text(lua_State *L, const char *key, int i) {
    size_t len = 0;
    const char *text = lua_type(L, -1) == LUA_TSTRING ? lua_tolstring(L, -1, &len) : NULL;
    if (!text)
        luaL_error(L, "policy key '%s': entry %d: expected a string", key, i);
    else if (strlen(text) != len)
        luaL_error(L, "policy key '%s': entry %d holds a NUL byte", key, i);
    return text;
}

/* private = { { path = P, links = { REL, TARGET, REL, TARGET, ... } }, ... }:
 * the run's fresh directories (policy.h). The links' strings stay alive in
 * the table; the array of pointers is a userdata, so an error owes no free. */
static void add_private(lua_State *L, lcsb_policy *p) {
    lcsb_error err;
    int t = lua_gettop(L);
    luaL_checktype(L, t, LUA_TTABLE);
    lua_Integer n = luaL_len(L, t);
    for (lua_Integer i = 1; i <= n; i++) {
        if (lua_geti(L, t, i) != LUA_TTABLE)
            luaL_error(L, "policy key 'private': entry %d: expected { path = ..., links = ... }",
                       (int)i);
        int e = lua_gettop(L);
        lua_getfield(L, e, "path");
        const char *path = check_text(L, "private", (int)i);
        if (lua_getfield(L, e, "links") != LUA_TTABLE && !lua_isnil(L, -1))
            luaL_error(L, "policy key 'private': entry %d: links must be a list", (int)i);
        lua_Integer m = lua_isnil(L, -1) ? 0 : luaL_len(L, -1);
        if (m < 0 || m > 100000) luaL_error(L, "policy key 'private': too many links");
        const char **links = lua_newuserdatauv(L, ((size_t)m + 1) * sizeof *links, 0);
        for (lua_Integer j = 1; j <= m; j++) {
            lua_geti(L, e + 2, j);
            links[j - 1] = check_text(L, "private", (int)i);
            lua_pop(L, 1); /* the links table keeps it alive */
        }
        links[m] = NULL;
        if (lcsb__policy_add_private(p, path, links, &err)) lcsb__lua_raise(L, &err);
        lua_settop(L, t);
    }
}

/* NAME = "value" (set) or, when FALSE_UNSETS, NAME = false (unset) for
 * each entry of the table at T, the names in order. */
static void set_pairs(lua_State *L, lcsb_policy *p, int t, const char *what, bool false_unsets) {
    lcsb_error err;
    size_t n;
    const char **names = lcsb__lua_sorted_names(L, t, what, &n);
    for (size_t i = 0; i < n; i++) {
        const char *name = names[i], *value = NULL;
        lua_getfield(L, t, name);
        if (lua_type(L, -1) == LUA_TSTRING) {
            size_t len;
            value = lua_tolstring(L, -1, &len);
            if (strlen(value) != len)
                luaL_error(L, "policy key '%s.%s': value holds a NUL byte", what, name);
        } else if (!(false_unsets && lua_isboolean(L, -1) && !lua_toboolean(L, -1))) {
            luaL_error(L, "policy key '%s.%s': expected a string%s", what, name,
                       false_unsets ? ", or false to unset it" : "");
        }
        if (lcsb_policy_set_env(p, name, value, &err)) lcsb__lua_raise(L, &err);
        lua_pop(L, 1);
    }
    lua_pop(L, 1); /* the array */
}

static bool structured_key(const char *key) {
    return strcmp(key, "pass") == 0 || strcmp(key, "set") == 0 || strcmp(key, "unset") == 0;
}

/* `env` in one of two forms, told apart by its keys. The structured form,
 * `{ pass = { "CI", "NPM_CONFIG_*" }, set = { CI = "1" }, unset = { "X" } }`,
 * is any table with a key pass, set or unset, and then has no other key. The
 * simple form, `{ NAME = "value", OTHER = false }`, is the overlay alone. */
static void set_env(lua_State *L, lcsb_policy *p) {
    int t = lua_gettop(L);
    if (!lua_istable(L, t)) luaL_error(L, "policy key 'env': expected a table");
    bool structured = false;
    const char *plain = NULL;
    lua_pushnil(L);
    while (lua_next(L, t)) {
        if (lua_type(L, -2) != LUA_TSTRING)
            luaL_error(L, "policy key 'env': names must be strings");
        const char *key = lua_tostring(L, -2);
        if (structured_key(key))
            structured = true;
        else if (!plain)
            plain = key;
        lua_pop(L, 1);
    }
    if (!structured) {
        set_pairs(L, p, t, "env", true);
        return;
    }
    if (plain)
        luaL_error(L,
                   "policy key 'env': '%s' next to pass, set or unset: the structured form takes "
                   "only those three keys (put %s under set = { ... } or unset = { ... })",
                   plain, plain);
    lua_getfield(L, t, "set");
    if (!lua_isnil(L, -1)) {
        if (!lua_istable(L, -1))
            luaL_error(L, "policy key 'env.set': expected a table of NAME = value");
        set_pairs(L, p, lua_gettop(L), "env.set", false);
    }
    lua_getfield(L, t, "unset");
    if (!lua_isnil(L, -1)) lcsb__lua_add_names(L, p, lua_gettop(L), "env.unset", NULL);
    lua_getfield(L, t, "pass");
    if (!lua_isnil(L, -1))
        lcsb__lua_add_names(L, p, lua_gettop(L), "env.pass", lcsb_policy_pass_env);
    lua_settop(L, t);
}

/* A limit written as people write it: "2G", "512M", "64KiB" (binary
 * multiples; bytes), "30s", "10m", "2h" (seconds), or digits alone. The
 * suffixes LIMIT takes; 0 and *OUT set, or -1 when TEXT is none of these
 * or does not fit. */
static int limit_units(lcsb_limit limit, const char *text, unsigned long long *out) {
    static const struct {
        const char *suffix;
        unsigned long long factor;
        bool bytes;
    } units[] = {
        {"", 1, true},
        {"b", 1, true},
        {"k", 1ULL << 10, true},
        {"kb", 1ULL << 10, true},
        {"kib", 1ULL << 10, true},
        {"m", 1ULL << 20, true},
        {"mb", 1ULL << 20, true},
        {"mib", 1ULL << 20, true},
        {"g", 1ULL << 30, true},
        {"gb", 1ULL << 30, true},
        {"gib", 1ULL << 30, true},
        {"t", 1ULL << 40, true},
        {"tb", 1ULL << 40, true},
        {"tib", 1ULL << 40, true},
        {"", 1, false},
        {"s", 1, false},
        {"m", 60, false},
        {"h", 3600, false},
    };
    bool bytes = limit == LCSB_LIMIT_MEMORY || limit == LCSB_LIMIT_TMP;
    bool counted = limit == LCSB_LIMIT_PIDS || limit == LCSB_LIMIT_FILES;
    const char *p = text;
    unsigned long long n = 0;
    if (*p < '0' || *p > '9') return -1;
    for (; *p >= '0' && *p <= '9'; p++) {
        if (n > (ULLONG_MAX - 9) / 10) return -1;
        n = n * 10 + (unsigned long long)(*p - '0');
    }
    char suffix[4];
    size_t len = strlen(p);
    if (len >= sizeof suffix) return -1;
    for (size_t i = 0; i <= len; i++) suffix[i] = (char)tolower((unsigned char)p[i]);
    for (size_t i = 0; i < sizeof units / sizeof units[0]; i++) {
        if (strcmp(units[i].suffix, suffix) != 0) continue;
        if (counted ? *suffix != '\0' : units[i].bytes != bytes) continue;
        if (n > ULLONG_MAX / units[i].factor) return -1;
        *out = n * units[i].factor;
        return 0;
    }
    return -1;
}

/* limits = { time = S, memory = B, pids = N, files = N, tmp = B }: positive
 * whole numbers, or strings with units (limit_units), each a name of
 * lcsb_limit. */
static void set_limits(lua_State *L, lcsb_policy *p) {
    static const char *const written[] = {
        [LCSB_LIMIT_TIME] = "seconds, or with s, m or h: \"30s\", \"10m\"",
        [LCSB_LIMIT_MEMORY] = "bytes, or with K, M, G or T (binary): \"512M\", \"2G\"",
        [LCSB_LIMIT_PIDS] = "a count",
        [LCSB_LIMIT_FILES] = "a count",
        [LCSB_LIMIT_TMP] = "bytes, or with K, M, G or T (binary): \"512M\", \"2G\"",
    };
    int t = lua_gettop(L);
    lcsb_error err;
    if (!lua_istable(L, t)) luaL_error(L, "policy key 'limits': expected a table of limits");
    lua_pushnil(L);
    while (lua_next(L, t)) {
        const char *name = lua_type(L, -2) == LUA_TSTRING ? lua_tostring(L, -2) : NULL;
        unsigned k = 0;
        while (k < LCSB_LIMITS && !(name && strcmp(lcsb_limit_name(k), name) == 0)) k++;
        if (k == LCSB_LIMITS)
            luaL_error(L,
                       "policy key 'limits': unknown limit %s%s%s (expected time, memory, pids, "
                       "files, tmp)",
                       name ? "'" : "a ", name ? name : luaL_typename(L, -2), name ? "'" : "");
        unsigned long long v = 0;
        if (lua_type(L, -1) == LUA_TSTRING) {
            if (limit_units((lcsb_limit)k, lua_tostring(L, -1), &v) != 0 || v == 0)
                luaL_error(L, "policy key 'limits': %s = \"%s\" is not %s", name,
                           lua_tostring(L, -1), written[k]);
        } else {
            int exact = 0;
            lua_Integer n = lua_tointegerx(L, -1, &exact);
            if (!exact || n < 1)
                luaL_error(L, "policy key 'limits': %s must be a positive whole number (%s)", name,
                           written[k]);
            v = (unsigned long long)n;
        }
        if (lcsb_policy_set_limit(p, (lcsb_limit)k, v, &err)) lcsb__lua_raise(L, &err);
        lua_pop(L, 1);
    }
}

/* `degrade = { "scope", ... }`: the parts the host may leave unenforced. */
static void set_degradable(lua_State *L, lcsb_policy *p) {
    int t = lua_gettop(L);
    unsigned parts = 0;
    if (!lua_istable(L, t)) luaL_error(L, "policy key 'degrade': expected a list of part names");
    lua_Integer n = luaL_len(L, t);
    for (lua_Integer i = 1; i <= n; i++) {
        lua_geti(L, t, i);
        const char *name = lua_type(L, -1) == LUA_TSTRING ? lua_tostring(L, -1) : NULL;
        unsigned part = lcsb_part_from_name(name);
        if (!part) {
            luaL_Buffer known;
            luaL_buffinit(L, &known);
            for (unsigned bit = 1; bit <= LCSB_PARTS_ALL; bit <<= 1) {
                if (bit > 1) luaL_addstring(&known, ", ");
                luaL_addstring(&known, lcsb_part_name(bit));
            }
            luaL_pushresult(&known);
            luaL_error(L, "policy key 'degrade': entry %d is %s%s%s, not a part (expected %s)",
                       (int)i, name ? "\"" : "a ", name ? name : luaL_typename(L, -2),
                       name ? "\"" : "", lua_tostring(L, -1));
        }
        parts |= part;
        lua_pop(L, 1);
    }
    lcsb_policy_set_degradable(p, parts);
}

int lcsb__lua_policy(lua_State *L) {
    luaL_checktype(L, 1, LUA_TTABLE);
    lua_settop(L, 1);
    policy_ud *ud = lua_newuserdatauv(L, sizeof *ud, 0);
    ud->policy = NULL; /* closed state first, so an error below leaves nothing half-owned */
    luaL_setmetatable(L, LCSB__POLICY_MT);
    if (!(ud->policy = lcsb_policy_new())) return luaL_error(L, "out of memory");
    lcsb_policy *p = ud->policy;
    lcsb_error err;

    lua_pushnil(L);
    while (lua_next(L, 1)) {
        if (lua_type(L, -2) != LUA_TSTRING)
            return luaL_error(L, "policy: keys must be names, got a %s", luaL_typename(L, -2));
        const char *key = lua_tostring(L, -2);
        if (strcmp(key, "read") == 0)
            add_paths(L, p, key, lcsb_policy_add_read);
        else if (strcmp(key, "write") == 0)
            add_paths(L, p, key, lcsb_policy_add_write);
        else if (strcmp(key, "exec") == 0) {
            if (lua_type(L, -1) == LUA_TSTRING && strcmp(lua_tostring(L, -1), "any") == 0)
                lcsb_policy_set_exec_open(p, true);
            else if (lua_type(L, -1) == LUA_TSTRING)
                return luaL_error(L, "policy key 'exec': expected a list of paths or \"any\"");
            else
                add_paths(L, p, key, lcsb_policy_add_exec);
        } else if (strcmp(key, "env") == 0)
            set_env(L, p);
        else if (strcmp(key, "net") == 0)
            lcsb__lua_policy_net(L, p);
        else if (strcmp(key, "degrade") == 0)
            set_degradable(L, p);
        else if (strcmp(key, "protect") == 0)
            add_paths(L, p, key, lcsb_policy_add_protect);
        else if (strcmp(key, "hide") == 0)
            add_paths(L, p, key, lcsb_policy_add_hide);
        else if (strcmp(key, "limits") == 0)
            set_limits(L, p);
        else if (strcmp(key, "private") == 0)
            add_private(L, p);
        else if (strcmp(key, "secrets") == 0)
            lcsb__lua_policy_secrets(L, p);
        else if (strcmp(key, "cwd") == 0) {
            size_t len;
            const char *cwd = lua_type(L, -1) == LUA_TSTRING ? lua_tolstring(L, -1, &len) : NULL;
            if (!cwd) return luaL_error(L, "policy key 'cwd': expected a path");
            if (strlen(cwd) != len)
                return luaL_error(L, "policy key 'cwd': the path holds a NUL byte");
            if (lcsb_policy_set_cwd(p, cwd, &err)) return lcsb__lua_raise(L, &err);
        } else
            return luaL_error(
                L,
                "policy: unknown key '%s' (expected read, write, exec, env, net, cwd, degrade, "
                "protect, hide, limits, private, secrets)",
                key);
        lua_settop(L, 3); /* drop the value, keep the key for lua_next */
    }
    return 1;
}

/* private, as add_private takes it, into the table at the top. */
static void push_private(lua_State *L, const lcsb_policy *p) {
    lua_createtable(L, (int)p->priv_n, 0);
    for (size_t i = 0; i < p->priv_n; i++) {
        lua_createtable(L, 0, 2);
        lua_pushstring(L, p->priv[i].path);
        lua_setfield(L, -2, "path");
        lcsb__lua_push_argv(L, p->priv[i].links.v);
        lua_setfield(L, -2, "links");
        lua_rawseti(L, -2, (lua_Integer)i + 1);
    }
    lua_setfield(L, -2, "private");
}

static void push_paths(lua_State *L, const lcsb_policy *p, lcsb_tier tier) {
    size_t n = lcsb_policy_count(p, tier);
    lua_createtable(L, (int)n, 0);
    for (size_t i = 0; i < n; i++) {
        lua_pushstring(L, lcsb_policy_path(p, tier, i));
        lua_rawseti(L, -2, (lua_Integer)i + 1);
    }
}

static void push_ports(lua_State *L, const lcsb__ports *ports) {
    lua_createtable(L, (int)ports->n, 0);
    for (size_t i = 0; i < ports->n; i++) {
        lua_pushinteger(L, ports->v[i]);
        lua_rawseti(L, -2, (lua_Integer)i + 1);
    }
}

/* The policy as a plain table, in the shape lcsb.policy takes. */
int lcsb__lua_policy_table(lua_State *L) {
    lcsb_policy *p = lcsb__lua_checkpolicy(L, 1);
    lua_newtable(L);
    push_paths(L, p, LCSB_TIER_READ);
    lua_setfield(L, -2, "read");
    push_paths(L, p, LCSB_TIER_WRITE);
    lua_setfield(L, -2, "write");
    if (p->exec_open)
        lua_pushliteral(L, "any");
    else
        push_paths(L, p, LCSB_TIER_EXEC);
    lua_setfield(L, -2, "exec");
    /* The structured form, whichever form built it. */
    lua_createtable(L, 0, 3);
    lua_createtable(L, (int)p->env_pass.n, 0);
    for (size_t i = 0; i < p->env_pass.n; i++) {
        lua_pushstring(L, p->env_pass.v[i]);
        lua_rawseti(L, -2, (lua_Integer)i + 1);
    }
    lua_setfield(L, -2, "pass");
    lua_newtable(L);
    lua_newtable(L);
    lua_Integer unset = 0;
    for (size_t i = 0; i < p->env_n; i++) {
        if (p->env[i].value) {
            lua_pushstring(L, p->env[i].value);
            lua_setfield(L, -3, p->env[i].name);
        } else {
            lua_pushstring(L, p->env[i].name);
            lua_rawseti(L, -2, ++unset);
        }
    }
    lua_setfield(L, -3, "unset");
    lua_setfield(L, -2, "set");
    lua_setfield(L, -2, "env");
    if (p->net == LCSB_NET_PORTS || p->net == LCSB_NET_DOMAINS) {
        lua_newtable(L);
        push_ports(L, &p->connect);
        lua_setfield(L, -2, "connect");
        push_ports(L, &p->bind);
        lua_setfield(L, -2, "bind");
        if (p->net == LCSB_NET_DOMAINS) {
            lcsb__lua_push_argv(L, p->domains.v);
            lua_setfield(L, -2, "domains");
            lcsb__lua_push_argv(L, p->lan.v);
            lua_setfield(L, -2, "lan");
        }
    } else {
        lua_pushboolean(L, p->net == LCSB_NET_OPEN);
    }
    lua_setfield(L, -2, "net");
    if (p->cwd) {
        lua_pushstring(L, p->cwd);
        lua_setfield(L, -2, "cwd");
    }
    lcsb__lua_push_bits(L, lcsb__part_names, p->degradable);
    lua_setfield(L, -2, "degrade");
    push_paths(L, p, LCSB_TIER_PROTECT);
    lua_setfield(L, -2, "protect");
    push_paths(L, p, LCSB_TIER_HIDE);
    lua_setfield(L, -2, "hide");
    lua_createtable(L, 0, LCSB_LIMITS);
    for (unsigned k = 0; k < LCSB_LIMITS; k++) {
        if (!p->limits[k]) continue;
        lua_pushinteger(L, (lua_Integer)p->limits[k]);
        lua_setfield(L, -2, lcsb_limit_name(k));
    }
    lua_setfield(L, -2, "limits");
    if (p->priv_n) push_private(L, p);
    if (p->secrets.n) lcsb__lua_push_secrets(L, p);
    return 1;
}

static int l_policy_tostring(lua_State *L) {
    lcsb_policy *p = lcsb__lua_checkpolicy(L, 1);
    lua_pushfstring(L, "lcsb.policy (%d read, %d write, %d exec)", (int)p->read.n, (int)p->write.n,
                    (int)p->exec.n);
    return 1;
}

static int l_policy_gc(lua_State *L) {
    policy_ud *ud = luaL_checkudata(L, 1, LCSB__POLICY_MT);
    lcsb_policy_free(ud->policy);
    ud->policy = NULL;
    return 0;
}

static const luaL_Reg policy_methods[] = {
    {"table", lcsb__lua_policy_table},
    {NULL, NULL},
};

static const luaL_Reg policy_meta[] = {
    {"__gc", l_policy_gc},
    {"__tostring", l_policy_tostring},
    {NULL, NULL},
};

void lcsb__lua_policy_class(lua_State *L) {
    lcsb__lua_new_class(L, LCSB__POLICY_MT, policy_meta, policy_methods);
}
