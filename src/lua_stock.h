/* Layer 7, pure: lcsb's modules as they were loaded, kept as a record, and
 * whether a policy script left them so.
 *
 * A plan's key holds the state of lcsb's modules (a script may add to a
 * preset or replace a function of lcsb's), and writing that state out took
 * naming every function as the modules loaded and walking every table in
 * sorted order on every run: a tenth of a warm run. Nearly every script
 * changes none of it, so the modules are recorded as they load (each
 * table's pairs, each table once), and a run first asks whether they are
 * still what the record holds. Only when they are not are the functions
 * named (from copies made of the record, which hold them where they were)
 * and the state written out. Neither walk makes a Lua object while it
 * reads tables a script can reach, so no collection, and no finalizer of
 * the script's, runs inside one. */
#ifndef LCSB_LUA_STOCK_H
#define LCSB_LUA_STOCK_H

#include <lua.h>

/* The table at IDX (lcsb's modules as they are loaded) recorded and kept
 * in the state's registry, after any kept before. NULL, or why not (tables
 * nested past 64). Raises only when Lua runs out of memory. */
const char *lcsb__lua_stock_keep(lua_State *L, int idx);

/* Is the table at IDX still what record WHICH (1 for the first) holds?
 * Every table's pairs the same (numbers of the same kind, strings equal,
 * functions, userdata and other values the same ones), its metatable the
 * same one, and tables met twice in the record met twice here, never two
 * for one. False when no such record was kept. Raises only when the stack
 * cannot grow. */
int lcsb__lua_stock_same(lua_State *L, int idx, lua_Integer which);

/* The records kept, as Lua tables (a copy of each root, its tables copied,
 * each once), a list in the order they were kept, pushed: 1; 0 with
 * nothing pushed when none was. */
int lcsb__lua_stock_copies(lua_State *L);

/* How many records were kept. */
lua_Integer lcsb__lua_stock_count(lua_State *L);

#endif
