/* Layer 7, pure: plain Lua data as bytes and back, for a plan (plan.h):
 * tables of strings, numbers, booleans and tables again, keyed by strings
 * and numbers. The bytes are read as if anyone wrote them: every length is
 * checked against what is left, and nesting is bounded. */
#ifndef LCSB_LUA_DATA_H
#define LCSB_LUA_DATA_H

#include "util.h"

#include <lua.h>

/* Every walk below reads tables a script can reach: its caller holds Lua's
 * collector still (lua_plan.c), or a finalizer of the script's could change
 * them under it.
 *
 * The value at IDX appended to OUT: NULL, or why it is no plain data (a
 * function, a userdata, a table met twice on the way down, nesting past
 * 64). Never raises; OUT->oom says when memory ran out. */
const char *lcsb__lua_data_encode(lua_State *L, int idx, lcsb__buf *out);

/* The same, with each table's pairs sorted by key (numbers, then strings),
 * so that equal data makes equal bytes: a key to find it by. A table with
 * a metatable is no data (it can answer for keys its pairs never show),
 * but for the one at stack index MARK (0: none), written as marked. */
const char *lcsb__lua_data_encode_sorted(lua_State *L, int idx, int mark, lcsb__buf *out);

/* The functions the value at IDX holds (lcsb's modules as they are
 * loaded), each named in the table at NAMES (function -> name) by where it
 * was first met, "tools.closures_of", unless named already; and each place
 * one is met noted in the table at PLACES (path -> function). NULL, or why
 * not (nesting past 64). */
const char *lcsb__lua_data_name_functions(lua_State *L, int idx, int names, int places);

/* The value at IDX (lcsb's modules as they are now) as sorted data, its
 * functions by the names NAMES gave them: NULL, or why no bytes stand for
 * it (a function with no name: the script's own; or one where PLACES says
 * the modules had another, or none). */
const char *lcsb__lua_data_encode_state(lua_State *L, int idx, int names, int places,
                                        lcsb__buf *out);

/* The value LEN bytes of DATA encode, pushed: 1, or 0 with nothing pushed
 * when they are not one such value, whole. Raises only when Lua runs out of
 * memory. */
int lcsb__lua_data_decode(lua_State *L, const char *data, size_t len);

#endif
