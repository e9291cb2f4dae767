/* The policy script's file reading, through lcsb. Lua's own functions open a
 * file by name and read it as they go; these read it whole through one
 * descriptor first, so the bytes checked against the user's trust, hashed
 * for the record and the attestation, are the very bytes the script gets:
 * code as a chunk loaded from them, data as an anonymous copy (io.tmpfile). */
#include "lua_loads.h"

#include "lua_facts.h"
#include "path.h"
#include "sys.h"

#include <errno.h>
#include <lauxlib.h>
#include <limits.h>
#include <lua.h>
#include <stdlib.h>
#include <string.h>

#ifndef LCSB_LUA_CPATH
#define LCSB_LUA_CPATH ""
#endif

/* ENTRY, "PATH=SHA256", as the absolute path it names (into NAMED) and the
 * digest (into SHA256); false when it is not of that form. */
static bool accept_entry(const char *entry, char named[PATH_MAX], char sha256[LCSB__SHA256_HEX]) {
    const char *eq = strrchr(entry, '=');
    if (!eq || eq == entry || strlen(eq + 1) != LCSB__SHA256_HEX - 1 ||
        strspn(eq + 1, "0123456789abcdef") != LCSB__SHA256_HEX - 1 ||
        (size_t)(eq - entry) >= PATH_MAX)
        return false;
    char path[PATH_MAX];
    memcpy(path, entry, (size_t)(eq - entry));
    path[eq - entry] = '\0';
    memcpy(sha256, eq + 1, LCSB__SHA256_HEX);
    return lcsb__trust_absolute(path, named);
}

static void add_shell_word(lcsb__buf *b, const char *text);

/* "lcsb trust PATH [-- COMMAND]" into LOADS->again: the run's command named,
 * so that trusting records what the script reads for it. A command a
 * message cannot show as it is (a control character, which it escapes) or
 * that leaves no room is left out: then "lcsb trust PATH", and a run that
 * needs more is refused again, naming the file. */
static void trust_again(lcsb__loads *loads, const char *path, const char *command) {
    for (const char *c = command; c && *c; c++)
        if ((unsigned char)*c < 0x20 || *c == 0x7f) command = NULL;
    for (int with_command = command != NULL; with_command >= 0; with_command--) {
        lcsb__buf b = {0};
        lcsb__buf_adds(&b, "lcsb trust ");
        add_shell_word(&b, path);
        if (with_command) {
            lcsb__buf_adds(&b, " -- ");
            add_shell_word(&b, command);
        }
        bool fits = !b.oom && b.len < sizeof loads->again / 2;
        if (fits) memcpy(loads->again, b.p, b.len + 1);
        lcsb__buf_free(&b);
        if (fits) return;
    }
    snprintf(loads->again, sizeof loads->again, "lcsb trust POLICY");
}

int lcsb__loads_init(lcsb__loads *loads, const char *path, const char *command, const char *lua_dir,
                     lcsb_trust_mode mode, bool record, const char *const *accept,
                     lcsb_error *err) {
    memset(loads, 0, sizeof *loads);
    loads->mode = mode;
    loads->record = record;
    loads->given = path;
    trust_again(loads, path, command);
    loads->accept = accept;
    if (!realpath(path, loads->script) || !lcsb__trust_absolute(path, loads->script_path))
        return lcsb__fail(err, LCSB_EINVAL, "cannot read policy script %s: %s", path,
                          strerror(errno));
    for (size_t i = 0; accept && accept[i]; i++) {
        char named[PATH_MAX], sha256[LCSB__SHA256_HEX];
        if (!accept_entry(accept[i], named, sha256))
            return lcsb__fail(err, LCSB_EINVAL,
                              "accept '%s': expected FILE=SHA256, the file and the digest lcsb "
                              "trust named",
                              accept[i]);
    }
    if (lua_dir && !lcsb__realpath(lua_dir, loads->lua_dir)) loads->lua_dir[0] = '\0';
    if (mode != LCSB_TRUST_CHECK && !record) return 0;
    /* A script trusted where it is may have a record too: of the files it
     * reads from elsewhere, held to it all the same. */
    loads->by_location = lcsb__trust_by_location(loads->script_path, loads->script);
    int rc = lcsb__trust_load(loads->script_path, &loads->trusted, err);
    if (record) {
        /* A record lcsb did not write is one the user is told to make
         * again: as if there were none. A store not theirs alone stops
         * lcsb trust too, before it records what no run would take. */
        if (rc == LCSB_EINVAL) rc = 0;
        loads->previous = !rc && loads->trusted.files.n > 0;
        return rc;
    }
    if (rc) return rc;
    return loads->trusted.files.n == 0 && !loads->by_location
               ? lcsb__trust_not_recorded(path, loads->again, err)
               : 0;
}

void lcsb__loads_clear(lcsb__loads *loads) {
    for (size_t i = 0; loads->contents && i < loads->read.n; i++) free(loads->contents[i]);
    free(loads->contents);
    free(loads->lens);
    lcsb__trust_record_clear(&loads->trusted);
    lcsb__trust_files_clear(&loads->read);
    lcsb__trust_files_clear(&loads->absent);
    lcsb__trust_files_clear(&loads->fresh);
    lcsb__trust_files_clear(&loads->own);
    loads->contents = NULL;
    loads->lens = NULL;
}

static lcsb__loads *loads_of(lua_State *L) { return lua_touserdata(L, lua_upvalueindex(1)); }

/* Raise REFUSAL, and remember it: a script that catches it (pcall) and
 * goes another way is refused all the same, when it returns and at every
 * read before that. */
static int raise_refusal(lua_State *L, lcsb__loads *loads, const char *refusal) {
    if (!loads->refused) snprintf(loads->refusal, sizeof loads->refusal, "%s", refusal);
    loads->refused = true;
    lua_pushstring(L, loads->refusal);
    return lua_error(L);
}

/* Raise the refusal of the file named PATH (NAMED, absolute) that led to
 * REAL, whose content is NOW. */
static int refuse(lua_State *L, lcsb__loads *loads, const char *path, const char *named,
                  const char *real, const char *now, size_t now_len) {
    const lcsb__trust_file *was = lcsb__trust_files_find(&loads->trusted.files, named);
    lcsb__buf b = {0};
    lcsb__trust_refusal(&b, loads->given, loads->again,
                        strcmp(named, loads->script_path) == 0 ? NULL : path, was, real, now,
                        now_len);
    lcsb__trust_also(&b, &loads->trusted, named);
    if (b.oom) {
        lcsb__buf_free(&b);
        return raise_refusal(L, loads, "out of memory");
    }
    lua_pushlstring(L, b.p, b.len); /* a Lua string before the buffer goes */
    lcsb__buf_free(&b);
    return raise_refusal(L, loads, lua_tostring(L, -1));
}

/* Raise the refusal of PATH (NAMED, absolute) when the script read it when
 * the user trusted it and it cannot be read now: without it, the script may
 * take another way than the one trusted. */
static void refuse_gone(lua_State *L, lcsb__loads *loads, const char *path, const char *named) {
    if (!lcsb__trust_files_find(&loads->trusted.files, named)) return;
    lcsb__buf b = {0};
    lcsb__buf_addf(&b,
                   "%s read %s when you trusted it, and it cannot be read now: without it the "
                   "script may take another way; lcsb stopped the script there. If that way is "
                   "right, run: %s",
                   loads->given, path, loads->again);
    lcsb__trust_also(&b, &loads->trusted, named);
    if (b.oom) {
        lcsb__buf_free(&b);
        raise_refusal(L, loads, "out of memory");
    }
    lua_pushlstring(L, b.p, b.len); /* a Lua string before the buffer goes */
    lcsb__buf_free(&b);
    raise_refusal(L, loads, lua_tostring(L, -1));
}

/* Note NAMED (absolute) as looked for and not found, once: the record
 * keeps it, and a later refusal says when a file is there. */
static void note_absent(lua_State *L, lcsb__loads *loads, const char *named) {
    if (lcsb__trust_files_find(&loads->absent, named)) return;
    if (lcsb__trust_files_add(&loads->absent, named, "", "")) luaL_error(L, "out of memory");
}

/* TEXT as one word of a shell's command line: as it is when nothing in it
 * is special, else single-quoted. */
static void add_shell_word(lcsb__buf *b, const char *text) {
    static const char plain[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
                                "_-./+,:@%=";
    if (text[0] && strspn(text, plain) == strlen(text)) {
        lcsb__buf_adds(b, text);
        return;
    }
    lcsb__buf_adds(b, "'");
    for (const char *p = text; *p; p++)
        if (*p == '\'')
            lcsb__buf_adds(b, "'\\''");
        else
            lcsb__buf_add(b, p, 1);
    lcsb__buf_adds(b, "'");
}

/* Is the file NAMED (absolute) with digest SHA256 one the user accepted?
 * 1 yes; 0 not named; -1 named with another digest (into OTHER). */
static int accepted(const lcsb__loads *loads, const char *named, const char *sha256,
                    char other[LCSB__SHA256_HEX]) {
    int found = 0;
    for (size_t i = 0; loads->accept && loads->accept[i]; i++) {
        char path[PATH_MAX], digest[LCSB__SHA256_HEX];
        if (!accept_entry(loads->accept[i], path, digest) || strcmp(path, named) != 0) continue;
        if (strcmp(digest, sha256) == 0) return 1;
        memcpy(other, digest, LCSB__SHA256_HEX);
        found = -1;
    }
    return found;
}

/* Under lcsb trust over a record: stop the script before it runs the bytes
 * of the file NAMED (absolute; LOADED: the bytes of that data file, given to
 * load), which led to REAL, DATA (LEN bytes, digest SHA256, status changed
 * at CHANGED) -- bytes the record does not cover -- unless the user
 * accepted them. lcsb trust runs code as the user, unsandboxed, and a
 * command lcsb confined may have written them; the user sees them first,
 * in a copy lcsb keeps, and accepts exactly those. */
static void stop_unseen(lua_State *L, lcsb__loads *loads, const char *named, const char *real,
                        const char *data, size_t len, const char *sha256, time_t changed,
                        bool loaded) {
    char other[LCSB__SHA256_HEX], kept[PATH_MAX], cwd[PATH_MAX];
    int acc = accepted(loads, named, sha256, other);
    if (acc > 0) return;
    const lcsb__trust_file *was = lcsb__trust_files_find(&loads->trusted.files, named);
    lcsb_error ignored;
    bool is_kept = lcsb__trust_keep(sha256, data, len, kept, &ignored) == 0;
    const char *shown = lcsb__trust_shown(named, cwd);
    lcsb__buf b = {0};
    lcsb__buf_addf(&b, "lcsb trust stopped %s before it ran %s", loads->given,
                   loaded ? "the content of " : "");
    lcsb__buf_adds(&b, shown);
    lcsb__buf_addf(&b, "%s, which %s since you trusted %s (", loaded ? " (load)" : "",
                   was ? "changed" : "is new", loads->given);
    lcsb__trust_add_time(&b, loads->trusted.at);
    lcsb__buf_adds(&b, "): ");
    if (!was) {
        lcsb__trust_new_summary(data, len, changed, &b);
    } else if (strcmp(was->real, real) != 0) {
        lcsb__buf_addf(&b, "it was %s, and is %s now", was->real, real);
    } else {
        lcsb__trust_changes(was->sha256, data, len, &b);
        lcsb__buf_adds(&b, "; last changed ");
        lcsb__trust_add_time(&b, changed);
    }
    if (acc < 0) lcsb__buf_addf(&b, "; it is not the one you accepted (sha256 %.12s...)", other);
    lcsb__buf_adds(&b, ". A command lcsb confined may have written it, and lcsb trust runs it as "
                       "you, unsandboxed: lcsb ran none of it and recorded nothing. Read it");
    if (is_kept) lcsb__buf_addf(&b, " as lcsb found it, in %s", kept);
    lcsb__buf_addf(&b, "; if you trust it, run: lcsb trust --accept ");
    lcsb__buf word = {0}; /* FILE=SHA256, one word, quoted when it must be */
    lcsb__buf_addf(&word, "%s=%s", shown, sha256);
    add_shell_word(&b, word.oom ? "?" : word.p);
    b.oom |= word.oom;
    lcsb__buf_free(&word);
    /* The policy and the command, as lcsb trust was given them. */
    lcsb__buf_addf(&b, " %s (if not, remove it, and run lcsb trust again).",
                   loads->again + strlen("lcsb trust "));
    lcsb__trust_also(&b, &loads->trusted, named);
    if (b.oom) {
        lcsb__buf_free(&b);
        raise_refusal(L, loads, "out of memory");
    }
    lua_pushlstring(L, b.p, b.len); /* a Lua string before the buffer goes */
    lcsb__buf_free(&b);
    raise_refusal(L, loads, lua_tostring(L, -1));
}

/* Note the file NAMED (absolute) that led to REAL (digest SHA256) as read,
 * in order, once. */
static void note(lua_State *L, lcsb__loads *loads, lcsb__trust_files *into, const char *named,
                 const char *real, const char *sha256, const char *data, size_t len) {
    const lcsb__trust_file *seen = lcsb__trust_files_find(into, named);
    if (seen && (strcmp(seen->sha256, sha256) != 0 || strcmp(seen->real, real) != 0)) {
        lua_pushfstring(L, "%s changed while the policy script was reading it", named);
        raise_refusal(L, loads, lua_tostring(L, -1));
    }
    if (seen) return;
    if (lcsb__trust_files_add(into, named, real, sha256)) luaL_error(L, "out of memory");
    if (into != &loads->read || !loads->record) return;
    char **contents = realloc(loads->contents, loads->read.n * sizeof *contents);
    if (contents) loads->contents = contents;
    size_t *lens = realloc(loads->lens, loads->read.n * sizeof *lens);
    if (lens) loads->lens = lens;
    char *copy = malloc(len + 1);
    if (!contents || !lens || !copy) {
        free(copy);
        /* The arrays are as long as the list again. */
        lcsb__trust_file *last = &loads->read.v[--loads->read.n];
        free(last->path);
        free(last->real);
        luaL_error(L, "out of memory");
    }
    memcpy(copy, data, len);
    copy[len] = '\0';
    loads->contents[loads->read.n - 1] = copy;
    loads->lens[loads->read.n - 1] = len;
}

/* The bytes of PATH, read through the trust, pushed as a string (a pointer
 * to them returned, *LEN long); or, when it cannot be read, raised, or with
 * SOFT nil, message and errno pushed and NULL returned. CODE: the bytes are
 * to run as a chunk. */
static const char *take(lua_State *L, lcsb__loads *loads, const char *path, size_t *len, bool soft,
                        bool code) {
    char named[PATH_MAX], real[PATH_MAX], sha256[LCSB__SHA256_HEX];
    char *bytes;
    lcsb__file_seen seen;
    lcsb_error err;
    if (loads->refused) raise_refusal(L, loads, loads->refusal);
    if (!lcsb__trust_absolute(path, named)) luaL_error(L, "%s: the path is too long", path);
    /* The kernel's own files (proc, sysfs) say what holds at the moment,
     * and their real paths move (/proc/self): read, neither held to the
     * trust nor noted, when the script named them there itself, plainly,
     * and reads them as data. Judged by the descriptor the bytes came
     * through, never by the path again (a command may swap it meanwhile),
     * and never for a way through a magic link (/proc/self/cwd leads into
     * the project, where a command points a symlink at a process of its
     * own, whose command line it writes), nor for code. */
    if (!code && lcsb__read_kernel_file(path, LCSB__TRUST_FILE_MAX, &bytes, len, NULL, NULL) == 0) {
        /* What it says may change with no time of its own: no plan. */
        lcsb__facts_spoil(lcsb__lua_facts(L), named);
        const char *data = lua_pushlstring(L, bytes, *len);
        free(bytes);
        return data;
    }
    if (lcsb__trust_read(path, &bytes, len, real, &seen, NULL, &err) != 0) {
        int code_errno = errno;
        /* A composition that could not read it rests on that too. */
        lcsb__facts_mark_path(lcsb__lua_facts(L), named);
        if (loads->mode == LCSB_TRUST_CHECK) refuse_gone(L, loads, path, named);
        if (loads->record && (code_errno == ENOENT || code_errno == ENOTDIR))
            note_absent(L, loads, named);
        if (!soft) luaL_error(L, "%s", err.message);
        luaL_pushfail(L);
        lua_pushstring(L, err.message);
        lua_pushinteger(L, code_errno);
        return NULL;
    }
    /* Lua's from here: nothing leaks when what follows raises. */
    const char *data = lua_pushlstring(L, bytes, *len);
    free(bytes);
    /* lcsb's own modules are lcsb: no digest needed, unless protected. */
    bool own = !seen.kernel_made && loads->lua_dir[0] && lcsb__path_within(real, loads->lua_dir) &&
               strcmp(real, loads->script) != 0;
    sha256[0] = '\0';
    if (!own) lcsb__sha256_of(data, *len, sha256);
    bool held = !own && (loads->mode == LCSB_TRUST_CHECK || loads->previous) &&
                !lcsb__trust_by_location(named, real);
    const lcsb__trust_file *was =
        held ? lcsb__trust_files_find(&loads->trusted.files, named) : NULL;
    bool covered = was && strcmp(was->sha256, sha256) == 0 && strcmp(was->real, real) == 0;
    if (held && !covered && loads->mode == LCSB_TRUST_CHECK)
        refuse(L, loads, path, named, real, data, *len);
    /* Under lcsb trust, the script itself is what the user named; any
     * other code the record before does not cover runs only once seen, and
     * such data is kept in mind, in case the script runs its bytes. */
    if (held && !covered && loads->previous && strcmp(named, loads->script_path) != 0) {
        if (code) {
            stop_unseen(L, loads, named, real, data, *len, sha256, seen.st.st_ctime, false);
        } else if (!lcsb__trust_files_find(&loads->fresh, named)) {
            if (lcsb__trust_files_add(&loads->fresh, named, real, sha256))
                luaL_error(L, "out of memory");
            loads->fresh.v[loads->fresh.n - 1].changed = seen.st.st_ctime;
        }
    }
    note(L, loads, own ? &loads->own : &loads->read, named, real, sha256, data, *len);
    /* A composition that read it rests on it, and on the way its name
     * led there: a plan is made again when either changes (plan.h). */
    if (seen.kernel_made) {
        lcsb__facts_spoil(lcsb__lua_facts(L), real); /* reached through a link */
    } else if (!own) {
        lcsb__facts_mark_read(lcsb__lua_facts(L), real, &seen.st);
        lcsb__facts_mark_path(lcsb__lua_facts(L), named);
    }
    return data;
}

/* The chunk of LEN bytes of DATA (on the stack), named after PATH as
 * luaL_loadfilex names it; a first line starting with '#' (a #! line) is
 * made a comment, keeping the line numbers. Text only: a bytecode chunk
 * can crash the interpreter. LUA_OK, or the error pushed. */
static int load_chunk(lua_State *L, const char *data, size_t len, const char *path) {
    lua_pushfstring(L, "@%s", path);
    const char *name = lua_tostring(L, -1);
    int status;
    if (len > 0 && data[0] == '#') {
        luaL_Buffer b;
        luaL_buffinit(L, &b);
        luaL_addstring(&b, "--");
        luaL_addlstring(&b, data, len);
        luaL_pushresult(&b);
        size_t n;
        const char *text = lua_tolstring(L, -1, &n);
        status = luaL_loadbufferx(L, text, n, name, "t");
        lua_remove(L, -2);
    } else {
        status = luaL_loadbufferx(L, data, len, name, "t");
    }
    lua_remove(L, -2); /* the name */
    return status;
}

void lcsb__loads_chunk(lua_State *L, lcsb__loads *loads, const char *path) {
    size_t len;
    const char *data = take(L, loads, path, &len, false, true);
    if (load_chunk(L, data, len, path) != LUA_OK) lua_error(L);
    lua_remove(L, -2); /* the bytes */
}

/* The original of a function replaced here: upvalue 2. */
static int call_original(lua_State *L) {
    int n = lua_gettop(L);
    lua_pushvalue(L, lua_upvalueindex(2));
    lua_insert(L, 1);
    lua_call(L, n, LUA_MULTRET);
    return lua_gettop(L);
}

/* loadfile(path [, mode [, env]]): mode is always text. */
static int l_loadfile(lua_State *L) {
    if (lua_isnoneornil(L, 1)) return call_original(L); /* standard input */
    const char *path = luaL_checkstring(L, 1);
    const char *mode = luaL_optstring(L, 2, "bt");
    bool has_env = !lua_isnone(L, 3);
    if (!strchr(mode, 't')) {
        luaL_pushfail(L);
        lua_pushfstring(L, "%s: a policy script loads text chunks only", path);
        return 2;
    }
    size_t len;
    const char *data = take(L, loads_of(L), path, &len, true, true);
    if (!data) {
        lua_pop(L, 1); /* the errno: loadfile gives nil, message */
        return 2;
    }
    if (load_chunk(L, data, len, path) != LUA_OK) {
        luaL_pushfail(L);
        lua_insert(L, -2);
        return 2;
    }
    if (has_env) {
        lua_pushvalue(L, 3);
        if (!lua_setupvalue(L, -2, 1)) lua_pop(L, 1);
    }
    return 1;
}

static int l_dofile(lua_State *L) {
    if (lua_isnoneornil(L, 1)) return call_original(L);
    const char *path = luaL_checkstring(L, 1);
    lua_settop(L, 1);
    lcsb__loads_chunk(L, loads_of(L), path);
    lua_call(L, 0, LUA_MULTRET);
    return lua_gettop(L) - 1;
}

/* When require finds no file for NAME on PATH (package.path): one of the
 * files it looked for was read when the user trusted the script is gone,
 * and is refused as such. */
static void refuse_missing_module(lua_State *L, lcsb__loads *loads, const char *name,
                                  const char *path) {
    if (loads->mode != LCSB_TRUST_CHECK && !loads->record) return;
    const char *file = luaL_gsub(L, name, ".", "/");
    for (const char *at = path; *at;) {
        size_t n = strcspn(at, ";");
        lua_pushlstring(L, at, n);
        const char *candidate = luaL_gsub(L, lua_tostring(L, -1), "?", file);
        char named[PATH_MAX];
        if (lcsb__trust_absolute(candidate, named) && loads->record)
            note_absent(L, loads, named);
        else if (lcsb__trust_absolute(candidate, named))
            refuse_gone(L, loads, candidate, named);
        lua_pop(L, 2);
        at += n + (at[n] == ';');
    }
    lua_pop(L, 1);
}

/* require's searcher for Lua modules on package.path. */
static int l_search_lua(lua_State *L) {
    const char *name = luaL_checkstring(L, 1);
    lua_getglobal(L, "package");
    lua_getfield(L, -1, "searchpath");
    lua_pushstring(L, name);
    lua_getfield(L, -3, "path");
    if (lua_type(L, -1) != LUA_TSTRING) return luaL_error(L, "'package.path' must be a string");
    const char *templates = lua_tostring(L, -1);
    lua_pushvalue(L, -1);
    lua_insert(L, -4); /* kept below the call for the refusal */
    lua_call(L, 2, 2);
    if (lua_isnil(L, -2)) {
        refuse_missing_module(L, loads_of(L), name, templates);
        return 1; /* what was tried, as the searcher's message */
    }
    lua_pop(L, 1);
    const char *path = lua_tostring(L, -1);
    lcsb__loads_chunk(L, loads_of(L), path);
    lua_pushvalue(L, -2);
    return 2;
}

/* require's searchers for C modules, on the system's directories whatever
 * package.cpath now says: a module from the project would run as lcsb's
 * own code, unchecked. The package table is the one the searcher reads its
 * cpath from (upvalue 3, as the state opened), never what the global
 * `package` names by the time of the call: a script could name another. */
static int l_search_c(lua_State *L) {
    lua_pushvalue(L, lua_upvalueindex(3));
    int package = lua_gettop(L);
    /* Raw, both ways: a metatable the script gave the table (__newindex
     * dropping the pin, __index answering for a cpath taken away) is never
     * asked, and Lua's searcher finds the pinned value there. */
    lua_pushliteral(L, "cpath");
    lua_rawget(L, package);
    lua_pushliteral(L, "cpath");
    lua_pushliteral(L, LCSB_LUA_CPATH);
    lua_rawset(L, package);
    lua_pushvalue(L, lua_upvalueindex(2));
    lua_pushvalue(L, 1);
    int status = lua_pcall(L, 1, 2, 0);
    lua_pushliteral(L, "cpath");
    lua_pushvalue(L, package + 1);
    lua_rawset(L, package);
    if (status != LUA_OK) return lua_error(L);
    return 2;
}

/* load(chunk [, name [, mode [, env]]]): text chunks only, as loadfile
 * (Lua checks no precompiled chunk, and one made to lie breaks its memory).
 * Under lcsb trust over a record, a string that is the very bytes of a data
 * file the record does not cover (a state file read, then run) is that
 * file's code: stopped as dofile of it would be. What the script builds
 * from such bytes before it loads them is code the user approved, and
 * judged as such. */
static int l_load(lua_State *L) {
    lcsb__loads *loads = loads_of(L);
    if (!strchr(luaL_optstring(L, 3, "bt"), 't')) {
        luaL_pushfail(L);
        lua_pushliteral(L, "a policy script loads text chunks only");
        return 2;
    }
    /* Mode "t" in the third place; an env only where one was given (a
     * nil one too: it is the chunk's _ENV). */
    if (lua_gettop(L) < 3) lua_settop(L, 3);
    lua_pushliteral(L, "t");
    lua_replace(L, 3);
    if (loads->previous && loads->fresh.n > 0 && lua_type(L, 1) == LUA_TSTRING) {
        size_t len;
        const char *chunk = lua_tolstring(L, 1, &len);
        char sha256[LCSB__SHA256_HEX];
        lcsb__sha256_of(chunk, len, sha256);
        for (size_t i = 0; i < loads->fresh.n; i++) {
            const lcsb__trust_file *f = &loads->fresh.v[i];
            if (strcmp(f->sha256, sha256) == 0)
                stop_unseen(L, loads, f->path, f->real, chunk, len, sha256, f->changed, true);
        }
    }
    return call_original(L);
}

/* A copy of the file at PATH, read through the trust, as a Lua file
 * positioned at its start; or nil, message, errno. */
static int push_copy(lua_State *L, const char *path) {
    size_t len;
    const char *data = take(L, loads_of(L), path, &len, true, false);
    if (!data) return 3;
    int bytes = lua_gettop(L);
    lua_getglobal(L, "io");
    lua_getfield(L, -1, "tmpfile");
    lua_call(L, 0, 3);
    if (lua_isnil(L, -3)) return 3; /* nil, message, errno */
    lua_pop(L, 2);
    int file = lua_gettop(L);
    lua_getfield(L, file, "write");
    lua_pushvalue(L, file);
    lua_pushvalue(L, bytes);
    lua_call(L, 2, 0);
    lua_getfield(L, file, "seek");
    lua_pushvalue(L, file);
    lua_pushliteral(L, "set");
    lua_call(L, 2, 0);
    lua_settop(L, file);
    return 1;
}

static int l_io_open(lua_State *L) {
    const char *path = luaL_checkstring(L, 1);
    const char *mode = luaL_optstring(L, 2, "r");
    /* Read and written at once ("r+", "a+", "w+"): a handle on the file
     * itself reads what is on disk when the script reads, not what lcsb
     * checked. Opened again by name it may be another file (a command of a
     * concurrent run renames one in between); opened once and checked
     * through that descriptor, it is the same file, but one the command
     * may write in place between the check and the read. Neither way are
     * the bytes checked the bytes the script gets, so neither is offered. */
    if (strchr(mode, '+'))
        return luaL_argerror(
            L, 2,
            lua_pushfstring(L,
                            "\"%s\" for %s: a policy script does not open a file to read and "
                            "write at once, for what it read would not be what lcsb checked "
                            "against your trust; read it with \"r\", write it with \"w\" or "
                            "\"a\"",
                            mode, path));
    if (mode[0] == 'r') return push_copy(L, path);
    return call_original(L);
}

static int l_io_lines(lua_State *L) {
    if (lua_isnoneornil(L, 1)) return call_original(L);
    int formats = lua_gettop(L) - 1;
    const char *path = luaL_checkstring(L, 1);
    if (push_copy(L, path) != 1) return luaL_error(L, "%s", lua_tostring(L, -2));
    lua_getfield(L, -1, "lines");
    lua_insert(L, -2);
    for (int i = 0; i < formats; i++) lua_pushvalue(L, 2 + i);
    lua_call(L, 1 + formats, 1);
    return 1;
}

static int l_io_input(lua_State *L) {
    if (lua_type(L, 1) == LUA_TSTRING) {
        const char *path = lua_tostring(L, 1);
        if (push_copy(L, path) != 1) return luaL_error(L, "%s", lua_tostring(L, -2));
        lua_replace(L, 1);
        lua_settop(L, 1);
    }
    return call_original(L);
}

/* TABLE[NAME] (TABLE at the top) becomes FN with upvalues LOADS and the one
 * it replaces. */
static void replace(lua_State *L, lcsb__loads *loads, const char *name, lua_CFunction fn) {
    lua_pushlightuserdata(L, loads);
    lua_getfield(L, -2, name);
    lua_pushcclosure(L, fn, 2);
    lua_setfield(L, -2, name);
}

/* Where L's LOADS is kept, for the functions below. */
#define LOADS_KEY "lcsb.loads"

static lcsb__loads *installed(lua_State *L) {
    lua_getfield(L, LUA_REGISTRYINDEX, LOADS_KEY);
    lcsb__loads *loads = lua_touserdata(L, -1);
    lua_pop(L, 1);
    return loads;
}

/* lcsb.core.reads_mark() -> how many files the script has read so far (0
 * where no script runs through lcsb: a plain Lua host). */
static int l_reads_mark(lua_State *L) {
    const lcsb__loads *loads = installed(L);
    lua_pushinteger(L, loads ? (lua_Integer)loads->read.n : 0);
    return 1;
}

/* lcsb.core.reads_since(mark) -> the files read since MARK, by the names
 * they were read by: what a composition read, for a plan to read again
 * (through the trust, and noted for protection) whenever it is used. */
static int l_reads_since(lua_State *L) {
    lua_Integer mark = luaL_checkinteger(L, 1);
    const lcsb__loads *loads = installed(L);
    lua_newtable(L);
    for (size_t i = mark < 0 ? 0 : (size_t)mark, n = 0; loads && i < loads->read.n; i++) {
        lua_pushstring(L, loads->read.v[i].path);
        lua_rawseti(L, -2, (lua_Integer)++n);
    }
    return 1;
}

void lcsb__loads_identity(lua_State *L, bool at_find, lcsb__buf *out) {
    lcsb__loads *loads = installed(L);
    if (!loads) return;
    if (at_find) loads->plan_mark = loads->read.n;
    for (size_t i = 0; i < loads->plan_mark && i < loads->read.n; i++) {
        const lcsb__trust_file *f = &loads->read.v[i];
        lcsb__buf_addf(out, "%s %s", f->sha256, f->real ? f->real : f->path);
        lcsb__buf_add(out, "", 1);
    }
}

const luaL_Reg lcsb__lua_loads_functions[] = {
    {"reads_mark", l_reads_mark},
    {"reads_since", l_reads_since},
    {NULL, NULL},
};

void lcsb__loads_install(lua_State *L, lcsb__loads *loads) {
    lua_pushlightuserdata(L, loads);
    lua_setfield(L, LUA_REGISTRYINDEX, LOADS_KEY);
    lua_pushglobaltable(L);
    replace(L, loads, "loadfile", l_loadfile);
    replace(L, loads, "dofile", l_dofile);
    replace(L, loads, "load", l_load);
    lua_pop(L, 1);
    lua_getglobal(L, "io");
    replace(L, loads, "open", l_io_open);
    replace(L, loads, "lines", l_io_lines);
    replace(L, loads, "input", l_io_input);
    lua_pop(L, 1);
    lua_getglobal(L, "package");
    lua_pushnil(L);
    lua_setfield(L, -2, "loadlib");
    lua_getfield(L, -1, "searchers");
    /* 1 preload, 2 Lua, 3 C, 4 C all-in-one: each replaced in place. */
    lua_pushlightuserdata(L, loads);
    lua_rawgeti(L, -2, 2);
    lua_pushcclosure(L, l_search_lua, 2);
    lua_rawseti(L, -2, 2);
    for (int i = 3; i <= 4; i++) {
        lua_pushlightuserdata(L, loads);
        lua_rawgeti(L, -2, i);
        lua_pushvalue(L, -4); /* the package table */
        lua_pushcclosure(L, l_search_c, 3);
        lua_rawseti(L, -2, i);
    }
    lua_pop(L, 2);
}
