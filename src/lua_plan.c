/* core.plan_find and core.plan_save: a composition's plain data kept as a
 * plan (plan.c), in the bytes lua_data.c makes of it, with the record of
 * what the state's facts marked while it composed. */
#include "lua_plan.h"

#include "lua_data.h"
#include "lua_facts.h"
#include "lua_loads.h"
#include "lua_stock.h"
#include "lua_util.h"
#include "plan.h"
#include "sha256.h"
#include "sys.h"
#include "trust.h"

#include <errno.h>
#include <fcntl.h>
#include <lauxlib.h>
#include <limits.h>
#include <lua.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#ifdef __linux__
#include <linux/capability.h>
#include <sys/syscall.h>
#endif

/* KEY (LEN bytes) and which script asks (lcsb__loads_identity: the files
 * it read, counted now AT_FIND, else as many as then) into OUT: what a plan
 * is found and kept by. */
static void full_key(lua_State *L, const char *key, size_t len, bool at_find, lcsb__buf *out) {
    lcsb__buf_add(out, key, len);
    lcsb__buf_add(out, "\0script\0", 8);
    lcsb__loads_identity(L, at_find, out);
}

/* Lua's collector held still while lcsb walks tables a script can reach
 * (lua_data.c, lua_stock.c): a finalizer a collection would run could
 * change them under the walk. Returns whether it ran, for gc_resume. Only
 * running out of memory raises in between, which leaves it held, and ends
 * the script anyway; an emergency collection still runs, and clears no
 * table the walks take (a weak one is no data). */
static int gc_hold(lua_State *L) {
    int running = lua_gc(L, LUA_GCISRUNNING);
    if (running) lua_gc(L, LUA_GCSTOP);
    return running;
}

static void gc_resume(lua_State *L, int was_running) {
    if (was_running) lua_gc(L, LUA_GCRESTART);
}

/* Is this lcsb trust? What a composition reads (a .python-version) is held
 * to the trust: lcsb trust must see it read, so it takes no plan; and it
 * keeps none, as it never asked which files the script read (the plan's
 * key would name none). */
static bool trusting(lua_State *L) {
    bool yes = lua_getfield(L, LUA_REGISTRYINDEX, LCSB__REG_TRUSTING) == LUA_TBOOLEAN &&
               lua_toboolean(L, -1);
    lua_pop(L, 1);
    return yes;
}

/* lcsb.core.plan_find(key) -> data | nil, why: the plan kept for KEY, as
 * this script asks, while what it rests on holds. */
static int l_plan_find(lua_State *L) {
    size_t len, n;
    const char *bytes = luaL_checklstring(L, 1, &len);
    char *data, why[PATH_MAX + 256];
    if (trusting(L)) {
        luaL_pushfail(L);
        lua_pushliteral(L, "lcsb trust composes afresh");
        return 2;
    }
    /* Nothing from here to its free can raise. */
    lcsb__buf key = {0};
    full_key(L, bytes, len, true, &key);
    int found = key.oom ? (snprintf(why, sizeof why, "out of memory"), 1)
                        : lcsb__plan_find(key.p, key.len, &data, &n, why, sizeof why);
    lcsb__buf_free(&key);
    if (found != 0) {
        luaL_pushfail(L);
        lua_pushstring(L, why);
        return 2;
    }
    /* Lua's own before anything can raise. */
    lua_pushlstring(L, data, n);
    free(data);
    if (!lcsb__lua_data_decode(L, lua_tostring(L, -1), n)) {
        luaL_pushfail(L);
        lua_pushliteral(L, "a damaged plan");
        return 2;
    }
    return 1;
}

/* lcsb.core.plan_save(key, data, areas) -> true | nil, why: DATA kept as
 * the plan for KEY, with what the composition now running asked (the facts
 * lcsb.core.compose_begin made active), AREAS (a list of paths) being where
 * the command may write. */
static int l_plan_save(lua_State *L) {
    size_t key_len;
    const char *key = luaL_checklstring(L, 1, &key_len);
    luaL_checktype(L, 3, LUA_TTABLE);
    lcsb__facts *facts = lcsb__lua_facts(L);
    if (!facts) return luaL_error(L, "plan_save: no composition is running");
    if (trusting(L)) {
        luaL_pushfail(L);
        lua_pushliteral(L, "lcsb trust keeps none");
        return 2;
    }
    lua_Integer n = luaL_len(L, 3);
    if (n < 0 || n > 4096) return luaL_argerror(L, 3, "a list of at most 4096 paths");
    /* The strings stay alive in the table at 3 while this runs. */
    const char **areas = lua_newuserdatauv(L, (size_t)(n + 1) * sizeof *areas, 0);
    for (lua_Integer i = 1; i <= n; i++) {
        lua_rawgeti(L, 3, i);
        if (lua_type(L, -1) != LUA_TSTRING) return luaL_argerror(L, 3, "paths must be strings");
        areas[i - 1] = lua_tostring(L, -1);
        lua_pop(L, 1);
    }
    lcsb__buf data = {0}, full = {0};
    char why[PATH_MAX + 256];
    full_key(L, key, key_len, false, &full);
    int running = gc_hold(L);
    const char *not_data = lcsb__lua_data_encode(L, 2, &data);
    gc_resume(L, running);
    int rc = not_data ? 1 : data.oom || full.oom ? 2 : 0;
    if (!rc)
        rc = lcsb__plan_save(full.p, full.len, facts, lcsb__facts_since(facts), areas, (size_t)n,
                             data.p, data.len, why, sizeof why);
    lcsb__buf_free(&data);
    lcsb__buf_free(&full);
    if (rc == 2) return luaL_error(L, "out of memory");
    if (rc) {
        luaL_pushfail(L);
        lua_pushstring(L, not_data ? not_data : why);
        return 2;
    }
    lua_pushboolean(L, 1);
    return 1;
}

/* lcsb.core.build_id() -> which build of lcsb this is: its version and the
 * file its code was loaded from (device, inode, size, times), so that a
 * plan an older or newer lcsb made is no plan of this one's. */
static int l_build_id(lua_State *L) {
    char self[PATH_MAX];
    struct stat st;
    if (!lcsb__self_path(self) || stat(self, &st) != 0) {
        luaL_pushfail(L);
        return 1;
    }
    lua_pushfstring(L, "%s %s %I:%I:%I:%I.%I:%I.%I", LCSB_VERSION, self, (lua_Integer)st.st_dev,
                    (lua_Integer)st.st_ino, (lua_Integer)st.st_size, (lua_Integer)st.st_mtim.tv_sec,
                    (lua_Integer)st.st_mtim.tv_nsec, (lua_Integer)st.st_ctim.tv_sec,
                    (lua_Integer)st.st_ctim.tv_nsec);
    return 1;
}

static int by_gid(const void *a, const void *b) {
    gid_t x = *(const gid_t *)a, y = *(const gid_t *)b;
    return (x > y) - (x < y);
}

#ifdef __linux__
/* The digest of this process's mount table into DIGEST: 0, or -1. */
static int mounts_digest(char digest[LCSB__SHA256_HEX]) {
    char *text;
    size_t len;
    int fd = open("/proc/self/mountinfo", O_RDONLY | O_CLOEXEC);
    if (fd < 0) return -1;
    int rc = lcsb__read_regular_fd(fd, LCSB__TRUST_FILE_MAX, &text, &len, NULL);
    close(fd);
    if (rc) return -1;
    lcsb__sha256_of(text, len, digest);
    free(text);
    return 0;
}
#endif

/* lcsb.core.plan_host() -> text | nil, why: what a composition's answers
 * rest on that is this process's, not the files': who asks (real and
 * effective user and group, the supplementary groups, the effective
 * capabilities: what access(2) and open(2) allow it), and the mounts it
 * sees (a remount noexec, a file bound over another's name: no directory's
 * times show either). For a plan's key. */
static int l_plan_host(lua_State *L) {
    gid_t few[64], *groups = few;
    int n = getgroups(64, few);
    if (n < 0 && errno == EINVAL && (n = getgroups(0, NULL)) >= 0 &&
        (groups = lua_newuserdatauv(L, ((size_t)n + 1) * sizeof *groups, 0)))
        n = getgroups(n, groups);
    if (n < 0) return lcsb__lua_fail(L, "cannot read this process's groups");
    qsort(groups, (size_t)n, sizeof *groups, by_gid);
    int caps[2] = {0, 0};
    char digest[LCSB__SHA256_HEX] = "";
#ifdef __linux__
    struct __user_cap_header_struct head = {.version = _LINUX_CAPABILITY_VERSION_3};
    struct __user_cap_data_struct data[2] = {{0}};
    if (syscall(SYS_capget, &head, data) != 0 || mounts_digest(digest) != 0)
        return lcsb__lua_fail(L, "cannot read this process's capabilities or mounts");
    caps[0] = (int)data[0].effective;
    caps[1] = (int)data[1].effective;
#endif
    uid_t ruid, euid, suid;
    gid_t rgid, egid, sgid;
    if (getresuid(&ruid, &euid, &suid) != 0 || getresgid(&rgid, &egid, &sgid) != 0)
        return lcsb__lua_fail(L, "cannot read this process's user and group");
    luaL_Buffer b;
    luaL_buffinit(L, &b);
    lua_pushfstring(L, "uid %d %d gid %d %d caps %d %d groups", (int)ruid, (int)euid, (int)rgid,
                    (int)egid, caps[0], caps[1]);
    luaL_addvalue(&b);
    for (int i = 0; i < n; i++) {
        lua_pushfstring(L, " %d", (int)groups[i]);
        luaL_addvalue(&b);
    }
    lua_pushfstring(L, " mounts %s", digest);
    luaL_addvalue(&b);
    luaL_pushresult(&b);
    return 1;
}

/* BODY (one of the four below) run with Lua's collector held still (see
 * gc_hold): none of the script's finalizers runs while lcsb reads the
 * script's tables. BODY leaves its answer pushed, or returns why there is
 * none: then nil, why. */
static int held(lua_State *L, const char *(*body)(lua_State *L)) {
    int running = gc_hold(L);
    int top = lua_gettop(L);
    const char *why = body(L);
    gc_resume(L, running);
    if (!why) return lua_gettop(L) - top;
    luaL_pushfail(L);
    lua_pushstring(L, why);
    return 2;
}

/* The bytes in OUT pushed, or why not. */
static const char *pushed(lua_State *L, lcsb__buf *out, const char *why) {
    if (!why && out->oom) why = "out of memory";
    if (!why) lua_pushlstring(L, out->p, out->len);
    lcsb__buf_free(out);
    return why;
}

/* lcsb.core.plan_key(value, mark) -> bytes | nil, why: VALUE (plain data)
 * in the one form equal data has, tables with the metatable MARK marked as
 * such: what a plan is found by. */
static const char *plan_key(lua_State *L) {
    lcsb__buf key = {0};
    return pushed(L, &key, lcsb__lua_data_encode_sorted(L, 1, lua_istable(L, 2) ? 2 : 0, &key));
}

static int l_plan_key(lua_State *L) {
    luaL_checkany(L, 1);
    return held(L, plan_key);
}

/* Where the names of lcsb's functions are kept (function -> name), once
 * a state was first written out. */
#define NAMES_KEY "lcsb.plan_names"

/* Where each of lcsb's functions was met in them (path -> function). */
#define PLACES_KEY "lcsb.plan_places"

/* The names of lcsb's functions pushed, named where each was first met in
 * the copies of what plan_stock kept (lua_stock.h): by where it was when
 * lcsb's modules loaded, whatever a script did with it since; then the
 * places each was met. NULL, or why not, with nothing pushed. */
static const char *push_names(lua_State *L) {
    if (lua_getfield(L, LUA_REGISTRYINDEX, NAMES_KEY) == LUA_TTABLE) {
        lua_getfield(L, LUA_REGISTRYINDEX, PLACES_KEY);
        return NULL;
    }
    lua_pop(L, 1);
    if (!lcsb__lua_stock_copies(L)) return "lcsb's functions were never named";
    int copies = lua_gettop(L), names = copies + 1, places = copies + 2;
    lua_newtable(L);
    lua_newtable(L);
    const char *why = NULL;
    for (lua_Integer i = 1; !why && lua_rawgeti(L, copies, i) == LUA_TTABLE; i++) {
        why = lcsb__lua_data_name_functions(L, -1, names, places);
        lua_pop(L, 1);
    }
    lua_settop(L, places);
    lua_remove(L, copies);
    if (why) {
        lua_pop(L, 2);
        return why;
    }
    lua_pushvalue(L, -2);
    lua_setfield(L, LUA_REGISTRYINDEX, NAMES_KEY);
    lua_pushvalue(L, -1);
    lua_setfield(L, LUA_REGISTRYINDEX, PLACES_KEY);
    return NULL;
}

/* The roots at 1 named, as a state written out before named the others. */
static const char *name_roots(lua_State *L) {
    lua_getfield(L, LUA_REGISTRYINDEX, NAMES_KEY);
    lua_getfield(L, LUA_REGISTRYINDEX, PLACES_KEY);
    const char *why = lcsb__lua_data_name_functions(L, 1, -2, -1);
    lua_settop(L, 1);
    return why;
}

/* lcsb.core.plan_stock(roots) -> which: ROOTS (lcsb's modules, as they
 * are loaded) kept as they are now, for plan_unchanged (the record WHICH),
 * and for plan_state to name their functions by. Keeping makes no Lua
 * object as it walks (lua_stock.h): the collector is held only to name
 * them, which only a run that wrote a state out before asks. */
static int l_plan_stock(lua_State *L) {
    luaL_checktype(L, 1, LUA_TTABLE);
    lua_settop(L, 1);
    const char *why = lcsb__lua_stock_keep(L, 1);
    if (why) return luaL_error(L, "plan_stock: %s", why);
    bool named = lua_getfield(L, LUA_REGISTRYINDEX, NAMES_KEY) == LUA_TTABLE;
    lua_pop(L, 1);
    if (named && held(L, name_roots)) return luaL_error(L, "plan_stock: %s", lua_tostring(L, -1));
    lua_pushinteger(L, lcsb__lua_stock_count(L));
    return 1;
}

/* lcsb.core.plan_unchanged(roots[, which]) -> boolean: is ROOTS what
 * plan_stock kept (its first record, or the record WHICH)? Then their
 * state is the one this build loads. Only reads (lua_stock.h): no
 * collection can start in it, and the collector is left as it is. */
static int l_plan_unchanged(lua_State *L) {
    luaL_checktype(L, 1, LUA_TTABLE);
    lua_pushboolean(L, lcsb__lua_stock_same(L, 1, luaL_optinteger(L, 2, 1)));
    return 1;
}

/* lcsb.core.plan_state(roots) -> bytes | nil, why: the state of ROOTS
 * (lcsb's modules as a policy script left them), in the one form equal
 * state has; nil when a function the script made is among them, or one
 * of lcsb's where the modules had another (lcsb's own code would call it,
 * the plan's keeping among that code), or no names were given. */
static const char *plan_state(lua_State *L) {
    const char *why = push_names(L);
    if (why) return why;
    lcsb__buf state = {0};
    why = lcsb__lua_data_encode_state(L, 1, -2, -1, &state);
    lua_pop(L, 2); /* the names and places */
    return pushed(L, &state, why);
}

static int l_plan_state(lua_State *L) {
    luaL_checktype(L, 1, LUA_TTABLE);
    lua_settop(L, 1);
    return held(L, plan_state);
}

/* lcsb.core.plan_metatables() -> { string =, file =, G = }: the
 * metatables of strings, of files and of the globals as they are, not
 * what getmetatable says of them (a __metatable field hides one). */
static int l_plan_metatables(lua_State *L) {
    lua_createtable(L, 0, 3);
    lua_pushliteral(L, "");
    if (lua_getmetatable(L, -1)) lua_setfield(L, -3, "string");
    lua_pop(L, 1);
    if (luaL_getmetatable(L, LUA_FILEHANDLE) == LUA_TTABLE)
        lua_setfield(L, -2, "file");
    else
        lua_pop(L, 1);
    lua_pushglobaltable(L);
    if (lua_getmetatable(L, -1)) lua_setfield(L, -3, "G");
    lua_pop(L, 1);
    return 1;
}

const luaL_Reg lcsb__lua_plan_functions[] = {
    {"plan_stock", l_plan_stock},
    {"plan_state", l_plan_state},
    {"plan_unchanged", l_plan_unchanged},
    {"plan_metatables", l_plan_metatables},
    {"build_id", l_build_id},
    {"plan_host", l_plan_host},
    {"plan_key", l_plan_key},
    {"plan_find", l_plan_find},
    {"plan_save", l_plan_save},
    {NULL, NULL},
};
