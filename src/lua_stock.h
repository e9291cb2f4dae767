/* Layer 7, pure: lcsb's modules as they were loaded, kept as a copy, and
 * whether a policy script left them so.
 *
 * A plan's key holds the state of lcsb's modules (a script may add to a
 * preset or replace a function of lcsb's), and writing that state out took
 * naming every function as the modules loaded and walking every table in
 * sorted order on every run: a tenth of a warm run. Nearly every script
 * changes none of it, so the modules are copied as they load (a table's
 * pairs, its values copied again where they are tables, each table once),
 * and a run first asks whether they are still what the copy holds. Only
 * when they are not are the functions named (from the copy, which holds
 * them where they were) and the state written out. Both walks read tables a
 * script can reach: the caller holds Lua's collector still (lua_plan.c). */
#ifndef LCSB_LUA_STOCK_H
#define LCSB_LUA_STOCK_H

#include <lua.h>

/* The table at IDX (lcsb's modules as they are loaded) copied and kept in
 * the state's registry, after any kept before. NULL, or why not (tables
 * nested past 64). Raises only when Lua runs out of memory. */
const char *lcsb__lua_stock_keep(lua_State *L, int idx);

/* Is the table at IDX still what copy COPY (1 for the first) holds? Every table's
 * pairs the same (numbers of the same kind, strings equal, functions,
 * userdata and other values the same ones), its metatable the same one,
 * and tables met twice in the copy met twice here, never two for one.
 * False when no such copy was kept. Raises only when Lua runs out of memory. */
int lcsb__lua_stock_same(lua_State *L, int idx, lua_Integer copy);

/* The copies kept, a list in the order they were kept, pushed: 1; 0 with
 * nothing pushed when none was. */
int lcsb__lua_stock_copies(lua_State *L);

#endif
