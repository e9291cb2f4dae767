/* Layer 7: caps, what no project policy may grant. Loaded from lcsb's
 * defaults (lua/lcsb/caps.lua), the administrator's file and the user's, each
 * in a fresh Lua state with no libraries (never the state a policy script
 * runs in, whose code could patch lcsb's modules), merged so that the
 * tightest wins (caps.c), and checked against the C policy the script
 * returned (caps_check.h, which this includes for the callers of both). */
#ifndef LCSB_CAPS_H
#define LCSB_CAPS_H

#include "caps_check.h"
#include "util.h"

#include <limits.h>

/* What "~" means and where the caps files and lcsb's own configuration and
 * state are. */
#define LCSB__CAPS_OWN_MAX 12
typedef struct lcsb__caps_places {
    char home[PATH_MAX];     /* "" when unknown: "~" entries then apply to nothing */
    char defaults[PATH_MAX]; /* lcsb's own caps.lua: must be there */
    char system[PATH_MAX];   /* the administrator's: "" for none */
    char user[PATH_MAX];     /* the user's: "" for none */
    /* Never writable by a project: the directories the caps files are in,
     * lcsb's trust store, and the programs that run the next command
     * unsandboxed or set up its sandbox (the running program, the shim, the
     * recorder). */
    char own[LCSB__CAPS_OWN_MAX][PATH_MAX];
    size_t own_n;
} lcsb__caps_places;

/* The usual places, from the environment (HOME, else the password database;
 * XDG_CONFIG_HOME, XDG_STATE_HOME), LUA_DIR (lcsb's Lua files) and the
 * build's system directory. SYSTEM and USER name other files when not NULL
 * ("" for none). */
void lcsb__caps_places_find(lcsb__caps_places *places, const char *lua_dir, const char *system,
                            const char *user);

/* Load and merge the caps files PLACES names. A file that is not there is
 * none (but lcsb's defaults); one that is broken (syntax, an unknown key, a
 * relative path, too large, too long to run) is LCSB_EINVAL naming it, and
 * its line where there is one. */
int lcsb__caps_load(const lcsb__caps_places *places, lcsb__caps **out, lcsb_error *err)
    __attribute__((warn_unused_result));
/* NULL-safe. */
void lcsb__caps_free(lcsb__caps *caps);

/* The files the caps came from as a JSON array of {"file", "sha256"}, lcsb's
 * defaults first; NULL on ENOMEM. Caller frees. */
char *lcsb__caps_json(const lcsb__caps *caps);
/* The caps in force, two lines for a person: an lcsb argv, NULL on ENOMEM. */
char **lcsb__caps_lines(const lcsb__caps *caps);
struct lua_State;
/* The caps in force, merged (lcsb's defaults, the administrator's and the
 * user's, tightest first, allows applied), pushed as the hints read them:
 * { deny = { PATH as written... }, deny_write = { ... }, own = { lcsb's own
 * files and directories, as real paths } }. */
void lcsb__caps_push(struct lua_State *L, const lcsb__caps *caps);

#endif
