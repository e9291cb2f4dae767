/* Layer 7: every file a policy script reads through Lua goes through lcsb:
 * read whole through one descriptor, hashed, held to what the user trusted
 * (under LCSB_TRUST_CHECK), and noted for the run to protect; under lcsb
 * trust, code the record before does not cover runs only once accepted. */
#ifndef LCSB_LUA_LOADS_H
#define LCSB_LUA_LOADS_H

#include "trust.h"
#include "util.h"

#include <lauxlib.h>
#include <lua.h>
#include <stdbool.h>

typedef struct lcsb__loads {
    lcsb_trust_mode mode;
    bool record;       /* keep each file's content, for lcsb_trust to save */
    const char *given; /* the script's path as the caller named it */
    /* What trusts it again: "lcsb trust GIVEN [-- COMMAND]", shell words. */
    char again[1024];
    char script[4096];      /* its real path */
    char script_path[4096]; /* its path as named, absolute: the record's key */
    char lua_dir[4096];     /* lcsb's own Lua files, real; "" when unknown */
    bool by_location;       /* the script is in lcsb's config directory */
    /* The record of the script: under CHECK what it is held to; under
     * RECORD the one before, over which (PREVIOUS) code the record does not
     * cover as it is runs only when ACCEPT names it ("PATH=SHA256"). */
    lcsb__trust_record trusted;
    bool previous;
    const char *const *accept;
    lcsb__trust_files read;   /* what the script read, in order: the script first */
    lcsb__trust_files absent; /* under RECORD, what it looked for and did not find */
    lcsb__trust_files fresh;  /* under PREVIOUS, data read that the record does not cover */
    lcsb__trust_files own;    /* lcsb's own modules it loaded */
    char **contents;          /* under RECORD, read.v[i]'s bytes */
    size_t *lens;
    size_t plan_mark;   /* the files read when a plan was last looked for */
    bool refused;       /* a file was refused as untrusted: the run is */
    char refusal[1024]; /* the first refusal's message */
} lcsb__loads;

/* Ready LOADS for the script at PATH (real path, record); LCSB_EUNTRUSTED
 * when, under CHECK, there is no record and the script is not trusted by
 * where it is. ACCEPT (NULL-terminated, or NULL; the caller keeps it): the
 * files, "PATH=SHA256", RECORD may run though the record before does not
 * cover them; LCSB_EINVAL for an entry of another form. */
int lcsb__loads_init(lcsb__loads *loads, const char *path, const char *command, const char *lua_dir,
                     lcsb_trust_mode mode, bool record, const char *const *accept, lcsb_error *err);
void lcsb__loads_clear(lcsb__loads *loads);
/* Route L's file reading (loadfile, dofile, require's searchers, io.open,
 * io.lines, io.input; load, for the bytes of a file) through LOADS, which
 * must outlive L's use of them; package.loadlib goes, C modules come from
 * the system's directories only. */
void lcsb__loads_install(lua_State *L, lcsb__loads *loads);
/* core.reads_mark and core.reads_since: the files the script read, for a
 * plan (exec_policy's composition read them; a run on its plan reads them
 * again). */
extern const luaL_Reg lcsb__lua_loads_functions[];

/* Which script this is, for a plan's key: the files L's script read (the
 * script first), each "SHA256 REAL" and a NUL, appended to OUT. AT_FIND
 * takes as many as it has read now and keeps the count (a plan is looked
 * for); else as many as then (a plan is kept after composing, which reads
 * more). Kept in C, out of the script's reach: a plan is its script's
 * alone. Nothing where no script runs through lcsb (a plain Lua host). */
void lcsb__loads_identity(lua_State *L, bool at_find, lcsb__buf *out);

/* The chunk of the Lua file at PATH, pushed, read through LOADS; raises. */
void lcsb__loads_chunk(lua_State *L, lcsb__loads *loads, const char *path);

#endif
