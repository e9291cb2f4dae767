/* The Lua binding's host helpers: what exec_policy needs from the disk and
 * the terminal (which programs, which kind of file, real paths, a
 * directory's entries), the scope that owns a run's private directories,
 * the hold on a placeholder .git, and the walk for what a run changed.
 * Misuse raises; expected operational failures return nil, message. */
#include "lua_host.h"

#include "lua_util.h"

#include "cache.h"
#include "changed.h"
#include "facts.h"
#include "path.h"
#include "resolve.h"
#include "sys.h"
#include "sysprefix.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <lauxlib.h>
#include <limits.h>
#include <lua.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define SCOPE_MT "lcsb.scope"
#define HOLD_MT "lcsb.hold"
#define CHANGED_MT "lcsb.changed"

typedef struct scope_ud {
    lcsb__scope *scope;
} scope_ud;

/* ---- lcsb.scope ---- */

static int l_scope(lua_State *L) {
    scope_ud *ud = lua_newuserdatauv(L, sizeof *ud, 0);
    ud->scope = NULL;
    luaL_setmetatable(L, SCOPE_MT);
    if (!(ud->scope = lcsb__scope_new())) return luaL_error(L, "out of memory");
    return 1;
}

static lcsb__scope *check_scope(lua_State *L, int idx) {
    scope_ud *ud = luaL_checkudata(L, idx, SCOPE_MT);
    if (!ud->scope) luaL_argerror(L, idx, "scope is closed");
    return ud->scope;
}

static int l_scope_mkdtemp(lua_State *L) {
    lcsb__scope *s = check_scope(L, 1);
    const char *label = luaL_optstring(L, 2, "run");
    for (const char *c = label; *c; c++)
        if (*c == '/') return luaL_argerror(L, 2, "a label, not a path");
    char path[PATH_MAX];
    lcsb_error err;
    if (lcsb__scope_mkdtemp(s, label, path, &err)) return lcsb__lua_fail(L, err.message);
    lua_pushstring(L, path);
    return 1;
}

/* __close, __gc and :close() share this; closing twice is harmless. */
int lcsb__lua_close_scope(lua_State *L, int idx, lcsb_error *err) {
    scope_ud *ud = luaL_testudata(L, idx, SCOPE_MT);
    if (!ud || !ud->scope) return 0;
    int rc = lcsb__scope_close(ud->scope, err);
    lcsb__scope_free(ud->scope);
    ud->scope = NULL;
    return rc;
}

static int l_scope_close(lua_State *L) {
    luaL_checkudata(L, 1, SCOPE_MT);
    lcsb_error err = {0};
    return lcsb__lua_outcome(L, lcsb__lua_close_scope(L, 1, &err), &err);
}

/* ---- what exec_policy needs from the disk ---- */

#define FACTS_ACTIVE "lcsb.facts_active"
#define FACTS_OWNED "lcsb.facts_owned"
#define FACTS_OWNED_MT "lcsb.facts_owned_mt"

lcsb__facts *lcsb__lua_facts(lua_State *L) {
    lua_getfield(L, LUA_REGISTRYINDEX, FACTS_ACTIVE);
    lcsb__facts *f = lua_touserdata(L, -1);
    lua_pop(L, 1);
    return f;
}

static int facts_owned_gc(lua_State *L) {
    lcsb__facts **f = luaL_checkudata(L, 1, FACTS_OWNED_MT);
    lcsb__facts_free(*f);
    *f = NULL;
    return 0;
}

/* lcsb.core.compose_begin(record): what a composition asks is asked once
 * from now on, and, with RECORD, marked for a plan. The facts are the
 * script run's, or, in a plain Lua program, fresh ones for each
 * composition. */
static int l_compose_begin(lua_State *L) {
    bool record = lua_toboolean(L, 1);
    lua_getfield(L, LUA_REGISTRYINDEX, LCSB__REG_FACTS);
    lcsb__facts *f = lua_touserdata(L, -1);
    lua_pop(L, 1);
    if (!f) {
        lcsb__facts **owned = lua_newuserdatauv(L, sizeof *owned, 0);
        *owned = NULL;
        if (luaL_newmetatable(L, FACTS_OWNED_MT)) {
            lua_pushcfunction(L, facts_owned_gc);
            lua_setfield(L, -2, "__gc");
        }
        lua_setmetatable(L, -2);
        if (!(*owned = f = lcsb__facts_new())) return luaL_error(L, "out of memory");
        lua_setfield(L, LUA_REGISTRYINDEX, FACTS_OWNED); /* kept till the next one */
    }
    lcsb__facts_record(f, record);
    lua_pushlightuserdata(L, f);
    lua_setfield(L, LUA_REGISTRYINDEX, FACTS_ACTIVE);
    return 0;
}

/* lcsb.core.compose_end(): the host is asked directly again. */
static int l_compose_end(lua_State *L) {
    lcsb__facts_record(lcsb__lua_facts(L), false);
    lua_pushnil(L);
    lua_setfield(L, LUA_REGISTRYINDEX, FACTS_ACTIVE);
    return 0;
}

/* lcsb.which(name) -> { program, interpreter... } | nil, message */
static int l_which(lua_State *L) {
    size_t len;
    const char *name = luaL_checklstring(L, 1, &len);
    char **files = NULL;
    lcsb_error err;
    if (strlen(name) != len) { /* C would resolve only what precedes the NUL */
        luaL_pushfail(L);
        lua_pushfstring(L, "exec: %s: holds a NUL byte", name);
        return 2;
    }
    if (lcsb__resolve_program(lcsb__lua_facts(L), name, &files, &err))
        return lcsb__lua_fail(L, err.message);
    lcsb__lua_push_argv(L, files);
    lcsb_argv_free(files);
    return 1;
}

/* The path at IDX, refused (raised) when it holds a NUL byte. */
static const char *check_path(lua_State *L, int idx) {
    size_t len;
    const char *path = luaL_checklstring(L, idx, &len);
    if (strlen(path) != len) luaL_argerror(L, idx, "the path holds a NUL byte");
    return path;
}

/* true, or nil and "PATH: REASON" from errno, for a call that returned RC. */
static int push_outcome(lua_State *L, int rc, const char *path) {
    if (rc != 0) {
        luaL_pushfail(L);
        lua_pushfstring(L, "%s: %s", path, strerror(errno));
        return 2;
    }
    lua_pushboolean(L, 1);
    return 1;
}

/* lcsb.mkdir(path [, mode]) -> true | nil, message (one directory, not a chain) */
static int l_mkdir(lua_State *L) {
    const char *path = check_path(L, 1);
    return push_outcome(L, mkdir(path, (mode_t)luaL_optinteger(L, 2, 0755)), path);
}

/* lcsb.symlink(target, path) -> true | nil, message: PATH made a symlink
 * to TARGET (never replacing what is there) */
static int l_symlink(lua_State *L) {
    const char *target = check_path(L, 1), *path = check_path(L, 2);
    return push_outcome(L, symlink(target, path), path);
}

/* lcsb.rmdir(path) -> true | nil, message (an empty directory only) */
static int l_rmdir(lua_State *L) {
    const char *path = check_path(L, 1);
    return push_outcome(L, rmdir(path), path);
}

/* lcsb.kind(path) -> "dir" | "file" | "other" | nil (following symlinks) */
static int l_kind(lua_State *L) {
    struct stat st;
    if (lcsb__facts_stat(lcsb__lua_facts(L), luaL_checkstring(L, 1), &st) != 0) {
        luaL_pushfail(L);
        return 1;
    }
    lua_pushstring(L, S_ISDIR(st.st_mode) ? "dir" : S_ISREG(st.st_mode) ? "file" : "other");
    return 1;
}

/* lcsb.lstat(path) -> kind ("dir", "file", "link" or "other"), id ("DEV:INO",
 * which file it is) | nil; a symlink as itself */
static int l_lstat(lua_State *L) {
    struct stat st;
    if (lcsb__facts_lstat(lcsb__lua_facts(L), luaL_checkstring(L, 1), &st) != 0) {
        luaL_pushfail(L);
        return 1;
    }
    lua_pushstring(L, S_ISDIR(st.st_mode)   ? "dir"
                      : S_ISREG(st.st_mode) ? "file"
                      : S_ISLNK(st.st_mode) ? "link"
                                            : "other");
    lua_pushfstring(L, "%I:%I", (lua_Integer)st.st_dev, (lua_Integer)st.st_ino);
    return 2;
}

/* lcsb.core.readlink(path) -> target | nil: what a symlink says, as it
 * says it (exec_policy follows a path hop by hop to see where it passes). */
static int l_readlink(lua_State *L) {
    char out[PATH_MAX];
    ssize_t n = lcsb__facts_readlink(lcsb__lua_facts(L), luaL_checkstring(L, 1), out);
    if (n < 0) {
        luaL_pushfail(L);
        return 1;
    }
    lua_pushlstring(L, out, (size_t)n);
    return 1;
}

static int l_realpath(lua_State *L) {
    char out[PATH_MAX];
    const char *path = luaL_checkstring(L, 1);
    lcsb__facts *f = lcsb__lua_facts(L);
    if (!(f ? lcsb__facts_realpath(f, path, out) : lcsb__realpath(path, out))) {
        luaL_pushfail(L);
        lua_pushfstring(L, "%s: %s", path, strerror(errno));
        return 2;
    }
    lua_pushstring(L, out);
    return 1;
}

/* A directory's listing, owned by a userdata while Lua strings are made of
 * it: a push that runs out of memory leaves nothing behind. */
typedef struct listing {
    lcsb__strv names;
    char *kinds;
} listing;

static int listing_gc(lua_State *L) {
    listing *l = lua_touserdata(L, 1);
    lcsb__strv_clear(&l->names);
    free(l->kinds);
    l->kinds = NULL;
    return 0;
}

/* lcsb.listdir(path) -> PATH's entry names, sorted bytewise, without . and
 * .., and their kinds as the directory says ("file", "dir", "link", "other",
 * or "unknown" where the file system does not say) | nil, message */
static int l_listdir(lua_State *L) {
    const char *path = luaL_checkstring(L, 1);
    listing *l = lua_newuserdatauv(L, sizeof *l, 0);
    memset(l, 0, sizeof *l);
    lua_newtable(L);
    lua_pushcfunction(L, listing_gc);
    lua_setfield(L, -2, "__gc");
    lua_setmetatable(L, -2);
    if (lcsb__facts_listdir(lcsb__lua_facts(L), path, &l->names, &l->kinds) != 0) {
        luaL_pushfail(L);
        lua_pushfstring(L, "%s: %s", path, strerror(errno));
        return 2;
    }
    lua_createtable(L, (int)l->names.n, 0);
    lua_createtable(L, (int)l->names.n, 0);
    for (size_t i = 0; i < l->names.n; i++) {
        lua_pushstring(L, l->names.v[i]);
        lua_rawseti(L, -3, (lua_Integer)i + 1);
        char k = l->kinds[i];
        lua_pushstring(L, k == 'f'   ? "file"
                          : k == 'd' ? "dir"
                          : k == 'l' ? "link"
                          : k == '?' ? "unknown"
                                     : "other");
        lua_rawseti(L, -2, (lua_Integer)i + 1);
    }
    return 2;
}

/* A file's kind by its mode, as peek names it. */
static const char *mode_kind(mode_t mode) {
    return S_ISDIR(mode) ? "dir" : S_ISREG(mode) ? "file" : S_ISSOCK(mode) ? "socket" : "other";
}

/* The directory peek reads, owned by a userdata: a push that runs out of
 * memory leaves it to be closed by the collector. */
typedef struct peeked {
    DIR *dir;
} peeked;

static void peeked_close(peeked *p) {
    if (p->dir) closedir(p->dir);
    p->dir = NULL;
}

static int peeked_gc(lua_State *L) {
    peeked_close(lua_touserdata(L, 1));
    return 0;
}

/* lcsb.core.peek(path, max) -> kind [, names, kinds] | false | nil, message:
 * what PATH is, links followed ("file", "dir", "socket" or "other"), and
 * for a directory the names directly in it and their kinds, links followed
 * too ("link" for one that leads nowhere), in the directory's order; false
 * when nothing is there; nil and why when the directory cannot be read or
 * holds more than MAX names. One level and at most MAX entries, each
 * looked at once: the hints ask it of a directory they would offer, whose
 * size is the command's to choose. */
static int l_peek(lua_State *L) {
    const char *path = check_path(L, 1);
    lua_Integer max = luaL_checkinteger(L, 2);
    luaL_argcheck(L, max >= 0 && max <= 1 << 20, 2, "from 0 to 1048576");
    struct stat st;
    if (stat(path, &st) != 0) {
        if (errno == ENOENT || errno == ENOTDIR) {
            lua_pushboolean(L, 0);
            return 1;
        }
        luaL_pushfail(L);
        lua_pushfstring(L, "%s: %s", path, strerror(errno));
        return 2;
    }
    if (!S_ISDIR(st.st_mode)) {
        lua_pushstring(L, mode_kind(st.st_mode));
        return 1;
    }
    peeked *p = lua_newuserdatauv(L, sizeof *p, 0);
    p->dir = NULL;
    lua_newtable(L);
    lua_pushcfunction(L, peeked_gc);
    lua_setfield(L, -2, "__gc");
    lua_setmetatable(L, -2);
    int fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd >= 0 && !(p->dir = fdopendir(fd))) close(fd);
    if (!p->dir) {
        luaL_pushfail(L);
        lua_pushfstring(L, "%s: %s", path, strerror(errno));
        return 2;
    }
    lua_pushliteral(L, "dir");
    lua_newtable(L);
    lua_newtable(L);
    lua_Integer n = 0;
    struct dirent *d;
    while ((errno = 0, d = readdir(p->dir)) != NULL) {
        if (strcmp(d->d_name, ".") == 0 || strcmp(d->d_name, "..") == 0) continue;
        if (n == max) {
            peeked_close(p);
            luaL_pushfail(L);
            lua_pushfstring(L, "%s: more than %I entries", path, max);
            return 2;
        }
        const char *kind = d->d_type == DT_DIR    ? "dir"
                           : d->d_type == DT_REG  ? "file"
                           : d->d_type == DT_SOCK ? "socket"
                                                  : "other";
        if (d->d_type == DT_LNK || d->d_type == DT_UNKNOWN) {
            struct stat at;
            kind = fstatat(dirfd(p->dir), d->d_name, &at, 0) == 0 ? mode_kind(at.st_mode)
                   : d->d_type == DT_LNK                          ? "link"
                                                                  : "other";
        }
        n++;
        lua_pushstring(L, d->d_name);
        lua_rawseti(L, -3, n);
        lua_pushstring(L, kind);
        lua_rawseti(L, -2, n);
    }
    int failed = errno;
    peeked_close(p);
    if (failed) {
        luaL_pushfail(L);
        lua_pushfstring(L, "%s: %s", path, strerror(failed));
        return 2;
    }
    return 3;
}

/* ---- lcsb.hold: the placeholder .git (hold.c) ---- */

typedef struct hold_ud {
    lcsb_hold *hold;
} hold_ud;

/* lcsb.hold(path) -> hold | nil, message, unwritable: PATH made, or taken as
 * it is when it is an empty directory, and held for this run. UNWRITABLE is
 * true when this user may not make it (then neither may a command it runs). */
static int l_hold(lua_State *L) {
    const char *path = check_path(L, 1);
    hold_ud *h = lua_newuserdatauv(L, sizeof *h, 0);
    h->hold = NULL;
    luaL_setmetatable(L, HOLD_MT);
    bool unwritable;
    lcsb_error err;
    int rc = lcsb_hold_acquire(path, &h->hold, &unwritable, &err);
    if (rc == LCSB_ENOMEM) return luaL_error(L, "out of memory");
    if (rc) {
        luaL_pushfail(L);
        lua_pushstring(L, err.message);
        lua_pushboolean(L, unwritable);
        return 3;
    }
    return 1;
}

/* hold:release() -> true | nil, message: removes the directory unless another
 * run still holds it (then that run will); lets go either way. Collected or
 * closed, a hold is released the same way. */
static int l_hold_release(lua_State *L) {
    hold_ud *h = luaL_checkudata(L, 1, HOLD_MT);
    lcsb_error err;
    int rc = lcsb_hold_release(h->hold, &err);
    h->hold = NULL;
    return lcsb__lua_outcome(L, rc, &err);
}

/* lcsb.ttys() -> the terminals on stdin, stdout and stderr, each once */
static int l_ttys(lua_State *L) {
    lua_newtable(L);
    int n = 0;
    char seen[3][PATH_MAX];
    for (int fd = 0; fd <= 2; fd++) {
        if (ttyname_r(fd, seen[n], sizeof seen[n]) != 0) continue;
        bool dup = false;
        for (int i = 0; i < n; i++) dup |= strcmp(seen[i], seen[n]) == 0;
        if (dup) continue;
        lua_pushstring(L, seen[n]);
        lua_rawseti(L, -2, ++n);
    }
    return 1;
}

/* lcsb.normalize(path) -> the policy's lexical normal form | nil, message */
static int l_normalize(lua_State *L) {
    char out[PATH_MAX];
    lcsb_error err;
    size_t len;
    const char *path = luaL_checklstring(L, 1, &len);
    if (strlen(path) != len) { /* C would see only what precedes the NUL: a parent */
        luaL_pushfail(L);
        lua_pushfstring(L, "path: %s: holds a NUL byte", path);
        return 2;
    }
    if (lcsb__path_normalize("path", path, out, &err)) return lcsb__lua_fail(L, err.message);
    lua_pushstring(L, out);
    return 1;
}

/* lcsb.core.system_prefix(path) -> the system prefix PATH is or holds ("/",
 * "/usr", "/tmp", a multiarch library directory, ...), or nil: a directory
 * no write or exec grant may name (rule 3), so a hint must not suggest it.
 * Lexical, on PATH normalized; nil for a path that does not normalize. */
static int l_system_prefix(lua_State *L) {
    char out[PATH_MAX];
    lcsb_error err;
    size_t len;
    const char *path = luaL_checklstring(L, 1, &len);
    const char *prefix = strlen(path) == len && !lcsb__path_normalize("path", path, out, &err)
                             ? lcsb__system_prefix_within(out)
                             : NULL;
    if (!prefix) {
        luaL_pushfail(L);
        return 1;
    }
    lua_pushstring(L, prefix);
    return 1;
}

/* ---- lcsb.changed: what a run changed in the project (changed.c) ---- */

/* The list at the top of the stack, of at most 64 strings that CHECK
 * accepts (else WHAT for NAME), as a NULL-terminated array anchored on
 * ANCHOR; the strings are kept alive by the watch table. */
static const char *const *watch_list(lua_State *L, int anchor, const char *name,
                                     bool (*check)(const char *, size_t), const char *what) {
    lua_Integer n = (lua_Integer)lua_rawlen(L, -1);
    if (n > 64) luaL_error(L, "changed: watch '%s': more than 64 entries in a list", name);
    const char **list = lua_newuserdatauv(L, ((size_t)n + 1) * sizeof *list, 0);
    for (lua_Integer i = 1; i <= n; i++) {
        size_t len;
        lua_rawgeti(L, -2, i);
        const char *item = lua_tolstring(L, -1, &len);
        if (lua_type(L, -1) != LUA_TSTRING || strlen(item) != len || !check(item, len))
            luaL_error(L, "changed: watch '%s': entry %d %s", name, (int)i, what);
        list[i - 1] = item;
        lua_pop(L, 1);
    }
    list[n] = NULL;
    lua_rawsetp(L, anchor, list); /* the userdata lives as long as the anchor */
    return list;
}

static bool inside_ok(const char *part, size_t len) {
    const char *slash = strchr(part, '/');
    return len > 0 && strcmp(part, "..") != 0 && (!slash || strcmp(slash, "/*") == 0) &&
           slash != part;
}

static bool parent_ok(const char *name, size_t len) { return len > 0 && !strchr(name, '/'); }

/* How a watch looks at its entry (the value at the top of the stack): true
 * (itself), "tree" (it and all below), or a list of paths inside it. */
static void check_look(lua_State *L, int anchor, lcsb__watch *w) {
    if (lua_type(L, -1) == LUA_TBOOLEAN && lua_toboolean(L, -1)) {
        w->how = LCSB__WATCH_SELF;
    } else if (lua_type(L, -1) == LUA_TSTRING && strcmp(lua_tostring(L, -1), "tree") == 0) {
        w->how = LCSB__WATCH_TREE;
    } else if (lua_istable(L, -1)) {
        w->how = LCSB__WATCH_INSIDE;
        w->inside = watch_list(L, anchor, w->name, inside_ok, "is not NAME, NAME/*, * or .");
    } else {
        luaL_error(L, "changed: watch '%s': expected true, \"tree\" or a list", w->name);
    }
}

/* What a watch says about an entry: how it looks at it, or a table with
 * that as `look`, and `parents` (names of the directory the entry must be
 * directly in) and `kind` ("link", "gitdir") to narrow which entries. */
static void check_watch(lua_State *L, int anchor, lcsb__watch *w) {
    size_t len;
    const char *name = lua_tolstring(L, -2, &len);
    bool rooted = name[0] == '/';
    if (len == 0 || strlen(name) != len || (rooted && len == 1) || (!rooted && strchr(name, '/')) ||
        strcmp(name, ".") == 0 || strcmp(name, "..") == 0)
        luaL_error(L, "changed: watched name '%s' is neither a file name nor /PATH", name);
    *w = (lcsb__watch){.name = name};
    bool spec = false;
    if (lua_istable(L, -1)) {
        spec = lua_getfield(L, -1, "look") != LUA_TNIL;
        if (!spec) lua_pop(L, 1);
    }
    check_look(L, anchor, w);
    if (!spec) return;
    lua_pop(L, 1);
    if (lua_getfield(L, -1, "parents") != LUA_TNIL) {
        if (!lua_istable(L, -1)) luaL_error(L, "changed: watch '%s': parents is a list", name);
        w->parents = watch_list(L, anchor, name, parent_ok, "is not a file name");
    }
    lua_pop(L, 1);
    const char *kind = (lua_getfield(L, -1, "kind"), lua_tostring(L, -1));
    if (kind && strcmp(kind, "link") == 0)
        w->kind = LCSB__KIND_LINK;
    else if (kind && strcmp(kind, "gitdir") == 0)
        w->kind = LCSB__KIND_GITDIR;
    else if (!lua_isnil(L, -1))
        luaL_error(L, "changed: watch '%s': kind is \"link\" or \"gitdir\"", name);
    lua_pop(L, 1);
}

static int l_changed_gc(lua_State *L) {
    lcsb__changed_free(luaL_checkudata(L, 1, CHANGED_MT));
    return 0;
}

static void push_unseen(lua_State *L, const lcsb__unseen *u, const char *what) {
    if (!u->n) return;
    lua_createtable(L, 0, 3);
    lua_pushstring(L, u->first);
    lua_setfield(L, -2, "first");
    lua_pushinteger(L, (lua_Integer)u->n);
    lua_setfield(L, -2, "n");
    if (u->error) {
        lua_pushstring(L, strerror(u->error));
        lua_setfield(L, -2, "error");
    }
    lua_setfield(L, -2, what);
}

/* OPTS[KEY] (OPTS at IDX), a list of at most 64 strings (paths when
 * PATHS), as a NULL-terminated array anchored on the stack; NULL when
 * absent. */
static const char *const *name_list(lua_State *L, int idx, const char *key, bool paths) {
    if (lua_getfield(L, idx, key) != LUA_TTABLE) {
        lua_pop(L, 1);
        return NULL;
    }
    lua_Integer n = (lua_Integer)lua_rawlen(L, -1);
    if (n > 64) luaL_error(L, "changed: more than 64 entries in %s", key);
    const char **list = lua_newuserdatauv(L, ((size_t)n + 1) * sizeof *list, 0);
    for (lua_Integer i = 1; i <= n; i++) {
        lua_rawgeti(L, -2, i);
        /* Kept alive by the list, which stays on the stack. */
        list[i - 1] = paths ? check_path(L, -1) : luaL_checkstring(L, -1);
        lua_pop(L, 1);
    }
    list[n] = NULL;
    return list;
}

/* lcsb.changed(root, since, watch [, opts]) -> entries, info | nil, message
 * What under ROOT changed since SINCE (nanoseconds, lcsb.fs_now()'s clock),
 * among the entries WATCH names: { [name] = true | "tree" | { inside... } },
 * a name a file name matched at any depth or "/PATH" from ROOT, either of
 * them maybe a pattern (fnmatch); or [name] = { look = one of those,
 * parents = { names of the directory it must be directly in }, kind =
 * "link" | "gitdir" }. OPTS:
 * skip (directories not entered), shallow (names of directories below which
 * only each package's root is listed), entries, depth (the walk's bounds).
 * ENTRIES: { path (from ROOT), kind, watch (its key), id ("DEV:INO", but
 * for a tree's), parts, parts_n } each;
 * INFO: visited, cut (at the entries bound), full (at LCSB__WALK_FOUND
 * entries found), and deep and unreadable ({ first, n, error }). */
static int l_changed(lua_State *L) {
    const char *root = check_path(L, 1);
    lua_Integer since = luaL_checkinteger(L, 2);
    luaL_argcheck(L, since >= 0, 2, "a time before 1970");
    luaL_checktype(L, 3, LUA_TTABLE);
    lua_settop(L, 4);
    lcsb__walk_opts o = {
        .since = {.tv_sec = (time_t)(since / 1000000000), .tv_nsec = (long)(since % 1000000000)}};
    if (!lua_isnil(L, 4)) {
        luaL_checktype(L, 4, LUA_TTABLE);
        lua_getfield(L, 4, "entries");
        lua_getfield(L, 4, "depth");
        lua_Integer entries = luaL_optinteger(L, -2, 0), depth = luaL_optinteger(L, -1, 0);
        luaL_argcheck(L, entries >= 0 && depth >= 0 && depth <= 4096, 4, "bounds out of range");
        o.entries_max = (size_t)entries;
        o.depth_max = (unsigned)depth;
        lua_pop(L, 2);
        o.skip = name_list(L, 4, "skip", true);
        o.shallow = name_list(L, 4, "shallow", false);
        /* The list and its userdata stay on the stack. */
    }
    lua_newtable(L); /* anchors what the watches point at */
    int anchor = lua_gettop(L);
    size_t n = 0;
    for (lua_pushnil(L); lua_next(L, 3); lua_pop(L, 1)) {
        if (lua_type(L, -2) != LUA_TSTRING) luaL_error(L, "changed: watched names are strings");
        n++;
    }
    lcsb__watch *watch = lua_newuserdatauv(L, (n ? n : 1) * sizeof *watch, 0);
    lua_rawsetp(L, anchor, watch);
    size_t i = 0;
    for (lua_pushnil(L); lua_next(L, 3); lua_pop(L, 1)) check_watch(L, anchor, &watch[i++]);
    o.watch = watch;
    o.watch_n = i;

    /* The result is owned by a userdata from before the walk, so that a
     * memory error while it is pushed leaves nothing behind. */
    lcsb__changed *c = lua_newuserdatauv(L, sizeof *c, 0);
    memset(c, 0, sizeof *c);
    luaL_setmetatable(L, CHANGED_MT);
    lcsb_error err;
    int rc = lcsb__changed_walk(root, &o, c, &err);
    if (rc == LCSB_ENOMEM) return luaL_error(L, "out of memory");
    if (rc) return lcsb__lua_fail(L, err.message);
    lua_createtable(L, (int)c->n, 0);
    for (size_t e = 0; e < c->n; e++) {
        const lcsb__changed_entry *entry = &c->v[e];
        lua_createtable(L, 0, 5);
        lua_pushstring(L, entry->path);
        lua_setfield(L, -2, "path");
        lua_pushstring(L, entry->kind);
        lua_setfield(L, -2, "kind");
        lua_pushstring(L, watch[entry->watch].name);
        lua_setfield(L, -2, "watch");
        if (entry->ino) {
            lua_pushfstring(L, "%I:%I", (lua_Integer)entry->dev, (lua_Integer)entry->ino);
            lua_setfield(L, -2, "id");
        }
        if (entry->parts_n) {
            lcsb__lua_push_argv(L, entry->parts.v);
            lua_setfield(L, -2, "parts");
            lua_pushinteger(L, (lua_Integer)entry->parts_n);
            lua_setfield(L, -2, "parts_n");
        }
        lua_rawseti(L, -2, (lua_Integer)e + 1);
    }
    lua_createtable(L, 0, 4);
    lua_pushinteger(L, (lua_Integer)c->visited);
    lua_setfield(L, -2, "visited");
    lua_pushboolean(L, c->cut);
    lua_setfield(L, -2, "cut");
    lua_pushboolean(L, c->full);
    lua_setfield(L, -2, "full");
    push_unseen(L, &c->deep, "deep");
    push_unseen(L, &c->unreadable, "unreadable");
    lcsb__changed_free(c);
    return 2;
}

/* lcsb.fs_now() -> now, in nanoseconds, as the file system stamps a change */
static int l_fs_now(lua_State *L) {
    struct timespec now = lcsb__fs_now();
    lua_pushinteger(L, (lua_Integer)now.tv_sec * 1000000000 + now.tv_nsec);
    return 1;
}

/* lcsb.read_regular(path, max) -> contents | nil, message: a regular file
 * of at most MAX bytes, never through a symlink, never waiting on a FIFO. */
static int l_read_regular(lua_State *L) {
    const char *path = check_path(L, 1);
    lua_Integer max = luaL_checkinteger(L, 2);
    luaL_argcheck(L, max >= 0 && max <= 64 << 20, 2, "from 0 to 64 MiB");
    char *data;
    size_t len;
    if (lcsb__read_regular(path, (size_t)max, true, &data, &len, NULL, NULL) != 0) {
        const char *why = errno == EINVAL  ? "not a regular file"
                          : errno == EFBIG ? "too large"
                                           : strerror(errno);
        luaL_pushfail(L);
        lua_pushfstring(L, "%s: %s", path, why);
        return 2;
    }
    /* A Lua string before the buffer goes (a memory error would leak it). */
    lua_pushlstring(L, data, len);
    free(data);
    return 1;
}

/* lcsb.cache_dir(project, rel) -> path | nil, message: the directory
 * PROJECT keeps in place of ~/REL (exec_policy's cache = { ... }), made on
 * demand, by its real path. */
static int l_cache_dir(lua_State *L) {
    const char *project = check_path(L, 1), *rel = check_path(L, 2);
    char out[PATH_MAX];
    lcsb_error err;
    if (lcsb__cache_make(project, rel, out, &err)) return lcsb__lua_fail(L, err.message);
    lua_pushstring(L, out);
    return 1;
}

/* lcsb.core.cache_root() -> path | nil, message: where every project's
 * caches are kept (lcsb_cache_dir's answer), made or not: exec_policy counts
 * it as the command's to write. */
static int l_cache_root(lua_State *L) {
    char out[PATH_MAX];
    lcsb_error err;
    if (lcsb_cache_dir(NULL, out, sizeof out, &err)) return lcsb__lua_fail(L, err.message);
    lua_pushstring(L, out);
    return 1;
}

static const luaL_Reg scope_methods[] = {
    {"mkdtemp", l_scope_mkdtemp},
    {"close", l_scope_close},
    {NULL, NULL},
};

static const luaL_Reg scope_meta[] = {
    {"__gc", l_scope_close},
    {"__close", l_scope_close},
    {NULL, NULL},
};

static const luaL_Reg hold_methods[] = {{"release", l_hold_release}, {NULL, NULL}};
static const luaL_Reg hold_meta[] = {
    {"__gc", l_hold_release}, {"__close", l_hold_release}, {NULL, NULL}};

const luaL_Reg lcsb__lua_host_functions[] = {
    {"scope", l_scope},
    {"which", l_which},
    {"kind", l_kind},
    {"lstat", l_lstat},
    {"readlink", l_readlink},
    {"realpath", l_realpath},
    {"normalize", l_normalize},
    {"system_prefix", l_system_prefix},
    {"ttys", l_ttys},
    {"listdir", l_listdir},
    {"peek", l_peek},
    {"mkdir", l_mkdir},
    {"rmdir", l_rmdir},
    {"symlink", l_symlink},
    {"hold", l_hold},
    {"changed", l_changed},
    {"fs_now", l_fs_now},
    {"read_regular", l_read_regular},
    {"compose_begin", l_compose_begin},
    {"compose_end", l_compose_end},
    {"cache_dir", l_cache_dir},
    {"cache_root", l_cache_root},
    {NULL, NULL},
};

void lcsb__lua_host_classes(lua_State *L) {
    lcsb__lua_new_class(L, SCOPE_MT, scope_meta, scope_methods);
    lcsb__lua_new_class(L, HOLD_MT, hold_meta, hold_methods);
    static const luaL_Reg changed_meta[] = {{"__gc", l_changed_gc}, {NULL, NULL}};
    static const luaL_Reg no_methods[] = {{NULL, NULL}};
    lcsb__lua_new_class(L, CHANGED_MT, changed_meta, no_methods);
}
