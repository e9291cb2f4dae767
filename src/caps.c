/* Caps: what no project policy may grant (caps.h), as files. Three files in
 * one format, lcsb's defaults, the administrator's and the user's, found,
 * each run as data in a Lua state of its own, merged so that the tightest
 * wins, and said back (JSON, lines, a Lua table). The check against a
 * policy needs no Lua and is a layer below (caps_check.c). */
#include "caps.h"

#include "installed.h"
#include "json.h"
#include "lua_util.h"
#include "path.h"
#include "policy.h"
#include "sha256.h"
#include "sys.h"
#include "trust.h"

#include <errno.h>
#include <fcntl.h>
#include <lauxlib.h>
#include <lua.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#ifndef LCSB_SYSCONFDIR
#define LCSB_SYSCONFDIR "/etc/lcsb"
#endif

/* A caps file is a few lines of data: these bound what a broken or hostile
 * one can cost, far above what a real one needs. */
#define CAPS_FILE_MAX ((size_t)1 << 20)    /* bytes */
#define CAPS_MEMORY_MAX ((size_t)16 << 20) /* bytes its Lua state may hold */
#define CAPS_HOOK_EVERY 10000              /* instructions between two counts */
#define CAPS_HOOK_MAX 1000                 /* counts: 10 million instructions */
#define CAPS_LIST_MAX 4096                 /* entries in one list */

/* ---- where the files are ---- */

/* NAME's value when it is an absolute path, into OUT (PATH_MAX bytes),
 * ".." taken as text: HOME=/home/u/../u is /home/u, as the trust store and
 * the policy take it, never a reason to look elsewhere. */
static bool env_path(const char *name, char *out) {
    const char *v = getenv(name);
    return v && v[0] == '/' && lcsb__trust_absolute(v, out);
}

/* DIR/LEAF, normalized, into OUT (PATH_MAX bytes); "" when DIR is "" or it
 * does not fit. */
static void join(char *out, const char *dir, const char *leaf) {
    char joined[PATH_MAX];
    int n = dir[0] ? snprintf(joined, sizeof joined, "%s/%s", dir, leaf) : -1;
    if (n < 0 || n >= PATH_MAX || lcsb__path_normalize("path", joined, out, NULL)) out[0] = '\0';
}

/* DIR, normalized ("//.config/lcsb" when HOME is "/"), unless it is there
 * already; a relative one by its real path, when it has one. */
static void add_own(lcsb__caps_places *places, const char *dir) {
    char norm[PATH_MAX], real[PATH_MAX];
    if (places->own_n == LCSB__CAPS_OWN_MAX || !dir[0]) return;
    if (dir[0] != '/' && !realpath(dir, real)) return;
    if (lcsb__path_normalize("own", dir[0] == '/' ? dir : real, norm, NULL)) return;
    for (size_t i = 0; i < places->own_n; i++)
        if (strcmp(places->own[i], norm) == 0) return;
    memcpy(places->own[places->own_n++], norm, strlen(norm) + 1);
}

/* The directory FILE is in. */
static void add_own_dir_of(lcsb__caps_places *places, const char *file) {
    char dir[PATH_MAX];
    snprintf(dir, sizeof dir, "%s", file);
    char *slash = strrchr(dir, '/');
    if (!slash) return;
    *(slash == dir ? slash + 1 : slash) = '\0';
    add_own(places, dir);
}

/* NAME in the directory of FILE, when it is there. */
static void add_beside(lcsb__caps_places *places, const char *file, const char *name) {
    char path[PATH_MAX];
    const char *slash = strrchr(file, '/');
    struct stat st;
    if (slash &&
        snprintf(path, sizeof path, "%.*s/%s", (int)(slash - file), file, name) <
            (int)sizeof path &&
        lstat(path, &st) == 0)
        add_own(places, path);
}

void lcsb__caps_places_find(lcsb__caps_places *places, const char *lua_dir, const char *system,
                            const char *user) {
    memset(places, 0, sizeof *places);
    if (!env_path("HOME", places->home)) {
        struct passwd *pw = getpwuid(getuid());
        if (!pw || !pw->pw_dir || lcsb__path_normalize("home", pw->pw_dir, places->home, NULL))
            places->home[0] = '\0';
    }
    char config[PATH_MAX], state[PATH_MAX], dir[PATH_MAX];
    if (!env_path("XDG_CONFIG_HOME", config)) join(config, places->home, ".config");
    if (!env_path("XDG_STATE_HOME", state)) join(state, places->home, ".local/state");

    /* As given: a relative LUA_DIR is one the process can open all the same. */
    int n = snprintf(places->defaults, PATH_MAX, "%s/lcsb/caps.lua", lua_dir ? lua_dir : ".");
    if (n < 0 || n >= PATH_MAX) places->defaults[0] = '\0';
    if (system)
        snprintf(places->system, sizeof places->system, "%s", system);
    else
        join(places->system, LCSB_SYSCONFDIR, "caps.lua");
    if (user)
        snprintf(places->user, sizeof places->user, "%s", user);
    else
        join(places->user, config, "lcsb/user.lua");

    /* lcsb's Lua files (exec_policy and the defaults), the administrator's
     * directory, the user's, the trust store: by the environment's names and
     * by the usual ones, which another run may use. */
    if (lua_dir) add_own_dir_of(places, places->defaults); /* not a guess in the cwd */
    add_own(places, LCSB_SYSCONFDIR);
    if (places->system[0]) add_own_dir_of(places, places->system);
    join(dir, config, "lcsb");
    add_own(places, dir);
    join(dir, places->home, ".config/lcsb");
    add_own(places, dir);
    if (places->user[0]) add_own_dir_of(places, places->user);
    join(dir, state, "lcsb");
    add_own(places, dir);
    join(dir, places->home, ".local/state/lcsb");
    add_own(places, dir);

    /* What runs the next command, outside any sandbox or before one is set
     * up: a command that replaced it would run unsandboxed next time. */
    char exe[PATH_MAX], shim[PATH_MAX], searched[PATH_MAX];
    if (lcsb__program_path(exe)) {
        add_own(places, exe);
        add_beside(places, exe, "lcsb-exec"); /* a build tree's layout */
        add_beside(places, exe, "liblcsb-record.so");
    }
    if (lcsb__installed_shim(shim, searched, sizeof shim)) {
        add_own(places, shim);
        add_beside(places, shim, "liblcsb-record.so");
    }
}

/* ---- reading one file ---- */

/* PATH's bytes into *TEXT (caller frees): *ABSENT when there is no file
 * there. Anything but a regular file of at most CAPS_FILE_MAX bytes is
 * refused: a FIFO would block, /dev/zero would never end. */
static int read_whole(const char *path, char **text, size_t *len, bool *absent, lcsb_error *err) {
    *absent = false;
    lcsb__file_seen seen;
    if (lcsb__read_regular(path, CAPS_FILE_MAX, false, text, len, NULL, &seen) == 0) {
        /* Asked of the descriptor it was read through: a caps file others
         * may write lets them loosen what it holds. */
        const struct stat *st = &seen.st;
        if ((st->st_uid == 0 || st->st_uid == geteuid()) && !(st->st_mode & 022)) return 0;
        free(*text);
        *text = NULL;
        return lcsb__fail(err, LCSB_EINVAL,
                          "caps file %s: %s, so lcsb takes nothing from it; make it root's or "
                          "yours, and writable by its owner alone",
                          path, st->st_mode & 022 ? "writable by others" : "owned by another user");
    }
    if (errno == ENOENT || errno == ENOTDIR) {
        *absent = true;
        return 0;
    }
    if (errno == ENOMEM) return lcsb__fail(err, LCSB_ENOMEM, "out of memory");
    if (errno == EINVAL)
        return lcsb__fail(err, LCSB_EINVAL, "caps file %s: not a regular file", path);
    if (errno == EFBIG)
        return lcsb__fail(err, LCSB_EINVAL, "caps file %s: larger than %zu KiB", path,
                          CAPS_FILE_MAX >> 10);
    int error = errno;
    /* setpriv and sudo leave HOME as it was: another user's caps file. */
    const char *home = getenv("HOME");
    size_t home_len = home ? strlen(home) : 0;
    struct stat home_st;
    char whose[PATH_MAX + 96] = "";
    if (error == EACCES && home_len > 1 && strncmp(path, home, home_len) == 0 &&
        path[home_len] == '/' && stat(home, &home_st) == 0 && home_st.st_uid != geteuid())
        snprintf(whose, sizeof whose,
                 " (HOME, %s, is another user's, as setpriv and sudo leave it: set HOME to your "
                 "own)",
                 home);
    return lcsb__fail(err, LCSB_EINVAL, "caps file %s: cannot read it: %s%s", path, strerror(error),
                      whose);
}

/* The Lua state's budget: memory (first, for lcsb__lua_capped_alloc) and
 * instructions. */
typedef struct budget {
    lcsb__lua_memory memory;
    unsigned counts;
} budget;

static void count_hook(lua_State *L, lua_Debug *ar) {
    (void)ar;
    void *ud;
    lua_getallocf(L, &ud);
    budget *b = ud;
    if (++b->counts > CAPS_HOOK_MAX) {
        lua_pushfstring(L, "ran past %d million instructions; a caps file is data",
                        CAPS_HOOK_EVERY * CAPS_HOOK_MAX / 1000000);
        lua_error(L);
    }
}

typedef struct load_args {
    const char *text;
    size_t len;
    const char *home;
    lcsb__caps_layer *into;
} load_args;

/* An error without a position: the caller names the file. */
static int fail_lua(lua_State *L, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    lua_pushvfstring(L, fmt, ap);
    va_end(ap);
    return lua_error(L);
}

static void push_or_raise(lua_State *L, lcsb__strv *sv, const char *s) {
    if (lcsb__strv_push(sv, s)) fail_lua(L, "out of memory");
}

/* The entries of the list at IDX, as key KEY, into LIST. */
static void read_paths(lua_State *L, int idx, const char *key, const char *home,
                       lcsb__caps_path_list *list) {
    if (!lua_istable(L, idx))
        fail_lua(L, "key '%s' must be a list of paths, not a %s", key, luaL_typename(L, idx));
    lua_Integer n = (lua_Integer)lua_rawlen(L, idx);
    if (n > CAPS_LIST_MAX) fail_lua(L, "key '%s': more than %d entries", key, CAPS_LIST_MAX);
    lua_pushnil(L);
    while (lua_next(L, idx)) {
        lua_pop(L, 1);
        if (!lua_isinteger(L, -1) || lua_tointeger(L, -1) < 1 || lua_tointeger(L, -1) > n)
            fail_lua(L, "key '%s' must be a list of paths (it has a key that is no index)", key);
    }
    for (lua_Integer i = 1; i <= n; i++) {
        if (lua_rawgeti(L, idx, i) != LUA_TSTRING)
            fail_lua(L, "key '%s': entry %d is a %s, not a path", key, (int)i,
                     luaL_typename(L, -1));
        size_t len;
        const char *written = lua_tolstring(L, -1, &len);
        if (strlen(written) != len) fail_lua(L, "key '%s': entry %d holds a NUL byte", key, (int)i);
        char expanded[PATH_MAX], norm[PATH_MAX] = "";
        bool tilde = strcmp(written, "~") == 0 || strncmp(written, "~/", 2) == 0;
        if (tilde && !home[0]) {
            /* No HOME: nothing there to keep. */
        } else {
            int fit = tilde ? snprintf(expanded, sizeof expanded, "%s%s", home, written + 1)
                            : snprintf(expanded, sizeof expanded, "%s", written);
            lcsb_error perr;
            if (fit < 0 || (size_t)fit >= sizeof expanded)
                fail_lua(L, "key '%s': entry %d is longer than %d bytes", key, (int)i, PATH_MAX);
            if (lcsb__path_normalize(key, expanded, norm, &perr))
                fail_lua(L, "key %s%s", perr.message,
                         tilde ? "" : " (paths are absolute, or ~/...)");
        }
        push_or_raise(L, &list->written, written);
        push_or_raise(L, &list->path, norm);
        lua_pop(L, 1);
    }
}

static int read_net(lua_State *L, int idx) {
    if (lua_type(L, idx) == LUA_TBOOLEAN)
        return lua_toboolean(L, idx) ? LCSB__CAPS_NET_OPEN : LCSB__CAPS_NET_NONE;
    const char *s = lua_type(L, idx) == LUA_TSTRING ? lua_tostring(L, idx) : "";
    for (int rank = LCSB__CAPS_NET_DOMAINS; rank <= LCSB__CAPS_NET_OPEN; rank++)
        if (strcmp(s, lcsb__caps_net_names[rank]) == 0) return rank;
    return fail_lua(L, "key 'net' must be false (no network), \"domains\" (named hosts through "
                       "lcsb's proxy at most), \"ports\" (TCP port lists at most) or \"open\"");
}

static unsigned read_degrade(lua_State *L, int idx) {
    if (lua_type(L, idx) == LUA_TBOOLEAN) return lua_toboolean(L, idx) ? LCSB_PARTS_ALL : 0;
    if (!lua_istable(L, idx))
        fail_lua(L, "key 'degrade' must be true, false or a list of part names, not a %s",
                 luaL_typename(L, idx));
    unsigned parts = 0;
    lua_Integer n = (lua_Integer)lua_rawlen(L, idx);
    for (lua_Integer i = 1; i <= n && i <= CAPS_LIST_MAX; i++) {
        lua_rawgeti(L, idx, i);
        unsigned part =
            lua_type(L, -1) == LUA_TSTRING ? lcsb_part_from_name(lua_tostring(L, -1)) : 0;
        if (!part) {
            /* The names on the stack: a raise must leave no memory unowned. */
            char names[256] = "";
            for (size_t p = 0; lcsb__part_names[p]; p++)
                snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s", p ? ", " : "",
                         lcsb__part_names[p]);
            fail_lua(L, "key 'degrade': entry %d is not a part name (expected one of: %s)", (int)i,
                     names);
        }
        parts |= part;
        lua_pop(L, 1);
    }
    return parts;
}

#define KEYS "allow, degrade, deny, deny_write, exec_any, net"

/* The table the file returned, at IDX, into A->into. */
static void read_layer(lua_State *L, int idx, load_args *a) {
    lcsb__caps_layer *l = a->into;
    lua_pushnil(L);
    while (lua_next(L, idx)) {
        int value = lua_gettop(L);
        const char *key = lua_type(L, -2) == LUA_TSTRING ? lua_tostring(L, -2) : NULL;
        if (key && strcmp(key, "deny") == 0)
            read_paths(L, value, key, a->home, &l->deny);
        else if (key && strcmp(key, "deny_write") == 0)
            read_paths(L, value, key, a->home, &l->deny_write);
        else if (key && strcmp(key, "allow") == 0)
            read_paths(L, value, key, a->home, &l->allow);
        else if (key && strcmp(key, "net") == 0)
            l->net = read_net(L, value);
        else if (key && strcmp(key, "exec_any") == 0) {
            if (!lua_isboolean(L, value)) fail_lua(L, "key 'exec_any' must be true or false");
            l->exec_any = lua_toboolean(L, value);
        } else if (key && strcmp(key, "degrade") == 0) {
            l->degrade = read_degrade(L, value);
            l->degrade_said = true;
        } else {
            lua_pushvalue(L, -2); /* tostring on a copy: lua_next needs the key as it is */
            const char *shown = lua_type(L, -1) == LUA_TSTRING || lua_type(L, -1) == LUA_TNUMBER
                                    ? lua_tostring(L, -1)
                                    : luaL_typename(L, -1);
            fail_lua(L, "unknown key '%s' (expected one of: %s)", shown, KEYS);
        }
        lua_settop(L, value - 1);
    }
}

static int pload(lua_State *L) {
    load_args *a = lua_touserdata(L, 1);
    /* "=" names no chunk: Lua's messages then start ":LINE:", and the
     * caller puts the whole path in front, which Lua would shorten. Text
     * only: precompiled chunks can crash the VM. */
    if (luaL_loadbufferx(L, a->text, a->len, "=", "t") != LUA_OK) return lua_error(L);
    lua_newtable(L); /* its _ENV: no library, no global */
    lua_setupvalue(L, -2, 1);
    lua_call(L, 0, 1);
    if (!lua_istable(L, -1))
        return fail_lua(L, "returned a %s; expected a table of caps", luaL_typename(L, -1));
    read_layer(L, lua_gettop(L), a);
    return 0;
}

static void clear_list(lcsb__caps_path_list *list) {
    lcsb__strv_clear(&list->written);
    lcsb__strv_clear(&list->path);
}

static void clear_layer(lcsb__caps_layer *l) {
    clear_list(&l->deny);
    clear_list(&l->deny_write);
    clear_list(&l->allow);
}

/* Load L->path (when there is a file there) into L. */
static int load_layer(lcsb__caps_layer *l, const char *home, bool required, lcsb_error *err) {
    l->net = l->exec_any = -1;
    if (!l->path[0])
        return required
                   ? lcsb__fail(err, LCSB_EINVAL, "lcsb's defaults (caps.lua): no path to them")
                   : 0;
    char *text;
    size_t len;
    bool absent;
    int rc = read_whole(l->path, &text, &len, &absent, err);
    if (rc) return rc;
    if (absent)
        return required ? lcsb__fail(err, LCSB_EINVAL,
                                     "caps file %s: missing; lcsb's defaults are part of lcsb "
                                     "(reinstall it, or say where its Lua files are)",
                                     l->path)
                        : 0;
    l->present = true;
    lcsb__sha256_of(text, len, l->sha256);
    budget b = {.memory = {.max = CAPS_MEMORY_MAX}};
    lua_State *L = lua_newstate(lcsb__lua_capped_alloc, &b);
    if (!L) {
        free(text);
        return lcsb__fail(err, LCSB_ENOMEM, "out of memory");
    }
    lua_sethook(L, count_hook, LUA_MASKCOUNT, CAPS_HOOK_EVERY);
    load_args args = {.text = text, .len = len, .home = home, .into = l};
    lua_pushcfunction(L, pload);
    lua_pushlightuserdata(L, &args);
    int status = lua_pcall(L, 1, 0, 0);
    if (status == LUA_ERRMEM)
        rc = lcsb__fail(err, LCSB_EINVAL, "caps file %s: ran out of memory (it may use %zu MiB)",
                        l->path, CAPS_MEMORY_MAX >> 20);
    else if (status != LUA_OK) {
        const char *msg = lua_type(L, -1) == LUA_TSTRING ? lua_tostring(L, -1) : NULL;
        if (!msg) msg = "raised an error that is not a string";
        rc = lcsb__fail(err, LCSB_EINVAL, "caps file %s%s%s", l->path, msg[0] == ':' ? "" : ": ",
                        msg);
    }
    lua_close(L);
    free(text);
    return rc;
}

/* ---- merging ---- */

static int add_cap(lcsb__caps *c, const char *path, const char *written, lcsb__cap_kind kind,
                   lcsb__caps_role from) {
    if (!path[0]) return 0;
    lcsb__cap_path *grown = realloc(c->paths, (c->n + 1) * sizeof *grown);
    if (!grown) return LCSB_ENOMEM;
    c->paths = grown;
    c->paths[c->n++] =
        (lcsb__cap_path){.path = path, .written = written, .kind = kind, .from = from};
    return 0;
}

/* Does an allow of the system's or the user's file take lcsb's default PATH back? */
static bool allowed(const lcsb__caps *c, const char *path) {
    for (int r = LCSB__CAPS_DEFAULTS; r < LCSB__CAPS_ROLES; r++)
        for (size_t i = 0; i < c->layers[r].allow.path.n; i++) {
            const char *a = c->layers[r].allow.path.v[i];
            if (a[0] && lcsb__path_within(path, a)) return true;
        }
    return false;
}

static int add_list(lcsb__caps *c, const lcsb__caps_path_list *list, lcsb__cap_kind kind,
                    lcsb__caps_role from) {
    int rc = 0;
    for (size_t i = 0; !rc && i < list->path.n; i++)
        if (from != LCSB__CAPS_DEFAULTS || !allowed(c, list->path.v[i]))
            rc = add_cap(c, list->path.v[i], list->written.v[i], kind, from);
    return rc;
}

int lcsb__caps_load(const lcsb__caps_places *places, lcsb__caps **out, lcsb_error *err) {
    *out = NULL;
    lcsb__caps *c = calloc(1, sizeof *c);
    if (!c) return lcsb__fail(err, LCSB_ENOMEM, "out of memory");
    snprintf(c->layers[LCSB__CAPS_DEFAULTS].path, PATH_MAX, "%s", places->defaults);
    snprintf(c->layers[LCSB__CAPS_SYSTEM].path, PATH_MAX, "%s", places->system);
    snprintf(c->layers[LCSB__CAPS_USER].path, PATH_MAX, "%s", places->user);
    int rc = 0;
    for (int r = LCSB__CAPS_DEFAULTS; !rc && r < LCSB__CAPS_ROLES; r++)
        rc = load_layer(&c->layers[r], places->home, r == LCSB__CAPS_DEFAULTS, err);
    for (size_t i = 0; !rc && i < places->own_n; i++)
        if (lcsb__strv_push(&c->own, places->own[i])) rc = LCSB_ENOMEM;
    for (int r = LCSB__CAPS_DEFAULTS; !rc && r < LCSB__CAPS_ROLES; r++) {
        rc = add_list(c, &c->layers[r].deny, LCSB__CAP_DENY, (lcsb__caps_role)r);
        if (!rc)
            rc = add_list(c, &c->layers[r].deny_write, LCSB__CAP_DENY_WRITE, (lcsb__caps_role)r);
    }
    for (size_t i = 0; !rc && i < c->own.n; i++)
        rc = add_cap(c, c->own.v[i], c->own.v[i], LCSB__CAP_DENY_WRITE, LCSB__CAPS_OWN);
    if (rc == LCSB_ENOMEM) lcsb__fail(err, rc, "out of memory");
    if (rc) {
        lcsb__caps_free(c);
        return rc;
    }
    *out = c;
    return 0;
}

void lcsb__caps_free(lcsb__caps *caps) {
    if (!caps) return;
    for (int r = 0; r < LCSB__CAPS_ROLES; r++) clear_layer(&caps->layers[r]);
    lcsb__strv_clear(&caps->own);
    free(caps->paths);
    free(caps);
}

/* ---- saying what is in force ---- */

char *lcsb__caps_json(const lcsb__caps *caps) {
    lcsb__buf b = {0};
    lcsb__buf_adds(&b, "[");
    bool first = true;
    for (int r = LCSB__CAPS_DEFAULTS; r < LCSB__CAPS_ROLES; r++) {
        const lcsb__caps_layer *l = &caps->layers[r];
        if (!l->present) continue;
        lcsb__buf_adds(&b, first ? "{\"file\":" : ",{\"file\":");
        lcsb__buf_add_json_string(&b, l->path);
        lcsb__buf_addf(&b, ",\"sha256\":\"%s\"}", l->sha256);
        first = false;
    }
    lcsb__buf_adds(&b, "]");
    if (b.oom) {
        lcsb__buf_free(&b);
        return NULL;
    }
    return b.p;
}

char **lcsb__caps_lines(const lcsb__caps *caps) {
    int net = LCSB__CAPS_NET_OPEN, exec_any = 1;
    unsigned degrade = LCSB_PARTS_ALL;
    size_t denied = 0, unwritable = 0;
    for (int r = LCSB__CAPS_DEFAULTS; r < LCSB__CAPS_ROLES; r++) {
        const lcsb__caps_layer *l = &caps->layers[r];
        if (l->net >= 0 && l->net < net) net = l->net;
        if (l->exec_any == 0) exec_any = 0;
        if (l->degrade_said) degrade &= l->degrade;
    }
    for (size_t i = 0; i < caps->n; i++) {
        denied += caps->paths[i].kind == LCSB__CAP_DENY;
        unwritable += caps->paths[i].kind == LCSB__CAP_DENY_WRITE;
    }
    lcsb__buf one = {0}, two = {0};
    lcsb__buf_addf(&one,
                   "caps (the most any policy may ask): %zu paths denied, %zu never writable; "
                   "net up to %s, exec any %s, degrade ",
                   denied, unwritable, lcsb__caps_net_names[net], exec_any ? "allowed" : "refused");
    if (degrade == LCSB_PARTS_ALL)
        lcsb__buf_adds(&one, "any part");
    else if (degrade == 0)
        lcsb__buf_adds(&one, "nothing");
    else
        lcsb__add_part_names(&one, degrade, "", ", ");
    static const char *const roles[] = {"lcsb's defaults", "system", "user"};
    lcsb__buf_adds(&two, "caps files:");
    for (int r = LCSB__CAPS_DEFAULTS; r < LCSB__CAPS_ROLES; r++) {
        const lcsb__caps_layer *l = &caps->layers[r];
        lcsb__buf_addf(&two, "%s %s %s%s", r ? "," : "", roles[r], l->path[0] ? l->path : "(none)",
                       l->path[0] && !l->present ? " (absent)" : "");
    }
    lcsb__strv lines = {0};
    bool oom =
        one.oom || two.oom || lcsb__strv_push(&lines, one.p) || lcsb__strv_push(&lines, two.p);
    lcsb__buf_free(&one);
    lcsb__buf_free(&two);
    if (oom) {
        lcsb__strv_clear(&lines);
        return NULL;
    }
    return lcsb__strv_take(&lines);
}

void lcsb__caps_push(struct lua_State *L, const lcsb__caps *caps) {
    lua_createtable(L, 0, 2);
    lua_newtable(L); /* deny */
    lua_newtable(L); /* deny_write */
    lua_Integer n[2] = {0, 0};
    for (size_t i = 0; caps && i < caps->n; i++) {
        int which = caps->paths[i].kind == LCSB__CAP_DENY_WRITE;
        lua_pushstring(L, caps->paths[i].written);
        lua_rawseti(L, which ? -2 : -3, ++n[which]);
    }
    lua_setfield(L, -3, "deny_write");
    lua_setfield(L, -2, "deny");
    lua_createtable(L, caps ? (int)caps->own.n : 0, 0);
    for (size_t i = 0; caps && i < caps->own.n; i++) {
        lua_pushstring(L, caps->own.v[i]);
        lua_rawseti(L, -2, (lua_Integer)i + 1);
    }
    lua_setfield(L, -2, "own");
}
