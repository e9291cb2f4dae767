/* Layer 7: the Lua binding's shared helpers (lua_util.c). */
#ifndef LCSB_LUA_UTIL_H
#define LCSB_LUA_UTIL_H

#include "fields.h"

#include <lauxlib.h>
#include <lua.h>

int lcsb__lua_raise(lua_State *L, const lcsb_error *err);
/* The path at IDX, refused (raised) when it holds a NUL byte. */
const char *lcsb__lua_check_path(lua_State *L, int idx);
/* An expected operational failure: pushes nil, MESSAGE; returns 2. */
int lcsb__lua_fail(lua_State *L, const char *message);
/* true when RC is 0, else nil and ERR's message. */
int lcsb__lua_outcome(lua_State *L, int rc, const lcsb_error *err);
void lcsb__lua_push_argv(lua_State *L, char **argv);
/* A file's identity, "DEV:INO", as lua_pushfstring's "%I:%I" would say it
 * (a few hundred instructions rather than two snprintf calls: a
 * composition asks it of every file it looks at). */
void lcsb__lua_push_identity(lua_State *L, lua_Integer dev, lua_Integer ino);
/* BITS as the list of their NAMES (bit I is NAMES[I]). */
void lcsb__lua_push_bits(lua_State *L, const char *const *names, unsigned bits);
/* OBJECT as a table of its FIELDS, as its JSON says it. */
void lcsb__lua_push_fields(lua_State *L, const lcsb__field *fields, const void *object);
void lcsb__lua_push_attestation(lua_State *L, const lcsb_attestation *a);
/* A run's result into the table on top of the stack: status, note,
 * setup_failed, stderr (when any was kept) and attestation. */
void lcsb__lua_set_run_result(lua_State *L, const lcsb_run_result *result);
/* A metatable NAME with META and, as __index, METHODS; getmetatable of an
 * object of it gives NAME, and setmetatable refuses it. */
void lcsb__lua_new_class(lua_State *L, const char *name, const luaL_Reg *meta,
                         const luaL_Reg *methods);

/* The string keys of the table at T, sorted (so that the same policy gives
 * the same argv whatever Lua's hash order), in an array the GC owns, left
 * on the stack; their strings are kept alive by the table. *N gets the
 * count; WHAT names the policy key in an error. */
const char **lcsb__lua_sorted_names(lua_State *L, int t, const char *what, size_t *n);
/* The string at the top, entry I of the policy key KEY's list: a string
 * without a NUL byte, or an error naming KIND ("a name"), what it must be.
 * Left on the stack. */
const char *lcsb__lua_list_entry(lua_State *L, const char *key, lua_Integer i, const char *kind);
/* Each name in the list at T (the policy key WHAT), given to ADD (pass),
 * or unset from P's env (ADD NULL). */
void lcsb__lua_add_names(lua_State *L, lcsb_policy *p, int t, const char *what,
                         int (*add)(lcsb_policy *, const char *, lcsb_error *));

/* What a Lua state may allocate, and has: the ud of lcsb__lua_capped_alloc,
 * which may start a caller's struct. */
typedef struct lcsb__lua_memory {
    size_t used;
    size_t max;
} lcsb__lua_memory;
/* Lua's allocator with a ceiling (UD an lcsb__lua_memory): past it Lua
 * gets a memory error, and lcsb a message, instead of the OOM killer. */
void *lcsb__lua_capped_alloc(void *ud, void *ptr, size_t old_size, size_t new_size);

#endif
