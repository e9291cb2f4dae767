/* What exec_policy needs from the disk: which programs (and their
 * interpreters), which kind of file, real paths, a directory's entries, a
 * look into a directory the hints would offer, a regular file read, and a
 * directory or symlink made. While a composition runs they ask through its
 * facts (lua_facts.c). Misuse raises; expected operational failures return
 * nil, message. */
#include "lua_files.h"

#include "facts.h"
#include "lua_facts.h"
#include "lua_util.h"
#include "resolve.h"
#include "sys.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <lauxlib.h>
#include <limits.h>
#include <lua.h>
#include <pwd.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* NAME's files, and with LOCATED where NAME was found. */
static int which(lua_State *L, bool located) {
    size_t len;
    const char *name = luaL_checklstring(L, 1, &len);
    char **files = NULL;
    char at[PATH_MAX];
    lcsb_error err;
    if (strlen(name) != len) { /* C would resolve only what precedes the NUL */
        luaL_pushfail(L);
        lua_pushfstring(L, "exec: %s: holds a NUL byte", name);
        return 2;
    }
    if (lcsb__resolve_program_at(lcsb__lua_facts(L), name, &files, located ? at : NULL, &err))
        return lcsb__lua_fail(L, err.message);
    lcsb__lua_push_argv(L, files);
    lcsb_argv_free(files);
    if (!located) return 1;
    lua_pushstring(L, at);
    return 2;
}

/* lcsb.which(name) -> { program, interpreter... } | nil, message */
static int l_which(lua_State *L) { return which(L, false); }

/* lcsb.core.which_at(name) -> { program, interpreter... }, where name was found
 * (the path as named, or the first PATH entry's that holds it, as execvp
 * finds it) | nil, message */
static int l_which_at(lua_State *L) { return which(L, true); }

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
    const char *path = lcsb__lua_check_path(L, 1);
    return push_outcome(L, mkdir(path, (mode_t)luaL_optinteger(L, 2, 0755)), path);
}

/* lcsb.symlink(target, path) -> true | nil, message: PATH made a symlink
 * to TARGET (never replacing what is there) */
static int l_symlink(lua_State *L) {
    const char *target = lcsb__lua_check_path(L, 1), *path = lcsb__lua_check_path(L, 2);
    return push_outcome(L, symlink(target, path), path);
}

/* lcsb.rmdir(path) -> true | nil, message (an empty directory only) */
static int l_rmdir(lua_State *L) {
    const char *path = lcsb__lua_check_path(L, 1);
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

/* lcsb.core.executable(path) -> whether this process may execute what
 * PATH leads to (its mode: root too needs an x bit). */
static int l_executable(lua_State *L) {
    lua_pushboolean(L, lcsb__facts_executable(lcsb__lua_facts(L), luaL_checkstring(L, 1)));
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
    lcsb__lua_push_identity(L, (lua_Integer)st.st_dev, (lua_Integer)st.st_ino);
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

/* passes_through's question at each step of the way: is AT (LEN bytes) in
 * the set at stack index 2, as Lua's truth goes ("/" holding everything)? */
typedef struct way_set {
    lua_State *L;
    bool everywhere;
} way_set;

static bool in_way_set(void *ctx, const char *at, size_t len) {
    way_set *w = ctx;
    if (w->everywhere) return true;
    lua_pushlstring(w->L, at, len);
    lua_gettable(w->L, 2);
    bool in = lua_toboolean(w->L, -1);
    lua_pop(w->L, 1);
    return in;
}

/* lcsb.core.passes_through(path, set) -> whether resolving PATH passes
 * through SET (paths as keys): a directory on the way, or a symlink read on
 * the way, lies in it (lcsb__facts_walk's way, through the composition's
 * facts: asked of hundreds of paths a composition). A way that cannot be
 * followed to its end (more than 40 links, longer than LCSB__WALK_MAX, a
 * NUL in PATH) is trusted nowhere: it answers yes. */
static int l_passes_through(lua_State *L) {
    size_t len;
    const char *path = luaL_checklstring(L, 1, &len);
    luaL_checktype(L, 2, LUA_TTABLE);
    way_set set = {.L = L};
    lua_getfield(L, 2, "/");
    set.everywhere = lua_toboolean(L, -1);
    lua_pop(L, 1);
    char at[LCSB__WALK_MAX];
    bool through = strlen(path) != len || lcsb__facts_walk(lcsb__lua_facts(L), path, false, at,
                                                           sizeof at, in_way_set, &set) != 0;
    lua_pushboolean(L, through);
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
    const char *path = lcsb__lua_check_path(L, 1);
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

/* lcsb.read_regular(path, max) -> contents | nil, message: a regular file
 * of at most MAX bytes, never through a symlink, never waiting on a FIFO. */
static int l_read_regular(lua_State *L) {
    const char *path = lcsb__lua_check_path(L, 1);
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

/* lcsb.dir_has(dir, name) -> true | false, by DIR's listing, made once a
 * run | nil where that cannot tell (DIR too large to list for a name, not
 * there, not a directory): ask for the entry itself */
static int l_dir_has(lua_State *L) {
    const char *dir = lcsb__lua_check_path(L, 1), *name = luaL_checkstring(L, 2);
    int has = lcsb__facts_dir_has(lcsb__lua_facts(L), dir, name);
    if (has < 0)
        lua_pushnil(L);
    else
        lua_pushboolean(L, has);
    return 1;
}

/* lcsb.core.owner(path) -> uid, user name | nil (none known) | nil: who
 * owns PATH (a symlink as itself), from the disk as it is now (a hint's
 * question, after the run) */
static int l_owner(lua_State *L) {
    struct stat st;
    if (lstat(lcsb__lua_check_path(L, 1), &st) != 0) {
        luaL_pushfail(L);
        return 1;
    }
    lua_pushinteger(L, (lua_Integer)st.st_uid);
    struct passwd pw, *found = NULL;
    char buf[4096];
    if (getpwuid_r(st.st_uid, &pw, buf, sizeof buf, &found) == 0 && found)
        lua_pushstring(L, found->pw_name);
    else
        lua_pushnil(L);
    return 2;
}

const luaL_Reg lcsb__lua_files_functions[] = {
    {"dir_has", l_dir_has},
    {"which", l_which},
    {"which_at", l_which_at},
    {"kind", l_kind},
    {"lstat", l_lstat},
    {"readlink", l_readlink},
    {"realpath", l_realpath},
    {"passes_through", l_passes_through},
    {"executable", l_executable},
    {"listdir", l_listdir},
    {"peek", l_peek},
    {"mkdir", l_mkdir},
    {"rmdir", l_rmdir},
    {"symlink", l_symlink},
    {"read_regular", l_read_regular},
    {"owner", l_owner},
    {NULL, NULL},
};
