/* The Lua binding: `require "lcsb.core"` (luaopen_lcsb), wrapped by
 * lua/lcsb/init.lua. This file is the module itself and what it asks of the
 * layers below (detect and the shim it uses, wrap, attest); the policy is
 * lua_policy.c, the host helpers lua_host.c, what they share lua_util.c.
 * Misuse raises naming the argument or key; expected operational failures
 * return nil, message. Nothing here raises while holding memory that no
 * userdata owns. */
#include "lua_lcsb.h"

#include "caps.h"
#include "detect.h"
#include "installed.h"
#include "lua_host.h"
#include "lua_loads.h"
#include "lua_plan.h"
#include "lua_policy.h"
#include "lua_util.h"
#include "sys.h"
#include "trust.h"

#include <lauxlib.h>
#include <limits.h>
#include <lua.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *shim_path(lua_State *L) {
    lua_getfield(L, LUA_REGISTRYINDEX, LCSB__REG_SHIM);
    const char *shim = lua_tostring(L, -1); /* kept alive by the registry */
    lua_pop(L, 1);
    return shim;
}

/* lcsb.set_shim(path) -> true | nil, message: the lcsb-exec that detect and
 * wrap use from now on in this Lua state, for a stock Lua program whose
 * module finds none by itself; nil goes back to looking (installed.c). A
 * policy script runs with the shim its host chose, and may not change it. */
static int l_set_shim(lua_State *L) {
    lua_getfield(L, LUA_REGISTRYINDEX, LCSB__REG_RUN);
    bool in_run = !lua_isnil(L, -1);
    lua_pop(L, 1);
    if (in_run) return luaL_error(L, "lcsb.set_shim: a policy script runs with its host's shim");
    size_t len = 0;
    const char *path = lua_isnoneornil(L, 1) ? NULL : luaL_checklstring(L, 1, &len);
    if (path && (path[0] != '/' || strlen(path) != len || len >= PATH_MAX))
        return luaL_argerror(L, 1, "an absolute path");
    if (path && !lcsb__installed_executable(path))
        return lcsb__lua_fail(L, lua_pushfstring(L, "%s: no executable file", path));
    lua_settop(L, 1);
    lua_setfield(L, LUA_REGISTRYINDEX, LCSB__REG_SHIM);
    lua_pushboolean(L, 1);
    return 1;
}

/* ---- the run lcsb_script_open runs a script for ---- */

/* The scope and the context (argv, cwd, env) of the run lcsb_script_open is
 * making a policy for; nil in a plain Lua program. */
static int l_run_scope(lua_State *L) {
    lua_getfield(L, LUA_REGISTRYINDEX, LCSB__REG_RUN_SCOPE);
    return 1;
}

/* The table at IDX (a list or a map of strings, no metatable: the
 * registry's own) copied, pushed. */
static void push_copy(lua_State *L, int idx) {
    lua_newtable(L);
    for (lua_pushnil(L); lua_next(L, idx);) {
        lua_pushvalue(L, -2);
        lua_insert(L, -2);
        lua_rawset(L, -4);
    }
}

/* A copy of the context each time it is asked: the script's function gets
 * a table of its own too, and what a script does to either (a metatable
 * that answers cwd one way, then another) is not what lcsb reads: the
 * plan's key and the composition read one answer. */
static int l_run(lua_State *L) {
    if (lua_getfield(L, LUA_REGISTRYINDEX, LCSB__REG_RUN) != LUA_TTABLE) return 1;
    int context = lua_gettop(L);
    lua_newtable(L);
    static const char *const fields[] = {"argv", "cwd", "env"};
    for (size_t i = 0; i < sizeof fields / sizeof *fields; i++) {
        lua_pushstring(L, fields[i]);
        if (lua_rawget(L, context) == LUA_TTABLE) {
            push_copy(L, lua_gettop(L));
            lua_remove(L, -2);
        }
        lua_setfield(L, -2, fields[i]);
    }
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

/* lcsb.core.world_capable() -> can this host give a command a world of its
 * own (Landlock and a user namespace)? The kernel's part of detect alone:
 * exec_policy asks it while composing, on every run. */
static int l_world_capable(lua_State *L) {
    lcsb_capability cap;
    lcsb_error err;
    if (lcsb__detect(&cap, NULL, 0, &err)) return lcsb__lua_raise(L, &err);
    lua_pushboolean(L, cap.landlock_abi > 0 && cap.user_namespaces);
    return 1;
}

static int l_detect(lua_State *L) {
    lcsb_capability cap;
    lcsb_error err;
    if (lcsb_detect(&cap, shim_path(L), &err)) return lcsb__lua_raise(L, &err);
    lcsb__lua_push_fields(L, lcsb__capability_fields, &cap);
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

/* The string at WORLD[FIELD] (read raw), or NULL; raises on another type. */
static const char *opt_field(lua_State *L, int world, const char *field) {
    lua_pushstring(L, field);
    int type = lua_rawget(L, world);
    if (type != LUA_TNIL && type != LUA_TSTRING)
        luaL_error(L, "oci world: %s must be a string", field);
    const char *value = lua_tostring(L, -1); /* kept alive by the world table */
    lua_pop(L, 1);
    return value;
}

/* lcsb.wrap(policy, argv [, backend [, prefix]]) -> final argv | nil, message
 * POLICY is an lcsb.policy or exec_policy's result. BACKEND is a name, or a
 * container's world (a table with image or rootfs) for the OCI backend;
 * "oci" with a result takes the world the result names. An explicit nil
 * backend is a mistake (exec_policy's world is result.oci, not a second
 * value), never a quiet "auto". */
static int l_wrap(lua_State *L) {
    if (lua_gettop(L) >= 3 && lua_isnil(L, 3))
        return luaL_argerror(L, 3,
                             "a backend name or a container world, not nil (exec_policy's world "
                             "is result.oci)");
    lua_settop(L, 4); /* check_argv pushes; the optional arguments keep their slots */
    const char *name = lua_istable(L, 3) ? "oci" : luaL_optstring(L, 3, "auto");
    if (strcmp(name, "oci") == 0 && !lua_istable(L, 3) && lua_istable(L, 1)) {
        lua_pushliteral(L, "oci");
        lua_rawget(L, 1);
        lua_replace(L, 3); /* nil when the result names no world */
    }
    lcsb__lua_policy_slot(L, 1);
    const char **argv = check_argv(L, 2, "argv");
    const char **prefix = lua_isnoneornil(L, 4) ? NULL : check_argv(L, 4, "prefix");
    bool container = lua_istable(L, 3);
    lcsb_oci_world world = {0};
    if (container) {
        world.engine = opt_field(L, 3, "engine");
        world.image = opt_field(L, 3, "image");
        world.rootfs = opt_field(L, 3, "rootfs");
        lua_pushliteral(L, "args");
        if (lua_rawget(L, 3) != LUA_TNIL) world.engine_args = check_argv(L, lua_gettop(L), "args");
    }
    /* Last: nothing below runs Lua code that could free it. */
    lcsb_policy *p = lcsb__lua_checkpolicy(L, 1);
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
    if (rc) return lcsb__lua_fail(L, err.message);
    lcsb__lua_push_argv(L, final);
    lcsb_argv_free(final);
    return 1;
}

/* lcsb.core.execute(policy, argv [, backend [, options]]) -> result | nil,
 * message: lcsb_run under BACKEND (a name, "auto" by default), the
 * command's stderr relayed and its tail kept, what the sandbox refused
 * recorded unless OPTIONS.record is false. RESULT: status, note,
 * setup_failed, stderr (the tail), attestation (with refused). No trailer:
 * the host says what it wants to. lcsb.execute adds the hints. */
static int l_execute(lua_State *L) {
    lua_settop(L, 4);
    const char *name = luaL_optstring(L, 3, "auto");
    lcsb_run_options opts;
    lcsb_run_options_init(&opts);
    opts.capture_stderr = true;
    opts.trailer_fd = -1;
    if (!lua_isnil(L, 4)) {
        luaL_checktype(L, 4, LUA_TTABLE);
        lua_getfield(L, 4, "record");
        opts.record_refusals = lua_isnil(L, -1) || lua_toboolean(L, -1);
        lua_getfield(L, 4, "capture");
        opts.capture_stderr = lua_isnil(L, -1) || lua_toboolean(L, -1);
        lua_pop(L, 2);
    }
    lcsb__lua_policy_slot(L, 1);
    const char **argv = check_argv(L, 2, "argv");
    if (!argv[0]) return luaL_argerror(L, 2, "no command");
    lcsb_policy *p = lcsb__lua_checkpolicy(L, 1);
    lcsb_capability cap;
    lcsb_backend *b = NULL;
    lcsb_error err;
    lcsb_run_result *result = lua_newuserdatauv(L, sizeof *result, 0);
    int rc = lcsb_detect(&cap, shim_path(L), &err);
    if (!rc) rc = lcsb_backend_select(&cap, name, &b, &err);
    if (!rc) rc = lcsb_run(b, p, argv, &opts, result, &err);
    lcsb_backend_free(b);
    if (rc) return lcsb__lua_fail(L, err.message);
    lua_createtable(L, 0, 5);
    lcsb__lua_set_run_result(L, result);
    return 1;
}

static int l_attest(lua_State *L) {
    lua_settop(L, 2);
    const char **argv = check_argv(L, 1, "argv");
    const char **prefix = lua_isnoneornil(L, 2) ? NULL : check_argv(L, 2, "prefix");
    lcsb_attestation a;
    lcsb_error err;
    if (lcsb_attest(argv, prefix, &a, &err)) return lcsb__lua_fail(L, err.message);
    lcsb__lua_push_attestation(L, &a);
    return 1;
}

/* lcsb.escape(text) -> TEXT as it may be shown on a terminal: control bytes
 * and what is not UTF-8 as \xHH, CR and LF as \r and \n (lcsb_escape) */
static int l_escape(lua_State *L) {
    size_t len;
    const char *text = luaL_checklstring(L, 1, &len);
    size_t need = lcsb_escape(NULL, 0, text, len);
    luaL_Buffer b;
    char *out = luaL_buffinitsize(L, &b, need + 1);
    lcsb_escape(out, need + 1, text, len);
    luaL_pushresultsize(&b, need);
    return 1;
}

/* lcsb.trusted(path) -> "recorded" or "location" when the policy script at
 * PATH, and every file recorded with it, is as the user trusted it (lcsb
 * trust); nil, why (naming `lcsb trust`) otherwise. A host that runs the
 * script itself should ask first; lcsb_script_open asks on its own, and
 * holds what the script reads to the record as it runs. */
static int l_trusted(lua_State *L) {
    const char *path = luaL_checkstring(L, 1);
    const char *how;
    lcsb_error err;
    if (lcsb__trust_verify(path, &how, &err)) return lcsb__lua_fail(L, err.message);
    lua_pushstring(L, how);
    return 1;
}

/* lcsb.core.own_files() -> the paths of lcsb's own files and directories,
 * for the hints never to offer: what the caps keep from every project
 * (caps.c: the shim and the recorder, the directory of lcsb's Lua files,
 * the caps files' directories, the trust store), the library's own file
 * (the lcsb program, liblcsb.so or core.so), and the shim this state uses
 * with the recorder beside it. The running program is lcsb's only when
 * the library is linked into it: a host's (lua5.4, python3) is not. */
static int l_own_files(lua_State *L) {
    lcsb__caps_places *places = lua_newuserdatauv(L, sizeof *places, 0);
    char dir[PATH_MAX], self[PATH_MAX], exe[PATH_MAX], recorder[PATH_MAX];
    lcsb_error err;
    lua_getfield(L, LUA_REGISTRYINDEX, LCSB__REG_LUA_DIR);
    const char *lua_dir = lua_tostring(L, -1); /* kept alive by the registry */
    lua_pop(L, 1);
    if (!lua_dir && lcsb__installed_lua_dir(dir, &err) == 0) lua_dir = dir;
    lcsb__caps_places_find(places, lua_dir, NULL, NULL);
    bool have_self = lcsb__self_path(self);
    bool host = realpath("/proc/self/exe", exe) && !(have_self && strcmp(exe, self) == 0);
    lua_createtable(L, (int)places->own_n + 3, 0);
    lua_Integer n = 0;
    for (size_t i = 0; i < places->own_n; i++) {
        if (host && strcmp(places->own[i], exe) == 0) continue;
        lua_pushstring(L, places->own[i]);
        lua_rawseti(L, -2, ++n);
    }
    if (have_self) {
        lua_pushstring(L, self);
        lua_rawseti(L, -2, ++n);
    }
    const char *shim = shim_path(L);
    const char *slash = shim ? strrchr(shim, '/') : NULL;
    if (slash) {
        lua_pushstring(L, shim);
        lua_rawseti(L, -2, ++n);
        if (snprintf(recorder, sizeof recorder, "%.*s/liblcsb-record.so", (int)(slash - shim),
                     shim) < (int)sizeof recorder) {
            lua_pushstring(L, recorder);
            lua_rawseti(L, -2, ++n);
        }
    }
    return 1;
}

static const luaL_Reg functions[] = {
    {"policy", lcsb__lua_policy},
    {"run_scope", l_run_scope},
    {"run", l_run},
    {"detect", l_detect},
    {"world_capable", l_world_capable},
    {"set_shim", l_set_shim},
    {"wrap", l_wrap},
    {"attest", l_attest},
    {"execute", l_execute},
    {"blame_caller", l_blame_caller},
    {"escape", l_escape},
    {"trusted", l_trusted},
    {"own_files", l_own_files},
    {NULL, NULL},
};

LCSB_API int luaopen_lcsb(lua_State *L) {
    lcsb__lua_policy_class(L);
    luaL_newlib(L, functions);
    lcsb__lua_host_register(L);
    luaL_setfuncs(L, lcsb__lua_plan_functions, 0);
    luaL_setfuncs(L, lcsb__lua_loads_functions, 0);
    lua_pushliteral(L, LCSB_VERSION);
    lua_setfield(L, -2, "version");
    /* The exit statuses (docs/policy.md), by name. */
    lua_createtable(L, 0, 4);
    static const struct {
        const char *name;
        int status;
    } statuses[] = {{"setup", LCSB_EXIT_SETUP},
                    {"usage", LCSB_EXIT_USAGE},
                    {"noexec", LCSB_EXIT_NOEXEC},
                    {"notfound", LCSB_EXIT_NOTFOUND}};
    for (size_t i = 0; i < sizeof statuses / sizeof statuses[0]; i++) {
        lua_pushinteger(L, statuses[i].status);
        lua_setfield(L, -2, statuses[i].name);
    }
    lua_setfield(L, -2, "exit");
    return 1;
}

/* The name stock Lua's C searcher looks for when the module is installed as
 * lcsb/core.so beside lua/lcsb/init.lua. */
LCSB_API int luaopen_lcsb_core(lua_State *L) { return luaopen_lcsb(L); }
