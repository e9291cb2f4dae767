/* The Lua binding: `require "lcsb.core"` (luaopen_lcsb), wrapped by
 * lua/lcsb/init.lua. Misuse raises naming the argument or key; expected
 * operational failures return nil, message. Nothing here raises while holding
 * memory that no userdata owns. */
#include "lua_lcsb.h"

#include "path.h"
#include "policy.h"
#include "sys.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <lauxlib.h>
#include <limits.h>
#include <lua.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define POLICY_MT "lcsb.policy"
#define SCOPE_MT "lcsb.scope"
#define HOLD_MT "lcsb.hold"

typedef struct policy_ud {
    lcsb_policy *policy;
} policy_ud;

typedef struct scope_ud {
    lcsb__scope *scope;
} scope_ud;

/* ---- helpers ---- */

static int raise_error(lua_State *L, const lcsb_error *err) {
    return luaL_error(L, "%s", err->message);
}

static const char *shim_path(lua_State *L) {
    lua_getfield(L, LUA_REGISTRYINDEX, LCSB__REG_SHIM);
    const char *shim = lua_tostring(L, -1); /* kept alive by the registry */
    lua_pop(L, 1);
    return shim;
}

/* PARTS (lcsb_part bits) as a list of their names. */
static void push_part_names(lua_State *L, unsigned parts) {
    lua_newtable(L);
    lua_Integer n = 0;
    for (unsigned part = 1; part <= LCSB_PARTS_ALL; part <<= 1) {
        if (!(parts & part)) continue;
        lua_pushstring(L, lcsb_part_name(part));
        lua_rawseti(L, -2, ++n);
    }
}

/* ---- lcsb.policy ---- */

lcsb_policy *lcsb__lua_checkpolicy(lua_State *L, int idx) {
    policy_ud *ud = luaL_checkudata(L, idx, POLICY_MT);
    if (!ud->policy) luaL_argerror(L, idx, "policy already freed");
    return ud->policy;
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
        if (lua_type(L, -1) != LUA_TSTRING)
            luaL_error(L, "policy key '%s': entry %d is a %s, expected a path string", key, (int)i,
                       luaL_typename(L, -1));
        size_t len;
        const char *path = lua_tolstring(L, -1, &len);
        if (strlen(path) != len)
            luaL_error(L, "policy key '%s': entry %d holds a NUL byte", key, (int)i);
        if (add(p, path, &err)) raise_error(L, &err);
        lua_pop(L, 1);
    }
}

static void add_ports(lua_State *L, lcsb_policy *p, int net_idx, const char *field,
                      lcsb_port_kind kind) {
    lcsb_error err;
    lua_getfield(L, net_idx, field);
    if (!lua_isnil(L, -1)) {
        if (!lua_istable(L, -1))
            luaL_error(L, "policy key 'net.%s': expected a list of ports", field);
        lua_Integer n = luaL_len(L, -1);
        for (lua_Integer i = 1; i <= n; i++) {
            lua_geti(L, -1, i);
            int isnum;
            lua_Integer port = lua_tointegerx(L, -1, &isnum);
            if (!isnum)
                luaL_error(L, "policy key 'net.%s': entry %d is not an integer", field, (int)i);
            if (lcsb_policy_add_port(p, kind, (long)port, &err)) raise_error(L, &err);
            lua_pop(L, 1);
        }
    }
    lua_pop(L, 1);
}

static void set_net(lua_State *L, lcsb_policy *p) {
    int t = lua_gettop(L);
    if (lua_isboolean(L, t)) {
        lcsb_policy_set_net(p, lua_toboolean(L, t) ? LCSB_NET_OPEN : LCSB_NET_DENY);
        return;
    }
    if (!lua_istable(L, t))
        luaL_error(L,
                   "policy key 'net': expected true, false or { connect = {...}, bind = {...} }");
    lua_pushnil(L);
    while (lua_next(L, t)) {
        const char *k = lua_type(L, -2) == LUA_TSTRING ? lua_tostring(L, -2) : NULL;
        if (!k || (strcmp(k, "connect") != 0 && strcmp(k, "bind") != 0))
            luaL_error(L, "policy key 'net': unknown key '%s' (expected connect, bind)",
                       k ? k : luaL_typename(L, -2));
        lua_pop(L, 1);
    }
    lcsb_policy_set_net(p, LCSB_NET_PORTS);
    add_ports(L, p, t, "connect", LCSB_PORT_CONNECT);
    add_ports(L, p, t, "bind", LCSB_PORT_BIND);
}

static void set_env(lua_State *L, lcsb_policy *p) {
    lcsb_error err;
    int t = lua_gettop(L);
    if (!lua_istable(L, t)) luaL_error(L, "policy key 'env': expected a table of NAME = value");
    lua_pushnil(L);
    while (lua_next(L, t)) {
        if (lua_type(L, -2) != LUA_TSTRING)
            luaL_error(L, "policy key 'env': names must be strings");
        size_t name_len;
        const char *name = lua_tolstring(L, -2, &name_len);
        if (strlen(name) != name_len) luaL_error(L, "policy key 'env': a name holds a NUL byte");
        const char *value = NULL;
        if (lua_type(L, -1) == LUA_TSTRING) {
            size_t len;
            value = lua_tolstring(L, -1, &len);
            if (strlen(value) != len)
                luaL_error(L, "policy key 'env.%s': value holds a NUL byte", name);
        } else if (!(lua_isboolean(L, -1) && !lua_toboolean(L, -1))) {
            luaL_error(L, "policy key 'env.%s': expected a string, or false to unset it", name);
        }
        if (lcsb_policy_set_env(p, name, value, &err)) raise_error(L, &err);
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

static int l_policy(lua_State *L) {
    luaL_checktype(L, 1, LUA_TTABLE);
    lua_settop(L, 1);
    policy_ud *ud = lua_newuserdatauv(L, sizeof *ud, 0);
    ud->policy = NULL; /* closed state first, so an error below leaves nothing half-owned */
    luaL_setmetatable(L, POLICY_MT);
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
            set_net(L, p);
        else if (strcmp(key, "degrade") == 0)
            set_degradable(L, p);
        else if (strcmp(key, "protect") == 0)
            add_paths(L, p, key, lcsb_policy_add_protect);
        else if (strcmp(key, "cwd") == 0) {
            size_t len;
            const char *cwd = lua_type(L, -1) == LUA_TSTRING ? lua_tolstring(L, -1, &len) : NULL;
            if (!cwd) return luaL_error(L, "policy key 'cwd': expected a path");
            if (strlen(cwd) != len)
                return luaL_error(L, "policy key 'cwd': the path holds a NUL byte");
            if (lcsb_policy_set_cwd(p, cwd, &err)) return raise_error(L, &err);
        } else
            return luaL_error(
                L,
                "policy: unknown key '%s' (expected read, write, exec, env, net, cwd, degrade, "
                "protect)",
                key);
        lua_settop(L, 3); /* drop the value, keep the key for lua_next */
    }
    return 1;
}

static void push_paths(lua_State *L, const lcsb_policy *p, const char *tier) {
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
static int l_policy_table(lua_State *L) {
    lcsb_policy *p = lcsb__lua_checkpolicy(L, 1);
    lua_newtable(L);
    push_paths(L, p, "read");
    lua_setfield(L, -2, "read");
    push_paths(L, p, "write");
    lua_setfield(L, -2, "write");
    if (p->exec_open)
        lua_pushliteral(L, "any");
    else
        push_paths(L, p, "exec");
    lua_setfield(L, -2, "exec");
    lua_newtable(L);
    for (size_t i = 0; i < p->env_n; i++) {
        if (p->env[i].value)
            lua_pushstring(L, p->env[i].value);
        else
            lua_pushboolean(L, 0);
        lua_setfield(L, -2, p->env[i].name);
    }
    lua_setfield(L, -2, "env");
    if (p->net == LCSB_NET_PORTS) {
        lua_newtable(L);
        push_ports(L, &p->connect);
        lua_setfield(L, -2, "connect");
        push_ports(L, &p->bind);
        lua_setfield(L, -2, "bind");
    } else {
        lua_pushboolean(L, p->net == LCSB_NET_OPEN);
    }
    lua_setfield(L, -2, "net");
    if (p->cwd) {
        lua_pushstring(L, p->cwd);
        lua_setfield(L, -2, "cwd");
    }
    push_part_names(L, p->degradable);
    lua_setfield(L, -2, "degrade");
    push_paths(L, p, "protect");
    lua_setfield(L, -2, "protect");
    return 1;
}

static int l_policy_tostring(lua_State *L) {
    lcsb_policy *p = lcsb__lua_checkpolicy(L, 1);
    lua_pushfstring(L, "lcsb.policy (%d read, %d write, %d exec)", (int)p->read.n, (int)p->write.n,
                    (int)p->exec.n);
    return 1;
}

static int l_policy_gc(lua_State *L) {
    policy_ud *ud = luaL_checkudata(L, 1, POLICY_MT);
    lcsb_policy_free(ud->policy);
    ud->policy = NULL;
    return 0;
}

/* ---- lcsb.scope ---- */

static int l_scope(lua_State *L) {
    scope_ud *ud = lua_newuserdatauv(L, sizeof *ud, 0);
    ud->scope = NULL;
    luaL_setmetatable(L, SCOPE_MT);
    if (!(ud->scope = lcsb__scope_new())) return luaL_error(L, "out of memory");
    return 1;
}

lcsb__scope *lcsb__lua_checkscope(lua_State *L, int idx) {
    scope_ud *ud = luaL_checkudata(L, idx, SCOPE_MT);
    if (!ud->scope) luaL_argerror(L, idx, "scope is closed");
    return ud->scope;
}

static int l_scope_mkdtemp(lua_State *L) {
    lcsb__scope *s = lcsb__lua_checkscope(L, 1);
    const char *label = luaL_optstring(L, 2, "run");
    for (const char *c = label; *c; c++)
        if (*c == '/') return luaL_argerror(L, 2, "a label, not a path");
    char path[PATH_MAX];
    lcsb_error err;
    if (lcsb__scope_mkdtemp(s, label, path, &err)) {
        luaL_pushfail(L);
        lua_pushstring(L, err.message);
        return 2;
    }
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
    if (lcsb__lua_close_scope(L, 1, &err)) {
        luaL_pushfail(L);
        lua_pushstring(L, err.message);
        return 2;
    }
    lua_pushboolean(L, 1);
    return 1;
}

/* The scope and the context (argv, cwd, env) of the run lcsb_script_open is
 * making a policy for; nil in a plain Lua program. */
static int l_run_scope(lua_State *L) {
    lua_getfield(L, LUA_REGISTRYINDEX, LCSB__REG_RUN_SCOPE);
    return 1;
}

static int l_run(lua_State *L) {
    lua_getfield(L, LUA_REGISTRYINDEX, LCSB__REG_RUN);
    return 1;
}

/* Call the function in upvalue 1 with this call's arguments; an error it
 * raises is prefixed with the position of whoever called this closure. A Lua
 * function called in tail position (`return lcsb.exec_policy{...}`) has no
 * caller frame left to blame; a C closure keeps it, so this is how lcsb's Lua
 * functions name the script's line without a line hook, which slows every
 * line the interpreter runs. */
static int call_blaming_caller(lua_State *L) {
    int n = lua_gettop(L);
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_insert(L, 1);
    if (lua_pcall(L, n, LUA_MULTRET, 0) == LUA_OK) return lua_gettop(L);
    if (lua_type(L, -1) == LUA_TSTRING) {
        luaL_where(L, 1);
        lua_insert(L, -2);
        lua_concat(L, 2);
    }
    return lua_error(L);
}

/* lcsb.blame_caller(f) -> a function like F whose errors name the caller's line */
static int l_blame_caller(lua_State *L) {
    luaL_checktype(L, 1, LUA_TFUNCTION);
    lua_settop(L, 1);
    lua_pushcclosure(L, call_blaming_caller, 1);
    return 1;
}

/* ---- detect, wrap, attest ---- */

static int l_detect(lua_State *L) {
    lcsb_capability cap;
    lcsb_error err;
    if (lcsb_detect(&cap, shim_path(L), &err)) return raise_error(L, &err);
    lua_newtable(L);
    lua_pushinteger(L, cap.landlock_abi);
    lua_setfield(L, -2, "landlock_abi");
    lua_pushinteger(L, cap.landlock_abi_kernel);
    lua_setfield(L, -2, "landlock_abi_kernel");
    lua_pushboolean(L, cap.seccomp);
    lua_setfield(L, -2, "seccomp");
    lua_pushboolean(L, cap.user_namespaces);
    lua_setfield(L, -2, "user_namespaces");
    lua_pushboolean(L, cap.sandbox_exec);
    lua_setfield(L, -2, "sandbox_exec");
    lua_pushstring(L, cap.shim);
    lua_setfield(L, -2, "shim");
    lua_pushboolean(L, cap.shim_found);
    lua_setfield(L, -2, "shim_found");
    lua_pushstring(L, cap.oci_engine);
    lua_setfield(L, -2, "oci_engine");
    return 1;
}

/* A Lua list of strings as a NULL-terminated argv in a userdata the GC owns.
 * Raw access only: a metamethod could hand out strings nothing keeps alive. */
static const char **check_argv(lua_State *L, int idx, const char *what) {
    luaL_checktype(L, idx, LUA_TTABLE);
    lua_Integer n = (lua_Integer)lua_rawlen(L, idx);
    if (n < 0 || n > 1000000) luaL_argerror(L, idx, "argv too long");
    const char **argv = lua_newuserdatauv(L, ((size_t)n + 1) * sizeof *argv, 0);
    for (lua_Integer i = 1; i <= n; i++) {
        lua_rawgeti(L, idx, i);
        if (lua_type(L, -1) != LUA_TSTRING)
            luaL_error(L, "%s: entry %d is not a string", what, (int)i);
        argv[i - 1] = lua_tostring(L, -1); /* kept alive by the table at IDX */
        lua_pop(L, 1);
    }
    argv[n] = NULL;
    return argv;
}

static void push_argv(lua_State *L, char **argv) {
    lua_newtable(L);
    for (size_t i = 0; argv[i]; i++) {
        lua_pushstring(L, argv[i]);
        lua_rawseti(L, -2, (lua_Integer)i + 1);
    }
}

/* The string at WORLD[FIELD], or NULL; raises on another type. */
static const char *opt_field(lua_State *L, int world, const char *field) {
    int type = lua_getfield(L, world, field);
    if (type != LUA_TNIL && type != LUA_TSTRING)
        luaL_error(L, "oci world: %s must be a string", field);
    const char *value = lua_tostring(L, -1); /* kept alive by the world table */
    lua_pop(L, 1);
    return value;
}

/* lcsb.wrap(policy, argv [, backend [, prefix]]) -> final argv | nil, message
 * BACKEND is a name, or the world exec_policy returned second (a table with
 * image or rootfs) for the OCI backend. */
static int l_wrap(lua_State *L) {
    lua_settop(L, 4); /* check_argv pushes; the optional arguments keep their slots */
    lcsb_policy *p = lcsb__lua_checkpolicy(L, 1);
    const char **argv = check_argv(L, 2, "argv");
    bool container = lua_istable(L, 3);
    const char *name = container ? "oci" : luaL_optstring(L, 3, "auto");
    const char **prefix = lua_isnoneornil(L, 4) ? NULL : check_argv(L, 4, "prefix");
    lcsb_oci_world world = {0};
    if (container) {
        world.engine = opt_field(L, 3, "engine");
        world.image = opt_field(L, 3, "image");
        world.rootfs = opt_field(L, 3, "rootfs");
        if (lua_getfield(L, 3, "args") != LUA_TNIL)
            world.engine_args = check_argv(L, lua_gettop(L), "args");
    }
    lcsb_capability cap;
    lcsb_backend *b = NULL;
    char **final = NULL;
    lcsb_error err;
    int rc = lcsb_detect(&cap, shim_path(L), &err);
    if (!rc)
        rc = container ? lcsb_backend_oci(&cap, &world, &b, &err)
                       : lcsb_backend_select(&cap, name, &b, &err);
    if (!rc) rc = lcsb_compose(b, p, prefix, argv, &final, &err);
    lcsb_backend_free(b);
    if (rc) {
        luaL_pushfail(L);
        lua_pushstring(L, err.message);
        return 2;
    }
    push_argv(L, final);
    lcsb_argv_free(final);
    return 1;
}

/* t[NAME] = VALUE for the table on top of the stack. */
static void set_string(lua_State *L, const char *name, const char *value) {
    lua_pushstring(L, value);
    lua_setfield(L, -2, name);
}

void lcsb__lua_push_attestation(lua_State *L, const lcsb_attestation *a) {
    lua_newtable(L);
    set_string(L, "backend", a->backend);
    set_string(L, "fs", a->fs);
    set_string(L, "exec", a->exec);
    set_string(L, "net", a->net);
    if (a->net_covers[0]) {
        set_string(L, "net_covers", a->net_covers);
        set_string(L, "net_by", a->net_by);
    }
    if (strcmp(a->backend, "none") != 0) {
        if (a->abi) {
            lua_pushinteger(L, a->abi);
            lua_setfield(L, -2, "abi");
        }
        lua_pushboolean(L, a->scoped);
        lua_setfield(L, -2, "scoped");
        push_part_names(L, a->dropped);
        lua_setfield(L, -2, "dropped");
        set_string(L, "metadata", a->metadata);
        set_string(L, "protected", a->protected_paths);
    }
}

static int l_attest(lua_State *L) {
    lua_settop(L, 2);
    const char **argv = check_argv(L, 1, "argv");
    const char **prefix = lua_isnoneornil(L, 2) ? NULL : check_argv(L, 2, "prefix");
    lcsb_attestation a;
    lcsb_error err;
    if (lcsb_attest(argv, prefix, &a, &err)) {
        luaL_pushfail(L);
        lua_pushstring(L, err.message);
        return 2;
    }
    lcsb__lua_push_attestation(L, &a);
    return 1;
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
    if (lcsb_resolve_program(name, &files, &err)) {
        luaL_pushfail(L);
        lua_pushstring(L, err.message);
        return 2;
    }
    push_argv(L, files);
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

/* A placeholder directory several runs may share (the empty .git of a
 * project that is no repository): each run holds it with a shared flock for
 * as long as it runs, and the last to let go removes it. Created or found
 * empty, opened, locked, then checked to still be what PATH names: a run
 * that let go and removed it in between makes this one start over. */
typedef struct {
    int fd;
    char *path;
} hold_ud;

static bool same_file(int fd, const char *path) {
    struct stat a, b;
    return fstat(fd, &a) == 0 && lstat(path, &b) == 0 && a.st_dev == b.st_dev &&
           a.st_ino == b.st_ino;
}

static bool dir_is_empty(int fd) {
    int copy = openat(fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    DIR *d = copy >= 0 ? fdopendir(copy) : NULL;
    if (!d) {
        if (copy >= 0) close(copy);
        return false;
    }
    struct dirent *e;
    bool empty = true;
    while (empty && (e = readdir(d))) empty = !not_dots(e);
    closedir(d);
    return empty;
}

/* A shared lock on FD, waiting at most about a second: another run holds
 * it exclusively only for the moment it takes to remove the directory, so a
 * longer wait means some other process is sitting on it. */
static int lock_shared(int fd) {
    for (int waited_ms = 0;; waited_ms += 2) {
        if (flock(fd, LOCK_SH | LOCK_NB) == 0) return 0;
        if (errno != EWOULDBLOCK || waited_ms >= 1000) return -1;
        nanosleep(&(struct timespec){.tv_nsec = 2000000}, NULL);
    }
}

/* lcsb.hold(path) -> hold | nil, message, unwritable: PATH made, or taken as
 * it is when it is an empty directory, and held for this run. UNWRITABLE is
 * true when this user may not make it (then neither may a command it runs). */
static int l_hold(lua_State *L) {
    const char *path = check_path(L, 1);
    hold_ud *h = lua_newuserdatauv(L, sizeof *h, 0);
    h->fd = -1;
    h->path = NULL;
    luaL_setmetatable(L, HOLD_MT);
    const char *why = NULL;
    bool unwritable = false;
    for (int attempt = 0; attempt < 16 && !why; attempt++) {
        if (mkdir(path, 0700) != 0 && errno != EEXIST) {
            unwritable = errno == EACCES || errno == EPERM || errno == EROFS;
            why = strerror(errno);
            break;
        }
        int fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (fd < 0 && errno == ENOENT) continue; /* let go of and removed just now */
        if (fd < 0) {
            why = strerror(errno);
        } else if (lock_shared(fd) != 0) {
            why = errno == EWOULDBLOCK ? "another process has held it locked for over a second"
                                       : strerror(errno);
        } else if (!same_file(fd, path)) {
            close(fd);
            continue;
        } else if (!dir_is_empty(fd)) {
            why = strerror(ENOTEMPTY);
        } else if (!(h->path = strdup(path))) {
            close(fd);
            return luaL_error(L, "out of memory");
        } else {
            h->fd = fd;
            return 1;
        }
        if (fd >= 0) close(fd);
    }
    luaL_pushfail(L);
    lua_pushfstring(L, "%s: %s", path, why ? why : "removed by other runs as often as it was made");
    lua_pushboolean(L, unwritable);
    return 3;
}

static void hold_close(hold_ud *h) {
    if (h->fd >= 0) close(h->fd);
    h->fd = -1;
    free(h->path);
    h->path = NULL;
}

/* hold:release() -> true | nil, message: removes the directory unless another
 * run still holds it (then that run will); lets go either way. */
static int l_hold_release(lua_State *L) {
    hold_ud *h = luaL_checkudata(L, 1, HOLD_MT);
    if (h->fd < 0) {
        lua_pushboolean(L, 1);
        return 1;
    }
    int rc = 0;
    if (flock(h->fd, LOCK_EX | LOCK_NB) == 0 && same_file(h->fd, h->path)) rc = rmdir(h->path);
    int saved = errno;
    lua_pushstring(L, h->path);
    hold_close(h);
    errno = saved;
    return push_outcome(L, rc, lua_tostring(L, -1));
}

static int l_hold_gc(lua_State *L) {
    hold_close(luaL_checkudata(L, 1, HOLD_MT));
    return 0;
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
    if (lcsb__path_normalize("path", path, out, &err)) {
        luaL_pushfail(L);
        lua_pushstring(L, err.message);
        return 2;
    }
    lua_pushstring(L, out);
    return 1;
}

static const luaL_Reg policy_methods[] = {
    {"table", l_policy_table},
    {NULL, NULL},
};

static const luaL_Reg policy_meta[] = {
    {"__gc", l_policy_gc},
    {"__tostring", l_policy_tostring},
    {NULL, NULL},
};

static const luaL_Reg hold_methods[] = {{"release", l_hold_release}, {NULL, NULL}};
static const luaL_Reg hold_meta[] = {{"__gc", l_hold_gc}, {"__close", l_hold_gc}, {NULL, NULL}};

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

static const luaL_Reg functions[] = {
    {"policy", l_policy},       {"scope", l_scope},
    {"run_scope", l_run_scope}, {"run", l_run},
    {"detect", l_detect},       {"wrap", l_wrap},
    {"attest", l_attest},       {"which", l_which},
    {"kind", l_kind},           {"realpath", l_realpath},
    {"normalize", l_normalize}, {"ttys", l_ttys},
    {"listdir", l_listdir},     {"blame_caller", l_blame_caller},
    {"mkdir", l_mkdir},         {"rmdir", l_rmdir},
    {"hold", l_hold},           {NULL, NULL},
};

static void new_class(lua_State *L, const char *name, const luaL_Reg *meta,
                      const luaL_Reg *methods) {
    luaL_newmetatable(L, name);
    luaL_setfuncs(L, meta, 0);
    lua_newtable(L);
    luaL_setfuncs(L, methods, 0);
    lua_setfield(L, -2, "__index");
    lua_pop(L, 1);
}

LCSB_API int luaopen_lcsb(lua_State *L) {
    new_class(L, POLICY_MT, policy_meta, policy_methods);
    new_class(L, SCOPE_MT, scope_meta, scope_methods);
    new_class(L, HOLD_MT, hold_meta, hold_methods);
    luaL_newlib(L, functions);
    lua_pushliteral(L, LCSB_VERSION);
    lua_setfield(L, -2, "version");
    return 1;
}

/* The name stock Lua's C searcher looks for when the module is installed as
 * lcsb/core.so beside lua/lcsb/init.lua. */
LCSB_API int luaopen_lcsb_core(lua_State *L) { return luaopen_lcsb(L); }
