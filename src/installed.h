/* Layer 2, impure: where lcsb's own files are when the caller names none,
 * the shim and the Lua files (installed.c). */
#ifndef LCSB_INSTALLED_H
#define LCSB_INSTALLED_H

#include "util.h"

#include <stddef.h>

/* The environment's names for them: when set (and not empty), the only
 * place looked at. */
#define LCSB__SHIM_ENV "LCSB_SHIM"
#define LCSB__LUA_DIR_ENV "LCSB_LUA_DIR"

/* Is PATH an absolute path to an executable regular file? */
bool lcsb__installed_executable(const char *path);

/* The shim for a caller that names none: true with the first executable
 * one in PATH, else false with PATH "". SEARCHED gets every place looked
 * at, in order, as "PATH (why); PATH (why)". Both have SIZE bytes. */
bool lcsb__installed_shim(char *path, char *searched, size_t size);

/* lcsb's Lua files (the directory holding lcsb/init.lua) for a caller that
 * names none, into OUT (PATH_MAX bytes): 0, or LCSB_EINVAL naming every
 * place looked at. */
int lcsb__installed_lua_dir(char *out, lcsb_error *err);

#endif
